//! The first page of a store's list, read ahead of the watch's first full
//! list, so that the console draws before every object has arrived.

use std::fmt::Debug;
use std::hash::Hash;

use kube::runtime::{reflector, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::watch;

/// A store's writer, shared by its watch and its [`FirstPage`].
pub(crate) struct Shared<K: 'static + reflector::Lookup + Clone>
where
    K::DynamicType: Eq + Hash + Clone,
{
    pub(crate) writer: reflector::store::Writer<K>,
    /// The watch's first full list is in the store.
    pub(crate) listed: bool,
    /// How many objects the list holds in all, as the first page said.
    pub(crate) total: Option<usize>,
}

impl<K> Shared<K>
where
    K: 'static + reflector::Lookup + Clone,
    K::DynamicType: Eq + Hash + Clone,
{
    /// The watch's event. Its first list is buffered until it is complete
    /// (as kube's reflector does), then replaces whatever the store held:
    /// a first page read before it leaves nothing behind.
    pub(crate) fn watched(&mut self, event: &watcher::Event<K>) {
        self.writer.apply_watcher_event(event);
        if matches!(event, watcher::Event::InitDone) {
            self.listed = true;
        }
    }

    /// A first page of `total` objects in all: into the store at once,
    /// unless the full list came first. Whether it was taken.
    pub(crate) fn first_page(&mut self, objects: Vec<K>, total: usize) -> bool {
        if self.listed {
            return false;
        }
        for object in objects {
            self.writer
                .apply_watcher_event(&watcher::Event::Apply(object));
        }
        self.total = Some(total);
        true
    }
}

/// The first page of a store's list, read ahead of the watch's first full
/// list so that a console can draw from it. The watch reads its list in
/// pages too, but the store takes them in only once the last one came (a
/// list replaces the store at once), and the watch does not say how many
/// objects there are in all; this page is read on its own, with
/// `remainingItemCount`, and the console starts the watches once the
/// pages are in (they would queue beside them). Its objects are in the
/// store until the full list replaces them; once the store is listed a
/// late page is dropped. The engine, which waits for
/// [`Stores::wait_until_ready`](super::Stores::wait_until_ready), never
/// reads one.
pub struct FirstPage<K: 'static + reflector::Lookup + Clone>
where
    K::DynamicType: Eq + Hash + Clone,
{
    pub(super) api: Api<K>,
    pub(super) params: kube::api::ListParams,
    pub(super) keep: fn(&K) -> bool,
    pub(super) strip: fn(&mut K),
    pub(super) shared: std::sync::Arc<std::sync::Mutex<Shared<K>>>,
    pub(super) changes: std::sync::Arc<watch::Sender<u64>>,
}

impl<K> Clone for FirstPage<K>
where
    K: 'static + reflector::Lookup + Clone,
    K::DynamicType: Eq + Hash + Clone,
{
    fn clone(&self) -> Self {
        FirstPage {
            api: self.api.clone(),
            params: self.params.clone(),
            keep: self.keep,
            strip: self.strip,
            shared: self.shared.clone(),
            changes: self.changes.clone(),
        }
    }
}

impl<K> FirstPage<K>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::DynamicType: Eq + Hash + Clone + Default,
{
    /// How many objects the list holds in all, once the first page said
    /// so (`None` before, or when the API server did not say).
    pub fn total(&self) -> Option<usize> {
        self.lock().total
    }

    /// Whether the first page is in the store (and the full list not yet).
    pub fn arrived(&self) -> bool {
        let shared = self.lock();
        !shared.listed && shared.total.is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shared<K>> {
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the first `limit` objects into the store, unless the full list
    /// is there first. A failure is left to the watch, which reports it.
    pub async fn read(self, limit: u32) {
        let params = self.params.clone().limit(limit);
        let list = match self.api.list(&params).await {
            Ok(list) => list,
            Err(error) => {
                tracing::debug!(%error, "cannot read a first page; waiting for the full list");
                return;
            }
        };
        let remaining = list.metadata.remaining_item_count.unwrap_or(0).max(0) as usize;
        let total = list.items.len() + remaining;
        let objects: Vec<K> = list
            .items
            .into_iter()
            .filter(|o| (self.keep)(o))
            .map(|mut o| {
                (self.strip)(&mut o);
                o
            })
            .collect();
        let kept = self.lock().first_page(objects, total);
        if kept {
            self.changes.send_modify(|n| *n += 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::ResourceExt;
    use kube::runtime::reflector::Store;

    /// A first page shows in the store at once; the full list then
    /// replaces it, so what the page had and the list has not (deleted in
    /// between) goes; a page after the list is dropped.
    #[test]
    fn a_first_page_shows_until_the_full_list_replaces_it() {
        use k8s_openapi::api::core::v1::ConfigMap;
        let cm = |name: &str, version: &str| {
            let mut cm = ConfigMap::default();
            cm.metadata.name = Some(name.into());
            cm.metadata.namespace = Some("ns".into());
            cm.metadata.resource_version = Some(version.into());
            cm
        };
        let (store, writer) = reflector::store::<ConfigMap>();
        let mut shared = Shared {
            writer,
            listed: false,
            total: None,
        };
        let names = |store: &Store<ConfigMap>| {
            let mut v: Vec<(String, String)> = store
                .state()
                .iter()
                .map(|c| (c.name_any(), c.resource_version().unwrap_or_default()))
                .collect();
            v.sort();
            v
        };
        // The watch starts its list; the page comes first.
        shared.watched(&watcher::Event::Init);
        assert!(shared.first_page(vec![cm("a", "1"), cm("b", "1")], 5));
        assert_eq!(shared.total, Some(5));
        assert_eq!(names(&store).len(), 2, "the page shows at once");
        // The full list: "b" was deleted meanwhile, "a" changed.
        for o in [cm("a", "2"), cm("c", "1"), cm("d", "1"), cm("e", "1")] {
            shared.watched(&watcher::Event::InitApply(o));
        }
        assert_eq!(names(&store).len(), 2, "the list shows once complete");
        shared.watched(&watcher::Event::InitDone);
        assert!(shared.listed);
        let full = vec![
            ("a".to_string(), "2".to_string()),
            ("c".into(), "1".into()),
            ("d".into(), "1".into()),
            ("e".into(), "1".into()),
        ];
        assert_eq!(names(&store), full);
        // A late page changes nothing.
        assert!(!shared.first_page(vec![cm("b", "1")], 2));
        assert_eq!(names(&store), full);
        // Changes after the list apply as ever.
        shared.watched(&watcher::Event::Delete(cm("c", "1")));
        assert_eq!(names(&store).len(), 3);
    }
}
