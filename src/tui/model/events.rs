//! The engine's Events, for the events screen: what the screen shows of
//! them. Their store is the console's own (the engine does not watch
//! Events), fed by the runtime (`tui/runtime/feeds.rs`).
//!
//! The watch asks the API server only for the Events the engine reported;
//! the rows check the controller again, so a server that ignored the
//! selector would not show other controllers' Events.

use std::sync::Arc;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;

use crate::engine::context::REPORTER;
use crate::tui::model::filter::matches;
use crate::tui::model::key::ObjKey;

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

pub fn is_warning(ev: &Event) -> bool {
    ev.type_.as_deref() == Some("Warning")
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
pub fn sort(events: &mut [Arc<Event>]) {
    events.sort_by(|a, b| {
        last_seen(b)
            .cmp(&last_seen(a))
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
}

/// The rows of the events screen: the engine's Events, about `regarding`
/// when set, matching the filter (every column but the last seen).
pub fn rows<'a>(
    events: &'a [Arc<Event>],
    regarding: Option<&ObjKey>,
    filter: &str,
) -> Vec<&'a Arc<Event>> {
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
