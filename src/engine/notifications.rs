//! Webhook notifications: the engine tells people when a rollout or a
//! service needs them, by POSTing to the receivers an administrator
//! configured.
//!
//! - `message`: what the engine tells ([`Notification`], [`EventKind`])
//!   and the two bodies a receiver gets (`json`, versioned by
//!   [`JSON_VERSION`], and `slack`);
//! - `config`: the receivers, read from one Secret ([`DEFAULT_SECRET`],
//!   key [`CONFIG_KEY`]), checked before use;
//! - `delivery`: the [`Notifier`] the engine tells, and the tasks that
//!   route each notification to the receivers that want it and POST it,
//!   never keeping the engine waiting.

pub mod config;
pub mod delivery;
pub mod message;

pub use config::{CONFIG_KEY, Config, ConfigError, DEFAULT_SECRET, Format, Receiver};
pub use delivery::{Counts, Notifier};
pub use message::{EventKind, JSON_VERSION, Notification};

#[cfg(test)]
mod tests;
