//! A table's columns and how wide each is: from each column's widest cell
//! and the room there is, the columns that give way hidden first (see
//! [`Col`]).

use ratatui::style::Style;

use crate::plan::safe_text::{escape_control, escaped_len};

/// A column of a table: its title, how wide it may be, and its priority
/// when the terminal is narrow.
///
/// Every screen writes its columns in one place, each with a priority:
/// [`col`] and [`flex`] make an identity column (namespace, name: what
/// tells one row from another), [`Col::drop`] a column that gives way.
/// When the columns do not fit, those with the highest drop priority are
/// hidden first, until the narrowest widths fit; identity columns are never
/// hidden and keep their whole text while anything else can give way. The
/// room left goes to the columns in priority order, identity first, and
/// what remains to the flex column (a description or message), so a
/// description shrinks before a name does.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Col {
    pub title: &'static str,
    /// Narrowest it gets when space is short.
    pub min: u16,
    /// Widest it gets.
    pub max: u16,
    /// Takes the space that is left (one column per table).
    pub flex: bool,
    /// 0: an identity column, always shown; otherwise hidden when even the
    /// narrowest widths do not fit, highest first, and grown after the
    /// lower ones.
    pub drop: u8,
    /// The sort's arrow, on the column the rows are sorted by.
    pub arrow: Option<char>,
}

pub(crate) const fn col(title: &'static str, min: u16, max: u16) -> Col {
    Col {
        title,
        min,
        max,
        flex: false,
        drop: 0,
        arrow: None,
    }
}

pub(crate) const fn flex(title: &'static str, min: u16) -> Col {
    Col {
        title,
        min,
        max: u16::MAX,
        flex: true,
        drop: 0,
        arrow: None,
    }
}

impl Col {
    /// The column's name in the header, with the sort's arrow.
    pub(crate) fn heading(&self) -> String {
        match self.arrow {
            Some(a) => format!("{}{a}", self.title),
            None => self.title.to_string(),
        }
    }

    /// Gives way when space is short: the higher `priority`, the sooner
    /// it is hidden and the later it grows. 0 is an identity column.
    pub(crate) const fn drop(self, priority: u8) -> Col {
        Col {
            drop: priority,
            ..self
        }
    }

    /// An identity column: never hidden, cut in the middle when it must
    /// be cut, so `demo-cluster-1` and `demo-cluster-2` still differ.
    pub(crate) const fn is_identity(&self) -> bool {
        self.drop == 0
    }

    /// A cell's text cut to `w`: an identity column's in the middle.
    pub(crate) fn cut(&self, s: &str, w: u16) -> String {
        if self.is_identity() && !self.flex {
            ellipsize_middle(s, w)
        } else {
            ellipsize(s, w)
        }
    }
}

/// A cell: its text and style.
pub(crate) type Text = (String, Style);

pub(crate) fn width(s: &str) -> u16 {
    s.chars().count().min(u16::MAX as usize) as u16
}

/// Cuts `s` to `w` columns in the middle, with `…` when it had to: the
/// end of a name tells it from its siblings. Control characters are
/// written out first.
pub(crate) fn ellipsize_middle(s: &str, w: u16) -> String {
    let s = &*escape_control(s);
    let w = usize::from(w);
    let n = s.chars().count();
    if n <= w {
        return s.to_string();
    }
    if w < 5 {
        return ellipsize(s, w as u16);
    }
    let tail = (w - 1) / 2;
    let head = w - 1 - tail;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}

/// Cuts `s` to `w` columns, with `…` when it had to. Control characters
/// are written out first.
pub(crate) fn ellipsize(s: &str, w: u16) -> String {
    let s = &*escape_control(s);
    let w = usize::from(w);
    if s.chars().count() <= w {
        return s.to_string();
    }
    if w == 0 {
        return String::new();
    }
    let mut out: String = s.chars().take(w - 1).collect();
    out.push('…');
    out
}

/// The widest cell of each of `cols` columns, as drawn: control
/// characters written out.
pub(crate) fn widest(cols: usize, rows: &[Vec<Text>]) -> Vec<u16> {
    (0..cols)
        .map(|i| {
            rows.iter()
                .map(|r| {
                    r.get(i)
                        .map_or(0, |(s, _)| escaped_len(s).min(usize::from(u16::MAX)) as u16)
                })
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Widths that fit `avail`, `None` for a hidden column, from each column's
/// widest cell: see [`Col`].
pub(crate) fn widths(cols: &[Col], widest: &[u16], avail: u16, spacing: u16) -> Vec<Option<u16>> {
    let mut shown: Vec<bool> = vec![true; cols.len()];
    // As wide as the widest cell (or the title), within the column's bounds;
    // a column never needs more than its content.
    let natural: Vec<u16> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let widest = widest
                .get(i)
                .copied()
                .unwrap_or(0)
                .max(width(c.title) + u16::from(c.arrow.is_some()));
            if c.flex { c.min } else { widest.min(c.max) }
        })
        .collect();
    // The narrowest a column gets, and the narrowest it gets while a
    // column that gives way is still shown: an identity column's whole text.
    let least: Vec<u16> = cols
        .iter()
        .zip(&natural)
        .map(|(c, n)| c.min.min(*n))
        .collect();
    let floor: Vec<u16> = cols
        .iter()
        .enumerate()
        .map(|(i, c)| {
            if c.is_identity() && !c.flex {
                natural[i]
            } else {
                least[i]
            }
        })
        .collect();
    let gaps = |shown: &[bool]| {
        u32::from(spacing) * (shown.iter().filter(|s| **s).count() as u32).saturating_sub(1)
    };
    let need = |shown: &[bool]| -> u32 {
        floor
            .iter()
            .zip(shown)
            .filter(|(_, s)| **s)
            .map(|(f, _)| u32::from(*f))
            .sum::<u32>()
            + gaps(shown)
    };
    // The column that gives way next: the highest drop priority shown.
    let victim = |shown: &[bool]| {
        cols.iter()
            .enumerate()
            .filter(|(i, c)| shown[*i] && !c.is_identity())
            .max_by_key(|(i, c)| (c.drop, *i))
            .map(|(i, _)| i)
    };
    let mut w;
    loop {
        while need(&shown) > u32::from(avail) {
            match victim(&shown) {
                Some(i) => shown[i] = false,
                None => break,
            }
        }
        w = allot(cols, &natural, &least, &floor, &shown, avail, spacing);
        // No column is shown while one before it in priority is cut.
        let cut = (0..cols.len())
            .filter(|i| shown[*i] && !cols[*i].flex && w[*i] < natural[*i])
            .map(|i| cols[i].drop)
            .min();
        match (cut, victim(&shown)) {
            (Some(d), Some(v)) if cols[v].drop > d => shown[v] = false,
            _ => break,
        }
    }
    w.into_iter()
        .zip(shown)
        .map(|(w, s)| s.then_some(w))
        .collect()
}

/// The widths of the `shown` columns: their floors; identity columns cut
/// (widest first) when even those do not fit; then the room left to each
/// column in priority order up to its natural width, and the rest to the
/// flex column.
fn allot(
    cols: &[Col],
    natural: &[u16],
    least: &[u16],
    floor: &[u16],
    shown: &[bool],
    avail: u16,
    spacing: u16,
) -> Vec<u16> {
    let mut w: Vec<u16> = floor
        .iter()
        .zip(shown)
        .map(|(f, s)| if *s { *f } else { 0 })
        .collect();
    let gaps = u32::from(spacing) * (shown.iter().filter(|s| **s).count() as u32).saturating_sub(1);
    let total = |w: &[u16]| w.iter().map(|x| u32::from(*x)).sum::<u32>() + gaps;
    while total(&w) > u32::from(avail) {
        let widest = (0..cols.len())
            .filter(|i| shown[*i] && w[*i] > least[*i])
            .max_by_key(|i| (w[*i], usize::MAX - i));
        match widest {
            Some(i) => w[i] -= 1,
            None => break,
        }
    }
    let mut order: Vec<usize> = (0..cols.len())
        .filter(|i| shown[*i] && !cols[*i].flex)
        .collect();
    order.sort_by_key(|i| (cols[*i].drop, *i));
    for i in order {
        let room = u32::from(avail).saturating_sub(total(&w));
        let grow = u32::from(natural[i].saturating_sub(w[i])).min(room);
        w[i] += grow as u16;
    }
    if let Some(i) = cols.iter().position(|c| c.flex).filter(|i| shown[*i]) {
        w[i] += u32::from(avail).saturating_sub(total(&w)) as u16;
    }
    w
}
