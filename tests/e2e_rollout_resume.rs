//! An engine killed in the middle of a rollout, and started again, resumes
//! it where it was: no wave runs twice, none is skipped, and an approval
//! given while no engine ran is carried out by the next one.

mod common;

use common::rollouts::*;
use common::*;
use hmc_tui::api::labels::REQUEST;
use hmc_tui::api::{ClusterRolloutState, RolloutPhase, WaveState};
use kube::ResourceExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_engine_resumes_the_rollout() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "resume").await;
    let engine = RunningEngine::start(&ns.name).await;
    manual_fleet_waiting(&mgmt, &ns.name).await;

    // Kill the engine the moment wave 1 is under way.
    request(&mgmt, &ns.name, "fleet-2", "approve 1", "alice").await;
    let started = rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to start", STEP, |r| {
        r.status
            .as_ref()
            .is_some_and(|s| s.waves[0].state == WaveState::Progressing)
    })
    .await
    .status
    .unwrap();
    engine.kill();
    let wave1_started = started.waves[0].started_at.clone();
    assert!(wave1_started.is_some());

    // A new engine finishes wave 1 without starting it again, then waits.
    let engine = RunningEngine::start(&ns.name).await;
    let st = rollout_when(&mgmt, &ns.name, "fleet-2", "wave 2 to wait", STEP, |r| {
        r.status.as_ref().is_some_and(|s| {
            s.waves[0].state == WaveState::Succeeded
                && s.waves[1].state == WaveState::WaitingForApproval
        })
    })
    .await
    .status
    .unwrap();
    assert_eq!(
        st.waves[0].started_at, wave1_started,
        "wave 1 is not run a second time"
    );
    assert_eq!(st.history.len(), 1, "one approval so far: {:?}", st.history);
    assert_eq!(
        charts(&ns.name).await,
        some(&[
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.3",
            "ingress-nginx-4.11.3"
        ])
    );

    // An approval given while no engine runs is not lost: it waits on the
    // rollout, not recorded, and nobody is given revision 2 meanwhile (what
    // an engine would write first).
    engine.kill();
    request(&mgmt, &ns.name, "fleet-2", "approve 2", "bob").await;
    let r = rollout_when(&mgmt, &ns.name, "fleet-2", "the approval", STEP, |r| {
        r.annotations().get(REQUEST).map(String::as_str) == Some("approve 2")
    })
    .await;
    let st = r.status.unwrap();
    assert_eq!(st.history.len(), 1, "not recorded: {:?}", st.history);
    assert_eq!(st.waves[1].state, WaveState::WaitingForApproval);
    assert_eq!(
        targets(&mgmt, &ns.name).await,
        [Some(2), Some(1), Some(1)],
        "nothing moves while no engine runs"
    );
    assert_eq!(
        chart_in(&child(2).await, &ns.name).await.as_deref(),
        Some("ingress-nginx-4.11.3"),
        "nothing moves while no engine runs"
    );
    let engine = RunningEngine::start(&ns.name).await;
    let st = rollout_when(&mgmt, &ns.name, "fleet-2", "wave 2 to finish", STEP, |r| {
        r.status
            .as_ref()
            .is_some_and(|s| s.waves[1].state == WaveState::Succeeded)
    })
    .await
    .status
    .unwrap();
    assert_eq!(st.waves[1].approved_by.as_deref(), Some("bob"));
    assert_eq!(st.waves[2].state, WaveState::WaitingForApproval);
    assert_eq!(
        st.cluster("c3").map(|c| c.state),
        Some(ClusterRolloutState::Waiting),
        "wave 3 is not skipped"
    );
    assert_eq!(
        charts(&ns.name).await,
        some(&[
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.3"
        ])
    );

    request(&mgmt, &ns.name, "fleet-2", "approve 3", "alice").await;
    let st = in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded)
        .await
        .status
        .unwrap();
    let approvals: Vec<(Option<u32>, &str)> =
        st.history.iter().map(|a| (a.wave, a.by.as_str())).collect();
    assert_eq!(
        approvals,
        [(Some(1), "alice"), (Some(2), "bob"), (Some(3), "alice")],
        "each wave approved once, in order"
    );
    let starts: Vec<_> = st.waves.iter().map(|w| w.started_at.clone()).collect();
    assert!(
        starts.iter().all(Option::is_some),
        "every wave records when it started: {starts:?}"
    );
    assert!(
        starts.windows(2).all(|w| w[0] <= w[1]),
        "waves ran in order: {starts:?}"
    );
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}
