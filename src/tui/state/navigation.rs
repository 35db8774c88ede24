//! Navigation: the rows of each view and which one is selected, moving
//! through them, the crumbs, and fitting every selection on screen when the
//! data, the size or the banner changes.

use kube::ResourceExt;

use crate::tui::layout;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::rollouts::BoardRow;
use crate::tui::model::rows::{
    self, board, cluster_rows, event_rows, rollout_rows, service_rows, template_rows,
    template_service_rows,
};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::values::{self, ValuesKey};
use crate::tui::model::{describe, sort};
use crate::tui::state::app::App;
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::view::{Screen, View};

impl App {
    /// The rows of the current view after its filter.
    pub fn row_count(&self) -> usize {
        row_count(self, self.view())
    }
}

/// Identities of the rows of a view, so a selection follows its row when
/// others come and go.
fn row_ids(app: &App, view: &View) -> Vec<String> {
    match &view.screen {
        Screen::Rollouts => sort::rollouts(rollout_rows(&app.data, &view.filter), view.sort)
            .into_iter()
            .map(|r| format!("{}/{}", r.namespace().unwrap_or_default(), r.name_any()))
            .collect(),
        Screen::Rollout(key) => board(&app.data, key, &view.filter)
            .into_iter()
            .filter_map(|r| match r {
                BoardRow::Cluster(c) => Some(c.name.clone()),
                BoardRow::Wave { .. } => None,
            })
            .collect(),
        Screen::Clusters => sort::clusters(cluster_rows(&app.data, &view.filter), view.sort)
            .into_iter()
            .map(|c| format!("{}/{}", c.namespace().unwrap_or_default(), c.name_any()))
            .collect(),
        Screen::Templates => sorted_templates(app, view)
            .into_iter()
            .filter(|t| view.lists(t.key().kind))
            .map(|t| {
                let k = t.key();
                format!("{:?}/{}/{}", k.kind, k.namespace, k.name)
            })
            .collect(),
        Screen::ClusterDetail(key) => app
            .data
            .cluster(&key.namespace, &key.name)
            .map(|mc| {
                service_rows(mc, &view.filter)
                    .into_iter()
                    .map(|s| s.name.clone())
                    .collect()
            })
            .unwrap_or_default(),
        Screen::TemplateDetail(key) => app
            .data
            .cluster_template(&key.namespace, &key.name)
            .map(|ct| {
                template_service_rows(ct, &view.filter)
                    .into_iter()
                    .map(|s| s.name.clone())
                    .collect()
            })
            .unwrap_or_default(),
        Screen::Edit(_) => Vec::new(),
        Screen::Events(regarding) => event_rows(&app.data, regarding.as_ref(), &view.filter)
            .into_iter()
            .map(|e| {
                format!(
                    "{}/{}",
                    e.metadata.namespace.as_deref().unwrap_or_default(),
                    e.metadata.name.as_deref().unwrap_or_default()
                )
            })
            .collect(),
        Screen::Yaml(key) => {
            let lines = app.data.yaml(key).map_or(0, |y| y.lines().count());
            (0..lines).map(|i| i.to_string()).collect()
        }
        Screen::Values(key) => {
            let lines = values::shown(&app.data, key).values.lines().len();
            (0..lines).map(|i| i.to_string()).collect()
        }
        Screen::Warnings => app
            .warnings
            .rows(&view.filter)
            .into_iter()
            .map(|w| format!("{}/{}/{}/{}", w.kind, w.namespace, w.name, w.message))
            .collect(),
        Screen::Describe(key) => {
            let lines = describe::describe(&app.data, key, app.now).map_or(0, |l| l.len());
            (0..lines).map(|i| i.to_string()).collect()
        }
    }
}

/// The templates screen's rows, in the view's order.
fn sorted_templates<'a>(app: &'a App, view: &View) -> Vec<rows::TemplateRef<'a>> {
    sort::templates(
        template_rows(&app.data, &view.filter),
        view.sort,
        &app.data.usage,
    )
}

/// Changes the current view (its order, say) with the selection kept on
/// its row.
pub(crate) fn keep_selection(app: &mut App, change: impl FnOnce(&mut View)) {
    let before = row_ids(app, app.view()).get(app.view().selected).cloned();
    change(app.view_mut());
    let after = row_ids(app, app.view());
    if let Some(pos) = before.and_then(|id| after.iter().position(|x| *x == id)) {
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
        Screen::ClusterDetail(key) => app.data.cluster(&key.namespace, &key.name).and_then(|mc| {
            service_rows(mc, &view.filter)
                .get(view.selected)
                .map(|s| s.name.clone())
        }),
        Screen::TemplateDetail(key) => app
            .data
            .cluster_template(&key.namespace, &key.name)
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
    match &view.screen {
        Screen::Clusters => cluster_rows(&app.data, &view.filter).len(),
        Screen::Rollout(key) => board(&app.data, key, &view.filter)
            .iter()
            .filter(|r| r.is_cluster())
            .count(),
        Screen::Events(regarding) => event_rows(&app.data, regarding.as_ref(), &view.filter).len(),
        Screen::Yaml(key) => app.data.yaml(key).map_or(0, |y| y.lines().count()),
        _ => row_ids(app, view).len(),
    }
}

/// The key of the selected row of a list view.
pub(crate) fn selected_key(app: &App) -> Option<ObjKey> {
    let view = app.view();
    match &view.screen {
        Screen::Clusters => sort::clusters(cluster_rows(&app.data, &view.filter), view.sort)
            .get(view.selected)
            .map(|c| ObjKey::of(Kind::ManagedCluster, &c.metadata)),
        Screen::Templates => sorted_templates(app, view)
            .into_iter()
            .filter(|t| view.lists(t.key().kind))
            .nth(view.selected)
            .map(|t| t.key()),
        Screen::Rollouts => sort::rollouts(rollout_rows(&app.data, &view.filter), view.sort)
            .get(view.selected)
            .map(|r| ObjKey::of(Kind::TemplateRollout, &r.metadata)),
        Screen::Events(regarding) => event_rows(&app.data, regarding.as_ref(), &view.filter)
            .get(view.selected)
            .map(|e| ObjKey::of(Kind::Event, &e.metadata)),
        Screen::ClusterDetail(key)
        | Screen::Rollout(key)
        | Screen::Yaml(key)
        | Screen::Describe(key)
        | Screen::TemplateDetail(key) => Some(key.clone()),
        Screen::Edit(key) => Some(key.object.clone()),
        Screen::Values(key) => Some(key.object.clone()),
        Screen::Warnings => None,
    }
}

// ---------------------------------------------------------------------------
// Fitting: every selection in range and on screen

/// Swaps in new data; every selection follows its row.
pub(crate) fn set_data(app: &mut App, snapshot: Snapshot) {
    let before: Vec<Option<String>> = app
        .stack
        .iter()
        .map(|v| row_ids(app, v).get(v.selected).cloned())
        .collect();
    app.data = snapshot;
    for (i, id) in before.into_iter().enumerate() {
        let ids = row_ids(app, &app.stack[i]);
        let view = &mut app.stack[i];
        if let Some(pos) = id.and_then(|id| ids.iter().position(|x| *x == id))
            && !view.screen.scrolls()
        {
            view.selected = pos;
        }
    }
    fit_all(app);
}

/// Keeps every view's selection in range and on screen.
pub(crate) fn fit_all(app: &mut App) {
    for i in 0..app.stack.len() {
        fit_at(app, i);
    }
}

/// Keeps one view's selection in range and on screen.
pub(crate) fn fit_at(app: &mut App, i: usize) {
    let height = rows_height(app, &app.stack[i]);
    if let Screen::Rollout(key) = &app.stack[i].screen {
        let rows = board(&app.data, key, &app.stack[i].filter);
        let lines: Vec<bool> = rows.iter().map(|r| r.is_cluster()).collect();
        fit_board(&mut app.stack[i], &lines, height);
        return;
    }
    let count = row_count(app, &app.stack[i]);
    fit(&mut app.stack[i], count, height);
}

/// The board scrolls by lines (waves and their clusters) while the cursor
/// walks the clusters: the selected cluster stays on screen, with its
/// wave's heading when it is the wave's first.
fn fit_board(view: &mut View, clusters: &[bool], height: usize) {
    let height = height.max(1);
    let count = clusters.iter().filter(|c| **c).count();
    view.selected = view.selected.min(count.saturating_sub(1));
    let line = clusters
        .iter()
        .enumerate()
        .filter(|(_, c)| **c)
        .nth(view.selected)
        .map_or(0, |(i, _)| i);
    let top = if line > 0 && !clusters[line - 1] {
        line - 1
    } else {
        line
    };
    if top < view.offset {
        view.offset = top;
    }
    if line >= view.offset + height {
        view.offset = line + 1 - height;
    }
    view.offset = view.offset.min(clusters.len().saturating_sub(height));
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
        .find(|e| ObjKey::of(Kind::Event, &e.metadata) == *event)
        .and_then(|e| e.regarding.clone());
    let Some(r) = regarding else {
        app.flash(FlashLevel::Warn, "the event is about no object");
        return;
    };
    let kind = match r.kind.as_deref() {
        Some("ManagedCluster") => Kind::ManagedCluster,
        Some("ClusterTemplate") => Kind::ClusterTemplate,
        Some("ServiceTemplate") => Kind::ServiceTemplate,
        Some("TemplateRollout") => Kind::TemplateRollout,
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
        kind,
        namespace: r.namespace.unwrap_or_default(),
        name: r.name.unwrap_or_default(),
    };
    let screen = match kind {
        Kind::ManagedCluster => Screen::ClusterDetail(key),
        Kind::ClusterTemplate => Screen::TemplateDetail(key),
        Kind::TemplateRollout => Screen::Rollout(key),
        _ => Screen::Yaml(key),
    };
    push(app, screen);
}

/// How many rows (or lines) `view` shows at once on the console's screen.
pub(crate) fn rows_height(app: &App, view: &View) -> usize {
    layout::rows_height(&app.data, app.viewport(), view)
}
