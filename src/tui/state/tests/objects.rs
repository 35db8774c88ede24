//! The k9s keys of the list screens: sorting, describe and delete.

use crossterm::event::KeyCode;

use super::{flash_text, selected_name};
use crate::tui::fixtures::console::{ctrl, press, type_str};
use crate::tui::fixtures::sample::app;
use crate::tui::keys::Mode;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::sort::{Sort, SortBy};
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, Modal, Msg};
use crate::tui::update::update;

/// The rows' names in the order on screen.
fn names(app: &mut App) -> Vec<String> {
    let keep = app.view().selected;
    let out = (0..app.row_count())
        .map(|i| {
            app.view_mut().selected = i;
            selected_name(app)
        })
        .collect();
    app.view_mut().selected = keep;
    out
}

fn prod() -> ObjKey {
    ObjKey {
        context: Default::default(),
        kind: Kind::ManagedCluster,
        namespace: "hmc-system".into(),
        name: "prod-eu-1".into(),
    }
}

#[test]
fn shift_keys_sort_and_the_same_key_reverses() {
    let mut app = app();
    assert_eq!(names(&mut app), ["prod-eu-1", "staging-1", "dev-broken"]);
    press(&mut app, KeyCode::Down);
    assert_eq!(selected_name(&app), "staging-1");
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(
        app.view().sort,
        Some(Sort {
            by: SortBy::Name,
            reverse: false
        })
    );
    assert_eq!(names(&mut app), ["dev-broken", "prod-eu-1", "staging-1"]);
    assert_eq!(
        selected_name(&app),
        "staging-1",
        "the cursor stays on its row"
    );
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(names(&mut app), ["staging-1", "prod-eu-1", "dev-broken"]);
    // Age: the youngest first (dev-broken 45 s, staging-1 25 min, prod-eu-1 3 days).
    press(&mut app, KeyCode::Char('A'));
    assert_eq!(names(&mut app), ["dev-broken", "staging-1", "prod-eu-1"]);
    // Readiness: problems first, the Ready cluster last.
    press(&mut app, KeyCode::Char('S'));
    assert_eq!(
        names(&mut app).last().map(String::as_str),
        Some("prod-eu-1")
    );
    // The sort belongs to the screen: the templates keep their own.
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "templates");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.view().sort, None);
    press(&mut app, KeyCode::Char('S'));
    assert_eq!(app.view().sort.map(|s| s.by), Some(SortBy::Status));
    // What `enter` and `y` open follows the order on screen.
    press(&mut app, KeyCode::Char('g'));
    let first = selected_name(&app);
    press(&mut app, KeyCode::Char('y'));
    assert!(matches!(app.screen(), Screen::Yaml(k) if k.name == first));
}

#[test]
fn d_describes_the_selected_object_and_esc_goes_back() {
    let mut app = app();
    press(&mut app, KeyCode::Char('d'));
    assert_eq!(app.screen(), &Screen::Describe(prod()));
    assert!(app.row_count() > 20, "{} lines", app.row_count());
    update(&mut app, Msg::Resize(80, 12));
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.view().offset, 1, "it scrolls");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), &Screen::Clusters);
    // Rollouts and templates too.
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "rollouts");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('d'));
    assert!(matches!(app.screen(), Screen::Describe(k) if k.kind == Kind::TemplateRollout));
}

#[test]
fn ctrl_d_asks_what_goes_and_y_deletes() {
    let mut app = app();
    assert!(ctrl(&mut app, 'd').is_empty());
    let Some(Modal::Delete { target, question }) = app.modal.clone() else {
        panic!("a question: {:?}", app.modal);
    };
    assert_eq!(target, prod());
    assert!(
        question.starts_with("delete cluster prod-eu-1 in hmc-system? uninstalls ingress-nginx"),
        "{question}"
    );
    assert_eq!(app.mode(), Mode::Delete);
    // `n` keeps it.
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert_eq!(app.modal, None);
    assert_eq!(flash_text(&app), "kept prod-eu-1: nothing deleted");
    // `y` sends the delete.
    ctrl(&mut app, 'd');
    let commands = press(&mut app, KeyCode::Char('y'));
    assert_eq!(commands, vec![Command::Delete { key: prod() }]);
    assert_eq!(app.modal, None);
    update(
        &mut app,
        Msg::Deleted {
            key: prod(),
            result: Ok(()),
        },
    );
    assert_eq!(
        flash_text(&app),
        "deleting cluster prod-eu-1: its services are uninstalled first, then it goes"
    );
    update(
        &mut app,
        Msg::Deleted {
            key: prod(),
            result: Err("not allowed".into()),
        },
    );
    assert_eq!(
        flash_text(&app),
        "could not delete ManagedCluster prod-eu-1: not allowed"
    );
}

#[test]
fn delete_is_refused_read_only_and_for_a_template_in_use() {
    let mut ro = app();
    ro.target.readonly = true;
    let app = &mut ro;
    assert!(ctrl(app, 'd').is_empty());
    assert_eq!(app.modal, None);
    assert_eq!(
        flash_text(app),
        "read-only console (--readonly): cannot delete clusters"
    );
    let mut app = crate::tui::fixtures::sample::app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "templates");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "aws-standalone-cp");
    assert!(ctrl(&mut app, 'd').is_empty());
    assert_eq!(app.modal, None);
    assert!(
        flash_text(&app).starts_with(
            "cannot delete ClusterTemplate aws-standalone-cp: in use by ManagedCluster prod-eu-1"
        ),
        "{}",
        flash_text(&app)
    );
}
