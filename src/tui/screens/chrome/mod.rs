//! The chrome around every screen: the header, the status line and the
//! hint bar, the `?` [`help`] and the [`modal`] questions over it; and what
//! every screen's body draws with the app's state: its block with the
//! crumbs, its sections and counts, and the notes it shows when it has
//! nothing to list or its object is gone.

pub(crate) mod help;
pub(crate) mod modal;
mod places;

use ratatui::Frame;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders};

use crate::plan::safe_text::escaped_len;
use crate::plan::yaml::group;
use crate::tui::keys::{Action, Mode, ScreenKind};
use crate::tui::model::key::Kind;
use crate::tui::state::app::{App, Engine, Input};
use crate::tui::state::editor::Stage;
use crate::tui::state::flash::FlashLevel;
use crate::tui::views::columns::{ellipsize, width};
use crate::tui::views::safe::{paragraph, safe_line};

pub(crate) fn header(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let value = Style::new().fg(t.header).add_modifier(Modifier::BOLD);
    let (engine, engine_style) = match app.target.engine {
        Engine::InProcess => ("in-process", Style::new().fg(t.ready)),
        Engine::Standby => ("standby (another engine holds the lease)", t.muted()),
        Engine::Observing { installed: true } => ("in-cluster (observing)", t.muted()),
        Engine::Observing { installed: false } => {
            ("observing (cannot tell if one is installed)", t.muted())
        }
        Engine::Off => ("off (viewer)", t.muted()),
        Engine::Stopped => ("stopped", t.error()),
    };
    let ns = app.target.namespace.clone().unwrap_or_else(|| "all".into());
    // Everything but the cluster URL, which gives way when space is short.
    let mut tail = vec![
        Span::styled("  engine: ", t.muted()),
        Span::styled(engine, engine_style),
        Span::styled(places::engine_scope(app).unwrap_or_default(), t.muted()),
        Span::styled("  ns: ", t.muted()),
        Span::styled(ns, value),
    ];
    if app.target.readonly {
        tail.push(Span::styled(
            "  readonly",
            Style::new().fg(t.progressing).add_modifier(Modifier::BOLD),
        ));
    }
    tail.extend(warning_count(app));
    let mut spans = vec![
        Span::styled("context: ", t.muted()),
        Span::styled(app.target.context.clone(), value),
    ];
    // The contexts open beside it, each with whether it can be reached.
    for other in &app.others {
        spans.push(Span::styled(" +", t.muted()));
        let (mark, style) = if !other.reachable() {
            (" ✗ unreachable", t.error())
        } else if other.trouble().is_some() {
            (" ⚠", Style::new().fg(t.progressing))
        } else if !other.synced {
            (" …", t.muted())
        } else {
            ("", Style::new().fg(t.ready))
        };
        spans.push(Span::styled(other.name.clone(), Style::new().fg(t.header)));
        spans.push(Span::styled(mark, style));
        // The engine field is the first context's; another's engine that
        // stopped on its own is said beside its name.
        if other.engine == Engine::Stopped {
            spans.push(Span::styled(" engine stopped", t.error()));
        }
        if let Engine::Observing { .. } = other.engine {
            spans.push(Span::styled(" engine observing", t.muted()));
        }
        if other.readonly && !app.places.readonly_everywhere {
            spans.push(Span::styled(" (readonly)", t.muted()));
        }
    }
    // The namespace favourites after the namespace, when they fit.
    let favourites = places::favourites(app);
    // Measured as drawn: control characters written out.
    let line = |s: &[Span]| s.iter().map(|s| escaped_len(&s.content)).sum::<usize>();
    if line(&spans) + line(&tail) + line(&favourites) <= usize::from(area.width) {
        tail.splice(5..5, favourites);
    }
    let label = "  cluster: ";
    let used: usize = spans
        .iter()
        .chain(&tail)
        .map(|s| escaped_len(&s.content))
        .sum::<usize>()
        + label.len();
    let room = usize::from(area.width).saturating_sub(used);
    let mut url = app.target.cluster.clone();
    if url.chars().count() > room {
        url = url
            .strip_prefix("https://")
            .map(str::to_string)
            .unwrap_or(url);
    }
    // Too little room for a useful URL: leave it out.
    if room >= 12 {
        spans.push(Span::styled(label, t.muted()));
        spans.push(Span::styled(ellipsize(&url, room as u16), value));
    }
    spans.extend(tail);
    frame.render_widget(paragraph(Line::from(spans)), area);
}

/// `  ⚠ 3 (!)`: how many warnings the engine gave, and the key that lists
/// them; nothing without warnings.
pub(crate) fn warning_count(app: &App) -> Vec<Span<'static>> {
    let n = app.warnings.len();
    if n == 0 {
        return Vec::new();
    }
    let key = app
        .keys
        .label(Mode::Screen(app.screen().kind()), Action::Warnings);
    vec![
        Span::styled(
            format!("  ⚠ {n} warning{}", if n == 1 { "" } else { "s" }),
            Style::new().fg(app.theme.progressing),
        ),
        Span::styled(format!(" ({key})"), app.theme.muted()),
    ]
}

pub(crate) fn connecting(app: &App, frame: &mut Frame, area: Rect) {
    let block = body_block(app, Vec::new());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let y = inner.y + inner.height.saturating_sub(2) / 2;
    let text = vec![
        Line::from(Span::styled("connecting…", app.theme.title())),
        Line::from(Span::styled(
            "waiting for the first list of every watched kind",
            app.theme.muted(),
        )),
    ];
    let area = Rect {
        y,
        height: inner.bottom().saturating_sub(y),
        ..inner
    };
    frame.render_widget(paragraph(text).alignment(Alignment::Center), area);
}

pub(crate) fn status(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let line = match &app.input {
        Input::Command(text) => {
            let mut spans = vec![
                Span::styled(":", t.title()),
                Span::raw(text.clone()),
                Span::raw("  "),
            ];
            match places::candidates(app, text) {
                Ok(names) => spans.push(Span::styled(names, t.muted())),
                Err(none) => spans.push(Span::styled(none, t.error())),
            }
            frame.set_cursor_position((area.x + 1 + text.chars().count() as u16, area.y));
            Line::from(spans)
        }
        Input::Filter => {
            let filter = &app.view().filter;
            frame.set_cursor_position((area.x + 1 + filter.chars().count() as u16, area.y));
            Line::from(vec![
                Span::styled("/", t.title()),
                Span::raw(filter.clone()),
                Span::styled(
                    if app.screen().scrolls() {
                        format!("  {} lines match", app.match_count())
                    } else {
                        format!("  {} match", app.match_count())
                    },
                    t.muted(),
                ),
            ])
        }
        Input::None => match &app.flash {
            Some(f) => {
                let (icon, style) = match f.level {
                    FlashLevel::Error => ("✗ ", t.error()),
                    FlashLevel::Warn => ("! ", Style::new().fg(t.progressing)),
                    FlashLevel::Info => ("• ", t.accent()),
                };
                Line::from(vec![
                    Span::styled(icon, style),
                    Span::styled(f.text.clone(), style),
                ])
            }
            None if !app.view().filter.is_empty() && app.screen().scrolls() => {
                let mode = Mode::Screen(app.screen().kind());
                Line::from(vec![
                    Span::styled("search ", t.muted()),
                    Span::styled(format!("/{}", app.view().filter), t.accent()),
                    Span::styled(
                        format!(
                            "  {} lines match  ({} next, {} previous, {} clears)",
                            app.match_count(),
                            app.keys.label(mode, Action::NextMatch),
                            app.keys.label(mode, Action::PreviousMatch),
                            back_key(app)
                        ),
                        t.muted(),
                    ),
                ])
            }
            None if !app.view().filter.is_empty() => Line::from(vec![
                Span::styled("filter ", t.muted()),
                Span::styled(format!("/{}", app.view().filter), t.accent()),
                Span::styled(format!("  ({} clears)", back_key(app)), t.muted()),
            ]),
            None => Line::default(),
        },
    };
    frame.render_widget(paragraph(line), area);
}

/// The hint bar; `applies` says which actions apply now (the others are
/// dimmed).
pub(crate) fn hints(app: &App, frame: &mut Frame, area: Rect, applies: &dyn Fn(Action) -> bool) {
    let t = &app.theme;
    let mode = app.mode();
    let pairs: Vec<(String, &str, bool)> = match mode {
        Mode::Screen(_) if app.help => vec![
            (app.keys.label(mode, Action::Back), "close help", true),
            (app.keys.label(mode, Action::Quit), "quit", true),
        ],
        // Nothing to press while a save is on its way.
        Mode::Screen(ScreenKind::Editor)
            if app
                .editor
                .as_ref()
                .is_some_and(|e| matches!(e.stage, Stage::Saving)) =>
        {
            Vec::new()
        }
        _ => {
            let note = app.editor.as_ref().is_some_and(|e| e.note.is_some());
            app.keys.hints_now(mode, note, applies)
        }
    };
    // Short of room: the command prompt's hint goes first (`?` lists it).
    let needed: usize = pairs
        .iter()
        .map(|(k, d, _)| k.chars().count() + 1 + d.chars().count() + 2)
        .sum::<usize>()
        .saturating_sub(2);
    let mut pairs = pairs;
    if needed > usize::from(area.width) {
        pairs.retain(|(k, _, _)| k != ":");
    }
    let mut spans = Vec::new();
    for (i, (key, desc, now)) in pairs.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::raw("  "));
        }
        let (key_style, desc_style) = if now {
            (
                Style::new().fg(t.accent).add_modifier(Modifier::BOLD),
                t.muted(),
            )
        } else {
            (t.dimmed(), t.dimmed())
        };
        spans.push(Span::styled(key, key_style));
        spans.push(Span::raw(" "));
        spans.push(Span::styled(desc, desc_style));
    }
    frame.render_widget(paragraph(Line::from(spans)), area);
}

/// The key that goes back on the screen shown, as texts name it.
pub(crate) fn back_key(app: &App) -> String {
    app.keys
        .label(Mode::Screen(app.screen().kind()), Action::Back)
}

/// The crumbs, as a block title: `clusters › staging-1 › yaml`.
pub(crate) fn crumbs(app: &App) -> Vec<Span<'static>> {
    let t = &app.theme;
    let mut spans = vec![Span::raw(" ")];
    for (i, view) in app.stack.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" › ", t.muted()));
        }
        let style = if i + 1 == app.stack.len() {
            t.title()
        } else {
            t.accent()
        };
        spans.push(Span::styled(view.crumb(), style));
    }
    spans
}

/// The bordered block of the body, with the crumbs and `extra` as title,
/// and the filter on the right.
pub(crate) fn body_block(app: &App, extra: Vec<Span<'static>>) -> Block<'static> {
    let mut title = crumbs(app);
    title.extend(extra);
    title.push(Span::raw(" "));
    let mut block = Block::bordered()
        .border_style(app.theme.muted())
        .title(safe_line(Line::from(title)));
    let filter = &app.view().filter;
    if !filter.is_empty() {
        block = block.title(
            safe_line(Line::from(vec![
                Span::raw(" "),
                Span::styled(format!("/{filter}"), app.theme.accent()),
                Span::raw(" "),
            ]))
            .right_aligned(),
        );
    }
    block
}

/// A titled section inside a screen's block: a rule with the title on it.
pub(crate) fn section(app: &App, title: String) -> Block<'static> {
    Block::new()
        .borders(Borders::TOP)
        .border_style(app.theme.muted())
        .title(safe_line(Line::from(Span::styled(
            title,
            app.theme.title(),
        ))))
}

/// ` loading 3,200 / 10,000` after a list's count while the first lists of
/// its `kinds` are on their way: how many of their objects are at hand,
/// and of how many when the API server said. Nothing once they are all
/// there.
pub(crate) fn loading(app: &App, kinds: &[Kind]) -> Vec<Span<'static>> {
    let mut shown = 0;
    let mut total = Some(0);
    let mut any = false;
    for kind in kinds {
        match app.data.loading_of(*kind) {
            Some(l) => {
                any = true;
                shown += l.shown;
                total = total.zip(l.total).map(|(a, b)| a + b);
            }
            // Complete: what it holds is all there is.
            None => {
                let held = app.data.count_of(*kind);
                shown += held;
                total = total.map(|t| t + held);
            }
        }
    }
    if !any {
        return Vec::new();
    }
    let text = match total {
        Some(total) if total >= shown => {
            format!(" loading {} / {}…", group(shown), group(total))
        }
        _ if shown == 0 => " loading…".to_string(),
        _ => format!(" loading {}…", group(shown)),
    };
    vec![Span::styled(text, Style::new().fg(app.theme.progressing))]
}

/// `(shown/total)` or `(total)` after the crumbs.
/// The CONTEXT column's widest cell: the longest open context's name.
pub(crate) fn widest_context(app: &App) -> u16 {
    app.data
        .contexts
        .iter()
        .map(|c| width(c))
        .max()
        .unwrap_or(0)
}

pub(crate) fn count(app: &App, shown: usize, total: usize) -> Vec<Span<'static>> {
    let text = if shown == total {
        format!(" ({total})")
    } else {
        format!(" ({shown}/{total})")
    };
    vec![Span::styled(text, app.theme.muted())]
}

/// A muted line in the middle of the rows area, for empty lists.
pub(crate) fn empty_note(app: &App, frame: &mut Frame, area: Rect, text: String) {
    if area.height < 2 {
        return;
    }
    let area = Rect {
        y: area.y + 1,
        height: 1,
        ..area
    };
    frame.render_widget(
        paragraph(Span::styled(text, app.theme.muted())).alignment(Alignment::Center),
        area,
    );
}

/// The body of a screen whose object is gone: says so, and how to go back.
pub(crate) fn gone(app: &App, key: &crate::tui::model::key::ObjKey, frame: &mut Frame, area: Rect) {
    let block = body_block(app, Vec::new());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    empty_note(app, frame, inner, gone_note(app, key));
}

/// What a screen says of its object once it is gone, and how to go back.
pub(crate) fn gone_note(app: &App, key: &crate::tui::model::key::ObjKey) -> String {
    format!(
        "{} {}/{} no longer exists ({} goes back)",
        key.kind.label(),
        key.namespace,
        key.name,
        back_key(app)
    )
}
