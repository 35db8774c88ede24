//! The MultiClusterServices screen: each one with its selector, its
//! services, how many clusters it selects and how many have its services,
//! its revision and what its conditions say; enter opens its clusters.
//! Read-only: a MultiClusterService is changed with kubectl or GitOps.

mod draw;
mod rows;

use crossterm::event::KeyCode;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{Binding, DESCRIBE, SORT_AGE, SORT_NAME, Table, bind};
use crate::tui::model::view::Screen;
use crate::tui::screens::common::{nothing_selected, sort, yaml};
use crate::tui::screens::objects;
use crate::tui::screens::parts::{Parts, never_refused};
use crate::tui::state::app::{App, Command};
use crate::tui::state::navigation::{push, selected_key};

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::MultiClusterServices, rows::ROWS, draw::draw)
    .with_keys(Table::MultiClusterServices, KEYS, on_action, never_refused);

/// The screen's own keys, first in its mode.
pub const KEYS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "clusters", true)
        .explained("the clusters the selected MultiClusterService selects"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
    DESCRIBE,
    SORT_NAME,
    SORT_AGE,
    bind(Key::char('S'), Action::SortStatus, "sort by status", false)
        .explained("sort by status, conflicts and empty selectors first; again reverses"),
];

/// What the MultiClusterServices screen's keys do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    match action {
        Action::Open => match selected_key(app) {
            Some(key) => push(app, Screen::MultiClusterService(key)),
            None => nothing_selected(app, action),
        },
        Action::Yaml => yaml(app, action),
        Action::Describe => objects::describe(app),
        Action::SortName | Action::SortAge | Action::SortStatus => sort(app, action),
        _ => return None,
    }
    Some(Vec::new())
}
