//! Pure planners: no I/O, no clocks, only data in and data out.

pub mod doubling;
pub mod impact;
pub mod order;
pub mod rollout;
pub mod semver_constraint;
pub mod services;
pub mod shard;
pub mod source_gate;
pub mod users;
pub mod values;
pub mod yaml;
