//! The templates screen's rows, in the view's order, of the one kind it
//! lists when `:ct` or `:st` opened it.

use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::ObjKey;
use crate::tui::model::rows::{TemplateRef, template_rows};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::sort;
use crate::tui::model::view::View;
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected, area);

/// The rows, in the view's order.
fn sorted<'a>(app: &'a App, view: &View) -> Vec<TemplateRef<'a>> {
    sort::templates(
        template_rows(&app.data, &view.filter),
        view.sort,
        &app.data.usage,
    )
}

fn ids(app: &App, view: &View) -> Vec<String> {
    sorted(app, view)
        .into_iter()
        .filter(|t| view.lists(t.key().kind))
        .map(|t| {
            let k = t.key();
            format!("{:?}/{}/{}\t{}", k.kind, k.namespace, k.name, k.context)
        })
        .collect()
}

fn selected(app: &App, view: &View) -> Option<ObjKey> {
    sorted(app, view)
        .into_iter()
        .filter(|t| view.lists(t.key().kind))
        .nth(view.selected)
        .map(|t| t.key())
}

/// Below the column names.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::list_rows(viewport))
}
