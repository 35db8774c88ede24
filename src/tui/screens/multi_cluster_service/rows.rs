//! A MultiClusterService's clusters, as its status names them, after the
//! view's filter. The screen's object (for `y` and `d`) is the
//! MultiClusterService; a row names a ManagedCluster of its namespace.

use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::multi_cluster_services::matching_rows;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected, area);

/// The MultiClusterService the view shows.
pub(super) fn shown(view: &View) -> Option<&ObjKey> {
    match &view.screen {
        Screen::MultiClusterService(key) => Some(key),
        _ => None,
    }
}

/// The names of the clusters listed.
pub(super) fn names(app: &App, view: &View) -> Vec<String> {
    let Some(key) = shown(view) else {
        return Vec::new();
    };
    app.data
        .multi_cluster_service(&key.context, &key.namespace, &key.name)
        .map(|m| {
            matching_rows(m, &view.filter)
                .into_iter()
                .map(|c| c.name.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn ids(app: &App, view: &View) -> Vec<String> {
    names(app, view)
}

fn selected(_: &App, view: &View) -> Option<ObjKey> {
    shown(view).cloned()
}

/// The ManagedCluster of the selected row: of the MultiClusterService's
/// context and namespace, which is the only one it selects from.
pub(super) fn selected_cluster(app: &App, view: &View) -> Option<ObjKey> {
    let key = shown(view)?;
    let name = names(app, view).into_iter().nth(view.selected)?;
    Some(ObjKey::new(
        &key.context,
        Kind::ManagedCluster,
        &key.namespace,
        &name,
    ))
}

/// Below the summary line and the column names.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::below(layout::list_rows(viewport), 1))
}
