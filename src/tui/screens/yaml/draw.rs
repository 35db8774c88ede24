//! The YAML of one object, without managedFields.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::model::filter::Filter;
use crate::tui::model::key::ObjKey;
use crate::tui::screens::chrome::{body_block, empty_note};
use crate::tui::state::app::App;
use crate::tui::theme::Theme;
use crate::tui::views::safe::paragraph;
use crate::tui::views::search;

pub fn draw(app: &App, key: &ObjKey, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let view = app.view();
    let yaml = app.data.yaml(key);
    let lines = yaml.as_deref().map_or(0, |y| y.lines().count());
    let ident = format!(": {} {}/{}", key.kind.label(), key.namespace, key.name);
    let mut block = body_block(app, vec![Span::styled(ident, t.muted())]);
    if lines > 0 {
        let inner_h = usize::from(area.height.saturating_sub(2)).max(1);
        let last = (view.offset + inner_h).min(lines);
        block = block.title(
            Line::from(Span::styled(
                format!(" {}-{last}/{lines} ", view.offset + 1),
                t.muted(),
            ))
            .right_aligned(),
        );
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(yaml) = yaml else {
        empty_note(
            app,
            frame,
            inner,
            crate::tui::screens::chrome::gone_note(app, key),
        );
        return;
    };
    let found = Filter::parse(&view.filter);
    let text: Vec<Line> = yaml
        .lines()
        .enumerate()
        .skip(view.offset)
        .take(usize::from(inner.height))
        .map(|(i, l)| {
            search::mark(
                highlight(l, t),
                &found.hits(l),
                search::style(t, i == view.selected),
            )
        })
        .collect();
    frame.render_widget(paragraph(text), inner);
}

/// Keys in the accent colour, comments muted.
pub(crate) fn highlight<'a>(line: &'a str, t: &Theme) -> Line<'a> {
    let body = line.trim_start();
    let indent = &line[..line.len() - body.len()];
    if body.starts_with('#') {
        return Line::from(Span::styled(line, t.muted()));
    }
    let (dash, rest) = match body.strip_prefix("- ") {
        Some(rest) => ("- ", rest),
        None => ("", body),
    };
    let key_end = if rest.starts_with(['"', '\'', '|', '>', '{', '[']) {
        None
    } else if let Some(i) = rest.find(": ") {
        Some(i + 1)
    } else if rest.ends_with(':') {
        Some(rest.len())
    } else {
        None
    };
    match key_end {
        Some(end) => Line::from(vec![
            Span::raw(indent),
            Span::styled(dash, t.muted()),
            Span::styled(&rest[..end], t.accent()),
            Span::raw(&rest[end..]),
        ]),
        None => Line::from(vec![
            Span::raw(indent),
            Span::styled(dash, t.muted()),
            Span::styled(rest, Style::new()),
        ]),
    }
}
