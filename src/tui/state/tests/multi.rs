//! The MultiClusterServices list and one's clusters: `:mcs`, enter, enter
//! on a cluster; the filter, the sort, yaml and describe; nothing written.

use crossterm::event::KeyCode;

use super::{flash_text, selected_name};
use crate::tui::fixtures::console::{press, type_str};
use crate::tui::fixtures::multi::multi_app;
use crate::tui::fixtures::objects::now;
use crate::tui::model::describe::describe;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::view::Screen;
use crate::tui::state::app::App;

fn command(app: &mut App, text: &str) {
    press(app, KeyCode::Char(':'));
    type_str(app, text);
    press(app, KeyCode::Enter);
}

fn key(kind: Kind, ns: &str, name: &str) -> ObjKey {
    ObjKey::new(&Default::default(), kind, ns, name)
}

#[test]
fn mcs_then_enter_then_enter_reaches_the_cluster() {
    let mut app = multi_app();
    for alias in ["multiclusterservices", "mcs", "multiclusterservice"] {
        command(&mut app, alias);
        assert_eq!(app.screen(), &Screen::MultiClusterServices, "{alias}");
        assert_eq!(app.stack.len(), 2);
    }
    // By namespace and name.
    assert_eq!(selected_name(&app), "edge-ingress");
    press(&mut app, KeyCode::Down);
    assert_eq!(selected_name(&app), "monitoring");
    let commands = press(&mut app, KeyCode::Enter);
    assert!(commands.is_empty(), "the screens write nothing");
    let monitoring = key(Kind::MultiClusterService, "hmc-system", "monitoring");
    assert_eq!(
        app.screen(),
        &Screen::MultiClusterService(monitoring.clone())
    );
    assert_eq!(app.view().crumb(), "hmc-system/monitoring");
    // Its clusters, as its status names them; y and d are of the
    // MultiClusterService, as on the other screens of one object.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char('y'));
    assert_eq!(app.screen(), &Screen::Yaml(monitoring.clone()));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('d'));
    assert_eq!(app.screen(), &Screen::Describe(monitoring.clone()));
    let lines = describe(&app.data, &monitoring, now()).unwrap();
    let text: Vec<String> = lines
        .iter()
        .map(|l| format!("{} {}", l.label, l.text))
        .collect();
    assert!(text.contains(&"Selector: env=prod,region in (eu,us)".to_string()));
    assert!(text.contains(&"Clusters: 2 selected, 1/2 up to date".to_string()));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.view().selected, 1);
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        app.screen(),
        &Screen::ClusterDetail(key(Kind::ManagedCluster, "hmc-system", "staging-1"))
    );
    assert_eq!(app.stack.len(), 4);
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), &Screen::MultiClusterServices);
}

#[test]
fn the_list_filters_and_sorts() {
    let mut app = multi_app();
    command(&mut app, "mcs");
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "empty");
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.row_count(), 1);
    assert_eq!(selected_name(&app), "unscoped");
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.row_count(), 3);
    // Status: the conflict and the empty selector before the healthy one.
    press(&mut app, KeyCode::Char('S'));
    press(&mut app, KeyCode::End);
    assert_eq!(selected_name(&app), "monitoring");
}

#[test]
fn enter_on_a_cluster_the_console_does_not_hold_says_so() {
    let mut data = crate::tui::fixtures::multi::with_multi();
    data.clusters
        .retain(|c| c.metadata.name.as_deref() != Some("staging-1"));
    let mut app = crate::tui::fixtures::console::app(data);
    command(&mut app, "mcs");
    press(&mut app, KeyCode::Enter);
    // edge-ingress selects staging-1 only.
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.screen(), Screen::MultiClusterService(_)));
    assert_eq!(
        flash_text(&app),
        "no ManagedCluster hmc-system/staging-1 now"
    );
}
