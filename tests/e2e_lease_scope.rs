//! A namespace-scoped engine never starves the rest of the management
//! cluster: a cluster-wide engine started after it serves every other
//! namespace, the two never write the same object, and the cluster-wide
//! engine takes the namespace back once the scoped engine is gone.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::cases::*;
use common::headless::*;
use common::*;
use hmc_tui::flux::HelmRelease;
use kube::api::Api;
use serde_json::json;

async fn has_release(mgmt: &kube::Client, ns: &str, name: &str) -> Option<()> {
    let api: Api<HelmRelease> = Api::namespaced(mgmt.clone(), ns);
    api.get_opt(name).await.ok()?.map(|_| ())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespace_engine_and_a_cluster_engine_share_the_cluster() {
    let mgmt = mgmt().await;
    let a = TestNamespace::create(&mgmt, "scope-a").await;
    let b = TestNamespace::create(&mgmt, "scope-b").await;
    // The engines' leases live in a namespace of the test's own, so that
    // this cluster-wide engine competes with no other.
    let leases = TestNamespace::create(&mgmt, "scope-leases").await;
    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    templates(&mgmt, &a.name).await;
    templates(&mgmt, &b.name).await;

    // The namespace-scoped engine first: it must not take the cluster-wide
    // lease.
    let scoped = Headless::start(
        Some(&a.name),
        17531,
        &kubeconfig,
        &leases.name,
        &[("POD_NAME", "scoped-engine")],
    );
    eventually(
        "the scoped engine to lead",
        Duration::from_secs(60),
        || async { scoped.is_leader().await?.then_some(()) },
    )
    .await;
    let everywhere = Headless::start(
        None,
        17532,
        &kubeconfig,
        &leases.name,
        &[("POD_NAME", "cluster-engine")],
    );
    eventually(
        "the cluster-wide engine to lead too",
        Duration::from_secs(60),
        || async { everywhere.is_leader().await?.then_some(()) },
    )
    .await;

    // A cluster in each namespace: each gets its release.
    let t0 = Instant::now();
    managed_cluster(&mgmt, &a.name, "in-a", json!([])).await;
    managed_cluster(&mgmt, &b.name, "in-b", json!([])).await;
    eventually(
        "the cluster in the other namespace to get its release",
        Duration::from_secs(60),
        || has_release(&mgmt, &b.name, "in-b"),
    )
    .await;
    eprintln!(
        "release in the other namespace after {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    eventually(
        "the cluster in the scoped namespace to get its release",
        Duration::from_secs(60),
        || has_release(&mgmt, &a.name, "in-a"),
    )
    .await;
    // Let both settle, then read who wrote what.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        reporters(&mgmt, &a.name).await,
        BTreeSet::from(["scoped-engine".to_string()]),
        "only the scoped engine writes in its namespace"
    );
    assert_eq!(
        reporters(&mgmt, &b.name).await,
        BTreeSet::from(["cluster-engine".to_string()]),
        "only the cluster-wide engine writes in the other namespace"
    );
    let log = everywhere.log_text();
    assert!(
        !log.contains("\"level\":\"ERROR\""),
        "the cluster-wide engine logged errors:\n{log}"
    );

    // The scoped engine goes away without releasing its lease: once the
    // lease has expired, the cluster-wide engine serves that namespace too.
    let mut scoped = scoped;
    scoped.child.kill().await.expect("kill the scoped engine");
    managed_cluster(&mgmt, &a.name, "in-a-later", json!([])).await;
    let t1 = Instant::now();
    eventually(
        "the cluster-wide engine to take the namespace back",
        Duration::from_secs(60),
        || has_release(&mgmt, &a.name, "in-a-later"),
    )
    .await;
    eprintln!(
        "namespace taken back {:.1} s after the scoped engine was killed",
        t1.elapsed().as_secs_f64()
    );
    assert!(
        reporters(&mgmt, &a.name).await.contains("cluster-engine"),
        "the cluster-wide engine now writes in the scoped namespace"
    );

    for ns in [&a, &b] {
        let mcs: Api<hmc_tui::api::ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
        let _ = mcs
            .delete_collection(&Default::default(), &Default::default())
            .await;
    }
    // The cluster-wide engine uninstalls what it can before it stops.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (status, _) = everywhere.terminate().await;
    assert!(status.success(), "the cluster-wide engine exits cleanly");
    a.cleanup().await;
    b.cleanup().await;
    leases.cleanup().await;
}
