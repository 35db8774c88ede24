//! Screens that follow the state: hints and help dim what does not apply
//! now, board rows agree with the phase, a cluster shows the revision a
//! rollout is to give it, templates count what clusters run and what is
//! pending, and the rollouts list names each rollout.

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Modifier;

use super::{render, snap, text};
use crate::api::RolloutPhase;
use crate::tui::fixtures::console::{self, press, type_str};
use crate::tui::fixtures::rolling::{rolling_app, rolling_in};
use crate::tui::fixtures::sample::{app as sample_app, board_app};
use crate::tui::model::key::Kind;
use crate::tui::model::view::Screen;
use crate::tui::state::app::App;
use crate::tui::state::flash::FlashLevel;

/// Whether the hint bar (the last line) shows `entry` dimmed; panics when
/// the entry is not there.
fn dimmed(terminal: &Terminal<TestBackend>, entry: &str) -> bool {
    let last = terminal.backend().buffer().area.height - 1;
    dimmed_on(terminal, last, entry)
}

/// Whether line `y` shows `text` dimmed; panics when it is not there.
fn dimmed_on(terminal: &Terminal<TestBackend>, y: u16, text: &str) -> bool {
    let buffer = terminal.backend().buffer();
    let line: String = (0..buffer.area.width)
        .map(|x| buffer[(x, y)].symbol().to_string())
        .collect();
    let at = line
        .find(text)
        .unwrap_or_else(|| panic!("no {text:?} on line {y}: {line:?}"));
    let x = line[..at].chars().count() as u16;
    buffer[(x, y)].modifier.contains(Modifier::DIM)
}

/// The first line that shows `text`.
fn line_of(terminal: &Terminal<TestBackend>, text: &str) -> u16 {
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .find(|y| {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, *y)].symbol().to_string())
                .collect();
            line.contains(text)
        })
        .unwrap_or_else(|| panic!("no {text:?} on screen"))
}

/// Runs a `:` command.
fn command(app: &mut App, word: &str) {
    press(app, KeyCode::Char(':'));
    type_str(app, word);
    press(app, KeyCode::Enter);
}

/// The board of the rolling sample's rollout in `phase`.
fn rolling_board(phase: RolloutPhase) -> App {
    let mut app = console::app(rolling_in(phase));
    command(&mut app, "ro");
    press(&mut app, KeyCode::Enter);
    app
}

/// Paused: wave 2 still waits for approval, but only a resume moves it,
/// and the hint bar says so.
#[test]
fn a_paused_board_agrees_with_its_phase() {
    snap("board_paused", || rolling_board(RolloutPhase::Paused));
    let mut app = rolling_board(RolloutPhase::Paused);
    let screen = text(&mut app, (120, 40));
    assert!(
        screen.contains("WaitingForApproval  0/1 updated  paused: r resumes, then a approves"),
        "{screen}"
    );
    assert!(
        !screen.contains("waits for approval: a approves"),
        "{screen}"
    );
    let t = render(&mut app, (120, 40));
    assert!(dimmed(&t, "a approve"));
    assert!(dimmed(&t, "p pause"));
    assert!(!dimmed(&t, "r resume"));
    // Waiting for approval: approve applies, resume does not.
    let mut app = rolling_board(RolloutPhase::WaitingForApproval);
    let t = render(&mut app, (120, 40));
    assert!(!dimmed(&t, "a approve"));
    assert!(dimmed(&t, "r resume"));
    assert!(
        t.backend()
            .to_string()
            .contains("waits for approval: a approves")
    );
}

/// A Succeeded rollout: approve, pause, resume, skip and retry are dimmed;
/// `x` stays, for it can still roll back, and in its question the abort is
/// dimmed. The help says what does not apply now.
#[test]
fn a_succeeded_board_dims_its_requests() {
    let succeeded = || {
        let mut app = sample_app();
        command(&mut app, "ro");
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        app
    };
    let mut app = succeeded();
    let t = render(&mut app, (120, 40));
    for entry in ["a approve", "p pause", "r resume", "s skip", "t retry"] {
        assert!(dimmed(&t, entry), "{entry}");
    }
    assert!(!dimmed(&t, "x abort"));
    assert!(!dimmed(&t, "? help"));
    press(&mut app, KeyCode::Char('x'));
    let t = render(&mut app, (120, 40));
    assert!(dimmed(&t, "x abort (clusters stay)"));
    assert!(!dimmed(&t, "b roll back"));
    snap("board_succeeded_help", || {
        let mut app = succeeded();
        press(&mut app, KeyCode::Char('?'));
        app
    });
}

/// `--readonly`: no request and no edit applies, on the board and on a
/// cluster's screen.
#[test]
fn a_read_only_console_dims_what_writes() {
    let mut board = board_app();
    board.target.readonly = true;
    let t = render(&mut board, (120, 40));
    for entry in ["a approve", "p pause", "x abort", "s skip", "t retry"] {
        assert!(dimmed(&t, entry), "{entry}");
    }
    // The wave's heading does not offer the key either.
    let screen = t.backend().to_string();
    assert!(screen.contains("WaitingForApproval  0/2 updated  waits for approval "));
    assert!(!screen.contains("a approves"), "{screen}");
    let mut app = sample_app();
    app.target.readonly = true;
    press(&mut app, KeyCode::Enter);
    let t = render(&mut app, (120, 40));
    assert!(dimmed(&t, "e edit"));
    assert!(!dimmed(&t, "enter values"));
    assert!(!dimmed(&t, "y yaml"));
    app.target.readonly = false;
    let t = render(&mut app, (120, 40));
    assert!(!dimmed(&t, "e edit"));
    // The help dims it too.
    app.target.readonly = true;
    press(&mut app, KeyCode::Char('?'));
    let t = render(&mut app, (120, 40));
    let edit = "edit the selected service's values on this cluster";
    assert!(dimmed_on(&t, line_of(&t, edit), edit));
    let yaml = line_of(&t, "  y  yaml");
    assert!(!dimmed_on(&t, yaml, "yaml"));
}

/// `t` on a template is in the templates screen's help, dimmed when the
/// console is read-only.
#[test]
fn the_templates_help_lists_t_dimmed_when_read_only() {
    let mut app = sample_app();
    command(&mut app, "tmpl");
    press(&mut app, KeyCode::Char('?'));
    let retry = "try the selected template's chart repository again now";
    let t = render(&mut app, (120, 40));
    assert!(!dimmed_on(&t, line_of(&t, retry), retry));
    app.target.readonly = true;
    let t = render(&mut app, (120, 40));
    assert!(dimmed_on(&t, line_of(&t, retry), retry));
}

/// During the rollout from 4-11-3 to 4-11-4: dev-2 reads `1→2 ⏸ wave 2`
/// on the clusters screen and its own.
#[test]
fn a_cluster_shows_its_pending_revision() {
    snap("clusters_rolling", || {
        let mut app = rolling_app();
        press(&mut app, KeyCode::Down);
        app
    });
    snap("cluster_detail_pending", || {
        let mut app = rolling_app();
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        app
    });
    let mut app = rolling_app();
    let screen = text(&mut app, (120, 40));
    assert!(screen.contains("1→2 ⏸ wave 2"), "{screen}");
}

/// `o` from a cluster: the board of its rollout, the cursor on it; a
/// cluster no rollout lists says so, and its `o` is dimmed.
#[test]
fn o_goes_from_a_cluster_to_its_rollout() {
    for from_detail in [false, true] {
        let mut app = rolling_app();
        press(&mut app, KeyCode::Down);
        if from_detail {
            press(&mut app, KeyCode::Enter);
        }
        press(&mut app, KeyCode::Char('o'));
        let Screen::Rollout(key) = app.screen() else {
            panic!("not on a board: {:?}", app.screen());
        };
        assert_eq!(key.kind, Kind::TemplateRollout);
        assert_eq!(key.name, "demo-cluster-2");
        assert_eq!(
            crate::tui::screens::board::requests::board_cluster(&app).as_deref(),
            Some("dev-2")
        );
        press(&mut app, KeyCode::Esc);
        assert!(!matches!(app.screen(), Screen::Rollout(_)));
    }
    // dev-broken: no rollout of its template.
    let mut app = sample_app();
    press(&mut app, KeyCode::Char('G'));
    let t = render(&mut app, (120, 40));
    assert!(dimmed(&t, "o rollout"));
    press(&mut app, KeyCode::Char('o'));
    assert!(matches!(app.screen(), Screen::Clusters));
    let flash = app.flash.as_ref().unwrap();
    assert_eq!(flash.level, FlashLevel::Warn);
    assert_eq!(
        flash.text,
        "no rollout of missing-template includes dev-broken"
    );
}

/// IN USE: 4-11-3 counts dev-2, which still runs it; 4-11-4 counts dev-1
/// and the one cluster still to get it.
#[test]
fn templates_count_what_runs_and_what_is_pending() {
    snap("templates_rolling", || {
        let mut app = rolling_app();
        command(&mut app, "tmpl");
        app
    });
}

/// The rollouts list names each rollout as kubectl does, and `/` finds it
/// by that name.
#[test]
fn rollouts_have_a_name_column() {
    let mut app = sample_app();
    command(&mut app, "ro");
    let screen = text(&mut app, (120, 40));
    assert!(screen.contains("NAME"), "{screen}");
    assert!(screen.contains("aws-standalone-cp-3"), "{screen}");
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "cp-2");
    assert_eq!(app.row_count(), 1);
}
