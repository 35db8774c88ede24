//! The access to the child cluster: its `<cluster>-kubeconfig` secret is
//! held with our finalizer while services are installed through it, so that
//! deleting it (or its whole namespace) cannot cut the services off before
//! they are uninstalled. The secret is not ours: only our own entry of its
//! `metadata.finalizers` is ever written, with a merge patch guarded by the
//! resourceVersion we read (a concurrent change of the list is never lost),
//! and the answer holds metadata only (the secret's contents are never read).
//!
//! A hold outlives its cluster only when the cluster went without the
//! engine's cleanup (its finalizer removed by hand): [`sweep`] lets go of
//! such a secret once no service release of that cluster is left.

use k8s_openapi::api::core::v1::Secret;
use kube::api::{Patch, PatchParams};
use kube::core::PartialObjectMeta;
use kube::{Api, ResourceExt};
use serde_json::json;

use std::sync::Arc;
use std::time::Duration;

use kube::runtime::controller::Action;

use super::given::is_service;
use crate::api::labels::FINALIZER;
use crate::engine::context::Context;
use crate::engine::error::Result;
use crate::engine::releases::kubeconfig_secret;
use crate::store::get;

/// How often a held secret is looked at again while its cluster is there:
/// nothing else tells the sweep that a cluster went without its cleanup.
const RECHECK: Duration = Duration::from_secs(600);
/// How often while the releases of a cluster that is gone are uninstalled.
const RECHECK_LEAVING: Duration = Duration::from_secs(15);

/// The cluster a kubeconfig secret gives access to: Cluster API's label,
/// else the name without `-kubeconfig`.
pub fn cluster_of(secret: &PartialObjectMeta<Secret>) -> Option<String> {
    secret
        .labels()
        .get("cluster.x-k8s.io/cluster-name")
        .cloned()
        .or_else(|| {
            secret
                .name_any()
                .strip_suffix("-kubeconfig")
                .map(String::from)
        })
}

/// Lets go of a held kubeconfig secret whose ManagedCluster is gone, once
/// no service release of that cluster is left (a release still there is
/// being uninstalled through this very secret).
pub async fn sweep(secret: Arc<PartialObjectMeta<Secret>>, ctx: Arc<Context>) -> Result<Action> {
    ctx.counters
        .timed("kubeconfig-holds", sweep_secret(&secret, &ctx))
        .await
}

async fn sweep_secret(secret: &PartialObjectMeta<Secret>, ctx: &Context) -> Result<Action> {
    if !holds(secret) {
        return Ok(Action::await_change());
    }
    let ns = secret.namespace().unwrap_or_default();
    let Some(cluster) = cluster_of(secret) else {
        return Ok(Action::await_change());
    };
    if get(&ctx.stores.managed_clusters, &ns, &cluster).is_some() {
        return Ok(Action::requeue(RECHECK));
    }
    let releases_left = super::given::releases_of(ctx, &ns, &cluster)
        .iter()
        .any(|r| is_service(r));
    if releases_left {
        return Ok(Action::requeue(RECHECK_LEAVING));
    }
    tracing::info!(namespace = %ns, secret = %secret.name_any(), %cluster,
        "cluster is gone and no service is left: letting go of its kubeconfig secret");
    release(ctx, &ns, &cluster).await?;
    Ok(Action::await_change())
}

/// The cluster's kubeconfig secret, as the store holds its metadata.
fn secret(
    ctx: &Context,
    ns: &str,
    cluster: &str,
) -> Option<std::sync::Arc<PartialObjectMeta<Secret>>> {
    get(&ctx.stores.kubeconfigs, ns, &kubeconfig_secret(cluster))
}

fn holds(secret: &PartialObjectMeta<Secret>) -> bool {
    secret.finalizers().iter().any(|f| f == FINALIZER)
}

/// Whether the cluster's kubeconfig secret is being deleted.
pub(super) fn going(ctx: &Context, ns: &str, cluster: &str) -> bool {
    secret(ctx, ns, cluster).is_some_and(|s| s.metadata.deletion_timestamp.is_some())
}

/// Holds the cluster's kubeconfig secret before a service is installed
/// through it. A secret already being deleted cannot take a new finalizer
/// (the API server refuses it) and is left as it is.
pub(super) async fn hold(ctx: &Context, ns: &str, cluster: &str) -> Result<()> {
    match secret(ctx, ns, cluster) {
        Some(s) if !holds(&s) && s.metadata.deletion_timestamp.is_none() => {
            let mut list = s.finalizers().to_vec();
            list.push(FINALIZER.to_string());
            set(ctx, &s, list).await
        }
        _ => Ok(()),
    }
}

/// Lets go of the cluster's kubeconfig secret: no service is installed
/// through it any more, or the services were let go of.
pub(super) async fn release(ctx: &Context, ns: &str, cluster: &str) -> Result<()> {
    match secret(ctx, ns, cluster) {
        Some(s) if holds(&s) => {
            let list = s
                .finalizers()
                .iter()
                .filter(|f| *f != FINALIZER)
                .cloned()
                .collect();
            set(ctx, &s, list).await
        }
        _ => Ok(()),
    }
}

/// Sets the secret's finalizers, and nothing else of it.
async fn set(ctx: &Context, s: &PartialObjectMeta<Secret>, finalizers: Vec<String>) -> Result<()> {
    let ns = s.namespace().unwrap_or_default();
    let api: Api<Secret> = Api::namespaced(ctx.client.clone(), &ns);
    let patch =
        json!({"metadata": {"finalizers": finalizers, "resourceVersion": s.resource_version()}});
    ctx.wrote();
    // The cluster that holds it need not look again when it comes back.
    let writing = ctx.echoes.writing(s);
    match api
        .patch_metadata(
            &s.name_any(),
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
    {
        Ok(written) => {
            writing.wrote(&written);
            Ok(())
        }
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}
