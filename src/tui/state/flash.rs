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

/// A message on the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    pub level: FlashLevel,
    pub text: String,
    pub at: Timestamp,
}
