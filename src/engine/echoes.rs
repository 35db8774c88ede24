//! The cluster controller's own writes, as they come back through the watch.
//!
//! Each write of a cluster's reconcile (its finalizer, its releases, its
//! status) comes back a moment later as a new version of that object in the
//! store, which would trigger the cluster again. The reconcile that wrote
//! it already accounted for what it wrote (a service's status is worked out
//! "as the next look at the release will read it"), so that second look
//! finds nothing to do: at 1,000 clusters getting a new revision it was
//! three reconciles in four. The version this engine wrote triggers nothing;
//! any other version does, whoever wrote it (the release controller's status,
//! a user's edit), because each write makes a new resourceVersion.
//!
//! Only the exact version written is recognised, and only once. A version
//! the watch delivered before the write's answer came back is not
//! recognised: it triggers, as it would without this, and the entry it
//! leaves is replaced by the object's next write or dropped when it goes.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

use kube::Resource;

/// The versions last written, per object, all hashed. Two are kept: a
/// reconcile that adds the finalizer writes the cluster twice, and either
/// version may come back first.
#[derive(Debug, Default)]
pub struct Echoes(Mutex<HashMap<u64, [u64; VERSIONS]>>);

const VERSIONS: usize = 2;

/// An object's kind, namespace and name, hashed.
fn key<K: Resource<DynamicType = ()>>(namespace: Option<&str>, name: &str) -> u64 {
    let mut key = DefaultHasher::new();
    (K::kind(&()), namespace, name).hash(&mut key);
    key.finish()
}

/// The object's key and its resourceVersion, hashed; `None` for an object
/// without a name or version (never a 0, which marks an empty slot).
fn key_and_version<K: Resource<DynamicType = ()>>(obj: &K) -> Option<(u64, u64)> {
    let meta = obj.meta();
    let mut version = DefaultHasher::new();
    meta.resource_version.as_ref()?.hash(&mut version);
    Some((
        key::<K>(meta.namespace.as_deref(), meta.name.as_ref()?),
        version.finish().max(1),
    ))
}

impl Echoes {
    /// Remembers `written`, as the API server answered the write.
    pub fn wrote<K: Resource<DynamicType = ()>>(&self, written: &K) {
        if let Some((key, version)) = key_and_version(written) {
            let mut map = self.lock();
            let versions = map.entry(key).or_default();
            versions.rotate_right(1);
            versions[0] = version;
        }
    }

    /// Whether `obj` is a version this engine wrote; the first time only.
    pub fn is_echo<K: Resource<DynamicType = ()>>(&self, obj: &K) -> bool {
        let Some((key, version)) = key_and_version(obj) else {
            return false;
        };
        let mut map = self.lock();
        let Some(versions) = map.get_mut(&key) else {
            return false;
        };
        let Some(slot) = versions.iter_mut().find(|v| **v == version) else {
            return false;
        };
        *slot = 0;
        if versions.iter().all(|v| *v == 0) {
            map.remove(&key);
        }
        true
    }

    /// Forgets an object that is gone.
    pub fn forget<K: Resource<DynamicType = ()>>(&self, namespace: &str, name: &str) {
        self.lock().remove(&key::<K>(Some(namespace), name));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, [u64; VERSIONS]>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{ConfigMap, Secret};

    fn at<K: Resource<DynamicType = ()> + Default>(name: &str, version: &str) -> K {
        let mut o = K::default();
        o.meta_mut().namespace = Some("ns".into());
        o.meta_mut().name = Some(name.into());
        o.meta_mut().resource_version = Some(version.into());
        o
    }

    #[test]
    fn only_the_version_written_is_an_echo_and_only_once() {
        let echoes = Echoes::default();
        echoes.wrote(&at::<Secret>("r", "10"));
        // An older version the watch still had in flight, someone else's
        // newer one: both are changes to look at.
        assert!(!echoes.is_echo(&at::<Secret>("r", "9")));
        assert!(!echoes.is_echo(&at::<Secret>("r", "11")));
        assert!(echoes.is_echo(&at::<Secret>("r", "10")));
        // Delivered again (a relist): looked at.
        assert!(!echoes.is_echo(&at::<Secret>("r", "10")));
    }

    #[test]
    fn kinds_and_names_are_told_apart() {
        let echoes = Echoes::default();
        echoes.wrote(&at::<Secret>("a", "10"));
        assert!(!echoes.is_echo(&at::<ConfigMap>("a", "10")));
        assert!(!echoes.is_echo(&at::<Secret>("b", "10")));
        let mut elsewhere = at::<Secret>("a", "10");
        elsewhere.metadata.namespace = Some("other".into());
        assert!(!echoes.is_echo(&elsewhere));
        assert!(echoes.is_echo(&at::<Secret>("a", "10")));
    }

    #[test]
    fn the_last_two_writes_are_echoes_in_either_order() {
        let echoes = Echoes::default();
        // The finalizer, then the status, in one reconcile.
        echoes.wrote(&at::<Secret>("r", "10"));
        echoes.wrote(&at::<Secret>("r", "12"));
        assert_eq!(echoes.len(), 1);
        assert!(echoes.is_echo(&at::<Secret>("r", "12")));
        assert!(echoes.is_echo(&at::<Secret>("r", "10")));
        assert_eq!(
            echoes.len(),
            0,
            "an object whose echoes all came back is dropped"
        );
        // A third write pushes the first out.
        for v in ["20", "21", "22"] {
            echoes.wrote(&at::<Secret>("r", v));
        }
        assert!(!echoes.is_echo(&at::<Secret>("r", "20")));
        assert!(echoes.is_echo(&at::<Secret>("r", "21")));
    }

    #[test]
    fn a_gone_object_is_forgotten() {
        let echoes = Echoes::default();
        echoes.wrote(&at::<Secret>("r", "12"));
        echoes.forget::<Secret>("ns", "r");
        assert_eq!(echoes.len(), 0);
        assert!(!echoes.is_echo(&at::<Secret>("r", "12")));
    }
}
