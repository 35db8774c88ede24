//! The stores of every kind, with what each kind has beside its store: its
//! change counter, its first-list flag, its first page, its watch's
//! health and who hears of what it applied.

use futures::FutureExt;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::events::v1::Event;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::Store;
use tokio::sync::watch;

use crate::api::{
    ClusterTemplate, ManagedCluster, MultiClusterService, ServiceTemplate, TemplateRollout,
};
use crate::capi;
use crate::flux::{HelmChart, HelmRelease, HelmRepository};

use super::announce;
use super::first_page::FirstPage;
use super::health::{WatchEnded, WatchHealth, WatchState, listed};
use super::index;
use super::reflect::Watches;

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

kinds! {
    service_templates: ServiceTemplate,
    cluster_templates: ClusterTemplate,
    managed_clusters: ManagedCluster,
    rollouts: TemplateRollout,
    multi_cluster_services: MultiClusterService,
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

impl FirstPages {
    /// The first pages of the kinds the console shows, of `limit` objects
    /// each: drive them next to the watches.
    pub fn shown(&self, limit: u32) -> Watches {
        vec![
            self.service_templates.clone().read(limit).boxed(),
            self.cluster_templates.clone().read(limit).boxed(),
            self.managed_clusters.clone().read(limit).boxed(),
            self.rollouts.clone().read(limit).boxed(),
        ]
    }
}
