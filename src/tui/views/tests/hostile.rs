//! A tenant's crafted names and messages on every screen that shows them:
//! the control characters are written out, never drawn raw nor dropped
//! unseen, and the screen's columns stay in place.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::{press, text};
use crate::tui::fixtures::console;
use crate::tui::fixtures::sample::sample;
use crate::tui::state::app::App;

/// Clears the screen and sets the terminal's title, as a template name.
const TEMPLATE: &str = "aws\u{1b}]0;owned\u{7}\u{1b}[2Jcp";
/// A single-byte CSI (C1) and a bidirectional override, in a message.
const MESSAGE: &str = "ready\u{9b}31m now\u{202e}gnp.exe";

/// The sample's clusters, each with the crafted template name and first
/// condition message.
fn hostile() -> App {
    let mut data = sample();
    for mc in &mut data.clusters {
        let mc = Arc::make_mut(&mut mc.object);
        mc.spec.template = TEMPLATE.into();
        if let Some(c) = mc.status.as_mut().and_then(|s| s.conditions.first_mut()) {
            c.message = MESSAGE.into();
        }
    }
    console::app(data)
}

/// Whether `screen` shows the crafted texts written out, and nothing raw.
fn shows_them_escaped(screen: &str, what: &[&str]) {
    assert!(
        !screen.chars().any(|c| c.is_control() && c != '\n'),
        "{screen:?}"
    );
    for part in what {
        assert!(screen.contains(part), "{part} in\n{screen}");
    }
}

#[test]
fn the_clusters_list_writes_out_a_crafted_template_name() {
    let mut app = hostile();
    let screen = text(&mut app, (200, 30));
    // The TEMPLATE column is cut, after the escape is shown.
    shows_them_escaped(&screen, &["aws\\u{1b}]0;owned\\…"]);
}

#[test]
fn the_cluster_detail_writes_out_a_crafted_condition_message() {
    let mut app = hostile();
    press(&mut app, KeyCode::Enter);
    let screen = text(&mut app, (220, 40));
    shows_them_escaped(
        &screen,
        &[
            "ready\\u{9b}31m now\\u{202e}gnp.exe",
            "template aws\\u{1b}]0;owned",
        ],
    );
}

#[test]
fn describe_writes_out_crafted_texts_and_keeps_its_columns() {
    let mut app = hostile();
    press(&mut app, KeyCode::Char('d'));
    let screen = text(&mut app, (220, 50));
    shows_them_escaped(
        &screen,
        &[
            "ready\\u{9b}31m now\\u{202e}gnp.exe",
            "aws\\u{1b}]0;owned\\u{7}\\u{1b}[2Jcp",
        ],
    );
}
