//! Moving through lists and crumbs, and keeping the selection on screen.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::selected_name;
use crate::tui::fixtures::console::press;
use crate::tui::fixtures::objects::arcs;
use crate::tui::fixtures::sample::{app, sample};
use crate::tui::model::key::{Kind, Obj, ObjKey};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::Screen;
use crate::tui::state::app::Msg;
use crate::tui::state::navigation::rows_height;
use crate::tui::update::update;

#[test]
fn navigation_is_clamped() {
    let mut app = app();
    assert_eq!(selected_name(&app), "prod-eu-1");
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(selected_name(&app), "staging-1");
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert_eq!(selected_name(&app), "dev-broken");
    press(&mut app, KeyCode::Char('k'));
    assert_eq!(selected_name(&app), "staging-1");
    press(&mut app, KeyCode::Char('g'));
    assert_eq!(app.view().selected, 0);
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT)),
    );
    assert_eq!(app.view().selected, 2);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Up);
    assert_eq!(app.view().selected, 0);
}

#[test]
fn selection_follows_its_row_when_data_changes() {
    let mut app = app();
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(selected_name(&app), "staging-1");
    let mut data = sample();
    data.clusters.remove(0);
    update(&mut app, Msg::data(data));
    assert_eq!(selected_name(&app), "staging-1");
    assert_eq!(app.view().selected, 0);
    // The selected row went away: the selection stays in range.
    update(&mut app, Msg::data(Snapshot::default()));
    assert_eq!(app.view().selected, 0);
    assert_eq!(app.row_count(), 0);
}

#[test]
fn enter_and_esc_walk_the_crumbs() {
    let mut app = app();
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Enter);
    let key = ObjKey {
        context: Default::default(),
        kind: Kind::ManagedCluster,
        namespace: "hmc-system".into(),
        name: "staging-1".into(),
    };
    assert_eq!(app.screen(), &Screen::ClusterDetail(key.clone()));
    press(&mut app, KeyCode::Char('y'));
    assert_eq!(app.screen(), &Screen::Yaml(key.clone()));
    let crumbs: Vec<String> = app.stack.iter().map(|v| v.screen.crumb()).collect();
    assert_eq!(crumbs, ["clusters", "hmc-system/staging-1", "yaml"]);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), &Screen::ClusterDetail(key));
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), &Screen::Clusters);
    // The selection is where it was.
    assert_eq!(selected_name(&app), "staging-1");
    // esc at the root stays.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.stack.len(), 1);
}

#[test]
fn yaml_hides_managed_fields_and_scrolls() {
    let mut data = sample();
    let mut mc = (*data.clusters[0]).clone();
    mc.metadata.managed_fields = Some(vec![Default::default()]);
    data.clusters[0] = Obj::new(&Default::default(), Arc::new(mc));
    let mut app = app();
    update(&mut app, Msg::data(data));
    press(&mut app, KeyCode::Char('y'));
    let Screen::Yaml(key) = app.screen().clone() else {
        panic!("not on the yaml screen");
    };
    let yaml = app.data.yaml(&key).unwrap();
    assert!(yaml.contains("kind: ManagedCluster"), "{yaml}");
    assert!(!yaml.contains("managedFields"), "{yaml}");
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.view().offset, 1);
    press(&mut app, KeyCode::Char('G'));
    let lines = yaml.lines().count();
    let height = rows_height(&app, app.view());
    assert_eq!(app.view().offset, lines.saturating_sub(height));
}

#[test]
fn long_lists_scroll_to_keep_the_selection_visible() {
    let data = sample();
    let template = (*data.clusters[0]).clone();
    let clusters = (0..100)
        .map(|i| {
            let mut c = template.clone();
            c.metadata.name = Some(format!("c-{i:03}"));
            Arc::new(c)
        })
        .collect();
    let mut app = app();
    update(&mut app, Msg::data(Snapshot::new(clusters, vec![], vec![])));
    let height = rows_height(&app, app.view());
    assert!(height > 5);
    for _ in 0..height {
        press(&mut app, KeyCode::Down);
    }
    assert_eq!(app.view().selected, height);
    assert_eq!(app.view().offset, 1);
    press(&mut app, KeyCode::PageDown);
    assert_eq!(app.view().selected, 2 * height);
    press(&mut app, KeyCode::End);
    assert_eq!(app.view().selected, 99);
    assert_eq!(app.view().offset, 100 - height);
    // A smaller terminal keeps the selection on screen.
    update(&mut app, Msg::Resize(80, 12));
    let small = rows_height(&app, app.view());
    assert_eq!(app.view().offset, 100 - small);
}

/// The lists come page by page in name order: the rows already shown keep
/// their places, and the selection and the scroll stay where they were as
/// the rest arrives, whatever order the user chose.
#[test]
fn rows_stay_put_as_pages_arrive() {
    use crate::tui::fixtures::fleet::fleet;
    use crate::tui::model::snapshot::Loading;
    let fleet = fleet(1000);
    let all = fleet.snapshot();
    let page = |n: usize| {
        let mut data = Snapshot::new(
            arcs(&all.clusters[..n]),
            arcs(&all.cluster_templates),
            arcs(&all.service_templates),
        );
        let loading = (n < all.clusters.len()).then_some((
            Kind::ManagedCluster,
            Loading {
                shown: n,
                total: Some(all.clusters.len()),
            },
        ));
        data = data.loading(loading.into_iter().collect(), true);
        data
    };
    let mut app = crate::tui::state::app::App::new(
        crate::tui::fixtures::console::target(),
        crate::tui::theme::Theme::default(),
        crate::tui::fixtures::objects::now(),
    );
    update(&mut app, Msg::Resize(120, 40));
    update(&mut app, Msg::data(page(100)));
    assert_eq!(app.row_count(), 100);
    for _ in 0..60 {
        press(&mut app, KeyCode::Char('j'));
    }
    let (selected, offset, name) = (app.view().selected, app.view().offset, selected_name(&app));
    assert!(offset > 0, "scrolled");
    for n in [500, 900, 1000] {
        update(&mut app, Msg::data(page(n)));
        assert_eq!(app.row_count(), n);
        assert_eq!(selected_name(&app), name, "the selection stays on its row");
        assert_eq!(
            (app.view().selected, app.view().offset),
            (selected, offset),
            "nothing moves on screen"
        );
    }
    update(&mut app, Msg::Synced);
    update(&mut app, Msg::data(all.clone()));
    assert_eq!(selected_name(&app), name);
    assert_eq!((app.view().selected, app.view().offset), (selected, offset));

    // Sorted by age, a page that arrives may put rows above the
    // selection: it follows its row.
    update(&mut app, Msg::data(page(100)));
    press(&mut app, KeyCode::Char('A'));
    let name = selected_name(&app);
    update(&mut app, Msg::data(page(1000)));
    assert_eq!(selected_name(&app), name);
}
