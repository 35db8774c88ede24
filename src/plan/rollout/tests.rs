use super::*;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use proptest::prelude::*;
use serde_json::json;

use super::steps::{blocker, current_wave, failures};
use crate::api::policy_rules::*;
use crate::api::{
    ChangeWindow, ClusterRolloutState, ClusterRolloutStatus, RolloutPhase, RolloutPolicy,
    RolloutStrategy, ServiceState, TemplateRolloutSpec, TemplateRolloutStatus, WaveState, Weekday,
};
use crate::plan::services::ServicePlan;
use crate::plan::services::{BlockedService, DesiredService};

// ---- helpers ----------------------------------------------------------------

/// The revision clusters have before the rollout.
const OLD: i64 = 1;
/// The revision the rollout brings.
const REV: i64 = 2;

fn t(secs: i64) -> Timestamp {
    Timestamp::from_second(secs).unwrap()
}

fn cand(name: &str, labels: &[(&str, &str)], revision: Option<i64>) -> Candidate {
    Candidate {
        name: name.into(),
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        revision,
    }
}

/// `c01` … `cNN`, all at [`OLD`].
fn clusters(n: usize) -> Vec<Candidate> {
    (1..=n)
        .map(|i| cand(&format!("c{i:02}"), &[], Some(OLD)))
        .collect()
}

fn policy(strategy: RolloutStrategy, max: i32) -> RolloutPolicy {
    RolloutPolicy {
        strategy,
        max_concurrent: IntOrString::Int(max),
        ..Default::default()
    }
}

fn spec(policy: RolloutPolicy) -> TemplateRolloutSpec {
    TemplateRolloutSpec {
        multi_cluster_service: None,
        template: "tmpl".into(),
        revision: REV,
        policy,
    }
}

/// Settled at `revision`: given it, and healthy there.
fn settled_at(revision: i64) -> Health {
    Health {
        target: Some(revision),
        good: Some(revision),
        provisioned: true,
        ..Default::default()
    }
}

/// Given [`REV`], still installing.
fn installing() -> Health {
    Health {
        target: Some(REV),
        good: Some(OLD),
        provisioned: true,
        blocker: Some("ingress: installing".into()),
        ..Default::default()
    }
}

/// Given [`REV`], a service failed there.
fn failing() -> Health {
    Health {
        target: Some(REV),
        good: Some(OLD),
        provisioned: true,
        failed: Some("ingress: install failed".into()),
        ..Default::default()
    }
}

/// What the clusters report when each is given the revision
/// `desired_revision` says: at that revision and healthy, except that those
/// in `failing_names` fail at [`REV`] and those in `slow` keep installing.
fn world(
    spec: &TemplateRolloutSpec,
    status: &TemplateRolloutStatus,
    failing_names: &BTreeSet<String>,
    slow: &BTreeSet<String>,
) -> BTreeMap<String, Health> {
    status
        .clusters
        .iter()
        .map(|c| {
            let target = desired_revision(
                Some(spec.revision),
                Some((spec, status)),
                &c.name,
                c.from_revision,
            );
            let h = match target {
                Some(r) if r == spec.revision && failing_names.contains(&c.name) => failing(),
                Some(r) if r == spec.revision && slow.contains(&c.name) => installing(),
                Some(r) => settled_at(r),
                None => Health {
                    provisioned: true,
                    ..Default::default()
                },
            };
            (c.name.clone(), h)
        })
        .collect()
}

fn healthy_world(
    spec: &TemplateRolloutSpec,
    status: &TemplateRolloutStatus,
) -> BTreeMap<String, Health> {
    world(spec, status, &BTreeSet::new(), &BTreeSet::new())
}

/// One step of the world: what the clusters report now, then `advance`.
fn step(
    spec: &TemplateRolloutSpec,
    status: &mut TemplateRolloutStatus,
    failing_names: &BTreeSet<String>,
    slow: &BTreeSet<String>,
    now: i64,
) -> Vec<Note> {
    let health = world(spec, status, failing_names, slow);
    advance(spec, status, &health, t(now))
}

fn step_ok(spec: &TemplateRolloutSpec, status: &mut TemplateRolloutStatus, now: i64) -> Vec<Note> {
    step(spec, status, &BTreeSet::new(), &BTreeSet::new(), now)
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn state(status: &TemplateRolloutStatus, name: &str) -> ClusterRolloutState {
    status.cluster(name).unwrap().state
}

fn wave_states(status: &TemplateRolloutStatus) -> Vec<WaveState> {
    status.waves.iter().map(|w| w.state).collect()
}

fn members(status: &TemplateRolloutStatus, wave: u32) -> Vec<&str> {
    status
        .clusters
        .iter()
        .filter(|c| c.wave == wave)
        .map(|c| c.name.as_str())
        .collect()
}

fn wave_names(waves: &[PlannedWave]) -> Vec<Vec<&str>> {
    waves
        .iter()
        .map(|w| w.clusters.iter().map(String::as_str).collect())
        .collect()
}

fn request(
    spec: &TemplateRolloutSpec,
    status: &mut TemplateRolloutStatus,
    req: Request,
    health: &BTreeMap<String, Health>,
    now: i64,
) -> Result<Vec<Note>, String> {
    apply_request(spec, status, &req, "alice", health, t(now))
}

fn reasons(notes: &[Note]) -> Vec<&'static str> {
    notes.iter().map(|n| n.reason).collect()
}

// ---- max_concurrent -----------------------------------------------------------

#[test]
fn max_concurrent_table() {
    use MaxConcurrent::{Count, Percent};
    let cases: Vec<(IntOrString, Option<MaxConcurrent>)> = vec![
        (IntOrString::Int(3), Some(Count(3))),
        (IntOrString::Int(1), Some(Count(1))),
        (IntOrString::Int(i32::MAX), Some(Count(COUNT_MAX))),
        (IntOrString::Int(0), None),
        (IntOrString::Int(-4), None),
        (IntOrString::String("25%".into()), Some(Percent(25))),
        (IntOrString::String("1%".into()), Some(Percent(1))),
        (IntOrString::String("100%".into()), Some(Percent(100))),
        (IntOrString::String("0%".into()), None),
        (IntOrString::String("101%".into()), None),
        (IntOrString::String("250%".into()), None),
        (IntOrString::String("05%".into()), None),
        (IntOrString::String("2O%".into()), None),
        (IntOrString::String(" 50 % ".into()), None),
        (IntOrString::String("50 %".into()), None),
        (IntOrString::String("+5%".into()), None),
        (IntOrString::String("5.5%".into()), None),
        (IntOrString::String("%".into()), None),
        (IntOrString::String("".into()), None),
        // A count is a number, not a string, as in Kubernetes' IntOrString.
        (IntOrString::String("4".into()), None),
        (IntOrString::String("lots".into()), None),
        (IntOrString::String(format!("{}%", usize::MAX)), None),
    ];
    for (value, want) in cases {
        assert_eq!(parse_max_concurrent(&value), want, "{value:?}");
    }
}

#[test]
fn max_concurrent_of_a_total() {
    use MaxConcurrent::{Count, Percent};
    let cases = [
        (Count(3), 10, 3),
        (Count(3), 1, 3),
        (Count(COUNT_MAX), 5, COUNT_MAX as usize),
        (Percent(25), 10, 3),
        (Percent(25), 1, 1),
        (Percent(25), 0, 1),
        (Percent(25), 8, 2),
        (Percent(100), 7, 7),
        (Percent(1), 250, 3),
        (Percent(100), usize::MAX, usize::MAX.div_ceil(100)),
    ];
    for (m, total, want) in cases {
        assert_eq!(m.of(total), want, "{m:?} of {total}");
    }
    // The default policy is 25%.
    let limits = check_policy(&RolloutPolicy::default()).unwrap();
    assert_eq!(limits.max_concurrent.of(10), 3);
    assert_eq!(limits.health_timeout, Duration::from_secs(600));
    assert_eq!((limits.canary, limits.failure_budget), (0, 1));
}

// ---- candidates -----------------------------------------------------------------

#[test]
fn a_rollout_reaches_the_clusters_given_another_revision_and_not_being_deleted() {
    use crate::api::{ManagedCluster, ManagedClusterSpec, ManagedClusterStatus};
    let mc = |name: &str, given: Option<i64>, deleting: bool| {
        let mut c = ManagedCluster::new(name, ManagedClusterSpec::default());
        c.metadata.labels = Some([("env".to_string(), "prod".to_string())].into());
        c.metadata.deletion_timestamp = deleting.then(|| Time(t(1)));
        c.status = given.map(|r| ManagedClusterStatus {
            target_revision: Some(r),
            ..Default::default()
        });
        c
    };
    let fleet = [
        mc("old", Some(OLD), false),
        mc("has-it", Some(REV), false),
        mc("none-yet", None, false),
        mc("going", Some(OLD), true),
    ];
    let prod = [("env", "prod")];
    assert_eq!(
        candidates(&fleet, Some(REV)),
        vec![cand("old", &prod, Some(OLD))]
    );
    // A revision not made yet reaches every cluster given one.
    assert_eq!(
        candidates(&fleet, None),
        vec![
            cand("old", &prod, Some(OLD)),
            cand("has-it", &prod, Some(REV))
        ]
    );
}

// ---- plan_waves / plan --------------------------------------------------------

#[test]
fn waves_by_name_without_order() {
    let cs = vec![
        cand("d", &[], None),
        cand("b", &[], None),
        cand("a", &[], None),
        cand("c", &[], None),
        cand("e", &[], None),
    ];
    let waves = plan_waves(&cs, &policy(RolloutStrategy::Automatic, 2)).unwrap();
    assert_eq!(
        wave_names(&waves),
        vec![vec!["a", "b"], vec!["c", "d"], vec!["e"]]
    );
    assert!(waves.iter().all(|w| w.group.is_none()));
}

#[test]
fn waves_grouped_by_order_label() {
    let cs = vec![
        cand("eu-1", &[("region", "2-eu")], None),
        cand("us-1", &[("region", "1-us")], None),
        cand("none-1", &[], None),
        cand("us-2", &[("region", "1-us")], None),
        cand("eu-2", &[("region", "2-eu")], None),
        cand("us-3", &[("region", "1-us")], None),
        cand("none-2", &[("zone", "a")], None),
    ];
    let p = RolloutPolicy {
        order: Some("region".into()),
        ..policy(RolloutStrategy::Automatic, 2)
    };
    let waves = plan_waves(&cs, &p).unwrap();
    assert_eq!(
        wave_names(&waves),
        vec![
            vec!["us-1", "us-2"],
            vec!["us-3"],
            vec!["eu-1", "eu-2"],
            vec!["none-1", "none-2"],
        ]
    );
    let groups: Vec<Option<&str>> = waves.iter().map(|w| w.group.as_deref()).collect();
    assert_eq!(groups, vec![Some("1-us"), Some("1-us"), Some("2-eu"), None]);
}

#[test]
fn canary_wave_comes_first_and_is_capped() {
    let cs = clusters(7);
    let mut p = RolloutPolicy {
        canary: Some(2),
        ..policy(RolloutStrategy::Automatic, 3)
    };
    assert_eq!(
        wave_names(&plan_waves(&cs, &p).unwrap()),
        vec![
            vec!["c01", "c02"],
            vec!["c03", "c04", "c05"],
            vec!["c06", "c07"]
        ]
    );
    // Never larger than maxConcurrent.
    p.canary = Some(5);
    assert_eq!(plan_waves(&cs, &p).unwrap()[0].clusters.len(), 3);
    // Never more than there are clusters.
    p.canary = Some(3);
    let two = clusters(2);
    assert_eq!(
        wave_names(&plan_waves(&two, &p).unwrap()),
        vec![vec!["c01", "c02"]]
    );
    // Zero is no canary.
    p.canary = Some(0);
    assert_eq!(
        wave_names(&plan_waves(&cs, &p).unwrap()),
        vec![
            vec!["c01", "c02", "c03"],
            vec!["c04", "c05", "c06"],
            vec!["c07"]
        ]
    );
    // No clusters, no waves.
    p.canary = Some(1);
    assert!(plan_waves(&[], &p).unwrap().is_empty());
}

#[test]
fn canary_with_order_takes_the_first_in_order_then_groups() {
    let cs = vec![
        cand("a", &[("order", "2")], None),
        cand("b", &[("order", "1")], None),
        cand("c", &[("order", "1")], None),
        cand("d", &[], None),
    ];
    let p = RolloutPolicy {
        canary: Some(1),
        order: Some("order".into()),
        ..policy(RolloutStrategy::Automatic, 5)
    };
    let waves = plan_waves(&cs, &p).unwrap();
    assert_eq!(
        wave_names(&waves),
        vec![vec!["b"], vec!["c"], vec!["a"], vec!["d"]]
    );
    assert_eq!(waves[0].group, None, "the canary wave has no group");
    assert_eq!(waves[1].group.as_deref(), Some("1"));
}

#[test]
fn plan_starts_everything_waiting() {
    let mut cs = clusters(5);
    cs[3].revision = None;
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let status = plan(&sp, &cs).unwrap();
    assert_eq!(status.phase, RolloutPhase::Pending);
    assert_eq!(
        status.waves.iter().map(|w| w.number).collect::<Vec<_>>(),
        vec![1, 2, 3]
    );
    assert!(status.waves.iter().all(|w| w.state == WaveState::Pending));
    assert_eq!(members(&status, 1), vec!["c01", "c02"]);
    assert_eq!(members(&status, 3), vec!["c05"]);
    assert!(
        status
            .clusters
            .iter()
            .all(|c| c.state == ClusterRolloutState::Waiting && c.rollback_revision.is_none())
    );
    assert_eq!(status.cluster("c01").unwrap().from_revision, Some(OLD));
    assert_eq!(status.cluster("c04").unwrap().from_revision, None);
    assert_eq!(status.message.as_deref(), Some("5 clusters in 3 waves"));
    assert_eq!(status.updated_summary.as_deref(), Some("0/5"));
    assert_eq!(status.wave_summary.as_deref(), Some("1/3"));
    assert_eq!(
        status.cluster("c05").unwrap().reason.as_deref(),
        Some("wave 1 not yet healthy")
    );
}

// ---- Automatic rollouts -------------------------------------------------------

#[test]
fn automatic_rollout_goes_wave_by_wave() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(5)).unwrap();
    let notes = step_ok(&sp, &mut status, 100);
    assert_eq!(reasons(&notes), vec!["WaveStarted"]);
    assert_eq!(notes[0].message, "wave 1 started: c01, c02");
    assert_eq!(status.phase, RolloutPhase::Progressing);
    assert_eq!(status.started_at, Some(Time(t(100))));
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updating);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Waiting);
    // The engine gives wave 1 the revision; it comes up healthy.
    let mut now = 100;
    while !status.phase.is_terminal() {
        now += 10;
        assert!(now < 1000, "stuck: {status:?}");
        step_ok(&sp, &mut status, now);
    }
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    assert!(
        status
            .clusters
            .iter()
            .all(|c| c.state == ClusterRolloutState::Updated)
    );
    assert!(status.waves.iter().all(|w| w.state == WaveState::Succeeded));
    assert_eq!(status.finished_at, Some(Time(t(now))));
    assert_eq!(status.message.as_deref(), Some("5/5 clusters updated"));
    assert_eq!(status.wave_summary.as_deref(), Some("3/3"));
    // A finished rollout does not move again.
    let before = status.clone();
    let notes = advance(&sp, &mut status, &BTreeMap::new(), t(now + 5000));
    assert!(notes.is_empty());
    assert_eq!(status, before);
}

#[test]
fn a_started_wave_is_judged_in_the_same_step() {
    // Health that the first wave's clusters report as soon as they are given
    // the revision (a failing service, a blocker): one call of `advance`
    // with it takes the rollout as far as it goes.
    let sp = spec(RolloutPolicy {
        failure_budget: 5,
        ..policy(RolloutStrategy::Automatic, 2)
    });
    let mut status = plan(&sp, &clusters(4)).unwrap();
    let mut health: BTreeMap<String, Health> = status
        .clusters
        .iter()
        .map(|c| (c.name.clone(), installing()))
        .collect();
    health.insert("c01".into(), failing());
    advance(&sp, &mut status, &health, t(1));
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Failed);
    let c2 = status.cluster("c02").unwrap();
    assert_eq!(c2.state, ClusterRolloutState::Updating);
    assert_eq!(c2.reason.as_deref(), Some("ingress: installing"));
    let once = status.clone();
    assert!(advance(&sp, &mut status, &health, t(1)).is_empty());
    assert_eq!(status, once, "advance is not at a fixed point");
}

#[test]
fn waiting_cluster_already_at_the_revision_counts_as_updated() {
    let sp = spec(policy(RolloutStrategy::Automatic, 1));
    let mut status = plan(&sp, &clusters(3)).unwrap();
    let mut health = healthy_world(&sp, &status);
    health.insert("c03".into(), settled_at(REV));
    let notes = advance(&sp, &mut status, &health, t(1));
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Updated);
    // No "ClusterUpdated" event: the rollout did not take it there.
    assert!(!reasons(&notes).contains(&"ClusterUpdated"));
    assert_eq!(status.updated_summary.as_deref(), Some("1/3"));
}

#[test]
fn a_cluster_that_left_the_rollout_is_skipped_saying_why() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(3)).unwrap();
    step_ok(&sp, &mut status, 1);
    let mut health = healthy_world(&sp, &status);
    // c02, updating in wave 1, and c03, waiting in wave 2, lose the label.
    for name in ["c02", "c03"] {
        health.get_mut(name).unwrap().left = Some("no longer selected by the MultiClusterService");
    }
    advance(&sp, &mut status, &health, t(2));
    for name in ["c02", "c03"] {
        let c = status.cluster(name).unwrap();
        assert_eq!(c.state, ClusterRolloutState::Skipped);
        assert_eq!(
            c.reason.as_deref(),
            Some("no longer selected by the MultiClusterService")
        );
    }
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updated);
    assert_eq!(status.phase, RolloutPhase::Succeeded);
}

#[test]
fn deleted_cluster_is_skipped() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(4)).unwrap();
    step_ok(&sp, &mut status, 1);
    let mut health = healthy_world(&sp, &status);
    health.remove("c02");
    health.remove("c04");
    advance(&sp, &mut status, &health, t(2));
    for name in ["c02", "c04"] {
        let c = status.cluster(name).unwrap();
        assert_eq!(c.state, ClusterRolloutState::Skipped);
        assert_eq!(c.reason.as_deref(), Some("the ManagedCluster was deleted"));
    }
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updated);
    assert_eq!(wave_states(&status)[0], WaveState::Succeeded);
    assert_eq!(
        status.message.as_deref().unwrap(),
        "wave 2/2: 1/4 clusters updated, 2 skipped"
    );
}

// ---- approvals ----------------------------------------------------------------

#[test]
fn manual_waits_for_approval_before_every_wave() {
    let sp = spec(policy(RolloutStrategy::Manual, 2));
    let mut status = plan(&sp, &clusters(5)).unwrap();
    let mut now = 10;
    let notes = step_ok(&sp, &mut status, now);
    assert_eq!(reasons(&notes), vec!["WaitingForApproval"]);
    for number in 1..=3u32 {
        // Waiting, and nothing moves by itself.
        for _ in 0..3 {
            now += 1000;
            step_ok(&sp, &mut status, now);
            assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
            let w = &status.waves[number as usize - 1];
            assert_eq!(w.state, WaveState::WaitingForApproval);
            for c in members(&status, number) {
                assert_eq!(state(&status, c), ClusterRolloutState::Waiting);
                assert_eq!(
                    status.cluster(c).unwrap().reason.as_deref(),
                    Some(format!("waiting for approval of wave {number}").as_str())
                );
            }
        }
        assert_eq!(
            status.message.as_deref().unwrap(),
            format!(
                "wave {number}/3 waits for approval; {}/5 updated",
                (number - 1) * 2
            )
        );
        // Approving another wave is refused and changes nothing.
        let before = status.clone();
        let health = healthy_world(&sp, &status);
        let err = request(
            &sp,
            &mut status,
            Request::Approve(Some(number + 1)),
            &health,
            now,
        )
        .unwrap_err();
        assert_eq!(
            err,
            format!(
                "wave {} does not wait for approval; wave {number} does",
                number + 1
            )
        );
        assert_eq!(status, before);
        // Approving starts exactly the waiting wave.
        let notes = request(&sp, &mut status, Request::Approve(None), &health, now).unwrap();
        assert!(reasons(&notes).contains(&"WaveStarted"));
        assert_eq!(status.phase, RolloutPhase::Progressing);
        let w = &status.waves[number as usize - 1];
        assert_eq!(w.state, WaveState::Progressing);
        assert_eq!(w.approved_by.as_deref(), Some("alice"));
        assert_eq!(w.approved_at, Some(Time(t(now))));
        for c in &status.clusters {
            let want = match c.wave.cmp(&number) {
                std::cmp::Ordering::Less => ClusterRolloutState::Updated,
                std::cmp::Ordering::Equal => ClusterRolloutState::Updating,
                std::cmp::Ordering::Greater => ClusterRolloutState::Waiting,
            };
            assert_eq!(c.state, want, "{} in wave {number}", c.name);
        }
        let act = status.history.last().unwrap();
        assert_eq!(
            (act.action.as_str(), act.by.as_str(), act.wave, act.revision),
            ("approve", "alice", Some(number), REV)
        );
        // The wave comes up healthy; the next one waits again.
        now += 10;
        step_ok(&sp, &mut status, now);
    }
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    assert_eq!(status.history.len(), 3);
}

#[test]
fn approve_with_nothing_waiting_is_refused() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(3)).unwrap();
    step_ok(&sp, &mut status, 1);
    let before = status.clone();
    let err = request(
        &sp,
        &mut status,
        Request::Approve(None),
        &BTreeMap::new(),
        2,
    )
    .unwrap_err();
    assert_eq!(
        err,
        "no wave waits for approval (the rollout is Progressing)"
    );
    assert_eq!(status, before);
}

#[test]
fn canary_waits_for_approval_after_the_first_wave_even_automatic() {
    let sp = spec(RolloutPolicy {
        canary: Some(1),
        ..policy(RolloutStrategy::Automatic, 2)
    });
    let mut status = plan(&sp, &clusters(5)).unwrap();
    assert_eq!(members(&status, 1), vec!["c01"]);
    // The canary starts without approval.
    step_ok(&sp, &mut status, 1);
    assert_eq!(status.phase, RolloutPhase::Progressing);
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updating);
    // Once it is healthy, wave 2 waits.
    let notes = step_ok(&sp, &mut status, 2);
    assert_eq!(
        reasons(&notes),
        vec!["ClusterUpdated", "WaveFinished", "WaitingForApproval"]
    );
    assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
    assert_eq!(
        wave_states(&status),
        vec![
            WaveState::Succeeded,
            WaveState::WaitingForApproval,
            WaveState::Pending
        ]
    );
    step_ok(&sp, &mut status, 5000);
    assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Approve(Some(2)), &health, 5001).unwrap();
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Updating);
    // After the canary's approval, the rest goes on by itself.
    let mut now = 5001;
    while !status.phase.is_terminal() {
        now += 1;
        assert!(now < 6000);
        step_ok(&sp, &mut status, now);
        assert_ne!(status.phase, RolloutPhase::WaitingForApproval);
    }
    assert_eq!(status.phase, RolloutPhase::Succeeded);
}

#[test]
fn canary_of_zero_does_not_wait_for_approval() {
    let sp = spec(RolloutPolicy {
        canary: Some(0),
        ..policy(RolloutStrategy::Automatic, 1)
    });
    let mut status = plan(&sp, &clusters(3)).unwrap();
    let mut now = 0;
    while !status.phase.is_terminal() {
        now += 1;
        assert!(now < 100);
        step_ok(&sp, &mut status, now);
        assert_ne!(status.phase, RolloutPhase::WaitingForApproval);
    }
    assert_eq!(status.phase, RolloutPhase::Succeeded);
}

// ---- failures -----------------------------------------------------------------

#[test]
fn health_timeout_fails_a_cluster() {
    let sp = spec(RolloutPolicy {
        health_timeout: "90s".into(),
        failure_budget: 0,
        ..policy(RolloutStrategy::Automatic, 2)
    });
    let mut status = plan(&sp, &clusters(4)).unwrap();
    let slow = set(&["c02"]);
    let none = BTreeSet::new();
    step(&sp, &mut status, &none, &slow, 1000);
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Updating);
    assert_eq!(status.cluster("c02").unwrap().since, Some(Time(t(1000))));
    // At the timeout exactly it still has time.
    step(&sp, &mut status, &none, &slow, 1090);
    let c = status.cluster("c02").unwrap();
    assert_eq!(c.state, ClusterRolloutState::Updating);
    assert_eq!(c.reason.as_deref(), Some("ingress: installing"));
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updated);
    assert_eq!(status.phase, RolloutPhase::Progressing);
    // Past it, it fails; with no budget the rollout stops.
    let notes = step(&sp, &mut status, &none, &slow, 1091);
    let c = status.cluster("c02").unwrap();
    assert_eq!(c.state, ClusterRolloutState::Failed);
    assert_eq!(
        c.reason.as_deref(),
        Some("not healthy within 90s: ingress: installing")
    );
    assert_eq!(c.since, Some(Time(t(1091))));
    assert_eq!(
        reasons(&notes),
        vec!["ClusterFailed", "WaveFinished", "RolloutStopped"]
    );
    assert!(notes[0].warning && notes[1].warning && notes[2].warning);
    assert_eq!(status.phase, RolloutPhase::Failed);
    assert_eq!(
        wave_states(&status),
        vec![WaveState::Failed, WaveState::Pending]
    );
    assert_eq!(
        status.message.as_deref(),
        Some("stopped: 1 cluster failed, failure budget 0; 1/4 updated")
    );
    assert_eq!(
        status.cluster("c03").unwrap().reason.as_deref(),
        Some("failure budget spent: 1 failed, budget 0")
    );
    // Stopped: wave 2 never starts.
    step(&sp, &mut status, &none, &slow, 9999);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Waiting);
    assert_eq!(status.phase, RolloutPhase::Failed);
}

#[test]
fn health_timeout_blocker_lines() {
    let h = Health::default();
    assert_eq!(blocker(&h, REV), "cluster not provisioned");
    let h = Health {
        provisioned: true,
        target: Some(OLD),
        ..Default::default()
    };
    assert_eq!(blocker(&h, REV), "applying revision 2");
    let h = Health {
        provisioned: true,
        target: Some(REV),
        ..Default::default()
    };
    assert_eq!(blocker(&h, REV), "services installing");
    assert_eq!(blocker(&installing(), REV), "ingress: installing");
}

// ---- a policy that breaks its rules ---------------------------------------------

/// A policy as it may be stored from before the CRD checked it.
fn stored(health_timeout: &str, max_concurrent: IntOrString, failure_budget: u32) -> RolloutPolicy {
    RolloutPolicy {
        health_timeout: health_timeout.into(),
        max_concurrent,
        failure_budget,
        ..Default::default()
    }
}

#[test]
fn bad_values_are_named_never_defaulted() {
    let e = check_policy(&stored("1.5h", IntOrString::Int(2), 1)).unwrap_err();
    assert_eq!(
        e.at("spec.rollout"),
        "spec.rollout.healthTimeout: invalid value \"1.5h\": healthTimeout must be a duration in whole h, m and s, more than zero, such as 90s, 10m or 1h30m"
    );
    let e = check_policy(&stored("10m", IntOrString::String("2O%".into()), 1)).unwrap_err();
    assert_eq!(
        e.at("spec.rollout"),
        "spec.rollout.maxConcurrent: invalid value \"2O%\": maxConcurrent must be a whole number of clusters (1 or more) or a percentage from 1% to 100%, such as 3 or 25%"
    );
    // Every bad value at once, each with its rule.
    let mut p = stored("", IntOrString::Int(0), u32::MAX);
    p.canary = Some(COUNT_MAX + 1);
    let e = check_policy(&p).unwrap_err();
    let fields: Vec<&str> = e.0.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(
        fields,
        ["maxConcurrent", "canary", "healthTimeout", "failureBudget"]
    );
    assert_eq!(e.0[0].value, "0");
    assert_eq!(e.0[1].value, (COUNT_MAX + 1).to_string());
    assert_eq!(e.0[2].value, "\"\"");
    assert!(
        e.0[3]
            .rule
            .starts_with("failureBudget must be a whole number")
    );
    // The display names the policy.
    assert!(
        e.to_string()
            .starts_with("rollout.maxConcurrent: invalid value 0")
    );
}

#[test]
fn a_hostile_value_is_quoted_escaped_and_cut() {
    let long = format!("1h\"\n{}", "x".repeat(10_000));
    let e = check_policy(&stored(&long, IntOrString::Int(1), 0)).unwrap_err();
    let text = e.at("spec.rollout");
    assert!(text.len() < 300, "{text}");
    assert!(!text.contains('\n'), "{text}");
    assert!(text.contains(r#"invalid value "1h\"\nxxx"#), "{text}");
    assert!(text.contains("xxx\"…"), "{text}");
}

/// The ClusterTemplate's status names the bad value (the template
/// controller writes it as its validation error).
#[test]
fn the_template_reports_a_bad_stored_policy() {
    use crate::api::{ClusterTemplate, ClusterTemplateSpec};
    use crate::engine::templates::Template;
    let mut ct = ClusterTemplate::new(
        "t",
        ClusterTemplateSpec {
            rollout: Some(stored("1.5h", IntOrString::String("2O%".into()), 1)),
            ..Default::default()
        },
    );
    assert_eq!(
        ct.spec_problem().as_deref(),
        Some(concat!(
            "spec.rollout.maxConcurrent: invalid value \"2O%\": maxConcurrent must be a whole number of clusters (1 or more) or a percentage from 1% to 100%, such as 3 or 25%; ",
            "spec.rollout.healthTimeout: invalid value \"1.5h\": healthTimeout must be a duration in whole h, m and s, more than zero, such as 90s, 10m or 1h30m"
        ))
    );
    ct.spec.rollout = Some(RolloutPolicy::default());
    assert_eq!(ct.spec_problem(), None);
    ct.spec.rollout = None;
    assert_eq!(ct.spec_problem(), None);
}

#[test]
fn a_bad_policy_plans_nothing() {
    let sp = spec(stored("1.5h", IntOrString::Int(2), 1));
    let e = plan(&sp, &clusters(4)).unwrap_err();
    assert_eq!(e.0.len(), 1);
    assert_eq!(e.0[0].field, "healthTimeout");
    assert!(plan_waves(&clusters(4), &sp.policy).is_err());
    let sp = spec(stored("10m", IntOrString::String("2O%".into()), 1));
    assert!(plan(&sp, &clusters(4)).is_err());
}

/// A rollout planned under a good policy whose stored spec now reads bad
/// (as it would from before the rules): it stops where it is, says why
/// once, and no cluster moves, however long it waits.
#[test]
fn a_bad_stored_policy_stops_the_rollout_where_it_is() {
    let good = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&good, &clusters(4)).unwrap();
    let healthy = reported(&status, &[1; 64]);
    advance(&good, &mut status, &healthy, t(10));
    assert_eq!(status.phase, RolloutPhase::Progressing);
    let before = status.clone();

    let bad = spec(stored("1.5h", IntOrString::Int(2), 1));
    let notes = advance(&bad, &mut status, &healthy, t(20));
    assert_eq!(reasons(&notes), ["InvalidPolicy"]);
    assert!(notes[0].warning);
    let message = status.message.clone().unwrap();
    assert!(
        message.starts_with("stopped: its policy breaks the rules: spec.policy.healthTimeout: invalid value \"1.5h\": healthTimeout must be"),
        "{message}"
    );
    // Only the message changed.
    assert_eq!(status.waves, before.waves);
    assert_eq!(status.clusters, before.clusters);
    assert_eq!(status.phase, before.phase);
    // Long past any timeout, and with every cluster at the revision:
    // nothing moves and nothing more is said.
    let there = reported(&status, &[4; 64]);
    for (health, now) in [(&healthy, 100_000), (&there, 200_000)] {
        let notes = advance(&bad, &mut status, health, t(now));
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(status.clusters, before.clusters);
        assert_eq!(status.waves, before.waves);
    }
}

#[test]
fn a_bad_stored_policy_takes_no_request_that_moves_it_forward() {
    let manual = spec(policy(RolloutStrategy::Manual, 1));
    let mut status = plan(&manual, &clusters(3)).unwrap();
    let health = reported(&status, &[1; 64]);
    advance(&manual, &mut status, &health, t(1));
    assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
    let bad = spec(RolloutPolicy {
        strategy: RolloutStrategy::Manual,
        ..stored("10m", IntOrString::String("2O%".into()), 1)
    });
    let before = status.clone();
    for req in [
        Request::Approve(None),
        Request::Resume,
        Request::Retry("c01".into()),
    ] {
        let why = apply_request(&bad, &mut status, &req, "op", &health, t(2)).unwrap_err();
        assert!(
            why.starts_with("the rollout's policy breaks the rules: spec.policy.maxConcurrent"),
            "{why}"
        );
        assert_eq!(status, before, "{req:?}");
    }
    // Stopping it still works.
    apply_request(&bad, &mut status, &Request::Abort, "op", &health, t(3)).unwrap();
    assert_eq!(status.phase, RolloutPhase::Aborted);
    assert!(
        status
            .clusters
            .iter()
            .all(|c| c.state == ClusterRolloutState::Waiting)
    );
}

#[test]
fn a_failed_service_fails_only_at_the_target_revision() {
    let sp = spec(RolloutPolicy {
        failure_budget: 5,
        ..policy(RolloutStrategy::Automatic, 3)
    });
    let mut status = plan(&sp, &clusters(3)).unwrap();
    step_ok(&sp, &mut status, 1);
    let mut health = healthy_world(&sp, &status);
    // A failure at the old revision is not this rollout's.
    health.insert(
        "c01".into(),
        Health {
            failed: Some("old failure".into()),
            ..settled_at(OLD)
        },
    );
    health.insert("c02".into(), failing());
    health.insert("c03".into(), installing());
    advance(&sp, &mut status, &health, t(2));
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updating);
    assert_eq!(
        status.cluster("c01").unwrap().reason.as_deref(),
        Some("applying revision 2")
    );
    let c2 = status.cluster("c02").unwrap();
    assert_eq!(c2.state, ClusterRolloutState::Failed);
    assert_eq!(c2.reason.as_deref(), Some("ingress: install failed"));
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Updating);
    // A failed cluster that recovers at the revision counts as updated.
    health.insert("c02".into(), settled_at(REV));
    advance(&sp, &mut status, &health, t(3));
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Updated);
}

#[test]
fn failures_within_budget_go_on() {
    let sp = spec(RolloutPolicy {
        failure_budget: 1,
        ..policy(RolloutStrategy::Automatic, 2)
    });
    let mut status = plan(&sp, &clusters(6)).unwrap();
    let bad = set(&["c01", "c04"]);
    let none = BTreeSet::new();
    let mut now = 0;
    while !matches!(status.phase, RolloutPhase::Failed) && !status.phase.is_terminal() {
        now += 1;
        assert!(now < 100);
        step(&sp, &mut status, &bad, &none, now);
    }
    // c01 fails (1 ≤ budget), wave 2 starts; c04 fails (2 > budget): stop.
    assert_eq!(status.phase, RolloutPhase::Failed);
    assert_eq!(
        wave_states(&status),
        vec![WaveState::Failed, WaveState::Failed, WaveState::Pending]
    );
    assert_eq!(state(&status, "c05"), ClusterRolloutState::Waiting);
}

// ---- pause, resume, abort, rollback -------------------------------------------

#[test]
fn pause_and_resume() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(4)).unwrap();
    step_ok(&sp, &mut status, 1);
    let all: BTreeSet<String> = status.clusters.iter().map(|c| c.name.clone()).collect();
    let health = world(&sp, &status, &BTreeSet::new(), &all);
    let notes = request(&sp, &mut status, Request::Pause, &health, 2).unwrap();
    assert_eq!(reasons(&notes), vec!["RolloutRequest"]);
    assert_eq!(notes[0].message, "pause by alice (revision 2)");
    assert_eq!(status.phase, RolloutPhase::Paused);
    assert_eq!(status.paused_by.as_deref(), Some("alice"));
    assert_eq!(
        status.cluster("c03").unwrap().reason.as_deref(),
        Some("rollout paused by alice")
    );
    assert_eq!(
        status.message.as_deref(),
        Some("paused by alice; 0/4 updated")
    );
    // Paused: the clusters already given the revision still report, but
    // no wave finishes or starts.
    for now in [3, 4, 5000] {
        step_ok(&sp, &mut status, now);
        assert_eq!(status.phase, RolloutPhase::Paused);
    }
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updated);
    assert_eq!(
        wave_states(&status),
        vec![WaveState::Progressing, WaveState::Pending]
    );
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Waiting);
    // Resume: the finished wave closes and the next starts right away.
    let health = healthy_world(&sp, &status);
    let notes = request(&sp, &mut status, Request::Resume, &health, 5001).unwrap();
    assert_eq!(
        reasons(&notes),
        vec!["RolloutRequest", "WaveFinished", "WaveStarted"]
    );
    assert_eq!(status.phase, RolloutPhase::Progressing);
    assert_eq!(status.paused_by, None);
    assert_eq!(
        wave_states(&status),
        vec![WaveState::Succeeded, WaveState::Progressing]
    );
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Updating);
    let actions: Vec<&str> = status.history.iter().map(|a| a.action.as_str()).collect();
    assert_eq!(actions, vec!["pause", "resume"]);
}

#[test]
fn pause_before_start_and_while_waiting_for_approval() {
    // Paused before anything started: resume starts the first wave.
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(3)).unwrap();
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Pause, &health, 1).unwrap();
    advance(&sp, &mut status, &health, t(2));
    assert_eq!(status.phase, RolloutPhase::Paused);
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Waiting);
    request(&sp, &mut status, Request::Resume, &health, 3).unwrap();
    assert_eq!(status.phase, RolloutPhase::Progressing);
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updating);

    // Paused while waiting for approval: resume waits again; approval is
    // refused while paused.
    let sp = spec(policy(RolloutStrategy::Manual, 2));
    let mut status = plan(&sp, &clusters(3)).unwrap();
    step_ok(&sp, &mut status, 1);
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Pause, &health, 2).unwrap();
    let before = status.clone();
    assert!(request(&sp, &mut status, Request::Approve(None), &health, 3).is_err());
    assert_eq!(status, before);
    request(&sp, &mut status, Request::Resume, &health, 4).unwrap();
    assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
    assert_eq!(wave_states(&status)[0], WaveState::WaitingForApproval);
    request(&sp, &mut status, Request::Approve(Some(1)), &health, 5).unwrap();
    assert_eq!(status.phase, RolloutPhase::Progressing);
}

#[test]
fn pause_and_resume_refused_when_they_do_not_apply() {
    let sp = spec(RolloutPolicy {
        failure_budget: 0,
        ..policy(RolloutStrategy::Automatic, 2)
    });
    let mut status = plan(&sp, &clusters(2)).unwrap();
    let health = healthy_world(&sp, &status);
    let err = request(&sp, &mut status, Request::Resume, &health, 1).unwrap_err();
    assert_eq!(err, "nothing to resume: the rollout is Pending");
    // A rollout stopped by its failure budget cannot be paused.
    let bad = set(&["c01"]);
    step(&sp, &mut status, &bad, &BTreeSet::new(), 1);
    step(&sp, &mut status, &bad, &BTreeSet::new(), 2);
    assert_eq!(status.phase, RolloutPhase::Failed);
    let before = status.clone();
    let err = request(&sp, &mut status, Request::Pause, &health, 3).unwrap_err();
    assert_eq!(err, "nothing to pause: the rollout is Failed");
    assert_eq!(status, before);
}

#[test]
fn abort_stops_and_keeps_what_is_done() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(6)).unwrap();
    let slow = set(&["c04"]);
    let none = BTreeSet::new();
    for now in 1..=3 {
        step(&sp, &mut status, &none, &slow, now);
    }
    // Wave 1 updated, wave 2 half way.
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Updated);
    assert_eq!(state(&status, "c04"), ClusterRolloutState::Updating);
    let health = world(&sp, &status, &none, &slow);
    request(&sp, &mut status, Request::Abort, &health, 4).unwrap();
    assert_eq!(status.phase, RolloutPhase::Aborted);
    assert_eq!(status.finished_at, Some(Time(t(4))));
    assert_eq!(status.message.as_deref(), Some("aborted; 3/6 updated"));
    assert_eq!(
        status.cluster("c05").unwrap().reason.as_deref(),
        Some("rollout aborted: keeps its revision")
    );
    // Nothing moves any more, whatever the clusters say.
    let before = status.clone();
    let all_at_rev = reported(&status, &[4; 64]);
    assert!(advance(&sp, &mut status, &all_at_rev, t(99_999)).is_empty());
    assert_eq!(status, before);
    // Updated clusters keep the revision, waiting ones keep theirs.
    let rollout = Some((&sp, &status));
    assert_eq!(
        desired_revision(Some(REV), rollout, "c01", Some(REV)),
        Some(REV)
    );
    assert_eq!(
        desired_revision(Some(REV), rollout, "c05", Some(OLD)),
        Some(OLD)
    );
    // Again: refused, and so are skip and retry.
    for req in [
        Request::Abort,
        Request::Pause,
        Request::Resume,
        Request::Approve(None),
        Request::Skip("c05".into()),
        Request::Retry("c04".into()),
    ] {
        assert!(
            request(&sp, &mut status, req.clone(), &health, 5).is_err(),
            "{req:?}"
        );
        assert_eq!(status, before, "{req:?}");
    }
}

#[test]
fn rollback_returns_touched_clusters_to_their_last_good_revision() {
    let mut cs = clusters(6);
    cs[2].revision = None; // c03: no revision when planned
    let sp = spec(RolloutPolicy {
        failure_budget: 5,
        ..policy(RolloutStrategy::Automatic, 3)
    });
    let mut status = plan(&sp, &cs).unwrap();
    let bad = set(&["c04"]);
    let slow = set(&["c05"]);
    // When wave 1 starts, c02 reports another last good revision and c03
    // reports none (and had none).
    let mut health = world(&sp, &status, &bad, &slow);
    health.get_mut("c02").unwrap().good = Some(0);
    health.insert(
        "c03".into(),
        Health {
            provisioned: true,
            ..Default::default()
        },
    );
    advance(&sp, &mut status, &health, t(1));
    for now in 2..=3 {
        step(&sp, &mut status, &bad, &slow, now);
    }
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updated);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Updated);
    assert_eq!(state(&status, "c04"), ClusterRolloutState::Failed);
    assert_eq!(state(&status, "c05"), ClusterRolloutState::Updating);
    assert_eq!(state(&status, "c06"), ClusterRolloutState::Updated);
    let rollback: Vec<Option<i64>> = status
        .clusters
        .iter()
        .map(|c| c.rollback_revision)
        .collect();
    assert_eq!(
        rollback,
        vec![Some(OLD), Some(0), None, Some(OLD), Some(OLD), Some(OLD)]
    );
    let health = world(&sp, &status, &bad, &slow);
    let notes = request(&sp, &mut status, Request::Rollback, &health, 4).unwrap();
    assert_eq!(reasons(&notes), vec!["RolloutRequest"]);
    assert_eq!(status.phase, RolloutPhase::RolledBack);
    assert_eq!(status.finished_at, Some(Time(t(4))));
    assert!(
        status
            .clusters
            .iter()
            .all(|c| c.state == ClusterRolloutState::RolledBack)
    );
    assert_eq!(
        status.cluster("c02").unwrap().reason.as_deref(),
        Some("rolled back to revision 0")
    );
    assert_eq!(
        status.cluster("c03").unwrap().reason.as_deref(),
        Some("rolled back: keeps the revision it had")
    );
    let rollout = Some((&sp, &status));
    // Every touched cluster goes back to its rollback revision, whatever it
    // is given now; one without keeps what it has.
    assert_eq!(
        desired_revision(Some(REV), rollout, "c01", Some(REV)),
        Some(OLD)
    );
    assert_eq!(
        desired_revision(Some(REV), rollout, "c02", Some(REV)),
        Some(0)
    );
    assert_eq!(
        desired_revision(Some(REV), rollout, "c03", Some(REV)),
        Some(REV)
    );
    assert_eq!(desired_revision(Some(REV), rollout, "c03", None), None);
    assert_eq!(
        desired_revision(Some(REV), rollout, "c04", Some(REV)),
        Some(OLD)
    );
    assert_eq!(
        desired_revision(Some(REV), rollout, "c06", Some(REV)),
        Some(OLD)
    );
    // Twice is refused.
    let before = status.clone();
    assert_eq!(
        request(&sp, &mut status, Request::Rollback, &health, 5).unwrap_err(),
        "nothing to roll back: the rollout is RolledBack"
    );
    assert_eq!(status, before);
}

#[test]
fn rollback_leaves_waiting_clusters_alone_and_works_after_success() {
    let sp = spec(policy(RolloutStrategy::Manual, 2));
    let mut status = plan(&sp, &clusters(4)).unwrap();
    step_ok(&sp, &mut status, 1);
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Approve(None), &health, 2).unwrap();
    step_ok(&sp, &mut status, 3);
    assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
    request(&sp, &mut status, Request::Rollback, &health, 4).unwrap();
    assert_eq!(state(&status, "c01"), ClusterRolloutState::RolledBack);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Waiting);
    assert_eq!(
        status.cluster("c03").unwrap().reason.as_deref(),
        Some("rollout rolled back: keeps its revision")
    );
    assert_eq!(
        desired_revision(Some(REV), Some((&sp, &status)), "c03", Some(OLD)),
        Some(OLD)
    );

    // A finished rollout can still be rolled back.
    let sp = spec(policy(RolloutStrategy::Automatic, 5));
    let mut status = plan(&sp, &clusters(2)).unwrap();
    for now in 1..=2 {
        step_ok(&sp, &mut status, now);
    }
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Rollback, &health, 3).unwrap();
    assert_eq!(status.phase, RolloutPhase::RolledBack);
    assert_eq!(
        status.message.as_deref(),
        Some("rolled back to each cluster's last good revision")
    );
    assert!(
        status
            .clusters
            .iter()
            .all(|c| c.state == ClusterRolloutState::RolledBack)
    );
}

// ---- skip and retry -----------------------------------------------------------

#[test]
fn skip_a_waiting_cluster() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(4)).unwrap();
    step_ok(&sp, &mut status, 1);
    let health = healthy_world(&sp, &status);
    let notes = request(&sp, &mut status, Request::Skip("c03".into()), &health, 2).unwrap();
    assert_eq!(
        notes[0].message,
        "skip wave 2 cluster c03 by alice (revision 2)"
    );
    let c = status.cluster("c03").unwrap();
    assert_eq!(c.state, ClusterRolloutState::Skipped);
    assert_eq!(
        c.reason.as_deref(),
        Some("skipped by alice: keeps its revision")
    );
    let act = status.history.last().unwrap();
    assert_eq!((act.wave, act.cluster.as_deref()), (Some(2), Some("c03")));
    let mut now = 2;
    while !status.phase.is_terminal() {
        now += 1;
        assert!(now < 100);
        step_ok(&sp, &mut status, now);
        assert_eq!(state(&status, "c03"), ClusterRolloutState::Skipped);
    }
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    assert_eq!(
        status.message.as_deref(),
        Some("3/4 clusters updated, 1 skipped")
    );
    assert_eq!(
        desired_revision(Some(REV), Some((&sp, &status)), "c03", Some(OLD)),
        Some(OLD)
    );
}

/// A manual rollout asks no approval for a wave whose clusters are all
/// skipped: there is nothing to start. The next wave waits instead.
#[test]
fn a_wave_left_with_nothing_to_update_is_passed_over() {
    let sp = spec(policy(RolloutStrategy::Manual, 1));
    let mut status = plan(&sp, &clusters(3)).unwrap();
    step_ok(&sp, &mut status, 1);
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Skip("c02".into()), &health, 2).unwrap();
    request(&sp, &mut status, Request::Approve(Some(1)), &health, 3).unwrap();
    let notes = step_ok(&sp, &mut status, 4);
    assert_eq!(
        wave_states(&status),
        [
            WaveState::Succeeded,
            WaveState::Succeeded,
            WaveState::WaitingForApproval
        ]
    );
    assert_eq!(status.waves[1].started_at, None, "wave 2 never started");
    assert!(
        notes.iter().any(|n| n.message
            == "wave 2 passed over: its clusters are skipped or already at revision 2"),
        "{notes:?}"
    );
    assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
    assert_eq!(
        status.cluster("c03").unwrap().reason.as_deref(),
        Some("waiting for approval of wave 3")
    );
    // Skipping the one cluster of the wave that waits passes it over too:
    // the rollout is done.
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Skip("c03".into()), &health, 5).unwrap();
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    assert_eq!(
        status.message.as_deref(),
        Some("1/3 clusters updated, 2 skipped")
    );
}

#[test]
fn skip_an_updating_cluster_returns_it() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(4)).unwrap();
    let slow = set(&["c02"]);
    let none = BTreeSet::new();
    step(&sp, &mut status, &none, &slow, 1);
    step(&sp, &mut status, &none, &slow, 2);
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Updating);
    let health = world(&sp, &status, &none, &slow);
    request(&sp, &mut status, Request::Skip("c02".into()), &health, 3).unwrap();
    let c = status.cluster("c02").unwrap();
    assert_eq!(c.state, ClusterRolloutState::Skipped);
    assert_eq!(
        c.reason.as_deref(),
        Some("skipped by alice: back to revision 1")
    );
    assert_eq!(
        desired_revision(Some(REV), Some((&sp, &status)), "c02", Some(REV)),
        Some(OLD)
    );
    // Its wave no longer waits for it.
    assert_eq!(wave_states(&status)[0], WaveState::Succeeded);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Updating);
}

#[test]
fn skip_refusals() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(4)).unwrap();
    step_ok(&sp, &mut status, 1);
    step_ok(&sp, &mut status, 2);
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updated);
    let health = healthy_world(&sp, &status);
    let before = status.clone();
    assert_eq!(
        request(&sp, &mut status, Request::Skip("c01".into()), &health, 3).unwrap_err(),
        "c01 cannot be skipped: it is Updated"
    );
    assert_eq!(
        request(&sp, &mut status, Request::Skip("nope".into()), &health, 3).unwrap_err(),
        "nope is not part of this rollout"
    );
    assert_eq!(
        request(&sp, &mut status, Request::Retry("nope".into()), &health, 3).unwrap_err(),
        "nope is not part of this rollout"
    );
    assert_eq!(
        request(&sp, &mut status, Request::Retry("c03".into()), &health, 3).unwrap_err(),
        "c03 has not failed (it is Updating)"
    );
    assert_eq!(status, before);
}

/// A rollout of `n` clusters, one per wave, where `bad` failed past its
/// health timeout and stopped the rollout (budget 0).
fn stopped_by_timeout(n: usize, bad: &str) -> (TemplateRolloutSpec, TemplateRolloutStatus, i64) {
    let sp = spec(RolloutPolicy {
        failure_budget: 0,
        health_timeout: "60s".into(),
        ..policy(RolloutStrategy::Automatic, 1)
    });
    let mut status = plan(&sp, &clusters(n)).unwrap();
    let slow = set(&[bad]);
    let none = BTreeSet::new();
    let mut now = 0;
    while status.phase != RolloutPhase::Failed {
        now += 30;
        assert!(now < 10_000, "never failed: {status:?}");
        step(&sp, &mut status, &none, &slow, now);
    }
    assert_eq!(state(&status, bad), ClusterRolloutState::Failed);
    (sp, status, now)
}

#[test]
fn retry_brings_a_failed_rollout_back_within_budget() {
    let (sp, mut status, now) = stopped_by_timeout(3, "c02");
    assert_eq!(
        wave_states(&status),
        vec![WaveState::Succeeded, WaveState::Failed, WaveState::Pending]
    );
    // The cluster is still slow; retry gives it a fresh timeout.
    let slow = set(&["c02"]);
    let none = BTreeSet::new();
    let health = world(&sp, &status, &none, &slow);
    let notes = request(&sp, &mut status, Request::Retry("c02".into()), &health, now).unwrap();
    assert_eq!(
        notes[0].message,
        "retry wave 2 cluster c02 by alice (revision 2)"
    );
    let c = status.cluster("c02").unwrap();
    assert_eq!(c.state, ClusterRolloutState::Updating);
    assert_eq!(c.since, Some(Time(t(now))));
    assert_eq!(status.phase, RolloutPhase::Progressing);
    // Its wave is open again: the next one waits for it.
    assert_eq!(wave_states(&status)[1], WaveState::Progressing);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Waiting);
    step(&sp, &mut status, &none, &slow, now + 60);
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Updating);
    assert_eq!(status.phase, RolloutPhase::Progressing);
    // Healthy this time: the rollout goes on to the end.
    let mut later = now + 61;
    while !status.phase.is_terminal() {
        later += 1;
        assert!(later < now + 200);
        step_ok(&sp, &mut status, later);
    }
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    assert!(
        status
            .clusters
            .iter()
            .all(|c| c.state == ClusterRolloutState::Updated)
    );
}

#[test]
fn retry_that_times_out_again_stops_again() {
    let (sp, mut status, now) = stopped_by_timeout(3, "c02");
    let slow = set(&["c02"]);
    let none = BTreeSet::new();
    let health = world(&sp, &status, &none, &slow);
    request(&sp, &mut status, Request::Retry("c02".into()), &health, now).unwrap();
    step(&sp, &mut status, &none, &slow, now + 61);
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Failed);
    assert_eq!(status.phase, RolloutPhase::Failed);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Waiting);
}

#[test]
fn retry_in_the_last_wave_does_not_finish_the_rollout() {
    let (sp, mut status, now) = stopped_by_timeout(2, "c02");
    assert_eq!(
        wave_states(&status),
        vec![WaveState::Succeeded, WaveState::Failed]
    );
    let slow = set(&["c02"]);
    let none = BTreeSet::new();
    let health = world(&sp, &status, &none, &slow);
    request(&sp, &mut status, Request::Retry("c02".into()), &health, now).unwrap();
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Updating);
    assert_eq!(status.phase, RolloutPhase::Progressing);
    step_ok(&sp, &mut status, now + 1);
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Updated);
    assert_eq!(status.phase, RolloutPhase::Succeeded);
}

#[test]
fn retry_of_a_cluster_that_still_fails_keeps_the_budget() {
    // A cluster whose service still reports the failure fails again at once,
    // and the rollout stays stopped: retry cannot get past the budget.
    let sp = spec(RolloutPolicy {
        failure_budget: 0,
        ..policy(RolloutStrategy::Automatic, 1)
    });
    let mut status = plan(&sp, &clusters(3)).unwrap();
    let bad = set(&["c01"]);
    let none = BTreeSet::new();
    for now in 1..=2 {
        step(&sp, &mut status, &bad, &none, now);
    }
    assert_eq!(status.phase, RolloutPhase::Failed);
    let health = world(&sp, &status, &bad, &none);
    request(&sp, &mut status, Request::Retry("c01".into()), &health, 3).unwrap();
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Failed);
    assert_eq!(status.phase, RolloutPhase::Failed);
    assert_eq!(state(&status, "c02"), ClusterRolloutState::Waiting);
}

#[test]
fn skip_a_failed_cluster_resumes_a_stopped_rollout() {
    let (sp, mut status, now) = stopped_by_timeout(3, "c02");
    let health = healthy_world(&sp, &status);
    request(&sp, &mut status, Request::Skip("c02".into()), &health, now).unwrap();
    let c = status.cluster("c02").unwrap();
    assert_eq!(c.state, ClusterRolloutState::Skipped);
    assert_eq!(
        c.reason.as_deref(),
        Some("skipped by alice: back to revision 1")
    );
    // Back within budget: wave 3 starts right away.
    assert_eq!(status.phase, RolloutPhase::Progressing);
    assert_eq!(state(&status, "c03"), ClusterRolloutState::Updating);
}

// ---- idempotent requests ------------------------------------------------------

#[test]
fn every_request_acts_once() {
    type Setup = fn() -> (TemplateRolloutSpec, TemplateRolloutStatus, i64);
    // A Manual rollout with wave 1 waiting for approval.
    fn manual() -> (TemplateRolloutSpec, TemplateRolloutStatus, i64) {
        let sp = spec(policy(RolloutStrategy::Manual, 2));
        let mut status = plan(&sp, &clusters(4)).unwrap();
        step_ok(&sp, &mut status, 1);
        (sp, status, 1)
    }
    // An Automatic rollout in wave 1.
    fn automatic() -> (TemplateRolloutSpec, TemplateRolloutStatus, i64) {
        let sp = spec(policy(RolloutStrategy::Automatic, 2));
        let mut status = plan(&sp, &clusters(4)).unwrap();
        step_ok(&sp, &mut status, 1);
        (sp, status, 1)
    }
    fn paused() -> (TemplateRolloutSpec, TemplateRolloutStatus, i64) {
        let (sp, mut status, now) = automatic();
        let health = healthy_world(&sp, &status);
        request(&sp, &mut status, Request::Pause, &health, now).unwrap();
        (sp, status, now)
    }
    fn failed() -> (TemplateRolloutSpec, TemplateRolloutStatus, i64) {
        stopped_by_timeout(3, "c02")
    }
    let cases: Vec<(Request, Setup)> = vec![
        (Request::Approve(None), manual as Setup),
        (Request::Approve(Some(1)), manual as Setup),
        (Request::Pause, automatic as Setup),
        (Request::Pause, manual as Setup),
        (Request::Resume, paused as Setup),
        (Request::Abort, automatic as Setup),
        (Request::Rollback, automatic as Setup),
        (Request::Skip("c03".into()), automatic as Setup),
        (Request::Skip("c01".into()), automatic as Setup),
        (Request::Retry("c02".into()), failed as Setup),
    ];
    for (req, setup) in cases {
        let (sp, mut status, now) = setup();
        // Slow clusters: the first request's effect does not finish a wave.
        let slow: BTreeSet<String> = status.clusters.iter().map(|c| c.name.clone()).collect();
        let health = world(&sp, &status, &BTreeSet::new(), &slow);
        request(&sp, &mut status, req.clone(), &health, now + 1)
            .unwrap_or_else(|e| panic!("{req:?}: {e}"));
        let once = status.clone();
        let health = world(&sp, &status, &BTreeSet::new(), &slow);
        let err = request(&sp, &mut status, req.clone(), &health, now + 2);
        assert!(err.is_err(), "{req:?} acted twice");
        assert_eq!(status, once, "{req:?} changed the status when refused");
    }
}

#[test]
fn approve_with_a_number_acts_once_even_when_the_wave_finishes_at_once() {
    // The approved wave's clusters are already at the revision: the wave
    // finishes and the next waits, within the one request.
    let sp = spec(policy(RolloutStrategy::Manual, 1));
    let mut status = plan(&sp, &clusters(3)).unwrap();
    let all_at_rev = reported(&status, &[4; 64]);
    let old = reported(&status, &[1; 64]);
    advance(&sp, &mut status, &old, t(1));
    let mut health = old.clone();
    health.insert("c01".into(), all_at_rev["c01"].clone());
    request(&sp, &mut status, Request::Approve(Some(1)), &health, 2).unwrap();
    assert_eq!(state(&status, "c01"), ClusterRolloutState::Updated);
    assert_eq!(
        wave_states(&status),
        vec![
            WaveState::Succeeded,
            WaveState::WaitingForApproval,
            WaveState::Pending
        ]
    );
    let once = status.clone();
    assert!(request(&sp, &mut status, Request::Approve(Some(1)), &health, 3).is_err());
    assert_eq!(status, once);
}

#[test]
fn history_keeps_the_last_fifty_acts() {
    let sp = spec(policy(RolloutStrategy::Automatic, 2));
    let mut status = plan(&sp, &clusters(4)).unwrap();
    step_ok(&sp, &mut status, 1);
    let health: BTreeMap<String, Health> = status
        .clusters
        .iter()
        .map(|c| (c.name.clone(), installing()))
        .collect();
    for i in 0..40 {
        request(&sp, &mut status, Request::Pause, &health, 10 + 2 * i).unwrap();
        request(&sp, &mut status, Request::Resume, &health, 11 + 2 * i).unwrap();
    }
    assert_eq!(status.history.len(), 50);
    let last = status.history.last().unwrap();
    assert_eq!(
        (last.action.as_str(), last.at.clone()),
        ("resume", Time(t(89)))
    );
    assert_eq!(status.history[0].at, Time(t(40)));
}

// ---- Request text -------------------------------------------------------------

#[test]
fn request_parse_table() {
    let ok: Vec<(&str, Request)> = vec![
        ("approve", Request::Approve(None)),
        ("approve 3", Request::Approve(Some(3))),
        ("approve wave-3", Request::Approve(Some(3))),
        ("  pause ", Request::Pause),
        ("resume", Request::Resume),
        ("abort", Request::Abort),
        ("rollback", Request::Rollback),
        ("abort rollback", Request::Rollback),
        ("skip eu-1", Request::Skip("eu-1".into())),
        ("retry\teu-2", Request::Retry("eu-2".into())),
    ];
    for (text, want) in ok {
        assert_eq!(Request::parse(text), Ok(want), "{text:?}");
    }
    for text in [
        "",
        "approve x",
        "approve -1",
        "approve 1 2",
        "skip",
        "retry",
        "skip a b",
        "Pause",
        "go",
    ] {
        assert!(Request::parse(text).is_err(), "{text:?}");
    }
    assert_eq!(
        Request::parse("approve x").unwrap_err(),
        "`approve x`: x is not a wave number"
    );
}

#[test]
fn request_annotations() {
    let cases = [
        (Request::Approve(None), "approve"),
        (Request::Approve(Some(2)), "approve 2"),
        (Request::Pause, "pause"),
        (Request::Resume, "resume"),
        (Request::Abort, "abort"),
        (Request::Rollback, "rollback"),
        (Request::Skip("a".into()), "skip a"),
        (Request::Retry("b".into()), "retry b"),
    ];
    for (req, text) in cases {
        assert_eq!(req.to_annotation(), text);
        assert_eq!(Request::parse(text), Ok(req));
    }
}

// ---- desired_revision ---------------------------------------------------------

#[test]
fn desired_revision_table() {
    let sp = spec(RolloutPolicy::default());
    let status = TemplateRolloutStatus {
        clusters: [
            ("waiting", ClusterRolloutState::Waiting, None),
            ("updating", ClusterRolloutState::Updating, Some(OLD)),
            ("updated", ClusterRolloutState::Updated, Some(OLD)),
            ("failed", ClusterRolloutState::Failed, Some(OLD)),
            ("skipped-early", ClusterRolloutState::Skipped, None),
            ("skipped", ClusterRolloutState::Skipped, Some(0)),
            ("rolled-back", ClusterRolloutState::RolledBack, Some(0)),
            ("rolled-back-none", ClusterRolloutState::RolledBack, None),
        ]
        .into_iter()
        .map(|(name, state, rollback_revision)| ClusterRolloutStatus {
            name: name.into(),
            wave: 1,
            state,
            rollback_revision,
            ..Default::default()
        })
        .collect(),
        ..Default::default()
    };
    let r = Some((&sp, &status));
    let latest = Some(7);
    type Rollout<'a> = Option<(&'a TemplateRolloutSpec, &'a TemplateRolloutStatus)>;
    let cases: Vec<(Rollout, &str, Option<i64>, Option<i64>)> = vec![
        // No rollout: the cluster keeps its revision, a new one gets the latest.
        (None, "x", Some(OLD), Some(OLD)),
        (None, "x", None, latest),
        // Not part of the rollout (created since): the same.
        (r, "new", Some(OLD), Some(OLD)),
        (r, "new", None, latest),
        // Waiting: keeps its revision until its wave.
        (r, "waiting", Some(OLD), Some(OLD)),
        (r, "waiting", None, latest),
        // Reached by its wave: the rollout's revision.
        (r, "updating", Some(OLD), Some(REV)),
        (r, "updated", Some(OLD), Some(REV)),
        (r, "failed", Some(OLD), Some(REV)),
        (r, "updating", None, Some(REV)),
        // Left out or rolled back: the revision it had.
        (r, "skipped-early", Some(OLD), Some(OLD)),
        (r, "skipped", Some(REV), Some(0)),
        (r, "rolled-back", Some(REV), Some(0)),
        (r, "rolled-back-none", Some(REV), Some(REV)),
    ];
    for (rollout, name, current, want) in cases {
        assert_eq!(
            desired_revision(latest, rollout, name, current),
            want,
            "{name} (current {current:?}, rollout {})",
            rollout.is_some()
        );
    }
}

// ---- parse_duration -----------------------------------------------------------

#[test]
fn parse_duration_table() {
    let cases: Vec<(&str, Option<u64>)> = vec![
        ("90s", Some(90)),
        ("10m", Some(600)),
        ("1h30m", Some(5400)),
        ("1h30m15s", Some(5415)),
        ("2h", Some(7200)),
        ("1h15s", Some(3615)),
        ("0h5m", Some(300)),
        ("90m", Some(5400)),
        ("0010m", Some(600)),
        ("999999999999999h", Some(999_999_999_999_999 * 3600)),
        // Refused: bare numbers, spaces, repeats, other orders, fractions,
        // signs, other units, zero, too long.
        ("45", None),
        ("10", None),
        (" 5m ", None),
        ("5m ", None),
        ("1m1m", None),
        ("30m1h", None),
        ("1s1m", None),
        ("", None),
        ("m", None),
        ("h5m", None),
        ("10x", None),
        ("1.5h", None),
        ("1h 30m", None),
        ("10m5", None),
        ("-5s", None),
        ("+5s", None),
        ("0s", None),
        ("0h0m0s", None),
        ("5ms", None),
        ("1d", None),
        ("10M", None),
        ("５m", None),
        ("99999999999999999999999h", None),
        ("9999999999999999h", None),
        ("18446744073709551615s1s", None),
    ];
    for (text, want) in cases {
        assert_eq!(
            parse_duration(text),
            want.map(Duration::from_secs),
            "{text:?}"
        );
    }
}

// ---- preview ------------------------------------------------------------------

#[test]
fn preview_groups_largest_first() {
    let a = vec!["ingress 1 → 2".to_string()];
    let b = vec![
        "ingress 1 → 2".to_string(),
        "dns: + replicas: 2".to_string(),
    ];
    let mut changes = Vec::new();
    for i in (0..12).rev() {
        changes.push((format!("a{i:02}"), a.clone()));
    }
    for i in 0..3 {
        changes.push((format!("b{i}"), b.clone()));
    }
    changes.push(("c0".into(), vec![]));
    changes.push(("d0".into(), vec!["z".into()]));
    let groups = preview_groups(changes);
    assert_eq!(groups.len(), 4);
    assert_eq!(groups[0].count, 12);
    assert_eq!(groups[0].changes, a);
    assert_eq!(
        groups[0].clusters,
        (0..10).map(|i| format!("a{i:02}")).collect::<Vec<_>>()
    );
    assert_eq!(groups[1].count, 3);
    assert_eq!(groups[1].clusters, vec!["b0", "b1", "b2"]);
    // Equal counts: by change.
    assert_eq!(groups[2].changes, Vec::<String>::new());
    assert_eq!(groups[2].clusters, vec!["c0"]);
    assert_eq!(groups[3].changes, vec!["z".to_string()]);
    assert!(preview_groups(vec![]).is_empty());
}

#[test]
fn change_summary_from_preview() {
    let sp = spec(RolloutPolicy::default());
    let mut status = plan(&sp, &clusters(3)).unwrap();
    status.preview = preview_groups(vec![
        ("c01".into(), vec!["a 1 → 2".into(), "b: x: 1 → 2".into()]),
        ("c02".into(), vec!["a 1 → 2".into(), "b: x: 1 → 2".into()]),
        ("c03".into(), vec![]),
    ]);
    summarize(&sp, &mut status);
    assert_eq!(
        status.change_summary.as_deref(),
        Some("2 clusters: a 1 → 2; b: x: 1 → 2 (+1 more group)")
    );
    status.preview = preview_groups(vec![("c03".into(), vec![])]);
    summarize(&sp, &mut status);
    assert_eq!(
        status.change_summary.as_deref(),
        Some("1 cluster: no change")
    );
}

fn install(name: &str, template: &str, values: serde_json::Value) -> ServicePlan {
    ServicePlan::Install(DesiredService {
        name: name.into(),
        namespace: name.into(),
        template: template.into(),
        values: values.clone(),
        effective: values,
        after: Vec::new(),
    })
}

fn blocked(name: &str, message: &str) -> ServicePlan {
    ServicePlan::Blocked(BlockedService {
        name: name.into(),
        namespace: name.into(),
        template: Some(format!("{name}-x")),
        state: ServiceState::Pending,
        message: message.into(),
    })
}

fn version(template: &str) -> Option<String> {
    template
        .rsplit_once('-')
        .map(|(_, v)| v.to_string())
        .filter(|v| v.starts_with('v'))
}

#[test]
fn service_changes_lists_what_differs() {
    let old = vec![
        install("ingress", "ingress-v1", json!({"replicas": 2})),
        install("dns", "dns-v1", json!({})),
        install("mon", "mon-v1", json!({"a": {"b": 1}})),
        install("gone", "gone-v3", json!({})),
        blocked("wait", "not ready"),
        install("raw", "raw", json!({})),
    ];
    let new = vec![
        install("ingress", "ingress-v2", json!({"replicas": 3})),
        install("dns", "dns-v1", json!({})),
        install("mon", "mon-v1", json!({"a": {"b": 2, "c": true}})),
        install("wait", "wait-v1", json!({})),
        install("raw", "raw2", json!({})),
        install("fresh", "fresh-v1", json!({})),
        blocked("dns2", "template missing"),
    ];
    assert_eq!(
        service_changes(&old, &new, version),
        vec![
            "remove gone v3",
            "ingress v1 → v2",
            "ingress: replicas: 2 → 3",
            "mon: a.b: 1 → 2",
            "mon: + a.c: true",
            "install wait v1",
            "raw: template raw → raw2",
            "add fresh v1",
            "add dns2",
        ]
    );
    // Blocked on both sides: says why.
    assert_eq!(
        service_changes(&old, &[blocked("wait", "still not ready")], version),
        vec![
            "remove ingress v1",
            "remove dns v1",
            "remove mon v1",
            "remove gone v3",
            "remove raw",
            "wait: blocked: still not ready",
        ]
    );
    // Still blocked: says why, even with nothing else changed.
    assert_eq!(
        service_changes(&old[4..5], &old[4..5], version),
        vec!["wait: blocked: not ready"]
    );
    // Nothing changed, nothing said.
    assert!(service_changes(&old[..4], &old[..4], version).is_empty());
    assert!(service_changes(&[], &[], version).is_empty());
}

#[test]
fn service_changes_same_version_other_template() {
    // Two templates of one version: the template change is still shown.
    let old = vec![install("a", "a-fork-v1", json!({}))];
    let new = vec![install("a", "a-v1", json!({}))];
    assert_eq!(
        service_changes(&old, &new, version),
        vec!["a: template a-fork-v1 → a-v1"]
    );
}

// ---- properties ---------------------------------------------------------------

const ORDER: &str = "order";

/// Clusters with unique names, some with an `order` label, in any order.
fn arb_candidates(max: usize) -> impl Strategy<Value = Vec<Candidate>> {
    prop::collection::btree_map(
        "[a-z][a-z0-9-]{0,5}",
        (
            prop::option::of(prop::sample::select(vec![
                "", "a", "b", "b2", "c", "10", "9",
            ])),
            prop::option::of("[a-c]"),
            prop::option::of(0i64..3),
        ),
        0..max,
    )
    .prop_map(|m| {
        m.into_iter()
            .map(|(name, (order, zone, revision))| {
                let mut labels = BTreeMap::new();
                if let Some(o) = order {
                    labels.insert(ORDER.to_string(), o.to_string());
                }
                if let Some(z) = zone {
                    labels.insert("zone".to_string(), z);
                }
                Candidate {
                    name,
                    labels,
                    revision,
                }
            })
            .collect::<Vec<_>>()
    })
    .prop_shuffle()
}

fn arb_max_concurrent() -> impl Strategy<Value = IntOrString> {
    prop_oneof![
        (1i32..8).prop_map(IntOrString::Int),
        (1u32..=100).prop_map(|p| IntOrString::String(format!("{p}%"))),
    ]
}

fn arb_policy() -> impl Strategy<Value = RolloutPolicy> {
    (
        prop_oneof![
            Just(RolloutStrategy::Automatic),
            Just(RolloutStrategy::Manual)
        ],
        arb_max_concurrent(),
        prop::option::of(0u32..4),
        0u32..4,
        prop::option::of(Just(ORDER.to_string())),
    )
        .prop_map(
            |(strategy, max_concurrent, canary, failure_budget, order)| RolloutPolicy {
                strategy,
                max_concurrent,
                canary,
                failure_budget,
                order,
                ..Default::default()
            },
        )
}

/// Any policy: good ones, and values as they may be stored from before the
/// CRD's rules (zero, negative, huge, misspelt, fractions, arbitrary text).
fn arb_any_policy() -> impl Strategy<Value = RolloutPolicy> {
    let max_concurrent = prop_oneof![
        arb_max_concurrent(),
        any::<i32>().prop_map(IntOrString::Int),
        "[0-9O.%-]{0,6}".prop_map(IntOrString::String),
        any::<String>().prop_map(IntOrString::String),
    ];
    let health_timeout = prop_oneof![
        Just("10m".to_string()),
        "([0-9]{1,3}[hms]){1,3}",
        "[0-9hms.d -]{0,10}",
        any::<String>(),
    ];
    let count = prop_oneof![0u32..5, any::<u32>()];
    (
        arb_policy(),
        max_concurrent,
        health_timeout,
        prop::option::of(count.clone()),
        count,
    )
        .prop_map(
            |(base, max_concurrent, health_timeout, canary, failure_budget)| RolloutPolicy {
                max_concurrent,
                health_timeout,
                canary,
                failure_budget,
                ..base
            },
        )
}

/// Strings that match one of the CRD's patterns (`api::policy_rules`),
/// whose CEL rules say the same.
fn crd_pattern(pattern: &str) -> impl Strategy<Value = String> {
    let inner = pattern.trim_start_matches('^').trim_end_matches('$');
    // Long runs of digits, so that the length limit is crossed too.
    let bounded = inner.replace("[0-9]+", "[0-9]{1,6}");
    proptest::string::string_regex(&bounded).expect("a pattern proptest reads")
}

#[test]
fn the_crd_rules_use_the_patterns() {
    assert!(HEALTH_TIMEOUT_RULE.contains(&format!("self.matches('{DURATION_PATTERN}')")));
    assert!(MAX_CONCURRENT_RULE.contains(&format!("self.matches('{PERCENT_PATTERN}')")));
    assert!(MAX_CONCURRENT_RULE.contains(&COUNT_MAX.to_string()));
    assert!(COUNT_RULE.contains(&COUNT_MAX.to_string()));
    let crds = crate::api::crds_yaml();
    assert!(SOAK_RULE.contains(&format!("self.matches('{DURATION_PATTERN}')")));
    assert!(SOAK_RULE.contains(&format!("duration('{SOAK_MAX_HOURS}h')")));
    for message in [
        HEALTH_TIMEOUT_MESSAGE,
        MAX_CONCURRENT_MESSAGE,
        CANARY_MESSAGE,
        FAILURE_BUDGET_MESSAGE,
        SOAK_MESSAGE,
    ] {
        // In the ClusterTemplate, the MultiClusterService and the
        // TemplateRollout that copies their policy.
        assert_eq!(crds.matches(message).count(), 3, "{message}");
    }
    // healthTimeout, soak and a window's duration, in each of the three.
    assert_eq!(crds.matches("maxLength: 16").count(), 9);
    assert!(WINDOW_DURATION_RULE.contains(&format!("duration('{WINDOW_MAX_HOURS}h')")));
    assert_eq!(crds.matches(WINDOW_DURATION_MESSAGE).count(), 3);
    assert_eq!(
        crds.matches(&format!("pattern: {WINDOW_START_PATTERN}"))
            .count(),
        3
    );
}

#[test]
fn window_rules_read_like_the_engine() {
    // The engine's reading of `start` and `duration` agrees with the CRD's
    // pattern and rule on the edges.
    let re = regex::Regex::new(WINDOW_START_PATTERN).unwrap();
    for (start, ok) in [
        ("00:00", true),
        ("23:59", true),
        ("24:00", false),
        ("3:00", false),
        ("03:60", false),
        ("03:00:00", false),
    ] {
        assert_eq!(re.is_match(start), ok, "pattern on {start}");
        let policy = RolloutPolicy {
            windows: vec![window(&[], start, "1h", None)],
            ..Default::default()
        };
        assert_eq!(check_policy(&policy).is_ok(), ok, "engine on {start}");
    }
    for (duration, ok) in [
        ("1h", true),
        ("90m", true),
        ("168h", true),
        ("1h30m", true),
        ("169h", false),
        ("30s", false),
        ("0h", false),
        ("", false),
    ] {
        let policy = RolloutPolicy {
            windows: vec![window(&[], "03:00", duration, None)],
            ..Default::default()
        };
        assert_eq!(check_policy(&policy).is_ok(), ok, "engine on {duration}");
    }
}

/// What the clusters of a rollout report, one code per cluster in order:
/// 0 nothing (deleted), 1 at the old revision, 2 installing, 3 failing,
/// anything else healthy at the new revision. Clusters past the end of
/// `report` report nothing.
fn reported(status: &TemplateRolloutStatus, report: &[u8]) -> BTreeMap<String, Health> {
    status
        .clusters
        .iter()
        .zip(report)
        .filter_map(|(c, r)| {
            let h = match r {
                0 => return None,
                1 => settled_at(OLD),
                2 => installing(),
                3 => failing(),
                _ => settled_at(REV),
            };
            Some((c.name.clone(), h))
        })
        .collect()
}

fn has_canary(policy: &RolloutPolicy, candidates: &[Candidate]) -> bool {
    policy.canary.is_some_and(|n| n > 0) && !candidates.is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn prop_no_wave_exceeds_max_concurrent(
        cs in arb_candidates(40),
        policy in arb_policy(),
    ) {
        let limit = check_policy(&policy).unwrap().max_concurrent.of(cs.len());
        let waves = plan_waves(&cs, &policy).unwrap();
        for w in &waves {
            prop_assert!(!w.clusters.is_empty());
            prop_assert!(w.clusters.len() <= limit, "{} > {}", w.clusters.len(), limit);
        }
        if has_canary(&policy, &cs) {
            let want = (policy.canary.unwrap() as usize).min(limit).min(cs.len());
            prop_assert_eq!(waves[0].clusters.len(), want);
        }
        // Without an order, waves are full but for the last (and the canary).
        if policy.order.is_none() {
            let skip = usize::from(has_canary(&policy, &cs));
            let rest = &waves[skip.min(waves.len())..];
            for w in rest.iter().take(rest.len().saturating_sub(1)) {
                prop_assert_eq!(w.clusters.len(), limit);
            }
        }
    }

    #[test]
    fn prop_every_cluster_in_exactly_one_wave(
        cs in arb_candidates(40),
        policy in arb_policy(),
    ) {
        let waves = plan_waves(&cs, &policy).unwrap();
        let mut seen: Vec<&str> = waves.iter().flat_map(|w| w.clusters.iter().map(String::as_str)).collect();
        seen.sort();
        let mut want: Vec<&str> = cs.iter().map(|c| c.name.as_str()).collect();
        want.sort();
        prop_assert_eq!(&seen, &want);

        let sp = TemplateRolloutSpec { multi_cluster_service: None, template: "t".into(), revision: REV, policy: policy.clone() };
        let status = plan(&sp, &cs).unwrap();
        prop_assert_eq!(status.phase, RolloutPhase::Pending);
        prop_assert_eq!(status.waves.len(), waves.len());
        let numbers: Vec<u32> = status.waves.iter().map(|w| w.number).collect();
        let want_numbers: Vec<u32> = (1..=waves.len() as u32).collect();
        prop_assert_eq!(numbers, want_numbers);
        let mut names: Vec<&str> = status.clusters.iter().map(|c| c.name.as_str()).collect();
        names.sort();
        prop_assert_eq!(&names, &want);
        for c in &status.clusters {
            prop_assert!(status.waves.iter().any(|w| w.number == c.wave), "{} in wave {}", c.name, c.wave);
            let w = &waves[c.wave as usize - 1];
            prop_assert!(w.clusters.contains(&c.name));
            prop_assert_eq!(c.state, ClusterRolloutState::Waiting);
            let from = cs.iter().find(|x| x.name == c.name).unwrap().revision;
            prop_assert_eq!(c.from_revision, from);
        }
        for (w, p) in status.waves.iter().zip(&waves) {
            prop_assert_eq!(&w.group, &p.group);
        }
    }

    #[test]
    fn prop_waves_do_not_depend_on_input_order(
        cs in arb_candidates(30),
        policy in arb_policy(),
    ) {
        let mut sorted = cs.clone();
        sorted.sort_by(|a, b| a.name.cmp(&b.name));
        prop_assert_eq!(plan_waves(&cs, &policy).unwrap(), plan_waves(&sorted, &policy).unwrap());
    }

    #[test]
    fn prop_order_groups_waves(
        cs in arb_candidates(40),
        policy in arb_policy(),
    ) {
        let policy = RolloutPolicy { order: Some(ORDER.into()), ..policy };
        let waves = plan_waves(&cs, &policy).unwrap();
        let value = |name: &String| -> Option<&String> {
            cs.iter().find(|c| &c.name == name).unwrap().labels.get(ORDER)
        };
        let skip = usize::from(has_canary(&policy, &cs));
        // The key of each wave after the canary: (no label, value).
        let mut keys: Vec<(bool, Option<&String>)> = Vec::new();
        for w in &waves[skip.min(waves.len())..] {
            let first = value(&w.clusters[0]);
            for c in &w.clusters {
                prop_assert_eq!(value(c), first, "wave {:?} mixes values", w.clusters);
            }
            prop_assert_eq!(w.group.as_ref(), first);
            keys.push((first.is_none(), first));
        }
        for pair in keys.windows(2) {
            prop_assert!(pair[0] <= pair[1], "out of order: {:?}", keys);
        }
        // The canary takes the first clusters in that same order.
        if skip == 1 {
            let canary: Vec<(bool, Option<&String>)> = waves[0].clusters.iter().map(|c| (value(c).is_none(), value(c))).collect();
            for k in &canary {
                if let Some(first) = keys.first() {
                    prop_assert!(k <= first);
                }
            }
            prop_assert_eq!(waves[0].group.as_ref(), None);
        }
        // Within a wave after the canary, by name.
        for w in &waves[skip.min(waves.len())..] {
            let mut sorted = w.clusters.clone();
            sorted.sort();
            prop_assert_eq!(&sorted, &w.clusters);
        }
    }

    /// Each wave either comes up healthy or fails as a whole. The rollout
    /// stops exactly when more clusters failed than the budget allows, and
    /// nothing after that wave ever starts. Approvals are asked for exactly
    /// before every wave (Manual) or after the canary.
    #[test]
    fn prop_failure_budget_stops_the_rollout(
        cs in arb_candidates(25),
        policy in arb_policy(),
        fails in prop::collection::vec(prop::bool::weighted(0.3), 1..10),
    ) {
        let cs: Vec<Candidate> = cs.into_iter().map(|c| Candidate { revision: Some(OLD), ..c }).collect();
        let sp = TemplateRolloutSpec { multi_cluster_service: None, template: "t".into(), revision: REV, policy: policy.clone() };
        let budget = policy.failure_budget as usize;
        let canary = has_canary(&policy, &cs);
        let mut status = plan(&sp, &cs).unwrap();
        let wave_fails = |n: u32| fails[(n as usize - 1) % fails.len()];
        let failing_names: BTreeSet<String> = status
            .clusters
            .iter()
            .filter(|c| wave_fails(c.wave))
            .map(|c| c.name.clone())
            .collect();
        // Where it must stop: the first wave at which failures pass the budget.
        let mut spent = 0;
        let mut stop = None;
        for w in &status.waves {
            if wave_fails(w.number) {
                spent += members(&status, w.number).len();
            }
            if spent > budget {
                stop = Some(w.number);
                break;
            }
        }
        let none = BTreeSet::new();
        let mut now = 1_000;
        let steps = 3 * status.waves.len() + 5;
        for _ in 0..steps {
            now += 1;
            let health = world(&sp, &status, &failing_names, &none);
            advance(&sp, &mut status, &health, t(now));
            let failed = failures(&status);
            prop_assert_eq!(failed > budget, status.phase == RolloutPhase::Failed,
                "{} failed, budget {}, phase {}", failed, budget, status.phase);
            if let Some(stop) = stop {
                for c in status.clusters.iter().filter(|c| c.wave > stop) {
                    prop_assert_eq!(c.state, ClusterRolloutState::Waiting, "{} left Waiting", c.name);
                }
            }
            if status.phase == RolloutPhase::WaitingForApproval {
                let at = status.waves[current_wave(&status).unwrap()].number;
                prop_assert!(policy.strategy == RolloutStrategy::Manual || (canary && at == 2),
                    "wave {} waits for approval", at);
                let health = world(&sp, &status, &failing_names, &none);
                apply_request(&sp, &mut status, &Request::Approve(Some(at)), "op", &health, t(now)).unwrap();
                prop_assert_eq!(status.waves[at as usize - 1].approved_by.as_deref(), Some("op"));
            }
            if status.phase.is_terminal() || status.phase == RolloutPhase::Failed {
                break;
            }
        }
        match stop {
            Some(stop) => {
                prop_assert_eq!(status.phase, RolloutPhase::Failed);
                // Still stopped later, past any health timeout.
                for k in 1..4 {
                    let health = world(&sp, &status, &failing_names, &none);
                    advance(&sp, &mut status, &health, t(now + k * 100_000));
                    prop_assert_eq!(status.phase, RolloutPhase::Failed);
                }
                for w in &status.waves {
                    if w.number <= stop {
                        prop_assert!(matches!(w.state, WaveState::Succeeded | WaveState::Failed));
                    } else {
                        prop_assert_eq!(w.state, WaveState::Pending);
                    }
                }
                for c in status.clusters.iter().filter(|c| c.wave > stop) {
                    prop_assert_eq!(c.state, ClusterRolloutState::Waiting);
                    prop_assert_eq!(
                        desired_revision(Some(REV), Some((&sp, &status)), &c.name, Some(OLD)),
                        Some(OLD)
                    );
                }
            }
            None => {
                prop_assert_eq!(status.phase, RolloutPhase::Succeeded);
                for c in &status.clusters {
                    let want = if failing_names.contains(&c.name) {
                        ClusterRolloutState::Failed
                    } else {
                        ClusterRolloutState::Updated
                    };
                    prop_assert_eq!(c.state, want);
                }
            }
        }
    }

    /// `advance` twice with the same input is `advance` once.
    #[test]
    fn prop_advance_is_idempotent(
        cs in arb_candidates(15),
        policy in arb_policy(),
        reports in prop::collection::vec(
            prop::collection::vec(0u8..6, 15),
            1..12,
        ),
        gaps in prop::collection::vec(0i64..400, 12),
    ) {
        let sp = TemplateRolloutSpec { multi_cluster_service: None, template: "t".into(), revision: REV, policy };
        let mut status = plan(&sp, &cs).unwrap();
        let mut now = 0;
        for (step, report) in reports.iter().enumerate() {
            now += gaps[step];
            let health: BTreeMap<String, Health> = reported(&status, report);
            advance(&sp, &mut status, &health, t(now));
            let once = status.clone();
            let notes = advance(&sp, &mut status, &health, t(now));
            prop_assert_eq!(&status, &once);
            prop_assert!(notes.is_empty(), "{:?}", notes);
            if status.phase == RolloutPhase::WaitingForApproval {
                apply_request(&sp, &mut status, &Request::Approve(None), "op", &health, t(now)).unwrap();
            }
        }
    }

    /// Random reports and requests, in any order: refused requests change
    /// nothing, finished rollouts stay finished (but for a rollback), and
    /// clusters, waves and phase agree with each other at every step.
    #[test]
    fn prop_random_walk_keeps_invariants(
        cs in arb_candidates(12),
        policy in arb_policy(),
        ops in prop::collection::vec(
            (
                0u8..16,
                0u8..16,
                0i64..300,
                prop::collection::vec(prop::sample::select(vec![0u8, 1, 2, 2, 3, 4, 4, 4]), 12),
            ),
            1..40,
        ),
    ) {
        let sp = TemplateRolloutSpec { multi_cluster_service: None, template: "t".into(), revision: REV, policy: policy.clone() };
        let mut status = plan(&sp, &cs).unwrap();
        let mut now = 0;
        let mut health: BTreeMap<String, Health> = BTreeMap::new();
        for (kind, arg, gap, report) in ops {
            now += gap;
            let before = status.clone();
            let name = |i: u8| {
                status
                    .clusters
                    .get(i as usize % status.clusters.len().max(1))
                    .map(|c| c.name.clone())
                    .unwrap_or_else(|| "nobody".into())
            };
            let req = match kind {
                0..=6 => None,
                7 => Some(Request::Approve(None)),
                8 => Some(Request::Approve(Some(u32::from(arg % 5) + 1))),
                9 => Some(Request::Pause),
                10 => Some(Request::Resume),
                11 => Some(Request::Abort),
                12 => Some(Request::Rollback),
                13 | 14 => Some(Request::Skip(name(arg))),
                _ => Some(Request::Retry(name(arg))),
            };
            match &req {
                None => {
                    health = reported(&status, &report);
                    advance(&sp, &mut status, &health, t(now));
                    let once = status.clone();
                    prop_assert!(advance(&sp, &mut status, &health, t(now)).is_empty());
                    prop_assert_eq!(&status, &once, "advance is not at a fixed point");
                }
                Some(req) => {
                    if apply_request(&sp, &mut status, req, "op", &health, t(now)).is_err() {
                        prop_assert_eq!(&status, &before, "refused {:?} changed the status", req);
                    } else {
                        prop_assert_eq!(status.history.last().map(|a| a.action.as_str()), Some(req.action()));
                    }
                }
            }
            if before.phase.is_terminal() && status != before {
                prop_assert_eq!(&req, &Some(Request::Rollback));
                prop_assert_eq!(status.phase, RolloutPhase::RolledBack);
            }
            prop_assert!(status.history.len() <= 50);
            let wave = |n: u32| status.waves[n as usize - 1].state;
            for c in &status.clusters {
                match c.state {
                    ClusterRolloutState::Waiting => prop_assert!(
                        matches!(wave(c.wave), WaveState::Pending | WaveState::WaitingForApproval),
                        "{} waits in wave {} which is {:?}", c.name, c.wave, wave(c.wave)
                    ),
                    ClusterRolloutState::Updating => prop_assert_eq!(
                        wave(c.wave), WaveState::Progressing,
                        "{} updates in wave {}", c.name, c.wave
                    ),
                    _ => {}
                }
            }
            if status.phase == RolloutPhase::Succeeded {
                prop_assert!(status.clusters.iter().all(|c| c.state.is_settled()), "{:?}", status.clusters);
                prop_assert!(current_wave(&status).is_none());
            }
            if status.phase == RolloutPhase::WaitingForApproval {
                let at = current_wave(&status).map(|i| status.waves[i].state);
                prop_assert_eq!(at, Some(WaveState::WaitingForApproval));
            }
            for w in &status.waves {
                if w.state == WaveState::WaitingForApproval {
                    prop_assert!(
                        policy.strategy == RolloutStrategy::Manual
                            || (has_canary(&policy, &cs) && w.number == 2)
                    );
                }
            }
        }
    }

    #[test]
    fn prop_request_round_trips(
        req in prop_oneof![
            prop::option::of(any::<u32>()).prop_map(Request::Approve),
            Just(Request::Pause),
            Just(Request::Resume),
            Just(Request::Abort),
            Just(Request::Rollback),
            "[a-z0-9][a-z0-9.-]{0,40}".prop_map(Request::Skip),
            "[a-z0-9][a-z0-9.-]{0,40}".prop_map(Request::Retry),
        ]
    ) {
        prop_assert_eq!(Request::parse(&req.to_annotation()), Ok(req));
    }

    #[test]
    fn prop_parse_duration_reads_what_it_writes(
        h in prop::option::of(0u64..10_000),
        m in prop::option::of(0u64..10_000),
        s in prop::option::of(0u64..10_000),
    ) {
        let text: String = [(h, 'h'), (m, 'm'), (s, 's')]
            .iter()
            .filter_map(|(n, u)| n.map(|n| format!("{n}{u}")))
            .collect();
        let want = h.unwrap_or(0) * 3600 + m.unwrap_or(0) * 60 + s.unwrap_or(0);
        prop_assert_eq!(parse_duration(&text), (want > 0).then(|| Duration::from_secs(want)));
        // Bare numbers are never durations.
        prop_assert_eq!(parse_duration(&want.to_string()), None);
    }

    /// Whatever the CRD's pattern admits (with a digit above zero, within
    /// the length limit) the engine reads.
    #[test]
    fn prop_what_the_crd_admits_the_engine_reads(text in crd_pattern(DURATION_PATTERN)) {
        let admitted = text.bytes().any(|b| (b'1'..=b'9').contains(&b)) && text.len() <= DURATION_MAX_LENGTH;
        prop_assert_eq!(parse_duration(&text).is_some(), admitted, "{:?}", text);
    }

    #[test]
    fn prop_every_percentage_the_crd_admits_the_engine_reads(text in crd_pattern(PERCENT_PATTERN)) {
        let pct: u8 = text.trim_end_matches('%').parse().unwrap();
        prop_assert_eq!(
            parse_max_concurrent(&IntOrString::String(text.clone())),
            Some(MaxConcurrent::Percent(pct))
        );
    }

    #[test]
    fn prop_policy_parser_never_panics_on_any_string(
        duration in any::<String>(),
        text in any::<String>(),
        near in "[0-9hms%. +-]{0,24}",
        n in any::<i32>(),
        canary in prop::option::of(any::<u32>()),
        budget in any::<u32>(),
    ) {
        let _ = parse_duration(&duration);
        let _ = parse_duration(&near);
        for value in [IntOrString::String(text.clone()), IntOrString::String(near.clone()), IntOrString::Int(n)] {
            if let Some(m) = parse_max_concurrent(&value) {
                prop_assert!(m.of(0) >= 1);
            }
        }
        let p = RolloutPolicy {
            health_timeout: duration,
            max_concurrent: IntOrString::String(text),
            canary,
            failure_budget: budget,
            ..Default::default()
        };
        match check_policy(&p) {
            Ok(l) => prop_assert!(l.health_timeout > Duration::ZERO),
            Err(e) => {
                prop_assert!(!e.0.is_empty());
                // A message a person can read: one line, bounded.
                let text = e.at("spec.rollout");
                prop_assert!(!text.contains('\n'));
                prop_assert!(text.len() < 300 * e.0.len(), "{}", text);
            }
        }
    }

    /// Any policy, good or bad, and any clusters: the planner never panics;
    /// a good policy's waves hold every cluster once and never more than
    /// maxConcurrent; a bad one plans nothing and moves nothing.
    #[test]
    fn prop_any_policy_never_panics_the_planner(
        cs in arb_candidates(40),
        policy in arb_any_policy(),
        reports in prop::collection::vec(prop::collection::vec(0u8..5, 40), 1..6),
    ) {
        let sp = TemplateRolloutSpec { multi_cluster_service: None, template: "t".into(), revision: REV, policy: policy.clone() };
        match check_policy(&policy) {
            Ok(limits) => {
                let limit = limits.max_concurrent.of(cs.len());
                let waves = plan_waves(&cs, &policy).unwrap();
                prop_assert!(waves.iter().all(|w| !w.clusters.is_empty() && w.clusters.len() <= limit));
                prop_assert_eq!(waves.iter().map(|w| w.clusters.len()).sum::<usize>(), cs.len());
                let mut status = plan(&sp, &cs).unwrap();
                for (step, report) in reports.iter().enumerate() {
                    let health: BTreeMap<String, Health> = reported(&status, report);
                    advance(&sp, &mut status, &health, t(step as i64 * 1000));
                    let _ = apply_request(&sp, &mut status, &Request::Approve(None), "op", &health, t(step as i64 * 1000));
                    let updating = status.clusters.iter().filter(|c| c.state == ClusterRolloutState::Updating);
                    for w in &status.waves {
                        let n = status.clusters.iter().filter(|c| c.wave == w.number).count();
                        prop_assert!(n <= limit, "wave {} holds {} > {}", w.number, n, limit);
                    }
                    prop_assert!(updating.count() <= limit);
                }
            }
            Err(_) => {
                prop_assert!(plan_waves(&cs, &policy).is_err());
                prop_assert!(plan(&sp, &cs).is_err());
                // A rollout planned before the policy went bad stays put.
                let good = TemplateRolloutSpec { policy: RolloutPolicy::default(), ..sp.clone() };
                let mut status = plan(&good, &cs).unwrap();
                let before = status.clone();
                let health = reported(&status, &[4; 64]);
                advance(&sp, &mut status, &health, t(1_000_000));
                let _ = apply_request(&sp, &mut status, &Request::Approve(None), "op", &health, t(1_000_001));
                prop_assert_eq!(&status.clusters, &before.clusters);
                prop_assert_eq!(&status.waves, &before.waves);
            }
        }
    }

    #[test]
    fn prop_preview_groups_keep_every_cluster(
        changes in prop::collection::btree_map(
            "[a-z]{1,6}",
            prop::collection::vec("[a-c]", 0..3),
            0..40,
        )
    ) {
        let input: Vec<(String, Vec<String>)> = changes.clone().into_iter().collect();
        let groups = preview_groups(input);
        let total: u32 = groups.iter().map(|g| g.count).sum();
        prop_assert_eq!(total as usize, changes.len());
        for pair in groups.windows(2) {
            prop_assert!(pair[0].count >= pair[1].count);
            prop_assert!(pair[0].changes != pair[1].changes);
        }
        for g in &groups {
            prop_assert!(g.clusters.len() <= 10);
            prop_assert_eq!(g.clusters.len(), (g.count as usize).min(10));
            for c in &g.clusters {
                prop_assert_eq!(&changes[c], &g.changes);
            }
        }
    }
}

/// The status lists every cluster: about 100 bytes each while waiting and
/// 146 while updating (names like the benchmark's `c00001`, a short
/// blocker). At 10,000 clusters updating at once that is 1.46 MB, just
/// under etcd's default request limit of 1.5 MiB: longer names or reasons
/// go past it. This keeps the size per cluster from growing unnoticed.
#[test]
fn status_size_per_cluster_at_ten_thousand() {
    const N: usize = 10_000;
    let cs: Vec<Candidate> = (1..=N)
        .map(|i| cand(&format!("c{i:05}"), &[], Some(OLD)))
        .collect();
    let sp = spec(RolloutPolicy {
        max_concurrent: IntOrString::String("100%".into()),
        ..Default::default()
    });
    let per_cluster = |s: &TemplateRolloutStatus| serde_json::to_vec(s).unwrap().len() / N;
    let mut status = plan(&sp, &cs).unwrap();
    assert!(per_cluster(&status) <= 100, "{}", per_cluster(&status));
    let installing_all: BTreeMap<String, Health> = status
        .clusters
        .iter()
        .map(|c| (c.name.clone(), installing()))
        .collect();
    advance(&sp, &mut status, &installing_all, t(1_000_000));
    assert_eq!(status.phase, RolloutPhase::Progressing);
    assert!(per_cluster(&status) <= 150, "{}", per_cluster(&status));
    let done: BTreeMap<String, Health> = status
        .clusters
        .iter()
        .map(|c| (c.name.clone(), settled_at(REV)))
        .collect();
    advance(&sp, &mut status, &done, t(1_000_100));
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    assert!(per_cluster(&status) <= 120, "{}", per_cluster(&status));
}

// ---- soak ---------------------------------------------------------------------

/// Two clusters in two waves, Automatic, soaking `soak` after each wave.
fn soaking(soak: &str, budget: u32) -> (TemplateRolloutSpec, TemplateRolloutStatus) {
    let spec = spec(RolloutPolicy {
        soak: Some(soak.into()),
        failure_budget: budget,
        ..policy(RolloutStrategy::Automatic, 1)
    });
    let status = plan(&spec, &clusters(2)).unwrap();
    (spec, status)
}

fn cluster_reasons(status: &TemplateRolloutStatus) -> Vec<&str> {
    status
        .clusters
        .iter()
        .map(|c| c.reason.as_deref().unwrap_or_default())
        .collect()
}

#[test]
fn the_next_wave_starts_only_once_the_last_has_soaked() {
    let (spec, mut status) = soaking("30m", 1);
    step_ok(&spec, &mut status, 0);
    assert_eq!(status.waves[0].state, WaveState::Progressing);
    // Wave 1 is healthy: it soaks, and wave 2 waits for the soak.
    let notes = step_ok(&spec, &mut status, 10);
    assert_eq!(status.waves[0].state, WaveState::Soaking);
    assert_eq!(status.waves[0].soak_until, Some(Time(t(10 + 1800))));
    assert_eq!(status.waves[1].state, WaveState::Pending);
    assert_eq!(status.phase, RolloutPhase::Progressing);
    assert!(notes.iter().any(|n| n.reason == "WaveSoaking"), "{notes:?}");
    assert_eq!(
        status.message.as_deref(),
        Some("wave 1/2 soaking until 1970-01-01T00:30:10Z; 1/2 updated")
    );
    assert_eq!(
        cluster_reasons(&status),
        ["", "wave 1 soaks until 1970-01-01T00:30:10Z"]
    );
    // A second before the end: still soaking, nothing started.
    step_ok(&spec, &mut status, 1809);
    assert_eq!(status.waves[0].state, WaveState::Soaking);
    assert_eq!(status.clusters[1].state, ClusterRolloutState::Waiting);
    // At the end: wave 1 succeeded and wave 2 starts.
    step_ok(&spec, &mut status, 1810);
    assert_eq!(status.waves[0].state, WaveState::Succeeded);
    assert_eq!(status.waves[0].soak_until, None);
    assert_eq!(status.waves[1].state, WaveState::Progressing);
    assert_eq!(status.clusters[1].state, ClusterRolloutState::Updating);
    // The last wave has no next to hold: done once healthy.
    step_ok(&spec, &mut status, 1820);
    assert_eq!(status.phase, RolloutPhase::Succeeded);
    assert_eq!(status.waves[1].soak_until, None);
}

#[test]
fn a_cluster_failing_during_the_soak_counts_against_the_budget() {
    let (spec, mut status) = soaking("1h", 0);
    step_ok(&spec, &mut status, 0);
    step_ok(&spec, &mut status, 10);
    assert_eq!(status.waves[0].state, WaveState::Soaking);
    // c01's service fails at the revision while its wave soaks.
    let failing_c01 = BTreeSet::from(["c01".to_string()]);
    let report = world(&spec, &status, &failing_c01, &BTreeSet::new());
    let notes = advance(&spec, &mut status, &report, t(600));
    assert_eq!(status.clusters[0].state, ClusterRolloutState::Failed);
    assert_eq!(
        status.clusters[0].reason.as_deref(),
        Some("failed while its wave soaked: ingress: install failed")
    );
    assert_eq!(status.phase, RolloutPhase::Failed, "budget 0: stopped");
    assert!(notes.iter().any(|n| n.reason == "RolloutStopped"));
    // Wave 2 never started, even after the soak would have ended.
    advance(&spec, &mut status, &report, t(7200));
    assert_eq!(status.clusters[1].state, ClusterRolloutState::Waiting);
}

#[test]
fn within_the_budget_a_failure_during_the_soak_still_lets_the_next_wave_start() {
    let (spec, mut status) = soaking("10m", 1);
    step_ok(&spec, &mut status, 0);
    step_ok(&spec, &mut status, 10);
    let failing_c01 = BTreeSet::from(["c01".to_string()]);
    let report = world(&spec, &status, &failing_c01, &BTreeSet::new());
    advance(&spec, &mut status, &report, t(300));
    assert_eq!(status.clusters[0].state, ClusterRolloutState::Failed);
    assert_eq!(status.phase, RolloutPhase::Progressing);
    advance(&spec, &mut status, &report, t(610));
    assert_eq!(status.waves[0].state, WaveState::Failed);
    assert_eq!(status.clusters[1].state, ClusterRolloutState::Updating);
}

#[test]
fn a_canary_soaks_before_its_approval_is_asked() {
    let spec = spec(RolloutPolicy {
        canary: Some(1),
        soak: Some("20s".into()),
        ..policy(RolloutStrategy::Automatic, 1)
    });
    let mut status = plan(&spec, &clusters(2)).unwrap();
    step_ok(&spec, &mut status, 0);
    step_ok(&spec, &mut status, 5);
    assert_eq!(status.waves[0].state, WaveState::Soaking);
    assert_eq!(
        status.waves[1].state,
        WaveState::Pending,
        "no approval asked yet"
    );
    step_ok(&spec, &mut status, 25);
    assert_eq!(status.waves[1].state, WaveState::WaitingForApproval);
    assert_eq!(status.phase, RolloutPhase::WaitingForApproval);
}

#[test]
fn soak_is_checked_against_its_rule() {
    for (soak, ok) in [
        ("30m", true),
        ("168h", true),
        ("1h30m", true),
        ("169h", false),
        ("167h61m", false),
        ("0s", false),
        ("1d", false),
        ("", false),
    ] {
        let policy = RolloutPolicy {
            soak: Some(soak.into()),
            ..Default::default()
        };
        match check_policy(&policy) {
            Ok(limits) => {
                assert!(ok, "{soak} passed");
                assert!(limits.soak > Duration::ZERO);
            }
            Err(e) => {
                assert!(!ok, "{soak}: {e}");
                assert_eq!(e.0[0].field, "soak");
                assert_eq!(e.0[0].rule, SOAK_MESSAGE);
            }
        }
    }
    assert_eq!(
        check_policy(&RolloutPolicy::default()).unwrap().soak,
        Duration::ZERO
    );
}

// ---- change windows and the policy's pause ------------------------------------

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn window(days: &[Weekday], start: &str, duration: &str, zone: Option<&str>) -> ChangeWindow {
    ChangeWindow {
        days: days.to_vec(),
        start: start.into(),
        duration: duration.into(),
        time_zone: zone.map(Into::into),
    }
}

fn schedule(windows: &[ChangeWindow]) -> Schedule {
    Schedule::read(windows).unwrap()
}

#[test]
fn a_weekly_window_opens_and_closes_in_its_time_zone() {
    // Tuesdays 03:00 for 4h in Berlin: 02:00Z to 06:00Z in winter (CET).
    let s = schedule(&[window(
        &[Weekday::Tue],
        "03:00",
        "4h",
        Some("Europe/Berlin"),
    )]);
    // Tuesday 2026-12-08 01:59Z is 02:59 in Berlin: not yet.
    assert!(!s.open_at(at("2026-12-08T01:59:00Z")));
    assert_eq!(
        s.next_opening(at("2026-12-08T01:59:00Z")),
        Some(at("2026-12-08T02:00:00Z"))
    );
    assert!(s.open_at(at("2026-12-08T02:00:00Z")));
    assert!(s.open_at(at("2026-12-08T05:59:59Z")));
    assert!(!s.open_at(at("2026-12-08T06:00:00Z")));
    // Closed on Wednesday; the next opening is a week on.
    assert!(!s.open_at(at("2026-12-09T03:00:00Z")));
    assert_eq!(
        s.next_opening(at("2026-12-08T06:00:00Z")),
        Some(at("2026-12-15T02:00:00Z"))
    );
    // In summer Berlin is UTC+2: the same local time is an hour earlier.
    assert!(s.open_at(at("2027-06-08T01:00:00Z")));
    assert!(!s.open_at(at("2027-06-08T00:59:00Z")));
    assert_eq!(
        s.describe(),
        ["Tue 03:00 for 4h (Europe/Berlin)".to_string()]
    );
}

#[test]
fn a_window_that_crosses_midnight_and_the_week_stays_open() {
    // Sundays 22:00 UTC for 4h: open until Monday 02:00.
    let s = schedule(&[window(&[Weekday::Sun], "22:00", "4h", None)]);
    assert!(s.open_at(at("2026-12-13T23:00:00Z")), "Sunday night");
    assert!(s.open_at(at("2026-12-14T01:30:00Z")), "Monday early");
    assert!(!s.open_at(at("2026-12-14T02:00:00Z")));
    // A week-long window opened last Monday is still open on Sunday.
    let week = schedule(&[window(&[Weekday::Mon], "00:00", "168h", None)]);
    assert!(week.open_at(at("2026-12-13T23:59:00Z")));
    // Several windows: open when one is, and the next opening is the soonest.
    let two = schedule(&[
        window(&[Weekday::Fri], "10:00", "1h", None),
        window(&[Weekday::Wed], "10:00", "1h", None),
    ]);
    assert_eq!(
        two.next_opening(at("2026-12-07T12:00:00Z")),
        Some(at("2026-12-09T10:00:00Z"))
    );
    // Without days it opens every day.
    let daily = schedule(&[window(&[], "12:00", "30m", None)]);
    assert!(daily.open_at(at("2026-12-12T12:10:00Z")));
    assert!(!daily.open_at(at("2026-12-12T12:30:00Z")));
}

#[test]
fn a_start_time_a_daylight_saving_change_skips_opens_when_the_clocks_move_on() {
    // New York springs forward at 02:00 on 2027-03-14: 02:30 never happens
    // and the window opens at 03:30 EDT (07:30Z), lasting its real hour.
    let s = schedule(&[window(&[], "02:30", "1h", Some("America/New_York"))]);
    assert_eq!(
        s.next_opening(at("2027-03-14T06:00:00Z")),
        Some(at("2027-03-14T07:30:00Z"))
    );
    assert!(s.open_at(at("2027-03-14T08:29:00Z")));
    assert!(!s.open_at(at("2027-03-14T08:30:00Z")));
    // The day before it opened at 02:30 EST (07:30Z too); the day after at
    // 02:30 EDT (06:30Z).
    assert_eq!(
        s.next_opening(at("2027-03-15T00:00:00Z")),
        Some(at("2027-03-15T06:30:00Z"))
    );
}

#[test]
fn a_start_time_that_happens_twice_opens_the_first_time() {
    // New York falls back at 02:00 on 2027-11-07: 01:30 happens at 05:30Z
    // (EDT) and again at 06:30Z (EST). The window opens at the first.
    let s = schedule(&[window(
        &[Weekday::Sun],
        "01:30",
        "30m",
        Some("America/New_York"),
    )]);
    assert_eq!(
        s.next_opening(at("2027-11-07T00:00:00Z")),
        Some(at("2027-11-07T05:30:00Z"))
    );
    assert!(s.open_at(at("2027-11-07T05:45:00Z")));
    assert!(!s.open_at(at("2027-11-07T06:45:00Z")), "30 real minutes");
}

#[test]
fn windows_are_checked_against_their_rules() {
    let policy = RolloutPolicy {
        windows: vec![
            window(&[], "24:00", "4h", None),
            window(&[], "3:00", "30s", Some("Mars/Olympus_Mons")),
            window(&[], "03:00", "169h", Some("Europe/Berlin")),
            window(&[], "03:00", "1h30m", Some("Europe/Berlin")),
        ],
        ..Default::default()
    };
    let e = check_policy(&policy).unwrap_err();
    let fields: Vec<&str> = e.0.iter().map(|f| f.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "windows[0].start",
            "windows[1].start",
            "windows[1].duration",
            "windows[1].timeZone",
            "windows[2].duration"
        ]
    );
    assert_eq!(e.0[3].rule, TIME_ZONE_MESSAGE);
    assert_eq!(e.0[2].rule, WINDOW_DURATION_MESSAGE);
    // A gate on windows it cannot read is closed, and says why.
    let gate = Gate::of(&policy);
    assert!(!gate.open_at(at("2026-12-08T03:00:00Z")));
    assert!(
        gate.unreadable
            .as_deref()
            .is_some_and(|why| why.contains("spec.rollout.windows[1].timeZone")),
        "{:?}",
        gate.unreadable
    );
}

/// Two clusters, one per wave, under `policy`'s strategy with `windows`.
fn windowed(
    strategy: RolloutStrategy,
    windows: Vec<ChangeWindow>,
) -> (TemplateRolloutSpec, TemplateRolloutStatus) {
    let spec = spec(RolloutPolicy {
        windows,
        ..policy(strategy, 1)
    });
    let status = plan(&spec, &clusters(2)).unwrap();
    (spec, status)
}

fn step_at(spec: &TemplateRolloutSpec, status: &mut TemplateRolloutStatus, now: &str) -> Vec<Note> {
    let report = world(spec, status, &BTreeSet::new(), &BTreeSet::new());
    advance(spec, status, &report, at(now))
}

#[test]
fn a_wave_due_outside_every_window_waits_for_the_next_to_open() {
    // Daily 03:00 to 04:00 UTC; the change comes at 02:59:30.
    let (spec, mut status) = windowed(
        RolloutStrategy::Automatic,
        vec![window(&[], "03:00", "1h", None)],
    );
    let notes = step_at(&spec, &mut status, "2026-12-08T02:59:30Z");
    assert_eq!(status.waves[0].state, WaveState::WaitingForWindow);
    assert_eq!(
        status.waves[0].opens_at,
        Some(Time(at("2026-12-08T03:00:00Z")))
    );
    assert_eq!(status.clusters[0].state, ClusterRolloutState::Waiting);
    assert_eq!(status.phase, RolloutPhase::Pending);
    assert!(notes.iter().any(|n| n.reason == "WaitingForWindow"
        && n.message
            == "wave 1 waits for a change window: the next opens at 2026-12-08T03:00:00Z"));
    assert_eq!(
        status.message.as_deref(),
        Some("wave 1/2 waits for a change window (opens 2026-12-08T03:00:00Z); 0/2 updated")
    );
    assert_eq!(
        cluster_reasons(&status),
        [
            "wave 1 waits for a change window (opens 2026-12-08T03:00:00Z)",
            "wave 1 waits for a change window (opens 2026-12-08T03:00:00Z)"
        ]
    );
    // Told once: a second look says nothing new.
    assert!(step_at(&spec, &mut status, "2026-12-08T02:59:50Z").is_empty());
    // The window opens: wave 1 starts, and its cluster is updated.
    step_at(&spec, &mut status, "2026-12-08T03:00:00Z");
    assert_eq!(status.waves[0].state, WaveState::Progressing);
    assert_eq!(status.waves[0].opens_at, None);
    step_at(&spec, &mut status, "2026-12-08T03:10:00Z");
    assert_eq!(status.waves[1].state, WaveState::Progressing);
    step_at(&spec, &mut status, "2026-12-08T03:20:00Z");
    assert_eq!(status.phase, RolloutPhase::Succeeded);
}

#[test]
fn a_wave_that_started_finishes_after_its_window_closes() {
    let (spec, mut status) = windowed(
        RolloutStrategy::Automatic,
        vec![window(&[], "03:00", "1h", None)],
    );
    step_ok_at(&spec, &mut status, "2026-12-08T03:59:00Z");
    assert_eq!(status.waves[0].state, WaveState::Progressing);
    // c01 is still installing when the window closes.
    let slow = world(&spec, &status, &BTreeSet::new(), &set(&["c01"]));
    advance(&spec, &mut status, &slow, at("2026-12-08T04:00:30Z"));
    assert_eq!(status.clusters[0].state, ClusterRolloutState::Updating);
    // It becomes healthy: wave 1 finishes; wave 2 waits for tomorrow.
    step_at(&spec, &mut status, "2026-12-08T04:05:00Z");
    assert_eq!(status.waves[0].state, WaveState::Succeeded);
    assert_eq!(status.waves[1].state, WaveState::WaitingForWindow);
    assert_eq!(
        status.waves[1].opens_at,
        Some(Time(at("2026-12-09T03:00:00Z")))
    );
    assert_eq!(status.phase, RolloutPhase::Progressing);
}

fn step_ok_at(spec: &TemplateRolloutSpec, status: &mut TemplateRolloutStatus, now: &str) {
    step_at(spec, status, now);
}

#[test]
fn an_approval_outside_a_window_is_kept_until_it_opens() {
    let (spec, mut status) = windowed(
        RolloutStrategy::Manual,
        vec![window(&[Weekday::Tue], "03:00", "2h", None)],
    );
    // Monday: the approval is asked at once, whatever the window.
    step_at(&spec, &mut status, "2026-12-07T12:00:00Z");
    assert_eq!(status.waves[0].state, WaveState::WaitingForApproval);
    let report = world(&spec, &status, &BTreeSet::new(), &BTreeSet::new());
    apply_request(
        &spec,
        &mut status,
        &Request::Approve(Some(1)),
        "alice",
        &report,
        at("2026-12-07T12:05:00Z"),
    )
    .unwrap();
    assert_eq!(status.waves[0].approved_by.as_deref(), Some("alice"));
    assert_eq!(status.waves[0].state, WaveState::WaitingForWindow);
    assert_eq!(status.clusters[0].state, ClusterRolloutState::Waiting);
    assert_eq!(status.phase, RolloutPhase::Pending);
    // Tuesday 03:00: it starts without being asked again.
    step_at(&spec, &mut status, "2026-12-08T03:00:00Z");
    assert_eq!(status.waves[0].state, WaveState::Progressing);
    assert_eq!(status.clusters[0].state, ClusterRolloutState::Updating);
    // Wave 2 asks for its own approval.
    step_at(&spec, &mut status, "2026-12-08T03:05:00Z");
    assert_eq!(status.waves[1].state, WaveState::WaitingForApproval);
}

#[test]
fn start_now_passes_the_window_the_soak_and_the_approval_and_names_who_asked() {
    let spec = spec(RolloutPolicy {
        soak: Some("1h".into()),
        canary: Some(1),
        windows: vec![window(&[Weekday::Sat], "03:00", "1h", None)],
        ..policy(RolloutStrategy::Automatic, 1)
    });
    let mut status = plan(&spec, &clusters(3)).unwrap();
    step_at(&spec, &mut status, "2026-12-07T12:00:00Z");
    assert_eq!(status.waves[0].state, WaveState::WaitingForWindow);
    let report = world(&spec, &status, &BTreeSet::new(), &BTreeSet::new());
    let notes = apply_request(
        &spec,
        &mut status,
        &Request::StartNow,
        "oncall",
        &report,
        at("2026-12-07T12:01:00Z"),
    )
    .unwrap();
    assert_eq!(status.waves[0].state, WaveState::Progressing);
    assert_eq!(status.waves[0].started_now_by.as_deref(), Some("oncall"));
    assert!(
        notes
            .iter()
            .any(|n| n.message == "start-now wave 1 by oncall (revision 2)")
    );
    let last = status.history.last().unwrap();
    assert_eq!(
        (last.action.as_str(), last.by.as_str(), last.wave),
        ("start-now", "oncall", Some(1))
    );
    // The canary is healthy and soaks; start now ends the soak and passes
    // the canary's approval, which it records as the asker's.
    step_at(&spec, &mut status, "2026-12-07T12:02:00Z");
    assert_eq!(status.waves[0].state, WaveState::Soaking);
    let report = world(&spec, &status, &BTreeSet::new(), &BTreeSet::new());
    apply_request(
        &spec,
        &mut status,
        &Request::StartNow,
        "oncall",
        &report,
        at("2026-12-07T12:03:00Z"),
    )
    .unwrap();
    assert_eq!(status.waves[0].state, WaveState::Succeeded);
    assert_eq!(status.waves[1].state, WaveState::Progressing);
    assert_eq!(status.waves[1].approved_by.as_deref(), Some("oncall"));
    // A wave under way cannot be started again.
    let again = apply_request(
        &spec,
        &mut status,
        &Request::StartNow,
        "oncall",
        &report,
        at("2026-12-07T12:03:30Z"),
    );
    assert_eq!(again, Err("wave 2 has started already".into()));
    assert_eq!(Request::parse("start-now"), Ok(Request::StartNow));
    assert_eq!(Request::StartNow.to_annotation(), "start-now");
}

#[test]
fn the_policys_pause_holds_new_waves_and_lets_started_ones_finish() {
    let (mut spec, mut status) = windowed(RolloutStrategy::Automatic, Vec::new());
    step_at(&spec, &mut status, "2026-12-07T12:00:00Z");
    assert_eq!(status.waves[0].state, WaveState::Progressing);
    // Paused while c01 installs: the rollout is paused by its policy.
    spec.policy.paused = true;
    let slow = world(&spec, &status, &BTreeSet::new(), &set(&["c01"]));
    let notes = advance(&spec, &mut status, &slow, at("2026-12-07T12:01:00Z"));
    assert_eq!(status.phase, RolloutPhase::Paused);
    assert_eq!(status.paused_by.as_deref(), Some(POLICY_PAUSE));
    assert!(notes.iter().any(|n| n.reason == "RolloutPaused"));
    assert_eq!(
        status.message.as_deref(),
        Some("paused by its policy (spec.rollout.paused); 0/2 updated")
    );
    // c01 finishes; wave 2 does not start.
    step_at(&spec, &mut status, "2026-12-07T12:05:00Z");
    assert_eq!(status.clusters[0].state, ClusterRolloutState::Updated);
    assert_eq!(status.clusters[1].state, ClusterRolloutState::Waiting);
    // Neither resume nor start now lift the policy's pause.
    let report = world(&spec, &status, &BTreeSet::new(), &BTreeSet::new());
    for request in [Request::Resume, Request::StartNow] {
        let refused = apply_request(
            &spec,
            &mut status,
            &request,
            "alice",
            &report,
            at("2026-12-07T12:06:00Z"),
        )
        .unwrap_err();
        assert!(refused.contains("spec.rollout.paused"), "{refused}");
    }
    // Unpaused: it goes on by itself.
    spec.policy.paused = false;
    let notes = step_at(&spec, &mut status, "2026-12-07T12:10:00Z");
    assert!(notes.iter().any(|n| n.reason == "RolloutResumed"));
    assert_eq!(status.waves[1].state, WaveState::Progressing);
    assert_eq!(status.paused_by, None);
}

#[test]
fn an_operators_pause_outlasts_the_policys() {
    let (mut spec, mut status) = windowed(RolloutStrategy::Automatic, Vec::new());
    step_at(&spec, &mut status, "2026-12-07T12:00:00Z");
    let report = world(&spec, &status, &BTreeSet::new(), &BTreeSet::new());
    apply_request(
        &spec,
        &mut status,
        &Request::Pause,
        "bob",
        &report,
        at("2026-12-07T12:00:10Z"),
    )
    .unwrap();
    spec.policy.paused = true;
    step_at(&spec, &mut status, "2026-12-07T12:01:00Z");
    assert_eq!(status.paused_by.as_deref(), Some("bob"));
    spec.policy.paused = false;
    step_at(&spec, &mut status, "2026-12-07T12:02:00Z");
    assert_eq!(status.phase, RolloutPhase::Paused, "bob's pause stays");
    assert_eq!(status.paused_by.as_deref(), Some("bob"));
}

#[test]
fn the_gate_the_engine_passes_wins_over_the_rollouts_copy() {
    // The rollout was planned without windows; the template has one now.
    let (spec, mut status) = windowed(RolloutStrategy::Automatic, Vec::new());
    let live = RolloutPolicy {
        windows: vec![window(&[], "03:00", "1h", None)],
        ..spec.policy.clone()
    };
    let report = world(&spec, &status, &BTreeSet::new(), &BTreeSet::new());
    advance_gated(
        &spec,
        &mut status,
        &report,
        at("2026-12-07T12:00:00Z"),
        &Gate::of(&live),
    );
    assert_eq!(status.waves[0].state, WaveState::WaitingForWindow);
    assert_eq!(
        status.waves[0].opens_at,
        Some(Time(at("2026-12-08T03:00:00Z")))
    );
}
