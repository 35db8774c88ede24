//! The templates screen: ClusterTemplates, then ServiceTemplates; while
//! the engine holds a template's chart repository back, a REPOSITORY
//! column says so and when it is tried next.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::tui::layout;
use crate::tui::model::health::Health;
use crate::tui::model::hold;
use crate::tui::model::key::Kind;
use crate::tui::model::rows::{TemplateRef, template_rows};
use crate::tui::model::sort;
use crate::tui::model::usage::in_use;
use crate::tui::screens::chrome::{body_block, count, empty_note, loading};
use crate::tui::state::app::App;
use crate::tui::views::columns::{Col, Text, col, flex};
use crate::tui::views::table::{mark_sort, table};

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    // `:ct` and `:st` list one kind only.
    let rows: Vec<TemplateRef> = sort::templates(
        template_rows(&app.data, &view.filter),
        view.sort,
        &app.data.usage,
    )
    .into_iter()
    .filter(|t| view.lists(t.key().kind))
    .collect();
    let total = [
        (Kind::ClusterTemplate, app.data.cluster_templates.len()),
        (Kind::ServiceTemplate, app.data.service_templates.len()),
    ]
    .into_iter()
    .filter(|(kind, _)| view.lists(*kind))
    .map(|(_, n)| n)
    .sum::<usize>();

    // REPOSITORY shows only while the engine holds back the chart
    // repository of a template listed here (filtered out or not).
    let held = template_rows(&app.data, "")
        .iter()
        .any(|t| t.hold().is_some() && view.lists(t.key().kind));
    // Narrow, the columns give way in this order: SERVICES, REV,
    // DESCRIPTION, CHART, IN USE, REPOSITORY, VALID; KIND, NAMESPACE and
    // NAME stay.
    let all = app.all_namespaces();
    let several = app.data.several_contexts();
    let mut cols: Vec<Col> = vec![col("KIND", 7, 7)];
    if several {
        cols.insert(0, col("CONTEXT", 7, 20));
    }
    if all {
        cols.push(col("NAMESPACE", 10, 16));
    }
    cols.extend([col("NAME", 20, 32), col("VALID", 5, 5).drop(1)]);
    if held {
        cols.push(col(hold::COLUMN, 10, 26).drop(2));
    }
    cols.extend([
        col("CHART", 16, 28).drop(4),
        col("SERVICES", 12, 32).drop(7),
        col("REV", 3, 5).drop(6),
        col("IN USE", 6, 14).drop(3),
        flex("DESCRIPTION", 12).drop(5),
    ]);
    let mut title = count(app, rows.len(), total);
    title.extend(loading(
        app,
        &[Kind::ClusterTemplate, Kind::ServiceTemplate],
    ));
    title.extend(mark_sort(
        &app.theme,
        &mut cols,
        view.sort,
        &["NAME"],
        "VALID",
    ));
    frame.render_widget(body_block(app, title), area);
    let inner = layout::inner(area);
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|tr| {
            let key = tr.key();
            let (valid, health) = tr.valid();
            let (message, is_error) = tr.message();
            let used = app.data.usage.get(&key).copied().unwrap_or(0);
            let pending = app.data.pending_usage.get(&key).copied().unwrap_or(0);
            let mut row: Vec<Text> = vec![(tr.kind().into(), t.accent())];
            if several {
                row.insert(0, (key.context.to_string(), t.accent()));
            }
            if all {
                row.push((key.namespace.clone(), t.muted()));
            }
            row.extend([(key.name.clone(), Style::new()), (valid, t.health(health))]);
            if held {
                let hold = tr.hold();
                row.push((hold::short(hold, app.now), t.health(hold::health(hold))));
            }
            row.extend([
                (tr.chart(), Style::new()),
                (tr.services(), Style::new()),
                (tr.revision(), Style::new()),
                (
                    in_use(used, pending),
                    if used + pending == 0 {
                        t.muted()
                    } else {
                        Style::new()
                    },
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
    table(&app.theme, frame, inner, &cols, cells, view, true);
    if empty {
        let text = if total == 0 {
            match view.only {
                Some(kind) => format!("no {}s yet", kind.label()),
                None => "no ClusterTemplates or ServiceTemplates yet".to_string(),
            }
        } else {
            format!("no template matches /{}", view.filter)
        };
        empty_note(app, frame, inner, text);
    }
}
