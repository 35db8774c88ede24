//! The one cache: a reflector store per kind, fed by one watch per kind and
//! read by the engine's reconcilers and the console alike.
//!
//! Each store also publishes a change counter, so the console redraws when
//! something changed without polling the API. (The engine's controllers run
//! their own trigger watches: kube-runtime's shared-stream subscriptions
//! drop triggers when an object is not yet, or no longer, in the store.)

use std::fmt::Debug;
use std::hash::Hash;

use futures::{FutureExt, StreamExt, TryStreamExt, future::BoxFuture};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::events::v1::Event;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio::sync::watch;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, TemplateRollout, labels};
use crate::capi;
use crate::flux::{HelmChart, HelmRelease, HelmRepository};

pub mod announce;
pub mod first_page;
pub mod index;
mod watching;

pub use watching::Kinds;

pub use first_page::FirstPage;
use first_page::Shared;

macro_rules! kinds {
    ($($field:ident: $ty:ty),* $(,)?) => {
        /// Every store the engine and the console read. Cloning is free.
        #[derive(Clone)]
        pub struct Stores {
            $(pub $field: Store<$ty>,)*
            /// One counter per kind, bumped on every change the watch sees.
            pub changes: Changes,
            /// One flag per kind: true once its store has its first full list.
            pub listed: Listed,
            /// Per kind: the first page of its list, read ahead of the full
            /// list by whoever wants to show something sooner.
            pub first_pages: FirstPages,
            /// One health per kind: whether its watch fails, and why.
            pub health: Health,
            /// Per kind: every object the store just applied (or deleted),
            /// sent after the store has it.
            pub applied: Applied,
            /// The names of the releases by the cluster they are made for.
            pub releases_by_cluster: index::Index<HelmRelease>,
        }

        /// Per kind, who hears of each object right after its store
        /// applied it: a trigger that never runs ahead of the store.
        #[derive(Clone)]
        pub struct Applied {
            $(pub $field: announce::Announcer<$ty>,)*
        }

        /// Per kind, the first page of its list (see [`FirstPage`]).
        #[derive(Clone)]
        pub struct FirstPages {
            $(pub $field: FirstPage<$ty>,)*
        }

        /// Per kind: whether its watch can list and watch, and if not why.
        #[derive(Clone)]
        pub struct Health {
            $(pub $field: WatchState,)*
        }

        impl Health {
            /// Every kind's health.
            pub fn all(&self) -> Vec<WatchState> {
                vec![$(self.$field.clone(),)*]
            }
        }

        /// Per kind: true once the store holds its first full list. (A
        /// tokio watch, because `Store::wait_until_ready` wakes only the
        /// last of several concurrent waiters.)
        #[derive(Clone)]
        pub struct Listed {
            $(pub $field: watch::Receiver<bool>,)*
        }

        /// Change counters, one per kind: `changed().await` on a clone wakes
        /// on the next change.
        #[derive(Clone)]
        pub struct Changes {
            $(pub $field: watch::Receiver<u64>,)*
        }

        impl Stores {
            /// Resolves once every store has its first full list. Any number
            /// of tasks may wait at once.
            pub async fn wait_until_ready(&self) -> Result<(), WatchEnded> {
                $(listed(self.listed.$field.clone()).await?;)*
                Ok(())
            }

            /// True once every store has its first full list.
            pub fn is_ready(&self) -> bool {
                true $(&& *self.listed.$field.borrow())*
            }

            /// Which watches fail right now, in one line; `None` when all work.
            pub fn failing(&self) -> Option<String> {
                let failing: Vec<String> = self
                    .health
                    .all()
                    .iter()
                    .filter_map(|w| match &*w.health.borrow() {
                        WatchHealth::Ok => None,
                        WatchHealth::Failing { failure, .. } => {
                            Some(format!("watching {}: {}", w.resource, failure.describe()))
                        }
                    })
                    .collect();
                (!failing.is_empty()).then(|| failing.join("; "))
            }


        }
    };
}

/// The tracing target of watch failures. They are logged as warnings; the
/// console shows them as a banner from [`WatchHealth`] instead of as log
/// messages.
pub const WATCH_LOG_TARGET: &str = "hmc_tui::store::watch";

/// Why a watch cannot list or watch its kind, in terms a person can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchFailure {
    /// The API server cannot be reached; why, in a few words
    /// (`connection refused`).
    Unreachable(String),
    /// RBAC does not allow listing or watching the kind.
    Forbidden,
    /// The API server does not accept the credentials.
    Unauthorized,
    /// The API server does not serve the kind (its CRD is missing).
    NotServed,
    /// Anything else, as the error says it.
    Other(String),
}

impl WatchFailure {
    /// In a few words, for `/readyz` and logs.
    pub fn describe(&self) -> String {
        match self {
            WatchFailure::Unreachable(why) => format!("cannot reach the API server ({why})"),
            WatchFailure::Forbidden => "forbidden by RBAC".into(),
            WatchFailure::Unauthorized => "credentials not accepted".into(),
            WatchFailure::NotServed => "not served (is its CRD installed?)".into(),
            WatchFailure::Other(why) => why.clone(),
        }
    }
}

/// The health of one watch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum WatchHealth {
    /// Its last attempt worked (or it has not failed yet).
    #[default]
    Ok,
    /// Its last attempt failed; `attempts` counts the failures in a row,
    /// so every failure is a change that wakes the followers.
    Failing {
        failure: WatchFailure,
        attempts: u64,
    },
}

/// One watch's health, with the resource it watches (`managedclusters`).
#[derive(Clone, Debug)]
pub struct WatchState {
    pub resource: String,
    pub health: watch::Receiver<WatchHealth>,
}

/// What a watcher error means for a person; `None` for what the watcher
/// recovers from by itself at once (an expired resourceVersion: it lists
/// again).
pub fn classify(error: &watcher::Error) -> Option<WatchFailure> {
    match error {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => Some(classify_client(e)),
        watcher::Error::WatchError(status) => match status.code {
            410 => None,
            401 => Some(WatchFailure::Unauthorized),
            403 => Some(WatchFailure::Forbidden),
            _ => Some(WatchFailure::Other(status.message.clone())),
        },
        watcher::Error::NoResourceVersion => Some(WatchFailure::Other(error.to_string())),
    }
}

fn classify_client(error: &kube::Error) -> WatchFailure {
    match error {
        kube::Error::Api(status) => match status.code {
            401 => WatchFailure::Unauthorized,
            403 => WatchFailure::Forbidden,
            404 => WatchFailure::NotServed,
            _ if status.message.is_empty() => {
                WatchFailure::Other(format!("{} ({})", status.reason, status.code))
            }
            _ => WatchFailure::Other(status.message.clone()),
        },
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
            WatchFailure::Unreachable(cause(error))
        }
        other => WatchFailure::Other(other.to_string()),
    }
}

/// The root cause of a connection error in a few words: the I/O error at
/// the bottom of the chain (`connection refused`), else the innermost
/// message.
pub(crate) fn cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
                std::io::ErrorKind::ConnectionReset => "connection reset".into(),
                std::io::ErrorKind::TimedOut => "timed out".into(),
                _ => {
                    let text = io.to_string();
                    match text.find(" (os error") {
                        Some(i) => text[..i].to_lowercase(),
                        None => text,
                    }
                }
            };
        }
        innermost = e;
        current = e.source();
    }
    innermost.to_string()
}

/// The watch feeding a store ended before its first list.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the watch ended before its first list")]
pub struct WatchEnded;

/// Waits until one store's flag says it holds its first full list.
pub async fn listed(mut flag: watch::Receiver<bool>) -> Result<(), WatchEnded> {
    let ok = flag.wait_for(|l| *l).await.is_ok();
    if ok { Ok(()) } else { Err(WatchEnded) }
}

kinds! {
    service_templates: ServiceTemplate,
    cluster_templates: ClusterTemplate,
    managed_clusters: ManagedCluster,
    rollouts: TemplateRollout,
    releases: HelmRelease,
    charts: HelmChart,
    repositories: HelmRepository,
    // Read through the version of Cluster API the API server serves
    // (`capi::Version`, chosen once per connection). The store keys them
    // with the default dynamic type whatever that version, as every
    // lookup (`ObjectRef::new`) does: a Cluster is the same object through
    // either.
    capi_clusters: capi::Cluster,
    // What the release controller said about changes made by hand in a
    // child cluster (see `engine::drift`): only those Events are kept.
    drift_events: Event,
    // The names and labels of the releases and chart sources in scope that
    // are not the engine's: with the stores above, every name the engine
    // might write is known, so its ownership check reads no object (see
    // `engine::apply`). Few objects, held as little as they can be.
    other_releases: PartialObjectMeta<HelmRelease>,
    other_charts: PartialObjectMeta<HelmChart>,
    other_repositories: PartialObjectMeta<HelmRepository>,
    // The namespaces' cluster installer accounts (`CLUSTER_INSTALLER`), by
    // name alone: a cluster chart is installed only where its account is.
    installers: PartialObjectMeta<ServiceAccount>,
}

/// Where to watch.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// `None` watches all namespaces.
    pub namespace: Option<String>,
}

impl Scope {
    pub fn api<K>(&self, client: &Client) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        K::DynamicType: Default,
    {
        self.api_with(client, &Default::default())
    }

    /// [`Scope::api`] of a kind whose dynamic type says what to ask for
    /// (which version of Cluster API's `Cluster`: [`capi::Version`]).
    pub fn api_with<K>(&self, client: &Client, dyntype: &K::DynamicType) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    {
        let all = Api::all_with(client.clone(), dyntype);
        match &self.namespace {
            Some(ns) => all.constrain(ns),
            None => all,
        }
    }
}

/// The watches that feed the stores; drive them (join them) for the stores to fill.
pub type Watches = Vec<BoxFuture<'static, ()>>;

/// Selects only the objects the engine created.
pub fn ours() -> watcher::Config {
    watcher::Config::default().labels(&format!(
        "{}={}",
        labels::MANAGED_BY,
        labels::MANAGED_BY_VALUE
    ))
}

/// Selects every object the engine did not create: the complement of
/// [`ours`]. (An object relabelled from one to the other leaves one watch
/// and enters the other.)
pub fn not_ours() -> watcher::Config {
    watcher::Config::default().labels(&format!(
        "{}!={}",
        labels::MANAGED_BY,
        labels::MANAGED_BY_VALUE
    ))
}

/// Selects the cluster installer accounts by their one name, which is also
/// what lets RBAC grant the engine these accounts alone (`resourceNames`).
pub fn installer_accounts() -> watcher::Config {
    watcher::Config::default().fields(&format!(
        "metadata.name={}",
        crate::api::names::CLUSTER_INSTALLER
    ))
}

/// Keeps of an object's metadata only its name, namespace and labels: all
/// that tells whose it is.
pub fn names_only<K>(o: &mut PartialObjectMeta<K>) {
    let m = std::mem::take(&mut o.metadata);
    o.metadata = kube::api::ObjectMeta {
        name: m.name,
        namespace: m.namespace,
        labels: m.labels,
        ..Default::default()
    };
}

/// The cluster a release is made for, by its label.
fn cluster_of(r: &HelmRelease) -> Option<String> {
    r.labels().get(labels::CLUSTER).cloned()
}

/// The annotation `kubectl apply` writes: the whole object as last applied.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What every store drops from its objects: the managed fields and the copy
/// of the object `kubectl apply` leaves in an annotation, which no reader
/// needs and which are often the larger part of an object.
fn without_managed_fields<K: Resource>(o: &mut K) {
    // None, not an empty list: that would keep the list's allocation.
    o.meta_mut().managed_fields = None;
    if let Some(a) = o.meta_mut().annotations.as_mut() {
        a.remove(LAST_APPLIED);
    }
}

/// The Events about releases, as the API server selects them; the store
/// keeps only those of [`is_drift_event`].
pub fn release_events() -> watcher::Config {
    watcher::Config::default().fields("regarding.kind=HelmRelease")
}

/// Whether an Event tells of changes made by hand in a child cluster being
/// put back, or failing to be.
pub fn is_drift_event(event: &Event) -> bool {
    matches!(
        event.reason.as_deref(),
        Some(crate::flux::DRIFT_CORRECTED | crate::flux::DRIFT_CORRECTION_FAILED)
    )
}

/// One watch feeding one store: the store, its change counter, its "first
/// full list" flag and its health. The watch is pushed onto `watches`.
pub fn reflected<K>(
    api: Api<K>,
    config: watcher::Config,
    watches: &mut Watches,
) -> (
    Store<K>,
    watch::Receiver<u64>,
    watch::Receiver<bool>,
    WatchState,
)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    let (store, changes, listed, health, _, _) = reflected_with_applied(api, config, watches);
    (store, changes, listed, health)
}

/// A store, its change counter, its listed flag, its health, who hears
/// of what it applied, and its first page.
type Reflection<K> = (
    Store<K>,
    watch::Receiver<u64>,
    watch::Receiver<bool>,
    WatchState,
    announce::Announcer<K>,
    FirstPage<K>,
);

/// [`reflected`], plus who hears of every object the store applied.
fn reflected_with_applied<K>(
    api: Api<K>,
    config: watcher::Config,
    watches: &mut Watches,
) -> Reflection<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    reflected_where(api, config, |_| true, without_managed_fields, None, watches)
}

/// The names and labels of every object of a kind in scope that is not the
/// engine's: what the ownership check needs of others' objects, and no more.
fn others_names<K>(
    api: Api<PartialObjectMeta<K>>,
    watches: &mut Watches,
) -> Reflection<PartialObjectMeta<K>>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    reflected_where(api, not_ours(), |_| true, names_only, None, watches)
}

/// Whether a relisted object is news: the store did not have it, or had
/// another version. A watch that expired relists everything; announcing
/// 40,000 unchanged releases would make each controller look at everything
/// again, for nothing.
fn changed_on_relist<K: Resource>(before: Option<&K>, relisted: &K) -> bool {
    match (
        before.and_then(|b| b.meta().resource_version.as_ref()),
        &relisted.meta().resource_version,
    ) {
        (Some(old), Some(new)) => old != new,
        _ => true,
    }
}

/// [`reflected_with_applied`], keeping only the objects `keep` selects
/// (for what a field selector cannot select), each after `strip` took
/// from it what no reader needs, and keeping `index` as the store changes.
fn reflected_where<K>(
    api: Api<K>,
    config: watcher::Config,
    keep: fn(&K) -> bool,
    strip: fn(&mut K),
    index: Option<index::Index<K>>,
    watches: &mut Watches,
) -> Reflection<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    let (store, writer) = reflector::store();
    let shared = std::sync::Arc::new(std::sync::Mutex::new(Shared {
        writer,
        listed: false,
        total: None,
    }));
    let (tx, rx) = watch::channel(0u64);
    let tx = std::sync::Arc::new(tx);
    let first_page = FirstPage {
        api: api.clone(),
        params: kube::api::ListParams {
            label_selector: config.label_selector.clone(),
            field_selector: config.field_selector.clone(),
            ..Default::default()
        },
        keep,
        strip,
        shared: shared.clone(),
        changes: tx.clone(),
    };
    let (listed_tx, listed_rx) = watch::channel(false);
    let (health_tx, health_rx) = watch::channel(WatchHealth::Ok);
    let health_tx = std::sync::Arc::new(health_tx);
    let recovery = recover_when_quiet(health_tx.clone());
    let last_failure = recovery.last_failure.clone();
    let kind = K::kind(&Default::default()).to_string();
    let resource = K::plural(&Default::default()).to_string();
    let applied = announce::Announcer::default();
    let announcer = applied.clone();
    let reader = store.clone();
    let mut relisted: Vec<ObjectRef<K>> = Vec::new();
    let set_up = std::time::Instant::now();
    // Lists are read in pages of 500 (the watcher's page size), each a
    // consistent read. Not from the watch cache: kube leaves
    // `resourceVersion=0` out of a list that has a limit, so asking for
    // any version changes nothing while pages are read. A list from the
    // cache would be one answer of every object (no page size), which at
    // 10,000 clusters means the engine's 40,000 releases decoded at once;
    // not measured, so not done.
    let stream = watcher(api, config)
        .default_backoff()
        .modify(strip)
        .try_filter(move |event| {
            futures::future::ready(match event {
                watcher::Event::Apply(o)
                | watcher::Event::InitApply(o)
                | watcher::Event::Delete(o) => keep(o),
                watcher::Event::Init | watcher::Event::InitDone => true,
            })
        })
        .inspect_ok(move |event| {
            shared
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .watched(event)
        })
        .for_each(move |event| {
            let event: Result<watcher::Event<K>, _> = event;
            match event {
                Ok(event) => {
                    // Before anything is told of the change: whoever hears
                    // of it finds it in the index too.
                    if let Some(index) = &index {
                        index.apply(&event);
                    }
                    // The store has applied the event by the time it gets
                    // here. No receiver yet is fine: nobody waits.
                    match event {
                        watcher::Event::Init => relisted.clear(),
                        // A relist's objects show in the store only at its
                        // end: announce them then, those that changed.
                        // Everything of the first list is news, even what a
                        // first page put in the store already.
                        watcher::Event::InitApply(o) => {
                            let r = ObjectRef::from_obj(&o);
                            if !*listed_tx.borrow()
                                || changed_on_relist(reader.get(&r).as_deref(), &o)
                            {
                                relisted.push(r);
                            }
                        }
                        watcher::Event::InitDone => {
                            if !listed_tx.send_replace(true) {
                                tracing::debug!(
                                    %kind,
                                    objects = relisted.len(),
                                    ms = set_up.elapsed().as_millis() as u64,
                                    "first list"
                                );
                            }
                            for o in relisted.drain(..).filter_map(|r| reader.get(&r)) {
                                announcer.announce(o.as_ref());
                            }
                        }
                        watcher::Event::Apply(o) | watcher::Event::Delete(o) => {
                            announcer.announce(&o);
                        }
                    }
                    health_tx.send_if_modified(|h| std::mem::take(h) != WatchHealth::Ok);
                    tx.send_modify(|n| *n += 1)
                }
                Err(error) => {
                    if let Some(failure) = classify(&error) {
                        *last_failure.lock().unwrap_or_else(|e| e.into_inner()) =
                            Some(std::time::Instant::now());
                        health_tx.send_modify(|h| {
                            let attempts = match h {
                                WatchHealth::Failing { attempts, .. } => *attempts + 1,
                                WatchHealth::Ok => 1,
                            };
                            *h = WatchHealth::Failing { failure, attempts };
                        });
                    }
                    tracing::warn!(target: WATCH_LOG_TARGET, %kind, %error, "watch failed; retrying with backoff");
                }
            }
            futures::future::ready(())
        });
    // The recovery check lives as long as the watch does.
    watches.push(
        futures::future::select(stream.boxed(), recovery.run.boxed())
            .map(drop)
            .boxed(),
    );
    let health = WatchState {
        resource,
        health: health_rx,
    };
    (store, rx, listed_rx, health, applied, first_page)
}

/// How long a failing watch must go without a new failure to count as
/// healthy again. A watch that resumes after an outage with its
/// resourceVersion still valid delivers nothing until something changes,
/// so no event would ever say it works; the watcher retries a failing
/// watch at least every 30 s (its backoff's ceiling), so a spell of more
/// than twice that without a failure means it is watching again.
const QUIET_RECOVERY: std::time::Duration = std::time::Duration::from_secs(65);
/// How often a failing watch is looked at for such a spell.
const RECOVERY_CHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether a watch in `health`, whose last failure was at `last_failure`,
/// has been quiet long enough at `now` to count as healthy.
fn quiet_again(
    health: &WatchHealth,
    last_failure: Option<std::time::Instant>,
    now: std::time::Instant,
) -> bool {
    matches!(health, WatchHealth::Failing { .. })
        && last_failure.is_some_and(|t| now.saturating_duration_since(t) >= QUIET_RECOVERY)
}

/// The check that marks a failing watch healthy after a quiet spell, and
/// where its watch records the time of each failure.
struct Recovery {
    last_failure: std::sync::Arc<std::sync::Mutex<Option<std::time::Instant>>>,
    run: BoxFuture<'static, ()>,
}

fn recover_when_quiet(health: std::sync::Arc<watch::Sender<WatchHealth>>) -> Recovery {
    let last_failure = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = last_failure.clone();
    let run = async move {
        loop {
            tokio::time::sleep(RECOVERY_CHECK).await;
            let last = *seen.lock().unwrap_or_else(|e| e.into_inner());
            health.send_if_modified(|h| {
                let quiet = quiet_again(h, last, std::time::Instant::now());
                if quiet {
                    *h = WatchHealth::Ok;
                }
                quiet
            });
        }
    }
    .boxed();
    Recovery { last_failure, run }
}

/// Looks an object up by namespace and name.
pub fn get<K>(store: &Store<K>, namespace: &str, name: &str) -> Option<std::sync::Arc<K>>
where
    K: Resource + Clone + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    store.get(&reflector::ObjectRef::new(name).within(namespace))
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    #[test]
    fn a_relist_announces_what_is_new_or_changed_only() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let at = |version: Option<&str>| {
            let mut cm = ConfigMap::default();
            cm.metadata.name = Some("x".into());
            cm.metadata.resource_version = version.map(String::from);
            cm
        };
        assert!(changed_on_relist(None, &at(Some("7"))), "new");
        assert!(
            changed_on_relist(Some(&at(Some("6"))), &at(Some("7"))),
            "changed"
        );
        assert!(
            !changed_on_relist(Some(&at(Some("7"))), &at(Some("7"))),
            "the same"
        );
        // Without versions nothing can be told apart: announced.
        assert!(changed_on_relist(Some(&at(None)), &at(None)));
    }

    /// A first page shows in the store at once; the full list then
    /// replaces it, so what the page had and the list has not (deleted in
    /// between) goes; a page after the list is dropped.
    #[test]
    fn a_first_page_shows_until_the_full_list_replaces_it() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let cm = |name: &str, version: &str| {
            let mut cm = ConfigMap::default();
            cm.metadata.name = Some(name.into());
            cm.metadata.namespace = Some("ns".into());
            cm.metadata.resource_version = Some(version.into());
            cm
        };
        let (store, writer) = reflector::store::<ConfigMap>();
        let mut shared = Shared {
            writer,
            listed: false,
            total: None,
        };
        let names = |store: &Store<ConfigMap>| {
            let mut v: Vec<(String, String)> = store
                .state()
                .iter()
                .map(|c| (c.name_any(), c.resource_version().unwrap_or_default()))
                .collect();
            v.sort();
            v
        };
        // The watch starts its list; the page comes first.
        shared.watched(&watcher::Event::Init);
        assert!(shared.first_page(vec![cm("a", "1"), cm("b", "1")], 5));
        assert_eq!(shared.total, Some(5));
        assert_eq!(names(&store).len(), 2, "the page shows at once");
        // The full list: "b" was deleted meanwhile, "a" changed.
        for o in [cm("a", "2"), cm("c", "1"), cm("d", "1"), cm("e", "1")] {
            shared.watched(&watcher::Event::InitApply(o));
        }
        assert_eq!(names(&store).len(), 2, "the list shows once complete");
        shared.watched(&watcher::Event::InitDone);
        assert!(shared.listed);
        let full = vec![
            ("a".to_string(), "2".to_string()),
            ("c".into(), "1".into()),
            ("d".into(), "1".into()),
            ("e".into(), "1".into()),
        ];
        assert_eq!(names(&store), full);
        // A late page changes nothing.
        assert!(!shared.first_page(vec![cm("b", "1")], 2));
        assert_eq!(names(&store), full);
        // Changes after the list apply as ever.
        shared.watched(&watcher::Event::Delete(cm("c", "1")));
        assert_eq!(names(&store).len(), 3);
    }

    #[test]
    fn others_names_keep_only_what_tells_whose_they_are() {
        use kube::api::ObjectMeta;
        use kube::core::PartialObjectMetaExt;
        let labels: std::collections::BTreeMap<String, String> =
            [("team".to_string(), "a".to_string())].into();
        let mut o: PartialObjectMeta<HelmRelease> = ObjectMeta {
            name: Some("x".into()),
            namespace: Some("ns".into()),
            labels: Some(labels.clone()),
            annotations: Some([("note".to_string(), "x".repeat(1000))].into()),
            uid: Some("u".into()),
            resource_version: Some("7".into()),
            finalizers: Some(vec!["f".into()]),
            managed_fields: Some(vec![Default::default()]),
            ..Default::default()
        }
        .into_response_partial();
        names_only(&mut o);
        assert_eq!(
            o.metadata,
            ObjectMeta {
                name: Some("x".into()),
                namespace: Some("ns".into()),
                labels: Some(labels),
                ..Default::default()
            }
        );
        // Still found where the engine looks for it.
        assert_eq!(ObjectRef::from_obj(&o), ObjectRef::new("x").within("ns"));
    }

    #[test]
    fn stores_drop_managed_fields_and_the_last_applied_copy_only() {
        let mut mc = ManagedCluster::new("x", Default::default());
        mc.metadata.annotations = Some(
            [
                (LAST_APPLIED.to_string(), "{}".to_string()),
                ("team".to_string(), "a".to_string()),
            ]
            .into(),
        );
        mc.metadata.managed_fields = Some(vec![Default::default()]);
        let mut want = mc.clone();
        want.metadata.managed_fields = None;
        want.metadata.annotations = Some([("team".to_string(), "a".to_string())].into());
        without_managed_fields(&mut mc);
        assert_eq!(
            serde_json::to_value(&mc).unwrap(),
            serde_json::to_value(&want).unwrap()
        );
    }

    #[test]
    fn a_failing_watch_counts_as_healthy_after_a_quiet_spell_only() {
        let failing = WatchHealth::Failing {
            failure: WatchFailure::Unreachable("connection refused".into()),
            attempts: 3,
        };
        let failed = std::time::Instant::now();
        let at = |secs| failed + std::time::Duration::from_secs(secs);
        // Retries fail at most every 30 s while it is down: not quiet yet.
        assert!(!quiet_again(&failing, Some(failed), at(30)));
        assert!(!quiet_again(&failing, Some(failed), at(64)));
        assert!(quiet_again(&failing, Some(failed), at(65)));
        // Nothing to recover from.
        assert!(!quiet_again(&WatchHealth::Ok, Some(failed), at(600)));
        assert!(!quiet_again(&failing, None, at(600)));
    }

    /// Stores of the kinds the console shows watch only those; the
    /// engine's watch every kind. The others never list, and whoever waits
    /// for them learns so instead of waiting for ever.
    #[tokio::test]
    async fn only_the_kinds_asked_for_are_watched() {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = Client::try_from(config).unwrap();
        let scope = Scope::default();
        let capi = capi::Version::default();
        let (all, every) = Stores::watching(&client, &scope, Kinds::All, capi);
        assert_eq!(every.len(), all.health.all().len());
        let (shown, watches) = Stores::watching(&client, &scope, Kinds::Shown, capi);
        assert_eq!(watches.len(), 4);
        for unread in [
            shown.listed.releases.clone(),
            shown.listed.capi_clusters.clone(),
            shown.listed.other_releases.clone(),
        ] {
            assert!(listed(unread).await.is_err());
        }
        assert!(!shown.is_ready());
        // The shown kinds list once their watches are driven: their flags
        // still have a sender.
        assert!(shown.listed.managed_clusters.has_changed().is_ok());
        drop(watches);
        assert!(shown.listed.managed_clusters.has_changed().is_err());
    }

    /// Cluster API's clusters are asked for through the version chosen,
    /// in scope as every other kind.
    #[tokio::test]
    async fn a_kind_of_several_versions_is_asked_for_through_the_one_given() {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = Client::try_from(config).unwrap();
        let team = Scope {
            namespace: Some("team-a".into()),
        };
        let url = |scope: &Scope, version| {
            scope
                .api_with::<capi::Cluster>(&client, &version)
                .resource_url()
                .to_string()
        };
        assert_eq!(
            url(&team, capi::Version::V1Beta2),
            "/apis/cluster.x-k8s.io/v1beta2/namespaces/team-a/clusters"
        );
        assert_eq!(
            url(&Scope::default(), capi::Version::V1Beta1),
            "/apis/cluster.x-k8s.io/v1beta1/clusters"
        );
        // The same as `api` for a kind of one version.
        assert_eq!(
            team.api::<ManagedCluster>(&client).resource_url(),
            team.api_with::<ManagedCluster>(&client, &()).resource_url()
        );
    }

    fn api(code: u16, message: &str) -> kube::Error {
        kube::Error::Api(Status::failure(message, "Reason").with_code(code).boxed())
    }

    /// An error that wraps another, as hyper's client errors do.
    #[derive(Debug)]
    struct Wrapped(&'static str, Box<dyn std::error::Error + Send + Sync>);

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(self.1.as_ref())
        }
    }

    #[test]
    fn watch_errors_in_a_person_s_terms() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let connect = kube::Error::Service(Box::new(Wrapped(
            "client error (Connect)",
            Box::new(Wrapped("tcp connect error", Box::new(refused))),
        )));
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(connect)),
            Some(WatchFailure::Unreachable("connection refused".into()))
        );
        let dns = std::io::Error::other("failed to lookup address information (os error -2)");
        assert_eq!(
            classify(&watcher::Error::WatchStartFailed(kube::Error::Service(
                Box::new(dns)
            ))),
            Some(WatchFailure::Unreachable(
                "failed to lookup address information".into()
            ))
        );
        let nested = kube::Error::Service(Box::new(Wrapped(
            "request failed",
            Box::new(Wrapped("deadline has elapsed", Box::new(std::fmt::Error))),
        )));
        assert_eq!(
            classify(&watcher::Error::WatchFailed(nested)),
            Some(WatchFailure::Unreachable(std::fmt::Error.to_string()))
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(403, "forbidden"))),
            Some(WatchFailure::Forbidden)
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(401, "Unauthorized"))),
            Some(WatchFailure::Unauthorized)
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(404, "not found"))),
            Some(WatchFailure::NotServed)
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(500, "etcd is down"))),
            Some(WatchFailure::Other("etcd is down".into()))
        );
        // An expired resourceVersion is no failure: the watcher lists again.
        let gone = Status::failure("too old", "Expired").with_code(410).boxed();
        assert_eq!(classify(&watcher::Error::WatchError(gone)), None);
    }
}
