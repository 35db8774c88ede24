//! Deleting a cluster: its services are uninstalled first (through the
//! kubeconfig secret, which the chart's kubeconfig-hold policy keeps while
//! the ManagedCluster exists, even when its namespace is being deleted),
//! then its own release, then the finalizer lets it go.

use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};

use super::given::{is_service, releases_of};
use super::status::status_with;
use crate::api::conditions::{
    CLUSTER_READY, Cond, DELETING, READY, SERVICES_READY, TEMPLATE_READY,
};
use crate::api::{ManagedCluster, labels};
use crate::engine::apply::{delete, drop_finalizers, status_if_changed};
use crate::engine::context::Context;
use crate::engine::error::Result;
use crate::engine::finalizer;
use crate::flux::{self, HelmRelease};

/// Uninstalls the services first, then the cluster's release, then lets go.
pub(super) async fn cleanup(mc: &ManagedCluster, ctx: &Context) -> Result<Action> {
    if !finalizer::has(mc) {
        return Ok(Action::await_change());
    }
    let ns = mc.namespace().unwrap_or_default();
    let name = mc.name_any();
    let existing = releases_of(ctx, &ns, &name);
    let (services, cluster): (Vec<_>, Vec<_>) = existing.into_iter().partition(|r| is_service(r));
    let asked = mc
        .annotations()
        .get(labels::FORCE_DELETE)
        .map(String::as_str)
        == Some("true");
    let since = mc
        .meta()
        .deletion_timestamp
        .as_ref()
        .map(|t| Timestamp::now().duration_since(t.0).unsigned_abs())
        .unwrap_or_default();
    let stuck = since > ctx.options.deletion_timeout;
    if !services.is_empty() {
        for rel in &services {
            if rel.metadata.deletion_timestamp.is_none() {
                delete::<HelmRelease>(ctx, &ns, &rel.name_any()).await?;
            } else if asked {
                // The child is gone or unreachable: let go of what is in it.
                drop_finalizers::<HelmRelease>(ctx, &ns, &rel.name_any()).await?;
            }
        }
        let names: Vec<String> = services
            .iter()
            .filter_map(|r| r.labels().get(labels::SERVICE).cloned())
            .collect();
        let cond = if stuck && !asked {
            let cause = services
                .iter()
                .filter_map(|r| r.status.as_ref())
                .filter_map(|s| {
                    flux::ready(&s.conditions).map(|c| flux::words::release_problem(&c.message))
                })
                .find(|m| !m.is_empty())
                .unwrap_or_else(|| "the cluster does not answer".into());
            Cond::new(
                DELETING,
                false,
                "ChildUnreachable",
                format!(
                    "services {} could not be uninstalled for {}s: {cause}; annotate {}=true to delete anyway \
                     (the services stay in the cluster)",
                    names.join(", "),
                    since.as_secs(),
                    labels::FORCE_DELETE
                ),
            )
        } else {
            Cond::new(
                DELETING,
                false,
                "UninstallingServices",
                format!("uninstalling {}", names.join(", ")),
            )
        };
        deleting_status(mc, ctx, cond).await?;
        return Ok(Action::requeue(Duration::from_secs(if stuck {
            30
        } else {
            5
        })));
    }
    if let Some(rel) = cluster.first() {
        if rel.metadata.deletion_timestamp.is_none() {
            delete::<HelmRelease>(ctx, &ns, &rel.name_any()).await?;
            ctx.event(
                mc,
                false,
                "ClusterChartRemoving",
                "services uninstalled; removing the cluster".into(),
            );
        } else if asked && stuck {
            drop_finalizers::<HelmRelease>(ctx, &ns, &rel.name_any()).await?;
        }
        let cond = Cond::new(
            DELETING,
            false,
            "RemovingCluster",
            "services uninstalled; removing the cluster",
        );
        deleting_status(mc, ctx, cond).await?;
        return Ok(Action::requeue(Duration::from_secs(5)));
    }
    finalizer::remove(ctx, mc).await?;
    ctx.written.forget(mc);
    if let Some(uid) = &mc.metadata.uid {
        ctx.told_corrections.forget(uid);
    }
    ctx.echoes
        .forget::<ManagedCluster>(&mc.namespace().unwrap_or_default(), &mc.name_any());
    Ok(Action::await_change())
}

async fn deleting_status(mc: &ManagedCluster, ctx: &Context, cond: Cond) -> Result<()> {
    let old = mc.status.clone().unwrap_or_default();
    let mut desired: Vec<Cond> = old
        .conditions
        .iter()
        .filter(|c| c.type_ != DELETING && c.type_ != READY)
        .map(|c| {
            let t: &'static str = match c.type_.as_str() {
                TEMPLATE_READY => TEMPLATE_READY,
                CLUSTER_READY => CLUSTER_READY,
                _ => SERVICES_READY,
            };
            Cond::new(t, c.status == "True", c.reason.clone(), c.message.clone())
        })
        .collect();
    desired.push(Cond::new(READY, false, "Deleting", cond.message.clone()));
    desired.push(cond);
    let status = status_with(mc, &desired);
    status_if_changed(ctx, mc, mc.status.as_ref(), &status).await?;
    Ok(())
}
