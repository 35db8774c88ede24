use std::sync::Arc;

use serde_json::json;

use super::*;
use crate::api::{
    ClusterTemplateSpec, HelmSpec, ManagedClusterSpec, ManagedService, ServiceTemplate,
    ServiceTemplateSpec, TemplateService, TemplateStatus,
};
use crate::plan::chart::ChartId;

const NS: &str = "team-a";

fn template(values: &str) -> ClusterTemplate {
    let mut t = ClusterTemplate::new(
        "prod",
        ClusterTemplateSpec {
            services: vec![TemplateService {
                name: "ingress".into(),
                template: "nginx".into(),
                values: Some(values.into()),
                ..Default::default()
            }],
            ..Default::default()
        },
    );
    t.metadata.namespace = Some(NS.into());
    t
}

fn cluster(name: &str, own: Option<&str>) -> ManagedCluster {
    let mut c = ManagedCluster::new(
        name,
        ManagedClusterSpec {
            template: "prod".into(),
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
    c.metadata.namespace = Some(NS.into());
    c
}

fn data() -> Snapshot {
    let mut st = ServiceTemplate::new(
        "nginx",
        ServiceTemplateSpec {
            helm: HelmSpec {
                chart_name: Some("ingress-nginx".into()),
                chart_version: Some("4.11.3".into()),
                ..Default::default()
            },
            ..Default::default()
        },
    );
    st.metadata.namespace = Some(NS.into());
    st.status = Some(TemplateStatus {
        valid: true,
        config: Some(json!({"controller": {"replicaCount": 1}})),
        ..Default::default()
    });
    let mut other_ns = cluster("elsewhere", None);
    other_ns.metadata.namespace = Some("team-b".into());
    Snapshot::new(
        vec![
            Arc::new(cluster("a", None)),
            Arc::new(cluster("b", None)),
            Arc::new(cluster("c", Some("controller: {replicaCount: 5}"))),
            Arc::new(other_ns),
        ],
        vec![Arc::new(template("controller: {replicaCount: 2}"))],
        vec![Arc::new(st)],
    )
}

/// A chart whose schema allows at most 4 replicas.
fn chart() -> ChartValues {
    ChartValues::parse(
        ChartId {
            name: "ingress-nginx".into(),
            version: "4.11.3".into(),
        },
        None,
        Some("controller: {replicaCount: 1}\n"),
        Some(r#"{"properties": {"controller": {"properties": {"replicaCount": {"type": "integer", "maximum": 4}}}}}"#),
    )
    .unwrap()
}

#[test]
fn a_template_change_is_grouped_over_the_clusters_of_its_namespace_and_walked_with_the_keys() {
    let mut review = FleetReview::of(
        &data(),
        &KubeContext::default(),
        Proposed::Template(Box::new(template("controller: {replicaCount: 3}"))),
        Some("nginx"),
        Some(&chart()),
    )
    .expect("the save reaches clusters");
    assert_eq!(review.blocked, 0);
    assert_eq!(
        review.clusters, 3,
        "the other namespace's cluster is not reached"
    );
    assert_eq!(
        review.groups[1].what,
        "keep their own value: controller.replicaCount"
    );
    assert_eq!(review.groups[0].clusters, ["team-a/a", "team-a/b"]);
    assert!(!review.on(Action::Back), "nothing to go back to");
    assert!(review.on(Action::Down));
    assert!(review.on(Action::Down));
    assert_eq!(
        review.place,
        Place::Groups { cursor: 1 },
        "the cursor stops at the last"
    );
    assert!(review.on(Action::Up));
    assert!(review.on(Action::Open));
    assert_eq!(
        review.place,
        Place::Group {
            group: 0,
            cursor: 0
        }
    );
    assert!(review.on(Action::Down));
    assert!(review.on(Action::Open));
    assert_eq!(
        review.place,
        Place::Cluster {
            group: 0,
            cluster: 1
        }
    );
    assert_eq!(
        review.cluster_lines(0, 1),
        ["controller.replicaCount: 2 → 3"]
    );
    assert_eq!(
        review.cluster_lines(1, 0),
        ["controller.replicaCount: its own value stays"]
    );
    assert!(
        !review.on(Action::Open),
        "a cluster's change opens nothing more"
    );
    assert!(review.on(Action::Back));
    assert_eq!(
        review.place,
        Place::Group {
            group: 0,
            cursor: 1
        }
    );
    assert!(review.on(Action::Back));
    assert_eq!(review.place, Place::Groups { cursor: 0 });
}

#[test]
fn values_the_charts_schema_refuses_block_and_are_counted() {
    let review = FleetReview::of(
        &data(),
        &KubeContext::default(),
        Proposed::Template(Box::new(template("controller: {replicaCount: 9}"))),
        Some("nginx"),
        Some(&chart()),
    )
    .unwrap();
    assert_eq!(review.blocked, 2);
    assert!(review.groups[0].blocked);
    assert!(
        review.groups[0]
            .what
            .starts_with("blocked: the chart's schema: controller.replicaCount"),
        "{}",
        review.groups[0].what
    );
    // The chart of another template checks nothing here.
    let unchecked = FleetReview::of(
        &data(),
        &KubeContext::default(),
        Proposed::Template(Box::new(template("controller: {replicaCount: 9}"))),
        Some("another"),
        Some(&chart()),
    )
    .unwrap();
    assert_eq!(unchecked.blocked, 0);
}

#[test]
fn a_clusters_own_edit_is_its_own_impact_and_no_change_is_none() {
    let review = FleetReview::of(
        &data(),
        &KubeContext::default(),
        Proposed::Cluster(Box::new(cluster(
            "a",
            Some("controller: {replicaCount: 7}"),
        ))),
        Some("nginx"),
        Some(&chart()),
    )
    .unwrap();
    assert_eq!(review.impacts.len(), 1);
    assert_eq!(review.blocked, 1);
    assert_eq!(
        FleetReview::of(
            &data(),
            &KubeContext::default(),
            Proposed::Template(Box::new(template("controller: {replicaCount: 2}"))),
            None,
            None
        ),
        None
    );
}
