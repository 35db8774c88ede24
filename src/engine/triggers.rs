//! Triggers that come from the stores rather than from a watch of their own.
//!
//! A controller's own watch may announce a change before the store that its
//! reconciler reads has it. For rollouts that race matters: a reconcile that
//! reads the rollout before the store has an operator's request, or a cluster
//! that reads it before its wave started, finds nothing to do and would wait
//! for the next periodic look. These triggers fire after the store has
//! applied the change, so the reconcile always sees it.

use std::collections::HashMap;

use futures::{Stream, StreamExt, stream};
use kube::ResourceExt;
use kube::runtime::reflector::{ObjectRef, Store};
use std::sync::Arc;

use tokio::sync::{broadcast, watch};

use crate::api::{ClusterRolloutState, ClusterTemplate, ManagedCluster, TemplateRollout};

/// Calls `diff` with the store after every change it announces and emits
/// what `diff` returns. `diff` keeps its own memory of what it saw.
fn after_each_change<T, S>(
    changes: watch::Receiver<u64>,
    store: Store<TemplateRollout>,
    memory: S,
    diff: fn(&Store<TemplateRollout>, &mut S) -> Vec<T>,
) -> impl Stream<Item = T> + Send + 'static
where
    T: Send + 'static,
    S: Send + 'static,
{
    stream::unfold((changes, memory), move |(mut rx, mut memory)| {
        let store = store.clone();
        async move {
            rx.changed().await.ok()?;
            let out = diff(&store, &mut memory);
            Some((stream::iter(out), (rx, memory)))
        }
    })
    .flatten()
}

type Key = (String, String);

fn key(r: &TemplateRollout) -> Key {
    (r.namespace().unwrap_or_default(), r.name_any())
}

/// The ClusterTemplate of every rollout that changed (a request, a status
/// written, the rollout deleted).
pub fn rollout_templates(
    changes: watch::Receiver<u64>,
    store: Store<TemplateRollout>,
) -> impl Stream<Item = ObjectRef<ClusterTemplate>> + Send + 'static {
    let memory: HashMap<Key, (String, Option<String>)> = HashMap::new();
    after_each_change(changes, store, memory, |store, seen| {
        let mut now: HashMap<Key, (String, Option<String>)> = HashMap::new();
        let mut out = Vec::new();
        for r in store.state() {
            let entry = (r.spec.template.clone(), r.resource_version());
            if seen.get(&key(&r)) != Some(&entry) {
                out.push(ObjectRef::new(&entry.0).within(&key(&r).0));
            }
            now.insert(key(&r), entry);
        }
        for (k, (template, _)) in seen.iter() {
            if !now.contains_key(k) {
                out.push(ObjectRef::new(template).within(&k.0));
            }
        }
        *seen = now;
        out
    })
}

/// The clusters whose revision a rollout just changed: a wave reached them,
/// or a rollback or skip gave them back their previous one.
pub fn rollout_clusters(
    changes: watch::Receiver<u64>,
    store: Store<TemplateRollout>,
) -> impl Stream<Item = ObjectRef<ManagedCluster>> + Send + 'static {
    let memory: HashMap<(Key, String), ClusterRolloutState> = HashMap::new();
    after_each_change(changes, store, memory, |store, seen| {
        let mut now = HashMap::new();
        let mut out = Vec::new();
        for r in store.state() {
            let k = key(&r);
            for c in r.status.iter().flat_map(|s| s.clusters.iter()) {
                let id = (k.clone(), c.name.clone());
                let moved = matches!(
                    c.state,
                    ClusterRolloutState::Updating
                        | ClusterRolloutState::RolledBack
                        | ClusterRolloutState::Skipped
                );
                if moved && seen.get(&id) != Some(&c.state) {
                    out.push(ObjectRef::new(&c.name).within(&k.0));
                }
                now.insert(id, c.state);
            }
        }
        *seen = now;
        out
    })
}

/// Turns a store's broadcast of applied objects into triggers, through
/// `map`. A receiver that fell behind gets `fallback`: everything it might
/// have missed.
pub fn from_applied<K, T, I>(
    rx: broadcast::Receiver<Arc<K>>,
    map: impl Fn(&K) -> I + Send + 'static,
    fallback: impl Fn() -> Vec<ObjectRef<T>> + Send + 'static,
) -> impl Stream<Item = ObjectRef<T>> + Send + 'static
where
    K: Send + Sync + 'static,
    T: kube::Resource + 'static,
    T::DynamicType: Clone + Eq + std::hash::Hash + Send + Sync,
    I: IntoIterator<Item = ObjectRef<T>>,
{
    stream::unfold((rx, map, fallback), |(mut rx, map, fallback)| async move {
        let out = loop {
            match rx.recv().await {
                Ok(obj) => {
                    let refs: Vec<ObjectRef<T>> = map(&obj).into_iter().collect();
                    if !refs.is_empty() {
                        break refs;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "trigger stream fell behind; looking at everything");
                    break fallback();
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        };
        Some((stream::iter(out), (rx, map, fallback)))
    })
    .flatten()
}

/// Every ManagedCluster in the store, for a trigger stream that fell behind.
pub fn all_clusters(store: Store<ManagedCluster>) -> impl Fn() -> Vec<ObjectRef<ManagedCluster>> {
    move || {
        store
            .state()
            .iter()
            .map(|c| ObjectRef::from_obj(c.as_ref()))
            .collect()
    }
}
