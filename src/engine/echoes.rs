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
//! Only the exact version written is recognised, and only once. The watch
//! often delivers that version before the write's answer is read: on a busy
//! engine (10,000 clusters on 2 cores) most of them, and each cost the
//! cluster a reconcile that changed nothing. So a write is announced before
//! it is sent ([`Echoes::writing`]); a version of that object that comes
//! while it is in flight is held, not looked at, until the answer says
//! which version the write made. That one was the echo; any other held
//! version then triggers its cluster ([`Echoes::late`]), as it would have
//! at once.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Mutex;

use kube::Resource;
use kube::runtime::reflector::ObjectRef;

use crate::api::ManagedCluster;
use crate::store::announce::Announcer;

/// The versions last written, per object, all hashed, and the writes in
/// flight. Two versions are kept: a reconcile that adds the finalizer
/// writes the cluster twice, and either version may come back first.
#[derive(Default)]
pub struct Echoes {
    state: Mutex<State>,
    /// The clusters of versions held while a write was in flight that
    /// turned out not to be its echo.
    pub late: Announcer<ObjectRef<ManagedCluster>>,
}

#[derive(Default)]
struct State {
    written: HashMap<u64, [u64; VERSIONS]>,
    in_flight: HashMap<u64, Flight>,
}

/// The writes in flight to one object, and the versions of it that came
/// meanwhile, each with the cluster it would trigger.
#[derive(Default)]
struct Flight {
    writes: usize,
    held: Vec<(u64, ObjectRef<ManagedCluster>)>,
}

const VERSIONS: usize = 2;

/// An object's kind, namespace and name, hashed.
fn key<K: Resource<DynamicType = ()>>(namespace: Option<&str>, name: &str) -> u64 {
    let mut key = DefaultHasher::new();
    (K::kind(&()), namespace, name).hash(&mut key);
    key.finish()
}

fn key_of<K: Resource<DynamicType = ()>>(obj: &K) -> Option<u64> {
    let meta = obj.meta();
    Some(key::<K>(meta.namespace.as_deref(), meta.name.as_ref()?))
}

/// The object's key and its resourceVersion, hashed; `None` for an object
/// without a name or version (never a 0, which marks an empty slot).
fn key_and_version<K: Resource<DynamicType = ()>>(obj: &K) -> Option<(u64, u64)> {
    let mut version = DefaultHasher::new();
    obj.meta().resource_version.as_ref()?.hash(&mut version);
    Some((key_of(obj)?, version.finish().max(1)))
}

/// A write in flight: [`Writing::wrote`] with the answer, or dropped when
/// no write was sent or it failed.
#[must_use]
pub struct Writing<'a> {
    echoes: &'a Echoes,
    key: Option<u64>,
}

impl Writing<'_> {
    /// The write made `written`, as the API server answered it.
    pub fn wrote<K: Resource<DynamicType = ()>>(self, written: &K) {
        if let Some((key, version)) = key_and_version(written) {
            let mut state = self.echoes.lock();
            let held = state.in_flight.get_mut(&key).and_then(|f| {
                f.held
                    .iter()
                    .position(|(v, _)| *v == version)
                    .map(|i| (f, i))
            });
            match held {
                // It came back already, and was held: nothing to look at.
                Some((flight, i)) => {
                    flight.held.swap_remove(i);
                }
                None => {
                    let versions = state.written.entry(key).or_default();
                    versions.rotate_right(1);
                    versions[0] = version;
                }
            }
        }
        // Dropping ends the flight.
    }
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        let Some(key) = self.key else { return };
        let released = {
            let mut state = self.echoes.lock();
            let Some(flight) = state.in_flight.get_mut(&key) else {
                return;
            };
            flight.writes = flight.writes.saturating_sub(1);
            if flight.writes > 0 {
                return;
            }
            state
                .in_flight
                .remove(&key)
                .map(|f| f.held)
                .unwrap_or_default()
        };
        for (_, cluster) in released {
            self.echoes.late.announce(&cluster);
        }
    }
}

impl Echoes {
    /// A write of `obj` is about to be sent: versions of it that come
    /// before the answer wait for it.
    pub fn writing<K: Resource<DynamicType = ()>>(&self, obj: &K) -> Writing<'_> {
        let key = key_of(obj);
        if let Some(key) = key {
            self.lock().in_flight.entry(key).or_default().writes += 1;
        }
        Writing { echoes: self, key }
    }

    /// Whether `obj` is a version this engine wrote (the first time only),
    /// or may be one: it came while a write of it is in flight, and is
    /// held until the answer, when it triggers `cluster` unless it was
    /// that write's.
    pub fn is_echo<K: Resource<DynamicType = ()>>(
        &self,
        obj: &K,
        cluster: impl FnOnce() -> Option<ObjectRef<ManagedCluster>>,
    ) -> bool {
        let Some((key, version)) = key_and_version(obj) else {
            return false;
        };
        let mut state = self.lock();
        if let Some(versions) = state.written.get_mut(&key)
            && let Some(slot) = versions.iter_mut().find(|v| **v == version)
        {
            *slot = 0;
            if versions.iter().all(|v| *v == 0) {
                state.written.remove(&key);
            }
            return true;
        }
        if let Some(flight) = state.in_flight.get_mut(&key)
            && let Some(cluster) = cluster()
        {
            flight.held.push((version, cluster));
            return true;
        }
        false
    }

    /// The cluster `obj` triggers, unless it is (or may be) an echo; see
    /// [`Echoes::is_echo`].
    pub fn cluster_unless_echo<K: Resource<DynamicType = ()>>(
        &self,
        obj: &K,
        cluster: impl Fn() -> Option<ObjectRef<ManagedCluster>>,
    ) -> Option<ObjectRef<ManagedCluster>> {
        if self.is_echo(obj, &cluster) {
            return None;
        }
        cluster()
    }

    /// Forgets an object that is gone.
    pub fn forget<K: Resource<DynamicType = ()>>(&self, namespace: &str, name: &str) {
        self.lock().written.remove(&key::<K>(Some(namespace), name));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().written.len()
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
        echoes
            .writing(&at::<Secret>("r", "10"))
            .wrote(&at::<Secret>("r", "10"));
        // An older version the watch still had in flight, someone else's
        // newer one: both are changes to look at.
        assert!(!echoes.is_echo(&at::<Secret>("r", "9"), || None));
        assert!(!echoes.is_echo(&at::<Secret>("r", "11"), || None));
        assert!(echoes.is_echo(&at::<Secret>("r", "10"), || None));
        // Delivered again (a relist): looked at.
        assert!(!echoes.is_echo(&at::<Secret>("r", "10"), || None));
    }

    #[test]
    fn kinds_and_names_are_told_apart() {
        let echoes = Echoes::default();
        echoes
            .writing(&at::<Secret>("a", "10"))
            .wrote(&at::<Secret>("a", "10"));
        assert!(!echoes.is_echo(&at::<ConfigMap>("a", "10"), || None));
        assert!(!echoes.is_echo(&at::<Secret>("b", "10"), || None));
        let mut elsewhere = at::<Secret>("a", "10");
        elsewhere.metadata.namespace = Some("other".into());
        assert!(!echoes.is_echo(&elsewhere, || None));
        assert!(echoes.is_echo(&at::<Secret>("a", "10"), || None));
    }

    #[test]
    fn the_last_two_writes_are_echoes_in_either_order() {
        let echoes = Echoes::default();
        // The finalizer, then the status, in one reconcile.
        echoes
            .writing(&at::<Secret>("r", "10"))
            .wrote(&at::<Secret>("r", "10"));
        echoes
            .writing(&at::<Secret>("r", "12"))
            .wrote(&at::<Secret>("r", "12"));
        assert_eq!(echoes.len(), 1);
        assert!(echoes.is_echo(&at::<Secret>("r", "12"), || None));
        assert!(echoes.is_echo(&at::<Secret>("r", "10"), || None));
        assert_eq!(
            echoes.len(),
            0,
            "an object whose echoes all came back is dropped"
        );
        // A third write pushes the first out.
        for v in ["20", "21", "22"] {
            echoes
                .writing(&at::<Secret>("r", v))
                .wrote(&at::<Secret>("r", v));
        }
        assert!(!echoes.is_echo(&at::<Secret>("r", "20"), || None));
        assert!(echoes.is_echo(&at::<Secret>("r", "21"), || None));
    }

    #[test]
    fn a_gone_object_is_forgotten() {
        let echoes = Echoes::default();
        echoes
            .writing(&at::<Secret>("r", "12"))
            .wrote(&at::<Secret>("r", "12"));
        echoes.forget::<Secret>("ns", "r");
        assert_eq!(echoes.len(), 0);
        assert!(!echoes.is_echo(&at::<Secret>("r", "12"), || None));
    }

    fn cluster(name: &str) -> Option<ObjectRef<ManagedCluster>> {
        Some(ObjectRef::new(name).within("ns"))
    }

    #[tokio::test]
    async fn a_version_that_comes_before_the_answer_waits_for_it() {
        use futures::StreamExt;
        let echoes = Echoes::default();
        let mut late = Box::pin(
            echoes
                .late
                .listen(|c: &ObjectRef<ManagedCluster>| Some(c.clone())),
        );
        // The echo comes before the answer: held, then recognised.
        let writing = echoes.writing(&at::<Secret>("r", ""));
        assert!(echoes.is_echo(&at::<Secret>("r", "10"), || cluster("c1")));
        writing.wrote(&at::<Secret>("r", "10"));
        // Someone else's version comes while a write is in flight: held,
        // and it triggers its cluster once the write answered with another.
        let writing = echoes.writing(&at::<Secret>("r", ""));
        assert!(echoes.is_echo(&at::<Secret>("r", "11"), || cluster("c1")));
        writing.wrote(&at::<Secret>("r", "12"));
        assert_eq!(late.next().await, cluster("c1"));
        // That write's own version, coming after the answer, is an echo.
        assert!(echoes.is_echo(&at::<Secret>("r", "12"), || None));
        // A write that was not sent (nothing changed) or failed lets what
        // it held go at once.
        let writing = echoes.writing(&at::<Secret>("r", ""));
        assert!(echoes.is_echo(&at::<Secret>("r", "13"), || cluster("c2")));
        drop(writing);
        assert_eq!(late.next().await, cluster("c2"));
        // With no write in flight, a version is looked at at once.
        assert!(!echoes.is_echo(&at::<Secret>("r", "14"), || cluster("c3")));
        let nothing = tokio::time::timeout(std::time::Duration::from_millis(20), late.next());
        assert!(nothing.await.is_err(), "c1 was held only once");
    }
}
