//! Snapshots of every screen at 80×24 and 120×40, drawn with hand-built
//! data and a fixed "now", so ages are stable.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use crate::tui::app::tests::{app, board_app, now, target, type_str};
use crate::tui::app::{App, Engine, Msg, update};
use crate::tui::theme::Theme;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn render(app: &mut App, (w, h): (u16, u16)) -> Terminal<TestBackend> {
    update(app, Msg::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| super::draw(app, f)).unwrap();
    terminal
}

fn text(app: &mut App, size: (u16, u16)) -> String {
    render(app, size).backend().to_string()
}

fn press(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// Snapshots one state at both sizes.
fn snap(name: &str, setup: impl Fn() -> App) {
    for size in SIZES {
        let mut app = setup();
        let name = format!("{name}_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, text(&mut app, size));
    }
}

#[test]
fn clusters() {
    snap("clusters", || {
        let mut app = app();
        press(&mut app, KeyCode::Down);
        app
    });
}

#[test]
fn clusters_in_one_namespace_as_a_viewer() {
    snap("clusters_one_namespace", || {
        let mut app = app();
        app.target.namespace = Some("hmc-system".into());
        app.target.engine = Engine::Off;
        app.target.readonly = true;
        press(&mut app, KeyCode::Char('/'));
        type_str(&mut app, "prod");
        app
    });
}

#[test]
fn cluster_detail() {
    snap("cluster_detail", || {
        let mut app = app();
        press(&mut app, KeyCode::Enter);
        app
    });
    snap("cluster_detail_installing", || {
        let mut app = app();
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        app
    });
}

#[test]
fn templates() {
    snap("templates", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        app
    });
}

#[test]
fn rollouts() {
    snap("rollouts", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "rollouts");
        press(&mut app, KeyCode::Enter);
        app
    });
}

/// The Manual rollout waiting for approval of wave 2, the cursor on the
/// failed cluster of wave 1.
#[test]
fn rollout_board() {
    snap("rollout_board", || {
        let mut app = board_app();
        press(&mut app, KeyCode::Down);
        app
    });
    snap("rollout_board_stop_choice", || {
        let mut app = board_app();
        press(&mut app, KeyCode::Char('x'));
        app
    });
    snap("rollout_board_confirm_skip", || {
        let mut app = board_app();
        update(&mut app, Msg::Identity("alice@example.com".into()));
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Char('s'));
        app
    });
    snap("rollout_board_refused", || {
        let mut app = board_app();
        press(&mut app, KeyCode::Char('r'));
        app
    });
    snap("rollout_board_help", || {
        let mut app = board_app();
        press(&mut app, KeyCode::Char('?'));
        app
    });
}

/// On the board, states are in the theme's colours too.
#[test]
fn board_colours_come_from_the_theme() {
    let mut app = board_app();
    let theme = app.theme.clone();
    let terminal = render(&mut app, (120, 40));
    let buffer = terminal.backend().buffer();
    let fg_of = |needle: &str, row_hint: &str| -> Color {
        for y in 0..buffer.area.height {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect();
            if !line.contains(row_hint) {
                continue;
            }
            if let Some(byte) = line.find(needle) {
                let x = line[..byte].chars().count() as u16;
                return buffer[(x, y)].fg;
            }
        }
        panic!("{needle} not found on a line with {row_hint}");
    };
    assert_eq!(fg_of("WaitingForApproval", "revision 3"), theme.progressing);
    assert_eq!(fg_of("Updated", "prod-eu-1"), theme.ready);
    assert_eq!(fg_of("Failed", "staging-1"), theme.failed);
    assert_eq!(fg_of("Waiting", "prod-us-1"), theme.pending);
    assert_eq!(fg_of("Failed", "wave 1"), theme.failed);

    press(&mut app, KeyCode::Esc);
    let terminal = render(&mut app, (120, 40));
    let buffer = terminal.backend().buffer();
    let line_of = |hint: &str| {
        (0..buffer.area.height)
            .map(|y| {
                (0..buffer.area.width)
                    .map(|x| (buffer[(x, y)].symbol().to_string(), buffer[(x, y)].fg))
                    .collect::<Vec<_>>()
            })
            .find(|cells| {
                cells
                    .iter()
                    .map(|c| c.0.as_str())
                    .collect::<String>()
                    .contains(hint)
            })
            .unwrap()
    };
    let colour = |hint: &str, word: &str| {
        let cells = line_of(hint);
        let text: String = cells.iter().map(|c| c.0.as_str()).collect();
        let x = text[..text.find(word).unwrap()].chars().count();
        cells[x].1
    };
    assert_eq!(colour("azure-hosted", "Paused"), theme.pending);
    assert_eq!(colour("6/6", "Succeeded"), theme.ready);
    assert_eq!(colour("1/6", "WaitingForApproval"), theme.progressing);
}

#[test]
fn yaml() {
    snap("yaml", || {
        let mut app = app();
        press(&mut app, KeyCode::Char('y'));
        app
    });
}

#[test]
fn help_overlay() {
    snap("help", || {
        let mut app = app();
        press(&mut app, KeyCode::Char('?'));
        app
    });
}

#[test]
fn connecting() {
    snap("connecting", || App::new(target(), Theme::default(), now()));
}

#[test]
fn command_prompt() {
    snap("command_prompt_typing", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "t");
        app
    });
    snap("command_prompt_unknown", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "pods");
        press(&mut app, KeyCode::Enter);
        app
    });
}

/// Colours are not in the text snapshots: check that status colours come
/// from the theme, the same on both screens.
#[test]
fn status_colours_come_from_the_theme() {
    let mut app = app();
    let theme = app.theme.clone();
    let terminal = render(&mut app, (120, 40));
    let buffer = terminal.backend().buffer();
    // Find a cell's colour by the text at the start of a line's cell.
    let fg_of = |needle: &str, row_hint: &str| -> Color {
        for y in 0..buffer.area.height {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect();
            if !line.contains(row_hint) {
                continue;
            }
            if let Some(byte) = line.find(needle) {
                let x = line[..byte].chars().count() as u16;
                return buffer[(x, y)].fg;
            }
        }
        panic!("{needle} not found on a line with {row_hint}");
    };
    assert_eq!(fg_of("True", "prod-eu-1"), theme.ready);
    assert_eq!(fg_of("False", "staging-1"), theme.progressing);
    assert_eq!(fg_of("False", "dev-broken"), theme.failed);
    assert_eq!(fg_of("2/2", "prod-eu-1"), theme.ready);

    // The same colour for the same state on the detail screen.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    let terminal = render(&mut app, (120, 40));
    let buffer = terminal.backend().buffer();
    let found = (0..buffer.area.height).any(|y| {
        let line: String = (0..buffer.area.width)
            .map(|x| buffer[(x, y)].symbol().to_string())
            .collect();
        line.find("Installing ").is_some_and(|byte| {
            let x = line[..byte].chars().count() as u16;
            line.contains("ingress-nginx") && buffer[(x, y)].fg == theme.progressing
        })
    });
    assert!(found, "Installing is not in the progressing colour");
}

/// A light theme changes colours, not text.
#[test]
fn themes_change_colours_only() {
    let mut dark = app();
    let mut light = app();
    light.theme = Theme::load("light").unwrap();
    let a = render(&mut dark, (80, 24));
    let b = render(&mut light, (80, 24));
    assert_eq!(a.backend().to_string(), b.backend().to_string());
    assert_ne!(a.backend().buffer(), b.backend().buffer());
}

/// Small and odd sizes draw without panicking, on every screen.
#[test]
fn any_size_draws() {
    let setups: [fn(&mut App); 10] = [
        |a| {
            press(a, KeyCode::Char(':'));
            type_str(a, "ro");
            press(a, KeyCode::Enter);
        },
        |a| *a = board_app(),
        |a| {
            *a = board_app();
            press(a, KeyCode::Char('x'));
        },
        |a| {
            *a = board_app();
            press(a, KeyCode::Down);
            press(a, KeyCode::Char('s'));
        },
        |_| {},
        |a| press(a, KeyCode::Enter),
        |a| {
            press(a, KeyCode::Char(':'));
            type_str(a, "templates");
            press(a, KeyCode::Enter);
        },
        |a| press(a, KeyCode::Char('y')),
        |a| press(a, KeyCode::Char('?')),
        |a| {
            press(a, KeyCode::Char('/'));
            type_str(a, "nothing matches this");
        },
    ];
    for setup in setups {
        for size in [(1, 1), (10, 3), (20, 5), (40, 10), (79, 23), (200, 60)] {
            let mut app = app();
            setup(&mut app);
            render(&mut app, size);
            press(&mut app, KeyCode::End);
            render(&mut app, size);
        }
    }
    let mut app = App::new(target(), Theme::default(), now());
    render(&mut app, (5, 2));
}
