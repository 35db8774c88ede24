use super::*;
use crate::api::{
    ClusterTemplateSpec, HelmSpec, ManagedClusterSpec, ManagedService, ServiceTemplateSpec,
    TemplateService, TemplateStatus,
};
use kube::ResourceExt;
use serde_json::json;

const NS: &str = "team-a";

fn service_template(name: &str, version: &str, constraint: Option<&str>) -> ServiceTemplate {
    let mut t = ServiceTemplate::new(
        name,
        ServiceTemplateSpec {
            helm: HelmSpec {
                chart_name: Some("ingress-nginx".into()),
                chart_version: Some(version.into()),
                ..Default::default()
            },
            k8s_constraint: constraint.map(String::from),
            values: None,
        },
    );
    t.metadata.namespace = Some(NS.into());
    t.status = Some(TemplateStatus {
        valid: true,
        config: Some(json!({"controller": {"replicaCount": 1, "kind": "Deployment"}})),
        ..Default::default()
    });
    t
}

fn cluster_template(
    name: &str,
    services: &[(&str, &str, &str)],
    k8s: Option<&str>,
) -> ClusterTemplate {
    let mut t = ClusterTemplate::new(
        name,
        ClusterTemplateSpec {
            k8s_version: k8s.map(String::from),
            services: services
                .iter()
                .map(|(service, template, values)| TemplateService {
                    name: service.to_string(),
                    template: template.to_string(),
                    values: Some(values.to_string()),
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        },
    );
    t.metadata.namespace = Some(NS.into());
    t
}

fn cluster(name: &str, template: &str, own: Option<&str>) -> ManagedCluster {
    let mut mc = ManagedCluster::new(
        name,
        ManagedClusterSpec {
            template: template.into(),
            services: own
                .map(|values| ManagedService {
                    name: "ingress".into(),
                    values: Some(values.into()),
                    ..Default::default()
                })
                .into_iter()
                .collect(),
            ..Default::default()
        },
    );
    mc.metadata.namespace = Some(NS.into());
    mc
}

/// Four clusters of `prod`: two take the template's values, one sets its
/// own replica count, one runs on a template whose Kubernetes is too old
/// for the new chart.
fn fleet() -> Fleet {
    Fleet {
        cluster_templates: vec![
            cluster_template(
                "prod",
                &[("ingress", "nginx-1", "controller: {replicaCount: 2}")],
                None,
            ),
            cluster_template(
                "old",
                &[("ingress", "nginx-1", "controller: {replicaCount: 2}")],
                Some("1.27.0"),
            ),
        ],
        service_templates: vec![
            service_template("nginx-1", "4.11.3", None),
            service_template("nginx-2", "4.11.4", Some(">=1.28.0")),
        ],
        clusters: vec![
            cluster("a", "prod", None),
            cluster("b", "prod", None),
            cluster("c", "prod", Some("controller: {replicaCount: 5}")),
            cluster("d", "old", None),
        ],
        capi_clusters: Vec::new(),
        multi_cluster_services: Vec::new(),
    }
}

fn outcomes(impacts: &[ServiceImpact]) -> Vec<(&str, &Outcome)> {
    impacts
        .iter()
        .map(|i| (i.cluster.as_str(), &i.outcome))
        .collect()
}

#[test]
fn nothing_proposed_changes_nothing() {
    assert_eq!(impact(&fleet(), &Fleet::default()), vec![]);
    assert_eq!(impact(&fleet(), &fleet()), vec![], "the same objects again");
    assert_eq!(headline(&[]), "no cluster changes");
}

#[test]
fn a_template_value_changes_its_clusters_except_those_that_set_their_own() {
    let proposal = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[("ingress", "nginx-1", "controller: {replicaCount: 3}")],
            None,
        )],
        ..Default::default()
    };
    let impacts = impact(&fleet(), &proposal);
    let change = Outcome::Changes {
        changes: vec![Change {
            path: "controller.replicaCount".into(),
            old: Some(json!(2)),
            new: Some(json!(3)),
        }],
        chart: None,
    };
    let kept = Outcome::Overridden {
        paths: vec!["controller.replicaCount".into()],
    };
    assert_eq!(
        outcomes(&impacts),
        vec![("a", &change), ("b", &change), ("c", &kept)],
        "d is made from another template"
    );
    let groups = summarize(&impacts);
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0].what, "controller.replicaCount: 2 → 3");
    assert_eq!(groups[0].clusters, ["team-a/a", "team-a/b"]);
    assert_eq!(
        groups[1].what,
        "keep their own value: controller.replicaCount"
    );
    assert_eq!(
        headline(&impacts),
        "3 clusters: 2 ingress: controller.replicaCount: 2 → 3; 1 ingress: keep their own value: controller.replicaCount"
    );
}

/// Every reader of an impact (diff, the pull request's comment, the
/// console's review) gets values under secret-looking keys masked from the
/// planner itself, still told that they changed.
#[test]
fn a_password_in_a_template_change_is_masked_and_still_said_to_change() {
    let proposal = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[(
                "ingress",
                "nginx-1",
                "controller: {replicaCount: 2}\nauth: {password: hunter2}",
            )],
            None,
        )],
        ..Default::default()
    };
    let impacts = impact(&fleet(), &proposal);
    let words: Vec<String> = impacts
        .iter()
        .filter_map(|i| match &i.outcome {
            Outcome::Changes { changes, .. } => Some(changes.iter().map(ToString::to_string)),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(!words.is_empty(), "the password is a change: {impacts:?}");
    for w in &words {
        assert!(!w.contains("hunter2"), "{w}");
        assert!(w.contains("auth.password: ++++++++"), "{w}");
    }
}

#[test]
fn a_new_chart_version_is_named_and_a_cluster_it_does_not_support_is_blocked() {
    let proposal = Fleet {
        cluster_templates: vec![
            cluster_template(
                "prod",
                &[("ingress", "nginx-2", "controller: {replicaCount: 2}")],
                None,
            ),
            cluster_template(
                "old",
                &[("ingress", "nginx-2", "controller: {replicaCount: 2}")],
                Some("1.27.0"),
            ),
        ],
        ..Default::default()
    };
    let impacts = impact(&fleet(), &proposal);
    let by_cluster: BTreeMap<&str, &Outcome> = outcomes(&impacts).into_iter().collect();
    assert_eq!(
        by_cluster["a"],
        &Outcome::Changes {
            changes: vec![],
            chart: Some(("4.11.3".into(), "4.11.4".into()))
        }
    );
    assert!(
        matches!(by_cluster["d"], Outcome::Blocked { why } if why.contains("1.27.0")),
        "{:?}",
        by_cluster["d"]
    );
    let groups = summarize(&impacts);
    assert!(
        groups
            .iter()
            .any(|g| g.blocked && g.clusters == ["team-a/d"])
    );
}

#[test]
fn a_service_added_or_dropped_is_installed_or_removed() {
    let proposal = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[
                ("ingress", "nginx-1", "controller: {replicaCount: 2}"),
                ("second", "nginx-1", ""),
            ],
            None,
        )],
        ..Default::default()
    };
    let impacts = impact(&fleet(), &proposal);
    let added: Vec<_> = impacts
        .iter()
        .filter(|i| i.service == "second")
        .map(|i| (i.cluster.as_str(), &i.outcome))
        .collect();
    assert_eq!(
        added,
        vec![
            ("a", &Outcome::Installed),
            ("b", &Outcome::Installed),
            ("c", &Outcome::Installed)
        ]
    );
    let dropped = Fleet {
        cluster_templates: vec![cluster_template("prod", &[], None)],
        ..Default::default()
    };
    let impacts = impact(&fleet(), &dropped);
    let by_cluster: BTreeMap<&str, &Outcome> = outcomes(&impacts).into_iter().collect();
    assert_eq!(by_cluster.len(), 3);
    // c's own entry of the service set values only and names no template:
    // it does not keep a service the template drops.
    assert_eq!(
        (by_cluster["a"], by_cluster["b"], by_cluster["c"]),
        (&Outcome::Removed, &Outcome::Removed, &Outcome::Removed)
    );
}

#[test]
fn a_missing_service_template_blocks_with_the_planners_words() {
    let proposal = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[("ingress", "nginx-9", "controller: {replicaCount: 2}")],
            None,
        )],
        ..Default::default()
    };
    let impacts = impact(&fleet(), &proposal);
    assert_eq!(impacts.len(), 3);
    for i in &impacts {
        assert_eq!(
            i.outcome,
            Outcome::Blocked {
                why: "service template nginx-9 does not exist; create it or fix the service's template"
                    .into()
            }
        );
    }
}

fn given_revision(mut mc: ManagedCluster, revision: i64, order: Option<&str>) -> ManagedCluster {
    mc.status = Some(crate::api::ManagedClusterStatus {
        target_revision: Some(revision),
        ..Default::default()
    });
    if let Some(o) = order {
        mc.labels_mut().insert("region".into(), o.into());
    }
    mc
}

#[test]
fn changed_values_that_break_the_charts_schema_block_and_unchanged_ones_are_not_blamed() {
    // The chart takes at most 4 replicas.
    let check = |ns: &str, template: &str, values: &Value| {
        assert_eq!((ns, template), (NS, "nginx-1"));
        let n = values.pointer("/controller/replicaCount")?.as_i64()?;
        (n > 4).then(|| format!("controller.replicaCount: {n} is greater than the maximum of 4"))
    };
    let proposal = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[("ingress", "nginx-1", "controller: {replicaCount: 9}")],
            None,
        )],
        ..Default::default()
    };
    let impacts = impact_checked(&fleet(), &proposal, &check);
    let blocked = Outcome::Blocked {
        why: "the chart's schema: controller.replicaCount: 9 is greater than the maximum of 4"
            .into(),
    };
    // c keeps its own 5, which already broke the schema: not this change's doing.
    assert_eq!(
        outcomes(&impacts),
        vec![
            ("a", &blocked),
            ("b", &blocked),
            (
                "c",
                &Outcome::Overridden {
                    paths: vec!["controller.replicaCount".into()]
                }
            ),
        ]
    );
    assert!(summarize(&impacts)[0].blocked);
    assert_eq!(
        headline(&impacts),
        "3 clusters: 2 ingress: blocked: the chart's schema: controller.replicaCount: 9 is \
         greater than the maximum of 4; 1 ingress: keep their own value: controller.replicaCount"
    );
}

#[test]
fn a_template_change_reaches_its_clusters_in_the_waves_of_its_policy() {
    let mut f = fleet();
    f.clusters = ["a", "b", "c", "e", "f"]
        .iter()
        .map(|n| given_revision(cluster(n, "prod", None), 1, None))
        .chain([cluster("new", "prod", None)])
        .collect();
    let mut proposed = cluster_template(
        "prod",
        &[("ingress", "nginx-1", "controller: {replicaCount: 3}")],
        None,
    );
    proposed.spec.rollout = Some(crate::api::RolloutPolicy {
        max_concurrent: k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(2),
        canary: Some(1),
        ..Default::default()
    });
    let proposal = Fleet {
        cluster_templates: vec![proposed.clone()],
        ..Default::default()
    };
    let impacts = impact(&f, &proposal);
    let waves: Vec<(&str, Option<String>)> = impacts
        .iter()
        .map(|i| (i.cluster.as_str(), i.wave.map(|w| w.words())))
        .collect();
    // A canary of one, then waves of two; the wave after the canary waits
    // for an approval. A cluster given no revision yet gets the new one
    // when its services first reach it: no wave.
    assert_eq!(
        waves,
        vec![
            ("a", Some("wave 1 of 3".into())),
            ("b", Some("wave 2 of 3, after an approval".into())),
            ("c", Some("wave 2 of 3, after an approval".into())),
            ("e", Some("wave 3 of 3".into())),
            ("f", Some("wave 3 of 3".into())),
            ("new", None),
        ]
    );
    // A Manual policy waits before every wave.
    proposed.spec.rollout.as_mut().unwrap().strategy = crate::api::RolloutStrategy::Manual;
    let proposal = Fleet {
        cluster_templates: vec![proposed],
        ..Default::default()
    };
    let waves: Vec<Wave> = impact(&f, &proposal)
        .iter()
        .filter_map(|i| i.wave)
        .collect();
    assert_eq!(waves.len(), 5);
    assert!(waves.iter().all(|w| w.approval), "{waves:?}");
    // A service template's change is no revision of the cluster template.
    let proposal = Fleet {
        service_templates: vec![service_template("nginx-1", "4.11.4", None)],
        ..Default::default()
    };
    let impacts = impact(&f, &proposal);
    assert!(!impacts.is_empty());
    assert!(impacts.iter().all(|i| i.wave.is_none()));
}

proptest::proptest! {
    /// Same inputs, same answer; and a proposal of the fleet's own objects
    /// changes nothing, whatever the replica counts.
    #[test]
    fn the_impact_is_a_function_of_its_inputs(
        template_count in 0i64..6,
        proposed in 0i64..6,
        own in proptest::option::of(0i64..6),
    ) {
        let mut f = fleet();
        f.cluster_templates[0] = cluster_template(
            "prod",
            &[("ingress", "nginx-1", &format!("controller: {{replicaCount: {template_count}}}"))],
            None,
        );
        if let Some(own) = own {
            f.clusters[0] = cluster("a", "prod", Some(&format!("controller: {{replicaCount: {own}}}")));
        }
        let proposal = Fleet {
            cluster_templates: vec![cluster_template(
                "prod",
                &[("ingress", "nginx-1", &format!("controller: {{replicaCount: {proposed}}}"))],
                None,
            )],
            ..Default::default()
        };
        let once = impact(&f, &proposal);
        proptest::prop_assert_eq!(&once, &impact(&f, &proposal));
        proptest::prop_assert_eq!(impact(&f, &f.clone()), vec![]);
        // Clusters b and c change exactly when the template's value does.
        let b_changes = once.iter().any(|i| i.cluster == "b");
        proptest::prop_assert_eq!(b_changes, template_count != proposed);
        // Cluster a with its own value never changes, it keeps it.
        if own.is_some() {
            let kept = once
                .iter()
                .filter(|i| i.cluster == "a")
                .all(|i| matches!(i.outcome, Outcome::Overridden { .. }));
            proptest::prop_assert!(kept, "{:?}", once);
        }
    }
}

fn capi_cluster(name: &str, region: Option<&str>) -> capi::Cluster {
    serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
        "metadata": {"name": name, "namespace": NS,
                     "labels": region.map(|r| json!({"region": r})).unwrap_or(json!({}))},
        "spec": {},
    }))
    .unwrap()
}

/// `live` with template prod's ingress values the template `values`
/// gives (over nothing more), and a proposal that adds a replica count
/// to them.
fn templated_change(mut live: Fleet, values: impl Fn(&str) -> String) -> (Fleet, Fleet) {
    live.cluster_templates[0] =
        cluster_template("prod", &[("ingress", "nginx-1", &values(""))], None);
    let proposal = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[("ingress", "nginx-1", &values("  replicaCount: 3\n"))],
            None,
        )],
        ..Default::default()
    };
    (live, proposal)
}

/// A template whose values read the cluster: the review shows each cluster
/// what it will get, and the cluster the template cannot render for as
/// blocked, with why.
#[test]
fn templated_values_are_planned_for_each_cluster_with_its_own_data() {
    let values = |extra: &str| {
        format!(
            "controller:\n  region: \"{{{{ .Cluster.metadata.labels.region }}}}-{{{{ .Cluster.metadata.name }}}}\"\n{extra}"
        )
    };
    let (mut live, proposal) = templated_change(fleet(), values);
    live.capi_clusters = vec![
        capi_cluster("a", Some("eu")),
        capi_cluster("b", Some("us")),
        capi_cluster("c", None),
    ];
    let impacts = impact(&live, &proposal);
    let found = outcomes(&impacts);
    let change = Outcome::Changes {
        changes: vec![Change {
            path: "controller.replicaCount".into(),
            old: Some(json!(1)),
            new: Some(json!(3)),
        }],
        chart: None,
    };
    // c's Cluster has no region label: its service is blocked before and
    // after, and the change does not reach it.
    assert_eq!(found, vec![("a", &change), ("b", &change)]);
    // The merged values the review shows for one cluster are its own.
    let before = View::of(&live, None);
    let mut parsed = ParsedValues::default();
    let first = live.clusters.first();
    let plans = before.plan(NS, (first, &before.values_data(first)), false, &mut parsed);
    match plans.get("ingress") {
        Some(ServicePlan::Install(d)) => {
            assert_eq!(d.effective["controller"]["region"], "eu-a")
        }
        other => panic!("{other:?}"),
    }
    let c = live.clusters.iter().find(|c| c.name_any() == "c");
    match before
        .plan(NS, (c, &before.values_data(c)), false, &mut parsed)
        .get("ingress")
    {
        Some(ServicePlan::Blocked(b)) => assert!(
            b.message.ends_with("label region is not set on Cluster c"),
            "{}",
            b.message
        ),
        other => panic!("{other:?}"),
    }
}

fn edge(selector: &[(&str, &str)]) -> MultiClusterService {
    let mut m = MultiClusterService::new(
        "edge",
        crate::api::MultiClusterServiceSpec {
            cluster_selector: k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector {
                match_labels: Some(
                    selector
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                ),
                match_expressions: None,
            },
            service_spec: crate::api::ServiceSpec {
                services: vec![TemplateService {
                    name: "edge".into(),
                    template: "nginx-1".into(),
                    ..Default::default()
                }],
                ..Default::default()
            },
            ..Default::default()
        },
    );
    m.metadata.namespace = Some(NS.into());
    m
}

fn labelled(mut mc: ManagedCluster, env: &str) -> ManagedCluster {
    mc.metadata.labels = Some([("env".to_string(), env.to_string())].into());
    mc
}

/// A MultiClusterService proposed installs its service where its selector
/// matches; a label proposed on a cluster installs or removes what the
/// MultiClusterServices of its namespace give.
#[test]
fn multi_cluster_services_and_labels_are_planned_with_the_fleet() {
    let mut live = fleet();
    live.clusters[0] = labelled(live.clusters[0].clone(), "prod");
    let proposal = Fleet {
        multi_cluster_services: vec![edge(&[("env", "prod")])],
        ..Default::default()
    };
    let impacts = impact(&live, &proposal);
    let found: Vec<(&str, &str, &Outcome)> = impacts
        .iter()
        .map(|i| (i.cluster.as_str(), i.service.as_str(), &i.outcome))
        .collect();
    assert_eq!(found, [("a", "edge", &Outcome::Installed)]);

    // With the MultiClusterService live, "this label change installs edge
    // on b", and removing a's removes it there.
    live.multi_cluster_services = vec![edge(&[("env", "prod")])];
    let b = labelled(live.clusters[1].clone(), "prod");
    let mut a = live.clusters[0].clone();
    a.metadata.labels = None;
    let proposal = Fleet {
        clusters: vec![a, b],
        ..Default::default()
    };
    let impacts = impact(&live, &proposal);
    let found: Vec<(&str, &str, &Outcome)> = impacts
        .iter()
        .map(|i| (i.cluster.as_str(), i.service.as_str(), &i.outcome))
        .collect();
    assert_eq!(
        found,
        [
            ("a", "edge", &Outcome::Removed),
            ("b", "edge", &Outcome::Installed)
        ]
    );
}

/// A fleet too large for one thread gets the answer one thread gives: the
/// same entries in the same order, the first of each kind of cluster
/// copied to the rest of its kind.
#[test]
fn clusters_planned_on_several_threads_come_out_as_on_one() {
    let values =
        |extra: &str| format!("controller:\n  name: \"{{{{ .Cluster.metadata.name }}}}\"\n{extra}");
    let (mut live, proposal) = templated_change(fleet(), values);
    let n = 4 * crate::plan::parallel::MIN_PER_THREAD + 7;
    live.clusters = (0..n)
        .map(|i| {
            // Some set their own count, some change nothing of it.
            let own = match i % 3 {
                0 => Some("controller: {replicaCount: 3}"),
                1 => Some("controller: {replicaCount: 5}"),
                _ => None,
            };
            cluster(&format!("c{i:04}"), "prod", own)
        })
        .collect();
    // Every seventh has no Cluster yet: its service waits.
    live.capi_clusters = (0..n)
        .filter(|i| i % 7 != 0)
        .map(|i| capi_cluster(&format!("c{i:04}"), Some("eu")))
        .collect();
    let check = |_: &str, _: &str, values: &Value| {
        (values["controller"]["name"] == "c0011").then(|| "not this one".to_string())
    };
    let alone = impact_on(1, &live, &proposal, &check);
    let some = |f: fn(&Outcome) -> bool| alone.iter().any(|i| f(&i.outcome));
    assert!(some(|o| matches!(o, Outcome::Blocked { .. })));
    assert!(some(|o| matches!(o, Outcome::Overridden { .. })));
    assert!(some(|o| matches!(o, Outcome::Changes { .. })));
    for threads in [2, 3, 8] {
        assert!(
            impact_on(threads, &live, &proposal, &check) == alone,
            "{threads}"
        );
    }
    // And in a namespace without templates, where clusters alike (here
    // two or three of each kind) are planned once and copied: the same.
    let plain = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[("ingress", "nginx-1", "controller: {replicaCount: 3}")],
            None,
        )],
        clusters: (0..n)
            .map(|i| {
                let own = format!("controller: {{minReadySeconds: {}}}", i % 300);
                cluster(&format!("c{i:04}"), "prod", Some(&own))
            })
            .collect(),
        ..live
    };
    let proposal = Fleet {
        cluster_templates: vec![cluster_template(
            "prod",
            &[("ingress", "nginx-1", "controller: {replicaCount: 4}")],
            None,
        )],
        ..Default::default()
    };
    let alone = impact_on(1, &plain, &proposal, &|_, _, _| None);
    assert!(!alone.is_empty());
    assert!(impact_on(8, &plain, &proposal, &|_, _, _| None) == alone);
}
