//! A rollout with a soak: each wave, once updated, stays healthy for the
//! policy's `soak` before the next wave starts. Two waves and a 20 s soak
//! on the real harness: the second wave starts only once the first has
//! soaked, and the clusters it holds keep their revision meanwhile.

mod common;

use common::rollouts::*;
use common::*;
use hmc_tui::api::{RolloutPhase, WaveState};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_wave_starts_only_after_the_first_has_soaked() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "soak").await;
    let engine = RunningEngine::start(&ns.name).await;
    // c1 and c2 in wave 1, c3 in wave 2.
    let policy = json!({"maxConcurrent": 2, "soak": "20s"});
    fleet_at_4_11_3(&mgmt, &ns.name, policy.clone()).await;
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", policy).await;

    let soaking = rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to soak", STEP, |r| {
        r.status
            .as_ref()
            .is_some_and(|s| s.waves[0].state == WaveState::Soaking)
    })
    .await
    .status
    .unwrap();
    assert_eq!(soaking.waves.len(), 2);
    let soak_until = soaking.waves[0].soak_until.clone().expect("soakUntil");
    let finished = soaking.waves[0].started_at.clone().expect("wave 1 started");
    assert!(
        soak_until.0 > finished.0,
        "the soak ends after the wave started"
    );
    assert!(
        soaking
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("wave 1/2 soaking until ")),
        "{:?}",
        soaking.message
    );
    // While wave 1 soaks, c3 keeps revision 1 (wave 1 is healthy: c1 and
    // c2 have 4.11.4).
    assert_eq!(
        charts(&ns.name).await,
        some(&[
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.3"
        ])
    );
    assert_eq!(targets(&mgmt, &ns.name).await[2], Some(1));

    let st = in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded)
        .await
        .status
        .unwrap();
    let wave2_started = st.waves[1].started_at.clone().expect("wave 2 started");
    assert!(
        wave2_started.0 >= soak_until.0,
        "wave 2 started at {:?}, before the soak ended at {:?}",
        wave2_started.0,
        soak_until.0
    );
    assert_eq!(st.waves[0].state, WaveState::Succeeded);
    assert_eq!(st.waves[0].soak_until, None);
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}
