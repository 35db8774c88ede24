//! Our objects, group `hmc.mirantis.com`, version `v1alpha1`: the public contract.
//!
//! The field names are the ones hmc users already write, so their YAML works here.

mod cluster_template;
mod common;
pub mod conditions;
mod crds;
mod managed_cluster;
mod multi_cluster_service;
pub mod names;
mod rollout;
mod service_template;

pub use cluster_template::*;
pub use common::*;
pub use crds::{
    CLUSTER_CHART_IMMUTABLE, K8S_VERSION_IMMUTABLE, SERVICE_TEMPLATE_IMMUTABLE, all_crds, crds_yaml,
};
pub use managed_cluster::*;
pub use multi_cluster_service::*;
pub use rollout::*;
pub use service_template::*;

/// The API group of every object in this module.
pub const GROUP: &str = "hmc.mirantis.com";

/// Labels and annotations the engine puts on what it creates.
pub mod labels {
    /// Marks an object as created by the engine.
    pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
    pub const MANAGED_BY_VALUE: &str = "hmc-tui";
    /// The domain of the engine's own labels and annotations.
    const DOMAIN: &str = "hmc.mirantis.com/";

    /// Whether a label or annotation key is one the engine writes: the
    /// managed-by mark, or one of its own domain. Others' keys beside them
    /// (`flux reconcile`'s request, a person's note) are not the engine's.
    pub fn is_ours(key: &str) -> bool {
        key == MANAGED_BY || key.starts_with(DOMAIN)
    }
    /// The ManagedCluster a release belongs to.
    pub const CLUSTER: &str = "hmc.mirantis.com/managed-cluster";
    /// The service name inside that cluster; absent on the cluster's own release.
    pub const SERVICE: &str = "hmc.mirantis.com/service";
    /// `cluster` for the CAPI release, `service` for a service release.
    pub const ROLE: &str = "hmc.mirantis.com/role";
    /// The template (`<kind>/<name>`) a chart source was made for.
    pub const TEMPLATE: &str = "hmc.mirantis.com/template";
    /// The ClusterTemplate a TemplateRollout belongs to.
    pub const CLUSTER_TEMPLATE: &str = "hmc.mirantis.com/cluster-template";
    /// The MultiClusterService a TemplateRollout belongs to.
    pub const MULTI_CLUSTER_SERVICE: &str = "hmc.mirantis.com/multi-cluster-service";
    /// Annotation: the ClusterTemplate revision a service release carries.
    pub const REVISION: &str = "hmc.mirantis.com/revision";
    /// Annotation on a ManagedCluster: `"true"` forces deletion when the child is unreachable.
    pub const FORCE_DELETE: &str = "hmc.mirantis.com/force-delete";
    /// Annotation on a TemplateRollout: an operator's request (`approve`,
    /// `pause`, `resume`, `abort`, `rollback`, `skip <cluster>`,
    /// `retry <cluster>`). The engine records it and removes it.
    pub const REQUEST: &str = "hmc.mirantis.com/request";
    /// Annotation next to [`REQUEST`]: who asks.
    pub const REQUESTED_BY: &str = "hmc.mirantis.com/requested-by";
    /// Chart annotation (Chart.yaml): the Kubernetes version a cluster
    /// chart's clusters run, as hmc reads it for a ClusterTemplate.
    pub const K8S_VERSION: &str = "hmc.mirantis.com/k8s-version";
    /// Chart annotation (Chart.yaml): the Kubernetes versions a service
    /// chart supports, as hmc reads it for a ServiceTemplate.
    pub const K8S_VERSION_CONSTRAINT: &str = "hmc.mirantis.com/k8s-version-constraint";
    /// Annotation on a ServiceTemplate or ClusterTemplate: a new value (the
    /// console writes the time, RFC 3339) asks the engine to try the
    /// template's chart repository again at once, even while quarantined.
    pub const RETRY: &str = "hmc.mirantis.com/retry";
    /// The finalizer on every object of ours that needs cleanup first.
    pub const FINALIZER: &str = "hmc.mirantis.com/cleanup";

    /// The labels that say which object of ours an object is made for. An
    /// object is ours to write only when each of them is as we would write it.
    const IDENTITY: [&str; 6] = [
        CLUSTER,
        ROLE,
        SERVICE,
        TEMPLATE,
        CLUSTER_TEMPLATE,
        MULTI_CLUSTER_SERVICE,
    ];

    /// Whether an object labelled `have` is the engine's (`None` when it is
    /// not labelled as the engine's at all) and made for the object whose
    /// identity labels are `want`.
    pub fn made_for(
        have: &std::collections::BTreeMap<String, String>,
        want: &std::collections::BTreeMap<String, String>,
    ) -> Option<bool> {
        let ours = have.get(MANAGED_BY).map(String::as_str) == Some(MANAGED_BY_VALUE);
        ours.then(|| IDENTITY.iter().all(|k| want.get(*k) == have.get(*k)))
    }
}
