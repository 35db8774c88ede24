//! The `?` overlay, generated from the key map and the command table.

use ratatui::Frame;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::tui::keys;
use crate::tui::state::app::App;

pub fn draw(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mode = keys::Mode::Screen(app.screen().kind());
    let bindings = app.keys.help(mode);
    let key_w = bindings
        .iter()
        .map(|(k, _)| k.chars().count())
        // A long command name (`:clustertemplates`) overflows its own line
        // rather than pushing every description right.
        .chain(keys::COMMANDS.iter().map(|c| (c.name.len() + 1).min(10)))
        .max()
        .unwrap_or(8)
        + 2;
    let mut lines: Vec<Line> = Vec::new();
    for (k, d) in &bindings {
        lines.push(Line::from(vec![
            Span::styled(format!("{k:>key_w$}"), t.title()),
            Span::raw("  "),
            Span::raw(*d),
        ]));
    }
    // Short of room: the commands on one line, right below the keys.
    let roomy = lines.len() + 1 + keys::COMMANDS.len() + 2 <= usize::from(area.height);
    if roomy {
        lines.push(Line::default());
    } else {
        let names: Vec<String> = keys::COMMANDS
            .iter()
            .map(|c| format!(":{}", c.name))
            .collect();
        lines.push(Line::from(vec![
            Span::styled(format!("{:>key_w$}", "commands"), t.title()),
            Span::raw("  "),
            Span::raw(names.join(" ")),
        ]));
    }
    for c in keys::COMMANDS.iter().filter(|_| roomy) {
        let aliases: Vec<&str> = c.aliases.iter().take(3).copied().collect();
        lines.push(Line::from(vec![
            Span::styled(format!("{:>key_w$}", format!(":{}", c.name)), t.title()),
            Span::raw("  "),
            Span::raw(c.description),
            Span::styled(format!("  ({})", aliases.join(" ")), t.muted()),
        ]));
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let width = 72.min(area.width.saturating_sub(2));
    let [popup] = Layout::horizontal([Constraint::Length(width)])
        .flex(Flex::Center)
        .areas(area);
    let [popup] = Layout::vertical([Constraint::Length(height)])
        .flex(Flex::Center)
        .areas(popup);
    let block = Block::bordered()
        .border_style(t.accent())
        .title(Line::from(vec![
            Span::raw(" "),
            Span::styled(format!("help: {}", mode.title()), t.title()),
            Span::raw(" "),
        ]))
        .title_bottom(
            Line::from(Span::styled(
                format!(" {} closes ", app.keys.label(mode, keys::Action::Back)),
                t.muted(),
            ))
            .right_aligned(),
        );
    frame.render_widget(Clear, popup);
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}
