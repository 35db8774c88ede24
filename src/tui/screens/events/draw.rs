//! The events screen: what the engine did, newest first.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::tui::layout;
use crate::tui::model::age::age_of;
use crate::tui::model::events::{self, is_warning, last_seen};
use crate::tui::model::health::Health;
use crate::tui::model::key::ObjKey;
use crate::tui::model::rows::event_rows;
use crate::tui::screens::chrome::{body_block, count, empty_note};
use crate::tui::state::app::App;
use crate::tui::views::columns::{Col, Text, col, flex};
use crate::tui::views::table::table;

pub fn draw(app: &App, regarding: Option<&ObjKey>, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    let rows = event_rows(&app.data, regarding, &view.filter);
    let total = event_rows(&app.data, regarding, "").len();
    frame.render_widget(body_block(app, count(app, rows.len(), total)), area);
    let inner = layout::inner(area);

    // About one object, the crumb names it: no namespace or object columns.
    let all = app.all_namespaces() && regarding.is_none();
    // Narrow, the columns give way in this order: TYPE, REASON,
    // LAST SEEN, OBJECT, MESSAGE (what an event says); NAMESPACE stays.
    let mut cols: Vec<Col> = vec![
        col("LAST SEEN", 4, 9).drop(3),
        col("TYPE", 4, 7).drop(5),
        col("REASON", 6, 22).drop(4),
    ];
    if all {
        cols.push(col("NAMESPACE", 10, 16));
    }
    if regarding.is_none() {
        cols.push(col("OBJECT", 10, 40).drop(2));
    }
    cols.push(flex("MESSAGE", 12).drop(1));
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|e| {
            let warning = is_warning(e);
            let n = events::count(e);
            let reason = e.reason.clone().unwrap_or_default();
            let mut row: Vec<Text> = vec![
                (age_of(app.now, last_seen(e)), t.muted()),
                (
                    events::type_label(e),
                    if warning {
                        t.health(Health::Failed)
                    } else {
                        t.muted()
                    },
                ),
                (
                    if n > 1 {
                        format!("{reason} ×{n}")
                    } else {
                        reason
                    },
                    Style::new(),
                ),
            ];
            if all {
                row.push((e.metadata.namespace.clone().unwrap_or_default(), t.muted()));
            }
            if regarding.is_none() {
                row.push((events::object(e), t.accent()));
            }
            row.extend([(
                events::message(e),
                if warning {
                    t.health(Health::Failed)
                } else {
                    Style::new()
                },
            )]);
            row
        })
        .collect();
    let empty = cells.is_empty();
    table(&app.theme, frame, inner, &cols, cells, view, true);
    if empty {
        let text = match (total, regarding) {
            (0, Some(k)) => format!(
                "no events from the engine about {} {}",
                k.kind.label(),
                k.name
            ),
            (0, None) => "no events from the engine yet".to_string(),
            _ => format!("no event matches /{}", view.filter),
        };
        empty_note(app, frame, inner, text);
    }
}
