//! An index of one store by a key each object carries (the releases by the
//! cluster they are made for), kept by the watch that feeds the store, so
//! that a reconcile finds a cluster's few releases without looking at every
//! release in scope.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

use kube::ResourceExt;
use kube::runtime::watcher;

/// Namespace and key: one bucket.
type Bucket = (String, String);

#[derive(Debug, Default)]
struct Buckets {
    /// The names in each bucket.
    names: HashMap<Bucket, BTreeSet<String>>,
    /// The bucket of each (namespace, name), to move an object whose key
    /// changed.
    bucket_of: HashMap<(String, String), Bucket>,
}

impl Buckets {
    fn insert(&mut self, ns: String, name: String, key: Option<String>) {
        self.remove(&ns, &name);
        if let Some(key) = key {
            let bucket = (ns.clone(), key);
            self.names
                .entry(bucket.clone())
                .or_default()
                .insert(name.clone());
            self.bucket_of.insert((ns, name), bucket);
        }
    }

    fn remove(&mut self, ns: &str, name: &str) {
        let Some(bucket) = self.bucket_of.remove(&(ns.to_string(), name.to_string())) else {
            return;
        };
        if let Some(names) = self.names.get_mut(&bucket) {
            names.remove(name);
            if names.is_empty() {
                self.names.remove(&bucket);
            }
        }
    }
}

/// The names of a store's objects by (namespace, key). Cloning is free;
/// every clone reads the same index.
#[derive(Clone)]
pub struct Index<K> {
    key: fn(&K) -> Option<String>,
    live: Arc<RwLock<Buckets>>,
    /// A relist's objects, swapped in when it is complete (as the store
    /// swaps its own).
    relist: Arc<RwLock<Option<Buckets>>>,
}

impl<K: kube::Resource> Index<K> {
    /// An empty index of objects by `key`; objects without a key are left
    /// out.
    pub fn new(key: fn(&K) -> Option<String>) -> Self {
        Self {
            key,
            live: Default::default(),
            relist: Default::default(),
        }
    }

    /// The names of the objects in `namespace` whose key is `key`.
    pub fn names(&self, namespace: &str, key: &str) -> Vec<String> {
        let live = self.live.read().unwrap_or_else(|e| e.into_inner());
        live.names
            .get(&(namespace.to_string(), key.to_string()))
            .map(|n| n.iter().cloned().collect())
            .unwrap_or_default()
    }

    fn entry(&self, o: &K) -> (String, String, Option<String>) {
        (
            o.namespace().unwrap_or_default(),
            o.name_any(),
            (self.key)(o),
        )
    }

    /// Follows one event of the watch that feeds the store.
    pub fn apply(&self, event: &watcher::Event<K>) {
        match event {
            watcher::Event::Apply(o) => {
                let (ns, name, key) = self.entry(o);
                let mut live = self.live.write().unwrap_or_else(|e| e.into_inner());
                live.insert(ns, name, key);
            }
            watcher::Event::Delete(o) => {
                let (ns, name, _) = self.entry(o);
                let mut live = self.live.write().unwrap_or_else(|e| e.into_inner());
                live.remove(&ns, &name);
            }
            watcher::Event::Init => {
                *self.relist.write().unwrap_or_else(|e| e.into_inner()) = Some(Buckets::default());
            }
            watcher::Event::InitApply(o) => {
                let (ns, name, key) = self.entry(o);
                let mut relist = self.relist.write().unwrap_or_else(|e| e.into_inner());
                relist
                    .get_or_insert_with(Default::default)
                    .insert(ns, name, key);
            }
            watcher::Event::InitDone => {
                let done = self
                    .relist
                    .write()
                    .unwrap_or_else(|e| e.into_inner())
                    .take()
                    .unwrap_or_default();
                *self.live.write().unwrap_or_else(|e| e.into_inner()) = done;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    fn cm(ns: &str, name: &str, owner: Option<&str>) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.namespace = Some(ns.into());
        if let Some(o) = owner {
            cm.metadata.labels = Some([("owner".to_string(), o.to_string())].into());
        }
        cm
    }

    fn owner(cm: &ConfigMap) -> Option<String> {
        cm.labels().get("owner").cloned()
    }

    #[test]
    fn objects_are_found_by_namespace_and_key() {
        let index = Index::new(owner);
        for o in [
            cm("a", "x", Some("x")),
            cm("a", "x-svc", Some("x")),
            cm("a", "y", Some("y")),
            cm("b", "x", Some("x")),
            cm("a", "loose", None),
        ] {
            index.apply(&watcher::Event::Apply(o));
        }
        assert_eq!(index.names("a", "x"), ["x", "x-svc"]);
        assert_eq!(index.names("b", "x"), ["x"]);
        assert!(index.names("a", "z").is_empty());
        // A changed key moves the object; a deleted one goes.
        index.apply(&watcher::Event::Apply(cm("a", "x-svc", Some("y"))));
        assert_eq!(index.names("a", "x"), ["x"]);
        assert_eq!(index.names("a", "y"), ["x-svc", "y"]);
        index.apply(&watcher::Event::Delete(cm("a", "y", Some("y"))));
        assert_eq!(index.names("a", "y"), ["x-svc"]);
        index.apply(&watcher::Event::Apply(cm("a", "x-svc", None)));
        assert!(index.names("a", "y").is_empty());
    }

    #[test]
    fn a_relist_replaces_the_index_when_it_is_complete() {
        let index = Index::new(owner);
        index.apply(&watcher::Event::Apply(cm("a", "gone", Some("x"))));
        index.apply(&watcher::Event::Init);
        index.apply(&watcher::Event::InitApply(cm("a", "x", Some("x"))));
        // Until the relist is done, the index is what it was.
        assert_eq!(index.names("a", "x"), ["gone"]);
        index.apply(&watcher::Event::InitDone);
        assert_eq!(index.names("a", "x"), ["x"]);
    }
}
