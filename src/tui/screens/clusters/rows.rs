//! The clusters screen's rows: the listing kept for the view's filter and
//! order, whose ids are made one at a time.

use kube::ResourceExt;
use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::View;
use crate::tui::state::app::{App, ScreenRows};
use crate::tui::state::navigation::long_list;

pub(super) const ROWS: ScreenRows = long_list(count, id_at, find, selected, area);

fn count(app: &App, view: &View) -> usize {
    app.cluster_listing(view).rows.len()
}

fn id_at(app: &App, view: &View, index: usize) -> Option<String> {
    let listing = app.cluster_listing(view);
    let mc = app.data.clusters.get(*listing.rows.get(index)?)?;
    // The context too: two management clusters may have a cluster of the
    // same namespace and name.
    Some(format!(
        "{}/{}\t{}",
        mc.namespace().unwrap_or_default(),
        mc.name_any(),
        mc.context
    ))
}

fn find(app: &App, view: &View, id: &str) -> Option<usize> {
    let (namespace, rest) = id.split_once('/')?;
    let (name, context) = rest.split_once('\t')?;
    let key = ObjKey::new(&context.into(), Kind::ManagedCluster, namespace, name);
    app.cluster_listing(view).find(&app.data, &key)
}

fn selected(app: &App, view: &View) -> Option<ObjKey> {
    app.cluster_listing(view)
        .rows
        .get(view.selected)
        .and_then(|i| app.data.clusters.get(*i))
        .map(|c| ObjKey::of(Kind::ManagedCluster, c))
}

/// Below the column names.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::list_rows(viewport))
}
