//! A MultiClusterService's clusters: a summary line (selector, priority,
//! revision, how many are up to date, what its conditions say), then each
//! cluster its status names with whether its services are deployed there,
//! the cluster's own readiness, and why not.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::api::MAX_LISTED_CLUSTERS;
use crate::tui::layout;
use crate::tui::model::health::{Health, cluster_ready_ref};
use crate::tui::model::key::ObjKey;
use crate::tui::model::multi_cluster_services::{
    McsTexts, deployed_text, matching_rows, matching_texts,
};
use crate::tui::screens::chrome::{body_block, count, empty_note, gone};
use crate::tui::state::app::App;
use crate::tui::views::columns::{Text, col, flex};
use crate::tui::views::safe::paragraph;
use crate::tui::views::table::table;

pub fn draw(app: &App, key: &ObjKey, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let view = app.view();
    let Some(mcs) = app
        .data
        .multi_cluster_service(&key.context, &key.namespace, &key.name)
    else {
        gone(app, key, frame, area);
        return;
    };
    let status = mcs.status.as_ref();
    let listed_all = status.map_or(0, |s| s.matching_clusters.len().min(MAX_LISTED_CLUSTERS));
    // A status written by another hand may name more than the engine would;
    // no more than that many rows are drawn.
    let rows: Vec<_> = matching_rows(mcs, &view.filter)
        .into_iter()
        .take(MAX_LISTED_CLUSTERS)
        .collect();
    let mut title = count(app, rows.len(), listed_all);
    let matching = status
        .and_then(|s| s.matching_count)
        .map_or(0, |n| n as usize);
    if matching > listed_all {
        title.push(Span::styled(
            format!(" {listed_all} of {matching} listed"),
            t.muted(),
        ));
    }
    frame.render_widget(body_block(app, title), area);
    let inner = layout::inner(area);

    let x = McsTexts::of(mcs);
    let label = |s: &'static str| Span::styled(s, t.muted());
    let message_style = match x.health {
        Health::Ready => Style::new(),
        Health::Muted => t.muted(),
        h => t.health(h),
    };
    let info = Line::from(vec![
        label("selector "),
        Span::raw(x.selector),
        label("  priority "),
        Span::raw(x.priority),
        label("  "),
        Span::raw(x.revision),
        label("  up to date "),
        Span::styled(x.up_to_date, t.health(x.up_to_date_health)),
        label("  "),
        Span::styled(x.message, message_style),
    ]);
    frame.render_widget(
        paragraph(info),
        Rect {
            height: inner.height.min(1),
            ..inner
        },
    );
    let list = layout::below(inner, 1);

    // Narrow, the columns give way in this order: READY, DEPLOYED, REASON;
    // NAME and MESSAGE stay.
    let cols = [
        col("NAME", 12, 40),
        col("DEPLOYED", 8, 8).drop(2),
        col("READY", 5, 7).drop(3),
        col("REASON", 6, 12).drop(1),
        flex("MESSAGE", 12),
    ];
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|c| {
            let (reason, message, health) = matching_texts(c);
            let (ready, ready_health) =
                match app.data.cluster(&key.context, &key.namespace, &c.name) {
                    Some(mc) => {
                        let (ready, health, _) = cluster_ready_ref(mc);
                        (ready.to_string(), health)
                    }
                    // Named by the status, not in the console's data: deleted
                    // since, or the status is behind.
                    None => ("gone".to_string(), Health::Muted),
                };
            vec![
                (c.name.clone(), Style::new()),
                (deployed_text(c).to_string(), t.health(health)),
                (ready, t.health(ready_health)),
                (reason, t.health(health)),
                (message, Style::new()),
            ]
        })
        .collect();
    let empty = cells.is_empty();
    table(&app.theme, frame, list, &cols, cells, view, true);
    if empty {
        let text = if listed_all == 0 {
            match status {
                None => "the engine has not written its status yet".to_string(),
                Some(_) => "it selects no cluster".to_string(),
            }
        } else {
            format!("no cluster matches /{}", view.filter)
        };
        empty_note(app, frame, list, text);
    }
}
