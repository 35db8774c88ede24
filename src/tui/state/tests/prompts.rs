//! The `:` prompt, quitting and the help.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::tui::fixtures::console::{press, type_str};
use crate::tui::fixtures::sample::app;
use crate::tui::model::view::Screen;
use crate::tui::state::app::{Command, Input, Msg};
use crate::tui::state::flash::FlashLevel;
use crate::tui::update::update;

#[test]
fn command_prompt_completes_and_resolves_aliases() {
    let mut app = app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "te");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.input, Input::Command("templates".into()));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), &Screen::Templates);
    assert_eq!(app.row_count(), 4);
    // Back through the crumbs to the clusters.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), &Screen::Clusters);
    for alias in ["tmpl", "ct", "st"] {
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, alias);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), &Screen::Templates, "{alias}");
        assert_eq!(app.stack.len(), 2, "{alias}");
    }
    for alias in ["clusters", "mcl", "mcluster", "cl"] {
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, alias);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), &Screen::Clusters, "{alias}");
        assert_eq!(app.stack.len(), 1);
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "templates");
        press(&mut app, KeyCode::Enter);
    }
}

#[test]
fn unknown_command_is_an_error_line() {
    let mut app = app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "pods");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.input, Input::None);
    let flash = app.flash.clone().unwrap();
    assert_eq!(flash.level, FlashLevel::Error);
    assert!(flash.text.contains(":pods"), "{}", flash.text);
    // The next key clears it.
    press(&mut app, KeyCode::Char('j'));
    assert!(app.flash.is_none());
    // esc leaves the prompt without running anything; backspace on an
    // empty prompt too.
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "q");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.input, Input::None);
    assert!(!app.quit);
    press(&mut app, KeyCode::Char(':'));
    press(&mut app, KeyCode::Backspace);
    assert_eq!(app.input, Input::None);
}

#[test]
fn quit_by_q_ctrl_c_and_command() {
    let mut app = app();
    assert_eq!(press(&mut app, KeyCode::Char('q')), vec![Command::Quit]);
    let mut app = self::app();
    let cmds = update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert_eq!(cmds, vec![Command::Quit]);
    let mut app = self::app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "quit");
    assert_eq!(press(&mut app, KeyCode::Enter), vec![Command::Quit]);
    // ctrl-c quits even from a prompt.
    let mut app = self::app();
    press(&mut app, KeyCode::Char(':'));
    let cmds = update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
    assert_eq!(cmds, vec![Command::Quit]);
}

#[test]
fn help_opens_and_closes() {
    let mut app = app();
    press(&mut app, KeyCode::Char('?'));
    assert!(app.help);
    // Keys do not reach the list underneath.
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.view().selected, 0);
    press(&mut app, KeyCode::Esc);
    assert!(!app.help);
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "help");
    press(&mut app, KeyCode::Enter);
    assert!(app.help);
    press(&mut app, KeyCode::Char('?'));
    assert!(!app.help);
}
