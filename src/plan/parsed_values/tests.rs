//! Values layers that are templates, through the planner: each cluster gets
//! its own values, and a template that cannot render for a cluster blocks
//! that cluster's service alone, saying where and why.

use serde_json::json;

use super::*;
use crate::api::{
    ClusterTemplateSpec, ManagedCluster, ManagedClusterSpec, ManagedService, ServiceState,
    ServiceTemplate, ServiceTemplateSpec, TemplateService, TemplateStatus,
};
use crate::capi;
use crate::plan::services::{ServicePlan, plan_services, plan_services_with};

fn service_template(values: &str) -> ServiceTemplate {
    let mut st = ServiceTemplate::new(
        "ingress-nginx-4-11-3",
        ServiceTemplateSpec {
            values: Some(values.into()),
            ..Default::default()
        },
    );
    st.status = Some(TemplateStatus {
        valid: true,
        config: Some(json!({"controller": {"replicaCount": 1}})),
        ..Default::default()
    });
    st
}

fn cluster_template(values: &str) -> ClusterTemplateSpec {
    ClusterTemplateSpec {
        services: vec![TemplateService {
            name: "ingress".into(),
            template: "ingress-nginx-4-11-3".into(),
            values: Some(values.into()),
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn managed(name: &str, own: Option<&str>) -> ManagedCluster {
    let mut mc = ManagedCluster::new(
        name,
        ManagedClusterSpec {
            template: "aws-1-0".into(),
            services: own
                .map(|v| ManagedService {
                    name: "ingress".into(),
                    values: Some(v.into()),
                    ..Default::default()
                })
                .into_iter()
                .collect(),
            ..Default::default()
        },
    );
    mc.metadata.namespace = Some("team-a".into());
    mc
}

fn capi_cluster(name: &str, region: Option<&str>) -> capi::Cluster {
    serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
        "metadata": {"name": name, "namespace": "team-a",
                     "labels": region.map(|r| json!({"region": r})).unwrap_or(json!({}))},
        "spec": {},
    }))
    .unwrap()
}

fn plan(
    st: &ServiceTemplate,
    ct: &ClusterTemplateSpec,
    mc: &ManagedCluster,
    capi: Option<&capi::Cluster>,
) -> ServicePlan {
    let data = ValuesData::of(mc, capi);
    let mut plans = plan_services(ct, &mc.spec, &data, |n| {
        (n == "ingress-nginx-4-11-3").then_some(st)
    });
    assert_eq!(plans.len(), 1);
    plans.remove(0)
}

fn installed(plan: ServicePlan) -> Value {
    match plan {
        ServicePlan::Install(d) => d.effective,
        ServicePlan::Blocked(b) => panic!("blocked: {}", b.message),
    }
}

fn blocked(plan: ServicePlan) -> (ServiceState, String) {
    match plan {
        ServicePlan::Blocked(b) => (b.state, b.message),
        ServicePlan::Install(d) => panic!("installs {}", d.effective),
    }
}

#[test]
fn every_layer_renders_for_its_cluster_before_the_merge() {
    let st = service_template("controller:\n  ingressClass: {{ .Cluster.metadata.name }}-nginx\n");
    let ct = cluster_template(
        "controller:\n  config:\n    region: {{ .Cluster.metadata.labels.region }}\n",
    );
    let own = "controller:\n  owner: {{ .ManagedCluster.metadata.name }}\n";
    for (name, region) in [("dev-1", "eu"), ("dev-2", "us")] {
        let mc = managed(name, Some(own));
        let c = capi_cluster(name, Some(region));
        assert_eq!(
            installed(plan(&st, &ct, &mc, Some(&c))),
            json!({"controller": {"replicaCount": 1, "ingressClass": format!("{name}-nginx"),
                                  "config": {"region": region}, "owner": name}})
        );
    }
}

#[test]
fn a_template_that_fails_for_one_cluster_blocks_that_cluster_alone() {
    let st = service_template("");
    let ct = cluster_template("a: 1\nregion: {{ .Cluster.metadata.labels.region }}\n");
    let (with, without) = (managed("dev-1", None), managed("dev-3", None));
    let labelled = capi_cluster("dev-1", Some("eu"));
    assert_eq!(
        installed(plan(&st, &ct, &with, Some(&labelled)))["region"],
        "eu"
    );
    let bare = capi_cluster("dev-3", None);
    let (state, message) = blocked(plan(&st, &ct, &without, Some(&bare)));
    assert_eq!(state, ServiceState::Failed);
    assert!(
        message.starts_with(
            "values of service ingress in the cluster template do not render for this cluster: line 2, column"
        ),
        "{message}"
    );
    assert!(
        message.ends_with(": label region is not set on Cluster dev-3"),
        "{message}"
    );
}

#[test]
fn before_cluster_api_made_the_cluster_a_template_that_reads_it_waits() {
    let st = service_template("");
    let ct = cluster_template("host: {{ .Cluster.metadata.name }}.example.com\n");
    let mc = managed("dev-1", None);
    let (state, message) = blocked(plan(&st, &ct, &mc, None));
    assert_eq!(state, ServiceState::Pending);
    assert!(
        message.contains("wait for Cluster dev-1 to exist"),
        "{message}"
    );
    // A template that does not read the Cluster renders at once.
    let ct = cluster_template("owner: {{ .ManagedCluster.metadata.name }}\n");
    assert_eq!(installed(plan(&st, &ct, &mc, None))["owner"], "dev-1");
}

#[test]
fn what_a_template_renders_must_still_be_values() {
    let st = service_template("");
    let ct = cluster_template("a: 1\nb: {{ .Template }}: x\n");
    let mc = managed("dev-1", None);
    let c = capi_cluster("dev-1", None);
    let (state, message) = blocked(plan(&st, &ct, &mc, Some(&c)));
    assert_eq!(state, ServiceState::Failed);
    assert!(
        message.starts_with(
            "values of service ingress in the cluster template are not valid: as rendered for this cluster, line 2"
        ),
        "{message}"
    );
    // Not a template at all: said with its line and column, for every
    // cluster alike.
    let ct = cluster_template("a: {{ if }}\n");
    let (state, message) = blocked(plan(&st, &ct, &mc, Some(&c)));
    assert_eq!(state, ServiceState::Failed);
    assert!(
        message.starts_with(
            "values of service ingress in the cluster template are not a valid template: line 1, column"
        ),
        "{message}"
    );
}

#[test]
fn a_template_is_parsed_once_and_rendered_per_cluster() {
    let st = service_template("name: {{ .Cluster.metadata.name }}\n");
    let ct = cluster_template("");
    let clusters: Vec<(ManagedCluster, capi::Cluster)> = (0..3)
        .map(|i| {
            (
                managed(&format!("c{i}"), None),
                capi_cluster(&format!("c{i}"), None),
            )
        })
        .collect();
    let mut parsed = ParsedValues::default();
    for (mc, c) in &clusters {
        let data = ValuesData::of(mc, Some(c));
        let plans = plan_services_with(&ct, &mc.spec, &data, |_| Some(&st), &mut parsed, true);
        assert_eq!(
            installed(plans.into_iter().next().unwrap())["name"],
            mc.metadata.name.clone().unwrap()
        );
    }
    assert_eq!(parsed.templates.len(), 1);
}
