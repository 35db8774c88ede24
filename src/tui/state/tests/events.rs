//! The engine's Events screen.

use crossterm::event::KeyCode;

use crate::tui::fixtures::console::{press, type_str};
use crate::tui::fixtures::sample::app;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::rows::event_rows;
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, Msg};
use crate::tui::update::update;

fn event_names(app: &App) -> Vec<String> {
    let Screen::Events(regarding) = app.screen() else {
        panic!("not on the events screen: {:?}", app.screen());
    };
    event_rows(&app.data, regarding.as_ref(), &app.view().filter)
        .iter()
        .map(|e| e.metadata.name.clone().unwrap_or_default())
        .collect()
}

#[test]
fn the_events_screen_lists_the_engine_s_events_newest_first() {
    for alias in ["events", "ev", "event"] {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, alias);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), &Screen::Events(None), "{alias}");
    }
    let mut app = app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "ev");
    press(&mut app, KeyCode::Enter);
    // Last seen first: a series counts from its last observation; the
    // kubelet's Event is not the engine's.
    assert_eq!(
        event_names(&app),
        [
            "dev-broken.1",
            "aws-standalone-cp-3.1",
            "staging-1.1",
            "aws-standalone-cp-3.2",
            "prod-eu-1.1"
        ]
    );
    // / filters by type, reason, object or message.
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "warning");
    assert_eq!(event_names(&app), ["dev-broken.1", "aws-standalone-cp-3.1"]);
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "rollout/aws");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        event_names(&app),
        ["aws-standalone-cp-3.1", "aws-standalone-cp-3.2"]
    );
    // enter opens the object the event is about; y its YAML.
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        app.screen(),
        &Screen::Rollout(ObjKey {
            context: Default::default(),
            kind: Kind::TemplateRollout,
            namespace: "hmc-system".into(),
            name: "aws-standalone-cp-3".into(),
        })
    );
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('y'));
    let Screen::Yaml(key) = app.screen().clone() else {
        panic!("{:?}", app.screen());
    };
    assert_eq!(key.kind, Kind::Event);
    assert!(
        app.data
            .yaml(&key)
            .unwrap()
            .contains("reason: RequestRefused")
    );
}

#[test]
fn the_cluster_detail_opens_its_events() {
    let mut app = app();
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('v'));
    let staging = ObjKey {
        context: Default::default(),
        kind: Kind::ManagedCluster,
        namespace: "hmc-system".into(),
        name: "staging-1".into(),
    };
    assert_eq!(app.screen(), &Screen::Events(Some(staging.clone())));
    assert_eq!(event_names(&app), ["staging-1.1"]);
    assert_eq!(app.screen().crumb(), "events: staging-1");
    // enter goes to the cluster again; esc twice back to the detail.
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.screen(), &Screen::ClusterDetail(staging));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
    // New events arrive through the store like any other kind.
    assert_eq!(
        update(&mut app, Msg::Changed(Kind::Event)),
        vec![Command::Refresh]
    );
}
