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

/// Where the harness serves the upstream ingress-nginx charts (4.11.3 and
/// 4.11.4, vendored in `tests/fixtures/charts/upstream`).
pub fn upstream_repo_url() -> String {
    std::env::var("HMC_UPSTREAM_CHART_REPO")
        .unwrap_or_else(|_| format!("{}/upstream", chart_repo_url()))
}

/// The name a test's install of the upstream chart takes (its
/// `fullnameOverride`): the chart names its cluster-wide objects (ClusterRole,
/// ClusterRoleBinding, webhook configuration) after it, so each install that
/// shares a child cluster with another needs a name of its own. The
/// templates of namespace `ns` use this one.
pub fn fullname(ns: &str) -> String {
    format!("{ns}-nginx")
}

/// The controller's Deployment, Service and ConfigMap of an install named
/// `fullname`.
pub fn controller_name(fullname: &str) -> String {
    format!("{fullname}-controller")
}

/// Values that let the upstream ingress-nginx chart share a kwok child
/// cluster with other installs: its cluster-wide objects and its
/// IngressClass are named `name`; its Service needs no load balancer; its
/// admission webhook (`failurePolicy: Fail`, and nothing serves it on kwok)
/// covers `namespace` only. The `controller:` block comes last, so that a
/// caller may append more keys under it. `name` has at most 42 characters:
/// the chart names the webhook's Service `<name>-controller-admission`.
pub fn chart_values(name: &str, namespace: &str) -> String {
    format!(
        "fullnameOverride: {name}\ncontroller:\n  service:\n    type: ClusterIP\n  \
         ingressClassResource:\n    name: {name}\n  admissionWebhooks:\n    namespaceSelector:\n      \
         matchLabels:\n        kubernetes.io/metadata.name: {namespace}\n"
    )
}

/// The upstream ingress-nginx ServiceTemplate and a ClusterTemplate that
/// installs it into `<ns>-ingress` with template-level values.
pub async fn templates(mgmt: &Client, ns: &str) {
    let values = chart_values(&fullname(ns), &format!("{ns}-ingress"));
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
      url: {upstream}
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
      values: {values}
"#,
        repo = chart_repo_url(),
        upstream = upstream_repo_url(),
        values = serde_json::to_string(&values).unwrap(),
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

/// The controller Deployment of Helm release `release` in namespace `ns` of
/// a child, found by the labels both the upstream chart and the stand-in
/// give it (its name follows the install's `fullnameOverride`).
pub async fn controller(child: &Client, ns: &str, release: &str) -> Option<Deployment> {
    let api: Api<Deployment> = Api::namespaced(child.clone(), ns);
    let selector =
        format!("app.kubernetes.io/instance={release},app.kubernetes.io/component=controller");
    let list = api
        .list(&kube::api::ListParams::default().labels(&selector))
        .await
        .ok()?;
    list.items.into_iter().next()
}

/// Available replicas of the controller of Helm release `release`.
pub async fn available_release(child: &Client, ns: &str, release: &str) -> Option<i32> {
    available_of(controller(child, ns, release).await?)
}

/// Available replicas of a Deployment, once it is Available.
pub fn available_of(d: Deployment) -> Option<i32> {
    let status = d.status?;
    let available = status
        .conditions?
        .iter()
        .any(|c| c.type_ == "Available" && c.status == "True");
    available.then(|| status.available_replicas.unwrap_or(0))
}

pub async fn deployment_replicas(child: &Client, ns: &str) -> Option<i32> {
    controller(child, ns, "ingress-nginx").await?.spec?.replicas
}

/// Removes namespace `ns` of a child, and what Helm installed cluster-wide
/// for a release in it (the upstream chart's RBAC, IngressClass and webhook
/// configuration): a passing test's uninstall leaves none, a failed run may.
pub async fn drop_child_namespace(child: &Client, ns: &str) {
    use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
    use k8s_openapi::api::networking::v1::IngressClass;
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    drop_released::<ClusterRole>(child, ns).await;
    drop_released::<ClusterRoleBinding>(child, ns).await;
    drop_released::<ValidatingWebhookConfiguration>(child, ns).await;
    drop_released::<IngressClass>(child, ns).await;
    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(child.clone());
    let _ = api.delete(ns, &Default::default()).await;
}

/// Deletes the cluster-wide objects of kind `K` that Helm marks as belonging
/// to a release in namespace `ns`.
async fn drop_released<K>(child: &Client, ns: &str)
where
    K: kube::Resource<Scope = k8s_openapi::ClusterResourceScope>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
    K::DynamicType: Default,
{
    let api: Api<K> = Api::all(child.clone());
    let Ok(list) = api.list_metadata(&Default::default()).await else {
        return;
    };
    for o in list.items {
        let ours = o
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get("meta.helm.sh/release-namespace"))
            .is_some_and(|n| n == ns);
        if let (true, Some(name)) = (ours, o.metadata.name) {
            let _ = api.delete(&name, &Default::default()).await;
        }
    }
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

/// Has the release controller reconcile release `name` of `ns` again
/// (Flux's `reconcile.fluxcd.io/requestedAt`) and waits until it says it
/// did (`status.lastHandledReconcileAt`): a positive marker that it has
/// looked at the release since now.
pub async fn release_reconciled(mgmt: &Client, ns: &str, name: &str) {
    use kube::api::{Patch, PatchParams};
    let api = releases_as_json(mgmt, ns);
    let token = format!("{:?}", std::time::SystemTime::now());
    let patch = json!({"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": token}}});
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .unwrap_or_else(|e| panic!("ask for a reconcile of release {name}: {e}"));
    let what = format!("the release controller to reconcile {name} again");
    eventually(&what, INSTALL, || async {
        let r = api.get_opt(name).await.ok()??;
        let handled = r.data.pointer("/status/lastHandledReconcileAt")?.as_str()?;
        (handled == token).then_some(())
    })
    .await;
}

/// The releases of `ns` as JSON: what of their status our types leave out.
pub fn releases_as_json(mgmt: &Client, ns: &str) -> Api<kube::api::DynamicObject> {
    Api::namespaced_with(mgmt.clone(), ns, &helm_release())
}

/// How many times in a row the release controller failed to install or
/// upgrade release `name` (`status.failures`).
pub async fn release_failures(mgmt: &Client, ns: &str, name: &str) -> Option<i64> {
    let r = releases_as_json(mgmt, ns).get_opt(name).await.ok()??;
    Some(
        r.data
            .pointer("/status/failures")
            .and_then(|f| f.as_i64())
            .unwrap_or(0),
    )
}
