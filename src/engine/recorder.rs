//! The engine's Events, written off the reconcile's path.
//!
//! A reconcile hands its Event to a queue and goes on; [`WRITERS`] tasks
//! write them, each object's always by the same task, in the order they
//! were told (client-go's event broadcaster has one). An
//! Event told again within [`SERIES_WINDOW`] (same object version, type,
//! reason and action) counts up the series of the first instead of making
//! another.
//!
//! Why not kube's `Recorder`: it writes in the reconcile (one more request
//! to wait for per cluster, at 1,000 clusters a fifth of a new revision's
//! time), keeps every Event it wrote whole for six minutes (megabytes at
//! 10,000 clusters) and sweeps all of them on each Event it writes. Here a
//! series is remembered by its Event's name and count, at most
//! [`REMEMBERED`] of them.
//!
//! Events are a courtesy and the status is the truth: when the API server
//! is so far behind that [`QUEUED`] Events wait, a new one is dropped, and
//! counted as dropped.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::api::events::v1::{Event, EventSeries};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;
use tokio::sync::mpsc;

/// What the recorder counts, for the engine's metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tally {
    /// A request sent to write an Event.
    Written,
    /// An Event dropped because its writer's queue was full.
    Dropped,
}

/// Where the recorder counts.
pub type Count = Arc<dyn Fn(Tally) + Send + Sync>;

/// How long a repeat of an Event counts up its series (kube's and
/// client-go's window).
pub const SERIES_WINDOW: Duration = Duration::from_secs(6 * 60);
/// How many series are remembered; the oldest are forgotten first.
pub const REMEMBERED: usize = 4096;
/// How many Events may wait to be written, all writers together.
pub const QUEUED: usize = 4096;
/// How many Events are written at once. At 10,000 clusters getting a new
/// revision, one writer (an Event per 20 ms or so) fell behind and a third
/// of the Events were dropped.
pub const WRITERS: usize = 4;

/// What the engine tells of one object.
#[derive(Clone, Debug, PartialEq)]
pub struct Told {
    pub warning: bool,
    pub reason: String,
    pub action: String,
    pub note: String,
    pub regarding: ObjectReference,
}

impl Told {
    /// Which writer writes the Events of this object.
    fn writer(&self) -> usize {
        let r = &self.regarding;
        let mut h = DefaultHasher::new();
        (&r.kind, &r.namespace, &r.name).hash(&mut h);
        (h.finish() % WRITERS as u64) as usize
    }

    /// What makes a repeat the same Event.
    fn series_key(&self) -> u64 {
        let r = &self.regarding;
        let mut h = DefaultHasher::new();
        (
            self.warning,
            &self.reason,
            &self.action,
            (&r.api_version, &r.kind, &r.namespace, &r.name),
            (&r.uid, &r.resource_version, &r.field_path),
        )
            .hash(&mut h);
        h.finish()
    }
}

/// Hands Events to the writer task.
#[derive(Clone)]
pub struct Recorder {
    queues: Vec<mpsc::Sender<Told>>,
    count: Count,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("writers", &self.queues.len())
            .finish()
    }
}

/// Who writes the Events, as the API server records it.
#[derive(Clone, Debug)]
pub struct Reporter {
    pub controller: String,
    pub instance: String,
}

impl Recorder {
    /// A recorder and its writers, which run until every recorder is
    /// dropped and then write what is still queued.
    pub fn new(client: Client, reporter: Reporter, count: Count) -> Self {
        let queues = (0..WRITERS)
            .map(|_| {
                let (queue, rx) = mpsc::channel(QUEUED / WRITERS);
                let (client, reporter) = (client.clone(), reporter.clone());
                tokio::spawn(write_all(client, reporter, rx, count.clone()));
                queue
            })
            .collect();
        Self { queues, count }
    }

    /// Queues `told`; drops it when its writer's queue is full.
    pub fn tell(&self, told: Told) {
        if let Err(e) = self.queues[told.writer()].try_send(told) {
            (self.count)(Tally::Dropped);
            tracing::debug!(error = %e, "event queue full: event dropped");
        }
    }
}

/// The series written lately: per key, the Event's namespace, name and
/// count, and when it started; the oldest go first.
#[derive(Debug, Default)]
struct Recent {
    series: HashMap<u64, Series>,
    order: VecDeque<(u64, Instant)>,
}

#[derive(Clone, Debug)]
struct Series {
    namespace: String,
    name: String,
    count: i32,
    started: Instant,
}

impl Recent {
    /// The series `key` continues, if it is recent.
    fn get(&mut self, key: u64, now: Instant) -> Option<&mut Series> {
        self.forget_older_than(now);
        self.series.get_mut(&key)
    }

    fn insert(&mut self, key: u64, series: Series) {
        self.order.push_back((key, series.started));
        self.series.insert(key, series);
        while self.series.len() > REMEMBERED / WRITERS {
            self.pop_oldest();
        }
    }

    fn forget_older_than(&mut self, now: Instant) {
        while self
            .order
            .front()
            .is_some_and(|(_, t)| now.duration_since(*t) >= SERIES_WINDOW)
        {
            self.pop_oldest();
        }
    }

    fn pop_oldest(&mut self) {
        if let Some((key, started)) = self.order.pop_front() {
            // A key started again since is left to its newer entry.
            if self.series.get(&key).is_some_and(|s| s.started == started) {
                self.series.remove(&key);
            }
        }
    }
}

/// The writer: one Event at a time, in order.
async fn write_all(client: Client, reporter: Reporter, mut rx: mpsc::Receiver<Told>, count: Count) {
    let mut recent = Recent::default();
    while let Some(told) = rx.recv().await {
        if let Err(error) = write_one(&client, &reporter, &mut recent, &told, &count).await {
            tracing::warn!(%error, object = ?told.regarding.name, reason = %told.reason, "could not record event");
        }
    }
}

async fn write_one(
    client: &Client,
    reporter: &Reporter,
    recent: &mut Recent,
    told: &Told,
    count: &Count,
) -> Result<(), kube::Error> {
    let key = told.series_key();
    let now = Instant::now();
    if let Some(series) = recent.get(key, now) {
        let api: Api<Event> = Api::namespaced(client.clone(), &series.namespace);
        let patch = json!({"series": EventSeries {
            count: series.count + 1,
            last_observed_time: MicroTime(Timestamp::now()),
        }});
        count(Tally::Written);
        match api
            .patch(&series.name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            // Counted once the API server has it: a failed patch is not
            // a repeat the series shows.
            Ok(_) => {
                series.count += 1;
                return Ok(());
            }
            Err(kube::Error::Api(s)) if s.code == 404 => {} // expired: a new one
            Err(e) => return Err(e),
        }
    }
    let event = new_event(reporter, told);
    let namespace = event.namespace().unwrap_or_else(|| "default".into());
    let api: Api<Event> = Api::namespaced(client.clone(), &namespace);
    count(Tally::Written);
    let created = api.create(&PostParams::default(), &event).await?;
    recent.insert(
        key,
        Series {
            namespace,
            name: created.name_any(),
            count: 1,
            started: now,
        },
    );
    Ok(())
}

/// The Event as first written.
fn new_event(reporter: &Reporter, told: &Told) -> Event {
    let now = Timestamp::now();
    let r = &told.regarding;
    Event {
        metadata: ObjectMeta {
            namespace: r.namespace.clone(),
            name: Some(format!(
                "{}.{:x}",
                r.name.as_deref().unwrap_or(&reporter.controller),
                now.as_nanosecond()
            )),
            ..Default::default()
        },
        action: Some(told.action.clone()),
        reason: Some(told.reason.clone()),
        note: Some(told.note.clone()),
        type_: Some(if told.warning { "Warning" } else { "Normal" }.into()),
        event_time: Some(MicroTime(now)),
        regarding: Some(r.clone()),
        reporting_controller: Some(reporter.controller.clone()),
        reporting_instance: Some(reporter.instance.clone()),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn told(name: &str, reason: &str) -> Told {
        Told {
            warning: false,
            reason: reason.into(),
            action: reason.into(),
            note: "note".into(),
            regarding: ObjectReference {
                kind: Some("ManagedCluster".into()),
                namespace: Some("ns".into()),
                name: Some(name.into()),
                ..Default::default()
            },
        }
    }

    fn series(name: &str, started: Instant) -> Series {
        Series {
            namespace: "ns".into(),
            name: name.into(),
            count: 1,
            started,
        }
    }

    #[test]
    fn a_repeat_is_the_same_series_and_another_object_or_reason_is_not() {
        assert_eq!(told("a", "R").series_key(), told("a", "R").series_key());
        assert_ne!(told("a", "R").series_key(), told("b", "R").series_key());
        assert_ne!(told("a", "R").series_key(), told("a", "S").series_key());
        let mut warning = told("a", "R");
        warning.warning = true;
        assert_ne!(told("a", "R").series_key(), warning.series_key());
    }

    #[test]
    fn an_objects_events_go_to_one_writer_and_objects_spread_over_all() {
        assert_eq!(told("a", "R").writer(), told("a", "S").writer());
        let used: std::collections::BTreeSet<usize> = (0..100)
            .map(|i| told(&format!("c{i:05}"), "R").writer())
            .collect();
        assert_eq!(used.len(), WRITERS);
    }

    #[test]
    fn series_are_forgotten_after_the_window() {
        let mut recent = Recent::default();
        let t0 = Instant::now();
        recent.insert(1, series("e1", t0));
        assert!(recent.get(1, t0 + Duration::from_secs(60)).is_some());
        assert!(recent.get(1, t0 + SERIES_WINDOW).is_none());
        assert!(recent.series.is_empty() && recent.order.is_empty());
    }

    #[test]
    fn at_most_so_many_series_are_remembered_the_oldest_going_first() {
        let mut recent = Recent::default();
        let t0 = Instant::now();
        let each = (REMEMBERED / WRITERS) as u64;
        for k in 0..(each + 10) {
            recent.insert(k, series("e", t0));
        }
        assert_eq!(recent.series.len(), REMEMBERED / WRITERS);
        assert!(recent.get(0, t0).is_none());
        assert!(recent.get(each + 9, t0).is_some());
    }

    #[test]
    fn a_key_started_again_keeps_its_newer_entry() {
        let mut recent = Recent::default();
        let t0 = Instant::now();
        recent.insert(1, series("old", t0));
        let t1 = t0 + Duration::from_secs(1);
        recent.insert(1, series("new", t1));
        // The old entry's place in the order goes; the newer entry stays.
        recent.pop_oldest();
        assert_eq!(
            recent.get(1, t1).map(|s| s.name.clone()),
            Some("new".into())
        );
    }
}
