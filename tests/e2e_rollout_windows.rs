//! Change windows, the policy's pause and "start now" on the real harness.
//!
//! - A window that opens at least 30 s after the change: the rollout waits
//!   for it with every cluster at its old revision, and its wave starts
//!   only once the window is open.
//! - A template whose policy pauses its rollouts: the new revision's
//!   rollout is held, "start now" is refused while the pause stands, and
//!   once it is lifted the wave waits for its (far) window until an
//!   operator starts it now, which the rollout records with their name.

mod common;

use common::rollouts::*;
use common::*;
use hmc_tui::api::{RolloutPhase, WaveState};
use hmc_tui::plan::rollout::POLICY_PAUSE;
use k8s_openapi::jiff::{Timestamp, ToSpan, tz::TimeZone};
use serde_json::json;

/// `HH:MM` (UTC) of the first whole minute at least `lead` seconds from now.
fn minute_after(lead: i64) -> (String, Timestamp) {
    let soon = Timestamp::now().as_second() + lead;
    let at = Timestamp::from_second(soon.div_euclid(60) * 60 + 60).expect("a time");
    let local = at.to_zoned(TimeZone::UTC);
    (format!("{:02}:{:02}", local.hour(), local.minute()), at)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wave_due_before_its_window_starts_when_the_window_opens() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "window").await;
    let engine = RunningEngine::start(&ns.name).await;
    fleet_at_4_11_3(&mgmt, &ns.name, json!({"maxConcurrent": 3})).await;

    // A daily window that opens at least 40 s from now (the change comes within a few seconds), for an hour.
    let (start, opens) = minute_after(40);
    let policy = json!({"maxConcurrent": 3, "windows": [{"start": start, "duration": "1h"}]});
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", policy).await;

    let waiting = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "wave 1 to wait for its window",
        STEP,
        |r| {
            r.status.as_ref().is_some_and(|s| {
                s.waves
                    .first()
                    .is_some_and(|w| w.state == WaveState::WaitingForWindow)
            })
        },
    )
    .await
    .status
    .unwrap();
    assert_eq!(
        waiting.waves[0].opens_at.as_ref().map(|t| t.0),
        Some(opens),
        "the window opens at {start} UTC"
    );
    assert!(
        waiting
            .message
            .as_deref()
            .is_some_and(|m| m.starts_with("wave 1/1 waits for a change window (opens ")),
        "{:?}",
        waiting.message
    );
    // Nothing moved: every cluster keeps revision 1 and 4.11.3.
    assert_eq!(targets(&mgmt, &ns.name).await, vec![Some(1); 3]);
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.3"; 3]));
    assert!(
        Timestamp::now() < opens,
        "the checks above ran before the window opened"
    );

    let done = in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded)
        .await
        .status
        .unwrap();
    let started = done.waves[0].started_at.clone().expect("wave 1 started").0;
    assert!(
        started >= opens,
        "wave 1 started at {started}, before {opens}"
    );
    assert_eq!(done.waves[0].opens_at, None);
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_policys_pause_holds_a_rollout_and_start_now_passes_a_closed_window() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "paused").await;
    let engine = RunningEngine::start(&ns.name).await;
    fleet_at_4_11_3(&mgmt, &ns.name, json!({"maxConcurrent": 3})).await;

    // A window that opened 3 h ago for an hour: closed for the next 20 h.
    let past = Timestamp::now() - 3.hours();
    let local = past.to_zoned(TimeZone::UTC);
    let start = format!("{:02}:{:02}", local.hour(), local.minute());
    let window = json!([{"start": start, "duration": "1h", "timeZone": "UTC"}]);
    let paused = json!({"maxConcurrent": 3, "paused": true, "windows": window});
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", paused).await;

    let held = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "the policy to pause fleet-2",
        STEP,
        |r| {
            r.status.as_ref().is_some_and(|s| {
                s.phase == RolloutPhase::Paused && s.paused_by.as_deref() == Some(POLICY_PAUSE)
            })
        },
    )
    .await;
    assert_eq!(
        held.status.and_then(|s| s.message).as_deref(),
        Some("paused by its policy (spec.rollout.paused); 0/3 updated")
    );
    // Start now does not lift the policy's pause.
    request(&mgmt, &ns.name, "fleet-2", "start-now", "oncall").await;
    eventually("start-now to be refused", STEP, || async {
        event_notes(&mgmt, &ns.name, "fleet-2")
            .await
            .into_iter()
            .find(|n| {
                n.contains("start-now (by oncall) refused") && n.contains("spec.rollout.paused")
            })
    })
    .await;
    assert_eq!(targets(&mgmt, &ns.name).await, vec![Some(1); 3]);

    // The pause lifted: the wave waits for its window.
    let open = json!({"maxConcurrent": 3, "windows": window});
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", open).await;
    rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "wave 1 to wait for its window",
        STEP,
        |r| {
            r.status.as_ref().is_some_and(|s| {
                s.paused_by.is_none()
                    && s.waves
                        .first()
                        .is_some_and(|w| w.state == WaveState::WaitingForWindow)
            })
        },
    )
    .await;
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.3"; 3]));

    // An emergency: started now, past the closed window.
    request(&mgmt, &ns.name, "fleet-2", "start-now", "oncall").await;
    let done = in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded)
        .await
        .status
        .unwrap();
    assert_eq!(done.waves[0].started_now_by.as_deref(), Some("oncall"));
    assert!(
        done.history
            .iter()
            .any(|a| a.action == "start-now" && a.by == "oncall" && a.wave == Some(1)),
        "{:?}",
        done.history
    );
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}
