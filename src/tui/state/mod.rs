//! The console's state: the [`app::App`], its messages ([`app::Msg`]) and
//! the [`app::Command`]s the loop runs, and what changes it, which
//! [`crate::tui::update`] and the screens ([`crate::tui::screens`]) call.
//! No I/O here, so it is tested without a terminal or a cluster.
//!
//! By topic: [`app`] the state and its messages, [`navigation`] rows,
//! selection, crumbs and fitting, [`listings`] the long lists kept between
//! frames, [`contexts`] the contexts open beside the first,
//! [`editing`] and [`editor`] the values editor, [`flash`] the
//! status line's messages, [`search`] `/` in the yaml and values views;
//! [`places`] the namespace and context shown; [`fleet_review`] the
//! clusters a values edit changes.

pub mod app;
pub mod contexts;
pub mod editing;
pub mod editor;
pub mod flash;
pub mod fleet_review;
pub mod listings;
pub mod navigation;
pub mod places;
pub mod search;

#[cfg(test)]
mod tests;
