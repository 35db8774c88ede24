//! The one cache: a reflector store per kind, fed by one watch per kind and
//! read by the engine's reconcilers and the console alike.
//!
//! Each store also publishes a change counter, so the console redraws when
//! something changed without polling the API. (The engine's controllers run
//! their own trigger watches: kube-runtime's shared-stream subscriptions
//! drop triggers when an object is not yet, or no longer, in the store.)
//!
//! Its parts:
//! - `stores`: the stores of every kind, with each kind's change counter,
//!   first-list flag, first page, watch health and announcer;
//! - `watching`: which kinds a set of stores watches, and the wiring of
//!   one watch per kind into the stores;
//! - `reflect`: one watch feeding one store (scope, selectors, what each
//!   object keeps);
//! - `health`: the watches' health, in a person's words;
//! - `first_page`: the first page of a list, read ahead of the full list;
//! - `announce`: who hears of each object a store applied;
//! - `index`: a cluster's releases, by its name.

pub mod announce;
pub mod first_page;
mod health;
pub mod index;
mod reflect;
mod stores;
mod watching;

pub use first_page::FirstPage;
pub(crate) use health::cause;
pub use health::{
    WATCH_LOG_TARGET, WatchEnded, WatchFailure, WatchHealth, WatchState, classify, listed,
};
pub use reflect::{
    Scope, Watches, get, installer_accounts, is_drift_event, names_only, not_ours, ours, reflected,
    release_events,
};
pub use stores::{Applied, Changes, FirstPages, Health, Listed, Stores};
pub use watching::Kinds;
