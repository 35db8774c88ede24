//! The Flux objects the engine writes, built from our objects. Pure: the
//! reconcilers decide when, these functions decide what.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::ObjectMeta;
use kube::{Resource, ResourceExt};

use crate::api::names::{
    CLUSTER_INSTALLER, TemplateKind, kubeconfig_secret, legacy_service_release_name,
    service_release_name, short_hash, source_name, template_label,
};
use crate::api::{HelmSpec, ManagedCluster, ServiceState, labels};
use crate::flux::words::{Holder, Refusal};
use crate::flux::{
    self, DriftDetection, HelmChart, HelmChartSpec, HelmRelease, HelmReleaseSpec, HelmRepository,
    HelmRepositorySpec, Install, KubeConfigRef, LocalRef, Remediation, SecretKeyRef, Upgrade,
    values::InlineValues,
};
use crate::plan::services::DesiredService;

use super::context::EngineOptions;

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
    owner: OwnerReference,
) -> ObjectMeta {
    ObjectMeta {
        name: Some(name),
        namespace: Some(namespace.to_string()),
        labels: Some(labels),
        owner_references: Some(vec![owner]),
        ..Default::default()
    }
}

/// Name of the chart repository source of a namespace's templates whose
/// repository settings are `spec`: `repo-<hash of the settings>`. Templates
/// with equal settings share it, so that an address is fetched once, and
/// held back once when it does not answer (see `source_gate`).
pub fn repository_name(spec: &HelmRepositorySpec) -> String {
    let settings = HelmRepositorySpec {
        suspend: None,
        ..spec.clone()
    };
    let canonical = serde_json::to_string(&settings).unwrap_or_default();
    format!("repo-{}", short_hash(&canonical))
}

/// A template's owner reference on a source it shares: not the controller,
/// and not holding up the template's deletion. The repository goes when
/// its last owner does.
pub fn sharing_owner(mut owner: OwnerReference) -> OwnerReference {
    owner.controller = None;
    owner.block_owner_deletion = None;
    owner
}

/// The repository and chart sources for a template that names its chart by
/// name, with the chart repository it resolved to (the one it names, or a
/// copy of the default, see `default_repository`). The chart is the
/// template's own (`svctmpl-<template>`), fetched once whatever the number
/// of clusters; the repository is shared by the namespace's templates of
/// equal repository settings ([`repository_name`]), each an owner of it.
pub fn chart_sources(
    kind: TemplateKind,
    template: &str,
    namespace: &str,
    helm: &HelmSpec,
    repository: HelmRepositorySpec,
    owner: OwnerReference,
    options: &EngineOptions,
) -> Option<(HelmRepository, HelmChart)> {
    let chart = helm.chart_name.as_ref()?;
    let name = source_name(kind, template);
    let repository_name = repository_name(&repository);
    let mut labels = base_labels();
    let repository = HelmRepository {
        metadata: meta(
            repository_name.clone(),
            namespace,
            labels.clone(),
            sharing_owner(owner.clone()),
        ),
        spec: repository,
        status: None,
    };
    labels.insert(labels::TEMPLATE.into(), template_label(kind, template));
    let chart = HelmChart {
        metadata: meta(name, namespace, labels, owner),
        spec: HelmChartSpec {
            chart: chart.clone(),
            version: helm.chart_version.clone().unwrap_or_else(|| "*".into()),
            source_ref: LocalRef {
                kind: "HelmRepository".into(),
                name: repository_name,
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

/// The labels every release of cluster `name` carries: ours, the cluster's,
/// and its shard of the release controller when there are shards, the same
/// for all of them so that one shard installs the whole cluster.
fn cluster_labels(ns: &str, name: &str, options: &EngineOptions) -> BTreeMap<String, String> {
    let mut labels = base_labels();
    labels.insert(labels::CLUSTER.into(), name.to_string());
    if let Some(shard) = crate::plan::shard::shard_of(&options.shards, ns, name) {
        labels.insert(flux::SHARD_LABEL.into(), shard.to_string());
    }
    labels
}

/// The release of the cluster's own chart (its Cluster API objects), in the
/// management cluster, named after the ManagedCluster. It installs as the
/// namespace's [`CLUSTER_INSTALLER`] account: a cluster chart is whatever a
/// template's author names, and the release controller's own identity may
/// do anything anywhere.
pub fn cluster_release(
    mc: &ManagedCluster,
    chart: LocalRef,
    options: &EngineOptions,
) -> HelmRelease {
    let name = mc.name_any();
    let ns = mc.namespace().unwrap_or_default();
    let mut labels = cluster_labels(&ns, &name, options);
    labels.insert(labels::ROLE.into(), "cluster".into());
    HelmRelease {
        metadata: meta(name.clone(), &ns, labels, owner_of(mc)),
        spec: HelmReleaseSpec {
            chart_ref: chart,
            interval: options.release_interval.clone(),
            release_name: Some(name),
            service_account_name: Some(CLUSTER_INSTALLER.to_string()),
            values: mc
                .spec
                .config
                .as_ref()
                .filter(|v| !v.is_null())
                .map(InlineValues::new),
            // Objects of the cluster chart that exist already (a Cluster API
            // Cluster of the same name, made by hand or by another release)
            // are not taken over: deleting this cluster would delete them.
            install: Some(Install {
                create_namespace: None,
                remediation: Some(Remediation { retries: Some(3) }),
                disable_take_ownership: Some(true),
            }),
            upgrade: Some(Upgrade {
                remediation: Some(Remediation { retries: Some(3) }),
                disable_take_ownership: Some(true),
            }),
            ..Default::default()
        },
        status: None,
    }
}

/// True when `release` is the engine's release of `service` of `cluster`:
/// our labels name exactly that cluster and service.
pub fn is_release_of(release: &HelmRelease, cluster: &str, service: &str) -> bool {
    // The same rule as the check before every write (`apply::made_for`).
    let want = BTreeMap::from([
        (labels::CLUSTER.to_string(), cluster.to_string()),
        (labels::ROLE.to_string(), "service".to_string()),
        (labels::SERVICE.to_string(), service.to_string()),
    ]);
    super::apply::made_for(release.labels(), &want) == Some(true)
}

/// The release name a service of a cluster uses: an existing install under
/// the old name `<cluster>-<service>` keeps it (moving it would uninstall
/// and reinstall the service), unless a release under the new name is
/// already there; everything else gets [`service_release_name`].
/// `existing` is what the store holds; only releases labelled for exactly
/// this cluster and service count.
pub fn choose_service_release_name(
    cluster: &str,
    service: &str,
    existing: &[std::sync::Arc<HelmRelease>],
) -> String {
    let new = service_release_name(cluster, service);
    let legacy = legacy_service_release_name(cluster, service);
    let ours = |name: &str| {
        existing
            .iter()
            .any(|r| r.name_any() == name && is_release_of(r, cluster, service))
    };
    if !ours(&new) && ours(&legacy) {
        legacy
    } else {
        new
    }
}

/// The release `name` (see [`choose_service_release_name`]) of one
/// service, installed into the child cluster through its kubeconfig secret,
/// with values inline.
pub fn service_release(
    name: String,
    mc: &ManagedCluster,
    svc: &DesiredService,
    chart: LocalRef,
    revision: Option<i64>,
    options: &EngineOptions,
) -> HelmRelease {
    let cluster = mc.name_any();
    let ns = mc.namespace().unwrap_or_default();
    let mut labels = cluster_labels(&ns, &cluster, options);
    labels.insert(labels::ROLE.into(), "service".into());
    labels.insert(labels::SERVICE.into(), svc.name.clone());
    let refuse_existing = (!takes_ownership(mc, &svc.name)).then_some(true);
    let mut metadata = meta(name, &ns, labels, owner_of(mc));
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
            // Objects that exist in the child and belong to no release of
            // this name stop the install, unless the cluster lets the
            // service take them over (`takeOwnership`).
            install: Some(Install {
                create_namespace: Some(true),
                remediation: Some(Remediation { retries: Some(3) }),
                disable_take_ownership: refuse_existing,
            }),
            upgrade: Some(Upgrade {
                remediation: Some(Remediation { retries: Some(3) }),
                disable_take_ownership: refuse_existing,
            }),
            // Objects of the service changed by hand in the child cluster
            // are put back at every interval. Turning this on for a release
            // installed before costs no Helm upgrade: only the chart and the
            // values decide whether the release is in sync.
            drift_detection: Some(DriftDetection::enabled()),
            values: Some(&svc.values)
                .filter(|v| v.as_object().is_none_or(|o| !o.is_empty()))
                .map(InlineValues::new),
            ..Default::default()
        },
        status: None,
    }
}

/// Whether the cluster lets its service `service` take over what exists in
/// the cluster already (`spec.services[].takeOwnership`).
pub fn takes_ownership(mc: &ManagedCluster, service: &str) -> bool {
    mc.spec
        .services
        .iter()
        .find(|s| s.name == service)
        .is_some_and(|s| s.take_ownership)
}

/// On a release whose last changes were to how often it is looked at,
/// whether changes made by hand are reverted and whether existing objects
/// are taken over: the generation from which on it installs exactly the
/// same. The release controller does no Helm action for such a change, so a
/// status it wrote for that generation or a later one still tells how the
/// service is.
pub const INSTALLS_AS_GENERATION: &str = "hmc.mirantis.com/installs-as-generation";

/// Marks `desired` with [`INSTALLS_AS_GENERATION`] when it differs from
/// `current` only in the release controller's settings (`interval`,
/// `driftDetection`, `install`/`upgrade.disableTakeOwnership`): an engine
/// started with another `--release-interval`, or one that turns drift
/// correction or the refusal of existing objects on for releases installed
/// before it, then shows no service as being installed again. Returns
/// whether the change installs the same: it marked `desired`, or the release
/// only moves to another shard of the release controller (which needs no
/// mark: the generation does not change with a label).
pub fn carry_installs_as(desired: &mut HelmRelease, current: Option<&HelmRelease>) -> bool {
    let Some(current) = current else {
        return false;
    };
    let settings = |r: &HelmRelease| Settings::of(&r.spec);
    let since = current
        .annotations()
        .get(INSTALLS_AS_GENERATION)
        .and_then(|g| g.parse::<i64>().ok())
        .or(current.metadata.generation);
    let mut installs = current.spec.clone();
    settings(desired).put(&mut installs);
    // Moving to another shard of the release controller installs the same.
    let ours = |r: &HelmRelease| {
        let mut a = r.metadata.annotations.clone().unwrap_or_default();
        a.remove(INSTALLS_AS_GENERATION);
        let mut l = r.metadata.labels.clone().unwrap_or_default();
        l.remove(flux::SHARD_LABEL);
        (a, l)
    };
    let same = installs == desired.spec && ours(current) == ours(desired);
    let changed = settings(current) != settings(desired)
        || current.annotations().contains_key(INSTALLS_AS_GENERATION);
    let shard = |r: &HelmRelease| r.labels().get(flux::SHARD_LABEL).cloned();
    match since {
        Some(generation) if same && changed => {
            desired
                .annotations_mut()
                .insert(INSTALLS_AS_GENERATION.into(), generation.to_string());
            true
        }
        _ => same && shard(current) != shard(desired),
    }
}

/// What of a release tells the release controller how to act, not what to
/// install: changing it runs no Helm action.
#[derive(Clone, PartialEq)]
struct Settings {
    interval: String,
    drift_detection: Option<DriftDetection>,
    install_refuses: Option<bool>,
    upgrade_refuses: Option<bool>,
}

impl Settings {
    fn of(spec: &HelmReleaseSpec) -> Self {
        Self {
            interval: spec.interval.clone(),
            drift_detection: spec.drift_detection.clone(),
            install_refuses: spec.install.as_ref().and_then(|i| i.disable_take_ownership),
            upgrade_refuses: spec.upgrade.as_ref().and_then(|u| u.disable_take_ownership),
        }
    }

    /// `spec` with these settings.
    fn put(self, spec: &mut HelmReleaseSpec) {
        spec.interval = self.interval;
        spec.drift_detection = self.drift_detection;
        if let Some(install) = spec.install.as_mut() {
            install.disable_take_ownership = self.install_refuses;
        } else if self.install_refuses.is_some() {
            spec.install = Some(Install {
                disable_take_ownership: self.install_refuses,
                ..Default::default()
            });
        }
        if let Some(upgrade) = spec.upgrade.as_mut() {
            upgrade.disable_take_ownership = self.upgrade_refuses;
        } else if self.upgrade_refuses.is_some() {
            spec.upgrade = Some(Upgrade {
                disable_take_ownership: self.upgrade_refuses,
                ..Default::default()
            });
        }
    }
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
    // A status of an earlier generation that installs the same counts.
    let installs_as = release
        .annotations()
        .get(INSTALLS_AS_GENERATION)
        .and_then(|g| g.parse::<i64>().ok());
    let current = status.observed_generation.is_some()
        && (status.observed_generation == release.metadata.generation
            || installs_as.is_some_and(|g| status.observed_generation >= Some(g)));
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
        // Putting back what was changed by hand: still installed, as it was.
        Some(c) if c.status == "Unknown" && current && c.message == flux::CORRECTING_DRIFT => (
            ServiceState::Installed,
            Some(flux::words::REVERTING.to_string()),
        ),
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

/// How long before its release a service's Helm release must have been
/// first installed to count as there before it: the release's creation is
/// the API server's clock, Helm's record the release controller's.
const CLOCKS_APART: std::time::Duration = std::time::Duration::from_secs(10);

/// `observed`, corrected for what the release found in the cluster that
/// was not the service's own:
///
/// - an object the install (or an upgrade) would have taken over: the
///   service is Failed and names it; when the object belongs to another
///   service of the same cluster (a release among `releases`), it says the
///   two conflict. While the next attempt runs, it keeps saying so (`fresh`:
///   the engine just changed the release, whose status is of before).
/// - a Helm release of its name that was in the cluster before the
///   service's release: the release controller upgrades such a release as
///   if it were its own (it has no setting to refuse), so the service is
///   Failed and says it took it over, unless the cluster lets it
///   (`take_ownership`).
pub fn with_ownership(
    observed: Observed,
    release: &HelmRelease,
    releases: &[std::sync::Arc<HelmRelease>],
    take_ownership: bool,
    fresh: bool,
) -> Observed {
    if observed.state == ServiceState::Removing {
        return observed;
    }
    if !take_ownership && let Some(words) = taken_over(release) {
        return Observed {
            state: ServiceState::Failed,
            message: Some(words),
            ..observed
        };
    }
    let Some(status) = &release.status else {
        return observed;
    };
    let message = match flux::ready(&status.conditions) {
        Some(c) if c.status == "False" && observed.state == ServiceState::Failed => {
            Some(c.message.as_str())
        }
        // The next attempt runs: what the last one of this spec met.
        Some(c)
            if c.status == "Unknown" && !fresh && observed.state == ServiceState::Installing =>
        {
            flux::released(&status.conditions)
                .filter(|r| {
                    r.status == "False" && r.observed_generation == release.metadata.generation
                })
                .map(|r| r.message.as_str())
        }
        _ => None,
    };
    let Some(refusal) = message.and_then(Refusal::parse) else {
        return observed;
    };
    let other = holding_service(&refusal, release, releases);
    Observed {
        state: ServiceState::Failed,
        message: Some(refusal.for_service(other.as_deref())),
        ..observed
    }
}

/// The service of the same cluster whose release holds the refused
/// object: Helm's release is named after the service and installed into
/// its namespace.
fn holding_service(
    refusal: &Refusal,
    release: &HelmRelease,
    releases: &[std::sync::Arc<HelmRelease>],
) -> Option<String> {
    let Holder::Release { name, namespace } = &refusal.holder else {
        return None;
    };
    let name = name.as_deref().or(release.spec.release_name.as_deref())?;
    let namespace = namespace
        .as_deref()
        .or(release.spec.target_namespace.as_deref())?;
    releases
        .iter()
        .filter(|r| r.name_any() != release.name_any())
        .filter(|r| r.labels().get(labels::ROLE).map(String::as_str) == Some("service"))
        .find(|r| {
            r.spec.release_name.as_deref() == Some(name)
                && r.spec.target_namespace.as_deref() == Some(namespace)
        })
        .and_then(|r| r.labels().get(labels::SERVICE).cloned())
}

/// Words for a Helm release of the service's name that was first installed
/// before the service's release was created: it was there before, and the
/// release controller upgraded it. Helm keeps a release's first install
/// time through every upgrade, and the release controller records it.
fn taken_over(release: &HelmRelease) -> Option<String> {
    let created = release.metadata.creation_timestamp.as_ref()?.0;
    let snapshot = release.status.as_ref()?.history.first()?;
    let first: k8s_openapi::jiff::Timestamp = snapshot.first_deployed.as_deref()?.parse().ok()?;
    let before = created.checked_sub(CLOCKS_APART).ok()?;
    if first >= before {
        return None;
    }
    let name = Some(snapshot.name.as_str())
        .filter(|n| !n.is_empty())
        .or(release.spec.release_name.as_deref())?;
    let namespace = Some(snapshot.namespace.as_str())
        .filter(|n| !n.is_empty())
        .or(release.spec.target_namespace.as_deref())?;
    let at = first.strftime("%Y-%m-%d %H:%M:%S UTC").to_string();
    Some(flux::words::taken_over(
        name,
        namespace,
        Some(&at),
        snapshot.version,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ManagedClusterSpec;
    use crate::api::names::MAX_LABEL_VALUE;
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
        let options = EngineOptions::default();
        let sources = |t: &str, url: &str| {
            chart_sources(
                TemplateKind::Service,
                t,
                "team-a",
                &helm(t),
                spec(url),
                owner(t),
                &options,
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
        let rel = service_release(
            name,
            &mc(),
            &svc(),
            chart,
            Some(3),
            &EngineOptions::default(),
        );
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
        let release = |options: &EngineOptions| {
            let chart = LocalRef::default();
            let service = service_release("r".into(), &mc(), &svc(), chart.clone(), None, options);
            (cluster_release(&mc(), chart, options), service)
        };
        // No shards: no label, as before shards existed.
        let (cluster, service) = release(&EngineOptions::default());
        assert_eq!((shard(&cluster), shard(&service)), (None, None));
        let options = EngineOptions {
            shards: vec!["shard1".into(), "shard2".into()],
            ..Default::default()
        };
        let (cluster, service) = release(&options);
        let want = crate::plan::shard::shard_of(&options.shards, "hmc-system", "dev-1");
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
        let options = EngineOptions {
            release_interval: "30s".into(),
            ..Default::default()
        };
        let svc_rel = service_release(
            "dev-1.ingress-nginx".into(),
            &mc(),
            &svc(),
            LocalRef::default(),
            None,
            &options,
        );
        assert_eq!(svc_rel.spec.interval, "30s");
        let cluster = cluster_release(&mc(), LocalRef::default(), &options);
        assert_eq!(cluster.spec.interval, "30s");
        // The cluster's own objects are Cluster API's to change: only
        // services have their changes made by hand reverted.
        assert_eq!(cluster.spec.drift_detection, None);
    }

    proptest::proptest! {
        /// Names at and around the length limits: every (cluster, service)
        /// pair gets a release name of its own, at most 63 characters, a
        /// valid label value; a name that fits is kept as it is, and a
        /// shortened one (two dots, then the hash) never equals one that
        /// fits (one dot). Pairs that differ only past the cut still differ.
        #[test]
        fn shortened_release_names_stay_apart(
            cluster in "[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?",
            service in "[a-z0-9]([a-z0-9-]{0,51}[a-z0-9])?",
            tail in "[a-z0-9]{1,8}",
        ) {
            let pairs = [
                (cluster.clone(), service.clone()),
                (cluster.clone(), format!("{}{tail}", &service[..service.len().min(45)])),
                (format!("{}{tail}", &cluster[..cluster.len().min(45)]), service.clone()),
                (cluster.clone(), format!("{}-{tail}", &service[..service.len().min(44)])),
            ];
            let mut seen = std::collections::BTreeMap::new();
            for (c, s) in &pairs {
                let name = service_release_name(c, s);
                proptest::prop_assert!(name.len() <= MAX_LABEL_VALUE, "{name}");
                proptest::prop_assert!(
                    name.split('.').all(|p| p.is_empty() || crate::api::names::is_dns_label(p)),
                    "{name}"
                );
                let full = format!("{c}.{s}");
                if full.len() <= MAX_LABEL_VALUE {
                    proptest::prop_assert_eq!(&name, &full);
                } else {
                    proptest::prop_assert_eq!(name.matches('.').count(), 2, "{}", name);
                }
                if let Some(other) = seen.insert(name.clone(), (c.clone(), s.clone())) {
                    proptest::prop_assert_eq!(&other, &(c.clone(), s.clone()), "{} collides", name);
                }
            }
        }
    }

    #[test]
    fn service_release_names_keep_clusters_and_services_apart() {
        // The collision of the old scheme: service ingress of x, cluster x-ingress.
        assert_eq!(service_release_name("x", "ingress"), "x.ingress");
        assert_ne!(service_release_name("x", "ingress"), "x-ingress");
        assert_ne!(
            service_release_name("x", "a-b"),
            service_release_name("x-a", "b")
        );
        // 63 characters fit as they are; 64 take the short form.
        let (c, s) = ("c".repeat(31), "s".repeat(31));
        assert_eq!(service_release_name(&c, &s), format!("{c}.{s}"));
        let long = service_release_name(&c, &"s".repeat(32));
        assert_eq!(long.len(), 63);
        assert_eq!(long.matches('.').count(), 2, "{long}");
        // Both long: the cluster keeps 25 characters, the service 26.
        assert!(
            long.starts_with(&format!("{}.{}.", &c[..25], "s".repeat(26))),
            "{long}"
        );
        // A short service leaves the rest to the cluster, and the other way round.
        let short_service = service_release_name(&"c".repeat(53), "ingress-long");
        assert!(short_service.starts_with(&format!("{}.ingress-long.", "c".repeat(39))));
        let short_cluster = service_release_name("x", &"s".repeat(63));
        assert!(short_cluster.starts_with(&format!("x.{}.", "s".repeat(50))));
        // The short form is deterministic, and documented: a cluster of 53
        // and a service of 53 keep 25 and 26 characters before the hash.
        let (c, s) = ("a".repeat(53), "b".repeat(53));
        let name = service_release_name(&c, &s);
        assert_eq!(name, service_release_name(&c, &s));
        assert_eq!(
            name,
            format!(
                "{}.{}.{}",
                "a".repeat(25),
                "b".repeat(26),
                short_hash(&format!("{c}.{s}"))
            )
        );
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
    fn long_template_names_give_valid_source_names_and_labels() {
        let t = "t".repeat(253);
        assert_eq!(
            source_name(TemplateKind::Service, "ingress"),
            "svctmpl-ingress"
        );
        assert_eq!(
            template_label(TemplateKind::Service, "ingress"),
            "svctmpl.ingress"
        );
        assert!(source_name(TemplateKind::Cluster, &t).len() <= 253);
        assert!(template_label(TemplateKind::Cluster, &t).len() <= 63);
        assert_ne!(
            source_name(TemplateKind::Cluster, &t),
            source_name(TemplateKind::Cluster, &t[1..])
        );
    }

    #[test]
    fn observe_reads_flux_status_in_our_words() {
        let mut rel = service_release(
            "dev-1.ingress-nginx".into(),
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
        // Changes made by hand being reverted: installed all along.
        set(
            &mut rel,
            json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "Unknown",
            "reason": "Progressing", "message": "correcting cluster drift"}],
            "history": [{"chartVersion": "4.11.3", "status": "deployed"}]}),
        );
        let o = observe(&rel, false);
        assert_eq!(o.state, ServiceState::Installed);
        assert_eq!(o.message.as_deref(), Some(flux::words::REVERTING));
    }

    #[test]
    fn a_change_of_settings_alone_installs_the_same() {
        let build = |interval: &str, values: serde_json::Value| {
            let options = EngineOptions {
                release_interval: interval.into(),
                ..Default::default()
            };
            let d = DesiredService { values, ..svc() };
            service_release(
                "r".into(),
                &mc(),
                &d,
                LocalRef::default(),
                Some(1),
                &options,
            )
        };
        let values = json!({"controller": {"replicaCount": 2}});
        // Installed by an engine without drift correction, at generation 4.
        let mut old = build("10m", values.clone());
        old.spec.drift_detection = None;
        old.metadata.generation = Some(4);
        old.status = Some(
            serde_json::from_value(json!({"observedGeneration": 4,
                "conditions": [{"type": "Ready", "status": "True"}]}))
            .unwrap(),
        );
        let mut new = build("30s", values.clone());
        assert!(carry_installs_as(&mut new, Some(&old)));
        assert_eq!(new.annotations()[INSTALLS_AS_GENERATION], "4");
        // Once written (generation 5) and not yet looked at by the release
        // controller, its status of generation 4 still holds.
        let mut written = new.clone();
        written.metadata.generation = Some(5);
        written.status = old.status.clone();
        assert_eq!(observe(&written, false).state, ServiceState::Installed);
        // The next reconcile keeps the mark, so writes nothing.
        let mut again = build("30s", values.clone());
        assert!(carry_installs_as(&mut again, Some(&written)));
        assert_eq!(again.annotations()[INSTALLS_AS_GENERATION], "4");
        // Nothing changed at all: no mark.
        let mut same = build("10m", values.clone());
        same.spec.drift_detection = None;
        assert!(!carry_installs_as(&mut same, Some(&old)));
        // Other values, another revision or a new release: installed anew.
        let mut other = build("30s", json!({"controller": {"replicaCount": 3}}));
        assert!(!carry_installs_as(&mut other, Some(&written)));
        assert!(!other.annotations().contains_key(INSTALLS_AS_GENERATION));
        let mut next_revision = service_release(
            "r".into(),
            &mc(),
            &DesiredService {
                values: values.clone(),
                ..svc()
            },
            LocalRef::default(),
            Some(2),
            &EngineOptions::default(),
        );
        assert!(!carry_installs_as(&mut next_revision, Some(&old)));
        assert!(!carry_installs_as(&mut build("30s", values), None));
        // Without the mark, a status of an older generation does not hold.
        let mut unmarked = written.clone();
        unmarked.annotations_mut().remove(INSTALLS_AS_GENERATION);
        assert_eq!(observe(&unmarked, false).state, ServiceState::Installing);
    }

    #[test]
    fn existing_objects_are_taken_over_only_when_the_cluster_says_so() {
        let refuses = |r: &HelmRelease| {
            (
                r.spec.install.as_ref().unwrap().disable_take_ownership,
                r.spec.upgrade.as_ref().unwrap().disable_take_ownership,
            )
        };
        let options = EngineOptions::default();
        let cluster = cluster_release(&mc(), LocalRef::default(), &options);
        assert_eq!(refuses(&cluster), (Some(true), Some(true)));
        let mut taking = mc();
        taking.spec.services = vec![crate::api::ManagedService {
            name: "ingress-nginx".into(),
            take_ownership: true,
            ..Default::default()
        }];
        let rel = |mc: &ManagedCluster| {
            service_release("r".into(), mc, &svc(), LocalRef::default(), None, &options)
        };
        assert_eq!(refuses(&rel(&mc())), (Some(true), Some(true)));
        assert_eq!(refuses(&rel(&taking)), (None, None));
        // The cluster's own release never takes over.
        assert_eq!(
            refuses(&cluster_release(&taking, LocalRef::default(), &options)),
            (Some(true), Some(true))
        );
        // Turning the refusal on for a release installed without it (or
        // the cluster letting the service take over) installs the same.
        let mut installed = rel(&taking);
        installed.metadata.generation = Some(3);
        let mut refusing = rel(&mc());
        assert!(carry_installs_as(&mut refusing, Some(&installed)));
        assert_eq!(refusing.annotations()[INSTALLS_AS_GENERATION], "3");
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

    /// A release of the cluster `dev-1` for `service`, installed by Helm
    /// as `service` into namespace `ns`.
    fn sibling(service: &str, ns: &str) -> std::sync::Arc<HelmRelease> {
        let d = DesiredService {
            name: service.into(),
            namespace: ns.into(),
            ..svc()
        };
        let name = service_release_name("dev-1", service);
        let mut r = service_release(
            name,
            &mc(),
            &d,
            LocalRef::default(),
            None,
            &EngineOptions::default(),
        );
        r.metadata.generation = Some(1);
        std::sync::Arc::new(r)
    }

    fn with_status(r: &HelmRelease, status: serde_json::Value) -> HelmRelease {
        let mut r = r.clone();
        r.status = Some(serde_json::from_value(status).unwrap());
        r
    }

    #[test]
    fn a_refused_object_is_named_and_another_services_is_a_conflict() {
        let a = sibling("ingress-a", "team-a");
        let b = sibling("ingress-b", "team-b");
        let all = [a.clone(), b.clone()];
        let refused = |holder: &str| {
            format!(
                "Helm install failed for release team-b/ingress-b with chart ingress-nginx@4.11.3: \
                 Unable to continue with install: IngressClass \"nginx\" in namespace \"\" exists \
                 and cannot be imported into the current release: invalid ownership metadata; \
                 {holder}"
            )
        };
        let of_a = refused(
            "annotation validation error: key \"meta.helm.sh/release-name\" must equal \
             \"ingress-b\": current value is \"ingress-a\"; annotation validation error: key \
             \"meta.helm.sh/release-namespace\" must equal \"team-b\": current value is \"team-a\"",
        );
        let failed = |message: &str| {
            with_status(
                &b,
                json!({"observedGeneration": -1, "conditions": [
                    {"type": "Ready", "status": "False", "reason": "InstallFailed",
                     "message": message, "observedGeneration": 1},
                    {"type": "Released", "status": "False", "reason": "InstallFailed",
                     "message": message, "observedGeneration": 1}]}),
            )
        };
        let rel = failed(&of_a);
        let o = with_ownership(observe(&rel, false), &rel, &all, false, false);
        assert_eq!(o.state, ServiceState::Failed);
        assert_eq!(
            o.message.as_deref(),
            Some(
                "conflicts with service ingress-a: both install IngressClass nginx, which \
                 ingress-a installed first; change the values of one of them"
            )
        );
        // Taking over is for objects of nobody's: the words stay, whatever
        // the cluster allows (the release asked not to take it over then).
        assert_eq!(
            with_ownership(observe(&rel, false), &rel, &all, true, false),
            o
        );
        // A release that is not a service of this cluster is named as such.
        let o = with_ownership(
            observe(&rel, false),
            &rel,
            std::slice::from_ref(&b),
            false,
            false,
        );
        assert_eq!(
            o.message.as_deref(),
            Some(
                "IngressClass nginx already exists in the cluster and belongs to Helm release \
                 ingress-a in namespace team-a, not to a service of this cluster; remove it, or \
                 set takeOwnership: true on the service to take it over"
            )
        );
        // While the next attempt runs, the service keeps saying why.
        let retrying = with_status(
            &b,
            json!({"observedGeneration": -1, "conditions": [
                {"type": "Ready", "status": "Unknown", "reason": "Progressing",
                 "message": "Running 'install' action with timeout of 5m0s", "observedGeneration": 1},
                {"type": "Released", "status": "False", "reason": "InstallFailed",
                 "message": of_a, "observedGeneration": 1}]}),
        );
        let plain = observe(&retrying, false);
        assert_eq!(plain.state, ServiceState::Installing);
        assert_eq!(
            with_ownership(plain.clone(), &retrying, &all, false, false),
            o_with(&rel, &all)
        );
        // ... but not once the engine changed the release since.
        assert_eq!(
            with_ownership(plain.clone(), &retrying, &all, false, true),
            plain
        );
        // Any other failure is left as it is.
        let other = failed("Helm install failed for release team-b/ingress-b with chart x@1: boom");
        let o = observe(&other, false);
        assert_eq!(with_ownership(o.clone(), &other, &all, false, false), o);
    }

    fn o_with(rel: &HelmRelease, all: &[std::sync::Arc<HelmRelease>]) -> Observed {
        with_ownership(observe(rel, false), rel, all, false, false)
    }

    #[test]
    fn a_release_there_before_the_service_is_said_taken_over() {
        let mut rel = (*sibling("web", "team-web")).clone();
        rel.metadata.creation_timestamp =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                "2026-12-04T16:07:00Z".parse().unwrap(),
            ));
        // As the release controller leaves it after upgrading a release it
        // did not install.
        let upgraded = |first: &str| {
            with_status(
                &rel,
                json!({"observedGeneration": 1, "conditions": [
                    {"type": "Ready", "status": "True", "reason": "UpgradeSucceeded",
                     "message": "Helm upgrade succeeded for release team-web/web.v2 with chart ingress-nginx@4.11.3"}],
                    "history": [{"name": "web", "namespace": "team-web", "version": 2,
                                 "chartName": "ingress-nginx", "chartVersion": "4.11.3",
                                 "status": "deployed", "firstDeployed": first,
                                 "lastDeployed": "2026-12-04T16:07:02Z"}]}),
            )
        };
        let before = upgraded("2026-12-04T16:06:46Z");
        let o = with_ownership(observe(&before, false), &before, &[], false, false);
        assert_eq!(o.state, ServiceState::Failed);
        assert_eq!(
            o.message.as_deref(),
            Some(
                "release web was already in namespace team-web of the cluster (installed \
                 2026-12-04 16:06:46 UTC, before this service) and the service took it over \
                 (now revision 2): removing the service uninstalls it; set takeOwnership: true \
                 on the service to accept that"
            )
        );
        assert_eq!(o.version.as_deref(), Some("4.11.3"));
        // The cluster accepts it: installed, as the release says.
        let accepted = with_ownership(observe(&before, false), &before, &[], true, false);
        assert_eq!(accepted, observe(&before, false));
        assert_eq!(accepted.state, ServiceState::Installed);
        // Installed by the service's own release, or within the clocks'
        // difference of its creation: its own.
        for first in ["2026-12-04T16:07:01Z", "2026-12-04T16:06:55Z", "not a time"] {
            let own = upgraded(first);
            assert_eq!(
                with_ownership(observe(&own, false), &own, &[], false, false),
                observe(&own, false),
                "{first}"
            );
        }
        // Being removed: it says so.
        let mut removing = before.clone();
        removing.metadata.deletion_timestamp = rel.metadata.creation_timestamp.clone();
        let o = with_ownership(observe(&removing, false), &removing, &[], false, false);
        assert_eq!(o.state, ServiceState::Removing);
    }

    mod names {
        use super::super::service_release_name;
        use crate::api::names::{
            MAX_CLUSTER_NAME, MAX_LABEL_VALUE, MAX_SERVICE_NAME, is_dns_label,
        };
        use proptest::prelude::*;

        /// A valid cluster or service name: a DNS label of 1 to `max`.
        fn label(max: usize) -> impl Strategy<Value = String> {
            proptest::string::string_regex(&format!(
                "[a-z0-9]([-a-z0-9]{{0,{}}}[a-z0-9])?",
                max - 2
            ))
            .unwrap()
        }

        /// A valid object name that is also a valid label value.
        fn valid_release_name(n: &str) -> bool {
            n.len() <= MAX_LABEL_VALUE && !n.is_empty() && n.split('.').all(is_dns_label)
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2048))]

            #[test]
            fn derived_names_are_valid_and_fit(
                c in label(MAX_CLUSTER_NAME),
                s in label(MAX_SERVICE_NAME),
            ) {
                let n = service_release_name(&c, &s);
                prop_assert!(valid_release_name(&n), "{n}");
                prop_assert!(n.starts_with(c.get(..1).unwrap_or_default()), "{n}");
                prop_assert!(n.contains('.'), "{n}");
                prop_assert!(n != c, "never a cluster's own release name");
            }

            #[test]
            fn distinct_pairs_never_share_a_name(
                a in (label(MAX_CLUSTER_NAME), label(MAX_SERVICE_NAME)),
                b in (label(MAX_CLUSTER_NAME), label(MAX_SERVICE_NAME)),
            ) {
                prop_assume!(a != b);
                prop_assert_ne!(
                    service_release_name(&a.0, &a.1),
                    service_release_name(&b.0, &b.1)
                );
            }

            /// Pairs made to look alike: the same characters split in two
            /// places (`x`/`a-b` against `x-a`/`b`), and long names that share
            /// everything the short form keeps.
            #[test]
            fn look_alike_pairs_never_share_a_name(
                whole in label(100),
                cut1 in 1usize..99,
                cut2 in 1usize..99,
                tail in label(8),
            ) {
                let split = |at: usize| {
                    let at = at.min(whole.len().saturating_sub(1)).max(1);
                    (whole[..at].trim_end_matches('-').to_string(),
                     whole[at..].trim_start_matches('-').to_string())
                };
                let (a, b) = (split(cut1), split(cut2));
                let usable = |p: &(String, String)| {
                    is_dns_label(&p.0) && is_dns_label(&p.1)
                        && p.0.len() <= MAX_CLUSTER_NAME && p.1.len() <= MAX_SERVICE_NAME
                };
                if usable(&a) && usable(&b) && a != b {
                    prop_assert_ne!(
                        service_release_name(&a.0, &a.1),
                        service_release_name(&b.0, &b.1)
                    );
                }
                // Same first 51 characters, different ends.
                let c = format!("{}{}", "c".repeat(45), tail);
                let c = &c[..c.len().min(MAX_CLUSTER_NAME)];
                let s1 = format!("{}a", "s".repeat(50));
                let s2 = format!("{}b", "s".repeat(50));
                if is_dns_label(c) {
                    prop_assert_ne!(service_release_name(c, &s1), service_release_name(c, &s2));
                }
            }
        }
    }
}
