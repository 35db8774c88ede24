//! The snapshot: what the console shows, read from the stores in one go.

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::api::events::v1::Event;

use crate::api::{
    ClusterTemplate, ManagedCluster, MultiClusterService, ServiceTemplate, TemplateRollout,
};
use crate::capi;
use crate::tui::model::events;
use crate::tui::model::key::{Kind, KubeContext, Obj, ObjKey};
use crate::tui::model::pending::{PendingRevision, pending_revisions};
use crate::tui::model::usage::{pending_usage, usage};

/// What the console shows, read from the stores in one go: sorted by
/// namespace and name, with the counts the screens need.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub clusters: Vec<Obj<ManagedCluster>>,
    pub cluster_templates: Vec<Obj<ClusterTemplate>>,
    pub service_templates: Vec<Obj<ServiceTemplate>>,
    /// By namespace and template, the newest revision first.
    pub rollouts: Vec<Obj<TemplateRollout>>,
    /// The engine's Events, the last seen first.
    pub events: Vec<Obj<Event>>,
    /// How many clusters use each template: a ServiceTemplate counts the
    /// clusters whose given revision runs it.
    pub usage: HashMap<ObjKey, usize>,
    /// How many clusters a moving rollout is yet to give a ServiceTemplate.
    pub pending_usage: HashMap<ObjKey, usize>,
    /// By cluster: the revision a moving rollout is to give it.
    pub pending: HashMap<ObjKey, PendingRevision>,
    /// The kinds whose first full list has not arrived yet: the lists show
    /// what has (their first page), and say how much that is.
    pub loading: Vec<(Kind, Loading)>,
    /// Something of the kinds shown has arrived (a first page or a whole
    /// list): the screens can be drawn.
    pub arrived: bool,
    /// The contexts its objects were read from, in the console's order:
    /// one, unless it merged several.
    pub contexts: Vec<KubeContext>,
    /// Cluster API's Clusters, which values templates read: the merged
    /// values a screen shows are each cluster's own.
    pub capi_clusters: Vec<Obj<capi::Cluster>>,
    /// The MultiClusterServices: the services they give a cluster are in
    /// its merged values and its impact.
    pub multi_cluster_services: Vec<Obj<MultiClusterService>>,
}

/// How much of a kind's first list the console has while it loads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Loading {
    /// Objects at hand (of the namespace shown).
    pub shown: usize,
    /// How many the list holds in all, when the API server said
    /// (`remainingItemCount` of the first page).
    pub total: Option<usize>,
}

/// The kinds still loading in any of the contexts `first` and `rest`: a
/// context on its first list counts what it has and what its first page
/// said; a context that has listed the kind counts all it holds, as both.
fn merged_loading(first: &Snapshot, rest: &[Snapshot]) -> Vec<(Kind, Loading)> {
    let parts = || std::iter::once(first).chain(rest);
    let mut kinds: Vec<Kind> = Vec::new();
    for (kind, _) in parts().flat_map(|p| &p.loading) {
        if !kinds.contains(kind) {
            kinds.push(*kind);
        }
    }
    kinds
        .into_iter()
        .map(|kind| {
            let each = parts().map(|p| {
                p.loading_of(kind).unwrap_or_else(|| {
                    let n = p.count_of(kind);
                    Loading {
                        shown: n,
                        total: Some(n),
                    }
                })
            });
            let all = each.fold(
                Loading {
                    shown: 0,
                    total: Some(0),
                },
                |all, l| Loading {
                    shown: all.shown + l.shown,
                    total: all.total.zip(l.total).map(|(a, b)| a + b),
                },
            );
            (kind, all)
        })
        .collect()
}

/// The object of `context` named `namespace/name` in `v`.
fn find<'a, K: kube::Resource>(
    v: &'a [Obj<K>],
    context: &KubeContext,
    namespace: &str,
    name: &str,
) -> Option<&'a Obj<K>> {
    v.iter().find(|o| {
        o.context == *context
            && o.meta().namespace.as_deref() == Some(namespace)
            && o.meta().name.as_deref() == Some(name)
    })
}

fn in_context<'a, K>(v: &'a [Obj<K>], context: &KubeContext) -> Vec<&'a Obj<K>> {
    v.iter().filter(|o| o.context == *context).collect()
}

/// By namespace and template, the newest revision first.
fn sort_rollouts(rollouts: &mut [Obj<TemplateRollout>]) {
    rollouts.sort_by(|a, b| {
        let key = |r: &Obj<TemplateRollout>| {
            (
                r.metadata.namespace.clone(),
                r.spec.template.clone(),
                r.context.clone(),
                std::cmp::Reverse(r.spec.revision),
            )
        };
        key(a).cmp(&key(b))
    });
}

fn sort_by_key<K: kube::Resource>(v: &mut [Obj<K>]) {
    v.sort_by(|a, b| {
        (a.meta().namespace.as_deref(), a.meta().name.as_deref())
            .cmp(&(b.meta().namespace.as_deref(), b.meta().name.as_deref()))
            .then_with(|| a.context.cmp(&b.context))
    });
}

/// Tags the objects of one context.
fn tagged<K>(context: &KubeContext, objects: Vec<Arc<K>>) -> Vec<Obj<K>> {
    objects.into_iter().map(|o| Obj::new(context, o)).collect()
}

impl Snapshot {
    /// The snapshot of objects of no context in particular (a console on
    /// one context, a test).
    pub fn new(
        clusters: Vec<Arc<ManagedCluster>>,
        cluster_templates: Vec<Arc<ClusterTemplate>>,
        service_templates: Vec<Arc<ServiceTemplate>>,
    ) -> Snapshot {
        Snapshot::of(
            &KubeContext::default(),
            clusters,
            cluster_templates,
            service_templates,
        )
    }

    /// The snapshot of `context`'s objects.
    pub fn of(
        context: &KubeContext,
        clusters: Vec<Arc<ManagedCluster>>,
        cluster_templates: Vec<Arc<ClusterTemplate>>,
        service_templates: Vec<Arc<ServiceTemplate>>,
    ) -> Snapshot {
        let mut snapshot = Snapshot::tagged(
            tagged(context, clusters),
            tagged(context, cluster_templates),
            tagged(context, service_templates),
        );
        snapshot.contexts = vec![context.clone()];
        snapshot
    }

    fn tagged(
        mut clusters: Vec<Obj<ManagedCluster>>,
        mut cluster_templates: Vec<Obj<ClusterTemplate>>,
        mut service_templates: Vec<Obj<ServiceTemplate>>,
    ) -> Snapshot {
        sort_by_key(&mut clusters);
        sort_by_key(&mut cluster_templates);
        sort_by_key(&mut service_templates);
        let usage = usage(&clusters, &cluster_templates);
        Snapshot {
            clusters,
            cluster_templates,
            service_templates,
            rollouts: Vec::new(),
            events: Vec::new(),
            usage,
            pending_usage: HashMap::new(),
            pending: HashMap::new(),
            loading: Vec::new(),
            arrived: true,
            contexts: Vec::new(),
            capi_clusters: Vec::new(),
            multi_cluster_services: Vec::new(),
        }
    }

    /// The same snapshot, with `loading` the kinds still on their first
    /// list; `arrived` once something of the kinds shown is at hand.
    pub fn loading(mut self, loading: Vec<(Kind, Loading)>, arrived: bool) -> Snapshot {
        self.loading = loading;
        self.arrived = arrived;
        self
    }

    /// The snapshots of several contexts as one: their objects side by
    /// side (the same order by namespace and name, then context), each
    /// context's counts as it worked them out, and a kind loading while
    /// any context is still on its first list.
    pub fn merge(parts: Vec<Snapshot>) -> Snapshot {
        let mut parts = parts.into_iter();
        let Some(mut all) = parts.next() else {
            return Snapshot::default();
        };
        let mut parts = parts.peekable();
        // One context: already in order.
        if parts.peek().is_none() {
            return all;
        }
        let parts: Vec<Snapshot> = parts.collect();
        all.loading = merged_loading(&all, &parts);
        for part in parts {
            all.contexts.extend(part.contexts);
            all.clusters.extend(part.clusters);
            all.cluster_templates.extend(part.cluster_templates);
            all.service_templates.extend(part.service_templates);
            all.rollouts.extend(part.rollouts);
            all.events.extend(part.events);
            all.usage.extend(part.usage);
            all.pending_usage.extend(part.pending_usage);
            all.pending.extend(part.pending);
            all.capi_clusters.extend(part.capi_clusters);
            all.multi_cluster_services
                .extend(part.multi_cluster_services);
            all.arrived |= part.arrived;
        }
        sort_by_key(&mut all.clusters);
        sort_by_key(&mut all.cluster_templates);
        sort_by_key(&mut all.service_templates);
        sort_by_key(&mut all.multi_cluster_services);
        sort_rollouts(&mut all.rollouts);
        events::sort(&mut all.events);
        all
    }

    /// The context of a snapshot of one (the first, merged).
    fn context(&self) -> KubeContext {
        self.contexts.first().cloned().unwrap_or_default()
    }

    /// Whether it shows more than one context: the lists say which each
    /// row is of, and the questions before a write name it.
    pub fn several_contexts(&self) -> bool {
        self.contexts.len() > 1
    }

    /// The clusters of `context`.
    pub fn clusters_in(&self, context: &KubeContext) -> Vec<&Obj<ManagedCluster>> {
        in_context(&self.clusters, context)
    }

    /// The ClusterTemplates of `context`.
    pub fn cluster_templates_in(&self, context: &KubeContext) -> Vec<&Obj<ClusterTemplate>> {
        in_context(&self.cluster_templates, context)
    }

    /// How many objects of `kind` it holds.
    pub fn count_of(&self, kind: Kind) -> usize {
        match kind {
            Kind::ManagedCluster => self.clusters.len(),
            Kind::ClusterTemplate => self.cluster_templates.len(),
            Kind::ServiceTemplate => self.service_templates.len(),
            Kind::TemplateRollout => self.rollouts.len(),
            Kind::MultiClusterService => self.multi_cluster_services.len(),
            Kind::Event => self.events.len(),
        }
    }

    /// How far `kind`'s first list has got; `None` once it is complete.
    pub fn loading_of(&self, kind: Kind) -> Option<Loading> {
        self.loading
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, l)| *l)
    }

    /// The same snapshot with these Events.
    pub fn with_events(mut self, events: Vec<Arc<Event>>) -> Snapshot {
        let mut events = tagged(&self.context(), events);
        events::sort(&mut events);
        self.events = events;
        self
    }

    /// The same snapshot with these Cluster API Clusters.
    pub fn with_capi_clusters(mut self, clusters: Vec<Arc<capi::Cluster>>) -> Snapshot {
        self.capi_clusters = tagged(&self.context(), clusters);
        self
    }

    /// The same snapshot with these MultiClusterServices.
    pub fn with_multi_cluster_services(
        mut self,
        services: Vec<Arc<MultiClusterService>>,
    ) -> Snapshot {
        let mut services = tagged(&self.context(), services);
        sort_by_key(&mut services);
        self.multi_cluster_services = services;
        self
    }

    /// The MultiClusterService of `context` named `namespace/name`.
    pub fn multi_cluster_service(
        &self,
        context: &KubeContext,
        namespace: &str,
        name: &str,
    ) -> Option<&Obj<MultiClusterService>> {
        find(&self.multi_cluster_services, context, namespace, name)
    }

    /// The MultiClusterServices of `namespace` in `context`.
    pub fn multi_cluster_services_in(
        &self,
        context: &KubeContext,
        namespace: &str,
    ) -> Vec<&MultiClusterService> {
        self.multi_cluster_services
            .iter()
            .filter(|m| m.context == *context && m.metadata.namespace.as_deref() == Some(namespace))
            .map(|m| &**m)
            .collect()
    }

    /// Cluster API's Cluster of the ManagedCluster `name` (they share the
    /// name and namespace), of `context`.
    pub fn capi_cluster(
        &self,
        context: &KubeContext,
        namespace: &str,
        name: &str,
    ) -> Option<&capi::Cluster> {
        self.capi_clusters
            .iter()
            .find(|c| {
                c.context == *context
                    && c.metadata.namespace.as_deref() == Some(namespace)
                    && c.metadata.name.as_deref() == Some(name)
            })
            .map(|c| &**c)
    }

    /// The same snapshot with these rollouts.
    pub fn with_rollouts(mut self, rollouts: Vec<Arc<TemplateRollout>>) -> Snapshot {
        let mut rollouts = tagged(&self.context(), rollouts);
        sort_rollouts(&mut rollouts);
        self.pending = pending_revisions(&self.clusters, &rollouts);
        self.pending_usage = pending_usage(&self.clusters, &self.cluster_templates, &self.pending);
        self.rollouts = rollouts;
        self
    }

    pub fn rollout(
        &self,
        context: &KubeContext,
        namespace: &str,
        name: &str,
    ) -> Option<&Obj<TemplateRollout>> {
        find(&self.rollouts, context, namespace, name)
    }

    pub fn cluster(
        &self,
        context: &KubeContext,
        namespace: &str,
        name: &str,
    ) -> Option<&Obj<ManagedCluster>> {
        find(&self.clusters, context, namespace, name)
    }

    pub fn cluster_template(
        &self,
        context: &KubeContext,
        namespace: &str,
        name: &str,
    ) -> Option<&Obj<ClusterTemplate>> {
        find(&self.cluster_templates, context, namespace, name)
    }

    pub fn service_template(
        &self,
        context: &KubeContext,
        namespace: &str,
        name: &str,
    ) -> Option<&Obj<ServiceTemplate>> {
        find(&self.service_templates, context, namespace, name)
    }

    /// The YAML of an object, without managedFields.
    pub fn yaml(&self, key: &ObjKey) -> Option<String> {
        fn find<K: kube::Resource + serde::Serialize + Clone>(
            v: &[Obj<K>],
            key: &ObjKey,
        ) -> Option<String> {
            let obj = v.iter().find(|o| key.names(o))?;
            let mut obj = K::clone(obj);
            obj.meta_mut().managed_fields = None;
            Some(
                serde_yaml::to_string(&obj)
                    .unwrap_or_else(|e| format!("# cannot show this object as YAML: {e}\n")),
            )
        }
        match key.kind {
            Kind::ManagedCluster => find(&self.clusters, key),
            Kind::ClusterTemplate => find(&self.cluster_templates, key),
            Kind::ServiceTemplate => find(&self.service_templates, key),
            Kind::TemplateRollout => find(&self.rollouts, key),
            Kind::MultiClusterService => find(&self.multi_cluster_services, key),
            Kind::Event => find(&self.events, key),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::sample::sample;

    /// Two contexts holding a cluster of the same namespace and name: the
    /// merge keeps both, finds each in its own context and counts the
    /// template's use per context.
    #[test]
    fn a_merge_keeps_the_same_name_of_two_contexts_apart() {
        let s = sample();
        let mc = s
            .cluster(&KubeContext::default(), "hmc-system", "prod-eu-1")
            .unwrap();
        let ct = s
            .cluster_template(&KubeContext::default(), "hmc-system", &mc.spec.template)
            .unwrap();
        let a: KubeContext = "mgmt-a".into();
        let b: KubeContext = "mgmt-b".into();
        let of = |ctx: &KubeContext| {
            Snapshot::of(
                ctx,
                vec![mc.object.clone()],
                vec![ct.object.clone()],
                vec![],
            )
        };
        let one = of(&a);
        assert!(!one.several_contexts());
        let data = Snapshot::merge(vec![one, of(&b)]);
        assert_eq!(data.contexts, [a.clone(), b.clone()]);
        assert!(data.several_contexts());
        assert_eq!(data.clusters.len(), 2);
        assert_eq!(data.cluster_templates.len(), 2);
        for ctx in [&a, &b] {
            let found = data.cluster(ctx, "hmc-system", "prod-eu-1").unwrap();
            assert_eq!(found.context, *ctx);
            assert!(Arc::ptr_eq(&found.object, &mc.object));
            assert_eq!(data.clusters_in(ctx).len(), 1);
            assert_eq!(data.clusters_in(ctx)[0].context, *ctx);
            assert_eq!(data.cluster_templates_in(ctx).len(), 1);
            let uses = ObjKey::new(ctx, Kind::ClusterTemplate, "hmc-system", &mc.spec.template);
            assert_eq!(data.usage.get(&uses), Some(&1), "{ctx}");
        }
        // Nothing of the empty context is left in the merge.
        assert!(
            data.cluster(&KubeContext::default(), "hmc-system", "prod-eu-1")
                .is_none()
        );
        let none = ObjKey::new(
            &KubeContext::default(),
            Kind::ClusterTemplate,
            "hmc-system",
            &mc.spec.template,
        );
        assert_eq!(data.usage.get(&none), None);
    }

    /// One context has listed its clusters, another is on its first page:
    /// the merge is loading, and counts the listed context whole.
    #[test]
    fn a_context_that_listed_counts_whole_beside_one_loading() {
        let s = sample();
        let clusters: Vec<_> = s.clusters.iter().map(|c| c.object.clone()).collect();
        let n = clusters.len();
        let listed = Snapshot::of(&"a".into(), clusters.clone(), vec![], vec![]);
        let paged = Snapshot::of(&"b".into(), clusters, vec![], vec![]).loading(
            vec![(
                Kind::ManagedCluster,
                Loading {
                    shown: n,
                    total: Some(500),
                },
            )],
            true,
        );
        let data = Snapshot::merge(vec![listed, paged]);
        assert_eq!(
            data.loading_of(Kind::ManagedCluster),
            Some(Loading {
                shown: 2 * n,
                total: Some(n + 500),
            })
        );
        assert_eq!(data.loading_of(Kind::ClusterTemplate), None);
    }
}
