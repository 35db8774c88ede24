//! The templates screen: ClusterTemplates, then ServiceTemplates.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::{Col, Text, body_block, col, count, empty_note, flex, mark_sort, table};
use crate::tui::layout;
use crate::tui::model::health::Health;
use crate::tui::model::rows::{TemplateRef, template_rows};
use crate::tui::model::sort;
use crate::tui::state::app::App;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    let rows = sort::templates(
        template_rows(&app.data, &view.filter),
        view.sort,
        &app.data.usage,
    );
    let total = app.data.cluster_templates.len() + app.data.service_templates.len();

    let all = app.all_namespaces();
    let mut cols: Vec<Col> = vec![col("KIND", 7, 7)];
    if all {
        cols.push(col("NAMESPACE", 10, 16).drop(1));
    }
    cols.extend([
        col("NAME", 20, 32),
        col("VALID", 5, 5),
        col("CHART", 16, 28),
        col("SERVICES", 12, 32).drop(3),
        col("REV", 3, 5).drop(2),
        col("IN USE", 6, 6),
        flex("DESCRIPTION", 12),
    ]);
    let mut title = count(app, rows.len(), total);
    title.extend(mark_sort(app, &mut cols, view.sort, &["NAME"], "VALID"));
    frame.render_widget(body_block(app, title), area);
    let inner = layout::inner(area);
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|tr| {
            let key = tr.key();
            let (valid, health) = tr.valid();
            let (message, is_error) = tr.message();
            let kind = match tr {
                TemplateRef::Cluster(_) => "cluster",
                TemplateRef::Service(_) => "service",
            };
            let used = app.data.usage.get(&key).copied().unwrap_or(0);
            let mut row: Vec<Text> = vec![(kind.into(), t.accent())];
            if all {
                row.push((key.namespace.clone(), t.muted()));
            }
            row.extend([
                (key.name.clone(), Style::new()),
                (valid, t.health(health)),
                (tr.chart(), Style::new()),
                (tr.services(), Style::new()),
                (tr.revision(), Style::new()),
                (
                    used.to_string(),
                    if used == 0 { t.muted() } else { Style::new() },
                ),
                (
                    message,
                    if is_error {
                        t.health(Health::Failed)
                    } else {
                        t.muted()
                    },
                ),
            ]);
            row
        })
        .collect();
    let empty = cells.is_empty();
    table(app, frame, inner, &cols, cells, view, true);
    if empty {
        let text = if total == 0 {
            "no ClusterTemplates or ServiceTemplates yet".to_string()
        } else {
            format!("no template matches /{}", view.filter)
        };
        empty_note(app, frame, inner, text);
    }
}
