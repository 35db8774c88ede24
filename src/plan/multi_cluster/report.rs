//! What a MultiClusterService's status says, from the decisions on every
//! cluster of its namespace: which clusters it selects (a bounded list and
//! a count), whether its selector selects at all, and its conflicts.

use crate::api::conditions::{CLUSTERS_SELECTED, CONFLICT, Cond};
use crate::api::{MAX_LISTED_CLUSTERS, MatchingCluster, MultiClusterService};

use super::decide::{Selected, bounded_join};
use super::selector::Selector;

/// One cluster of the MultiClusterService's namespace, as the engine saw it.
#[derive(Clone, Copy, Debug)]
pub struct ClusterView<'s, 'a> {
    pub cluster: &'a str,
    /// [`services_for`](super::services_for) of the cluster.
    pub selected: &'s Selected<'a>,
    /// Every service the MultiClusterService gives it is Installed.
    pub deployed: bool,
}

/// The parts of a MultiClusterService's status the decisions give.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MultiReport {
    /// Those with a conflict first, then those it stopped on, then those
    /// where it lost a service, then the rest; by name within each; at
    /// most [`MAX_LISTED_CLUSTERS`].
    pub matching_clusters: Vec<MatchingCluster>,
    pub matching_count: u32,
    /// `ClustersSelected` and `Conflict`.
    pub conditions: Vec<Cond>,
}

/// The report of `mcs` over the clusters of its namespace.
pub fn multi_report(mcs: &MultiClusterService, clusters: &[ClusterView<'_, '_>]) -> MultiReport {
    let name = mcs.metadata.name.as_deref().unwrap_or_default();
    let mut matching: Vec<(u8, MatchingCluster)> = Vec::new();
    let mut conflicts: Vec<String> = Vec::new();
    for view in clusters {
        if !view.selected.selected_by.contains(&name) {
            continue;
        }
        let on = view.selected.for_multi(name);
        let (rank, reason, message) = if !on.conflicts.is_empty() {
            conflicts.extend(
                on.conflicts
                    .iter()
                    .map(|m| format!("{}: {m}", view.cluster)),
            );
            (0, Some("Conflict"), Some(bounded_join(&on.conflicts, "; ")))
        } else if on.stopped {
            let why =
                "it stops on conflict (stopOnConflict) and gives this cluster none of its services";
            let mut lost = on.lost.clone();
            lost.insert(0, why.to_string());
            (1, Some("Stopped"), Some(bounded_join(&lost, "; ")))
        } else if !on.lost.is_empty() {
            (2, Some("Lost"), Some(bounded_join(&on.lost, "; ")))
        } else {
            (3, None, None)
        };
        matching.push((
            rank,
            MatchingCluster {
                name: view.cluster.to_string(),
                deployed: view.deployed && rank == 3,
                reason: reason.map(String::from),
                message,
            },
        ));
    }
    matching.sort_by(|(ra, a), (rb, b)| ra.cmp(rb).then_with(|| a.name.cmp(&b.name)));
    let count = u32::try_from(matching.len()).unwrap_or(u32::MAX);
    let selected = match Selector::parse(&mcs.spec.cluster_selector) {
        Err(e) => Cond::new(CLUSTERS_SELECTED, false, "InvalidSelector", e.to_string()),
        Ok(s) if s.is_empty() => Cond::new(
            CLUSTERS_SELECTED,
            false,
            "EmptySelector",
            "clusterSelector is empty, so it selects no cluster; set matchLabels or matchExpressions",
        ),
        Ok(_) if count == 0 => Cond::new(
            CLUSTERS_SELECTED,
            false,
            "NoMatch",
            "no ManagedCluster of this namespace matches clusterSelector",
        ),
        Ok(_) => Cond::new(
            CLUSTERS_SELECTED,
            true,
            "Selected",
            match count {
                1 => "1 cluster matches".to_string(),
                n => format!("{n} clusters match"),
            },
        ),
    };
    let conflict = match conflicts.is_empty() {
        true => Cond::new(CONFLICT, false, "NoConflict", "no service is in conflict"),
        false => Cond::new(
            CONFLICT,
            true,
            "EqualPriority",
            bounded_join(&conflicts, "; "),
        ),
    };
    MultiReport {
        matching_clusters: matching
            .into_iter()
            .take(MAX_LISTED_CLUSTERS)
            .map(|(_, m)| m)
            .collect(),
        matching_count: count,
        conditions: vec![selected, conflict],
    }
}
