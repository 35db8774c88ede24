//! The next step of a rollout from what its clusters report, and the
//! summaries its status shows.

use crate::plan::count::count as counted;
use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

use super::fields::PolicyError;
use super::policy::{Limits, check_policy};
use super::windows::{Gate, POLICY_PAUSE};
use crate::api::{
    ClusterRolloutState, ClusterRolloutStatus, RolloutPhase, RolloutPolicy, RolloutStrategy,
    TemplateRolloutSpec, TemplateRolloutStatus, WaveState,
};

/// Acts kept in a rollout's history.
pub(super) const HISTORY: usize = 50;

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
    /// It left the rollout's clusters (no longer selected by the
    /// MultiClusterService): why, as its skip says.
    pub left: Option<&'static str>,
}

impl Health {
    /// Given `revision`, and that is its last good one too: settled there.
    fn settled_at(&self, revision: i64) -> bool {
        self.target == Some(revision) && self.good == Some(revision)
    }
}

/// Something worth an Event, from a step of the rollout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    pub warning: bool,
    pub reason: &'static str,
    pub message: String,
    /// The wave it is about, if one.
    pub wave: Option<u32>,
}

pub(super) fn note(warning: bool, reason: &'static str, message: String) -> Note {
    Note {
        warning,
        reason,
        message,
        wave: None,
    }
}

impl Note {
    /// The same, about wave `number`.
    pub(super) fn of_wave(self, number: u32) -> Note {
        Note {
            wave: Some(number),
            ..self
        }
    }
}

fn elapsed(since: Option<&Time>, now: Timestamp) -> Duration {
    since
        .map(|t| now.duration_since(t.0).unsigned_abs())
        .unwrap_or_default()
}

pub(super) fn failures(status: &TemplateRolloutStatus) -> usize {
    status
        .clusters
        .iter()
        .filter(|c| c.state == ClusterRolloutState::Failed)
        .count()
}

/// The wave that is neither finished nor skipped over: the one the rollout
/// is at.
pub fn current_wave(status: &TemplateRolloutStatus) -> Option<usize> {
    status
        .waves
        .iter()
        .position(|w| !matches!(w.state, WaveState::Succeeded | WaveState::Failed))
}

/// Whether wave `number` (1-based) waits for an approval: every wave under
/// a Manual policy, and the wave after a canary.
pub fn needs_approval(policy: &RolloutPolicy, limits: &Limits, number: u32) -> bool {
    policy.strategy == RolloutStrategy::Manual || (limits.canary > 0 && number == 2)
}

/// Whether every cluster of wave `number` is skipped or already updated, so
/// that the wave has nothing to do.
fn nothing_to_update(status: &TemplateRolloutStatus, number: u32) -> bool {
    let mut members = status
        .clusters
        .iter()
        .filter(|c| c.wave == number)
        .peekable();
    members.peek().is_some()
        && members.all(|c| {
            matches!(
                c.state,
                ClusterRolloutState::Skipped | ClusterRolloutState::Updated
            )
        })
}

/// Starts wave `index`: its waiting clusters are given the revision.
pub(super) fn start_wave(
    status: &mut TemplateRolloutStatus,
    index: usize,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
    notes: &mut Vec<Note>,
) {
    let number = status.waves[index].number;
    status.waves[index].state = WaveState::Progressing;
    status.waves[index].started_at = Some(Time(now));
    status.waves[index].opens_at = None;
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
    notes.push(
        note(
            false,
            "WaveStarted",
            format!("wave {number} started: {}", names.join(", ")),
        )
        .of_wave(number),
    );
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
    let soaking: Vec<u32> = status
        .waves
        .iter()
        .filter(|w| w.state == WaveState::Soaking)
        .map(|w| w.number)
        .collect();

    for c in &mut status.clusters {
        let left = match health.get(&c.name) {
            None => Some("the ManagedCluster was deleted"),
            Some(h) => h.left,
        };
        if let Some(why) = left {
            if !matches!(
                c.state,
                ClusterRolloutState::Skipped | ClusterRolloutState::RolledBack
            ) {
                c.state = ClusterRolloutState::Skipped;
                c.since = Some(Time(now));
                c.reason = Some(why.into());
            }
            continue;
        }
        let Some(h) = health.get(&c.name) else {
            continue;
        };
        match c.state {
            ClusterRolloutState::Waiting
            | ClusterRolloutState::Updating
            | ClusterRolloutState::Failed
                if h.settled_at(revision) =>
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
            // A cluster of a soaking wave that fails at the revision counts
            // against the budget as it would during the wave.
            ClusterRolloutState::Updated if soaking.contains(&c.wave) => {
                if let Some(failed) = h.failed.clone().filter(|_| h.target == Some(revision)) {
                    let why = format!("failed while its wave soaked: {failed}");
                    notes.push(note(true, "ClusterFailed", format!("{}: {why}", c.name)));
                    c.state = ClusterRolloutState::Failed;
                    c.since = Some(Time(now));
                    c.reason = Some(why);
                }
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
    advance_gated(spec, status, health, now, &Gate::of(&spec.policy))
}

/// [`advance`], with the pause and the change windows of `gate` (the
/// engine's: the template's as it is now) instead of the rollout's copy.
pub fn advance_gated(
    spec: &TemplateRolloutSpec,
    status: &mut TemplateRolloutStatus,
    health: &BTreeMap<String, Health>,
    now: Timestamp,
    gate: &Gate,
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
    hold_for_policy(status, gate, &mut notes);

    // Waves.
    if matches!(
        status.phase,
        RolloutPhase::Pending | RolloutPhase::Progressing | RolloutPhase::WaitingForApproval
    ) {
        while let Some(index) = current_wave(status) {
            let number = status.waves[index].number;
            match status.waves[index].state {
                // Nothing left to update in it: no approval asked, nothing
                // started.
                WaveState::Pending
                | WaveState::WaitingForApproval
                | WaveState::WaitingForWindow
                    if nothing_to_update(status, number) =>
                {
                    let wave = &mut status.waves[index];
                    wave.state = WaveState::Succeeded;
                    wave.finished_at = Some(Time(now));
                    notes.push(
                        note(
                            false,
                            "WaveFinished",
                            format!(
                                "wave {number} passed over: its clusters are skipped or already at revision {revision}"
                            ),
                        )
                        .of_wave(number),
                    );
                }
                WaveState::Pending
                    if needs_approval(&spec.policy, &limits, number)
                        && status.waves[index].approved_by.is_none() =>
                {
                    status.waves[index].state = WaveState::WaitingForApproval;
                    status.phase = RolloutPhase::WaitingForApproval;
                    notes.push(
                        note(
                            false,
                            "WaitingForApproval",
                            format!("wave {number} waits for approval"),
                        )
                        .of_wave(number),
                    );
                    break;
                }
                WaveState::Pending | WaveState::WaitingForWindow if !gate.open_at(now) => {
                    wait_for_window(status, index, gate, now, &mut notes);
                    break;
                }
                WaveState::Pending | WaveState::WaitingForWindow => {
                    start_wave(status, index, health, now, &mut notes);
                    // Its clusters may already report the revision, or a
                    // failure there: judge them now, not at the next call.
                    observe(spec, timeout, status, health, now, &mut notes);
                }
                WaveState::WaitingForApproval => {
                    status.phase = RolloutPhase::WaitingForApproval;
                    break;
                }
                WaveState::Soaking => {
                    if over_budget(spec, status, &limits, &mut notes) {
                        break;
                    }
                    let until = status.waves[index].soak_until.as_ref().map(|t| t.0);
                    if until.is_some_and(|until| now < until) {
                        status.phase = RolloutPhase::Progressing;
                        break;
                    }
                    finish_wave(status, index, now, &mut notes);
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
                    // A wave within the budget soaks before the next may
                    // start; the last one has no next to hold.
                    let last = index + 1 == status.waves.len();
                    if !limits.soak.is_zero() && !last && failures(status) <= limits.failure_budget
                    {
                        start_soak(status, index, limits.soak, now, &mut notes);
                        break;
                    }
                    finish_wave(status, index, now, &mut notes);
                    if over_budget(spec, status, &limits, &mut notes) {
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

/// Closes wave `index`: Succeeded, or Failed when a cluster of it failed.
pub(super) fn finish_wave(
    status: &mut TemplateRolloutStatus,
    index: usize,
    now: Timestamp,
    notes: &mut Vec<Note>,
) {
    let number = status.waves[index].number;
    let failed = status
        .clusters
        .iter()
        .any(|c| c.wave == number && c.state == ClusterRolloutState::Failed);
    let wave = &mut status.waves[index];
    wave.state = if failed {
        WaveState::Failed
    } else {
        WaveState::Succeeded
    };
    wave.finished_at = Some(Time(now));
    wave.soak_until = None;
    notes.push(
        note(
            failed,
            "WaveFinished",
            format!(
                "wave {number} finished{}",
                if failed { " with failures" } else { "" }
            ),
        )
        .of_wave(number),
    );
}

/// Wave `index` is due outside every change window: it waits for the next
/// to open (told once, when it starts to wait).
pub(super) fn wait_for_window(
    status: &mut TemplateRolloutStatus,
    index: usize,
    gate: &Gate,
    now: Timestamp,
    notes: &mut Vec<Note>,
) {
    let opens = gate
        .unreadable
        .is_none()
        .then(|| gate.schedule.next_opening(now))
        .flatten();
    let wave = &mut status.waves[index];
    let first = wave.state != WaveState::WaitingForWindow;
    wave.state = WaveState::WaitingForWindow;
    wave.opens_at = opens.map(Time);
    let number = wave.number;
    status.phase = if status.started_at.is_some() {
        RolloutPhase::Progressing
    } else {
        RolloutPhase::Pending
    };
    if first {
        let when = match (&gate.unreadable, opens) {
            (Some(why), _) => format!("its change windows cannot be read: {why}"),
            (None, Some(at)) => format!("the next opens at {at:.0}"),
            (None, None) => "none opens".into(),
        };
        notes.push(
            note(
                false,
                "WaitingForWindow",
                format!("wave {number} waits for a change window: {when}"),
            )
            .of_wave(number),
        );
    }
}

/// The policy's pause holds a moving rollout, and its end lets a rollout it
/// held go on; a pause an operator asked for stays theirs.
fn hold_for_policy(status: &mut TemplateRolloutStatus, gate: &Gate, notes: &mut Vec<Note>) {
    let moving = matches!(
        status.phase,
        RolloutPhase::Pending | RolloutPhase::Progressing | RolloutPhase::WaitingForApproval
    );
    if gate.paused && moving {
        status.phase = RolloutPhase::Paused;
        status.paused_by = Some(POLICY_PAUSE.into());
        notes.push(note(
            false,
            "RolloutPaused",
            format!("paused by {POLICY_PAUSE}: no new wave starts"),
        ));
    } else if !gate.paused
        && status.phase == RolloutPhase::Paused
        && status.paused_by.as_deref() == Some(POLICY_PAUSE)
    {
        status.paused_by = None;
        status.phase = resumed_phase(status);
        notes.push(note(
            false,
            "RolloutResumed",
            "resumed: its policy no longer pauses it".into(),
        ));
    }
}

/// The phase a paused rollout resumes in: waiting for approval when its
/// wave does, else moving.
pub(super) fn resumed_phase(status: &TemplateRolloutStatus) -> RolloutPhase {
    match current_wave(status).map(|i| status.waves[i].state) {
        Some(WaveState::WaitingForApproval) => RolloutPhase::WaitingForApproval,
        _ => RolloutPhase::Progressing,
    }
}

/// Wave `index`, updated, starts to soak for `soak`.
fn start_soak(
    status: &mut TemplateRolloutStatus,
    index: usize,
    soak: Duration,
    now: Timestamp,
    notes: &mut Vec<Note>,
) {
    let until = now.checked_add(soak).unwrap_or(Timestamp::MAX);
    let wave = &mut status.waves[index];
    wave.state = WaveState::Soaking;
    wave.soak_until = Some(Time(until));
    status.phase = RolloutPhase::Progressing;
    notes.push(note(
        false,
        "WaveSoaking",
        format!(
            "wave {} updated; it soaks until {until:.0} before the next wave",
            wave.number
        ),
    ));
}

/// Whether more clusters failed than the budget allows; if so the rollout
/// stops, and says why.
fn over_budget(
    spec: &TemplateRolloutSpec,
    status: &mut TemplateRolloutStatus,
    limits: &Limits,
    notes: &mut Vec<Note>,
) -> bool {
    let spent = failures(status);
    if spent <= limits.failure_budget {
        return false;
    }
    status.phase = RolloutPhase::Failed;
    notes.push(note(
        true,
        "RolloutStopped",
        format!(
            "stopped: {spent} clusters failed, failure budget {}",
            spec.policy.failure_budget
        ),
    ));
    true
}

/// The message of a rollout that its policy stops.
fn invalid_policy(e: &PolicyError) -> String {
    format!(
        "stopped: its policy breaks the rules: {}; a new revision of the template rolls out with the template's policy",
        e.at("spec.policy")
    )
}

/// Why an updating cluster is not there yet, in one line.
pub(super) fn blocker(h: &Health, revision: i64) -> String {
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
    // The wave it is at soaks: until when (the console counts it down).
    let soak_until = at
        .map(|i| &status.waves[i])
        .filter(|w| w.state == WaveState::Soaking)
        .and_then(|w| w.soak_until.as_ref())
        .map(|t| format!("{:.0}", t.0));
    // The wave it is at waits for a change window: when the next opens.
    let window = at
        .map(|i| &status.waves[i])
        .filter(|w| w.state == WaveState::WaitingForWindow)
        .map(|w| match &w.opens_at {
            Some(t) => format!("a change window (opens {:.0})", t.0),
            None => "a change window (none opens: see spec.rollout.windows)".to_string(),
        });
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
            _ => match (at_number, &soak_until) {
                (Some(n), _) if window.is_some() => {
                    format!(
                        "wave {n} waits for {}",
                        window.as_deref().unwrap_or_default()
                    )
                }
                (Some(n), Some(until)) => format!("wave {n} soaks until {until}"),
                (Some(n), None) => format!("wave {n} not yet healthy"),
                (None, _) => "waiting".into(),
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
        RolloutPhase::Pending | RolloutPhase::Progressing if window.is_some() => format!(
            "wave {}/{waves} waits for {}; {updated}/{total} updated{tail}",
            at_number.unwrap_or_default(),
            window.as_deref().unwrap_or_default()
        ),
        RolloutPhase::Pending => {
            format!(
                "{} in {}",
                counted(total, "cluster"),
                counted(waves, "wave")
            )
        }
        RolloutPhase::Progressing => match &soak_until {
            Some(until) => format!(
                "wave {}/{waves} soaking until {until}; {updated}/{total} updated{tail}",
                at_number.unwrap_or_default()
            ),
            None => format!(
                "wave {}/{waves}: {updated}/{total} clusters updated{tail}",
                at_number.unwrap_or_default()
            ),
        },
        RolloutPhase::WaitingForApproval => format!(
            "wave {}/{waves} waits for approval; {updated}/{total} updated{tail}",
            at_number.unwrap_or_default()
        ),
        RolloutPhase::Paused => format!("paused by {by}; {updated}/{total} updated{tail}"),
        RolloutPhase::Failed => format!(
            "stopped: {} failed, failure budget {}; {updated}/{total} updated",
            counted(failed, "cluster"),
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
            "{}: {}{}",
            counted(g.count as usize, "cluster"),
            if g.changes.is_empty() {
                "no change".into()
            } else {
                g.changes.join("; ")
            },
            if more > 0 {
                format!(
                    " (+{more} more {})",
                    if more == 1 { "group" } else { "groups" }
                )
            } else {
                String::new()
            }
        )
    });
}
