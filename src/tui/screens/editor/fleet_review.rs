//! The fleet's part of a save's review: the headline and its groups, one
//! group's clusters, or one cluster's change, each line fitted to the
//! popup's width; the cursor's line selected.

use ratatui::text::{Line, Span};

use crate::tui::keys::{Action, Mode};
use crate::tui::model::health::Health;
use crate::tui::state::app::App;
use crate::tui::state::fleet_review::{FleetReview, Place};
use crate::tui::views::columns::ellipsize;

/// At most this many groups or clusters are listed; the cursor's is always
/// among them.
const ROWS: usize = 8;

/// The rows `cursor` is shown among: a window of at most [`ROWS`].
fn window(len: usize, cursor: usize) -> std::ops::Range<usize> {
    let start = cursor
        .saturating_sub(ROWS - 1)
        .min(len.saturating_sub(ROWS));
    start..len.min(start + ROWS)
}

pub fn lines(app: &App, fleet: &FleetReview, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let fit = |s: String| ellipsize(&s, width.saturating_sub(2) as u16);
    let noun = |n: usize| if n == 1 { "cluster" } else { "clusters" };
    let blocked = match fleet.blocked {
        0 => String::new(),
        n => format!("; {n} would be blocked"),
    };
    let mut out = vec![
        Line::default(),
        Line::from(Span::styled(
            fit(format!(
                "It reaches {} {}{blocked}:",
                fleet.clusters,
                noun(fleet.clusters)
            )),
            t.title(),
        )),
    ];
    let row = |text: String, selected: bool, blocked: bool| {
        let style = if selected {
            t.selection()
        } else if blocked {
            t.health(Health::Failed)
        } else {
            t.accent()
        };
        Line::from(Span::styled(fit(format!("  {text}")), style))
    };
    let hint = |text: String| Line::from(Span::styled(fit(format!("  {text}")), t.muted()));
    let open = app.keys.label(Mode::Review, Action::Open);
    let back = app.keys.label(Mode::Review, Action::Back);
    match fleet.place {
        Place::Groups { cursor } => {
            for i in window(fleet.groups.len(), cursor) {
                let g = &fleet.groups[i];
                let n = g.clusters.len();
                out.push(row(
                    format!("{n} {} · {}: {}", noun(n), g.service, g.what),
                    i == cursor,
                    g.blocked,
                ));
            }
            out.push(hint(format!("{open} lists a group's clusters")));
        }
        Place::Group { group, cursor } => {
            let g = &fleet.groups[group];
            out.push(hint(format!("{}: {}", g.service, g.what)));
            for i in window(g.clusters.len(), cursor) {
                out.push(row(g.clusters[i].clone(), i == cursor, g.blocked));
            }
            out.push(hint(format!(
                "{open} shows a cluster's change · {back} back"
            )));
        }
        Place::Cluster { group, cluster } => {
            let g = &fleet.groups[group];
            out.push(hint(format!("{} · {}", g.clusters[cluster], g.service)));
            for l in fleet.cluster_lines(group, cluster).into_iter().take(ROWS) {
                out.push(row(l, false, g.blocked));
            }
            out.push(hint(format!("{back} back")));
        }
    }
    if fleet.confirming {
        out.push(Line::default());
        out.push(Line::from(Span::styled(
            fit(format!(
                "This save leaves {} {} with a blocked service. Save anyway?",
                fleet.blocked,
                noun(fleet.blocked)
            )),
            t.error(),
        )));
    }
    out
}
