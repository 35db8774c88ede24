//! The engine end to end against the real harness: services follow templates into provisioned clusters.

mod common;

use std::time::Duration;

use common::cases::*;
use common::*;
use hmc_tui::api::ManagedCluster;
use hmc_tui::flux::HelmRelease;
use kube::ResourceExt;
use kube::api::Api;
use serde_json::json;

/// Two clusters get ingress-nginx with merged values; a resync writes
/// nothing; disabling removes it from one cluster only; deleting a cluster
/// uninstalls its services before the cluster itself, and leaves nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn services_follow_templates_into_provisioned_clusters() {
    let mgmt = mgmt().await;
    let (child1, child2) = (child(1).await, child(2).await);
    let ns = TestNamespace::create(&mgmt, "life").await;
    let target = format!("{}-ingress", ns.name);
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(
        &mgmt,
        &ns.name,
        "dev-1",
        json!([
            {"name": "ingress-nginx", "values": "controller:\n  replicaCount: 2\n"}
        ]),
    )
    .await;
    managed_cluster(&mgmt, &ns.name, "dev-2", json!([])).await;
    provision(&ns.name, "dev-1", 1).await;
    provision(&ns.name, "dev-2", 2).await;

    // Merged values reach each child cluster: the cluster override wins.
    let r1 = eventually("ingress-nginx Available on child-1", INSTALL, || {
        available_replicas(&child1, &target)
    })
    .await;
    let r2 = eventually("ingress-nginx Available on child-2", INSTALL, || {
        available_replicas(&child2, &target)
    })
    .await;
    assert_eq!(
        (r1, r2),
        (2, 1),
        "dev-1 overrides controller.replicaCount to 2"
    );
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    for name in ["dev-1", "dev-2"] {
        until_ready(&mcs, name, INSTALL).await;
        let st = status_of(&mcs, name).await.unwrap();
        assert_eq!(st.services_ready.as_deref(), Some("1/1"));
        assert_eq!(st.services[0].version.as_deref(), Some("4.11.3"));
        assert_eq!(st.services[0].revision, Some(1));
        let text = serde_json::to_string(&st).unwrap();
        assert!(
            !text.contains("HelmRelease"),
            "status speaks our words: {text}"
        );
    }

    // A restarted engine finds nothing to do: zero writes.
    engine.stop().await;
    let engine = RunningEngine::start(&ns.name).await;
    eventually(
        "the new engine to reconcile every object",
        Duration::from_secs(60),
        || {
            let n = engine.counters.reconciles();
            async move { (n >= 4).then_some(()) }
        },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        engine.counters.writes(),
        0,
        "a resync of an unchanged world must not write"
    );

    // A template still in use cannot be deleted.
    let cts: Api<hmc_tui::api::ClusterTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    cts.delete("demo", &Default::default()).await.unwrap();
    let why = eventually(
        "the template to say it is in use",
        Duration::from_secs(30),
        || async {
            let ct = cts.get_opt("demo").await.ok().flatten()?;
            ct.status?
                .chart
                .validation_error
                .filter(|m| m.contains("in use"))
        },
    )
    .await;
    assert!(
        why.contains("ManagedCluster dev-1") && why.contains("ManagedCluster dev-2"),
        "{why}"
    );

    // Disable the service on dev-2: uninstalled there, kept on dev-1.
    managed_cluster(
        &mgmt,
        &ns.name,
        "dev-2",
        json!([{"name": "ingress-nginx", "disable": true}]),
    )
    .await;
    eventually("ingress-nginx gone from child-2", INSTALL, || async {
        deployment_replicas(&child2, &target)
            .await
            .is_none()
            .then_some(())
    })
    .await;
    assert_eq!(
        deployment_replicas(&child1, &target).await,
        Some(2),
        "dev-1 keeps its service"
    );
    eventually(
        "dev-2 to list no services",
        Duration::from_secs(60),
        || async {
            status_of(&mcs, "dev-2")
                .await
                .filter(|s| s.services.is_empty())
                .map(|_| ())
        },
    )
    .await;

    // Delete dev-1: services leave the child before the cluster release goes.
    mcs.delete("dev-1", &Default::default()).await.unwrap();
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let mut service_gone_first = None;
    let start = std::time::Instant::now();
    loop {
        let cluster_release = releases.get_opt("dev-1").await.unwrap();
        let cluster_deleting = cluster_release
            .as_ref()
            .is_none_or(|r| r.metadata.deletion_timestamp.is_some());
        if cluster_deleting && service_gone_first.is_none() {
            service_gone_first = Some(deployment_replicas(&child1, &target).await.is_none());
        }
        if mcs.get_opt("dev-1").await.unwrap().is_none() {
            break;
        }
        assert!(
            start.elapsed() < INSTALL,
            "timed out waiting for dev-1 to be deleted\n{}",
            logs_hint()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        service_gone_first,
        Some(true),
        "services are uninstalled before the cluster release goes"
    );
    let left: Vec<String> = releases
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .iter()
        .filter(|r| {
            r.labels()
                .get("hmc.mirantis.com/managed-cluster")
                .map(String::as_str)
                == Some("dev-1")
        })
        .map(|r| r.name_any())
        .collect();
    assert!(left.is_empty(), "nothing of dev-1 is left: {left:?}");
    let capi = common::capi::clusters();
    let capi_api: Api<kube::api::DynamicObject> =
        Api::namespaced_with(mgmt.clone(), &ns.name, &capi);
    assert!(
        capi_api.get_opt("dev-1").await.unwrap().is_none(),
        "the cluster's own objects are gone"
    );

    mcs.delete("dev-2", &Default::default()).await.unwrap();
    eventually("the template to go once unused", INSTALL, || async {
        cts.get_opt("demo").await.ok()?.is_none().then_some(())
    })
    .await;
    engine.stop().await;
    drop_child_namespace(&child1, &target).await;
    drop_child_namespace(&child2, &target).await;
    ns.cleanup().await;
}
