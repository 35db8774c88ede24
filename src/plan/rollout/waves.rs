//! The clusters a rollout reaches, waves from a policy, and a fresh
//! rollout's status.

use std::collections::BTreeMap;

use kube::ResourceExt;

use super::fields::PolicyError;
use super::policy::check_policy;
use super::steps::summarize;
use crate::api::{
    ClusterRolloutState, ClusterRolloutStatus, ManagedCluster, RolloutPolicy, TemplateRolloutSpec,
    TemplateRolloutStatus, WaveStatus,
};

/// A cluster that a rollout may reach.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    /// The revision it is given now.
    pub revision: Option<i64>,
}

/// The clusters a rollout of `revision` reaches, of `clusters` (those made
/// from its template): the ones given a revision already, other than
/// `revision`, and not being deleted. A cluster given none yet gets the
/// newest when its services can first reach it. `revision` is `None` for a
/// revision not made yet (a proposed change), which no cluster has.
pub fn candidates<'a>(
    clusters: impl IntoIterator<Item = &'a ManagedCluster>,
    revision: Option<i64>,
) -> Vec<Candidate> {
    candidates_given(
        clusters
            .into_iter()
            .map(|c| (c, c.status.as_ref().and_then(|s| s.target_revision))),
        revision,
    )
}

/// [`candidates`], of clusters each with the revision it is given now (of
/// a template's services, or of a MultiClusterService's).
pub fn candidates_given<'a>(
    clusters: impl IntoIterator<Item = (&'a ManagedCluster, Option<i64>)>,
    revision: Option<i64>,
) -> Vec<Candidate> {
    clusters
        .into_iter()
        .filter(|(c, _)| c.metadata.deletion_timestamp.is_none())
        .filter_map(|(c, given)| {
            let given = given?;
            (Some(given) != revision).then(|| Candidate {
                name: c.name_any(),
                labels: c.labels().clone(),
                revision: Some(given),
            })
        })
        .collect()
}

/// A wave as planned: its clusters, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedWave {
    pub group: Option<String>,
    pub clusters: Vec<String>,
}

/// Splits the clusters into waves. Clusters are ordered by the `order`
/// label's value (clusters without it last), then by name; with `order`, a
/// wave never mixes two values. A canary takes the first clusters in a wave
/// of its own. No wave is larger than `maxConcurrent`. A policy that breaks
/// its rules plans nothing.
pub fn plan_waves<'c>(
    candidates: &'c [Candidate],
    policy: &RolloutPolicy,
) -> Result<Vec<PlannedWave>, PolicyError> {
    let limits = check_policy(policy)?;
    let limit = limits.max_concurrent.of(candidates.len());
    let order = policy.order.as_ref();
    let key = |c: &'c Candidate| order.and_then(|k| c.labels.get(k)).map(String::as_str);
    let mut sorted: Vec<&Candidate> = candidates.iter().collect();
    sorted.sort_by(|a, b| {
        let (ka, kb) = (key(a), key(b));
        // Some before None, then by value, then by name.
        (ka.is_none(), ka, &a.name).cmp(&(kb.is_none(), kb, &b.name))
    });
    let mut waves = Vec::new();
    let mut rest = &sorted[..];
    if limits.canary > 0 {
        let n = limits.canary.min(limit).min(rest.len());
        if n > 0 {
            waves.push(PlannedWave {
                group: None,
                clusters: rest[..n].iter().map(|c| c.name.clone()).collect(),
            });
            rest = &rest[n..];
        }
    }
    let mut groups: Vec<(Option<&str>, Vec<&Candidate>)> = Vec::new();
    for c in rest {
        let k = key(c);
        match groups.last_mut() {
            Some((g, members)) if *g == k => members.push(c),
            _ => groups.push((k, vec![c])),
        }
    }
    for (group, members) in groups {
        for chunk in members.chunks(limit) {
            waves.push(PlannedWave {
                group: policy.order.as_ref().and(group.map(String::from)),
                clusters: chunk.iter().map(|c| c.name.clone()).collect(),
            });
        }
    }
    Ok(waves)
}

/// A fresh rollout's status: every cluster waiting in its wave.
pub fn plan(
    spec: &TemplateRolloutSpec,
    candidates: &[Candidate],
) -> Result<TemplateRolloutStatus, PolicyError> {
    let waves = plan_waves(candidates, &spec.policy)?;
    let from: BTreeMap<&str, Option<i64>> = candidates
        .iter()
        .map(|c| (c.name.as_str(), c.revision))
        .collect();
    let mut status = TemplateRolloutStatus {
        waves: waves
            .iter()
            .enumerate()
            .map(|(i, w)| WaveStatus {
                number: i as u32 + 1,
                group: w.group.clone(),
                ..Default::default()
            })
            .collect(),
        clusters: waves
            .iter()
            .enumerate()
            .flat_map(|(i, w)| w.clusters.iter().map(move |c| (i, c)))
            .map(|(i, c)| ClusterRolloutStatus {
                name: c.clone(),
                wave: i as u32 + 1,
                state: ClusterRolloutState::Waiting,
                from_revision: from.get(c.as_str()).copied().flatten(),
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    };
    summarize(spec, &mut status);
    Ok(status)
}
