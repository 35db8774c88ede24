use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use kube::Client;
use kube::{Resource, ResourceExt};
use serde::Serialize;

use super::counters::Counters;
use super::error::Result;
use super::recorder::{Recorder, Reporter, Tally, Told};

use crate::plan::releases::ReleaseOptions;
use crate::plan::safe_text::cut_to_bytes;
use crate::store::Stores;

/// The one field manager for everything the engine writes.
pub const FIELD_MANAGER: &str = "hmc-tui";
pub use crate::api::names::REPORTER;

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
    /// The Secret whose `config.yaml` lists the webhooks the engine
    /// notifies (`--notifications-secret`); empty: no notifications.
    pub notifications_secret: String,
    /// Where that Secret is: the engine's own namespace
    /// (`--notifications-namespace`, the system namespace by default).
    pub notifications_namespace: String,
}

impl EngineOptions {
    /// What of these settings the sources and releases the engine writes
    /// carry.
    pub fn releases(&self) -> ReleaseOptions<'_> {
        ReleaseOptions {
            source_interval: &self.source_interval,
            release_interval: &self.release_interval,
            shards: &self.shards,
        }
    }
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
            source_interval: ReleaseOptions::DEFAULT.source_interval.into(),
            source_timeout: SOURCE_TIMEOUT.into(),
            source_share: 1,
            release_interval: ReleaseOptions::DEFAULT.release_interval.into(),
            // The flags' defaults; the binary passes what the command line
            // (or its environment variables) says, to the headless engine
            // and the console's alike.
            system_namespace: SYSTEM_NAMESPACE.into(),
            default_repository: DEFAULT_REPOSITORY.into(),
            shards: Vec::new(),
            max_rollout_status_bytes: crate::plan::rollout::MAX_STATUS_BYTES,
            notifications_secret: super::notifications::DEFAULT_SECRET.into(),
            notifications_namespace: SYSTEM_NAMESPACE.into(),
        }
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
    /// Chart repositories someone asked to try again now (see
    /// [`super::held_sources`]).
    pub source_retries: super::held_sources::Retries,
    /// Chart downloads under way per namespace (see [`super::downloads`]).
    pub download_turns: super::downloads::Turns,
    /// Where rollouts and services tell people what needs them (see
    /// [`super::notifications`]). Only the lease holder's controllers tell
    /// it anything, so only the leader sends.
    pub notifier: super::notifications::Notifier,
}

impl Context {
    /// A context over the same client, stores and counters, with none of
    /// the state an engine builds up while it leads: what a leader that
    /// lost its lease starts again from (see `leader::run_standing_down`).
    pub fn rebuilt(&self) -> Context {
        Context::new(
            self.client.clone(),
            self.stores.clone(),
            self.counters.clone(),
            self.options.clone(),
        )
    }

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
        // Outside a runtime (a unit test's context) there is nobody to send.
        let notifier = if options.notifications_secret.is_empty()
            || tokio::runtime::Handle::try_current().is_err()
        {
            super::notifications::Notifier::disabled()
        } else {
            let counts = &counters.notifications;
            super::notifications::Notifier::start(
                client.clone(),
                options.notifications_namespace.clone(),
                options.notifications_secret.clone(),
                counts.dropped.clone(),
                counts.sent.clone(),
                counts.failed.clone(),
            )
        };
        let live: LiveUids = {
            let stores = stores.clone();
            Arc::new(move || live_uids(&stores))
        };
        Self {
            client,
            stores,
            recorder,
            counters,
            options,
            written: WrittenStatuses::pruned_by(live.clone()),
            echoes: Default::default(),
            claims: Default::default(),
            backoff: Default::default(),
            failed_downloads: Default::default(),
            source_retries: Default::default(),
            download_turns: Default::default(),
            told_corrections: ToldCorrections::pruned_by(live),
            notifier,
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
        let action = cut_to_bytes(&note, 128).to_string();
        let note = cut_to_bytes(&note, 1024).to_string();
        self.recorder.tell(Told {
            warning,
            reason: reason.into(),
            action,
            note,
            regarding: obj.object_ref(&()),
        });
    }
}

/// The uids of every object whose memory the engine keeps (clusters,
/// templates, rollouts), or `None` while a store has not listed everything
/// yet (then nothing is forgotten).
pub type LiveUids = Arc<dyn Fn() -> Option<HashSet<String>> + Send + Sync>;

/// The uids of the objects the stores hold, of the kinds whose statuses and
/// Events the engine remembers.
pub fn live_uids(stores: &Stores) -> Option<HashSet<String>> {
    if !stores.is_ready() {
        return None;
    }
    fn uids<K: Resource<DynamicType = ()> + Clone + 'static>(
        store: &kube::runtime::reflector::Store<K>,
    ) -> impl Iterator<Item = String> + use<K> {
        store
            .state()
            .into_iter()
            .filter_map(|o| o.meta().uid.clone())
    }
    Some(
        uids(&stores.managed_clusters)
            .chain(uids(&stores.cluster_templates))
            .chain(uids(&stores.service_templates))
            .chain(uids(&stores.rollouts))
            .collect(),
    )
}

/// The fewest entries a [`ByUid`] prunes at: smaller maps cost nothing.
const PRUNE_FLOOR: usize = 1024;

/// Entries by object uid that forget the objects that are gone. Once the
/// map has twice as many entries as were left after its last pruning (and
/// [`PRUNE_FLOOR`] at least), the entries of uids no store holds any more
/// are dropped. A pruning is one pass over the stores, and it comes after
/// at least as many insertions as there were entries left, so each
/// insertion pays a constant share of it: at 10,000 clusters, one pass
/// over their uids per 10,000 new entries, and never more than twice the
/// live objects remembered.
struct ByUid<V> {
    entries: std::sync::Mutex<HashMap<String, V>>,
    /// The size at which the next pruning is due.
    prune_at: std::sync::atomic::AtomicUsize,
    live: LiveUids,
    floor: usize,
}

impl<V> ByUid<V> {
    fn new(live: LiveUids, floor: usize) -> Self {
        Self {
            entries: Default::default(),
            prune_at: std::sync::atomic::AtomicUsize::new(floor),
            live,
            floor,
        }
    }

    /// Runs `f` on the entries, then prunes them if that is due.
    fn with<R>(&self, f: impl FnOnce(&mut HashMap<String, V>) -> R) -> R {
        let (out, len) = {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            (f(&mut entries), entries.len())
        };
        let due = self.prune_at.load(Ordering::Relaxed);
        // One caller takes a due pass: it moves the mark first, and the
        // reconciles that find the map as long meanwhile skip it.
        if len >= due
            && self
                .prune_at
                .compare_exchange(
                    due,
                    (len * 2).max(self.floor),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                )
                .is_ok()
        {
            self.prune();
        }
        out
    }

    /// Drops the entries of objects that are gone. The stores are read
    /// without the lock held: reconciles go on meanwhile. The caller has
    /// moved the mark: not due again before the map doubles, whatever this
    /// pass finds.
    fn prune(&self) {
        let Some(live) = (self.live)() else {
            return;
        };
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|uid, _| live.contains(uid));
        self.prune_at
            .store((entries.len() * 2).max(self.floor), Ordering::Relaxed);
    }

    fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }
}

/// Nothing is live before the stores are known: nothing is forgotten.
fn unknown() -> LiveUids {
    Arc::new(|| None)
}

/// Forgets nothing: for memories made without stores.
impl<V> Default for ByUid<V> {
    fn default() -> Self {
        Self::new(unknown(), PRUNE_FLOOR)
    }
}

impl<V> std::fmt::Debug for ByUid<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ByUid({} objects)", self.len())
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
/// someone else changed since is always compared as it is. Objects that
/// are gone are forgotten (see [`ByUid`]).
#[derive(Debug, Default)]
pub struct WrittenStatuses(ByUid<(String, u64)>);

impl WrittenStatuses {
    /// Remembers statuses, and forgets those of objects not in `live`.
    pub fn pruned_by(live: LiveUids) -> Self {
        Self(ByUid::new(live, PRUNE_FLOOR))
    }

    fn key<K: Resource>(obj: &K) -> Option<(String, String)> {
        Some((obj.meta().uid.clone()?, obj.resource_version()?))
    }

    pub(super) fn is_known<K: Resource>(&self, obj: &K, hash: u64) -> bool {
        let Some((uid, version)) = Self::key(obj) else {
            return false;
        };
        let entries = self.0.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.get(&uid) == Some(&(version, hash))
    }

    pub(super) fn remember<K: Resource>(&self, obj: &K, hash: u64) {
        if let Some((uid, version)) = Self::key(obj) {
            self.0.with(|entries| entries.insert(uid, (version, hash)));
        }
    }

    /// Forgets an object that is gone.
    pub fn forget<K: Resource>(&self, obj: &K) {
        if let Some(uid) = &obj.meta().uid {
            self.0.with(|entries| entries.remove(uid));
        }
    }

    /// How many objects are remembered.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The corrections of changes made by hand (see `drift`) this engine told,
/// per cluster (uid) and service: a reconcile may read a cluster before the
/// store has the status that already tells a correction, and must not tell
/// it again. Clusters that are gone are forgotten (see [`ByUid`]).
#[derive(Debug, Default)]
pub struct ToldCorrections(ByUid<HashMap<String, String>>);

impl ToldCorrections {
    /// Remembers corrections, and forgets those of clusters not in `live`.
    pub fn pruned_by(live: LiveUids) -> Self {
        Self(ByUid::new(live, PRUNE_FLOOR))
    }

    /// True the first time `message` is told for this service of this
    /// cluster; remembers it.
    pub fn first_time(&self, cluster_uid: &str, service: &str, message: &str) -> bool {
        self.0.with(|told| {
            let services = told.entry(cluster_uid.to_string()).or_default();
            if services.get(service).map(String::as_str) == Some(message) {
                return false;
            }
            services.insert(service.to_string(), message.to_string());
            true
        })
    }

    /// Forgets a cluster that is gone.
    pub fn forget(&self, cluster_uid: &str) {
        self.0.with(|told| told.remove(cluster_uid));
    }

    /// How many clusters are remembered.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A hash of a status, as [`WrittenStatuses`] remembers it.
pub(super) fn hash_of<S: Serialize>(status: &S) -> Result<u64> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(status)?.hash(&mut h);
    Ok(h.finish())
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

    /// A set of live uids the test changes as objects come and go.
    fn live_set(uids: &[&str]) -> (LiveUids, Arc<std::sync::Mutex<HashSet<String>>>) {
        let set = Arc::new(std::sync::Mutex::new(
            uids.iter()
                .map(|u| u.to_string())
                .collect::<HashSet<String>>(),
        ));
        let read = set.clone();
        (Arc::new(move || Some(read.lock().unwrap().clone())), set)
    }

    #[test]
    fn statuses_of_objects_that_are_gone_are_forgotten() {
        let (live, set) = live_set(&[]);
        let written = WrittenStatuses(ByUid::new(live, 4));
        // Four objects, all live: the pruning at four keeps them all.
        for i in 0..4 {
            set.lock().unwrap().insert(format!("u{i}"));
            written.remember(&at(&format!("u{i}"), "1"), 1);
        }
        assert_eq!(written.len(), 4);
        assert!(written.is_known(&at("u0", "1"), 1));
        // Three of them go; new ones come until the map has doubled.
        for gone in ["u0", "u1", "u2"] {
            set.lock().unwrap().remove(gone);
        }
        for i in 4..8 {
            set.lock().unwrap().insert(format!("u{i}"));
            written.remember(&at(&format!("u{i}"), "1"), 1);
        }
        assert_eq!(written.len(), 5, "u3 and u4..u7 are left");
        assert!(!written.is_known(&at("u0", "1"), 1));
        assert!(written.is_known(&at("u3", "1"), 1));
        assert!(written.is_known(&at("u7", "1"), 1));
    }

    #[test]
    fn nothing_is_forgotten_while_the_stores_are_incomplete() {
        let written = WrittenStatuses(ByUid::new(unknown(), 2));
        for i in 0..10 {
            written.remember(&at(&format!("u{i}"), "1"), 1);
        }
        assert_eq!(written.len(), 10);
        assert!(written.is_known(&at("u0", "1"), 1));
    }

    #[test]
    fn the_memory_stays_within_twice_the_live_objects() {
        // 100 live clusters whose statuses are written again and again,
        // while 10,000 others come and go.
        let (live, set) = live_set(&[]);
        let written = WrittenStatuses(ByUid::new(live, 16));
        let mut most = 0;
        for round in 0..10_000 {
            let uid = format!("live-{}", round % 100);
            set.lock().unwrap().insert(uid.clone());
            written.remember(&at(&uid, "1"), 1);
            let passing = format!("gone-{round}");
            set.lock().unwrap().insert(passing.clone());
            written.remember(&at(&passing, "1"), 1);
            set.lock().unwrap().remove(&passing);
            most = most.max(written.len());
        }
        assert!(most <= 2 * 101 + 1, "at most {most} remembered");
        assert!(written.is_known(&at("live-7", "1"), 1));
    }

    #[test]
    fn corrections_of_clusters_that_are_gone_are_forgotten() {
        let (live, set) = live_set(&["u1", "u2"]);
        let told = ToldCorrections(ByUid::new(live, 2));
        assert!(told.first_time("u1", "ingress-nginx", "reverted at 10:00:00 UTC"));
        assert!(told.first_time("u2", "ingress-nginx", "reverted at 10:00:00 UTC"));
        // The pruning at two found both live.
        assert_eq!(told.len(), 2);
        set.lock().unwrap().remove("u1");
        set.lock().unwrap().insert("u3".into());
        set.lock().unwrap().insert("u4".into());
        assert!(told.first_time("u3", "a", "x"));
        assert!(told.first_time("u4", "a", "x"));
        assert_eq!(told.len(), 3, "u1 is forgotten at four");
        assert!(!told.first_time("u2", "ingress-nginx", "reverted at 10:00:00 UTC"));
        told.forget("u2");
        assert!(told.first_time("u2", "ingress-nginx", "reverted at 10:00:00 UTC"));
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
        assert_eq!(cut_to_bytes(&note, 128), "x".repeat(126));
        assert_eq!(cut_to_bytes("short", 128), "short");
        let long = "é".repeat(600);
        let cut = cut_to_bytes(&long, 1024);
        assert_eq!(cut.len(), 1024);
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
