//! Where a cluster stands in the rollout of its template's newest
//! revision, while that rollout still moves: the revision it is on, the
//! one it is to get, its wave and why it waits (`1→2 ⏸ wave 2`). Pure: the
//! clusters screen, a cluster's screen, the templates' usage counts and the
//! key from a cluster to its rollout all read it.

use std::collections::HashMap;

use kube::ResourceExt;

use crate::api::{
    ClusterRolloutState, ManagedCluster, RolloutPhase, RolloutSubject, TemplateRollout,
};
use crate::tui::model::health::Health;
use crate::tui::model::key::{Kind, KubeContext, Obj, ObjKey};

/// How a cluster waits for, or takes, a revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Its wave is being applied to it.
    Updating,
    /// It was given the revision and did not become healthy.
    Failed,
    /// Its wave has not started, and will not before someone acts: the
    /// rollout is paused, waits for an approval, or failed.
    Held,
    /// Its wave has not started; it will when the waves before it are done.
    Queued,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Updating => "↻",
            Mark::Failed => "✗",
            Mark::Held => "⏸",
            Mark::Queued => "⋯",
        }
    }
}

/// A revision a cluster is to get, or is getting, from a rollout that
/// still moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingRevision {
    /// The revision the cluster is given now, if known.
    pub from: Option<i64>,
    /// The revision the rollout brings.
    pub to: i64,
    pub wave: u32,
    pub mark: Mark,
    /// The rollout (same namespace as the cluster).
    pub rollout: String,
    pub phase: RolloutPhase,
    /// The rollout's one line on this cluster.
    pub reason: Option<String>,
}

impl PendingRevision {
    /// `1→2 ⏸ wave 2`.
    pub fn label(&self) -> String {
        let from = self.from.map_or_else(|| "-".to_string(), |r| r.to_string());
        format!(
            "{from}→{} {} wave {}",
            self.to,
            self.mark.symbol(),
            self.wave
        )
    }

    pub fn health(&self) -> Health {
        match self.mark {
            Mark::Updating => Health::Progressing,
            Mark::Failed => Health::Failed,
            Mark::Held | Mark::Queued => Health::Pending,
        }
    }

    /// Whether the cluster has yet to be given the revision.
    pub fn waits(&self) -> bool {
        matches!(self.mark, Mark::Held | Mark::Queued)
    }
}

/// The newest rollout of each template, when it still moves (a
/// MultiClusterService's rollouts move no template revision).
fn moving(rollouts: &[Obj<TemplateRollout>]) -> Vec<&Obj<TemplateRollout>> {
    let mut newest: HashMap<(&KubeContext, String, &str), &Obj<TemplateRollout>> = HashMap::new();
    for r in rollouts
        .iter()
        .filter(|r| matches!(r.spec.subject(), RolloutSubject::Template(_)))
    {
        let key = (
            &r.context,
            r.namespace().unwrap_or_default(),
            r.spec.template.as_str(),
        );
        match newest.get(&key) {
            Some(seen) if seen.spec.revision >= r.spec.revision => {}
            _ => {
                newest.insert(key, r);
            }
        }
    }
    newest
        .into_values()
        .filter(|r| r.status.as_ref().is_some_and(|s| !s.phase.is_terminal()))
        .collect()
}

/// The pending revision of every cluster that a moving rollout of its
/// template has not settled yet, by the cluster's key.
pub fn pending_revisions(
    clusters: &[Obj<ManagedCluster>],
    rollouts: &[Obj<TemplateRollout>],
) -> HashMap<ObjKey, PendingRevision> {
    let mut out = HashMap::new();
    let moving = moving(rollouts);
    if moving.is_empty() {
        return out;
    }
    let by_key: HashMap<(&KubeContext, &str, &str), &ManagedCluster> = clusters
        .iter()
        .filter_map(|mc| {
            let ns = mc.metadata.namespace.as_deref()?;
            let name = mc.metadata.name.as_deref()?;
            Some(((&mc.context, ns, name), mc.as_ref()))
        })
        .collect();
    for r in moving {
        let Some(status) = r.status.as_ref() else {
            continue;
        };
        let ns = r.metadata.namespace.as_deref().unwrap_or_default();
        let held = matches!(
            status.phase,
            RolloutPhase::Paused | RolloutPhase::WaitingForApproval | RolloutPhase::Failed
        );
        for c in &status.clusters {
            let mark = match c.state {
                ClusterRolloutState::Updating => Mark::Updating,
                ClusterRolloutState::Failed => Mark::Failed,
                ClusterRolloutState::Waiting if held => Mark::Held,
                ClusterRolloutState::Waiting => Mark::Queued,
                ClusterRolloutState::Updated
                | ClusterRolloutState::Skipped
                | ClusterRolloutState::RolledBack => continue,
            };
            let Some(mc) = by_key.get(&(&r.context, ns, c.name.as_str())) else {
                continue;
            };
            if r.spec.subject() != RolloutSubject::Template(&mc.spec.template) {
                continue;
            }
            let given = mc.status.as_ref().and_then(|s| s.target_revision);
            out.insert(
                ObjKey::new(&r.context, Kind::ManagedCluster, ns, &c.name),
                PendingRevision {
                    from: if mark == Mark::Updating || mark == Mark::Failed {
                        c.from_revision.or(given)
                    } else {
                        given.or(c.from_revision)
                    },
                    to: r.spec.revision,
                    wave: c.wave,
                    mark,
                    rollout: r.name_any(),
                    phase: status.phase,
                    reason: c.reason.clone(),
                },
            );
        }
    }
    out
}

/// The rollout a cluster's key leads to: the one that moves it, else the
/// newest of its template that lists it.
pub fn rollout_of(
    cluster: &Obj<ManagedCluster>,
    pending: Option<&PendingRevision>,
    rollouts: &[Obj<TemplateRollout>],
) -> Option<ObjKey> {
    let ns = cluster.namespace().unwrap_or_default();
    let name = match pending {
        Some(p) => p.rollout.clone(),
        None => rollouts
            .iter()
            .filter(|r| {
                r.context == cluster.context
                    && r.namespace().as_deref() == Some(ns.as_str())
                    && r.spec.subject() == RolloutSubject::Template(&cluster.spec.template)
                    && r.status
                        .as_ref()
                        .is_some_and(|s| s.cluster(&cluster.name_any()).is_some())
            })
            .max_by_key(|r| r.spec.revision)?
            .name_any(),
    };
    Some(ObjKey::new(
        &cluster.context,
        Kind::TemplateRollout,
        &ns,
        &name,
    ))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::{ClusterRolloutStatus, ManagedClusterStatus, TemplateRolloutStatus};
    use crate::tui::fixtures::rolling::{rolling, rolling_rollout};

    fn key(name: &str) -> ObjKey {
        ObjKey {
            context: Default::default(),
            kind: Kind::ManagedCluster,
            namespace: "demo".into(),
            name: name.into(),
        }
    }

    #[test]
    fn a_cluster_waiting_for_approval_is_held_at_its_revision() {
        let data = rolling();
        let pending = pending_revisions(&data.clusters, &data.rollouts);
        // dev-1 is updated: nothing pending.
        assert_eq!(pending.get(&key("dev-1")), None);
        let dev2 = pending.get(&key("dev-2")).unwrap();
        assert_eq!(dev2.label(), "1→2 ⏸ wave 2");
        assert!(dev2.waits());
        assert_eq!(dev2.rollout, "demo-cluster-2");
        assert_eq!(dev2.health(), Health::Pending);
    }

    #[test]
    fn marks_follow_the_cluster_and_the_phase() {
        let mut r = rolling_rollout(RolloutPhase::Progressing);
        let status = r.status.as_mut().unwrap();
        status.clusters[0].state = ClusterRolloutState::Updating;
        let data = rolling();
        let pending = |r: &TemplateRollout| {
            pending_revisions(
                &data.clusters,
                &[Obj::new(&KubeContext::default(), Arc::new(r.clone()))],
            )
        };
        let now = pending(&r);
        assert_eq!(now[&key("dev-1")].label(), "1→2 ↻ wave 1");
        assert_eq!(now[&key("dev-2")].label(), "1→2 ⋯ wave 2");
        let status = r.status.as_mut().unwrap();
        status.clusters[0].state = ClusterRolloutState::Failed;
        status.phase = RolloutPhase::Failed;
        let now = pending(&r);
        assert_eq!(now[&key("dev-1")].label(), "1→2 ✗ wave 1");
        assert_eq!(now[&key("dev-2")].label(), "1→2 ⏸ wave 2");
        // Done: nothing pending.
        r.status.as_mut().unwrap().phase = RolloutPhase::Aborted;
        assert!(pending(&r).is_empty());
    }

    #[test]
    fn only_the_newest_rollout_of_a_template_counts() {
        let data = rolling();
        let mut newer = rolling_rollout(RolloutPhase::Succeeded);
        newer.metadata.name = Some("demo-cluster-3".into());
        newer.spec.revision = 3;
        newer.status = Some(TemplateRolloutStatus {
            phase: RolloutPhase::Succeeded,
            clusters: vec![ClusterRolloutStatus {
                name: "dev-2".into(),
                wave: 1,
                state: ClusterRolloutState::Updated,
                ..Default::default()
            }],
            ..Default::default()
        });
        let mut rollouts = data.rollouts.clone();
        rollouts.push(Obj::new(&KubeContext::default(), Arc::new(newer)));
        assert!(pending_revisions(&data.clusters, &rollouts).is_empty());
        // The key leads to the newest rollout that lists the cluster.
        let dev2 = data
            .cluster(&KubeContext::default(), "demo", "dev-2")
            .unwrap();
        assert_eq!(
            rollout_of(dev2, None, &rollouts).map(|k| k.name),
            Some("demo-cluster-3".into())
        );
        // A cluster of another template is left alone.
        let mut other = ManagedCluster::clone(dev2);
        other.spec.template = "other".into();
        other.status = Some(ManagedClusterStatus::default());
        let clusters = vec![Obj::new(&KubeContext::default(), Arc::new(other))];
        assert!(pending_revisions(&clusters, &data.rollouts).is_empty());
        assert_eq!(rollout_of(&clusters[0], None, &data.rollouts), None);
    }
}
