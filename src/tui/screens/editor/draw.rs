//! The values editor: the text with line numbers and the YAML error marked
//! (and the lines the chart finds fault with), its status line, and its
//! questions (discard, the merged diff before a save, a conflict).

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::plan::chart_check::{Finding, Level};
use crate::tui::keys::{Action, Mode, ScreenKind};
use crate::tui::layout;
use crate::tui::model::chart::ChartStatus;
use crate::tui::model::health::Health;
use crate::tui::screens::chrome::modal::{
    POPUP_WIDTH, answer_key, next_key, popup, popup_of, wrapped_height,
};
use crate::tui::screens::chrome::{body_block, empty_note, section};
use crate::tui::state::app::App;
use crate::tui::state::editor::{Editor, Stage, gutter};
use crate::tui::theme::Theme;
use crate::tui::views::columns::ellipsize;
use crate::tui::views::safe::paragraph;

/// The review's width when it shows the fleet: room for a group's count,
/// service and first changes on one line.
const REVIEW_FLEET_WIDTH: u16 = 110;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let block = body_block(app, Vec::new());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(editor) = app.editor.as_ref() else {
        empty_note(
            app,
            frame,
            inner,
            format!(
                "the editor is closed ({} goes back)",
                app.keys
                    .label(Mode::Screen(ScreenKind::Clusters), Action::Back)
            ),
        );
        return;
    };
    let parts = layout::editor(area, editor.note.is_some());
    info(app, editor, frame, parts.info);
    text(t, editor, frame, parts.text);
    if let Some(note_area) = parts.note {
        note(app, editor, frame, note_area);
    }
    status(t, editor, frame, parts.status);
    if editor.stage == Stage::Editing && frame.area().intersects(parts.text) {
        let (row, col) = editor.area.cursor();
        let g = gutter(editor.area.lines().len());
        let x = parts.text.x as usize + g + col.saturating_sub(editor.left);
        let y = parts.text.y as usize + row.saturating_sub(editor.top);
        if x < parts.text.right() as usize && y < parts.text.bottom() as usize {
            frame.set_cursor_position((x as u16, y as u16));
        }
    }
    question(app, editor, frame, area);
}

/// Which object and service, and whether it changed since it was opened.
fn info(app: &App, editor: &Editor, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let key = &editor.key;
    let changed = editor.stage != Stage::Saving && editor.changed_since_opened(&app.data);
    let notice = "! changed by someone else since you opened it";
    let room = if changed {
        area.width.saturating_sub(notice.chars().count() as u16 + 1)
    } else {
        area.width
    };
    let mut text = format!(
        "{} {}  services[{}].values",
        key.object.kind.label(),
        key.object.name,
        key.service
    );
    if !editor.base.has_entry(&key.service) {
        text.push_str(" (new entry)");
    }
    frame.render_widget(
        paragraph(Span::styled(ellipsize(&text, room), t.muted())),
        area,
    );
    if changed {
        frame.render_widget(
            paragraph(Span::styled(notice, t.health(Health::Progressing)))
                .alignment(Alignment::Right),
            area,
        );
    }
}

/// The lines in view, numbered, with the error position marked.
fn text(t: &Theme, editor: &Editor, frame: &mut Frame, area: Rect) {
    let lines = editor.area.lines();
    let g = gutter(lines.len());
    let width = usize::from(area.width).saturating_sub(g);
    let error = editor.error_at();
    let mark = t.error().add_modifier(Modifier::REVERSED);
    let mut out: Vec<Line> = Vec::new();
    for (i, line) in lines
        .iter()
        .enumerate()
        .skip(editor.top)
        .take(usize::from(area.height))
    {
        let on_error_line = error.is_some_and(|(l, _)| l == i);
        let number = format!("{:>w$} ", i + 1, w = g - 1);
        let number_style = match line_level(editor, i) {
            _ if on_error_line => t.error(),
            Some(Level::Error) => t.error(),
            Some(Level::Warning) => t.health(Health::Progressing),
            None => t.muted(),
        };
        let mut spans = vec![Span::styled(number, number_style)];
        let chars: Vec<char> = line.chars().collect();
        let shown: String = chars.iter().skip(editor.left).take(width).collect();
        match error {
            Some((l, c)) if l == i && c >= editor.left && c < editor.left + width => {
                let at = c - editor.left;
                let before: String = shown.chars().take(at).collect();
                let marked: String = shown.chars().nth(at).map_or(" ".into(), String::from);
                let after: String = shown.chars().skip(at + 1).collect();
                let pad = at.saturating_sub(before.chars().count());
                spans.push(Span::raw(before));
                spans.push(Span::raw(" ".repeat(pad)));
                spans.push(Span::styled(marked, mark));
                spans.push(Span::raw(after));
            }
            _ => spans.push(Span::raw(shown)),
        }
        let used = chars.len().saturating_sub(editor.left).min(width);
        if let Some(notes) = line_notes(t, editor, i, width.saturating_sub(used)) {
            spans.push(notes);
        }
        out.push(Line::from(spans));
    }
    if editor.text().is_empty() && editor.note.is_none() && area.height > 2 {
        out.push(Line::default());
        for hint in empty_hint(&editor.chart) {
            out.push(Line::from(Span::styled(
                format!(
                    "{}{}",
                    " ".repeat(g),
                    ellipsize(&hint, area.width.saturating_sub(g as u16))
                ),
                t.muted(),
            )));
        }
    }
    // The person's own text, cut and marked by its characters as typed:
    // written out, a control character would widen its line past the cut
    // and move the error's mark (ratatui never sends one to the terminal).
    frame.render_widget(Paragraph::new(out), area);
}

/// The worst finding on line `i` (0-based), if any.
fn line_level(editor: &Editor, i: usize) -> Option<Level> {
    editor
        .findings
        .iter()
        .filter(|f| f.at.is_some_and(|(l, _)| l == i))
        .map(|f| f.level)
        .max()
}

/// What an empty editor suggests: keys of the service's chart once the
/// console has it.
fn empty_hint(chart: &ChartStatus) -> Vec<String> {
    let Some(values) = chart.values() else {
        return vec!["empty: no overrides here; type YAML, such as `key: value`".into()];
    };
    let mut hint = vec![match values.example() {
        Some(example) => format!("empty: no overrides here; type YAML such as `{example}`"),
        None => "empty: no overrides here; type YAML".into(),
    }];
    let keys = values.top_keys();
    if !keys.is_empty() {
        hint.push(format!("values of {}: {}", values.id, keys.join(", ")));
    }
    hint
}

/// The finding the status line shows in full: the worst one on the
/// cursor's line.
fn cursor_finding(editor: &Editor) -> Option<&Finding> {
    let row = editor.area.cursor().0;
    editor
        .findings
        .iter()
        .filter(|f| f.at.is_some_and(|(l, _)| l == row))
        .max_by_key(|f| f.level)
}

/// `1 error, 2 warnings`.
fn counts(editor: &Editor) -> String {
    let plural = |n: usize, one: &str| match n {
        1 => format!("1 {one}"),
        n => format!("{n} {one}s"),
    };
    let (errors, warnings) = (editor.errors().count(), editor.warnings().count());
    match (errors, warnings) {
        (0, w) => plural(w, "warning"),
        (e, 0) => plural(e, "error"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

/// Beside a line: what the chart finds wrong on it, in short.
fn line_notes(t: &Theme, editor: &Editor, i: usize, room: usize) -> Option<Span<'static>> {
    let on_line: Vec<&Finding> = editor
        .findings
        .iter()
        .filter(|f| f.at.is_some_and(|(l, _)| l == i))
        .collect();
    let worst = on_line.iter().map(|f| f.level).max()?;
    if room < 8 {
        return None;
    }
    let notes: Vec<&str> = on_line.iter().map(|f| f.note.as_str()).collect();
    let style = match worst {
        Level::Error => t.error(),
        Level::Warning => t.health(Health::Progressing),
    };
    Some(Span::styled(
        ellipsize(&format!("  ← {}", notes.join("; ")), room as u16),
        style,
    ))
}

/// The text typed before a reload.
fn note(app: &App, editor: &Editor, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    frame.render_widget(
        section(
            app,
            format!(
                " your text, not saved ({} puts it back) ",
                app.keys
                    .label(Mode::Screen(ScreenKind::Editor), Action::PutBack)
            ),
        ),
        area,
    );
    let body = Rect {
        y: area.y + 1,
        height: area.height.saturating_sub(1),
        ..area
    };
    let lines: Vec<Line> = editor
        .note
        .as_deref()
        .unwrap_or_default()
        .lines()
        .take(usize::from(body.height))
        .map(|l| Line::from(Span::styled(ellipsize(l, body.width), t.muted())))
        .collect();
    frame.render_widget(paragraph(lines), body);
}

/// Valid or where the error is; the cursor position and whether the text
/// changed.
fn status(t: &Theme, editor: &Editor, frame: &mut Frame, area: Rect) {
    let (row, col) = editor.area.cursor();
    let mut right = format!("ln {}, col {}", row + 1, col + 1);
    right.push_str(match (&editor.stage, editor.dirty()) {
        (Stage::Saving, _) => "  saving…",
        (_, true) => "  modified",
        (_, false) => "  unchanged",
    });
    let right_width = right.chars().count() as u16;
    let left_width = area.width.saturating_sub(right_width + 2);
    let left = match (&editor.check, cursor_finding(editor)) {
        (Ok(()), _) if editor.findings.is_empty() => {
            match (&editor.chart, editor.chart.syntax_only()) {
                (ChartStatus::Ready(values), _) => Line::from(Span::styled(
                    ellipsize(&format!("✓ valid values of {}", values.id), left_width),
                    t.health(Health::Ready),
                )),
                (_, why) => {
                    let ok = "✓ valid YAML";
                    let rest = why.map(|w| format!("; {w}")).unwrap_or_default();
                    let room = left_width.saturating_sub(ok.chars().count() as u16);
                    Line::from(vec![
                        Span::styled(ok, t.health(Health::Ready)),
                        Span::styled(ellipsize(&rest, room), t.muted()),
                    ])
                }
            }
        }
        (Ok(()), shown) => {
            let level = shown
                .map(|f| f.level)
                .or_else(|| editor.findings.iter().map(|f| f.level).max());
            let (mark, style) = match level {
                Some(Level::Error) => ("✗", t.error()),
                _ => ("!", t.health(Health::Progressing)),
            };
            let text = match (shown, &editor.chart) {
                (Some(f), _) => format!("{mark} {}", f.text()),
                (None, chart) => {
                    let of = chart
                        .values()
                        .map(|c| format!(" for {}", c.id))
                        .unwrap_or_default();
                    format!("{mark} {}{of}", counts(editor))
                }
            };
            Line::from(Span::styled(ellipsize(&text, left_width), style))
        }
        (Err(e), _) => Line::from(Span::styled(
            ellipsize(&format!("✗ {e}"), left_width),
            t.error(),
        )),
    };
    frame.render_widget(
        paragraph(left),
        Rect {
            width: left_width,
            ..area
        },
    );
    frame.render_widget(
        paragraph(Span::styled(right, t.muted())).alignment(Alignment::Right),
        area,
    );
}

/// The question the editor asks, if any.
fn question(app: &App, editor: &Editor, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let object = format!(
        "{} {}",
        editor.key.object.kind.label(),
        editor.key.object.name
    );
    let who = app
        .user_at(&editor.key.object.context)
        .map(|u| format!(" as {u}"))
        .unwrap_or_default();
    match &editor.stage {
        Stage::Editing | Stage::Saving => {}
        Stage::Discard { quit } => {
            let question = if *quit {
                format!(
                    "Discard your changes to the values of {} and quit the console?",
                    editor.key.service
                )
            } else {
                format!(
                    "Discard your changes to the values of {}?",
                    editor.key.service
                )
            };
            let lines = vec![
                Line::from(question),
                Line::default(),
                Line::from(vec![
                    answer_key(app, Mode::Discard, Action::Discard),
                    Span::raw("discard"),
                    Span::raw("    "),
                    next_key(app, Mode::Discard, Action::KeepEditing),
                    Span::raw("keep editing"),
                ]),
            ];
            popup(
                app,
                frame,
                area,
                " unsaved changes ".into(),
                lines,
                Style::new().fg(t.progressing),
            );
        }
        Stage::Review(review) => {
            let mut head = vec![Line::from(format!(
                "Merged values of {}, before → after:",
                editor.key.service
            ))];
            // The fleet's groups name paths and values: wider than a question.
            let max_width = if review.fleet.is_some() {
                REVIEW_FLEET_WIDTH
            } else {
                POPUP_WIDTH
            };
            let inner_w = usize::from(
                max_width
                    .min(area.width.saturating_sub(2))
                    .saturating_sub(2),
            )
            .max(1);
            let mut tail: Vec<Line> = Vec::new();
            if let Some(fleet) = &review.fleet {
                tail.extend(super::fleet_review::lines(app, fleet, inner_w));
            }
            if !review.notes.is_empty() {
                tail.push(Line::default());
            }
            tail.extend(review.notes.iter().map(|n| {
                // A key the chart does not have: the save goes through,
                // but it is said.
                let style = if n.starts_with("! ") {
                    t.health(Health::Progressing)
                } else {
                    t.muted()
                };
                Line::from(Span::styled(n.clone(), style))
            }));
            tail.push(Line::default());
            let confirming = review.fleet.as_ref().is_some_and(|f| f.confirming);
            tail.push(Line::from(vec![
                answer_key(app, Mode::Review, Action::Apply),
                Span::raw(if confirming {
                    format!("apply anyway{who}")
                } else {
                    format!("apply{who}")
                }),
                Span::raw("    "),
                next_key(app, Mode::Review, Action::KeepEditing),
                Span::raw("keep editing"),
            ]));
            let fixed: usize = head
                .iter()
                .chain(&tail)
                .map(|l| wrapped_height(&l.to_string(), inner_w))
                .sum();
            let room = usize::from(area.height).saturating_sub(2 + fixed).max(1);
            if review.changes.is_empty() {
                head.push(Line::from(Span::styled(
                    "  no change: only comments or layout differ",
                    t.muted(),
                )));
            } else {
                let shown = if review.changes.len() > room {
                    room.saturating_sub(1).max(1)
                } else {
                    review.changes.len()
                };
                for change in review.changes.iter().take(shown) {
                    let style = if change.starts_with("- ") {
                        t.health(Health::Failed)
                    } else if change.starts_with("+ ") {
                        t.health(Health::Ready)
                    } else {
                        t.accent()
                    };
                    head.push(Line::from(Span::styled(
                        format!("  {}", ellipsize(change, inner_w.saturating_sub(2) as u16)),
                        style,
                    )));
                }
                if shown < review.changes.len() {
                    head.push(Line::from(Span::styled(
                        format!("  … and {} more", review.changes.len() - shown),
                        t.muted(),
                    )));
                }
            }
            head.extend(tail);
            popup_of(
                app,
                frame,
                area,
                format!(" save {}: {} ", editor.key.service, object),
                head,
                t.accent(),
                max_width,
            );
        }
        Stage::Conflict { .. } => {
            let lines = vec![
                Line::from(Span::styled(
                    format!("{object} changed by someone else since you opened it."),
                    t.error(),
                )),
                Line::from(
                    "The API server refused the save (409 Conflict); nothing was overwritten.",
                ),
                Line::default(),
                Line::from(vec![
                    answer_key(app, Mode::Conflict, Action::Reload),
                    Span::raw("reload: reopen on the current values; your text stays in a note"),
                ]),
                Line::from(vec![
                    answer_key(app, Mode::Conflict, Action::KeepMine),
                    Span::raw("back to your text (saving stays refused until you reload)"),
                ]),
            ];
            popup(
                app,
                frame,
                area,
                " not saved: conflict ".into(),
                lines,
                t.error(),
            );
        }
    }
}
