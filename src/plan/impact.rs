//! What a proposed change does to the fleet, cluster by cluster and service
//! by service, before it is made: the same planner as the engine's
//! ([`plan_services`]) run over the fleet as it is and as it would be.
//!
//! Pure. A [`Fleet`] is the objects that decide a cluster's services (its
//! ClusterTemplate, the ServiceTemplates, the ManagedCluster); a proposal
//! is a few of them, edited or new, that replace the ones of the same kind,
//! namespace and name. Every affected service of every affected cluster
//! gets one [`Outcome`], and [`summarize`] groups and counts them.
//!
//! Two things come from outside, as data: whether new values break their
//! chart's `values.schema.json` (a [`SchemaCheck`], since charts are read
//! from the cluster), and the waves a ClusterTemplate's change reaches its
//! clusters in (the rollout planner's own [`plan_waves`], over the clusters
//! a rollout would reach).

use std::collections::BTreeMap;

use kube::ResourceExt;
use serde_json::Value;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate};
use crate::plan::rollout::{Candidate, check_policy, needs_approval, plan_waves};
use crate::plan::services::{ServicePlan, plan_services};
use crate::plan::values::{Change, diff};

/// The objects that decide the clusters' services.
#[derive(Clone, Debug, Default)]
pub struct Fleet {
    pub cluster_templates: Vec<ClusterTemplate>,
    pub service_templates: Vec<ServiceTemplate>,
    pub clusters: Vec<ManagedCluster>,
}

impl Fleet {
    /// This fleet with `proposal`'s objects in place of those of the same
    /// kind, namespace and name, and added where there are none.
    pub fn with(&self, proposal: &Fleet) -> Fleet {
        Fleet {
            cluster_templates: replaced(&self.cluster_templates, &proposal.cluster_templates),
            service_templates: replaced(&self.service_templates, &proposal.service_templates),
            clusters: replaced(&self.clusters, &proposal.clusters),
        }
    }
}

fn id<K: ResourceExt>(obj: &K) -> (String, String) {
    (obj.namespace().unwrap_or_default(), obj.name_any())
}

fn replaced<K: ResourceExt + Clone>(now: &[K], new: &[K]) -> Vec<K> {
    let mut by_id: BTreeMap<(String, String), K> = now.iter().map(|o| (id(o), o.clone())).collect();
    for o in new {
        by_id.insert(id(o), o.clone());
    }
    by_id.into_values().collect()
}

/// What the change does to one service of one cluster.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The values Helm gets differ (the paths, old and new), and/or the
    /// chart version (`(old, new)`).
    Changes {
        changes: Vec<Change>,
        chart: Option<(String, String)>,
    },
    /// The template's values change at these paths, and the cluster's own
    /// entry wins for every one of them: nothing changes here.
    Overridden { paths: Vec<String> },
    /// The service is new to this cluster.
    Installed,
    /// The service goes from this cluster.
    Removed,
    /// The service cannot be installed after the change: why.
    Blocked { why: String },
}

/// One affected service of one cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceImpact {
    pub namespace: String,
    pub cluster: String,
    pub service: String,
    pub outcome: Outcome,
    /// When its ClusterTemplate changes: the wave of the rollout that
    /// brings the change to this cluster.
    pub wave: Option<Wave>,
}

/// Where a cluster stands in the rollout of its template's change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wave {
    /// 1-based.
    pub number: u32,
    /// Waves in the rollout.
    pub of: u32,
    /// The wave waits for an approval (a Manual policy, or the wave after
    /// a canary).
    pub approval: bool,
}

impl Wave {
    /// `wave 2 of 4, after an approval`.
    pub fn words(&self) -> String {
        let approval = if self.approval {
            ", after an approval"
        } else {
            ""
        };
        format!("wave {} of {}{approval}", self.number, self.of)
    }
}

/// Whether values break their chart's schema: given the namespace, the
/// ServiceTemplate and the values the service would get, the first error
/// in words, or `None` (also when the chart is not known).
pub type SchemaCheck<'a> = dyn Fn(&str, &str, &Value) -> Option<String> + 'a;

/// What one service plans to, in one fleet: its plan, the values its
/// templates give it without the cluster's own entry, and its chart version.
struct Planned {
    plan: ServicePlan,
    template_effective: Option<Value>,
    chart: Option<String>,
    /// How its values break the chart's schema, when checked.
    schema: Option<String>,
}

/// Every service of every cluster of `fleet`, by (namespace, cluster,
/// service).
fn plan_fleet(
    fleet: &Fleet,
    check: &SchemaCheck<'_>,
) -> BTreeMap<(String, String, String), Planned> {
    let templates: BTreeMap<(String, String), &ClusterTemplate> =
        fleet.cluster_templates.iter().map(|t| (id(t), t)).collect();
    let service_templates: BTreeMap<(String, String), &ServiceTemplate> =
        fleet.service_templates.iter().map(|t| (id(t), t)).collect();
    let mut out = BTreeMap::new();
    for mc in &fleet.clusters {
        let ns = mc.namespace().unwrap_or_default();
        let Some(template) = templates.get(&(ns.clone(), mc.spec.template.clone())) else {
            continue;
        };
        let lookup = |name: &str| {
            service_templates
                .get(&(ns.clone(), name.to_string()))
                .copied()
        };
        // The same cluster without values of its own: what its templates
        // alone would give it.
        let mut bare = mc.spec.clone();
        for s in &mut bare.services {
            s.values = None;
        }
        let bare_plans: BTreeMap<String, ServicePlan> =
            plan_services(&template.spec, &bare, lookup)
                .into_iter()
                .map(|p| (p.name().to_string(), p))
                .collect();
        for plan in plan_services(&template.spec, &mc.spec, lookup) {
            let service = plan.name().to_string();
            let template_effective = match bare_plans.get(&service) {
                Some(ServicePlan::Install(d)) => Some(d.effective.clone()),
                _ => None,
            };
            let (chart, schema) = match &plan {
                ServicePlan::Install(d) => (
                    lookup(&d.template).and_then(|st| st.spec.helm.chart_version.clone()),
                    check(&ns, &d.template, &d.effective),
                ),
                ServicePlan::Blocked(_) => (None, None),
            };
            out.insert(
                (ns.clone(), mc.name_any(), service),
                Planned {
                    plan,
                    template_effective,
                    chart,
                    schema,
                },
            );
        }
    }
    out
}

/// What `proposal` does to `fleet`: one entry per affected service of each
/// cluster, sorted by namespace, cluster and service. A service whose
/// values, chart and state stay as they are is left out.
pub fn impact(fleet: &Fleet, proposal: &Fleet) -> Vec<ServiceImpact> {
    impact_checked(fleet, proposal, &|_, _, _| None)
}

/// [`impact`], with new values checked against their charts: a service
/// whose changed values break its chart's schema is blocked. Values that
/// do not change are not blamed for what they already were.
pub fn impact_checked(
    fleet: &Fleet,
    proposal: &Fleet,
    check: &SchemaCheck<'_>,
) -> Vec<ServiceImpact> {
    let after_fleet = fleet.with(proposal);
    let before = plan_fleet(fleet, &|_, _, _| None);
    let after = plan_fleet(&after_fleet, check);
    let waves = waves(fleet, proposal, &after_fleet);
    let mut keys: Vec<&(String, String, String)> = before.keys().chain(after.keys()).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|key| {
            let mut outcome = outcome(before.get(key), after.get(key))?;
            if let (Outcome::Changes { .. } | Outcome::Installed, Some(why)) =
                (&outcome, after.get(key).and_then(|a| a.schema.as_ref()))
            {
                outcome = Outcome::Blocked {
                    why: format!("the chart's schema: {why}"),
                };
            }
            let (namespace, cluster, service) = key.clone();
            let wave = waves.get(&(namespace.clone(), cluster.clone())).copied();
            Some(ServiceImpact {
                namespace,
                cluster,
                service,
                outcome,
                wave,
            })
        })
        .collect()
}

/// The wave of each cluster whose ClusterTemplate `proposal` changes: the
/// rollout planner's waves over the clusters a rollout reaches (those
/// given a revision already, and not being deleted), under the template's
/// policy as proposed. A policy that breaks its rules plans no wave.
fn waves(fleet: &Fleet, proposal: &Fleet, after: &Fleet) -> BTreeMap<(String, String), Wave> {
    let live: BTreeMap<(String, String), &ClusterTemplate> =
        fleet.cluster_templates.iter().map(|t| (id(t), t)).collect();
    let mut out = BTreeMap::new();
    for template in &proposal.cluster_templates {
        let (ns, name) = id(template);
        // A new revision only comes from a change to the services.
        let unchanged = live
            .get(&(ns.clone(), name.clone()))
            .is_some_and(|t| t.spec.services == template.spec.services);
        if unchanged {
            continue;
        }
        let policy = template.spec.rollout.clone().unwrap_or_default();
        let Ok(limits) = check_policy(&policy) else {
            continue;
        };
        let candidates: Vec<Candidate> = after
            .clusters
            .iter()
            .filter(|c| c.namespace().as_deref() == Some(ns.as_str()))
            .filter(|c| c.spec.template == name && c.metadata.deletion_timestamp.is_none())
            .filter_map(|c| {
                let given = c.status.as_ref().and_then(|s| s.target_revision)?;
                Some(Candidate {
                    name: c.name_any(),
                    labels: c.labels().clone(),
                    revision: Some(given),
                })
            })
            .collect();
        let Ok(planned) = plan_waves(&candidates, &policy) else {
            continue;
        };
        let of = planned.len() as u32;
        for (i, wave) in planned.iter().enumerate() {
            let number = i as u32 + 1;
            let approval = needs_approval(&policy, &limits, number);
            for cluster in &wave.clusters {
                out.insert(
                    (ns.clone(), cluster.clone()),
                    Wave {
                        number,
                        of,
                        approval,
                    },
                );
            }
        }
    }
    out
}

fn outcome(before: Option<&Planned>, after: Option<&Planned>) -> Option<Outcome> {
    let (before, after) = match (before, after) {
        (None, None) => return None,
        (Some(_), None) => return Some(Outcome::Removed),
        (None, Some(a)) => {
            return Some(match &a.plan {
                ServicePlan::Install(_) => Outcome::Installed,
                ServicePlan::Blocked(b) => Outcome::Blocked {
                    why: b.message.clone(),
                },
            });
        }
        (Some(b), Some(a)) => (b, a),
    };
    match (&before.plan, &after.plan) {
        (_, ServicePlan::Blocked(now)) => match &before.plan {
            ServicePlan::Blocked(was) if was.message == now.message => None,
            _ => Some(Outcome::Blocked {
                why: now.message.clone(),
            }),
        },
        (ServicePlan::Blocked(_), ServicePlan::Install(_)) => Some(Outcome::Installed),
        (ServicePlan::Install(was), ServicePlan::Install(now)) => {
            let changes = diff(&was.effective, &now.effective);
            let chart = (before.chart != after.chart).then(|| {
                (
                    before.chart.clone().unwrap_or_default(),
                    after.chart.clone().unwrap_or_default(),
                )
            });
            if !changes.is_empty() || chart.is_some() {
                return Some(Outcome::Changes { changes, chart });
            }
            let templates = match (&before.template_effective, &after.template_effective) {
                (Some(b), Some(a)) => diff(b, a),
                _ => Vec::new(),
            };
            (!templates.is_empty()).then(|| Outcome::Overridden {
                paths: templates.into_iter().map(|c| c.path).collect(),
            })
        }
    }
}

/// Affected services that came to the same outcome, counted.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    pub service: String,
    /// The outcome in a person's words: `controller.replicaCount: 2 → 3`,
    /// `keep their own value: controller.replicaCount`, `newly installed`,
    /// `removed`, `blocked: …`.
    pub what: String,
    /// Whether this group's clusters cannot take the change.
    pub blocked: bool,
    /// The clusters, `namespace/name`, sorted.
    pub clusters: Vec<String>,
}

/// At most this many changed paths are named in a group's words; the rest
/// are counted.
const NAMED_PATHS: usize = 3;

fn shown(v: &Option<Value>) -> String {
    match v {
        None => "(none)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn words(outcome: &Outcome) -> String {
    match outcome {
        Outcome::Changes { changes, chart } => {
            let mut parts: Vec<String> = chart
                .iter()
                .map(|(old, new)| format!("chart {old} → {new}"))
                .collect();
            parts.extend(
                changes
                    .iter()
                    .take(NAMED_PATHS)
                    .map(|c| format!("{}: {} → {}", c.path, shown(&c.old), shown(&c.new))),
            );
            if changes.len() > NAMED_PATHS {
                parts.push(format!("{} more", changes.len() - NAMED_PATHS));
            }
            parts.join(", ")
        }
        Outcome::Overridden { paths } => {
            format!("keep their own value: {}", paths.join(", "))
        }
        Outcome::Installed => "newly installed".into(),
        Outcome::Removed => "removed".into(),
        Outcome::Blocked { why } => format!("blocked: {why}"),
    }
}

/// The impacts grouped by service and outcome, largest group first (then
/// by service and words), each group's clusters sorted.
pub fn summarize(impacts: &[ServiceImpact]) -> Vec<Group> {
    let mut groups: BTreeMap<(String, String), Group> = BTreeMap::new();
    for i in impacts {
        let what = words(&i.outcome);
        groups
            .entry((i.service.clone(), what.clone()))
            .or_insert_with(|| Group {
                service: i.service.clone(),
                what,
                blocked: matches!(i.outcome, Outcome::Blocked { .. }),
                clusters: Vec::new(),
            })
            .clusters
            .push(format!("{}/{}", i.namespace, i.cluster));
    }
    let mut groups: Vec<Group> = groups.into_values().collect();
    for g in &mut groups {
        g.clusters.sort();
        g.clusters.dedup();
    }
    groups.sort_by(|a, b| {
        b.clusters
            .len()
            .cmp(&a.clusters.len())
            .then_with(|| (&a.service, &a.what).cmp(&(&b.service, &b.what)))
    });
    groups
}

/// One line for the whole change: `3 clusters: 2 change (…), 1 blocked: …`.
pub fn headline(impacts: &[ServiceImpact]) -> String {
    let mut clusters: Vec<(&str, &str)> = impacts
        .iter()
        .map(|i| (i.namespace.as_str(), i.cluster.as_str()))
        .collect();
    clusters.sort();
    clusters.dedup();
    if clusters.is_empty() {
        return "no cluster changes".into();
    }
    let noun = |n: usize| if n == 1 { "cluster" } else { "clusters" };
    let parts: Vec<String> = summarize(impacts)
        .iter()
        .map(|g| format!("{} {}: {}", g.clusters.len(), g.service, g.what))
        .collect();
    format!(
        "{} {}: {}",
        clusters.len(),
        noun(clusters.len()),
        parts.join("; ")
    )
}

#[cfg(test)]
#[path = "impact_tests.rs"]
mod tests;
