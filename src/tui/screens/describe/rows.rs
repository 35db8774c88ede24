//! An object described: its rows are the description's lines.

use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::describe;
use crate::tui::model::key::ObjKey;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected, area);

fn ids(app: &App, view: &View) -> Vec<String> {
    let lines = selected(app, view)
        .and_then(|key| describe::describe(&app.data, &key, app.now))
        .map_or(0, |l| l.len());
    (0..lines).map(|i| i.to_string()).collect()
}

/// The object described.
fn selected(_: &App, view: &View) -> Option<ObjKey> {
    match &view.screen {
        Screen::Describe(key) => Some(key.clone()),
        _ => None,
    }
}

/// Inside the body's block.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::text_rows(viewport))
}
