//! The management API server goes away for 30 s in the middle of the work:
//! the engine keeps running, says it is not ready meanwhile, reconnects and
//! converges, with nothing lost and no panic.

mod common;

use std::time::Duration;

use common::cases::*;
use common::headless::*;
use common::*;
use hmc_tui::api::ManagedCluster;
use kube::api::Api;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_rides_out_an_apiserver_outage() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "outage").await;
    let target = format!("{}-ingress", ns.name);
    let mut engine = Headless::spawn(&ns.name, 17511);
    eventually(
        "the engine to be ready",
        Duration::from_secs(60),
        || async {
            let (code, _) = engine.get("/readyz").await?;
            (code == 200).then_some(())
        },
    )
    .await;

    // Work in flight: templates and a cluster, then the API server goes.
    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 1).await;
    harness(&["stop", "mgmt-apiserver"]).await;
    let down = std::time::Instant::now();
    let why = eventually(
        "/readyz to say not ready",
        Duration::from_secs(30),
        || async {
            let (code, body) = engine.get("/readyz").await?;
            (code == 503).then_some(body)
        },
    )
    .await;
    assert!(why.starts_with("not ready"), "{why}");
    assert_eq!(
        engine.get("/healthz").await.map(|(c, _)| c),
        Some(200),
        "alive while the API is away"
    );
    let rest = Duration::from_secs(30).saturating_sub(down.elapsed());
    tokio::time::sleep(rest).await;
    assert!(
        engine.child.try_wait().unwrap().is_none(),
        "the engine still runs after 30 s without its API server"
    );
    harness(&["up"]).await;

    // Back: ready again, and the work finishes.
    eventually("/readyz to recover", Duration::from_secs(120), || async {
        let (code, _) = engine.get("/readyz").await?;
        (code == 200).then_some(())
    })
    .await;
    let child1 = child(1).await;
    eventually("ingress-nginx on child-1", INSTALL, || {
        available_replicas(&child1, &target)
    })
    .await;
    let mgmt = common::mgmt().await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    until_ready(&mcs, "dev-1", INSTALL).await;
    assert!(engine.child.try_wait().unwrap().is_none(), "still running");
    let log = engine.log_text();
    assert!(!log.contains("panicked"), "no panic:\n{log}");

    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("dev-1 deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;
    let (status, _) = engine.terminate().await;
    assert!(status.success(), "exit status {status}");
    drop_child_namespace(&child1, &target).await;
    ns.cleanup().await;
}
