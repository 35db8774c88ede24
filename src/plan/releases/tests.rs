use super::*;
use crate::api::{ChartRef, ManagedClusterSpec};
use serde_json::json;

#[test]
fn templates_with_one_repository_share_its_source_and_keep_their_charts() {
    let helm = |chart: &str| HelmSpec {
        chart_name: Some(chart.into()),
        chart_version: Some("1.0.0".into()),
        ..Default::default()
    };
    let spec = |url: &str| HelmRepositorySpec {
        url: url.into(),
        interval: "10m".into(),
        timeout: Some("20s".into()),
        ..Default::default()
    };
    let owner = |name: &str| OwnerReference {
        kind: "ServiceTemplate".into(),
        name: name.into(),
        uid: format!("uid-{name}"),
        controller: Some(true),
        block_owner_deletion: Some(true),
        ..Default::default()
    };
    let options = ReleaseOptions::DEFAULT;
    let sources = |t: &str, url: &str| {
        chart_sources(
            TemplateKind::Service,
            t,
            "team-a",
            &helm(t),
            spec(url),
            owner(t),
            options,
        )
        .unwrap()
    };
    let (repo_a, chart_a) = sources("a", "http://charts");
    let (repo_b, chart_b) = sources("b", "http://charts");
    let (repo_c, _) = sources("c", "http://other");
    assert_eq!(
        repo_a.name_any(),
        repo_b.name_any(),
        "one source for one address"
    );
    assert_ne!(repo_a.name_any(), repo_c.name_any());
    assert!(repo_a.name_any().starts_with("repo-"));
    assert_eq!(chart_a.name_any(), "svctmpl-a");
    assert_eq!(chart_b.spec.source_ref.name, repo_a.name_any());
    assert!(
        !repo_a.labels().contains_key(labels::TEMPLATE),
        "no one template's"
    );
    assert_eq!(chart_a.labels()[labels::TEMPLATE], "svctmpl.a");
    let shared = &repo_a.owner_references()[0];
    assert_eq!(
        (shared.controller, shared.block_owner_deletion),
        (None, None)
    );
    assert_eq!(chart_a.owner_references()[0].controller, Some(true));
    let held = HelmRepositorySpec {
        suspend: Some(true),
        ..spec("http://charts")
    };
    assert_eq!(
        repository_name(&held),
        repo_a.name_any(),
        "held back or not, the same"
    );
    let slower = HelmRepositorySpec {
        timeout: Some("1m".into()),
        ..spec("http://charts")
    };
    assert_ne!(
        repository_name(&slower),
        repo_a.name_any(),
        "other settings, another source"
    );
}

/// A cluster `dev-1` in `hmc-system`.
pub(crate) fn mc() -> ManagedCluster {
    let mut mc = ManagedCluster::new(
        "dev-1",
        ManagedClusterSpec {
            template: "t".into(),
            ..Default::default()
        },
    );
    mc.metadata.namespace = Some("hmc-system".into());
    mc.metadata.uid = Some("uid-1".into());
    mc
}

/// The service `ingress-nginx` the cluster is given, into `ingress`.
pub(crate) fn svc() -> DesiredService {
    DesiredService {
        name: "ingress-nginx".into(),
        namespace: "ingress".into(),
        template: "ingress-nginx-4-11-3".into(),
        values: json!({"controller": {"replicaCount": 2}}),
        effective: json!({}),
        after: Vec::new(),
    }
}

#[test]
fn service_release_targets_the_child_cluster() {
    let chart = chart_ref(
        TemplateKind::Service,
        "ingress-nginx-4-11-3",
        "hmc-system",
        &HelmSpec::default(),
    );
    let name = service_release_name("dev-1", "ingress-nginx");
    let rel = service_release(name, &mc(), &svc(), chart, Some(3), ReleaseOptions::DEFAULT);
    let v = serde_json::to_value(&rel).unwrap();
    assert_eq!(v["metadata"]["name"], "dev-1.ingress-nginx");
    assert_eq!(v["metadata"]["annotations"][labels::REVISION], "3");
    assert_eq!(
        v["metadata"]["ownerReferences"][0]["kind"],
        "ManagedCluster"
    );
    assert_eq!(v["metadata"]["ownerReferences"][0]["controller"], true);
    let spec = &v["spec"];
    assert_eq!(
        spec["kubeConfig"],
        json!({"secretRef": {"name": "dev-1-kubeconfig", "key": "value"}})
    );
    assert_eq!(spec["releaseName"], "ingress-nginx");
    assert_eq!(spec["targetNamespace"], "ingress");
    assert_eq!(spec["storageNamespace"], "ingress");
    assert_eq!(spec["install"]["createNamespace"], true);
    assert_eq!(
        spec["chartRef"],
        json!({"kind": "HelmChart", "name": "svctmpl-ingress-nginx-4-11-3", "namespace": "hmc-system"})
    );
    assert_eq!(spec["values"], json!({"controller": {"replicaCount": 2}}));
    assert!(spec.get("valuesFrom").is_none());
    assert_eq!(spec["driftDetection"], json!({"mode": "enabled"}));
    assert_eq!(spec["interval"], "10m");
    // Nothing that exists in the child is taken over.
    assert_eq!(spec["install"]["disableTakeOwnership"], true);
    assert_eq!(spec["upgrade"]["disableTakeOwnership"], true);
}

#[test]
fn a_clusters_releases_share_its_shard() {
    let shard = |r: &HelmRelease| r.labels().get(flux::SHARD_LABEL).cloned();
    let release = |options: ReleaseOptions<'_>| {
        let chart = LocalRef::default();
        let service = service_release("r".into(), &mc(), &svc(), chart.clone(), None, options);
        (cluster_release(&mc(), chart, options), service)
    };
    // No shards: no label, as before shards existed.
    let (cluster, service) = release(ReleaseOptions::DEFAULT);
    assert_eq!((shard(&cluster), shard(&service)), (None, None));
    let shards = ["shard1".to_string(), "shard2".to_string()];
    let options = ReleaseOptions {
        shards: &shards,
        ..ReleaseOptions::DEFAULT
    };
    let (cluster, service) = release(options);
    let want = crate::plan::shard::shard_of(&shards, "hmc-system", "dev-1");
    assert_eq!(shard(&cluster).as_deref(), want);
    assert_eq!(shard(&service), shard(&cluster));
    // Moving to another shard installs the same: shown as installed,
    // with no mark, since a label leaves the generation as it was.
    let mut moved = service.clone();
    moved
        .labels_mut()
        .insert(flux::SHARD_LABEL.into(), "elsewhere".into());
    moved.metadata.generation = Some(2);
    let mut desired = service.clone();
    assert!(carry_installs_as(&mut desired, Some(&moved)));
    assert!(!desired.annotations().contains_key(INSTALLS_AS_GENERATION));
    let mut unlabelled = service.clone();
    unlabelled.labels_mut().remove(flux::SHARD_LABEL);
    assert!(carry_installs_as(&mut unlabelled, Some(&moved)));
    assert!(!carry_installs_as(&mut service.clone(), Some(&service)));
}

#[test]
fn every_release_takes_the_engines_interval() {
    let options = ReleaseOptions {
        release_interval: "30s",
        ..ReleaseOptions::DEFAULT
    };
    let svc_rel = service_release(
        "dev-1.ingress-nginx".into(),
        &mc(),
        &svc(),
        LocalRef::default(),
        None,
        options,
    );
    assert_eq!(svc_rel.spec.interval, "30s");
    let cluster = cluster_release(&mc(), LocalRef::default(), options);
    assert_eq!(cluster.spec.interval, "30s");
    // The cluster's own objects are Cluster API's to change: only
    // services have their changes made by hand reverted.
    assert_eq!(cluster.spec.drift_detection, None);
}

fn labelled(name: &str, labels: &[(&str, &str)]) -> std::sync::Arc<HelmRelease> {
    let mut r = HelmRelease::new(name, Default::default());
    r.metadata.labels = Some(
        labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    std::sync::Arc::new(r)
}

fn ours(name: &str, cluster: &str, service: &str) -> std::sync::Arc<HelmRelease> {
    labelled(
        name,
        &[
            (labels::MANAGED_BY, labels::MANAGED_BY_VALUE),
            (labels::CLUSTER, cluster),
            (labels::ROLE, "service"),
            (labels::SERVICE, service),
        ],
    )
}

#[test]
fn an_install_under_the_old_name_keeps_it() {
    let choose = |existing: &[std::sync::Arc<HelmRelease>]| {
        choose_service_release_name("x", "ingress", existing)
    };
    // New services get the new name.
    assert_eq!(choose(&[]), "x.ingress");
    // An existing install of exactly this cluster and service keeps its name.
    assert_eq!(choose(&[ours("x-ingress", "x", "ingress")]), "x-ingress");
    // Once a release under the new name exists, it is the one.
    assert_eq!(
        choose(&[
            ours("x-ingress", "x", "ingress"),
            ours("x.ingress", "x", "ingress")
        ]),
        "x.ingress"
    );
    // The old name counts only when its labels say exactly this service
    // of this cluster, made by us.
    for other in [
        ours("x-ingress", "x-ingress", "ingress"),
        ours("x-ingress", "x", "other"),
        labelled(
            "x-ingress",
            &[(labels::CLUSTER, "x"), (labels::SERVICE, "ingress")],
        ),
        labelled(
            "x-ingress",
            &[
                (labels::MANAGED_BY, labels::MANAGED_BY_VALUE),
                (labels::CLUSTER, "x"),
                (labels::ROLE, "cluster"),
                (labels::SERVICE, "ingress"),
            ],
        ),
    ] {
        assert_eq!(
            choose(std::slice::from_ref(&other)),
            "x.ingress",
            "{other:?}"
        );
    }
}

#[test]
fn existing_objects_are_taken_over_only_when_the_cluster_says_so() {
    let refuses = |r: &HelmRelease| {
        (
            r.spec.install.as_ref().unwrap().disable_take_ownership,
            r.spec.upgrade.as_ref().unwrap().disable_take_ownership,
        )
    };
    let options = ReleaseOptions::DEFAULT;
    let cluster = cluster_release(&mc(), LocalRef::default(), options);
    assert_eq!(refuses(&cluster), (Some(true), Some(true)));
    let mut taking = mc();
    taking.spec.services = vec![crate::api::ManagedService {
        name: "ingress-nginx".into(),
        take_ownership: true,
        ..Default::default()
    }];
    let rel = |mc: &ManagedCluster| {
        service_release("r".into(), mc, &svc(), LocalRef::default(), None, options)
    };
    assert_eq!(refuses(&rel(&mc())), (Some(true), Some(true)));
    assert_eq!(refuses(&rel(&taking)), (Some(false), Some(false)));
    // The cluster's own release never takes over.
    assert_eq!(
        refuses(&cluster_release(&taking, LocalRef::default(), options)),
        (Some(true), Some(true))
    );
    // Turning the refusal on for a release installed without it (or
    // the cluster letting the service take over) installs the same.
    let mut installed = rel(&taking);
    installed.metadata.generation = Some(3);
    let mut refusing = rel(&mc());
    assert!(carry_installs_as(&mut refusing, Some(&installed)));
    assert_eq!(refusing.annotations()[INSTALLS_AS_GENERATION], "3");
    // What others wrote beside the engine's marks, such as the request
    // `flux reconcile` leaves, does not make it another install.
    let mut requested = rel(&mc());
    requested.metadata.generation = Some(4);
    requested.annotations_mut().insert(
        "reconcile.fluxcd.io/requestedAt".into(),
        "2026-12-07T01:00:00Z".into(),
    );
    requested.labels_mut().insert("team".into(), "web".into());
    let mut taking_over = rel(&taking);
    assert!(carry_installs_as(&mut taking_over, Some(&requested)));
    assert_eq!(taking_over.annotations()[INSTALLS_AS_GENERATION], "4");
    let mut old = rel(&mc());
    old.spec.install = None;
    old.spec.upgrade = None;
    old.metadata.generation = Some(2);
    let mut refusing = rel(&mc());
    assert!(
        !carry_installs_as(&mut refusing, Some(&old)),
        "remediation changed too"
    );
}

fn referencing(namespace: Option<&str>) -> HelmSpec {
    HelmSpec {
        chart_ref: Some(ChartRef {
            api_version: None,
            kind: "HelmChart".into(),
            name: "shared".into(),
            namespace: namespace.map(String::from),
        }),
        ..Default::default()
    }
}

#[test]
fn a_chart_ref_to_another_namespace_is_refused_with_both_names() {
    assert_eq!(
        foreign_chart_ref(&referencing(Some("team-b")), "team-a").as_deref(),
        Some(
            "chartRef points to namespace team-b; a template may only use charts in its own namespace (team-a)"
        )
    );
    assert_eq!(
        foreign_chart_ref(&referencing(Some("team-a")), "team-a"),
        None
    );
    assert_eq!(foreign_chart_ref(&referencing(None), "team-a"), None);
    assert_eq!(foreign_chart_ref(&HelmSpec::default(), "team-a"), None);
}

#[test]
fn releases_never_point_at_another_namespace() {
    for ns in [None, Some("team-a"), Some("team-b")] {
        let r = chart_ref(TemplateKind::Service, "t", "team-a", &referencing(ns));
        assert_eq!(r.namespace.as_deref(), Some("team-a"), "{ns:?}");
        assert_eq!(r.name, "shared");
    }
}
