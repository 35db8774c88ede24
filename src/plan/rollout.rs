//! Rollouts, as pure functions: waves from a policy, the next step of a
//! rollout from what the clusters report, operators' requests, the revision
//! each cluster should have, and the preview of what a revision changes.
//!
//! The engine's rollout controller reads the stores, calls these and writes
//! the result; everything that decides lives here and is unit tested.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;

use crate::api::policy_rules::{
    CANARY_MESSAGE, COUNT_MAX, DURATION_MAX_LENGTH, FAILURE_BUDGET_MESSAGE, HEALTH_TIMEOUT_MESSAGE,
    MAX_CONCURRENT_MESSAGE,
};
use crate::api::{
    ClusterRolloutState, ClusterRolloutStatus, PreviewGroup, RolloutAct, RolloutPhase,
    RolloutPolicy, RolloutStrategy, TemplateRolloutSpec, TemplateRolloutStatus, WaveState,
    WaveStatus,
};
use crate::plan::services::ServicePlan;
use crate::plan::values;

/// Acts kept in a rollout's history.
const HISTORY: usize = 50;
/// Cluster names kept per preview group.
const PREVIEW_NAMES: usize = 10;

/// A cluster that a rollout may reach.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// The revision it is given now.
    pub revision: Option<i64>,
}

// ---- the policy's values ------------------------------------------------------
//
// One reading of a rollout policy, with the rules the CRD gives the API
// server (`api::policy_rules`): a value the API server refuses, the engine
// refuses too, and a policy stored before those rules existed is reported,
// never replaced by a default.

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
}

/// One value of a rollout policy that breaks its rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldError {
    /// `healthTimeout`, `maxConcurrent`, `canary` or `failureBudget`.
    pub field: &'static str,
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
fn quoted(text: &str) -> String {
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
    let mut bad = |field, value: String, rule| {
        errors.push(FieldError { field, value, rule });
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
    match (max_concurrent, health_timeout) {
        (Some(max_concurrent), Some(health_timeout)) if errors.is_empty() => Ok(Limits {
            max_concurrent,
            canary: canary as usize,
            health_timeout,
            failure_budget: policy.failure_budget as usize,
        }),
        _ => Err(PolicyError(errors)),
    }
}

/// A wave as planned: its clusters, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedWave {
    pub group: Option<String>,
    pub clusters: Vec<String>,
}

/// Splits the clusters into waves. Clusters are ordered by the `order`
/// label's value (clusters without it last), then by name; with `order`, a
/// wave never mixes two values. A canary takes the first clusters in a wave
/// of its own. No wave is larger than `maxConcurrent`. A policy that breaks
/// its rules plans nothing.
pub fn plan_waves(
    candidates: &[Candidate],
    policy: &RolloutPolicy,
) -> Result<Vec<PlannedWave>, PolicyError> {
    let limits = check_policy(policy)?;
    let limit = limits.max_concurrent.of(candidates.len());
    let key = |c: &Candidate| -> Option<String> {
        policy.order.as_ref().and_then(|k| c.labels.get(k).cloned())
    };
    let mut sorted: Vec<&Candidate> = candidates.iter().collect();
    sorted.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        // Some before None, then by value, then by name.
        (ka.is_none(), ka, &a.name).cmp(&(kb.is_none(), kb, &b.name))
    });
    let mut waves = Vec::new();
    let mut rest = &sorted[..];
    if limits.canary > 0 {
        let n = limits.canary.min(limit).min(rest.len());
        if n > 0 {
            waves.push(PlannedWave {
                group: None,
                clusters: rest[..n].iter().map(|c| c.name.clone()).collect(),
            });
            rest = &rest[n..];
        }
    }
    let mut groups: Vec<(Option<String>, Vec<&Candidate>)> = Vec::new();
    for c in rest {
        let k = key(c);
        match groups.last_mut() {
            Some((g, members)) if *g == k => members.push(c),
            _ => groups.push((k, vec![c])),
        }
    }
    for (group, members) in groups {
        for chunk in members.chunks(limit) {
            waves.push(PlannedWave {
                group: policy.order.as_ref().and(group.clone()),
                clusters: chunk.iter().map(|c| c.name.clone()).collect(),
            });
        }
    }
    Ok(waves)
}

/// A fresh rollout's status: every cluster waiting in its wave.
pub fn plan(
    spec: &TemplateRolloutSpec,
    candidates: &[Candidate],
) -> Result<TemplateRolloutStatus, PolicyError> {
    let waves = plan_waves(candidates, &spec.policy)?;
    let from: BTreeMap<&str, Option<i64>> = candidates
        .iter()
        .map(|c| (c.name.as_str(), c.revision))
        .collect();
    let mut status = TemplateRolloutStatus {
        waves: waves
            .iter()
            .enumerate()
            .map(|(i, w)| WaveStatus {
                number: i as u32 + 1,
                group: w.group.clone(),
                ..Default::default()
            })
            .collect(),
        clusters: waves
            .iter()
            .enumerate()
            .flat_map(|(i, w)| w.clusters.iter().map(move |c| (i, c)))
            .map(|(i, c)| ClusterRolloutStatus {
                name: c.clone(),
                wave: i as u32 + 1,
                state: ClusterRolloutState::Waiting,
                from_revision: from.get(c.as_str()).copied().flatten(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    summarize(spec, &mut status);
    Ok(status)
}

/// What one cluster reports, as the rollout sees it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Health {
    /// The revision it is given (`status.targetRevision`).
    pub target: Option<i64>,
    /// Its last good revision (`status.revision`).
    pub good: Option<i64>,
    /// The control plane is initialised.
    pub provisioned: bool,
    /// A service failed at the target revision: what it says.
    pub failed: Option<String>,
    /// The first service not installed yet: `name: message`.
    pub blocker: Option<String>,
}

impl Health {
    fn at(&self, revision: i64) -> bool {
        self.target == Some(revision) && self.good == Some(revision)
    }
}

/// Something worth an Event, from a step of the rollout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub warning: bool,
    pub reason: &'static str,
    pub message: String,
}

fn note(warning: bool, reason: &'static str, message: String) -> Note {
    Note {
        warning,
        reason,
        message,
    }
}

fn elapsed(since: Option<&Time>, now: Timestamp) -> Duration {
    since
        .map(|t| now.duration_since(t.0).unsigned_abs())
        .unwrap_or_default()
}

fn failures(status: &TemplateRolloutStatus) -> usize {
    status
        .clusters
        .iter()
        .filter(|c| c.state == ClusterRolloutState::Failed)
        .count()
}

/// The wave that is neither finished nor skipped over: the one the rollout
/// is at.
fn current_wave(status: &TemplateRolloutStatus) -> Option<usize> {
    status
        .waves
        .iter()
        .position(|w| !matches!(w.state, WaveState::Succeeded | WaveState::Failed))
}

fn needs_approval(policy: &RolloutPolicy, limits: &Limits, number: u32) -> bool {
    policy.strategy == RolloutStrategy::Manual || (limits.canary > 0 && number == 2)
}

/// Starts wave `index`: its waiting clusters are given the revision.
fn start_wave(
    status: &mut TemplateRolloutStatus,
    index: usize,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
    notes: &mut Vec<Note>,
) {
    let number = status.waves[index].number;
    status.waves[index].state = WaveState::Progressing;
    status.waves[index].started_at = Some(Time(now));
    let mut names = Vec::new();
    for c in status
        .clusters
        .iter_mut()
        .filter(|c| c.wave == number && c.state == ClusterRolloutState::Waiting)
    {
        c.state = ClusterRolloutState::Updating;
        c.since = Some(Time(now));
        c.rollback_revision = health.get(&c.name).and_then(|h| h.good).or(c.from_revision);
        c.reason = None;
        names.push(c.name.clone());
    }
    status.phase = RolloutPhase::Progressing;
    if status.started_at.is_none() {
        status.started_at = Some(Time(now));
    }
    notes.push(note(
        false,
        "WaveStarted",
        format!("wave {number} started: {}", names.join(", ")),
    ));
}

/// Takes in what the clusters report: those healthy at the revision are
/// updated, updating ones with a failed service or past the health timeout
/// fail, deleted ones are skipped. Applying it twice with the same input
/// changes nothing more.
fn observe(
    spec: &TemplateRolloutSpec,
    timeout: Duration,
    status: &mut TemplateRolloutStatus,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
    notes: &mut Vec<Note>,
) {
    let revision = spec.revision;

    for c in &mut status.clusters {
        let Some(h) = health.get(&c.name) else {
            if !matches!(
                c.state,
                ClusterRolloutState::Skipped | ClusterRolloutState::RolledBack
            ) {
                c.state = ClusterRolloutState::Skipped;
                c.since = Some(Time(now));
                c.reason = Some("the ManagedCluster was deleted".into());
            }
            continue;
        };
        match c.state {
            ClusterRolloutState::Waiting
            | ClusterRolloutState::Updating
            | ClusterRolloutState::Failed
                if h.at(revision) =>
            {
                // A waiting cluster may already be there: created during
                // the rollout, or given the revision by a newer plan.
                if c.state != ClusterRolloutState::Waiting {
                    notes.push(note(
                        false,
                        "ClusterUpdated",
                        format!("{} is at revision {revision}", c.name),
                    ));
                }
                c.state = ClusterRolloutState::Updated;
                c.since = Some(Time(now));
                c.reason = None;
            }
            ClusterRolloutState::Updating => {
                let why =
                    if let Some(failed) = h.failed.clone().filter(|_| h.target == Some(revision)) {
                        Some(failed)
                    } else if elapsed(c.since.as_ref(), now) > timeout {
                        Some(format!(
                            "not healthy within {}: {}",
                            spec.policy.health_timeout,
                            blocker(h, revision)
                        ))
                    } else {
                        None
                    };
                match why {
                    Some(why) => {
                        notes.push(note(true, "ClusterFailed", format!("{}: {why}", c.name)));
                        c.state = ClusterRolloutState::Failed;
                        c.since = Some(Time(now));
                        c.reason = Some(why);
                    }
                    None => c.reason = Some(blocker(h, revision)),
                }
            }
            _ => {}
        }
    }
}

/// Moves a rollout forward from what its clusters report: clusters that are
/// healthy at the revision are updated, those past the health timeout fail,
/// finished waves close and the next one starts or waits for approval.
/// Deterministic in `now`; calling it again with the same input changes
/// nothing. A policy that breaks its rules (stored before the API server
/// checked them) stops the rollout where it is, and its message says why.
pub fn advance(
    spec: &TemplateRolloutSpec,
    status: &mut TemplateRolloutStatus,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
) -> Vec<Note> {
    let mut notes = Vec::new();
    if status.phase.is_terminal() {
        summarize(spec, status);
        return notes;
    }
    let limits = match check_policy(&spec.policy) {
        Ok(limits) => limits,
        Err(e) => {
            let message = invalid_policy(&e);
            if status.message.as_deref() != Some(message.as_str()) {
                notes.push(note(true, "InvalidPolicy", message.clone()));
                status.message = Some(message);
            }
            return notes;
        }
    };
    let timeout = limits.health_timeout;
    observe(spec, timeout, status, health, now, &mut notes);
    let revision = spec.revision;
    // Failed clusters that recovered by themselves bring a stopped rollout
    // back within its budget.
    if status.phase == RolloutPhase::Failed && failures(status) <= limits.failure_budget {
        status.phase = RolloutPhase::Progressing;
    }

    // Waves.
    if matches!(
        status.phase,
        RolloutPhase::Pending | RolloutPhase::Progressing | RolloutPhase::WaitingForApproval
    ) {
        while let Some(index) = current_wave(status) {
            let number = status.waves[index].number;
            match status.waves[index].state {
                WaveState::Pending if needs_approval(&spec.policy, &limits, number) => {
                    status.waves[index].state = WaveState::WaitingForApproval;
                    status.phase = RolloutPhase::WaitingForApproval;
                    notes.push(note(
                        false,
                        "WaitingForApproval",
                        format!("wave {number} waits for approval"),
                    ));
                    break;
                }
                WaveState::Pending => {
                    start_wave(status, index, health, now, &mut notes);
                    // Its clusters may already report the revision, or a
                    // failure there: judge them now, not at the next call.
                    observe(spec, timeout, status, health, now, &mut notes);
                }
                WaveState::WaitingForApproval => {
                    status.phase = RolloutPhase::WaitingForApproval;
                    break;
                }
                _ => {
                    let members: Vec<&ClusterRolloutStatus> = status
                        .clusters
                        .iter()
                        .filter(|c| c.wave == number)
                        .collect();
                    if !members.iter().all(|c| c.state.is_settled()) {
                        status.phase = RolloutPhase::Progressing;
                        break;
                    }
                    let failed = members
                        .iter()
                        .any(|c| c.state == ClusterRolloutState::Failed);
                    let wave = &mut status.waves[index];
                    wave.state = if failed {
                        WaveState::Failed
                    } else {
                        WaveState::Succeeded
                    };
                    wave.finished_at = Some(Time(now));
                    notes.push(note(
                        failed,
                        "WaveFinished",
                        format!(
                            "wave {number} finished{}",
                            if failed { " with failures" } else { "" }
                        ),
                    ));
                    let spent = failures(status);
                    if spent > limits.failure_budget {
                        status.phase = RolloutPhase::Failed;
                        notes.push(note(
                            true,
                            "RolloutStopped",
                            format!(
                                "stopped: {spent} clusters failed, failure budget {}",
                                spec.policy.failure_budget
                            ),
                        ));
                        break;
                    }
                }
            }
        }
        if current_wave(status).is_none() && status.phase != RolloutPhase::Failed {
            status.phase = RolloutPhase::Succeeded;
            status.finished_at = Some(Time(now));
            notes.push(note(
                false,
                "RolloutSucceeded",
                format!("revision {revision} reached every cluster"),
            ));
        }
    }
    summarize(spec, status);
    notes
}

/// The message of a rollout that its policy stops.
fn invalid_policy(e: &PolicyError) -> String {
    format!(
        "stopped: its policy breaks the rules: {}; a new revision of the template rolls out with the template's policy",
        e.at("spec.policy")
    )
}

/// Why an updating cluster is not there yet, in one line.
fn blocker(h: &Health, revision: i64) -> String {
    if !h.provisioned {
        "cluster not provisioned".into()
    } else if let Some(b) = &h.blocker {
        b.clone()
    } else if h.target != Some(revision) {
        format!("applying revision {revision}")
    } else {
        "services installing".into()
    }
}

/// Fills the one-line summaries and the reasons of waiting clusters.
pub fn summarize(spec: &TemplateRolloutSpec, status: &mut TemplateRolloutStatus) {
    let total = status.clusters.len();
    let count = |s: ClusterRolloutState| status.clusters.iter().filter(|c| c.state == s).count();
    let (updated, failed, skipped) = (
        count(ClusterRolloutState::Updated),
        count(ClusterRolloutState::Failed),
        count(ClusterRolloutState::Skipped),
    );
    let waves = status.waves.len();
    let at = current_wave(status);
    let at_number = at.map(|i| status.waves[i].number);
    status.updated_summary = Some(format!("{updated}/{total}"));
    status.wave_summary = Some(format!("{}/{waves}", at_number.unwrap_or(waves as u32)));
    let by = status.paused_by.clone().unwrap_or_else(|| "someone".into());
    let waiting_reason = |wave: u32| -> String {
        match status.phase {
            RolloutPhase::Paused => format!("rollout paused by {by}"),
            RolloutPhase::Failed => format!(
                "failure budget spent: {failed} failed, budget {}",
                spec.policy.failure_budget
            ),
            RolloutPhase::Aborted => "rollout aborted: keeps its revision".into(),
            RolloutPhase::RolledBack => "rollout rolled back: keeps its revision".into(),
            RolloutPhase::Superseded => format!(
                "superseded by revision {}",
                status.superseded_by.unwrap_or_default()
            ),
            RolloutPhase::WaitingForApproval if Some(wave) == at_number => {
                format!("waiting for approval of wave {wave}")
            }
            RolloutPhase::WaitingForApproval => format!(
                "wave {} waits for approval first",
                at_number.unwrap_or_default()
            ),
            _ => match at_number {
                Some(n) => format!("wave {n} not yet healthy"),
                None => "waiting".into(),
            },
        }
    };
    let reasons: Vec<Option<String>> = status
        .clusters
        .iter()
        .map(|c| (c.state == ClusterRolloutState::Waiting).then(|| waiting_reason(c.wave)))
        .collect();
    for (c, r) in status.clusters.iter_mut().zip(reasons) {
        if r.is_some() {
            c.reason = r;
        }
    }
    let tail = [(failed, "failed"), (skipped, "skipped")]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!(", {n} {w}"))
        .collect::<String>();
    status.message = Some(match status.phase {
        RolloutPhase::Pending => format!("{total} clusters in {waves} waves"),
        RolloutPhase::Progressing => format!(
            "wave {}/{waves}: {updated}/{total} clusters updated{tail}",
            at_number.unwrap_or_default()
        ),
        RolloutPhase::WaitingForApproval => format!(
            "wave {}/{waves} waits for approval; {updated}/{total} updated{tail}",
            at_number.unwrap_or_default()
        ),
        RolloutPhase::Paused => format!("paused by {by}; {updated}/{total} updated{tail}"),
        RolloutPhase::Failed => format!(
            "stopped: {failed} clusters failed, failure budget {}; {updated}/{total} updated",
            spec.policy.failure_budget
        ),
        RolloutPhase::Succeeded => format!("{updated}/{total} clusters updated{tail}"),
        RolloutPhase::Aborted => format!("aborted; {updated}/{total} updated{tail}"),
        RolloutPhase::RolledBack => "rolled back to each cluster's last good revision".into(),
        RolloutPhase::Superseded => format!(
            "superseded by revision {}",
            status.superseded_by.unwrap_or_default()
        ),
    });
    status.change_summary = status.preview.first().map(|g| {
        let more = status.preview.len() - 1;
        format!(
            "{} clusters: {}{}",
            g.count,
            if g.changes.is_empty() {
                "no change".into()
            } else {
                g.changes.join("; ")
            },
            if more > 0 {
                format!(" (+{more} more groups)")
            } else {
                String::new()
            }
        )
    });
}

/// What an operator asks of a rollout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    /// Start the wave waiting for approval (optionally: only if it is this one).
    Approve(Option<u32>),
    Pause,
    Resume,
    /// Stop; the updated clusters keep the revision.
    Abort,
    /// Stop and give the clusters the rollout touched their last good revision.
    Rollback,
    /// Leave this cluster out: it keeps (or goes back to) its previous revision.
    Skip(String),
    /// Try a failed cluster again, with a fresh health timeout.
    Retry(String),
}

impl Request {
    /// Reads `approve`, `approve 2`, `pause`, `resume`, `abort`, `rollback`,
    /// `skip <cluster>`, `retry <cluster>`.
    pub fn parse(text: &str) -> Result<Request, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let usage = "expected approve [wave], pause, resume, abort, rollback, skip <cluster> or retry <cluster>";
        match words.as_slice() {
            ["approve"] => Ok(Request::Approve(None)),
            ["approve", n] => n
                .trim_start_matches("wave-")
                .parse()
                .map(|n| Request::Approve(Some(n)))
                .map_err(|_| format!("`{text}`: {n} is not a wave number")),
            ["pause"] => Ok(Request::Pause),
            ["resume"] => Ok(Request::Resume),
            ["abort"] => Ok(Request::Abort),
            ["rollback"] | ["abort", "rollback"] => Ok(Request::Rollback),
            ["skip", c] => Ok(Request::Skip(c.to_string())),
            ["retry", c] => Ok(Request::Retry(c.to_string())),
            _ => Err(format!("`{text}`: {usage}")),
        }
    }

    pub fn action(&self) -> &'static str {
        match self {
            Request::Approve(_) => "approve",
            Request::Pause => "pause",
            Request::Resume => "resume",
            Request::Abort => "abort",
            Request::Rollback => "rollback",
            Request::Skip(_) => "skip",
            Request::Retry(_) => "retry",
        }
    }

    /// The annotation value that asks for this.
    pub fn to_annotation(&self) -> String {
        match self {
            Request::Approve(Some(n)) => format!("approve {n}"),
            Request::Skip(c) | Request::Retry(c) => format!("{} {c}", self.action()),
            _ => self.action().to_string(),
        }
    }
}

/// Carries out an operator's request. Every request is idempotent: asking
/// again for what is already so is refused with a reason and changes
/// nothing, so a request read twice (an engine restarting between recording
/// it and removing it) acts once.
pub fn apply_request(
    spec: &TemplateRolloutSpec,
    status: &mut TemplateRolloutStatus,
    request: &Request,
    by: &str,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
) -> Result<Vec<Note>, String> {
    let phase = status.phase;
    // A policy that breaks its rules lets an operator stop, hold back or
    // undo the rollout, never move it forward.
    let limits = check_policy(&spec.policy);
    if let (Err(e), Request::Approve(_) | Request::Resume | Request::Retry(_)) = (&limits, request)
    {
        return Err(format!(
            "the rollout's policy breaks the rules: {}",
            e.at("spec.policy")
        ));
    }
    let mut notes = Vec::new();
    let mut act = RolloutAct {
        action: request.action().into(),
        by: by.into(),
        at: Time(now),
        revision: spec.revision,
        wave: None,
        cluster: None,
    };
    match request {
        Request::Approve(wanted) => {
            let Some(index) = status
                .waves
                .iter()
                .position(|w| w.state == WaveState::WaitingForApproval)
                .filter(|_| phase == RolloutPhase::WaitingForApproval)
            else {
                return Err(format!(
                    "no wave waits for approval (the rollout is {phase})"
                ));
            };
            let number = status.waves[index].number;
            if wanted.is_some_and(|n| n != number) {
                return Err(format!(
                    "wave {} does not wait for approval; wave {number} does",
                    wanted.unwrap_or_default()
                ));
            }
            status.waves[index].approved_by = Some(by.into());
            status.waves[index].approved_at = Some(Time(now));
            act.wave = Some(number);
            start_wave(status, index, health, now, &mut notes);
        }
        Request::Pause => {
            if !matches!(
                phase,
                RolloutPhase::Pending
                    | RolloutPhase::Progressing
                    | RolloutPhase::WaitingForApproval
            ) {
                return Err(format!("nothing to pause: the rollout is {phase}"));
            }
            status.phase = RolloutPhase::Paused;
            status.paused_by = Some(by.into());
        }
        Request::Resume => {
            if phase != RolloutPhase::Paused {
                return Err(format!("nothing to resume: the rollout is {phase}"));
            }
            status.paused_by = None;
            status.phase = match current_wave(status).map(|i| status.waves[i].state) {
                Some(WaveState::WaitingForApproval) => RolloutPhase::WaitingForApproval,
                _ => RolloutPhase::Progressing,
            };
        }
        Request::Abort => {
            if phase.is_terminal() {
                return Err(format!("nothing to abort: the rollout is {phase}"));
            }
            status.phase = RolloutPhase::Aborted;
            status.finished_at = Some(Time(now));
        }
        Request::Rollback => {
            if matches!(phase, RolloutPhase::RolledBack | RolloutPhase::Superseded) {
                return Err(format!("nothing to roll back: the rollout is {phase}"));
            }
            for c in status.clusters.iter_mut().filter(|c| {
                matches!(
                    c.state,
                    ClusterRolloutState::Updating
                        | ClusterRolloutState::Updated
                        | ClusterRolloutState::Failed
                )
            }) {
                c.state = ClusterRolloutState::RolledBack;
                c.since = Some(Time(now));
                c.reason = Some(match c.rollback_revision {
                    Some(r) => format!("rolled back to revision {r}"),
                    None => "rolled back: keeps the revision it had".into(),
                });
            }
            status.phase = RolloutPhase::RolledBack;
            status.finished_at = Some(Time(now));
        }
        Request::Skip(name) | Request::Retry(name) => {
            let retry = matches!(request, Request::Retry(_));
            let Some(c) = status.clusters.iter_mut().find(|c| &c.name == name) else {
                return Err(format!("{name} is not part of this rollout"));
            };
            if phase.is_terminal() {
                return Err(format!("the rollout is {phase}"));
            }
            act.cluster = Some(name.clone());
            act.wave = Some(c.wave);
            if retry {
                if c.state != ClusterRolloutState::Failed {
                    return Err(format!("{name} has not failed (it is {})", c.state));
                }
                c.state = ClusterRolloutState::Updating;
                c.reason = Some(format!("retried by {by}"));
            } else {
                if matches!(
                    c.state,
                    ClusterRolloutState::Updated
                        | ClusterRolloutState::Skipped
                        | ClusterRolloutState::RolledBack
                ) {
                    return Err(format!("{name} cannot be skipped: it is {}", c.state));
                }
                c.state = ClusterRolloutState::Skipped;
                c.reason = Some(match c.rollback_revision {
                    Some(r) => format!("skipped by {by}: back to revision {r}"),
                    None => format!("skipped by {by}: keeps its revision"),
                });
            }
            c.since = Some(Time(now));
            // A retried cluster's wave is open again: the rollout waits for
            // it, and counts it against the budget if it fails again.
            let wave = c.wave;
            if retry
                && let Some(w) = status
                    .waves
                    .iter_mut()
                    .find(|w| w.number == wave && w.state == WaveState::Failed)
            {
                w.state = WaveState::Progressing;
                w.finished_at = None;
            }
            // Fewer failures may bring a stopped rollout back within budget.
            if let Ok(limits) = &limits
                && status.phase == RolloutPhase::Failed
                && failures(status) <= limits.failure_budget
            {
                status.phase = RolloutPhase::Progressing;
            }
        }
    }
    notes.push(note(
        false,
        "RolloutRequest",
        format!(
            "{}{}{} by {by} (revision {})",
            act.action,
            act.wave.map(|w| format!(" wave {w}")).unwrap_or_default(),
            act.cluster
                .as_ref()
                .map(|c| format!(" cluster {c}"))
                .unwrap_or_default(),
            spec.revision
        ),
    ));
    status.history.push(act);
    let over = status.history.len().saturating_sub(HISTORY);
    status.history.drain(..over);
    // Let the machine take the next step right away (a retried cluster may
    // already be healthy, a resumed wave may be finished).
    notes.extend(advance(spec, status, health, now));
    Ok(notes)
}

/// The revision a cluster should be given now. `latest` is the template's
/// newest revision, `rollout` the rollout of that revision if there is one,
/// `current` the revision the cluster is given now. A cluster keeps its
/// revision until a rollout's wave reaches it; a new cluster gets the newest.
pub fn desired_revision(
    latest: Option<i64>,
    rollout: Option<(&TemplateRolloutSpec, &TemplateRolloutStatus)>,
    cluster: &str,
    current: Option<i64>,
) -> Option<i64> {
    let entry =
        rollout.and_then(|(spec, status)| status.cluster(cluster).map(|c| (spec.revision, c)));
    match entry {
        Some((
            revision,
            ClusterRolloutStatus {
                state:
                    ClusterRolloutState::Updating
                    | ClusterRolloutState::Updated
                    | ClusterRolloutState::Failed,
                ..
            },
        )) => Some(revision),
        Some((
            _,
            ClusterRolloutStatus {
                state: ClusterRolloutState::RolledBack | ClusterRolloutState::Skipped,
                rollback_revision,
                ..
            },
        )) => rollback_revision.or(current),
        _ => current.or(latest),
    }
}

/// What changes for one cluster between two revisions, one line per item:
/// chart versions, added and removed services, changed values.
pub fn service_changes(
    old: &[ServicePlan],
    new: &[ServicePlan],
    version: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let label = |p: &ServicePlan| match p {
        ServicePlan::Install(d) => version(&d.template)
            .map(|v| format!("{} {v}", d.name))
            .unwrap_or_else(|| d.name.clone()),
        ServicePlan::Blocked(b) => b.name.clone(),
    };
    let names: BTreeSet<&str> = new.iter().map(|p| p.name()).collect();
    for p in old.iter().filter(|p| !names.contains(p.name())) {
        out.push(format!("remove {}", label(p)));
    }
    for n in new {
        match (old.iter().find(|o| o.name() == n.name()), n) {
            (None, _) => out.push(format!("add {}", label(n))),
            (Some(_), ServicePlan::Blocked(b)) => {
                out.push(format!("{}: blocked: {}", b.name, b.message))
            }
            (Some(ServicePlan::Blocked(_)), ServicePlan::Install(_)) => {
                out.push(format!("install {}", label(n)))
            }
            (Some(ServicePlan::Install(o)), ServicePlan::Install(d)) => {
                let (from, to) = (version(&o.template), version(&d.template));
                if o.template != d.template {
                    out.push(match (from, to) {
                        (Some(a), Some(b)) if a != b => format!("{} {a} → {b}", d.name),
                        _ => format!("{}: template {} → {}", d.name, o.template, d.template),
                    });
                }
                for change in values::diff(&o.values, &d.values) {
                    out.push(format!("{}: {change}", d.name));
                }
            }
        }
    }
    out
}

/// Groups clusters with an identical change, largest group first.
pub fn preview_groups(changes: Vec<(String, Vec<String>)>) -> Vec<PreviewGroup> {
    let mut groups: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (cluster, change) in changes {
        groups.entry(change).or_default().push(cluster);
    }
    let mut out: Vec<PreviewGroup> = groups
        .into_iter()
        .map(|(changes, mut clusters)| {
            clusters.sort();
            let count = clusters.len() as u32;
            clusters.truncate(PREVIEW_NAMES);
            PreviewGroup {
                count,
                changes,
                clusters,
            }
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.changes.cmp(&b.changes)));
    out
}

#[cfg(test)]
#[path = "rollout_tests.rs"]
mod tests;
