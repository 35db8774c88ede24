//! Feedback: the answer to a key stays until the next one, keys that do
//! nothing say so, the engine's warnings have their own screen, a save
//! says what happens next, `ctrl-u` erases in every text field, and `:ct`
//! and `:st` list one kind of template.

use crossterm::event::KeyCode;

use super::flash_text;
use crate::tui::fixtures::console::{ctrl, press, type_str, type_text};
use crate::tui::fixtures::objects::now;
use crate::tui::fixtures::sample::{app, versioned};
use crate::tui::model::key::Kind;
use crate::tui::model::view::Screen;
use crate::tui::model::warnings::Warning;
use crate::tui::state::app::{Input, Msg};
use crate::tui::state::editor::Stage;
use crate::tui::state::navigation::selected_key;
use crate::tui::update::update;

#[test]
fn a_key_that_does_nothing_says_so_until_the_next_key() {
    let mut app = app();
    press(&mut app, KeyCode::Char('a'));
    assert_eq!(
        flash_text(&app),
        "a (approve) does nothing on this screen (? lists its keys)"
    );
    // The engine's warnings do not take its place.
    update(
        &mut app,
        Msg::Log(Warning::plain("reconcile failed; retrying", now())),
    );
    assert_eq!(
        flash_text(&app),
        "a (approve) does nothing on this screen (? lists its keys)"
    );
    press(&mut app, KeyCode::Char('z'));
    assert_eq!(
        flash_text(&app),
        "z is not a key of this screen (? lists them)"
    );
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(flash_text(&app), "");
    // A bound key with nothing to act on.
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "no-such-cluster");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.row_count(), 0);
    press(&mut app, KeyCode::Enter);
    assert_eq!(flash_text(&app), "enter: nothing selected");
    press(&mut app, KeyCode::Char('y'));
    assert_eq!(flash_text(&app), "y: nothing selected");
}

#[test]
fn warnings_are_counted_and_listed_on_their_screen() {
    let mut app = app();
    for (name, message) in [("a", "one"), ("b", "two"), ("a", "one")] {
        update(
            &mut app,
            Msg::Log(Warning::from_log(
                "reconcile failed; retrying",
                &[
                    ("kind".into(), "ClusterTemplate".into()),
                    ("namespace".into(), "demo".into()),
                    ("object".into(), name.into()),
                    ("error".into(), message.into()),
                ],
                now(),
            )),
        );
    }
    assert_eq!(app.warnings.len(), 2);
    assert!(app.flash.is_none());
    press(&mut app, KeyCode::Char('!'));
    assert_eq!(app.screen(), &Screen::Warnings);
    assert_eq!(app.row_count(), 2);
    // Again: stays, no second crumb.
    press(&mut app, KeyCode::Char('!'));
    assert_eq!(app.stack.len(), 2);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), &Screen::Clusters);
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "warn");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), &Screen::Warnings);
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "two");
    assert_eq!(app.row_count(), 1);
}

#[test]
fn ct_and_st_list_one_kind_of_template() {
    let mut app = app();
    for (command, kind) in [("ct", Kind::ClusterTemplate), ("st", Kind::ServiceTemplate)] {
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, command);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), &Screen::Templates);
        assert_eq!(app.view().only, Some(kind));
        let total = match kind {
            Kind::ClusterTemplate => app.data.cluster_templates.len(),
            _ => app.data.service_templates.len(),
        };
        assert_eq!(app.row_count(), total, "{command}");
        press(&mut app, KeyCode::End);
        assert_eq!(selected_key(&app).unwrap().kind, kind);
    }
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "templates");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.view().only, None);
    assert_eq!(
        app.row_count(),
        app.data.cluster_templates.len() + app.data.service_templates.len()
    );
}

#[test]
fn ctrl_u_erases_the_line_before_the_cursor_in_every_text_field() {
    let mut app = app();
    update(&mut app, Msg::data(versioned()));
    // The `:` prompt and the filter: the cursor is at the end.
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "rollouts");
    ctrl(&mut app, 'u');
    assert_eq!(app.input, Input::Command(String::new()));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "prod");
    ctrl(&mut app, 'u');
    assert_eq!(app.view().filter, "");
    press(&mut app, KeyCode::Esc);
    // The editor: the line before the cursor, not undo.
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "controller:\n  replicaCount: 3");
    press(&mut app, KeyCode::Left);
    ctrl(&mut app, 'u');
    let editor = app.editor.as_ref().unwrap();
    assert_eq!(editor.text(), "controller:\n3\n");
}

#[test]
fn a_save_says_saved_and_what_happens_next() {
    let mut app = app();
    update(&mut app, Msg::data(versioned()));
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "ct");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "controller:\n  replicaCount: 3");
    ctrl(&mut app, 's');
    let cmds = press(&mut app, KeyCode::Char('y'));
    assert_eq!(cmds.len(), 1);
    let key = app.editor.as_ref().unwrap().key.clone();
    assert_eq!(app.editor.as_ref().unwrap().stage, Stage::Saving);
    update(
        &mut app,
        Msg::ValuesApplied {
            key,
            result: Ok(()),
        },
    );
    assert_eq!(
        flash_text(&app),
        "saved the values of ingress-nginx on ClusterTemplate aws-standalone-cp; \
         a new revision; a rollout takes it to the 2 clusters that use it \
         (wave by wave; :rollouts)"
    );
    // It stays through data changes and time, until a key.
    update(&mut app, Msg::data(versioned()));
    assert!(flash_text(&app).starts_with("saved "));
}
