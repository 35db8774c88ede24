//! The cluster's conditions and status from what a reconcile found, and
//! when to look again.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::Resource;
use kube::runtime::controller::Action;

use super::cluster_release::ClusterRelease;
use super::given::{Given, is_service};
use super::services::{MultiPlanned, Services};
use crate::api::conditions::{self, Cond, NAME_CONFLICT, READY, SERVICES_READY};
use crate::api::{
    ManagedCluster, ManagedClusterStatus, MultiClusterServiceRevision, ServiceState, ServiceStatus,
    all_installed,
};
use crate::plan::services::idle_overrides;

/// The status to write, and when to look at the cluster again.
pub(super) fn of(
    mc: &ManagedCluster,
    given: &Given,
    cluster: ClusterRelease,
    services: Services,
) -> (ManagedClusterStatus, Action) {
    let Services {
        statuses,
        conflicts,
        multi,
        multi_revisions,
        ..
    } = services;
    let revision = given.revision;
    let installed = statuses
        .iter()
        .filter(|s| s.state == ServiceState::Installed)
        .count();
    let total = statuses
        .iter()
        .filter(|s| s.state != ServiceState::Removing)
        .count();
    let problem = statuses.iter().find(|s| s.state != ServiceState::Installed);
    let services_cond = match &cluster.foreign {
        Some(why) => Cond::new(
            SERVICES_READY,
            false,
            FOREIGN_CLUSTER,
            super::services::waits_for_own_cluster(why),
        ),
        None => services_condition(mc, given, &statuses, &conflicts, installed, total),
    };
    let ready = [&given.template_cond, &cluster.cond, &services_cond]
        .into_iter()
        .find(|c| !c.status)
        .map_or_else(
            || {
                Cond::new(
                    READY,
                    true,
                    "Ready",
                    format!("cluster provisioned, {installed}/{total} services installed"),
                )
            },
            |c| Cond::new(READY, false, c.reason.clone(), c.message.clone()),
        );
    let all_at_revision = problem.is_none() && statuses.iter().all(|s| s.revision == revision);
    let receives =
        !given.dry_run && (cluster.provisioned || given.existing.iter().any(|r| is_service(r)));
    let old = mc.status.clone().unwrap_or_default();
    let mut desired = vec![
        given.template_cond.clone(),
        cluster.cond,
        services_cond,
        ready,
    ];
    // Said while services are in conflict, and once after, as False; a
    // cluster that never had one carries no such condition.
    if multi.status || old.conditions.iter().any(|c| c.type_ == multi.type_) {
        desired.push(multi);
    }
    let multi_cluster_services = multi_revisions
        .into_iter()
        .map(|m| multi_revision(&old, m, &statuses, receives, cluster.provisioned))
        .collect();
    let status = ManagedClusterStatus {
        multi_cluster_services,
        conditions: conditions::merge(
            &old.conditions,
            &desired,
            mc.meta().generation,
            Time(Timestamp::now()),
        ),
        services: statuses,
        services_ready: Some(format!("{installed}/{total}")),
        revision: if all_at_revision && cluster.provisioned && given.services_spec.is_some() {
            revision
        } else {
            old.revision
        },
        // Given once services can reach the cluster: until then a newer
        // revision needs no rollout to reach it.
        target_revision: if receives && given.services_spec.is_some() {
            revision
        } else {
            old.target_revision
        },
        observed_generation: mc.meta().generation,
    };
    let conflicted =
        cluster.conflict.is_some() || cluster.foreign.is_some() || !conflicts.is_empty();
    let again = next_look(&status, conflicted, given.fleet, &given.name);
    (status, again)
}

/// What the cluster records of one MultiClusterService that selects it, as
/// of its template's revision: the revision it is given once services can
/// reach it (until then a newer one needs no rollout to reach it), and that
/// revision as its last good one once every service it gives is Installed.
fn multi_revision(
    old: &ManagedClusterStatus,
    planned: MultiPlanned,
    statuses: &[ServiceStatus],
    receives: bool,
    provisioned: bool,
) -> MultiClusterServiceRevision {
    let before = old.multi_cluster_service(&planned.name);
    let target = match receives {
        true => planned.revision,
        false => before.and_then(|b| b.target_revision),
    };
    let installed = all_installed(statuses, &planned.won);
    let good = match receives && provisioned && installed {
        true => planned.revision,
        false => before.and_then(|b| b.revision),
    };
    MultiClusterServiceRevision {
        name: planned.name,
        target_revision: target,
        revision: good,
        services: planned.won,
    }
}

/// The services' reason while the Cluster API cluster of the cluster's name
/// is not the cluster's own.
pub(super) const FOREIGN_CLUSTER: &str = "ForeignCluster";

/// Whether the services are installed, or the first one that is not and why.
fn services_condition(
    mc: &ManagedCluster,
    given: &Given,
    services: &[ServiceStatus],
    conflicts: &[String],
    installed: usize,
    total: usize,
) -> Cond {
    let problem = services.iter().find(|s| s.state != ServiceState::Installed);
    let services_cond = match problem {
        None if given.template.is_some() && given.services_spec.is_none() => Cond::new(
            SERVICES_READY,
            false,
            "RevisionUnknown",
            match given.revision {
                Some(r) => format!(
                    "cluster template {} no longer holds revision {r} of its services; \
                     a new revision of the template rolls out to this cluster",
                    mc.spec.template
                ),
                None => format!(
                    "waiting for cluster template {} to record its services",
                    mc.spec.template
                ),
            },
        ),
        None => Cond::new(
            SERVICES_READY,
            true,
            "Installed",
            format!(
                "{installed}/{total} services installed{}",
                idle_note(mc, given)
            ),
        ),
        Some(s) => Cond::new(
            SERVICES_READY,
            false,
            s.state.to_string(),
            format!(
                "{}: {}",
                s.name,
                s.message.clone().unwrap_or_else(|| s.state.to_string())
            ),
        ),
    };
    // A name that belongs to something else is what to fix first.
    services
        .iter()
        .find(|s| conflicts.contains(&s.name))
        .map(|s| {
            let why = s.message.clone().unwrap_or_default();
            Cond::new(
                SERVICES_READY,
                false,
                NAME_CONFLICT,
                format!("{}: {why}", s.name),
            )
        })
        .unwrap_or(services_cond)
}

/// Names the cluster's entries that override no service of its revision
/// and name no ServiceTemplate ([`idle_overrides`]): they are not a
/// problem (a template may drop a service that some clusters set values
/// for), but a misspelt name looks the same, so the status says so.
fn idle_note(mc: &ManagedCluster, given: &Given) -> String {
    let Some(spec) = &given.services_spec else {
        return String::new();
    };
    match idle_overrides(&spec.services, &mc.spec.services).as_slice() {
        [] => String::new(),
        names => format!(
            "; {} {} no service of cluster template {} and {} no service template, so {} nothing",
            named(names),
            if names.len() == 1 {
                "overrides"
            } else {
                "override"
            },
            mc.spec.template,
            if names.len() == 1 { "names" } else { "name" },
            if names.len() == 1 {
                "it gives"
            } else {
                "they give"
            },
        ),
    }
}

/// At most [`IDLE_NAMES_SHOWN`] names, then how many more: a cluster may
/// have hundreds of entries, and the condition's message stays short.
fn named(names: &[&str]) -> String {
    match names.len().checked_sub(IDLE_NAMES_SHOWN) {
        Some(more) if more > 0 => {
            format!("{} and {more} more", names[..IDLE_NAMES_SHOWN].join(", "))
        }
        _ => names.join(", "),
    }
}

const IDLE_NAMES_SHOWN: usize = 5;

/// Clusters whose safety-net looks come at the base intervals; a larger
/// fleet stretches them in proportion.
const FLEET_AT_BASE_INTERVALS: usize = 1_000;

/// When to look at the cluster again if nothing triggers it. Everything a
/// reconcile reads triggers one once its store has the change (see
/// `triggers`), so these looks are a safety net; they read the stores, not
/// the API, and write nothing unless something changed. A conflict clears
/// when the other object goes, which triggers nothing here: it is looked
/// at again now and then. A cluster with a service in flight every 30 s, one with a pending
/// service or a conflict every 60 s, a settled one every 5 minutes, for
/// fleets of up to 1,000 clusters. Beyond, the intervals grow with the
/// fleet, so the safety net costs the same looks a second: at 10,000
/// clusters all installing, a look every 30 s each was 333 reconciles a
/// second that changed nothing, most of the engine's work. Each cluster's
/// interval is shortened by up to a fifth, by its name, so clusters looked
/// at together (a resync, a wave) do not all come back together.
fn next_look(status: &ManagedClusterStatus, conflicted: bool, fleet: usize, name: &str) -> Action {
    Action::requeue(look_after(status, conflicted, fleet, name))
}

fn look_after(
    status: &ManagedClusterStatus,
    conflicted: bool,
    fleet: usize,
    name: &str,
) -> Duration {
    let in_flight = status
        .services
        .iter()
        .any(|s| matches!(s.state, ServiceState::Installing | ServiceState::Removing));
    let waiting = status
        .services
        .iter()
        .any(|s| s.state == ServiceState::Pending);
    let base: u64 = if in_flight {
        30
    } else if waiting || conflicted {
        60
    } else {
        300
    };
    let scale = fleet.div_ceil(FLEET_AT_BASE_INTERVALS).max(1) as u64;
    let millis = base * scale * 1000;
    let mut h = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(name, &mut h);
    let earlier = std::hash::Hasher::finish(&h) % (millis / 5 + 1);
    Duration::from_millis(millis - earlier)
}

/// The cluster's status as it is, with `desired` as its conditions.
pub(super) fn status_with(mc: &ManagedCluster, desired: &[Cond]) -> ManagedClusterStatus {
    let old = mc.status.clone().unwrap_or_default();
    ManagedClusterStatus {
        conditions: conditions::merge(
            &old.conditions,
            desired,
            mc.meta().generation,
            Time(Timestamp::now()),
        ),
        ..old
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn idle_entries_are_named_up_to_five() {
        assert_eq!(named(&["a", "b"]), "a, b");
        assert_eq!(named(&["a", "b", "c", "d", "e"]), "a, b, c, d, e");
        assert_eq!(
            named(&["a", "b", "c", "d", "e", "f", "g"]),
            "a, b, c, d, e and 2 more"
        );
    }
    use crate::api::ServiceStatus;

    fn installing() -> ManagedClusterStatus {
        ManagedClusterStatus {
            services: vec![ServiceStatus {
                name: "ingress-nginx".into(),
                state: ServiceState::Installing,
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn the_safety_net_stretches_with_the_fleet_and_spreads_by_name() {
        let st = installing();
        let small = look_after(&st, false, 10, "c1");
        assert!(small <= Duration::from_secs(30), "{small:?}");
        assert!(small >= Duration::from_secs(24), "{small:?}");
        // 10,000 clusters: ten times the interval, the same looks a second.
        let large = look_after(&st, false, 10_000, "c1");
        assert!(large <= Duration::from_secs(300) && large >= Duration::from_secs(240));
        // Settled clusters, and conflicts, keep their longer intervals.
        let settled = look_after(&Default::default(), false, 10, "c1");
        assert!(settled > Duration::from_secs(200));
        let conflicted = look_after(&Default::default(), true, 10, "c1");
        assert!(conflicted <= Duration::from_secs(60) && conflicted >= Duration::from_secs(48));
        // Clusters looked at together come back spread out.
        let times: std::collections::BTreeSet<Duration> = (0..100)
            .map(|i| look_after(&st, false, 10, &format!("c{i}")))
            .collect();
        assert!(times.len() > 50, "{} distinct times", times.len());
    }
}
