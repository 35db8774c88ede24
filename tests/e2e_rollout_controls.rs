//! An operator steers running rollouts: pause, resume, skip and abort, once
//! through the request annotations (as `kubectl annotate` does) and once
//! through the keys of the console's rollout board. Each request's effect is
//! checked where it matters: which clusters the revision reaches in the
//! child clusters.

mod common;

use std::time::{Duration, Instant};

use common::console::*;
use common::rollouts::*;
use common::*;
use hmc_tui::api::{ClusterRolloutState, RolloutPhase, TemplateRollout, WaveState};
use kube::Client;
use kube::api::Api;
use serde_json::json;

const OLD: &str = "ingress-nginx-4.11.3";
const NEW: &str = "ingress-nginx-4.11.4";

/// The rollout once its history ends with `action` by `by`.
async fn recorded(
    mgmt: &Client,
    ns: &str,
    rollout: &str,
    action: &str,
    by: &str,
) -> TemplateRollout {
    rollout_when(
        mgmt,
        ns,
        rollout,
        &format!("{action} by {by} to be recorded"),
        STEP,
        |r| {
            r.status
                .as_ref()
                .and_then(|s| s.history.last())
                .is_some_and(|a| a.action == action && a.by == by)
        },
    )
    .await
}

/// Waits until `rollout` is in phase `want`.
fn cluster_state(r: &TemplateRollout, name: &str) -> (ClusterRolloutState, String) {
    let c = r
        .status
        .as_ref()
        .and_then(|s| s.cluster(name))
        .unwrap_or_else(|| panic!("{name} in the rollout"));
    (c.state, c.reason.clone().unwrap_or_default())
}

/// Through the annotations. Revision 2 (4.11.4) rolls out automatically,
/// one cluster per wave: `pause` while wave 1 runs lets that wave's cluster
/// finish but starts no other wave; `resume` takes the rollout to the end.
/// Revision 3 (back to 4.11.3) rolls out by approval: `skip c3`, `approve
/// 1`, then `abort` while wave 2 waits: c1 has revision 3, c2 and c3 keep
/// revision 2, and the phase and the clusters' reasons say so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_resume_skip_and_abort_by_annotation() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "controls").await;
    let engine = RunningEngine::start(&ns.name).await;
    let automatic = json!({"strategy": "Automatic", "maxConcurrent": 1});
    fleet_at_4_11_3(&mgmt, &ns.name, automatic.clone()).await;
    eprintln!("[{:>5.1?}] the fleet is at 4.11.3", started.elapsed());

    // Revision 2 starts by itself; pause it while its first wave runs.
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", automatic).await;
    rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to start", STEP, |r| {
        r.status.as_ref().is_some_and(|s| {
            s.waves
                .first()
                .is_some_and(|w| w.state != WaveState::Pending)
        })
    })
    .await;
    request(&mgmt, &ns.name, "fleet-2", "pause", "alice").await;
    let r = recorded(&mgmt, &ns.name, "fleet-2", "pause", "alice").await;
    let st = r.status.clone().unwrap();
    assert_eq!(st.phase, RolloutPhase::Paused);
    // The waves that had started when the pause came (wave 1, unless the
    // machine was slow enough for wave 1 to finish first).
    let begun = st
        .waves
        .iter()
        .take_while(|w| w.state != WaveState::Pending)
        .count();
    assert!(
        begun < st.waves.len(),
        "a wave is left to hold back: {:?}",
        st.waves
    );
    let running: Vec<String> = st
        .clusters
        .iter()
        .filter(|c| c.wave as usize <= begun)
        .map(|c| c.name.clone())
        .collect();
    // Paused, the running wave's cluster is still followed to the end...
    let r = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "the running wave's cluster to be updated while paused",
        STEP,
        |r| {
            running
                .iter()
                .all(|n| cluster_state(r, n).0 == ClusterRolloutState::Updated)
        },
    )
    .await;
    // ...and no other wave starts: unpaused, the same step would have
    // started the next one.
    let st = r.status.clone().unwrap();
    assert_eq!(st.phase, RolloutPhase::Paused);
    assert_eq!(
        st.waves[begun].state,
        WaveState::Pending,
        "no new wave while paused"
    );
    assert_eq!(
        st.message.as_deref().unwrap_or_default(),
        format!("paused by alice; {begun}/3 updated")
    );
    for (i, (name, _)) in FLEET.iter().enumerate().skip(begun) {
        assert_eq!(
            cluster_state(&r, name),
            (
                ClusterRolloutState::Waiting,
                "rollout paused by alice".to_string()
            )
        );
        assert_eq!(targets(&mgmt, &ns.name).await[i], Some(1), "{name}");
    }
    // Still so once the engine has looked at every cluster again.
    look_at_fleet(&engine, &ns.name).await;
    assert_eq!(
        targets(&mgmt, &ns.name).await[begun..],
        vec![Some(1); 3 - begun]
    );
    let mut want = vec![Some(NEW.to_string()); begun];
    want.extend(vec![Some(OLD.to_string()); 3 - begun]);
    assert_eq!(charts(&ns.name).await, want, "paused after {begun} wave(s)");
    eprintln!("[{:>5.1?}] paused after {begun} wave(s)", started.elapsed());

    // Resume: the rest follows, wave after wave.
    request(&mgmt, &ns.name, "fleet-2", "resume", "bob").await;
    let r = in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded).await;
    assert_eq!(charts(&ns.name).await, some(&[NEW; 3]));
    let acts: Vec<(String, String)> = r
        .status
        .unwrap()
        .history
        .into_iter()
        .map(|a| (a.action, a.by))
        .collect();
    assert_eq!(
        acts,
        [
            ("pause".into(), "alice".into()),
            ("resume".into(), "bob".into())
        ]
    );
    eprintln!("[{:>5.1?}] resumed and done", started.elapsed());

    // Revision 3, by approval: skip c3, approve wave 1, abort.
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-3", manual_policy()).await;
    in_phase(&mgmt, &ns.name, "fleet-3", RolloutPhase::WaitingForApproval).await;
    request(&mgmt, &ns.name, "fleet-3", "skip c3", "carol").await;
    let r = recorded(&mgmt, &ns.name, "fleet-3", "skip", "carol").await;
    assert_eq!(
        cluster_state(&r, "c3"),
        (
            ClusterRolloutState::Skipped,
            "skipped by carol: keeps its revision".to_string()
        )
    );
    let act = r.status.as_ref().unwrap().history.last().unwrap().clone();
    assert_eq!((act.cluster.as_deref(), act.wave), (Some("c3"), Some(3)));
    request(&mgmt, &ns.name, "fleet-3", "approve 1", "carol").await;
    rollout_when(
        &mgmt,
        &ns.name,
        "fleet-3",
        "wave 1 done, wave 2 waiting",
        STEP,
        |r| {
            r.status.as_ref().is_some_and(|s| {
                s.waves[0].state == WaveState::Succeeded
                    && s.waves[1].state == WaveState::WaitingForApproval
            })
        },
    )
    .await;
    request(&mgmt, &ns.name, "fleet-3", "abort", "dave").await;
    let r = recorded(&mgmt, &ns.name, "fleet-3", "abort", "dave").await;
    let st = r.status.clone().unwrap();
    assert_eq!(st.phase, RolloutPhase::Aborted);
    assert_eq!(
        st.message.as_deref(),
        Some("aborted; 1/3 updated, 1 skipped")
    );
    assert_eq!(st.waves[1].state, WaveState::WaitingForApproval);
    assert_eq!(st.waves[1].started_at, None, "wave 2 never started");
    assert_eq!(
        cluster_state(&r, "c2"),
        (
            ClusterRolloutState::Waiting,
            "rollout aborted: keeps its revision".to_string()
        )
    );
    assert_eq!(cluster_state(&r, "c3").0, ClusterRolloutState::Skipped);
    // An aborted rollout takes no more requests.
    request(&mgmt, &ns.name, "fleet-3", "approve 2", "dave").await;
    eventually("approve after abort to be refused", STEP, || async {
        let notes = event_notes(&mgmt, &ns.name, "fleet-3").await;
        notes
            .iter()
            .any(|n| {
                n.starts_with("RequestRefused: approve 2 (by dave) refused: no wave waits for approval (the rollout is Aborted)")
            })
            .then_some(())
    })
    .await;
    look_at_fleet(&engine, &ns.name).await;
    assert_eq!(
        charts(&ns.name).await,
        some(&[OLD, NEW, NEW]),
        "only c1 was given revision 3"
    );
    assert_eq!(
        targets(&mgmt, &ns.name).await,
        [Some(3), Some(2), Some(2)],
        "the aborted rollout's waiting and skipped clusters keep revision 2"
    );
    let notes = event_notes(&mgmt, &ns.name, "fleet-3").await;
    for want in [
        "RolloutRequest: skip wave 3 cluster c3 by carol",
        "RolloutRequest: abort by dave",
    ] {
        assert!(
            notes.iter().any(|n| n.starts_with(want)),
            "{want} in {notes:?}"
        );
    }
    eprintln!("[{:>5.1?}] skipped and aborted", started.elapsed());

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}

/// Through the board's keys, in the console (tmux). A manual rollout of
/// 4.11.4: `p` pauses it (and `a` is then refused, sending nothing), `r`
/// resumes it, `s` and `y` skip c2, `a` approves wave 1 (c1 only); c2's wave
/// has nothing left to update and is passed over, so wave 3 waits; `x`,
/// `s` and `y` abort: c3 keeps 4.11.3.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_resume_skip_and_abort_from_the_board() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "boardkeys").await;
    let me = whoami(&mgmt).await;
    let console = Console::start(&ns.name, "");
    console.wait_text(&["engine: in-process"], SCREEN).await;
    manual_fleet_waiting(&mgmt, &ns.name).await;
    eprintln!("[{:>5.1?}] revision 2 waits", started.elapsed());
    console
        .open_board("fleet-2 fleet 2 WaitingForApproval 1/3 0/3")
        .await;
    console
        .wait_text(&["3 clusters: ingress-nginx 4.11.3 → 4.11.4"], SCREEN)
        .await;

    // p pauses; a is then refused on the status line and asks nothing.
    console.keys(&["p"]);
    recorded(&mgmt, &ns.name, "fleet-2", "pause", &me).await;
    console
        .wait_for("the board to show the pause", SCREEN, |s| {
            s.contains(&format!("paused by {me}"))
                && row_starts(s, &format!("c1 Waiting 1 → 2 - rollout paused by {me}"))
        })
        .await;
    console.keys(&["a"]);
    console
        .wait_text(
            &["no wave waits for approval (the rollout is Paused)"],
            SCREEN,
        )
        .await;
    let rollouts: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), &ns.name);
    let r = rollouts.get("fleet-2").await.unwrap();
    assert!(
        !r.metadata
            .annotations
            .unwrap_or_default()
            .contains_key("hmc.mirantis.com/request"),
        "a refused key sends nothing\n{}",
        console.report()
    );
    assert_eq!(r.status.unwrap().history.len(), 1);

    // r resumes: wave 1 waits for approval again.
    console.keys(&["r"]);
    let r = recorded(&mgmt, &ns.name, "fleet-2", "resume", &me).await;
    assert_eq!(phase(&r), RolloutPhase::WaitingForApproval);
    console
        .wait_for("wave 1 waiting again", SCREEN, |s| {
            row_starts(s, "c1 Waiting 1 → 2 - waiting for approval of wave 1")
        })
        .await;

    // s on c2, confirmed with y: c2 is left out.
    console.select_row("c2").await;
    console.keys(&["s"]);
    console.wait_text(&["y yes, ask"], SCREEN).await;
    console.keys(&["y"]);
    let r = recorded(&mgmt, &ns.name, "fleet-2", "skip", &me).await;
    assert_eq!(
        cluster_state(&r, "c2"),
        (
            ClusterRolloutState::Skipped,
            format!("skipped by {me}: keeps its revision")
        )
    );
    console
        .wait_for("c2 skipped on the board", SCREEN, |s| {
            row_starts(s, "c2 Skipped")
        })
        .await;

    // a approves wave 1: c1 moves; c2's wave is passed over; wave 3 waits.
    console.keys(&["a"]);
    let r = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "wave 1 done and wave 3 waiting",
        STEP,
        |r| {
            r.status.as_ref().is_some_and(|s| {
                s.waves[0].state == WaveState::Succeeded
                    && s.waves[2].state == WaveState::WaitingForApproval
            })
        },
    )
    .await;
    let st = r.status.unwrap();
    assert_eq!(st.waves[0].approved_by.as_deref(), Some(me.as_str()));
    assert_eq!(
        (st.waves[1].state, st.waves[1].started_at.as_ref()),
        (WaveState::Succeeded, None),
        "the wave of the skipped cluster needs no approval and starts nothing"
    );
    console
        .wait_for("wave 3 waiting on the board", SCREEN, |s| {
            row_starts(s, "c1 Updated 1 → 2")
                && row_starts(s, "c3 Waiting 1 → 2 - waiting for approval of wave 3")
        })
        .await;

    // x, x again (abort: the clusters stay where they stand) and y: c3
    // keeps 4.11.3.
    console.keys(&["x"]);
    console.wait_text(&["abort: no more waves"], SCREEN).await;
    console.keys(&["x"]);
    console.wait_text(&["Abort fleet-2?"], SCREEN).await;
    console.keys(&["y"]);
    let r = recorded(&mgmt, &ns.name, "fleet-2", "abort", &me).await;
    assert_eq!(phase(&r), RolloutPhase::Aborted);
    assert_eq!(
        cluster_state(&r, "c3"),
        (
            ClusterRolloutState::Waiting,
            "rollout aborted: keeps its revision".to_string()
        )
    );
    console
        .wait_for("the board to show the abort", SCREEN, |s| {
            s.contains("aborted; 1/3 updated, 1 skipped")
                && row_starts(s, "c3 Waiting 1 → 2 - rollout aborted: keeps its revision")
        })
        .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        charts(&ns.name).await,
        some(&[NEW, OLD, OLD]),
        "only c1 got 4.11.4\n{}",
        console.report()
    );
    assert_eq!(targets(&mgmt, &ns.name).await, [Some(2), Some(1), Some(1)]);
    eprintln!(
        "[{:>5.1?}] paused, resumed, skipped, aborted",
        started.elapsed()
    );

    tear_down(&mgmt, &ns.name).await;
    console.quit().await;
    ns.cleanup().await;
    eprintln!("[{:>5.1?}] done", started.elapsed());
}
