//! The Flux objects the engine writes, built from our objects. Pure: the
//! reconcilers decide when, these functions decide what.

use std::collections::BTreeMap;

use kube::api::ObjectMeta;
use kube::{Resource, ResourceExt};

use crate::api::{HelmSpec, ManagedCluster, RepositoryType, ServiceState, labels};
use crate::flux::{
    self, HelmChart, HelmChartSpec, HelmRelease, HelmReleaseSpec, HelmRepository,
    HelmRepositorySpec, Install, KubeConfigRef, LocalRef, Remediation, SecretKeyRef, Upgrade,
};
use crate::plan::services::DesiredService;

use super::context::EngineOptions;

/// Which kind of template a chart source belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemplateKind {
    Service,
    Cluster,
}

impl TemplateKind {
    fn prefix(self) -> &'static str {
        match self {
            TemplateKind::Service => "svctmpl",
            TemplateKind::Cluster => "clustertmpl",
        }
    }
    pub fn kind(self) -> &'static str {
        match self {
            TemplateKind::Service => "ServiceTemplate",
            TemplateKind::Cluster => "ClusterTemplate",
        }
    }
}

/// Name of the chart source made for a template.
pub fn source_name(kind: TemplateKind, template: &str) -> String {
    format!("{}-{template}", kind.prefix())
}

/// The chart a release of this template's chart points at: always in the
/// template's own namespace. A `chartRef` to another namespace makes its
/// template invalid (see `templates::foreign_chart_ref`), and even before
/// that status is written no release is pointed at another namespace.
pub fn chart_ref(kind: TemplateKind, template: &str, namespace: &str, helm: &HelmSpec) -> LocalRef {
    match &helm.chart_ref {
        Some(r) => LocalRef {
            kind: r.kind.clone(),
            name: r.name.clone(),
            namespace: Some(namespace.to_string()),
        },
        None => LocalRef {
            kind: "HelmChart".into(),
            name: source_name(kind, template),
            namespace: Some(namespace.to_string()),
        },
    }
}

fn base_labels() -> BTreeMap<String, String> {
    BTreeMap::from([(
        labels::MANAGED_BY.to_string(),
        labels::MANAGED_BY_VALUE.to_string(),
    )])
}

fn meta(
    name: String,
    namespace: &str,
    labels: BTreeMap<String, String>,
    owner: k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference,
) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        namespace: Some(namespace.to_string()),
        labels: Some(labels),
        owner_references: Some(vec![owner]),
        ..Default::default()
    }
}

/// The repository and chart sources for a template that names its chart by
/// repository. One pair per template: the chart is fetched once, whatever
/// the number of clusters.
pub fn chart_sources(
    kind: TemplateKind,
    template: &str,
    namespace: &str,
    helm: &HelmSpec,
    owner: k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference,
    options: &EngineOptions,
) -> Option<(HelmRepository, HelmChart)> {
    let (Some(chart), Some(repo)) = (&helm.chart_name, &helm.repository) else {
        return None;
    };
    let name = source_name(kind, template);
    let mut labels = base_labels();
    labels.insert(
        labels::TEMPLATE.into(),
        format!("{}.{template}", kind.prefix()),
    );
    let repository = HelmRepository {
        metadata: meta(name.clone(), namespace, labels.clone(), owner.clone()),
        spec: HelmRepositorySpec {
            url: repo.url.clone(),
            type_: (repo.type_ == RepositoryType::Oci).then(|| "oci".to_string()),
            interval: options.source_interval.clone(),
            timeout: Some(options.source_timeout.clone()),
        },
        status: None,
    };
    let chart = HelmChart {
        metadata: meta(name.clone(), namespace, labels, owner),
        spec: HelmChartSpec {
            chart: chart.clone(),
            version: helm.chart_version.clone().unwrap_or_else(|| "*".into()),
            source_ref: LocalRef {
                kind: "HelmRepository".into(),
                name,
                namespace: None,
            },
            interval: options.source_interval.clone(),
        },
        status: None,
    };
    Some((repository, chart))
}

fn owner_of(mc: &ManagedCluster) -> k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference {
    mc.controller_owner_ref(&()).unwrap_or_default()
}

/// The release of the cluster's own chart (its Cluster API objects), in the
/// management cluster, named after the ManagedCluster.
pub fn cluster_release(
    mc: &ManagedCluster,
    chart: LocalRef,
    options: &EngineOptions,
) -> HelmRelease {
    let name = mc.name_any();
    let ns = mc.namespace().unwrap_or_default();
    let mut labels = base_labels();
    labels.insert(labels::CLUSTER.into(), name.clone());
    labels.insert(labels::ROLE.into(), "cluster".into());
    HelmRelease {
        metadata: meta(name.clone(), &ns, labels, owner_of(mc)),
        spec: HelmReleaseSpec {
            chart_ref: chart,
            interval: options.release_interval.clone(),
            release_name: Some(name),
            values: mc.spec.config.clone().filter(|v| !v.is_null()),
            install: Some(Install {
                create_namespace: None,
                remediation: Some(Remediation { retries: Some(3) }),
            }),
            upgrade: Some(Upgrade {
                remediation: Some(Remediation { retries: Some(3) }),
            }),
            ..Default::default()
        },
        status: None,
    }
}

/// Name of the release of one service of one cluster.
pub fn service_release_name(cluster: &str, service: &str) -> String {
    format!("{cluster}-{service}")
}

/// The release of one service, installed into the child cluster through its
/// kubeconfig secret, with values inline.
pub fn service_release(
    mc: &ManagedCluster,
    svc: &DesiredService,
    chart: LocalRef,
    revision: Option<i64>,
    options: &EngineOptions,
) -> HelmRelease {
    let cluster = mc.name_any();
    let ns = mc.namespace().unwrap_or_default();
    let mut labels = base_labels();
    labels.insert(labels::CLUSTER.into(), cluster.clone());
    labels.insert(labels::ROLE.into(), "service".into());
    labels.insert(labels::SERVICE.into(), svc.name.clone());
    let mut metadata = meta(
        service_release_name(&cluster, &svc.name),
        &ns,
        labels,
        owner_of(mc),
    );
    if let Some(r) = revision {
        metadata.annotations = Some(BTreeMap::from([(
            labels::REVISION.to_string(),
            r.to_string(),
        )]));
    }
    HelmRelease {
        metadata,
        spec: HelmReleaseSpec {
            chart_ref: chart,
            interval: options.release_interval.clone(),
            release_name: Some(svc.name.clone()),
            target_namespace: Some(svc.namespace.clone()),
            storage_namespace: Some(svc.namespace.clone()),
            kube_config: Some(KubeConfigRef {
                secret_ref: SecretKeyRef {
                    name: kubeconfig_secret(&cluster),
                    key: Some("value".into()),
                },
            }),
            install: Some(Install {
                create_namespace: Some(true),
                remediation: Some(Remediation { retries: Some(3) }),
            }),
            upgrade: Some(Upgrade {
                remediation: Some(Remediation { retries: Some(3) }),
            }),
            values: Some(svc.values.clone())
                .filter(|v| v.as_object().is_none_or(|o| !o.is_empty())),
            ..Default::default()
        },
        status: None,
    }
}

/// The secret Cluster API writes with the cluster's kubeconfig.
pub fn kubeconfig_secret(cluster: &str) -> String {
    format!("{cluster}-kubeconfig")
}

/// The observed state of a release, in our words.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    pub state: ServiceState,
    pub version: Option<String>,
    pub revision: Option<i64>,
    pub message: Option<String>,
}

/// Reads a release's status. `fresh` is true when the engine just changed
/// the release, so whatever its status says describes the previous spec.
pub fn observe(release: &HelmRelease, fresh: bool) -> Observed {
    let revision = release
        .annotations()
        .get(labels::REVISION)
        .and_then(|r| r.parse().ok());
    let status = release.status.clone().unwrap_or_default();
    let version = status
        .history
        .first()
        .map(|h| h.chart_version.clone())
        .filter(|v| !v.is_empty());
    if release.metadata.deletion_timestamp.is_some() {
        return Observed {
            state: ServiceState::Removing,
            version,
            revision,
            message: Some("uninstalling from the cluster".into()),
        };
    }
    let current = status.observed_generation.is_some()
        && status.observed_generation == release.metadata.generation;
    let ready = flux::ready(&status.conditions);
    let stalled = status
        .conditions
        .iter()
        .any(|c| c.type_ == "Stalled" && c.status == "True");
    // A release whose status is from before its current spec (just
    // written, or not yet picked up after a change) says the same thing in
    // every reconcile until it is picked up: a status that flips between
    // two wordings is a write for nothing.
    let old_success = !current && ready.is_some_and(|c| c.status == "True");
    let (state, message) = match ready {
        None if fresh || release.status.is_none() => {
            (ServiceState::Installing, Some("installing".to_string()))
        }
        _ if fresh || old_success => (
            ServiceState::Installing,
            Some("applying the new configuration".to_string()),
        ),
        Some(c) if c.status == "True" && current => (ServiceState::Installed, None),
        Some(c) if c.status == "False" && (stalled || c.reason.ends_with("Failed")) => (
            ServiceState::Failed,
            Some(flux::words::release_problem(&c.message)),
        ),
        Some(c) if !c.message.is_empty() && c.status != "True" => (
            ServiceState::Installing,
            Some(flux::words::release_problem(&c.message)),
        ),
        _ => (ServiceState::Installing, Some("installing".to_string())),
    };
    Observed {
        state,
        version,
        revision,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ManagedClusterSpec;
    use serde_json::json;

    fn mc() -> ManagedCluster {
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

    fn svc() -> DesiredService {
        DesiredService {
            name: "ingress-nginx".into(),
            namespace: "ingress".into(),
            template: "ingress-nginx-4-11-3".into(),
            values: json!({"controller": {"replicaCount": 2}}),
            effective: json!({}),
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
        let rel = service_release(&mc(), &svc(), chart, Some(3), &EngineOptions::default());
        let v = serde_json::to_value(&rel).unwrap();
        assert_eq!(v["metadata"]["name"], "dev-1-ingress-nginx");
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
    }

    #[test]
    fn observe_reads_flux_status_in_our_words() {
        let mut rel = service_release(
            &mc(),
            &svc(),
            LocalRef::default(),
            Some(1),
            &EngineOptions::default(),
        );
        rel.metadata.generation = Some(2);
        let set = |rel: &mut HelmRelease, s: serde_json::Value| {
            rel.status = Some(serde_json::from_value(s).unwrap())
        };
        set(
            &mut rel,
            json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "True"}],
                              "history": [{"chartVersion": "4.11.3", "status": "deployed"}]}),
        );
        let o = observe(&rel, false);
        assert_eq!(
            (o.state, o.version.as_deref(), o.revision),
            (ServiceState::Installed, Some("4.11.3"), Some(1))
        );
        assert_eq!(observe(&rel, true).state, ServiceState::Installing);
        set(
            &mut rel,
            json!({"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True"}]}),
        );
        assert_eq!(
            observe(&rel, false).state,
            ServiceState::Installing,
            "an old generation is not installed"
        );
        // Until Flux picks a changed release up, the reconcile that wrote it
        // and every later one say the same: a status that flips wording is
        // a write for nothing.
        assert_eq!(observe(&rel, false), observe(&rel, true));
        assert_eq!(
            observe(&rel, false).message.as_deref(),
            Some("applying the new configuration")
        );
        let mut fresh = rel.clone();
        fresh.status = None;
        assert_eq!(observe(&fresh, false), observe(&fresh, true));
        assert_eq!(
            observe(&fresh, false).message.as_deref(),
            Some("installing")
        );
        set(
            &mut rel,
            json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "False",
            "reason": "InstallFailed",
            "message": "Helm install failed for release ingress/ingress-nginx with chart ingress-nginx@4.11.3: boom"}]}),
        );
        let o = observe(&rel, false);
        assert_eq!(o.state, ServiceState::Failed);
        assert_eq!(
            o.message.as_deref(),
            Some("install of ingress-nginx 4.11.3 failed: boom")
        );
    }
}
