//! The one cache: a reflector store per kind, fed by one watch per kind and
//! shared by the engine's controllers and the console.

use std::fmt::Debug;
use std::hash::Hash;

use futures::{FutureExt, StreamExt, future::BoxFuture};
use k8s_openapi::api::core::v1::Secret;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, ReflectHandle, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, labels};
use crate::capi;
use crate::flux::{HelmChart, HelmRelease, HelmRepository};

/// Events buffered per subscriber before the watch waits for it.
const BUFFER: usize = 1024;

/// A store and a subscription to the same watch.
#[derive(Clone)]
pub struct Shared<K: Resource + Clone + 'static>
where
    K::DynamicType: Eq + Hash + Clone,
{
    pub store: Store<K>,
    pub events: ReflectHandle<K>,
}

/// Every store the engine and the console read.
#[derive(Clone)]
pub struct Stores {
    pub service_templates: Shared<ServiceTemplate>,
    pub cluster_templates: Shared<ClusterTemplate>,
    pub managed_clusters: Shared<ManagedCluster>,
    pub releases: Shared<HelmRelease>,
    pub charts: Shared<HelmChart>,
    pub repositories: Shared<HelmRepository>,
    pub capi_clusters: Shared<capi::Cluster>,
    /// Metadata of kubeconfig secrets only: their contents are never cached.
    pub kubeconfigs: Shared<PartialObjectMeta<Secret>>,
}

/// Where to watch.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// `None` watches all namespaces.
    pub namespace: Option<String>,
}

impl Scope {
    fn api<K>(&self, client: &Client) -> Api<K>
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

fn ours() -> watcher::Config {
    watcher::Config::default().labels(&format!(
        "{}={}",
        labels::MANAGED_BY,
        labels::MANAGED_BY_VALUE
    ))
}

fn shared<K>(api: Api<K>, config: watcher::Config, watches: &mut Watches) -> Shared<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    let (store, writer) = reflector::store_shared(BUFFER);
    let events = writer
        .subscribe()
        .expect("a shared store always subscribes");
    let kind = K::kind(&Default::default()).to_string();
    let stream = watcher(api, config)
        .default_backoff()
        .modify(|o| o.managed_fields_mut().clear())
        .reflect_shared(writer)
        .for_each(move |event| {
            if let Err(error) = event {
                tracing::warn!(%kind, %error, "watch failed; retrying with backoff");
            }
            futures::future::ready(())
        });
    watches.push(stream.boxed());
    Shared { store, events }
}

impl Stores {
    /// Sets up one watch per kind. Nothing is read until the returned
    /// watches are driven.
    pub fn new(client: &Client, scope: &Scope) -> (Stores, Watches) {
        let mut w = Watches::new();
        // Metadata only: the contents of kubeconfig secrets are never cached.
        let secrets: Api<PartialObjectMeta<Secret>> = match &scope.namespace {
            Some(ns) => Api::namespaced(client.clone(), ns),
            None => Api::all(client.clone()),
        };
        let kubeconfigs = {
            let (store, writer) = reflector::store_shared(BUFFER);
            let events = writer
                .subscribe()
                .expect("a shared store always subscribes");
            let config = watcher::Config::default().fields("type=cluster.x-k8s.io/secret");
            let stream = watcher(secrets, config)
                .default_backoff()
                .modify(|o| o.managed_fields_mut().clear())
                .reflect_shared(writer)
                .for_each(|event| {
                    if let Err(error) = event {
                        tracing::warn!(kind = "Secret", %error, "watch failed; retrying with backoff");
                    }
                    futures::future::ready(())
                });
            w.push(stream.boxed());
            Shared { store, events }
        };
        let stores = Stores {
            service_templates: shared(scope.api(client), watcher::Config::default(), &mut w),
            cluster_templates: shared(scope.api(client), watcher::Config::default(), &mut w),
            managed_clusters: shared(scope.api(client), watcher::Config::default(), &mut w),
            releases: shared(scope.api(client), ours(), &mut w),
            charts: shared(scope.api(client), ours(), &mut w),
            repositories: shared(scope.api(client), ours(), &mut w),
            capi_clusters: shared(scope.api(client), watcher::Config::default(), &mut w),
            kubeconfigs,
        };
        (stores, w)
    }

    /// Resolves once every store has its first full list.
    pub async fn wait_until_ready(&self) -> Result<(), reflector::store::WriterDropped> {
        self.service_templates.store.wait_until_ready().await?;
        self.cluster_templates.store.wait_until_ready().await?;
        self.managed_clusters.store.wait_until_ready().await?;
        self.releases.store.wait_until_ready().await?;
        self.charts.store.wait_until_ready().await?;
        self.repositories.store.wait_until_ready().await?;
        self.capi_clusters.store.wait_until_ready().await?;
        self.kubeconfigs.store.wait_until_ready().await?;
        Ok(())
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
