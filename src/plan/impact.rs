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

use std::collections::{BTreeMap, HashMap};

use kube::ResourceExt;
use serde_json::Value;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate};
use crate::plan::rollout::{candidates, check_policy, needs_approval, plan_waves};
use crate::plan::services::{ServicePlan, plan_services};
use crate::plan::values::{Change, diff};

/// The objects that decide the clusters' services.
#[derive(Clone, Debug, Default)]
pub struct Fleet {
    pub cluster_templates: Vec<ClusterTemplate>,
    pub service_templates: Vec<ServiceTemplate>,
    pub clusters: Vec<ManagedCluster>,
}

fn id<K: ResourceExt>(obj: &K) -> (String, String) {
    (obj.namespace().unwrap_or_default(), obj.name_any())
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

/// One fleet's objects by (namespace, name), borrowed: the live ones with
/// a proposal's laid over them, without copying either.
struct View<'a> {
    templates: BTreeMap<(String, String), &'a ClusterTemplate>,
    service_templates: BTreeMap<(String, String), &'a ServiceTemplate>,
    clusters: BTreeMap<(String, String), &'a ManagedCluster>,
}

impl<'a> View<'a> {
    fn of(fleet: &'a Fleet, over: Option<&'a Fleet>) -> View<'a> {
        fn index<'a, K: ResourceExt>(
            live: &'a [K],
            over: Option<&'a [K]>,
        ) -> BTreeMap<(String, String), &'a K> {
            live.iter()
                .chain(over.into_iter().flatten())
                .map(|o| (id(o), o))
                .collect()
        }
        View {
            templates: index(
                &fleet.cluster_templates,
                over.map(|o| o.cluster_templates.as_slice()),
            ),
            service_templates: index(
                &fleet.service_templates,
                over.map(|o| o.service_templates.as_slice()),
            ),
            clusters: index(&fleet.clusters, over.map(|o| o.clusters.as_slice())),
        }
    }

    /// `cluster`'s services as planned in this fleet, by service name;
    /// `bare` plans them without the cluster's own values (what its
    /// templates alone would give it). Empty when its template is missing.
    fn plan(
        &self,
        ns: &str,
        mc: Option<&ManagedCluster>,
        bare: bool,
    ) -> BTreeMap<String, ServicePlan> {
        let Some(mc) = mc else {
            return BTreeMap::new();
        };
        let ns = &ns.to_string();
        let Some(template) = self.templates.get(&(ns.clone(), mc.spec.template.clone())) else {
            return BTreeMap::new();
        };
        let lookup = |name: &str| {
            self.service_templates
                .get(&(ns.clone(), name.to_string()))
                .copied()
        };
        let plans = if bare {
            let mut spec = mc.spec.clone();
            for s in &mut spec.services {
                s.values = None;
            }
            plan_services(&template.spec, &spec, lookup)
        } else {
            plan_services(&template.spec, &mc.spec, lookup)
        };
        plans
            .into_iter()
            .map(|p| (p.name().to_string(), p))
            .collect()
    }

    fn chart(&self, ns: &str, template: &str) -> Option<String> {
        self.service_templates
            .get(&(ns.to_string(), template.to_string()))
            .and_then(|st| st.spec.helm.chart_version.clone())
    }
}

/// The clusters `proposal` may change: those it names, those of the
/// ClusterTemplates it names, and every cluster of a namespace where it
/// names a ServiceTemplate. Every other cluster plans the same before and
/// after.
fn reached(fleet: &Fleet, proposal: &Fleet) -> Vec<(String, String)> {
    let templates: std::collections::BTreeSet<(String, String)> =
        proposal.cluster_templates.iter().map(id).collect();
    let namespaces: std::collections::BTreeSet<String> =
        proposal.service_templates.iter().map(|t| id(t).0).collect();
    let mut out: Vec<(String, String)> = fleet
        .clusters
        .iter()
        .chain(&proposal.clusters)
        .filter(|c| {
            let (ns, _) = id(*c);
            namespaces.contains(&ns) || templates.contains(&(ns, c.spec.template.clone()))
        })
        .map(id)
        .chain(proposal.clusters.iter().map(id))
        .collect();
    out.sort();
    out.dedup();
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
///
/// Only the clusters the proposal can reach are planned, and the costlier
/// parts only where they can matter: a cluster's plan without its own
/// values only where its merged values stay the same, the schema only for
/// values that change.
pub fn impact_checked(
    fleet: &Fleet,
    proposal: &Fleet,
    check: &SchemaCheck<'_>,
) -> Vec<ServiceImpact> {
    let before = View::of(fleet, None);
    let after = View::of(fleet, Some(proposal));
    let waves = waves(fleet, proposal);
    // A cluster's outcomes follow from its namespace and its spec before
    // and after (not its name): clusters alike are planned once.
    let mut alike: HashMap<(String, String, String), Vec<(String, Outcome)>> = HashMap::new();
    let mut out = Vec::new();
    for cluster in reached(fleet, proposal) {
        let (was, now) = (
            before.clusters.get(&cluster).copied(),
            after.clusters.get(&cluster).copied(),
        );
        let spec = |mc: Option<&ManagedCluster>| {
            mc.map(|c| serde_json::to_string(&c.spec).unwrap_or_default())
                .unwrap_or_default()
        };
        let key = (cluster.0.clone(), spec(was), spec(now));
        let outcomes = alike
            .entry(key)
            .or_insert_with(|| outcomes(&cluster.0, (&before, was), (&after, now), check));
        for (service, outcome) in outcomes.iter() {
            out.push(ServiceImpact {
                namespace: cluster.0.clone(),
                cluster: cluster.1.clone(),
                service: service.clone(),
                outcome: outcome.clone(),
                wave: waves.get(&cluster).copied(),
            });
        }
    }
    out
}

/// The outcome of each affected service of one cluster (`was` in `before`,
/// `now` in `after`), by service name.
fn outcomes(
    ns: &str,
    (before, was): (&View<'_>, Option<&ManagedCluster>),
    (after, now): (&View<'_>, Option<&ManagedCluster>),
    check: &SchemaCheck<'_>,
) -> Vec<(String, Outcome)> {
    let (old_plans, new_plans) = (before.plan(ns, was, false), after.plan(ns, now, false));
    let mut services: Vec<&String> = old_plans.keys().chain(new_plans.keys()).collect();
    services.sort();
    services.dedup();
    // Planned once per cluster, when a service needs them.
    let mut bare: Option<(BTreeMap<String, ServicePlan>, BTreeMap<String, ServicePlan>)> = None;
    let mut out = Vec::new();
    for service in services {
        let (old, new) = (old_plans.get(service), new_plans.get(service));
        let Some(mut outcome) = outcome(ns, before, after, old, new) else {
            let (Some(ServicePlan::Install(o)), Some(ServicePlan::Install(n))) = (old, new) else {
                continue;
            };
            // The same values either way: did the templates change under
            // the cluster's own entry?
            if o.effective != n.effective {
                continue;
            }
            let (bare_was, bare_now) =
                bare.get_or_insert_with(|| (before.plan(ns, was, true), after.plan(ns, now, true)));
            let paths = match (bare_was.get(service), bare_now.get(service)) {
                (Some(ServicePlan::Install(b)), Some(ServicePlan::Install(a))) => {
                    diff(&b.effective, &a.effective)
                }
                _ => Vec::new(),
            };
            if !paths.is_empty() {
                let paths = paths.into_iter().map(|c| c.path).collect();
                out.push((service.clone(), Outcome::Overridden { paths }));
            }
            continue;
        };
        if let (Outcome::Changes { .. } | Outcome::Installed, Some(ServicePlan::Install(d))) =
            (&outcome, new)
            && let Some(why) = check(ns, &d.template, &d.effective)
        {
            outcome = Outcome::Blocked {
                why: format!("the chart's schema: {why}"),
            };
        }
        out.push((service.clone(), outcome));
    }
    out
}

/// What changes for one service, from its plans before and after; `None`
/// when its values, chart and state stay the same (the caller then looks
/// for values the cluster keeps).
fn outcome(
    ns: &str,
    before: &View<'_>,
    after: &View<'_>,
    old: Option<&ServicePlan>,
    new: Option<&ServicePlan>,
) -> Option<Outcome> {
    match (old, new) {
        (None, None) => None,
        (Some(_), None) => Some(Outcome::Removed),
        (None, Some(ServicePlan::Install(_))) => Some(Outcome::Installed),
        (_, Some(ServicePlan::Blocked(now))) => match old {
            Some(ServicePlan::Blocked(was)) if was.message == now.message => None,
            _ => Some(Outcome::Blocked {
                why: now.message.clone(),
            }),
        },
        (Some(ServicePlan::Blocked(_)), Some(ServicePlan::Install(_))) => Some(Outcome::Installed),
        (Some(ServicePlan::Install(was)), Some(ServicePlan::Install(now))) => {
            let changes = diff(&was.effective, &now.effective);
            let (old_chart, new_chart) = (
                before.chart(ns, &was.template),
                after.chart(ns, &now.template),
            );
            let chart = (old_chart != new_chart)
                .then(|| (old_chart.unwrap_or_default(), new_chart.unwrap_or_default()));
            (!changes.is_empty() || chart.is_some()).then_some(Outcome::Changes { changes, chart })
        }
    }
}

/// The wave of each cluster whose ClusterTemplate `proposal` changes: the
/// rollout planner's waves over the clusters a rollout reaches (those
/// given a revision already, and not being deleted), under the template's
/// policy as proposed. A policy that breaks its rules plans no wave.
fn waves(fleet: &Fleet, proposal: &Fleet) -> BTreeMap<(String, String), Wave> {
    let after = View::of(fleet, Some(proposal));
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
        let of_template = after
            .clusters
            .values()
            .filter(|c| c.namespace().as_deref() == Some(ns.as_str()) && c.spec.template == name);
        // The revision is not made yet: no cluster has it.
        let candidates = candidates(of_template.copied(), None);
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
