//! A rollout's status lists every cluster of its template, and the API
//! server stores an object whole, in one etcd request of at most 1.5 MiB by
//! default. A template with enough clusters, or with long names, makes a
//! status that cannot be written: the rollout would then stay where it is
//! with no word on the object. Here a status is made to fit, or refused
//! with a message that says what to do.

use super::steps::{Note, note};
use crate::api::{ClusterRolloutState, TemplateRolloutStatus};

/// The most a rollout's status may take, as JSON. etcd's default request
/// limit is 1,572,864 bytes (1.5 MiB); the rest of the object (metadata,
/// spec, the fields' owners) and the request around it need the remainder.
pub const MAX_STATUS_BYTES: usize = 1_500_000;

fn size(status: &TemplateRolloutStatus) -> usize {
    serde_json::to_vec(status)
        .map(|v| v.len())
        .unwrap_or(usize::MAX)
}

/// Makes `status` fit in `max` bytes. The one-line reasons of the clusters
/// are left out first, those of healthy clusters before those of failed
/// ones (whose reason says what went wrong); the status says nothing less
/// about where each cluster is. Returns a note when reasons were left out,
/// and a warning, with the status left as it was, when it cannot fit.
pub fn fit_status(status: &mut TemplateRolloutStatus, max: usize) -> Result<Option<Note>, Note> {
    let before = size(status);
    if before <= max {
        return Ok(None);
    }
    let mut fitted = status.clone();
    let passes: [fn(ClusterRolloutState) -> bool; 2] =
        [|s| s != ClusterRolloutState::Failed, |_| true];
    for leave_out in passes {
        for c in fitted.clusters.iter_mut().filter(|c| leave_out(c.state)) {
            c.reason = None;
        }
        let after = size(&fitted);
        if after <= max {
            let clusters = fitted.clusters.len();
            *status = fitted;
            return Ok(Some(note(
                false,
                "ReasonsLeftOut",
                format!(
                    "the status of {clusters} clusters took {before} bytes, more than the {max} a rollout's \
                     status may take; the clusters' reasons are left out ({after} bytes), their \
                     services' states are on each ManagedCluster"
                ),
            )));
        }
    }
    Err(note(
        true,
        "StatusTooLarge",
        format!(
            "the status of {} clusters takes {} bytes even without their reasons, more than the \
             {max} a rollout's status may take, so this rollout cannot move on; spread the \
             template's clusters over several templates, or shorten the clusters' names",
            fitted.clusters.len(),
            size(&fitted)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ClusterRolloutStatus;

    fn status(n: usize, name_len: usize) -> TemplateRolloutStatus {
        TemplateRolloutStatus {
            clusters: (0..n)
                .map(|i| ClusterRolloutStatus {
                    name: format!("{i:0name_len$}"),
                    wave: 1,
                    state: if i % 10 == 0 {
                        ClusterRolloutState::Failed
                    } else {
                        ClusterRolloutState::Updating
                    },
                    reason: Some(format!("ingress-nginx: installing, {i} of {n}")),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_status_within_the_limit_is_left_alone() {
        let mut s = status(100, 6);
        let before = s.clone();
        assert_eq!(fit_status(&mut s, MAX_STATUS_BYTES), Ok(None));
        assert_eq!(s, before);
    }

    #[test]
    fn healthy_clusters_lose_their_reasons_first() {
        let mut s = status(1_000, 6);
        let whole = size(&s);
        let without_healthy: usize = {
            let mut t = s.clone();
            t.clusters
                .iter_mut()
                .filter(|c| c.state != ClusterRolloutState::Failed)
                .for_each(|c| c.reason = None);
            size(&t)
        };
        assert!(without_healthy < whole);
        let note = fit_status(&mut s, without_healthy).unwrap().unwrap();
        assert!(!note.warning);
        assert_eq!(note.reason, "ReasonsLeftOut");
        assert!(note.message.contains("1000 clusters"), "{}", note.message);
        assert!(size(&s) <= without_healthy);
        // Failed clusters keep theirs; every cluster is still listed.
        assert_eq!(s.clusters.len(), 1_000);
        for c in &s.clusters {
            assert_eq!(c.reason.is_some(), c.state == ClusterRolloutState::Failed);
        }
    }

    #[test]
    fn a_status_that_cannot_fit_is_refused_and_left_as_it_was() {
        // 20,000 clusters named at the length limit of 63 characters.
        let mut s = status(20_000, 63);
        let before = s.clone();
        let note = fit_status(&mut s, MAX_STATUS_BYTES).unwrap_err();
        assert!(note.warning);
        assert_eq!(note.reason, "StatusTooLarge");
        assert!(note.message.contains("20000 clusters"), "{}", note.message);
        assert!(
            note.message.contains("several templates"),
            "{}",
            note.message
        );
        assert_eq!(s, before);
    }
}
