//! Which of a rollout's steps people are told of by webhook (see
//! `engine::notifications`), and what they are told.

use kube::ResourceExt;

use crate::api::{RolloutSubject, TemplateRollout};
use crate::engine::notifications::{EventKind, Notification};
use crate::plan::rollout::{Note, Request};

/// The notification a step's note makes, if people are told of it.
pub(super) fn kind_of_note(note: &Note) -> Option<EventKind> {
    Some(match note.reason {
        "WaitingForApproval" => EventKind::WaveWaitingForApproval,
        "WaveFinished" => EventKind::WaveCompleted,
        "RolloutSucceeded" => EventKind::RolloutCompleted,
        "RolloutStopped" => EventKind::RolloutStopped,
        // The policy's pause and its end; an operator's are requests.
        "RolloutPaused" => EventKind::RolloutPaused,
        "RolloutResumed" => EventKind::RolloutResumed,
        _ => return None,
    })
}

/// The notification an operator's request makes once carried out, and
/// what it says (who asked goes with it).
pub(super) fn kind_of_request(request: &Request) -> Option<(EventKind, &'static str)> {
    Some(match request {
        Request::Pause => (EventKind::RolloutPaused, "paused: no new wave starts"),
        Request::Resume => (EventKind::RolloutResumed, "resumed"),
        Request::Abort => (
            EventKind::RolloutAborted,
            "aborted: the updated clusters keep the revision, the others theirs",
        ),
        Request::Rollback => (
            EventKind::RolloutRolledBack,
            "rolled back: the clusters it touched go back to their last good revision",
        ),
        _ => return None,
    })
}

/// A notification about `rollout`.
pub(super) fn about(
    rollout: &TemplateRollout,
    kind: EventKind,
    message: String,
    wave: Option<u32>,
    by: Option<&str>,
) -> Notification {
    let mut n = Notification::new(kind, rollout.namespace().unwrap_or_default(), message);
    match rollout.spec.subject() {
        RolloutSubject::Template(t) => n.template = Some(t.to_string()),
        RolloutSubject::MultiClusterService(m) => n.multi_cluster_service = Some(m.to_string()),
    }
    n.rollout = Some(rollout.name_any());
    n.revision = Some(rollout.spec.revision);
    n.wave = wave;
    n.by = by.map(Into::into);
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::TemplateRolloutSpec;

    fn note(reason: &'static str) -> Note {
        Note {
            warning: false,
            reason,
            message: String::new(),
            wave: None,
        }
    }

    #[test]
    fn the_steps_people_are_told_of() {
        assert_eq!(
            kind_of_note(&note("WaitingForApproval")),
            Some(EventKind::WaveWaitingForApproval)
        );
        assert_eq!(
            kind_of_note(&note("WaveFinished")),
            Some(EventKind::WaveCompleted)
        );
        assert_eq!(
            kind_of_note(&note("RolloutSucceeded")),
            Some(EventKind::RolloutCompleted)
        );
        assert_eq!(
            kind_of_note(&note("RolloutStopped")),
            Some(EventKind::RolloutStopped)
        );
        // Every step is an Event; only these are worth a message.
        for quiet in [
            "WaveStarted",
            "ClusterUpdated",
            "ClusterFailed",
            "RequestRefused",
        ] {
            assert_eq!(kind_of_note(&note(quiet)), None, "{quiet}");
        }
        assert_eq!(
            kind_of_request(&Request::Rollback).map(|k| k.0),
            Some(EventKind::RolloutRolledBack)
        );
        assert_eq!(kind_of_request(&Request::Approve(None)), None);
    }

    #[test]
    fn a_notification_names_the_rollouts_subject() {
        let mut r = TemplateRollout::new(
            "mcs-edge-2",
            TemplateRolloutSpec {
                multi_cluster_service: Some("edge".into()),
                revision: 2,
                ..Default::default()
            },
        );
        r.metadata.namespace = Some("team-a".into());
        let n = about(
            &r,
            EventKind::WaveCompleted,
            "wave 1 finished".into(),
            Some(1),
            None,
        );
        assert_eq!(n.namespace, "team-a");
        assert_eq!(n.multi_cluster_service.as_deref(), Some("edge"));
        assert_eq!(n.template, None);
        assert_eq!(n.rollout.as_deref(), Some("mcs-edge-2"));
        assert_eq!((n.revision, n.wave), (Some(2), Some(1)));
    }
}
