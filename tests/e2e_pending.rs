//! The engine end to end: no service before the cluster is provisioned.

mod common;

use std::time::Duration;

use common::cases::*;
use common::*;
use hmc_tui::api::names::service_release_name;
use hmc_tui::api::{ManagedCluster, ServiceState};
use hmc_tui::flux::HelmRelease;
use kube::api::Api;
use serde_json::json;

/// No service is installed before the cluster is provisioned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_wait_for_the_cluster_to_be_provisioned() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "pend").await;
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "later", json!([])).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let msg = eventually("the service to be Pending", INSTALL, || async {
        let (state, msg) = service_state(&mcs, "later", "ingress-nginx").await?;
        (state == ServiceState::Pending && msg.contains("provisioned")).then_some(msg)
    })
    .await;
    assert!(
        msg.contains("waiting for the cluster to be provisioned"),
        "{msg}"
    );
    // The cluster's own release exists; no service release does, once the
    // engine has seen what that release made: the cluster's Cluster API
    // cluster, not provisioned, which the service still waits for.
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually("the cluster release", Duration::from_secs(60), || async {
        releases.get_opt("later").await.ok()?.map(|_| ())
    })
    .await;
    let seen = "control plane not initialized yet";
    // One status, so that both say what one reconcile saw.
    let (state, msg) = eventually(
        "the engine to see the Cluster API cluster",
        INSTALL,
        || async {
            let st = status_of(&mcs, "later").await?;
            let cluster = st.conditions.iter().find(|c| c.type_ == "ClusterReady")?;
            let service = st.services.iter().find(|s| s.name == "ingress-nginx")?;
            let msg = service.message.clone().unwrap_or_default();
            (cluster.message.contains(seen) && msg.contains(seen)).then_some((service.state, msg))
        },
    )
    .await;
    assert_eq!(state, ServiceState::Pending, "{msg}");
    assert!(
        releases
            .get_opt(&service_release_name("later", "ingress-nginx"))
            .await
            .unwrap()
            .is_none()
    );
    let (ready, _) = condition(&mcs, "later", "ClusterReady").await.unwrap();
    assert_eq!(ready, "False");

    mcs.delete("later", &Default::default()).await.unwrap();
    eventually("the cluster to be deleted", INSTALL, || async {
        mcs.get_opt("later").await.ok()?.is_none().then_some(())
    })
    .await;
    engine.stop().await;
    ns.cleanup().await;
}
