//! The revision each cluster should be given.

use crate::api::{
    ClusterRolloutState, ClusterRolloutStatus, TemplateRolloutSpec, TemplateRolloutStatus,
};

/// The revision a cluster should be given now. `latest` is the template's
/// newest revision, `rollout` the rollout of that revision if there is one,
/// `current` the revision the cluster is given now. A cluster keeps its
/// revision until a rollout's wave reaches it; a new cluster gets the newest.
pub fn desired_revision(
    latest: Option<i64>,
    rollout: Option<(&TemplateRolloutSpec, &TemplateRolloutStatus)>,
    cluster: &str,
    current: Option<i64>,
) -> Option<i64> {
    let entry =
        rollout.and_then(|(spec, status)| status.cluster(cluster).map(|c| (spec.revision, c)));
    match entry {
        Some((
            revision,
            ClusterRolloutStatus {
                state:
                    ClusterRolloutState::Updating
                    | ClusterRolloutState::Updated
                    | ClusterRolloutState::Failed,
                ..
            },
        )) => Some(revision),
        Some((
            _,
            ClusterRolloutStatus {
                state: ClusterRolloutState::RolledBack | ClusterRolloutState::Skipped,
                rollback_revision,
                ..
            },
        )) => rollback_revision.or(current),
        _ => current.or(latest),
    }
}
