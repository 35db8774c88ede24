use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

use super::selector::{MAX_TERMS, MAX_VALUES};
use super::*;
use crate::api::conditions::CONFLICT;
use crate::api::{ManagedCluster, MultiClusterService, TemplateService};
use crate::api::{ManagedClusterSpec, MultiClusterServiceSpec, ServiceSpec};

fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn expr(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
    LabelSelectorRequirement {
        key: key.into(),
        operator: operator.into(),
        values: (!values.is_empty()).then(|| values.iter().map(|v| v.to_string()).collect()),
    }
}

fn by_labels(pairs: &[(&str, &str)]) -> LabelSelector {
    LabelSelector {
        match_labels: Some(labels(pairs)),
        match_expressions: None,
    }
}

fn by_exprs(exprs: Vec<LabelSelectorRequirement>) -> LabelSelector {
    LabelSelector {
        match_labels: None,
        match_expressions: Some(exprs),
    }
}

#[test]
fn match_labels_all_hold() {
    let s = by_labels(&[("env", "prod"), ("tier", "web")]);
    assert_eq!(
        selects(&s, &labels(&[("env", "prod"), ("tier", "web"), ("x", "y")])),
        Ok(true)
    );
    assert_eq!(selects(&s, &labels(&[("env", "prod")])), Ok(false));
    assert_eq!(
        selects(&s, &labels(&[("env", "dev"), ("tier", "web")])),
        Ok(false)
    );
}

#[test]
fn every_operator() {
    let prod = labels(&[("env", "prod")]);
    let dev = labels(&[("env", "dev")]);
    let none = labels(&[]);
    let cases = [
        (expr("env", "In", &["prod", "stage"]), [true, false, false]),
        (expr("env", "NotIn", &["prod"]), [false, true, true]),
        (expr("env", "Exists", &[]), [true, true, false]),
        (expr("env", "DoesNotExist", &[]), [false, false, true]),
    ];
    for (e, want) in cases {
        let s = by_exprs(vec![e.clone()]);
        let got = [&prod, &dev, &none].map(|l| selects(&s, l).unwrap());
        assert_eq!(got, want, "{e:?}");
    }
}

#[test]
fn labels_and_expressions_are_anded() {
    let s = LabelSelector {
        match_labels: Some(labels(&[("env", "prod")])),
        match_expressions: Some(vec![expr("region", "In", &["eu", "us"])]),
    };
    assert_eq!(
        selects(&s, &labels(&[("env", "prod"), ("region", "eu")])),
        Ok(true)
    );
    assert_eq!(
        selects(&s, &labels(&[("env", "prod"), ("region", "ap")])),
        Ok(false)
    );
    assert_eq!(selects(&s, &labels(&[("region", "eu")])), Ok(false));
}

#[test]
fn an_empty_selector_selects_nothing() {
    let everything = labels(&[("env", "prod")]);
    for s in [
        LabelSelector::default(),
        LabelSelector {
            match_labels: Some(BTreeMap::new()),
            match_expressions: Some(Vec::new()),
        },
    ] {
        assert_eq!(selects(&s, &everything), Ok(false));
        assert_eq!(selects(&s, &BTreeMap::new()), Ok(false));
    }
}

#[test]
fn invalid_selectors_are_errors() {
    let l = labels(&[("env", "prod")]);
    let err = |s: LabelSelector| selects(&s, &l).unwrap_err();
    assert!(matches!(
        err(by_exprs(vec![expr("env", "In", &[])])),
        SelectorError::MissingValues { index: 0, .. }
    ));
    assert!(matches!(
        err(by_exprs(vec![expr("env", "Exists", &["x"])])),
        SelectorError::UnexpectedValues { .. }
    ));
    let unknown = err(by_exprs(vec![
        expr("env", "Exists", &[]),
        expr("env", "Gt", &["1"]),
    ]));
    assert_eq!(
        unknown.to_string(),
        "clusterSelector.matchExpressions[1]: operator \"Gt\" is none of In, NotIn, Exists, DoesNotExist"
    );
    assert!(matches!(
        err(by_labels(&[("bad key", "x")])),
        SelectorError::InvalidKey { .. }
    ));
    assert!(matches!(
        err(by_labels(&[("Example.com/a", "x")])),
        SelectorError::InvalidKey { .. }
    ));
    assert!(matches!(
        err(by_labels(&[("env", "-prod")])),
        SelectorError::InvalidValue { .. }
    ));
    let long = "a".repeat(64);
    assert!(matches!(
        err(by_labels(&[("env", long.as_str())])),
        SelectorError::InvalidValue { .. }
    ));
    // Prefixed keys and empty values are fine.
    let ok = by_labels(&[("example.com/env", ""), ("a_b.c", "x")]);
    assert_eq!(
        selects(&ok, &labels(&[("example.com/env", ""), ("a_b.c", "x")])),
        Ok(true)
    );
}

#[test]
fn selectors_are_bounded() {
    let many: Vec<_> = (0..=MAX_TERMS)
        .map(|i| expr(&format!("k{i}"), "Exists", &[]))
        .collect();
    assert!(matches!(
        selects(&by_exprs(many), &BTreeMap::new()),
        Err(SelectorError::TooManyTerms { .. })
    ));
    let values: Vec<String> = (0..=MAX_VALUES).map(|i| format!("v{i}")).collect();
    let values: Vec<&str> = values.iter().map(String::as_str).collect();
    assert!(matches!(
        selects(&by_exprs(vec![expr("k", "In", &values)]), &BTreeMap::new()),
        Err(SelectorError::TooManyValues { .. })
    ));
}

fn svc(name: &str, template: &str) -> TemplateService {
    TemplateService {
        name: name.into(),
        template: template.into(),
        ..Default::default()
    }
}

fn cluster(name: &str, l: &[(&str, &str)], priority: Option<i32>) -> ManagedCluster {
    let mut c = ManagedCluster::new(
        name,
        ManagedClusterSpec {
            template: "t".into(),
            services_priority: priority,
            ..Default::default()
        },
    );
    c.metadata.namespace = Some("tenant-a".into());
    c.metadata.labels = Some(labels(l));
    c
}

fn mcs(
    name: &str,
    selector: LabelSelector,
    priority: Option<i32>,
    services: &[&str],
) -> MultiClusterService {
    let mut m = MultiClusterService::new(
        name,
        MultiClusterServiceSpec {
            cluster_selector: selector,
            service_spec: ServiceSpec {
                services: services.iter().map(|s| svc(s, &format!("{s}-1"))).collect(),
                priority,
                stop_on_conflict: false,
            },
            ..Default::default()
        },
    );
    m.metadata.namespace = Some("tenant-a".into());
    m
}

fn prod() -> LabelSelector {
    by_labels(&[("env", "prod")])
}

#[test]
fn a_higher_multi_cluster_service_wins_and_says_so() {
    let c = cluster("c1", &[("env", "prod")], None);
    let base = mcs("base", prod(), Some(200), &["cert-manager", "prom"]);
    let got = services_for(&c, &["cert-manager", "ingress"], &[&base]);
    assert_eq!(got.selected_by, vec!["base"]);
    let names: Vec<&str> = got.decisions.iter().map(|d| d.name).collect();
    assert_eq!(names, ["cert-manager", "ingress", "prom"]);
    let cm = got.decision("cert-manager").unwrap();
    assert!(
        matches!(cm.outcome, Outcome::Multi { mcs: "base", entry } if entry.template == "cert-manager-1")
    );
    assert_eq!(
        cm.message().unwrap(),
        "cert-manager comes from MultiClusterService base (priority 200), over this cluster's own (priority 100)"
    );
    assert!(!got.own_wins("cert-manager"));
    assert!(got.own_wins("ingress"));
    assert!(got.decision("ingress").unwrap().message().is_none());
    let multi: Vec<(&str, &str)> = got
        .multi_services()
        .map(|(m, e)| (m, e.name.as_str()))
        .collect();
    assert_eq!(multi, [("base", "cert-manager"), ("base", "prom")]);
    let on = got.for_multi("base");
    assert_eq!(on.won, ["cert-manager", "prom"]);
    assert!(on.lost.is_empty() && on.conflicts.is_empty() && !on.stopped);
    assert!(!got.conflict_condition().status);
}

#[test]
fn the_cluster_wins_with_a_higher_priority() {
    let c = cluster("c1", &[("env", "prod")], Some(500));
    let base = mcs("base", prod(), None, &["cert-manager"]);
    let got = services_for(&c, &["cert-manager"], &[&base]);
    let cm = got.decision("cert-manager").unwrap();
    assert_eq!(cm.outcome, Outcome::Own);
    assert!(got.own_wins("cert-manager"));
    assert_eq!(got.multi_services().count(), 0);
    assert_eq!(
        cm.message().unwrap(),
        "cert-manager comes from this cluster's own (priority 500), over MultiClusterService base (priority 100)"
    );
    let on = got.for_multi("base");
    assert!(on.won.is_empty());
    assert_eq!(on.lost, [cm.message().unwrap()]);
}

#[test]
fn equal_priorities_conflict_on_both_sides() {
    let c = cluster("c1", &[("env", "prod")], None);
    let base = mcs("base", prod(), Some(100), &["cert-manager"]);
    let got = services_for(&c, &["cert-manager"], &[&base]);
    let cm = got.decision("cert-manager").unwrap();
    assert_eq!(cm.outcome, Outcome::Conflict);
    assert!(!got.own_wins("cert-manager"));
    assert_eq!(got.multi_services().count(), 0);
    let cond = got.conflict_condition();
    assert!(cond.status);
    assert!(
        cond.message
            .contains("this cluster's own and MultiClusterService base all have priority 100"),
        "{}",
        cond.message
    );
    let on = got.for_multi("base");
    assert_eq!(on.conflicts.len(), 1);
    // The MultiClusterService's report names the cluster and the others.
    let report = multi_report(
        &base,
        &[ClusterView {
            cluster: "c1",
            selected: &got,
            deployed: true,
        }],
    );
    assert_eq!(report.matching_count, 1);
    let m = &report.matching_clusters[0];
    assert_eq!((m.reason.as_deref(), m.deployed), (Some("Conflict"), false));
    let conflict = report
        .conditions
        .iter()
        .find(|c| c.type_ == CONFLICT)
        .unwrap();
    assert!(
        conflict.status
            && conflict
                .message
                .starts_with("c1: cert-manager is in conflict"),
        "{conflict:?}"
    );
}

#[test]
fn two_multi_cluster_services_of_equal_priority_conflict() {
    let c = cluster("c1", &[("env", "prod")], Some(10));
    let a = mcs("a", prod(), Some(300), &["cert-manager"]);
    let b = mcs("b", prod(), Some(300), &["cert-manager"]);
    let got = services_for(&c, &["cert-manager"], &[&b, &a]);
    let cm = got.decision("cert-manager").unwrap();
    assert_eq!(cm.outcome, Outcome::Conflict);
    let sources: Vec<Source<'_>> = cm.top().iter().map(|c| c.source).collect();
    assert_eq!(sources, [Source::Multi("a"), Source::Multi("b")]);
    assert_eq!(cm.contenders.len(), 3);
    assert_eq!(got.for_multi("a").conflicts.len(), 1);
    assert_eq!(got.for_multi("b").conflicts.len(), 1);
}

#[test]
fn three_way_the_highest_wins() {
    let c = cluster("c1", &[("env", "prod")], Some(200));
    let a = mcs("a", prod(), Some(300), &["cert-manager"]);
    let b = mcs("b", prod(), Some(100), &["cert-manager"]);
    let got = services_for(&c, &["cert-manager"], &[&a, &b]);
    let cm = got.decision("cert-manager").unwrap();
    assert!(matches!(cm.outcome, Outcome::Multi { mcs: "a", .. }));
    assert_eq!(
        cm.message().unwrap(),
        "cert-manager comes from MultiClusterService a (priority 300), over this cluster's own (priority 200) and MultiClusterService b (priority 100)"
    );
    assert_eq!(got.for_multi("b").lost.len(), 1);
}

#[test]
fn a_label_added_or_removed_changes_the_services() {
    let base = mcs("base", prod(), None, &["cert-manager"]);
    let without = cluster("c1", &[("env", "dev")], None);
    let got = services_for(&without, &["ingress"], &[&base]);
    assert!(got.selected_by.is_empty());
    assert_eq!(got.multi_services().count(), 0);
    let with = cluster("c1", &[("env", "prod")], None);
    let got = services_for(&with, &["ingress"], &[&base]);
    assert_eq!(got.selected_by, ["base"]);
    let multi: Vec<&str> = got.multi_services().map(|(_, e)| e.name.as_str()).collect();
    assert_eq!(multi, ["cert-manager"]);
}

#[test]
fn another_namespace_is_never_a_source() {
    let c = cluster("c1", &[("env", "prod")], None);
    let mut other = mcs("base", prod(), Some(1000), &["cert-manager"]);
    other.metadata.namespace = Some("tenant-b".into());
    let got = services_for(&c, &["cert-manager"], &[&other]);
    assert!(got.selected_by.is_empty());
    assert_eq!(got.decision("cert-manager").unwrap().outcome, Outcome::Own);
}

#[test]
fn an_invalid_or_empty_selector_selects_nothing_and_says_why() {
    let c = cluster("c1", &[("env", "prod")], None);
    let bad = mcs("bad", by_exprs(vec![expr("env", "In", &[])]), None, &["x"]);
    let empty = mcs("empty", LabelSelector::default(), None, &["x"]);
    let got = services_for(&c, &[], &[&bad, &empty]);
    assert!(got.selected_by.is_empty() && got.decisions.is_empty());
    let view = [ClusterView {
        cluster: "c1",
        selected: &got,
        deployed: false,
    }];
    let cond = |m: &MultiClusterService| multi_report(m, &view).conditions[0].clone();
    assert_eq!(
        (cond(&bad).status, cond(&bad).reason.as_str()),
        (false, "InvalidSelector")
    );
    assert_eq!(cond(&empty).reason, "EmptySelector");
}

#[test]
fn stop_on_conflict_withholds_the_rest_and_lets_others_win() {
    let c = cluster("c1", &[("env", "prod")], None);
    let mut a = mcs("a", prod(), Some(100), &["cert-manager", "prom"]);
    a.spec.service_spec.stop_on_conflict = true;
    let got = services_for(&c, &["cert-manager"], &[&a]);
    assert_eq!(
        got.stopped,
        [Stopped {
            mcs: "a",
            because: vec!["cert-manager"]
        }]
    );
    // Without a, the cluster's own has cert-manager alone, and prom is no one's.
    assert_eq!(got.decision("cert-manager").unwrap().outcome, Outcome::Own);
    assert!(got.decision("prom").is_none());
    assert!(got.for_multi("a").stopped);
    let report = multi_report(
        &a,
        &[ClusterView {
            cluster: "c1",
            selected: &got,
            deployed: true,
        }],
    );
    assert_eq!(
        report.matching_clusters[0].reason.as_deref(),
        Some("Stopped")
    );
}

#[test]
fn decisions_are_deterministic() {
    let c = cluster("c1", &[("env", "prod")], None);
    let a = mcs("a", prod(), Some(100), &["x", "y"]);
    let b = mcs("b", prod(), Some(150), &["y", "z", "y"]);
    let one = services_for(&c, &["w", "x"], &[&a, &b]);
    let two = services_for(&c, &["w", "x"], &[&b, &a, &b]);
    assert_eq!(one, two);
    let names: Vec<&str> = one.decisions.iter().map(|d| d.name).collect();
    assert_eq!(names, ["w", "x", "y", "z"]);
    assert_eq!(one.selected_by, ["a", "b"]);
}

#[test]
fn hmc_shaped_specs_are_read_as_service_specs() {
    let mut m = mcs("old", prod(), None, &[]);
    m.spec.services = vec![svc("cert-manager", "cert-manager-1")];
    m.spec.services_priority = Some(250);
    assert_eq!(m.priority(), 250);
    assert_eq!(m.services().len(), 1);
    let c = cluster("c1", &[("env", "prod")], Some(0));
    // A stored 0 is the old default: read as 100.
    assert_eq!(c.spec.own_priority(), 100);
    let got = services_for(&c, &["cert-manager"], &[&m]);
    assert!(matches!(
        got.decision("cert-manager").unwrap().outcome,
        Outcome::Multi { mcs: "old", .. }
    ));
}

#[test]
fn the_report_lists_few_and_counts_all() {
    let base = mcs("base", prod(), None, &["x"]);
    let clusters: Vec<ManagedCluster> = (0..150)
        .map(|i| cluster(&format!("c{i:03}"), &[("env", "prod")], None))
        .collect();
    let selected: Vec<Selected<'_>> = clusters
        .iter()
        .map(|c| services_for(c, &[], &[&base]))
        .collect();
    let views: Vec<ClusterView<'_, '_>> = clusters
        .iter()
        .zip(&selected)
        .map(|(c, s)| ClusterView {
            cluster: c.metadata.name.as_deref().unwrap(),
            selected: s,
            deployed: true,
        })
        .collect();
    let report = multi_report(&base, &views);
    assert_eq!(report.matching_count, 150);
    assert_eq!(
        report.matching_clusters.len(),
        crate::api::MAX_LISTED_CLUSTERS
    );
    assert_eq!(report.matching_clusters[0].name, "c000");
    assert!(report.matching_clusters.iter().all(|m| m.deployed));
    assert_eq!(report.conditions[0].message, "150 clusters match");
}

#[test]
fn revisions_follow_the_service_spec() {
    let spec = |p: i32| ServiceSpec {
        services: vec![svc("x", "x-1")],
        priority: Some(p),
        stop_on_conflict: false,
    };
    let first = next_revision(&Default::default(), &spec(100), &BTreeSet::new());
    assert_eq!(first.revision, Some(1));
    let same = next_revision(&first, &spec(100), &BTreeSet::new());
    assert_eq!(same.revision, Some(1));
    assert_eq!(same.revisions.len(), 1);
    let mut status = same;
    for p in 101..=115 {
        status = next_revision(&status, &spec(p), &BTreeSet::from([1]));
    }
    assert_eq!(status.revision, Some(16));
    // The ten newest and the one in use.
    assert_eq!(
        status.revisions.len(),
        crate::plan::revisions::KEEP_REVISIONS + 1
    );
    assert_eq!(status.revisions[0].revision, 1);
    let mut m = mcs("m", prod(), None, &[]);
    m.status = Some(status);
    assert_eq!(m.service_spec_at(1), Some(spec(100)));
    assert_eq!(m.service_spec_at(2), None);

    // At a remembered revision, a cluster plans with that revision's
    // services, priority and stopOnConflict, and the selector in force.
    let at = m.at_revision(1).expect("revision 1 is remembered");
    assert_eq!(at.service_spec(), spec(100));
    assert_eq!(at.priority(), 100);
    assert_eq!(at.spec.cluster_selector, m.spec.cluster_selector);
    assert_eq!(at.metadata, m.metadata);
    assert!(m.at_revision(2).is_none());
    // An hmc 0.0.6-shaped one at a revision is read from that revision
    // alone, never mixed with its flat fields.
    let mut flat = m.clone();
    flat.spec.services = vec![svc("y", "y-1")];
    flat.spec.services_priority = Some(7);
    let at = flat.at_revision(1).unwrap();
    assert_eq!(at.service_spec(), spec(100));
    assert!(at.status.is_none(), "a cluster's copy carries no status");

    // The spec is revision 16's only once the status says so for this
    // generation: a spec changed since is a revision not made yet.
    m.metadata.generation = Some(4);
    m.status.as_mut().unwrap().observed_generation = Some(4);
    assert!(m.spec_is_revision(16));
    assert!(!m.spec_is_revision(15));
    m.metadata.generation = Some(5);
    assert!(!m.spec_is_revision(16));
    m.status = None;
    assert!(!m.spec_is_revision(16));
}

/// The service planner with MultiClusterServices: what a cluster gets.
mod planned {
    use serde_json::json;

    use super::*;
    use crate::api::{
        ClusterTemplateSpec, ServiceState, ServiceTemplate, ServiceTemplateSpec, TemplateStatus,
    };
    use crate::plan::parsed_values::ParsedValues;
    use crate::plan::services::{ServicePlan, enabled_services, plan_services_selected};
    use crate::plan::values_data::ValuesData;

    fn valid(name: &str) -> ServiceTemplate {
        let mut st = ServiceTemplate::new(
            name,
            ServiceTemplateSpec {
                values: Some("from: service-template\n".into()),
                ..Default::default()
            },
        );
        st.status = Some(TemplateStatus {
            valid: true,
            ..Default::default()
        });
        st
    }

    /// Each service a cluster gets, with where its values came from (the
    /// `by` key its entry sets), or why it is blocked.
    fn plan(cluster: &ManagedCluster, mcss: &[&MultiClusterService]) -> Vec<(String, String)> {
        let template = ClusterTemplateSpec {
            services: vec![TemplateService {
                values: Some("by: template\n".into()),
                ..svc("cert-manager", "cert-manager-1")
            }],
            ..Default::default()
        };
        let sts: Vec<ServiceTemplate> = ["cert-manager-1", "ingress-1", "monitoring-1"]
            .into_iter()
            .map(valid)
            .collect();
        let own: Vec<&str> = enabled_services(&template.services, &cluster.spec.services)
            .iter()
            .map(|s| s.name)
            .collect();
        let selected = services_for(cluster, &own, mcss);
        let data = ValuesData::of(cluster, None);
        plan_services_selected(
            &template,
            &cluster.spec,
            (&data, &selected),
            |n| sts.iter().find(|s| s.metadata.name.as_deref() == Some(n)),
            &mut ParsedValues::default(),
            true,
        )
        .into_iter()
        .map(|p| match p {
            ServicePlan::Install(d) => {
                assert_eq!(d.values["from"], json!("service-template"));
                (d.name, d.values["by"].as_str().unwrap_or("-").to_string())
            }
            ServicePlan::Blocked(b) => {
                assert_eq!(b.state, ServiceState::Failed);
                (b.name, b.message)
            }
        })
        .collect()
    }

    fn with_values(mut m: MultiClusterService) -> MultiClusterService {
        let name = m.metadata.name.clone().unwrap();
        for s in &mut m.spec.service_spec.services {
            s.values = Some(format!("by: {name}\n"));
        }
        m
    }

    #[test]
    fn a_label_gives_and_takes_a_multi_cluster_services_services() {
        let prod = with_values(mcs(
            "prod",
            by_labels(&[("env", "prod")]),
            None,
            &["monitoring"],
        ));
        let labelled = cluster("dev-1", &[("env", "prod")], None);
        assert_eq!(
            plan(&labelled, &[&prod]),
            [
                ("cert-manager".into(), "template".into()),
                ("monitoring".into(), "prod".into())
            ]
        );
        let unlabelled = cluster("dev-1", &[("env", "dev")], None);
        assert_eq!(
            plan(&unlabelled, &[&prod]),
            [("cert-manager".to_string(), "template".to_string())]
        );
    }

    #[test]
    fn the_higher_priority_gives_a_service_both_name_and_equals_give_it_no_one() {
        let labelled = cluster("dev-1", &[("env", "prod")], None);
        let over = with_values(mcs(
            "base",
            by_labels(&[("env", "prod")]),
            Some(200),
            &["cert-manager"],
        ));
        assert_eq!(
            plan(&labelled, &[&over]),
            [("cert-manager".to_string(), "base".to_string())]
        );
        let under = with_values(mcs(
            "base",
            by_labels(&[("env", "prod")]),
            Some(50),
            &["cert-manager"],
        ));
        assert_eq!(
            plan(&labelled, &[&under]),
            [("cert-manager".to_string(), "template".to_string())]
        );
        let equal = with_values(mcs(
            "base",
            by_labels(&[("env", "prod")]),
            None,
            &["cert-manager"],
        ));
        let planned = plan(&labelled, &[&equal]);
        assert_eq!(planned.len(), 1);
        assert_eq!(
            planned[0].1,
            "cert-manager is in conflict: this cluster's own and MultiClusterService base all have priority 100, so none installs it; give one a higher priority"
        );
    }
}
