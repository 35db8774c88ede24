//! Changes made by hand in a child cluster to what a service installed.
//!
//! The release controller finds and reverts them itself (the services'
//! releases ask for it, see `plan::releases::service_release`), at every release
//! interval. It leaves no trace of it in the release's status: while it
//! works, Ready is Unknown with `correcting cluster drift` for a moment,
//! and then it is as before, with no new entry in the release's history
//! (nothing is upgraded: the objects are patched back, or created again).
//! What it did is told only in an Event on the release: `DriftCorrected`,
//! or `DriftCorrectionFailed` (a Warning). The engine keeps those Events in
//! a store (`Stores::drift_events`) and says, in the service's status, what
//! the newest one says, for as long as the API server keeps it.

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;

use crate::api::ServiceState;
use crate::flux::{self, HelmRelease, words};

use super::release_state::Observed;

/// What the newest drift Event about a release says.
#[derive(Clone, Debug, PartialEq)]
pub struct Drift {
    /// True when the changes were reverted, false when that failed.
    pub corrected: bool,
    /// When it happened, as the Event says (its last occurrence).
    pub at: Option<Timestamp>,
    /// In our words, without the time.
    pub words: String,
}

/// The newest drift Event about `release`, in our words. An Event about an
/// earlier release of the same name (another uid) does not count.
pub fn latest<'a>(
    events: impl IntoIterator<Item = &'a Event>,
    release: &HelmRelease,
) -> Option<Drift> {
    let name = release.name_any();
    let namespace = release.namespace();
    let uid = release.metadata.uid.as_deref();
    events
        .into_iter()
        .filter(|e| {
            e.regarding.as_ref().is_some_and(|r| {
                r.name.as_deref() == Some(name.as_str())
                    && r.namespace == namespace
                    && (uid.is_none() || r.uid.is_none() || r.uid.as_deref() == uid)
            })
        })
        .filter_map(|e| {
            let note = e.note.as_deref().unwrap_or_default();
            let (corrected, words) = match e.reason.as_deref()? {
                flux::DRIFT_CORRECTED => (true, words::drift_corrected(note)),
                flux::DRIFT_CORRECTION_FAILED => (false, words::drift_not_corrected(note)),
                _ => return None,
            };
            Some(Drift {
                corrected,
                at: when(e),
                words,
            })
        })
        .max_by_key(|d| d.at)
}

/// When an Event last happened: its series' last time, its last timestamp
/// (an Event recorded through the core API), its time, or its creation.
fn when(e: &Event) -> Option<Timestamp> {
    e.series
        .as_ref()
        .map(|s| s.last_observed_time.0)
        .or(e.deprecated_last_timestamp.as_ref().map(|t| t.0))
        .or(e.event_time.as_ref().map(|t| t.0))
        .or(e.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// The service as its release shows it, with what the newest drift Event
/// adds. An installed service tells the last correction, with its time; a
/// correction that failed and is still being retried makes it Failed, with
/// why. A service that is not installed says what it says already.
pub fn observed_with(observed: Observed, drift: Option<Drift>) -> Observed {
    let Some(drift) = drift else {
        return observed;
    };
    if observed.state != ServiceState::Installed {
        return observed;
    }
    let reverting = observed.message.as_deref() == Some(words::REVERTING);
    match (drift.corrected, reverting) {
        // Ready again after the failure: the change went away since.
        (false, false) => observed,
        (false, true) => Observed {
            state: ServiceState::Failed,
            message: Some(drift.words),
            ..observed
        },
        // A new correction under way says so.
        (true, true) => observed,
        (true, false) => Observed {
            message: Some(with_time(&drift)),
            ..observed
        },
    }
}

/// `changes ... were reverted at 10:32:05 UTC (Deployment ...)`: the time
/// tells one correction from the next.
fn with_time(drift: &Drift) -> String {
    let Some(at) = drift.at else {
        return drift.words.clone();
    };
    let time = at.strftime("at %H:%M:%S UTC").to_string();
    match drift.words.split_once(" (") {
        Some((head, objects)) => format!("{head} {time} ({objects}"),
        None => format!("{} {time}", drift.words),
    }
}

/// Whether a service's message tells of a correction (for the Event that
/// says so once).
pub fn tells_correction(message: &str) -> bool {
    message.starts_with(words::REVERTED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ObjectReference;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use serde_json::json;

    fn release() -> HelmRelease {
        let mut r = HelmRelease::new("dev-1.ingress-nginx", Default::default());
        r.metadata.namespace = Some("team".into());
        r.metadata.uid = Some("u1".into());
        r
    }

    fn event(reason: &str, note: &str, at: &str, uid: &str) -> Event {
        Event {
            reason: Some(reason.into()),
            note: Some(note.into()),
            regarding: Some(ObjectReference {
                kind: Some("HelmRelease".into()),
                name: Some("dev-1.ingress-nginx".into()),
                namespace: Some("team".into()),
                uid: Some(uid.into()),
                ..Default::default()
            }),
            deprecated_last_timestamp: Some(Time(at.parse().unwrap())),
            ..Default::default()
        }
    }

    const CORRECTED: &str = "Cluster state of release ingress/ingress-nginx.v1 has been corrected:\n\
                             Deployment/ingress/ingress-nginx-controller configured";
    const FAILED: &str = "Failed to correct cluster state of release ingress/ingress-nginx.v1:\n\
                          Deployment/ingress/ingress-nginx-controller patch failure: denied";

    fn installed(message: Option<&str>) -> Observed {
        Observed {
            state: ServiceState::Installed,
            version: Some("4.11.3".into()),
            revision: Some(1),
            message: message.map(String::from),
        }
    }

    #[test]
    fn the_newest_event_of_this_release_counts() {
        let events = [
            event(
                flux::DRIFT_CORRECTED,
                CORRECTED,
                "2026-12-03T10:00:00Z",
                "u1",
            ),
            event(
                flux::DRIFT_CORRECTION_FAILED,
                FAILED,
                "2026-12-03T10:05:00Z",
                "u1",
            ),
            // An earlier release of the same name: not this one's.
            event(
                flux::DRIFT_CORRECTED,
                CORRECTED,
                "2026-12-03T11:00:00Z",
                "u0",
            ),
            event("InstallSucceeded", "", "2026-12-03T12:00:00Z", "u1"),
        ];
        let d = latest(&events, &release()).unwrap();
        assert!(!d.corrected);
        assert_eq!(
            d.words,
            "changes made by hand in the cluster could not be reverted: \
             Deployment ingress/ingress-nginx-controller: denied"
        );
        assert!(latest(&events[..1], &release()).unwrap().corrected);
        assert_eq!(latest(&events[2..], &release()), None);
    }

    #[test]
    fn an_installed_service_tells_the_last_correction_with_its_time() {
        let d = latest(
            &[event(
                flux::DRIFT_CORRECTED,
                CORRECTED,
                "2026-12-03T10:32:05Z",
                "u1",
            )],
            &release(),
        );
        let o = observed_with(installed(None), d.clone());
        assert_eq!(o.state, ServiceState::Installed);
        let message = o.message.unwrap();
        assert_eq!(
            message,
            "changes made by hand in the cluster were reverted at 10:32:05 UTC \
             (Deployment ingress/ingress-nginx-controller)"
        );
        assert!(tells_correction(&message));
        // While a new correction is under way, that is what it says.
        let reverting = installed(Some(words::REVERTING));
        assert_eq!(observed_with(reverting.clone(), d.clone()), reverting);
        // A service that is not installed keeps its own message.
        let failing = Observed {
            state: ServiceState::Failed,
            message: Some("upgrade failed".into()),
            ..installed(None)
        };
        assert_eq!(observed_with(failing.clone(), d), failing);
        assert_eq!(observed_with(installed(None), None), installed(None));
    }

    #[test]
    fn a_correction_that_fails_and_is_retried_fails_the_service() {
        let d = latest(
            &[event(
                flux::DRIFT_CORRECTION_FAILED,
                FAILED,
                "2026-12-03T10:32:05Z",
                "u1",
            )],
            &release(),
        );
        let o = observed_with(installed(Some(words::REVERTING)), d.clone());
        assert_eq!(o.state, ServiceState::Failed);
        assert!(
            o.message
                .as_deref()
                .unwrap()
                .starts_with("changes made by hand in the cluster could not be reverted"),
            "{o:?}"
        );
        // Ready again since: the change went away, nothing to say.
        assert_eq!(observed_with(installed(None), d), installed(None));
    }

    #[test]
    fn events_through_the_core_api_read_the_same() {
        // As the API server serves an Event recorded through core/v1.
        let e: Event = serde_json::from_value(json!({
            "metadata": {"name": "x.1", "namespace": "team", "creationTimestamp": "2026-12-03T09:00:00Z"},
            "reason": "DriftCorrected",
            "note": CORRECTED,
            "regarding": {"kind": "HelmRelease", "name": "dev-1.ingress-nginx", "namespace": "team", "uid": "u1"},
            "deprecatedLastTimestamp": "2026-12-03T10:00:00Z",
            "deprecatedCount": 2,
            "type": "Normal"
        }))
        .unwrap();
        let d = latest([&e], &release()).unwrap();
        assert_eq!(d.at, Some("2026-12-03T10:00:00Z".parse().unwrap()));
        assert!(d.corrected);
    }
}
