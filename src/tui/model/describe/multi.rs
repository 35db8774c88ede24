//! `d` on a MultiClusterService: its selector, priority and revision, its
//! conditions, its services and the clusters its status names.

use k8s_openapi::jiff::Timestamp;

use super::{Line, Tone, blank, conditions_table, field, heading, identity, policy_lines, table};
use crate::api::{MAX_LISTED_CLUSTERS, MultiClusterService};
use crate::tui::model::health::Health;
use crate::tui::model::key::Kind;
use crate::tui::model::multi_cluster_services::{McsTexts, deployed_text, matching_texts};

pub(super) fn multi_cluster_service(mcs: &MultiClusterService, now: Timestamp) -> Vec<Line> {
    let mut lines = identity(Kind::MultiClusterService, &mcs.metadata, now);
    let t = McsTexts::of(mcs);
    let status = mcs.status.clone().unwrap_or_default();
    lines.extend([
        field("Selector", t.selector, Tone::Plain),
        field("Priority", t.priority, Tone::Plain),
        field(
            "Stop on conflict",
            if mcs.stop_on_conflict() { "yes" } else { "no" },
            Tone::Plain,
        ),
        field("Revision", t.revision, Tone::Plain),
        field(
            "Clusters",
            format!("{} selected, {} up to date", t.clusters, t.up_to_date),
            Tone::Health(t.up_to_date_health),
        ),
        field("Message", t.message, Tone::Health(t.health)),
    ]);
    lines.push(blank());
    lines.push(heading("Conditions"));
    lines.extend(conditions_table(now, &status.conditions));
    lines.push(blank());
    lines.push(heading("Services"));
    lines.extend(table(
        &["NAME", "TEMPLATE", "NAMESPACE"],
        mcs.services()
            .iter()
            .map(|s| {
                (
                    vec![
                        s.name.clone(),
                        s.template.clone(),
                        s.namespace.clone().unwrap_or_else(|| "-".into()),
                    ],
                    Tone::Plain,
                )
            })
            .collect(),
        "no services",
    ));
    lines.push(blank());
    lines.push(heading("Rollout policy"));
    lines.extend(policy_lines(mcs.spec.rollout.as_ref(), now));
    lines.push(blank());
    lines.push(heading("Clusters"));
    // The engine lists at most this many; a status written by someone else
    // may list more, and the view shows no more than the engine would.
    lines.extend(table(
        &["NAME", "DEPLOYED", "REASON", "MESSAGE"],
        status
            .matching_clusters
            .iter()
            .take(MAX_LISTED_CLUSTERS)
            .map(|c| {
                let (reason, message, health) = matching_texts(c);
                (
                    vec![c.name.clone(), deployed_text(c).into(), reason, message],
                    Tone::Health(health),
                )
            })
            .collect(),
        "no clusters selected",
    ));
    let listed = status.matching_clusters.len().min(MAX_LISTED_CLUSTERS);
    let count = status.matching_count.map_or(0, |n| n as usize);
    if count > listed {
        lines.push(Line {
            label: String::new(),
            text: format!("  and {} more", count - listed),
            tone: Tone::Health(Health::Muted),
        });
    }
    lines
}
