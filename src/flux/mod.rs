//! The small typed subset of Flux that the engine writes and reads. Flux
//! stays behind this module: nothing outside the engine names these kinds
//! in front of a person.

use kube::CustomResource;
use serde::{Deserialize, Serialize};

pub mod words;

/// A Flux condition, read leniently: bad data from the API never panics.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct FluxCondition {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// The Ready condition, if any.
pub fn ready(conditions: &[FluxCondition]) -> Option<&FluxCondition> {
    conditions.iter().find(|c| c.type_ == "Ready")
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct LocalRef {
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

// ------------------------------------------------------------ sources

/// source.toolkit.fluxcd.io/v1 HelmRepository.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "source.toolkit.fluxcd.io",
    version = "v1",
    kind = "HelmRepository",
    namespaced,
    status = "SourceStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct HelmRepositorySpec {
    #[serde(default)]
    pub url: String,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Read leniently: a repository someone else wrote may leave it out.
    #[serde(default)]
    pub interval: String,
    /// How long the source controller waits for the repository's index (or,
    /// for an OCI registry, each remote operation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// The Secret, in the repository's own namespace, with its credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<SecretRef>,
}

/// A Secret in the namespace of the object that names it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct SecretRef {
    #[serde(default)]
    pub name: String,
}

/// source.toolkit.fluxcd.io/v1 HelmChart.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "source.toolkit.fluxcd.io",
    version = "v1",
    kind = "HelmChart",
    namespaced,
    status = "SourceStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct HelmChartSpec {
    pub chart: String,
    pub version: String,
    pub source_ref: LocalRef,
    pub interval: String,
}

/// Status of a Flux source: readiness and the artifact it produced.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SourceStatus {
    #[serde(default)]
    pub conditions: Vec<FluxCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact: Option<Artifact>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Artifact {
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub digest: String,
    #[serde(default)]
    pub revision: String,
}

// ------------------------------------------------------------ releases

/// helm.toolkit.fluxcd.io/v2 HelmRelease.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "helm.toolkit.fluxcd.io",
    version = "v2",
    kind = "HelmRelease",
    namespaced,
    status = "HelmReleaseStatus",
    schema = "disabled"
)]
#[serde(rename_all = "camelCase")]
pub struct HelmReleaseSpec {
    pub chart_ref: LocalRef,
    pub interval: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kube_config: Option<KubeConfigRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<Install>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<Upgrade>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<serde_json::Value>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct KubeConfigRef {
    pub secret_ref: SecretKeyRef,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct SecretKeyRef {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Install {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_namespace: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediation: Option<Remediation>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Upgrade {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediation: Option<Remediation>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Remediation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<i64>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct HelmReleaseStatus {
    #[serde(default)]
    pub conditions: Vec<FluxCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempted_revision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_attempted_generation: Option<i64>,
    /// Newest first.
    #[serde(default)]
    pub history: Vec<Snapshot>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    #[serde(default)]
    pub chart_name: String,
    #[serde(default)]
    pub chart_version: String,
    #[serde(default)]
    pub status: String,
}
