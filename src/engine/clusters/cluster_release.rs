//! The cluster's own release: written when its template is ready, and what
//! it and the cluster's Cluster API objects say.

use kube::ResourceExt;

use super::events::Applied;
use super::given::Given;
use crate::api::ManagedCluster;
use crate::api::conditions::{CLUSTER_READY, Cond, INSTALLER_MISSING, NAME_CONFLICT};
use crate::api::names::CLUSTER_INSTALLER;
use crate::capi;
use crate::engine::apply::apply_if_changed;
use crate::engine::context::Context;
use crate::engine::error::{Error, Result};
use crate::engine::releases::{TemplateKind, carry_installs_as, chart_ref, cluster_release};
use crate::flux::{self, FluxCondition};
use crate::store::{WatchHealth, get};

/// The cluster's own release, as this reconcile leaves it.
pub(super) struct ClusterRelease {
    /// Whether the control plane is initialized: services may go in.
    pub(super) provisioned: bool,
    /// Why the release was not written: its name belongs to something else.
    pub(super) conflict: Option<String>,
    pub(super) cond: Cond,
}

/// Applies the cluster's release (unless its template is not ready, or this
/// is a dry run) and reads how far the cluster is.
pub(super) async fn apply(
    mc: &ManagedCluster,
    ctx: &Context,
    given: &Given,
    applied: &mut Applied,
) -> Result<ClusterRelease> {
    let ns = &given.ns;
    let mut cluster_release_obj = given.find(&given.name);
    let mut conflict = None;
    let no_installer = if given.dry_run {
        None
    } else {
        installer_missing(ctx, ns)
    };
    if let (Some(t), true, false, None) = (
        &given.template,
        given.template_cond.status,
        given.dry_run,
        &no_installer,
    ) {
        let chart = chart_ref(TemplateKind::Cluster, &t.name_any(), ns, &t.spec.helm);
        let mut desired = cluster_release(mc, chart, &ctx.options);
        // Another release interval alone installs nothing again.
        let same_install = carry_installs_as(&mut desired, cluster_release_obj.as_deref());
        let writing = ctx.echoes.writing(&desired);
        match apply_if_changed(ctx, &desired, cluster_release_obj.as_deref()).await {
            Ok(Some(written)) => {
                writing.wrote(&written);
                if !same_install {
                    applied.cluster_chart = Some(t.spec.helm.describe());
                    cluster_release_obj = None; // its status describes the previous spec
                }
            }
            Ok(None) => {}
            Err(Error::NameConflict(c)) => conflict = Some(c.to_string()),
            Err(e) => return Err(e),
        }
    }
    let capi = get(&ctx.stores.capi_clusters, ns, &given.name);
    let provisioned = capi.as_ref().is_some_and(|c| c.control_plane_initialized());
    let failure = cluster_release_obj
        .as_ref()
        .and_then(|r| r.status.as_ref())
        .and_then(|s| {
            flux::ready(&s.conditions)
                .filter(|c| c.status == "False" && c.reason.ends_with("Failed"))
                .cloned()
        });
    let cond = match &no_installer {
        // Nothing of the cluster's chart is written or changed meanwhile.
        Some(why) if conflict.is_none() => {
            Cond::new(CLUSTER_READY, false, INSTALLER_MISSING, why.as_str())
        }
        _ => condition(
            capi.as_deref(),
            provisioned,
            failure,
            conflict.as_deref(),
            given.dry_run,
        ),
    };
    Ok(ClusterRelease {
        provisioned,
        conflict,
        cond,
    })
}

/// Why the cluster's chart cannot be installed in `ns` now: the namespace
/// has no installer account, or the engine cannot see whether it has.
fn installer_missing(ctx: &Context, ns: &str) -> Option<String> {
    if get(&ctx.stores.installers, ns, CLUSTER_INSTALLER).is_some() {
        return None;
    }
    let failing = match &*ctx.stores.health.installers.health.borrow() {
        WatchHealth::Failing { failure, .. } => Some(failure.describe()),
        WatchHealth::Ok => None,
    };
    Some(installer_problem(ns, failing.as_deref()))
}

/// The words for a missing installer account; `unseen` says why the engine
/// cannot look.
fn installer_problem(ns: &str, unseen: Option<&str>) -> String {
    match unseen {
        Some(why) => format!(
            "cannot see service account {CLUSTER_INSTALLER} in namespace {ns} ({why}); \
             the cluster chart is installed as that account"
        ),
        None => format!(
            "service account {CLUSTER_INSTALLER} not found in namespace {ns}: the cluster chart \
             is installed as that account, so nothing is installed until a platform admin \
             creates it and grants it what the chart makes (the book: Operations, RBAC)"
        ),
    }
}

/// How far the cluster is, in one condition.
fn condition(
    capi: Option<&capi::Cluster>,
    provisioned: bool,
    failure: Option<FluxCondition>,
    conflict: Option<&str>,
    dry_run: bool,
) -> Cond {
    if let Some(conflict) = conflict {
        return Cond::new(CLUSTER_READY, false, NAME_CONFLICT, conflict);
    }
    match (capi, provisioned, failure) {
        (_, false, Some(c)) => Cond::new(
            CLUSTER_READY,
            false,
            "ClusterChartFailed",
            format!(
                "cluster chart: {}",
                flux::words::release_problem(&c.message)
            ),
        ),
        (_, true, _) => Cond::new(
            CLUSTER_READY,
            true,
            "Provisioned",
            "control plane initialized",
        ),
        (None, false, None) if dry_run => Cond::new(
            CLUSTER_READY,
            false,
            "DryRun",
            "dry run: nothing is created",
        ),
        (None, false, None) => Cond::new(
            CLUSTER_READY,
            false,
            "Provisioning",
            "waiting for the cluster's Cluster API objects",
        ),
        (Some(c), false, None) => Cond::new(
            CLUSTER_READY,
            false,
            "Provisioning",
            format!("control plane not initialized yet (phase {})", c.phase()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_installer_is_named_with_its_namespace_and_what_to_do() {
        let missing = installer_problem("team-a", None);
        assert!(
            missing.contains("service account hmc-cluster-installer not found in namespace team-a")
        );
        assert!(missing.contains("platform admin creates it"));
        let unseen = installer_problem("team-a", Some("forbidden by RBAC"));
        assert!(unseen.starts_with("cannot see service account hmc-cluster-installer"));
        assert!(unseen.contains("forbidden by RBAC"));
        for words in [missing, unseen] {
            assert!(!words.contains("HelmRelease"), "{words}");
        }
    }
}
