//! What the rollout screens show and what their keys may ask, derived from
//! a TemplateRollout. Pure: the update and the views both read these, so
//! the board's rows, its cursor and its refusals agree.

use std::collections::HashMap;

use crate::api::{
    ClusterRolloutState, ClusterRolloutStatus, RolloutPhase, RolloutPolicy, RolloutSubject,
    TemplateRollout, TemplateRolloutStatus, WaveState, WaveStatus,
};
use k8s_openapi::jiff::Timestamp;

use crate::plan::rollout::{Request, check_policy, current_wave, needs_approval, start_now_wave};
use crate::tui::model::age::until;
use crate::tui::model::filter::{Filter, matches};
use crate::tui::model::health::Health;
use crate::tui::model::key::Obj;

/// The colour of a rollout's phase: done is ready, moving or waiting for
/// someone is progressing, stopped is pending.
pub fn phase_health(phase: RolloutPhase) -> Health {
    match phase {
        RolloutPhase::Succeeded => Health::Ready,
        RolloutPhase::Progressing | RolloutPhase::WaitingForApproval | RolloutPhase::Pending => {
            Health::Progressing
        }
        RolloutPhase::Failed => Health::Failed,
        RolloutPhase::Paused
        | RolloutPhase::Aborted
        | RolloutPhase::RolledBack
        | RolloutPhase::Superseded => Health::Pending,
    }
}

pub fn wave_health(state: WaveState) -> Health {
    match state {
        WaveState::Succeeded => Health::Ready,
        WaveState::Progressing
        | WaveState::WaitingForApproval
        | WaveState::WaitingForWindow
        | WaveState::Soaking => Health::Progressing,
        WaveState::Pending => Health::Pending,
        WaveState::Failed => Health::Failed,
    }
}

pub fn cluster_health(state: ClusterRolloutState) -> Health {
    match state {
        ClusterRolloutState::Updated => Health::Ready,
        ClusterRolloutState::Updating => Health::Progressing,
        ClusterRolloutState::Waiting | ClusterRolloutState::RolledBack => Health::Pending,
        ClusterRolloutState::Failed => Health::Failed,
        ClusterRolloutState::Skipped => Health::Muted,
    }
}

pub fn wave_state_name(state: WaveState) -> &'static str {
    match state {
        WaveState::Pending => "Pending",
        WaveState::WaitingForApproval => "WaitingForApproval",
        WaveState::WaitingForWindow => "WaitingForWindow",
        WaveState::Progressing => "Progressing",
        WaveState::Soaking => "Soaking",
        WaveState::Succeeded => "Succeeded",
        WaveState::Failed => "Failed",
    }
}

/// A rollout's phase; `Pending` before the engine wrote a status.
/// Whose services a rollout brings, as its row says: the template's name,
/// or `mcs/<name>` for a MultiClusterService's.
pub fn source(r: &TemplateRollout) -> String {
    match r.spec.subject() {
        RolloutSubject::Template(t) => t.to_string(),
        RolloutSubject::MultiClusterService(m) => format!("mcs/{m}"),
    }
}

pub fn phase(r: &TemplateRollout) -> RolloutPhase {
    r.status.as_ref().map(|s| s.phase).unwrap_or_default()
}

/// The PHASE column: the phase, or what a moving rollout waits for when
/// that is time (its wave soaks, or waits for a change window), counted
/// down: `Soaking 24m`, `Window in 3h`.
pub fn phase_label(r: &TemplateRollout, now: Timestamp) -> String {
    let p = phase(r);
    let waiting = r
        .status
        .as_ref()
        .filter(|_| matches!(p, RolloutPhase::Pending | RolloutPhase::Progressing))
        .and_then(|s| current_wave(s).map(|i| &s.waves[i]));
    match waiting {
        Some(w) if w.state == WaveState::Soaking => match &w.soak_until {
            Some(end) => format!("Soaking {}", until(now, end.0)),
            None => "Soaking".into(),
        },
        Some(w) if w.state == WaveState::WaitingForWindow => match &w.opens_at {
            Some(at) => format!("Window in {}", until(now, at.0)),
            None => "Window: none opens".into(),
        },
        _ => p.to_string(),
    }
}

/// The rollouts screen: every rollout that matches the filter (every
/// column but the age, and the name and the message).
/// With `several` contexts open, the filter sees the CONTEXT column too.
pub fn rollout_rows<'a>(
    rollouts: &'a [Obj<TemplateRollout>],
    filter: &str,
    several: bool,
) -> Vec<&'a Obj<TemplateRollout>> {
    rollouts
        .iter()
        .filter(|r| {
            let status = r.status.as_ref();
            matches(
                filter,
                &[
                    if several { &r.context } else { "" },
                    r.metadata.namespace.as_deref().unwrap_or_default(),
                    r.metadata.name.as_deref().unwrap_or_default(),
                    &source(r),
                    &r.spec.revision.to_string(),
                    &phase(r).to_string(),
                    status
                        .and_then(|s| s.wave_summary.as_deref())
                        .unwrap_or_default(),
                    status
                        .and_then(|s| s.updated_summary.as_deref())
                        .unwrap_or_default(),
                    status
                        .and_then(|s| s.message.as_deref())
                        .unwrap_or_default(),
                    status
                        .and_then(|s| s.change_summary.as_deref())
                        .unwrap_or_default(),
                ],
            )
        })
        .collect()
}

/// One line of the board's waves section.
#[derive(Clone, Copy, Debug)]
pub enum BoardRow<'a> {
    /// A wave's heading, with how many of its clusters are updated, of all.
    Wave {
        wave: &'a WaveStatus,
        updated: usize,
        total: usize,
    },
    Cluster(&'a ClusterRolloutStatus),
}

impl BoardRow<'_> {
    pub fn is_cluster(&self) -> bool {
        matches!(self, BoardRow::Cluster(_))
    }
}

/// One line of the board's waves section, by its index in the status:
/// what [`BoardRow`] borrows, to keep without the status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardLine {
    /// `status.waves[wave]`'s heading.
    Wave {
        wave: usize,
        updated: usize,
        total: usize,
    },
    /// `status.clusters[i]`.
    Cluster(usize),
}

impl BoardLine {
    pub fn is_cluster(&self) -> bool {
        matches!(self, BoardLine::Cluster(_))
    }

    /// The line, borrowed from `status`.
    pub fn row<'a>(&self, status: &'a TemplateRolloutStatus) -> Option<BoardRow<'a>> {
        Some(match *self {
            BoardLine::Wave {
                wave,
                updated,
                total,
            } => BoardRow::Wave {
                wave: status.waves.get(wave)?,
                updated,
                total,
            },
            BoardLine::Cluster(i) => BoardRow::Cluster(status.clusters.get(i)?),
        })
    }
}

/// The board's waves section: each wave, then its clusters that match the
/// filter (name, state, revision or reason). A wave none of whose clusters
/// match is left out while filtering. One pass over the clusters, however
/// many waves.
pub fn board_lines(status: &TemplateRolloutStatus, filter: &str) -> Vec<BoardLine> {
    let filter = Filter::parse(filter);
    let mut by_wave: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, c) in status.clusters.iter().enumerate() {
        by_wave.entry(c.wave).or_default().push(i);
    }
    let mut lines = Vec::with_capacity(status.clusters.len() + status.waves.len());
    for (w, wave) in status.waves.iter().enumerate() {
        let members = by_wave.get(&wave.number).map_or(&[][..], Vec::as_slice);
        let shown: Vec<usize> = members
            .iter()
            .copied()
            .filter(|i| {
                let c = &status.clusters[*i];
                filter.is_empty()
                    || filter.keeps(&[
                        &c.name,
                        &c.state.to_string(),
                        &c.from_revision.map(|r| r.to_string()).unwrap_or_default(),
                        c.reason.as_deref().unwrap_or_default(),
                    ])
            })
            .collect();
        if shown.is_empty() && !filter.is_empty() {
            continue;
        }
        lines.push(BoardLine::Wave {
            wave: w,
            updated: members
                .iter()
                .filter(|i| status.clusters[**i].state == ClusterRolloutState::Updated)
                .count(),
            total: members.len(),
        });
        lines.extend(shown.into_iter().map(BoardLine::Cluster));
    }
    lines
}

/// [`board_lines`], borrowed from the status.
pub fn board_rows<'a>(status: &'a TemplateRolloutStatus, filter: &str) -> Vec<BoardRow<'a>> {
    board_lines(status, filter)
        .iter()
        .filter_map(|l| l.row(status))
        .collect()
}

/// A cluster's REVISION on the board of the rollout of `revision`:
/// `2 → 3`, or `2 ← 3` once it went back.
pub fn cluster_revision(revision: i64, c: &ClusterRolloutStatus) -> String {
    let from = |n: Option<i64>| n.map_or_else(|| "-".to_string(), |n| n.to_string());
    match c.state {
        ClusterRolloutState::RolledBack | ClusterRolloutState::Skipped => format!(
            "{} ← {revision}",
            from(c.rollback_revision.or(c.from_revision))
        ),
        _ => format!("{} → {revision}", from(c.from_revision)),
    }
}

/// The clusters of the board, in the order the cursor walks them.
pub fn board_clusters<'a>(
    status: &'a TemplateRolloutStatus,
    filter: &str,
) -> Vec<&'a ClusterRolloutStatus> {
    board_rows(status, filter)
        .into_iter()
        .filter_map(|r| match r {
            BoardRow::Cluster(c) => Some(c),
            BoardRow::Wave { .. } => None,
        })
        .collect()
}

/// The line of the board's waves section the `index`th cluster is on.
pub fn line_of_cluster(rows: &[BoardRow], index: usize) -> Option<usize> {
    rows.iter()
        .enumerate()
        .filter(|(_, r)| r.is_cluster())
        .nth(index)
        .map(|(i, _)| i)
}

/// The cluster (its index among the clusters) on a line of the waves section.
pub fn cluster_on_line(rows: &[BoardRow], line: usize) -> Option<usize> {
    if !rows.get(line)?.is_cluster() {
        return None;
    }
    Some(rows[..line].iter().filter(|r| r.is_cluster()).count())
}

/// The wave that waits for approval, when the rollout waits for one.
pub fn waiting_wave(status: &TemplateRolloutStatus) -> Option<u32> {
    if status.phase != RolloutPhase::WaitingForApproval {
        return None;
    }
    status
        .waves
        .iter()
        .find(|w| w.state == WaveState::WaitingForApproval)
        .map(|w| w.number)
}

/// What a wave's heading says of its approval, in agreement with the
/// rollout's phase: a wave that waits for approval while the rollout is
/// paused cannot be approved until it resumes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Approval<'a> {
    /// Approved, by whom and when.
    By(&'a WaveStatus),
    /// Waits for approval, and the approve key would approve it now.
    Awaited,
    /// Waits for approval once the paused rollout resumes.
    AfterResume,
    /// Was waiting for approval when the rollout stopped in this phase.
    Stopped(RolloutPhase),
    /// Nothing to say.
    None,
}

pub fn approval<'a>(status: &TemplateRolloutStatus, wave: &'a WaveStatus) -> Approval<'a> {
    if wave.approved_by.is_some() {
        return Approval::By(wave);
    }
    if wave.state != WaveState::WaitingForApproval {
        return Approval::None;
    }
    match status.phase {
        _ if waiting_wave(status) == Some(wave.number) => Approval::Awaited,
        RolloutPhase::Paused => Approval::AfterResume,
        phase => Approval::Stopped(phase),
    }
}

/// Whether the engine would carry out `request` in the rollout's present
/// state, and if not, why not (in the engine's words). The console asks
/// only what can be done, so a key that does not apply says why instead.
pub fn check(status: &TemplateRolloutStatus, request: &Request) -> Result<(), String> {
    let phase = status.phase;
    match request {
        Request::Approve(wanted) => match waiting_wave(status) {
            None => Err(format!(
                "no wave waits for approval (the rollout is {phase})"
            )),
            Some(n) if wanted.is_some_and(|w| w != n) => Err(format!(
                "wave {} does not wait for approval; wave {n} does",
                wanted.unwrap_or_default()
            )),
            Some(_) => Ok(()),
        },
        Request::Pause => match phase {
            RolloutPhase::Pending
            | RolloutPhase::Progressing
            | RolloutPhase::WaitingForApproval => Ok(()),
            _ => Err(format!("nothing to pause: the rollout is {phase}")),
        },
        Request::Resume if phase == RolloutPhase::Paused => Ok(()),
        Request::Resume => Err(format!("nothing to resume: the rollout is {phase}")),
        Request::Abort if phase.is_terminal() => {
            Err(format!("nothing to abort: the rollout is {phase}"))
        }
        Request::Abort => Ok(()),
        Request::Rollback
            if matches!(phase, RolloutPhase::RolledBack | RolloutPhase::Superseded) =>
        {
            Err(format!("nothing to roll back: the rollout is {phase}"))
        }
        Request::Rollback => Ok(()),
        Request::StartNow => start_now_wave(status).map(|_| ()),
        Request::Skip(name) | Request::Retry(name) => {
            let Some(c) = status.cluster(name) else {
                return Err(format!("{name} is not part of this rollout"));
            };
            if phase.is_terminal() {
                return Err(format!("the rollout is {phase}"));
            }
            match request {
                Request::Retry(_) if c.state != ClusterRolloutState::Failed => {
                    Err(format!("{name} has not failed (it is {})", c.state))
                }
                Request::Skip(_)
                    if matches!(
                        c.state,
                        ClusterRolloutState::Updated
                            | ClusterRolloutState::Skipped
                            | ClusterRolloutState::RolledBack
                    ) =>
                {
                    Err(format!("{name} cannot be skipped: it is {}", c.state))
                }
                _ => Ok(()),
            }
        }
    }
}

/// The next wave "start now" would start, and what it passes (`policy`:
/// the rollout's, which says which waves wait for an approval).
fn start_now_question(
    name: &str,
    policy: &RolloutPolicy,
    status: &TemplateRolloutStatus,
) -> String {
    let Ok(index) = start_now_wave(status) else {
        return format!("Start the next wave of {name} now?");
    };
    let wave = &status.waves[index];
    let soaking = status
        .waves
        .iter()
        .find(|w| w.state == WaveState::Soaking)
        .map(|w| w.number);
    let mut passes = Vec::new();
    if let Some(n) = soaking {
        passes.push(format!("wave {n}'s soak"));
    }
    if wave.state == WaveState::WaitingForWindow {
        passes.push("the change windows".to_string());
    }
    let approval_due = wave.state == WaveState::WaitingForApproval
        || check_policy(policy).is_ok_and(|limits| needs_approval(policy, &limits, wave.number));
    if approval_due && wave.approved_by.is_none() {
        passes.push("its approval (you approve it)".to_string());
    }
    let clusters = status
        .clusters
        .iter()
        .filter(|c| c.wave == wave.number && c.state == ClusterRolloutState::Waiting)
        .count();
    format!(
        "Start wave {} of {name} now? {} the revision{}; recorded as started by you.",
        wave.number,
        if clusters == 1 {
            "1 cluster gets".to_string()
        } else {
            format!("{clusters} clusters get")
        },
        if passes.is_empty() {
            String::new()
        } else {
            format!(", past {}", passes.join(" and "))
        }
    )
}

/// The question asked before a request that cannot be undone, in terms of
/// what happens to the clusters.
pub fn question(r: &TemplateRollout, status: &TemplateRolloutStatus, request: &Request) -> String {
    let name = r.metadata.name.clone().unwrap_or_default();
    let revision = r.spec.revision;
    let count = |states: &[ClusterRolloutState]| {
        status
            .clusters
            .iter()
            .filter(|c| states.contains(&c.state))
            .count()
    };
    let clusters = |n: usize| {
        if n == 1 {
            "1 cluster".to_string()
        } else {
            format!("{n} clusters")
        }
    };
    match request {
        Request::Abort => {
            let updated = count(&[ClusterRolloutState::Updated]);
            format!(
                "Abort {name}? No more waves start; {} updated keep revision {revision}, the others keep theirs.",
                clusters(updated)
            )
        }
        Request::Rollback => {
            let touched = count(&[
                ClusterRolloutState::Updating,
                ClusterRolloutState::Updated,
                ClusterRolloutState::Failed,
            ]);
            format!(
                "Roll back {name}? {} go back to their last good revision.",
                clusters(touched)
            )
        }
        Request::Skip(cluster) => {
            let back = status
                .cluster(cluster)
                .and_then(|c| c.rollback_revision.or(c.from_revision));
            match back {
                Some(b) => {
                    format!("Skip {cluster} in {name}? It stays at (or goes back to) revision {b}.")
                }
                None => format!("Skip {cluster} in {name}? It keeps the revision it has."),
            }
        }
        Request::StartNow => start_now_question(&name, &r.spec.policy, status),
        other => format!("Ask {name} to {}?", other.to_annotation()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(phase: RolloutPhase) -> TemplateRolloutStatus {
        let cluster = |name: &str, wave, state| ClusterRolloutStatus {
            name: name.into(),
            wave,
            state,
            ..Default::default()
        };
        TemplateRolloutStatus {
            phase,
            waves: vec![
                WaveStatus {
                    number: 1,
                    state: WaveState::Failed,
                    ..Default::default()
                },
                WaveStatus {
                    number: 2,
                    state: WaveState::WaitingForApproval,
                    ..Default::default()
                },
            ],
            clusters: vec![
                cluster("a", 1, ClusterRolloutState::Updated),
                cluster("b", 1, ClusterRolloutState::Failed),
                cluster("c", 2, ClusterRolloutState::Waiting),
            ],
            ..Default::default()
        }
    }

    #[test]
    fn the_phase_column_counts_down_a_soak_and_a_window() {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
        let now = Timestamp::from_second(1_000_000).unwrap();
        let later = |s: i64| Some(Time(Timestamp::from_second(1_000_000 + s).unwrap()));
        let mut r = TemplateRollout::new("t-2", Default::default());
        let mut st = status(RolloutPhase::Progressing);
        st.waves[1].state = WaveState::Soaking;
        st.waves[1].soak_until = later(24 * 60);
        r.status = Some(st.clone());
        assert_eq!(phase_label(&r, now), "Soaking 24m");
        st.waves[1].state = WaveState::WaitingForWindow;
        st.waves[1].opens_at = later(3 * 3600);
        r.status = Some(st.clone());
        assert_eq!(phase_label(&r, now), "Window in 3h");
        // Paused, the phase says so whatever the wave waits for.
        st.phase = RolloutPhase::Paused;
        r.status = Some(st);
        assert_eq!(phase_label(&r, now), "Paused");
    }

    #[test]
    fn start_now_is_offered_as_the_engine_would_carry_it_out() {
        let mut st = status(RolloutPhase::WaitingForApproval);
        assert_eq!(check(&st, &Request::StartNow), Ok(()));
        st.phase = RolloutPhase::Paused;
        st.paused_by = Some(crate::plan::rollout::POLICY_PAUSE.into());
        assert!(
            check(&st, &Request::StartNow).is_err_and(|why| why.contains("spec.rollout.paused"))
        );
        st.phase = RolloutPhase::Progressing;
        st.waves[1].state = WaveState::Progressing;
        assert_eq!(
            check(&st, &Request::StartNow),
            Err("wave 2 has started already".into())
        );
        let mut r = TemplateRollout::new("t-2", Default::default());
        st.waves[1].state = WaveState::WaitingForWindow;
        assert_eq!(
            question(&r, &st, &Request::StartNow),
            "Start wave 2 of t-2 now? 1 cluster gets the revision, past the change windows; recorded as started by you."
        );
        // Under a Manual policy a wave not yet asked for approval is
        // approved by the one who starts it, and the question says so.
        r.spec.policy.strategy = crate::api::RolloutStrategy::Manual;
        st.waves[1].state = WaveState::Pending;
        assert_eq!(
            question(&r, &st, &Request::StartNow),
            "Start wave 2 of t-2 now? 1 cluster gets the revision, past its approval (you approve it); recorded as started by you."
        );
    }

    #[test]
    fn checks_follow_the_phase() {
        let waiting = status(RolloutPhase::WaitingForApproval);
        assert_eq!(check(&waiting, &Request::Approve(Some(2))), Ok(()));
        assert!(check(&waiting, &Request::Approve(Some(1))).is_err());
        assert_eq!(check(&waiting, &Request::Pause), Ok(()));
        assert!(check(&waiting, &Request::Resume).is_err());
        assert_eq!(check(&waiting, &Request::Retry("b".into())), Ok(()));
        assert!(check(&waiting, &Request::Retry("a".into())).is_err());
        assert!(check(&waiting, &Request::Skip("a".into())).is_err());
        assert_eq!(check(&waiting, &Request::Skip("c".into())), Ok(()));
        assert!(check(&waiting, &Request::Skip("zz".into())).is_err());

        let paused = status(RolloutPhase::Paused);
        assert_eq!(
            check(&paused, &Request::Approve(Some(2))),
            Err("no wave waits for approval (the rollout is Paused)".into())
        );
        assert_eq!(check(&paused, &Request::Resume), Ok(()));

        let done = status(RolloutPhase::Aborted);
        assert!(check(&done, &Request::Abort).is_err());
        assert_eq!(check(&done, &Request::Rollback), Ok(()));
        assert!(check(&status(RolloutPhase::RolledBack), &Request::Rollback).is_err());
    }

    #[test]
    fn a_wave_waits_for_approval_only_while_the_rollout_does() {
        let waiting = status(RolloutPhase::WaitingForApproval);
        let wave2 = &waiting.waves[1];
        assert_eq!(approval(&waiting, wave2), Approval::Awaited);
        assert_eq!(approval(&waiting, &waiting.waves[0]), Approval::None);
        // Paused: the wave still waits, but `a` would be refused.
        let paused = status(RolloutPhase::Paused);
        assert_eq!(approval(&paused, &paused.waves[1]), Approval::AfterResume);
        assert!(check(&paused, &Request::Approve(Some(2))).is_err());
        let aborted = status(RolloutPhase::Aborted);
        assert_eq!(
            approval(&aborted, &aborted.waves[1]),
            Approval::Stopped(RolloutPhase::Aborted)
        );
        let mut approved = waiting.clone();
        approved.waves[1].approved_by = Some("alice".into());
        assert!(matches!(
            approval(&approved, &approved.waves[1]),
            Approval::By(_)
        ));
    }

    #[test]
    fn board_rows_put_clusters_under_their_wave() {
        let s = status(RolloutPhase::WaitingForApproval);
        let rows = board_rows(&s, "");
        let kinds: Vec<bool> = rows.iter().map(|r| r.is_cluster()).collect();
        assert_eq!(kinds, [false, true, true, false, true]);
        assert_eq!(line_of_cluster(&rows, 2), Some(4));
        assert_eq!(cluster_on_line(&rows, 4), Some(2));
        assert_eq!(cluster_on_line(&rows, 3), None);
        // Filtering leaves out waves without a match.
        let rows = board_rows(&s, "fail");
        assert_eq!(rows.len(), 2);
        assert_eq!(board_clusters(&s, "fail")[0].name, "b");
    }
}
