//! The warnings screen: what the engine could not do, on which object,
//! newest first. The header counts them.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::tui::layout;
use crate::tui::model::age::age_of;
use crate::tui::screens::chrome::{body_block, count, empty_note};
use crate::tui::state::app::App;
use crate::tui::views::columns::{Text, col, flex};
use crate::tui::views::table::table;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let view = app.view();
    let t = &app.theme;
    let rows = app.warnings.rows(&view.filter);
    let total = app.warnings.len();
    frame.render_widget(body_block(app, count(app, rows.len(), total)), area);
    let inner = layout::inner(area);
    let cols = [
        col("LAST SEEN", 4, 9),
        col("KIND", 4, 16).drop(2),
        col("NAMESPACE", 9, 16).drop(1),
        col("NAME", 8, 32),
        flex("MESSAGE", 16),
    ];
    let dash = |s: &str| {
        if s.is_empty() {
            "-".to_string()
        } else {
            s.to_string()
        }
    };
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|w| {
            let message = if w.count > 1 {
                format!("{} ×{}", w.message, w.count)
            } else {
                w.message.clone()
            };
            vec![
                (age_of(app.now, Some(w.last)), t.muted()),
                (dash(&w.kind), t.accent()),
                (dash(&w.namespace), t.muted()),
                (dash(&w.name), Style::new()),
                (message, Style::new().fg(t.progressing)),
            ]
        })
        .collect();
    let empty = cells.is_empty();
    table(&app.theme, frame, inner, &cols, cells, view, true);
    if empty {
        let text = if total == 0 {
            "no warnings from the engine".to_string()
        } else {
            format!("no warning matches /{}", view.filter)
        };
        empty_note(app, frame, inner, text);
    }
}
