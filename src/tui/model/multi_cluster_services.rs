//! What the MultiClusterServices screens show: each one's selector as one
//! line of text, its services, how many clusters it selects and how many
//! of them have its services, and what its conditions say; and, for one
//! of them, the clusters its status names.
//!
//! Everything comes from the object and the status the engine wrote; a
//! status not yet written shows `-`, never a guess. Texts from the API are
//! cut to [`MAX_TEXT`] characters here, so a huge status costs no more to
//! draw than a small one.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};

use crate::api::conditions::{CLUSTERS_SELECTED, CONFLICT};
use crate::api::{
    MatchingCluster, MultiClusterService, RolloutPhase, RolloutSubject, TemplateRollout,
};
use crate::tui::model::filter::matches;
use crate::tui::model::health::Health;
use crate::tui::model::key::Obj;
use crate::tui::model::rollouts::{phase, phase_health};

/// The most characters of one text the screens keep: a table cell never
/// shows more, and the describe view wraps nothing longer.
pub const MAX_TEXT: usize = 256;

/// `text` cut to [`MAX_TEXT`] characters, with `…` when it was longer.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_TEXT) {
        None => text.to_string(),
        Some((end, _)) => format!("{}…", &text[..end]),
    }
}

/// A selector as `kubectl` writes one: `env=prod,region in (eu,us),!legacy`;
/// `<none>` when it has no term (and so selects no cluster). Cut to
/// [`MAX_TEXT`] characters: a stored selector may hold hundreds of terms.
pub fn selector_text(selector: &LabelSelector) -> String {
    let labels = selector.match_labels.iter().flatten();
    let labels = labels.map(|(k, v)| format!("{k}={v}"));
    let expressions = selector.match_expressions.iter().flatten().map(|e| {
        let values = || e.values.as_deref().unwrap_or_default().join(",");
        match e.operator.as_str() {
            "In" => format!("{} in ({})", e.key, values()),
            "NotIn" => format!("{} notin ({})", e.key, values()),
            "Exists" => e.key.clone(),
            "DoesNotExist" => format!("!{}", e.key),
            // The engine refuses it; shown as written so the reader sees
            // what is wrong.
            other => format!("{} {other} ({})", e.key, values()),
        }
    });
    let mut text = String::new();
    for term in labels.chain(expressions) {
        if !text.is_empty() {
            text.push(',');
        }
        text.push_str(&term);
        // Stop early: the rest would be cut anyway.
        if text.chars().count() > MAX_TEXT {
            break;
        }
    }
    if text.is_empty() {
        return "<none>".to_string();
    }
    bounded(&text)
}

/// The condition of `type_` in the status, if the engine wrote it.
fn condition<'a>(mcs: &'a MultiClusterService, type_: &str) -> Option<&'a Condition> {
    mcs.status
        .as_ref()?
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
}

/// Where the rollout of its newest revision stands, of `rollouts` (those
/// of its context): `rev 4` once rolled out (or with no rollout: every
/// cluster took it at once), `rev 4: WaitingForApproval 2/3` while it
/// moves or when it stopped.
pub fn rollout_text(
    mcs: &Obj<MultiClusterService>,
    rollouts: &[Obj<TemplateRollout>],
) -> (String, Health) {
    let Some(revision) = mcs.status.as_ref().and_then(|s| s.revision) else {
        return ("-".to_string(), Health::Muted);
    };
    let name = mcs.metadata.name.as_deref().unwrap_or_default();
    let rollout = rollouts.iter().find(|r| {
        r.context == mcs.context
            && r.metadata.namespace == mcs.metadata.namespace
            && r.spec.subject() == RolloutSubject::MultiClusterService(name)
            && r.spec.revision == revision
    });
    let settled = format!("rev {revision}");
    match rollout.map(|r| (phase(r), r)) {
        None | Some((RolloutPhase::Succeeded, _)) => (settled, Health::Ready),
        Some((p, r)) => {
            let wave = r.status.as_ref().and_then(|s| s.wave_summary.as_deref());
            let text = match wave {
                Some(w) => format!("{settled}: {p} {w}"),
                None => format!("{settled}: {p}"),
            };
            (bounded(&text), phase_health(p))
        }
    }
}

/// One row of the MultiClusterServices screen, as texts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McsTexts {
    pub selector: String,
    pub priority: String,
    /// The services' names, in order.
    pub services: String,
    /// `matchingCount`; `-` before the engine wrote a status.
    pub clusters: String,
    /// Of the clusters selected, how many have every service of it
    /// installed: `2/3`; `≥2/300` when the status lists only some of them.
    pub up_to_date: String,
    pub up_to_date_health: Health,
    /// `rev 3`: its services' revision.
    pub revision: String,
    /// A conflict, an empty or invalid selector, no cluster matched, or
    /// how many match.
    pub message: String,
    pub health: Health,
}

impl McsTexts {
    pub fn of(mcs: &MultiClusterService) -> McsTexts {
        let status = mcs.status.as_ref();
        let services: Vec<&str> = mcs.services().iter().map(|s| s.name.as_str()).collect();
        let count = status.and_then(|s| s.matching_count);
        let listed = status.map_or(&[][..], |s| &s.matching_clusters[..]);
        let (up_to_date, up_to_date_health) = up_to_date(count, listed);
        let (message, health) = message(mcs);
        McsTexts {
            selector: selector_text(&mcs.spec.cluster_selector),
            priority: mcs.priority().to_string(),
            services: if services.is_empty() {
                "-".to_string()
            } else {
                bounded(&services.join(","))
            },
            clusters: count.map_or_else(|| "-".to_string(), |n| n.to_string()),
            up_to_date,
            up_to_date_health,
            revision: status
                .and_then(|s| s.revision)
                .map_or_else(|| "-".to_string(), |r| format!("rev {r}")),
            message,
            health,
        }
    }
}

/// `deployed/selected` and its colour.
fn up_to_date(count: Option<u32>, listed: &[MatchingCluster]) -> (String, Health) {
    let Some(count) = count else {
        return ("-".to_string(), Health::Muted);
    };
    let deployed = listed.iter().filter(|c| c.deployed).count();
    let count = usize::try_from(count).unwrap_or(usize::MAX);
    let troubled = listed.iter().any(|c| c.reason.is_some());
    // The status names at most 100 clusters: of the others, nothing says
    // whether they are deployed.
    let text = if listed.len() < count {
        format!("≥{deployed}/{count}")
    } else {
        format!("{deployed}/{count}")
    };
    let health = if troubled {
        Health::Failed
    } else if deployed >= count {
        Health::Ready
    } else {
        Health::Progressing
    };
    (text, health)
}

/// What the row says of its conditions: a conflict first, then a selector
/// that selects nothing, then how many clusters match.
fn message(mcs: &MultiClusterService) -> (String, Health) {
    let Some(status) = &mcs.status else {
        return ("not yet seen by the engine".to_string(), Health::Pending);
    };
    if let Some(c) = condition(mcs, CONFLICT).filter(|c| c.status == "True") {
        return (bounded(&format!("Conflict: {}", c.message)), Health::Failed);
    }
    let stale = status
        .observed_generation
        .zip(mcs.metadata.generation)
        .is_some_and(|(seen, now)| seen < now);
    let (text, health) = match condition(mcs, CLUSTERS_SELECTED) {
        Some(c) if c.status == "True" => (c.message.clone(), Health::Ready),
        // No ManagedCluster of the namespace has the labels: nothing wrong
        // with the object itself.
        Some(c) if c.reason == "NoMatch" => (c.message.clone(), Health::Muted),
        Some(c) => (format!("{}: {}", c.reason, c.message), Health::Failed),
        None => ("-".to_string(), Health::Muted),
    };
    if stale {
        return (
            bounded(&format!("the engine has not seen its last change; {text}")),
            Health::Pending,
        );
    }
    (bounded(&text), health)
}

/// The MultiClusterServices the screen lists: those with the filter's
/// text in a column.
pub fn mcs_rows<'a>(
    all: &'a [Obj<MultiClusterService>],
    filter: &str,
    several: bool,
) -> Vec<&'a Obj<MultiClusterService>> {
    all.iter()
        .filter(|m| {
            if filter.is_empty() {
                return true;
            }
            let t = McsTexts::of(m);
            matches(
                filter,
                &[
                    if several { &m.context } else { "" },
                    m.metadata.namespace.as_deref().unwrap_or_default(),
                    m.metadata.name.as_deref().unwrap_or_default(),
                    &t.selector,
                    &t.services,
                    &t.revision,
                    &t.message,
                ],
            )
        })
        .collect()
}

/// The clusters a MultiClusterService's status names, after the filter:
/// those with a conflict or a lost service first, as the engine wrote them.
pub fn matching_rows<'a>(mcs: &'a MultiClusterService, filter: &str) -> Vec<&'a MatchingCluster> {
    let listed = mcs
        .status
        .as_ref()
        .map_or(&[][..], |s| &s.matching_clusters[..]);
    listed
        .iter()
        .filter(|c| {
            matches(
                filter,
                &[
                    &c.name,
                    deployed_text(c),
                    c.reason.as_deref().unwrap_or_default(),
                    c.message.as_deref().unwrap_or_default(),
                ],
            )
        })
        .collect()
}

/// `yes` when every service it gives the cluster is installed.
pub fn deployed_text(c: &MatchingCluster) -> &'static str {
    if c.deployed { "yes" } else { "no" }
}

/// A matching cluster's reason and message, cut, and their colour.
pub fn matching_texts(c: &MatchingCluster) -> (String, String, Health) {
    let health = match (c.deployed, c.reason.is_some()) {
        (_, true) => Health::Failed,
        (true, false) => Health::Ready,
        (false, false) => Health::Progressing,
    };
    (
        bounded(c.reason.as_deref().unwrap_or("-")),
        bounded(c.message.as_deref().unwrap_or_default()),
        health,
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    use super::*;
    use crate::api::MultiClusterServiceStatus;

    fn requirement(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.into(),
            operator: operator.into(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| v.to_string()).collect()),
        }
    }

    #[test]
    fn a_selector_reads_as_kubectl_writes_it() {
        let selector = LabelSelector {
            match_labels: Some(BTreeMap::from([
                ("env".to_string(), "prod".to_string()),
                ("app".to_string(), "web".to_string()),
            ])),
            match_expressions: Some(vec![
                requirement("region", "In", &["eu", "us"]),
                requirement("tier", "NotIn", &["edge"]),
                requirement("gpu", "Exists", &[]),
                requirement("legacy", "DoesNotExist", &[]),
                requirement("zone", "Near", &["a"]),
            ]),
        };
        assert_eq!(
            selector_text(&selector),
            "app=web,env=prod,region in (eu,us),tier notin (edge),gpu,!legacy,zone Near (a)"
        );
        assert_eq!(selector_text(&LabelSelector::default()), "<none>");
        let only = LabelSelector {
            match_labels: Some(BTreeMap::from([("env".into(), "prod".into())])),
            match_expressions: Some(vec![requirement("region", "In", &["eu", "us"])]),
        };
        assert_eq!(selector_text(&only), "env=prod,region in (eu,us)");
    }

    #[test]
    fn a_huge_selector_is_cut() {
        let values: Vec<String> = (0..10_000).map(|i| format!("v{i}")).collect();
        let values: Vec<&str> = values.iter().map(String::as_str).collect();
        let selector = LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![requirement("k", "In", &values); 50]),
        };
        let text = selector_text(&selector);
        assert_eq!(text.chars().count(), MAX_TEXT + 1);
        assert!(text.ends_with('…'));
    }

    fn matching(name: &str, deployed: bool, reason: Option<&str>) -> MatchingCluster {
        MatchingCluster {
            name: name.into(),
            deployed,
            reason: reason.map(String::from),
            message: None,
        }
    }

    #[test]
    fn up_to_date_counts_the_deployed_and_says_when_it_cannot_know() {
        let listed = [matching("a", true, None), matching("b", false, None)];
        assert_eq!(
            up_to_date(Some(2), &listed),
            ("1/2".into(), Health::Progressing)
        );
        assert_eq!(
            up_to_date(Some(1), &listed[..1]),
            ("1/1".into(), Health::Ready)
        );
        assert_eq!(
            up_to_date(Some(300), &listed),
            ("≥1/300".into(), Health::Progressing)
        );
        assert_eq!(up_to_date(None, &[]), ("-".into(), Health::Muted));
        let lost = [matching("a", false, Some("Lost"))];
        assert_eq!(up_to_date(Some(1), &lost).1, Health::Failed);
    }

    #[test]
    fn a_status_not_yet_written_is_said_not_guessed() {
        let mcs = MultiClusterService::new("m", Default::default());
        let t = McsTexts::of(&mcs);
        assert_eq!(
            (
                t.clusters.as_str(),
                t.up_to_date.as_str(),
                t.revision.as_str()
            ),
            ("-", "-", "-")
        );
        assert_eq!(t.message, "not yet seen by the engine");
        let mut seen = mcs.clone();
        seen.status = Some(MultiClusterServiceStatus {
            revision: Some(3),
            matching_count: Some(0),
            ..Default::default()
        });
        assert_eq!(McsTexts::of(&seen).revision, "rev 3");
        assert_eq!(McsTexts::of(&seen).up_to_date, "0/0");
    }

    #[test]
    fn the_rollout_column_says_where_the_newest_revision_stands() {
        use crate::api::{TemplateRolloutSpec, TemplateRolloutStatus};
        use crate::tui::model::key::KubeContext;
        use std::sync::Arc;

        let ctx = KubeContext::from("kind-mgmt");
        let mut mcs = MultiClusterService::new("prod", Default::default());
        mcs.metadata.namespace = Some("team-a".into());
        let unseen = Obj::new(&ctx, Arc::new(mcs.clone()));
        assert_eq!(rollout_text(&unseen, &[]), ("-".into(), Health::Muted));
        mcs.status = Some(MultiClusterServiceStatus {
            revision: Some(4),
            ..Default::default()
        });
        let mcs = Obj::new(&ctx, Arc::new(mcs));
        // No rollout of revision 4: every cluster took it at once.
        assert_eq!(rollout_text(&mcs, &[]), ("rev 4".into(), Health::Ready));
        let rollout = |of: &str, ns: &str, revision, phase| {
            let mut r = TemplateRollout::new(
                &format!("mcs-{of}-{revision}"),
                TemplateRolloutSpec {
                    multi_cluster_service: Some(of.into()),
                    revision,
                    ..Default::default()
                },
            );
            r.metadata.namespace = Some(ns.into());
            r.status = Some(TemplateRolloutStatus {
                phase,
                wave_summary: Some("2/3".into()),
                ..Default::default()
            });
            Obj::new(&ctx, Arc::new(r))
        };
        let waiting = rollout("prod", "team-a", 4, RolloutPhase::WaitingForApproval);
        let (text, health) = rollout_text(&mcs, &[waiting]);
        assert_eq!(text, "rev 4: WaitingForApproval 2/3");
        assert_ne!(health, Health::Ready);
        // Another namespace's, another MultiClusterService's, an older
        // revision's: not this one's.
        let others = [
            rollout("prod", "team-b", 4, RolloutPhase::Failed),
            rollout("dev", "team-a", 4, RolloutPhase::Failed),
            rollout("prod", "team-a", 3, RolloutPhase::Failed),
        ];
        assert_eq!(rollout_text(&mcs, &others), ("rev 4".into(), Health::Ready));
        let done = rollout("prod", "team-a", 4, RolloutPhase::Succeeded);
        assert_eq!(rollout_text(&mcs, &[done]), ("rev 4".into(), Health::Ready));
    }
}
