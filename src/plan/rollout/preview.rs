//! The preview of what a revision changes, cluster by cluster.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::PreviewGroup;
use crate::plan::safe_text::mask_change;
use crate::plan::services::ServicePlan;
use crate::plan::values;

/// Cluster names kept per preview group.
const PREVIEW_NAMES: usize = 10;

/// What changes for one cluster between two revisions, one line per item:
/// chart versions, added and removed services, changed values. Values
/// under secret-looking keys are masked: the status is read by anyone who
/// may read the rollout.
pub fn service_changes(
    old: &[ServicePlan],
    new: &[ServicePlan],
    version: impl Fn(&str) -> Option<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let label = |p: &ServicePlan| match p {
        ServicePlan::Install(d) => version(&d.template)
            .map(|v| format!("{} {v}", d.name))
            .unwrap_or_else(|| d.name.clone()),
        ServicePlan::Blocked(b) => b.name.clone(),
    };
    let names: BTreeSet<&str> = new.iter().map(|p| p.name()).collect();
    for p in old.iter().filter(|p| !names.contains(p.name())) {
        out.push(format!("remove {}", label(p)));
    }
    for n in new {
        match (old.iter().find(|o| o.name() == n.name()), n) {
            (None, _) => out.push(format!("add {}", label(n))),
            (Some(_), ServicePlan::Blocked(b)) => {
                out.push(format!("{}: blocked: {}", b.name, b.message))
            }
            (Some(ServicePlan::Blocked(_)), ServicePlan::Install(_)) => {
                out.push(format!("install {}", label(n)))
            }
            (Some(ServicePlan::Install(o)), ServicePlan::Install(d)) => {
                let (from, to) = (version(&o.template), version(&d.template));
                if o.template != d.template {
                    out.push(match (from, to) {
                        (Some(a), Some(b)) if a != b => format!("{} {a} → {b}", d.name),
                        _ => format!("{}: template {} → {}", d.name, o.template, d.template),
                    });
                }
                for change in values::diff(&o.values, &d.values) {
                    out.push(format!("{}: {}", d.name, mask_change(&change)));
                }
            }
        }
    }
    out
}

/// Groups clusters with an identical change, largest group first.
pub fn preview_groups(changes: Vec<(String, Vec<String>)>) -> Vec<PreviewGroup> {
    let mut groups: BTreeMap<Vec<String>, Vec<String>> = BTreeMap::new();
    for (cluster, change) in changes {
        groups.entry(change).or_default().push(cluster);
    }
    let mut out: Vec<PreviewGroup> = groups
        .into_iter()
        .map(|(changes, mut clusters)| {
            clusters.sort();
            let count = clusters.len() as u32;
            clusters.truncate(PREVIEW_NAMES);
            PreviewGroup {
                count,
                changes,
                clusters,
            }
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then(a.changes.cmp(&b.changes)));
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::plan::services::DesiredService;

    fn install(values: serde_json::Value) -> ServicePlan {
        ServicePlan::Install(DesiredService {
            name: "db".into(),
            namespace: "db".into(),
            template: "db-v1".into(),
            values: values.clone(),
            effective: values,
            after: Vec::new(),
        })
    }

    #[test]
    fn a_password_in_the_preview_is_masked_and_still_said_to_change() {
        let old = [install(
            json!({"auth": {"password": "hunter2", "user": "app"}}),
        )];
        let new = [install(
            json!({"auth": {"password": "hunter3", "user": "app2"}, "apiKey": "k-123"}),
        )];
        let changes = service_changes(&old, &new, |_| None);
        assert_eq!(
            changes,
            vec![
                "db: + apiKey: ++++++++",
                "db: auth.password: ++++++++ → ++++++++ (changed)",
                "db: auth.user: app → app2",
            ]
        );
        let groups = preview_groups(vec![("c1".into(), changes)]);
        let shown = format!("{groups:?}");
        for secret in ["hunter2", "hunter3", "k-123"] {
            assert!(!shown.contains(secret), "{shown}");
        }
    }
}
