//! The engine's warnings, newest first.

mod draw;
use crate::tui::keys::ScreenKind;
use crate::tui::screens::parts::Parts;

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::plain(ScreenKind::Warnings, draw::draw);
