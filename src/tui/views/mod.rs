//! The widgets the screens draw with, which know nothing of the app's
//! state: the [`table`] lists are drawn as and its [`columns`], the `/`
//! [`search`] marks, and the one way text enters a frame ([`safe`]). The
//! chrome around a screen and each screen's body are the screens'
//! ([`crate::tui::screens`]). No I/O, no state changes.
//!
//! Names, messages, conditions, values and events come from the API
//! server, written by anyone who may write an object. Text enters the
//! frame in three places only, and each shows control characters written
//! out (`\u{1b}`), never raw and never silently dropped (`safe.rs`):
//! [`safe::paragraph`] (every paragraph of every screen),
//! [`table::long_table`]'s cells (through [`columns::ellipsize`] and
//! [`columns::ellipsize_middle`]), and the blocks' titles (the screens'
//! body block and sections, through [`safe::safe_line`]).

pub(crate) mod columns;
pub(crate) mod safe;
pub(crate) mod search;
pub(crate) mod table;

#[cfg(test)]
mod tests;
