//! The k9s keys of the list screens: `N`, `A` and `S` sort, `d` describes
//! the selected object, `ctrl-d` deletes it after a question that says what
//! goes (refused under `--readonly`, and for a template in use).

use crate::tui::model::delete;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::sort::{Sort, SortBy};
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, Modal, why_read_only};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{keep_selection, push, selected_key};

/// Whether the screen is a list the sort keys order.
fn sortable(screen: &Screen) -> bool {
    matches!(
        screen,
        Screen::Clusters | Screen::Templates | Screen::Rollouts | Screen::MultiClusterServices
    )
}

/// `N`, `A`, `S`: sorts the list; the same key again reverses. The
/// selection stays on its row.
pub(crate) fn sort(app: &mut App, by: SortBy) {
    if !sortable(app.screen()) {
        return;
    }
    keep_selection(app, |view| view.sort = Some(Sort::pressed(view.sort, by)));
}

/// `d`: the selected object, described.
pub(crate) fn describe(app: &mut App) {
    match selected_key(app) {
        Some(key) if key.kind != Kind::Event => push(app, Screen::Describe(key)),
        Some(_) => app.flash(FlashLevel::Warn, "an event is described by its yaml (y)"),
        None => app.flash(FlashLevel::Warn, "nothing selected to describe"),
    }
}

/// `ctrl-d`: asks before deleting the selected cluster or template, with
/// what goes; refuses with the reason when it may not.
pub(crate) fn ask_delete(app: &mut App) {
    let Some(key) = selected_key(app) else {
        app.flash(FlashLevel::Warn, "nothing selected to delete");
        return;
    };
    let what = match key.kind {
        Kind::ManagedCluster => "delete clusters",
        _ => "delete templates",
    };
    if let Some(why) = why_read_only(app, &key.context, what) {
        app.flash(FlashLevel::Warn, why);
        return;
    }
    match delete::question(&app.data, &key) {
        Ok(question) => {
            app.modal = Some(Modal::Delete {
                target: key,
                question,
            })
        }
        Err(why) => app.flash(FlashLevel::Warn, why),
    }
}

/// `y` on the question: checked once more against the data as it is now,
/// then sent.
pub(crate) fn confirm_delete(app: &mut App, key: ObjKey) -> Vec<Command> {
    app.modal = None;
    if let Some(why) = why_read_only(app, &key.context, "delete") {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    if let Err(why) = delete::question(&app.data, &key) {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    app.flash(
        FlashLevel::Info,
        format!("deleting {} {}…", key.kind.label(), key.name),
    );
    vec![Command::Delete { key }]
}

/// The API server's answer to a delete.
pub(crate) fn deleted(app: &mut App, key: ObjKey, result: Result<(), String>) {
    match result {
        Ok(()) if key.kind == Kind::ManagedCluster => app.flash(
            FlashLevel::Info,
            format!(
                "deleting cluster {}: its services are uninstalled first, then it goes",
                key.name
            ),
        ),
        Ok(()) => app.flash(
            FlashLevel::Info,
            format!("deleted {} {}", key.kind.label(), key.name),
        ),
        Err(why) => app.flash(
            FlashLevel::Error,
            format!("could not delete {} {}: {why}", key.kind.label(), key.name),
        ),
    }
}
