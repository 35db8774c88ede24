//! `:ns`, `:ctx` and the namespace favourites' digits.

use crossterm::event::KeyCode;

use super::flash_text;
use crate::tui::fixtures::console::{press, type_str};
use crate::tui::fixtures::sample::{app, sample};
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, Engine, Input, Msg};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::places::{ContextInfo, remember};
use crate::tui::update::update;

fn command(app: &mut App, line: &str) -> Vec<Command> {
    press(app, KeyCode::Char(':'));
    type_str(app, line);
    press(app, KeyCode::Enter)
}

fn switched(app: &mut App, context: &str, namespace: Option<&str>) -> Vec<Command> {
    update(
        app,
        Msg::Switched {
            context: context.into(),
            cluster: "https://10.0.0.1:6443".into(),
            namespace: namespace.map(String::from),
        },
    )
}

fn with_contexts(mut app: App) -> App {
    app.places.contexts = vec![
        ContextInfo {
            name: "kind-hmc".into(),
            namespace: None,
        },
        ContextInfo {
            name: "prod".into(),
            namespace: Some("team-a".into()),
        },
        ContextInfo {
            name: "staging".into(),
            namespace: None,
        },
    ];
    app
}

#[test]
fn ns_asks_for_the_namespace_and_lists_them() {
    let mut app = app();
    assert_eq!(
        command(&mut app, "ns team-a"),
        vec![Command::Namespace(Some("team-a".into()))]
    );
    assert!(
        flash_text(&app).contains("switching to namespace team-a"),
        "{}",
        flash_text(&app)
    );
    // Until the runtime says so, the console shows what it showed.
    assert_eq!(app.target.namespace, None);
    for all in ["ns all", "namespace -A"] {
        app.target.namespace = Some("team-a".into());
        assert_eq!(command(&mut app, all), vec![Command::Namespace(None)]);
    }
    // Without a name: the namespaces known, from the data and the list.
    app.target.namespace = None;
    update(
        &mut app,
        Msg::Namespaces(vec!["default".into(), "team-a".into()]),
    );
    assert!(command(&mut app, "ns").is_empty());
    assert_eq!(
        flash_text(&app),
        "namespaces: all default hmc-system team-a; :ns NAME switches (tab completes)"
    );
    // A namespace the cluster does not have is refused, and so is the
    // one shown.
    assert!(command(&mut app, "ns nosuch").is_empty());
    assert_eq!(app.flash.as_ref().unwrap().level, FlashLevel::Error);
    assert!(flash_text(&app).contains("no namespace nosuch in context kind-hmc"));
    assert!(command(&mut app, "ns all").is_empty());
    assert_eq!(flash_text(&app), "already showing all namespaces");
}

#[test]
fn the_prompt_completes_namespaces_and_contexts() {
    let mut app = with_contexts(app());
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "ns te");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.input, Input::Command("ns team-a".into()));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "ctx st");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.input, Input::Command("ctx staging".into()));
    let (names, _) = crate::tui::state::places::prompt_candidates(&app, "ctx ");
    assert_eq!(names, vec!["kind-hmc", "prod", "staging"]);
    let (names, none) = crate::tui::state::places::prompt_candidates(&app, "ns zz");
    assert!(names.is_empty());
    assert_eq!(none, "no such namespace known");
}

#[test]
fn a_switch_starts_the_lists_over_and_remembers_the_namespace() {
    let mut app = app();
    command(&mut app, "templates");
    press(&mut app, KeyCode::Down);
    let saved = switched(&mut app, "kind-hmc", Some("team-a"));
    assert_eq!(
        saved,
        vec![Command::SaveFavourites {
            context: "kind-hmc".into(),
            namespaces: vec!["team-a".into()],
        }]
    );
    assert_eq!(app.target.namespace.as_deref(), Some("team-a"));
    assert!(!app.synced, "waits for the new stores");
    assert_eq!(app.data.clusters.len(), 0);
    assert_eq!(app.screen(), &Screen::Templates, "list screens stay");
    assert_eq!(app.view().selected, 0);
    assert_eq!(flash_text(&app), "now showing namespace team-a");
    // The newest first; one already there keeps its place.
    switched(&mut app, "kind-hmc", Some("hmc-system"));
    assert!(switched(&mut app, "kind-hmc", Some("team-a")).is_empty());
    assert_eq!(
        app.places.favourites_of("kind-hmc"),
        ["hmc-system", "team-a"]
    );
    assert!(switched(&mut app, "kind-hmc", None).is_empty());
}

#[test]
fn favourites_keep_nine_the_newest_first() {
    let mut list = Vec::new();
    for i in 0..12 {
        remember(&mut list, &format!("ns-{i}"));
    }
    assert_eq!(list.len(), 9);
    assert_eq!(list[0], "ns-11");
    assert_eq!(list[8], "ns-3");
    remember(&mut list, "ns-5");
    assert_eq!(list[0], "ns-11", "a known one does not move");
}

#[test]
fn digits_switch_to_the_favourites() {
    let mut app = app();
    app.places.favourites.insert(
        "kind-hmc".into(),
        vec!["team-a".into(), "hmc-system".into()],
    );
    assert_eq!(
        press(&mut app, KeyCode::Char('2')),
        vec![Command::Namespace(Some("hmc-system".into()))]
    );
    assert_eq!(
        press(&mut app, KeyCode::Char('1')),
        vec![Command::Namespace(Some("team-a".into()))]
    );
    assert!(press(&mut app, KeyCode::Char('0')).is_empty(), "all: shown");
    assert!(press(&mut app, KeyCode::Char('5')).is_empty());
    assert_eq!(
        flash_text(&app),
        "no namespace favourite 5: :ns NAME adds one"
    );
    app.target.namespace = Some("team-a".into());
    assert_eq!(
        press(&mut app, KeyCode::Char('0')),
        vec![Command::Namespace(None)]
    );
    // Another context has favourites of its own.
    app.target.context = "prod".into();
    assert!(press(&mut app, KeyCode::Char('1')).is_empty());
}

#[test]
fn ctx_connects_and_a_failure_changes_nothing() {
    let mut app = with_contexts(app());
    assert!(command(&mut app, "ctx").is_empty());
    assert_eq!(
        flash_text(&app),
        "contexts: *kind-hmc prod staging; :ctx NAME switches, :ctx +NAME opens one more, :ctx -NAME closes one"
    );
    assert!(command(&mut app, "ctx nosuch").is_empty());
    assert_eq!(
        flash_text(&app),
        "no context nosuch in the kubeconfig; contexts: kind-hmc prod staging"
    );
    assert!(command(&mut app, "ctx kind-hmc").is_empty());
    assert_eq!(flash_text(&app), "already on context kind-hmc");
    // A context with a namespace of its own goes there.
    assert_eq!(
        command(&mut app, "ctx prod"),
        vec![Command::Context {
            name: "prod".into(),
            namespace: Some("team-a".into()),
        }]
    );
    assert_eq!(flash_text(&app), "connecting to context prod…");
    assert!(command(&mut app, "ns team-a").is_empty(), "one at a time");
    assert!(flash_text(&app).contains("still connecting to context prod"));
    update(
        &mut app,
        Msg::SwitchFailed("cannot switch to context prod: no answer".into()),
    );
    assert_eq!(app.target.context, "kind-hmc");
    assert_eq!(app.places.connecting, None);
    assert_eq!(app.flash.as_ref().unwrap().level, FlashLevel::Error);
    // Without a namespace of its own, the one shown stays.
    app.target.namespace = Some("hmc-system".into());
    assert_eq!(
        command(&mut app, "ctx staging"),
        vec![Command::Context {
            name: "staging".into(),
            namespace: Some("hmc-system".into()),
        }]
    );
    update(&mut app, Msg::Identity("alice".into()));
    update(&mut app, Msg::EngineStopped(None));
    switched(&mut app, "staging", Some("hmc-system"));
    assert_eq!(app.target.context, "staging");
    assert_eq!(app.target.cluster, "https://10.0.0.1:6443");
    assert_eq!(app.user, None, "asked again on the new context");
    assert_eq!(app.target.engine, Engine::Standby, "a new engine starts");
    assert_eq!(
        flash_text(&app),
        "now showing context staging, namespace hmc-system"
    );
    // The data comes again, from the new stores.
    update(&mut app, Msg::Synced);
    update(&mut app, Msg::data(sample()));
    assert!(app.synced);
}

#[test]
fn without_a_kubeconfig_there_is_no_context_to_switch_to() {
    let mut app = app();
    assert!(command(&mut app, "ctx other").is_empty());
    assert!(flash_text(&app).contains("no kubeconfig contexts"));
}

#[test]
fn k9s_screens_we_do_not_have_say_so() {
    let mut app = app();
    command(&mut app, "pods");
    assert_eq!(
        flash_text(&app),
        "`:pods` is not a screen of hmc-tui; :help lists the commands"
    );
}

#[test]
fn a_context_the_settings_make_read_only_writes_nothing_and_runs_no_engine() {
    let mut app = with_contexts(app());
    app.engine_scope = Some(None);
    app.places.readonly_contexts = ["prod".to_string()].into();
    let id = crate::tui::model::chart::ChartId {
        name: "ingress-nginx".into(),
        version: "4.11.3".into(),
    };
    app.charts.insert(
        ("kind-hmc".into(), id.clone()),
        crate::tui::model::chart::ChartStatus::Fetching(id),
    );
    switched(&mut app, "prod", Some("team-a"));
    assert!(app.target.readonly);
    assert_eq!(
        app.target.engine,
        Engine::Off,
        "no engine on a read-only context"
    );
    assert!(
        app.charts.is_empty(),
        "another context's charts are not kept"
    );
    assert_eq!(
        crate::tui::state::app::why_read_only(&app, "", "delete"),
        Some("context prod is read-only (its readonly in config.yaml): cannot delete".into())
    );
    // Back on a context that is not: writes again, and an engine starts.
    switched(&mut app, "staging", None);
    assert!(!app.target.readonly);
    assert_eq!(app.target.engine, Engine::Standby);
    assert_eq!(
        crate::tui::state::app::why_read_only(&app, "", "delete"),
        None
    );
    // --readonly holds everywhere, and says so.
    app.places.readonly_everywhere = true;
    switched(&mut app, "kind-hmc", None);
    assert_eq!(
        crate::tui::state::app::why_read_only(&app, "", "delete"),
        Some("read-only console (--readonly): cannot delete".into())
    );
}
