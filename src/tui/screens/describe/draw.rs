//! `d`: one object described, as k9s does: fields, conditions, services,
//! related objects and the last Events, in lines that scroll.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::model::describe::{self, Tone};
use crate::tui::model::key::ObjKey;
use crate::tui::screens::chrome::{body_block, gone};
use crate::tui::state::app::App;
use crate::tui::views::safe::paragraph;

/// How wide the labels' column is.
const LABEL: usize = 13;

pub fn draw(app: &App, key: &ObjKey, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let view = app.view();
    let Some(lines) = describe::describe(&app.data, key, app.now) else {
        gone(app, key, frame, area);
        return;
    };
    let ident = format!(": {} {}/{}", key.kind.label(), key.namespace, key.name);
    let mut block = body_block(app, vec![Span::styled(ident, t.muted())]);
    let inner_h = usize::from(area.height.saturating_sub(2)).max(1);
    let last = (view.offset + inner_h).min(lines.len());
    block = block.title(
        Line::from(Span::styled(
            format!(" {}-{last}/{} ", view.offset + 1, lines.len()),
            t.muted(),
        ))
        .right_aligned(),
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let text: Vec<Line> = lines
        .into_iter()
        .skip(view.offset)
        .take(usize::from(inner.height))
        .map(|l| {
            let style = match l.tone {
                Tone::Plain => Style::new(),
                Tone::Muted => t.muted(),
                Tone::Heading => t.title(),
                Tone::Health(h) => t.health(h),
            };
            if l.label.is_empty() {
                Line::from(Span::styled(l.text, style))
            } else {
                Line::from(vec![
                    Span::styled(format!("{:<LABEL$}", l.label), t.muted()),
                    Span::styled(l.text, style),
                ])
            }
        })
        .collect();
    frame.render_widget(paragraph(text), inner);
}
