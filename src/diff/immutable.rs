//! What the API server refuses to change in a live object: the CRDs' CEL
//! rules make a ServiceTemplate's spec immutable and a ClusterTemplate's
//! chart (`spec.helm`) and Kubernetes version (`spec.k8sVersion`) too. A
//! manifest that changes them would be refused on apply, so `diff` reports
//! it as an error, in the API server's words, and does not plan it.

use kube::ResourceExt;

use crate::api::{CLUSTER_CHART_IMMUTABLE, K8S_VERSION_IMMUTABLE, SERVICE_TEMPLATE_IMMUTABLE};
use crate::diff::manifests::Id;
use crate::plan::impact::Fleet;

/// The proposed objects that change what their live version may not
/// change, each with why.
pub fn refused(live: &Fleet, proposed: &Fleet) -> Vec<(Id, &'static str)> {
    let mut out = Vec::new();
    for st in &proposed.service_templates {
        let Some(old) = live.service_templates.iter().find(|o| same_id(*o, st)) else {
            continue;
        };
        if old.spec != st.spec {
            out.push((id("ServiceTemplate", st), SERVICE_TEMPLATE_IMMUTABLE));
        }
    }
    for ct in &proposed.cluster_templates {
        let Some(old) = live.cluster_templates.iter().find(|o| same_id(*o, ct)) else {
            continue;
        };
        if old.spec.helm != ct.spec.helm {
            out.push((id("ClusterTemplate", ct), CLUSTER_CHART_IMMUTABLE));
        } else if old.spec.k8s_version != ct.spec.k8s_version {
            out.push((id("ClusterTemplate", ct), K8S_VERSION_IMMUTABLE));
        }
    }
    out
}

fn same_id<K: ResourceExt>(a: &K, b: &K) -> bool {
    a.name_any() == b.name_any() && a.namespace() == b.namespace()
}

fn id<K: ResourceExt>(kind: &'static str, obj: &K) -> Id {
    (kind, obj.namespace().unwrap_or_default(), obj.name_any())
}

/// `proposed` without the objects of `ids`: apply would leave their live
/// versions as they are.
pub fn without(proposed: &mut Fleet, ids: &[Id]) {
    fn keep<K: ResourceExt>(list: &mut Vec<K>, kind: &'static str, ids: &[Id]) {
        list.retain(|o| !ids.contains(&id(kind, o)));
    }
    keep(&mut proposed.service_templates, "ServiceTemplate", ids);
    keep(&mut proposed.cluster_templates, "ClusterTemplate", ids);
    keep(&mut proposed.clusters, "ManagedCluster", ids);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{
        ClusterTemplate, ClusterTemplateSpec, HelmSpec, ServiceTemplate, ServiceTemplateSpec,
    };

    fn st(name: &str, values: Option<&str>) -> ServiceTemplate {
        let mut st = ServiceTemplate::new(
            name,
            ServiceTemplateSpec {
                helm: HelmSpec {
                    chart_name: Some("nginx".into()),
                    ..Default::default()
                },
                values: values.map(String::from),
                ..Default::default()
            },
        );
        st.metadata.namespace = Some("ns".into());
        st
    }

    fn ct(name: &str, chart: &str, k8s: Option<&str>, values: &str) -> ClusterTemplate {
        let mut ct = ClusterTemplate::new(
            name,
            ClusterTemplateSpec {
                helm: HelmSpec {
                    chart_name: Some(chart.into()),
                    ..Default::default()
                },
                k8s_version: k8s.map(String::from),
                services: vec![crate::api::TemplateService {
                    name: "ingress".into(),
                    template: "nginx".into(),
                    values: Some(values.into()),
                    ..Default::default()
                }],
                ..Default::default()
            },
        );
        ct.metadata.namespace = Some("ns".into());
        ct
    }

    #[test]
    fn a_changed_service_template_or_cluster_chart_is_refused_as_the_api_server_would() {
        let live = Fleet {
            service_templates: vec![st("nginx", Some("a: 1"))],
            cluster_templates: vec![ct("prod", "capi", Some("1.31.1"), "a: 1")],
            ..Default::default()
        };
        let id = |kind, name: &str| (kind, "ns".to_string(), name.to_string());
        // Values of a ClusterTemplate's services change freely; a new
        // ServiceTemplate is new, not changed.
        let fine = Fleet {
            service_templates: vec![st("nginx", Some("a: 1")), st("nginx-2", Some("a: 2"))],
            cluster_templates: vec![ct("prod", "capi", Some("1.31.1"), "a: 2")],
            ..Default::default()
        };
        assert_eq!(refused(&live, &fine), vec![]);
        let mut wrong = Fleet {
            service_templates: vec![st("nginx", Some("a: 2"))],
            cluster_templates: vec![
                ct("prod", "capi-2", Some("1.31.1"), "a: 1"),
                ct("prod", "capi", Some("1.32.0"), "a: 1"),
            ],
            ..Default::default()
        };
        let found = refused(&live, &wrong);
        assert_eq!(
            found,
            vec![
                (id("ServiceTemplate", "nginx"), SERVICE_TEMPLATE_IMMUTABLE),
                (id("ClusterTemplate", "prod"), CLUSTER_CHART_IMMUTABLE),
                (id("ClusterTemplate", "prod"), K8S_VERSION_IMMUTABLE),
            ]
        );
        let ids: Vec<Id> = found.into_iter().map(|(i, _)| i).collect();
        without(&mut wrong, &ids);
        assert!(wrong.service_templates.is_empty() && wrong.cluster_templates.is_empty());
    }
}
