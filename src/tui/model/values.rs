//! The values the console shows, computed the way the engine computes them
//! ([`plan_services`]):
//!
//! - on a cluster, what Helm gets for one service: chart defaults <
//!   ServiceTemplate < ClusterTemplate entry < ManagedCluster entry, with
//!   the template's services of the revision the cluster is given;
//! - on a ClusterTemplate, what every cluster made from it gets for one
//!   service before its own overrides;
//! - on a ServiceTemplate, its chart's defaults under its own values.
//!
//! Pure: data in, values out. Values come only from the objects' specs and
//! statuses; no Secret is ever read.

use kube::ResourceExt;

use crate::api::{
    ClusterTemplate, ClusterTemplateSpec, ManagedCluster, ManagedClusterSpec, ServiceState,
    ServiceTemplate, TemplateService,
};
use crate::plan::parsed_values::ParsedValues;
use crate::plan::safe_text::mask_value;
use crate::plan::services::{ServicePlan, plan_services, plan_services_selected, sources_of};
use crate::plan::values::to_yaml;
use crate::plan::values_data::ValuesData;
use crate::tui::model::key::{Kind, KubeContext, Obj, ObjKey};
use crate::tui::model::snapshot::Snapshot;

/// Which values are edited: one service of one object.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EditKey {
    /// A ManagedCluster or a ClusterTemplate.
    pub object: ObjKey,
    pub service: String,
}

/// Whose values: one service of a ManagedCluster or of a ClusterTemplate,
/// or a ServiceTemplate (no service).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValuesKey {
    pub object: ObjKey,
    pub service: Option<String>,
}

/// The values, or why there are none to show.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// The merged values, chart defaults included, as a person reads them.
    Merged(serde_json::Value),
    /// The service cannot be installed now: the engine's reason.
    Blocked {
        state: ServiceState,
        message: String,
    },
    /// Nothing to show, and why.
    Nothing(String),
}

impl Values {
    /// What is shown, line by line: the YAML, or the reason.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Values::Merged(v) => to_yaml(v).lines().map(str::to_string).collect(),
            Values::Blocked { message, .. } | Values::Nothing(message) => vec![message.clone()],
        }
    }
}

/// The values of one service, with where they come from.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// The layers, lowest first: `chart defaults < ServiceTemplate x < …`;
    /// empty when there are no values.
    pub layers: String,
    /// The ClusterTemplate revision whose services a cluster is given, when
    /// known.
    pub revision: Option<i64>,
    pub values: Values,
}

impl Shown {
    fn nothing(why: String) -> Shown {
        Shown {
            layers: String::new(),
            revision: None,
            values: Values::Nothing(why),
        }
    }
}

/// The template services a cluster is given, and their revision: those of
/// its target revision when the template still remembers it, else the
/// template's current services (revision `None`).
pub fn services_given(
    ct: &ClusterTemplate,
    mc: &ManagedCluster,
) -> (Option<i64>, ClusterTemplateSpec) {
    let remembered = mc
        .status
        .as_ref()
        .and_then(|s| s.target_revision)
        .and_then(|r| Some((r, ct.spec_at(r)?)));
    match remembered {
        Some((revision, spec)) => (Some(revision), spec),
        None => (None, ct.spec.clone()),
    }
}

/// The values `key` names, from the snapshot.
pub fn shown(data: &Snapshot, key: &ValuesKey) -> Shown {
    let (ctx, ns, name) = (&key.object.context, &key.object.namespace, &key.object.name);
    let gone = || {
        Shown::nothing(format!(
            "{} {ns}/{name} no longer exists",
            key.object.kind.label()
        ))
    };
    match (key.object.kind, key.service.as_deref()) {
        (Kind::ManagedCluster, Some(service)) => data
            .cluster(ctx, ns, name)
            .map_or_else(gone, |mc| cluster(data, mc, service)),
        (Kind::ClusterTemplate, Some(service)) => data
            .cluster_template(ctx, ns, name)
            .map_or_else(gone, |ct| template(data, ct, service)),
        (Kind::ServiceTemplate, _) => data
            .service_template(ctx, ns, name)
            .map_or_else(gone, |st| service_template(st)),
        _ => Shown::nothing("no service selected".into()),
    }
}

/// Finds a ServiceTemplate by name in `ns` of `context`.
pub(crate) fn lookup<'a>(
    data: &'a Snapshot,
    context: &'a KubeContext,
    ns: &'a str,
) -> impl Fn(&str) -> Option<&'a ServiceTemplate> {
    move |name| data.service_template(context, ns, name).map(|s| s.as_ref())
}

/// What one plan of `service` gives: the merged values, the engine's reason,
/// or `None` when the service is not planned.
fn from_plans(plans: &[ServicePlan], service: &str) -> Option<(Option<String>, Values)> {
    plans.iter().find(|p| p.name() == service).map(|p| match p {
        ServicePlan::Install(d) => (
            Some(d.template.clone()),
            // Masked once, here (see [`mask_value`]): these views only
            // read, and whoever looks over a shoulder or at a shared screen
            // need not see a password. The values editor shows them, as its
            // person is editing them.
            Values::Merged(mask_value(&d.effective)),
        ),
        ServicePlan::Blocked(b) => (
            b.template.clone(),
            Values::Blocked {
                state: b.state,
                message: b.message.clone(),
            },
        ),
    })
}

/// `chart defaults < ServiceTemplate x < …rest`.
fn layers(template: Option<&str>, rest: &[String]) -> String {
    let mut out = vec!["chart defaults".to_string()];
    out.push(match template.filter(|t| !t.is_empty()) {
        Some(t) => format!("ServiceTemplate {t}"),
        None => "ServiceTemplate".into(),
    });
    out.extend(rest.iter().cloned());
    out.join(" < ")
}

/// What Helm gets for `service` on `mc`.
pub fn cluster(data: &Snapshot, mc: &Obj<ManagedCluster>, service: &str) -> Shown {
    let ns = mc.namespace().unwrap_or_default();
    let Some(ct) = data.cluster_template(&mc.context, &ns, &mc.spec.template) else {
        return Shown::nothing(format!(
            "cluster template {} does not exist, so the values of {service} cannot be computed",
            mc.spec.template
        ));
    };
    let (revision, spec) = services_given(ct, mc);
    let capi = data.capi_cluster(&mc.context, &ns, &mc.name_any());
    let values_data = ValuesData::of(mc, capi);
    let mcss = data.multi_cluster_services_in(&mc.context, &ns);
    let selected = sources_of(&spec.services, mc, &mcss);
    let plans = plan_services_selected(
        &spec,
        &mc.spec,
        (&values_data, &selected),
        lookup(data, &mc.context, &ns),
        &mut ParsedValues::default(),
        true,
    );
    let Some((template, values)) = from_plans(&plans, service) else {
        let disabled = mc
            .spec
            .services
            .iter()
            .any(|s| s.name == service && s.disable);
        let why = if disabled {
            format!("{service} is disabled on this cluster, so it gets no values")
        } else {
            match revision {
                Some(r) => format!(
                    "{service} is not among the services of {} revision {r}, which this cluster is given",
                    mc.spec.template
                ),
                None => format!(
                    "{service} is not among the services of {} nor of this cluster",
                    mc.spec.template
                ),
            }
        };
        return Shown {
            revision,
            ..Shown::nothing(why)
        };
    };
    let mut rest = Vec::new();
    if spec.services.iter().any(|s| s.name == service) {
        rest.push(match revision {
            Some(r) => format!("ClusterTemplate {} revision {r}", ct.name_any()),
            None => format!("ClusterTemplate {}", ct.name_any()),
        });
    }
    if mc.spec.services.iter().any(|s| s.name == service) {
        rest.push("this cluster".into());
    }
    Shown {
        layers: layers(template.as_deref(), &rest),
        revision,
        values,
    }
}

/// What every cluster made from `ct` gets for `service`, before its own
/// overrides.
pub fn template(data: &Snapshot, ct: &Obj<ClusterTemplate>, service: &str) -> Shown {
    let ns = ct.namespace().unwrap_or_default();
    let cluster = ManagedClusterSpec {
        template: ct.name_any(),
        ..Default::default()
    };
    let plans = plan_services(
        &ct.spec,
        &cluster,
        &ValuesData::none(),
        lookup(data, &ct.context, &ns),
    );
    match from_plans(&plans, service) {
        Some((template, values)) => Shown {
            layers: layers(
                template.as_deref(),
                &[format!("ClusterTemplate {}", ct.name_any())],
            ),
            revision: None,
            values,
        },
        None => Shown::nothing(format!("{service} is not a service of {}", ct.name_any())),
    }
}

/// A ServiceTemplate's chart defaults under its own values: what a service
/// made from it gets before any ClusterTemplate or cluster overrides.
pub fn service_template(st: &ServiceTemplate) -> Shown {
    let name = st.name_any();
    // The same rules as for a service: a one-service template over it.
    let spec = ClusterTemplateSpec {
        services: vec![TemplateService {
            name: name.clone(),
            template: name.clone(),
            ..Default::default()
        }],
        ..Default::default()
    };
    let no_cluster = ValuesData::none();
    let plans = plan_services(&spec, &ManagedClusterSpec::default(), &no_cluster, |n| {
        (n == name).then_some(st)
    });
    match from_plans(&plans, &name) {
        Some((_, values)) => Shown {
            layers: "chart defaults < this ServiceTemplate's values".into(),
            revision: None,
            values,
        },
        None => Shown::nothing(format!("ServiceTemplate {name} has no values")),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;

    use super::*;
    use crate::api::{ManagedService, ServicesRevision};
    use crate::plan::safe_text::MASK;
    use crate::tui::fixtures::sample::{sample, valued};

    fn key(kind: Kind, name: &str, service: Option<&str>) -> ValuesKey {
        ValuesKey {
            object: ObjKey {
                context: Default::default(),
                kind,
                namespace: "hmc-system".into(),
                name: name.into(),
            },
            service: service.map(String::from),
        }
    }

    fn of(data: &Snapshot, key: &ValuesKey) -> Shown {
        shown(data, key)
    }

    fn merged(s: &Shown) -> &serde_json::Value {
        match &s.values {
            Values::Merged(v) => v,
            other => panic!("no values: {other:?}"),
        }
    }

    #[test]
    fn the_values_shown_mask_secrets_but_keep_their_keys() {
        let effective = json!({
            "auth": {"adminPassword": "hunter2", "user": "admin"},
            "tls": {"key": "PRIVATE", "crt": "PUBLIC"},
            "replicaCount": 2,
        });
        let plan = ServicePlan::Install(crate::plan::services::DesiredService {
            name: "web".into(),
            namespace: "web".into(),
            template: "web-1".into(),
            values: effective.clone(),
            effective,
            after: Vec::new(),
        });
        let (_, values) = from_plans(&[plan], "web").expect("planned");
        let text = values.lines().join("\n");
        assert!(
            !text.contains("hunter2") && !text.contains("PRIVATE"),
            "{text}"
        );
        for key in ["adminPassword:", "key:"] {
            let line = text.lines().find(|l| l.trim_start().starts_with(key));
            assert!(line.is_some_and(|l| l.contains(MASK)), "{key} in {text}");
        }
        assert!(
            text.contains("user: admin") && text.contains("crt: PUBLIC"),
            "{text}"
        );
    }

    #[test]
    fn a_cluster_gets_every_layer_in_order() {
        let data = valued();
        let s = of(
            &data,
            &key(Kind::ManagedCluster, "prod-eu-1", Some("ingress-nginx")),
        );
        assert_eq!(s.revision, Some(2));
        assert_eq!(
            s.layers,
            "chart defaults < ServiceTemplate ingress-nginx-4-11-3 < ClusterTemplate aws-standalone-cp revision 2 < this cluster"
        );
        assert_eq!(
            merged(&s),
            &json!({"controller": {
                // The chart's default, kept.
                "kind": "Deployment",
                // The ServiceTemplate's.
                "metrics": {"enabled": true},
                // The ClusterTemplate's entry over the chart's 1.
                "replicaCount": 2,
                // The cluster's own over the chart's LoadBalancer.
                "service": {"type": "ClusterIP"},
            }})
        );
    }

    #[test]
    fn a_cluster_gets_the_services_of_its_given_revision() {
        let data = valued();
        // staging-1 is still given revision 1, where the template asked for 3 replicas.
        let s = of(
            &data,
            &key(Kind::ManagedCluster, "staging-1", Some("ingress-nginx")),
        );
        assert_eq!(s.revision, Some(1));
        assert_eq!(merged(&s)["controller"]["replicaCount"], json!(3));
        assert!(s.layers.contains("revision 1"), "{}", s.layers);
        assert!(!s.layers.contains("this cluster"), "{}", s.layers);
        // A revision the template forgot: its current services.
        let mut data = valued();
        let ct = Arc::make_mut(&mut data.cluster_templates[0].object);
        ct.status.as_mut().unwrap().revisions = vec![ServicesRevision {
            revision: 2,
            services: ct.spec.services.clone(),
        }];
        let s = of(
            &data,
            &key(Kind::ManagedCluster, "staging-1", Some("ingress-nginx")),
        );
        assert_eq!(s.revision, None);
        assert_eq!(merged(&s)["controller"]["replicaCount"], json!(2));
        assert!(s.layers.ends_with("ClusterTemplate aws-standalone-cp"));
    }

    #[test]
    fn without_a_target_revision_the_current_services_count() {
        let data = sample();
        let s = of(
            &data,
            &key(Kind::ManagedCluster, "prod-eu-1", Some("cert-manager")),
        );
        assert_eq!(s.revision, None);
        assert_eq!(merged(&s), &json!({}));
    }

    #[test]
    fn a_blocked_service_shows_why() {
        let mut data = valued();
        let mc = Arc::make_mut(&mut data.clusters[0].object);
        mc.spec.services[0].values = Some("controller: [1, 2\n".into());
        let s = of(
            &data,
            &key(Kind::ManagedCluster, "prod-eu-1", Some("ingress-nginx")),
        );
        let Values::Blocked { state, message } = &s.values else {
            panic!("{s:?}");
        };
        assert_eq!(*state, ServiceState::Failed);
        assert!(
            message.starts_with("values of service ingress-nginx in this cluster are not valid"),
            "{message}"
        );
        assert_eq!(s.values.lines(), vec![message.clone()]);
        // A ServiceTemplate whose chart is not fetched: pending.
        let mut data = valued();
        let st = Arc::make_mut(&mut data.service_templates[1].object);
        st.status.as_mut().unwrap().valid = false;
        let s = of(
            &data,
            &key(Kind::ManagedCluster, "prod-eu-1", Some("ingress-nginx")),
        );
        assert!(
            matches!(&s.values, Values::Blocked { state: ServiceState::Pending, message } if message.contains("not ready")),
            "{s:?}"
        );
    }

    #[test]
    fn no_values_for_a_disabled_service_or_a_missing_template() {
        let data = valued();
        let s = of(
            &data,
            &key(Kind::ManagedCluster, "staging-1", Some("cert-manager")),
        );
        assert_eq!(
            s.values,
            Values::Nothing(
                "cert-manager is disabled on this cluster, so it gets no values".into()
            )
        );
        let mut data = valued();
        Arc::make_mut(&mut data.clusters[0].object).spec.services = vec![ManagedService {
            name: "gone".into(),
            template: Some("gone-1".into()),
            disable: true,
            ..Default::default()
        }];
        let s = of(&data, &key(Kind::ManagedCluster, "prod-eu-1", Some("old")));
        assert!(
            matches!(&s.values, Values::Nothing(w) if w.contains("not among the services of aws-standalone-cp revision 2")),
            "{s:?}"
        );
        let dev = ValuesKey {
            object: ObjKey {
                context: Default::default(),
                kind: Kind::ManagedCluster,
                namespace: "team-a".into(),
                name: "dev-broken".into(),
            },
            service: Some("x".into()),
        };
        assert!(matches!(
            &of(&data, &dev).values,
            Values::Nothing(w) if w.starts_with("cluster template missing-template does not exist")
        ));
        let gone = key(Kind::ManagedCluster, "nope", Some("x"));
        assert_eq!(
            of(&data, &gone).values,
            Values::Nothing("ManagedCluster hmc-system/nope no longer exists".into())
        );
    }

    #[test]
    fn a_template_gives_defaults_before_cluster_overrides() {
        let data = valued();
        let s = of(
            &data,
            &key(
                Kind::ClusterTemplate,
                "aws-standalone-cp",
                Some("ingress-nginx"),
            ),
        );
        assert_eq!(
            s.layers,
            "chart defaults < ServiceTemplate ingress-nginx-4-11-3 < ClusterTemplate aws-standalone-cp"
        );
        assert_eq!(
            merged(&s),
            &json!({"controller": {
                "kind": "Deployment",
                "metrics": {"enabled": true},
                "replicaCount": 2,
                "service": {"type": "LoadBalancer"},
            }})
        );
        let none = of(
            &data,
            &key(Kind::ClusterTemplate, "aws-standalone-cp", Some("nope")),
        );
        assert_eq!(
            none.values,
            Values::Nothing("nope is not a service of aws-standalone-cp".into())
        );
    }

    #[test]
    fn a_service_template_shows_its_chart_defaults_under_its_values() {
        let data = valued();
        let s = of(
            &data,
            &key(Kind::ServiceTemplate, "ingress-nginx-4-11-3", None),
        );
        assert_eq!(
            merged(&s),
            &json!({"controller": {
                "kind": "Deployment",
                "metrics": {"enabled": true},
                "replicaCount": 1,
                "service": {"type": "LoadBalancer"},
            }})
        );
        assert_eq!(
            s.values.lines()[..2],
            ["controller:".to_string(), "  kind: Deployment".to_string()]
        );
    }
}
