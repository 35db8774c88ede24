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

/// How many clusters a wave may hold, out of `total`: a number, or a
/// percentage rounded up; never less than one.
pub fn max_concurrent(policy: &RolloutPolicy, total: usize) -> usize {
    let n = match &policy.max_concurrent {
        IntOrString::Int(n) => usize::try_from(*n).unwrap_or(0),
        IntOrString::String(s) => match s.trim().strip_suffix('%') {
            Some(pct) => {
                let pct: usize = pct.trim().parse().unwrap_or(25);
                total.saturating_mul(pct).div_ceil(100)
            }
            None => s.trim().parse().unwrap_or(1),
        },
    };
    n.max(1)
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
/// of its own. No wave is larger than `maxConcurrent`.
pub fn plan_waves(candidates: &[Candidate], policy: &RolloutPolicy) -> Vec<PlannedWave> {
    let limit = max_concurrent(policy, candidates.len());
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
    if let Some(canary) = policy.canary.filter(|n| *n > 0) {
        let n = (canary as usize).min(limit).min(rest.len());
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
    waves
}

/// A fresh rollout's status: every cluster waiting in its wave.
pub fn plan(spec: &TemplateRolloutSpec, candidates: &[Candidate]) -> TemplateRolloutStatus {
    let waves = plan_waves(candidates, &spec.policy);
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
    status
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

/// Parses `90s`, `10m`, `1h30m`. Plain numbers are seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    if let Ok(secs) = text.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let mut total = 0u64;
    let mut number = String::new();
    for ch in text.chars() {
        match ch {
            '0'..='9' => number.push(ch),
            'h' | 'm' | 's' if !number.is_empty() => {
                let n: u64 = number.parse().ok()?;
                let unit = match ch {
                    'h' => 3600,
                    'm' => 60,
                    _ => 1,
                };
                total = total.checked_add(n.checked_mul(unit)?)?;
                number.clear();
            }
            _ => return None,
        }
    }
    (number.is_empty() && total > 0).then(|| Duration::from_secs(total))
}

/// The health timeout of a policy; an unreadable one counts as 10 minutes.
pub fn health_timeout(policy: &RolloutPolicy) -> Duration {
    parse_duration(&policy.health_timeout).unwrap_or(Duration::from_secs(600))
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

fn needs_approval(policy: &RolloutPolicy, number: u32) -> bool {
    policy.strategy == RolloutStrategy::Manual
        || (policy.canary.is_some_and(|n| n > 0) && number == 2)
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
    status: &mut TemplateRolloutStatus,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
    notes: &mut Vec<Note>,
) {
    let revision = spec.revision;
    let timeout = health_timeout(&spec.policy);

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
/// nothing.
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
    observe(spec, status, health, now, &mut notes);
    let revision = spec.revision;
    // Failed clusters that recovered by themselves bring a stopped rollout
    // back within its budget.
    if status.phase == RolloutPhase::Failed
        && failures(status) <= spec.policy.failure_budget as usize
    {
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
                WaveState::Pending if needs_approval(&spec.policy, number) => {
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
                    observe(spec, status, health, now, &mut notes);
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
                    if spent > spec.policy.failure_budget as usize {
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
            if status.phase == RolloutPhase::Failed
                && failures(status) <= spec.policy.failure_budget as usize
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
