//! MultiClusterServices' status: which clusters of their namespace each one
//! selects, whether its services are deployed there, lost to a higher
//! priority or in conflict, and the revision of its services. Nothing is
//! installed from here: the services are the clusters' own controller's
//! (`clusters::services`), which plans them with each cluster's.

use std::collections::BTreeSet;
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};

use crate::api::conditions;
use crate::api::{
    ManagedCluster, MultiClusterService, MultiClusterServiceStatus, TemplateService, all_installed,
};
use crate::engine::apply::status_if_changed;
use crate::engine::clusters::given::{GivenMulti, given_multi_cluster_services, given_revision};
use crate::engine::context::Context;
use crate::engine::error::Result;
use crate::plan::multi_cluster::{ClusterView, Selected, multi_report, next_revision};
use crate::plan::services::sources_of;
use crate::store::get;

pub async fn reconcile(mcs: Arc<MultiClusterService>, ctx: Arc<Context>) -> Result<Action> {
    ctx.counters
        .timed("multiclusterservices", reconcile_inner(&mcs, &ctx))
        .await
}

async fn reconcile_inner(mcs: &MultiClusterService, ctx: &Context) -> Result<Action> {
    if mcs.meta().deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let ns = mcs.namespace().unwrap_or_default();
    let in_ns = |o: &Option<String>| o.as_deref() == Some(ns.as_str());
    let clusters = ctx
        .stores
        .managed_clusters
        .state_filter(|c| in_ns(&c.metadata.namespace));
    let everyone = ctx
        .stores
        .multi_cluster_services
        .state_filter(|m| in_ns(&m.metadata.namespace));
    // Each cluster's MultiClusterServices as its controller plans them:
    // each at the revision of its services the cluster is given.
    let given_multi: Vec<Vec<GivenMulti>> = clusters
        .iter()
        .map(|mc| given_multi_cluster_services(ctx, mc, &everyone))
        .collect();
    let mcss_of: Vec<Vec<&MultiClusterService>> = given_multi
        .iter()
        .map(|g| g.iter().map(|g| g.at_revision.as_ref()).collect())
        .collect();
    // Each cluster's own services as its controller plans them: its
    // template's at the revision it is given, and its own entries.
    let template_services: Vec<Vec<TemplateService>> = clusters
        .iter()
        .map(|mc| {
            let template = get(&ctx.stores.cluster_templates, &ns, &mc.spec.template);
            let spec = template.and_then(|t| given_revision(ctx, mc, &t).1);
            spec.map(|s| s.services).unwrap_or_default()
        })
        .collect();
    let selected: Vec<Selected<'_>> = clusters
        .iter()
        .zip(&template_services)
        .zip(&mcss_of)
        .map(|((mc, services), mcss)| sources_of(services, mc, mcss))
        .collect();
    let name = mcs.name_any();
    // The revisions a cluster is given or has as its last good one stay
    // remembered: a rollout moves it from one to the next, or back.
    let in_use: BTreeSet<i64> = clusters
        .iter()
        .filter_map(|mc| mc.status.as_ref()?.multi_cluster_service(&name))
        .flat_map(|g| [g.target_revision, g.revision])
        .flatten()
        .collect();
    let old = mcs.status.clone().unwrap_or_default();
    let revisioned = next_revision(&old, &mcs.service_spec(), &in_use);
    let views: Vec<ClusterView<'_, '_>> = clusters
        .iter()
        .zip(&selected)
        .map(|(mc, selected)| ClusterView {
            cluster: mc.metadata.name.as_deref().unwrap_or_default(),
            selected,
            deployed: deployed(mc, &name, revisioned.revision)
                && all_installed(
                    mc.status.as_ref().map_or(&[], |s| &s.services[..]),
                    &selected.for_multi(&name).won,
                ),
        })
        .collect();
    let report = multi_report(mcs, &views);
    let status = MultiClusterServiceStatus {
        observed_generation: mcs.meta().generation,
        conditions: conditions::merge(
            &old.conditions,
            &report.conditions,
            mcs.meta().generation,
            Time(Timestamp::now()),
        ),
        matching_clusters: report.matching_clusters,
        matching_count: Some(report.matching_count),
        ..revisioned
    };
    status_if_changed(ctx, mcs, mcs.status.as_ref(), &status).await?;
    Ok(Action::await_change())
}

/// Whether `mc` says it has revision `revision` of `mcs`'s services
/// installed: up to date.
fn deployed(mc: &ManagedCluster, mcs: &str, revision: Option<i64>) -> bool {
    let good = mc
        .status
        .as_ref()
        .and_then(|s| s.multi_cluster_service(mcs))
        .and_then(|g| g.revision);
    good == revision
}
