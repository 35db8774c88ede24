//! The values editor and the service's chart: asked for once per chart
//! version, syntax only until it is there, then keys and types checked
//! against it.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::flash_text;
use crate::plan::chart::tests::upstream;
use crate::plan::chart_check::Level;
use crate::tui::fixtures::console::{ctrl, press, type_text};
use crate::tui::fixtures::sample::detail_app;
use crate::tui::model::chart::{ChartId, ChartStatus};
use crate::tui::state::app::{App, Command, Msg};
use crate::tui::state::editor::{Editor, Stage};
use crate::tui::update::update;

fn editor(app: &App) -> &Editor {
    app.editor.as_ref().expect("the editor is open")
}

/// Opens the editor on prod-eu-1's ingress-nginx; the chart it asks for.
fn open(app: &mut App) -> Option<ChartId> {
    match press(app, KeyCode::Char('e')).as_slice() {
        [Command::FetchChart(source)] => Some(source.chart.id.clone()),
        [] => None,
        other => panic!("unexpected commands {other:?}"),
    }
}

/// Closes the editor, discarding what was typed.
fn close(app: &mut App) {
    press(app, KeyCode::Esc);
    if app.editor.is_some() {
        press(app, KeyCode::Char('y'));
    }
    assert!(app.editor.is_none());
}

fn clear(app: &mut App) {
    for _ in 0..editor(app).text().len() {
        press(app, KeyCode::Backspace);
    }
}

#[test]
fn the_editor_checks_against_the_chart_once_it_is_there() {
    let mut app = detail_app();
    let id = open(&mut app).expect("the chart is asked for");
    assert_eq!(id.to_string(), "ingress-nginx 4.11.3");
    assert_eq!(editor(&app).chart, ChartStatus::Fetching(id.clone()));
    assert_eq!(
        editor(&app).chart.syntax_only().as_deref(),
        Some("syntax only: fetching ingress-nginx 4.11.3…")
    );
    type_text(&mut app, "controller: {replicaCount: three, nosuchkey: 1}");
    assert!(editor(&app).findings.is_empty(), "syntax only for now");
    update(
        &mut app,
        Msg::Chart {
            context: Default::default(),
            id: id.clone(),
            result: Ok(Arc::new(upstream("4.11.3"))),
        },
    );
    let levels: Vec<Level> = editor(&app).findings.iter().map(|f| f.level).collect();
    assert_eq!(levels, [Level::Error, Level::Warning]);
    assert_eq!(editor(&app).error_at(), Some((0, 27)));
    // The wrong type refuses the save, with its place.
    assert!(ctrl(&mut app, 's').is_empty());
    assert_eq!(editor(&app).stage, Stage::Editing);
    assert_eq!(
        flash_text(&app),
        "not saved: line 1, column 28: controller.replicaCount is a number in ingress-nginx 4.11.3, not \"three\""
    );
    // An unknown key alone lets the save through, and the review says it.
    clear(&mut app);
    type_text(&mut app, "controller: {replicaCount: 3, nosuchkey: 1}");
    assert_eq!(editor(&app).error_at(), None);
    ctrl(&mut app, 's');
    let Stage::Review(review) = editor(&app).stage.clone() else {
        panic!("no review: {:?}", editor(&app).stage);
    };
    assert!(
        review.notes.contains(
            &"! line 1, column 31: controller.nosuchkey is not a value of ingress-nginx 4.11.3"
                .to_string()
        ),
        "{:?}",
        review.notes
    );
    press(&mut app, KeyCode::Char('n'));
    close(&mut app);
    // Opened again: the chart is known, not asked for again.
    assert_eq!(open(&mut app), None);
    assert!(editor(&app).chart.values().is_some());
}

#[test]
fn a_chart_that_cannot_be_fetched_leaves_the_syntax_and_is_asked_again() {
    let mut app = detail_app();
    let id = open(&mut app).unwrap();
    update(
        &mut app,
        Msg::Chart {
            context: Default::default(),
            id: id.clone(),
            result: Err("its chart source has no archive yet".into()),
        },
    );
    assert_eq!(
        editor(&app).chart.syntax_only().as_deref(),
        Some("syntax only: cannot fetch ingress-nginx 4.11.3: its chart source has no archive yet")
    );
    type_text(&mut app, "controller: {replicaCount: three}");
    assert!(editor(&app).findings.is_empty());
    ctrl(&mut app, 's');
    assert!(
        matches!(editor(&app).stage, Stage::Review(_)),
        "syntax only"
    );
    press(&mut app, KeyCode::Char('n'));
    close(&mut app);
    assert_eq!(open(&mut app), Some(id), "tried again on the next opening");
}

#[test]
fn a_late_chart_for_a_closed_editor_is_kept_for_the_next() {
    let mut app = detail_app();
    let id = open(&mut app).unwrap();
    close(&mut app);
    update(
        &mut app,
        Msg::Chart {
            context: Default::default(),
            id: id.clone(),
            result: Ok(Arc::new(upstream("4.11.3"))),
        },
    );
    assert_eq!(open(&mut app), None);
    type_text(&mut app, "nosuchkey: 1");
    assert_eq!(editor(&app).warnings().count(), 1);
}
