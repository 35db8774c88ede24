//! Navigation: which row of each view is selected (the rows are each
//! screen's own, reached through [`App::rows_of`]), moving through them,
//! the crumbs, and fitting every selection on screen when the data, the
//! size or the banner changes.

use ratatui::layout::Rect;

use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::listing::BoardListing;
use crate::tui::model::rows::{service_rows, template_service_rows};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::values::ValuesKey;
use crate::tui::model::view::{Screen, View};
use crate::tui::state::app::{App, FindRow, RowCount, RowId, RowsArea, ScreenRows, SelectedKey};
use crate::tui::state::flash::FlashLevel;

impl App {
    /// The rows of the current view after its filter.
    pub fn row_count(&self) -> usize {
        row_count(self, self.view())
    }
}

/// A view's screen's rows.
fn rows(app: &App, view: &View) -> &'static ScreenRows {
    (app.rows_of.0)(view.screen.kind())
}

/// Identities of the rows of a view, so a selection follows its row when
/// others come and go.
fn row_ids(app: &App, view: &View) -> Vec<String> {
    (rows(app, view).ids)(app, view)
}

/// The rows of a long list: counted, and their ids made one at a time.
pub(crate) const fn long_list(
    count: RowCount,
    id_at: RowId,
    find: FindRow,
    selected: SelectedKey,
    area: RowsArea,
) -> ScreenRows {
    ScreenRows {
        ids: |app, view| {
            (0..row_count(app, view))
                .filter_map(|i| row_id(app, view, i))
                .collect()
        },
        count: Some(count),
        id_at: Some(id_at),
        find: Some(find),
        selected,
        area,
    }
}

/// Changes the current view (its order, say) with the selection kept on
/// its row.
pub(crate) fn keep_selection(app: &mut App, change: impl FnOnce(&mut View)) {
    let before = row_id(app, app.view(), app.view().selected);
    change(app.view_mut());
    if let Some(pos) = before.and_then(|id| find_row(app, app.view(), &id)) {
        app.view_mut().selected = pos;
    }
    let last = app.stack.len() - 1;
    fit_at(app, last);
}

/// The values of the service selected on a cluster's or a ClusterTemplate's
/// detail screen.
pub fn selected_values(app: &App) -> Option<ValuesKey> {
    let view = app.view();
    let service = match &view.screen {
        Screen::ClusterDetail(key) => app
            .data
            .cluster(&key.context, &key.namespace, &key.name)
            .and_then(|mc| {
                service_rows(mc, &view.filter)
                    .get(view.selected)
                    .map(|s| s.name.clone())
            }),
        Screen::TemplateDetail(key) => app
            .data
            .cluster_template(&key.context, &key.namespace, &key.name)
            .and_then(|ct| {
                template_service_rows(ct, &view.filter)
                    .get(view.selected)
                    .map(|s| s.name.clone())
            }),
        _ => None,
    }?;
    let (Screen::ClusterDetail(object) | Screen::TemplateDetail(object)) = &view.screen else {
        return None;
    };
    Some(ValuesKey {
        object: object.clone(),
        service: Some(service),
    })
}

/// How many rows a view has after its filter: as many as [`row_ids`], but
/// the long lists are counted without making their ids.
fn row_count(app: &App, view: &View) -> usize {
    match rows(app, view).count {
        Some(count) => count(app, view),
        None => row_ids(app, view).len(),
    }
}

/// The identity of a view's row at `index` (see [`row_ids`]); the long
/// lists make only this one.
pub(crate) fn row_id(app: &App, view: &View, index: usize) -> Option<String> {
    match rows(app, view).id_at {
        Some(id_at) => id_at(app, view, index),
        None => row_ids(app, view).get(index).cloned(),
    }
}

/// Where the row `id` (see [`row_id`]) is in a view now.
fn find_row(app: &App, view: &View, id: &str) -> Option<usize> {
    match rows(app, view).find {
        Some(find) => find(app, view, id),
        None => row_ids(app, view).iter().position(|x| x == id),
    }
}

/// The key of the selected row of a list view, or of the object the view
/// shows.
pub(crate) fn selected_key(app: &App) -> Option<ObjKey> {
    let view = app.view();
    (rows(app, view).selected)(app, view)
}

// ---------------------------------------------------------------------------
// Fitting: every selection in range and on screen

/// Swaps in new data; every selection follows its row.
pub(crate) fn set_data(app: &mut App, snapshot: Snapshot) {
    let before: Vec<Option<String>> = app
        .stack
        .iter()
        .map(|v| row_id(app, v, v.selected))
        .collect();
    app.set_snapshot(snapshot);
    for (i, id) in before.into_iter().enumerate() {
        let view = &app.stack[i];
        if view.screen.scrolls() {
            continue;
        }
        if let Some(pos) = id.and_then(|id| find_row(app, view, &id)) {
            app.stack[i].selected = pos;
        }
    }
    fit_all(app);
}

/// Keeps every view's selection in range and on screen.
/// Keeps only the list screens at the bottom of the crumbs (at least the
/// clusters): what the others show may be gone (another place, a closed
/// context).
pub(crate) fn back_to_lists(app: &mut App) {
    let keep = app
        .stack
        .iter()
        .take_while(|v| {
            matches!(
                v.screen,
                Screen::Clusters
                    | Screen::Templates
                    | Screen::Rollouts
                    | Screen::MultiClusterServices
                    | Screen::Events(None)
            )
        })
        .count()
        .max(1);
    app.stack.truncate(keep);
}

pub(crate) fn fit_all(app: &mut App) {
    for i in 0..app.stack.len() {
        fit_at(app, i);
    }
}

/// Keeps one view's selection in range and on screen.
pub(crate) fn fit_at(app: &mut App, i: usize) {
    let height = rows_height(app, &app.stack[i]);
    let board = match &app.stack[i].screen {
        Screen::Rollout(key) => Some(app.board_listing(&app.stack[i], key).unwrap_or_default()),
        _ => None,
    };
    if let Some(listing) = board {
        fit_board(&mut app.stack[i], &listing, height);
        return;
    }
    let count = row_count(app, &app.stack[i]);
    fit(&mut app.stack[i], count, height);
}

/// The board scrolls by lines (waves and their clusters) while the cursor
/// walks the clusters: the selected cluster stays on screen, with its
/// wave's heading when it is the wave's first.
fn fit_board(view: &mut View, listing: &BoardListing, height: usize) {
    let height = height.max(1);
    let count = listing.clusters.len();
    view.selected = view.selected.min(count.saturating_sub(1));
    let line = listing.clusters.get(view.selected).copied().unwrap_or(0);
    let top = match line.checked_sub(1).and_then(|l| listing.lines.get(l)) {
        Some(above) if !above.is_cluster() => line - 1,
        _ => line,
    };
    if top < view.offset {
        view.offset = top;
    }
    if line >= view.offset + height {
        view.offset = line + 1 - height;
    }
    view.offset = view.offset.min(listing.lines.len().saturating_sub(height));
}

/// Keeps a list's selection (or a text's scroll) in range and on screen.
fn fit(view: &mut View, count: usize, height: usize) {
    let height = height.max(1);
    if view.screen.scrolls() {
        view.offset = view.offset.min(count.saturating_sub(height));
        return;
    }
    view.selected = view.selected.min(count.saturating_sub(1));
    if view.selected < view.offset {
        view.offset = view.selected;
    }
    if view.selected >= view.offset + height {
        view.offset = view.selected + 1 - height;
    }
    view.offset = view.offset.min(count.saturating_sub(height));
}

/// Opens a screen on top of the crumbs.
pub(crate) fn push(app: &mut App, screen: Screen) {
    app.stack.push(View::new(screen));
    fit_all(app);
}

/// `esc`: clear the filter, else go back one crumb.
pub(crate) fn back(app: &mut App) {
    if !app.view().filter.is_empty() {
        app.view_mut().filter.clear();
        fit_all(app);
    } else if app.stack.len() > 1 {
        app.stack.pop();
        fit_all(app);
    } else if app.flash.is_some() {
        app.flash = None;
    }
}

/// Moves the selection (or the YAML scroll) by `delta`, clamped.
pub(crate) fn step(app: &mut App, delta: isize) {
    let count = app.row_count();
    let height = rows_height(app, app.view());
    let view = app.view_mut();
    let clamp = |v: isize, max: usize| v.clamp(0, max as isize) as usize;
    if view.screen.scrolls() {
        let max = count.saturating_sub(height.max(1));
        view.offset = clamp(view.offset as isize + delta, max);
    } else {
        view.selected = clamp(view.selected as isize + delta, count.saturating_sub(1));
        let last = app.stack.len() - 1;
        fit_at(app, last);
    }
}

/// enter on an Event: the screen of the object it is about.
pub(crate) fn open_regarded(app: &mut App, event: &ObjKey) {
    let regarding = app
        .data
        .events
        .iter()
        .find(|e| ObjKey::of(Kind::Event, e) == *event)
        .and_then(|e| e.regarding.clone());
    // The object is in the Event's own context.
    let context = event.context.clone();
    let Some(r) = regarding else {
        app.flash(FlashLevel::Warn, "the event is about no object");
        return;
    };
    let kind = match r.kind.as_deref() {
        Some("ManagedCluster") => Kind::ManagedCluster,
        Some("ClusterTemplate") => Kind::ClusterTemplate,
        Some("ServiceTemplate") => Kind::ServiceTemplate,
        Some("TemplateRollout") => Kind::TemplateRollout,
        Some("MultiClusterService") => Kind::MultiClusterService,
        other => {
            app.flash(
                FlashLevel::Warn,
                format!(
                    "the console has no screen for {}",
                    other.unwrap_or("that kind")
                ),
            );
            return;
        }
    };
    let key = ObjKey {
        context,
        kind,
        namespace: r.namespace.unwrap_or_default(),
        name: r.name.unwrap_or_default(),
    };
    let screen = match kind {
        Kind::ManagedCluster => Screen::ClusterDetail(key),
        Kind::ClusterTemplate => Screen::TemplateDetail(key),
        Kind::TemplateRollout => Screen::Rollout(key),
        Kind::MultiClusterService => Screen::MultiClusterService(key),
        _ => Screen::Yaml(key),
    };
    push(app, screen);
}

/// How many rows (or lines) `view` shows at once on the console's screen.
pub(crate) fn rows_height(app: &App, view: &View) -> usize {
    rows_area(app, view).map_or(1, |r| usize::from(r.height).max(1))
}

/// Where a view's rows (or lines) are drawn.
pub(crate) fn rows_area(app: &App, view: &View) -> Option<Rect> {
    (rows(app, view).area)(&app.data, app.viewport(), view)
}
