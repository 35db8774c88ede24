use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TemplateService;

/// The lowest priority a set of services may have.
pub const MIN_PRIORITY: i32 = 1;
/// The highest priority a set of services may have: k0rdent's and hmc's
/// bound (one below `i32::MAX`, so that Sveltos' tier, `i32::MAX - priority`,
/// is never 0).
pub const MAX_PRIORITY: i32 = 2_147_483_646;
/// The priority of a set of services that states none, as in k0rdent and hmc.
pub const DEFAULT_PRIORITY: i32 = 100;
/// Matching clusters a MultiClusterService's status names; the rest are
/// counted only, so that the status stays small whatever the fleet.
pub const MAX_LISTED_CLUSTERS: usize = 100;

/// A priority as the planner uses it: the default when none is given, and
/// a value stored outside the bounds (before a rule existed) brought inside
/// them rather than refused.
pub fn effective_priority(priority: Option<i32>) -> i32 {
    priority
        .unwrap_or(DEFAULT_PRIORITY)
        .clamp(MIN_PRIORITY, MAX_PRIORITY)
}

/// Services for every ManagedCluster whose labels match a selector.
///
/// Scope: a MultiClusterService is namespaced. It selects only the
/// ManagedClusters of its own namespace, by their `metadata.labels`, and
/// its services' `template` names ServiceTemplates of that namespace.
/// Nothing in its spec widens that, so one tenant's MultiClusterService
/// never reaches another tenant's clusters. A k0rdent MultiClusterService
/// (`k0rdent.mirantis.com/v1beta1`, cluster-scoped) applies here with the
/// group changed and a namespace given; an hmc 0.0.6 one (`spec.services`,
/// `spec.servicesPriority`) with a namespace given.
///
/// An empty or absent `clusterSelector` selects no cluster (as in k0rdent,
/// unlike a Kubernetes selector where empty means all).
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "hmc.mirantis.com",
    version = "v1alpha1",
    kind = "MultiClusterService",
    namespaced,
    status = "MultiClusterServiceStatus",
    shortname = "mcs",
    category = "hmc",
    doc = "Services for every ManagedCluster of its namespace whose labels match its clusterSelector (an empty selector matches none); where a cluster gets a service of the same name from elsewhere, the higher priority wins",
    printcolumn = r#"{"name":"Priority","type":"integer","jsonPath":".spec.serviceSpec.priority"}"#,
    printcolumn = r#"{"name":"Clusters","type":"integer","jsonPath":".status.matchingCount"}"#,
    printcolumn = r#"{"name":"Revision","type":"integer","jsonPath":".status.revision"}"#,
    printcolumn = r#"{"name":"Message","type":"string","jsonPath":".status.conditions[?(@.type==\"ClustersSelected\")].message"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct MultiClusterServiceSpec {
    /// The ManagedClusters of this namespace that get the services, by
    /// their labels: `matchLabels` and `matchExpressions` (`In`, `NotIn`,
    /// `Exists`, `DoesNotExist`) must all hold. Empty or absent: no cluster.
    #[serde(default)]
    pub cluster_selector: LabelSelector,
    /// The services, their priority and what a conflict does.
    #[serde(default)]
    pub service_spec: ServiceSpec,
    /// hmc 0.0.6: the services, instead of `serviceSpec.services`. Use one
    /// or the other.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = super::names::MAX_SERVICES))]
    pub services: Vec<TemplateService>,
    /// hmc 0.0.6: the priority, instead of `serviceSpec.priority`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = MIN_PRIORITY, max = MAX_PRIORITY))]
    pub services_priority: Option<i32>,
    /// hmc 0.0.6: instead of `serviceSpec.stopOnConflict`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stop_on_conflict: bool,
    /// How a change to the services (a new revision) reaches the clusters
    /// it selects: waves, approvals, health gates, as a ClusterTemplate's
    /// `rollout`. A cluster that comes to be selected gets the newest
    /// revision at once, and one that stops being selected loses the
    /// services at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<super::RolloutPolicy>,
}

/// The CEL rule on `spec` that keeps the two shapes apart: k0rdent's
/// (`serviceSpec`) or hmc 0.0.6's (`services`, `servicesPriority`,
/// `stopOnConflict`), never both, so no one wonders which one counts.
pub const HMC_OR_K0RDENT_RULE: &str = "!(has(self.serviceSpec) && ((has(self.serviceSpec.services) && size(self.serviceSpec.services) > 0) || has(self.serviceSpec.priority) || (has(self.serviceSpec.stopOnConflict) && self.serviceSpec.stopOnConflict)) && ((has(self.services) && size(self.services) > 0) || has(self.servicesPriority) || (has(self.stopOnConflict) && self.stopOnConflict)))";
pub const HMC_OR_K0RDENT_MESSAGE: &str = "set serviceSpec (services, priority, stopOnConflict) or hmc 0.0.6's services, servicesPriority and stopOnConflict, not both";

/// The services of a MultiClusterService, as k0rdent's `serviceSpec`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSpec {
    /// The services, each as a ClusterTemplate's: `name` (the Helm release
    /// in the cluster), `template` (a ServiceTemplate of this namespace),
    /// `namespace`, `values`, `dependsOn` (services of the cluster, from
    /// wherever it gets them). A name listed twice counts once, the first.
    #[serde(default)]
    #[schemars(length(max = super::names::MAX_SERVICES))]
    pub services: Vec<TemplateService>,
    /// Where a cluster gets a service of the same name from elsewhere (its
    /// own services, another MultiClusterService), the higher priority
    /// installs it; equal priorities are a conflict and neither does.
    /// 1 to 2147483646; default 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = MIN_PRIORITY, max = MAX_PRIORITY))]
    pub priority: Option<i32>,
    /// On a conflict or a lost service on a cluster, install none of these
    /// services on that cluster rather than the rest.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stop_on_conflict: bool,
}

impl ServiceSpec {
    /// The priority in force: the stated one, else 100.
    pub fn effective_priority(&self) -> i32 {
        effective_priority(self.priority)
    }
}

impl MultiClusterService {
    /// Its services as they are planned: `serviceSpec`, or hmc 0.0.6's
    /// flat fields when `serviceSpec` sets none of its own (the API server
    /// refuses a spec that sets both).
    pub fn service_spec(&self) -> ServiceSpec {
        ServiceSpec {
            services: self.services().to_vec(),
            priority: self.stated_priority(),
            stop_on_conflict: self.stop_on_conflict(),
        }
    }

    /// The services of [`Self::service_spec`], borrowed.
    pub fn services(&self) -> &[TemplateService] {
        match self.hmc_shaped() {
            true => &self.spec.services,
            false => &self.spec.service_spec.services,
        }
    }

    /// The priority in force: the stated one, else 100.
    pub fn priority(&self) -> i32 {
        effective_priority(self.stated_priority())
    }

    /// Whether a conflict on a cluster withholds all its services there.
    pub fn stop_on_conflict(&self) -> bool {
        match self.hmc_shaped() {
            true => self.spec.stop_on_conflict,
            false => self.spec.service_spec.stop_on_conflict,
        }
    }

    fn stated_priority(&self) -> Option<i32> {
        match self.hmc_shaped() {
            true => self.spec.services_priority,
            false => self.spec.service_spec.priority,
        }
    }

    /// Whether the spec is written as hmc 0.0.6 wrote it: `serviceSpec`
    /// sets nothing and the flat fields set something.
    fn hmc_shaped(&self) -> bool {
        let spec = &self.spec;
        spec.service_spec == ServiceSpec::default()
            && (!spec.services.is_empty()
                || spec.services_priority.is_some()
                || spec.stop_on_conflict)
    }

    /// Itself with its services as they were at `revision` (priority and
    /// stopOnConflict included), if the status still remembers them: what
    /// a cluster given that revision plans with. The selector stays; the
    /// status is left out (a cluster plans with the spec alone, and the
    /// copy is made per cluster).
    pub fn at_revision(&self, revision: i64) -> Option<MultiClusterService> {
        Some(MultiClusterService {
            metadata: self.metadata.clone(),
            spec: MultiClusterServiceSpec {
                cluster_selector: self.spec.cluster_selector.clone(),
                service_spec: self.service_spec_at(revision)?,
                rollout: self.spec.rollout.clone(),
                ..Default::default()
            },
            status: None,
        })
    }

    /// Whether its spec is its newest revision's as the engine numbered it:
    /// the status was written for this generation. Until then a changed
    /// spec is a revision not made yet, which no cluster is given.
    pub fn spec_is_revision(&self, revision: i64) -> bool {
        self.status.as_ref().is_some_and(|s| {
            s.revision == Some(revision)
                && s.observed_generation.is_some()
                && s.observed_generation == self.metadata.generation
        })
    }

    /// Its services as they were at `revision`, if the status still
    /// remembers them.
    pub fn service_spec_at(&self, revision: i64) -> Option<ServiceSpec> {
        self.status
            .as_ref()?
            .revisions
            .iter()
            .find(|r| r.revision == revision)
            .map(|r| r.service_spec.clone())
    }
}

/// What the engine last saw of a MultiClusterService.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MultiClusterServiceStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// `ClustersSelected` (whether the selector is valid and selects) and
    /// `Conflict` (a service of it in conflict on some cluster).
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// The clusters it selects, those with a conflict or a lost service
    /// first, then by name; at most 100 (`matchingCount` counts them all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matching_clusters: Vec<MatchingCluster>,
    /// How many clusters it selects.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matching_count: Option<u32>,
    /// Revision of its services (`serviceSpec`): bumped on every change.
    /// A change of `clusterSelector` is no new revision: a cluster that
    /// gains or loses a label gains or loses the services at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// Hash of the services of the current revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services_hash: Option<String>,
    /// The services of recent revisions, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<ServiceSpecRevision>,
}

/// One cluster a MultiClusterService selects.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MatchingCluster {
    /// The ManagedCluster (same namespace).
    pub name: String,
    /// Every service it gives this cluster is Installed, at its newest
    /// revision.
    #[serde(default)]
    pub deployed: bool,
    /// `Conflict`, `Lost` (another source has a higher priority), or none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Which services, and who else has them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The services of one revision of a MultiClusterService.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSpecRevision {
    pub revision: i64,
    #[serde(default)]
    pub service_spec: ServiceSpec,
}
