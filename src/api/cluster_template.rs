use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{HelmSpec, TemplateStatus};

/// The recipe for a cluster: its Cluster API chart and the services that every
/// cluster made from it gets.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "hmc.mirantis.com",
    version = "v1alpha1",
    kind = "ClusterTemplate",
    namespaced,
    status = "ClusterTemplateStatus",
    shortname = "clustertmpl",
    category = "hmc",
    doc = "A cluster recipe: the Cluster API chart and the services every cluster made from it gets",
    printcolumn = r#"{"name":"Valid","type":"boolean","jsonPath":".status.valid"}"#,
    printcolumn = r#"{"name":"Revision","type":"integer","jsonPath":".status.revision"}"#,
    printcolumn = r#"{"name":"Services","type":"string","jsonPath":".status.servicesSummary"}"#,
    printcolumn = r#"{"name":"Description","type":"string","jsonPath":".status.description"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTemplateSpec {
    /// The Cluster API chart. Immutable.
    pub helm: HelmSpec,
    /// Services installed into every cluster made from this template once it
    /// is provisioned. May change: each change is a new revision.
    #[serde(default)]
    pub services: Vec<TemplateService>,
    /// How a change to the services reaches the clusters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutPolicy>,
}

/// A service of a ClusterTemplate.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateService {
    /// Name of the service; also its Helm release name in the cluster: a
    /// DNS label of at most 53 characters.
    #[schemars(length(min = 1, max = super::names::MAX_SERVICE_NAME), regex(pattern = super::names::DNS_LABEL_PATTERN))]
    pub name: String,
    /// Name of the ServiceTemplate (same namespace).
    pub template: String,
    /// Namespace in the cluster; defaults to the service name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Values (YAML) for this service in every cluster made from the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<String>,
}

impl TemplateService {
    pub fn target_namespace(&self) -> &str {
        self.namespace
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or(&self.name)
    }
}

/// How a new revision of the services rolls out.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutPolicy {
    /// `Automatic` proceeds wave after wave while each stays healthy;
    /// `Manual` waits for an approval before every wave. Default: Automatic.
    #[serde(default)]
    pub strategy: RolloutStrategy,
    /// Clusters updated at once: a number, or a percentage of the clusters
    /// (`25%`). Default: `25%`.
    #[serde(default = "default_max_concurrent")]
    pub max_concurrent: IntOrString,
    /// Size of a first canary wave; after it the rollout always waits for an
    /// approval. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<u32>,
    /// How long a cluster's services may take to become Installed at the new
    /// revision (`10m`, `90s`). Default: `10m`.
    #[serde(default = "default_health_timeout")]
    pub health_timeout: String,
    /// Failed clusters the rollout tolerates: it stops by itself when more
    /// fail (0 stops at the first failure). Default: 1.
    #[serde(default = "default_failure_budget")]
    pub failure_budget: u32,
    /// A cluster label key to order and group waves by (`region`). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
}

impl Default for RolloutPolicy {
    fn default() -> Self {
        Self {
            strategy: RolloutStrategy::default(),
            max_concurrent: default_max_concurrent(),
            canary: None,
            health_timeout: default_health_timeout(),
            failure_budget: default_failure_budget(),
            order: None,
        }
    }
}

fn default_max_concurrent() -> IntOrString {
    IntOrString::String("25%".into())
}
fn default_health_timeout() -> String {
    "10m".into()
}
fn default_failure_budget() -> u32 {
    1
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
pub enum RolloutStrategy {
    #[default]
    Automatic,
    Manual,
}

/// Status of a ClusterTemplate: its chart, plus the revision of its services.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTemplateStatus {
    #[serde(flatten)]
    pub chart: TemplateStatus,
    /// Revision of `spec.services`: bumped on every change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// Hash of the services of the current revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services_hash: Option<String>,
    /// `ingress-nginx, cert-manager` — for the printer column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services_summary: Option<String>,
    /// The services of recent revisions, newest last: what a cluster at an
    /// older revision keeps, and what a rollback returns to. Written in the
    /// same status update as the revision it belongs to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<ServicesRevision>,
}

/// The services of one revision of a ClusterTemplate.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServicesRevision {
    pub revision: i64,
    #[serde(default)]
    pub services: Vec<TemplateService>,
}

impl ClusterTemplate {
    /// The template as it was at `revision`: its spec with the services of
    /// that revision, if the status still remembers them.
    pub fn spec_at(&self, revision: i64) -> Option<ClusterTemplateSpec> {
        let services = self.status.as_ref()?.services_at(revision)?;
        Some(ClusterTemplateSpec {
            services: services.to_vec(),
            ..self.spec.clone()
        })
    }
}

impl ClusterTemplateStatus {
    /// The services of `revision`, if the template still remembers it.
    pub fn services_at(&self, revision: i64) -> Option<&[TemplateService]> {
        self.revisions
            .iter()
            .find(|r| r.revision == revision)
            .map(|r| r.services.as_slice())
    }
}
