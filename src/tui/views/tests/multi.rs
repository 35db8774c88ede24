//! The MultiClusterServices screens: the list in every namespace and in
//! one, a MultiClusterService's clusters, narrow, and the help's keys.

use crossterm::event::KeyCode;

use super::{SIZES, press, snap, text};
use crate::tui::fixtures::console::{self, type_str};
use crate::tui::fixtures::multi::{multi_app, with_multi};
use crate::tui::state::app::App;

fn command(app: &mut App, text: &str) {
    press(app, KeyCode::Char(':'));
    type_str(app, text);
    press(app, KeyCode::Enter);
}

#[test]
fn multi_cluster_services() {
    snap("multi_cluster_services", || {
        let mut app = multi_app();
        command(&mut app, "mcs");
        app
    });
}

#[test]
fn multi_cluster_services_in_one_namespace() {
    snap("multi_cluster_services_one_namespace", || {
        // As the stores of one namespace would hold them.
        let mut data = with_multi();
        data.multi_cluster_services
            .retain(|m| m.metadata.namespace.as_deref() == Some("hmc-system"));
        let mut app = console::app(data);
        app.target.namespace = Some("hmc-system".into());
        command(&mut app, "mcs");
        app
    });
}

#[test]
fn a_multi_cluster_services_clusters() {
    snap("multi_cluster_service", || {
        let mut app = multi_app();
        command(&mut app, "mcs");
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        app
    });
}

#[test]
fn a_multi_cluster_service_in_conflict() {
    snap("multi_cluster_service_conflict", || {
        let mut app = multi_app();
        command(&mut app, "mcs");
        press(&mut app, KeyCode::Enter);
        app
    });
}

#[test]
fn the_help_lists_the_screens_keys() {
    let mut app = multi_app();
    command(&mut app, "mcs");
    press(&mut app, KeyCode::Char('?'));
    let list = text(&mut app, SIZES[1]);
    assert!(list.contains("the clusters the selected MultiClusterService selects"));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('?'));
    let clusters = text(&mut app, SIZES[1]);
    assert!(clusters.contains("the selected cluster's screen"));
}

#[test]
fn narrow() {
    for size in [(60, 15)] {
        let mut app = multi_app();
        command(&mut app, "mcs");
        let name = format!("multi_cluster_services_{}x{}", size.0, size.1);
        insta::assert_snapshot!(name, text(&mut app, size));
    }
}
