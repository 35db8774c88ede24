//! A template's chart repository held back by the engine (`sourceHold` in
//! a ServiceTemplate's status, in a ClusterTemplate's `status.chart`):
//! quarantined until its next try after it did not answer, or waiting for
//! one of its namespace's turns for first fetches. The words the templates
//! screen, a ClusterTemplate's screen and describe say of it.

use k8s_openapi::jiff::Timestamp;

use crate::api::{SourceHold, SourceHoldReason};
use crate::tui::model::age::until;
use crate::tui::model::health::Health;

/// The REPOSITORY column's title.
pub const COLUMN: &str = "REPOSITORY";

/// `quarantined` or `waits for a turn`: the hold without its time, as the
/// `/` filter sees it.
pub fn label(hold: &SourceHold) -> &'static str {
    match hold.reason {
        SourceHoldReason::Quarantined => "quarantined",
        SourceHoldReason::Waiting => "waits for a turn",
    }
}

/// When the repository is tried again, when the status says so in a time
/// that reads.
pub fn next_try(hold: &SourceHold) -> Option<Timestamp> {
    hold.next_try.as_deref()?.trim().parse().ok()
}

/// The REPOSITORY column: `quarantined · next try 4m` (`… next try now`
/// once due, `quarantined` without a time), `waits for a turn`; `-` when
/// the repository is not held back.
pub fn short(hold: Option<&SourceHold>, now: Timestamp) -> String {
    let Some(hold) = hold else {
        return "-".into();
    };
    match (hold.reason, next_try(hold)) {
        (SourceHoldReason::Quarantined, Some(at)) => {
            format!("{} · next try {}", label(hold), until(now, at))
        }
        _ => label(hold).into(),
    }
}

/// A quarantine is a failure, a wait is pending; no hold is muted.
pub fn health(hold: Option<&SourceHold>) -> Health {
    match hold.map(|h| h.reason) {
        Some(SourceHoldReason::Quarantined) => Health::Failed,
        Some(SourceHoldReason::Waiting) => Health::Pending,
        None => Health::Muted,
    }
}

/// The whole hold, for describe: `(label, text)` per line: why it is held
/// back, the repository, the failures in a row, and the next try as the
/// status writes it and from now.
pub fn details(hold: &SourceHold, now: Timestamp) -> Vec<(&'static str, String)> {
    let why = match hold.reason {
        SourceHoldReason::Quarantined => "quarantined: it did not answer, or refused the fetch",
        SourceHoldReason::Waiting => {
            "waits for a turn: its namespace's turns for first fetches are taken"
        }
    };
    let url = if hold.url.is_empty() {
        "-".to_string()
    } else {
        hold.url.clone()
    };
    let failures = match hold.failures {
        0 => "none".to_string(),
        1 => "1 try failed".to_string(),
        n => format!("{n} tries failed in a row"),
    };
    let mut lines = vec![
        ("Held back", why.to_string()),
        ("Repository", url),
        ("Failures", failures),
    ];
    match (&hold.next_try, next_try(hold)) {
        (Some(written), Some(at)) => {
            let when = match until(now, at) {
                due if due == "now" => "due now".to_string(),
                left => format!("in {left}"),
            };
            lines.push(("Next try", format!("{written} ({when})")));
        }
        (Some(written), None) => lines.push(("Next try", written.clone())),
        (None, _) if hold.reason == SourceHoldReason::Quarantined => {
            lines.push(("Next try", "not set yet".into()))
        }
        (None, _) => {}
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::objects::{NOW, now};

    /// A hold of `reason`, its next try `in` seconds from now.
    fn hold(reason: SourceHoldReason, next: Option<i64>) -> SourceHold {
        SourceHold {
            reason,
            next_try: next.map(|s| Timestamp::from_second(NOW + s).unwrap().to_string()),
            failures: 3,
            url: "http://charts.unreachable.example".into(),
        }
    }

    #[test]
    fn the_column_says_the_hold_and_the_time_to_the_next_try() {
        use SourceHoldReason::{Quarantined, Waiting};
        assert_eq!(short(None, now()), "-");
        assert_eq!(health(None), Health::Muted);
        assert_eq!(
            short(Some(&hold(Quarantined, Some(4 * 60 + 10))), now()),
            "quarantined · next try 4m"
        );
        assert_eq!(
            short(Some(&hold(Quarantined, Some(-5))), now()),
            "quarantined · next try now"
        );
        assert_eq!(short(Some(&hold(Quarantined, None)), now()), "quarantined");
        let unreadable = SourceHold {
            next_try: Some("soon".into()),
            ..hold(Quarantined, None)
        };
        assert_eq!(short(Some(&unreadable), now()), "quarantined");
        assert_eq!(health(Some(&hold(Quarantined, None))), Health::Failed);
        assert_eq!(short(Some(&hold(Waiting, None)), now()), "waits for a turn");
        assert_eq!(health(Some(&hold(Waiting, None))), Health::Pending);
    }

    #[test]
    fn details_say_everything_the_status_holds() {
        let lines = details(&hold(SourceHoldReason::Quarantined, Some(240)), now());
        assert_eq!(
            lines,
            [
                (
                    "Held back",
                    "quarantined: it did not answer, or refused the fetch".to_string()
                ),
                (
                    "Repository",
                    "http://charts.unreachable.example".to_string()
                ),
                ("Failures", "3 tries failed in a row".to_string()),
                ("Next try", "2025-01-01T00:04:00Z (in 4m)".to_string()),
            ]
        );
        let waiting = SourceHold {
            failures: 0,
            ..hold(SourceHoldReason::Waiting, None)
        };
        let lines = details(&waiting, now());
        assert_eq!(lines[2], ("Failures", "none".to_string()));
        assert_eq!(lines.len(), 3, "no next try while waiting: {lines:?}");
    }
}
