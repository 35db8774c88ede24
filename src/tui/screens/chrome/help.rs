//! The `?` overlay, generated from the key map and the command table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

use crate::tui::keys::{self, Action};
use crate::tui::state::app::App;
use crate::tui::views::safe::paragraph;

/// One entry of the help: a key (or command) and what it does, with an
/// optional muted tail; dimmed when it does not apply now.
struct Entry {
    key: String,
    text: String,
    tail: String,
    now: bool,
}

/// Draws the help over `area`; `applies` says which actions apply now.
pub fn draw(app: &App, frame: &mut Frame, area: Rect, applies: &dyn Fn(Action) -> bool) {
    let t = &app.theme;
    let mode = keys::Mode::Screen(app.screen().kind());
    let bindings = app.keys.help_now(mode, applies);
    let key_w = bindings
        .iter()
        .map(|(k, _, _)| k.chars().count())
        // A long command name (`:clustertemplates`) overflows its own line
        // rather than pushing every description right.
        .chain(keys::COMMANDS.iter().map(|c| (c.name.len() + 1).min(10)))
        .max()
        .unwrap_or(8)
        + 2;
    let mut entries: Vec<Option<Entry>> = bindings
        .iter()
        .map(|(k, d, now)| {
            Some(Entry {
                key: k.clone(),
                text: (*d).to_string(),
                // Said as well as dimmed: what does not apply now.
                tail: if *now {
                    String::new()
                } else {
                    " (not now)".into()
                },
                now: *now,
            })
        })
        .collect();
    // Short of room: the commands on one line, right below the keys.
    let roomy = entries.len() + 1 + keys::COMMANDS.len() + 2 <= usize::from(area.height);
    if roomy {
        entries.push(None);
        entries.extend(keys::COMMANDS.iter().map(|c| {
            let aliases: Vec<&str> = c.aliases.iter().take(3).copied().collect();
            Some(Entry {
                key: format!(":{}", c.name),
                text: c.description.to_string(),
                tail: format!("  ({})", aliases.join(" ")),
                now: true,
            })
        }));
    } else {
        let names: Vec<String> = keys::COMMANDS
            .iter()
            .map(|c| format!(":{}", c.name))
            .collect();
        entries.push(Some(Entry {
            key: "commands".into(),
            text: names.join(" "),
            tail: String::new(),
            now: true,
        }));
    }
    // As wide as the longest entry, within the screen; longer ones wrap
    // under their text.
    let widest = entries
        .iter()
        .flatten()
        .map(|e| key_w + 2 + e.text.chars().count() + e.tail.chars().count())
        .max()
        .unwrap_or(0);
    let width = (widest as u16 + 3)
        .max(40)
        .min(area.width.saturating_sub(2));
    let text_w = usize::from(width.saturating_sub(2))
        .saturating_sub(key_w + 2)
        .max(8);
    let mut lines: Vec<Line> = Vec::new();
    for entry in &entries {
        let Some(e) = entry else {
            lines.push(Line::default());
            continue;
        };
        let mut parts = wrap(&e.text, text_w);
        let tail_fits =
            parts.last().map_or(0, |l| l.chars().count()) + e.tail.chars().count() <= text_w;
        let tail_line = !e.tail.is_empty() && !tail_fits;
        if tail_line {
            parts.push(String::new());
        }
        let last = parts.len() - 1;
        for (i, part) in parts.into_iter().enumerate() {
            let key = if i == 0 { e.key.as_str() } else { "" };
            let (key_style, text_style) = if e.now {
                (t.title(), ratatui::style::Style::new())
            } else {
                (t.dimmed(), t.dimmed())
            };
            let mut spans = vec![
                Span::styled(format!("{key:>key_w$}"), key_style),
                Span::raw("  "),
                Span::styled(part, text_style),
            ];
            if i == last && !e.tail.is_empty() {
                let tail = if tail_line {
                    e.tail.trim_start()
                } else {
                    &e.tail
                };
                let tail_style = if e.now { t.muted() } else { t.dimmed() };
                spans.push(Span::styled(tail.to_string(), tail_style));
            }
            lines.push(Line::from(spans));
        }
    }
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = super::modal::centred(area, width, height);
    // Taller than the screen: it scrolls, and the last line says how
    // much is left below.
    let room = usize::from(height.saturating_sub(2));
    if lines.len() > room && room > 1 {
        let skip = app.help_scroll.min(lines.len() - room);
        lines.drain(..skip);
        if lines.len() > room {
            let hidden = lines.len() - room + 1;
            lines.truncate(room - 1);
            lines.push(Line::from(Span::styled(
                format!(
                    "{:>key_w$}  … {hidden} more lines: {} scrolls",
                    "",
                    app.keys.label(mode, keys::Action::Down)
                ),
                t.muted(),
            )));
        }
    }
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
    frame.render_widget(paragraph(lines).block(block), popup);
}

/// `text` in lines of at most `width` characters, broken between words
/// (a word longer than a line is cut).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = vec![String::new()];
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let line = lines.last_mut().expect("never empty");
            let used = line.chars().count();
            let need = if used == 0 {
                word.len()
            } else {
                used + 1 + word.len()
            };
            if need <= width {
                if used > 0 {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if used > 0 {
                lines.push(String::new());
                continue;
            }
            // A word wider than a whole line.
            line.extend(word.drain(..width));
            lines.push(String::new());
        }
    }
    if lines.len() > 1 && lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn wraps_between_words_and_cuts_long_ones() {
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("one two three", 7), vec!["one two", "three"]);
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a abcdefgh", 4), vec!["a", "abcd", "efgh"]);
    }
}
