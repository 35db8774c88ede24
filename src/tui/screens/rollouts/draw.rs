//! The rollouts screen: every TemplateRollout with its phase, waves and
//! what it changes.

use kube::ResourceExt;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::tui::layout;
use crate::tui::model::age::age;
use crate::tui::model::health::Health;
use crate::tui::model::key::Kind;
use crate::tui::model::rollouts::{self, phase, phase_health};
use crate::tui::model::rows::rollout_rows;
use crate::tui::model::sort;
use crate::tui::screens::chrome::{body_block, count, empty_note, loading};
use crate::tui::state::app::App;
use crate::tui::views::columns::{Col, Text, col, flex};
use crate::tui::views::table::{mark_sort, table};

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    let rows = sort::rollouts(rollout_rows(&app.data, &view.filter), view.sort);

    // Narrow, the columns give way in this order: REV, TEMPLATE (the name
    // holds both), AGE, CHANGE, UPDATED, WAVE, PHASE; NAMESPACE and NAME
    // stay.
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
        col("NAME", 20, 32),
        col("TEMPLATE", 12, 28).drop(6),
        col("REV", 3, 5).drop(7),
        col("PHASE", 18, 18).drop(1),
        col("WAVE", 4, 5).drop(2),
        col("UPDATED", 7, 9).drop(3),
        flex("CHANGE", 12).drop(4),
        col("AGE", 3, 5).drop(5),
    ]);
    let mut title = count(app, rows.len(), app.data.rollouts.len());
    title.extend(loading(app, &[Kind::TemplateRollout]));
    title.extend(mark_sort(
        &app.theme,
        &mut cols,
        view.sort,
        &["NAME", "TEMPLATE"],
        "PHASE",
    ));
    frame.render_widget(body_block(app, title), area);
    let inner = layout::inner(area);
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|r| {
            let status = r.status.as_ref();
            let phase = phase(r);
            let health = phase_health(phase);
            let summary = |s: Option<&String>| s.cloned().unwrap_or_else(|| "-".into());
            let mut row: Vec<Text> = Vec::new();
            if several {
                row.push((r.context.to_string(), t.accent()));
            }
            if all {
                row.push((r.namespace().unwrap_or_default(), t.muted()));
            }
            row.extend([
                (r.name_any(), Style::new()),
                (rollouts::source(r), Style::new()),
                (r.spec.revision.to_string(), Style::new()),
                (rollouts::phase_label(r, app.now), t.health(health)),
                (
                    summary(status.and_then(|s| s.wave_summary.as_ref())),
                    Style::new(),
                ),
                (
                    summary(status.and_then(|s| s.updated_summary.as_ref())),
                    Style::new(),
                ),
                (
                    summary(status.and_then(|s| s.change_summary.as_ref())),
                    if health == Health::Failed {
                        t.health(Health::Failed)
                    } else {
                        Style::new()
                    },
                ),
                (
                    age(app.now, r.metadata.creation_timestamp.as_ref()),
                    t.muted(),
                ),
            ]);
            row
        })
        .collect();
    let empty = cells.is_empty();
    table(&app.theme, frame, inner, &cols, cells, view, true);
    if empty {
        let text = if app.data.rollouts.is_empty() {
            "no TemplateRollouts yet: a new revision of a ClusterTemplate's services starts one"
                .to_string()
        } else {
            format!("no rollout matches /{}", view.filter)
        };
        empty_note(app, frame, inner, text);
    }
}
