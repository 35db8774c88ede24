use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use kube::Client;
use kube::{Resource, ResourceExt};
use serde::Serialize;

use super::error::Result;
use super::recorder::{Recorder, Reporter, Tally, Told};

use crate::store::Stores;

/// The one field manager for everything the engine writes.
pub const FIELD_MANAGER: &str = "hmc-tui";
/// The `reportingController` of the engine's Events.
pub const REPORTER: &str = "hmc-tui";

/// Tunables of the engine.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// How long deleting a cluster waits for its services to be uninstalled
    /// from an unreachable child cluster before it says so (and, when its
    /// kubeconfig secret is being deleted too, lets go of them).
    /// `--deletion-timeout`.
    pub deletion_timeout: Duration,
    /// How often a Flux source re-checks its repository.
    pub source_interval: String,
    /// How long a chart repository is given to answer the source controller
    /// (its index, or each OCI operation), as a Flux duration, unless its
    /// template sets `repository.timeout`. `--source-timeout`: `20s` by
    /// default, long enough for one index fetch and short enough that a
    /// repository that hangs holds a worker of the source controller for
    /// no longer (Flux's own default is `60s`).
    pub source_timeout: String,
    /// How many of a namespace's chart repositories may be fetched for the
    /// first time (or again after a failure) at once (`--source-share`):
    /// the rest wait, suspended, so that one namespace never holds more of
    /// the source controller's workers (2 by default) than this.
    pub source_share: usize,
    /// How often every release the engine writes is looked at again by the
    /// release controller: a service's changes made by hand in its cluster
    /// are reverted within one interval. `--release-interval`.
    pub release_interval: String,
    /// The operator's namespace, where the default chart repository is.
    pub system_namespace: String,
    /// Name of the default chart repository (in `system_namespace`): where
    /// a template that names no repository takes its chart from.
    pub default_repository: String,
    /// The shard keys of the release controller (`--shards`): each
    /// cluster's releases carry one of them (see [`crate::plan::shard`]).
    /// Empty: no shard label, the main release controller takes them all.
    pub shards: Vec<String>,
    /// The most a rollout's status may take, as JSON
    /// (`--max-rollout-status-bytes`): under the API server's storage
    /// limit per object, etcd's `--max-request-bytes` (1.5 MiB by default).
    pub max_rollout_status_bytes: usize,
}

/// A release interval as given to `--release-interval`: a duration the
/// release controller accepts (`30s`, `10m`, `1h30m`), of one second at
/// least. The error says what is wrong, in a person's words.
pub fn release_interval(text: &str) -> std::result::Result<String, String> {
    at_least_a_second(text, "releases are looked at again at most once a second")
        .map(|_| text.to_string())
}

/// A deletion timeout as given to `--deletion-timeout` (`5m`, `30s`): how
/// long deleting a cluster waits for an unreachable child cluster before
/// it says so; one second at least.
pub fn deletion_timeout(text: &str) -> std::result::Result<Duration, String> {
    at_least_a_second(text, "write 1s or more")
}

/// A duration written as Flux writes one, of one second at least; `short`
/// says why a shorter one is refused.
fn at_least_a_second(text: &str, short: &str) -> std::result::Result<Duration, String> {
    match crate::flux::duration(text) {
        None => Err(format!(
            "{text:?} is not a duration: write a number and a unit (ms, s, m or h), \
             as in 30s, 10m or 1h30m"
        )),
        Some(d) if d < Duration::from_secs(1) => Err(format!("{text:?} is too short: {short}")),
        Some(d) => Ok(d),
    }
}
/// Default of [`EngineOptions::source_timeout`] (`--source-timeout`).
pub const SOURCE_TIMEOUT: &str = "20s";
/// The longest timeout a chart repository may be given: a fetch that
/// hangs holds a worker of the source controller for this long.
pub const MAX_SOURCE_TIMEOUT: Duration = Duration::from_secs(300);

/// A repository timeout as given to `--source-timeout` or a template's
/// `repository.timeout`: a duration from one second to five minutes.
pub fn source_timeout(text: &str) -> std::result::Result<String, String> {
    let d = at_least_a_second(text, "a repository is given 1s at least")?;
    if d > MAX_SOURCE_TIMEOUT {
        return Err(format!(
            "{text:?} is too long: a repository that hangs would hold a fetch worker that long; write 5m or less"
        ));
    }
    Ok(text.to_string())
}

/// Default of [`EngineOptions::deletion_timeout`] (`--deletion-timeout`).
pub const DELETION_TIMEOUT: &str = "5m";
/// Default of [`EngineOptions::system_namespace`], as in hmc.
pub const SYSTEM_NAMESPACE: &str = "hmc-system";
/// Default of [`EngineOptions::default_repository`], as in hmc.
pub const DEFAULT_REPOSITORY: &str = "hmc-templates";

impl Default for EngineOptions {
    fn default() -> Self {
        Self {
            deletion_timeout: Duration::from_secs(300),
            source_interval: "10m".into(),
            source_timeout: SOURCE_TIMEOUT.into(),
            source_share: 1,
            release_interval: "10m".into(),
            // The flags' defaults; the binary passes what the command line
            // (or its environment variables) says, to the headless engine
            // and the console's alike.
            system_namespace: SYSTEM_NAMESPACE.into(),
            default_repository: DEFAULT_REPOSITORY.into(),
            shards: Vec::new(),
            max_rollout_status_bytes: crate::plan::rollout::MAX_STATUS_BYTES,
        }
    }
}

/// Counters the tests and `/metrics` read.
#[derive(Debug, Default)]
pub struct Counters {
    /// Every create, apply, patch and delete the engine sends.
    pub writes: AtomicU64,
    /// Every finished reconcile, all controllers together.
    pub reconciles: AtomicU64,
    pub errors: AtomicU64,
    /// Events dropped because the queue to the API server was full (see
    /// [`super::recorder`]).
    pub events_dropped: AtomicU64,
    /// Per controller: reconciles, errors, durations, in flight.
    pub controllers: super::metrics::ControllerMetrics,
    /// Per controller and trigger source: the keys it handed.
    pub triggers: super::metrics::TriggerCounts,
    /// Every request sent to the API server, when the client counts them
    /// (see [`super::requests::counted_client`]).
    pub requests: Arc<super::requests::ApiRequests>,
}

impl Counters {
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
    pub fn reconciles(&self) -> u64 {
        self.reconciles.load(Ordering::Relaxed)
    }
}

/// Shared by every reconciler.
pub struct Context {
    pub client: Client,
    pub stores: Stores,
    pub recorder: Recorder,
    pub counters: Arc<Counters>,
    pub options: EngineOptions,
    /// The statuses this engine wrote, see [`super::apply::status_if_changed`].
    pub written: WrittenStatuses,
    /// The cluster controller's own writes, which trigger no second look
    /// (see [`super::echoes`]).
    pub echoes: super::echoes::Echoes,
    /// The namespaces namespace-scoped engines hold; a cluster-wide engine
    /// leaves them alone (see [`super::claims`]).
    pub claims: super::claims::Claims,
    /// The objects whose reconciles are failing, for the retry delays.
    pub backoff: super::backoff::Backoff,
    /// Chart downloads that failed lately, not tried again before their time.
    pub failed_downloads: super::downloads::FailedDownloads,
    /// Corrections of changes made by hand already told as Events.
    pub told_corrections: ToldCorrections,
    /// What this engine last did to each cluster's kubeconfig secret (see
    /// [`super::holds`]).
    pub holds: super::holds::Holds,
    /// Chart repositories someone asked to try again now (see
    /// [`super::held_sources`]).
    pub source_retries: super::held_sources::Retries,
    /// Chart downloads under way per namespace (see [`super::downloads`]).
    pub download_turns: super::downloads::Turns,
}

impl Context {
    pub fn new(
        client: Client,
        stores: Stores,
        counters: Arc<Counters>,
        options: EngineOptions,
    ) -> Self {
        let reporter = Reporter {
            controller: REPORTER.into(),
            instance: std::env::var("POD_NAME").unwrap_or_else(|_| REPORTER.into()),
        };
        let tally = counters.clone();
        let count = Arc::new(move |t: Tally| {
            let counter = match t {
                Tally::Written => &tally.writes,
                Tally::Dropped => &tally.events_dropped,
            };
            counter.fetch_add(1, Ordering::Relaxed);
        });
        let recorder = Recorder::new(client.clone(), reporter, count);
        Self {
            client,
            stores,
            recorder,
            counters,
            options,
            written: Default::default(),
            echoes: Default::default(),
            claims: Default::default(),
            backoff: Default::default(),
            failed_downloads: Default::default(),
            source_retries: Default::default(),
            download_turns: Default::default(),
            told_corrections: Default::default(),
            holds: Default::default(),
        }
    }

    /// Counts one write request.
    pub fn wrote(&self) {
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
    }

    /// Records a Kubernetes Event on `obj`, without waiting for it to be
    /// written (see [`super::recorder`]). A failure to record is logged,
    /// never fatal: events are a courtesy, status is the truth.
    pub fn event<K>(&self, obj: &K, warning: bool, reason: &str, note: String)
    where
        K: Resource<DynamicType = ()>,
    {
        // The recorder folds events with the same action and reason into
        // one series and keeps the first note, so the action carries the
        // note: distinct acts (approving wave 2, then wave 3) stay distinct
        // events, and only a true repeat counts up.
        // The API server limits both in bytes (128 and 1024), and a note may
        // hold multi-byte characters (`→`) or a long list of clusters.
        let action = truncate_bytes(&note, 128).to_string();
        let note = truncate_bytes(&note, 1024).to_string();
        self.recorder.tell(Told {
            warning,
            reason: reason.into(),
            action,
            note,
            regarding: obj.object_ref(&()),
        });
    }
}

/// The last status the engine wrote for each object (by uid): the
/// resourceVersion of the object the write replaced, and a hash of the
/// status written.
///
/// A reconcile may be handed an object from a store that has not yet seen
/// the engine's own last status write. Comparing with that object would
/// write the same status again; comparing with what was written does not.
/// Only the exact version that write replaced is recognised, so a status
/// someone else changed since is always compared as it is.
#[derive(Debug, Default)]
pub struct WrittenStatuses(std::sync::Mutex<std::collections::HashMap<String, (String, u64)>>);

impl WrittenStatuses {
    fn key<K: Resource>(obj: &K) -> Option<(String, String)> {
        Some((obj.meta().uid.clone()?, obj.resource_version()?))
    }

    pub(super) fn is_known<K: Resource>(&self, obj: &K, hash: u64) -> bool {
        let Some((uid, version)) = Self::key(obj) else {
            return false;
        };
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&uid) == Some(&(version, hash))
    }

    pub(super) fn remember<K: Resource>(&self, obj: &K, hash: u64) {
        if let Some((uid, version)) = Self::key(obj) {
            let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
            map.insert(uid, (version, hash));
        }
    }

    /// Forgets an object that is gone.
    pub fn forget<K: Resource>(&self, obj: &K) {
        if let Some(uid) = &obj.meta().uid {
            let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
            map.remove(uid);
        }
    }
}

/// The corrections of changes made by hand (see `drift`) this engine told, per cluster (uid) and service: a
/// reconcile may read a cluster before the store has the status that
/// already tells a correction, and must not tell it again.
#[derive(Debug, Default)]
pub struct ToldCorrections(std::sync::Mutex<std::collections::HashMap<(String, String), String>>);

impl ToldCorrections {
    /// True the first time `message` is told for this service of this
    /// cluster; remembers it.
    pub fn first_time(&self, cluster_uid: &str, service: &str, message: &str) -> bool {
        let mut told = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let key = (cluster_uid.to_string(), service.to_string());
        if told.get(&key).map(String::as_str) == Some(message) {
            return false;
        }
        told.insert(key, message.to_string());
        true
    }
}

/// A hash of a status, as [`WrittenStatuses`] remembers it.
pub(super) fn hash_of<S: Serialize>(status: &S) -> Result<u64> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(status)?.hash(&mut h);
    Ok(h.finish())
}

/// The longest prefix of `s` of at most `max` bytes that ends on a
/// character boundary.
fn truncate_bytes(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    fn at(uid: &str, version: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.uid = Some(uid.into());
        cm.metadata.resource_version = Some(version.into());
        cm
    }

    #[test]
    fn a_written_status_is_known_only_over_the_version_it_replaced() {
        let written = WrittenStatuses::default();
        let hash = hash_of(&json!({"ready": true})).unwrap();
        written.remember(&at("u1", "7"), hash);
        // The store still hands out version 7: the write is already made.
        assert!(written.is_known(&at("u1", "7"), hash));
        // Another status, another version or another object: compare as usual.
        assert!(!written.is_known(&at("u1", "7"), hash_of(&json!({"ready": false})).unwrap()));
        assert!(!written.is_known(&at("u1", "9"), hash));
        assert!(!written.is_known(&at("u2", "7"), hash));
        // An object without identity is never known.
        assert!(!written.is_known(&ConfigMap::default(), hash));
        written.forget(&at("u1", "7"));
        assert!(!written.is_known(&at("u1", "7"), hash));
    }

    #[test]
    fn release_intervals_are_durations_of_a_second_or_more() {
        assert_eq!(release_interval("30s").as_deref(), Ok("30s"));
        assert_eq!(release_interval("1h30m").as_deref(), Ok("1h30m"));
        let nonsense = release_interval("ten minutes").unwrap_err();
        assert!(nonsense.contains("not a duration"), "{nonsense}");
        assert!(release_interval("10").is_err(), "a unit is needed");
        let short = release_interval("500ms").unwrap_err();
        assert!(short.contains("too short"), "{short}");
        assert!(release_interval("0s").is_err());
        assert_eq!(
            release_interval(&EngineOptions::default().release_interval).as_deref(),
            Ok("10m")
        );
    }

    #[test]
    fn deletion_timeouts_are_durations_of_a_second_or_more() {
        assert_eq!(deletion_timeout("20s"), Ok(Duration::from_secs(20)));
        assert_eq!(deletion_timeout("1h"), Ok(Duration::from_secs(3600)));
        assert!(
            deletion_timeout("5")
                .unwrap_err()
                .contains("not a duration")
        );
        assert!(deletion_timeout("0s").unwrap_err().contains("too short"));
        assert_eq!(
            deletion_timeout(DELETION_TIMEOUT),
            Ok(EngineOptions::default().deletion_timeout)
        );
    }

    #[test]
    fn a_correction_is_told_once() {
        let told = ToldCorrections::default();
        assert!(told.first_time("u1", "ingress-nginx", "reverted at 10:00:00 UTC"));
        assert!(!told.first_time("u1", "ingress-nginx", "reverted at 10:00:00 UTC"));
        assert!(told.first_time("u2", "ingress-nginx", "reverted at 10:00:00 UTC"));
        assert!(told.first_time("u1", "ingress-nginx", "reverted at 10:05:00 UTC"));
    }

    #[test]
    fn event_texts_fit_the_api_servers_byte_limits() {
        let note = format!("{}→ and more", "x".repeat(126));
        // `→` is 3 bytes: bytes 126..129, so 128 bytes would split it.
        assert_eq!(truncate_bytes(&note, 128), "x".repeat(126));
        assert_eq!(truncate_bytes("short", 128), "short");
        let long = "é".repeat(600);
        let cut = truncate_bytes(&long, 1024);
        assert_eq!(cut.len(), 1024);
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
