//! The terminal console.
//!
//! One task owns the [`App`]. Keys, mouse, store changes, ticks and log
//! warnings arrive as one [`Msg`] enum over a channel; [`app::update`] turns
//! them into state and [`Command`]s; the screen is redrawn only when
//! something changed, at most every [`FRAME`].
//!
//! The console reads the same reflector stores as the engine, which it runs
//! in-process unless told not to. Nothing polls the API server. What it
//! writes is refused when read-only: operators' requests on rollouts
//! ([`Command::Request`], a merge patch of two annotations), values edits
//! ([`Command::ApplyValues`], a merge patch of `spec.services` guarded by
//! the resourceVersion the editor opened), requests on templates
//! ([`Command::Annotate`], a merge patch of an annotation, such as the one
//! that has the engine try a chart repository again) and deletes
//! ([`Command::Delete`]).
//!
//! [`runtime`] does all of the console's I/O; the other modules are pure
//! but for [`logging`] and the files [`config`] and [`theme`] read.

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
pub mod state;
pub mod theme;
pub mod views;

pub use model::snapshot::Snapshot;
pub use runtime::event_loop::FRAME;
pub use runtime::feeds::Readers;
pub use runtime::{TuiOptions, run};
pub use state::app::{App, Command, Msg};
pub use theme::Theme;
