//! The `/` filter.

use crossterm::event::KeyCode;

use super::{flash_text, selected_name};
use crate::tui::fixtures::console::{press, type_str};
use crate::tui::fixtures::sample::{app, valued};
use crate::tui::state::app::{App, Input, Msg};
use crate::tui::state::search;
use crate::tui::update::update;

#[test]
fn filter_narrows_and_esc_clears() {
    let mut app = app();
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.input, Input::Filter);
    type_str(&mut app, "STAG");
    assert_eq!(app.row_count(), 1);
    assert_eq!(selected_name(&app), "staging-1");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.input, Input::None);
    assert_eq!(app.view().filter, "STAG");
    // Keys act on the list again, the filter stays.
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.row_count(), 1);
    // Message text matches too.
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    press(&mut app, KeyCode::Backspace);
    type_str(&mut app, "does not exist");
    assert_eq!(app.row_count(), 1);
    assert_eq!(selected_name(&app), "dev-broken");
    press(&mut app, KeyCode::Enter);
    // esc clears the filter first, and only then goes back.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view().filter, "");
    assert_eq!(app.row_count(), 3);
    // esc in the filter prompt clears it too.
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "zzz");
    assert_eq!(app.row_count(), 0);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.input, Input::None);
    assert_eq!(app.row_count(), 3);
    // q while typing a filter is text, not quit.
    press(&mut app, KeyCode::Char('/'));
    assert!(press(&mut app, KeyCode::Char('q')).is_empty());
    assert_eq!(app.view().filter, "q");
}

/// The names of the rows a filter keeps on the screen shown.
fn kept(app: &mut App, filter: &str) -> Vec<String> {
    press(app, KeyCode::Char('/'));
    press(app, KeyCode::Esc);
    press(app, KeyCode::Char('/'));
    type_str(app, filter);
    press(app, KeyCode::Enter);
    let mut names = Vec::new();
    for i in 0..app.row_count() {
        app.view_mut().selected = i;
        names.push(selected_name(app));
    }
    names
}

#[test]
fn every_column_of_a_list_matches() {
    let mut app = app();
    // Namespace, READY, template, services and revision columns.
    assert_eq!(kept(&mut app, "hmc-sys"), ["prod-eu-1", "staging-1"]);
    assert_eq!(kept(&mut app, "True"), ["prod-eu-1"]);
    assert_eq!(kept(&mut app, "aws-stand"), ["prod-eu-1", "staging-1"]);
    assert_eq!(kept(&mut app, "0/1"), ["staging-1"]);
    // On the templates screen: the kind and the chart too.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "templates");
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        kept(&mut app, "cluster"),
        ["aws-standalone-cp", "azure-hosted"]
    );
    assert_eq!(kept(&mut app, "team-a"), ["azure-hosted"]);
    assert_eq!(
        kept(&mut app, "1.16"),
        ["cert-manager-1-16-2"],
        "the chart's version"
    );
    // On the rollouts screen: the name, which the template column lacks.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "rollouts");
    press(&mut app, KeyCode::Enter);
    assert_eq!(kept(&mut app, "hosted-1"), ["azure-hosted-1"]);
}

#[test]
fn a_bang_keeps_the_rows_that_do_not_match() {
    let mut app = app();
    assert_eq!(kept(&mut app, "!hmc-sys"), ["dev-broken"]);
    assert_eq!(
        kept(&mut app, "!zzz"),
        ["prod-eu-1", "staging-1", "dev-broken"]
    );
    // `!` alone, while typing: nothing sought yet, everything stays.
    assert_eq!(kept(&mut app, "!").len(), 3);
}

/// The lines of the yaml view shown.
fn yaml_lines(app: &App) -> Vec<String> {
    search::text_lines(app, app.view())
}

#[test]
fn slash_searches_the_yaml_and_n_jumps_between_matches() {
    let mut app = app();
    press(&mut app, KeyCode::Char('y'));
    let lines = yaml_lines(&app);
    let hits: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.to_lowercase().contains("cert-manager"))
        .map(|(i, _)| i)
        .collect();
    assert!(hits.len() >= 2, "the sample has two: {lines:?}");
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.input, Input::Filter);
    type_str(&mut app, "CERT-MAN");
    // Typing jumps to the first match; the text stays whole.
    assert_eq!(app.view().selected, hits[0]);
    assert_eq!(app.row_count(), lines.len());
    assert_eq!(app.match_count(), hits.len());
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.input, Input::None);
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(app.view().selected, hits[1]);
    // N goes back; past the first, round to the last.
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(app.view().selected, hits[0]);
    press(&mut app, KeyCode::Char('N'));
    assert_eq!(app.view().selected, *hits.last().unwrap());
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(app.view().selected, hits[0]);
    // The match is on screen.
    let view = app.view();
    assert!(view.offset <= hits[0]);
    // esc clears the search, then goes back.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view().filter, "");
    press(&mut app, KeyCode::Char('n'));
    assert!(
        flash_text(&app).contains("/ searches"),
        "{}",
        flash_text(&app)
    );
}

#[test]
fn a_search_far_down_scrolls_to_it_and_says_when_nothing_matches() {
    let mut app = app();
    update(&mut app, Msg::Resize(80, 12));
    press(&mut app, KeyCode::Char('y'));
    let lines = yaml_lines(&app);
    let last = lines.len() - 1;
    let word = lines[last].trim().to_string();
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, &word);
    press(&mut app, KeyCode::Enter);
    let view = app.view();
    assert!(view.selected >= view.offset && view.selected < view.offset + 6);
    assert!(lines[view.selected].contains(&word));
    // `!`: the lines without the text.
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "!a");
    press(&mut app, KeyCode::Enter);
    assert!(!lines[app.view().selected].to_lowercase().contains('a'));
    press(&mut app, KeyCode::Char('/'));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "zzzz");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.match_count(), 0);
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(flash_text(&app), "no line matches /zzzz");
}

#[test]
fn slash_searches_the_values_view_too() {
    let mut app = app();
    update(&mut app, Msg::data(valued()));
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    assert!(app.screen().scrolls(), "{:?}", app.screen());
    let lines = search::text_lines(&app, app.view());
    let target = lines
        .iter()
        .position(|l| l.contains("replicaCount"))
        .unwrap();
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "replicacount");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.view().selected, target);
}
