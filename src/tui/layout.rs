//! Where things go on the screen. The screens draw into these areas and
//! find their rows in them for clicks and pages (each screen's `rows.rs`),
//! so they agree. Areas come from a [`Viewport`] and counts: never from the
//! state that calls them.

use ratatui::layout::{Constraint, Layout, Rect};

/// The terminal, and whether the banner takes a line from the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Viewport {
    pub width: u16,
    pub height: u16,
    pub banner: bool,
}

/// The bands of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bands {
    /// Context, cluster, engine, namespace.
    pub header: Rect,
    /// Why the cluster cannot be seen, when it cannot; empty otherwise.
    pub banner: Rect,
    /// The current screen.
    pub body: Rect,
    /// Prompt, filter or the last message.
    pub status: Rect,
    /// The keys the screen offers.
    pub hints: Rect,
}

/// The bands, with a banner line under the header when `banner`.
pub fn bands(area: Rect, banner: bool) -> Bands {
    let [header, banner, body, status, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(banner)),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    Bands {
        header,
        banner,
        body,
        status,
        hints,
    }
}

pub fn screen_area(viewport: Viewport) -> Rect {
    Rect::new(0, 0, viewport.width, viewport.height)
}

/// The bands of the viewport.
pub fn viewport_bands(viewport: Viewport) -> Bands {
    bands(screen_area(viewport), viewport.banner)
}

/// Inside a bordered block.
pub fn inner(area: Rect) -> Rect {
    Rect {
        x: area.x.saturating_add(1),
        y: area.y.saturating_add(1),
        width: area.width.saturating_sub(2),
        height: area.height.saturating_sub(2),
    }
}

/// The parts of the cluster detail screen, inside its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DetailAreas {
    pub info: Rect,
    pub conditions: Rect,
    pub services: Rect,
    /// The selected service's values: a title line and the text; empty
    /// when there is no room or no service.
    pub values: Rect,
}

/// `services` is how many service rows are listed.
pub fn detail(area: Rect, conditions: usize, services: usize) -> DetailAreas {
    let inner = inner(area);
    // The conditions section: a title line, the column names and the rows,
    // never more than half of the space.
    let wanted = conditions.max(1) as u16 + 2;
    let cond_height = wanted.min(inner.height.saturating_sub(1) / 2).max(2);
    let [info, conditions, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(cond_height),
        Constraint::Fill(1),
    ])
    .areas(inner);
    let (services, values) = list_and_values(rest, services);
    DetailAreas {
        info,
        conditions,
        services,
        values,
    }
}

/// A list section over the values pane of its selected row. The list is as
/// tall as its rows (a title line, the column names, the rows) but leaves
/// the pane at least a third of the space; the pane needs three lines, and
/// a list without rows has none.
fn list_and_values(area: Rect, rows: usize) -> (Rect, Rect) {
    const PANE_MIN: u16 = 3;
    let wanted = u16::try_from(rows.max(1))
        .unwrap_or(u16::MAX)
        .saturating_add(2);
    let list = wanted.min(area.height - area.height / 3);
    let pane = area.height - list;
    if rows == 0 || pane < PANE_MIN {
        return (area, Rect { height: 0, ..area });
    }
    let [list, pane] =
        Layout::vertical([Constraint::Length(list), Constraint::Length(pane)]).areas(area);
    (list, pane)
}

/// The parts of a rollout board, inside its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardAreas {
    /// The phase line and the message.
    pub summary: Rect,
    /// The changes (preview groups): a title line and one line per group;
    /// empty when there are none.
    pub preview: Rect,
    /// The waves and their clusters: a title line, column names, the rows.
    pub waves: Rect,
}

/// At most this share of the board goes to the changes.
fn preview_lines(inner: Rect, groups: usize) -> u16 {
    if groups == 0 {
        return 0;
    }
    let cap = (inner.height / 4).max(1);
    (groups.min(usize::from(cap)) as u16) + 1
}

pub fn board(area: Rect, groups: usize) -> BoardAreas {
    let inner = inner(area);
    let [summary, preview, waves] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(preview_lines(inner, groups)),
        Constraint::Fill(1),
    ])
    .areas(inner);
    BoardAreas {
        summary,
        preview,
        waves,
    }
}

/// The parts of a ClusterTemplate's detail screen, inside its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TemplateAreas {
    pub info: Rect,
    /// A title line, column names, the rows.
    pub services: Rect,
    /// The selected service's default values, as on the cluster detail.
    pub values: Rect,
}

/// `services` is how many service rows are listed.
pub fn template_detail(area: Rect, services: usize) -> TemplateAreas {
    let [info, rest] =
        Layout::vertical([Constraint::Length(2), Constraint::Fill(1)]).areas(inner(area));
    let (services, values) = list_and_values(rest, services);
    TemplateAreas {
        info,
        services,
        values,
    }
}

/// The parts of the values screen, inside its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValuesAreas {
    /// Where the values come from: one line, two when it is too long, none
    /// without values.
    pub layers: Rect,
    /// The YAML, or why there is none.
    pub text: Rect,
}

/// `layers` is how long the line that says where the values come from is.
pub fn values(area: Rect, layers: usize) -> ValuesAreas {
    let inner = inner(area);
    let lines = match layers {
        0 => 0,
        n if n <= usize::from(inner.width) => 1,
        _ => 2,
    };
    let [layers, text] =
        Layout::vertical([Constraint::Length(lines), Constraint::Fill(1)]).areas(inner);
    ValuesAreas { layers, text }
}

/// The parts of the values editor, inside its block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EditorAreas {
    /// Which object and service.
    pub info: Rect,
    /// The text, with its line numbers.
    pub text: Rect,
    /// The text kept from before a reload: a title line and the text.
    pub note: Option<Rect>,
    /// Valid or the error, the cursor position.
    pub status: Rect,
}

/// Wide screens put the note beside the text, narrow ones under it.
pub fn editor(area: Rect, note: bool) -> EditorAreas {
    let [info, middle, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(inner(area));
    if !note {
        return EditorAreas {
            info,
            text: middle,
            note: None,
            status,
        };
    }
    let [text, note] = if middle.width >= 100 {
        Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
            .spacing(1)
            .areas(middle)
    } else {
        Layout::vertical([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(middle)
    };
    EditorAreas {
        info,
        text,
        note: Some(note),
        status,
    }
}

/// The editor's text pane as (height, width), for keeping the cursor on
/// screen; `note` when the editor shows a note.
pub fn editor_text_size(viewport: Viewport, note: bool) -> (usize, usize) {
    let body = viewport_bands(viewport).body;
    let text = editor(body, note).text;
    (usize::from(text.height), usize::from(text.width))
}

/// Below a section's title line and a table's column names.
pub fn below(area: Rect, lines: u16) -> Rect {
    Rect {
        y: area.y.saturating_add(lines),
        height: area.height.saturating_sub(lines),
        ..area
    }
}

/// Where a list screen's rows are drawn: inside the body's block, below
/// the column names.
pub fn list_rows(viewport: Viewport) -> Rect {
    below(inner(viewport_bands(viewport).body), 1)
}

/// Where a text screen's lines are drawn: inside the body's block.
pub fn text_rows(viewport: Viewport) -> Rect {
    inner(viewport_bands(viewport).body)
}
