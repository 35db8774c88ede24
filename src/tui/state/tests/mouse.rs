//! Clicks and the wheel.

use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

use super::selected_name;
use crate::tui::fixtures::sample::app;
use crate::tui::state::app::Msg;
use crate::tui::state::navigation::rows_area;
use crate::tui::update::update;

#[test]
fn mouse_selects_and_scrolls() {
    let mut app = app();
    let area = rows_area(&app, app.view()).unwrap();
    let click = |row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: area.x + 3,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut app, click(area.y + 2));
    assert_eq!(selected_name(&app), "dev-broken");
    // Below the last row: nothing.
    update(&mut app, click(area.y + 5));
    assert_eq!(selected_name(&app), "dev-broken");
    let wheel = |kind| {
        Msg::Mouse(MouseEvent {
            kind,
            column: 0,
            row: 0,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut app, wheel(MouseEventKind::ScrollUp));
    assert_eq!(selected_name(&app), "staging-1");
    update(&mut app, wheel(MouseEventKind::ScrollDown));
    update(&mut app, wheel(MouseEventKind::ScrollDown));
    assert_eq!(selected_name(&app), "dev-broken");
}
