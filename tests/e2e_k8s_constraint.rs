//! The engine end to end: a ServiceTemplate's `k8sConstraint` against the
//! Kubernetes version its cluster template states.

mod common;

use common::cases::*;
use common::*;
use hmc_tui::api::{ManagedCluster, ServiceState, ServiceTemplate};
use kube::api::Api;
use serde_json::json;

/// A service whose range does not admit the cluster's version is not
/// installed and says so; one whose range admits it installs; a range that
/// does not parse makes its template invalid. Ranges read as hmc reads them
/// (Masterminds semver): `1.27 - 1.28 || 1.29` admits 1.29.0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_outside_the_clusters_kubernetes_is_not_installed() {
    let mgmt = mgmt().await;
    let child = child(3).await;
    let ns = TestNamespace::create(&mgmt, "k8sc").await;
    let target = format!("{}-ingress", ns.name);
    let engine = RunningEngine::start(&ns.name).await;
    let service_template = |name: &str, range: &str| {
        format!(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: {name}\n\
             spec:\n  k8sConstraint: \"{range}\"\n  helm:\n    chartName: ingress-nginx\n    \
             chartVersion: 4.11.3\n    repository:\n      url: {repo}\n---\n",
            repo = upstream_repo_url()
        )
    };
    let yaml = format!(
        r#"{too_new}{fits}{bad}apiVersion: hmc.mirantis.com/v1alpha1
kind: ClusterTemplate
metadata:
  name: old-k8s
spec:
  k8sVersion: "1.29.0"
  helm:
    chartName: hmc-test-cluster
    chartVersion: 0.1.0
    repository:
      url: {repo}
  services:
    - name: too-new
      template: ingress-too-new
      namespace: {ns}-too-new
    - name: ingress-nginx
      template: ingress-fits
      namespace: {target}
      values: {values}
"#,
        too_new = service_template("ingress-too-new", ">=1.30"),
        fits = service_template("ingress-fits", "1.27 - 1.28 || 1.29"),
        bad = service_template("ingress-bad-range", ">=1.28 ||| <1.20"),
        repo = chart_repo_url(),
        ns = ns.name,
        values = serde_json::to_string(&chart_values(&fullname(&ns.name), &target)).unwrap(),
    );
    apply_yaml(&mgmt, &ns.name, &yaml).await;
    managed_cluster_from(&mgmt, &ns.name, "dev-1", "old-k8s", json!([])).await;
    provision(&ns.name, "dev-1", 3).await;

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let (state, msg) = eventually("too-new to be refused", INSTALL, || async {
        let (state, msg) = service_state(&mcs, "dev-1", "too-new").await?;
        msg.contains("needs Kubernetes").then_some((state, msg))
    })
    .await;
    assert_eq!(state, ServiceState::Failed);
    assert_eq!(msg, "too-new needs Kubernetes >=1.30, cluster runs 1.29.0");
    eventually("ingress-nginx to be Installed", INSTALL, || async {
        let (state, _) = service_state(&mcs, "dev-1", "ingress-nginx").await?;
        (state == ServiceState::Installed).then_some(())
    })
    .await;
    eventually("the admitted service to run", INSTALL, || async {
        available_replicas(&child, &target).await
    })
    .await;
    // Nothing of the refused service reached the child.
    let (state, _) = service_state(&mcs, "dev-1", "too-new").await.unwrap();
    assert_eq!(state, ServiceState::Failed);
    let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(child.clone());
    let refused_ns = format!("{}-too-new", ns.name);
    assert!(namespaces.get_opt(&refused_ns).await.unwrap().is_none());

    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let why = eventually("the bad range to be invalid", INSTALL, || async {
        let status = sts.get_opt("ingress-bad-range").await.ok()??.status?;
        (!status.valid).then_some(status.validation_error?)
    })
    .await;
    assert!(
        why.starts_with(
            "spec.k8sConstraint: \">=1.28 ||| <1.20\" is not a Kubernetes version constraint"
        ),
        "{why}"
    );

    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("the cluster to be deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;
    engine.stop().await;
    drop_child_namespace(&child, &target).await;
    ns.cleanup().await;
}
