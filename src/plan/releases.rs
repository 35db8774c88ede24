//! The Flux objects the engine writes, built from our objects: the chart
//! sources of a template and the releases of a cluster (its own chart and
//! each service). Pure: the reconcilers decide when, these functions decide
//! what.

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::ObjectMeta;
use kube::{Resource, ResourceExt};

use crate::api::names::{
    CLUSTER_INSTALLER, TemplateKind, kubeconfig_secret, legacy_service_release_name,
    service_release_name, short_hash, source_name, template_label,
};
use crate::api::{HelmSpec, ManagedCluster, labels};
use crate::flux::{
    self, DriftDetection, HelmChart, HelmChartSpec, HelmRelease, HelmReleaseSpec, HelmRepository,
    HelmRepositorySpec, Install, KubeConfigRef, LocalRef, Remediation, SecretKeyRef, Upgrade,
    values::InlineValues,
};

use super::services::DesiredService;

/// What of the engine's settings the sources and releases it writes carry.
#[derive(Clone, Copy, Debug)]
pub struct ReleaseOptions<'a> {
    /// How often a Flux source re-checks its repository.
    pub source_interval: &'a str,
    /// How often every release is looked at again by the release controller.
    pub release_interval: &'a str,
    /// The shard keys of the release controller: each cluster's releases
    /// carry one of them (see [`super::shard`]). Empty: no shard label.
    pub shards: &'a [String],
}

impl ReleaseOptions<'static> {
    /// The engine's defaults: sources and releases looked at every ten
    /// minutes, no shards.
    pub const DEFAULT: Self = Self {
        source_interval: "10m",
        release_interval: "10m",
        shards: &[],
    };
}

impl Default for ReleaseOptions<'_> {
    fn default() -> Self {
        ReleaseOptions::DEFAULT
    }
}

/// The chart a release of this template's chart points at: always in the
/// template's own namespace. A `chartRef` to another namespace makes its
/// template invalid (see [`foreign_chart_ref`]), and even before that
/// status is written no release is pointed at another namespace.
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

/// Why a template may not use its `chartRef`: it names another namespace.
/// A template reads, and its releases install, charts of its own namespace
/// only, as Flux does with cross-namespace references turned off.
pub fn foreign_chart_ref(helm: &HelmSpec, namespace: &str) -> Option<String> {
    let other = helm.chart_ref.as_ref()?.namespace.as_deref()?;
    (other != namespace).then(|| {
        format!(
            "chartRef points to namespace {other}; a template may only use charts in its own namespace ({namespace})"
        )
    })
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
/// held back once when it does not answer (see the engine's `source_gate`).
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
/// copy of the default, see the engine's `default_repository`). The chart
/// is the template's own (`svctmpl-<template>`), fetched once whatever the
/// number of clusters; the repository is shared by the namespace's
/// templates of equal repository settings ([`repository_name`]), each an
/// owner of it.
pub fn chart_sources(
    kind: TemplateKind,
    template: &str,
    namespace: &str,
    helm: &HelmSpec,
    repository: HelmRepositorySpec,
    owner: OwnerReference,
    options: ReleaseOptions<'_>,
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
            interval: options.source_interval.to_string(),
        },
        status: None,
    };
    Some((repository, chart))
}

fn owner_of(mc: &ManagedCluster) -> OwnerReference {
    mc.controller_owner_ref(&()).unwrap_or_default()
}

/// The labels every release of cluster `name` carries: ours, the cluster's,
/// and its shard of the release controller when there are shards, the same
/// for all of them so that one shard installs the whole cluster.
fn cluster_labels(ns: &str, name: &str, options: ReleaseOptions<'_>) -> BTreeMap<String, String> {
    let mut labels = base_labels();
    labels.insert(labels::CLUSTER.into(), name.to_string());
    if let Some(shard) = super::shard::shard_of(options.shards, ns, name) {
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
    options: ReleaseOptions<'_>,
) -> HelmRelease {
    let name = mc.name_any();
    let ns = mc.namespace().unwrap_or_default();
    let mut labels = cluster_labels(&ns, &name, options);
    labels.insert(labels::ROLE.into(), "cluster".into());
    // Objects of the cluster chart that exist already (a Cluster API
    // Cluster of the same name, made by hand or by another release) are
    // not taken over: deleting this cluster would delete them.
    let (install, upgrade) = retried(None, Some(true));
    HelmRelease {
        metadata: meta(name.clone(), &ns, labels, owner_of(mc)),
        spec: HelmReleaseSpec {
            chart_ref: chart,
            interval: options.release_interval.to_string(),
            release_name: Some(name),
            service_account_name: Some(CLUSTER_INSTALLER.to_string()),
            values: mc
                .spec
                .config
                .as_ref()
                .filter(|v| !v.is_null())
                .map(InlineValues::new),
            install: Some(install),
            upgrade: Some(upgrade),
            ..Default::default()
        },
        status: None,
    }
}

/// True when `release` is the engine's release of `service` of `cluster`:
/// our labels name exactly that cluster and service.
pub fn is_release_of(release: &HelmRelease, cluster: &str, service: &str) -> bool {
    // The same rule as the engine's check before every write
    // (`apply::conflict`).
    let want = BTreeMap::from([
        (labels::CLUSTER.to_string(), cluster.to_string()),
        (labels::ROLE.to_string(), "service".to_string()),
        (labels::SERVICE.to_string(), service.to_string()),
    ]);
    labels::made_for(release.labels(), &want) == Some(true)
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
    options: ReleaseOptions<'_>,
) -> HelmRelease {
    let cluster = mc.name_any();
    let ns = mc.namespace().unwrap_or_default();
    let mut labels = cluster_labels(&ns, &cluster, options);
    labels.insert(labels::ROLE.into(), "service".into());
    labels.insert(labels::SERVICE.into(), svc.name.clone());
    // Objects that exist in the child and belong to no release of this
    // name stop the install, unless the cluster lets the service take them
    // over (`takeOwnership`). Said either way, never left out: a release
    // that refused is then seen to differ from one that takes over, however
    // else the two compare.
    let refuse_existing = Some(!takes_ownership(mc, &svc.name));
    let (install, upgrade) = retried(Some(true), refuse_existing);
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
            interval: options.release_interval.to_string(),
            release_name: Some(svc.name.clone()),
            target_namespace: Some(svc.namespace.clone()),
            storage_namespace: Some(svc.namespace.clone()),
            kube_config: Some(KubeConfigRef {
                secret_ref: SecretKeyRef {
                    name: kubeconfig_secret(&cluster),
                    key: Some("value".into()),
                },
            }),
            install: Some(install),
            upgrade: Some(upgrade),
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

/// How a release installs and upgrades: a failed attempt retried three
/// times, and what exists already in the cluster refused when
/// `refuse_existing` says so.
fn retried(create_namespace: Option<bool>, refuse_existing: Option<bool>) -> (Install, Upgrade) {
    let remediation = Some(Remediation { retries: Some(3) });
    let install = Install {
        create_namespace,
        remediation: remediation.clone(),
        disable_take_ownership: refuse_existing,
    };
    let upgrade = Upgrade {
        remediation,
        disable_take_ownership: refuse_existing,
    };
    (install, upgrade)
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
    // Moving to another shard of the release controller installs the same,
    // and so does what others wrote beside ours, such as the annotation
    // `flux reconcile` leaves: only the marks the engine writes count.
    let ours = |r: &HelmRelease| {
        let engines = |marks: Option<&BTreeMap<String, String>>, skip: &str| {
            marks
                .into_iter()
                .flatten()
                .filter(|(k, _)| k.as_str() != skip && labels::is_ours(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect::<BTreeMap<_, _>>()
        };
        (
            engines(r.metadata.annotations.as_ref(), INSTALLS_AS_GENERATION),
            engines(r.metadata.labels.as_ref(), flux::SHARD_LABEL),
        )
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

#[cfg(test)]
pub(crate) mod tests;
