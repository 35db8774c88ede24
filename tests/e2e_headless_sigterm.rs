//! SIGTERM in the middle of a rollout: the engine exits cleanly (status 0,
//! lease released), and the next engine resumes the rollout.

mod common;

use std::time::Duration;

use common::headless::*;
use common::rollouts::*;
use common::*;
use hmc_tui::api::{RolloutPhase, WaveState};
use serde_json::json;

const STEP: Duration = Duration::from_secs(180);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_mid_rollout_exits_cleanly_and_the_next_engine_resumes() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "sigterm").await;
    let engine = Headless::spawn(&ns.name, 17521);
    let policy = json!({"strategy": "Manual", "maxConcurrent": 1});
    fleet_at_4_11_3(&mgmt, &ns.name, policy.clone()).await;
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", policy).await;
    rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to wait", STEP, |r| {
        phase(r) == RolloutPhase::WaitingForApproval
    })
    .await;
    request(&mgmt, &ns.name, "fleet-2", "approve 1", "alice").await;
    let started = rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to start", STEP, |r| {
        r.status
            .as_ref()
            .is_some_and(|s| s.waves[0].state == WaveState::Progressing)
    })
    .await
    .status
    .unwrap()
    .waves[0]
        .started_at
        .clone();
    assert!(started.is_some(), "wave 1 records when it started");

    let (status, took) = engine.terminate().await;
    eprintln!("exit after SIGTERM: {:.1} s", took.as_secs_f64());
    assert!(status.success(), "exit status {status}");
    assert!(
        took < Duration::from_secs(30),
        "within the grace period: {took:?}"
    );
    let leases: kube::Api<k8s_openapi::api::coordination::v1::Lease> =
        kube::Api::namespaced(mgmt.clone(), &ns.name);
    let holder = leases
        .get(&hmc_tui::engine::claims::lease_name(Some(&ns.name)))
        .await
        .unwrap()
        .spec
        .and_then(|s| s.holder_identity);
    assert!(
        holder.as_deref().unwrap_or_default().is_empty(),
        "the lease is released: {holder:?}"
    );

    // The next engine takes the lease at once and finishes the rollout.
    let engine = Headless::spawn(&ns.name, 17522);
    let st = rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to finish", STEP, |r| {
        r.status
            .as_ref()
            .is_some_and(|s| s.waves[0].state == WaveState::Succeeded)
    })
    .await
    .status
    .unwrap();
    assert_eq!(st.waves[0].started_at, started, "wave 1 ran once");
    for wave in [2, 3] {
        rollout_when(
            &mgmt,
            &ns.name,
            "fleet-2",
            "the next wave to wait",
            STEP,
            |r| {
                r.status
                    .as_ref()
                    .is_some_and(|s| s.waves[wave - 1].state == WaveState::WaitingForApproval)
            },
        )
        .await;
        request(
            &mgmt,
            &ns.name,
            "fleet-2",
            &format!("approve {wave}"),
            "alice",
        )
        .await;
    }
    in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded).await;
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));

    teardown_fleet(&mgmt, &ns.name).await;
    let (status, _) = engine.terminate().await;
    assert!(status.success());
    ns.cleanup().await;
}
