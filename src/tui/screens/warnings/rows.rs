//! The warnings screen's rows: the engine's warnings after the view's
//! filter; none is an object to select.

use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::ObjKey;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::View;
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected, area);

fn ids(app: &App, view: &View) -> Vec<String> {
    app.warnings
        .rows(&view.filter)
        .into_iter()
        .map(|w| format!("{}/{}/{}/{}", w.kind, w.namespace, w.name, w.message))
        .collect()
}

fn selected(_: &App, _: &View) -> Option<ObjKey> {
    None
}

/// Below the column names.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::list_rows(viewport))
}
