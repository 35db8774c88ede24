//! Change windows and the policy's pause: when a rollout's next wave may
//! start.
//!
//! A window is weekly: it opens at a local time on some days of the week,
//! in a named time zone of the IANA database (built into the binary, so
//! every machine reads a zone alike), and stays open for a real duration.
//! A local start time that a daylight-saving change skips opens when the
//! clocks have moved on, and one that happens twice opens the first time
//! (RFC 5545's "compatible" reading). The engine reads the windows and the
//! pause from the template as it is now, on every look, so an operator who
//! adds a freeze during an incident holds the rollouts already under way.

use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use k8s_openapi::jiff::civil::{Date, Time};
use k8s_openapi::jiff::tz::TimeZone;

use super::fields::{FieldError, PolicyError, parse_duration, quoted};
use crate::api::policy_rules::{
    TIME_ZONE_MAX_LENGTH, WINDOW_DURATION_MESSAGE, WINDOW_MAX_HOURS, WINDOW_START_MESSAGE,
};
use crate::api::{ChangeWindow, RolloutPolicy, Weekday};

/// The message of a time zone the database does not know.
pub const TIME_ZONE_MESSAGE: &str =
    "timeZone must name a zone of the IANA time zone database, such as Europe/Berlin or UTC";

/// Who a policy's pause is recorded as: the rollout's `pausedBy`.
pub const POLICY_PAUSE: &str = "its policy (spec.rollout.paused)";

/// One change window, read.
#[derive(Clone, Debug)]
pub struct Window {
    /// Monday first.
    days: [bool; 7],
    start: Time,
    duration: Duration,
    zone: TimeZone,
    /// As written, for the console and messages.
    text: String,
}

/// When waves may start: any time without windows, else inside one.
#[derive(Clone, Debug, Default)]
pub struct Schedule {
    windows: Vec<Window>,
}

/// What holds a rollout's next wave besides its own state: the policy's
/// pause and its change windows, as the template has them now.
#[derive(Clone, Debug, Default)]
pub struct Gate {
    pub paused: bool,
    pub schedule: Schedule,
    /// The windows could not be read (a time zone the database does not
    /// know): no wave starts, and the rollout says why.
    pub unreadable: Option<String>,
}

impl Gate {
    /// The gate of `policy`. Windows that break their rules close it (a
    /// rollout never starts a wave on a schedule it cannot read) and say why.
    pub fn of(policy: &RolloutPolicy) -> Gate {
        match Schedule::read(&policy.windows) {
            Ok(schedule) => Gate {
                paused: policy.paused,
                schedule,
                unreadable: None,
            },
            Err(errors) => Gate {
                paused: policy.paused,
                schedule: Schedule::default(),
                unreadable: Some(PolicyError(errors).at("spec.rollout")),
            },
        }
    }

    /// Whether a wave may start at `now` (the pause aside: it holds the
    /// whole rollout, see `advance`).
    pub fn open_at(&self, now: Timestamp) -> bool {
        self.unreadable.is_none() && self.schedule.open_at(now)
    }
}

impl Schedule {
    /// Reads every window; each value that breaks its rule is one error.
    pub fn read(windows: &[ChangeWindow]) -> Result<Schedule, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut read = Vec::new();
        for (i, w) in windows.iter().enumerate() {
            let mut bad = |field: &str, value: String, rule: &'static str| {
                errors.push(FieldError {
                    field: format!("windows[{i}].{field}"),
                    value,
                    rule,
                });
            };
            let start = parse_start(&w.start);
            if start.is_none() {
                bad("start", quoted(&w.start), WINDOW_START_MESSAGE);
            }
            let duration = parse_window_duration(&w.duration);
            if duration.is_none() {
                bad("duration", quoted(&w.duration), WINDOW_DURATION_MESSAGE);
            }
            let name = w.time_zone.as_deref().unwrap_or("UTC");
            let zone = (name.len() <= TIME_ZONE_MAX_LENGTH)
                .then(|| TimeZone::get(name).ok())
                .flatten();
            if zone.is_none() {
                bad("timeZone", quoted(name), TIME_ZONE_MESSAGE);
            }
            if let (Some(start), Some(duration), Some(zone)) = (start, duration, zone) {
                let mut days = [w.days.is_empty(); 7];
                for d in &w.days {
                    days[monday_zero(*d)] = true;
                }
                read.push(Window {
                    days,
                    start,
                    duration,
                    zone,
                    text: describe(w),
                });
            }
        }
        if errors.is_empty() {
            Ok(Schedule { windows: read })
        } else {
            Err(errors)
        }
    }

    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// Whether a wave may start at `now`: always without windows.
    pub fn open_at(&self, now: Timestamp) -> bool {
        self.windows.is_empty() || self.windows.iter().any(|w| w.open_at(now).is_some())
    }

    /// When the next window opens after `now`; none without windows.
    pub fn next_opening(&self, now: Timestamp) -> Option<Timestamp> {
        self.windows
            .iter()
            .filter_map(|w| w.next_opening(now))
            .min()
    }

    /// Each window in words: `Tue, Thu 03:00 for 4h (Europe/Berlin)`.
    pub fn describe(&self) -> Vec<String> {
        self.windows.iter().map(|w| w.text.clone()).collect()
    }
}

impl Window {
    /// The local dates around `now` a window of this one could have opened
    /// on, or may open on next: a window lasts at most a week.
    fn openings(&self, now: Timestamp, days: std::ops::RangeInclusive<i64>) -> Vec<Timestamp> {
        let today = now.to_zoned(self.zone.clone()).date();
        days.filter_map(|offset| {
            let date = today.checked_add(jiff_days(offset)?).ok()?;
            self.days[monday_zero_civil(date)].then_some(())?;
            let local = date.to_datetime(self.start);
            Some(self.zone.to_zoned(local).ok()?.timestamp())
        })
        .collect()
    }

    /// When this window closes, if it is open at `now`.
    fn open_at(&self, now: Timestamp) -> Option<Timestamp> {
        let back = i64::try_from(WINDOW_MAX_HOURS / 24).unwrap_or(7) + 1;
        self.openings(now, -back..=0)
            .into_iter()
            .filter(|start| *start <= now)
            .filter_map(|start| start.checked_add(self.duration).ok())
            .filter(|end| now < *end)
            .max()
    }

    /// When this window next opens after `now`.
    fn next_opening(&self, now: Timestamp) -> Option<Timestamp> {
        self.openings(now, 0..=8)
            .into_iter()
            .filter(|start| *start > now)
            .min()
    }
}

fn jiff_days(n: i64) -> Option<k8s_openapi::jiff::Span> {
    k8s_openapi::jiff::Span::new().try_days(n).ok()
}

fn monday_zero(d: Weekday) -> usize {
    match d {
        Weekday::Mon => 0,
        Weekday::Tue => 1,
        Weekday::Wed => 2,
        Weekday::Thu => 3,
        Weekday::Fri => 4,
        Weekday::Sat => 5,
        Weekday::Sun => 6,
    }
}

fn monday_zero_civil(date: Date) -> usize {
    usize::try_from(date.weekday().to_monday_zero_offset()).unwrap_or_default()
}

/// Reads `HH:MM`, 24-hour.
fn parse_start(text: &str) -> Option<Time> {
    let (h, m) = text.split_once(':')?;
    let plain = |s: &str| s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit());
    if !plain(h) || !plain(m) {
        return None;
    }
    Time::new(h.parse().ok()?, m.parse().ok()?, 0, 0).ok()
}

/// Reads a window's `duration`: whole h and m, more than zero, at most
/// [`WINDOW_MAX_HOURS`].
fn parse_window_duration(text: &str) -> Option<Duration> {
    if text.contains('s') {
        return None;
    }
    parse_duration(text).filter(|d| *d <= Duration::from_secs(WINDOW_MAX_HOURS * 3600))
}

/// A window in words, as written.
fn describe(w: &ChangeWindow) -> String {
    let days = if w.days.is_empty() {
        "every day".to_string()
    } else {
        let mut days = w.days.clone();
        days.sort();
        days.dedup();
        days.iter()
            .map(|d| format!("{d:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "{days} {} for {} ({})",
        w.start,
        w.duration,
        w.time_zone.as_deref().unwrap_or("UTC")
    )
}
