//! The terminal console.
//!
//! One task owns the [`App`]. Keys, mouse, store changes, ticks and log
//! warnings arrive as one [`Msg`] enum over a channel; [`app::update`] turns
//! them into state and [`Command`]s; the screen is redrawn only when
//! something changed, at most every [`FRAME`].
//!
//! The console reads the same reflector stores as the engine, which it runs
//! in-process unless told not to. Nothing polls the API server. Every
//! write goes one way, through [`runtime::writer`], and a read-only
//! context's client refuses it: operators' requests on rollouts
//! ([`Command::Request`], a merge patch of two annotations), values edits
//! ([`Command::ApplyValues`], a merge patch of `spec.services` guarded by
//! the resourceVersion the editor opened), requests on templates
//! ([`Command::Annotate`], a merge patch of an annotation, such as the one
//! that has the engine try a chart repository again) and deletes
//! ([`Command::Delete`]).
//!
//! [`runtime`] does all of the console's I/O; the other modules are pure
//! but for [`logging`] and the files [`config`] and [`theme`] read.
//!
//! The layers, each importing only those below it, with no cycles
//! (`tests/architecture.rs` reads the line below and checks it):
//!
//! ```text
//! runtime → update, logging → screens → state → views, config → theme, layout → model → keys → paths
//! ```
//!
//! - [`runtime`]: the loop, the terminal, the stores, the one write path;
//! - [`update`]: messages in, state changed and commands out; a key's
//!   action goes to the screen on top;
//! - [`screens`]: one module per screen (its keys, its actions, its
//!   drawing), the list of them, and the chrome around them;
//! - [`state`]: the [`App`] and what every screen changes alike
//!   (navigation, crumbs, the editor, the contexts open);
//! - [`views`]: widgets that know no state (the table, its columns, safe
//!   text); [`theme`] and [`layout`] (areas from a size and counts);
//! - [`model`]: what the console knows, screens and views included, with
//!   no terminal;
//! - [`keys`]: keybindings as data.
//!
//! [`config`], [`paths`] and [`logging`] are read by `runtime`; `fixtures`
//! (tests and benchmarks only) builds consoles through `update`.

pub mod config;
#[cfg(any(test, feature = "fixtures"))]
#[doc(hidden)]
pub mod fixtures;
pub mod keys;
pub mod layout;
pub mod logging;
pub mod model;
pub mod paths;
pub mod runtime;
pub mod screens;
pub mod state;
pub mod theme;
pub mod update;
pub mod views;

pub use model::snapshot::Snapshot;
pub use runtime::event_loop::FRAME;
pub use runtime::feeds::Readers;
pub use runtime::{TuiOptions, run};
pub use state::app::{App, Command, Msg};
pub use theme::Theme;
