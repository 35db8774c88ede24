//! The access to the child cluster: its `<cluster>-kubeconfig` secret is
//! held with our finalizer while services are installed through it, so that
//! deleting it (or its whole namespace) cannot cut the services off before
//! they are uninstalled.
//!
//! The engine never reads a secret: it may not list, watch or get them
//! (see the chart's RBAC), only patch them, and an admission policy lets
//! that patch change nothing but our own entry of `metadata.finalizers` of
//! a `cluster.x-k8s.io/secret`. So the patches need no read first: a
//! strategic merge patch adds our entry to the finalizers (a set: sending
//! it twice changes nothing) or deletes it with
//! `$deleteFromPrimitiveList`, and goes to the metadata endpoint, so that
//! the answer carries metadata only. What the engine knows of the secret
//! is what those answers said:
//! - that it is there: Cluster API's naming convention and its Cluster's
//!   ControlPlaneInitialized (read from the CAPI store, see
//!   `cluster_release`); a hold answered 404 says it is not there yet;
//! - that it is held: a hold that succeeded (remembered in [`crate::engine::holds::Holds`]), or
//!   any service release of the cluster, since a service release is
//!   created only once the hold succeeded;
//! - that it is being deleted: the answer to a hold.
//!
//! A hold outlives its cluster only when the cluster went without the
//! engine's cleanup (its finalizer removed by hand): [`sweep`] lets go of
//! such a secret once no service release of that cluster is left. It
//! learns that from the releases store, while the engine runs: a cluster
//! whose last service release went while no engine was running keeps its
//! secret held until someone removes our finalizer from it by hand
//! (`kubectl patch secret <cluster>-kubeconfig --type=json -p
//! '[{"op":"remove","path":"/metadata/finalizers/<index>"}]'`).

use std::sync::Arc;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::ResourceExt;
use kube::api::{Patch, PatchParams};
use kube::core::PartialObjectMeta;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::given::{is_service, releases_of};
use crate::api::labels::{self, FINALIZER};
use crate::engine::context::Context;
use crate::engine::error::Result;
use crate::engine::holds::Hold;
use crate::engine::releases::kubeconfig_secret;
use crate::flux::HelmRelease;
use crate::store::get;

/// How the cluster's kubeconfig secret answered a hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    /// Held by our finalizer: services may be installed through it.
    Held,
    /// Not there (yet): the cluster's provider writes it.
    Missing,
    /// Being deleted: it takes no new finalizer.
    Going,
    /// Not a Cluster API secret (type `cluster.x-k8s.io/secret`): the
    /// admission policy lets the engine hold no other.
    NotCapi,
}

/// The patch that adds our finalizer, and nothing else.
fn hold_patch() -> serde_json::Value {
    json!({"metadata": {"finalizers": [FINALIZER]}})
}

/// The patch that removes our finalizer, and nothing else.
fn release_patch() -> serde_json::Value {
    json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [FINALIZER]}})
}

/// Whether the API server refused a finalizer because the object is
/// being deleted ("no new finalizers can be added if the object is being
/// deleted").
fn refused_as_going(e: &kube::core::Status) -> bool {
    (e.code == 422 || e.code == 403) && e.message.contains("no new finalizers can be added")
}

/// Whether the secrets admission policy refused a secret that is not
/// Cluster API's (its message names the type it wants).
fn refused_as_not_capi(e: &kube::core::Status) -> bool {
    e.code == 403 && e.message.contains("type cluster.x-k8s.io/secret")
}

/// Sends the hold patch and reads its answer.
async fn send_hold(ctx: &Context, ns: &str, cluster: &str) -> Result<Access> {
    let api: kube::Api<Secret> = kube::Api::namespaced(ctx.client.clone(), ns);
    ctx.wrote();
    let answer: std::result::Result<PartialObjectMeta<Secret>, _> = api
        .patch_metadata(
            &kubeconfig_secret(cluster),
            &PatchParams::default(),
            &Patch::Strategic(hold_patch()),
        )
        .await;
    match answer {
        Ok(m) if m.metadata.deletion_timestamp.is_some() => Ok(Access::Going),
        Ok(_) => {
            ctx.holds.set(ns, cluster, Hold::Held);
            Ok(Access::Held)
        }
        Err(kube::Error::Api(e)) if e.code == 404 => Ok(Access::Missing),
        Err(kube::Error::Api(e)) if refused_as_going(&e) => Ok(Access::Going),
        Err(kube::Error::Api(e)) if refused_as_not_capi(&e) => Ok(Access::NotCapi),
        Err(e) => Err(e.into()),
    }
}

/// Holds the cluster's kubeconfig secret before a service is installed
/// through it. Nothing is sent when it is held already: `has_services`
/// (a service release of the cluster exists, so the hold succeeded before
/// it was created) or this engine held it.
pub(super) async fn hold(
    ctx: &Context,
    ns: &str,
    cluster: &str,
    has_services: bool,
) -> Result<Access> {
    if has_services || ctx.holds.get(ns, cluster) == Some(Hold::Held) {
        return Ok(Access::Held);
    }
    send_hold(ctx, ns, cluster).await
}

/// Whether the cluster's kubeconfig secret is being deleted (or gone).
/// Asked only while the cluster's services are installed through it, so
/// held already: the hold patch changes nothing and its answer says.
pub(super) async fn going(ctx: &Context, ns: &str, cluster: &str) -> Result<bool> {
    Ok(send_hold(ctx, ns, cluster).await? != Access::Held)
}

/// Lets go of the cluster's kubeconfig secret: no service is installed
/// through it any more, or the services were let go of. With `always`
/// false, not sent again once this engine let go of it. Whether the
/// answer said the secret is being deleted or gone (false when nothing was
/// sent).
pub(super) async fn release(ctx: &Context, ns: &str, cluster: &str, always: bool) -> Result<bool> {
    if !always && ctx.holds.get(ns, cluster) == Some(Hold::Released) {
        return Ok(false);
    }
    let api: kube::Api<Secret> = kube::Api::namespaced(ctx.client.clone(), ns);
    ctx.wrote();
    let going = match api
        .patch_metadata(
            &kubeconfig_secret(cluster),
            &PatchParams::default(),
            &Patch::Strategic(release_patch()),
        )
        .await
    {
        Ok(m) => m.metadata.deletion_timestamp.is_some(),
        Err(kube::Error::Api(e)) if e.code == 404 => true,
        Err(e) => return Err(e.into()),
    };
    ctx.holds.set(ns, cluster, Hold::Released);
    Ok(going)
}

/// The cluster a service release is made for.
fn cluster_of(r: &HelmRelease) -> Option<(String, String)> {
    if !is_service(r) {
        return None;
    }
    Some((r.namespace()?, r.labels().get(labels::CLUSTER)?.clone()))
}

/// Lets go of the kubeconfig secrets of clusters that went without the
/// engine's cleanup: each time a service release is applied or deleted (or
/// a cluster is deleted), the cluster it is for is looked at; once the
/// ManagedCluster is gone and no service release of it is left, its
/// secret is let go of. Namespaces a namespace-scoped engine holds are
/// left to it.
///
/// It listens from the moment it is called, so that nothing announced
/// before the returned future first runs is missed.
pub fn sweep(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let s = &ctx.stores;
    let releases = s.applied.releases.listen(cluster_of);
    let clusters = s
        .applied
        .managed_clusters
        .listen(|mc: &crate::api::ManagedCluster| Some((mc.namespace()?, mc.name_any())));
    let heard = futures::stream::select(releases, clusters);
    sweep_heard(ctx, shutdown, heard)
}

/// How soon a failed letting go is tried again.
const SWEEP_RETRY: std::time::Duration = std::time::Duration::from_secs(30);

async fn sweep_heard(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
    heard: impl futures::Stream<Item = (String, String)> + Send,
) {
    let mut heard = std::pin::pin!(heard);
    // Clusters whose secret could not be let go of: looked at again after
    // a while, as nothing else may announce them again.
    let mut failed: std::collections::BTreeSet<(String, String)> = Default::default();
    loop {
        let keys: Vec<(String, String)> = tokio::select! {
            _ = shutdown.cancelled() => return,
            next = heard.next() => match next {
                Some(key) => vec![key],
                None => return,
            },
            _ = tokio::time::sleep(SWEEP_RETRY), if !failed.is_empty() => {
                std::mem::take(&mut failed).into_iter().collect()
            }
        };
        for (ns, cluster) in keys {
            if let Err(error) = sweep_one(&ctx, &ns, &cluster).await {
                tracing::warn!(namespace = %ns, %cluster, %error,
                    "letting go of a kubeconfig secret failed; tried again in 30s");
                failed.insert((ns, cluster));
            }
        }
    }
}

/// Lets go of the cluster's secret if the cluster is gone and no service
/// release of it is left.
async fn sweep_one(ctx: &Context, ns: &str, cluster: &str) -> Result<()> {
    if get(&ctx.stores.managed_clusters, ns, cluster).is_some()
        || ctx.claims.holder(ns).is_some()
        || releases_of(ctx, ns, cluster).iter().any(|r| is_service(r))
    {
        return Ok(());
    }
    if ctx.holds.get(ns, cluster) == Some(Hold::Released) {
        // Gone, and its secret let go of: nothing is left to remember.
        ctx.holds.forget(ns, cluster);
        return Ok(());
    }
    tracing::info!(namespace = %ns, %cluster,
        "cluster is gone and no service is left: letting go of its kubeconfig secret");
    ctx.counters
        .timed("kubeconfig-holds", release(ctx, ns, cluster, false))
        .await
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patches_name_our_finalizer_only() {
        assert_eq!(
            hold_patch(),
            json!({"metadata": {"finalizers": [FINALIZER]}})
        );
        assert_eq!(
            release_patch(),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [FINALIZER]}})
        );
    }

    #[test]
    fn a_refused_finalizer_on_a_secret_being_deleted_is_going() {
        let status = |code: u16, message: &str| {
            kube::core::Status::failure(message, "Invalid").with_code(code)
        };
        assert!(refused_as_going(&status(
            422,
            "Secret \"x-kubeconfig\" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted"
        )));
        assert!(!refused_as_going(&status(403, "secrets is forbidden")));
        assert!(refused_as_not_capi(&status(
            403,
            "ValidatingAdmissionPolicy 'hmc-tui-secrets' with binding 'hmc-tui-secrets' denied request: \
             the engine may change Cluster API kubeconfig secrets (type cluster.x-k8s.io/secret) only"
        )));
        assert!(!refused_as_not_capi(&status(403, "secrets is forbidden")));
    }
}
