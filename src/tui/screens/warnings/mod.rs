//! The engine's warnings, newest first.

mod draw;
mod rows;
use crate::tui::keys::ScreenKind;
use crate::tui::screens::parts::Parts;

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::Warnings, rows::ROWS, draw::draw);
