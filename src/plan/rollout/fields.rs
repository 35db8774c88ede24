//! A policy's values that break their rules, in the API server's words,
//! and the readings its checks share (durations, quoted values): what
//! `policy` and `windows` both use.

use std::time::Duration;

use crate::api::policy_rules::DURATION_MAX_LENGTH;

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
