use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};

/// The most bytes a `values` string may have. The CRDs carry the same number
/// as `maxLength` (which counts characters), so the API server refuses most
/// oversize text at admission and `plan::yaml` catches the rest when it
/// reads values: multi-byte text within the character limit, and objects
/// stored before the CRDs had the limit.
pub const MAX_VALUES_BYTES: usize = 128 * 1024;

/// One Helm chart: a chart in a repository, or a reference to a chart source
/// that a template author already manages.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HelmSpec {
    /// Name of the chart in the repository, e.g. `ingress-nginx`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_name: Option<String>,
    /// Exact chart version, e.g. `4.11.3`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_version: Option<String>,
    /// Where the chart lives. Without it (and without `chartRef`) the chart
    /// comes from the engine's default repository, as in hmc: the chart
    /// repository `hmc-templates` in the system namespace (`hmc-system`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<Repository>,
    /// Instead of chartName/repository: an existing chart source
    /// (kind `HelmChart` or `OCIRepository`, for template authors who run their own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_ref: Option<ChartRef>,
}

/// A Helm chart repository.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Repository {
    /// `https://…` for a classic repository, `oci://…` for an OCI registry.
    pub url: String,
    /// `default` (an index.yaml repository) or `oci`.
    #[serde(default, rename = "type")]
    pub type_: RepositoryType,
    /// How long the repository is given to answer one fetch of its index
    /// (or each OCI operation), as in `20s` or `1m`: past it the fetch
    /// fails and the repository is tried again later (see the engine's
    /// `--source-timeout`, the default). At most `5m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 24))]
    pub timeout: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RepositoryType {
    #[default]
    Default,
    Oci,
}

/// A reference to a chart source object.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChartRef {
    /// The source's API version, as hmc writes it
    /// (`source.toolkit.fluxcd.io/v1`). Accepted and kept; not acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    /// `HelmChart` or `OCIRepository`.
    pub kind: String,
    pub name: String,
    /// Defaults to the template's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

impl HelmSpec {
    /// `chart 4.11.3`, or the reference, for messages people read.
    pub fn describe(&self) -> String {
        match (&self.chart_ref, &self.chart_name) {
            (Some(r), _) => format!("{} {}", r.kind, r.name),
            (None, Some(name)) => match &self.chart_version {
                Some(v) => format!("{name} {v}"),
                None => name.clone(),
            },
            (None, None) => "no chart".to_string(),
        }
    }

    /// Checks what the schema cannot: exactly one way to name the chart.
    pub fn validate(&self) -> Result<ChartSource<'_>, String> {
        match (&self.chart_ref, &self.chart_name, &self.repository) {
            (Some(r), None, None) => Ok(ChartSource::Reference(r)),
            (Some(_), _, _) => {
                Err("spec.helm sets both chartRef and chartName/repository; use one".into())
            }
            (None, Some(name), _) if name.is_empty() => {
                Err("spec.helm.chartName is empty".into())
            }
            (None, Some(_), None) => Ok(ChartSource::DefaultRepository),
            (None, Some(_), Some(repo)) if !repo.url.is_empty() => {
                Ok(ChartSource::Repository(repo))
            }
            (None, Some(_), Some(_)) => Err(
                "spec.helm.repository.url is empty; set it, or leave out repository to use the default repository"
                    .into(),
            ),
            (None, None, _) => Err("spec.helm needs chartName (with or without repository), or chartRef".into()),
        }
    }
}

/// Where a template's chart comes from, once its `spec.helm` is checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ChartSource<'a> {
    /// `chartName` in the repository the template names.
    Repository(&'a Repository),
    /// `chartName` with no repository: the engine's default repository.
    DefaultRepository,
    /// A chart source the template author manages.
    Reference(&'a ChartRef),
}

/// What the engine learned about a template's chart.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateStatus {
    /// True once the chart was fetched and read.
    #[serde(default)]
    pub valid: bool,
    /// Why the template cannot be used yet, in words a person can act on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_error: Option<String>,
    /// The chart's description, from its Chart.yaml.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The chart version that was fetched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_version: Option<String>,
    /// The chart's default values, from its values.yaml.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "preserve_unknown_object")]
    pub config: Option<serde_json::Value>,
    /// Digest of the chart archive that `config` was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_digest: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// ClusterTemplates: the Kubernetes version its clusters run, from
    /// `spec.k8sVersion`, else the chart's `hmc.mirantis.com/k8s-version`
    /// annotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k8s_version: Option<String>,
    /// ServiceTemplates: the Kubernetes versions the chart supports, from
    /// `spec.k8sConstraint`, else the chart's
    /// `hmc.mirantis.com/k8s-version-constraint` annotation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k8s_constraint: Option<String>,
    /// Why the engine holds the template's chart repository back, when it
    /// does: it did not answer and waits for its next try, or it waits for
    /// a turn of its namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_hold: Option<SourceHold>,
}

/// The engine holds a chart repository back: its source is suspended, so
/// that no worker of the source controller waits on it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceHold {
    /// `Quarantined`: the repository did not answer or refused, and is
    /// tried again at `nextTry`. `Waiting`: its namespace's turns are taken
    /// by other repositories being fetched for the first time.
    pub reason: SourceHoldReason,
    /// When the repository is tried again (RFC 3339), for `Quarantined`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_try: Option<String>,
    /// Failed tries in a row.
    #[serde(default)]
    pub failures: u32,
    /// The address of the repository.
    #[serde(default)]
    pub url: String,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
pub enum SourceHoldReason {
    #[default]
    Waiting,
    Quarantined,
}

/// Schema of a free-form values object.
pub fn preserve_unknown_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": true
    })
}
