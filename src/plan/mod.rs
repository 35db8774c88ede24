//! Pure planners: no I/O, no clocks, only data in and data out.

pub mod chart;
pub mod chart_check;
pub mod count;
pub mod doubling;
pub mod impact;
pub mod key_places;
pub mod multi_cluster;
pub mod order;
pub mod parallel;
pub mod parsed_values;
pub mod releases;
pub mod revisions;
pub mod rollout;
pub mod safe_text;
pub mod semver_constraint;
pub mod service_chart;
pub mod services;
pub mod shard;
pub mod source_gate;
pub mod template;
pub mod users;
pub mod values;
pub mod values_data;
pub mod yaml;
