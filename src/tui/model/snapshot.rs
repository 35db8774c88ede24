//! The snapshot: what the console shows, read from the stores in one go.

use std::collections::HashMap;
use std::sync::Arc;

use k8s_openapi::api::events::v1::Event;
use kube::ResourceExt;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, TemplateRollout};
use crate::tui::model::events;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::pending::{PendingRevision, pending_revisions};
use crate::tui::model::usage::{pending_usage, usage};

/// What the console shows, read from the stores in one go: sorted by
/// namespace and name, with the counts the screens need.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub clusters: Vec<Arc<ManagedCluster>>,
    pub cluster_templates: Vec<Arc<ClusterTemplate>>,
    pub service_templates: Vec<Arc<ServiceTemplate>>,
    /// By namespace and template, the newest revision first.
    pub rollouts: Vec<Arc<TemplateRollout>>,
    /// The engine's Events, the last seen first.
    pub events: Vec<Arc<Event>>,
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

fn sort_by_key<K: kube::Resource>(v: &mut [Arc<K>]) {
    v.sort_by(|a, b| {
        (a.meta().namespace.as_deref(), a.meta().name.as_deref())
            .cmp(&(b.meta().namespace.as_deref(), b.meta().name.as_deref()))
    });
}

impl Snapshot {
    pub fn new(
        mut clusters: Vec<Arc<ManagedCluster>>,
        mut cluster_templates: Vec<Arc<ClusterTemplate>>,
        mut service_templates: Vec<Arc<ServiceTemplate>>,
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
        }
    }

    /// The same snapshot, with `loading` the kinds still on their first
    /// list; `arrived` once something of the kinds shown is at hand.
    pub fn loading(mut self, loading: Vec<(Kind, Loading)>, arrived: bool) -> Snapshot {
        self.loading = loading;
        self.arrived = arrived;
        self
    }

    /// How many objects of `kind` it holds.
    pub fn count_of(&self, kind: Kind) -> usize {
        match kind {
            Kind::ManagedCluster => self.clusters.len(),
            Kind::ClusterTemplate => self.cluster_templates.len(),
            Kind::ServiceTemplate => self.service_templates.len(),
            Kind::TemplateRollout => self.rollouts.len(),
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
    pub fn with_events(mut self, mut events: Vec<Arc<Event>>) -> Snapshot {
        events::sort(&mut events);
        self.events = events;
        self
    }

    /// The same snapshot with these rollouts.
    pub fn with_rollouts(mut self, mut rollouts: Vec<Arc<TemplateRollout>>) -> Snapshot {
        rollouts.sort_by(|a, b| {
            let key = |r: &TemplateRollout| {
                (
                    r.metadata.namespace.clone(),
                    r.spec.template.clone(),
                    std::cmp::Reverse(r.spec.revision),
                )
            };
            key(a).cmp(&key(b))
        });
        self.pending = pending_revisions(&self.clusters, &rollouts);
        self.pending_usage = pending_usage(&self.clusters, &self.cluster_templates, &self.pending);
        self.rollouts = rollouts;
        self
    }

    pub fn rollout(&self, namespace: &str, name: &str) -> Option<&Arc<TemplateRollout>> {
        self.rollouts
            .iter()
            .find(|r| r.metadata.namespace.as_deref() == Some(namespace) && r.name_any() == name)
    }

    pub fn cluster(&self, namespace: &str, name: &str) -> Option<&Arc<ManagedCluster>> {
        self.clusters
            .iter()
            .find(|c| c.metadata.namespace.as_deref() == Some(namespace) && c.name_any() == name)
    }

    pub fn cluster_template(&self, namespace: &str, name: &str) -> Option<&Arc<ClusterTemplate>> {
        self.cluster_templates
            .iter()
            .find(|t| t.metadata.namespace.as_deref() == Some(namespace) && t.name_any() == name)
    }

    pub fn service_template(&self, namespace: &str, name: &str) -> Option<&Arc<ServiceTemplate>> {
        self.service_templates
            .iter()
            .find(|t| t.metadata.namespace.as_deref() == Some(namespace) && t.name_any() == name)
    }

    /// The YAML of an object, without managedFields.
    pub fn yaml(&self, key: &ObjKey) -> Option<String> {
        fn find<K: kube::Resource + serde::Serialize + Clone>(
            v: &[Arc<K>],
            key: &ObjKey,
        ) -> Option<String> {
            let obj = v.iter().find(|o| {
                o.meta().namespace.as_deref().unwrap_or_default() == key.namespace
                    && o.meta().name.as_deref() == Some(&key.name)
            })?;
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
            Kind::Event => find(&self.events, key),
        }
    }
}
