//! An object's YAML: its rows are its lines.

use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::ObjKey;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows {
    count: Some(count),
    ..ScreenRows::by_ids(ids, selected, area)
};

fn count(app: &App, view: &View) -> usize {
    selected(app, view)
        .and_then(|key| app.data.yaml(&key))
        .map_or(0, |y| y.lines().count())
}

fn ids(app: &App, view: &View) -> Vec<String> {
    (0..count(app, view)).map(|i| i.to_string()).collect()
}

/// The object shown.
fn selected(_: &App, view: &View) -> Option<ObjKey> {
    match &view.screen {
        Screen::Yaml(key) => Some(key.clone()),
        _ => None,
    }
}

/// Inside the body's block.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::text_rows(viewport))
}
