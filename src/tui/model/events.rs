//! The engine's Events, for the events screen: what the screen shows of
//! them. Their store is the console's own (the engine does not watch
//! Events), fed by the runtime (`tui/runtime/feeds.rs`).
//!
//! The watch asks the API server only for the Events the engine reported;
//! the rows check the controller again, so a server that ignored the
//! selector would not show other controllers' Events.

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;

use crate::api::names::REPORTER;
use crate::tui::model::filter::matches;
use crate::tui::model::key::{Obj, ObjKey};

/// When the Event was last seen: its series' last observation, else its
/// last timestamp, its event time, its creation.
pub fn last_seen(ev: &Event) -> Option<Timestamp> {
    ev.series
        .as_ref()
        .map(|s| s.last_observed_time.0)
        .or_else(|| ev.deprecated_last_timestamp.as_ref().map(|t| t.0))
        .or_else(|| ev.event_time.as_ref().map(|t| t.0))
        .or_else(|| ev.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// How many times it happened.
pub fn count(ev: &Event) -> i32 {
    ev.series
        .as_ref()
        .map(|s| s.count)
        .or(ev.deprecated_count)
        .unwrap_or(1)
        .max(1)
}

/// A Warning, except a chart still being fetched: an engine before
/// `ChartFetching` reported that as `ChartNotReady`, a Warning, though it
/// only waits (at start-up, say).
pub fn is_warning(ev: &Event) -> bool {
    ev.type_.as_deref() == Some("Warning") && !still_fetching(ev)
}

/// A chart that is still being fetched: waiting, not failed.
pub fn still_fetching(ev: &Event) -> bool {
    matches!(
        ev.reason.as_deref(),
        Some("ChartNotReady" | "ChartFetching")
    ) && crate::flux::words::is_fetching(&message(ev))
}

/// The type the events screen shows: `Normal` for a chart still being
/// fetched (see [`is_warning`]).
pub fn type_label(ev: &Event) -> String {
    if still_fetching(ev) {
        return "Normal".into();
    }
    ev.type_.clone().unwrap_or_else(|| "-".into())
}

/// `Kind/name` of the object the Event is about.
pub fn object(ev: &Event) -> String {
    match &ev.regarding {
        Some(r) => format!(
            "{}/{}",
            r.kind.as_deref().unwrap_or("?"),
            r.name.as_deref().unwrap_or("?")
        ),
        None => "-".into(),
    }
}

/// The Event's note on one line.
pub fn message(ev: &Event) -> String {
    ev.note
        .as_deref()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether the Event is about `key`.
pub fn regards(ev: &Event, key: &ObjKey) -> bool {
    ev.regarding.as_ref().is_some_and(|r| {
        r.kind.as_deref() == Some(key.kind.label())
            && r.name.as_deref() == Some(key.name.as_str())
            && r.namespace.as_deref().unwrap_or_default() == key.namespace
    })
}

/// Newest first; ties by name, so the order is stable.
pub fn sort(events: &mut [crate::tui::model::key::Obj<Event>]) {
    events.sort_by(|a, b| {
        last_seen(b)
            .cmp(&last_seen(a))
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
}

/// The rows of the events screen: the engine's Events, about `regarding`
/// when set, matching the filter (every column but the last seen).
pub fn rows<'a>(
    events: &'a [Obj<Event>],
    regarding: Option<&ObjKey>,
    filter: &str,
) -> Vec<&'a Obj<Event>> {
    events
        .iter()
        .filter(|e| e.reporting_controller.as_deref() == Some(REPORTER))
        .filter(|e| regarding.is_none_or(|k| regards(e, k)))
        .filter(|e| {
            filter.is_empty()
                || matches(
                    filter,
                    &[
                        e.metadata.namespace.as_deref().unwrap_or_default(),
                        e.type_.as_deref().unwrap_or_default(),
                        e.reason.as_deref().unwrap_or_default(),
                        &object(e),
                        &message(e),
                    ],
                )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(type_: &str, reason: &str, note: &str) -> Event {
        Event {
            type_: Some(type_.into()),
            reason: Some(reason.into()),
            note: Some(note.into()),
            ..Default::default()
        }
    }

    #[test]
    fn a_chart_still_being_fetched_is_no_warning() {
        let fetching = "fetching chart ingress-nginx 4.11.3 from https://charts.example";
        for ev in [
            // As an engine before ChartFetching reported it.
            event("Warning", "ChartNotReady", fetching),
            event("Normal", "ChartFetching", fetching),
        ] {
            assert!(!is_warning(&ev), "{ev:?}");
            assert_eq!(type_label(&ev), "Normal");
        }
        let failed = event("Warning", "ChartNotReady", "chart not found in repository");
        assert!(is_warning(&failed));
        assert_eq!(type_label(&failed), "Warning");
        assert!(is_warning(&event("Warning", "InvalidSpec", fetching)));
    }
}
