//! A newer revision arriving mid-rollout supersedes the running one: the
//! clusters still waiting go straight to the newest revision, the updated
//! one gets only what changed since, and nothing flaps.

mod common;

use common::rollouts::*;
use common::*;
use hmc_tui::api::{ClusterRolloutState, RolloutPhase, WaveState};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_revision_supersedes_the_running_rollout() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "supersede").await;
    let engine = RunningEngine::start(&ns.name).await;
    // Revision 2 (4.11.4) reaches c1 only.
    manual_fleet_waiting(&mgmt, &ns.name).await;
    request(&mgmt, &ns.name, "fleet-2", "approve 1", "alice").await;
    rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to finish", STEP, |r| {
        r.status
            .as_ref()
            .is_some_and(|s| s.waves[0].state == WaveState::Succeeded)
    })
    .await;

    // Revision 3 (two replicas) arrives while wave 2 waits.
    fleet_template_with(
        &mgmt,
        &ns.name,
        "ingress-nginx-4-11-4",
        "  replicaCount: 2\n",
        manual_policy(),
    )
    .await;
    let old = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "revision 2 to be superseded",
        STEP,
        |r| phase(r) == RolloutPhase::Superseded,
    )
    .await
    .status
    .unwrap();
    assert_eq!(old.superseded_by, Some(3));
    let new = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-3",
        "revision 3 to wait",
        STEP,
        |r| phase(r) == RolloutPhase::WaitingForApproval,
    )
    .await
    .status
    .unwrap();
    // Two groups: c2 and c3 skip revision 2 and get both changes at once.
    let groups: Vec<(u32, Vec<String>)> = new
        .preview
        .iter()
        .map(|g| (g.count, g.changes.clone()))
        .collect();
    assert_eq!(
        groups,
        [
            (
                2,
                vec![
                    "ingress-nginx 4.11.3 → 4.11.4".to_string(),
                    "ingress-nginx: + controller.replicaCount: 2".to_string()
                ]
            ),
            (
                1,
                vec!["ingress-nginx: + controller.replicaCount: 2".to_string()]
            ),
        ],
        "{:?}",
        new.preview
    );
    // Nothing flaps: once the engine has looked at every cluster since
    // revision 3 came, c1 keeps revision 2 and 4.11.4, the others 1 and
    // 4.11.3.
    look_at_fleet(&engine, &ns.name).await;
    assert_eq!(targets(&mgmt, &ns.name).await, [Some(2), Some(1), Some(1)]);
    assert_eq!(
        charts(&ns.name).await,
        some(&[
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.3",
            "ingress-nginx-4.11.3"
        ])
    );

    // Revision 3 goes all the way; c2 and c3 go from 1 straight to 3.
    for wave in 1..=3u32 {
        rollout_when(
            &mgmt,
            &ns.name,
            "fleet-3",
            "the next wave to wait",
            STEP,
            |r| {
                r.status.as_ref().is_some_and(|s| {
                    s.waves[wave as usize - 1].state == WaveState::WaitingForApproval
                })
            },
        )
        .await;
        request(
            &mgmt,
            &ns.name,
            "fleet-3",
            &format!("approve {wave}"),
            "alice",
        )
        .await;
    }
    let done = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-3",
        "revision 3 everywhere",
        STEP,
        |r| phase(r) == RolloutPhase::Succeeded,
    )
    .await
    .status
    .unwrap();
    let from: Vec<(&str, Option<i64>)> = done
        .clusters
        .iter()
        .map(|c| (c.name.as_str(), c.from_revision))
        .collect();
    assert_eq!(from, [("c1", Some(2)), ("c2", Some(1)), ("c3", Some(1))]);
    assert!(
        done.clusters
            .iter()
            .all(|c| c.state == ClusterRolloutState::Updated)
    );
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));
    for (_, i) in FLEET {
        let replicas =
            common::cases::deployment_replicas(&child(i).await, &format!("{}-ingress", ns.name))
                .await;
        assert_eq!(replicas, Some(2), "child-{i}");
    }

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}
