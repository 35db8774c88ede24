//! The clusters screen: every ManagedCluster with its Ready condition,
//! template, revision and services.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::tui::layout;
use crate::tui::model::age::age;
use crate::tui::model::health::Health;
use crate::tui::model::key::Kind;
use crate::tui::model::rows::ClusterTexts;
use crate::tui::screens::chrome::{body_block, count, empty_note, loading};
use crate::tui::state::app::App;
use crate::tui::views::columns::{Col, Text, col, flex};
use crate::tui::views::table::{Rows, long_table, mark_sort};

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    let listing = app.cluster_listing(view);

    // Narrow, the columns give way in this order: REV, AGE, TEMPLATE,
    // MESSAGE, SERVICES, READY; NAMESPACE and NAME stay.
    let all = app.all_namespaces();
    // Several contexts open: which one each cluster is of, first.
    let several = app.data.several_contexts();
    let mut cols: Vec<Col> = Vec::new();
    let w = &listing.widest;
    let mut widest = Vec::new();
    if several {
        cols.push(col("CONTEXT", 7, 20));
        widest.push(crate::tui::screens::chrome::widest_context(app));
    }
    if all {
        cols.push(col("NAMESPACE", 10, 16));
        widest.push(w.namespace);
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
    widest.extend([
        w.name,
        w.ready,
        w.template,
        w.revision,
        w.services,
        w.message,
        listing.ages.widest(app.now),
    ]);
    let mut title = count(app, listing.rows.len(), app.data.clusters.len());
    title.extend(loading(app, &[Kind::ManagedCluster]));
    title.extend(mark_sort(
        &app.theme,
        &mut cols,
        view.sort,
        &["NAME"],
        "READY",
    ));
    frame.render_widget(body_block(app, title), area);
    let inner = layout::inner(area);
    let cells = |i: usize| -> Vec<Text> {
        let Some(mc) = listing.rows.get(i).and_then(|i| app.data.clusters.get(*i)) else {
            return Vec::new();
        };
        let c = ClusterTexts::of(&app.data, mc);
        let message_style = match c.health {
            Health::Failed => t.health(Health::Failed),
            Health::Muted => t.muted(),
            _ => Style::new(),
        };
        let mut row: Vec<Text> = Vec::new();
        if several {
            row.push((mc.context.to_string(), t.accent()));
        }
        if all {
            row.push((c.namespace.to_string(), t.muted()));
        }
        row.extend([
            (c.name.to_string(), Style::new()),
            (c.ready.to_string(), t.health(c.health)),
            (c.template.to_string(), Style::new()),
            (
                c.revision,
                c.pending.map_or_else(Style::new, |h| t.health(h)),
            ),
            (c.services.to_string(), t.health(c.services_health)),
            (c.message.to_string(), message_style),
            (
                age(app.now, mc.metadata.creation_timestamp.as_ref()),
                t.muted(),
            ),
        ]);
        row
    };
    let rows = Rows {
        len: listing.rows.len(),
        widest: &widest,
        cells,
    };
    long_table(&app.theme, frame, inner, &cols, rows, view, true);
    if listing.rows.is_empty() {
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
