//! Several contexts at once: `:ctx +NAME` / `:ctx -NAME`, the messages of
//! a context beside the first, writes refused or asked in the object's own
//! context, and the lists over two contexts' objects.

use crossterm::event::KeyCode;

use super::flash_text;
use crate::plan::rollout::Request;
use crate::tui::fixtures::console::{press, type_str, unreachable};
use crate::tui::fixtures::sample::{app, open_beside, sample};
use crate::tui::model::delete;
use crate::tui::model::key::Kind;
use crate::tui::state::app::{App, Command, Engine, Msg, why_read_only};
use crate::tui::state::contexts::{all_synced, open_names};
use crate::tui::state::navigation::selected_key;
use crate::tui::state::places::ContextInfo;
use crate::tui::update::update;

fn command(app: &mut App, line: &str) -> Vec<Command> {
    press(app, KeyCode::Char(':'));
    type_str(app, line);
    press(app, KeyCode::Enter)
}

/// The sample console with the kubeconfig's contexts `kind-hmc` (the
/// first) and `west` (namespace team-a).
fn with_contexts() -> App {
    let mut app = app();
    app.places.contexts = vec![
        ContextInfo {
            name: "kind-hmc".into(),
            namespace: None,
        },
        ContextInfo {
            name: "west".into(),
            namespace: Some("team-a".into()),
        },
    ];
    app
}

/// The sample console with `west` open beside `kind-hmc`, both holding
/// the sample's objects.
fn two() -> App {
    let mut app = with_contexts();
    app.engine_scope = Some(None);
    open_beside(&mut app, "west");
    app
}

#[test]
fn ctx_plus_opens_one_more_and_minus_closes_one() {
    let mut app = with_contexts();
    // Its own namespace, as kubectl would.
    assert_eq!(
        command(&mut app, "ctx +west"),
        vec![Command::AddContext {
            name: "west".into(),
            namespace: Some("team-a".into()),
        }]
    );
    assert!(command(&mut app, "ctx +nowhere").is_empty());
    assert!(
        flash_text(&app).contains("no context nowhere"),
        "{}",
        flash_text(&app)
    );
    // The only one open stays.
    assert!(command(&mut app, "ctx -kind-hmc").is_empty());
    assert!(
        flash_text(&app).contains("the only one open"),
        "{}",
        flash_text(&app)
    );
    update(
        &mut app,
        Msg::Opened {
            context: "west".into(),
            cluster: "https://10.0.0.2:6443".into(),
            namespace: Some("team-a".into()),
        },
    );
    assert_eq!(open_names(&app), vec!["kind-hmc", "west"]);
    assert!(command(&mut app, "ctx +west").is_empty());
    assert!(
        flash_text(&app).contains("open already"),
        "{}",
        flash_text(&app)
    );
    // `:ctx` marks the first and the others.
    command(&mut app, "ctx");
    assert!(
        flash_text(&app).contains("*kind-hmc +west"),
        "{}",
        flash_text(&app)
    );
    assert_eq!(
        command(&mut app, "ctx -west"),
        vec![Command::CloseContext("west".into())]
    );
    update(&mut app, Msg::Closed("west".into()));
    assert_eq!(open_names(&app), vec!["kind-hmc"]);
}

#[test]
fn closing_the_first_makes_the_next_first() {
    let mut app = two();
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: Box::new(Msg::EngineLeading(true)),
        },
    );
    update(&mut app, Msg::Closed("kind-hmc".into()));
    assert_eq!(app.target.context, "west");
    assert_eq!(app.target.cluster, "https://10.0.0.2:6443");
    assert_eq!(app.target.engine, Engine::InProcess, "its engine's state");
    assert!(app.others.is_empty());
}

#[test]
fn a_context_beside_the_first_keeps_its_own_state() {
    let mut app = two();
    assert!(!all_synced(&app), "west has not listed yet");
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: Box::new(Msg::Synced),
        },
    );
    assert!(all_synced(&app));
    // Unreachable: that context says so, the first does not.
    update(&mut app, unreachable("west"));
    assert!(!app.others[0].reachable());
    assert!(app.problems.is_empty(), "the first context is fine");
    let banner = app.banner().unwrap_or_default();
    assert!(
        banner.starts_with("context west: cannot reach https://10.0.0.2:6443"),
        "{banner}"
    );
    // Its identity is its own.
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: Box::new(Msg::Identity("ci-bot".into())),
        },
    );
    assert_eq!(app.user_at("west"), Some("ci-bot"));
    assert_eq!(app.user_at("kind-hmc"), None);
}

#[test]
fn the_lists_hold_both_contexts_and_writes_name_theirs() {
    let mut app = two();
    let one = sample().clusters.len();
    assert_eq!(app.data.clusters.len(), 2 * one);
    assert_eq!(app.row_count(), 2 * one);
    // The same namespace and name in two contexts: two rows, each its own.
    let first = selected_key(&app).unwrap();
    press(&mut app, KeyCode::Char('j'));
    let second = selected_key(&app).unwrap();
    assert_eq!(
        (first.namespace.as_str(), first.name.as_str()),
        (second.namespace.as_str(), second.name.as_str())
    );
    assert_eq!((&*first.context, &*second.context), ("kind-hmc", "west"));
    // The question before a delete names the context.
    let question = delete::question(&app.data, &second).unwrap_or_else(|e| e);
    assert!(question.contains("of context west"), "{question}");
    // A read-only context refuses its writes only.
    app.places.readonly_contexts.insert("west".into());
    app.others[0].readonly = true;
    assert_eq!(
        why_read_only(&app, "west", "delete").as_deref(),
        Some("context west is read-only (its readonly in config.yaml): cannot delete")
    );
    assert_eq!(why_read_only(&app, "kind-hmc", "delete"), None);
    // The filter sees the context.
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "west");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.row_count(), one);
    assert_eq!(&*selected_key(&app).unwrap().context, "west");
    assert_eq!(selected_key(&app).unwrap().kind, Kind::ManagedCluster);
}

#[test]
fn a_namespace_shown_beside_becomes_a_favourite_of_that_context() {
    let mut app = two();
    // `:ns team-b` moves every open context; the runtime says so for each.
    let shown = |app: &mut App| {
        update(
            app,
            Msg::Opened {
                context: "west".into(),
                cluster: "https://10.0.0.2:6443".into(),
                namespace: Some("team-b".into()),
            },
        )
    };
    assert_eq!(
        shown(&mut app),
        vec![
            Command::SaveFavourites {
                context: "west".into(),
                namespaces: vec!["team-b".into()],
            },
            Command::Refresh,
        ]
    );
    assert_eq!(app.places.favourites_of("west"), ["team-b".to_string()]);
    assert_eq!(app.others[0].namespace.as_deref(), Some("team-b"));
    // Shown again: nothing new to save.
    let again = shown(&mut app);
    assert_eq!(again, vec![Command::Refresh]);
    // The namespace a context opens in is no favourite.
    let opened = update(
        &mut app,
        Msg::Opened {
            context: "north".into(),
            cluster: "https://10.0.0.3:6443".into(),
            namespace: Some("team-c".into()),
        },
    );
    assert_eq!(opened, vec![Command::Refresh]);
    assert!(app.places.favourites_of("north").is_empty());
}

#[test]
fn the_answer_to_a_request_names_the_rollouts_context() {
    let mut app = two();
    let answer = |app: &mut App, context: &str, result: Result<(), String>| {
        update(
            app,
            Msg::Requested {
                context: context.into(),
                name: "fleet-2".into(),
                request: Request::Approve(Some(1)),
                result,
            },
        );
        flash_text(app)
    };
    assert_eq!(
        answer(&mut app, "west", Ok(())),
        "asked: approve 1 (fleet-2, context west)"
    );
    assert_eq!(
        answer(&mut app, "", Err("context west is no longer open".into())),
        "could not ask approve 1 (fleet-2, context kind-hmc): context west is no longer open"
    );
    update(&mut app, Msg::Closed("west".into()));
    assert_eq!(
        answer(&mut app, "kind-hmc", Ok(())),
        "asked: approve 1 (fleet-2)",
        "one context open: no need to name it"
    );
}

/// Each context's engine observes or runs on its own: an installed engine
/// on west keeps west's engine off the lease, not the first's; neither
/// lead nor stand-by news turns an observer back into an engine.
#[test]
fn an_installed_engine_is_observed_per_context() {
    let mut app = two();
    update(&mut app, Msg::EngineLeading(true));
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: Box::new(Msg::EngineObserving {
                installed: true,
                why: "hmc-tui-7d9f-1 holds the Lease kube-system/hmc-tui-engine".into(),
            }),
        },
    );
    assert_eq!(app.target.engine, Engine::InProcess, "the first leads");
    assert_eq!(app.others[0].engine, Engine::Observing { installed: true });
    assert_eq!(
        flash_text(&app),
        "context west: hmc-tui-7d9f-1 holds the Lease kube-system/hmc-tui-engine: \
         the console's engine only observes (--force-engine runs it)"
    );
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: Box::new(Msg::EngineLeading(true)),
        },
    );
    assert_eq!(app.others[0].engine, Engine::Observing { installed: true });

    update(
        &mut app,
        Msg::EngineObserving {
            installed: false,
            why: "cannot tell whether an engine is installed: forbidden".into(),
        },
    );
    assert_eq!(app.target.engine, Engine::Observing { installed: false });
    assert!(
        flash_text(&app).starts_with("cannot tell whether an engine is installed: forbidden: "),
        "{}",
        flash_text(&app)
    );
    update(&mut app, Msg::EngineLeading(false));
    assert_eq!(app.target.engine, Engine::Observing { installed: false });
}
