//! The table every list is drawn as: its columns ([`Col`]), which give
//! way when the terminal is narrow, the sort arrow on the column that
//! orders it, the cells cut to fit with `…`, and the long lists of which
//! only the rows on screen are made.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::Span;
use ratatui::widgets::{Cell, HighlightSpacing, Row, Table, TableState};

use crate::tui::model::sort::{Sort, SortBy};
use crate::tui::model::view::View;
use crate::tui::theme::Theme;
use crate::tui::views::columns::{Col, Text, ellipsize, widest, width, widths};

/// Puts the view's sort arrow on the column it orders: `AGE`, `status`,
/// or the first of `names` shown. When that column is not on this screen,
/// the sort goes after the crumbs instead (` by age ↑`).
pub(crate) fn mark_sort(
    theme: &Theme,
    cols: &mut [Col],
    sort: Option<Sort>,
    names: &[&str],
    status: &str,
) -> Option<Span<'static>> {
    let sort = sort?;
    let titles: Vec<&str> = match sort.by {
        SortBy::Name => names.to_vec(),
        SortBy::Age => vec!["AGE"],
        SortBy::Status => vec![status],
    };
    let column = titles
        .iter()
        .find_map(|t| cols.iter().position(|c| c.title == *t));
    match column {
        Some(i) => {
            cols[i].arrow = Some(sort.arrow());
            None
        }
        None => Some(Span::styled(format!(" by {}", sort.label()), theme.muted())),
    }
}

/// Draws a list as a table with a selection, inside `area`.
pub(crate) fn table(
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    cols: &[Col],
    rows: Vec<Vec<Text>>,
    view: &View,
    selectable: bool,
) {
    let widest = widest(cols.len(), &rows);
    let len = rows.len();
    let mut rows = rows.into_iter();
    let mut next = 0;
    // The rows on screen are asked for in order.
    let cells = |i: usize| {
        let skipped = i - next;
        next = i + 1;
        rows.nth(skipped).unwrap_or_default()
    };
    let rows = Rows {
        len,
        widest: &widest,
        cells,
    };
    long_table(theme, frame, area, cols, rows, view, selectable);
}

/// The rows of a table, made only when on screen.
pub(crate) struct Rows<'a, F> {
    /// How many.
    pub len: usize,
    /// Each column's widest cell, over every row.
    pub widest: &'a [u16],
    /// The cells of the row at an index; asked only for the rows on
    /// screen, in order.
    pub cells: F,
}

/// Draws a list as a table with a selection, inside `area`, its columns
/// sized from every row but only the rows on screen made, scrolled as
/// ratatui's table would scroll them.
pub(crate) fn long_table<F: FnMut(usize) -> Vec<Text>>(
    theme: &Theme,
    frame: &mut Frame,
    area: Rect,
    cols: &[Col],
    rows: Rows<F>,
    view: &View,
    selectable: bool,
) {
    let Rows {
        len,
        widest,
        mut cells,
    } = rows;
    const SYMBOL: &str = "▶ ";
    const SPACING: u16 = 1;
    let t = theme;
    let avail = area.width.saturating_sub(width(SYMBOL));
    let w = widths(cols, widest, avail, SPACING);
    let header = Row::new(
        cols.iter()
            .zip(&w)
            .filter_map(|(c, w)| w.map(|w| Cell::from(ellipsize(&c.heading(), w))))
            .collect::<Vec<_>>(),
    )
    .style(t.header());
    let shown = on_screen(
        len,
        view.offset,
        selectable.then_some(view.selected),
        usize::from(area.height.saturating_sub(1)),
    );
    let first = shown.start;
    let body: Vec<Row> = shown
        .map(|i| {
            Row::new(
                cells(i)
                    .into_iter()
                    .zip(&w)
                    .zip(cols)
                    .filter_map(|(((s, style), w), c)| {
                        Some(Cell::from(Span::styled(c.cut(&s, (*w)?), style)))
                    })
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    let empty = body.is_empty();
    let table = Table::new(body, w.iter().flatten().map(|w| Constraint::Length(*w)))
        .header(header)
        .column_spacing(SPACING)
        .row_highlight_style(t.selection())
        .highlight_symbol(Span::styled(SYMBOL, t.accent()))
        .highlight_spacing(HighlightSpacing::Always);
    let mut state = TableState::default();
    if selectable && !empty {
        state = state.with_selected(Some(view.selected.saturating_sub(first)));
    }
    frame.render_stateful_widget(table, area, &mut state);
}

/// The rows of a table `height` lines high, one line each, that show from
/// `offset`: moved just enough to show `selected`, as ratatui's table does.
pub(crate) fn on_screen(
    len: usize,
    offset: usize,
    selected: Option<usize>,
    height: usize,
) -> std::ops::Range<usize> {
    if len == 0 {
        return 0..0;
    }
    let height = height.max(1);
    let mut start = offset.min(len - 1);
    if let Some(selected) = selected.map(|s| s.min(len - 1)) {
        if selected >= start + height {
            start = selected + 1 - height;
        }
        start = start.min(selected);
    }
    start..(start + height).min(len)
}
