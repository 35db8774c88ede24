//! An object's YAML, scrolled and searched with `/`.

pub(crate) mod draw;
mod rows;

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keys::ScreenKind;
use crate::tui::model::view::Screen;
use crate::tui::screens::parts::Parts;
use crate::tui::state::app::App;

/// The screen, as the app reaches it.
pub const PARTS: Parts = Parts::new(ScreenKind::Yaml, rows::ROWS, draw_body);

fn draw_body(app: &App, frame: &mut Frame, area: Rect) {
    if let Screen::Yaml(key) = &app.view().screen {
        draw::draw(app, key, frame, area);
    }
}
