//! Where text enters the frame: every paragraph, and every block title
//! made of text from the API, shows its control characters written out
//! (`\u{1b}`). Ratatui drops a control character without a trace; a
//! reader should see that one was there.

use ratatui::text::{Line, Text as Lines};
use ratatui::widgets::Paragraph;

use crate::plan::safe_text::escape_control;

/// A paragraph whose every span shows control characters written out.
/// Every screen makes its paragraphs here, not with `Paragraph::new`.
pub(crate) fn paragraph<'a>(text: impl Into<Lines<'a>>) -> Paragraph<'a> {
    let mut text = text.into();
    for line in &mut text.lines {
        escape_spans(line);
    }
    Paragraph::new(text)
}

/// Writes out the control characters of `line`'s spans, in place; a span
/// without any is left as it is (nearly every one).
fn escape_spans(line: &mut Line<'_>) {
    for span in &mut line.spans {
        if let std::borrow::Cow::Owned(escaped) = escape_control(&span.content) {
            span.content = escaped.into();
        }
    }
}

/// `line` with its control characters written out: for a block's title.
pub(crate) fn safe_line(mut line: Line<'_>) -> Line<'_> {
    escape_spans(&mut line);
    line
}
