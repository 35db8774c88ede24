//! How many clusters use each template: a ClusterTemplate counts the
//! clusters made from it; a ServiceTemplate the clusters that run it at the
//! revision they are given, and apart, the clusters a moving rollout is yet
//! to give it (`1 +1 pending` while 4-11-3 gives way to 4-11-4).

use kube::ResourceExt;
use std::collections::HashMap;

use crate::api::{ClusterTemplate, ManagedCluster, TemplateService};
use crate::plan::services::service_templates_of;
use crate::tui::model::key::{Kind, KubeContext, Obj, ObjKey};
use crate::tui::model::pending::PendingRevision;

fn template_of<'a>(
    mc: &Obj<ManagedCluster>,
    templates: &'a [Obj<ClusterTemplate>],
) -> Option<&'a ClusterTemplate> {
    let ns = mc.metadata.namespace.as_deref();
    templates
        .iter()
        .find(|t| {
            t.context == mc.context
                && t.metadata.namespace.as_deref() == ns
                && t.metadata.name.as_deref() == Some(mc.spec.template.as_str())
        })
        .map(AsRef::as_ref)
}

/// The template's services at `revision`, if it remembers them; its
/// current services when no revision is given.
fn services_at(template: Option<&ClusterTemplate>, revision: Option<i64>) -> &[TemplateService] {
    let Some(t) = template else {
        return &[];
    };
    let remembered = revision.and_then(|r| t.status.as_ref()?.services_at(r));
    remembered.unwrap_or(&t.spec.services)
}

/// The ServiceTemplates a cluster runs at `revision`, each once.
fn service_templates<'a>(
    mc: &'a ManagedCluster,
    template: Option<&'a ClusterTemplate>,
    revision: Option<i64>,
) -> Vec<&'a str> {
    let mut used = service_templates_of(services_at(template, revision), &mc.spec.services);
    used.sort_unstable();
    used.dedup();
    used
}

fn key(kind: Kind, mc: &Obj<ManagedCluster>, name: &str) -> ObjKey {
    ObjKey::new(&mc.context, kind, &mc.namespace().unwrap_or_default(), name)
}

/// How many clusters use each template now: a ServiceTemplate counts
/// where the revision a cluster is given has it. Counted under borrowed
/// names, each key made once.
pub fn usage(
    clusters: &[Obj<ManagedCluster>],
    templates: &[Obj<ClusterTemplate>],
) -> HashMap<ObjKey, usize> {
    let mut counts: HashMap<(&KubeContext, Kind, &str, &str), usize> = HashMap::new();
    for mc in clusters {
        let ns = mc.metadata.namespace.as_deref().unwrap_or_default();
        let ctx = &mc.context;
        *counts
            .entry((ctx, Kind::ClusterTemplate, ns, &mc.spec.template))
            .or_default() += 1;
        let given = mc.status.as_ref().and_then(|s| s.target_revision);
        for st in service_templates(mc, template_of(mc, templates), given) {
            *counts
                .entry((ctx, Kind::ServiceTemplate, ns, st))
                .or_default() += 1;
        }
    }
    counts
        .into_iter()
        .map(|((context, kind, namespace, name), n)| {
            (ObjKey::new(context, kind, namespace, name), n)
        })
        .collect()
}

/// How many clusters a moving rollout is yet to give each ServiceTemplate:
/// those waiting for their wave whose pending revision has a template the
/// revision they are given has not.
pub fn pending_usage(
    clusters: &[Obj<ManagedCluster>],
    templates: &[Obj<ClusterTemplate>],
    pending: &HashMap<ObjKey, PendingRevision>,
) -> HashMap<ObjKey, usize> {
    let mut out: HashMap<ObjKey, usize> = HashMap::new();
    if pending.is_empty() {
        return out;
    }
    for mc in clusters {
        let Some(p) = pending
            .get(&ObjKey::of(Kind::ManagedCluster, mc))
            .filter(|p| p.waits())
        else {
            continue;
        };
        let template = template_of(mc, templates);
        let given = mc.status.as_ref().and_then(|s| s.target_revision);
        if given.is_none() || template.is_none() || given == Some(p.to) {
            continue;
        }
        let now = service_templates(mc, template, given);
        let remembered = template
            .and_then(|t| t.status.as_ref())
            .is_some_and(|s| s.services_at(p.to).is_some());
        if !remembered {
            continue;
        }
        for st in service_templates(mc, template, Some(p.to)) {
            if !now.contains(&st) {
                *out.entry(key(Kind::ServiceTemplate, mc, st)).or_default() += 1;
            }
        }
    }
    out
}

/// The IN USE cell: `2`, or `1 +1 pending`.
pub fn in_use(used: usize, pending: usize) -> String {
    if pending == 0 {
        used.to_string()
    } else {
        format!("{used} +{pending} pending")
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::tui::fixtures::rolling::rolling;

    fn st(name: &str) -> ObjKey {
        ObjKey {
            context: Default::default(),
            kind: Kind::ServiceTemplate,
            namespace: "demo".into(),
            name: name.into(),
        }
    }

    /// From 4-11-3 to 4-11-4, dev-1 updated, dev-2 waiting for wave 2.
    #[test]
    fn counts_what_clusters_run_and_what_is_pending() {
        let data = rolling();
        assert_eq!(data.usage.get(&st("ingress-nginx-4-11-3")), Some(&1));
        assert_eq!(data.usage.get(&st("ingress-nginx-4-11-4")), Some(&1));
        assert_eq!(
            data.pending_usage.get(&st("ingress-nginx-4-11-4")),
            Some(&1)
        );
        assert_eq!(data.pending_usage.get(&st("ingress-nginx-4-11-3")), None);
        let ct = ObjKey {
            context: Default::default(),
            kind: Kind::ClusterTemplate,
            namespace: "demo".into(),
            name: "demo-cluster".into(),
        };
        assert_eq!(data.usage.get(&ct), Some(&2));
        assert_eq!(in_use(1, 1), "1 +1 pending");
        assert_eq!(in_use(2, 0), "2");
    }

    /// A cluster not given a revision yet counts the template's services
    /// as they are, with nothing pending.
    #[test]
    fn a_cluster_without_a_given_revision_counts_the_current_services() {
        let mut data = rolling();
        for mc in &mut data.clusters {
            Arc::make_mut(&mut mc.object)
                .status
                .as_mut()
                .unwrap()
                .target_revision = None;
        }
        let usage = usage(&data.clusters, &data.cluster_templates);
        assert_eq!(usage.get(&st("ingress-nginx-4-11-4")), Some(&2));
        assert_eq!(usage.get(&st("ingress-nginx-4-11-3")), None);
        let pending = crate::tui::model::pending::pending_revisions(&data.clusters, &data.rollouts);
        assert!(pending_usage(&data.clusters, &data.cluster_templates, &pending).is_empty());
    }
}
