//! One ClusterTemplate: its chart and the services every cluster made from
//! it gets, with their values, and the selected service's default values.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::layout;
use crate::tui::model::health::Health;
use crate::tui::model::hold;
use crate::tui::model::key::ObjKey;
use crate::tui::model::rows::{TemplateRef, template_service_rows};
use crate::tui::screens::chrome::{body_block, empty_note, section};
use crate::tui::screens::values::draw as values;
use crate::tui::state::app::App;
use crate::tui::views::columns::{Text, col, flex};
use crate::tui::views::safe::paragraph;
use crate::tui::views::table::table;

/// A values text in one line: its first line that says something, and how
/// many lines there are.
fn summary(values: Option<&str>) -> String {
    let Some(text) = values.filter(|v| !v.trim().is_empty()) else {
        return "-".into();
    };
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    match lines.as_slice() {
        [] => "(comments only)".into(),
        [one] => (*one).to_string(),
        [first, ..] => format!("{first} … ({} lines)", lines.len()),
    }
}

pub fn draw(app: &App, key: &ObjKey, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let view = app.view();
    let Some(ct) = app
        .data
        .cluster_template(&key.context, &key.namespace, &key.name)
    else {
        crate::tui::screens::chrome::gone(app, key, frame, area);
        return;
    };
    frame.render_widget(body_block(app, Vec::new()), area);
    let rows = template_service_rows(ct, &view.filter);
    let parts = layout::template_detail(area, rows.len());
    let tr = TemplateRef::Cluster(ct);
    let (valid, health) = tr.valid();
    let used = app.data.usage.get(key).copied().unwrap_or(0);
    let label = |s: &'static str| Span::styled(s, t.muted());
    let info = Line::from(vec![
        label("chart "),
        Span::raw(tr.chart()),
        label("  revision "),
        Span::raw(tr.revision()),
        label("  valid "),
        Span::styled(valid, t.health(health)),
        label("  clusters "),
        Span::raw(used.to_string()),
    ]);
    // The engine holds the chart's repository back: why, and the next
    // try, before the message.
    let mut second = Vec::new();
    if let Some(h) = tr.hold() {
        second.extend([
            label("repository "),
            Span::styled(
                hold::short(Some(h), app.now),
                t.health(hold::health(Some(h))),
            ),
            Span::raw("  "),
        ]);
    }
    let (message, is_error) = tr.message();
    second.push(Span::styled(
        message,
        if is_error {
            t.health(Health::Failed)
        } else {
            t.muted()
        },
    ));
    let message = Line::from(second);
    frame.render_widget(paragraph(vec![info, message]), parts.info);

    let total = ct.spec.services.len();
    let title = if rows.len() == total {
        format!(" services ({total}) ")
    } else {
        format!(" services ({}/{total}) ", rows.len())
    };
    frame.render_widget(section(app, title), parts.services);
    let svc_area = Rect {
        y: parts.services.y + 1,
        height: parts.services.height.saturating_sub(1),
        ..parts.services
    };
    // The install order shows only where a service waits for another.
    let ordered = ct.spec.services.iter().any(|s| !s.depends_on.is_empty());
    // Narrow, the columns give way in this order: VALUES, AFTER, NAMESPACE,
    // TEMPLATE; NAME stays.
    let mut cols = vec![
        col("NAME", 6, 24),
        col("TEMPLATE", 8, 32).drop(1),
        col("NAMESPACE", 9, 20).drop(2),
    ];
    if ordered {
        cols.push(col("AFTER", 5, 24).drop(3));
    }
    cols.push(flex("VALUES", 10).drop(4));
    let cells: Vec<Vec<Text>> = rows
        .iter()
        .map(|s| {
            let mut cells = vec![
                (s.name.clone(), Style::new()),
                (s.template.clone(), Style::new()),
                (s.target_namespace().to_string(), t.muted()),
            ];
            if ordered {
                cells.push((s.depends_on.join(","), t.muted()));
            }
            cells.push((summary(s.values.as_deref()), t.muted()));
            cells
        })
        .collect();
    let empty = cells.is_empty();
    table(&app.theme, frame, svc_area, &cols, cells, view, true);
    if empty {
        let text = if total == 0 {
            "no services: clusters made from this template get none".to_string()
        } else {
            format!("no service matches /{}", view.filter)
        };
        empty_note(app, frame, svc_area, text);
    }
    values::pane(app, frame, parts.values);
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn values_in_one_line() {
        assert_eq!(summary(None), "-");
        assert_eq!(summary(Some("  \n")), "-");
        assert_eq!(summary(Some("# only\n")), "(comments only)");
        assert_eq!(summary(Some("a: 1\n")), "a: 1");
        assert_eq!(
            summary(Some("# x\ncontroller:\n  replicaCount: 2\n")),
            "controller: … (2 lines)"
        );
    }
}
