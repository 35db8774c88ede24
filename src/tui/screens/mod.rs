//! The screens, one module each. A screen's module holds everything that
//! is its own: its key table (`KEYS`), what its actions do (`on_action`:
//! the action in, the state changed and the commands out, no I/O), why an
//! action of its would be refused now (`refusal`, which the hint bar and
//! the help dim by), its rows (`rows.rs`: their ids, so a selection
//! follows its row, the selected object, where they are drawn) and its
//! drawing (`draw.rs`).
//! The app routes a key's action to the screen on top of the crumb stack
//! ([`on_action`]); what every screen does alike (moving, going back, the
//! prompts, the crumbs) stays with the app and the state, which reaches a
//! screen's rows through `App::rows_of`.
//!
//! Adding a screen: its folder here, and its line in [`SCREENS`]; its
//! name in [`Screen`](crate::tui::model::view::Screen) (what it shows,
//! with its crumb), in [`ScreenKind`] and in the keys' `SCREEN_MODES` (its
//! title, the shared tables after its own); a table of its own is named in
//! `Table`, as the settings file's `keys:` names it. The default keymap and rows are assembled here from
//! [`SCREENS`] (`Keymap::default`, `RowsOf::default`).

pub mod board;
pub mod chrome;
pub mod cluster;
pub mod clusters;
pub(crate) mod common;
pub mod describe;
pub mod editor;
pub mod events;
pub mod multi_cluster_service;
pub mod multi_cluster_services;
pub mod objects;
pub mod parts;
pub mod rollouts;
pub mod template;
pub mod templates;
pub mod values;
pub mod warnings;
pub mod yaml;

#[cfg(test)]
mod tests;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::text::Span;

use crate::tui::keys::tables::{Binding, Table};
use crate::tui::keys::{Action, Keymap, ScreenKind};
use crate::tui::layout;
use crate::tui::screens::chrome::{connecting, header, hints, status};
use crate::tui::screens::chrome::{help, modal};
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::{App, Command, RowsOf};
use crate::tui::views::columns::ellipsize;
use crate::tui::views::safe::paragraph;

/// Every screen, one line each.
pub const SCREENS: &[Parts] = &[
    clusters::PARTS,
    cluster::PARTS,
    templates::PARTS,
    template::PARTS,
    editor::PARTS,
    rollouts::PARTS,
    board::PARTS,
    multi_cluster_services::PARTS,
    multi_cluster_service::PARTS,
    events::PARTS,
    yaml::PARTS,
    values::PARTS,
    warnings::PARTS,
    describe::PARTS,
];

/// The parts of the screen of `kind`.
pub fn parts(kind: ScreenKind) -> &'static Parts {
    SCREENS
        .iter()
        .find(|p| p.kind == kind)
        .unwrap_or(&SCREENS[0])
}

/// The parts of the screen on top.
fn on_top(app: &App) -> &'static Parts {
    parts(app.screen().kind())
}

/// What `action` does on the screen on top; `None` when it is not the
/// screen's own.
pub fn on_action(app: &mut App, action: Action) -> Option<Vec<Command>> {
    (on_top(app).on_action)(app, action)
}

/// A key for the screen on top when it reads every key itself.
pub fn on_key(app: &mut App, key: KeyEvent) -> Option<Vec<Command>> {
    on_top(app).on_key.and_then(|on_key| on_key(app, key))
}

/// Why `action` would be refused now, or `None` when it applies (or is
/// not one that depends on the state).
pub fn refusal(app: &App, action: Action) -> Option<String> {
    (on_top(app).refusal)(app, action)
}

/// Whether `action` applies now: what the hint bar and the help show
/// undimmed.
pub fn applies(app: &App, action: Action) -> bool {
    refusal(app, action).is_none()
}

/// The default bindings of `table`: a shared table's, or the screen's
/// that holds it.
pub fn defaults(table: Table) -> &'static [Binding] {
    table
        .shared()
        .or_else(|| {
            SCREENS
                .iter()
                .filter_map(|p| p.table)
                .find(|(t, _)| *t == table)
                .map(|(_, keys)| keys)
        })
        .unwrap_or(&[])
}

/// The console's keymap before any remapping.
impl Default for Keymap {
    fn default() -> Keymap {
        Keymap::from_defaults(defaults)
    }
}

/// Each screen's rows, as the screens hold them.
impl Default for RowsOf {
    fn default() -> RowsOf {
        RowsOf(|kind| &parts(kind).rows)
    }
}

/// Draws the whole console: the chrome around the screen on top.
pub fn draw(app: &App, frame: &mut Frame) {
    let bands = layout::bands(frame.area(), app.banner().is_some());
    header(app, frame, bands.header);
    if let Some(text) = app.banner() {
        frame.render_widget(
            paragraph(Span::styled(
                ellipsize(&format!("✗ {text}"), bands.banner.width),
                app.theme.error(),
            )),
            bands.banner,
        );
    }
    // The lists are drawn from the first page of each kind, or its first
    // list, whichever came: no waiting for every store.
    if !app.synced && !app.data.arrived {
        connecting(app, frame, bands.body);
    } else {
        (on_top(app).draw)(app, frame, bands.body);
    }
    let applies = |a| applies(app, a);
    status(app, frame, bands.status);
    hints(app, frame, bands.hints, &applies);
    if app.help {
        help::draw(app, frame, bands.body, &applies);
    }
    if let Some(m) = &app.modal {
        modal::draw(app, m, frame, bands.body);
    }
}
