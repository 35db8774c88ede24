//! The fleet's impact of a ClusterTemplate change over 1,000 and 10,000
//! ManagedClusters × 3 services: every cluster's services planned before
//! and after, each changed value set checked against a chart's
//! `values.schema.json`, the waves of the template's rollout, and the
//! groups the review and `hmc-tui diff` show. The goal: under 200 ms at
//! 10,000 clusters. Clusters alike (the same template and service
//! entries) are planned once, so the fleet as the fixtures have it (most
//! clusters without values of their own) is the common case, and a fleet
//! where every cluster sets a value of its own the worst but one: values
//! templated from each cluster's data, rendered and parsed per cluster.
//!
//! `cargo bench --features fixtures --bench impact`; under `cargo test
//! --features fixtures` each runs once.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};

use hmc_tui::plan::chart::{ChartId, ChartValues};
use hmc_tui::plan::chart_check::first_schema_error;
use hmc_tui::plan::impact::{Fleet, Outcome, impact_checked, summarize};
use hmc_tui::tui::fixtures::fleet::{FLEET_TEMPLATE, fleet};

const SIZES: [usize; 2] = [1_000, 10_000];

/// A chart with a schema of the usual kind: types, a range and an
/// `if`/`then`.
fn chart() -> ChartValues {
    ChartValues::parse(
        ChartId {
            name: "ingress-nginx".into(),
            version: "4.11.3".into(),
        },
        None,
        Some("controller:\n  replicaCount: 1\n  kind: Deployment\n  hostPort: {enabled: false}\n"),
        Some(
            r#"{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
                "properties": {"controller": {"type": "object",
                  "properties": {"replicaCount": {"type": "integer", "minimum": 0, "maximum": 50},
                                 "kind": {"enum": ["Deployment", "DaemonSet"]}},
                  "if": {"properties": {"kind": {"const": "DaemonSet"}}, "required": ["kind"]},
                  "then": {"properties": {"hostPort": {"properties": {"enabled": {"const": false}}}}}}}}"#,
        ),
    )
    .expect("the bench's chart")
}

fn benches(c: &mut Criterion) {
    let chart = chart();
    for n in SIZES {
        let fixture = fleet(n);
        let live = Fleet {
            cluster_templates: fixture.cluster_templates.clone(),
            service_templates: fixture.service_templates.clone(),
            clusters: fixture.clusters.clone(),
            capi_clusters: Vec::new(),
            multi_cluster_services: Vec::new(),
        };
        let mut template = fixture
            .cluster_templates
            .iter()
            .find(|t| t.metadata.name.as_deref() == Some(FLEET_TEMPLATE))
            .expect("the fleet's template")
            .clone();
        template.spec.services[0].values = Some("controller: {replicaCount: 3}".into());
        let proposal = Fleet {
            cluster_templates: vec![template],
            ..Default::default()
        };
        let check =
            |_: &str, _: &str, values: &serde_json::Value| first_schema_error(&chart, values);
        let found = impact_checked(&live, &proposal, &check);
        assert!(!found.is_empty(), "the change reaches the fleet");
        c.bench_function(&format!("{n}/impact of a template change, checked"), |b| {
            b.iter(|| black_box(impact_checked(&live, &proposal, &check)))
        });
        c.bench_function(&format!("{n}/impact grouped"), |b| {
            b.iter(|| black_box(summarize(&found)))
        });
        // The worst case: no two clusters alike (each sets its own value of
        // another key), so none is planned from another's answer.
        let mut unlike = live.clone();
        for (i, mc) in unlike.clusters.iter_mut().enumerate() {
            mc.spec.services = vec![hmc_tui::api::ManagedService {
                name: "ingress-nginx".into(),
                values: Some(format!("controller: {{minReadySeconds: {i}}}")),
                ..Default::default()
            }];
        }
        c.bench_function(&format!("{n}/impact, every cluster its own values"), |b| {
            b.iter(|| black_box(impact_checked(&unlike, &proposal, &check)))
        });
        // Values templated from the cluster: the template's values read
        // each cluster's name and a label of its Cluster, so every
        // cluster's values are its own and are rendered before and after.
        let (templated, templated_proposal) = templated(&live, &proposal);
        let found = impact_checked(&templated, &templated_proposal, &check);
        let reached: std::collections::BTreeSet<&str> =
            found.iter().map(|i| i.cluster.as_str()).collect();
        let of_template = templated
            .clusters
            .iter()
            .filter(|c| c.spec.template == FLEET_TEMPLATE)
            .count();
        assert_eq!(reached.len(), of_template, "every cluster of the template");
        assert!(
            found
                .iter()
                .any(|i| matches!(i.outcome, Outcome::Changes { .. })),
            "the change reaches the fleet"
        );
        c.bench_function(
            &format!("{n}/impact, values templated from the cluster"),
            |b| b.iter(|| black_box(impact_checked(&templated, &templated_proposal, &check))),
        );
    }
}

/// `live` and `proposal` with the changed service's values a template over
/// the cluster, and a Cluster API Cluster with a `region` label for every
/// cluster.
fn templated(live: &Fleet, proposal: &Fleet) -> (Fleet, Fleet) {
    const VALUES: &str = "controller:\n  ingressClassResource:\n    \
        name: \"{{ .Cluster.metadata.name }}-nginx\"\n  config:\n    \
        region: {{ .Cluster.metadata.labels.region | quote }}\n";
    let with_values = |fleet: &Fleet, extra: &str| {
        let mut fleet = fleet.clone();
        for ct in &mut fleet.cluster_templates {
            if ct.metadata.name.as_deref() == Some(FLEET_TEMPLATE) {
                ct.spec.services[0].values = Some(format!("{VALUES}{extra}"));
            }
        }
        fleet
    };
    let mut live = with_values(live, "");
    live.capi_clusters = live
        .clusters
        .iter()
        .enumerate()
        .map(|(i, mc)| {
            let region = ["eu", "us", "ap"][i % 3];
            serde_json::from_value(serde_json::json!({
                "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
                "metadata": {"name": mc.metadata.name, "namespace": mc.metadata.namespace,
                             "labels": {"region": region}},
                "spec": {"clusterNetwork": {"pods": {"cidrBlocks": ["10.0.0.0/16"]}}},
            }))
            .expect("a Cluster")
        })
        .collect();
    let proposal = with_values(proposal, "  replicaCount: 3\n");
    (live, proposal)
}

criterion_group! {
    name = impact;
    config = Criterion::default().sample_size(10);
    targets = benches
}
criterion_main!(impact);
