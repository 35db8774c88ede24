//! The editor has no rows of its own: its text area moves itself, and
//! takes no clicks.

use crate::tui::model::key::ObjKey;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(|_, _| Vec::new(), selected, |_, _, _| None);

/// The object whose values are edited.
fn selected(_: &App, view: &View) -> Option<ObjKey> {
    match &view.screen {
        Screen::Edit(key) => Some(key.object.clone()),
        _ => None,
    }
}
