//! The bodies of the console's values writes, built as data so that what is
//! sent is tested without a cluster.
//!
//! A values edit is a JSON merge patch of `spec.services` that carries the
//! `metadata.resourceVersion` the editor was opened at. A merge patch
//! replaces a list whole, so the patch holds the whole `spec.services` of
//! that version with one entry's `values` changed; the resourceVersion makes
//! the API server refuse it (409 Conflict) if the object changed meanwhile,
//! so a concurrent change is never overwritten silently.

use serde_json::{Value, json};

use crate::api::{ClusterTemplate, ManagedCluster, ManagedService, TemplateService};

/// Why no patch could be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("{0} has no resourceVersion; open it again once the console has listed it")]
    NoResourceVersion(String),
    #[error("{template} has no service {service}")]
    NoSuchService { template: String, service: String },
}

/// What `values` becomes for `text`: none for blank text.
fn values_field(text: &str) -> Option<String> {
    (!text.trim().is_empty()).then(|| text.to_string())
}

/// `services` of a ClusterTemplate with `service`'s values set to `text`
/// (blank text removes them); `None` when the template has no such service.
pub fn with_template_values(
    services: &[TemplateService],
    service: &str,
    text: &str,
) -> Option<Vec<TemplateService>> {
    let mut services = services.to_vec();
    services.iter_mut().find(|s| s.name == service)?.values = values_field(text);
    Some(services)
}

fn resource_version(meta: &kube::api::ObjectMeta, what: String) -> Result<&str, PatchError> {
    meta.resource_version
        .as_deref()
        .filter(|rv| !rv.is_empty())
        .ok_or(PatchError::NoResourceVersion(what))
}

/// `services` of a ManagedCluster with `service`'s values set to `text`,
/// adding the entry `{name}` when the cluster has none. Blank text removes
/// the entry's `values`.
pub fn with_cluster_values(
    services: &[ManagedService],
    service: &str,
    text: &str,
) -> Vec<ManagedService> {
    let mut services = services.to_vec();
    match services.iter_mut().find(|s| s.name == service) {
        Some(entry) => entry.values = values_field(text),
        None => services.push(ManagedService {
            name: service.to_string(),
            values: values_field(text),
            ..Default::default()
        }),
    }
    services
}

/// The merge patch that sets the values of `service` on a ManagedCluster,
/// guarded by the cluster's resourceVersion.
pub fn cluster_values(mc: &ManagedCluster, service: &str, text: &str) -> Result<Value, PatchError> {
    let name = mc.metadata.name.clone().unwrap_or_default();
    let rv = resource_version(&mc.metadata, format!("ManagedCluster {name}"))?;
    let services = with_cluster_values(&mc.spec.services, service, text);
    Ok(json!({
        "metadata": {"resourceVersion": rv},
        "spec": {"services": services},
    }))
}

/// The merge patch that sets the values of `service` on a ClusterTemplate,
/// guarded by the template's resourceVersion. The service must be one of
/// the template's.
pub fn template_values(
    ct: &ClusterTemplate,
    service: &str,
    text: &str,
) -> Result<Value, PatchError> {
    let name = ct.metadata.name.clone().unwrap_or_default();
    let rv = resource_version(&ct.metadata, format!("ClusterTemplate {name}"))?;
    let Some(services) = with_template_values(&ct.spec.services, service, text) else {
        return Err(PatchError::NoSuchService {
            template: name,
            service: service.to_string(),
        });
    };
    Ok(json!({
        "metadata": {"resourceVersion": rv},
        "spec": {"services": services},
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ClusterTemplateSpec, ManagedClusterSpec, TemplateService};
    use kube::api::ObjectMeta;

    fn meta(rv: Option<&str>) -> ObjectMeta {
        ObjectMeta {
            name: Some("prod-eu-1".into()),
            namespace: Some("hmc-system".into()),
            resource_version: rv.map(String::from),
            ..Default::default()
        }
    }

    fn cluster(rv: Option<&str>) -> ManagedCluster {
        ManagedCluster {
            metadata: meta(rv),
            spec: ManagedClusterSpec {
                template: "aws-standalone-cp".into(),
                services: vec![
                    ManagedService {
                        name: "cert-manager".into(),
                        disable: true,
                        ..Default::default()
                    },
                    ManagedService {
                        name: "ingress-nginx".into(),
                        values: Some("controller:\n  replicaCount: 2\n".into()),
                        ..Default::default()
                    },
                ],
                ..Default::default()
            },
            status: None,
        }
    }

    #[test]
    fn a_cluster_patch_carries_the_resource_version_and_changes_one_entry() {
        let patch = cluster_values(
            &cluster(Some("4711")),
            "ingress-nginx",
            "controller:\n  replicaCount: 3\n",
        )
        .unwrap();
        assert_eq!(
            patch,
            json!({
                "metadata": {"resourceVersion": "4711"},
                "spec": {"services": [
                    {"name": "cert-manager", "disable": true},
                    {"name": "ingress-nginx", "values": "controller:\n  replicaCount: 3\n", "disable": false},
                ]},
            })
        );
    }

    #[test]
    fn a_missing_entry_is_created_with_only_its_name_and_values() {
        let patch =
            cluster_values(&cluster(Some("12")), "external-dns", "txtOwnerId: eu\n").unwrap();
        let services = patch["spec"]["services"].as_array().unwrap();
        assert_eq!(services.len(), 3);
        assert_eq!(
            services[2],
            json!({"name": "external-dns", "values": "txtOwnerId: eu\n", "disable": false})
        );
        // The other entries are sent as they were.
        assert_eq!(
            services[0],
            json!({"name": "cert-manager", "disable": true})
        );
        assert_eq!(patch["metadata"]["resourceVersion"], "12");
    }

    #[test]
    fn blank_text_removes_the_values() {
        let patch = cluster_values(&cluster(Some("12")), "ingress-nginx", "  \n").unwrap();
        assert_eq!(
            patch["spec"]["services"][1],
            json!({"name": "ingress-nginx", "disable": false})
        );
    }

    #[test]
    fn no_resource_version_no_patch() {
        assert_eq!(
            cluster_values(&cluster(None), "ingress-nginx", "a: 1\n"),
            Err(PatchError::NoResourceVersion(
                "ManagedCluster prod-eu-1".into()
            ))
        );
    }

    #[test]
    fn a_template_patch_changes_its_entry_and_keeps_the_others() {
        let ct = ClusterTemplate {
            metadata: meta(Some("99")),
            spec: ClusterTemplateSpec {
                services: vec![
                    TemplateService {
                        name: "ingress-nginx".into(),
                        template: "ingress-nginx-4-11-3".into(),
                        namespace: Some("ingress".into()),
                        values: None,
                        ..Default::default()
                    },
                    TemplateService {
                        name: "cert-manager".into(),
                        template: "cert-manager-1-16-2".into(),
                        namespace: None,
                        values: Some("crds:\n  enabled: true\n".into()),
                        ..Default::default()
                    },
                ],
                ..Default::default()
            },
            status: None,
        };
        let patch =
            template_values(&ct, "ingress-nginx", "controller:\n  replicaCount: 3\n").unwrap();
        assert_eq!(
            patch,
            json!({
                "metadata": {"resourceVersion": "99"},
                "spec": {"services": [
                    {"name": "ingress-nginx", "template": "ingress-nginx-4-11-3", "namespace": "ingress",
                     "values": "controller:\n  replicaCount: 3\n"},
                    {"name": "cert-manager", "template": "cert-manager-1-16-2",
                     "values": "crds:\n  enabled: true\n"},
                ]},
            })
        );
        assert_eq!(
            template_values(&ct, "external-dns", "a: 1\n"),
            Err(PatchError::NoSuchService {
                template: "prod-eu-1".into(),
                service: "external-dns".into()
            })
        );
    }
}
