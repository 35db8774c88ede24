//! hmc-tui: services for the clusters made from templates.
//!
//! The crate is one binary with a library inside, so that the integration
//! tests, the benchmarks and the binary share the same engine.

pub mod api;
pub mod capi;
pub mod diff;
pub mod docs;
pub mod engine;
pub mod flux;
pub mod plan;
pub mod startup;
pub mod store;
pub mod tui;
