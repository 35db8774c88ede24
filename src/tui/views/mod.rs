//! Drawing: one file per screen. Every `draw` takes `&App` and a frame and
//! nothing else: no I/O, no state changes.
//!
//! Names, messages, conditions, values and events come from the API
//! server, written by anyone who may write an object. Text enters the
//! frame in three places only, and each shows control characters written
//! out (`\u{1b}`), never raw and never silently dropped (`safe.rs`): [`paragraph`]
//! (every paragraph of every screen), [`long_table`]'s cells (through
//! [`ellipsize`] and [`ellipsize_middle`]), and the blocks' titles
//! ([`body_block`], [`section`], [`safe_line`]).

mod board;
mod clusters;
mod columns;
mod describe;
mod detail;
mod editor;
mod events;
mod fleet_review;
mod help;
mod modal;
mod places;
mod rollouts;
mod safe;
mod search;
mod template_detail;
mod templates;
mod values;
mod warnings;
mod yaml;

#[cfg(test)]
mod feedback_tests;
#[cfg(test)]
mod tests;

#[cfg(test)]
mod state_tests;

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, HighlightSpacing, Row, Table, TableState};

use crate::plan::safe_text::{escape_control, escaped_len};
use crate::plan::yaml::group;
use crate::tui::keys::{Action, Mode, ScreenKind};
use crate::tui::layout;
use crate::tui::model::key::Kind;
use crate::tui::model::sort::{Sort, SortBy};
use crate::tui::state::app::{App, Engine, Input};
use crate::tui::state::applies::applies;
use crate::tui::state::editor::Stage;
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::view::{Screen, View};
use crate::tui::theme::Theme;

pub(crate) use columns::{widest, widths};
pub(crate) use safe::{paragraph, safe_line};

/// Draws the whole console.
pub fn draw(app: &App, frame: &mut Frame) {
    let bands = layout::bands(frame.area(), app.banner().is_some());
    header(app, frame, bands.header);
    if let Some(text) = app.banner() {
        frame.render_widget(
            paragraph(Span::styled(
                ellipsize(&format!("✗ {text}"), bands.banner.width),
                app.theme.error(),
            )),
            bands.banner,
        );
    }
    // The lists are drawn from the first page of each kind, or its first
    // list, whichever came: no waiting for every store.
    if !app.synced && !app.data.arrived {
        connecting(app, frame, bands.body);
    } else {
        match &app.view().screen {
            Screen::Clusters => clusters::draw(app, frame, bands.body),
            Screen::ClusterDetail(key) => detail::draw(app, key, frame, bands.body),
            Screen::Templates => templates::draw(app, frame, bands.body),
            Screen::TemplateDetail(key) => template_detail::draw(app, key, frame, bands.body),
            Screen::Edit(_) => editor::draw(app, frame, bands.body),
            Screen::Rollouts => rollouts::draw(app, frame, bands.body),
            Screen::Rollout(key) => board::draw(app, key, frame, bands.body),
            Screen::Events(regarding) => events::draw(app, regarding.as_ref(), frame, bands.body),
            Screen::Yaml(key) => yaml::draw(app, key, frame, bands.body),
            Screen::Values(key) => values::draw(app, key, frame, bands.body),
            Screen::Warnings => warnings::draw(app, frame, bands.body),
            Screen::Describe(key) => describe::draw(app, key, frame, bands.body),
        }
    }
    status(app, frame, bands.status);
    hints(app, frame, bands.hints);
    if app.help {
        help::draw(app, frame, bands.body);
    }
    if let Some(m) = &app.modal {
        modal::draw(app, m, frame, bands.body);
    }
}

fn header(app: &App, frame: &mut Frame, area: Rect) {
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
fn warning_count(app: &App) -> Vec<Span<'static>> {
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

fn connecting(app: &App, frame: &mut Frame, area: Rect) {
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

fn status(app: &App, frame: &mut Frame, area: Rect) {
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

fn hints(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mode = app.mode();
    let applies = |a| applies(app, a);
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
            app.keys.hints_now(mode, note, &applies)
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
pub fn back_key(app: &App) -> String {
    app.keys
        .label(Mode::Screen(app.screen().kind()), Action::Back)
}

/// The crumbs, as a block title: `clusters › staging-1 › yaml`.
fn crumbs(app: &App) -> Vec<Span<'static>> {
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
fn body_block(app: &App, extra: Vec<Span<'static>>) -> Block<'static> {
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
fn loading(app: &App, kinds: &[Kind]) -> Vec<Span<'static>> {
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
fn widest_context(app: &App) -> u16 {
    app.data
        .contexts
        .iter()
        .map(|c| width(c))
        .max()
        .unwrap_or(0)
}

fn count(app: &App, shown: usize, total: usize) -> Vec<Span<'static>> {
    let text = if shown == total {
        format!(" ({total})")
    } else {
        format!(" ({shown}/{total})")
    };
    vec![Span::styled(text, app.theme.muted())]
}

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
    fn heading(&self) -> String {
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

/// Puts the view's sort arrow on the column it orders: `AGE`, `status`,
/// or the first of `names` shown. When that column is not on this screen,
/// the sort goes after the crumbs instead (` by age ↑`).
pub(crate) fn mark_sort(
    app: &App,
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
        None => Some(Span::styled(
            format!(" by {}", sort.label()),
            app.theme.muted(),
        )),
    }
}

/// A cell: its text and style.
pub(crate) type Text = (String, Style);

fn width(s: &str) -> u16 {
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

/// Draws a list as a table with a selection, inside `area`.
pub(crate) fn table(
    app: &App,
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
    long_table(app, frame, area, cols, rows, view, selectable);
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
    app: &App,
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
    let t: &Theme = &app.theme;
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
fn on_screen(
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
pub fn gone(app: &App, key: &crate::tui::model::key::ObjKey, frame: &mut Frame, area: Rect) {
    let block = body_block(app, Vec::new());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    empty_note(
        app,
        frame,
        inner,
        format!(
            "{} {}/{} no longer exists ({} goes back)",
            key.kind.label(),
            key.namespace,
            key.name,
            back_key(app)
        ),
    );
}
