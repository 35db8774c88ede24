//! A rollout policy's values, read and checked.
//!
//! One reading of a rollout policy, with the rules the CRD gives the API
//! server (`api::policy_rules`): a value the API server refuses, the engine
//! refuses too, and a policy stored before those rules existed is reported,
//! never replaced by a default.

use std::time::Duration;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::api::RolloutPolicy;
use crate::api::policy_rules::{
    CANARY_MESSAGE, COUNT_MAX, DURATION_MAX_LENGTH, FAILURE_BUDGET_MESSAGE, HEALTH_TIMEOUT_MESSAGE,
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

/// One value of a rollout policy that breaks its rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// `healthTimeout`, `maxConcurrent`, `canary`, `failureBudget`, `soak`
    /// or a window's (`windows[0].timeZone`).
    pub field: String,
    /// The value as written, quoted and cut to a readable length.
    pub value: String,
    /// The rule it breaks, as the API server words it.
    pub rule: &'static str,
}

/// Every value of a rollout policy that breaks its rule.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.at("rollout"))]
pub struct PolicyError(pub Vec<FieldError>);

impl PolicyError {
    /// In words, each field under `path` (`spec.rollout`, `spec.policy`):
    /// `spec.rollout.healthTimeout: invalid value "1.5h": healthTimeout must be …`.
    pub fn at(&self, path: &str) -> String {
        self.0
            .iter()
            .map(|e| format!("{path}.{}: invalid value {}: {}", e.field, e.value, e.rule))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Bytes of a bad value quoted in a message, once escaped.
const QUOTED: usize = 40;

/// `text` in quotes with its quotes and control characters escaped, cut to
/// [`QUOTED`] bytes (and `…`): a hostile value stays one short line.
pub(super) fn quoted(text: &str) -> String {
    let mut out = String::from('"');
    for c in text.chars() {
        let escaped: String = match c {
            '\'' => "'".into(),
            c => c.escape_debug().collect(),
        };
        if out.len() - 1 + escaped.len() > QUOTED {
            out.push_str("\"…");
            return out;
        }
        out.push_str(&escaped);
    }
    out.push('"');
    out
}

/// Reads `healthTimeout`: whole hours, minutes and seconds, in that order,
/// each at most once (`90s`, `10m`, `1h30m`, `1h30m15s`), more than zero, at
/// most [`DURATION_MAX_LENGTH`] characters. No fractions (`1.5h`), no other
/// units (`5ms`, `1d`), no spaces, no bare numbers.
pub fn parse_duration(text: &str) -> Option<Duration> {
    if text.len() > DURATION_MAX_LENGTH {
        return None;
    }
    let mut units: &[(u8, u64)] = &[(b'h', 3600), (b'm', 60), (b's', 1)];
    let mut rest = text.as_bytes();
    let mut total = 0u64;
    while !rest.is_empty() {
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let (&unit, tail) = rest[digits..].split_first()?;
        let at = units
            .iter()
            .position(|(u, _)| *u == unit)
            .filter(|_| digits > 0)?;
        let number: u64 = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
        total = total.checked_add(number.checked_mul(units[at].1)?)?;
        units = &units[at + 1..];
        rest = tail;
    }
    (total > 0).then(|| Duration::from_secs(total))
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
