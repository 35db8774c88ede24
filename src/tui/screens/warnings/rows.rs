//! The warnings screen's rows: the engine's warnings after the view's
//! filter; none is an object to select.

use crate::tui::model::key::ObjKey;
use crate::tui::model::view::View;
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected);

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
