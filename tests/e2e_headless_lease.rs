//! Two headless engines: only the lease holder reconciles; SIGKILL it and
//! the other takes over, without writing what is already there.

mod common;

use std::time::{Duration, Instant};

use common::cases::*;
use common::headless::*;
use common::*;
use hmc_tui::api::ManagedCluster;
use kube::api::Api;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_standby_takes_over_when_the_leader_is_killed() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "lease").await;
    let target = format!("{}-ingress", ns.name);
    let a = Headless::spawn(&ns.name, 17501);
    let b = Headless::spawn(&ns.name, 17502);
    let (leader, standby) = eventually(
        "one engine to lead and one to stand by",
        Duration::from_secs(60),
        || async {
            match (a.is_leader().await?, b.is_leader().await?) {
                (true, false) => Some((0, 1)),
                (false, true) => Some((1, 0)),
                _ => None,
            }
        },
    )
    .await;
    let mut engines = [Some(a), Some(b)];

    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 1).await;
    let child1 = child(1).await;
    eventually("ingress-nginx on child-1", INSTALL, || {
        available_replicas(&child1, &target)
    })
    .await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    until_ready(&mcs, "dev-1", INSTALL).await;
    let idle = engines[standby].as_ref().unwrap();
    assert_eq!(idle.is_leader().await, Some(false), "the standby answers");
    assert_eq!(idle.metric("hmc_engine_writes_total").await, Some(0.0));
    assert_eq!(
        idle.metric("hmc_reconcile_total").await,
        None,
        "the standby reconciles nothing"
    );

    let status_before =
        serde_json::to_string_pretty(&mcs.get("dev-1").await.unwrap().status).unwrap();
    // SIGKILL: the lease is not released; the standby waits for it to expire.
    let mut killed = engines[leader].take().unwrap();
    killed.child.kill().await.unwrap();
    let t0 = Instant::now();
    let next = engines[standby].as_ref().unwrap();
    eventually(
        "the standby to take over",
        Duration::from_secs(60),
        || async { next.is_leader().await?.then_some(()) },
    )
    .await;
    let takeover = t0.elapsed();
    eprintln!(
        "lease takeover after SIGKILL: {:.1} s",
        takeover.as_secs_f64()
    );
    eventually(
        "the new leader to look at dev-1",
        Duration::from_secs(60),
        || async {
            let n = next.metric("hmc_reconcile_total").await?;
            (n >= 4.0).then_some(())
        },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (_, metrics) = next.get("/metrics").await.unwrap_or_default();
    let writes: Vec<&str> = metrics
        .lines()
        .filter(|l| {
            l.starts_with("hmc_api_requests_total{")
                && !["\"get\"", "\"list\"", "\"watch\""]
                    .iter()
                    .any(|read| l.contains(read))
        })
        .collect();
    assert_eq!(
        next.metric("hmc_engine_writes_total").await,
        Some(0.0),
        "the new leader writes nothing the old one already wrote; its writes:\n{}\nstatus before:\n{status_before}\nafter:\n{}",
        writes.join("\n"),
        serde_json::to_string_pretty(&mcs.get("dev-1").await.unwrap().status).unwrap()
    );
    assert!(
        takeover < Duration::from_secs(30),
        "takeover took {takeover:?}; the lease lasts 15 s"
    );

    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("dev-1 deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;
    drop(engines);
    drop_child_namespace(&child1, &target).await;
    ns.cleanup().await;
}
