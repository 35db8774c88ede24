//! The `/` filter.

use crossterm::event::KeyCode;

use super::selected_name;
use crate::tui::fixtures::console::{press, type_str};
use crate::tui::fixtures::sample::app;
use crate::tui::state::app::Input;

#[test]
fn filter_narrows_and_esc_clears() {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.input, Input::Filter);
    type_str(&mut app, "STAG");
    assert_eq!(app.row_count(), 1);
    assert_eq!(selected_name(&app), "staging-1");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.input, Input::None);
    assert_eq!(app.view().filter, "STAG");
    // Keys act on the list again, the filter stays.
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.row_count(), 1);
    // Message text matches too.
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    type_str(&mut app, "does not exist");
    assert_eq!(app.row_count(), 1);
    assert_eq!(selected_name(&app), "dev-broken");
    press(&mut app, KeyCode::Enter);
    // esc clears the filter first, and only then goes back.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view().filter, "");
    assert_eq!(app.row_count(), 3);
    // esc in the filter prompt clears it too.
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "zzz");
    assert_eq!(app.row_count(), 0);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.input, Input::None);
    assert_eq!(app.row_count(), 3);
    // q while typing a filter is text, not quit.
    press(&mut app, KeyCode::Char('/'));
    assert!(press(&mut app, KeyCode::Char('q')).is_empty());
    assert_eq!(app.view().filter, "q");
}
