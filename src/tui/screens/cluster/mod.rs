//! One cluster: its conditions, its services and the selected service's
//! merged values; enter opens a service's values, `e` edits them.

mod draw;

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{Binding, Table, bind};
use crate::tui::model::view::Screen;
use crate::tui::screens::board::requests::{cluster_rollout, open_for_cluster};
use crate::tui::screens::common::{SERVICE_ROWS, edit_refusal, open_values, yaml};
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::{App, Command};
use crate::tui::state::editing::open_editor;
use crate::tui::state::navigation::push;

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::ClusterDetail, SERVICE_ROWS, draw_body).with_keys(
    Table::Cluster,
    KEYS,
    on_action,
    refusal,
);

/// The screen's own keys, first in its mode.
pub const KEYS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "values", true)
        .explained("the selected service's merged values, as Helm gets them"),
    bind(Key::char('e'), Action::Edit, "edit", true)
        .explained("edit the selected service's values on this cluster"),
    bind(Key::char('v'), Action::Events, "events", true)
        .explained("the engine's events about this cluster"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
    // Not in the hint bar, to leave room: the summary line names the
    // rollout, and the help the key.
    bind(Key::char('o'), Action::Rollout, "rollout", false)
        .explained("the board of this cluster's rollout"),
];

/// What a cluster's screen's keys do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    match action {
        Action::Open => open_values(app),
        Action::Edit => return Some(open_editor(app)),
        Action::Events => {
            if let Screen::ClusterDetail(key) = app.screen() {
                let key = key.clone();
                push(app, Screen::Events(Some(key)));
            }
        }
        Action::Yaml => yaml(app, action),
        Action::Rollout => open_for_cluster(app),
        _ => return None,
    }
    Some(Vec::new())
}

/// Why a key of a cluster's screen would be refused now.
pub(crate) fn refusal(app: &App, action: Action) -> Option<String> {
    match action {
        Action::Edit => edit_refusal(app),
        Action::Rollout => cluster_rollout(app).err(),
        _ => None,
    }
}

fn draw_body(app: &App, frame: &mut Frame, area: Rect) {
    if let Screen::ClusterDetail(key) = &app.view().screen {
        draw::draw(app, key, frame, area);
    }
}
