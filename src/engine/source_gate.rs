//! The source gate: a task that holds back the engine's chart repositories
//! that do not answer, and lets each namespace fetch a bounded number of
//! new ones at a time (see [`crate::plan::source_gate`] for the rules).
//!
//! It owns two things of each repository, under a field manager of its own
//! so that the templates' applies leave them alone: `spec.suspend`, and the
//! annotation [`QUARANTINE`], where the failures are remembered (so that the
//! templates can say so, the console can show it, and another engine goes
//! on from there). Each time it lets a repository be fetched it also asks
//! the source controller for a fetch (`reconcile.fluxcd.io/requestedAt`):
//! the outcome that comes back under that request is this try's, not an
//! older one's.

use std::hash::{BuildHasher, RandomState};
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::context::Context;
use super::held_sources::{QUARANTINE, quarantine_of};
use crate::flux::{self, HelmRepository, REQUESTED_AT};
use crate::plan::source_gate::{Decision, Outcome, Source, Unreachable, plan};

/// The gate's own field manager.
const FIELD_MANAGER: &str = "hmc-tui-source-gate";
/// The gate looks again at least this often, for next tries that are due.
const LOOK_AGAIN: Duration = Duration::from_secs(30);
/// Changes that come together are planned together.
const SETTLE: Duration = Duration::from_millis(200);

/// What became of the fetch last asked for. The source controller tries a
/// failing repository again within milliseconds, so that `Ready` is False
/// only for a moment; its `FetchFailed` condition stays, and counts when
/// it is of the repository's generation now (each hold and each let-through
/// changes `spec.suspend`, so an older failure is of an older generation).
fn outcome(repo: &HelmRepository) -> Outcome {
    let Some(status) = repo.status.as_ref() else {
        return Outcome::Fetching;
    };
    let asked = repo.annotations().get(REQUESTED_AT);
    let current = |c: &&flux::FluxCondition| {
        c.observed_generation.is_none() || c.observed_generation == repo.meta().generation
    };
    let failed = status
        .conditions
        .iter()
        .filter(current)
        .find(|c| c.type_ == "FetchFailed" && c.status == "True")
        .and_then(|c| Unreachable::of(&c.message));
    if let Some(reason) = failed {
        return Outcome::Unreachable(reason);
    }
    if asked.is_some() && status.last_handled_reconcile_at.as_ref() != asked {
        return Outcome::Fetching;
    }
    match flux::ready(&status.conditions).filter(current) {
        Some(c) if c.status == "True" => Outcome::Ready,
        Some(c) if c.status == "False" => {
            Unreachable::of(&c.message).map_or(Outcome::Failed, Outcome::Unreachable)
        }
        _ => Outcome::Fetching,
    }
}

/// Runs the gate until `shutdown`. It listens from the moment it is called.
pub fn run(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let mut changes = ctx.stores.changes.repositories.clone();
    async move {
        let random = RandomState::new();
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                changed = changes.changed() => if changed.is_err() { return },
                _ = ctx.source_retries.asked() => {}
                _ = tokio::time::sleep(LOOK_AGAIN) => {}
            }
            tokio::time::sleep(SETTLE).await;
            if let Err(error) = pass(&ctx, &random).await {
                tracing::warn!(%error, "the source gate could not write; it looks again soon");
            }
        }
    }
}

/// Plans every repository of the engine's and writes what differs.
async fn pass(ctx: &Context, random: &RandomState) -> kube::Result<()> {
    let now = Timestamp::now();
    let retries = ctx.source_retries.take();
    let repos: Vec<Arc<HelmRepository>> = ctx
        .stores
        .repositories
        .state()
        .into_iter()
        .filter(|r| r.meta().deletion_timestamp.is_none())
        .filter(|r| {
            ctx.claims
                .holder(&r.namespace().unwrap_or_default())
                .is_none()
        })
        .collect();
    let sources: Vec<Source> = repos
        .iter()
        .map(|r| {
            let (namespace, name) = (r.namespace().unwrap_or_default(), r.name_any());
            Source {
                retry: retries.contains(&(namespace.clone(), name.clone())),
                namespace,
                name,
                url: r.spec.url.clone(),
                suspended: r.spec.suspend == Some(true),
                outcome: outcome(r),
                quarantine: quarantine_of(r),
            }
        })
        .collect();
    let draw = |i: usize| {
        let h = random.hash_one((i, now.as_nanosecond()));
        (h >> 11) as f64 / (1u64 << 53) as f64
    };
    let decisions = plan(&sources, now, ctx.options.source_share.max(1), draw);
    let mut result = Ok(());
    for (repo, decision) in repos.iter().zip(&decisions) {
        if let Err(e) = write(ctx, repo, decision, now).await {
            result = Err(e);
        }
    }
    result
}

/// Writes `decision` on `repo` when it differs from what is there.
async fn write(
    ctx: &Context,
    repo: &HelmRepository,
    decision: &Decision,
    now: Timestamp,
) -> kube::Result<()> {
    let suspend = decision.suspended();
    let quarantine = decision.quarantine();
    let admit = matches!(decision, Decision::Admit(_));
    let same = repo.spec.suspend.unwrap_or(false) == suspend
        && quarantine_of(repo).as_ref() == quarantine
        && (quarantine.is_some() || !repo.annotations().contains_key(QUARANTINE));
    if same && !admit {
        return Ok(());
    }
    let ns = repo.namespace().unwrap_or_default();
    let name = repo.name_any();
    let asked = if admit {
        Some(now.to_string())
    } else {
        repo.annotations().get(REQUESTED_AT).cloned()
    };
    let mut annotations = serde_json::Map::new();
    if let Some(q) = quarantine {
        annotations.insert(
            QUARANTINE.into(),
            json!(serde_json::to_string(q).unwrap_or_default()),
        );
    }
    if let Some(asked) = asked {
        annotations.insert(REQUESTED_AT.into(), json!(asked));
    }
    let body = json!({
        "apiVersion": HelmRepository::api_version(&()),
        "kind": HelmRepository::kind(&()),
        "metadata": {"name": name, "namespace": ns, "annotations": annotations},
        "spec": {"suspend": suspend},
    });
    match decision {
        Decision::Quarantined(q) if !repo.spec.suspend.unwrap_or(false) => {
            tracing::info!(namespace = %ns, repository = %name, url = %repo.spec.url,
                failures = q.failures, next_try = %q.next_try, "chart repository {}; held back until its next try", q.reason.words());
        }
        Decision::Admit(_) => {
            tracing::debug!(namespace = %ns, repository = %name, "chart repository let through for a fetch");
        }
        _ => {}
    }
    ctx.wrote();
    let api: Api<HelmRepository> = Api::namespaced(ctx.client.clone(), &ns);
    api.patch(
        &name,
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&body),
    )
    .await
    .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::{FluxCondition, HelmRepositorySpec, SourceStatus};

    fn repo(
        asked: Option<&str>,
        handled: Option<&str>,
        conditions: &[(&str, &str, &str, i64)],
    ) -> HelmRepository {
        let mut r = HelmRepository::new("r", HelmRepositorySpec::default());
        r.metadata.generation = Some(3);
        if let Some(a) = asked {
            r.annotations_mut().insert(REQUESTED_AT.into(), a.into());
        }
        r.status = Some(SourceStatus {
            conditions: conditions
                .iter()
                .map(|(type_, status, message, generation)| FluxCondition {
                    type_: type_.to_string(),
                    status: status.to_string(),
                    message: message.to_string(),
                    observed_generation: Some(*generation),
                    ..Default::default()
                })
                .collect(),
            last_handled_reconcile_at: handled.map(String::from),
            ..Default::default()
        });
        r
    }

    #[test]
    fn an_outcome_counts_only_when_it_is_of_this_try() {
        let timeout = "Get \"http://x/index.yaml\": context deadline exceeded";
        let retrying = [
            ("Ready", "Unknown", "building artifact", 3),
            ("FetchFailed", "True", timeout, 3),
        ];
        assert_eq!(
            outcome(&repo(Some("t2"), Some("t1"), &retrying)),
            Outcome::Unreachable(Unreachable::NoAnswer),
            "failed at this generation, and being tried again by the source controller"
        );
        let older = [
            ("Ready", "Unknown", "building artifact", 3),
            ("FetchFailed", "True", timeout, 1),
        ];
        assert_eq!(
            outcome(&repo(Some("t2"), Some("t1"), &older)),
            Outcome::Fetching,
            "an older try's failure"
        );
        assert_eq!(
            outcome(&repo(Some("t2"), Some("t2"), &[("Ready", "True", "", 3)])),
            Outcome::Ready
        );
        assert_eq!(
            outcome(&repo(Some("t2"), Some("t1"), &[("Ready", "True", "", 2)])),
            Outcome::Fetching,
            "ready before, not yet asked again"
        );
        assert_eq!(
            outcome(&repo(None, None, &[("Ready", "False", "404 Not Found", 3)])),
            Outcome::Failed,
            "never asked: what it says now"
        );
    }
}
