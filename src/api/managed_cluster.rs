use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A cluster made from a ClusterTemplate, with its services.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "hmc.mirantis.com",
    version = "v1alpha1",
    kind = "ManagedCluster",
    namespaced,
    status = "ManagedClusterStatus",
    shortname = "mcluster",
    shortname = "mcl",
    category = "hmc",
    doc = "A cluster made from a ClusterTemplate, with the services installed into it",
    printcolumn = r#"{"name":"Ready","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].status"}"#,
    printcolumn = r#"{"name":"Template","type":"string","jsonPath":".spec.template"}"#,
    printcolumn = r#"{"name":"Services","type":"string","jsonPath":".status.servicesReady"}"#,
    printcolumn = r#"{"name":"Revision","type":"integer","jsonPath":".status.targetRevision"}"#,
    printcolumn = r#"{"name":"Message","type":"string","jsonPath":".status.conditions[?(@.type==\"Ready\")].message"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#,
    validation = super::names::cluster_name_length_rule(),
    validation = super::names::cluster_name_characters_rule()
)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterSpec {
    /// Name of the ClusterTemplate (same namespace).
    pub template: String,
    /// Values for the template's Cluster API chart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::preserve_unknown_object")]
    pub config: Option<serde_json::Value>,
    /// Name of the credential the provider uses; passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credential: Option<String>,
    /// Per-cluster services: an entry named like a template service overrides
    /// its values or disables it; a new name adds a service to this cluster.
    #[serde(default)]
    #[schemars(length(max = super::names::MAX_SERVICES))]
    pub services: Vec<ManagedService>,
    /// Priority of this cluster's own services (its template's and its own
    /// entries) over a MultiClusterService's of the same name: the higher
    /// installs it, equal ones are a conflict. 1 to 2147483646; default 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = super::MIN_PRIORITY, max = super::MAX_PRIORITY))]
    pub services_priority: Option<i32>,
    /// Validate everything, create nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Stop instead of taking over objects another manager owns.
    #[serde(default)]
    pub stop_on_conflict: bool,
}

/// A per-cluster service entry.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedService {
    /// Name of the service (the template's service name to override it);
    /// also its Helm release name in the cluster: a DNS label of at most 53
    /// characters.
    #[schemars(length(min = 1, max = super::names::MAX_SERVICE_NAME), regex(pattern = super::names::DNS_LABEL_PATTERN))]
    pub name: String,
    /// ServiceTemplate name; an entry for a service the template lacks gives
    /// nothing without one (it only overrides).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    /// Namespace in the cluster; defaults to the template's, then to the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Values (YAML) on top of the template's for this cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = super::MAX_VALUES_BYTES))]
    pub values: Option<String>,
    /// Do not install this service on this cluster (uninstall it if it is).
    #[serde(default)]
    pub disable: bool,
    /// Services of this cluster that must be Installed before this one is
    /// installed; replaces the template's `dependsOn` for this service when
    /// given (`[]` drops it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = super::names::MAX_DEPENDS_ON), inner(length(min = 1, max = super::names::MAX_SERVICE_NAME), regex(pattern = super::names::DNS_LABEL_PATTERN)))]
    pub depends_on: Option<Vec<String>>,
    /// Let this service take over what already exists in the cluster under
    /// its names: objects made by hand or by another release, and a release
    /// of its name installed before it. Without it, such an object stops
    /// the install (the service is Failed and names the object), and a
    /// release of its name found already there makes the service Failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub take_ownership: bool,
}

/// The observed state of a ManagedCluster, in the product's words.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ManagedClusterStatus {
    /// TemplateReady, ClusterReady, ServicesReady and the aggregate Ready.
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// One entry per service.
    #[serde(default)]
    pub services: Vec<ServiceStatus>,
    /// `Installed/total`, for the printer column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services_ready: Option<String>,
    /// The last ClusterTemplate revision whose services were all installed
    /// here: its last good revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// The ClusterTemplate revision whose services this cluster is given now.
    /// It moves only when a rollout reaches the cluster (or at creation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_revision: Option<i64>,
    /// Per MultiClusterService that selects this cluster, by name: the
    /// revision of its services the cluster is given and its last good one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub multi_cluster_services: Vec<MultiClusterServiceRevision>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

impl ManagedClusterStatus {
    /// What it records of MultiClusterService `name`'s revisions.
    pub fn multi_cluster_service(&self, name: &str) -> Option<&MultiClusterServiceRevision> {
        self.multi_cluster_services.iter().find(|m| m.name == name)
    }
}

/// Whether every service named in `names` is Installed in `services` (a
/// cluster's service statuses); true for no names.
pub fn all_installed<N: AsRef<str>>(services: &[ServiceStatus], names: &[N]) -> bool {
    names.iter().all(|name| {
        services
            .iter()
            .any(|s| s.name == name.as_ref() && s.state == ServiceState::Installed)
    })
}

/// The revision of one MultiClusterService's services on one cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiClusterServiceRevision {
    /// The MultiClusterService (same namespace).
    pub name: String,
    /// The revision of its services this cluster is given now. It moves
    /// only when a rollout reaches the cluster (or when it is selected).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_revision: Option<i64>,
    /// The last revision whose services were all installed here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// The services it gives this cluster (those it wins here).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<String>,
}

/// The state of one service on one cluster.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServiceStatus {
    pub name: String,
    /// Namespace in the cluster.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// The ServiceTemplate it comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    pub state: ServiceState,
    /// Chart version installed (or being installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// ClusterTemplate revision of what is installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
pub enum ServiceState {
    #[default]
    Pending,
    Installing,
    Installed,
    Failed,
    Removing,
}

impl std::fmt::Display for ServiceState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ServiceState::Pending => "Pending",
            ServiceState::Installing => "Installing",
            ServiceState::Installed => "Installed",
            ServiceState::Failed => "Failed",
            ServiceState::Removing => "Removing",
        })
    }
}

impl ManagedClusterSpec {
    /// The priority of the cluster's own services, as the planner uses it.
    /// A 0 is read as unset: before the field was acted on, the API server
    /// stored 0 as its default, and those clusters never asked for less.
    pub fn own_priority(&self) -> i32 {
        super::effective_priority(self.services_priority.filter(|p| *p != 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_installed_needs_each_name_installed() {
        let status = |name: &str, state| ServiceStatus {
            name: name.into(),
            state,
            ..Default::default()
        };
        let services = [
            status("a", ServiceState::Installed),
            status("b", ServiceState::Failed),
        ];
        assert!(all_installed(&services, &["a"]));
        assert!(!all_installed(&services, &["a", "b"]));
        assert!(!all_installed(&services, &["c"]), "absent is not installed");
        assert!(all_installed::<&str>(&services, &[]));
    }
}
