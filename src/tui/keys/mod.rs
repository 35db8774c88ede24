//! Keybindings as data, for every mode of the console: the lists and the
//! board, the filter and `:` prompts, the questions and every stage of the
//! values editor. Dispatch, the hint bar, the `?` help and `hmc-tui keys`
//! are generated from one [`keymap::Keymap`], which the settings file may
//! remap.
//!
//! - [`key`]: one key: matching, labels, reading it from text;
//! - [`action`]: what a key can do, with its name in the settings file;
//! - [`tables`]: the tables the screens share, every mode and the tables
//!   it is made of (a screen's own table is the screen's,
//!   [`crate::tui::screens`]);
//! - [`keymap`]: the effective map: lookup, hints, help, clash check;
//! - [`remap`]: the settings file's `keys:` section;
//! - [`commands`]: the `:` commands, their aliases and completion;
//! - [`unbound`]: what a key that does nothing on a screen says.
//!
//! Children import each other by their own paths; the re-exports below are
//! for the rest of the console.

pub mod action;
pub mod commands;
pub mod key;
pub mod keymap;
pub mod remap;
pub mod tables;
pub mod unbound;

pub use action::Action;
pub use commands::{COMMANDS, CommandSpec, Goto, candidates, complete, resolve};
pub use key::Key;
pub use keymap::Keymap;
pub use tables::{Mode, ScreenKind};
pub use unbound::not_here;
