//! One MultiClusterService's clusters: the ManagedClusters of its
//! namespace that its selector selects, as its status names them, each
//! with whether its services are deployed there and why not; enter opens
//! the cluster. `y` and `d` show the MultiClusterService itself, as on the
//! other screens of one object.

mod draw;
mod rows;

use crossterm::event::KeyCode;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{Binding, DESCRIBE, Table, bind};
use crate::tui::model::view::Screen;
use crate::tui::screens::common::{nothing_selected, yaml};
use crate::tui::screens::objects;
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::{App, Command};
use crate::tui::state::navigation::push;

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::MultiClusterService, rows::ROWS, draw_body)
    .with_keys(Table::MultiClusterService, KEYS, on_action, refusal);

/// The screen's own keys, first in its mode.
pub const KEYS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "cluster", true)
        .explained("the selected cluster's screen"),
    bind(Key::char('y'), Action::Yaml, "yaml", true).explained("the MultiClusterService's YAML"),
    DESCRIBE,
];

/// What the keys of a MultiClusterService's clusters do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    match action {
        Action::Open => match rows::selected_cluster(app, app.view()) {
            Some(key)
                if app
                    .data
                    .cluster(&key.context, &key.namespace, &key.name)
                    .is_some() =>
            {
                push(app, Screen::ClusterDetail(key))
            }
            Some(_) => {
                if let Some(why) = refusal(app, action) {
                    app.flash(crate::tui::state::flash::FlashLevel::Warn, why);
                }
            }
            None => nothing_selected(app, action),
        },
        Action::Yaml => yaml(app, action),
        Action::Describe => objects::describe(app),
        _ => return None,
    }
    Some(Vec::new())
}

/// Why a key of the screen would be refused now: enter on a cluster the
/// status names that the console does not hold (deleted since, or the
/// status is stale).
pub(crate) fn refusal(app: &App, action: Action) -> Option<String> {
    match action {
        Action::Open => {
            let key = rows::selected_cluster(app, app.view())?;
            app.data
                .cluster(&key.context, &key.namespace, &key.name)
                .is_none()
                .then(|| format!("no ManagedCluster {}/{} now", key.namespace, key.name))
        }
        _ => None,
    }
}

fn draw_body(app: &App, frame: &mut Frame, area: Rect) {
    if let Screen::MultiClusterService(key) = &app.view().screen {
        draw::draw(app, key, frame, area);
    }
}
