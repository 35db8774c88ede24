//! The engine's Events, for the events screen: a store of the console's own
//! (the engine does not watch Events), and what the screen shows of them.
//!
//! The watch asks the API server only for the Events the engine reported
//! (`reportingController=hmc-tui`, a field selector `events.k8s.io/v1`
//! supports: it maps to the core Event's `reportingComponent`); the rows
//! check the controller again, so a server that ignored the selector would
//! not show other controllers' Events.

use std::sync::Arc;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::reflector::Store;
use kube::runtime::watcher;
use tokio::sync::watch;

use crate::engine::context::REPORTER;
use crate::store::{Scope, WatchState, Watches, reflected};
use crate::tui::model::filter::matches;
use crate::tui::model::key::ObjKey;

/// The console's store of the engine's Events.
pub struct EventStore {
    pub store: Store<Event>,
    /// Bumped on every change.
    pub changes: watch::Receiver<u64>,
    /// Whether its watch fails (not allowed to list Events, say).
    pub health: WatchState,
}

/// Only the Events the engine reported.
pub fn selector() -> watcher::Config {
    watcher::Config::default().fields(&format!("reportingController={REPORTER}"))
}

/// Sets up the watch of the engine's Events in `scope`; nothing is read
/// until the returned watches are driven.
pub fn watch(client: &kube::Client, scope: &Scope) -> (EventStore, Watches) {
    let mut watches = Watches::new();
    let (store, changes, _listed, health) =
        reflected(scope.api::<Event>(client), selector(), &mut watches);
    (
        EventStore {
            store,
            changes,
            health,
        },
        watches,
    )
}

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
/// when set, matching the filter (type, reason, object or message).
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

    #[test]
    fn the_selector_asks_for_the_engine_s_events() {
        assert_eq!(
            selector().field_selector.as_deref(),
            Some("reportingController=hmc-tui")
        );
    }
}
