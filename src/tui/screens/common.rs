//! What several screens do alike: open the selected object's YAML or a
//! service's values, sort, say that nothing is selected, why `e` would be
//! refused, and the rows of the screens that list services.

use ratatui::layout::Rect;

use crate::tui::keys::Action;
use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::ObjKey;
use crate::tui::model::rows::{service_rows, template_service_rows};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::sort::SortBy;
use crate::tui::model::view::{Screen, View};
use crate::tui::screens::objects;
use crate::tui::state::app::{App, ScreenRows, why_read_only};
use crate::tui::state::contexts;
use crate::tui::state::editing;
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{push, selected_key, selected_values};

/// A bound key that has nothing to act on: says so.
pub(crate) fn nothing_selected(app: &mut App, action: Action) {
    let key = app.keys.label(app.mode(), action);
    app.flash(FlashLevel::Info, format!("{key}: nothing selected"));
}

/// `y`: the selected object's YAML.
pub(crate) fn yaml(app: &mut App, action: Action) {
    match selected_key(app) {
        Some(key) => push(app, Screen::Yaml(key)),
        None => nothing_selected(app, action),
    }
}

/// Enter on a service: its values.
pub(crate) fn open_values(app: &mut App) {
    match selected_values(app) {
        Some(key) => push(app, Screen::Values(key)),
        None => app.flash(FlashLevel::Warn, "no service selected"),
    }
}

/// Why `e` would be refused now, if it would.
pub(crate) fn edit_refusal(app: &App) -> Option<String> {
    why_read_only(app, &contexts::of_screen(app), "edit values")
        .or_else(|| editing::edited_elsewhere(app))
        .or_else(|| {
            selected_values(app)
                .is_none()
                .then(|| "no service selected to edit".to_string())
        })
}

/// `N`, `A`, `S`: sorts the list by name, age or its status column; again
/// reverses.
pub(crate) fn sort(app: &mut App, action: Action) {
    let by = match action {
        Action::SortName => SortBy::Name,
        Action::SortAge => SortBy::Age,
        _ => SortBy::Status,
    };
    objects::sort(app, by);
}

/// The rows of a cluster's or a ClusterTemplate's screen: its services
/// after the view's filter.
pub(crate) const SERVICE_ROWS: ScreenRows = ScreenRows::by_ids(service_ids, shown, service_area);

fn service_ids(app: &App, view: &View) -> Vec<String> {
    let (data, filter) = (&app.data, &view.filter);
    let names: Option<Vec<String>> = match &view.screen {
        Screen::ClusterDetail(k) => data.cluster(&k.context, &k.namespace, &k.name).map(|mc| {
            let rows = service_rows(mc, filter);
            rows.iter().map(|s| s.name.clone()).collect()
        }),
        Screen::TemplateDetail(k) => data
            .cluster_template(&k.context, &k.namespace, &k.name)
            .map(|ct| {
                let rows = template_service_rows(ct, filter);
                rows.iter().map(|s| s.name.clone()).collect()
            }),
        _ => None,
    };
    names.unwrap_or_default()
}

/// The cluster or the template itself.
fn shown(_: &App, view: &View) -> Option<ObjKey> {
    match &view.screen {
        Screen::ClusterDetail(key) | Screen::TemplateDetail(key) => Some(key.clone()),
        _ => None,
    }
}

/// The services' table: below the conditions (a cluster's), the section's
/// title and the column names.
fn service_area(data: &Snapshot, viewport: Viewport, view: &View) -> Option<Rect> {
    let body = layout::viewport_bands(viewport).body;
    let services = match &view.screen {
        Screen::ClusterDetail(key) => {
            let mc = data.cluster(&key.context, &key.namespace, &key.name);
            let conditions = mc
                .and_then(|c| c.status.as_ref())
                .map_or(0, |s| s.conditions.len());
            let services = mc.map_or(0, |c| service_rows(c, &view.filter).len());
            layout::detail(body, conditions, services).services
        }
        Screen::TemplateDetail(key) => {
            let services = data
                .cluster_template(&key.context, &key.namespace, &key.name)
                .map_or(0, |ct| template_service_rows(ct, &view.filter).len());
            layout::template_detail(body, services).services
        }
        _ => return None,
    };
    Some(layout::below(services, 2))
}
