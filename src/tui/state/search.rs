//! `/` in the yaml and values views: a search, not a filter. The text stays
//! whole; typing jumps to the first matching line from the top of the
//! screen, `n` and `N` to the next and previous one (round the end), and
//! the view's `selected` is the line of the current match. The rule is the
//! lists' one ([`Filter`]): `/!text` finds the lines without `text`.

use crate::tui::keys::{Action, Mode};
use crate::tui::model::filter::Filter;
use crate::tui::model::values;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::App;
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{fit_all, rows_height};

/// The lines a text view shows; none for a list.
pub fn text_lines(app: &App, view: &View) -> Vec<String> {
    match &view.screen {
        Screen::Yaml(key) => app
            .data
            .yaml(key)
            .map(|y| y.lines().map(str::to_string).collect())
            .unwrap_or_default(),
        Screen::Values(key) => values::shown(&app.data, key).values.lines(),
        _ => Vec::new(),
    }
}

/// The lines of a text view that match its search.
pub fn match_lines(app: &App, view: &View) -> Vec<usize> {
    Filter::parse(&view.filter).matching_lines(&text_lines(app, view))
}

impl App {
    /// What the `/` prompt counts: the rows a list keeps, the lines a
    /// text's search finds.
    pub fn match_count(&self) -> usize {
        if self.screen().scrolls() {
            match_lines(self, self.view()).len()
        } else {
            self.row_count()
        }
    }
}

/// After the search text changed: the first match from the top of the
/// screen, round the end; the scroll stays when nothing matches.
pub(crate) fn seek(app: &mut App) {
    let matches = match_lines(app, app.view());
    let top = app.view().offset;
    if let Some(line) = matches.iter().find(|l| **l >= top).or(matches.first()) {
        show(app, *line);
    }
}

/// `n` (`forward`) and `N`: the next or previous match after the current
/// one, round the end.
pub(crate) fn jump(app: &mut App, forward: bool) {
    let view = app.view();
    if !view.screen.scrolls() {
        return;
    }
    if Filter::parse(&view.filter).is_empty() {
        let key = app
            .keys
            .label(Mode::Screen(view.screen.kind()), Action::Filter);
        app.flash(FlashLevel::Info, format!("nothing to find: {key} searches"));
        return;
    }
    let matches = match_lines(app, view);
    let at = view.selected;
    let next = if forward {
        matches.iter().find(|l| **l > at).or(matches.first())
    } else {
        matches.iter().rev().find(|l| **l < at).or(matches.last())
    };
    match next {
        Some(line) => show(app, *line),
        None => {
            let text = format!("no line matches /{}", app.view().filter);
            app.flash(FlashLevel::Warn, text);
        }
    }
}

/// Makes `line` the current match and scrolls it into sight, a third of
/// the way down when it was off screen.
fn show(app: &mut App, line: usize) {
    let height = rows_height(app, app.view()).max(1);
    let view = app.view_mut();
    view.selected = line;
    if line < view.offset || line >= view.offset + height {
        view.offset = line.saturating_sub(height / 3);
    }
    fit_all(app);
}
