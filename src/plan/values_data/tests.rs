use serde_json::json;

use super::*;
use crate::api::ManagedClusterSpec;
use crate::plan::template::missing::MissingKey;
use crate::plan::template::{Limits, render};

fn managed() -> ManagedCluster {
    let mut mc = ManagedCluster::new(
        "dev-1",
        ManagedClusterSpec {
            template: "aws-1-0".into(),
            ..Default::default()
        },
    );
    mc.metadata.namespace = Some("team-a".into());
    mc.metadata.resource_version = Some("42".into());
    mc
}

fn cluster() -> capi::Cluster {
    serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2",
        "kind": "Cluster",
        "metadata": {"name": "dev-1", "namespace": "team-a", "resourceVersion": "7",
                     "labels": {"region": "eu-west"}},
        "spec": {"paused": false, "clusterNetwork": {"pods": {"cidrBlocks": ["10.0.0.0/16"]}}},
        "status": {"phase": "Provisioned"},
    }))
    .unwrap()
}

fn rendered(text: &str, data: &ValuesData) -> Result<String, String> {
    render(text, &data.root(), Limits::default()).map_err(|e| e.to_string())
}

#[test]
fn a_template_reads_the_cluster_the_managed_cluster_and_the_template_name() {
    let (mc, c) = (managed(), cluster());
    let data = ValuesData::of(&mc, Some(&c));
    assert_eq!(
        rendered(
            "{{ .Cluster.metadata.name }}/{{ .Cluster.metadata.labels.region }}/\
             {{ range .Cluster.spec.clusterNetwork.pods.cidrBlocks }}{{ . }}{{ end }}/{{ .Cluster.spec.paused }}/\
             {{ .ManagedCluster.metadata.namespace }}/{{ .ManagedCluster.spec.template }}/{{ .Template }}",
            &data
        )
        .as_deref(),
        Ok("dev-1/eu-west/10.0.0.0/16/false/team-a/aws-1-0/aws-1-0")
    );
}

#[test]
fn what_changes_on_every_update_is_not_there_to_read() {
    let (mc, c) = (managed(), cluster());
    let data = ValuesData::of(&mc, Some(&c));
    for text in [
        "{{ .Cluster.status.phase }}",
        "{{ .Cluster.metadata.resourceVersion }}",
        "{{ .ManagedCluster.metadata.resourceVersion }}",
    ] {
        let e = rendered(text, &data).unwrap_err();
        assert!(e.contains("map has no entry for key"), "{text}: {e}");
    }
    let Value::Map(root) = &*data.root() else {
        panic!("the root is a map");
    };
    assert_eq!(
        root.keys().collect::<Vec<_>>(),
        ["Cluster", "ManagedCluster", "Template"]
    );
}

#[test]
fn before_cluster_api_made_the_cluster_it_is_nil() {
    let mc = managed();
    let data = ValuesData::of(&mc, None);
    assert!(!data.has_capi_cluster());
    let e = rendered("{{ .Cluster.metadata.name }}", &data).unwrap_err();
    assert!(e.contains("nil pointer evaluating"), "{e}");
    assert_eq!(rendered("{{ .Template }}", &data).as_deref(), Ok("aws-1-0"));
    // Labels and annotations are there, empty, when the object has none.
    let (mc, mut c) = (managed(), cluster());
    c.metadata.labels = None;
    let data = ValuesData::of(&mc, Some(&c));
    assert_eq!(
        rendered(
            "{{ .Cluster.metadata.labels }}{{ .ManagedCluster.metadata.annotations }}",
            &data
        )
        .as_deref(),
        Ok("map[]map[]")
    );
}

#[test]
fn a_missing_key_is_said_in_the_clusters_words() {
    let (mc, c) = (managed(), cluster());
    let data = ValuesData::of(&mc, Some(&c));
    let said = |path: &[&str], key: &str| {
        data.explain(&MissingKey {
            path: path.iter().map(|p| p.to_string()).collect(),
            key: key.into(),
        })
    };
    assert_eq!(
        said(&["Cluster", "metadata", "labels"], "tier"),
        "label tier is not set on Cluster dev-1"
    );
    assert_eq!(
        said(&["ManagedCluster", "metadata", "annotations"], "owner"),
        "annotation owner is not set on ManagedCluster dev-1"
    );
    assert_eq!(
        said(&["Cluster", "spec"], "topology"),
        ".Cluster.spec.topology is not set on Cluster dev-1"
    );
    assert_eq!(
        said(&["Cluster"], "status"),
        "a values template does not read the status of Cluster dev-1"
    );
    assert_eq!(
        said(&[], "Values"),
        ".Values is not something a values template reads: it reads .Cluster, .ManagedCluster and .Template"
    );
}

/// `text` over the root built with only what it may read, and over the
/// whole root: the output, or the error (position, message, missing key),
/// each.
fn over_its_parts_and_whole(text: &str, mc: &ManagedCluster, c: Option<&capi::Cluster>) {
    let template = Template::parse(text).unwrap();
    let parts = ValuesData::of(mc, c);
    let whole = ValuesData::of(mc, c);
    assert_eq!(
        template.render(
            &parts.root_for(Parts::read_by(&template)),
            Limits::default()
        ),
        template.render(&whole.root(), Limits::default()),
        "{text}"
    );
}

#[test]
fn a_template_renders_over_what_it_reads_as_over_the_whole_data() {
    let (mut mc, c) = (managed(), cluster());
    mc.spec.services = vec![crate::api::ManagedService {
        name: "ingress".into(),
        values: Some("replicas: 2".into()),
        ..Default::default()
    }];
    for text in [
        // Labels alone, found and missing (the friendly explanation reads
        // the error's missing key, which must stay the same).
        "region: {{ .Cluster.metadata.labels.region | quote }}",
        "tier: {{ .Cluster.metadata.labels.tier }}",
        "{{ $.Cluster.metadata.annotations.owner }}",
        // The ManagedCluster's spec: every service's values.
        "{{ range .ManagedCluster.spec.services }}{{ .name }}={{ .values }}{{ end }}",
        "{{ .ManagedCluster.spec.template }}/{{ .ManagedCluster.metadata.name }}",
        "{{ .ManagedCluster.spec | toJson }}",
        // An object handed on whole, its spec read through a variable.
        "{{ with .Cluster }}{{ .spec.paused }} {{ .metadata.name }}{{ end }}",
        "{{ $c := .Cluster }}{{ $c.spec.clusterNetwork.pods.cidrBlocks }}",
        "{{ .Cluster | toYaml }}",
        "{{ .Cluster.kind }} {{ .Cluster.spec }}",
        "{{ .Cluster.status.phase }}",
        "{{ .Cluster.metadata.resourceVersion }}",
        "{{ .Template }}",
        "{{ .Values.x }}",
        "{{ toJson . }}",
        "{{ keys $ | sortAlpha }}",
        "{{ range $k, $v := . }}{{ $k }} {{ end }}",
    ] {
        over_its_parts_and_whole(text, &mc, Some(&c));
        over_its_parts_and_whole(text, &mc, None);
    }
}

#[test]
fn a_template_that_reads_a_label_builds_nothing_else() {
    let (mc, c) = (managed(), cluster());
    let data = ValuesData::of(&mc, Some(&c));
    let template = Template::parse("{{ .Cluster.metadata.labels.region }}").unwrap();
    let root = data.root_for(Parts::read_by(&template));
    let Value::Map(root) = &*root else {
        panic!("the root is a map");
    };
    assert_eq!(root.keys().collect::<Vec<_>>(), ["Cluster"]);
    let Value::Map(cluster) = &root["Cluster"] else {
        panic!("the Cluster is a map");
    };
    assert_eq!(
        cluster.keys().collect::<Vec<_>>(),
        ["apiVersion", "kind", "metadata"]
    );
    // The same reads again, and fewer, take the root built.
    let again = data.root_for(Parts::read_by(&template));
    let fewer = data.root_for(Parts::read_by(
        &Template::parse("{{ .Cluster.kind }}").unwrap(),
    ));
    assert!(Rc::ptr_eq(&again, &fewer));
    assert_eq!(data.roots.borrow().len(), 1);
}
