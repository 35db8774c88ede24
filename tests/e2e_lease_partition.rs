//! A leader cut off from the API server: it says it no longer leads while
//! the Lease still names it (before the standby may take it), the standby
//! then takes over, and once the network heals the old leader does not
//! take the Lease back: it has stood down and stands by.

mod common;
#[path = "common/partition.rs"]
mod partition;

use std::time::{Duration, Instant};

use common::headless::*;
use common::*;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::Api;
use partition::{Proxy, host_port};

/// How an engine names itself in the Lease (`LeaseOptions::for_scope`).
fn identity(engine: &Headless) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    format!("{}-{}", host.trim(), engine.child.id().expect("running"))
}

async fn holder(leases: &Api<Lease>, name: &str) -> Option<String> {
    leases.get(name).await.ok()?.spec?.holder_identity
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_cut_off_stops_before_the_standby_takes_over() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "partition").await;
    let lease_name = hmc_tui::engine::claims::lease_name(Some(&ns.name));
    let leases: Api<Lease> = Api::namespaced(mgmt.clone(), &ns.name);
    let admin = harness_dir().join("mgmt.kubeconfig");
    let proxied = std::env::temp_dir().join(format!("{}-proxied.kubeconfig", ns.name));
    let upstream = {
        let text: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&admin).unwrap()).unwrap();
        host_port(text["clusters"][0]["cluster"]["server"].as_str().unwrap())
    };
    let proxy = Proxy::start(upstream).await;
    proxy.kubeconfig(&admin, &proxied);
    // A term of 6 s: renew deadline 4 s, the standby may take the Lease
    // 8 s after the last renewal.
    let term = [("HMC_LEASE_DURATION", "6")];

    // The engine behind the proxy first, so that it leads.
    let mut cut_off = Headless::start(Some(&ns.name), 17541, &proxied, &ns.name, &term);
    eventually(
        "the engine behind the proxy to lead",
        Duration::from_secs(60),
        || async { cut_off.is_leader().await?.then_some(()) },
    )
    .await;
    let standby = Headless::start(Some(&ns.name), 17542, &admin, &ns.name, &term);
    eventually(
        "the other engine to stand by",
        Duration::from_secs(60),
        || async { (!standby.is_leader().await?).then_some(()) },
    )
    .await;
    let (id_cut_off, id_standby) = (identity(&cut_off), identity(&standby));
    assert_eq!(
        holder(&leases, &lease_name).await.as_deref(),
        Some(id_cut_off.as_str())
    );

    proxy.cut();
    let cut_at = Instant::now();
    // It says so on /metrics (its own port, not behind the proxy) or in
    // its log; looked at every 100 ms.
    let said_at = loop {
        let said = cut_off.is_leader().await == Some(false)
            || cut_off.log_text().contains("not leading: stopped writing");
        if said {
            break cut_at.elapsed();
        }
        assert!(
            cut_at.elapsed() < Duration::from_secs(30),
            "the engine behind the proxy never said it stopped leading:\n{}",
            cut_off.log_text()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // At that instant the Lease still names it: nobody else leads yet.
    assert_eq!(
        holder(&leases, &lease_name).await.as_deref(),
        Some(id_cut_off.as_str()),
        "the standby took the Lease before the cut-off leader stopped"
    );
    assert_eq!(standby.is_leader().await, Some(false));
    eprintln!(
        "the cut-off leader stopped leading {:.1} s into the cut",
        said_at.as_secs_f64()
    );
    assert!(
        said_at < Duration::from_secs(6),
        "it stops at its renew deadline (4 s), within its term: {said_at:?}"
    );

    eventually(
        "the standby to take over",
        Duration::from_secs(60),
        || async { standby.is_leader().await?.then_some(()) },
    )
    .await;
    let took_at = cut_at.elapsed();
    eprintln!(
        "the standby took over {:.1} s into the cut",
        took_at.as_secs_f64()
    );
    assert!(took_at > said_at);
    assert_eq!(
        holder(&leases, &lease_name).await.as_deref(),
        Some(id_standby.as_str())
    );

    proxy.heal();
    // The old leader stood down and, reaching the API server again, sees
    // the Lease is the standby's and stands by: it does not write again.
    eventually(
        "the old leader to stand by behind the healed proxy",
        Duration::from_secs(60),
        || async {
            let log = cut_off.log_text();
            let by = log.rfind("another engine holds the lease: standing by")?;
            (by > log.find("stood down")?).then_some(())
        },
    )
    .await;
    assert!(
        cut_off.child.try_wait().unwrap().is_none(),
        "it stands down in the same process"
    );
    assert_eq!(cut_off.is_leader().await, Some(false));
    let log = cut_off.log_text();
    assert!(
        log.contains("not leading: stopped writing"),
        "its log says why it stopped:\n{log}"
    );
    // The Lease is still the standby's, taken once.
    let lease = leases.get(&lease_name).await.unwrap().spec.unwrap();
    assert_eq!(lease.holder_identity.as_deref(), Some(id_standby.as_str()));
    assert_eq!(lease.lease_transitions, Some(1));
    assert_eq!(standby.is_leader().await, Some(true));

    let (status, _) = standby.terminate().await;
    assert!(status.success());
    let (status, _) = cut_off.terminate().await;
    assert!(status.success());
    ns.cleanup().await;
}
