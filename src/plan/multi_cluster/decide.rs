//! The decision: per service name, the source of the highest priority, or
//! a conflict between equals.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::api::conditions::{CONFLICT, Cond};
use crate::api::{ManagedCluster, MultiClusterService, TemplateService};

use super::selector::selects;

/// Where a service of a cluster comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source<'a> {
    /// The cluster's own: its template's services and its own entries.
    Cluster,
    /// A MultiClusterService of the cluster's namespace, by name.
    Multi(&'a str),
}

impl fmt::Display for Source<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Cluster => f.write_str("this cluster's own"),
            Source::Multi(name) => write!(f, "MultiClusterService {name}"),
        }
    }
}

/// A source that names a service, with its priority.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contender<'a> {
    pub source: Source<'a>,
    pub priority: i32,
}

impl fmt::Display for Contender<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (priority {})", self.source, self.priority)
    }
}

/// Who gives a service to the cluster.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome<'a> {
    /// The cluster's own services: planned from its template and its entry.
    Own,
    /// A MultiClusterService, with its entry for the service.
    Multi {
        mcs: &'a str,
        entry: &'a TemplateService,
    },
    /// Sources of the same, highest, priority: none gives it.
    Conflict,
}

/// The decision on one service name.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision<'a> {
    pub name: &'a str,
    pub outcome: Outcome<'a>,
    /// Every source that names it, the highest priority first; between
    /// equals the cluster's own, then MultiClusterServices by name.
    pub contenders: Vec<Contender<'a>>,
}

impl<'a> Decision<'a> {
    /// The contenders of the top priority: one winner, or those in conflict.
    pub fn top(&self) -> &[Contender<'a>] {
        let Some(first) = self.contenders.first() else {
            return &[];
        };
        let n = self
            .contenders
            .iter()
            .take_while(|c| c.priority == first.priority)
            .count();
        &self.contenders[..n]
    }

    /// The source that gives it, unless in conflict.
    pub fn winner(&self) -> Option<Source<'a>> {
        match self.outcome {
            Outcome::Own => Some(Source::Cluster),
            Outcome::Multi { mcs, .. } => Some(Source::Multi(mcs)),
            Outcome::Conflict => None,
        }
    }

    /// What the cluster says about it: who won over whom, or who is in
    /// conflict; nothing when one source alone names it.
    pub fn message(&self) -> Option<String> {
        if self.contenders.len() < 2 {
            return None;
        }
        let top = self.top();
        if self.outcome == Outcome::Conflict {
            let who: Vec<String> = top.iter().map(|c| c.source.to_string()).collect();
            return Some(format!(
                "{} is in conflict: {} all have priority {}, so none installs it; give one a higher priority",
                self.name,
                and_list(&who),
                top[0].priority
            ));
        }
        let losers: Vec<String> = self.contenders[1..].iter().map(|c| c.to_string()).collect();
        Some(format!(
            "{} comes from {}, over {}",
            self.name,
            self.contenders[0],
            and_list(&losers)
        ))
    }
}

/// A MultiClusterService with `stopOnConflict` that gives the cluster
/// nothing, since it did not win every service it names there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped<'a> {
    pub mcs: &'a str,
    /// The services it lost or is in conflict on.
    pub because: Vec<&'a str>,
}

/// What a MultiClusterService comes to on one cluster.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MultiOnCluster<'a> {
    /// The services it gives the cluster.
    pub won: Vec<&'a str>,
    /// The services a higher priority gives, each with what the cluster says.
    pub lost: Vec<String>,
    /// The services in conflict, each with what the cluster says.
    pub conflicts: Vec<String>,
    /// It stopped on a conflict or a loss (`stopOnConflict`): it gives
    /// nothing here.
    pub stopped: bool,
}

/// Which source gives each service of one cluster.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selected<'a> {
    /// One per service name: the cluster's own names in their order, then
    /// those of MultiClusterServices by name, each in its order.
    pub decisions: Vec<Decision<'a>>,
    /// The MultiClusterServices that select the cluster, by name.
    pub selected_by: Vec<&'a str>,
    /// Those of them that stopped on a conflict here, by name.
    pub stopped: Vec<Stopped<'a>>,
}

impl<'a> Selected<'a> {
    /// The decision on `name`, if any source names it.
    pub fn decision(&self, name: &str) -> Option<&Decision<'a>> {
        self.decisions.iter().find(|d| d.name == name)
    }

    /// Whether the cluster's own service `name` is planned: no source names
    /// it but the cluster, or the cluster wins it.
    pub fn own_wins(&self, name: &str) -> bool {
        self.decision(name)
            .is_none_or(|d| matches!(d.outcome, Outcome::Own))
    }

    /// The services MultiClusterServices give, in decision order, each
    /// with the MultiClusterService and its entry.
    pub fn multi_services(&self) -> impl Iterator<Item = (&'a str, &'a TemplateService)> + '_ {
        self.decisions.iter().filter_map(|d| match d.outcome {
            Outcome::Multi { mcs, entry } => Some((mcs, entry)),
            _ => None,
        })
    }

    /// The services in conflict.
    pub fn conflicts(&self) -> impl Iterator<Item = &Decision<'a>> + '_ {
        self.decisions
            .iter()
            .filter(|d| d.outcome == Outcome::Conflict)
    }

    /// The cluster's `Conflict` condition: which services no source
    /// installs, and between whom.
    pub fn conflict_condition(&self) -> Cond {
        let messages: Vec<String> = self.conflicts().filter_map(Decision::message).collect();
        if messages.is_empty() {
            return Cond::new(CONFLICT, false, "NoConflict", "no service is in conflict");
        }
        Cond::new(
            CONFLICT,
            true,
            "EqualPriority",
            bounded_join(&messages, "; "),
        )
    }

    /// What `mcs` comes to on this cluster.
    pub fn for_multi(&self, mcs: &str) -> MultiOnCluster<'a> {
        let mut out = MultiOnCluster {
            stopped: self.stopped.iter().any(|s| s.mcs == mcs),
            ..Default::default()
        };
        for d in &self.decisions {
            let named = d.contenders.iter().any(|c| c.source == Source::Multi(mcs));
            if !named {
                continue;
            }
            match d.outcome {
                Outcome::Multi { mcs: m, .. } if m == mcs => out.won.push(d.name),
                Outcome::Conflict if d.top().iter().any(|c| c.source == Source::Multi(mcs)) => {
                    out.conflicts.extend(d.message())
                }
                _ => out.lost.extend(d.message()),
            }
        }
        out
    }
}

/// One source's share, as the decision reads it.
struct Offer<'a> {
    source: Source<'a>,
    priority: i32,
    stop_on_conflict: bool,
    /// Its entries by name, the first of a name only; `None` for the
    /// cluster's own, which the service planner plans.
    entries: Vec<(&'a str, Option<&'a TemplateService>)>,
}

/// Decides, per service name, which source gives it to `cluster`:
/// `own` are the names its own services give (as
/// [`enabled_services`](crate::plan::services::enabled_services) selects
/// them), `mcss` every MultiClusterService the engine knows. Those of
/// another namespace are left out, as are those whose selector is invalid
/// or empty or does not match the cluster's labels.
pub fn services_for<'a>(
    cluster: &'a ManagedCluster,
    own: &[&'a str],
    mcss: &[&'a MultiClusterService],
) -> Selected<'a> {
    let no_labels = BTreeMap::new();
    let labels = cluster.metadata.labels.as_ref().unwrap_or(&no_labels);
    let namespace = cluster.metadata.namespace.as_deref();
    let mut selecting: Vec<&MultiClusterService> = mcss
        .iter()
        .copied()
        .filter(|m| m.metadata.namespace.as_deref() == namespace)
        .filter(|m| selects(&m.spec.cluster_selector, labels).unwrap_or(false))
        .collect();
    selecting.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    selecting.dedup_by(|a, b| a.metadata.name == b.metadata.name);

    let mut offers = vec![Offer {
        source: Source::Cluster,
        priority: cluster.spec.own_priority(),
        stop_on_conflict: false,
        entries: first_of_each(own.iter().map(|n| (*n, None))),
    }];
    for m in &selecting {
        let name = m.metadata.name.as_deref().unwrap_or_default();
        offers.push(Offer {
            source: Source::Multi(name),
            priority: m.priority(),
            stop_on_conflict: m.stop_on_conflict(),
            entries: first_of_each(m.services().iter().map(|s| (s.name.as_str(), Some(s)))),
        });
    }

    let first = decide(&offers, &BTreeSet::new());
    let mut stopped = Vec::new();
    for offer in offers.iter().filter(|o| o.stop_on_conflict) {
        let because: Vec<&str> = first
            .iter()
            .filter(|d| d.contenders.iter().any(|c| c.source == offer.source))
            .filter(|d| d.winner() != Some(offer.source))
            .map(|d| d.name)
            .collect();
        if let (Source::Multi(mcs), false) = (offer.source, because.is_empty()) {
            stopped.push(Stopped { mcs, because });
        }
    }
    let decisions = if stopped.is_empty() {
        first
    } else {
        let out: BTreeSet<Source<'a>> = stopped.iter().map(|s| Source::Multi(s.mcs)).collect();
        decide(&offers, &out)
    };
    Selected {
        decisions,
        selected_by: selecting
            .iter()
            .map(|m| m.metadata.name.as_deref().unwrap_or_default())
            .collect(),
        stopped,
    }
}

/// The first entry of each name, in order.
fn first_of_each<'a>(
    entries: impl Iterator<Item = (&'a str, Option<&'a TemplateService>)>,
) -> Vec<(&'a str, Option<&'a TemplateService>)> {
    let mut seen = BTreeSet::new();
    entries.filter(|(name, _)| seen.insert(*name)).collect()
}

/// The decisions over every offer but those of `left_out`.
fn decide<'a>(offers: &[Offer<'a>], left_out: &BTreeSet<Source<'a>>) -> Vec<Decision<'a>> {
    let offers: Vec<&Offer<'a>> = offers
        .iter()
        .filter(|o| !left_out.contains(&o.source))
        .collect();
    let mut names: Vec<&'a str> = Vec::new();
    let mut seen = BTreeSet::new();
    for o in &offers {
        for (name, _) in &o.entries {
            if seen.insert(*name) {
                names.push(name);
            }
        }
    }
    names
        .into_iter()
        .map(|name| {
            let mut named: Vec<(Contender<'a>, Option<&'a TemplateService>)> = offers
                .iter()
                .filter_map(|o| {
                    let (_, entry) = o.entries.iter().find(|(n, _)| *n == name)?;
                    let contender = Contender {
                        source: o.source,
                        priority: o.priority,
                    };
                    Some((contender, *entry))
                })
                .collect();
            named.sort_by(|(a, _), (b, _)| {
                b.priority.cmp(&a.priority).then(a.source.cmp(&b.source))
            });
            let tied = named.len() > 1 && named[0].0.priority == named[1].0.priority;
            let outcome = match named.first() {
                _ if tied => Outcome::Conflict,
                Some((c, Some(entry))) => match c.source {
                    Source::Multi(mcs) => Outcome::Multi { mcs, entry },
                    Source::Cluster => Outcome::Own,
                },
                _ => Outcome::Own,
            };
            Decision {
                name,
                outcome,
                contenders: named.into_iter().map(|(c, _)| c).collect(),
            }
        })
        .collect()
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The most items a message names before it counts the rest.
const MAX_NAMED: usize = 5;

/// The first [`MAX_NAMED`] items joined, and how many more there are.
pub(super) fn bounded_join(items: &[String], sep: &str) -> String {
    let mut out = items
        .iter()
        .take(MAX_NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(sep);
    if items.len() > MAX_NAMED {
        out.push_str(&format!("{sep}and {} more", items.len() - MAX_NAMED));
    }
    out
}
