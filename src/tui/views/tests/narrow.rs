//! Narrow terminals: every list screen, a detail screen and the help at
//! 80×24 and 60×15, over data where names differ only at their ends and a
//! template's name is in two namespaces. Columns give way by their stated
//! priority; names and namespaces stay, cut in the middle when they must.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::{press, text};
use crate::tui::fixtures::console;
use crate::tui::fixtures::console::type_str;
use crate::tui::fixtures::objects::arcs;
use crate::tui::fixtures::sample::sample;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::state::app::App;
use crate::tui::state::app::Msg;
use crate::tui::update::update;

const SIZES: [(u16, u16); 2] = [(80, 24), (60, 15)];

/// The sample, with two clusters whose names differ only at the end and a
/// ServiceTemplate of the same name in a second namespace.
fn crowded() -> Snapshot {
    let s = sample();
    let mut clusters = arcs(&s.clusters);
    for n in 1..=2 {
        let mut mc = (*s.clusters[1]).clone();
        mc.metadata.namespace = Some("team-a".into());
        mc.metadata.name = Some(format!("demo-cluster-{n}"));
        clusters.push(Arc::new(mc));
    }
    let mut service_templates = arcs(&s.service_templates);
    let mut copy = (*s.service_templates[0]).clone();
    copy.metadata.namespace = Some("team-a".into());
    service_templates.push(Arc::new(copy));
    Snapshot::new(clusters, arcs(&s.cluster_templates), service_templates)
        .with_rollouts(arcs(&s.rollouts))
        .with_events(arcs(&s.events))
}

fn command(app: &mut App, name: &str) {
    press(app, KeyCode::Char(':'));
    type_str(app, name);
    press(app, KeyCode::Enter);
}

/// Snapshots one state at both narrow sizes.
fn snap(name: &str, setup: impl Fn(&mut App)) {
    for size in SIZES {
        let mut app = console::app(crowded());
        update(&mut app, Msg::Resize(size.0, size.1));
        setup(&mut app);
        let name = format!("narrow_{name}_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, text(&mut app, size));
    }
}

#[test]
fn clusters() {
    snap("clusters", |_| {});
}

#[test]
fn templates() {
    snap("templates", |app| command(app, "templates"));
}

#[test]
fn rollouts() {
    snap("rollouts", |app| command(app, "rollouts"));
}

#[test]
fn events() {
    snap("events", |app| command(app, "events"));
}

#[test]
fn rollout_board() {
    snap("rollout_board", |app| {
        command(app, "rollouts");
        press(app, KeyCode::Enter);
    });
}

#[test]
fn cluster_detail() {
    snap("cluster_detail", |app| {
        press(app, KeyCode::Down);
        press(app, KeyCode::Enter);
    });
}

#[test]
fn help() {
    snap("help", |app| press(app, KeyCode::Char('?')));
    snap("board_help", |app| {
        command(app, "rollouts");
        press(app, KeyCode::Enter);
        press(app, KeyCode::Char('?'));
    });
}

/// A help taller than the terminal scrolls.
#[test]
fn help_scrolls() {
    snap("help_scrolled", |app| {
        press(app, KeyCode::Char('?'));
        for _ in 0..3 {
            press(app, KeyCode::Char('j'));
        }
    });
}

/// At 140 columns the help is as wide as its longest line: nothing is cut.
#[test]
fn help_is_not_cut_when_wide() {
    let mut app = console::app(crowded());
    command(&mut app, "rollouts");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('?'));
    let screen = text(&mut app, (140, 40));
    for line in crate::tui::keys::COMMANDS.iter().map(|c| c.description) {
        assert!(screen.contains(line), "{line} in\n{screen}");
    }
    assert!(screen.contains("approve the wave that waits for approval"));
    assert!(!screen.contains('…'), "{screen}");
}

/// No two rows of a list read the same at any width: an identity column
/// is never hidden, and is cut in the middle.
#[test]
fn rows_never_read_the_same() {
    for screen in ["clusters", "templates", "rollouts"] {
        for width in [50, 60, 80, 100] {
            let mut app = console::app(crowded());
            command(&mut app, screen);
            let shown = text(&mut app, (width, 30));
            let rows: Vec<&str> = shown
                .lines()
                .skip(3)
                .take(app.row_count())
                .map(|l| l.trim_matches(|c| c == '"' || c == '│' || c == '▶' || c == ' '))
                .collect();
            let mut unique = rows.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), rows.len(), "{screen} at {width}:\n{shown}");
        }
    }
}
