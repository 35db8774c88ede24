//! A rollout whose status would be larger than the API server stores stops
//! with a warning on the rollout and on its template, moves no cluster and
//! writes nothing half-way; once the limit allows it (etcd's request limit
//! raised, `--max-rollout-status-bytes` with it), the same rollout goes on.

mod common;

use std::time::Duration;

use common::rollouts::*;
use common::*;
use hmc_tui::api::{ManagedCluster, RolloutPhase, labels};
use hmc_tui::engine::context::EngineOptions;
use kube::ResourceExt;
use kube::api::Api;
use serde_json::json;

const STEP: Duration = Duration::from_secs(180);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollout_too_large_to_store_stops_and_says_so() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "status-size").await;
    // Three clusters' status is far more than 300 bytes, even without the
    // clusters' reasons.
    let tight = EngineOptions {
        max_rollout_status_bytes: 300,
        ..EngineOptions::default()
    };
    let engine = RunningEngine::start_with(&ns.name, tight).await;
    let policy = json!({"strategy": "Automatic"});
    // The first revision needs no rollout: each cluster gets it as it comes.
    fleet_at_4_11_3(&mgmt, &ns.name, policy.clone()).await;

    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", policy).await;
    let refused = eventually("the rollout's StatusTooLarge Event", STEP, || async {
        let notes = event_notes(&mgmt, &ns.name, "fleet-2").await;
        notes
            .into_iter()
            .find(|n| n.starts_with("StatusTooLarge: "))
    })
    .await;
    assert!(
        refused.contains("the status of 3 clusters takes")
            && refused.contains("more than the 300 a rollout's status may take")
            && refused.contains("spread the template's clusters over several templates"),
        "the Event says what is too large and what to do: {refused}"
    );
    let on_template = event_notes(&mgmt, &ns.name, "fleet").await;
    assert!(
        on_template
            .iter()
            .any(|n| n.starts_with("StatusTooLarge: ")),
        "the template says so too: {on_template:?}"
    );
    // Nothing written half-way, and no cluster moves.
    let rollouts: Api<hmc_tui::api::TemplateRollout> = Api::namespaced(mgmt.clone(), &ns.name);
    let r = rollouts.get("fleet-2").await.expect("the rollout exists");
    assert!(
        r.status.as_ref().is_none_or(|s| s.clusters.is_empty()),
        "no plan was written: {:?}",
        r.status
    );
    // An operator's request meanwhile is not lost: it waits for a look
    // that can write what it asks. The request triggers a look of the
    // rollout controller; the assertions below hold once that look ended.
    let triggered = |e: &RunningEngine| {
        let t = e.counters.triggers.snapshot();
        t.get(&("rollouts", "rollouts")).copied().unwrap_or(0)
    };
    let looks = |e: &RunningEngine| {
        let c = e.counters.controllers.snapshot();
        c.get("rollouts")
            .map_or((0, 0), |s| (s.reconciles, s.in_flight))
    };
    let before = triggered(&engine);
    request(&mgmt, &ns.name, "fleet-2", "resume", "alice").await;
    eventually("the request to trigger the rollout", STEP, || async {
        (triggered(&engine) > before).then_some(())
    })
    .await;
    let (seen, _) = looks(&engine);
    eventually("a look at the rollout after the request", STEP, || async {
        let (done, running) = looks(&engine);
        (done > seen && running == 0).then_some(())
    })
    .await;
    assert_eq!(
        charts(&ns.name).await,
        some(&["ingress-nginx-4.11.3"; 3]),
        "no cluster moves while its rollout cannot be written"
    );
    let r = rollouts.get("fleet-2").await.unwrap();
    assert!(
        r.annotations().contains_key(labels::REQUEST),
        "the request stays while nothing can be written"
    );
    assert!(
        r.status.as_ref().is_none_or(|s| s.clusters.is_empty()),
        "the look wrote no plan: {:?}",
        r.status
    );
    engine.stop().await;

    // With room for it, the same rollout is planned and carried out.
    let engine = RunningEngine::start(&ns.name).await;
    in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded).await;
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));
    let r = rollouts.get("fleet-2").await.unwrap();
    assert!(
        !r.annotations().contains_key(labels::REQUEST),
        "the request was taken once the status could be written"
    );
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    for (name, _) in FLEET {
        let st = mcs.get(name).await.unwrap().status.unwrap();
        assert_eq!(st.revision, Some(2), "{name}");
    }

    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}
