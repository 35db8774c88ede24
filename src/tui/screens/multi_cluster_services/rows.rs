//! The MultiClusterServices screen's rows, in the view's order.

use kube::ResourceExt;
use ratatui::layout::Rect;

use crate::api::MultiClusterService;
use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::{Kind, Obj, ObjKey};
use crate::tui::model::multi_cluster_services::mcs_rows;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::sort;
use crate::tui::model::view::View;
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected, area);

/// The MultiClusterServices shown: the view's filter kept, in its order.
pub(super) fn listed<'a>(app: &'a App, view: &View) -> Vec<&'a Obj<MultiClusterService>> {
    let rows = mcs_rows(
        &app.data.multi_cluster_services,
        &view.filter,
        app.data.several_contexts(),
    );
    sort::multi_cluster_services(rows, view.sort)
}

fn ids(app: &App, view: &View) -> Vec<String> {
    listed(app, view)
        .into_iter()
        .map(|m| {
            let ns = m.namespace().unwrap_or_default();
            format!("{ns}/{}\t{}", m.name_any(), m.context)
        })
        .collect()
}

fn selected(app: &App, view: &View) -> Option<ObjKey> {
    listed(app, view)
        .get(view.selected)
        .map(|m| ObjKey::of(Kind::MultiClusterService, m))
}

/// Below the column names.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::list_rows(viewport))
}
