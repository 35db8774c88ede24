//! The clusters screen: every ManagedCluster with its Ready condition,
//! template, revision and services.

use kube::ResourceExt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::{Col, Text, body_block, col, count, empty_note, flex, mark_sort, table};
use crate::tui::layout;
use crate::tui::model::age::age;
use crate::tui::model::health::Health;
use crate::tui::model::health::{cluster_ready, services_ready};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::rows::cluster_rows;
use crate::tui::model::sort;
use crate::tui::state::app::App;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    let rows = sort::clusters(cluster_rows(&app.data, &view.filter), view.sort);

    // Narrow, the columns give way in this order: REV, AGE, TEMPLATE,
    // MESSAGE, SERVICES, READY; NAMESPACE and NAME stay.
    let all = app.all_namespaces();
    let mut cols: Vec<Col> = Vec::new();
    if all {
        cols.push(col("NAMESPACE", 10, 16));
    }
    cols.extend([
        col("NAME", 12, 28),
        col("READY", 5, 7).drop(1),
        col("TEMPLATE", 12, 28).drop(4),
        col("REV", 3, 14).drop(6),
        col("SERVICES", 8, 8).drop(2),
        flex("MESSAGE", 14).drop(3),
        col("AGE", 3, 5).drop(5),
    ]);
    let mut title = count(app, rows.len(), app.data.clusters.len());
    title.extend(mark_sort(app, &mut cols, view.sort, &["NAME"], "READY"));
    frame.render_widget(body_block(app, title), area);
    let inner = layout::inner(area);
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|mc| {
            let (ready, health, message) = cluster_ready(mc);
            let (services, services_health) = services_ready(mc);
            let revision = match app
                .data
                .pending
                .get(&ObjKey::of(Kind::ManagedCluster, &mc.metadata))
            {
                // A rollout is to give it, or is giving it, a revision.
                Some(p) => (p.label(), t.health(p.health())),
                None => (
                    mc.status
                        .as_ref()
                        .and_then(|s| s.revision)
                        .map_or_else(|| "-".to_string(), |r| r.to_string()),
                    Style::new(),
                ),
            };
            let message_style = match health {
                Health::Failed => t.health(Health::Failed),
                Health::Muted => t.muted(),
                _ => Style::new(),
            };
            let mut row: Vec<Text> = Vec::new();
            if all {
                row.push((mc.namespace().unwrap_or_default(), t.muted()));
            }
            row.extend([
                (mc.name_any(), Style::new()),
                (ready, t.health(health)),
                (mc.spec.template.clone(), Style::new()),
                revision,
                (services, t.health(services_health)),
                (message, message_style),
                (
                    age(app.now, mc.metadata.creation_timestamp.as_ref()),
                    t.muted(),
                ),
            ]);
            row
        })
        .collect();
    let empty = cells.is_empty();
    table(app, frame, inner, &cols, cells, view, true);
    if empty {
        let text = if app.data.clusters.is_empty() {
            match &app.target.namespace {
                Some(ns) => format!("no ManagedClusters in namespace {ns}"),
                None => "no ManagedClusters yet".to_string(),
            }
        } else {
            format!("no cluster matches /{}", view.filter)
        };
        empty_note(app, frame, inner, text);
    }
}
