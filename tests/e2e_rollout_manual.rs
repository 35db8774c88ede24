//! A manual rollout, approved wave by wave: the new chart version moves one
//! cluster at a time through the child clusters, and every approval is
//! recorded with who gave it.

mod common;

use common::rollouts::*;
use common::*;
use hmc_tui::api::{ManagedCluster, RolloutPhase, WaveState};
use kube::api::Api;
use serde_json::json;

/// `late` on child-1, beside c1: its own service namespace, and its own
/// name for what the chart makes cluster-wide (ClusterRole, IngressClass,
/// webhook configuration), which c1's install has under the template's.
async fn late_cluster(mgmt: &kube::Client, ns: &str) {
    let late = format!("{ns}-late");
    let services = json!([{
        "name": "ingress-nginx",
        "namespace": late,
        "values": common::cases::chart_values(&late, &late),
    }]);
    common::cases::managed_cluster_from(mgmt, ns, "late", "fleet", services).await;
    provision(ns, "late", 1).await;
    let child1 = child(1).await;
    eventually("the late cluster at 4.11.4", STEP, || async {
        let chart = chart_of(&child1, &late).await?;
        (chart == "ingress-nginx-4.11.4").then_some(())
    })
    .await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), ns);
    let st = mcs.get("late").await.unwrap().status.unwrap();
    assert_eq!(st.target_revision, Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn manual_rollout_moves_one_cluster_per_approved_wave() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "manual").await;
    let engine = RunningEngine::start(&ns.name).await;
    // A new chart version is revision 2: planned, previewed, not applied.
    let r = manual_fleet_waiting(&mgmt, &ns.name).await;
    let st = r.status.clone().unwrap();
    assert_eq!(st.waves.len(), 3, "maxConcurrent 1: one wave per cluster");
    assert_eq!(st.preview.len(), 1, "one change for all: {:?}", st.preview);
    assert_eq!(st.preview[0].count, 3);
    assert_eq!(
        st.preview[0].changes,
        vec!["ingress-nginx 4.11.3 → 4.11.4".to_string()]
    );
    assert_eq!(
        st.change_summary.as_deref(),
        Some("3 clusters: ingress-nginx 4.11.3 → 4.11.4")
    );
    let reasons: Vec<(&str, &str)> = st
        .clusters
        .iter()
        .map(|c| (c.name.as_str(), c.reason.as_deref().unwrap_or_default()))
        .collect();
    assert_eq!(
        reasons,
        [
            ("c1", "waiting for approval of wave 1"),
            ("c2", "wave 1 waits for approval first"),
            ("c3", "wave 1 waits for approval first"),
        ],
        "each waiting cluster says why"
    );
    // Nothing moves without an approval: the engine has planned revision 2
    // (above) and looked at every cluster since, and each keeps revision 1.
    look_at_fleet(&engine, &ns.name).await;
    assert_eq!(
        targets(&mgmt, &ns.name).await,
        [Some(1); 3],
        "no cluster is given revision 2 before wave 1 is approved"
    );
    assert_eq!(
        charts(&ns.name).await,
        some(&["ingress-nginx-4.11.3"; 3]),
        "no cluster changes before wave 1 is approved"
    );

    // Approve wave after wave: exactly one more cluster each time.
    let expected = [
        [
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.3",
            "ingress-nginx-4.11.3",
        ],
        [
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.3",
        ],
        [
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.4",
            "ingress-nginx-4.11.4",
        ],
    ];
    for (i, want) in expected.iter().enumerate() {
        let wave = i as u32 + 1;
        request(
            &mgmt,
            &ns.name,
            "fleet-2",
            &format!("approve {wave}"),
            "alice",
        )
        .await;
        let r = rollout_when(
            &mgmt,
            &ns.name,
            "fleet-2",
            &format!("wave {wave} to finish"),
            STEP,
            |r| {
                r.status
                    .as_ref()
                    .is_some_and(|s| s.waves[i].state == WaveState::Succeeded)
            },
        )
        .await;
        assert_eq!(charts(&ns.name).await, some(want), "after wave {wave}");
        let st = r.status.unwrap();
        assert_eq!(st.waves[i].approved_by.as_deref(), Some("alice"));
        let act = st.history.last().expect("the approval is recorded");
        assert_eq!(
            (act.action.as_str(), act.by.as_str(), act.revision, act.wave),
            ("approve", "alice", 2, Some(wave))
        );
        assert_eq!(st.history.len(), i + 1, "one act per approval");
        assert!(
            !r.metadata
                .annotations
                .unwrap_or_default()
                .contains_key("hmc.mirantis.com/request"),
            "the engine removes a request once recorded"
        );
        if wave == 1 {
            // A cluster created mid-rollout gets the newest revision
            // straight away, while c3 still waits at the old one.
            late_cluster(&mgmt, &ns.name).await;
            assert_eq!(
                chart_in(&child(3).await, &ns.name).await.as_deref(),
                Some("ingress-nginx-4.11.3")
            );
        }
        if wave < 3 {
            assert_eq!(st.phase, RolloutPhase::WaitingForApproval);
            let next = st.cluster(FLEET[i + 1].0).unwrap();
            assert_eq!(
                next.reason.as_deref(),
                Some(format!("waiting for approval of wave {}", wave + 1).as_str())
            );
        }
    }
    let r = in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded).await;
    assert_eq!(r.status.unwrap().updated_summary.as_deref(), Some("3/3"));
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    for (name, _) in FLEET {
        let st = mcs.get(name).await.unwrap().status.unwrap();
        assert_eq!(
            (st.revision, st.target_revision),
            (Some(2), Some(2)),
            "{name}"
        );
    }
    let notes = event_notes(&mgmt, &ns.name, "fleet-2").await;
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("RolloutRequest: approve wave 2 by alice")),
        "approvals are Events too: {notes:?}"
    );

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}
