//! Snapshots of the console's feedback: the warnings' count and screen,
//! the answer to a key that does nothing, `:ct`, and a chart still being
//! fetched on the events screen.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::{press, render, snap};
use crate::tui::fixtures::console::type_str;
use crate::tui::fixtures::objects::now;
use crate::tui::fixtures::sample::{app, sample_events};
use crate::tui::model::warnings::Warning;
use crate::tui::state::app::{App, Msg};
use crate::tui::update::update;

/// The sample with two warnings from the engine, one of them twice.
fn warned() -> App {
    let mut app = app();
    for (name, error) in [
        ("bomb-ct", "namespaces \"bomb-4977\" not found"),
        ("web", "the object has been modified"),
        ("bomb-ct", "namespaces \"bomb-4977\" not found"),
    ] {
        update(
            &mut app,
            Msg::Log(Warning::from_log(
                "reconcile failed; retrying",
                &[
                    ("kind".into(), "ClusterTemplate".into()),
                    ("namespace".into(), "bomb-4977".into()),
                    ("object".into(), name.into()),
                    ("error".into(), error.into()),
                ],
                now(),
            )),
        );
    }
    app
}

#[test]
fn warnings_are_a_count_in_the_header_and_a_screen() {
    snap("warnings_count", || {
        let mut app = warned();
        // A key that does nothing here says so; the warnings do not
        // replace it.
        press(&mut app, KeyCode::Char('a'));
        app
    });
    snap("warnings_screen", || {
        let mut app = warned();
        press(&mut app, KeyCode::Char('!'));
        app
    });
}

#[test]
fn ct_lists_cluster_templates_only() {
    snap("cluster_templates_only", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "ct");
        press(&mut app, KeyCode::Enter);
        app
    });
}

/// A chart still being fetched (as an older engine reported it, a
/// Warning) shows as Normal, in the muted colour.
#[test]
fn a_chart_being_fetched_is_not_a_red_warning() {
    let mut app = app();
    let mut ev = (*sample_events()[0]).clone();
    ev.metadata.name = Some("fetching.1".into());
    ev.type_ = Some("Warning".into());
    ev.reason = Some("ChartNotReady".into());
    ev.note = Some("fetching chart ingress-nginx 4.11.4 from https://charts.example".into());
    let data = app.data.clone().with_events(vec![Arc::new(ev)]);
    update(&mut app, Msg::data(data));
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "events");
    press(&mut app, KeyCode::Enter);
    let theme = app.theme.clone();
    let terminal = render(&mut app, (120, 40));
    let buffer = terminal.backend().buffer();
    let line = (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect::<String>()
        })
        .enumerate()
        .find(|(_, l)| l.contains("ChartNotReady"))
        .expect("the event is listed");
    assert!(line.1.contains("Normal"), "{}", line.1);
    assert!(!line.1.contains("Warning"), "{}", line.1);
    let x = line.1[..line.1.find("fetching").unwrap()].chars().count() as u16;
    assert_ne!(buffer[(x, line.0 as u16)].fg, theme.failed);
    insta::assert_snapshot!("events_chart_fetching", terminal.backend().to_string());
}
