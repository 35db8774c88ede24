//! The rollouts screen's rows, in the view's order.

use kube::ResourceExt;
use ratatui::layout::Rect;

use crate::tui::layout::{self, Viewport};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::rows::rollout_rows;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::sort;
use crate::tui::model::view::View;
use crate::tui::state::app::{App, ScreenRows};

pub(super) const ROWS: ScreenRows = ScreenRows::by_ids(ids, selected, area);

fn ids(app: &App, view: &View) -> Vec<String> {
    sort::rollouts(rollout_rows(&app.data, &view.filter), view.sort)
        .into_iter()
        .map(|r| {
            let ns = r.namespace().unwrap_or_default();
            format!("{ns}/{}\t{}", r.name_any(), r.context)
        })
        .collect()
}

fn selected(app: &App, view: &View) -> Option<ObjKey> {
    sort::rollouts(rollout_rows(&app.data, &view.filter), view.sort)
        .get(view.selected)
        .map(|r| ObjKey::of(Kind::TemplateRollout, r))
}

/// Below the column names.
fn area(_: &Snapshot, viewport: Viewport, _: &View) -> Option<Rect> {
    Some(layout::list_rows(viewport))
}
