//! What arrives from the loop: store changes, ticks, log lines and
//! watch failures.

use crossterm::event::KeyCode;
use k8s_openapi::jiff::Timestamp;

use crate::tui::fixtures::console::{press, target};
use crate::tui::fixtures::objects::{NOW, failing, now, time};
use crate::tui::fixtures::sample::app;
use crate::tui::model::age::age;
use crate::tui::model::banner;
use crate::tui::model::key::Kind;
use crate::tui::model::warnings::Warning;
use crate::tui::state::app::{App, Command, Msg};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::rows_height;
use crate::tui::state::navigation::selected_key;
use crate::tui::theme::Theme;
use crate::tui::update::update;

#[test]
fn store_messages_ask_for_a_refresh() {
    let mut app = App::new(target(), Theme::default(), now());
    assert!(!app.synced);
    assert_eq!(
        update(&mut app, Msg::Changed(Kind::ManagedCluster)),
        vec![Command::Refresh]
    );
    assert!(!app.synced);
    assert_eq!(update(&mut app, Msg::Synced), vec![Command::Refresh]);
    assert!(app.synced);
}

#[test]
fn ages_and_flash_expiry() {
    let t = |ago| Some(time(ago));
    assert_eq!(age(now(), t(5).as_ref()), "5s");
    assert_eq!(age(now(), t(125).as_ref()), "2m");
    assert_eq!(age(now(), t(5 * 3600).as_ref()), "5h");
    assert_eq!(age(now(), t(3 * 86400).as_ref()), "3d");
    assert_eq!(age(now(), t(-10).as_ref()), "0s");
    assert_eq!(age(now(), None), "-");
    let mut app = app();
    // The answer to a key stays, whatever the time, until the next key.
    app.flash(FlashLevel::Warn, "nothing to resume");
    update(
        &mut app,
        Msg::Tick(Timestamp::from_second(NOW + 600).unwrap()),
    );
    assert_eq!(app.flash.as_ref().unwrap().text, "nothing to resume");
    // The engine's warnings never take its place: they are counted.
    update(
        &mut app,
        Msg::Log(Warning::plain("reconcile failed", now())),
    );
    assert_eq!(app.flash.as_ref().unwrap().text, "nothing to resume");
    assert_eq!(app.warnings.len(), 1);
    press(&mut app, KeyCode::Char('j'));
    assert!(app.flash.is_none());
}

#[test]
fn failing_watches_show_a_banner_until_they_recover() {
    use crate::store::{WatchFailure, WatchHealth};
    let mut app = app();
    assert_eq!(app.banner(), None);
    let height = rows_height(&app, app.view());
    update(
        &mut app,
        Msg::Watch {
            resource: "managedclusters".into(),
            health: failing(WatchFailure::Unreachable("connection refused".into())),
        },
    );
    assert_eq!(
        app.banner().as_deref(),
        Some("cannot reach https://127.0.0.1:6443: connection refused — retrying")
    );
    // The banner takes a line from the lists.
    assert_eq!(rows_height(&app, app.view()), height - 1);
    // Warnings from the log do not repeat it; the console keeps going.
    press(&mut app, KeyCode::Down);
    assert_eq!(selected_key(&app).unwrap().name, "staging-1");
    update(
        &mut app,
        Msg::Watch {
            resource: "managedclusters".into(),
            health: WatchHealth::Ok,
        },
    );
    assert_eq!(app.banner(), None);
    assert_eq!(rows_height(&app, app.view()), height);

    // Forbidden: the kinds and the namespace, until they list.
    app.target.namespace = Some("team-a".into());
    update(
        &mut app,
        Msg::Watch {
            resource: "managedclusters".into(),
            health: failing(WatchFailure::Forbidden),
        },
    );
    assert_eq!(
        app.banner().as_deref(),
        Some("not allowed to list managedclusters in namespace team-a (RBAC) — retrying")
    );
    // A problem no failure confirms goes after a while.
    let later = |s: i64| Msg::Tick(Timestamp::from_second(NOW + s).unwrap());
    update(&mut app, later(banner::QUIET - 1));
    assert!(app.banner().is_some());
    update(&mut app, later(banner::QUIET + 1));
    assert_eq!(app.banner(), None);
}
