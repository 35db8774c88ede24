//! A ClusterTemplate: its services and the selected service's default
//! values; enter opens a service's defaults, `e` edits them.

mod draw;

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{Binding, RETRY_REPOSITORY, Table, bind};
use crate::tui::model::view::Screen;
use crate::tui::screens::common::{SERVICE_ROWS, open_values, yaml};
use crate::tui::screens::parts::Parts;
use crate::tui::screens::templates::refusal;
use crate::tui::screens::templates::repository;
use crate::tui::state::app::{App, Command};
use crate::tui::state::editing::open_editor;

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::TemplateDetail, SERVICE_ROWS, draw_body).with_keys(
    Table::Template,
    KEYS,
    on_action,
    refusal,
);

/// The screen's own keys, first in its mode.
pub const KEYS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "values", true)
        .explained("the selected service's default values, before a cluster's own"),
    bind(Key::char('e'), Action::Edit, "edit", true)
        .explained("edit the selected service's values in this template"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
    RETRY_REPOSITORY.explained("try this template's chart repository again now"),
];

/// What a ClusterTemplate's screen's keys do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    match action {
        Action::Open => open_values(app),
        Action::Edit => return Some(open_editor(app)),
        Action::Yaml => yaml(app, action),
        // `t`: try the template's chart repository again.
        Action::Retry => return Some(repository::retry(app)),
        _ => return None,
    }
    Some(Vec::new())
}

fn draw_body(app: &App, frame: &mut Frame, area: Rect) {
    if let Screen::TemplateDetail(key) = &app.view().screen {
        draw::draw(app, key, frame, area);
    }
}
