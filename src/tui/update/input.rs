//! Input: what a key or a click does where it lands. Keys go to a screen
//! that reads every key itself (the values editor) when it is on top, else
//! to the question on screen, else to the filter or the `:` prompt being
//! typed, else to the action its key table binds ([`crate::tui::keys`]):
//! the screen's own ([`screens::on_action`]), or one every screen shares
//! (moving, going back, the prompts); clicks select rows and the wheel
//! scrolls.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use crate::plan::rollout::Request;
use crate::tui::keys::{self, Action, Goto, Mode};
use crate::tui::model::key::Kind;
use crate::tui::model::view::Screen;
use crate::tui::screens;
use crate::tui::screens::board::requests as board;
use crate::tui::screens::objects;
use crate::tui::state::app::{App, Command, Input, Modal, quit};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{back, fit_all, fit_at, push, rows_area, rows_height, step};
use crate::tui::state::places;
use crate::tui::state::search;

pub(crate) fn on_key(app: &mut App, key: KeyEvent) -> Vec<Command> {
    if key.kind == crossterm::event::KeyEventKind::Release {
        return Vec::new();
    }
    // The editor takes every key, ctrl-c too: it asks before losing changes.
    if let Some(commands) = screens::on_key(app, key) {
        return commands;
    }
    let mode = app.mode();
    let action = app.keys.action(mode, &key);
    if action == Some(Action::Quit) && !matches!(mode, Mode::Screen(_)) {
        // ctrl-c leaves from a prompt or a question too.
        return quit(app);
    }
    // The answer to the last key stays until this one.
    app.flash = None;
    if let Some(modal) = app.modal.clone() {
        return on_modal_key(app, action, modal);
    }
    match app.input.clone() {
        Input::Command(text) => return on_command_key(app, key, action, text),
        Input::Filter => {
            on_filter_key(app, key, action);
            return Vec::new();
        }
        Input::None => {}
    }
    if app.help {
        return match action {
            Some(Action::Quit) => quit(app),
            Some(Action::Back | Action::Help) => {
                app.help = false;
                Vec::new()
            }
            // A help taller than the terminal scrolls; the view stops at
            // its end.
            Some(Action::Down | Action::PageDown) => {
                // At most about as many lines as the help has.
                let most = app.keys.help(mode).len() + keys::COMMANDS.len() + 2;
                app.help_scroll = (app.help_scroll + 1).min(most);
                Vec::new()
            }
            Some(Action::Up | Action::PageUp) => {
                app.help_scroll = app.help_scroll.saturating_sub(1);
                Vec::new()
            }
            _ => Vec::new(),
        };
    }
    match action {
        Some(Action::Favourite) => {
            let slot = app.keys.slot(mode, Action::Favourite, &key);
            places::favourite(app, slot.unwrap_or(0))
        }
        Some(a) => act(app, a),
        None => {
            // A key that does nothing here says so, in the keymap's words.
            if let Some(text) = keys::not_here(&app.keys, mode, &key) {
                app.flash(FlashLevel::Info, text);
            }
            Vec::new()
        }
    }
}

/// What an action does: the screen's own, else the one every screen
/// shares.
fn act(app: &mut App, action: Action) -> Vec<Command> {
    if let Some(commands) = screens::on_action(app, action) {
        return commands;
    }
    match action {
        Action::Quit => return quit(app),
        Action::Help => {
            app.help = true;
            app.help_scroll = 0;
        }
        Action::Command => app.input = Input::Command(String::new()),
        Action::Filter => app.input = Input::Filter,
        Action::NextMatch => search::jump(app, true),
        Action::PreviousMatch => search::jump(app, false),
        Action::Back => back(app),
        Action::Up => step(app, -1),
        Action::Down => step(app, 1),
        Action::PageUp => {
            let page = rows_height(app, app.view()).max(1) as isize;
            step(app, -page);
        }
        Action::PageDown => {
            let page = rows_height(app, app.view()).max(1) as isize;
            step(app, page);
        }
        Action::Top => step(app, isize::MIN / 2),
        Action::Bottom => step(app, isize::MAX / 2),
        Action::Warnings if *app.screen() != Screen::Warnings => push(app, Screen::Warnings),
        // A screen's own (see its `on_action`); the prompts', questions'
        // and editor's own, never bound on a screen; and `Favourite`,
        // which needs its key (`on_key` handles it).
        _ => {}
    }
    Vec::new()
}

/// Keys while a modal asks something: it answers or closes; nothing else
/// reaches the screen underneath.
fn on_modal_key(app: &mut App, action: Option<Action>, modal: Modal) -> Vec<Command> {
    match (modal, action) {
        (Modal::StopChoice { rollout }, Some(choice @ (Action::Stay | Action::RollBack))) => {
            let request = if choice == Action::Stay {
                Request::Abort
            } else {
                Request::Rollback
            };
            board::choose_stop(app, rollout, request);
            Vec::new()
        }
        (
            Modal::Confirm {
                rollout, request, ..
            },
            Some(Action::Yes),
        ) => {
            app.modal = None;
            board::send(app, rollout, request)
        }
        (Modal::Delete { target, .. }, Some(Action::Yes)) => objects::confirm_delete(app, target),
        (Modal::Delete { target, .. }, Some(Action::No)) => {
            app.modal = None;
            app.flash(
                FlashLevel::Info,
                format!("kept {}: nothing deleted", target.name),
            );
            Vec::new()
        }
        (_, Some(Action::Cancel | Action::No)) => {
            app.modal = None;
            app.flash(FlashLevel::Info, "cancelled: nothing asked");
            Vec::new()
        }
        _ => Vec::new(),
    }
}

fn on_filter_key(app: &mut App, key: KeyEvent, action: Option<Action>) {
    let before = app.view().filter.clone();
    match action {
        Some(Action::Clear) => {
            app.input = Input::None;
            app.view_mut().filter.clear();
        }
        Some(Action::Keep) => app.input = Input::None,
        Some(Action::Erase) => app.view_mut().filter.clear(),
        Some(Action::Down) => step(app, 1),
        Some(Action::Up) => step(app, -1),
        _ => match typed(&key) {
            Typed::Erase => {
                let was_empty = app.view_mut().filter.pop().is_none();
                if was_empty {
                    app.input = Input::None;
                }
            }
            Typed::Char(c) => {
                app.view_mut().filter.push(c);
                app.view_mut().selected = 0;
            }
            Typed::Other => {}
        },
    }
    fit_all(app);
    if app.screen().scrolls() && app.view().filter != before {
        search::seek(app);
    }
}

fn on_command_key(
    app: &mut App,
    key: KeyEvent,
    action: Option<Action>,
    mut text: String,
) -> Vec<Command> {
    match action {
        Some(Action::Cancel) => app.input = Input::None,
        Some(Action::Run) => {
            app.input = Input::None;
            return run_command(app, &text);
        }
        Some(Action::Complete) => app.input = Input::Command(places::complete(app, &text)),
        Some(Action::Erase) => app.input = Input::Command(String::new()),
        _ => match typed(&key) {
            Typed::Erase => {
                if text.pop().is_none() {
                    app.input = Input::None;
                } else {
                    app.input = Input::Command(text);
                }
            }
            Typed::Char(c) => {
                text.push(c);
                app.input = Input::Command(text);
            }
            Typed::Other => {}
        },
    }
    Vec::new()
}

/// A key a one-line text field reads itself, when no binding takes it.
enum Typed {
    Char(char),
    /// Backspace: the last character goes.
    Erase,
    Other,
}

fn typed(key: &KeyEvent) -> Typed {
    match key.code {
        KeyCode::Backspace => Typed::Erase,
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => Typed::Char(c),
        _ => Typed::Other,
    }
}

fn run_command(app: &mut App, text: &str) -> Vec<Command> {
    let (word, arg) = keys::commands::split(text);
    let word = word.as_str();
    if word.is_empty() {
        return Vec::new();
    }
    match keys::resolve(word) {
        Some(Goto::Namespace) => return places::namespace_command(app, arg.as_deref()),
        Some(Goto::Context) => return places::context_command(app, arg.as_deref()),
        Some(Goto::Quit) => return quit(app),
        Some(Goto::Help) => {
            app.help = true;
            app.help_scroll = 0;
        }
        Some(Goto::Clusters) => {
            app.stack.truncate(1);
            fit_all(app);
        }
        Some(Goto::Templates) => {
            app.stack.truncate(1);
            push(app, Screen::Templates);
        }
        Some(Goto::ClusterTemplates) => templates_of(app, Kind::ClusterTemplate),
        Some(Goto::ServiceTemplates) => templates_of(app, Kind::ServiceTemplate),
        Some(Goto::Warnings) => {
            app.stack.truncate(1);
            push(app, Screen::Warnings);
        }
        Some(Goto::Rollouts) => {
            app.stack.truncate(1);
            push(app, Screen::Rollouts);
        }
        Some(Goto::MultiClusterServices) => {
            app.stack.truncate(1);
            push(app, Screen::MultiClusterServices);
        }
        Some(Goto::Events) => {
            app.stack.truncate(1);
            push(app, Screen::Events(None));
        }
        None => app.flash(FlashLevel::Error, keys::commands::unknown(word)),
    }
    Vec::new()
}

/// `:ct` and `:st`: the templates screen, one kind only.
fn templates_of(app: &mut App, kind: Kind) {
    app.stack.truncate(1);
    push(app, Screen::Templates);
    app.view_mut().only = Some(kind);
    fit_all(app);
}

pub(crate) fn on_mouse(app: &mut App, mouse: MouseEvent) {
    // A question waits for its answer from the keyboard; the editor is
    // keyboard only.
    if app.modal.is_some() || matches!(app.screen(), Screen::Edit(_)) {
        return;
    }
    match mouse.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            if app.help {
                return;
            }
            let lines = if app.screen().scrolls() { 3 } else { 1 };
            let down = mouse.kind == MouseEventKind::ScrollDown;
            step(app, if down { lines } else { -lines });
        }
        MouseEventKind::Down(MouseButton::Left) => {
            if app.help {
                app.help = false;
                return;
            }
            let Some(area) = rows_area(app, app.view()) else {
                return;
            };
            let (x, y) = (mouse.column, mouse.row);
            if x < area.x || x >= area.right() || y < area.y || y >= area.bottom() {
                return;
            }
            let line = app.view().offset + usize::from(y - area.y);
            let index = match &app.view().screen {
                Screen::Rollout(key) => app
                    .board_listing(app.view(), key)
                    .and_then(|l| l.cluster_on_line(line)),
                _ => Some(line),
            };
            if let Some(index) = index.filter(|i| *i < app.row_count()) {
                app.view_mut().selected = index;
                let last = app.stack.len() - 1;
                fit_at(app, last);
            }
        }
        _ => {}
    }
}
