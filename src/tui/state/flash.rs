//! Messages on the status line.

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

/// How long a flash message stays.
pub const FLASH_SECONDS: i64 = 30;
