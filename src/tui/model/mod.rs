//! What the console knows, without a terminal: the objects and the
//! [`snapshot::Snapshot`] read from the stores, the rows every screen lists
//! (the long lists worked out once per snapshot, [`listing`]) and the one
//! filter rule, health and ages, a template's chart repository held back
//! by the engine, the values a service gets, the
//! rollout board's rows and the checks of its requests, a cluster's pending
//! revision and the templates' usage counts, the patches a values
//! edit sends, the banner of failing watches, the engine's Events and its
//! warnings, the namespaces and contexts to switch to, and a service's
//! chart (read and checked by `plan::chart` and `plan::chart_check`), and
//! the screens and views of the crumb stack ([`view`]).
//!
//! Nothing here draws or reads keys: no ratatui, no crossterm.

pub mod age;
pub mod banner;
pub mod chart;
pub mod delete;
pub mod describe;
pub mod events;
pub mod filter;
pub mod health;
pub mod hold;
pub mod key;
pub mod listing;
pub mod multi_cluster_services;
pub mod patch;
pub mod pending;
pub mod places;
pub mod rollouts;
pub mod rows;
pub mod snapshot;
pub mod sort;
pub mod usage;
pub mod values;
pub mod view;
pub mod warnings;

#[cfg(test)]
mod tests;
