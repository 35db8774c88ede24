//! ManagedClusters: the cluster's own release, then one release per service
//! once the cluster is provisioned, and a status in the product's words.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::controller::Action;
use kube::{Resource, ResourceExt};

use super::apply::{apply_if_changed, delete, drop_finalizers, status_if_changed};
use super::context::Context;
use super::error::{Error, Result};
use super::finalizer;
use super::releases::{
    Observed, TemplateKind, chart_ref, choose_service_release_name, cluster_release,
    kubeconfig_secret, observe, service_release,
};
use super::templates::services_hash;
use crate::api::conditions::{
    self, CLUSTER_READY, Cond, DELETING, INVALID_NAME, NAME_CONFLICT, READY, SERVICES_READY,
    TEMPLATE_READY,
};
use crate::api::names::{cluster_name_problem, service_name_problem};
use crate::api::{
    ClusterTemplate, ClusterTemplateSpec, ManagedCluster, ManagedClusterStatus, ServiceState,
    ServiceStatus, labels, rollout_name,
};
use crate::flux::{self, HelmRelease};
use crate::plan::rollout::desired_revision;
use crate::plan::services::{ServicePlan, plan_services};
use crate::store::get;

pub async fn reconcile(mc: Arc<ManagedCluster>, ctx: Arc<Context>) -> Result<Action> {
    let work = async {
        if mc.meta().deletion_timestamp.is_some() {
            cleanup(&mc, &ctx).await
        } else if let Some(why) = cluster_name_problem(&mc.name_any()) {
            // Stored before the CRD refused such names: nothing is made
            // for it, not even a finalizer.
            refuse_name(&mc, &ctx, why).await
        } else if !finalizer::has(mc.as_ref()) {
            // Go on with the object as the finalizer left it: a new cluster
            // gets its releases in this reconcile, not after another trip
            // through the watch and the queue.
            match finalizer::add(&ctx, mc.as_ref()).await? {
                Some(updated) => apply(&updated, &ctx).await,
                None => Ok(Action::await_change()),
            }
        } else {
            apply(&mc, &ctx).await
        }
    };
    ctx.counters.timed("managedclusters", work).await
}

/// The releases of one cluster, from the shared store.
fn releases_of(ctx: &Context, ns: &str, cluster: &str) -> Vec<Arc<HelmRelease>> {
    ctx.stores.releases.state_filter(|r| {
        r.namespace().as_deref() == Some(ns)
            && r.labels().get(labels::CLUSTER).map(String::as_str) == Some(cluster)
    })
}

/// What one reconcile applied. It is told in a single Event, not one per
/// release: a fleet-wide change would otherwise double the engine's writes.
#[derive(Default)]
struct Applied {
    cluster_chart: Option<String>,
    services: Vec<String>,
}

impl Applied {
    /// The Event's reason and note, if anything was applied.
    fn event(&self, revision: Option<i64>) -> Option<(&'static str, String)> {
        let chart = self
            .cluster_chart
            .as_ref()
            .map(|c| format!("applying cluster chart {c}"));
        let services = (!self.services.is_empty()).then(|| {
            format!(
                "applying {}{}",
                self.services.join(", "),
                revision
                    .map(|r| format!(" (revision {r})"))
                    .unwrap_or_default()
            )
        });
        match (chart, services) {
            (None, None) => None,
            (Some(c), None) => Some(("ClusterChartApplied", c)),
            (None, Some(s)) => Some(("ServiceApplied", s)),
            (Some(c), Some(s)) => Some(("ServiceApplied", format!("{c}; {s}"))),
        }
    }
}

fn is_service(r: &HelmRelease) -> bool {
    r.labels().get(labels::ROLE).map(String::as_str) == Some("service")
}

async fn apply(mc: &ManagedCluster, ctx: &Context) -> Result<Action> {
    let ns = mc.namespace().unwrap_or_default();
    let name = mc.name_any();
    let existing = releases_of(ctx, &ns, &name);
    let find = |rel_name: &str| existing.iter().find(|r| r.name_any() == rel_name).cloned();
    let template = get(&ctx.stores.cluster_templates, &ns, &mc.spec.template);
    let dry_run = mc.spec.dry_run;

    // The template.
    let template_cond = match &template {
        None => Cond::new(
            TEMPLATE_READY,
            false,
            "TemplateNotFound",
            format!(
                "cluster template {} does not exist in namespace {ns}; create it or fix spec.template",
                mc.spec.template
            ),
        ),
        Some(t) => {
            let st = t.status.clone().unwrap_or_default();
            match (st.chart.valid, st.chart.validation_error) {
                // Not the template's revision: a new one would rewrite the
                // status of every cluster made from it, long before a
                // rollout reaches them. Theirs is in status.revision.
                (true, _) => Cond::new(
                    TEMPLATE_READY,
                    true,
                    "Ready",
                    format!("cluster template {} is ready", mc.spec.template),
                ),
                (false, why) => Cond::new(
                    TEMPLATE_READY,
                    false,
                    "TemplateNotReady",
                    format!(
                        "cluster template {} is not ready: {}",
                        mc.spec.template,
                        why.unwrap_or_else(|| "its chart has not been fetched yet".into())
                    ),
                ),
            }
        }
    };
    // The revision this cluster is given: its own until a rollout reaches it.
    let (revision, services_spec) = match &template {
        Some(t) => given_revision(ctx, mc, t),
        None => (None, None),
    };

    // What this reconcile applied, told in one Event at the end.
    let mut applied = Applied::default();

    // The cluster's own release.
    let mut cluster_release_obj = find(&name);
    let mut cluster_conflict = None;
    if let (Some(t), true, false) = (&template, template_cond.status, dry_run) {
        let chart = chart_ref(TemplateKind::Cluster, &t.name_any(), &ns, &t.spec.helm);
        let desired = cluster_release(mc, chart, &ctx.options);
        match apply_if_changed(ctx, &desired, cluster_release_obj.as_deref()).await {
            Ok(true) => {
                applied.cluster_chart = Some(t.spec.helm.describe());
                cluster_release_obj = None; // its status describes the previous spec
            }
            Ok(false) => {}
            Err(Error::NameConflict(c)) => cluster_conflict = Some(c.to_string()),
            Err(e) => return Err(e),
        }
    }
    let capi = get(&ctx.stores.capi_clusters, &ns, &name);
    let provisioned = capi.as_ref().is_some_and(|c| c.control_plane_initialized());
    let cluster_failure = cluster_release_obj
        .as_ref()
        .and_then(|r| r.status.as_ref())
        .and_then(|s| {
            flux::ready(&s.conditions)
                .filter(|c| c.status == "False" && c.reason.ends_with("Failed"))
                .cloned()
        });
    let cluster_cond = match (&capi, provisioned, cluster_failure) {
        _ if cluster_conflict.is_some() => Cond::new(
            CLUSTER_READY,
            false,
            NAME_CONFLICT,
            cluster_conflict.clone().unwrap_or_default(),
        ),
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
    };
    let has_kubeconfig = get(&ctx.stores.kubeconfigs, &ns, &kubeconfig_secret(&name)).is_some();

    // The services.
    let plans = match &services_spec {
        Some(spec) => {
            let st_store = &ctx.stores.service_templates;
            let all = st_store.state_filter(|s| s.namespace().as_deref() == Some(&ns));
            plan_services(spec, &mc.spec, |n| {
                all.iter()
                    .find(|s| s.metadata.name.as_deref() == Some(n))
                    .map(|s| s.as_ref())
            })
        }
        None => Vec::new(),
    };
    let old_services = mc
        .status
        .as_ref()
        .map(|s| s.services.clone())
        .unwrap_or_default();
    let mut services = Vec::with_capacity(plans.len());
    // Services whose release name belongs to something else.
    let mut conflicts: Vec<String> = Vec::new();
    let rel_names: Vec<String> = plans
        .iter()
        .map(|p| choose_service_release_name(&name, p.name(), &existing))
        .collect();
    for (plan, rel_name) in plans.iter().zip(&rel_names) {
        let current = find(rel_name);
        let status = match plan {
            ServicePlan::Blocked(b) => ServiceStatus {
                name: b.name.clone(),
                namespace: Some(b.namespace.clone()),
                template: b.template.clone(),
                state: b.state,
                version: current.as_ref().and_then(|r| observe(r, false).version),
                revision: None,
                message: Some(b.message.clone()),
            },
            ServicePlan::Install(d) => {
                let st = get(&ctx.stores.service_templates, &ns, &d.template);
                let chart_version = st
                    .as_ref()
                    .and_then(|s| s.status.as_ref())
                    .and_then(|s| s.chart_version.clone())
                    .or_else(|| st.as_ref().and_then(|s| s.spec.helm.chart_version.clone()));
                let unusable = service_name_problem(&d.name);
                let waiting = if unusable.is_some() {
                    unusable.clone()
                } else if dry_run {
                    Some(format!(
                        "dry run: would install {} into namespace {}",
                        d.template, d.namespace
                    ))
                } else if !provisioned && current.is_none() {
                    Some(format!(
                        "waiting for the cluster to be provisioned: {}",
                        cluster_cond.message
                    ))
                } else if !has_kubeconfig {
                    Some(format!(
                        "kubeconfig secret {} not found; the cluster's provider writes it once the control plane is up",
                        kubeconfig_secret(&name)
                    ))
                } else {
                    None
                };
                let observed = match waiting {
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
                        let chart = chart_ref(TemplateKind::Service, &d.template, &ns, helm);
                        let desired =
                            service_release(rel_name.clone(), mc, d, chart, revision, &ctx.options);
                        let wrote = match apply_if_changed(ctx, &desired, current.as_deref()).await
                        {
                            Ok(wrote) => wrote,
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
                        if wrote {
                            applied.services.push(format!(
                                "{} {} to namespace {}",
                                d.name,
                                chart_version.clone().unwrap_or_default(),
                                d.namespace,
                            ));
                        }
                        let mut observed = match &current {
                            Some(r) => observe(r, wrote),
                            None => observe(&desired, true),
                        };
                        if wrote {
                            // What the release carries now, as the next look
                            // at it in the store will read it.
                            observed.revision = revision;
                        }
                        observed
                    }
                };
                ServiceStatus {
                    name: d.name.clone(),
                    namespace: Some(d.namespace.clone()),
                    template: Some(d.template.clone()),
                    state: observed.state,
                    version: observed
                        .version
                        .or(chart_version.filter(|_| observed.state == ServiceState::Installing)),
                    revision: observed.revision,
                    message: observed.message,
                }
            }
        };
        services.push(status);
    }

    if let Some((reason, note)) = applied.event(revision) {
        ctx.event(mc, false, reason, note).await;
    }

    // Services no longer wanted are uninstalled. A service that is wanted but
    // blocked (bad values, a template that is not ready) keeps what it has.
    let wanted: BTreeSet<&str> = rel_names.iter().map(String::as_str).collect();
    if services_spec.is_some() {
        for rel in existing
            .iter()
            .filter(|r| is_service(r) && !wanted.contains(r.name_any().as_str()))
        {
            let service = rel
                .labels()
                .get(labels::SERVICE)
                .cloned()
                .unwrap_or_else(|| rel.name_any());
            if rel.metadata.deletion_timestamp.is_none() {
                delete::<HelmRelease>(ctx, &ns, &rel.name_any()).await?;
                ctx.event(
                    mc,
                    false,
                    "ServiceRemoving",
                    format!("uninstalling {service}"),
                )
                .await;
            }
            services.push(ServiceStatus {
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

    // Transitions people want to hear about.
    for s in &services {
        let before = old_services
            .iter()
            .find(|o| o.name == s.name)
            .map(|o| o.state);
        if before != Some(s.state)
            && matches!(s.state, ServiceState::Installed | ServiceState::Failed)
        {
            let warning = s.state == ServiceState::Failed;
            let note = match (&s.state, &s.message) {
                (ServiceState::Failed, Some(m)) => format!("{}: {m}", s.name),
                _ => format!(
                    "{} {} installed",
                    s.name,
                    s.version.clone().unwrap_or_default()
                ),
            };
            ctx.event(
                mc,
                warning,
                if warning {
                    "ServiceFailed"
                } else {
                    "ServiceInstalled"
                },
                note,
            )
            .await;
        }
    }

    let installed = services
        .iter()
        .filter(|s| s.state == ServiceState::Installed)
        .count();
    let total = services
        .iter()
        .filter(|s| s.state != ServiceState::Removing)
        .count();
    let problem = services.iter().find(|s| s.state != ServiceState::Installed);
    let services_cond = match problem {
        None if template.is_some() && services_spec.is_none() => Cond::new(
            SERVICES_READY,
            false,
            "RevisionUnknown",
            match revision {
                Some(r) => format!(
                    "cluster template {} no longer holds revision {r} of its services; \
                     a new revision of the template rolls out to this cluster",
                    mc.spec.template
                ),
                None => format!(
                    "waiting for cluster template {} to record its services",
                    mc.spec.template
                ),
            },
        ),
        None => Cond::new(
            SERVICES_READY,
            true,
            "Installed",
            format!("{installed}/{total} services installed"),
        ),
        Some(s) => Cond::new(
            SERVICES_READY,
            false,
            s.state.to_string(),
            format!(
                "{}: {}",
                s.name,
                s.message.clone().unwrap_or_else(|| s.state.to_string())
            ),
        ),
    };
    // A name that belongs to something else is what to fix first.
    let services_cond = services
        .iter()
        .find(|s| conflicts.contains(&s.name))
        .map(|s| {
            let why = s.message.clone().unwrap_or_default();
            Cond::new(
                SERVICES_READY,
                false,
                NAME_CONFLICT,
                format!("{}: {why}", s.name),
            )
        })
        .unwrap_or(services_cond);
    let ready = [&template_cond, &cluster_cond, &services_cond]
        .into_iter()
        .find(|c| !c.status)
        .map_or_else(
            || {
                Cond::new(
                    READY,
                    true,
                    "Ready",
                    format!("cluster provisioned, {installed}/{total} services installed"),
                )
            },
            |c| Cond::new(READY, false, c.reason.clone(), c.message.clone()),
        );
    let all_at_revision = problem.is_none() && services.iter().all(|s| s.revision == revision);
    let receives =
        !dry_run && has_kubeconfig && (provisioned || existing.iter().any(|r| is_service(r)));
    let old = mc.status.clone().unwrap_or_default();
    let status = ManagedClusterStatus {
        conditions: conditions::merge(
            &old.conditions,
            &[template_cond, cluster_cond, services_cond, ready],
            mc.meta().generation,
            Time(Timestamp::now()),
        ),
        services,
        services_ready: Some(format!("{installed}/{total}")),
        revision: if all_at_revision && provisioned && services_spec.is_some() {
            revision
        } else {
            old.revision
        },
        // Given once services can reach the cluster: until then a newer
        // revision needs no rollout to reach it.
        target_revision: if receives && services_spec.is_some() {
            revision
        } else {
            old.target_revision
        },
        observed_generation: mc.meta().generation,
    };
    let in_flight = status
        .services
        .iter()
        .any(|s| matches!(s.state, ServiceState::Installing | ServiceState::Removing));
    let waiting = status
        .services
        .iter()
        .any(|s| s.state == ServiceState::Pending);
    status_if_changed(ctx, mc, mc.status.as_ref(), &status).await?;
    // Everything this reads triggers a reconcile once its store has the
    // change (see `triggers`), so these looks are only a safety net; they
    // read the stores, not the API, and write nothing unless something
    // changed.
    // A conflict clears when the other object goes, which triggers nothing
    // here: look again now and then.
    let secs = if in_flight {
        30
    } else if waiting || cluster_conflict.is_some() || !conflicts.is_empty() {
        60
    } else {
        300
    };
    Ok(Action::requeue(Duration::from_secs(secs)))
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
        ..status_with(mc, &desired)
    };
    if status_if_changed(ctx, mc, mc.status.as_ref(), &status).await? {
        ctx.event(mc, true, INVALID_NAME, message).await;
    }
    Ok(Action::await_change())
}

/// The revision of its template's services a cluster is given now, and
/// those services: what a rollout decided, else what it has, else the newest.
fn given_revision(
    ctx: &Context,
    mc: &ManagedCluster,
    template: &ClusterTemplate,
) -> (Option<i64>, Option<ClusterTemplateSpec>) {
    let Some(status) = template.status.as_ref() else {
        return (None, None);
    };
    let ns = mc.namespace().unwrap_or_default();
    let rollout = status.revision.and_then(|r| {
        get(
            &ctx.stores.rollouts,
            &ns,
            &rollout_name(&template.name_any(), r),
        )
    });
    let current = mc.status.as_ref().and_then(|s| s.target_revision);
    let wanted = desired_revision(
        status.revision,
        rollout
            .as_ref()
            .and_then(|r| r.status.as_ref().map(|s| (&r.spec, s))),
        &mc.name_any(),
        current,
    );
    match wanted.and_then(|r| template.spec_at(r)) {
        Some(spec) => (wanted, Some(spec)),
        // A template that predates remembered revisions, or one that forgot
        // this one: its current services, if the status describes them.
        None if status.services_hash.as_deref()
            == Some(services_hash(&template.spec.services).as_str()) =>
        {
            (status.revision, Some(template.spec.clone()))
        }
        None => (wanted, None),
    }
}

/// Uninstalls the services first, then the cluster's release, then lets go.
async fn cleanup(mc: &ManagedCluster, ctx: &Context) -> Result<Action> {
    if !finalizer::has(mc) {
        return Ok(Action::await_change());
    }
    let ns = mc.namespace().unwrap_or_default();
    let name = mc.name_any();
    let existing = releases_of(ctx, &ns, &name);
    let (services, cluster): (Vec<_>, Vec<_>) = existing.into_iter().partition(|r| is_service(r));
    let force = mc
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

    if !services.is_empty() {
        for rel in &services {
            if rel.metadata.deletion_timestamp.is_none() {
                delete::<HelmRelease>(ctx, &ns, &rel.name_any()).await?;
            } else if force {
                // The child is gone or unreachable: let go of what is in it.
                drop_finalizers::<HelmRelease>(ctx, &ns, &rel.name_any()).await?;
            }
        }
        let stuck = since > ctx.options.deletion_timeout;
        let names: Vec<String> = services
            .iter()
            .filter_map(|r| r.labels().get(labels::SERVICE).cloned())
            .collect();
        let cond = if stuck && !force {
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
            )
            .await;
        } else if force && since > ctx.options.deletion_timeout {
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
    Ok(Action::await_change())
}

/// The cluster's status as it is, with `desired` as its conditions.
fn status_with(mc: &ManagedCluster, desired: &[Cond]) -> ManagedClusterStatus {
    let old = mc.status.clone().unwrap_or_default();
    ManagedClusterStatus {
        conditions: conditions::merge(
            &old.conditions,
            desired,
            mc.meta().generation,
            Time(Timestamp::now()),
        ),
        ..old
    }
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

#[cfg(test)]
mod tests {
    use super::Applied;

    #[test]
    fn one_event_tells_everything_a_reconcile_applied() {
        assert_eq!(Applied::default().event(Some(2)), None);
        let chart = Applied {
            cluster_chart: Some("cluster 0.1.0".into()),
            services: vec![],
        };
        assert_eq!(
            chart.event(None),
            Some((
                "ClusterChartApplied",
                "applying cluster chart cluster 0.1.0".into()
            ))
        );
        let both = Applied {
            cluster_chart: Some("cluster 0.1.0".into()),
            services: vec![
                "a 4.11.3 to namespace x".into(),
                "b 4.11.4 to namespace y".into(),
            ],
        };
        assert_eq!(
            both.event(Some(2)),
            Some((
                "ServiceApplied",
                "applying cluster chart cluster 0.1.0; applying a 4.11.3 to namespace x, \
                 b 4.11.4 to namespace y (revision 2)"
                    .into()
            ))
        );
    }
}
