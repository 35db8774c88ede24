//! Planning: what the stores hold for one cluster, and what its template
//! gives it (the template's condition, the revision of its services).

use std::sync::Arc;

use kube::ResourceExt;

use crate::api::conditions::{Cond, TEMPLATE_READY};
use crate::api::{
    ClusterTemplate, ClusterTemplateSpec, ManagedCluster, MultiClusterService, RolloutSubject,
    TemplateRollout, labels,
};
use crate::engine::context::Context;
use crate::engine::templates::services_hash;
use crate::flux::HelmRelease;
use crate::plan::multi_cluster::selects;
use crate::plan::rollout::desired_revision;
use crate::store::get;

/// What one reconcile starts from.
pub(super) struct Given {
    pub(super) ns: String,
    pub(super) name: String,
    /// The cluster's releases, as the store holds them.
    pub(super) existing: Vec<Arc<HelmRelease>>,
    pub(super) template: Option<Arc<ClusterTemplate>>,
    pub(super) template_cond: Cond,
    /// The revision this cluster is given: its own until a rollout reaches it.
    pub(super) revision: Option<i64>,
    /// The template's services at that revision, when it still holds them.
    pub(super) services_spec: Option<ClusterTemplateSpec>,
    pub(super) dry_run: bool,
    /// How many clusters the engine holds: the safety net's looks spread
    /// over more time as the fleet grows (see `status::next_look`).
    pub(super) fleet: usize,
}

impl Given {
    pub(super) fn read(mc: &ManagedCluster, ctx: &Context) -> Self {
        let ns = mc.namespace().unwrap_or_default();
        let name = mc.name_any();
        let existing = releases_of(ctx, &ns, &name);
        let template = get(&ctx.stores.cluster_templates, &ns, &mc.spec.template);
        let dry_run = mc.spec.dry_run;
        let template_cond = template_condition(mc, &ns, template.as_deref());
        let (revision, services_spec) = match &template {
            Some(t) => given_revision(ctx, mc, t),
            None => (None, None),
        };
        Self {
            ns,
            name,
            existing,
            template,
            template_cond,
            revision,
            services_spec,
            dry_run,
            fleet: ctx.stores.managed_clusters.len(),
        }
    }

    /// The cluster's release of this name, if the store has it.
    pub(super) fn find(&self, rel_name: &str) -> Option<Arc<HelmRelease>> {
        self.existing
            .iter()
            .find(|r| r.name_any() == rel_name)
            .cloned()
    }
}

/// The releases of one cluster, from the shared store, found through its
/// index by cluster.
pub(super) fn releases_of(ctx: &Context, ns: &str, cluster: &str) -> Vec<Arc<HelmRelease>> {
    ctx.stores
        .releases_by_cluster
        .names(ns, cluster)
        .iter()
        .filter_map(|name| get(&ctx.stores.releases, ns, name))
        .filter(|r| r.labels().get(labels::CLUSTER).map(String::as_str) == Some(cluster))
        .collect()
}

pub(super) fn is_service(r: &HelmRelease) -> bool {
    r.labels().get(labels::ROLE).map(String::as_str) == Some("service")
}

/// Whether the cluster's template is there and ready.
fn template_condition(mc: &ManagedCluster, ns: &str, template: Option<&ClusterTemplate>) -> Cond {
    match template {
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
    }
}

/// The revision of its template's services a cluster is given now, and
/// those services: what a rollout decided, else what it has, else the newest.
pub(crate) fn given_revision(
    ctx: &Context,
    mc: &ManagedCluster,
    template: &ClusterTemplate,
) -> (Option<i64>, Option<ClusterTemplateSpec>) {
    let Some(status) = template.status.as_ref() else {
        return (None, None);
    };
    let ns = mc.namespace().unwrap_or_default();
    let name = template.name_any();
    let rollout = status
        .revision
        .and_then(|r| rollout_of(ctx, &ns, RolloutSubject::Template(&name), r));
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
            (status.revision, Some(template.spec_now()))
        }
        None => (wanted, None),
    }
}

/// The rollout of `revision` of `subject`'s services, if the store has one
/// by that name that is indeed the subject's.
pub(crate) fn rollout_of(
    ctx: &Context,
    ns: &str,
    subject: RolloutSubject<'_>,
    revision: i64,
) -> Option<Arc<TemplateRollout>> {
    get(&ctx.stores.rollouts, ns, &subject.rollout_name(revision))
        .filter(|r| r.spec.subject() == subject && r.spec.revision == revision)
}

/// A MultiClusterService that selects a cluster, as the cluster plans with
/// it: at the revision of its services the cluster is given.
pub(crate) struct GivenMulti {
    /// The MultiClusterService with its services at `revision`: itself
    /// when its spec is that revision (no copy), else a copy.
    pub(crate) at_revision: Arc<MultiClusterService>,
    /// The revision the cluster is given: what a rollout decided, else what
    /// it has, else the newest. `None` before the engine first numbered
    /// its services (then they are planned as they are).
    pub(crate) revision: Option<i64>,
}

/// The MultiClusterServices of `mcss` (those of the cluster's namespace)
/// that select `mc`, each at the revision of its services `mc` is given.
/// A revision the status no longer holds gives its current services: a
/// cluster is never left without them.
pub(crate) fn given_multi_cluster_services(
    ctx: &Context,
    mc: &ManagedCluster,
    mcss: &[Arc<MultiClusterService>],
) -> Vec<GivenMulti> {
    let ns = mc.namespace().unwrap_or_default();
    let cluster = mc.name_any();
    let no_labels = Default::default();
    let labels = mc.metadata.labels.as_ref().unwrap_or(&no_labels);
    mcss.iter()
        .filter(|m| m.namespace().as_deref() == Some(ns.as_str()))
        .filter(|m| selects(&m.spec.cluster_selector, labels).unwrap_or(false))
        .map(|m| {
            let name = m.name_any();
            let latest = m.status.as_ref().and_then(|s| s.revision);
            let rollout = latest
                .and_then(|r| rollout_of(ctx, &ns, RolloutSubject::MultiClusterService(&name), r));
            let current = mc
                .status
                .as_ref()
                .and_then(|s| s.multi_cluster_service(&name))
                .and_then(|g| g.target_revision);
            let revision = desired_revision(
                latest,
                rollout
                    .as_ref()
                    .and_then(|r| r.status.as_ref().map(|s| (&r.spec, s))),
                &cluster,
                current,
            );
            let at_revision = match revision {
                Some(r) if !m.spec_is_revision(r) => m.at_revision(r).map(Arc::new),
                _ => None,
            }
            .unwrap_or_else(|| m.clone());
            GivenMulti {
                at_revision,
                revision,
            }
        })
        .collect()
}
