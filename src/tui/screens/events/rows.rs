//! The events screen's rows: the engine's Events after the view's filter,
//! about one object when the view says so.

use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::rows::event_rows;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows {
    count: Some(count),
    ..ScreenRows::by_ids(ids, selected, area)
};

/// The object the view's Events are about, if one.
fn regarding(view: &View) -> Option<&ObjKey> {
    match &view.screen {
        Screen::Events(regarding) => regarding.as_ref(),
        _ => None,
    }
}

fn ids(app: &App, view: &View) -> Vec<String> {
    event_rows(&app.data, regarding(view), &view.filter)
        .into_iter()
        .map(|e| {
            format!(
                "{}/{}",
                e.metadata.namespace.as_deref().unwrap_or_default(),
                e.metadata.name.as_deref().unwrap_or_default()
            )
        })
        .collect()
}

fn count(app: &App, view: &View) -> usize {
    event_rows(&app.data, regarding(view), &view.filter).len()
}

fn selected(app: &App, view: &View) -> Option<ObjKey> {
    event_rows(&app.data, regarding(view), &view.filter)
        .get(view.selected)
        .map(|e| ObjKey::of(Kind::Event, e))
}

/// Below the column names.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::list_rows(viewport))
}
