//! Which services a ManagedCluster should have, and with which values.
//!
//! Template services come first, in template order; a ManagedCluster entry
//! with the same name overrides values, namespace or disables the service; an
//! entry with a new name and a ServiceTemplate of its own adds a service to
//! that cluster alone. An entry with a new name and no ServiceTemplate only
//! overrides: it gives nothing until the template lists a service of its
//! name, so a template that drops a service removes it from every cluster,
//! also from those that set values for it ([`idle_overrides`]).
//!
//! A service whose ServiceTemplate states the Kubernetes versions its chart
//! supports (`k8sConstraint`) is not installed on a cluster whose template
//! states a version (`k8sVersion`) outside them; when either is not stated,
//! nothing is checked here and the chart's own `kubeVersion` is left to Helm.

use serde_json::Value;

use crate::api::{
    ClusterTemplateSpec, ManagedCluster, ManagedClusterSpec, ManagedService, MultiClusterService,
    ServiceState, ServiceTemplate, TemplateService,
};
use crate::plan::multi_cluster::{Selected, services_for};
use crate::plan::order::{Node, dependency_problems, install_order};
use crate::plan::parsed_values::{LayerError, ParsedValues};
use crate::plan::semver_constraint::{Constraint, Version};
use crate::plan::template::ErrorKind;
use crate::plan::values::{merge_layers, merge_overrides};
use crate::plan::values_data::ValuesData;

/// A service that can be installed now.
#[derive(Clone, Debug, PartialEq)]
pub struct DesiredService {
    pub name: String,
    /// Namespace in the child cluster.
    pub namespace: String,
    /// The ServiceTemplate it comes from.
    pub template: String,
    /// What Helm gets: ServiceTemplate < ClusterTemplate < ManagedCluster,
    /// explicit nulls kept so that Helm drops the chart default too.
    pub values: Value,
    /// What a person sees: chart defaults < … < ManagedCluster.
    pub effective: Value,
    /// Services of the cluster that must be Installed before this one is
    /// installed (`dependsOn`).
    pub after: Vec<String>,
}

/// A service the cluster should have but that cannot be installed yet.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockedService {
    pub name: String,
    pub namespace: String,
    pub template: Option<String>,
    pub state: ServiceState,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ServicePlan {
    Install(DesiredService),
    Blocked(BlockedService),
}

impl ServicePlan {
    pub fn name(&self) -> &str {
        match self {
            ServicePlan::Install(d) => &d.name,
            ServicePlan::Blocked(b) => &b.name,
        }
    }
}

/// One service a cluster gets, as [`enabled_services`] selects it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EnabledService<'a> {
    pub name: &'a str,
    /// The ClusterTemplate's entry, when the service comes from the template.
    pub template_entry: Option<&'a TemplateService>,
    /// The cluster's entry of the same name, when it has one.
    pub cluster_entry: Option<&'a ManagedService>,
    /// The MultiClusterService that gives it, whose entry is then
    /// `template_entry`; `None` for the cluster's own services.
    pub multi: Option<&'a str>,
}

impl<'a> EnabledService<'a> {
    /// The ServiceTemplate it comes from: the one the cluster's entry names,
    /// else the template entry's; `None` for a cluster service naming none.
    pub fn template(&self) -> Option<&'a str> {
        self.cluster_entry
            .and_then(|o| o.template.as_deref())
            .or(self.template_entry.map(|t| t.template.as_str()))
    }

    /// The services it waits for: the cluster entry's `dependsOn` when it
    /// gives one, else the template entry's.
    pub fn depends_on(&self) -> &'a [String] {
        self.cluster_entry
            .and_then(|o| o.depends_on.as_deref())
            .or(self.template_entry.map(|t| t.depends_on.as_slice()))
            .unwrap_or(&[])
    }
}

/// The one service-selection rule: the template's services in template
/// order unless the cluster disables them (its entry of the same name may
/// also swap the template, the namespace or add values), then the cluster's
/// own services the template does not have, unless disabled or naming no
/// ServiceTemplate (those are [`idle_overrides`]).
pub fn enabled_services<'a>(
    template: &'a [TemplateService],
    cluster: &'a [ManagedService],
) -> Vec<EnabledService<'a>> {
    let mut out = Vec::new();
    for ts in template {
        let over = cluster.iter().find(|s| s.name == ts.name);
        if over.is_some_and(|o| o.disable) {
            continue;
        }
        out.push(EnabledService {
            name: &ts.name,
            template_entry: Some(ts),
            cluster_entry: over,
            multi: None,
        });
    }
    for cs in cluster {
        if cs.disable || template.iter().any(|t| t.name == cs.name) || is_idle(cs) {
            continue;
        }
        out.push(EnabledService {
            name: &cs.name,
            template_entry: None,
            cluster_entry: Some(cs),
            multi: None,
        });
    }
    out
}

/// A cluster's entry that names no ServiceTemplate only overrides the
/// template's service of its name.
fn is_idle(entry: &ManagedService) -> bool {
    entry.template.as_deref().is_none_or(str::is_empty)
}

/// The cluster's entries that override a service the template does not
/// list (at the revision the cluster has) and name no ServiceTemplate of
/// their own: they give nothing, and a service they gave at an earlier
/// revision is uninstalled. Per-cluster values for a service a template
/// later drops are not a reason to keep it; the cluster's status names
/// them, as a misspelt name also lands here.
pub fn idle_overrides<'a>(
    template: &[TemplateService],
    cluster: &'a [ManagedService],
) -> Vec<&'a str> {
    cluster
        .iter()
        .filter(|cs| !cs.disable && is_idle(cs) && !template.iter().any(|t| t.name == cs.name))
        .map(|cs| cs.name.as_str())
        .collect()
}

/// The ServiceTemplates a cluster's enabled services come from, in service
/// order; a cluster service that names no template counts none.
pub fn service_templates_of<'a>(
    template: &'a [TemplateService],
    cluster: &'a [ManagedService],
) -> Vec<&'a str> {
    enabled_services(template, cluster)
        .iter()
        .filter_map(EnabledService::template)
        .collect()
}

/// Plans every enabled service of `cluster`, in install order: a service
/// after those it depends on, else in the order written (see
/// [`order`](crate::plan::order)). A service whose dependencies can never be
/// met (a name the cluster does not have, a cycle) is Failed and says why.
/// `lookup` finds a ServiceTemplate by name in the cluster's namespace.
pub fn plan_services<'a>(
    template: &ClusterTemplateSpec,
    cluster: &ManagedClusterSpec,
    data: &ValuesData,
    lookup: impl Fn(&str) -> Option<&'a ServiceTemplate>,
) -> Vec<ServicePlan> {
    let lookup = |name: &str| lookup(name).map(|st| st as &ServiceTemplate);
    plan_services_with(
        template,
        cluster,
        data,
        lookup,
        &mut ParsedValues::default(),
        true,
    )
}

/// [`plan_services`], with the values texts parsed through `parsed`, for
/// callers that plan many clusters over the same templates; without
/// `own_values`, as if the cluster's entries set no values (what its
/// templates alone give it).
pub fn plan_services_with<'t>(
    template: &'t ClusterTemplateSpec,
    cluster: &'t ManagedClusterSpec,
    data: &ValuesData,
    lookup: impl Fn(&str) -> Option<&'t ServiceTemplate>,
    parsed: &mut ParsedValues<'t>,
    own_values: bool,
) -> Vec<ServicePlan> {
    plan_services_selected(
        template,
        cluster,
        (data, &Selected::default()),
        lookup,
        parsed,
        own_values,
    )
}

/// Which source gives each service of `mc`, whose own services are its
/// template's `template_services` (at the revision it is given) and its own
/// entries, and which the MultiClusterServices `mcss` of its namespace
/// would give it: [`services_for`] over the names [`enabled_services`]
/// selects.
pub fn sources_of<'a>(
    template_services: &'a [TemplateService],
    mc: &'a ManagedCluster,
    mcss: &[&'a MultiClusterService],
) -> Selected<'a> {
    let own: Vec<&str> = enabled_services(template_services, &mc.spec.services)
        .iter()
        .map(|s| s.name)
        .collect();
    services_for(mc, &own, mcss)
}

/// [`plan_services_with`], with the services MultiClusterServices give the
/// cluster (`multi`, as [`services_for`](crate::plan::multi_cluster::services_for)
/// decided them): a service of the cluster's own that a MultiClusterService
/// wins is planned from the MultiClusterService's entry, over its
/// ServiceTemplate, where a ClusterTemplate's entry would sit (the
/// cluster's own entry does not apply to it); one in conflict is Failed,
/// naming whom it is between, and what is installed of it stays.
pub fn plan_services_selected<'t>(
    template: &'t ClusterTemplateSpec,
    cluster: &'t ManagedClusterSpec,
    (data, multi): (&ValuesData, &Selected<'t>),
    lookup: impl Fn(&str) -> Option<&'t ServiceTemplate>,
    parsed: &mut ParsedValues<'t>,
    own_values: bool,
) -> Vec<ServicePlan> {
    let k8s_version = template.k8s_version.as_deref();
    let mut enabled = enabled_services(&template.services, &cluster.services);
    enabled.retain(|s| multi.own_wins(s.name));
    enabled.extend(multi.multi_services().map(|(mcs, entry)| EnabledService {
        name: &entry.name,
        template_entry: Some(entry),
        cluster_entry: None,
        multi: Some(mcs),
    }));
    let nodes: Vec<Node<'_>> = enabled
        .iter()
        .map(|s| Node {
            name: s.name,
            depends_on: s.depends_on(),
        })
        .collect();
    let mut problems = dependency_problems(&nodes, "this cluster");
    let mut plans: Vec<ServicePlan> = enabled
        .iter()
        .map(|s| {
            let over = s.cluster_entry;
            let own_namespace = over
                .and_then(|o| o.namespace.clone())
                .filter(|n| !n.is_empty());
            let own_values = over
                .and_then(|o| o.values.as_deref())
                .filter(|_| own_values);
            let own_values = ("this cluster", own_values);
            let template_name = s.template().map(str::to_string);
            let plan = match s.template_entry {
                Some(ts) => {
                    let namespace =
                        own_namespace.unwrap_or_else(|| ts.target_namespace().to_string());
                    let whose = match s.multi {
                        Some(mcs) => format!("MultiClusterService {mcs}"),
                        None => "the cluster template".to_string(),
                    };
                    let layers = [(whose.as_str(), ts.values.as_deref()), own_values];
                    let target = (s.name, namespace, k8s_version);
                    plan_one(target, template_name, &layers, &lookup, (parsed, data))
                }
                None => {
                    let namespace = own_namespace.unwrap_or_else(|| s.name.to_string());
                    let target = (s.name, namespace, k8s_version);
                    plan_one(
                        target,
                        template_name,
                        &[own_values],
                        &lookup,
                        (parsed, data),
                    )
                }
            };
            match plan {
                ServicePlan::Install(d) => ServicePlan::Install(DesiredService {
                    after: s.depends_on().to_vec(),
                    ..d
                }),
                blocked => blocked,
            }
        })
        .collect();
    for (i, why) in problems.drain(..) {
        let plan = &mut plans[i];
        let (name, namespace, template) = match plan {
            ServicePlan::Install(d) => (
                d.name.clone(),
                d.namespace.clone(),
                Some(d.template.clone()),
            ),
            ServicePlan::Blocked(b) => (b.name.clone(), b.namespace.clone(), b.template.clone()),
        };
        *plan = ServicePlan::Blocked(BlockedService {
            name,
            namespace,
            template,
            state: ServiceState::Failed,
            message: format!("{why}: fix its dependsOn"),
        });
    }
    let mut slots: Vec<Option<ServicePlan>> = plans.into_iter().map(Some).collect();
    let mut ordered: Vec<ServicePlan> = install_order(&nodes)
        .into_iter()
        .filter_map(|i| slots[i].take())
        .collect();
    ordered.extend(multi.conflicts().map(|d| {
        let own = template.services.iter().find(|t| t.name == d.name);
        let namespace =
            own.map_or_else(|| d.name.to_string(), |t| t.target_namespace().to_string());
        ServicePlan::Blocked(BlockedService {
            name: d.name.to_string(),
            namespace,
            template: own.map(|t| t.template.clone()),
            state: ServiceState::Failed,
            message: d.message().unwrap_or_default(),
        })
    }));
    ordered
}

/// Plans one service: its name, its namespace and the Kubernetes version of
/// the cluster (when the cluster template states one), from its template.
fn plan_one<'t>(
    (name, namespace, k8s_version): (&str, String, Option<&str>),
    template: Option<String>,
    layers: &[(&str, Option<&'t str>)],
    lookup: &impl Fn(&str) -> Option<&'t ServiceTemplate>,
    (parsed, data): (&mut ParsedValues<'t>, &ValuesData),
) -> ServicePlan {
    let blocked = |state, message: String| {
        ServicePlan::Blocked(BlockedService {
            name: name.to_string(),
            namespace: namespace.clone(),
            template: template.clone(),
            state,
            message,
        })
    };
    let Some(template_name) = template.clone().filter(|t| !t.is_empty()) else {
        return blocked(
            ServiceState::Failed,
            format!("service {name} is not in the cluster template, so it needs a template"),
        );
    };
    let Some(st) = lookup(&template_name) else {
        return blocked(
            ServiceState::Failed,
            format!(
                "service template {template_name} does not exist; create it or fix the service's template"
            ),
        );
    };
    let status = st.status.as_ref();
    if !status.is_some_and(|s| s.valid) {
        let why = status
            .and_then(|s| s.validation_error.as_deref())
            .unwrap_or("its chart has not been fetched yet");
        return blocked(
            ServiceState::Pending,
            format!("service template {template_name} is not ready: {why}"),
        );
    }
    let constraint = status
        .and_then(|s| s.k8s_constraint.as_deref())
        .or(st.spec.k8s_constraint.as_deref());
    if let Some(why) = k8s_mismatch(name, constraint, k8s_version) {
        return blocked(ServiceState::Failed, why);
    }
    let own = st.spec.values.as_deref().unwrap_or("");
    let own_whose = format!("service template {template_name}");
    let texts = std::iter::once((own_whose.as_str(), Some(own))).chain(layers.iter().copied());
    let mut rendered = Vec::with_capacity(layers.len() + 1);
    for (whose, text) in texts {
        match parsed.layer(text.unwrap_or(""), data) {
            Ok(layer) => rendered.push(layer),
            Err(e) => {
                let whose = if whose == own_whose {
                    whose.to_string()
                } else {
                    format!("service {name} in {whose}")
                };
                let (state, message) = layer_problem(&whose, &e, data);
                return blocked(state, message);
            }
        }
    }
    // Every layer above, and without an error.
    let layers: Vec<&Value> = rendered.iter().filter_map(|l| parsed.value(l)).collect();
    let no_defaults = Value::Object(Default::default());
    let defaults = status
        .and_then(|s| s.config.as_ref())
        .unwrap_or(&no_defaults);
    let values = merge_overrides(layers.iter().copied());
    let effective = merge_layers(std::iter::once(defaults).chain(layers.iter().copied()));
    ServicePlan::Install(DesiredService {
        name: name.to_string(),
        namespace,
        template: template_name,
        values,
        effective,
        after: Vec::new(),
    })
}

/// A Kubernetes version as a cluster template states it (`1.29`, `v1.29.3`,
/// `v1.30.2+k0s.0`, `v1.29.3+k3s1`), read as hmc reads it: Masterminds
/// semver's `NewVersion` (not `StrictNewVersion`), the call hmc makes on a
/// ClusterTemplate's `k8sVersion` before taking it into its status and
/// again before checking services against it. A missing minor or patch
/// number is 0, a lowercase `v` is dropped, build metadata (`+k0s.0`) is
/// kept but never compared; no spaces.
pub fn kube_version(text: &str) -> Result<Version, String> {
    Version::parse(text).map_err(|e| {
        format!("\"{text}\" is not a Kubernetes version such as 1.29 or v1.29.3 ({e})")
    })
}

/// A range of Kubernetes versions as a ServiceTemplate states it, read as
/// hmc reads it: Masterminds semver's `NewConstraint`. Comparisons are
/// joined by spaces or commas, alternatives by `||`; `1.29` is 1.29.x and
/// `1.28 - 1.30` a range (see [`crate::plan::semver_constraint`]).
pub fn kube_constraint(text: &str) -> Result<Constraint, String> {
    Constraint::parse(text).map_err(|e| {
        format!(
            "\"{text}\" is not a Kubernetes version constraint as hmc reads it (Masterminds semver): \
             {e}; write for example >=1.30, 1.29, >=1.28 <1.31, 1.28 - 1.30 or ^1.29 || ^1.31"
        )
    })
}

/// Why service `service`, whose chart supports the Kubernetes versions
/// `constraint`, cannot go to a cluster running `cluster_version`: `None`
/// when the version is admitted, or when either is not stated (nothing is
/// known to check against, as in hmc). Admitted is what hmc's
/// `Constraints.Check` says: a pre-release cluster version only where the
/// constraint states a pre-release itself.
pub fn k8s_mismatch(
    service: &str,
    constraint: Option<&str>,
    cluster_version: Option<&str>,
) -> Option<String> {
    let constraint = constraint.map(str::trim).filter(|c| !c.is_empty())?;
    let stated = cluster_version.map(str::trim).filter(|v| !v.is_empty())?;
    let req = match kube_constraint(constraint) {
        Ok(req) => req,
        Err(e) => {
            return Some(format!(
                "cannot check {service} against Kubernetes {stated}: {e}"
            ));
        }
    };
    let version = match kube_version(stated) {
        Ok(v) => v,
        Err(e) => return Some(format!("cannot check {service} against the cluster: {e}")),
    };
    let runs = stated.strip_prefix('v').unwrap_or(stated);
    (!req.matches(&version))
        .then(|| format!("{service} needs Kubernetes {constraint}, cluster runs {runs}"))
}

/// What is wrong with values that cannot be used, before the details.
/// What a layer that gives no values means for the service: its state and
/// the message that names the layer (`whose`), what is wrong, and where.
/// A template that reads the Cluster before Cluster API made it waits; any
/// other problem is the text's, and the service fails until it is fixed.
fn layer_problem(whose: &str, e: &LayerError, data: &ValuesData) -> (ServiceState, String) {
    let verdict = match e {
        LayerError::Template(t) if t.kind == ErrorKind::Parse => "are not a valid template",
        LayerError::Template(_) if !data.has_cluster() => {
            return (
                ServiceState::Pending,
                format!("values of {whose} are a template; they render for each cluster: {e}"),
            );
        }
        LayerError::Template(_) if !data.has_capi_cluster() => {
            return (
                ServiceState::Pending,
                format!(
                    "values of {whose} wait for Cluster {} to exist, as they read the cluster: {e}",
                    data.cluster_name()
                ),
            );
        }
        LayerError::Template(t) => {
            let why = match &t.missing {
                Some(missing) => format!("{}: {}", t.pos, data.explain(missing)),
                None => t.to_string(),
            };
            return (
                ServiceState::Failed,
                format!("values of {whose} do not render for this cluster: {why}"),
            );
        }
        e if e.is_limit() => "are too large",
        _ => "are not valid",
    };
    (
        ServiceState::Failed,
        format!("values of {whose} {verdict}: {e}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{
        HelmSpec, ManagedService, ServiceTemplateSpec, TemplateService, TemplateStatus,
    };
    use serde_json::json;

    fn st(name: &str, values: Option<&str>, valid: bool) -> ServiceTemplate {
        let mut t = ServiceTemplate::new(
            name,
            ServiceTemplateSpec {
                helm: HelmSpec::default(),
                k8s_constraint: None,
                values: values.map(String::from),
            },
        );
        t.status = Some(TemplateStatus {
            valid,
            validation_error: (!valid).then(|| "chart x 1.0 not found in repository r".into()),
            config: Some(
                json!({"controller": {"replicaCount": 1, "service": {"type": "LoadBalancer"}, "extra": 1}}),
            ),
            ..Default::default()
        });
        t
    }

    fn template(values: &str) -> ClusterTemplateSpec {
        ClusterTemplateSpec {
            services: vec![TemplateService {
                name: "ingress-nginx".into(),
                template: "ingress-nginx-4-11-3".into(),
                namespace: None,
                values: Some(values.into()),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn cluster(services: Vec<ManagedService>) -> ManagedClusterSpec {
        ManagedClusterSpec {
            template: "t".into(),
            services,
            ..Default::default()
        }
    }

    #[test]
    fn values_parsed_once_plan_as_values_parsed_each_time() {
        let sts = [
            st(
                "ingress-nginx-4-11-3",
                Some("controller: {replicaCount: 2}"),
                true,
            ),
            st("broken-1", Some("a: [1"), true),
        ];
        let lookup = |n: &str| sts.iter().find(|s| s.metadata.name.as_deref() == Some(n));
        let own = |values: &str| ManagedService {
            name: "ingress-nginx".into(),
            values: Some(values.into()),
            ..Default::default()
        };
        let broken = ManagedService {
            name: "broken".into(),
            template: Some("broken-1".into()),
            ..Default::default()
        };
        let clusters = [
            cluster(vec![]),
            cluster(vec![own("controller: {kind: DaemonSet}")]),
            cluster(vec![own("controller: {kind: DaemonSet}"), broken]),
            cluster(vec![own("controller: [")]),
            cluster(vec![own("controller: {replicaCount: null}")]),
        ];
        let templates = [template("controller: {replicaCount: 3}"), template("x: [")];
        let mut parsed = ParsedValues::default();
        for template in &templates {
            for mc in clusters.iter().chain(&clusters) {
                assert_eq!(
                    plan_services_with(
                        template,
                        mc,
                        &ValuesData::none(),
                        lookup,
                        &mut parsed,
                        true
                    ),
                    plan_services(template, mc, &ValuesData::none(), lookup)
                );
                // Without its own values: as if its entries set none.
                let mut bare = mc.clone();
                for s in &mut bare.services {
                    s.values = None;
                }
                assert_eq!(
                    plan_services_with(
                        template,
                        mc,
                        &ValuesData::none(),
                        lookup,
                        &mut parsed,
                        false
                    ),
                    plan_services(template, &bare, &ValuesData::none(), lookup)
                );
            }
        }
    }

    #[test]
    fn one_rule_selects_the_services_and_their_templates() {
        let mut template = template("");
        template.services.push(TemplateService {
            name: "cert-manager".into(),
            template: "cert-manager-1-16-2".into(),
            ..Default::default()
        });
        let entry = |name: &str, template: Option<&str>, disable: bool| ManagedService {
            name: name.into(),
            template: template.map(String::from),
            disable,
            ..Default::default()
        };
        let mc = cluster(vec![
            entry("cert-manager", None, true),
            entry("ingress-nginx", Some("ingress-nginx-4-11-4"), false),
            entry("external-dns", Some("external-dns-1-15-0"), false),
            entry("no-template", None, false),
        ]);
        let enabled = enabled_services(&template.services, &mc.services);
        let names: Vec<&str> = enabled.iter().map(|s| s.name).collect();
        assert_eq!(names, ["ingress-nginx", "external-dns"]);
        assert_eq!(
            idle_overrides(&template.services, &mc.services),
            ["no-template"]
        );
        assert_eq!(
            service_templates_of(&template.services, &mc.services),
            ["ingress-nginx-4-11-4", "external-dns-1-15-0"]
        );
        // The planner plans exactly the selected services.
        let plans = plan_services(&template, &mc, &ValuesData::none(), |_| None);
        let planned: Vec<&str> = plans.iter().map(ServicePlan::name).collect();
        assert_eq!(planned, names);
    }

    #[test]
    fn values_follow_precedence_and_namespace_defaults_to_name() {
        let sts = [st(
            "ingress-nginx-4-11-3",
            Some("controller:\n  replicaCount: 5\n  extra: null\n"),
            true,
        )];
        let lookup = |n: &str| sts.iter().find(|s| s.metadata.name.as_deref() == Some(n));
        let mc = cluster(vec![ManagedService {
            name: "ingress-nginx".into(),
            values: Some("controller:\n  replicaCount: 2\n".into()),
            ..Default::default()
        }]);
        let plans = plan_services(
            &template("controller:\n  service:\n    type: ClusterIP\n"),
            &mc,
            &ValuesData::none(),
            lookup,
        );
        let ServicePlan::Install(d) = &plans[0] else {
            panic!("{plans:?}")
        };
        assert_eq!(d.namespace, "ingress-nginx");
        assert_eq!(
            d.values,
            json!({"controller": {"replicaCount": 2, "extra": null, "service": {"type": "ClusterIP"}}})
        );
        assert_eq!(
            d.effective,
            json!({"controller": {"replicaCount": 2, "service": {"type": "ClusterIP"}}})
        );
    }

    #[test]
    fn disabled_services_are_not_planned_and_new_names_are_added() {
        let sts = [
            st("ingress-nginx-4-11-3", None, true),
            st("cert-manager-1-0", None, true),
        ];
        let lookup = |n: &str| sts.iter().find(|s| s.metadata.name.as_deref() == Some(n));
        let mc = cluster(vec![
            ManagedService {
                name: "ingress-nginx".into(),
                disable: true,
                ..Default::default()
            },
            ManagedService {
                name: "cert-manager".into(),
                template: Some("cert-manager-1-0".into()),
                namespace: Some("cm".into()),
                ..Default::default()
            },
        ]);
        let plans = plan_services(&template(""), &mc, &ValuesData::none(), lookup);
        assert_eq!(plans.len(), 1);
        let ServicePlan::Install(d) = &plans[0] else {
            panic!("{plans:?}")
        };
        assert_eq!(
            (d.name.as_str(), d.namespace.as_str()),
            ("cert-manager", "cm")
        );
    }

    #[test]
    fn bad_input_blocks_only_that_service_with_a_clear_message() {
        let sts = [
            st("ingress-nginx-4-11-3", None, true),
            st("broken-1", None, false),
        ];
        let lookup = |n: &str| sts.iter().find(|s| s.metadata.name.as_deref() == Some(n));
        let mc = cluster(vec![
            ManagedService {
                name: "ingress-nginx".into(),
                values: Some("a: [1, 2\n".into()),
                ..Default::default()
            },
            ManagedService {
                name: "missing".into(),
                template: Some("nope".into()),
                ..Default::default()
            },
            ManagedService {
                name: "broken".into(),
                template: Some("broken-1".into()),
                ..Default::default()
            },
            ManagedService {
                name: "orphan".into(),
                ..Default::default()
            },
        ]);
        let plans = plan_services(&template(""), &mc, &ValuesData::none(), lookup);
        let msgs: Vec<(ServiceState, String)> = plans
            .iter()
            .map(|p| match p {
                ServicePlan::Blocked(b) => (b.state, b.message.clone()),
                ServicePlan::Install(d) => panic!("{d:?} should be blocked"),
            })
            .collect();
        assert_eq!(msgs[0].0, ServiceState::Failed);
        assert!(
            msgs[0]
                .1
                .starts_with("values of service ingress-nginx in this cluster are not valid: line"),
            "{}",
            msgs[0].1
        );
        assert!(
            msgs[1].1.contains("service template nope does not exist"),
            "{}",
            msgs[1].1
        );
        assert_eq!(msgs[2].0, ServiceState::Pending);
        assert!(
            msgs[2].1.contains("not found in repository"),
            "{}",
            msgs[2].1
        );
        // An entry that names no template overrides a service the template
        // does not list: it gives nothing, and the cluster's status names it.
        assert_eq!(msgs.len(), 3, "{msgs:?}");
        assert_eq!(
            idle_overrides(&template("").services, &mc.services),
            ["orphan"]
        );
    }

    #[test]
    fn kubernetes_versions_read_as_hmc_reads_them() {
        let v = |t: &str| kube_version(t).map(|v| v.to_string());
        assert_eq!(v("v1.29.3").unwrap(), "1.29.3");
        assert_eq!(v("1.29").unwrap(), "1.29.0");
        assert_eq!(v("v1").unwrap(), "1.0.0");
        assert_eq!(v("v1.30.2+k0s.0").unwrap(), "1.30.2+k0s.0");
        assert_eq!(v("v1.29.3+k3s1").unwrap(), "1.29.3+k3s1");
        assert_eq!(v("1.31-rc.1").unwrap(), "1.31.0-rc.1");
        assert_eq!(v("1.029").unwrap(), "1.29.0");
        let e = v("latest").unwrap_err();
        assert!(
            e.starts_with("\"latest\" is not a Kubernetes version such as 1.29 or v1.29.3 ("),
            "{e}"
        );
        // hmc's NewVersion refuses these too.
        for refused in ["1.x", "", " 1.29", "V1.29", "1.2.3.4"] {
            assert!(v(refused).is_err(), "{refused:?}");
        }
    }

    #[test]
    fn constraints_read_as_hmc_reads_them() {
        for ok in [
            ">=1.30",
            ">=1.21.0-0",
            "~1.29",
            "<1.31, >=1.28",
            ">= 1.28",
            "1.29.*",
            "1.29",
            ">=1.28 <1.31",
            "1.28 - 1.30",
            "^1.29 || ^1.31",
            ">=1.28 || <1.20",
            " >=1.30 ",
        ] {
            assert!(kube_constraint(ok).is_ok(), "{ok}");
        }
        let e = kube_constraint("1.2.3 ||| 2").unwrap_err();
        assert_eq!(
            e,
            "\"1.2.3 ||| 2\" is not a Kubernetes version constraint as hmc reads it \
             (Masterminds semver): \"|\" is not a version: expected one to three numbers \
             such as 1.29 or v1.29.3, then optionally -pre.release and +build; write for \
             example >=1.30, 1.29, >=1.28 <1.31, 1.28 - 1.30 or ^1.29 || ^1.31"
        );
        let e = kube_constraint("banana").unwrap_err();
        assert!(
            e.starts_with(
                "\"banana\" is not a Kubernetes version constraint as hmc reads it \
                 (Masterminds semver): \"banana\" is not comparisons"
            ),
            "{e}"
        );
        let long = format!(">={}", "0".repeat(2000));
        let e = kube_constraint(&long).unwrap_err();
        assert!(
            e.contains("(Masterminds semver): it is 2002 bytes long, more than the 1024 read;"),
            "{e}"
        );
    }

    #[test]
    fn a_constraint_admits_or_refuses_the_clusters_version() {
        let m = |c: &str, v: &str| k8s_mismatch("ingress-nginx", Some(c), Some(v));
        assert_eq!(
            m(">=1.30", "1.29").as_deref(),
            Some("ingress-nginx needs Kubernetes >=1.30, cluster runs 1.29")
        );
        assert_eq!(
            m(">=1.30", "v1.29.3").as_deref(),
            Some("ingress-nginx needs Kubernetes >=1.30, cluster runs 1.29.3")
        );
        assert_eq!(m(">=1.30", "v1.30.1"), None);
        assert_eq!(m(">=1.21.0-0", "1.29.0"), None);
        assert_eq!(m("~1.29", "1.29.3"), None);
        assert!(m("~1.29", "1.30.0").is_some());
        assert_eq!(m("<1.31, >=1.28", "1.30.9"), None);
        assert!(m("<1.31, >=1.28", "1.31.0").is_some());
        // hmc's meanings: a bare version is its patch releases, spaces
        // join, `||` gives alternatives, build metadata does not count.
        assert_eq!(m("1.29", "v1.29.3+k3s1"), None);
        assert_eq!(
            m("1.29", "1.30.0").as_deref(),
            Some("ingress-nginx needs Kubernetes 1.29, cluster runs 1.30.0")
        );
        assert_eq!(m(">=1.28 <1.31", "v1.30.2+k0s.0"), None);
        assert!(m(">=1.28 <1.31", "v1.31.0+k0s.0").is_some());
        assert_eq!(m("1.28 - 1.30", "1.30.9"), None);
        assert_eq!(m("^1.29 || ^1.31", "1.32.0"), None);
        assert_eq!(m("1.29.x || 1.31.x", "1.31.2"), None);
        assert!(m("1.29.x || 1.31.x", "1.30.2").is_some());
        // A pre-release cluster only where the constraint states one.
        assert!(m(">=1.28", "v1.29.3-gke.100").is_some());
        assert_eq!(m(">=1.28.0-0", "v1.29.3-gke.100"), None);
        // Nothing is known to check against: nothing is said.
        assert_eq!(k8s_mismatch("x", Some(">=1.30"), None), None);
        assert_eq!(k8s_mismatch("x", Some(">=1.30"), Some(" ")), None);
        assert_eq!(k8s_mismatch("x", None, Some("1.29")), None);
        assert_eq!(k8s_mismatch("x", Some(""), Some("1.29")), None);
        let bad = m(">=1.30", "newest").unwrap();
        assert!(
            bad.starts_with("cannot check ingress-nginx against the cluster: \"newest\""),
            "{bad}"
        );
        let bad = m(">=1.30 |||", "1.30").unwrap();
        assert!(
            bad.starts_with("cannot check ingress-nginx against Kubernetes 1.30: \">=1.30 |||\""),
            "{bad}"
        );
    }

    #[test]
    fn a_service_outside_the_clusters_kubernetes_is_not_installed() {
        let with = |name: &str, spec: Option<&str>, status: Option<&str>| {
            let mut t = st(name, None, true);
            t.spec.k8s_constraint = spec.map(String::from);
            if let Some(s) = t.status.as_mut() {
                s.k8s_constraint = status.map(String::from);
            }
            t
        };
        let sts = [
            with("ingress-nginx-4-11-3", Some(">=1.30"), Some(">=1.30")),
            with("old-1", Some(">=1.28, <1.31"), None),
            // What the engine read from the chart's annotation.
            with("annotated-1", None, Some(">=1.31")),
        ];
        let lookup = |n: &str| sts.iter().find(|s| s.metadata.name.as_deref() == Some(n));
        let service = |name: &str, template: &str| ManagedService {
            name: name.into(),
            template: Some(template.into()),
            ..Default::default()
        };
        let mc = cluster(vec![service("old", "old-1"), service("new", "annotated-1")]);
        let mut template = template("");
        template.k8s_version = Some("1.29.0".into());
        let plans = plan_services(&template, &mc, &ValuesData::none(), lookup);
        let ServicePlan::Blocked(b) = &plans[0] else {
            panic!("{plans:?}")
        };
        assert_eq!(
            (b.state, b.message.as_str(), b.template.as_deref()),
            (
                ServiceState::Failed,
                "ingress-nginx needs Kubernetes >=1.30, cluster runs 1.29.0",
                Some("ingress-nginx-4-11-3")
            )
        );
        assert!(matches!(&plans[1], ServicePlan::Install(d) if d.name == "old"));
        assert!(
            matches!(&plans[2], ServicePlan::Blocked(b) if b.message == "new needs Kubernetes >=1.31, cluster runs 1.29.0"),
            "{:?}",
            plans[2]
        );
        // A cluster template that states no version: nothing is checked.
        template.k8s_version = None;
        let plans = plan_services(&template, &mc, &ValuesData::none(), lookup);
        assert!(plans.iter().all(|p| matches!(p, ServicePlan::Install(_))));
    }

    #[test]
    fn values_over_a_limit_block_only_that_service() {
        let bomb = format!(
            "a: &a [{}]\nb: [{}]\n",
            vec!["x"; 10_000].join(","),
            vec!["*a"; 10_000].join(",")
        );
        let wide = format!("a: 1\n# {}\n", "é".repeat(70_000));
        let sts = [
            st("ingress-nginx-4-11-3", None, true),
            st("web-1", Some(&wide), true),
        ];
        let lookup = |n: &str| sts.iter().find(|s| s.metadata.name.as_deref() == Some(n));
        let mc = cluster(vec![
            ManagedService {
                name: "ingress-nginx".into(),
                values: Some(bomb),
                ..Default::default()
            },
            ManagedService {
                name: "web".into(),
                template: Some("web-1".into()),
                ..Default::default()
            },
            ManagedService {
                name: "sound".into(),
                template: Some("ingress-nginx-4-11-3".into()),
                values: Some("a: &x {b: 1}\nc: *x\n".into()),
                ..Default::default()
            },
        ]);
        let plans = plan_services(&template(""), &mc, &ValuesData::none(), lookup);
        let blocked = |i: usize| match &plans[i] {
            ServicePlan::Blocked(b) => (b.state, b.message.clone()),
            ServicePlan::Install(d) => panic!("{d:?} should be blocked"),
        };
        assert_eq!(
            blocked(0),
            (
                ServiceState::Failed,
                "values of service ingress-nginx in this cluster are too large: more than 100,000 nodes after expanding aliases".into()
            )
        );
        assert_eq!(
            blocked(1),
            (
                ServiceState::Failed,
                format!(
                    "values of service template web-1 are too large: {} bytes, more than the limit of 131,072",
                    crate::plan::yaml::group(wide.len())
                )
            )
        );
        let ServicePlan::Install(d) = &plans[2] else {
            panic!("{:?}", plans[2])
        };
        assert_eq!(d.values, json!({"a": {"b": 1}, "c": {"b": 1}}));
    }
}

#[cfg(test)]
mod order_tests {
    use super::*;
    use crate::api::{ServiceTemplateSpec, TemplateStatus};

    fn valid(name: &str) -> ServiceTemplate {
        let mut t = ServiceTemplate::new(name, ServiceTemplateSpec::default());
        t.status = Some(TemplateStatus {
            valid: true,
            ..Default::default()
        });
        t
    }

    fn service(name: &str, after: &[&str]) -> TemplateService {
        TemplateService {
            name: name.into(),
            template: name.into(),
            depends_on: after.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    /// ingress-nginx written first, waiting for cert-manager.
    fn ingress_after_cert_manager() -> ClusterTemplateSpec {
        ClusterTemplateSpec {
            services: vec![
                service("ingress-nginx", &["cert-manager"]),
                service("cert-manager", &[]),
            ],
            ..Default::default()
        }
    }

    fn plan(template: &ClusterTemplateSpec, cluster: &ManagedClusterSpec) -> Vec<ServicePlan> {
        let sts: Vec<ServiceTemplate> = ["cert-manager", "ingress-nginx", "monitoring", "extra"]
            .into_iter()
            .map(valid)
            .collect();
        plan_services(template, cluster, &ValuesData::none(), |n| {
            sts.iter().find(|s| s.metadata.name.as_deref() == Some(n))
        })
    }

    #[test]
    fn services_are_planned_after_what_they_depend_on() {
        let template = ClusterTemplateSpec {
            services: vec![
                service("ingress-nginx", &["cert-manager"]),
                service("monitoring", &[]),
                service("cert-manager", &[]),
            ],
            ..Default::default()
        };
        let plans = plan(&template, &ManagedClusterSpec::default());
        let names: Vec<&str> = plans.iter().map(ServicePlan::name).collect();
        assert_eq!(names, ["monitoring", "cert-manager", "ingress-nginx"]);
        let ServicePlan::Install(ingress) = &plans[2] else {
            panic!("{plans:?}")
        };
        assert_eq!(ingress.after, ["cert-manager"]);
    }

    #[test]
    fn a_cluster_entry_replaces_the_dependencies_and_may_add_its_own() {
        let template = ingress_after_cert_manager();
        let cluster = ManagedClusterSpec {
            services: vec![
                ManagedService {
                    name: "ingress-nginx".into(),
                    depends_on: Some(vec![]),
                    ..Default::default()
                },
                ManagedService {
                    name: "extra".into(),
                    template: Some("extra".into()),
                    depends_on: Some(vec!["ingress-nginx".into()]),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let plans = plan(&template, &cluster);
        let names: Vec<&str> = plans.iter().map(ServicePlan::name).collect();
        assert_eq!(names, ["ingress-nginx", "cert-manager", "extra"]);
        let ServicePlan::Install(extra) = &plans[2] else {
            panic!("{plans:?}")
        };
        assert_eq!(extra.after, ["ingress-nginx"]);
    }

    #[test]
    fn depending_on_a_disabled_service_fails_with_the_reason() {
        let template = ingress_after_cert_manager();
        let cluster = ManagedClusterSpec {
            services: vec![ManagedService {
                name: "cert-manager".into(),
                disable: true,
                ..Default::default()
            }],
            ..Default::default()
        };
        let plans = plan(&template, &cluster);
        let [ServicePlan::Blocked(b)] = plans.as_slice() else {
            panic!("{plans:?}")
        };
        assert_eq!(b.state, ServiceState::Failed);
        assert_eq!(
            b.message,
            "ingress-nginx depends on cert-manager, which is not a service of this cluster: fix its dependsOn"
        );
    }

    #[test]
    fn a_cycle_made_by_the_cluster_fails_its_members_only() {
        let template = ClusterTemplateSpec {
            services: vec![
                service("ingress-nginx", &[]),
                service("cert-manager", &[]),
                service("monitoring", &[]),
            ],
            ..Default::default()
        };
        let entry = |name: &str, after: &str| ManagedService {
            name: name.into(),
            depends_on: Some(vec![after.into()]),
            ..Default::default()
        };
        let cluster = ManagedClusterSpec {
            services: vec![
                entry("ingress-nginx", "cert-manager"),
                entry("cert-manager", "ingress-nginx"),
            ],
            ..Default::default()
        };
        let plans = plan(&template, &cluster);
        let states: Vec<(&str, bool)> = plans
            .iter()
            .map(|p| (p.name(), matches!(p, ServicePlan::Install(_))))
            .collect();
        assert_eq!(
            states,
            [
                ("monitoring", true),
                ("ingress-nginx", false),
                ("cert-manager", false)
            ]
        );
        let ServicePlan::Blocked(b) = &plans[1] else {
            panic!("{plans:?}")
        };
        assert!(
            b.message
                .contains("dependency cycle: ingress-nginx → cert-manager → ingress-nginx"),
            "{}",
            b.message
        );
    }
}
