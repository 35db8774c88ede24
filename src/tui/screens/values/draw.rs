//! Values as YAML: the pane under a detail screen's services, and the
//! screen that shows them all.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::layout;
use crate::tui::model::filter::Filter;
use crate::tui::model::health::service_health;
use crate::tui::model::key::Kind;
use crate::tui::model::values::{self, Shown, Values, ValuesKey};
use crate::tui::screens::chrome::{body_block, section};
use crate::tui::screens::yaml::draw::highlight;
use crate::tui::state::app::App;
use crate::tui::state::navigation::selected_values;
use crate::tui::views::columns::ellipsize;
use crate::tui::views::safe::paragraph as safe_paragraph;
use crate::tui::views::search;

/// The lines of `values` in the theme's colours: the YAML highlighted, a
/// blocked service's reason in its state's colour, anything else muted.
fn styled<'a>(app: &App, values: &Values, lines: &'a [String]) -> Vec<Line<'a>> {
    let t = &app.theme;
    lines
        .iter()
        .map(|l| match values {
            Values::Merged(_) => highlight(l, t),
            Values::Blocked { state, .. } => {
                Line::from(Span::styled(l.as_str(), t.health(service_health(*state))))
            }
            Values::Nothing(_) => Line::from(Span::styled(l.as_str(), t.muted())),
        })
        .collect()
}

/// A reason is prose: it wraps. YAML does not.
fn paragraph<'a>(values: &Values, lines: Vec<Line<'a>>) -> Paragraph<'a> {
    let p = safe_paragraph(lines);
    match values {
        Values::Merged(_) => p,
        _ => p.wrap(Wrap { trim: true }),
    }
}

/// The pane's title: whose values, and from which revision when known.
fn pane_title(key: &ValuesKey, shown: &Shown) -> String {
    let what = match key.object.kind {
        Kind::ManagedCluster => "merged values",
        _ => "default values",
    };
    let service = key.service.as_deref().unwrap_or(&key.object.name);
    match shown.revision {
        Some(r) => format!(" {what}: {service} (revision {r}) "),
        None => format!(" {what}: {service} "),
    }
}

/// The values of the service selected above, as many lines as fit; the last
/// line says how many more `enter` shows.
pub(crate) fn pane(app: &App, frame: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let Some(key) = selected_values(app) else {
        frame.render_widget(section(app, " values ".into()), area);
        return;
    };
    let shown = values::shown(&app.data, &key);
    frame.render_widget(section(app, pane_title(&key, &shown)), area);
    // Under the table's columns, past its selection mark.
    let text = Rect {
        x: area.x.saturating_add(2).min(area.right()),
        y: area.y + 1,
        width: area.width.saturating_sub(2),
        height: area.height - 1,
    };
    let lines = shown.values.lines();
    let room = usize::from(text.height);
    let mut styled = styled(app, &shown.values, &lines);
    if matches!(shown.values, Values::Merged(_)) && styled.len() > room {
        styled.truncate(room.saturating_sub(1));
        let more = lines.len() - styled.len();
        styled.push(Line::from(Span::styled(
            ellipsize(
                &format!("… {more} more lines: enter shows them all"),
                text.width,
            ),
            app.theme.muted(),
        )));
    }
    frame.render_widget(paragraph(&shown.values, styled), text);
}

/// The whole values of one service (or a ServiceTemplate), scrolled like
/// the YAML screen, under a line that says where they come from.
pub fn draw(app: &App, key: &ValuesKey, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let view = app.view();
    let shown = values::shown(&app.data, key);
    let lines = shown.values.lines();
    let parts = layout::values(area, shown.layers.chars().count());
    let mut block = body_block(app, Vec::new());
    if matches!(shown.values, Values::Merged(_)) {
        let height = usize::from(parts.text.height).max(1);
        let last = (view.offset + height).min(lines.len());
        block = block.title(
            Line::from(Span::styled(
                format!(" {}-{last}/{} ", view.offset + 1, lines.len()),
                t.muted(),
            ))
            .right_aligned(),
        );
    }
    frame.render_widget(block, area);
    frame.render_widget(
        safe_paragraph(Span::styled(shown.layers.as_str(), t.muted())).wrap(Wrap { trim: true }),
        parts.layers,
    );
    let visible: Vec<String> = lines
        .into_iter()
        .skip(view.offset)
        .take(usize::from(parts.text.height))
        .collect();
    let found = Filter::parse(&view.filter);
    let styled: Vec<Line> = styled(app, &shown.values, &visible)
        .into_iter()
        .zip(&visible)
        .enumerate()
        .map(|(i, (line, text))| {
            let current = view.offset + i == view.selected;
            search::mark(line, &found.hits(text), search::style(t, current))
        })
        .collect();
    frame.render_widget(paragraph(&shown.values, styled), parts.text);
}
