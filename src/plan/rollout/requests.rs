//! What an operator asks of a rollout, and carrying it out.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

use super::policy::check_policy;
use super::steps::{
    HISTORY, Health, Note, advance_gated, current_wave, failures, finish_wave, needs_approval,
    note, resumed_phase, start_wave, wait_for_window,
};
use super::windows::{Gate, POLICY_PAUSE};
use crate::api::{
    ClusterRolloutState, RolloutAct, RolloutPhase, TemplateRolloutSpec, TemplateRolloutStatus,
    WaveState,
};

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
    /// Start the next wave now: past its soak, its change windows and its
    /// approval (the one asking approves it). An emergency's way, recorded
    /// with who asked.
    StartNow,
}

impl Request {
    /// Reads `approve`, `approve 2`, `pause`, `resume`, `abort`, `rollback`,
    /// `skip <cluster>`, `retry <cluster>`, `start-now`.
    pub fn parse(text: &str) -> Result<Request, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let usage = "expected approve [wave], pause, resume, abort, rollback, skip <cluster>, retry <cluster> or start-now";
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
            ["start-now"] => Ok(Request::StartNow),
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
            Request::StartNow => "start-now",
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

/// The wave (its index) "start now" would start: the one the rollout is at,
/// or the next when that one soaks; or why none can be started.
pub fn start_now_wave(status: &TemplateRolloutStatus) -> Result<usize, String> {
    let phase = status.phase;
    if phase == RolloutPhase::Paused {
        return Err(match status.paused_by.as_deref() {
            Some(POLICY_PAUSE) => {
                "its policy pauses it (spec.rollout.paused): set that to false first".into()
            }
            by => format!(
                "it is paused by {}: resume it first",
                by.unwrap_or("someone")
            ),
        });
    }
    if phase.is_terminal() {
        return Err(format!("nothing to start: the rollout is {phase}"));
    }
    let mut open = status
        .waves
        .iter()
        .enumerate()
        .filter(|(_, w)| !matches!(w.state, WaveState::Succeeded | WaveState::Failed));
    let next = match open.next() {
        Some((_, w)) if w.state == WaveState::Soaking => open.next(),
        first => first,
    };
    match next {
        None => Err("no wave is left to start".into()),
        Some((index, w))
            if matches!(
                w.state,
                WaveState::Pending | WaveState::WaitingForApproval | WaveState::WaitingForWindow
            ) =>
        {
            Ok(index)
        }
        Some((_, w)) => Err(format!("wave {} has started already", w.number)),
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
    let gate = Gate::of(&spec.policy);
    apply_request_gated(spec, status, request, by, health, now, &gate)
}

/// [`apply_request`], with the pause and change windows of `gate` (the
/// template's as it is now) instead of the rollout's copy.
pub fn apply_request_gated(
    spec: &TemplateRolloutSpec,
    status: &mut TemplateRolloutStatus,
    request: &Request,
    by: &str,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
    gate: &Gate,
) -> Result<Vec<Note>, String> {
    let phase = status.phase;
    // A policy that breaks its rules lets an operator stop, hold back or
    // undo the rollout, never move it forward.
    let limits = check_policy(&spec.policy);
    if let (Err(e), Request::Approve(_) | Request::Resume | Request::Retry(_) | Request::StartNow) =
        (&limits, request)
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
            // Outside every window the approval is kept, and the wave
            // starts when the next opens.
            if gate.open_at(now) {
                start_wave(status, index, health, now, &mut notes);
            } else {
                wait_for_window(status, index, gate, now, &mut notes);
            }
        }
        Request::StartNow => {
            let index = start_now_wave(status)?;
            // The wave before it soaks: its soak ends now.
            if let Some(soaking) =
                current_wave(status).filter(|&i| status.waves[i].state == WaveState::Soaking)
            {
                finish_wave(status, soaking, now, &mut notes);
            }
            let wave = &status.waves[index];
            let number = wave.number;
            if let Ok(limits) = &limits
                && needs_approval(&spec.policy, limits, number)
                && wave.approved_by.is_none()
            {
                status.waves[index].approved_by = Some(by.into());
                status.waves[index].approved_at = Some(Time(now));
            }
            status.waves[index].started_now_by = Some(by.into());
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
            if status.paused_by.as_deref() == Some(POLICY_PAUSE) {
                return Err(
                    "its policy pauses it (spec.rollout.paused): it resumes when that is false"
                        .into(),
                );
            }
            status.paused_by = None;
            status.phase = resumed_phase(status);
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
    notes.extend(advance_gated(spec, status, health, now, gate));
    Ok(notes)
}
