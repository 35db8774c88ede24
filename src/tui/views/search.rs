//! The `/` search's marks in the yaml and values views: every place a line
//! contains the text, the current match's line brighter.

use std::ops::Range;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

/// How a found text looks: reversed; on the current match's line, in the
/// theme's progressing colour and bold too.
pub(crate) fn style(t: &Theme, current: bool) -> Style {
    let found = Style::new().add_modifier(Modifier::REVERSED);
    if current {
        found.fg(t.progressing).add_modifier(Modifier::BOLD)
    } else {
        found
    }
}

/// `line` with `style` over the byte ranges `hits` of its text (the
/// concatenation of its spans), each span keeping its own style elsewhere.
pub(crate) fn mark<'a>(line: Line<'a>, hits: &[Range<usize>], style: Style) -> Line<'a> {
    if hits.is_empty() {
        return line;
    }
    let Line {
        spans,
        style: line_style,
        alignment,
    } = line;
    let mut out: Vec<Span<'a>> = Vec::new();
    let mut start = 0;
    for span in spans {
        let text = span.content.to_string();
        let end = start + text.len();
        let mut cut = start;
        for h in hits.iter().filter(|h| h.start < end && h.end > start) {
            let (s, e) = (h.start.max(start), h.end.min(end));
            if s > cut {
                out.push(Span::styled(
                    text[cut - start..s - start].to_string(),
                    span.style,
                ));
            }
            out.push(Span::styled(
                text[s - start..e - start].to_string(),
                span.style.patch(style),
            ));
            cut = e;
        }
        if cut < end {
            out.push(Span::styled(text[cut - start..].to_string(), span.style));
        }
        start = end;
    }
    Line {
        spans: out,
        style: line_style,
        alignment,
    }
}

#[cfg(test)]
// Byte ranges, one match: not a range meant as a list.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn marks_split_spans_and_keep_their_styles() {
        let key = Style::new().add_modifier(Modifier::ITALIC);
        let line = Line::from(vec![
            Span::raw("  "),
            Span::styled("image:", key),
            Span::raw(" nginx"),
        ]);
        let hit = Style::new().add_modifier(Modifier::REVERSED);
        // "ge: ng" spans the key and the value.
        let hits = vec![5..11];
        let marked = mark(line, &hits, hit);
        let parts: Vec<(String, Style)> = marked
            .spans
            .iter()
            .map(|s| (s.content.to_string(), s.style))
            .collect();
        assert_eq!(
            parts,
            vec![
                ("  ".into(), Style::new()),
                ("ima".into(), key),
                ("ge:".into(), key.patch(hit)),
                (" ng".into(), hit),
                ("inx".into(), Style::new()),
            ]
        );
        assert_eq!(marked.to_string(), "  image: nginx");
    }
}
