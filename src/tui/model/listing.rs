//! The long lists, worked out once per snapshot, filter and order: the
//! clusters screen's rows and the rollout board's lines, as indices into
//! the snapshot, with the widest text of each column. A frame then makes
//! only the rows on screen, and a key press counts rows without walking
//! them; the state keeps these until the data, the filter or the order
//! changes.

use std::sync::Mutex;

use k8s_openapi::jiff::Timestamp;

use crate::api::TemplateRolloutStatus;
use crate::tui::model::age::age_width;
use crate::tui::model::key::ObjKey;
use crate::tui::model::rollouts::{BoardLine, board_lines, cluster_revision};
use crate::tui::model::rows::{ClusterTexts, indexed_cluster_rows};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::sort::{self, Sort};

/// How many columns a text takes, as the tables count them.
pub fn text_width(s: &str) -> u16 {
    s.chars().count().min(usize::from(u16::MAX)) as u16
}

/// The widest age of a list, worked out again only when the time moves on
/// (the ticks, once a second).
#[derive(Debug, Default)]
pub struct AgeWidths {
    /// The rows' times, in seconds.
    times: Vec<Option<Timestamp>>,
    /// The last answer, and the second it was for.
    last: Mutex<Option<(i64, u16)>>,
}

impl AgeWidths {
    fn new(times: Vec<Option<Timestamp>>) -> AgeWidths {
        AgeWidths {
            times,
            last: Mutex::new(None),
        }
    }

    /// The widest age of the rows at `now`.
    pub fn widest(&self, now: Timestamp) -> u16 {
        let second = now.as_second();
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        match *last {
            Some((at, w)) if at == second => w,
            _ => {
                let w = self
                    .times
                    .iter()
                    .map(|t| age_width(now, *t))
                    .max()
                    .unwrap_or(0);
                *last = Some((second, w));
                w
            }
        }
    }
}

/// The widest text of each column of the clusters screen but AGE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClusterWidths {
    pub namespace: u16,
    pub name: u16,
    pub ready: u16,
    pub template: u16,
    pub revision: u16,
    pub services: u16,
    pub message: u16,
}

impl ClusterWidths {
    fn widen(&mut self, t: &ClusterTexts) {
        let w = |s: &str, to: &mut u16| *to = (*to).max(text_width(s));
        w(t.namespace, &mut self.namespace);
        w(t.name, &mut self.name);
        w(t.ready, &mut self.ready);
        w(t.template, &mut self.template);
        w(&t.revision, &mut self.revision);
        w(t.services, &mut self.services);
        w(t.message, &mut self.message);
    }
}

/// The clusters screen's rows after its filter, in its order.
#[derive(Debug, Default)]
pub struct ClusterListing {
    /// Indices into [`Snapshot::clusters`].
    pub rows: Vec<usize>,
    pub widest: ClusterWidths,
    /// The AGE column's widest.
    pub ages: AgeWidths,
}

impl ClusterListing {
    pub fn new(data: &Snapshot, filter: &str, order: Option<Sort>) -> ClusterListing {
        let rows = sort::clusters_by(indexed_cluster_rows(data, filter), order, |(_, mc)| mc);
        let mut widest = ClusterWidths::default();
        for (_, mc) in &rows {
            widest.widen(&ClusterTexts::of(data, mc));
        }
        let times = rows
            .iter()
            .map(|(_, mc)| mc.metadata.creation_timestamp.as_ref().map(|t| t.0))
            .collect();
        ClusterListing {
            rows: rows.into_iter().map(|(i, _)| i).collect(),
            widest,
            ages: AgeWidths::new(times),
        }
    }

    /// The row of the cluster `key` names, found without making ids.
    pub fn find(&self, data: &Snapshot, key: &ObjKey) -> Option<usize> {
        self.rows
            .iter()
            .position(|i| data.clusters.get(*i).is_some_and(|mc| key.names(mc)))
    }
}

/// The widest text of each column of the board's clusters but SINCE.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BoardWidths {
    pub name: u16,
    pub state: u16,
    pub revision: u16,
    pub reason: u16,
}

/// The board's waves section after its filter.
#[derive(Debug, Default)]
pub struct BoardListing {
    pub lines: Vec<BoardLine>,
    /// The line of each cluster, in the order the cursor walks them.
    pub clusters: Vec<usize>,
    pub widest: BoardWidths,
    /// The SINCE column's widest.
    pub since: AgeWidths,
}

impl BoardListing {
    /// The lines of the board of the rollout of `revision`.
    pub fn new(status: &TemplateRolloutStatus, revision: i64, filter: &str) -> BoardListing {
        let lines = board_lines(status, filter);
        let mut clusters = Vec::with_capacity(status.clusters.len());
        let mut widest = BoardWidths::default();
        let mut times = Vec::with_capacity(status.clusters.len());
        for (line, l) in lines.iter().enumerate() {
            let BoardLine::Cluster(i) = l else { continue };
            let c = &status.clusters[*i];
            clusters.push(line);
            let w = |s: &str, to: &mut u16| *to = (*to).max(text_width(s));
            w(&c.name, &mut widest.name);
            w(&c.state.to_string(), &mut widest.state);
            w(&cluster_revision(revision, c), &mut widest.revision);
            w(c.reason.as_deref().unwrap_or_default(), &mut widest.reason);
            times.push(c.since.as_ref().map(|t| t.0));
        }
        BoardListing {
            lines,
            clusters,
            widest,
            since: AgeWidths::new(times),
        }
    }

    /// The index into the status's clusters of the `n`th cluster the
    /// cursor walks.
    pub fn cluster(&self, n: usize) -> Option<usize> {
        match self.lines.get(*self.clusters.get(n)?)? {
            BoardLine::Cluster(i) => Some(*i),
            BoardLine::Wave { .. } => None,
        }
    }

    /// Which cluster (its place in the cursor's walk) is on `line`.
    pub fn cluster_on_line(&self, line: usize) -> Option<usize> {
        self.clusters.binary_search(&line).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::fleet::fleet;
    use crate::tui::model::rollouts::{board_rows, cluster_on_line, line_of_cluster};
    use crate::tui::model::rows::cluster_rows;
    use crate::tui::model::sort::SortBy;
    use kube::ResourceExt;

    #[test]
    fn the_clusters_agree_with_the_rows_and_their_widest_texts() {
        let data = fleet(200).snapshot();
        for (filter, order) in [
            ("", None),
            ("fail", None),
            ("!prod", Some(SortBy::Status)),
            ("", Some(SortBy::Age)),
        ] {
            let order = order.map(|by| Sort { by, reverse: true });
            let listing = ClusterListing::new(&data, filter, order);
            let rows = sort::clusters(cluster_rows(&data, filter), order);
            let names: Vec<String> = listing
                .rows
                .iter()
                .map(|i| data.clusters[*i].name_any())
                .collect();
            let expected: Vec<String> = rows.iter().map(|c| c.name_any()).collect();
            assert_eq!(names, expected, "/{filter}");
            let widest = |f: fn(&ClusterTexts) -> String| {
                rows.iter()
                    .map(|c| text_width(&f(&ClusterTexts::of(&data, c))))
                    .max()
                    .unwrap_or(0)
            };
            assert_eq!(listing.widest.message, widest(|t| t.message.into()));
            assert_eq!(listing.widest.revision, widest(|t| t.revision.clone()));
            assert_eq!(listing.widest.name, widest(|t| t.name.into()));
            if let Some(c) = rows.last() {
                assert_eq!(
                    listing.find(
                        &data,
                        &ObjKey::of(crate::tui::model::key::Kind::ManagedCluster, c)
                    ),
                    Some(rows.len() - 1)
                );
            }
        }
    }

    #[test]
    fn the_board_agrees_with_its_rows() {
        let data = fleet(300).snapshot();
        let rollout = &data.rollouts[0];
        let status = rollout.status.as_ref().unwrap();
        for filter in ["", "fail", "updat"] {
            let listing = BoardListing::new(status, rollout.spec.revision, filter);
            let rows = board_rows(status, filter);
            assert_eq!(listing.lines.len(), rows.len(), "/{filter}");
            let count = rows.iter().filter(|r| r.is_cluster()).count();
            assert_eq!(listing.clusters.len(), count);
            for n in [0, count / 2, count.saturating_sub(1)] {
                assert_eq!(
                    listing.clusters.get(n).copied(),
                    line_of_cluster(&rows, n),
                    "/{filter} cluster {n}"
                );
            }
            for line in 0..rows.len() {
                assert_eq!(listing.cluster_on_line(line), cluster_on_line(&rows, line));
            }
        }
    }

    #[test]
    fn the_widest_age_follows_the_time() {
        let now: Timestamp = "2026-06-01T00:00:00Z".parse().unwrap();
        let ago = |s: i64| Some(Timestamp::from_second(now.as_second() - s).unwrap());
        let ages = AgeWidths::new(vec![ago(5), ago(3000), None]);
        assert_eq!(ages.widest(now), 3);
        // 100 days on, the oldest reads `100d`.
        let later = Timestamp::from_second(now.as_second() + 100 * 86400).unwrap();
        assert_eq!(ages.widest(later), 4);
        assert_eq!(AgeWidths::default().widest(now), 0);
    }
}
