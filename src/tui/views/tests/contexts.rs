//! Two contexts on screen: the header names both with whether each can be
//! reached, and the lists gain a CONTEXT column.

use super::text;
use crate::tui::fixtures::console::unreachable;
use crate::tui::fixtures::sample::{app, in_contexts, open_beside};
use crate::tui::state::app::{App, Msg};
use crate::tui::update::update;

fn two() -> App {
    let mut app = app();
    open_beside(&mut app, "west");
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: Box::new(Msg::Synced),
        },
    );
    app
}

#[test]
fn the_header_and_the_lists_name_each_context() {
    let mut app = two();
    let screen = text(&mut app, (120, 40));
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("context: kind-hmc +west "), "{screen}");
    assert!(screen.contains("CONTEXT"), "{screen}");
    let rows = screen.lines().filter(|l| l.contains("prod-eu-1")).count();
    assert_eq!(rows, 2, "one row per context\n{screen}");
    assert!(
        screen
            .lines()
            .any(|l| l.contains("west") && l.contains("prod-eu-1")),
        "{screen}"
    );

    // West cannot be reached: the header marks it, the banner says why,
    // its rows stay.
    update(&mut app, unreachable("west"));
    let screen = text(&mut app, (120, 40));
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("+west ✗ unreachable"), "{screen}");
    assert!(
        screen.contains("context west: cannot reach https://10.0.0.2:6443"),
        "{screen}"
    );
    assert_eq!(
        screen.lines().filter(|l| l.contains("prod-eu-1")).count(),
        2,
        "{screen}"
    );

    // Its engine stopped: said beside its name, the first's field unchanged.
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: Box::new(Msg::EngineStopped(Some("lease lost".into()))),
        },
    );
    let screen = text(&mut app, (160, 40));
    let header = screen.lines().next().unwrap_or_default();
    assert!(
        header.contains("+west ✗ unreachable engine stopped"),
        "{screen}"
    );
    assert!(!header.contains("engine: stopped"), "{screen}");

    // One context again: no CONTEXT column.
    update(&mut app, Msg::Closed("west".into()));
    update(&mut app, Msg::data(in_contexts(&["kind-hmc"])));
    let screen = text(&mut app, (120, 40));
    assert!(!screen.contains("CONTEXT"), "{screen}");
    assert!(
        !screen.lines().next().unwrap_or_default().contains("+west"),
        "{screen}"
    );
}

/// An engine installed on a context: the first's engine field says the
/// console observes it; another context's says so beside its name.
#[test]
fn the_header_says_when_the_console_only_observes() {
    let mut app = two();
    let observing = |installed| {
        Box::new(Msg::EngineObserving {
            installed,
            why: "hmc-tui-1 holds the Lease kube-system/hmc-tui-engine".into(),
        })
    };
    update(
        &mut app,
        Msg::Other {
            context: "west".into(),
            msg: observing(true),
        },
    );
    let screen = text(&mut app, (160, 40));
    let header = screen.lines().next().unwrap_or_default();
    assert!(header.contains("+west engine observing"), "{screen}");
    assert!(!header.contains("engine: in-cluster"), "{screen}");

    update(&mut app, *observing(true));
    let screen = text(&mut app, (160, 40));
    let header = screen.lines().next().unwrap_or_default();
    assert!(
        header.contains("engine: in-cluster (observing)"),
        "{screen}"
    );
    update(&mut app, *observing(false));
    let screen = text(&mut app, (160, 40));
    let header = screen.lines().next().unwrap_or_default();
    assert!(
        header.contains("engine: observing (cannot tell if one is installed)"),
        "{screen}"
    );
}
