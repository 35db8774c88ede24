//! The order of a list screen's rows, as k9s's shift keys choose it: by
//! name, by age, or by the screen's status column; the same key again
//! reverses. Without a chosen sort, rows keep the snapshot's order
//! (namespace, then name).

use std::cmp::Ordering;
use std::collections::HashMap;

use k8s_openapi::jiff::Timestamp;
use kube::api::ObjectMeta;

use crate::api::{ManagedCluster, MultiClusterService, TemplateRollout};
use crate::tui::model::health::{Health, cluster_ready_ref};
use crate::tui::model::key::{Obj, ObjKey};
use crate::tui::model::multi_cluster_services::McsTexts;
use crate::tui::model::rollouts::{phase, phase_health};
use crate::tui::model::rows::TemplateRef;

/// What a list is sorted by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SortBy {
    Name,
    Age,
    /// The screen's status column: a cluster's readiness, a template's
    /// validity and use, a rollout's phase.
    Status,
}

/// A chosen order: what by, and whether reversed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub by: SortBy,
    /// Descending: names Z to A, oldest first, healthy first.
    pub reverse: bool,
}

impl Sort {
    /// The order after pressing `by`'s key: the same key again reverses,
    /// another starts ascending.
    pub fn pressed(current: Option<Sort>, by: SortBy) -> Sort {
        match current {
            Some(s) if s.by == by => Sort {
                by,
                reverse: !s.reverse,
            },
            _ => Sort { by, reverse: false },
        }
    }

    /// The arrow a column header carries: `↑` ascending, `↓` descending.
    pub fn arrow(self) -> char {
        if self.reverse { '↓' } else { '↑' }
    }

    /// How the sort is named in words: `age ↑`.
    pub fn label(self) -> String {
        let by = match self.by {
            SortBy::Name => "name",
            SortBy::Age => "age",
            SortBy::Status => "status",
        };
        format!("{by} {}", self.arrow())
    }
}

/// What a row is sorted on.
struct Keys {
    name: String,
    namespace: String,
    created: Option<Timestamp>,
    /// Worst first: the status's rank, then its words, then a count.
    status: (u8, String, usize),
}

/// Problems first, healthy last.
fn rank(health: Health) -> u8 {
    match health {
        Health::Failed => 0,
        Health::Progressing => 1,
        Health::Pending => 2,
        Health::Muted => 3,
        Health::Ready => 4,
    }
}

fn keys(meta: &ObjectMeta, status: (u8, String, usize)) -> Keys {
    Keys {
        name: meta.name.clone().unwrap_or_default(),
        namespace: meta.namespace.clone().unwrap_or_default(),
        created: meta.creation_timestamp.as_ref().map(|t| t.0),
        status,
    }
}

/// Sorts `rows`; ties always fall back to name and namespace, so the order
/// is stable whatever the data. Each row's keys are made once.
fn sort_by<T>(rows: &mut Vec<T>, sort: Option<Sort>, keys: impl Fn(&T) -> Keys) {
    let Some(sort) = sort else {
        return;
    };
    let by_name = |a: &Keys, b: &Keys| (&a.name, &a.namespace).cmp(&(&b.name, &b.namespace));
    let order = |a: &Keys, b: &Keys| -> Ordering {
        let first = match sort.by {
            SortBy::Name => Ordering::Equal,
            // Ascending age: the youngest first; no creation time last.
            SortBy::Age => match (a.created, b.created) {
                (Some(x), Some(y)) => y.cmp(&x),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
            SortBy::Status => a.status.cmp(&b.status),
        };
        first.then_with(|| by_name(a, b))
    };
    let mut keyed: Vec<(Keys, T)> = rows.drain(..).map(|r| (keys(&r), r)).collect();
    keyed.sort_by(|(a, _), (b, _)| {
        let o = order(a, b);
        if sort.reverse { o.reverse() } else { o }
    });
    rows.extend(keyed.into_iter().map(|(_, r)| r));
}

/// The clusters screen's rows in `sort`'s order; status is readiness.
pub fn clusters(rows: Vec<&Obj<ManagedCluster>>, sort: Option<Sort>) -> Vec<&Obj<ManagedCluster>> {
    clusters_by(rows, sort, |mc| mc)
}

/// Rows of clusters, whatever else they carry, in `sort`'s order.
pub fn clusters_by<T>(
    mut rows: Vec<T>,
    sort: Option<Sort>,
    cluster: impl Fn(&T) -> &ManagedCluster,
) -> Vec<T> {
    sort_by(&mut rows, sort, |row| {
        let mc = cluster(row);
        let (ready, health, _) = cluster_ready_ref(mc);
        keys(&mc.metadata, (rank(health), ready.to_string(), 0))
    });
    rows
}

/// The templates screen's rows in `sort`'s order; status is validity, then
/// how many clusters use the template.
pub fn templates<'a>(
    mut rows: Vec<TemplateRef<'a>>,
    sort: Option<Sort>,
    usage: &HashMap<ObjKey, usize>,
) -> Vec<TemplateRef<'a>> {
    sort_by(&mut rows, sort, |t| {
        let (valid, health) = t.valid();
        let used = usage.get(&t.key()).copied().unwrap_or(0);
        keys(t.meta(), (rank(health), valid, used))
    });
    rows
}

/// The rollouts screen's rows in `sort`'s order; status is the phase.
pub fn rollouts(
    mut rows: Vec<&Obj<TemplateRollout>>,
    sort: Option<Sort>,
) -> Vec<&Obj<TemplateRollout>> {
    sort_by(&mut rows, sort, |r| {
        let phase = phase(r);
        keys(
            &r.metadata,
            (rank(phase_health(phase)), phase.to_string(), 0),
        )
    });
    rows
}

/// The MultiClusterServices screen's rows in `sort`'s order; status is
/// what its conditions say (a conflict or a selector selecting nothing
/// first).
pub fn multi_cluster_services(
    mut rows: Vec<&Obj<MultiClusterService>>,
    sort: Option<Sort>,
) -> Vec<&Obj<MultiClusterService>> {
    sort_by(&mut rows, sort, |m| {
        let t = McsTexts::of(m);
        keys(&m.metadata, (rank(t.health), t.message, 0))
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::sample::sample;
    use crate::tui::model::rows::{cluster_rows, rollout_rows, template_rows};
    use kube::ResourceExt;

    fn sorted(by: SortBy, reverse: bool) -> Option<Sort> {
        Some(Sort { by, reverse })
    }

    fn cluster_names(sort: Option<Sort>) -> Vec<String> {
        let data = sample();
        clusters(cluster_rows(&data, ""), sort)
            .iter()
            .map(|c| c.name_any())
            .collect()
    }

    #[test]
    fn the_same_key_reverses_another_starts_ascending() {
        let name = Sort::pressed(None, SortBy::Name);
        assert_eq!(
            name,
            Sort {
                by: SortBy::Name,
                reverse: false
            }
        );
        let again = Sort::pressed(Some(name), SortBy::Name);
        assert!(again.reverse);
        assert_eq!(again.label(), "name ↓");
        assert!(!Sort::pressed(Some(again), SortBy::Name).reverse);
        let age = Sort::pressed(Some(again), SortBy::Age);
        assert_eq!(
            (age.by, age.reverse, age.arrow()),
            (SortBy::Age, false, '↑')
        );
    }

    #[test]
    fn clusters_by_name_age_and_readiness() {
        // The sample: prod-eu-1 (3 days, Ready), then two younger ones.
        let unsorted = cluster_names(None);
        let by_name = cluster_names(sorted(SortBy::Name, false));
        let mut expected = unsorted.clone();
        expected.sort();
        assert_eq!(by_name, expected);
        let mut reversed = expected.clone();
        reversed.reverse();
        assert_eq!(cluster_names(sorted(SortBy::Name, true)), reversed);

        let data = sample();
        let created = |names: &[String]| -> Vec<Timestamp> {
            names
                .iter()
                .map(|n| {
                    let c = data.clusters.iter().find(|c| c.name_any() == *n).unwrap();
                    c.metadata.creation_timestamp.as_ref().unwrap().0
                })
                .collect()
        };
        let young_first = created(&cluster_names(sorted(SortBy::Age, false)));
        assert!(
            young_first.windows(2).all(|w| w[0] >= w[1]),
            "{young_first:?}"
        );
        let old_first = created(&cluster_names(sorted(SortBy::Age, true)));
        assert!(old_first.windows(2).all(|w| w[0] <= w[1]), "{old_first:?}");

        // Problems first: the Ready cluster is last, and first reversed.
        let by_status = cluster_names(sorted(SortBy::Status, false));
        assert_eq!(by_status.last().map(String::as_str), Some("prod-eu-1"));
        let reversed = cluster_names(sorted(SortBy::Status, true));
        assert_eq!(reversed.first().map(String::as_str), Some("prod-eu-1"));
    }

    #[test]
    fn templates_by_validity_then_use() {
        let data = sample();
        let rows = templates(
            template_rows(&data, ""),
            sorted(SortBy::Status, false),
            &data.usage,
        );
        let valid: Vec<String> = rows.iter().map(|t| t.valid().0).collect();
        // Invalid before not yet checked before valid.
        let first_true = valid.iter().position(|v| v == "true").unwrap();
        assert!(valid[first_true..].iter().all(|v| v == "true"), "{valid:?}");
        assert!(valid[..first_true].iter().all(|v| v != "true"), "{valid:?}");
        let names: Vec<String> = templates(
            template_rows(&data, ""),
            sorted(SortBy::Name, false),
            &data.usage,
        )
        .iter()
        .map(|t| t.key().name)
        .collect();
        let mut expected = names.clone();
        expected.sort();
        assert_eq!(names, expected);
    }

    #[test]
    fn rollouts_by_phase_failed_first() {
        let data = sample();
        let rows = rollouts(rollout_rows(&data, ""), sorted(SortBy::Status, false));
        let ranks: Vec<u8> = rows.iter().map(|r| rank(phase_health(phase(r)))).collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
        let rows = rollouts(rollout_rows(&data, ""), sorted(SortBy::Status, true));
        let ranks: Vec<u8> = rows.iter().map(|r| rank(phase_health(phase(r)))).collect();
        assert!(ranks.windows(2).all(|w| w[0] >= w[1]), "{ranks:?}");
    }

    #[test]
    fn no_sort_keeps_the_snapshot_order() {
        let data = sample();
        let rows = cluster_rows(&data, "");
        let names: Vec<String> = rows.iter().map(|c| c.name_any()).collect();
        assert_eq!(cluster_names(None), names);
    }
}
