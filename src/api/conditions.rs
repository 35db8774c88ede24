//! Helpers for `metav1.Condition` lists: a condition's transition time moves
//! only when its status does, so an unchanged world writes nothing.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

pub const READY: &str = "Ready";
pub const TEMPLATE_READY: &str = "TemplateReady";
pub const CLUSTER_READY: &str = "ClusterReady";
pub const SERVICES_READY: &str = "ServicesReady";
pub const DELETING: &str = "Deleting";
/// MultiClusterService: its selector is valid and selects clusters.
pub const CLUSTERS_SELECTED: &str = "ClustersSelected";
/// MultiClusterService, ManagedCluster: a service is named by two sources
/// of the same priority, so neither installs it.
pub const CONFLICT: &str = "Conflict";

/// Reason: an object the engine would write under this name belongs to
/// something else.
pub const NAME_CONFLICT: &str = "NameConflict";
/// Reason: the object's name cannot be used for what the engine derives.
pub const INVALID_NAME: &str = "InvalidName";
/// Reason: the namespace has no account to install the cluster's chart as
/// (`names::CLUSTER_INSTALLER`).
pub const INSTALLER_MISSING: &str = "InstallerAccountMissing";

/// A condition as the engine computes it, before time is attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    pub type_: &'static str,
    pub status: bool,
    pub reason: String,
    pub message: String,
}

impl Cond {
    pub fn new(
        type_: &'static str,
        status: bool,
        reason: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            type_,
            status,
            reason: reason.into(),
            message: message.into(),
        }
    }
}

/// Builds the new list from `desired`, keeping `lastTransitionTime` of the
/// old entries whose status did not change.
pub fn merge(
    old: &[Condition],
    desired: &[Cond],
    generation: Option<i64>,
    now: Time,
) -> Vec<Condition> {
    desired
        .iter()
        .map(|d| {
            let status = if d.status { "True" } else { "False" }.to_string();
            let previous = old.iter().find(|c| c.type_ == d.type_);
            let last_transition_time = match previous {
                Some(p) if p.status == status => p.last_transition_time.clone(),
                _ => now.clone(),
            };
            Condition {
                type_: d.type_.to_string(),
                status,
                reason: d.reason.clone(),
                message: d.message.clone(),
                observed_generation: generation,
                last_transition_time,
            }
        })
        .collect()
}

/// The status of one condition type, if present.
pub fn is_true(conditions: &[Condition], type_: &str) -> Option<bool> {
    conditions
        .iter()
        .find(|c| c.type_ == type_)
        .map(|c| c.status == "True")
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::jiff::Timestamp;

    fn t(secs: i64) -> Time {
        Time(Timestamp::from_second(secs).unwrap())
    }

    #[test]
    fn transition_time_moves_only_with_status() {
        let first = merge(
            &[],
            &[Cond::new(READY, false, "Pending", "waiting")],
            Some(1),
            t(10),
        );
        let same = merge(
            &first,
            &[Cond::new(READY, false, "Pending", "still waiting")],
            Some(1),
            t(20),
        );
        assert_eq!(same[0].last_transition_time, t(10));
        assert_eq!(same[0].message, "still waiting");
        let flipped = merge(
            &same,
            &[Cond::new(READY, true, "Ready", "ok")],
            Some(1),
            t(30),
        );
        assert_eq!(flipped[0].last_transition_time, t(30));
        assert_eq!(is_true(&flipped, READY), Some(true));
        assert_eq!(is_true(&flipped, CLUSTER_READY), None);
    }
}
