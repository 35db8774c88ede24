//! A rollout policy's values, read and checked.
//!
//! One reading of a rollout policy, with the rules the CRD gives the API
//! server (`api::policy_rules`): a value the API server refuses, the engine
//! refuses too, and a policy stored before those rules existed is reported,
//! never replaced by a default.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::fields::{FieldError, PolicyError, parse_duration, quoted};
use crate::api::RolloutPolicy;
use crate::api::policy_rules::{
    CANARY_MESSAGE, COUNT_MAX, FAILURE_BUDGET_MESSAGE, HEALTH_TIMEOUT_MESSAGE,
    MAX_CONCURRENT_MESSAGE, SOAK_MAX_HOURS, SOAK_MESSAGE,
};

/// `maxConcurrent`, read: a number of clusters or a percentage of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MaxConcurrent {
    /// 1 to [`COUNT_MAX`] clusters.
    Count(u32),
    /// 1 to 100 percent of the clusters, rounded up.
    Percent(u8),
}

impl MaxConcurrent {
    /// How many clusters a wave may hold, out of `total`; never less than one.
    pub fn of(self, total: usize) -> usize {
        let n = match self {
            Self::Count(n) => n as usize,
            Self::Percent(p) => total.saturating_mul(usize::from(p)).div_ceil(100),
        };
        n.max(1)
    }
}

/// A rollout policy's values, read and checked: what the planner works with.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    pub max_concurrent: MaxConcurrent,
    /// 0 is no canary.
    pub canary: usize,
    pub health_timeout: Duration,
    pub failure_budget: usize,
    /// How long a finished wave stays healthy before the next may start;
    /// zero is no soak.
    pub soak: Duration,
}

/// Reads `maxConcurrent`: a whole number from 1 to [`COUNT_MAX`], or a
/// percentage from `1%` to `100%` (digits and `%` only, no leading zero).
pub fn parse_max_concurrent(value: &IntOrString) -> Option<MaxConcurrent> {
    match value {
        IntOrString::Int(n) => u32::try_from(*n)
            .ok()
            .filter(|n| (1..=COUNT_MAX).contains(n))
            .map(MaxConcurrent::Count),
        IntOrString::String(s) => {
            let digits = s.strip_suffix('%')?;
            let plain = !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit());
            let pct: u8 = digits.parse().ok().filter(|_| plain && digits.len() <= 3)?;
            (1..=100)
                .contains(&pct)
                .then_some(MaxConcurrent::Percent(pct))
        }
    }
}

/// Checks every value of a policy against its rule and reads them.
pub fn check_policy(policy: &RolloutPolicy) -> Result<Limits, PolicyError> {
    let mut errors = Vec::new();
    let mut bad = |field: &str, value: String, rule| {
        errors.push(FieldError {
            field: field.into(),
            value,
            rule,
        });
    };
    let max_concurrent = parse_max_concurrent(&policy.max_concurrent);
    if max_concurrent.is_none() {
        let value = match &policy.max_concurrent {
            IntOrString::Int(n) => n.to_string(),
            IntOrString::String(s) => quoted(s),
        };
        bad("maxConcurrent", value, MAX_CONCURRENT_MESSAGE);
    }
    let canary = policy.canary.unwrap_or(0);
    if canary > COUNT_MAX {
        bad("canary", canary.to_string(), CANARY_MESSAGE);
    }
    let health_timeout = parse_duration(&policy.health_timeout);
    if health_timeout.is_none() {
        bad(
            "healthTimeout",
            quoted(&policy.health_timeout),
            HEALTH_TIMEOUT_MESSAGE,
        );
    }
    if policy.failure_budget > COUNT_MAX {
        bad(
            "failureBudget",
            policy.failure_budget.to_string(),
            FAILURE_BUDGET_MESSAGE,
        );
    }
    let soak = match &policy.soak {
        None => Some(Duration::ZERO),
        Some(text) => {
            parse_duration(text).filter(|d| *d <= Duration::from_secs(SOAK_MAX_HOURS * 3600))
        }
    };
    if soak.is_none() {
        let text = policy.soak.as_deref().unwrap_or_default();
        bad("soak", quoted(text), SOAK_MESSAGE);
    }
    if let Err(windows) = super::windows::Schedule::read(&policy.windows) {
        errors.extend(windows);
    }
    match (max_concurrent, health_timeout, soak) {
        (Some(max_concurrent), Some(health_timeout), Some(soak)) if errors.is_empty() => {
            Ok(Limits {
                max_concurrent,
                canary: canary as usize,
                health_timeout,
                failure_budget: policy.failure_budget as usize,
                soak,
            })
        }
        _ => Err(PolicyError(errors)),
    }
}
