//! The cluster's services: one release each once the cluster can take it,
//! in the order of the plan, and the uninstalling of those no longer wanted.

use std::collections::BTreeSet;
use std::sync::Arc;

use kube::ResourceExt;

use super::cluster_release::ClusterRelease;
use super::events::{self, Applied};
use super::given::{Given, given_multi_cluster_services, is_service};
use crate::api::MultiClusterService;
use crate::api::conditions::Cond;
use crate::api::names::TemplateKind;
use crate::api::names::service_name_problem;
use crate::api::{ManagedCluster, ServiceState, ServiceStatus, labels};
use crate::engine::apply::{apply_if_changed, delete};
use crate::engine::context::Context;
use crate::engine::drift;
use crate::engine::error::{Error, Result};
use crate::engine::release_state::{Observed, observe, with_ownership};
use crate::flux::HelmRelease;
use crate::plan::multi_cluster::Selected;
use crate::plan::parsed_values::ParsedValues;
use crate::plan::releases::{
    carry_installs_as, chart_ref, choose_service_release_name, service_release, takes_ownership,
};
use crate::plan::services::{
    BlockedService, DesiredService, ServicePlan, plan_services_selected, sources_of,
};
use crate::plan::values_data::ValuesData;
use crate::store::get;

/// The services as this reconcile leaves them.
pub(super) struct Services {
    /// One status per planned service, in the plan's order, then one per
    /// service being uninstalled.
    pub(super) statuses: Vec<ServiceStatus>,
    /// Services whose release name belongs to something else.
    pub(super) conflicts: Vec<String>,
    /// The release name of each planned service.
    rel_names: Vec<String>,
    /// Whether services named by several sources (the cluster's own and
    /// MultiClusterServices) are in conflict.
    pub(super) multi: Cond,
    /// Each MultiClusterService that selects the cluster: the revision of
    /// its services planned here, and the services it gives.
    pub(super) multi_revisions: Vec<MultiPlanned>,
}

/// What one MultiClusterService gives the cluster in this plan.
pub(super) struct MultiPlanned {
    pub(super) name: String,
    /// The revision of its services planned (see `given_multi_cluster_services`).
    pub(super) revision: Option<i64>,
    /// The services it wins here, by name.
    pub(super) won: Vec<String>,
}

/// What every service of one cluster is installed with.
struct Target<'a> {
    mc: &'a ManagedCluster,
    ctx: &'a Context,
    given: &'a Given,
    cluster: &'a ClusterRelease,
}

/// Plans the cluster's services and applies the release of each one that
/// can be installed now.
pub(super) async fn apply(
    mc: &ManagedCluster,
    ctx: &Context,
    given: &Given,
    cluster: &ClusterRelease,
    applied: &mut Applied,
) -> Result<Services> {
    let Planned {
        plans,
        multi,
        won,
        multi_revisions,
    } = plan(mc, ctx, given);
    let mut statuses = Vec::with_capacity(plans.len());
    let mut conflicts: Vec<String> = Vec::new();
    let rel_names: Vec<String> = plans
        .iter()
        .map(|p| choose_service_release_name(&given.name, p.name(), &given.existing))
        .collect();
    let target = Target {
        mc,
        ctx,
        given,
        cluster,
    };
    for (plan, rel_name) in plans.iter().zip(&rel_names) {
        let current = given.find(rel_name);
        let status = match plan {
            ServicePlan::Blocked(b) => blocked(b, current.as_deref()),
            ServicePlan::Install(d) => {
                let unmet = unmet_dependencies(d, &statuses);
                install(
                    &target,
                    d,
                    rel_name,
                    current,
                    unmet,
                    applied,
                    &mut conflicts,
                )
                .await?
            }
        };
        // Where several sources name a service, which one gives it and over
        // whom (a problem, when there is one, says more).
        let mut status = status;
        if status.message.is_none() {
            status.message = won
                .iter()
                .find(|(name, _)| *name == status.name)
                .map(|(_, why)| why.clone());
        }
        statuses.push(status);
    }
    Ok(Services {
        statuses,
        conflicts,
        rel_names,
        multi,
        multi_revisions,
    })
}

/// The plan of the cluster's services.
struct Planned {
    plans: Vec<ServicePlan>,
    /// The `Conflict` condition.
    multi: Cond,
    /// For each service several sources name: which one gives it and why.
    won: Vec<(String, String)>,
    multi_revisions: Vec<MultiPlanned>,
}

/// The services the cluster gets at the revision it is given, those the
/// MultiClusterServices of its namespace that select it give included (each
/// at the revision of its services the cluster is given), and whether any
/// service is in conflict between them, and for each service several
/// sources name, which one gives it and over whom.
fn plan(mc: &ManagedCluster, ctx: &Context, given: &Given) -> Planned {
    let Some(spec) = &given.services_spec else {
        return Planned {
            plans: Vec::new(),
            multi: Selected::default().conflict_condition(),
            won: Vec::new(),
            multi_revisions: Vec::new(),
        };
    };
    let ns = given.ns.as_str();
    let service_templates = ctx
        .stores
        .service_templates
        .state_filter(|s| s.namespace().as_deref() == Some(ns));
    let multi_cluster_services = ctx
        .stores
        .multi_cluster_services
        .state_filter(|m| m.namespace().as_deref() == Some(ns));
    let given_multi = given_multi_cluster_services(ctx, mc, &multi_cluster_services);
    let mcss: Vec<&MultiClusterService> =
        given_multi.iter().map(|g| g.at_revision.as_ref()).collect();
    let selected = sources_of(&spec.services, mc, &mcss);
    let multi_revisions = given_multi
        .iter()
        .map(|g| {
            let name = g.at_revision.name_any();
            MultiPlanned {
                won: selected
                    .for_multi(&name)
                    .won
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                name,
                revision: g.revision,
            }
        })
        .collect();
    let capi = get(&ctx.stores.capi_clusters, ns, &given.name);
    let data = ValuesData::of(mc, capi.as_deref());
    let plans = plan_services_selected(
        spec,
        &mc.spec,
        (&data, &selected),
        |n| {
            service_templates
                .iter()
                .find(|s| s.metadata.name.as_deref() == Some(n))
                .map(|s| s.as_ref())
        },
        &mut ParsedValues::default(),
        true,
    );
    let won = selected
        .decisions
        .iter()
        .filter(|d| d.winner().is_some())
        .filter_map(|d| Some((d.name.to_string(), d.message()?)))
        .collect();
    Planned {
        plans,
        multi: selected.conflict_condition(),
        won,
        multi_revisions,
    }
}

/// A service that cannot be installed as planned keeps what it has.
fn blocked(b: &BlockedService, current: Option<&HelmRelease>) -> ServiceStatus {
    ServiceStatus {
        name: b.name.clone(),
        namespace: Some(b.namespace.clone()),
        template: b.template.clone(),
        state: b.state,
        version: current.and_then(|r| observe(r, false).version),
        revision: None,
        message: Some(b.message.clone()),
    }
}

/// Applies one service's release, unless the service has to wait, and
/// reads how it is. The release reaches the child through the cluster's
/// kubeconfig secret, which helm-controller reads: a release written before
/// Cluster API wrote it says so in its status (`flux::words`), and installs
/// once it is there.
async fn install(
    target: &Target<'_>,
    d: &DesiredService,
    rel_name: &str,
    current: Option<Arc<HelmRelease>>,
    unmet: Option<String>,
    applied: &mut Applied,
    conflicts: &mut Vec<String>,
) -> Result<ServiceStatus> {
    let Target { mc, ctx, given, .. } = *target;
    let ns = &given.ns;
    let revision = given.revision;
    let st = get(&ctx.stores.service_templates, ns, &d.template);
    let chart_version = st
        .as_ref()
        .and_then(|s| s.status.as_ref())
        .and_then(|s| s.chart_version.clone())
        .or_else(|| st.as_ref().and_then(|s| s.spec.helm.chart_version.clone()));
    let unusable = service_name_problem(&d.name);
    let observed = match waiting(target, d, unusable.clone(), current.is_some(), unmet) {
        Some(why) => Observed {
            state: if unusable.is_some() {
                ServiceState::Failed
            } else {
                ServiceState::Pending
            },
            version: None,
            revision: None,
            message: Some(why),
        },
        None => 'apply: {
            let helm = &st.as_ref().map(|s| s.spec.helm.clone()).unwrap_or_default();
            let chart = chart_ref(TemplateKind::Service, &d.template, ns, helm);
            let mut desired = service_release(
                rel_name.to_string(),
                mc,
                d,
                chart,
                revision,
                ctx.options.releases(),
            );
            // Only the release controller's settings changed: nothing is
            // installed again, and the status the release has still holds.
            let same_install = carry_installs_as(&mut desired, current.as_deref());
            let writing = ctx.echoes.writing(&desired);
            let wrote = match apply_if_changed(ctx, &desired, current.as_deref()).await {
                Ok(Some(written)) => {
                    writing.wrote(&written);
                    true
                }
                Ok(None) => false,
                Err(Error::NameConflict(c)) => {
                    conflicts.push(d.name.clone());
                    break 'apply Observed {
                        state: ServiceState::Failed,
                        version: None,
                        revision: None,
                        message: Some(c.to_string()),
                    };
                }
                Err(e) => return Err(e),
            };
            if wrote && !same_install {
                applied.services.push(format!(
                    "{} {} to namespace {}",
                    d.name,
                    chart_version.clone().unwrap_or_default(),
                    d.namespace,
                ));
            }
            let mut observed = match &current {
                // What the release controller last said of changes made by
                // hand in the child cluster.
                Some(r) if !wrote || same_install => drift::observed_with(
                    observe(r, false),
                    drift::latest(
                        ctx.stores.drift_events.state().iter().map(|e| e.as_ref()),
                        r,
                    ),
                ),
                Some(r) => observe(r, wrote),
                None => observe(&desired, true),
            };
            // What the release found in the cluster that was not its own.
            if let Some(r) = &current {
                let take = takes_ownership(mc, &d.name);
                let fresh = wrote && !same_install;
                observed = with_ownership(observed, r, &given.existing, take, fresh);
            }
            if wrote {
                // What the release carries now, as the next look
                // at it in the store will read it.
                observed.revision = revision;
            }
            observed
        }
    };
    let status = ServiceStatus {
        name: d.name.clone(),
        namespace: Some(d.namespace.clone()),
        template: Some(d.template.clone()),
        state: observed.state,
        version: observed
            .version
            .or(chart_version.filter(|_| observed.state == ServiceState::Installing)),
        revision: observed.revision,
        message: observed.message,
    };
    Ok(status)
}

/// The services `d` depends on that are not Installed yet, as its status
/// says it: `None` when there are none. The plan puts a service after those
/// it depends on, so their statuses of this reconcile are already known.
fn unmet_dependencies(d: &DesiredService, statuses: &[ServiceStatus]) -> Option<String> {
    let unmet: Vec<String> = d
        .after
        .iter()
        .filter_map(|dep| match statuses.iter().find(|s| &s.name == dep) {
            Some(s) if s.state == ServiceState::Installed => None,
            Some(s) => Some(format!("{dep} ({})", s.state)),
            None => Some(dep.clone()),
        })
        .collect();
    (!unmet.is_empty()).then(|| {
        format!(
            "waits for {} to be installed first (dependsOn)",
            unmet.join(", ")
        )
    })
}

/// A service's status while the Cluster API cluster of its cluster's name
/// is not the cluster's own (see `cluster_release::not_made_here`).
pub(super) fn waits_for_own_cluster(why: &str) -> String {
    format!("waits for a cluster of its own: {why}")
}

/// Why a service cannot be installed yet, if it cannot: a name that cannot
/// be used, a dry run, a Cluster API cluster this cluster did not make, a
/// cluster not provisioned, services it depends on not installed yet. Only
/// a first install waits for the last two: a service already installed
/// keeps being upgraded on its own.
fn waiting(
    target: &Target<'_>,
    d: &DesiredService,
    unusable: Option<String>,
    has_release: bool,
    unmet: Option<String>,
) -> Option<String> {
    let Target { given, cluster, .. } = *target;
    if unusable.is_some() {
        unusable
    } else if given.dry_run {
        Some(format!(
            "dry run: would install {} into namespace {}",
            d.template, d.namespace
        ))
    } else if let Some(why) = &cluster.foreign {
        // Upgrades too: nothing goes through another's kubeconfig secret.
        Some(waits_for_own_cluster(why))
    } else if !cluster.provisioned && !has_release {
        Some(format!(
            "waiting for the cluster to be provisioned: {}",
            cluster.cond.message
        ))
    } else if !has_release {
        unmet
    } else {
        None
    }
}

/// Services no longer wanted are uninstalled. A service that is wanted but
/// blocked (bad values, a template that is not ready) keeps what it has.
pub(super) async fn uninstall_unwanted(
    mc: &ManagedCluster,
    ctx: &Context,
    given: &Given,
    services: &mut Services,
) -> Result<()> {
    let wanted: BTreeSet<&str> = services.rel_names.iter().map(String::as_str).collect();
    if given.services_spec.is_some() {
        for rel in given
            .existing
            .iter()
            .filter(|r| is_service(r) && !wanted.contains(r.name_any().as_str()))
        {
            let service = rel
                .labels()
                .get(labels::SERVICE)
                .cloned()
                .unwrap_or_else(|| rel.name_any());
            if rel.metadata.deletion_timestamp.is_none() {
                delete::<HelmRelease>(ctx, &given.ns, &rel.name_any()).await?;
                events::removing(mc, ctx, &service);
            }
            services.statuses.push(ServiceStatus {
                name: service,
                namespace: rel.spec.target_namespace.clone(),
                template: None,
                state: ServiceState::Removing,
                version: observe(rel, false).version,
                revision: None,
                message: Some("uninstalling from the cluster".into()),
            });
        }
    }
    Ok(())
}
