//! Rollouts: when a ClusterTemplate's services get a new revision, plan its
//! rollout over the clusters made from it, and when a MultiClusterService's
//! do, over the clusters it selects; move it forward wave by wave, from
//! what the clusters report and what operators ask (`owner` says where the
//! clusters and their revisions come from for each).
//!
//! The decisions are in `plan::rollout`; this reads the stores, calls it and
//! writes the TemplateRollout. Everything lives in the rollout's status, so
//! an engine that restarts picks the rollout up where it was.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ObjectMeta, Patch, PatchParams};
use kube::runtime::controller::Action;
use kube::{Api, ResourceExt};
use serde_json::json;

use self::owner::Owner;
use super::apply::{apply_if_changed, status_if_changed};
use super::context::Context;
use super::error::Result;
use super::notifications::EventKind;
use crate::api::names::{MAX_LABEL_VALUE, shorten};
use crate::api::{
    ClusterRolloutState, ClusterTemplate, ManagedCluster, MultiClusterService, RolloutPhase,
    RolloutSubject, TemplateRollout, TemplateRolloutSpec, TemplateRolloutStatus, WaveState, labels,
};
use crate::plan::rollout::{
    Gate, Note, Request, advance_gated, apply_request_gated, check_policy, fit_status, plan,
    summarize,
};
use crate::store::get;

/// The shortest time between two looks at a rollout that its clusters
/// trigger (see `throttle`), per [`CLUSTERS_PER_INTERVAL`] clusters of its
/// template: a look reads every cluster and may write a status that lists
/// each, so a larger fleet is looked at less often (at 10,000 clusters
/// every 10 s) and the API server gets about the same bytes a second.
pub const CLUSTER_TRIGGER_INTERVAL: Duration = Duration::from_secs(1);
pub const CLUSTERS_PER_INTERVAL: usize = 1000;

/// The time between two looks at a rollout of `clusters` clusters that
/// they trigger.
pub fn look_interval(clusters: usize) -> Duration {
    let intervals = clusters.div_ceil(CLUSTERS_PER_INTERVAL).max(1);
    CLUSTER_TRIGGER_INTERVAL * u32::try_from(intervals).unwrap_or(u32::MAX)
}

pub async fn reconcile(ct: Arc<ClusterTemplate>, ctx: Arc<Context>) -> Result<Action> {
    ctx.counters
        .timed("rollouts", reconcile_owner(Owner::Template(&ct), &ctx))
        .await
}

/// The rollouts of a MultiClusterService's services.
pub async fn reconcile_multi(mcs: Arc<MultiClusterService>, ctx: Arc<Context>) -> Result<Action> {
    ctx.counters
        .timed("rollouts", reconcile_owner(Owner::Multi(&mcs), &ctx))
        .await
}

async fn reconcile_owner(owner: Owner<'_>, ctx: &Context) -> Result<Action> {
    if owner.is_deleted() {
        return Ok(Action::await_change());
    }
    let Some(revision) = owner.revision() else {
        return Ok(Action::await_change());
    };
    let ns = owner.namespace();
    let subject = owner.subject();
    let now = Timestamp::now();
    let rollouts = ctx.stores.rollouts.state_filter(|r| {
        r.namespace().as_deref() == Some(ns.as_str()) && r.spec.subject() == subject
    });

    // A newer revision takes over from an older rollout that is still going.
    for old in rollouts.iter().filter(|r| r.spec.revision < revision) {
        let Some(mut status) = old.status.clone() else {
            continue;
        };
        if status.phase.is_terminal() {
            continue;
        }
        status.phase = RolloutPhase::Superseded;
        status.superseded_by = Some(revision);
        status.finished_at = Some(Time(now));
        summarize(&old.spec, &mut status);
        if status_if_changed(ctx, old.as_ref(), old.status.as_ref(), &status)
            .await?
            .is_some()
        {
            ctx.event(
                old.as_ref(),
                false,
                "RolloutSuperseded",
                format!("revision {revision} takes over"),
            );
        }
    }

    let clusters = owner.clusters(ctx);
    let current = rollouts.iter().find(|r| r.spec.revision == revision);
    let Some(current) = current else {
        if owner.candidates(&clusters, revision).is_empty() {
            return Ok(Action::await_change());
        }
        return start(owner, ctx, revision, &clusters).await;
    };

    // A request is read from the API, not the store: the store may still
    // show a request this engine already carried out and removed.
    let fresh;
    let current = if current.annotations().contains_key(labels::REQUEST) {
        let api: Api<TemplateRollout> = Api::namespaced(ctx.client.clone(), &ns);
        match api.get_opt(&current.name_any()).await? {
            Some(r) => {
                fresh = r;
                &fresh
            }
            None => return Ok(Action::await_change()),
        }
    } else {
        current.as_ref()
    };
    let mut status = match &current.status {
        Some(s) if !s.waves.is_empty() || !s.clusters.is_empty() => s.clone(),
        // Created, but the engine stopped before writing its plan.
        _ => planned(owner, ctx, &current.spec, &clusters),
    };
    let health = owner.health_of(ctx, &clusters, &status);
    // The pause and the change windows are the owner's as they are now: an
    // operator who adds a freeze holds the rollouts under way.
    let gate = Gate::of(&owner.policy());
    let mut notes = Vec::new();
    let request = current.annotations().get(labels::REQUEST).cloned();
    // A request carried out that people are told of, with who asked.
    let mut told = None;
    if let Some(text) = &request {
        let by = current
            .annotations()
            .get(labels::REQUESTED_BY)
            .cloned()
            .unwrap_or_else(|| "unknown".into());
        let outcome = Request::parse(text).and_then(|req| {
            let notes =
                apply_request_gated(&current.spec, &mut status, &req, &by, &health, now, &gate)?;
            told = tell::kind_of_request(&req).map(|(kind, says)| (kind, says, by.clone()));
            Ok(notes)
        });
        match outcome {
            Ok(n) => notes.extend(n),
            Err(why) => notes.push(Note {
                warning: true,
                reason: "RequestRefused",
                message: format!("{text} (by {by}) refused: {why}"),
                wave: None,
            }),
        }
    }
    notes.extend(advance_gated(
        &current.spec,
        &mut status,
        &health,
        now,
        &gate,
    ));
    if !write_fitted(ctx, owner, current, current.status.as_ref(), &mut status).await? {
        // Nothing was written: no step is told as taken, and an operator's
        // request stays for the look that can write it.
        return Ok(Action::requeue(REFUSED_LOOK));
    }
    if let Some((kind, says, by)) = told {
        let n = tell::about(current, kind, says.into(), None, Some(&by));
        ctx.notifier.tell(n);
    }
    for n in notes {
        if let Some(kind) = tell::kind_of_note(&n) {
            let told = tell::about(current, kind, n.message.clone(), n.wave, None);
            ctx.notifier.tell(told);
        }
        ctx.event(current, n.warning, n.reason, n.message);
    }
    if request.is_some() {
        clear_request(ctx, current).await?;
    }
    Ok(next_look(&current.spec, &status, now))
}

/// How soon a rollout whose status could not be written is looked at again.
const REFUSED_LOOK: Duration = Duration::from_secs(60);

/// Writes `status` on `rollout` once it fits what the API server stores,
/// telling the rollout when its clusters' reasons were left out. When it
/// cannot fit, writes nothing, warns on the rollout and its owner, and
/// returns false.
async fn write_fitted(
    ctx: &Context,
    owner: Owner<'_>,
    rollout: &TemplateRollout,
    current: Option<&TemplateRolloutStatus>,
    status: &mut TemplateRolloutStatus,
) -> Result<bool> {
    match fit_status(status, ctx.options.max_rollout_status_bytes) {
        Ok(trimmed) => {
            status_if_changed(ctx, rollout, current, status).await?;
            if let Some(n) = trimmed {
                ctx.event(rollout, n.warning, n.reason, n.message);
            }
            Ok(true)
        }
        Err(refused) => {
            owner.event(
                ctx,
                refused.warning,
                refused.reason,
                refused.message.clone(),
            );
            ctx.event(rollout, refused.warning, refused.reason, refused.message);
            Ok(false)
        }
    }
}

/// Creates the rollout of `revision` and writes its plan.
async fn start(
    owner: Owner<'_>,
    ctx: &Context,
    revision: i64,
    clusters: &[Arc<ManagedCluster>],
) -> Result<Action> {
    let ns = owner.namespace();
    let subject = owner.subject();
    let policy = owner.policy();
    // A policy stored before the API server checked it, and that breaks its
    // rules, starts nothing: the owner's status says why (see `templates`),
    // and the clusters keep the revision they have.
    if let Err(e) = check_policy(&policy) {
        tracing::debug!(owner = %subject.describe(), revision, error = %e, "rollout not started");
        return Ok(Action::await_change());
    }
    let spec = TemplateRolloutSpec {
        template: match subject {
            RolloutSubject::Template(t) => t.to_string(),
            RolloutSubject::MultiClusterService(_) => String::new(),
        },
        multi_cluster_service: match subject {
            RolloutSubject::Template(_) => None,
            RolloutSubject::MultiClusterService(m) => Some(m.to_string()),
        },
        revision,
        policy,
    };
    let mut obj = TemplateRollout {
        metadata: ObjectMeta {
            name: Some(subject.rollout_name(revision)),
            namespace: Some(ns.clone()),
            labels: Some(BTreeMap::from([
                (
                    labels::MANAGED_BY.to_string(),
                    labels::MANAGED_BY_VALUE.to_string(),
                ),
                (
                    owner.label().to_string(),
                    shorten(subject.name(), MAX_LABEL_VALUE),
                ),
            ])),
            owner_references: owner.owner_reference().map(|o| vec![o]),
            ..Default::default()
        },
        spec: spec.clone(),
        status: None,
    };
    // A rollout of that name that is another's (a template named like a
    // MultiClusterService's rollouts) is never taken over.
    let existing = get(&ctx.stores.rollouts, &ns, &obj.name_any());
    if let Some(other) = existing.filter(|r| r.spec.subject() != subject) {
        owner.event(
            ctx,
            true,
            "RolloutNameTaken",
            format!(
                "revision {revision} cannot roll out: TemplateRollout {} is the rollout of {}",
                other.name_any(),
                other.spec.subject().describe()
            ),
        );
        return Ok(Action::requeue(REFUSED_LOOK));
    }
    apply_if_changed(ctx, &obj, None).await?;
    let mut status = planned(owner, ctx, &spec, clusters);
    let summary = status.change_summary.clone().unwrap_or_default();
    let waves = status.waves.len();
    // The status subresource needs the object's identity only.
    obj.status = None;
    if !write_fitted(ctx, owner, &obj, None, &mut status).await? {
        // The rollout exists, with no plan: each look tries again.
        return Ok(Action::requeue(REFUSED_LOOK));
    }
    ctx.event(
        &obj,
        false,
        "RolloutPlanned",
        format!(
            "revision {revision}: {} in {}; {summary}",
            crate::plan::count::count(status.clusters.len(), "cluster"),
            crate::plan::count::count(waves, "wave")
        ),
    );
    owner.event(
        ctx,
        false,
        "RolloutPlanned",
        format!("revision {revision} rolls out as {}", obj.name_any()),
    );
    ctx.notifier.tell(tell::about(
        &obj,
        EventKind::RolloutStarted,
        format!(
            "revision {revision} rolls out to {} in {}; {summary}",
            crate::plan::count::count(status.clusters.len(), "cluster"),
            crate::plan::count::count(waves, "wave")
        ),
        None,
        None,
    ));
    // Its first step comes with the watch event of the new status.
    Ok(Action::requeue(Duration::from_secs(5)))
}

/// The plan of a rollout, with its preview, from the clusters as they are.
fn planned(
    owner: Owner<'_>,
    ctx: &Context,
    spec: &TemplateRolloutSpec,
    clusters: &[Arc<ManagedCluster>],
) -> TemplateRolloutStatus {
    let candidates = owner.candidates(clusters, spec.revision);
    // A policy that breaks its rules plans no wave; `advance` then says why.
    let mut status = plan(spec, &candidates).unwrap_or_default();
    status.preview = owner.preview(ctx, spec.revision, clusters, &candidates);
    summarize(spec, &mut status);
    status
}

/// Removes an operator's request once it is recorded, but only if it is
/// still the same request: a JSON patch `test` makes a newer one that
/// arrived meanwhile stay for the next look.
async fn clear_request(ctx: &Context, rollout: &TemplateRollout) -> Result<()> {
    let api: Api<TemplateRollout> =
        Api::namespaced(ctx.client.clone(), &rollout.namespace().unwrap_or_default());
    let pointer = |key: &str| format!("/metadata/annotations/{}", key.replace('/', "~1"));
    let mut ops = Vec::new();
    for key in [labels::REQUEST, labels::REQUESTED_BY] {
        if let Some(value) = rollout.annotations().get(key) {
            ops.push(json!({"op": "test", "path": pointer(key), "value": value}));
            ops.push(json!({"op": "remove", "path": pointer(key)}));
        }
    }
    let patch: json_patch::Patch = serde_json::from_value(serde_json::Value::Array(ops))?;
    ctx.wrote();
    match api
        .patch(
            &rollout.name_any(),
            &PatchParams::default(),
            &Patch::<()>::Json(patch),
        )
        .await
    {
        Ok(_) => Ok(()),
        // Changed or gone meanwhile: the next look reads what is there.
        Err(kube::Error::Api(s)) if matches!(s.code, 404 | 409 | 422) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// When to look again: at the next health deadline, and every few seconds
/// while clusters are updating (the cluster statuses arrive through another
/// watch than the trigger).
fn next_look(spec: &TemplateRolloutSpec, status: &TemplateRolloutStatus, now: Timestamp) -> Action {
    if status.phase.is_terminal() {
        return Action::await_change();
    }
    // A policy that breaks its rules holds the rollout until a new revision
    // supersedes it (its spec cannot change).
    let Ok(limits) = check_policy(&spec.policy) else {
        return Action::await_change();
    };
    let timeout = limits.health_timeout;
    let deadline = status
        .clusters
        .iter()
        .filter(|c| c.state == ClusterRolloutState::Updating)
        .filter_map(|c| c.since.as_ref())
        .map(|since| {
            let passed = now.duration_since(since.0).unsigned_abs();
            timeout.saturating_sub(passed) + Duration::from_secs(1)
        })
        .min();
    // A soaking wave with nobody updating: nothing to watch but the soak's
    // end (a cluster failing meanwhile triggers a look through its own
    // change), so a day's soak is not looked at every few seconds.
    let soak_end = status
        .waves
        .iter()
        .filter(|w| w.state == WaveState::Soaking)
        .filter_map(|w| w.soak_until.as_ref())
        .map(|at| until(at.0, now))
        .min();
    // A wave waiting for a change window: looked at when it opens.
    let opens = status
        .waves
        .iter()
        .filter(|w| w.state == WaveState::WaitingForWindow)
        .filter_map(|w| w.opens_at.as_ref())
        .map(|at| until(at.0, now))
        .min();
    let timed = [soak_end, opens].into_iter().flatten().min();
    match (deadline, timed) {
        (Some(d), _) => Action::requeue(d.min(Duration::from_secs(5))),
        (None, Some(end))
            if matches!(
                status.phase,
                RolloutPhase::Progressing | RolloutPhase::Pending
            ) =>
        {
            Action::requeue(end.min(Duration::from_secs(300)))
        }
        (None, _) if status.phase == RolloutPhase::Progressing => {
            Action::requeue(Duration::from_secs(5))
        }
        (None, _) => Action::requeue(Duration::from_secs(300)),
    }
}

/// The time from `now` to `at` (none once past), and a second more: a look
/// then finds it passed.
fn until(at: Timestamp, now: Timestamp) -> Duration {
    let left = at.duration_since(now);
    let left = if left.is_negative() {
        Duration::ZERO
    } else {
        left.unsigned_abs()
    };
    left + Duration::from_secs(1)
}

mod owner;
mod tell;

#[cfg(test)]
mod tests;
