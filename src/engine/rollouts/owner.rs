//! Whose services a rollout brings, and what the rollout needs of it: a
//! ClusterTemplate's to the clusters made from it, or a
//! MultiClusterService's to the clusters of its namespace it selects. The
//! rollout's steps are the same for both; only where the clusters, their
//! revisions and their health come from differs.

use std::collections::BTreeMap;
use std::sync::Arc;

use kube::api::ObjectMeta;
use kube::{Resource, ResourceExt};

use crate::api::conditions::CLUSTER_READY;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use crate::api::{
    ClusterTemplate, ClusterTemplateSpec, ManagedCluster, ManagedClusterStatus,
    MultiClusterService, PreviewGroup, RolloutPolicy, RolloutSubject, ServiceState, ServiceStatus,
    ServiceTemplate, TemplateRolloutStatus, labels,
};
use crate::engine::clusters::given::{given_multi_cluster_services, given_revision};
use crate::engine::context::Context;
use crate::plan::multi_cluster::selects;
use crate::plan::parsed_values::ParsedValues;
use crate::plan::rollout::{Candidate, Health, candidates_given, preview_groups, service_changes};
use crate::plan::services::{ServicePlan, plan_services_selected, sources_of};
use crate::plan::values_data::ValuesData;
use crate::store::get;

/// The object whose services a rollout brings.
#[derive(Clone, Copy)]
pub(super) enum Owner<'a> {
    Template(&'a ClusterTemplate),
    Multi(&'a MultiClusterService),
}

impl<'a> Owner<'a> {
    fn meta(self) -> &'a ObjectMeta {
        match self {
            Self::Template(t) => t.meta(),
            Self::Multi(m) => m.meta(),
        }
    }

    pub(super) fn namespace(self) -> String {
        self.meta().namespace.clone().unwrap_or_default()
    }

    pub(super) fn name(self) -> &'a str {
        self.meta().name.as_deref().unwrap_or_default()
    }

    pub(super) fn is_deleted(self) -> bool {
        self.meta().deletion_timestamp.is_some()
    }

    pub(super) fn subject(self) -> RolloutSubject<'a> {
        match self {
            Self::Template(_) => RolloutSubject::Template(self.name()),
            Self::Multi(_) => RolloutSubject::MultiClusterService(self.name()),
        }
    }

    /// The newest revision of its services, once the engine numbered them.
    pub(super) fn revision(self) -> Option<i64> {
        match self {
            Self::Template(t) => t.status.as_ref()?.revision,
            Self::Multi(m) => m.status.as_ref()?.revision,
        }
    }

    /// Its rollout policy: the stated one, else the default.
    pub(super) fn policy(self) -> RolloutPolicy {
        match self {
            Self::Template(t) => t.spec.rollout.clone(),
            Self::Multi(m) => m.spec.rollout.clone(),
        }
        .unwrap_or_default()
    }

    /// The label its rollouts carry, naming it.
    pub(super) fn label(self) -> &'static str {
        match self {
            Self::Template(_) => labels::CLUSTER_TEMPLATE,
            Self::Multi(_) => labels::MULTI_CLUSTER_SERVICE,
        }
    }

    pub(super) fn owner_reference(self) -> Option<OwnerReference> {
        match self {
            Self::Template(t) => t.controller_owner_ref(&()),
            Self::Multi(m) => m.controller_owner_ref(&()),
        }
    }

    /// Tells it an Event.
    pub(super) fn event(self, ctx: &Context, warning: bool, reason: &str, note: String) {
        match self {
            Self::Template(t) => ctx.event(t, warning, reason, note),
            Self::Multi(m) => ctx.event(m, warning, reason, note),
        }
    }

    /// The clusters its services reach: those made from the template, or
    /// those of the namespace the MultiClusterService selects.
    pub(super) fn clusters(self, ctx: &Context) -> Vec<Arc<ManagedCluster>> {
        let ns = self.namespace();
        let in_ns = |c: &ManagedCluster| c.namespace().as_deref() == Some(ns.as_str());
        match self {
            Self::Template(t) => ctx
                .stores
                .managed_clusters
                .state_filter(|c| in_ns(c) && c.spec.template == t.name_any()),
            Self::Multi(m) => ctx.stores.managed_clusters.state_filter(|c| {
                in_ns(c) && selects(&m.spec.cluster_selector, c.labels()).unwrap_or(false)
            }),
        }
    }

    /// The revision of its services `mc` is given now.
    pub(super) fn given(self, mc: &ManagedCluster) -> Option<i64> {
        let status = mc.status.as_ref()?;
        match self {
            Self::Template(_) => status.target_revision,
            Self::Multi(m) => status.multi_cluster_service(&m.name_any())?.target_revision,
        }
    }

    /// The clusters a rollout of `revision` reaches, of `clusters`.
    pub(super) fn candidates(
        self,
        clusters: &[Arc<ManagedCluster>],
        revision: i64,
    ) -> Vec<Candidate> {
        candidates_given(
            clusters.iter().map(|c| (c.as_ref(), self.given(c))),
            Some(revision),
        )
    }

    /// What each cluster reports, in the rollout's terms, and for a
    /// MultiClusterService the clusters of its rollout (`status`) that are
    /// still there but no longer selected, as having left (their rollout
    /// skips them). Looked up by name: no second pass over the store.
    pub(super) fn health_of(
        self,
        ctx: &Context,
        clusters: &[Arc<ManagedCluster>],
        status: &TemplateRolloutStatus,
    ) -> BTreeMap<String, Health> {
        let mut out: BTreeMap<String, Health> = clusters
            .iter()
            .filter(|c| c.meta().deletion_timestamp.is_none())
            .map(|c| {
                let health = match self {
                    Self::Template(_) => health(c.status.as_ref()),
                    Self::Multi(m) => multi_health(c.status.as_ref(), &m.name_any()),
                };
                (c.name_any(), health)
            })
            .collect();
        if let Self::Multi(_) = self {
            let ns = self.namespace();
            for listed in &status.clusters {
                let present = get(&ctx.stores.managed_clusters, &ns, &listed.name)
                    .is_some_and(|c| c.meta().deletion_timestamp.is_none());
                if present && !out.contains_key(&listed.name) {
                    out.insert(
                        listed.name.clone(),
                        Health {
                            left: Some("no longer selected by the MultiClusterService"),
                            ..Health::default()
                        },
                    );
                }
            }
        }
        out
    }

    /// Per cluster, what `revision` changes; clusters with the same change
    /// grouped.
    pub(super) fn preview(
        self,
        ctx: &Context,
        revision: i64,
        clusters: &[Arc<ManagedCluster>],
        candidates: &[Candidate],
    ) -> Vec<PreviewGroup> {
        let ns = self.namespace();
        let templates = ctx
            .stores
            .service_templates
            .state_filter(|s| s.namespace().as_deref() == Some(ns.as_str()));
        let lookup = |n: &str| {
            templates
                .iter()
                .find(|s| s.metadata.name.as_deref() == Some(n))
                .map(|s| s.as_ref())
        };
        let version = |n: &str| {
            lookup(n).and_then(|s| {
                s.status
                    .as_ref()
                    .and_then(|st| st.chart_version.clone())
                    .or_else(|| s.spec.helm.chart_version.clone())
            })
        };
        let everyone = ctx
            .stores
            .multi_cluster_services
            .state_filter(|m| m.namespace().as_deref() == Some(ns.as_str()));
        let changes = candidates
            .iter()
            .filter_map(|cand| {
                let mc = clusters.iter().find(|c| c.name_any() == cand.name)?;
                let capi = get(&ctx.stores.capi_clusters, &ns, &cand.name);
                let data = ValuesData::of(mc, capi.as_deref());
                let (old, new) = match self {
                    // With the MultiClusterServices as the cluster has them:
                    // a service one of them wins is no change of the template.
                    Self::Template(ct) => {
                        let new_spec = ct.spec_at(revision)?;
                        let given = given_multi_cluster_services(ctx, mc, &everyone);
                        let mcss: Vec<&MultiClusterService> =
                            given.iter().map(|g| g.at_revision.as_ref()).collect();
                        let new = plan_with(&new_spec, mc, &mcss, &data, |n| lookup(n));
                        let old = match cand.revision.and_then(|r| ct.spec_at(r)) {
                            Some(old_spec) => plan_with(&old_spec, mc, &mcss, &data, |n| lookup(n)),
                            None => Vec::new(),
                        };
                        (old, new)
                    }
                    Self::Multi(m) => {
                        let new_multi = m.at_revision(revision)?;
                        let template = get(&ctx.stores.cluster_templates, &ns, &mc.spec.template)?;
                        let own = given_revision(ctx, mc, &template).1?;
                        let given = given_multi_cluster_services(ctx, mc, &everyone);
                        let name = m.name_any();
                        let with = |this| -> Vec<&MultiClusterService> {
                            given
                                .iter()
                                .map(|g| match g.at_revision.name_any() == name {
                                    true => this,
                                    false => g.at_revision.as_ref(),
                                })
                                .collect()
                        };
                        let old_multi = given
                            .iter()
                            .find(|g| g.at_revision.name_any() == name)?
                            .at_revision
                            .as_ref();
                        let old = plan_with(&own, mc, &with(old_multi), &data, |n| lookup(n));
                        let new = plan_with(&own, mc, &with(&new_multi), &data, |n| lookup(n));
                        (old, new)
                    }
                };
                Some((cand.name.clone(), service_changes(&old, &new, version)))
            })
            .collect();
        preview_groups(changes)
    }
}

/// The services of `mc`, its template's being `own` and its
/// MultiClusterServices `mcss`.
fn plan_with<'t>(
    own: &'t ClusterTemplateSpec,
    mc: &'t ManagedCluster,
    mcss: &[&'t MultiClusterService],
    data: &ValuesData,
    lookup: impl Fn(&str) -> Option<&'t ServiceTemplate>,
) -> Vec<ServicePlan> {
    let selected = sources_of(&own.services, mc, mcss);
    plan_services_selected(
        own,
        &mc.spec,
        (data, &selected),
        lookup,
        &mut ParsedValues::default(),
        true,
    )
}

/// What one cluster's status says, in a template rollout's terms (read in
/// place: a rollout looks at every cluster of its template).
pub(super) fn health(st: Option<&ManagedClusterStatus>) -> Health {
    let Some(st) = st else {
        return Health::default();
    };
    Health {
        target: st.target_revision,
        good: st.revision,
        provisioned: provisioned(st),
        failed: st
            .services
            .iter()
            .find(|s| s.state == ServiceState::Failed)
            .map(line),
        blocker: st
            .services
            .iter()
            .find(|s| s.state != ServiceState::Installed)
            .map(line),
        left: None,
    }
}

/// What one cluster's status says of MultiClusterService `name`'s
/// services, in its rollout's terms: only the services it gives there count.
pub(super) fn multi_health(st: Option<&ManagedClusterStatus>, name: &str) -> Health {
    let Some(st) = st else {
        return Health::default();
    };
    let Some(given) = st.multi_cluster_service(name) else {
        return Health {
            provisioned: provisioned(st),
            ..Health::default()
        };
    };
    let its = || {
        st.services
            .iter()
            .filter(|s| given.services.contains(&s.name))
    };
    Health {
        target: given.target_revision,
        good: given.revision,
        provisioned: provisioned(st),
        failed: its().find(|s| s.state == ServiceState::Failed).map(line),
        blocker: its().find(|s| s.state != ServiceState::Installed).map(line),
        left: None,
    }
}

fn provisioned(st: &ManagedClusterStatus) -> bool {
    st.conditions
        .iter()
        .any(|k| k.type_ == CLUSTER_READY && k.status == "True")
}

fn line(s: &ServiceStatus) -> String {
    match &s.message {
        Some(m) => format!("{}: {m}", s.name),
        None => format!("{}: {}", s.name, s.state),
    }
}
