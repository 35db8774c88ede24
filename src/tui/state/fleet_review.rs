//! The fleet's part of a save's review: what the save does to every cluster
//! it reaches, from the planner the CLI's `diff` uses ([`impact_checked`]),
//! grouped; walked with the list keys (`enter` opens a group, then a
//! cluster's merged-values diff; `backspace` goes back). A save that would
//! block clusters needs a second `y`.

use kube::ResourceExt;

use crate::api::{ClusterTemplate, ManagedCluster};
use crate::plan::chart::ChartValues;
use crate::plan::chart_check::first_schema_error;
use crate::plan::impact::{Fleet, Group, Outcome, ServiceImpact, impact_checked, summarize};
use crate::tui::keys::Action;
use crate::tui::model::key::{KubeContext, Obj};
use crate::tui::model::snapshot::Snapshot;

/// Where the review's fleet part is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// The groups; the cursor on one.
    Groups { cursor: usize },
    /// One group's clusters; the cursor on one.
    Group { group: usize, cursor: usize },
    /// One cluster's merged-values diff.
    Cluster { group: usize, cluster: usize },
}

/// What a save does to the fleet, and where the review is in it.
#[derive(Clone, Debug, PartialEq)]
pub struct FleetReview {
    /// Clusters the save reaches.
    pub clusters: usize,
    pub groups: Vec<Group>,
    pub impacts: Vec<ServiceImpact>,
    /// Clusters the save leaves with a blocked service.
    pub blocked: usize,
    pub place: Place,
    /// `y` was pressed once on a save that blocks clusters: the next `y`
    /// applies.
    pub confirming: bool,
}

/// The live fleet of `namespace` in `context`, as the planner takes it.
fn fleet(data: &Snapshot, context: &KubeContext, namespace: &str) -> Fleet {
    fn ours<K: ResourceExt + Clone>(
        list: &[Obj<K>],
        context: &KubeContext,
        namespace: &str,
    ) -> Vec<K> {
        list.iter()
            .filter(|o| o.context == *context && o.namespace().as_deref() == Some(namespace))
            .map(|o| (**o).clone())
            .collect()
    }
    Fleet {
        cluster_templates: ours(&data.cluster_templates, context, namespace),
        service_templates: ours(&data.service_templates, context, namespace),
        clusters: ours(&data.clusters, context, namespace),
        capi_clusters: ours(&data.capi_clusters, context, namespace),
        multi_cluster_services: ours(&data.multi_cluster_services, context, namespace),
    }
}

/// The proposed object: a ClusterTemplate or a ManagedCluster as the save
/// would leave it.
pub enum Proposed {
    Template(Box<ClusterTemplate>),
    Cluster(Box<ManagedCluster>),
}

impl FleetReview {
    /// The impact of `proposed` on the fleet of its namespace in `data`,
    /// in `context`.
    /// `chart` is the edited service's chart, when the editor has read it:
    /// values that service would get are checked against its schema.
    /// `None` when the save reaches no cluster, or when a cluster's own
    /// edit blocks nothing (its review shows its diff already).
    pub fn of(
        data: &Snapshot,
        context: &KubeContext,
        proposed: Proposed,
        service_template: Option<&str>,
        chart: Option<&ChartValues>,
    ) -> Option<FleetReview> {
        let own_edit = matches!(proposed, Proposed::Cluster(_));
        let (namespace, proposal) = match proposed {
            Proposed::Template(t) => (
                t.namespace().unwrap_or_default(),
                Fleet {
                    cluster_templates: vec![*t],
                    ..Default::default()
                },
            ),
            Proposed::Cluster(c) => (
                c.namespace().unwrap_or_default(),
                Fleet {
                    clusters: vec![*c],
                    ..Default::default()
                },
            ),
        };
        let check = |_: &str, template: &str, values: &serde_json::Value| {
            let chart = chart.filter(|_| Some(template) == service_template)?;
            first_schema_error(chart, values)
        };
        let impacts = impact_checked(&fleet(data, context, &namespace), &proposal, &check);
        if impacts.is_empty() {
            return None;
        }
        let groups = summarize(&impacts);
        let mut reached: Vec<(&str, &str)> = impacts
            .iter()
            .map(|i| (i.namespace.as_str(), i.cluster.as_str()))
            .collect();
        reached.sort();
        reached.dedup();
        let mut blocked: Vec<(&str, &str)> = impacts
            .iter()
            .filter(|i| matches!(i.outcome, Outcome::Blocked { .. }))
            .map(|i| (i.namespace.as_str(), i.cluster.as_str()))
            .collect();
        blocked.sort();
        blocked.dedup();
        // A cluster's own edit has its diff above; only a block is news.
        if own_edit && blocked.is_empty() {
            return None;
        }
        Some(FleetReview {
            clusters: reached.len(),
            blocked: blocked.len(),
            groups,
            impacts,
            place: Place::Groups { cursor: 0 },
            confirming: false,
        })
    }

    /// Moves through the groups and clusters; whether `action` was one of
    /// the review's moves.
    pub fn on(&mut self, action: Action) -> bool {
        let len = |g: usize| self.groups.get(g).map_or(0, |g| g.clusters.len());
        let step = |cursor: usize, n: usize, up: bool| {
            if up {
                cursor.saturating_sub(1)
            } else {
                (cursor + 1).min(n.saturating_sub(1))
            }
        };
        self.place = match (self.place, action) {
            (Place::Groups { cursor }, Action::Up | Action::Down) => Place::Groups {
                cursor: step(cursor, self.groups.len(), action == Action::Up),
            },
            (Place::Groups { cursor }, Action::Open) if cursor < self.groups.len() => {
                Place::Group {
                    group: cursor,
                    cursor: 0,
                }
            }
            (Place::Group { group, cursor }, Action::Up | Action::Down) => Place::Group {
                group,
                cursor: step(cursor, len(group), action == Action::Up),
            },
            (Place::Group { group, cursor }, Action::Open) if cursor < len(group) => {
                Place::Cluster {
                    group,
                    cluster: cursor,
                }
            }
            (Place::Group { group, .. }, Action::Back) => Place::Groups { cursor: group },
            (Place::Cluster { group, cluster }, Action::Back) => Place::Group {
                group,
                cursor: cluster,
            },
            _ => return false,
        };
        true
    }

    /// The lines of one cluster's part of a group: `path: old → new` for a
    /// change, the paths its own values keep, or why it is blocked; its wave
    /// last.
    pub fn cluster_lines(&self, group: usize, cluster: usize) -> Vec<String> {
        let Some(g) = self.groups.get(group) else {
            return Vec::new();
        };
        let Some(name) = g.clusters.get(cluster) else {
            return Vec::new();
        };
        let Some(found) = self
            .impacts
            .iter()
            .find(|i| i.service == g.service && format!("{}/{}", i.namespace, i.cluster) == *name)
        else {
            return Vec::new();
        };
        let mut lines: Vec<String> = match &found.outcome {
            Outcome::Changes { changes, chart } => chart
                .iter()
                .map(|(old, new)| format!("chart {old} → {new}"))
                .chain(changes.iter().map(ToString::to_string))
                .collect(),
            Outcome::Overridden { paths } => paths
                .iter()
                .map(|p| format!("{p}: its own value stays"))
                .collect(),
            Outcome::Installed => vec!["newly installed".into()],
            Outcome::Removed => vec!["removed".into()],
            Outcome::Blocked { why } => vec![format!("blocked: {why}")],
        };
        if let Some(w) = found.wave {
            lines.push(format!("reaches it in {}", w.words()));
        }
        lines
    }
}

#[cfg(test)]
mod tests;
