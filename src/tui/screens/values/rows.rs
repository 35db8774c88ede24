//! A service's values: their rows are their lines.

use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::ObjKey;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::values;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected, area);

fn ids(app: &App, view: &View) -> Vec<String> {
    let Screen::Values(key) = &view.screen else {
        return Vec::new();
    };
    let lines = values::shown(&app.data, key).values.lines().len();
    (0..lines).map(|i| i.to_string()).collect()
}

/// The object whose values are shown.
fn selected(_: &App, view: &View) -> Option<ObjKey> {
    match &view.screen {
        Screen::Values(key) => Some(key.object.clone()),
        _ => None,
    }
}

/// Below the layers the values are merged from.
fn area(data: &Snapshot, viewport: Viewport, view: &View) -> Option<Rect> {
    let Screen::Values(key) = &view.screen else {
        return None;
    };
    let layers = values::shown(data, key).layers;
    let body = layout::viewport_bands(viewport).body;
    Some(layout::values(body, layers.chars().count()).text)
}
