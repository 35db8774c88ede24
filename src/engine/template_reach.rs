//! Which clusters a change to their ClusterTemplate concerns.
//!
//! A cluster reads from its template the chart of the cluster itself, the
//! template's readiness and the services of the revision it is given (see
//! `clusters::given`). A new revision of the services changes none of that
//! for a cluster that has a revision the template still remembers: only a
//! rollout moves it, and the rollout's own trigger says when. Looking at
//! every cluster of a template on each new revision cost 10,000 reconciles
//! that changed nothing, at the start of every rollout of a large fleet.
//!
//! So each version of a template is compared with the last one seen:
//! - what every cluster reads changed (or the template is new or gone):
//!   all its clusters;
//! - only its revisions changed: the clusters that have no revision yet, or
//!   one the template no longer remembers;
//! - anything else (summaries, the rollout policy): none.

use std::collections::{BTreeSet, HashMap};

use kube::ResourceExt;

use super::context::hash_of;
use crate::api::ClusterTemplate;

/// The clusters of a template that a change concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    All,
    /// Those with no revision, or one not among these.
    Unrevisioned {
        remembered: BTreeSet<i64>,
    },
    None,
}

impl Reach {
    /// Whether a cluster given `target` (its `status.targetRevision`) is
    /// reached.
    pub fn reaches(&self, target: Option<i64>) -> bool {
        match self {
            Reach::All => true,
            Reach::Unrevisioned { remembered } => target.is_none_or(|r| !remembered.contains(&r)),
            Reach::None => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Seen {
    /// What every cluster reads.
    read: u64,
    /// The revisions: the newest, those remembered, the services' hashes.
    revisions: u64,
}

/// The last version seen of each template, by namespace and name.
#[derive(Debug, Default)]
pub struct TemplateReach {
    seen: HashMap<(String, String), Seen>,
}

/// A template's namespace and name.
fn key(ct: &ClusterTemplate) -> (String, String) {
    (ct.namespace().unwrap_or_default(), ct.name_any())
}

fn seen(ct: &ClusterTemplate) -> Seen {
    let mut spec = ct.spec.clone();
    // Read per revision (services), or by the rollout controller only.
    spec.services.clear();
    spec.rollout = None;
    let status = ct.status.clone().unwrap_or_default();
    let mut chart = status.chart;
    // Bumped by every edit of the spec, services included.
    chart.observed_generation = None;
    // These types always serialize; 0 stands for one that did not.
    let read = hash_of(&(
        ct.uid(),
        ct.metadata.deletion_timestamp.is_some(),
        &ct.metadata.finalizers,
        spec,
        chart,
    ))
    .unwrap_or_default();
    let numbers: Vec<i64> = status.revisions.iter().map(|r| r.revision).collect();
    let revisions = hash_of(&(
        status.revision,
        numbers,
        &status.services_hash,
        &ct.spec.services,
    ))
    .unwrap_or_default();
    Seen { read, revisions }
}

impl TemplateReach {
    /// Starts from the versions of `templates`, what the store holds when
    /// the listener starts. A listener made after the store's first list
    /// hears nothing of it: without these, the first change of each
    /// template after a restart counted as the template being new, and
    /// reached all its clusters (1,000 reconciles that changed nothing at
    /// the start of the first rollout of a 1,000-cluster fleet). What a
    /// version applied meanwhile changed is not lost: the cluster
    /// controller starts with a look at every cluster, from the store.
    pub fn starting_from<'a>(templates: impl IntoIterator<Item = &'a ClusterTemplate>) -> Self {
        let seen = templates
            .into_iter()
            .map(|ct| (key(ct), seen(ct)))
            .collect();
        Self { seen }
    }

    /// Which clusters of `ct` this version concerns; `present` is false when
    /// the store no longer holds it (it was deleted).
    pub fn reach(&mut self, ct: &ClusterTemplate, present: bool) -> Reach {
        let key = key(ct);
        if !present {
            self.seen.remove(&key);
            return Reach::All;
        }
        let now = seen(ct);
        match self.seen.insert(key, now) {
            Some(before) if before.read != now.read => Reach::All,
            Some(before) if before.revisions != now.revisions => Reach::Unrevisioned {
                remembered: ct
                    .status
                    .iter()
                    .flat_map(|s| s.revisions.iter().map(|r| r.revision))
                    .collect(),
            },
            Some(_) => Reach::None,
            None => Reach::All,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ClusterTemplateStatus, ServicesRevision, TemplateService};

    fn template() -> ClusterTemplate {
        let mut ct = ClusterTemplate::new("fleet", Default::default());
        ct.metadata.namespace = Some("ns".into());
        ct.metadata.uid = Some("u1".into());
        ct.status = Some(ClusterTemplateStatus {
            revision: Some(1),
            revisions: vec![ServicesRevision {
                revision: 1,
                services: vec![],
            }],
            ..Default::default()
        });
        ct.status.as_mut().unwrap().chart.valid = true;
        ct
    }

    fn with_revision_2(mut ct: ClusterTemplate) -> ClusterTemplate {
        ct.spec.services.push(TemplateService {
            name: "ingress-nginx".into(),
            template: "ingress-nginx-4-11-4".into(),
            ..Default::default()
        });
        let st = ct.status.as_mut().unwrap();
        st.revision = Some(2);
        st.chart.observed_generation = Some(2);
        st.revisions.push(ServicesRevision {
            revision: 2,
            services: ct.spec.services.clone(),
        });
        ct
    }

    #[test]
    fn a_new_revision_reaches_only_clusters_without_one_it_remembers() {
        let mut reach = TemplateReach::default();
        let ct = template();
        assert_eq!(reach.reach(&ct, true), Reach::All, "first seen");
        assert_eq!(reach.reach(&ct, true), Reach::None, "the same again");
        let r = reach.reach(&with_revision_2(ct), true);
        assert!(!r.reaches(Some(1)), "kept until a rollout moves it");
        assert!(
            r.reaches(None),
            "a cluster with no revision gets the newest"
        );
        assert!(r.reaches(Some(7)), "one the template forgot");
    }

    #[test]
    fn a_template_held_before_the_listener_started_is_not_new_to_it() {
        let ct = template();
        let mut reach = TemplateReach::starting_from([&ct]);
        assert_eq!(reach.reach(&ct, true), Reach::None, "the same version");
        let r = reach.reach(&with_revision_2(ct), true);
        assert!(!r.reaches(Some(1)), "its first revision after a restart");
        assert!(r.reaches(None));
        let mut other = template();
        other.metadata.name = Some("other".into());
        assert_eq!(reach.reach(&other, true), Reach::All, "a new template");
    }

    #[test]
    fn what_every_cluster_reads_reaches_them_all() {
        let mut reach = TemplateReach::default();
        let ct = template();
        reach.reach(&ct, true);
        let mut invalid = ct.clone();
        let chart = &mut invalid.status.as_mut().unwrap().chart;
        chart.valid = false;
        chart.validation_error = Some("chart not found".into());
        assert_eq!(reach.reach(&invalid, true), Reach::All);
        let mut chart_changed = invalid.clone();
        chart_changed.spec.helm.chart_version = Some("0.2.0".into());
        assert_eq!(reach.reach(&chart_changed, true), Reach::All);
        let mut deleting = chart_changed.clone();
        deleting.metadata.deletion_timestamp =
            Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::now(),
            ));
        assert_eq!(reach.reach(&deleting, true), Reach::All);
        assert_eq!(reach.reach(&deleting, false), Reach::All, "gone");
        assert_eq!(reach.reach(&deleting, true), Reach::All, "then seen anew");
    }

    #[test]
    fn summaries_and_the_rollout_policy_reach_none() {
        let mut reach = TemplateReach::default();
        let ct = template();
        reach.reach(&ct, true);
        let mut summary = ct.clone();
        summary.status.as_mut().unwrap().services_summary = Some("ingress-nginx".into());
        summary.spec.rollout = Some(Default::default());
        assert_eq!(reach.reach(&summary, true), Reach::None);
    }
}
