//! Who uses a template: the one rule behind the engine holding a template
//! that is in use (it keeps its finalizer) and the console refusing to
//! delete one. Names read `ClusterTemplate fleet`, `ManagedCluster dev-1`,
//! sorted.

use std::sync::Arc;

use kube::ResourceExt;

use crate::api::{ClusterTemplate, ManagedCluster};

/// The ClusterTemplates and ManagedClusters of `namespace` whose services
/// name the ServiceTemplate `name`.
pub fn service_template_users(
    namespace: &str,
    name: &str,
    cluster_templates: &[Arc<ClusterTemplate>],
    clusters: &[Arc<ManagedCluster>],
) -> Vec<String> {
    let mut users: Vec<String> = cluster_templates
        .iter()
        .filter(|t| {
            t.namespace().as_deref() == Some(namespace)
                && t.spec.services.iter().any(|s| s.template == name)
        })
        .map(|t| format!("ClusterTemplate {}", t.name_any()))
        .collect();
    users.extend(
        clusters
            .iter()
            .filter(|c| {
                c.namespace().as_deref() == Some(namespace)
                    && c.spec
                        .services
                        .iter()
                        .any(|s| s.template.as_deref() == Some(name))
            })
            .map(|c| format!("ManagedCluster {}", c.name_any())),
    );
    users.sort();
    users
}

/// The ManagedClusters of `namespace` made from the ClusterTemplate `name`.
pub fn cluster_template_users(
    namespace: &str,
    name: &str,
    clusters: &[Arc<ManagedCluster>],
) -> Vec<String> {
    let mut users: Vec<String> = clusters
        .iter()
        .filter(|c| c.namespace().as_deref() == Some(namespace) && c.spec.template == name)
        .map(|c| format!("ManagedCluster {}", c.name_any()))
        .collect();
    users.sort();
    users
}
