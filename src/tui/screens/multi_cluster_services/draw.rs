//! The MultiClusterServices screen: each one with its selector, services,
//! clusters, how many are up to date, revision and message.

use kube::ResourceExt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::rows::listed;
use crate::tui::layout;
use crate::tui::model::age::age;
use crate::tui::model::health::Health;
use crate::tui::model::multi_cluster_services::{McsTexts, rollout_text};
use crate::tui::screens::chrome::{body_block, count, empty_note};
use crate::tui::state::app::App;
use crate::tui::views::columns::{Col, Text, col, flex};
use crate::tui::views::table::{mark_sort, table};

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    let rows = listed(app, view);

    // Narrow, the columns give way in this order: PRIORITY, AGE, SERVICES,
    // SELECTOR, ROLLOUT, MESSAGE, UP TO DATE, CLUSTERS; NAMESPACE and
    // NAME stay.
    let all = app.all_namespaces();
    let several = app.data.several_contexts();
    let mut cols: Vec<Col> = Vec::new();
    if several {
        cols.push(col("CONTEXT", 7, 20));
    }
    if all {
        cols.push(col("NAMESPACE", 10, 16));
    }
    cols.extend([
        col("NAME", 12, 28),
        col("SELECTOR", 10, 24).drop(4),
        col("PRIORITY", 8, 10).drop(8),
        col("SERVICES", 8, 16).drop(5),
        col("CLUSTERS", 8, 8).drop(1),
        col("UP TO DATE", 10, 10).drop(2),
        col("ROLLOUT", 8, 30).drop(6),
        flex("MESSAGE", 12).drop(3),
        col("AGE", 3, 5).drop(7),
    ]);
    let mut title = count(app, rows.len(), app.data.multi_cluster_services.len());
    title.extend(mark_sort(
        &app.theme,
        &mut cols,
        view.sort,
        &["NAME"],
        "MESSAGE",
    ));
    frame.render_widget(body_block(app, title), area);
    let inner = layout::inner(area);
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|m| {
            let x = McsTexts::of(m);
            let (rollout, rollout_health) = rollout_text(m, &app.data.rollouts);
            let mut row: Vec<Text> = Vec::new();
            if several {
                row.push((m.context.to_string(), t.accent()));
            }
            if all {
                row.push((m.namespace().unwrap_or_default(), t.muted()));
            }
            let message_style = match x.health {
                Health::Ready => Style::new(),
                Health::Muted => t.muted(),
                h => t.health(h),
            };
            row.extend([
                (m.name_any(), Style::new()),
                (x.selector, Style::new()),
                (x.priority, Style::new()),
                (x.services, Style::new()),
                (x.clusters, Style::new()),
                (x.up_to_date, t.health(x.up_to_date_health)),
                (
                    rollout,
                    match rollout_health {
                        Health::Ready => Style::new(),
                        h => t.health(h),
                    },
                ),
                (x.message, message_style),
                (
                    age(app.now, m.metadata.creation_timestamp.as_ref()),
                    t.muted(),
                ),
            ]);
            row
        })
        .collect();
    let empty = cells.is_empty();
    table(&app.theme, frame, inner, &cols, cells, view, true);
    if empty {
        let text = if app.data.multi_cluster_services.is_empty() {
            match &app.target.namespace {
                Some(ns) => format!("no MultiClusterServices in namespace {ns}"),
                None => "no MultiClusterServices yet".to_string(),
            }
        } else {
            format!("no MultiClusterService matches /{}", view.filter)
        };
        empty_note(app, frame, inner, text);
    }
}
