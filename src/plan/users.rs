//! Who uses a template: the one rule behind the engine holding a template
//! that is in use (it keeps its finalizer) and the console refusing to
//! delete one. Names read `ClusterTemplate fleet`, `ManagedCluster dev-1`,
//! sorted.

use kube::ResourceExt;

use crate::api::{ClusterTemplate, ManagedCluster};

/// The ClusterTemplates and ManagedClusters of `namespace` whose services
/// name the ServiceTemplate `name`. The lists are of anything that reads
/// as the objects (the engine's `Arc`s, the console's objects of one
/// context).
pub fn service_template_users<T: AsRef<ClusterTemplate>, C: AsRef<ManagedCluster>>(
    namespace: &str,
    name: &str,
    cluster_templates: &[T],
    clusters: &[C],
) -> Vec<String> {
    let mut users: Vec<String> = cluster_templates
        .iter()
        .map(AsRef::as_ref)
        .filter(|t| {
            t.namespace().as_deref() == Some(namespace)
                && t.spec.services.iter().any(|s| s.template == name)
        })
        .map(|t| format!("ClusterTemplate {}", t.name_any()))
        .collect();
    users.extend(
        clusters
            .iter()
            .map(AsRef::as_ref)
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
pub fn cluster_template_users<C: AsRef<ManagedCluster>>(
    namespace: &str,
    name: &str,
    clusters: &[C],
) -> Vec<String> {
    let mut users: Vec<String> = clusters
        .iter()
        .map(AsRef::as_ref)
        .filter(|c| c.namespace().as_deref() == Some(namespace) && c.spec.template == name)
        .map(|c| format!("ManagedCluster {}", c.name_any()))
        .collect();
    users.sort();
    users
}
