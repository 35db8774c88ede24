//! Who hears of each object a store applied, and what each listener still
//! has to look at.
//!
//! A listener turns every object the store applies into the keys it cares
//! about (the object itself, the cluster a release is made for, ...) and
//! keeps them in a set until it takes them. A key already waiting is not
//! queued twice, so a listener that falls behind during a burst holds at
//! most one entry per key and, once it catches up, looks at each key once,
//! with the store's newest copy. (A ring of objects, as a broadcast keeps,
//! overflows in such a burst; a listener then no longer knows what it
//! missed and has to look at everything.) This is client-go's work queue:
//! deduplicated keys, not a log of events.
//!
//! The keys are worked out when the object is applied, not when they are
//! taken: a listener that judges each version (the engine's own writes
//! coming back are passed over) sees every version, even those a later one
//! replaced before it caught up.

use std::hash::Hash;
use std::sync::{Arc, Mutex, Weak};

use futures::{Stream, stream};
use indexmap::IndexSet;
use tokio::sync::Notify;

/// The listeners of one store. Clones share them.
pub struct Announcer<K> {
    inner: Arc<Listeners<K>>,
}

impl<K> Clone for Announcer<K> {
    fn clone(&self) -> Self {
        Announcer {
            inner: self.inner.clone(),
        }
    }
}

impl<K> Default for Announcer<K> {
    fn default() -> Self {
        Announcer {
            inner: Arc::new(Listeners {
                live: Mutex::new(Vec::new()),
            }),
        }
    }
}

struct Listeners<K> {
    /// Weak: a listener whose stream was dropped stops hearing, and is
    /// forgotten at the next announcement.
    live: Mutex<Vec<Weak<dyn Hear<K>>>>,
}

impl<K> Drop for Listeners<K> {
    /// The store is gone: every listener's stream ends once it has taken
    /// what is waiting.
    fn drop(&mut self) {
        let live = self.live.get_mut().unwrap_or_else(|e| e.into_inner());
        for listener in live.iter().filter_map(Weak::upgrade) {
            listener.close();
        }
    }
}

/// One listener, as the announcer sees it.
trait Hear<K>: Send + Sync {
    fn hear(&self, obj: &K);
    fn close(&self);
}

/// The keys a listener has yet to take, in the order they first came.
struct Waiting<T> {
    keys: IndexSet<T>,
    closed: bool,
}

struct Listener<T, F> {
    waiting: Mutex<Waiting<T>>,
    /// One permit at most: a take after any number of additions wakes once.
    added: Notify,
    keys_of: F,
}

impl<K, T, I, F> Hear<K> for Listener<T, F>
where
    T: Hash + Eq + Send,
    I: IntoIterator<Item = T>,
    F: Fn(&K) -> I + Send + Sync,
{
    fn hear(&self, obj: &K) {
        let mut keys = (self.keys_of)(obj).into_iter().peekable();
        if keys.peek().is_none() {
            return;
        }
        let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
        let before = waiting.keys.len();
        waiting.keys.extend(keys);
        if waiting.keys.len() > before {
            drop(waiting);
            self.added.notify_one();
        }
    }

    fn close(&self) {
        self.waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .closed = true;
        self.added.notify_one();
    }
}

impl<T, F> Listener<T, F> {
    /// Everything waiting, or `None` once the store is gone and nothing is.
    async fn take(&self) -> Option<IndexSet<T>> {
        loop {
            {
                let mut waiting = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
                if !waiting.keys.is_empty() {
                    return Some(std::mem::take(&mut waiting.keys));
                }
                if waiting.closed {
                    return None;
                }
            }
            self.added.notified().await;
        }
    }
}

impl<K: 'static> Announcer<K> {
    /// Tells every listener of `obj`, which the store has just applied (or
    /// deleted).
    pub fn announce(&self, obj: &K) {
        let mut live = self.inner.live.lock().unwrap_or_else(|e| e.into_inner());
        live.retain(|listener| match listener.upgrade() {
            Some(listener) => {
                listener.hear(obj);
                true
            }
            None => false,
        });
    }

    /// A new listener: from now on, the keys `keys_of` finds in each object
    /// announced, each key once however often it comes before it is taken.
    /// It stops listening when the stream is dropped, and the stream ends
    /// when the store is gone.
    pub fn listen<T, I, F>(
        &self,
        keys_of: F,
    ) -> impl Stream<Item = T> + Send + 'static + use<T, I, F, K>
    where
        T: Hash + Eq + Send + 'static,
        I: IntoIterator<Item = T> + 'static,
        F: Fn(&K) -> I + Send + Sync + 'static,
    {
        let listener = Arc::new(Listener {
            waiting: Mutex::new(Waiting {
                keys: IndexSet::new(),
                closed: false,
            }),
            added: Notify::new(),
            keys_of,
        });
        let as_heard: Arc<dyn Hear<K>> = listener.clone();
        self.inner
            .live
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(Arc::downgrade(&as_heard));
        drop(as_heard);
        futures::StreamExt::flatten(stream::unfold(listener, |listener| async move {
            let keys = listener.take().await?;
            Some((stream::iter(keys), listener))
        }))
    }

    /// How many listeners still listen (for tests).
    #[cfg(test)]
    fn listeners(&self) -> usize {
        let live = self.inner.live.lock().unwrap_or_else(|e| e.into_inner());
        live.iter().filter(|l| l.strong_count() > 0).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::StreamExt;

    #[tokio::test]
    async fn a_listener_that_fell_behind_takes_each_key_once_and_misses_none() {
        let announcer = Announcer::<(u32, u32)>::default();
        let mut heard = Box::pin(announcer.listen(|&(key, _version): &(u32, u32)| Some(key)));
        // A burst far beyond any ring's size: 100 keys, 1,000 versions each.
        for version in 0..1_000 {
            for key in 0..100 {
                announcer.announce(&(key, version));
            }
        }
        let keys: Vec<u32> = (&mut heard).take(100).collect().await;
        assert_eq!(keys, (0..100).collect::<Vec<_>>());
        // Nothing more is waiting.
        let next = tokio::time::timeout(std::time::Duration::from_millis(20), heard.next());
        assert!(next.await.is_err());
    }

    #[tokio::test]
    async fn keys_are_judged_per_version_when_announced() {
        let announcer = Announcer::<(u32, bool)>::default();
        // Versions marked `false` (an own write coming back) are passed over,
        // but do not hide an earlier version that was not.
        let mut heard =
            Box::pin(announcer.listen(|&(key, news): &(u32, bool)| news.then_some(key)));
        announcer.announce(&(1, true));
        announcer.announce(&(1, false));
        announcer.announce(&(2, false));
        assert_eq!(heard.next().await, Some(1));
        let next = tokio::time::timeout(std::time::Duration::from_millis(20), heard.next());
        assert!(next.await.is_err());
    }

    #[tokio::test]
    async fn a_key_taken_and_announced_again_is_heard_again() {
        let announcer = Announcer::<u32>::default();
        let mut heard = Box::pin(announcer.listen(|&k: &u32| [k, k + 100]));
        announcer.announce(&1);
        assert_eq!(heard.next().await, Some(1));
        assert_eq!(heard.next().await, Some(101));
        announcer.announce(&1);
        assert_eq!(heard.next().await, Some(1));
    }

    #[tokio::test]
    async fn a_dropped_stream_stops_listening_and_a_dropped_store_ends_the_stream() {
        let announcer = Announcer::<u32>::default();
        let dropped = announcer.listen(|&k: &u32| Some(k));
        let mut kept = Box::pin(announcer.listen(|&k: &u32| Some(k)));
        assert_eq!(announcer.listeners(), 2);
        drop(dropped);
        announcer.announce(&7);
        assert_eq!(announcer.listeners(), 1);
        drop(announcer);
        // What was waiting is still taken, then the stream ends.
        assert_eq!(kept.next().await, Some(7));
        assert_eq!(kept.next().await, None);
    }
}
