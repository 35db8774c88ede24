//! One watch feeding one store: where it watches, what it selects, what
//! each object keeps, and what the watch tells as the store changes (its
//! counter, its first full list, its health, its announcements).

use std::fmt::Debug;
use std::hash::Hash;

use futures::{FutureExt, StreamExt, TryStreamExt, future::BoxFuture};
use k8s_openapi::api::events::v1::Event;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio::sync::watch;

use crate::api::labels;
use crate::flux::HelmRelease;

use super::announce;
use super::first_page::{FirstPage, Shared};
use super::health::{WATCH_LOG_TARGET, WatchHealth, WatchState, classify, recover_when_quiet};
use super::index;

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
    /// (which version of Cluster API's `Cluster`: [`crate::capi::Version`]).
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
pub(super) fn cluster_of(r: &HelmRelease) -> Option<String> {
    r.labels().get(labels::CLUSTER).cloned()
}

/// The annotation `kubectl apply` writes: the whole object as last applied.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// What every store drops from its objects: the managed fields and the copy
/// of the object `kubectl apply` leaves in an annotation, which no reader
/// needs and which are often the larger part of an object.
pub(super) fn without_managed_fields<K: Resource>(o: &mut K) {
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
pub(super) type Reflection<K> = (
    Store<K>,
    watch::Receiver<u64>,
    watch::Receiver<bool>,
    WatchState,
    announce::Announcer<K>,
    FirstPage<K>,
);

/// [`reflected`], plus who hears of every object the store applied.
pub(super) fn reflected_with_applied<K>(
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
pub(super) fn others_names<K>(
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
pub(super) fn reflected_where<K>(
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
    use crate::api::ManagedCluster;
    use crate::capi;

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
}
