//! Rollouts, as pure functions: waves from a policy, the next step of a
//! rollout from what the clusters report, operators' requests, the revision
//! each cluster should have, and the preview of what a revision changes.
//!
//! The engine's rollout controller reads the stores, calls these and writes
//! the result; everything that decides lives here and is unit tested. This
//! file only names the parts:
//! - `fields`: values that break their rules, and the readings checks share;
//! - `policy`: a rollout policy's values, read and checked;
//! - `waves`: the clusters a rollout reaches, waves from a policy, and a
//!   fresh rollout's status;
//! - `steps`: the next step of a rollout, and its summaries;
//! - `requests`: what an operator asks of a rollout, carried out;
//! - `revision`: the revision each cluster should be given;
//! - `preview`: what a revision changes, cluster by cluster;
//! - `size`: a status made to fit what the API server stores;
//! - `windows`: change windows and the policy's pause, when a wave may start.

mod fields;
mod policy;
mod preview;
mod requests;
mod revision;
mod size;
mod steps;
mod waves;
mod windows;

pub use self::fields::{FieldError, PolicyError, parse_duration};
pub use self::policy::{Limits, MaxConcurrent, check_policy, parse_max_concurrent};
pub use self::preview::{preview_groups, service_changes};
pub use self::requests::{Request, apply_request, apply_request_gated, start_now_wave};
pub use self::revision::desired_revision;
pub use self::size::{MAX_STATUS_BYTES, fit_status};
pub use self::steps::{
    Health, Note, advance, advance_gated, current_wave, needs_approval, summarize,
};
pub use self::waves::{Candidate, PlannedWave, candidates, candidates_given, plan, plan_waves};
pub use self::windows::{Gate, POLICY_PAUSE, Schedule, TIME_ZONE_MESSAGE};

#[cfg(test)]
mod tests;
