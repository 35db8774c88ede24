//! Whether an action applies now: a pure question about the state on
//! screen, asked by the hint bar and the `?` help (which dim what does not
//! apply) with the same checks the keys make before they act. A key that
//! does not apply still says why when pressed.

use crate::tui::keys::Action;
use crate::tui::state::app::{App, refuse_writes};
use crate::tui::state::board;
use crate::tui::state::contexts;
use crate::tui::state::editing;
use crate::tui::state::navigation::selected_values;
use crate::tui::state::repository;

/// Why `action` would be refused now, or `None` when it applies (or is
/// not one that depends on the state).
pub(crate) fn refusal(app: &App, action: Action) -> Option<String> {
    match action {
        Action::Retry if repository::on_templates(app) => repository::refusal(app),
        Action::Approve
        | Action::Pause
        | Action::Resume
        | Action::Abort
        | Action::Skip
        | Action::Retry
        | Action::Stay
        | Action::RollBack => board::refusal(app, action),
        Action::Edit => refuse_writes(app, &contexts::of_screen(app), "edit values")
            .or_else(|| editing::edited_elsewhere(app))
            .or_else(|| {
                selected_values(app)
                    .is_none()
                    .then(|| "no service selected to edit".to_string())
            }),
        Action::Rollout => board::cluster_rollout(app).err(),
        _ => None,
    }
}

/// Whether `action` applies now: what the hint bar and the help show
/// undimmed.
pub fn applies(app: &App, action: Action) -> bool {
    refusal(app, action).is_none()
}
