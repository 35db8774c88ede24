//! Helpers shared by the engine's end-to-end tests.
#![allow(dead_code)]

use std::time::Duration;

use hmc_tui::api::{ManagedCluster, ServiceState};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::{Api, ListParams};
use serde_json::json;

use super::*;

pub const INSTALL: Duration = Duration::from_secs(300);

pub fn chart_repo_url() -> String {
    std::env::var("HMC_CHART_REPO").unwrap_or_else(|_| "http://127.0.0.1:18080".into())
}

/// The ingress-nginx ServiceTemplate and a ClusterTemplate that installs it
/// into `<ns>-ingress` with template-level values.
pub async fn templates(mgmt: &Client, ns: &str) {
    let yaml = format!(
        r#"
apiVersion: hmc.mirantis.com/v1alpha1
kind: ServiceTemplate
metadata:
  name: ingress-nginx-4-11-3
spec:
  helm:
    chartName: ingress-nginx
    chartVersion: 4.11.3
    repository:
      url: {repo}
---
apiVersion: hmc.mirantis.com/v1alpha1
kind: ClusterTemplate
metadata:
  name: demo
spec:
  helm:
    chartName: hmc-test-cluster
    chartVersion: 0.1.0
    repository:
      url: {repo}
  services:
    - name: ingress-nginx
      template: ingress-nginx-4-11-3
      namespace: {ns}-ingress
      values: |
        controller:
          service:
            type: ClusterIP
          ingressClassResource:
            name: {ns}-nginx
"#,
        repo = chart_repo_url()
    );
    apply_yaml(mgmt, ns, &yaml).await;
}

pub async fn managed_cluster(mgmt: &Client, ns: &str, name: &str, services: serde_json::Value) {
    managed_cluster_from(mgmt, ns, name, "demo", services).await
}

/// A ManagedCluster made from `template`, with per-cluster `services`.
pub async fn managed_cluster_from(
    mgmt: &Client,
    ns: &str,
    name: &str,
    template: &str,
    services: serde_json::Value,
) {
    let ar = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ManagedCluster",
        "managedclusters",
    );
    apply_json(
        mgmt,
        &ar,
        Some(ns),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
            "metadata": {"name": name},
            "spec": {"template": template, "services": services},
        }),
    )
    .await;
}

pub async fn status_of(
    api: &Api<ManagedCluster>,
    name: &str,
) -> Option<hmc_tui::api::ManagedClusterStatus> {
    api.get_opt(name).await.ok().flatten()?.status
}

pub async fn service_state(
    api: &Api<ManagedCluster>,
    cluster: &str,
    service: &str,
) -> Option<(ServiceState, String)> {
    let st = status_of(api, cluster).await?;
    let s = st.services.iter().find(|s| s.name == service)?;
    Some((s.state, s.message.clone().unwrap_or_default()))
}

pub async fn condition(
    api: &Api<ManagedCluster>,
    cluster: &str,
    type_: &str,
) -> Option<(String, String)> {
    let st = status_of(api, cluster).await?;
    let c = st.conditions.iter().find(|c| c.type_ == type_)?;
    Some((c.status.clone(), c.message.clone()))
}

/// Waits until the cluster's `Ready` condition is True.
pub async fn until_ready(api: &Api<ManagedCluster>, cluster: &str, within: std::time::Duration) {
    super::eventually(&format!("{cluster} Ready"), within, || async {
        let (status, _) = condition(api, cluster, "Ready").await?;
        (status == "True").then_some(())
    })
    .await;
}

pub async fn available_replicas(child: &Client, ns: &str) -> Option<i32> {
    available_release(child, ns, "ingress-nginx").await
}

/// Available replicas of the stand-in controller of Helm release `release`.
pub async fn available_release(child: &Client, ns: &str, release: &str) -> Option<i32> {
    let api: Api<Deployment> = Api::namespaced(child.clone(), ns);
    let d = api
        .get_opt(&format!("{release}-controller"))
        .await
        .ok()
        .flatten()?;
    let status = d.status?;
    let available = status
        .conditions?
        .iter()
        .any(|c| c.type_ == "Available" && c.status == "True");
    available.then(|| status.available_replicas.unwrap_or(0))
}

pub async fn deployment_replicas(child: &Client, ns: &str) -> Option<i32> {
    let api: Api<Deployment> = Api::namespaced(child.clone(), ns);
    api.get_opt("ingress-nginx-controller")
        .await
        .ok()
        .flatten()?
        .spec?
        .replicas
}

pub async fn drop_child_namespace(child: &Client, ns: &str) {
    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(child.clone());
    let _ = api.delete(ns, &Default::default()).await;
}

/// Helm's release records in namespace `ns` of a child cluster.
pub async fn release_records(child: &Client, ns: &str) -> Vec<String> {
    let api: Api<Secret> = Api::namespaced(child.clone(), ns);
    api.list_metadata(&ListParams::default().fields("type=helm.sh/release.v1"))
        .await
        .map(|l| {
            l.items
                .into_iter()
                .filter_map(|s| s.metadata.name)
                .collect()
        })
        .unwrap_or_default()
}

/// The finalizers a kubeconfig secret carries.
pub async fn secret_finalizers(mgmt: &Client, ns: &str, name: &str) -> Option<Vec<String>> {
    let api: Api<Secret> = Api::namespaced(mgmt.clone(), ns);
    let s = api.get_metadata_opt(name).await.ok().flatten()?;
    Some(s.metadata.finalizers.unwrap_or_default())
}
