//! The questions asked before a request that cannot be undone.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Wrap};

use ratatui::style::Style;

use crate::tui::keys::{Action, Mode};
use crate::tui::state::app::{App, Modal};
use crate::tui::views::safe::{paragraph, safe_line};

/// The key of an answer, as a question lists it: right-aligned in its
/// column, from the keymap, so a remapped key is the one named.
pub fn answer_key(app: &App, mode: Mode, action: Action) -> Span<'static> {
    Span::styled(
        format!("{:>3}  ", app.keys.label(mode, action)),
        app.theme.title(),
    )
}

/// The key of a second answer on the same line.
pub fn next_key(app: &App, mode: Mode, action: Action) -> Span<'static> {
    Span::styled(
        format!("{}  ", app.keys.label(mode, action)),
        app.theme.title(),
    )
}

pub fn draw(app: &App, modal: &Modal, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let key = |mode: Mode, action: Action| answer_key(app, mode, action);
    // As the identity the console has in the object's own context.
    let context = match modal {
        Modal::StopChoice { rollout } | Modal::Confirm { rollout, .. } => &rollout.context,
        Modal::Delete { target, .. } => &target.context,
    };
    let who = app
        .user_at(context)
        .map(|u| format!(" as {u}"))
        .unwrap_or_default();
    let (title, lines) = match modal {
        Modal::StopChoice { rollout } => (
            format!(" stop {} ", rollout.name),
            vec![
                Line::from("How should the rollout stop?"),
                Line::default(),
                Line::from(vec![
                    key(Mode::AbortChoice, Action::Stay),
                    Span::raw("abort: no more waves; updated clusters keep the new revision"),
                ]),
                Line::from(vec![
                    key(Mode::AbortChoice, Action::RollBack),
                    Span::raw("roll back: touched clusters go back to their last good revision"),
                ]),
                Line::from(vec![
                    key(Mode::AbortChoice, Action::Cancel),
                    Span::raw("cancel"),
                ]),
            ],
        ),
        Modal::Confirm {
            request, question, ..
        } => (
            format!(" confirm: {} ", request.to_annotation()),
            yes_no(app, Mode::Confirm, question, format!("yes, ask{who}")),
        ),
        Modal::Delete { target, question } => (
            format!(" delete {} ", target.name),
            yes_no(app, Mode::Delete, question, format!("yes, delete{who}")),
        ),
    };
    popup(app, frame, area, title, lines, t.error());
}

/// A yes/no question: the question, then its two answers and their keys.
fn yes_no(app: &App, mode: Mode, question: &str, yes: String) -> Vec<Line<'static>> {
    vec![
        Line::from(Span::styled(
            question.to_string(),
            app.theme.header().remove_modifier(Modifier::BOLD),
        )),
        Line::default(),
        Line::from(vec![
            answer_key(app, mode, Action::Yes),
            Span::raw(yes),
            Span::raw("    "),
            next_key(app, mode, Action::No),
            Span::raw("no"),
        ]),
    ]
}

/// A question over the screen: `lines` in a bordered box with `title`,
/// centred in `area`, 72 columns at most.
pub(crate) fn popup(
    app: &App,
    frame: &mut Frame,
    area: Rect,
    title: String,
    lines: Vec<Line<'_>>,
    border: Style,
) {
    popup_of(app, frame, area, title, lines, border, POPUP_WIDTH)
}

/// A `width` × `height` rectangle in the middle of `area`.
pub(crate) fn centred(area: Rect, width: u16, height: u16) -> Rect {
    let [popup] = Layout::horizontal([Constraint::Length(width)])
        .flex(Flex::Center)
        .areas(area);
    let [popup] = Layout::vertical([Constraint::Length(height)])
        .flex(Flex::Center)
        .areas(popup);
    popup
}

/// The width of a popup, its border included, on a terminal wide enough.
pub(crate) const POPUP_WIDTH: u16 = 72;

/// [`popup`] at most `max_width` columns wide, for a popup whose lines
/// carry more than a sentence (a fleet's groups).
pub(crate) fn popup_of(
    app: &App,
    frame: &mut Frame,
    area: Rect,
    title: String,
    lines: Vec<Line<'_>>,
    border: Style,
    max_width: u16,
) {
    let t = &app.theme;
    let width = max_width.min(area.width.saturating_sub(2));
    let inner_w = usize::from(width.saturating_sub(2)).max(1);
    let wrapped: usize = lines
        .iter()
        .map(|l| wrapped_height(&l.to_string(), inner_w))
        .sum();
    let height = (wrapped as u16 + 2).min(area.height);
    let popup = centred(area, width, height);
    let block = Block::bordered()
        .border_style(border)
        .title(safe_line(Line::from(Span::styled(title, t.title()))));
    frame.render_widget(Clear, popup);
    frame.render_widget(
        paragraph(lines).block(block).wrap(Wrap { trim: false }),
        popup,
    );
}

/// How many lines `text` takes when wrapped at word boundaries to `width`.
pub(crate) fn wrapped_height(text: &str, width: usize) -> usize {
    let mut lines = 1;
    let mut used = 0;
    for word in text.split(' ') {
        let w = word.chars().count();
        let need = if used == 0 { w } else { used + 1 + w };
        if need <= width {
            used = need;
        } else {
            lines += 1 + w.saturating_sub(1) / width;
            used = w % width;
        }
    }
    lines
}
