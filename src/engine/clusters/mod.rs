//! ManagedClusters: the cluster's own release, then one release per service
//! once the cluster is provisioned, and a status in the product's words.
//!
//! A reconcile is a short sequence of steps, one module each:
//! - `given`: planning: what the stores hold for the cluster, what its
//!   template gives it;
//! - `cluster_release`: the cluster's own release, and how far the cluster is;
//! - `services`: one release per service, and uninstalling the unwanted;
//! - `events`: what is told as Events;
//! - `status`: the conditions and the status, and when to look again;
//! - `cleanup`: deleting a cluster, services first (its kubeconfig secret
//!   stays until then: the chart's kubeconfig-hold policy refuses its
//!   deletion while the ManagedCluster exists; the engine never touches a
//!   secret).

mod cleanup;
mod cluster_release;
mod events;
pub(crate) mod given;
mod services;
mod status;

use std::sync::Arc;

use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};

use self::events::Applied;
use self::given::Given;
use super::apply::status_if_changed;
use super::context::Context;
use super::error::Result;
use super::finalizer;
use crate::api::conditions::{CLUSTER_READY, Cond, INVALID_NAME, READY};
use crate::api::names::cluster_name_problem;
use crate::api::{ManagedCluster, ManagedClusterStatus};

pub async fn reconcile(mc: Arc<ManagedCluster>, ctx: Arc<Context>) -> Result<Action> {
    let work = async {
        let deleting = mc.meta().deletion_timestamp.is_some();
        match cluster_name_problem(&mc.name_any()) {
            // Stored before the CRD refused such names: nothing is made
            // for it, not even a finalizer.
            Some(why) if !deleting => refuse_name(&mc, &ctx, why).await,
            _ => {
                let apply = async |mc: &ManagedCluster| apply(mc, &ctx).await;
                let cleanup = async |mc: &ManagedCluster| cleanup::cleanup(mc, &ctx).await;
                finalizer::guarded(&ctx, mc.as_ref(), Some(&ctx.echoes), apply, cleanup).await
            }
        }
    };
    ctx.counters.timed("managedclusters", work).await
}

/// A cluster that is not being deleted, step by step. The writes go out in
/// this order: the cluster's release, each service's release in the plan's
/// order, the uninstalling of services no longer wanted, the status; the
/// Events in this order: what was applied, each service uninstalled, the
/// services that became installed or failed, and, once the status is
/// written, the changes made by hand that were reverted.
async fn apply(mc: &ManagedCluster, ctx: &Context) -> Result<Action> {
    let given = Given::read(mc, ctx);
    // What this reconcile applied, told in one Event at the end.
    let mut applied = Applied::default();
    let cluster = cluster_release::apply(mc, ctx, &given, &mut applied).await?;
    let mut services = services::apply(mc, ctx, &given, &cluster, &mut applied).await?;
    events::applied(mc, ctx, &applied, given.revision);
    services::uninstall_unwanted(mc, ctx, &given, &mut services).await?;
    events::transitions(mc, ctx, &services.statuses);
    let (status, look_again) = status::of(mc, &given, cluster, services);
    let writing = ctx.echoes.writing(mc);
    if let Some(written) = status_if_changed(ctx, mc, mc.status.as_ref(), &status).await? {
        writing.wrote(&written);
        events::corrections(mc, ctx, &status.services);
    }
    Ok(look_again)
}

/// A cluster whose name the engine cannot use (stored before the CRD
/// refused such names) gets conditions that say why, and nothing else.
async fn refuse_name(mc: &ManagedCluster, ctx: &Context, why: &str) -> Result<Action> {
    let name = mc.name_any();
    let message = format!(
        "name {name} ({} characters) cannot be used: {why}. Nothing is created for this \
         cluster; create it again under a valid name",
        name.len()
    );
    let desired = [
        Cond::new(CLUSTER_READY, false, INVALID_NAME, message.clone()),
        Cond::new(READY, false, INVALID_NAME, message.clone()),
    ];
    let status = ManagedClusterStatus {
        observed_generation: mc.meta().generation,
        ..status::status_with(mc, &desired)
    };
    if status_if_changed(ctx, mc, mc.status.as_ref(), &status)
        .await?
        .is_some()
    {
        ctx.event(mc, true, INVALID_NAME, message);
    }
    Ok(Action::await_change())
}
