//! The clusters screen: every ManagedCluster with its Ready condition,
//! template, revision and services.

mod draw;
mod rows;

use crossterm::event::KeyCode;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{Binding, DESCRIBE, SORT_AGE, SORT_NAME, Table, bind};
use crate::tui::model::view::Screen;
use crate::tui::screens::board::requests::{cluster_rollout, open_for_cluster};
use crate::tui::screens::common::{nothing_selected, sort, yaml};
use crate::tui::screens::objects;
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::{App, Command};
use crate::tui::state::navigation::{push, selected_key};

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::Clusters, rows::ROWS, draw::draw).with_keys(
    Table::Clusters,
    KEYS,
    on_action,
    refusal,
);

/// The screen's own keys, first in its mode.
pub const KEYS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "details", true),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
    bind(Key::char('o'), Action::Rollout, "rollout", true)
        .explained("the board of the selected cluster's rollout"),
    DESCRIBE,
    bind(Key::ctrl('d'), Action::Delete, "delete", false)
        .explained("delete the cluster, its services first; asks"),
    SORT_NAME,
    SORT_AGE,
    bind(Key::char('S'), Action::SortStatus, "sort by ready", false)
        .explained("sort by readiness, problems first; again reverses"),
];

/// What the clusters screen's keys do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    match action {
        Action::Open => match selected_key(app) {
            Some(key) => push(app, Screen::ClusterDetail(key)),
            None => nothing_selected(app, action),
        },
        Action::Yaml => yaml(app, action),
        Action::Rollout => open_for_cluster(app),
        Action::Describe => objects::describe(app),
        Action::Delete => objects::ask_delete(app),
        Action::SortName | Action::SortAge | Action::SortStatus => sort(app, action),
        _ => return None,
    }
    Some(Vec::new())
}

/// Why a key of the clusters screen would be refused now.
pub(crate) fn refusal(app: &App, action: Action) -> Option<String> {
    match action {
        Action::Rollout => cluster_rollout(app).err(),
        _ => None,
    }
}
