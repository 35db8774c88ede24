//! The templates screen: ClusterTemplates and ServiceTemplates, their
//! validity, use and chart repository; `:ct` and `:st` list one kind.

mod draw;
pub(crate) mod repository;
mod rows;

use crossterm::event::KeyCode;

use crate::tui::keys::Action;
use crate::tui::keys::ScreenKind;
use crate::tui::keys::key::Key;
use crate::tui::keys::tables::{
    Binding, DESCRIBE, RETRY_REPOSITORY, SORT_AGE, SORT_NAME, Table, bind,
};
use crate::tui::model::key::Kind;
use crate::tui::model::values::ValuesKey;
use crate::tui::model::view::Screen;
use crate::tui::screens::common::{edit_refusal, nothing_selected, sort, yaml};
use crate::tui::screens::objects;
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::{App, Command};
use crate::tui::state::editing::open_editor;
use crate::tui::state::navigation::{push, selected_key};

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::Templates, rows::ROWS, draw::draw).with_keys(
    Table::Templates,
    KEYS,
    on_action,
    refusal,
);

/// The screen's own keys, first in its mode.
pub const KEYS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "open", true)
        .explained("a ClusterTemplate's services, a ServiceTemplate's default values"),
    // Out of the hint bar: it only says where a template's values are
    // edited (a ServiceTemplate is immutable).
    bind(Key::char('e'), Action::Edit, "edit", false)
        .explained("where the selected template's values are edited"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
    DESCRIBE,
    bind(Key::ctrl('d'), Action::Delete, "delete", false)
        .explained("delete the template, refused while in use; asks"),
    RETRY_REPOSITORY.explained("try the selected template's chart repository again now"),
    SORT_NAME,
    SORT_AGE,
    bind(Key::char('S'), Action::SortStatus, "sort by valid", false)
        .explained("sort by validity, then use; again reverses"),
];

/// What the templates screen's keys do.
pub(crate) fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    match action {
        Action::Open => match selected_key(app) {
            Some(key) if key.kind == Kind::ClusterTemplate => {
                push(app, Screen::TemplateDetail(key))
            }
            Some(key) => push(
                app,
                Screen::Values(ValuesKey {
                    object: key,
                    service: None,
                }),
            ),
            None => nothing_selected(app, action),
        },
        Action::Edit => return Some(open_editor(app)),
        Action::Yaml => yaml(app, action),
        Action::Describe => objects::describe(app),
        Action::Delete => objects::ask_delete(app),
        // `t`: try the template's chart repository again.
        Action::Retry => return Some(repository::retry(app)),
        Action::SortName | Action::SortAge | Action::SortStatus => sort(app, action),
        _ => return None,
    }
    Some(Vec::new())
}

/// Why a key of the templates screen, or of a ClusterTemplate's, would be
/// refused now.
pub(crate) fn refusal(app: &App, action: Action) -> Option<String> {
    match action {
        Action::Retry => repository::refusal(app),
        Action::Edit => edit_refusal(app),
        _ => None,
    }
}
