//! The long lists of the views on the stack (the clusters screen, a
//! rollout board), kept between frames and key presses: each is worked out
//! the first time a view asks for it, and again only when its filter or
//! order changes; new data drops them all
//! ([`App::set_snapshot`](crate::tui::state::app::App::set_snapshot)).

use std::sync::{Arc, Mutex};

use crate::tui::model::key::ObjKey;
use crate::tui::model::listing::{BoardListing, ClusterListing};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::sort::Sort;
use crate::tui::model::view::{Screen, View};

/// More than the views a stack holds of these screens at once.
const KEPT: usize = 8;

/// What a listing was made for: a view's screen, filter and order.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ListingKey {
    screen: Screen,
    filter: String,
    sort: Option<Sort>,
}

impl ListingKey {
    fn of_view(view: &View) -> ListingKey {
        ListingKey {
            screen: view.screen.clone(),
            filter: view.filter.clone(),
            sort: view.sort,
        }
    }

    fn matches(&self, view: &View) -> bool {
        self.screen == view.screen && self.filter == view.filter && self.sort == view.sort
    }
}

#[derive(Clone, Debug)]
enum Listing {
    Clusters(Arc<ClusterListing>),
    /// `None`: the rollout is gone or not planned yet.
    Board(Option<Arc<BoardListing>>),
}

/// The listings of the current data, the newest last.
#[derive(Debug, Default)]
pub struct Listings(Mutex<Vec<(ListingKey, Listing)>>);

impl Listings {
    /// The listing made for `view`, else `make`'s, kept.
    fn get_or(&self, view: &View, make: impl FnOnce() -> Listing) -> Listing {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, l)) = kept.iter().find(|(key, _)| key.matches(view)) {
            return l.clone();
        }
        let listing = make();
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((ListingKey::of_view(view), listing.clone()));
        listing
    }

    /// Drops every listing: the data changed.
    pub(crate) fn renew(&mut self) {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The clusters screen's rows of `data` for `view`'s filter and order.
    pub fn clusters(&self, data: &Snapshot, view: &View) -> Arc<ClusterListing> {
        let listing = self.get_or(view, || {
            Listing::Clusters(Arc::new(ClusterListing::new(data, &view.filter, view.sort)))
        });
        match listing {
            Listing::Clusters(l) => l,
            Listing::Board(_) => Arc::default(),
        }
    }

    /// The lines of the board of the rollout `key` for `view`'s filter;
    /// `None` while the rollout has no status (or no longer exists).
    pub fn board(&self, data: &Snapshot, view: &View, key: &ObjKey) -> Option<Arc<BoardListing>> {
        let listing = self.get_or(view, || {
            Listing::Board(
                data.rollout(&key.context, &key.namespace, &key.name)
                    .and_then(|r| {
                        let status = r.status.as_ref()?;
                        Some(BoardListing::new(status, r.spec.revision, &view.filter))
                    })
                    .map(Arc::new),
            )
        });
        match listing {
            Listing::Board(l) => l,
            Listing::Clusters(_) => None,
        }
    }
}
