//! `update` by topic, over the sample of [`crate::tui::fixtures::sample`].

mod board;
mod chart;
mod contexts;
mod editing;
mod events;
mod feedback;
mod filter;
mod keys;
mod messages;
mod mouse;
mod multi;
mod navigation;
mod objects;
mod places;
mod prompts;
mod repository;

use crate::tui::state::app::App;
use crate::tui::state::navigation::selected_key;

pub(super) fn selected_name(app: &App) -> String {
    selected_key(app).unwrap().name
}

pub(super) fn flash_text(app: &App) -> String {
    app.flash
        .as_ref()
        .map(|f| f.text.clone())
        .unwrap_or_default()
}
