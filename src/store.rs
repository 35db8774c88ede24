//! The one cache: a reflector store per kind, fed by one watch per kind and
//! read by the engine's reconcilers and the console alike.
//!
//! Each store also publishes a change counter, so the console redraws when
//! something changed without polling the API. (The engine's controllers run
//! their own trigger watches: kube-runtime's shared-stream subscriptions
//! drop triggers when an object is not yet, or no longer, in the store.)

use std::fmt::Debug;
use std::hash::Hash;

use futures::{FutureExt, StreamExt, future::BoxFuture};
use k8s_openapi::api::core::v1::Secret;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio::sync::watch;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, TemplateRollout, labels};
use crate::capi;
use crate::flux::{HelmChart, HelmRelease, HelmRepository};

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


        }
    };
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
    capi_clusters: capi::Cluster,
    // Metadata of kubeconfig secrets only: their contents are never cached.
    kubeconfigs: PartialObjectMeta<Secret>,
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
        match &self.namespace {
            Some(ns) => Api::namespaced(client.clone(), ns),
            None => Api::all(client.clone()),
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

/// The selector of kubeconfig secrets (Cluster API's secret type).
pub fn kubeconfig_secrets() -> watcher::Config {
    watcher::Config::default().fields("type=cluster.x-k8s.io/secret")
}

/// One watch feeding one store: the store, its change counter and its
/// "first full list" flag. The watch is pushed onto `watches`.
pub fn reflected<K>(
    api: Api<K>,
    config: watcher::Config,
    watches: &mut Watches,
) -> (Store<K>, watch::Receiver<u64>, watch::Receiver<bool>)
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    let (store, writer) = reflector::store();
    let (tx, rx) = watch::channel(0u64);
    let (listed_tx, listed_rx) = watch::channel(false);
    let kind = K::kind(&Default::default()).to_string();
    let stream = watcher(api, config)
        .default_backoff()
        .modify(|o| o.managed_fields_mut().clear())
        .reflect(writer)
        .for_each(move |event| {
            match event {
                Ok(event) => {
                    // The store has applied the event by the time it gets here.
                    if matches!(event, watcher::Event::InitDone) {
                        listed_tx.send_replace(true);
                    }
                    tx.send_modify(|n| *n += 1)
                }
                Err(error) => tracing::warn!(%kind, %error, "watch failed; retrying with backoff"),
            }
            futures::future::ready(())
        });
    watches.push(stream.boxed());
    (store, rx, listed_rx)
}

impl Stores {
    /// Sets up one watch per kind. Nothing is read until the returned
    /// watches are driven.
    pub fn new(client: &Client, scope: &Scope) -> (Stores, Watches) {
        let mut w = Watches::new();
        let secrets: Api<PartialObjectMeta<Secret>> = scope.api(client);
        let kubeconfigs = reflected(secrets, kubeconfig_secrets(), &mut w);
        let service_templates = reflected(scope.api(client), watcher::Config::default(), &mut w);
        let cluster_templates = reflected(scope.api(client), watcher::Config::default(), &mut w);
        let managed_clusters = reflected(scope.api(client), watcher::Config::default(), &mut w);
        let rollouts = reflected(scope.api(client), watcher::Config::default(), &mut w);
        let releases = reflected(scope.api(client), ours(), &mut w);
        let charts = reflected(scope.api(client), ours(), &mut w);
        let repositories = reflected(scope.api(client), ours(), &mut w);
        let capi_clusters = reflected(scope.api(client), watcher::Config::default(), &mut w);
        let stores = Stores {
            service_templates: service_templates.0,
            cluster_templates: cluster_templates.0,
            managed_clusters: managed_clusters.0,
            rollouts: rollouts.0,
            releases: releases.0,
            charts: charts.0,
            repositories: repositories.0,
            capi_clusters: capi_clusters.0,
            kubeconfigs: kubeconfigs.0,
            listed: Listed {
                service_templates: service_templates.2,
                cluster_templates: cluster_templates.2,
                managed_clusters: managed_clusters.2,
                rollouts: rollouts.2,
                releases: releases.2,
                charts: charts.2,
                repositories: repositories.2,
                capi_clusters: capi_clusters.2,
                kubeconfigs: kubeconfigs.2,
            },
            changes: Changes {
                service_templates: service_templates.1,
                cluster_templates: cluster_templates.1,
                managed_clusters: managed_clusters.1,
                rollouts: rollouts.1,
                releases: releases.1,
                charts: charts.1,
                repositories: repositories.1,
                capi_clusters: capi_clusters.1,
                kubeconfigs: kubeconfigs.1,
            },
        };
        (stores, w)
    }
}

/// Looks an object up by namespace and name.
pub fn get<K>(store: &Store<K>, namespace: &str, name: &str) -> Option<std::sync::Arc<K>>
where
    K: Resource + Clone + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    store.get(&reflector::ObjectRef::new(name).within(namespace))
}
