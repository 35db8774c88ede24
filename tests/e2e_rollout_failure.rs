//! A revision whose chart version does not exist fails in the first wave;
//! the rollout stops within its failure budget, the other clusters keep the
//! old version, and a rollback gives the failed cluster its last good
//! revision back.

mod common;

use std::time::Duration;

use common::rollouts::*;
use common::*;
use hmc_tui::api::{ClusterRolloutState, ManagedCluster, RolloutPhase, ServiceTemplate};
use kube::api::Api;
use serde_json::json;

const STEP: Duration = Duration::from_secs(180);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_revision_stops_and_rolls_back() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "failing").await;
    let engine = RunningEngine::start(&ns.name).await;
    let policy = json!({
        "strategy": "Automatic", "maxConcurrent": 1,
        "failureBudget": 0, "healthTimeout": "20s",
    });
    fleet_at_4_11_3(&mgmt, &ns.name, policy.clone()).await;
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let why = eventually(
        "the 9.9.9 template to say its chart is missing",
        STEP,
        || async {
            let st = sts.get_opt("ingress-nginx-9-9-9").await.ok()??.status?;
            (!st.valid).then_some(st.validation_error?)
        },
    )
    .await;
    assert!(why.contains("9.9.9"), "{why}");

    fleet_template(&mgmt, &ns.name, "ingress-nginx-9-9-9", policy).await;
    let r = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "the rollout to stop",
        STEP,
        |r| phase(r) == RolloutPhase::Failed,
    )
    .await;
    let st = r.status.unwrap();
    let c1 = st.cluster("c1").unwrap();
    assert_eq!(c1.state, ClusterRolloutState::Failed);
    let reason = c1.reason.clone().unwrap_or_default();
    assert!(
        reason.starts_with("not healthy within 20s: ingress-nginx:") && reason.contains("9.9.9"),
        "the failed cluster says why: {reason}"
    );
    for name in ["c2", "c3"] {
        let c = st.cluster(name).unwrap();
        assert_eq!(c.state, ClusterRolloutState::Waiting, "{name}");
        assert_eq!(
            c.reason.as_deref(),
            Some("failure budget spent: 1 failed, budget 0"),
            "{name}"
        );
    }
    assert!(
        st.message
            .as_deref()
            .unwrap_or_default()
            .starts_with("stopped: 1 cluster failed"),
        "{:?}",
        st.message
    );
    // Nobody moves further once the engine has looked at every cluster
    // again: every child keeps 4.11.3, c2 and c3 revision 1.
    look_at_fleet(&engine, &ns.name).await;
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.3"; 3]));
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let revisions = |name: &'static str| {
        let mcs = mcs.clone();
        async move {
            let st = mcs.get(name).await.unwrap().status.unwrap();
            (st.revision, st.target_revision)
        }
    };
    assert_eq!(revisions("c1").await, (Some(1), Some(2)), "c1 was given 2");
    assert_eq!(revisions("c2").await, (Some(1), Some(1)));
    assert_eq!(revisions("c3").await, (Some(1), Some(1)));

    // Roll back: c1 gets its last good revision, and is Ready on it.
    request(&mgmt, &ns.name, "fleet-2", "rollback", "bob").await;
    let st = rollout_when(&mgmt, &ns.name, "fleet-2", "the rollback", STEP, |r| {
        phase(r) == RolloutPhase::RolledBack
    })
    .await
    .status
    .unwrap();
    let c1 = st.cluster("c1").unwrap();
    assert_eq!(c1.state, ClusterRolloutState::RolledBack);
    assert_eq!(c1.rollback_revision, Some(1));
    let act = st.history.last().unwrap();
    assert_eq!((act.action.as_str(), act.by.as_str()), ("rollback", "bob"));
    eventually("c1 back on revision 1 and Ready", STEP, || async {
        let st = mcs.get_opt("c1").await.ok()??.status?;
        let ready = st
            .conditions
            .iter()
            .any(|c| c.type_ == "Ready" && c.status == "True");
        (ready && st.target_revision == Some(1) && st.revision == Some(1)).then_some(())
    })
    .await;
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.3"; 3]));
    let notes = event_notes(&mgmt, &ns.name, "fleet-2").await;
    for want in [
        "ClusterFailed: c1:",
        "RolloutStopped:",
        "RolloutRequest: rollback by bob",
    ] {
        assert!(
            notes.iter().any(|n| n.starts_with(want)),
            "{want} in {notes:?}"
        );
    }

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}
