//! A ManagedCluster whose name matches a Cluster API cluster that it did
//! not make gets no services: nothing goes through that cluster's
//! kubeconfig secret, and the engine puts no finalizer on it.

mod common;

use common::cases::*;
use common::*;
use hmc_tui::api::labels::ROLE;
use hmc_tui::api::{ManagedCluster, ManagedClusterStatus, ServiceState};
use hmc_tui::flux::HelmRelease;
use kube::ResourceExt;
use kube::api::{Api, DynamicObject, ListParams};
use serde_json::json;

/// The reason and message of the condition `type_` of a status.
fn said(st: &ManagedClusterStatus, type_: &str) -> Option<(String, String)> {
    st.conditions
        .iter()
        .find(|c| c.type_ == type_)
        .map(|c| (c.reason.clone(), c.message.clone()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_managed_cluster_named_after_a_cluster_it_did_not_make_gets_no_services() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "foreign").await;
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;

    // Someone else's cluster, made by hand as the harness admin (no Helm
    // release made it), provisioned by the harness as a provider would:
    // its control plane is up and its kubeconfig secret written.
    let capi: Api<DynamicObject> =
        Api::namespaced_with(mgmt.clone(), &ns.name, &common::capi::clusters());
    common::capi::make(&mgmt, &ns.name, "taken", false)
        .await
        .expect("the hand-made cluster");
    provision(&ns.name, "taken", 1).await;
    let made = capi.get("taken").await.expect("the hand-made cluster");

    // A ManagedCluster of the same name, whose template has a service.
    managed_cluster(&mgmt, &ns.name, "taken", json!([])).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);

    // Its cluster part reports the conflict.
    let (reason, message) = eventually(
        "the cluster to report that its Cluster API cluster is another's",
        INSTALL,
        || async {
            // Ready says it too once the template is ready, as the
            // console's list shows it.
            let status = status_of(&mcs, "taken").await?;
            said(&status, "Ready").filter(|(reason, _)| reason == "NameConflict")?;
            said(&status, "ClusterReady").filter(|(reason, _)| reason == "NameConflict")
        },
    )
    .await;
    assert_eq!(reason, "NameConflict");
    assert!(
        message.contains(&format!("Cluster API cluster {}/taken", ns.name))
            && message.contains("was not made by this cluster's chart")
            && message.contains("no service is installed into it"),
        "{message}"
    );
    // Its services wait, and say why.
    let status = status_of(&mcs, "taken").await.expect("a status");
    let (reason, services_message) =
        said(&status, "ServicesReady").expect("a ServicesReady condition");
    assert_eq!(reason, "ForeignCluster", "{services_message}");
    assert!(
        services_message.starts_with("waits for a cluster of its own: Cluster API cluster"),
        "{services_message}"
    );
    let (state, why) = service_state(&mcs, "taken", "ingress-nginx")
        .await
        .expect("the service's status");
    assert_eq!(state, ServiceState::Pending, "{why}");
    assert!(
        why.contains("was not made by this cluster's chart"),
        "{why}"
    );
    let mc = mcs.get("taken").await.unwrap();
    let status_text = serde_json::to_string(&mc.status).unwrap();
    assert!(
        !status_text.contains("HelmRelease"),
        "status speaks our words: {status_text}"
    );
    // The console's list row shows the same words.
    let (ready, _, shown) = hmc_tui::tui::model::health::cluster_ready(&mc);
    assert_eq!(ready, "False");
    assert!(
        shown.contains("was not made by this cluster's chart"),
        "{shown}"
    );

    // No service release exists.
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let services: Vec<String> = releases
        .list(&ListParams::default().labels(&format!("{ROLE}=service")))
        .await
        .unwrap()
        .items
        .iter()
        .map(|r| r.name_any())
        .collect();
    assert!(services.is_empty(), "service releases: {services:?}");
    let before = engine.counters.writes();
    assert!(
        before > 0,
        "the engine wrote the cluster's release and status"
    );

    // Deleting the ManagedCluster leaves the other's cluster and secret as
    // they were.
    mcs.delete("taken", &Default::default()).await.unwrap();
    eventually("the ManagedCluster to be gone", INSTALL, || async {
        mcs.get_opt("taken").await.ok()?.is_none().then_some(())
    })
    .await;
    let after = capi
        .get("taken")
        .await
        .expect("the other's cluster is left");
    assert_eq!(after.uid(), made.uid(), "the same cluster, not made again");
    assert!(after.metadata.deletion_timestamp.is_none());
    secret_finalizers(&mgmt, &ns.name, "taken-kubeconfig")
        .await
        .expect("the kubeconfig secret is left");

    engine.stop().await;
    ns.cleanup().await;
}
