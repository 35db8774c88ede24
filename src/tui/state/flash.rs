//! Messages on the status line: the answer to the user's own last key or
//! request. One stays until the next key; the engine's warnings never
//! take its place (they go to [`crate::tui::model::warnings`]).

use k8s_openapi::jiff::Timestamp;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashLevel {
    Info,
    Warn,
    Error,
}

/// What the status line says when a context's engine only observes
/// (the engine is installed there, or whether it is cannot be read):
/// why, and how to run it all the same. The context opened or switched
/// to is the user's own last request.
pub fn observing(why: &str) -> String {
    format!("{why}: the console's engine only observes (--force-engine runs it)")
}

/// A message on the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    pub level: FlashLevel,
    pub text: String,
    pub at: Timestamp,
}
