//! The values editor: the text with line numbers and the YAML error
//! marked, its status line, and its questions (discard, the merged diff
//! before a save with the fleet it changes, a conflict). It reads every
//! key itself: its keys are the editor's tables of
//! [`crate::tui::keys::tables`], its state the app's `editor`.

mod draw;
mod fleet_review;
mod rows;

use crate::tui::keys::ScreenKind;
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::{App, Command};
use crate::tui::state::editing::on_editor_key;
use crossterm::event::KeyEvent;

/// The screen, as the app reaches it.
pub const PARTS: Parts =
    Parts::new(ScreenKind::Editor, rows::ROWS, draw::draw).reading_keys(on_key);

/// Every key, ctrl-c too, while the editor is open: it asks before
/// losing changes.
fn on_key(app: &mut App, key: KeyEvent) -> Option<Vec<Command>> {
    app.editor.is_some().then(|| on_editor_key(app, key))
}
