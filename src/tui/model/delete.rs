//! What `ctrl-d` asks before a delete, or why it refuses: a cluster's
//! question says which services are uninstalled from it, and where; a
//! template is refused while anything uses it, as the engine holds it then.

use crate::plan::users::{cluster_template_users, service_template_users};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::snapshot::Snapshot;

/// The question to confirm deleting `key`, or why it may not be deleted.
pub fn question(data: &Snapshot, key: &ObjKey) -> Result<String, String> {
    let (ns, name) = (key.namespace.as_str(), key.name.as_str());
    let ctx = &key.context;
    // With several contexts open, the question says which one it writes to.
    let where_ = if data.several_contexts() {
        format!("{ns} of context {ctx}")
    } else {
        ns.to_string()
    };
    let gone = || format!("{} {name} no longer exists", key.kind.label());
    match key.kind {
        Kind::ManagedCluster => {
            let mc = data.cluster(ctx, ns, name).ok_or_else(gone)?;
            if mc.metadata.deletion_timestamp.is_some() {
                return Err(format!(
                    "cluster {name} is already being deleted (d describes how far it is)"
                ));
            }
            let services: Vec<String> = mc
                .status
                .iter()
                .flat_map(|s| &s.services)
                .map(|s| match &s.namespace {
                    Some(n) => format!("{} (namespace {n})", s.name),
                    None => s.name.clone(),
                })
                .collect();
            Ok(if services.is_empty() {
                format!(
                    "delete cluster {name} in {where_}? no service is installed in it; removes the cluster"
                )
            } else {
                format!(
                    "delete cluster {name} in {where_}? uninstalls {} from {name}, then removes the cluster",
                    services.join(", ")
                )
            })
        }
        Kind::ClusterTemplate | Kind::ServiceTemplate => {
            let users = if key.kind == Kind::ClusterTemplate {
                data.cluster_template(ctx, ns, name).ok_or_else(gone)?;
                cluster_template_users(ns, name, &data.clusters_in(ctx))
            } else {
                data.service_template(ctx, ns, name).ok_or_else(gone)?;
                service_template_users(
                    ns,
                    name,
                    &data.cluster_templates_in(ctx),
                    &data.clusters_in(ctx),
                )
            };
            let kind = key.kind.label();
            if users.is_empty() {
                Ok(format!(
                    "delete {kind} {name} in {where_}? nothing uses it; its chart source goes with it"
                ))
            } else {
                Err(format!(
                    "cannot delete {kind} {name}: in use by {} (the engine keeps it until nothing uses it)",
                    users.join(", ")
                ))
            }
        }
        Kind::TemplateRollout | Kind::MultiClusterService | Kind::Event => Err(format!(
            "a {} is not deleted from the console: only clusters and templates are",
            key.kind.label()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::sample::sample;

    fn key(kind: Kind, ns: &str, name: &str) -> ObjKey {
        ObjKey {
            context: Default::default(),
            kind,
            namespace: ns.into(),
            name: name.into(),
        }
    }

    #[test]
    fn a_cluster_question_names_what_is_uninstalled_and_where() {
        let q = question(
            &sample(),
            &key(Kind::ManagedCluster, "hmc-system", "prod-eu-1"),
        )
        .unwrap();
        assert!(
            q.starts_with("delete cluster prod-eu-1 in hmc-system? uninstalls ingress-nginx"),
            "{q}"
        );
        assert!(q.contains("cert-manager"), "{q}");
        assert!(
            q.ends_with("from prod-eu-1, then removes the cluster"),
            "{q}"
        );
    }

    #[test]
    fn a_template_in_use_is_refused_and_says_by_whom() {
        let data = sample();
        let why = question(
            &data,
            &key(Kind::ClusterTemplate, "hmc-system", "aws-standalone-cp"),
        )
        .unwrap_err();
        assert!(
            why.starts_with("cannot delete ClusterTemplate aws-standalone-cp: in use by ManagedCluster prod-eu-1"),
            "{why}"
        );
        let gone = question(&data, &key(Kind::ManagedCluster, "x", "nope")).unwrap_err();
        assert_eq!(gone, "ManagedCluster nope no longer exists");
        assert!(question(&data, &key(Kind::TemplateRollout, "x", "r")).is_err());
        let unused =
            question(&data, &key(Kind::ClusterTemplate, "team-a", "azure-hosted")).unwrap();
        assert_eq!(
            unused,
            "delete ClusterTemplate azure-hosted in team-a? nothing uses it; its chart source goes with it"
        );
    }
}
