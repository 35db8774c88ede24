//! The live wave board of one rollout, and the operator's requests on
//! it ([`requests`]): approve, pause, resume, abort or roll back, skip,
//! retry and start the next wave now.

mod draw;
pub(crate) mod requests;
mod rows;

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{Binding, Table, bind};
use crate::tui::model::view::Screen;
use crate::tui::screens::common::yaml;
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::{App, Command};

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::RolloutBoard, rows::ROWS, draw_body).with_keys(
    Table::Board,
    KEYS,
    on_action,
    requests::refusal,
);

/// The screen's own keys, first in its mode.
/// The rollout board: the operator's requests first, then the list keys
/// (`/`, `y` and `:` stay out of the hint bar to leave room).
pub const KEYS: &[Binding] = &[
    bind(Key::char('a'), Action::Approve, "approve", true)
        .explained("approve the wave that waits for approval"),
    bind(Key::char('p'), Action::Pause, "pause", true).explained("pause the rollout"),
    bind(Key::char('r'), Action::Resume, "resume", true).explained("resume a paused rollout"),
    bind(Key::char('x'), Action::Abort, "abort", true)
        .explained("abort (clusters stay) or roll back; asks"),
    bind(Key::char('s'), Action::Skip, "skip", true).explained("skip the selected cluster; asks"),
    bind(Key::char('t'), Action::Retry, "retry", true)
        .explained("retry the selected failed cluster"),
    bind(Key::char('W'), Action::StartNow, "start now", false)
        .explained("start the next wave now, past soak, window, approval; asks"),
    bind(Key::char('y'), Action::Yaml, "yaml", false),
];

/// What the board's keys do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    Some(match action {
        Action::Approve => requests::approve(app),
        Action::Pause => requests::pause(app),
        Action::Resume => requests::resume(app),
        Action::Abort => requests::stop_choice(app),
        Action::Skip => requests::skip(app),
        Action::Retry => requests::retry(app),
        Action::StartNow => requests::start_now(app),
        Action::Yaml => {
            yaml(app, action);
            Vec::new()
        }
        _ => return None,
    })
}

fn draw_body(app: &App, frame: &mut Frame, area: Rect) {
    if let Screen::Rollout(key) = &app.view().screen {
        draw::draw(app, key, frame, area);
    }
}
