//! The board's rows: its clusters, in the lines kept for the view's filter
//! (a wave's heading takes a line and is no row).

use std::sync::Arc;

use ratatui::layout::Rect;

use crate::api::TemplateRolloutStatus;
use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::ObjKey;
use crate::tui::model::listing::BoardListing;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, ScreenRows};
use crate::tui::state::navigation::long_list;

pub(super) const ROWS: ScreenRows = long_list(count, id_at, find, selected, area);

/// The rollout the view shows.
fn rollout(view: &View) -> Option<&ObjKey> {
    match &view.screen {
        Screen::Rollout(key) => Some(key),
        _ => None,
    }
}

/// A board's lines and the status they index.
fn board_of<'a>(
    app: &'a App,
    view: &View,
    key: &ObjKey,
) -> Option<(Arc<BoardListing>, &'a TemplateRolloutStatus)> {
    let listing = app.board_listing(view, key)?;
    let rollout = app.data.rollout(&key.context, &key.namespace, &key.name)?;
    Some((listing, rollout.status.as_ref()?))
}

fn count(app: &App, view: &View) -> usize {
    rollout(view)
        .and_then(|key| app.board_listing(view, key))
        .map_or(0, |l| l.clusters.len())
}

fn id_at(app: &App, view: &View, index: usize) -> Option<String> {
    let (listing, status) = board_of(app, view, rollout(view)?)?;
    Some(status.clusters.get(listing.cluster(index)?)?.name.clone())
}

fn find(app: &App, view: &View, id: &str) -> Option<usize> {
    let (listing, status) = board_of(app, view, rollout(view)?)?;
    (0..listing.clusters.len()).find(|n| {
        listing
            .cluster(*n)
            .and_then(|i| status.clusters.get(i))
            .is_some_and(|c| c.name == id)
    })
}

fn selected(_: &App, view: &View) -> Option<ObjKey> {
    rollout(view).cloned()
}

/// The waves' lines: below the preview's groups, a wave's title and the
/// column names.
fn area(data: &Snapshot, viewport: Viewport, view: &View) -> Option<Rect> {
    let groups = rollout(view)
        .and_then(|key| data.rollout(&key.context, &key.namespace, &key.name))
        .and_then(|r| r.status.as_ref())
        .map_or(0, |s| s.preview.len());
    let body = layout::viewport_bands(viewport).body;
    Some(layout::below(layout::board(body, groups).waves, 2))
}
