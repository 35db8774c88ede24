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

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};

use kube::Resource;
use serde_json::Value;

use crate::api::{
    ClusterTemplate, ManagedCluster, ManagedService, MultiClusterService, ServiceTemplate,
};
use crate::capi;
use crate::plan::parallel::{self, map_chunks};
use crate::plan::parsed_values::ParsedValues;
use crate::plan::rollout::{candidates, check_policy, needs_approval, plan_waves};
use crate::plan::services::{ServicePlan, plan_services_selected, sources_of};
use crate::plan::template;
use crate::plan::values::{Change, diff};
use crate::plan::values_data::ValuesData;

/// The objects that decide the clusters' services.
#[derive(Clone, Debug, Default)]
pub struct Fleet {
    pub cluster_templates: Vec<ClusterTemplate>,
    pub service_templates: Vec<ServiceTemplate>,
    pub clusters: Vec<ManagedCluster>,
    /// Cluster API's Clusters, which values templates read (`.Cluster`).
    pub capi_clusters: Vec<capi::Cluster>,
    /// The MultiClusterServices, which give the clusters of their
    /// namespace they select services of their own.
    pub multi_cluster_services: Vec<MultiClusterService>,
}

/// An object's namespace and name (`name_any`'s: its generateName when it
/// has no name yet), borrowed.
type Id<'a> = (&'a str, &'a str);

fn id<K: Resource>(obj: &K) -> Id<'_> {
    let meta = obj.meta();
    let name = meta.name.as_deref().or(meta.generate_name.as_deref());
    (
        meta.namespace.as_deref().unwrap_or_default(),
        name.unwrap_or_default(),
    )
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
/// in words, or `None` (also when the chart is not known). Asked from
/// several threads at once when many clusters are planned.
pub type SchemaCheck<'a> = dyn Fn(&str, &str, &Value) -> Option<String> + Sync + 'a;

/// One fleet's templates by (namespace, name), borrowed: the live ones
/// with a proposal's laid over them, without copying either.
struct View<'a> {
    templates: HashMap<Id<'a>, &'a ClusterTemplate>,
    service_templates: HashMap<Id<'a>, &'a ServiceTemplate>,
    capi_clusters: HashMap<Id<'a>, &'a capi::Cluster>,
    /// By namespace, the live ones with the proposal's laid over them.
    multi_cluster_services: HashMap<&'a str, Vec<&'a MultiClusterService>>,
}

/// Objects by namespace, in name order.
fn by_namespace<'a, K: Resource>(objects: HashMap<Id<'a>, &'a K>) -> HashMap<&'a str, Vec<&'a K>> {
    let mut sorted: Vec<(Id<'a>, &'a K)> = objects.into_iter().collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: HashMap<&'a str, Vec<&'a K>> = HashMap::new();
    for ((ns, _), o) in sorted {
        out.entry(ns).or_default().push(o);
    }
    out
}

/// Objects by (namespace, name); of two of the same, the later.
fn index<'a, K: Resource>(objects: impl IntoIterator<Item = &'a K>) -> HashMap<Id<'a>, &'a K> {
    objects.into_iter().map(|o| (id(o), o)).collect()
}

impl<'a> View<'a> {
    fn of(fleet: &'a Fleet, over: Option<&'a Fleet>) -> View<'a> {
        let over = over.into_iter();
        View {
            templates: index(
                fleet
                    .cluster_templates
                    .iter()
                    .chain(over.clone().flat_map(|o| &o.cluster_templates)),
            ),
            service_templates: index(
                fleet
                    .service_templates
                    .iter()
                    .chain(over.clone().flat_map(|o| &o.service_templates)),
            ),
            capi_clusters: index(
                fleet
                    .capi_clusters
                    .iter()
                    .chain(over.clone().flat_map(|o| &o.capi_clusters)),
            ),
            multi_cluster_services: by_namespace(index(
                fleet
                    .multi_cluster_services
                    .iter()
                    .chain(over.flat_map(|o| &o.multi_cluster_services)),
            )),
        }
    }

    /// `cluster`'s services as planned in this fleet, by service name;
    /// `bare` plans them without the cluster's own values (what its
    /// templates alone would give it). Empty when its template is missing.
    fn plan(
        &self,
        ns: &str,
        (mc, data): (Option<&'a ManagedCluster>, &ValuesData),
        bare: bool,
        parsed: &mut ParsedValues<'a>,
    ) -> Plans {
        let Some(mc) = mc else {
            return Plans::default();
        };
        let Some(template) = self.templates.get(&(ns, mc.spec.template.as_str())) else {
            return Plans::default();
        };
        let lookup = |name: &str| self.service_templates.get(&(ns, name)).copied();
        let mcss = self
            .multi_cluster_services
            .get(ns)
            .map_or(&[][..], Vec::as_slice);
        let selected = sources_of(&template.spec.services, mc, mcss);
        Plans::by_name(plan_services_selected(
            &template.spec,
            &mc.spec,
            (data, &selected),
            lookup,
            parsed,
            !bare,
        ))
    }

    /// What `mc`'s values templates read in this fleet.
    fn values_data(&self, mc: Option<&'a ManagedCluster>) -> ValuesData<'a> {
        match mc {
            Some(mc) => ValuesData::of(mc, self.capi_clusters.get(&id(mc)).copied()),
            None => ValuesData::none(),
        }
    }

    fn chart(&self, ns: &str, template: &str) -> Option<&'a str> {
        self.service_templates
            .get(&(ns, template))
            .and_then(|st| st.spec.helm.chart_version.as_deref())
    }
}

/// A cluster's service plans, sorted by name; of two of the same name,
/// the later.
#[derive(Default)]
struct Plans(Vec<ServicePlan>);

impl Plans {
    fn by_name(mut plans: Vec<ServicePlan>) -> Plans {
        // Stable: of two of a name, the later stays later.
        plans.sort_by(|a, b| a.name().cmp(b.name()));
        plans.reverse();
        plans.dedup_by(|a, b| a.name() == b.name());
        plans.reverse();
        Plans(plans)
    }

    fn get(&self, name: &str) -> Option<&ServicePlan> {
        let i = self.0.binary_search_by(|p| p.name().cmp(name)).ok()?;
        Some(&self.0[i])
    }

    fn names(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(ServicePlan::name)
    }
}

/// A cluster the proposal may change, as it is before and after.
struct Reached<'a> {
    id: Id<'a>,
    was: Option<&'a ManagedCluster>,
    now: Option<&'a ManagedCluster>,
}

/// The clusters `proposal` may change, sorted by namespace and name: those
/// it names, those of the ClusterTemplates it names, and every cluster of a
/// namespace where it names a ServiceTemplate. Every other cluster plans
/// the same before and after. Of two objects of the same namespace and
/// name, the later counts, and a proposed one over a live one.
fn reached<'a>(fleet: &'a Fleet, proposal: &'a Fleet) -> Vec<Reached<'a>> {
    let templates: BTreeSet<Id<'_>> = proposal.cluster_templates.iter().map(id).collect();
    let namespaces: BTreeSet<&str> = proposal
        .service_templates
        .iter()
        .map(|t| id(t).0)
        .chain(proposal.multi_cluster_services.iter().map(|m| id(m).0))
        .collect();
    let reaches = |c: &ManagedCluster| {
        let (ns, _) = id(c);
        namespaces.contains(ns) || templates.contains(&(ns, c.spec.template.as_str()))
    };
    let proposed = index(&proposal.clusters);
    // Stable: of two alike, the later stays last. (A fleet listed by the
    // API server comes sorted already.)
    let mut live: Vec<(Id<'a>, &'a ManagedCluster)> =
        fleet.clusters.iter().map(|c| (id(c), c)).collect();
    live.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = Vec::new();
    for same in live.chunk_by(|a, b| a.0 == b.0) {
        let (id, was) = same[same.len() - 1];
        let now = proposed.get(&id).copied();
        if now.is_some() || same.iter().any(|(_, c)| reaches(c)) {
            out.push(Reached {
                id,
                was: Some(was),
                now: now.or(Some(was)),
            });
        }
    }
    let known = out.len();
    for (id, now) in &proposed {
        if live.binary_search_by(|(l, _)| l.cmp(id)).is_err() {
            out.push(Reached {
                id: *id,
                was: None,
                now: Some(now),
            });
        }
    }
    if out.len() > known {
        out.sort_by(|a, b| a.id.cmp(&b.id));
    }
    out
}

/// What decides a cluster's outcomes: its namespace, and before and after
/// its template and its services (not its name, nor the rest of its spec,
/// unless values in its namespace are templates, which may read anything
/// of it). Clusters alike are planned once.
#[derive(PartialEq, Eq, Hash)]
struct Alike<'a> {
    ns: &'a str,
    /// The cluster's name where values templates may read its data.
    cluster: Option<&'a str>,
    was: Option<Services<'a>>,
    now: Option<Services<'a>>,
}

/// A cluster's template and service entries.
#[derive(PartialEq)]
struct Services<'a> {
    template: &'a str,
    services: &'a [ManagedService],
}

impl<'a> Services<'a> {
    fn of(mc: &'a ManagedCluster) -> Services<'a> {
        Services {
            template: &mc.spec.template,
            services: &mc.spec.services,
        }
    }
}

/// Service entries are plain data: each equals itself.
impl Eq for Services<'_> {}

impl Hash for Services<'_> {
    /// The fields that tell clusters apart most; equality compares all.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.template.hash(state);
        self.services.len().hash(state);
        for s in self.services {
            s.name.hash(state);
            s.template.hash(state);
            s.values.hash(state);
        }
    }
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
/// Only the clusters the proposal can reach are planned, clusters alike
/// once and the rest shared between the cores ([`parallel`]), each values
/// text parsed once per thread, and the costlier parts only where
/// they can matter: a service's plan without the cluster's own values only
/// where the cluster has values of its own for it and its merged values
/// stay the same, the schema only for values that change.
pub fn impact_checked(
    fleet: &Fleet,
    proposal: &Fleet,
    check: &SchemaCheck<'_>,
) -> Vec<ServiceImpact> {
    impact_on(parallel::cores(), fleet, proposal, check)
}

/// [`impact_checked`], its clusters planned on at most `threads` threads.
fn impact_on(
    threads: usize,
    fleet: &Fleet,
    proposal: &Fleet,
    check: &SchemaCheck<'_>,
) -> Vec<ServiceImpact> {
    let before = View::of(fleet, None);
    let after = View::of(fleet, Some(proposal));
    let reached = reached(fleet, proposal);
    let waves = waves(fleet, proposal, &reached);
    let templated = own_data_namespaces([fleet, proposal]);
    // The first cluster of each kind, planned for all of its kind, and
    // each cluster's kind: its first's place among them.
    let mut firsts: Vec<&Reached<'_>> = Vec::new();
    let mut kinds: Vec<usize> = Vec::with_capacity(reached.len());
    let mut alike: HashMap<Alike<'_>, usize> = HashMap::with_capacity(reached.len());
    for r in &reached {
        let (ns, name) = r.id;
        let key = Alike {
            ns,
            cluster: templated.contains(ns).then_some(name),
            was: r.was.map(Services::of),
            now: r.now.map(Services::of),
        };
        let next = firsts.len();
        kinds.push(*alike.entry(key).or_insert_with(|| {
            firsts.push(r);
            next
        }));
    }
    // No first's plan reads another's: they are shared between threads,
    // each with its own parsed texts.
    let planned = map_chunks(threads, &firsts, |chunk| {
        let mut parsed = ParsedValues::default();
        chunk
            .iter()
            .map(
                |&&Reached {
                     id: (ns, _),
                     was,
                     now,
                 }| {
                    let found = outcomes(ns, (&before, was), (&after, now), check, &mut parsed);
                    // No other cluster has this one's own texts: let them go
                    // while they are fresh, rather than hold the fleet's.
                    for mc in [was, now].into_iter().flatten() {
                        parsed.forget(mc.spec.services.iter().filter_map(|s| s.values.as_deref()));
                    }
                    found
                },
            )
            .collect()
    });
    // Where the first cluster of each kind has its entries in `out`.
    let mut placed: Vec<std::ops::Range<usize>> = Vec::with_capacity(planned.len());
    let mut planned = planned.into_iter();
    let mut out: Vec<ServiceImpact> = Vec::new();
    for (Reached { id, .. }, kind) in reached.iter().zip(kinds) {
        let (ns, name) = *id;
        let wave = waves.get(ns).and_then(|w| w.get(name)).copied();
        let impact = |(service, outcome)| ServiceImpact {
            namespace: ns.to_string(),
            cluster: name.to_string(),
            service,
            outcome,
            wave,
        };
        if let Some(first) = placed.get(kind) {
            for i in first.clone() {
                let ServiceImpact {
                    service, outcome, ..
                } = &out[i];
                out.push(impact((service.clone(), outcome.clone())));
            }
        } else {
            // The first of its kind: kinds are numbered in the order their
            // first clusters come, and so are the plans.
            let start = out.len();
            out.extend(planned.next().into_iter().flatten().map(impact));
            placed.push(start..out.len());
        }
    }
    out
}

/// The namespaces where some values text is a template, or where
/// MultiClusterServices are: there a cluster's services depend on its own
/// data (its Cluster, its labels), and no two clusters are alike.
fn own_data_namespaces(fleets: [&Fleet; 2]) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    for fleet in fleets {
        // Where MultiClusterServices select by label, a cluster's labels
        // decide its services.
        out.extend(fleet.multi_cluster_services.iter().map(|m| id(m).0));
        let texts = fleet
            .service_templates
            .iter()
            .map(|st| (id(st).0, st.spec.values.as_deref()))
            .chain(fleet.cluster_templates.iter().flat_map(|ct| {
                let ns = id(ct).0;
                ct.spec
                    .services
                    .iter()
                    .map(move |s| (ns, s.values.as_deref()))
            }))
            .chain(fleet.clusters.iter().flat_map(|mc| {
                let ns = id(mc).0;
                mc.spec
                    .services
                    .iter()
                    .map(move |s| (ns, s.values.as_deref()))
            }));
        for (ns, text) in texts {
            if text.is_some_and(template::is_template) {
                out.insert(ns);
            }
        }
    }
    out
}

/// Whether `mc` has values of its own for `service`: only then can its
/// plan without them differ.
fn has_own_values(mc: Option<&ManagedCluster>, service: &str) -> bool {
    mc.is_some_and(|c| {
        c.spec
            .services
            .iter()
            .any(|s| s.name == service && s.values.is_some())
    })
}

/// The outcome of each affected service of one cluster (`was` in `before`,
/// `now` in `after`), by service name.
fn outcomes<'a>(
    ns: &str,
    (before, was): (&View<'a>, Option<&'a ManagedCluster>),
    (after, now): (&View<'a>, Option<&'a ManagedCluster>),
    check: &SchemaCheck<'_>,
    parsed: &mut ParsedValues<'a>,
) -> Vec<(String, Outcome)> {
    // The cluster's data once for all its plans (built only if a values
    // text is a template), and once for both sides when it stays the same.
    let was_data = before.values_data(was);
    let now_own;
    let same_capi = |mc: &ManagedCluster| match (
        before.capi_clusters.get(&id(mc)),
        after.capi_clusters.get(&id(mc)),
    ) {
        (Some(b), Some(a)) => std::ptr::eq(*b, *a),
        (b, a) => b.is_none() && a.is_none(),
    };
    let now_data = if was
        .zip(now)
        .is_some_and(|(w, n)| std::ptr::eq(w, n) && same_capi(w))
    {
        &was_data
    } else {
        now_own = after.values_data(now);
        &now_own
    };
    let (old_plans, new_plans) = (
        before.plan(ns, (was, &was_data), false, parsed),
        after.plan(ns, (now, now_data), false, parsed),
    );
    let mut services: Vec<&str> = old_plans.names().chain(new_plans.names()).collect();
    services.sort_unstable();
    services.dedup();
    // Planned once per cluster, when a service needs them.
    let mut bare: Option<(Plans, Plans)> = None;
    let mut out = Vec::new();
    for service in services {
        let (old, new) = (old_plans.get(service), new_plans.get(service));
        let Some(mut outcome) = outcome(ns, before, after, old, new) else {
            let (Some(ServicePlan::Install(o)), Some(ServicePlan::Install(n))) = (old, new) else {
                continue;
            };
            // The same values either way: did the templates change under
            // the cluster's own entry? (Without one, its plan without its
            // own values is this one, and nothing changed under it.)
            if o.effective != n.effective
                || !(has_own_values(was, service) || has_own_values(now, service))
            {
                continue;
            }
            let (bare_was, bare_now) = bare.get_or_insert_with(|| {
                (
                    before.plan(ns, (was, &was_data), true, parsed),
                    after.plan(ns, (now, now_data), true, parsed),
                )
            });
            let paths = match (bare_was.get(service), bare_now.get(service)) {
                (Some(ServicePlan::Install(b)), Some(ServicePlan::Install(a))) => {
                    diff(&b.effective, &a.effective)
                }
                _ => Vec::new(),
            };
            if !paths.is_empty() {
                let paths = paths.into_iter().map(|c| c.path).collect();
                out.push((service.to_string(), Outcome::Overridden { paths }));
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
        out.push((service.to_string(), outcome));
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
            // Every reader of an impact (diff's three formats, the pull
            // request's comment, the console's review) sees values under
            // secret-looking keys masked.
            let changes: Vec<_> = diff(&was.effective, &now.effective)
                .iter()
                .map(crate::plan::safe_text::mask_change)
                .collect();
            let (old_chart, new_chart) = (
                before.chart(ns, &was.template),
                after.chart(ns, &now.template),
            );
            let chart = (old_chart != new_chart).then(|| {
                let words = |chart: Option<&str>| chart.unwrap_or_default().to_string();
                (words(old_chart), words(new_chart))
            });
            (!changes.is_empty() || chart.is_some()).then_some(Outcome::Changes { changes, chart })
        }
    }
}

/// The wave of each cluster whose ClusterTemplate `proposal` changes, by
/// namespace and cluster name: the rollout planner's waves over the
/// clusters a rollout reaches (those given a revision already, and not
/// being deleted), under the template's policy as proposed. A policy that
/// breaks its rules plans no wave.
fn waves<'a>(
    fleet: &'a Fleet,
    proposal: &'a Fleet,
    reached: &[Reached<'a>],
) -> HashMap<&'a str, HashMap<String, Wave>> {
    let live = index(&fleet.cluster_templates);
    let mut out: HashMap<&str, HashMap<String, Wave>> = HashMap::new();
    for template in &proposal.cluster_templates {
        let (ns, name) = id(template);
        // A new revision only comes from a change to the services.
        let unchanged = live
            .get(&(ns, name))
            .is_some_and(|t| t.spec.services == template.spec.services);
        if unchanged {
            continue;
        }
        let policy = template.spec.rollout.clone().unwrap_or_default();
        let Ok(limits) = check_policy(&policy) else {
            continue;
        };
        // Its clusters after the change: all of them reached.
        let of_template = reached.iter().filter_map(|r| r.now).filter(|c| {
            c.metadata.namespace.as_deref().is_some_and(|n| n == ns) && c.spec.template == name
        });
        // The revision is not made yet: no cluster has it.
        let candidates = candidates(of_template, None);
        let Ok(planned) = plan_waves(&candidates, &policy) else {
            continue;
        };
        let of = planned.len() as u32;
        let waves = out.entry(ns).or_default();
        for (i, wave) in planned.into_iter().enumerate() {
            let number = i as u32 + 1;
            let approval = needs_approval(&policy, &limits, number);
            for cluster in wave.clusters {
                let wave = Wave {
                    number,
                    of,
                    approval,
                };
                waves.insert(cluster, wave);
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
                    // As the editor's diff and the rollout's preview say it.
                    .map(ToString::to_string),
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
mod tests;
