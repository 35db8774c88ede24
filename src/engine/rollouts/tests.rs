use std::time::Instant;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::owner::{health, multi_health};
use super::*;
use crate::api::conditions::CLUSTER_READY;
use crate::api::{
    ManagedClusterSpec, ManagedClusterStatus, MultiClusterServiceRevision, RolloutPolicy,
    ServiceState, ServiceStatus,
};
use crate::plan::rollout::{Candidate, Health, advance};

/// What each cluster reports to a template's rollout.
fn health_of(clusters: &[Arc<ManagedCluster>]) -> std::collections::BTreeMap<String, Health> {
    clusters
        .iter()
        .map(|c| (c.name_any(), health(c.status.as_ref())))
        .collect()
}

fn service(name: &str, state: ServiceState, message: Option<&str>) -> ServiceStatus {
    ServiceStatus {
        name: name.into(),
        state,
        message: message.map(Into::into),
        ..Default::default()
    }
}

fn ready(status: &str) -> Condition {
    Condition {
        type_: CLUSTER_READY.into(),
        status: status.into(),
        reason: "Test".into(),
        message: String::new(),
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
        observed_generation: None,
    }
}

fn cluster(name: &str, status: ManagedClusterStatus) -> Arc<ManagedCluster> {
    let mut mc = ManagedCluster::new(
        name,
        ManagedClusterSpec {
            template: "tmpl".into(),
            ..Default::default()
        },
    );
    mc.metadata.namespace = Some("ns".into());
    mc.status = Some(status);
    Arc::new(mc)
}

#[test]
fn health_reads_revisions_readiness_and_the_first_service_not_installed() {
    let st = ManagedClusterStatus {
        conditions: vec![ready("True")],
        services: vec![
            service("a", ServiceState::Installed, None),
            service("b", ServiceState::Installing, None),
            service("c", ServiceState::Failed, Some("install failed")),
        ],
        revision: Some(1),
        target_revision: Some(2),
        ..Default::default()
    };
    let h = health(Some(&st));
    assert_eq!(
        h,
        Health {
            target: Some(2),
            good: Some(1),
            provisioned: true,
            failed: Some("c: install failed".into()),
            blocker: Some(format!("b: {}", ServiceState::Installing)),
            left: None,
        }
    );
    let not_ready = ManagedClusterStatus {
        conditions: vec![ready("False")],
        ..Default::default()
    };
    assert!(!health(Some(&not_ready)).provisioned);
    assert_eq!(health(None), Health::default());
}

/// The work of one look at a rollout of 10,000 clusters that are all
/// updating, without the API: read every cluster's health, take the next
/// step and compare and hash the status as `status_if_changed` does.
/// `cargo test --release --lib --features fixtures one_look -- --ignored --nocapture`
#[test]
#[ignore = "a measurement"]
fn one_look_at_ten_thousand_clusters() {
    for n in [1_000, 3_000, 10_000] {
        let clusters: Vec<Arc<ManagedCluster>> = (1..=n)
            .map(|i| {
                let st = ManagedClusterStatus {
                    conditions: vec![ready("True")],
                    services: ["a", "b", "c"]
                        .iter()
                        .map(|s| service(s, ServiceState::Installing, Some("installing")))
                        .collect(),
                    revision: Some(1),
                    target_revision: Some(2),
                    ..Default::default()
                };
                cluster(&format!("c{i:05}"), st)
            })
            .collect();
        let spec = TemplateRolloutSpec {
            multi_cluster_service: None,
            template: "tmpl".into(),
            revision: 2,
            policy: RolloutPolicy {
                max_concurrent: IntOrString::String("100%".into()),
                ..Default::default()
            },
        };
        let candidates: Vec<Candidate> = clusters
            .iter()
            .map(|c| Candidate {
                name: c.name_any(),
                labels: Default::default(),
                revision: Some(1),
            })
            .collect();
        let mut stored = plan(&spec, &candidates).unwrap();
        let now = Timestamp::from_second(1_000_000).unwrap();
        advance(&spec, &mut stored, &health_of(&clusters), now);
        let start = Instant::now();
        let runs = 10;
        for _ in 0..runs {
            let health = health_of(&clusters);
            let mut status = stored.clone();
            advance(&spec, &mut status, &health, now);
            assert!(status == stored);
            super::super::context::hash_of(&status).unwrap();
        }
        eprintln!(
            "N = {n}: one look {:.1} ms, status {} bytes",
            start.elapsed().as_secs_f64() * 1000.0 / runs as f64,
            serde_json::to_vec(&stored).unwrap().len()
        );
    }
}

#[test]
fn a_multi_cluster_service_rollout_reads_its_own_revisions_and_only_its_services() {
    let st = ManagedClusterStatus {
        conditions: vec![ready("True")],
        services: vec![
            service("own", ServiceState::Failed, Some("the template's own")),
            service("cert-manager", ServiceState::Installing, None),
            service("dns", ServiceState::Installed, None),
        ],
        revision: Some(7),
        target_revision: Some(7),
        multi_cluster_services: vec![MultiClusterServiceRevision {
            name: "prod".into(),
            target_revision: Some(3),
            revision: Some(2),
            services: vec!["cert-manager".into(), "dns".into()],
        }],
        ..Default::default()
    };
    assert_eq!(
        multi_health(Some(&st), "prod"),
        Health {
            target: Some(3),
            good: Some(2),
            provisioned: true,
            failed: None,
            blocker: Some("cert-manager: Installing".into()),
            left: None,
        }
    );
    // A MultiClusterService the cluster records nothing of: no revision.
    assert_eq!(
        multi_health(Some(&st), "other"),
        Health {
            provisioned: true,
            ..Health::default()
        }
    );
}

#[test]
fn a_larger_fleet_is_looked_at_less_often() {
    let sec = std::time::Duration::from_secs(1);
    assert_eq!(look_interval(0), sec);
    assert_eq!(look_interval(1), sec);
    assert_eq!(look_interval(1000), sec);
    assert_eq!(look_interval(1001), 2 * sec);
    assert_eq!(look_interval(10_000), 10 * sec);
}

#[test]
fn a_soaking_wave_is_looked_at_when_its_soak_ends() {
    use crate::api::{ClusterRolloutStatus, WaveState, WaveStatus};
    let spec = TemplateRolloutSpec {
        multi_cluster_service: None,
        template: "tmpl".into(),
        revision: 2,
        policy: RolloutPolicy {
            soak: Some("24h".into()),
            ..Default::default()
        },
    };
    let now = Timestamp::from_second(1_000_000).unwrap();
    let at = |secs: i64| Some(Time(Timestamp::from_second(1_000_000 + secs).unwrap()));
    let mut status = TemplateRolloutStatus {
        phase: RolloutPhase::Progressing,
        waves: vec![WaveStatus {
            number: 1,
            state: WaveState::Soaking,
            soak_until: at(60),
            ..Default::default()
        }],
        ..Default::default()
    };
    let sec = std::time::Duration::from_secs(1);
    assert_eq!(next_look(&spec, &status, now), Action::requeue(61 * sec));
    // A day away: looked at every 5 minutes meanwhile, not every 5 s.
    status.waves[0].soak_until = at(86_400);
    assert_eq!(next_look(&spec, &status, now), Action::requeue(300 * sec));
    // Already over: at once (a second on).
    status.waves[0].soak_until = at(-30);
    assert_eq!(next_look(&spec, &status, now), Action::requeue(sec));
    // A cluster updating elsewhere keeps the few-seconds pace.
    status.clusters.push(ClusterRolloutStatus {
        name: "c".into(),
        state: ClusterRolloutState::Updating,
        since: Some(Time(now)),
        ..Default::default()
    });
    status.waves[0].soak_until = at(86_400);
    assert_eq!(next_look(&spec, &status, now), Action::requeue(5 * sec));
}
