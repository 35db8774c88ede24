use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{HelmSpec, TemplateStatus};

/// One Helm chart that clusters can have as a service. The spec is
/// immutable: each version is a new object, e.g. `ingress-nginx-4-11-3`.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "hmc.mirantis.com",
    version = "v1alpha1",
    kind = "ServiceTemplate",
    namespaced,
    status = "TemplateStatus",
    shortname = "svctmpl",
    category = "hmc",
    doc = "A Helm chart that clusters made from templates can have installed as a service",
    printcolumn = r#"{"name":"Valid","type":"boolean","jsonPath":".status.valid"}"#,
    printcolumn = r#"{"name":"Chart","type":"string","jsonPath":".spec.helm.chartName"}"#,
    printcolumn = r#"{"name":"Version","type":"string","jsonPath":".spec.helm.chartVersion"}"#,
    printcolumn = r#"{"name":"Description","type":"string","jsonPath":".status.description"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ServiceTemplateSpec {
    /// The chart. Immutable.
    pub helm: HelmSpec,
    /// Kubernetes versions the chart supports, a constraint as hmc reads it
    /// (Masterminds semver: `>=1.30`, `1.29` for 1.29.x, `>=1.28 <1.31`,
    /// `1.28 - 1.30`, `^1.29 || ^1.31`): a service made from it is not
    /// installed on a cluster whose template states a version outside it.
    /// Overrides the chart's `hmc.mirantis.com/k8s-version-constraint`
    /// annotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k8s_constraint: Option<String>,
    /// Values (YAML) on top of the chart's defaults, for every cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = super::MAX_VALUES_BYTES))]
    pub values: Option<String>,
}
