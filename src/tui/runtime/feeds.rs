//! The feeds: what turns the stores into messages for the loop, and what
//! the loop reads when it refreshes.
//!
//! - one follow loop over every kind the console shows: a change of any of
//!   them is one [`Msg::Changed`], coalesced until the loop refreshed;
//! - one over every watch's health: [`Msg::Watch`] each time one fails, and
//!   when it delivers again;
//! - [`Msg::Synced`] once the first screen's stores have their first list;
//! - the clock, [`Msg::Tick`] every second, for spinners and ages.
//!
//! It also keeps the console's own store, the engine's Events (the engine
//! does not watch Events). Its watch asks the API server only for the
//! Events the engine reported (`reportingController=hmc-tui`, a field
//! selector `events.k8s.io/v1` supports: it maps to the core Event's
//! `reportingComponent`); the rows check the controller again
//! ([`events::rows`](crate::tui::model::events::rows)), so a server that ignored
//! the selector would not show other controllers' Events.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::StreamExt;
use futures::stream::{self, BoxStream};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::reflector::Store;
use kube::runtime::watcher;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::api::names::REPORTER;
use crate::api::{
    ClusterTemplate, ManagedCluster, MultiClusterService, ServiceTemplate, TemplateRollout,
};
use crate::capi;
use crate::store::{self, Scope, Stores, WatchState, Watches, reflected};
use crate::tui::model::key::{Kind, KubeContext};
use crate::tui::model::snapshot::{Loading, Snapshot};
use crate::tui::state::app::Msg;

/// The console's store of the engine's Events.
pub struct EventStore {
    pub store: Store<Event>,
    /// Bumped on every change.
    pub changes: watch::Receiver<u64>,
    /// Whether its watch fails (not allowed to list Events, say).
    pub health: WatchState,
}

/// Only the Events the engine reported.
pub fn event_selector() -> watcher::Config {
    watcher::Config::default().fields(&format!("reportingController={REPORTER}"))
}

/// Sets up the watch of the engine's Events in `scope`; nothing is read
/// until the returned watches are driven.
pub fn watch_events(client: &kube::Client, scope: &Scope) -> (EventStore, Watches) {
    let mut watches = Watches::new();
    let (store, changes, _listed, health) =
        reflected(scope.api::<Event>(client), event_selector(), &mut watches);
    (
        EventStore {
            store,
            changes,
            health,
        },
        watches,
    )
}

/// The stores the console reads; it keeps no subscription it does not read.
#[doc(hidden)]
pub struct Readers {
    pub(crate) clusters: Store<ManagedCluster>,
    pub(crate) cluster_templates: Store<ClusterTemplate>,
    pub(crate) service_templates: Store<ServiceTemplate>,
    pub(crate) rollouts: Store<TemplateRollout>,
    /// What values templates read.
    pub(crate) capi_clusters: Store<capi::Cluster>,
    pub(crate) multi_cluster_services: Store<MultiClusterService>,
    /// The console's own: the engine does not watch Events.
    pub(crate) events: Store<Event>,
    /// Only this namespace's objects, when the stores hold more (the
    /// engine's, over all namespaces).
    pub(crate) namespace: Option<String>,
    /// The context the stores read, which every object is tagged with.
    pub(crate) context: KubeContext,
    /// Where the first lists stand; `None`: complete (stores filled
    /// beforehand).
    pub(crate) progress: Option<(store::Listed, store::FirstPages)>,
}

impl Readers {
    /// The stores of the kinds the console shows.
    pub fn new(stores: &Stores, events: &EventStore) -> Readers {
        Readers {
            clusters: stores.managed_clusters.clone(),
            cluster_templates: stores.cluster_templates.clone(),
            service_templates: stores.service_templates.clone(),
            rollouts: stores.rollouts.clone(),
            capi_clusters: stores.capi_clusters.clone(),
            multi_cluster_services: stores.multi_cluster_services.clone(),
            events: events.store.clone(),
            namespace: None,
            context: KubeContext::default(),
            progress: Some((stores.listed.clone(), stores.first_pages.clone())),
        }
    }

    /// Reads only `namespace` (`None`: everything the stores hold).
    pub fn only(self, namespace: Option<String>) -> Readers {
        Readers { namespace, ..self }
    }

    /// Tags what it reads with `context`.
    pub fn of_context(self, context: KubeContext) -> Readers {
        Readers { context, ..self }
    }

    /// What the console shows, read from the stores: what it does each
    /// time they change.
    pub fn snapshot(&self) -> Snapshot {
        let clusters = self.read(&self.clusters);
        let cluster_templates = self.read(&self.cluster_templates);
        let service_templates = self.read(&self.service_templates);
        let rollouts = self.read(&self.rollouts);
        let (loading, arrived) = match &self.progress {
            None => (Vec::new(), true),
            Some((listed, pages)) => {
                // (kind, objects at hand, (listed, its first page's total))
                macro_rules! of {
                    ($kind:expr, $objects:expr, $store:ident) => {
                        (
                            $kind,
                            $objects.len(),
                            (*listed.$store.borrow(), pages.$store.total()),
                        )
                    };
                }
                let kinds = [
                    of!(Kind::ManagedCluster, clusters, managed_clusters),
                    of!(Kind::ClusterTemplate, cluster_templates, cluster_templates),
                    of!(Kind::ServiceTemplate, service_templates, service_templates),
                    of!(Kind::TemplateRollout, rollouts, rollouts),
                ];
                let arrived = kinds
                    .iter()
                    .any(|(_, _, (listed, total))| *listed || total.is_some());
                let loading = kinds
                    .iter()
                    .filter(|(_, _, (listed, _))| !listed)
                    .map(|&(kind, shown, (_, total))| (kind, Loading { shown, total }))
                    .collect();
                (loading, arrived)
            }
        };
        Snapshot::of(
            &self.context,
            clusters,
            cluster_templates,
            service_templates,
        )
        .with_rollouts(rollouts)
        .with_capi_clusters(self.read(&self.capi_clusters))
        .with_multi_cluster_services(self.read(&self.multi_cluster_services))
        .with_events(self.read(&self.events))
        .loading(loading, arrived)
    }

    /// A store's objects, of the namespace read only.
    fn read<K>(&self, store: &Store<K>) -> Vec<Arc<K>>
    where
        K: kube::Resource + Clone + 'static,
        K::DynamicType: Eq + std::hash::Hash + Clone,
    {
        let mut all = store.state();
        if let Some(ns) = &self.namespace {
            all.retain(|o| o.meta().namespace.as_deref() == Some(ns.as_str()));
        }
        all
    }
}

/// Starts every feed of the stores: changes, health, the first list and
/// the clock. `pending` is set when a change was sent and not yet read;
/// the loop clears it when it refreshes.
pub fn spawn(
    stores: &Stores,
    events: &EventStore,
    tx: &UnboundedSender<Msg>,
    pending: &Arc<AtomicBool>,
) -> Vec<JoinHandle<()>> {
    let changes = &stores.changes;
    let kinds = vec![
        (Kind::ManagedCluster, changes.managed_clusters.clone()),
        (Kind::ClusterTemplate, changes.cluster_templates.clone()),
        (Kind::ServiceTemplate, changes.service_templates.clone()),
        (Kind::TemplateRollout, changes.rollouts.clone()),
        (
            Kind::MultiClusterService,
            changes.multi_cluster_services.clone(),
        ),
        (Kind::Event, events.changes.clone()),
    ];
    // Every watch's health, the engine's kinds too when these are the
    // engine's stores (a kind not watched never fails): the banner says
    // which the console cannot list, or that it cannot reach the API server.
    let health = stores
        .health
        .all()
        .into_iter()
        .chain([events.health.clone()])
        .collect();
    vec![
        follow(kinds, tx.clone(), pending.clone()),
        follow_health(health, tx.clone()),
        synced(&stores.listed, tx.clone()),
        tick(tx.clone()),
    ]
}

/// Each change of a watched value, with `key`, until its sender is gone.
fn each_change<K, T>(key: K, values: watch::Receiver<T>) -> BoxStream<'static, (K, T)>
where
    K: Clone + Send + 'static,
    T: Clone + Send + Sync + 'static,
{
    stream::unfold(values, move |mut values| {
        let key = key.clone();
        async move {
            values.changed().await.ok()?;
            let value = values.borrow_and_update().clone();
            Some(((key, value), values))
        }
    })
    .boxed()
}

/// Tells the loop when a kind changed; changes that come while the loop has
/// not yet refreshed are coalesced into one message. One task follows every
/// kind; a kind whose counter is gone drops out.
fn follow(
    kinds: Vec<(Kind, watch::Receiver<u64>)>,
    tx: UnboundedSender<Msg>,
    pending: Arc<AtomicBool>,
) -> JoinHandle<()> {
    let mut changed = stream::select_all(
        kinds
            .into_iter()
            .map(|(kind, changes)| each_change(kind, changes)),
    );
    tokio::spawn(async move {
        while let Some((kind, _)) = changed.next().await {
            if !pending.swap(true, Ordering::SeqCst) {
                if tx.send(Msg::Changed(kind)).is_err() {
                    break;
                }
            } else if tx.is_closed() {
                break;
            }
        }
    })
}

/// Tells the loop each time a watch fails, and when it delivers again. One
/// task follows every watch.
fn follow_health(states: Vec<WatchState>, tx: UnboundedSender<Msg>) -> JoinHandle<()> {
    let mut changed = stream::select_all(
        states
            .into_iter()
            .map(|state| each_change(state.resource, state.health)),
    );
    tokio::spawn(async move {
        while let Some((resource, health)) = changed.next().await {
            if tx.send(Msg::Watch { resource, health }).is_err() {
                break;
            }
        }
    })
}

/// Tells the loop once the stores of the first screen have their first
/// full list. Events do not hold up the first screen: a console not
/// allowed to list them still shows the rest.
fn synced(listed: &store::Listed, tx: UnboundedSender<Msg>) -> JoinHandle<()> {
    let (a, b, c, d) = (
        listed.managed_clusters.clone(),
        listed.cluster_templates.clone(),
        listed.service_templates.clone(),
        listed.rollouts.clone(),
    );
    tokio::spawn(async move {
        let ready = store::listed(a).await.is_ok()
            && store::listed(b).await.is_ok()
            && store::listed(c).await.is_ok()
            && store::listed(d).await.is_ok();
        if ready {
            let _ = tx.send(Msg::Synced);
        }
    })
}

/// A tick every second, for spinners and ages.
fn tick(tx: UnboundedSender<Msg>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(Duration::from_secs(1));
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        loop {
            every.tick().await;
            if tx.send(Msg::Tick(Timestamp::now())).is_err() {
                break;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc::unbounded_channel;

    async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>, secs: f64) -> Option<Msg> {
        tokio::time::timeout(Duration::from_secs_f64(secs), rx.recv())
            .await
            .ok()
            .flatten()
    }

    #[test]
    fn the_selector_asks_for_the_engine_s_events() {
        assert_eq!(
            event_selector().field_selector.as_deref(),
            Some("reportingController=hmc-tui")
        );
    }

    #[tokio::test]
    async fn follow_health_reports_each_failure_and_the_recovery() {
        use crate::store::{WatchFailure, WatchHealth, WatchState};
        let (health, rx_health) = tokio::sync::watch::channel(WatchHealth::Ok);
        let (tx, mut rx) = unbounded_channel();
        let task = follow_health(
            vec![WatchState {
                resource: "managedclusters".into(),
                health: rx_health,
            }],
            tx,
        );
        for attempts in 1..=2 {
            health.send_replace(WatchHealth::Failing {
                failure: WatchFailure::Forbidden,
                attempts,
            });
            let Some(Msg::Watch { resource, health }) = next(&mut rx, 5.0).await else {
                panic!("no message");
            };
            assert_eq!(resource, "managedclusters");
            assert!(matches!(health, WatchHealth::Failing { .. }));
        }
        health.send_replace(WatchHealth::Ok);
        assert!(matches!(
            next(&mut rx, 5.0).await,
            Some(Msg::Watch {
                health: WatchHealth::Ok,
                ..
            })
        ));
        task.abort();
    }

    /// Every change of a kind reaches the loop; changes before the loop has
    /// refreshed are coalesced into one message.
    #[tokio::test]
    async fn follow_reports_changes_once_until_refreshed() {
        let (counter, changes) = tokio::sync::watch::channel(0u64);
        let (tx, mut rx) = unbounded_channel();
        let pending = Arc::new(AtomicBool::new(false));
        let task = follow(vec![(Kind::ManagedCluster, changes)], tx, pending.clone());
        counter.send_modify(|n| *n += 1);
        assert!(matches!(next(&mut rx, 5.0).await, Some(Msg::Changed(_))));
        counter.send_modify(|n| *n += 1);
        assert!(
            next(&mut rx, 0.5).await.is_none(),
            "coalesced until the loop refreshed"
        );
        pending.store(false, Ordering::SeqCst);
        counter.send_modify(|n| *n += 1);
        assert!(matches!(next(&mut rx, 5.0).await, Some(Msg::Changed(_))));
        task.abort();
    }

    /// The one follow loop hears every kind, coalesces across kinds, and
    /// keeps following the others when one kind's counter is gone.
    #[tokio::test]
    async fn one_follow_loop_hears_every_kind() {
        let (clusters, cluster_changes) = tokio::sync::watch::channel(0u64);
        let (rollouts, rollout_changes) = tokio::sync::watch::channel(0u64);
        let (tx, mut rx) = unbounded_channel();
        let pending = Arc::new(AtomicBool::new(false));
        let task = follow(
            vec![
                (Kind::ManagedCluster, cluster_changes),
                (Kind::TemplateRollout, rollout_changes),
            ],
            tx,
            pending.clone(),
        );
        rollouts.send_modify(|n| *n += 1);
        assert!(matches!(
            next(&mut rx, 5.0).await,
            Some(Msg::Changed(Kind::TemplateRollout))
        ));
        clusters.send_modify(|n| *n += 1);
        assert!(
            next(&mut rx, 0.5).await.is_none(),
            "coalesced across kinds until the loop refreshed"
        );
        pending.store(false, Ordering::SeqCst);
        drop(rollouts);
        clusters.send_modify(|n| *n += 1);
        assert!(matches!(
            next(&mut rx, 5.0).await,
            Some(Msg::Changed(Kind::ManagedCluster))
        ));
        task.abort();
    }
}
