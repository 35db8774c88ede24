//! The small typed subset of Flux that the engine writes and reads. Flux
//! stays behind this module: nothing outside the engine names these kinds
//! in front of a person.

use kube::CustomResource;
use serde::{Deserialize, Serialize};

pub mod values;
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

/// The reason of the Event the release controller records once it has put
/// back objects changed by hand in the cluster.
pub const DRIFT_CORRECTED: &str = "DriftCorrected";
/// The reason of the Event it records when it could not put them back.
pub const DRIFT_CORRECTION_FAILED: &str = "DriftCorrectionFailed";
/// The Ready message of a release while the release controller puts back
/// objects changed by hand (Ready is Unknown meanwhile).
pub const CORRECTING_DRIFT: &str = "correcting cluster drift";

/// The label that picks which shard of the release controller reconciles
/// a release: each shard watches the releases labelled with its key, the
/// main controller those without the label (Flux's sharding).
pub const SHARD_LABEL: &str = "sharding.fluxcd.io/key";

/// A duration as Flux accepts it in an `interval` or `timeout`: one or
/// more `<number><unit>` with units `ms`, `s`, `m` and `h` (`30s`, `1m30s`,
/// `1.5h`), as its CRDs' pattern says. `None` for anything else.
pub fn duration(text: &str) -> Option<std::time::Duration> {
    if text.is_empty() {
        return None;
    }
    let mut rest = text;
    let mut total = 0f64;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(digits);
        // `1`, `1.5`; not `.5`, `1.` or `1.2.3`.
        let (whole, fraction) = match number.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (number, None),
        };
        if whole.is_empty() || fraction.is_some_and(|f| f.is_empty() || f.contains('.')) {
            return None;
        }
        let value: f64 = number.parse().ok()?;
        let (seconds, after) = if let Some(a) = after.strip_prefix("ms") {
            (value / 1000.0, a)
        } else if let Some(a) = after.strip_prefix('s') {
            (value, a)
        } else if let Some(a) = after.strip_prefix('m') {
            (value * 60.0, a)
        } else if let Some(a) = after.strip_prefix('h') {
            (value * 3600.0, a)
        } else {
            return None;
        };
        total += seconds;
        rest = after;
    }
    std::time::Duration::try_from_secs_f64(total).ok()
}

/// The Ready condition, if any.
pub fn ready(conditions: &[FluxCondition]) -> Option<&FluxCondition> {
    conditions.iter().find(|c| c.type_ == "Ready")
}

/// A release's Released condition, if any: the outcome of its last Helm
/// action, kept while Ready says that the next attempt runs.
pub fn released(conditions: &[FluxCondition]) -> Option<&FluxCondition> {
    conditions.iter().find(|c| c.type_ == "Released")
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
    /// True while the source controller leaves the repository alone. The
    /// engine's source gate owns it (see `engine::source_gate`); a template
    /// writes it only when it creates the repository, held back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,
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
    /// The value of the last `reconcile.fluxcd.io/requestedAt` annotation
    /// the source controller acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_handled_reconcile_at: Option<String>,
}

/// The annotation that asks a Flux controller to reconcile an object now;
/// its value comes back in `status.lastHandledReconcileAt` once handled.
pub const REQUESTED_AT: &str = "reconcile.fluxcd.io/requestedAt";

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
    /// The account the release controller acts as while it installs: in
    /// the release's namespace, or in the child when `kube_config` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<Install>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<Upgrade>,
    /// Whether the objects of the release are compared with what the
    /// cluster holds at every interval, and put back when they differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_detection: Option<DriftDetection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<values::InlineValues>,
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
    /// `true`: an object the chart renders that already exists and belongs
    /// to no release of this name stops the install. Flux's default
    /// (`false`) lets Helm take such objects over, whoever made them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_take_ownership: Option<bool>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Upgrade {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediation: Option<Remediation>,
    /// As [`Install::disable_take_ownership`], for the objects an upgrade
    /// adds. Objects the release already had are not checked again, nor is
    /// a release of this name that the release controller did not install:
    /// it upgrades that one whatever this says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_take_ownership: Option<bool>,
}

/// `spec.driftDetection`: `mode` is `enabled` (detect and correct), `warn`
/// (detect only) or `disabled`, Flux's default.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct DriftDetection {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
}

impl DriftDetection {
    /// Detect changes made in the cluster and put the release's objects back.
    pub fn enabled() -> Self {
        Self {
            mode: Some("enabled".into()),
        }
    }
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
    /// The Helm release's name and namespace.
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub namespace: String,
    /// Helm's revision of the release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
    #[serde(default)]
    pub chart_name: String,
    #[serde(default)]
    pub chart_version: String,
    #[serde(default)]
    pub status: String,
    /// When the Helm release was first installed, whoever installed it:
    /// Helm keeps it through every upgrade. RFC 3339, read leniently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_deployed: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::duration;
    use std::time::Duration;

    #[test]
    fn durations_as_flux_accepts_them() {
        assert_eq!(duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(duration("10m"), Some(Duration::from_secs(600)));
        assert_eq!(duration("1h30m"), Some(Duration::from_secs(5400)));
        assert_eq!(duration("1.5m"), Some(Duration::from_secs(90)));
        assert_eq!(duration("250ms"), Some(Duration::from_millis(250)));
        assert_eq!(duration("0s"), Some(Duration::ZERO));
        for bad in [
            "",
            "10",
            "ten minutes",
            "10 m",
            "-1m",
            "1d",
            ".5s",
            "1.s",
            "1.2.3s",
            "m",
            "5mm",
        ] {
            assert_eq!(duration(bad), None, "{bad:?}");
        }
    }
}
