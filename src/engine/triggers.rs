//! Triggers that come from the stores rather than from a watch of their own.
//!
//! A controller's own watch may announce a change before the store that its
//! reconciler reads has it. For rollouts that race matters: a reconcile that
//! reads the rollout before the store has an operator's request, or a cluster
//! that reads it before its wave started, finds nothing to do and would wait
//! for the next periodic look. These triggers come from the stores'
//! announcements of what they applied, so the reconcile always sees the
//! change; a controller that falls behind takes each waiting key once (see
//! `store::announce`).

use futures::{Stream, StreamExt, stream};
use kube::ResourceExt;
use kube::runtime::reflector::{ObjectRef, Store};
use std::collections::HashMap;
use std::sync::Arc;

use crate::api::{
    ClusterRolloutState, ClusterTemplate, ManagedCluster, MultiClusterService, RolloutSubject,
    TemplateRollout, TemplateRolloutStatus,
};
use crate::store::announce::Announcer;

/// The ClusterTemplate of every rollout the store applied (a request, a
/// status written, the rollout deleted).
pub fn rollout_templates(
    applied: &Announcer<TemplateRollout>,
) -> impl Stream<Item = ObjectRef<ClusterTemplate>> + Send + 'static {
    applied.listen(|r: &TemplateRollout| match r.spec.subject() {
        RolloutSubject::Template(t) => {
            Some(ObjectRef::new(t).within(&r.namespace().unwrap_or_default()))
        }
        RolloutSubject::MultiClusterService(_) => None,
    })
}

/// The MultiClusterService of every rollout of one that the store applies.
pub fn rollout_multi_cluster_services(
    applied: &Announcer<TemplateRollout>,
) -> impl Stream<Item = ObjectRef<MultiClusterService>> + Send + 'static {
    applied.listen(|r: &TemplateRollout| match r.spec.subject() {
        RolloutSubject::MultiClusterService(m) => {
            Some(ObjectRef::new(m).within(&r.namespace().unwrap_or_default()))
        }
        RolloutSubject::Template(_) => None,
    })
}

/// The clusters whose revision a rollout has just changed: those a wave
/// reached and those a rollback or skip gave back their previous one, each
/// once, when it enters that state. (Clusters waiting or already updated
/// keep theirs, and a status write that only updates reasons and summaries
/// triggers no cluster.) Every status the store applies is judged, so no
/// state is missed however far the controller is behind.
pub fn rollout_clusters(
    applied: &Announcer<TemplateRollout>,
) -> impl Stream<Item = ObjectRef<ManagedCluster>> + Send + 'static {
    let seen = std::sync::Mutex::new(HashMap::<String, Moved>::new());
    applied.listen(move |r: &TemplateRollout| {
        let ns = r.namespace().unwrap_or_default();
        let key = format!("{ns}/{}/{}", r.name_any(), r.uid().unwrap_or_default());
        let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
        let moved = seen.entry(key.clone()).or_default();
        let names = r
            .status
            .as_ref()
            .map(|s| newly_moved(moved, s))
            .unwrap_or_default();
        // A finished rollout moves no cluster again.
        if r.status.as_ref().is_some_and(|s| s.phase.is_terminal()) {
            seen.remove(&key);
        }
        names
            .into_iter()
            .map(|c| ObjectRef::new(&c).within(&ns))
            .collect::<Vec<_>>()
    })
}

/// The clusters of one rollout in a state that changes their revision.
type Moved = HashMap<String, ClusterRolloutState>;

/// The clusters that `status` puts in a state that changes their revision
/// (updating, rolled back, skipped) and that were not in that state in
/// `moved`, which then holds what `status` says.
pub fn newly_moved(moved: &mut Moved, status: &TemplateRolloutStatus) -> Vec<String> {
    let mut now = Moved::with_capacity(moved.len());
    let mut names = Vec::new();
    for c in &status.clusters {
        if !matches!(
            c.state,
            ClusterRolloutState::Updating
                | ClusterRolloutState::RolledBack
                | ClusterRolloutState::Skipped
        ) {
            continue;
        }
        if moved.get(&c.name) != Some(&c.state) {
            names.push(c.name.clone());
        }
        now.insert(c.name.clone(), c.state);
    }
    *moved = now;
    names
}

/// Turns a store's announcements into triggers, through `map`.
pub fn from_applied<K, T, I>(
    applied: &Announcer<K>,
    map: impl Fn(&K) -> I + Send + Sync + 'static,
) -> impl Stream<Item = ObjectRef<T>> + Send + 'static
where
    K: 'static,
    T: kube::Resource + 'static,
    T::DynamicType: Clone + Eq + std::hash::Hash + Send + Sync,
    I: IntoIterator<Item = ObjectRef<T>> + 'static,
{
    applied.listen(map)
}

/// A controller's own objects, from the store it reads: everything in the
/// store when the controller starts, then each object the store applies,
/// as the store holds it when the controller takes it. The controller then
/// needs no watch and no store of its own, so the objects are held once.
///
/// The store may have listed long before the controller starts (an engine
/// that takes the lease later): what it holds then is where the
/// controller's first pass starts, read when the stream is first polled.
/// (Listening starts at once, so nothing applied in between is missed.)
///
/// Of the objects applied later, only those `changed` accepts trigger (the
/// controller's own writes coming back, see `echoes`, need no second look).
/// An object deleted before it is taken is passed over: there is nothing
/// left to reconcile.
pub fn shared<K>(
    applied: &Announcer<K>,
    store: Store<K>,
    changed: impl Fn(&K) -> bool + Send + Sync + 'static,
) -> impl Stream<Item = Arc<K>> + Send + 'static
where
    K: kube::Resource + Clone + Send + Sync + 'static,
    K::DynamicType: Clone + Eq + std::hash::Hash + Default + Send + Sync,
{
    let updates = applied.listen(move |obj: &K| changed(obj).then(|| ObjectRef::from_obj(obj)));
    let first = store.clone();
    let initial = stream::once(async move { stream::iter(first.state()) }).flatten();
    let updates = updates.filter_map(move |r| std::future::ready(store.get(&r)));
    initial.chain(updates)
}

/// The owners of kind `T` of an object, in the object's namespace: a chart
/// repository that templates share has one each.
pub fn owners<T>(obj: &impl kube::Resource) -> Vec<ObjectRef<T>>
where
    T: kube::Resource<DynamicType = ()>,
{
    let Some(ns) = obj.meta().namespace.clone() else {
        return Vec::new();
    };
    obj.meta()
        .owner_references
        .iter()
        .flatten()
        .filter(|o| o.kind == T::kind(&()) && o.api_version == T::api_version(&()))
        .map(|o| ObjectRef::new(&o.name).within(&ns))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::runtime::{reflector, watcher};

    fn cm(name: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some("ns".into());
        cm
    }

    #[tokio::test]
    async fn a_shared_stream_starts_from_what_the_store_already_holds() {
        let (reader, mut writer) = reflector::store::<ConfigMap>();
        let applied = Announcer::default();
        // Listed before the controller listened: no announcement reaches it.
        writer.apply_watcher_event(&watcher::Event::Apply(cm("listed")));
        let mut stream = Box::pin(shared(&applied, reader.clone(), |cm: &ConfigMap| {
            cm.name_any() != "echo"
        }));
        assert_eq!(stream.next().await.unwrap().name_any(), "listed");
        // Later changes come from the announcements, after the store has them.
        let mut apply = |o: ConfigMap, gone: bool| {
            let event = if gone {
                watcher::Event::Delete(o.clone())
            } else {
                watcher::Event::Apply(o.clone())
            };
            writer.apply_watcher_event(&event);
            // Announced after the store applied it, as the stores do.
            if !gone {
                applied.announce(&o);
            }
        };
        // One that is not a change to look at is passed over.
        apply(cm("echo"), false);
        apply(cm("new"), false);
        assert_eq!(stream.next().await.unwrap().name_any(), "new");
        // A burst of changes to one object while the controller is busy:
        // one look, at the store's newest copy.
        for version in 0..10_000 {
            let mut o = cm("new");
            o.metadata.resource_version = Some(version.to_string());
            apply(o, false);
        }
        // One deleted before the controller took it: nothing to look at.
        apply(cm("gone"), false);
        apply(cm("gone"), true);
        apply(cm("last"), false);
        let newest = stream.next().await.unwrap();
        assert_eq!(newest.name_any(), "new");
        assert_eq!(newest.resource_version().as_deref(), Some("9999"));
        assert_eq!(stream.next().await.unwrap().name_any(), "last");
    }

    fn status(states: &[(&str, ClusterRolloutState)]) -> TemplateRolloutStatus {
        TemplateRolloutStatus {
            clusters: states
                .iter()
                .map(|(n, s)| crate::api::ClusterRolloutStatus {
                    name: n.to_string(),
                    wave: 1,
                    state: *s,
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn only_clusters_entering_a_moving_state_are_triggered() {
        use ClusterRolloutState::*;
        let mut moved = Moved::new();
        let first = status(&[("a", Updating), ("b", Updating), ("c", Waiting)]);
        assert_eq!(newly_moved(&mut moved, &first), ["a", "b"]);
        // The same states again (new reasons, summaries): nothing.
        assert!(newly_moved(&mut moved, &first).is_empty());
        // a is updated, b failed, c's wave starts.
        let next = status(&[("a", Updated), ("b", Failed), ("c", Updating)]);
        assert_eq!(newly_moved(&mut moved, &next), ["c"]);
        // b retried: updating again, so triggered again; a skipped.
        let retried = status(&[("a", Skipped), ("b", Updating), ("c", Updating)]);
        assert_eq!(newly_moved(&mut moved, &retried), ["a", "b"]);
        // Rolled back: every cluster it touched.
        let back = status(&[("a", Skipped), ("b", RolledBack), ("c", RolledBack)]);
        assert_eq!(newly_moved(&mut moved, &back), ["b", "c"]);
    }
}
