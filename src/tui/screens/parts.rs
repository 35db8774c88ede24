//! What the app reaches a screen by: its kind, its own key table, what
//! its actions do and why they would be refused, its rows and its drawing.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keys::tables::{Binding, Table};
use crate::tui::keys::{Action, ScreenKind};
use crate::tui::state::app::{App, Command, ScreenRows};

/// A key read by a screen that reads every key itself: the commands, or
/// `None` to let the app have the key.
pub type OnKey = fn(&mut App, KeyEvent) -> Option<Vec<Command>>;

/// What an action does on a screen: `None` when it is not the screen's.
pub type OnAction = fn(&mut App, Action) -> Option<Vec<Command>>;

/// Why an action of a screen's would be refused now, if it would.
pub type Refusal = fn(&App, Action) -> Option<String>;

/// Draws a screen's body.
pub type Draw = fn(&App, &mut Frame, Rect);

/// One screen's parts, as the app reaches them.
pub struct Parts {
    pub kind: ScreenKind,
    /// The screen's own key table, first in its mode, with its default
    /// bindings; `None` when the screen has only the shared ones.
    pub table: Option<(Table, &'static [Binding])>,
    /// What an action does here: `None` when it is not the screen's own
    /// (the app's, such as moving or going back).
    pub on_action: OnAction,
    /// Why an action of the screen's would be refused now, if it would.
    pub refusal: Refusal,
    /// A screen that reads every key itself (the values editor): the
    /// commands, or `None` to let the app have the key.
    pub on_key: Option<OnKey>,
    /// Its rows, which navigation moves through and keeps selected.
    pub rows: ScreenRows,
    /// Draws the screen's body.
    pub draw: Draw,
}

impl Parts {
    /// A screen with only the keys every screen shares: a text to scroll,
    /// a list to move through.
    pub const fn new(kind: ScreenKind, rows: ScreenRows, draw: Draw) -> Parts {
        Parts {
            kind,
            table: None,
            on_action: |_, _| None,
            refusal: never_refused,
            on_key: None,
            rows,
            draw,
        }
    }

    /// The screen with a key table and actions of its own.
    pub const fn with_keys(
        self,
        table: Table,
        keys: &'static [Binding],
        on_action: OnAction,
        refusal: Refusal,
    ) -> Parts {
        Parts {
            table: Some((table, keys)),
            on_action,
            refusal,
            ..self
        }
    }

    /// The screen reading every key itself.
    pub const fn reading_keys(self, on_key: OnKey) -> Parts {
        Parts {
            on_key: Some(on_key),
            ..self
        }
    }
}

/// For a screen whose actions are never refused.
pub fn never_refused(_: &App, _: Action) -> Option<String> {
    None
}
