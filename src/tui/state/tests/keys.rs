//! A remapped keymap drives every mode: the board, its questions, the `:`
//! prompt and the filter.

use std::collections::BTreeMap;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::board::request;
use crate::plan::rollout::Request;
use crate::tui::fixtures::console::{ctrl, press, type_str};
use crate::tui::fixtures::sample::{self, board_app};
use crate::tui::keys::remap::{self, Section};
use crate::tui::model::view::Screen;
use crate::tui::state::app::{Input, Modal, Msg};
use crate::tui::update::update;

fn shifted(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::SHIFT))
}

#[test]
fn remapped_keys_drive_the_board_prompts_and_questions() {
    let text = "keys:\n  board:\n    approve: A\n    skip: S\n  confirm:\n    yes: enter\n  prompt:\n    run: ctrl-j\n  filter:\n    erase: ctrl-w\n";
    let file: BTreeMap<String, Section> = serde_yaml::from_str(text).unwrap();
    let keys = remap::apply(&file["keys"], text).unwrap();
    let mut app = board_app();
    app.keys = keys.clone();
    // The old key does nothing; the new one asks.
    assert!(press(&mut app, KeyCode::Char('a')).is_empty());
    assert_eq!(
        app.flash.as_ref().map(|f| f.text.as_str()),
        Some("a is not a key of this screen (? lists them)")
    );
    assert_eq!(
        update(&mut app, shifted('A')),
        vec![request("aws-standalone-cp-3", Request::Approve(Some(2)))]
    );
    // A question answered by the rebound key only.
    press(&mut app, KeyCode::Down);
    assert!(update(&mut app, shifted('S')).is_empty());
    assert!(matches!(app.modal, Some(Modal::Confirm { .. })));
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
    assert!(
        matches!(app.modal, Some(Modal::Confirm { .. })),
        "y is not yes now"
    );
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        vec![request(
            "aws-standalone-cp-3",
            Request::Skip("staging-1".into())
        )]
    );
    // The prompt runs on its new key; enter runs nothing.
    let mut app = sample::app();
    app.keys = keys;
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "rollouts");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.input, Input::Command("rollouts".into()));
    ctrl(&mut app, 'j');
    assert_eq!(app.input, Input::None);
    assert_eq!(*app.screen(), Screen::Rollouts);
    // The filter erases on its new key, and ctrl-u is plain again.
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "azu");
    ctrl(&mut app, 'u');
    assert_eq!(app.view().filter, "azu");
    ctrl(&mut app, 'w');
    assert_eq!(app.view().filter, "");
}
