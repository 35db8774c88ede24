//! What the screens show, derived from the snapshot. The views draw these; the
//! update navigates them; the filter applies to them.

use k8s_openapi::api::events::v1::Event;
use kube::api::ObjectMeta;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, TemplateRollout};
use crate::tui::model::events;
use crate::tui::model::filter::{Filter, matches};
use crate::tui::model::health::{Health, cluster_ready_ref, services_ready_ref};
use crate::tui::model::hold;
use crate::tui::model::key::{Kind, Obj, ObjKey};
use crate::tui::model::rollouts::{self, BoardRow};
use crate::tui::model::snapshot::Snapshot;

/// A template row: either kind.
#[derive(Clone, Copy, Debug)]
pub enum TemplateRef<'a> {
    Cluster(&'a Obj<ClusterTemplate>),
    Service(&'a Obj<ServiceTemplate>),
}

impl TemplateRef<'_> {
    pub fn key(&self) -> ObjKey {
        match self {
            TemplateRef::Cluster(t) => ObjKey::of(Kind::ClusterTemplate, t),
            TemplateRef::Service(t) => ObjKey::of(Kind::ServiceTemplate, t),
        }
    }

    /// `cluster` or `service`, as the KIND column says.
    pub fn kind(&self) -> &'static str {
        match self {
            TemplateRef::Cluster(_) => "cluster",
            TemplateRef::Service(_) => "service",
        }
    }

    pub fn meta(&self) -> &ObjectMeta {
        match self {
            TemplateRef::Cluster(t) => &t.metadata,
            TemplateRef::Service(t) => &t.metadata,
        }
    }

    pub fn chart_status(&self) -> Option<&crate::api::TemplateStatus> {
        match self {
            TemplateRef::Cluster(t) => t.status.as_ref().map(|s| &s.chart),
            TemplateRef::Service(t) => t.status.as_ref(),
        }
    }

    /// The engine holds the template's chart repository back: why, and
    /// until when.
    pub fn hold(&self) -> Option<&crate::api::SourceHold> {
        self.chart_status()?.source_hold.as_ref()
    }

    /// `true`, `false` or `-` (not checked yet), with its colour.
    pub fn valid(&self) -> (String, Health) {
        match self.chart_status() {
            None => ("-".into(), Health::Pending),
            Some(s) if s.valid => ("true".into(), Health::Ready),
            Some(s) if s.validation_error.is_some() => ("false".into(), Health::Failed),
            Some(_) => ("false".into(), Health::Pending),
        }
    }

    /// Where the template's chart comes from.
    pub fn helm(&self) -> &crate::api::HelmSpec {
        match self {
            TemplateRef::Cluster(t) => &t.spec.helm,
            TemplateRef::Service(t) => &t.spec.helm,
        }
    }

    pub fn chart(&self) -> String {
        self.helm().describe()
    }

    /// The services summary of a ClusterTemplate.
    pub fn services(&self) -> String {
        match self {
            TemplateRef::Cluster(t) => t
                .status
                .as_ref()
                .and_then(|s| s.services_summary.clone())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "-".into()),
            TemplateRef::Service(_) => "-".into(),
        }
    }

    pub fn revision(&self) -> String {
        match self {
            TemplateRef::Cluster(t) => t
                .status
                .as_ref()
                .and_then(|s| s.revision)
                .map_or_else(|| "-".into(), |r| r.to_string()),
            TemplateRef::Service(_) => "-".into(),
        }
    }

    /// The validation error when there is one, else the chart's description.
    pub fn message(&self) -> (String, bool) {
        match self.chart_status() {
            Some(s) if !s.valid && s.validation_error.is_some() => {
                (s.validation_error.clone().unwrap_or_default(), true)
            }
            Some(s) => (s.description.clone().unwrap_or_default(), false),
            None => (String::new(), false),
        }
    }
}

/// The texts of a row of the clusters screen but its age, borrowed from
/// the cluster where they can be: what the screen draws, and what its
/// columns are as wide as.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterTexts<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    /// The `Ready` condition's status, its colour and its message.
    pub ready: &'a str,
    pub health: Health,
    pub message: &'a str,
    pub template: &'a str,
    /// The revision it is given, or where a moving rollout stands with it
    /// (`1→2 ⏸ wave 2`).
    pub revision: String,
    /// The colour of that rollout's mark; `None` for a plain revision.
    pub pending: Option<Health>,
    /// `servicesReady` and its colour.
    pub services: &'a str,
    pub services_health: Health,
}

impl<'a> ClusterTexts<'a> {
    pub fn of(data: &Snapshot, mc: &'a Obj<ManagedCluster>) -> ClusterTexts<'a> {
        let (ready, health, message) = cluster_ready_ref(mc);
        let (services, services_health) = services_ready_ref(mc);
        let pending = if data.pending.is_empty() {
            None
        } else {
            data.pending.get(&ObjKey::of(Kind::ManagedCluster, mc))
        };
        let (revision, pending) = match pending {
            Some(p) => (p.label(), Some(p.health())),
            None => (
                mc.status
                    .as_ref()
                    .and_then(|s| s.revision)
                    .map_or_else(|| "-".to_string(), |r| r.to_string()),
                None,
            ),
        };
        ClusterTexts {
            namespace: mc.metadata.namespace.as_deref().unwrap_or_default(),
            name: mc
                .metadata
                .name
                .as_deref()
                .or(mc.metadata.generate_name.as_deref())
                .unwrap_or_default(),
            ready,
            health,
            message,
            template: &mc.spec.template,
            revision,
            pending,
            services,
            services_health,
        }
    }
}

/// Whether the clusters screen keeps `mc` under `filter`: the filter sees
/// every column but the age.
/// With `several` contexts open, the filter sees the CONTEXT column too.
fn keeps_cluster(filter: &Filter, mc: &Obj<ManagedCluster>, several: bool) -> bool {
    if filter.is_empty() {
        return true;
    }
    let (ready, _, message) = cluster_ready_ref(mc);
    filter.keeps(&[
        if several { &mc.context } else { "" },
        mc.metadata.namespace.as_deref().unwrap_or_default(),
        mc.metadata.name.as_deref().unwrap_or_default(),
        ready,
        &mc.spec.template,
        &mc.status
            .as_ref()
            .and_then(|s| s.revision)
            .map(|r| r.to_string())
            .unwrap_or_default(),
        services_ready_ref(mc).0,
        message,
    ])
}

/// The clusters the clusters screen shows, in the snapshot's order.
pub fn cluster_rows<'a>(data: &'a Snapshot, filter: &str) -> Vec<&'a Obj<ManagedCluster>> {
    let filter = Filter::parse(filter);
    data.clusters
        .iter()
        .filter(|c| keeps_cluster(&filter, c, data.several_contexts()))
        .collect()
}

/// [`cluster_rows`], each with its index in the snapshot.
pub fn indexed_cluster_rows<'a>(
    data: &'a Snapshot,
    filter: &str,
) -> Vec<(usize, &'a Obj<ManagedCluster>)> {
    let filter = Filter::parse(filter);
    data.clusters
        .iter()
        .enumerate()
        .filter(|(_, c)| keeps_cluster(&filter, c, data.several_contexts()))
        .collect()
}

/// The templates screen: ClusterTemplates, then ServiceTemplates; the
/// filter sees every column (of REPOSITORY, the hold without its time).
pub fn template_rows<'a>(data: &'a Snapshot, filter: &str) -> Vec<TemplateRef<'a>> {
    data.cluster_templates
        .iter()
        .map(TemplateRef::Cluster)
        .chain(data.service_templates.iter().map(TemplateRef::Service))
        .filter(|t| {
            if filter.is_empty() {
                return true;
            }
            let key = t.key();
            let used = data.usage.get(&key).copied().unwrap_or(0);
            matches(
                filter,
                &[
                    if data.several_contexts() {
                        &key.context
                    } else {
                        ""
                    },
                    t.kind(),
                    &key.namespace,
                    &key.name,
                    &t.valid().0,
                    &t.chart(),
                    &t.services(),
                    &t.revision(),
                    &used.to_string(),
                    &t.message().0,
                    t.hold().map_or("", hold::label),
                ],
            )
        })
        .collect()
}

/// The services of a cluster that its detail screen lists.
pub fn service_rows<'a>(
    mc: &'a ManagedCluster,
    filter: &str,
) -> Vec<&'a crate::api::ServiceStatus> {
    mc.status
        .iter()
        .flat_map(|s| s.services.iter())
        .filter(|s| {
            matches(
                filter,
                &[
                    &s.name,
                    &s.state.to_string(),
                    s.version.as_deref().unwrap_or_default(),
                    &s.revision.map(|r| r.to_string()).unwrap_or_default(),
                    s.message.as_deref().unwrap_or_default(),
                ],
            )
        })
        .collect()
}

/// The services of a ClusterTemplate that its detail screen lists.
pub fn template_service_rows<'a>(
    ct: &'a ClusterTemplate,
    filter: &str,
) -> Vec<&'a crate::api::TemplateService> {
    ct.spec
        .services
        .iter()
        .filter(|s| {
            matches(
                filter,
                &[
                    &s.name,
                    &s.template,
                    s.target_namespace(),
                    s.values.as_deref().unwrap_or_default(),
                ],
            )
        })
        .collect()
}

/// The Events the events screen shows.
pub fn event_rows<'a>(
    data: &'a Snapshot,
    regarding: Option<&ObjKey>,
    filter: &str,
) -> Vec<&'a Obj<Event>> {
    events::rows(&data.events, regarding, filter)
}

/// The rollouts the rollouts screen shows.
pub fn rollout_rows<'a>(data: &'a Snapshot, filter: &str) -> Vec<&'a Obj<TemplateRollout>> {
    rollouts::rollout_rows(&data.rollouts, filter, data.several_contexts())
}

/// The lines of a rollout board's waves section, and the status they come
/// from; empty while the rollout has no status (or no longer exists).
pub fn board<'a>(data: &'a Snapshot, key: &ObjKey, filter: &str) -> Vec<BoardRow<'a>> {
    data.rollout(&key.context, &key.namespace, &key.name)
        .and_then(|r| r.status.as_ref())
        .map(|s| rollouts::board_rows(s, filter))
        .unwrap_or_default()
}
