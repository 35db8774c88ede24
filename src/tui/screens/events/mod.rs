//! The engine's Events, all of them or about one object; enter opens
//! the object an event is about.

mod draw;
mod rows;

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{Binding, Table, bind};
use crate::tui::model::view::Screen;
use crate::tui::screens::common::{nothing_selected, yaml};
use crate::tui::screens::parts::{Parts, never_refused};
use crate::tui::state::app::{App, Command};
use crate::tui::state::navigation::{open_regarded, selected_key};

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::Events, rows::ROWS, draw_body).with_keys(
    Table::Events,
    KEYS,
    on_action,
    never_refused,
);

/// The screen's own keys, first in its mode.
pub const KEYS: &[Binding] = &[
    bind(
        Key::plain(KeyCode::Enter),
        Action::Open,
        "open object",
        true,
    )
    .explained("the screen of the object the event is about"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
];

/// What the events screen's keys do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    match action {
        Action::Open => match selected_key(app) {
            Some(key) => open_regarded(app, &key),
            None => nothing_selected(app, action),
        },
        Action::Yaml => yaml(app, action),
        _ => return None,
    }
    Some(Vec::new())
}

fn draw_body(app: &App, frame: &mut Frame, area: Rect) {
    if let Screen::Events(regarding) = &app.view().screen {
        draw::draw(app, regarding.as_ref(), frame, area);
    }
}
