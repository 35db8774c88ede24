//! The engine end to end: `services[].dependsOn`. A service waits, and says
//! for what, until the services it depends on are Installed; dependencies
//! that can never be met make the template invalid.

mod common;

use common::cases::*;
use common::*;
use hmc_tui::api::{ClusterTemplate, ManagedCluster, ServiceState};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::Api;
use serde_json::json;

/// The upstream ingress-nginx chart as a ServiceTemplate named `name`.
fn service_template(name: &str) -> String {
    format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: {name}\n\
         spec:\n  helm:\n    chartName: ingress-nginx\n    chartVersion: 4.11.3\n    \
         repository:\n      url: {repo}\n---\n",
        repo = upstream_repo_url()
    )
}

/// A ClusterTemplate named `name` with `services` (YAML list items).
fn cluster_template(name: &str, services: &str) -> String {
    format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata:\n  name: {name}\n\
         spec:\n  helm:\n    chartName: hmc-test-cluster\n    chartVersion: 0.1.0\n    \
         repository:\n      url: {repo}\n  services:\n{services}---\n",
        repo = chart_repo_url()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_waits_for_what_it_depends_on() {
    let mgmt = mgmt().await;
    let child = child(2).await;
    let ns = TestNamespace::create(&mgmt, "deps").await;
    let engine = RunningEngine::start(&ns.name).await;
    let (base_ns, ingress_ns) = (format!("{}-base", ns.name), format!("{}-ingress", ns.name));
    // Each install gets names of its own: they share one child.
    let values = |name: &str, namespace: &str| {
        chart_values(name, namespace)
            .lines()
            .map(|l| format!("        {l}\n"))
            .collect::<String>()
    };
    let services = format!(
        "    - name: ingress-nginx\n      template: ingress-nginx-4-11-3\n      \
         namespace: {ingress_ns}\n      dependsOn: [base]\n      values: |\n{}\
         \x20   - name: base\n      template: base-1-0\n      namespace: {base_ns}\n      \
         values: |\n{}",
        values(&format!("{}-nginx", ns.name), &ingress_ns),
        values(&format!("{}-base", ns.name), &base_ns),
    );
    // The template `base` comes from does not exist yet.
    let yaml = format!(
        "{}{}",
        service_template("ingress-nginx-4-11-3"),
        cluster_template("ordered", &services)
    );
    apply_yaml(&mgmt, &ns.name, &yaml).await;
    managed_cluster_from(&mgmt, &ns.name, "dev-1", "ordered", json!([])).await;
    provision(&ns.name, "dev-1", 2).await;

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let (state, msg) = eventually("ingress-nginx to wait for base", INSTALL, || async {
        let (state, msg) = service_state(&mcs, "dev-1", "ingress-nginx").await?;
        msg.contains("waits for").then_some((state, msg))
    })
    .await;
    assert_eq!(state, ServiceState::Pending);
    assert_eq!(
        msg,
        "waits for base (Failed) to be installed first (dependsOn)"
    );
    let (base_state, base_msg) = service_state(&mcs, "dev-1", "base").await.unwrap();
    assert_eq!(base_state, ServiceState::Failed, "{base_msg}");
    // The status lists the services in install order.
    let order: Vec<String> = status_of(&mcs, "dev-1")
        .await
        .unwrap()
        .services
        .iter()
        .map(|s| s.name.clone())
        .collect();
    assert_eq!(order, ["base", "ingress-nginx"]);
    // Nothing of the waiting service reached the child.
    let namespaces: Api<Namespace> = Api::all(child.clone());
    assert!(namespaces.get_opt(&ingress_ns).await.unwrap().is_none());

    // Once base can be installed, both are, base first.
    apply_yaml(&mgmt, &ns.name, &service_template("base-1-0")).await;
    eventually("both services Installed", INSTALL, || async {
        let st = status_of(&mcs, "dev-1").await?;
        st.services
            .iter()
            .all(|s| s.state == ServiceState::Installed)
            .then_some(())
    })
    .await;
    eventually("base to run in the child", INSTALL, || async {
        available_release(&child, &base_ns, "base").await
    })
    .await;
    eventually("ingress-nginx to run in the child", INSTALL, || async {
        available_replicas(&child, &ingress_ns).await
    })
    .await;

    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("the cluster to be deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;
    engine.stop().await;
    drop_child_namespace(&child, &base_ns).await;
    drop_child_namespace(&child, &ingress_ns).await;
    ns.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dependencies_that_can_never_be_met_make_the_template_invalid() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "deps-bad").await;
    let engine = RunningEngine::start(&ns.name).await;
    let yaml = format!(
        "{}{}{}",
        service_template("ingress-nginx-4-11-3"),
        cluster_template(
            "cyclic",
            "    - name: a\n      template: ingress-nginx-4-11-3\n      dependsOn: [b]\n\
             \x20   - name: b\n      template: ingress-nginx-4-11-3\n      dependsOn: [a]\n"
        ),
        cluster_template(
            "typo",
            "    - name: cert-manager\n      template: ingress-nginx-4-11-3\n\
             \x20   - name: ingress-nginx\n      template: ingress-nginx-4-11-3\n      \
             dependsOn: [cert-manger]\n"
        ),
    );
    apply_yaml(&mgmt, &ns.name, &yaml).await;
    let cts: Api<ClusterTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let invalid = |name: &'static str| {
        let cts = cts.clone();
        async move {
            eventually(&format!("{name} to be invalid"), INSTALL, || async {
                let status = cts.get_opt(name).await.ok()??.status?;
                (!status.chart.valid).then_some(status.chart.validation_error?)
            })
            .await
        }
    };
    assert_eq!(
        invalid("cyclic").await,
        "spec.services[0].dependsOn: a is part of a dependency cycle: a → b → a"
    );
    assert_eq!(
        invalid("typo").await,
        "spec.services[1].dependsOn: ingress-nginx depends on cert-manger, which is not a service of this template"
    );
    engine.stop().await;
    ns.cleanup().await;
}
