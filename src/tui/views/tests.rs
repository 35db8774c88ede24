//! Snapshots of every screen at 80×24 and 120×40, drawn with hand-built
//! data and a fixed "now", so ages are stable.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;

use crate::store::WatchFailure;
use crate::tui::fixtures::console::{ctrl, target, type_str, type_text};
use crate::tui::fixtures::objects::{failing, now};
use crate::tui::fixtures::sample::{app, board_app, detail_app, held, valued, versioned};
use crate::tui::model::key::{Kind, Obj};
use crate::tui::model::snapshot::{Loading, Snapshot};
use crate::tui::state::app::{App, Engine, Msg};
use crate::tui::state::editor::{Base, SaveError};
use crate::tui::theme::Theme;
use crate::tui::update::update;

use crate::plan::yaml::group;

mod contexts;
mod feedback;
mod hostile;
mod multi;
mod narrow;
mod state;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

pub(super) fn render(app: &mut App, (w, h): (u16, u16)) -> Terminal<TestBackend> {
    update(app, Msg::Resize(w, h));
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal
        .draw(|f| crate::tui::screens::draw(app, f))
        .unwrap();
    terminal
}

pub(super) fn text(app: &mut App, size: (u16, u16)) -> String {
    render(app, size).backend().to_string()
}

pub(super) fn press(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

/// Snapshots one state at both sizes.
pub(super) fn snap(name: &str, setup: impl Fn() -> App) {
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

/// The selected service's merged values under the services, at the
/// revision the cluster is given.
#[test]
fn cluster_values() {
    snap("cluster_values", || {
        let mut app = app();
        update(&mut app, Msg::data(valued()));
        press(&mut app, KeyCode::Enter);
        app
    });
    // staging-1 is still given revision 1.
    snap("cluster_values_given_revision", || {
        let mut app = app();
        update(&mut app, Msg::data(valued()));
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        app
    });
    // Values that do not parse: the engine's reason instead.
    snap("cluster_values_blocked", || {
        let mut app = app();
        let mut data = valued();
        std::sync::Arc::make_mut(&mut data.clusters[0].object)
            .spec
            .services[0]
            .values = Some("controller:\n  service: {type: [ClusterIP}\n".into());
        update(&mut app, Msg::data(data));
        press(&mut app, KeyCode::Enter);
        app
    });
    // The help says what enter and e do here.
    snap("cluster_detail_help", || {
        let mut app = app();
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('?'));
        app
    });
    // More values than the pane holds: it says how many more enter shows.
    snap("cluster_values_long", long_values);
    // enter: all of them, scrolled a little.
    snap("values_screen", || {
        let mut app = long_values();
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Char('j'));
        app
    });
}

/// prod-eu-1's detail, its ingress-nginx with a chart of more defaults.
fn long_values() -> App {
    let mut app = app();
    let mut data = valued();
    let st = std::sync::Arc::make_mut(&mut data.service_templates[1].object);
    let mut config = st.status.as_ref().unwrap().config.clone().unwrap();
    config["controller"]["image"] = serde_json::json!({
        "registry": "registry.k8s.io",
        "image": "ingress-nginx/controller",
        "tag": "v1.11.3",
        "pullPolicy": "IfNotPresent",
    });
    config["controller"]["resources"] =
        serde_json::json!({"requests": {"cpu": "100m", "memory": "90Mi"}});
    config["controller"]["admissionWebhooks"] =
        serde_json::json!({"enabled": true, "port": 8443, "failurePolicy": "Fail"});
    config["defaultBackend"] = serde_json::json!({"enabled": false});
    config["tcp"] = serde_json::json!({});
    st.status.as_mut().unwrap().config = Some(config);
    update(&mut app, Msg::data(data));
    press(&mut app, KeyCode::Enter);
    app
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

/// The engine holds two chart repositories back: the REPOSITORY column
/// says why and when the next try is (`/` finds them by it), a
/// ClusterTemplate's screen says it beside the chart, and describe says
/// the whole hold.
#[test]
fn templates_held() {
    let templates = || {
        let mut app = crate::tui::fixtures::console::app(held());
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        app
    };
    snap("templates_held", templates);
    snap("describe_template_held", || {
        let mut app = templates();
        press(&mut app, KeyCode::Char('G'));
        press(&mut app, KeyCode::Char('d'));
        app
    });
    snap("template_detail_held", || {
        let mut app = templates();
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        app
    });
    let mut app = templates();
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "quarantined");
    assert_eq!(app.row_count(), 1);
    // Without a hold, no REPOSITORY column.
    let mut app = app_on_templates();
    assert!(!text(&mut app, (120, 40)).contains("REPOSITORY"));
}

fn app_on_templates() -> App {
    let mut app = app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "tmpl");
    press(&mut app, KeyCode::Enter);
    app
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
fn template_detail() {
    snap("template_detail", || {
        let mut app = app();
        update(&mut app, Msg::data(versioned()));
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        app
    });
}

/// A template whose services wait for each other shows the order.
#[test]
fn template_detail_shows_the_install_order() {
    let mut data = versioned();
    let ct = Arc::make_mut(&mut data.cluster_templates[0].object);
    let first = ct.spec.services[0].clone();
    ct.spec.services[0].depends_on = vec!["cert-manager".into()];
    ct.spec.services.push(crate::api::TemplateService {
        name: "cert-manager".into(),
        template: "cert-manager-1-16-2".into(),
        ..first
    });
    let template = ct.metadata.name.clone().unwrap();
    let mut app = app();
    update(&mut app, Msg::data(data));
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "tmpl");
    press(&mut app, KeyCode::Enter);
    let screen = text(&mut app, (120, 40));
    // Opens the first template in the list: make sure it is ours.
    assert!(screen.contains(&template), "{screen}");
    press(&mut app, KeyCode::Enter);
    let screen = text(&mut app, (120, 40));
    assert!(screen.contains("AFTER"), "{screen}");
    let row = screen
        .lines()
        .find(|l| l.contains(&first.name) && l.contains(&first.template))
        .unwrap_or_else(|| panic!("no row of {}:\n{screen}", first.name));
    assert!(row.contains("cert-manager"), "{row}");
}

/// What every cluster made from the template gets, before its own values.
#[test]
fn template_values() {
    snap("template_values", || {
        let mut app = app();
        update(&mut app, Msg::data(valued()));
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        app
    });
    snap("template_values_screen", || {
        let mut app = app();
        update(&mut app, Msg::data(valued()));
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        app
    });
    // A ServiceTemplate: its chart's defaults under its own values.
    snap("service_template_defaults", || {
        let mut app = app();
        update(&mut app, Msg::data(valued()));
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::End);
        press(&mut app, KeyCode::Enter);
        app
    });
}

/// prod-eu-1's ingress-nginx values, typed in the editor.
fn editing(text: &str) -> App {
    let mut app = detail_app();
    update(&mut app, Msg::Identity("alice@example.com".into()));
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, text);
    app
}

const VALID: &str = "controller:\n  replicaCount: 3\n  service:\n    type: ClusterIP";

#[test]
fn editor() {
    snap("editor_valid", || editing(VALID));
    snap("editor_invalid", || {
        editing("controller:\n  replicaCount: 3\n   service: {type: [ClusterIP}")
    });
    snap("editor_empty", || editing(""));
    snap("editor_review", || {
        let mut app = editing(VALID);
        ctrl(&mut app, 's');
        app
    });
    // Only a comment added: the merged values do not change, and it says so.
    snap("editor_review_no_change", || {
        let mut app = app();
        let mut data = versioned();
        let mc = std::sync::Arc::make_mut(&mut data.clusters[0].object);
        mc.spec.services = vec![crate::api::ManagedService {
            name: "ingress-nginx".into(),
            values: Some("controller:\n  replicaCount: 3\n".into()),
            ..Default::default()
        }];
        update(&mut app, Msg::data(data));
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('e'));
        type_text(&mut app, "# three for the peak\n");
        ctrl(&mut app, 's');
        app
    });
    // A ClusterTemplate's entry: a new revision, rolled out to its clusters.
    snap("editor_template_review", || {
        let mut app = app();
        update(&mut app, Msg::data(versioned()));
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('e'));
        type_text(
            &mut app,
            "controller:\n  replicaCount: 2\n  metrics:\n    enabled: true",
        );
        ctrl(&mut app, 's');
        app
    });
    snap("editor_discard", || {
        let mut app = editing(VALID);
        press(&mut app, KeyCode::Esc);
        app
    });
    snap("editor_conflict", || {
        let mut app = editing(VALID);
        ctrl(&mut app, 's');
        press(&mut app, KeyCode::Char('y'));
        let key = app.editor.as_ref().unwrap().key.clone();
        update(
            &mut app,
            Msg::ValuesApplied {
                key,
                result: Err(SaveError::Conflict { current: None }),
            },
        );
        app
    });
    snap("editor_reloaded", || {
        let mut app = editing(VALID);
        ctrl(&mut app, 's');
        press(&mut app, KeyCode::Char('y'));
        let key = app.editor.as_ref().unwrap().key.clone();
        let mut newer = (*app.data.clusters[0]).clone();
        newer.metadata.resource_version = Some("107".into());
        newer.spec.services = vec![crate::api::ManagedService {
            name: "ingress-nginx".into(),
            values: Some("controller:\n  replicaCount: 5\n".into()),
            ..Default::default()
        }];
        update(
            &mut app,
            Msg::ValuesApplied {
                key,
                result: Err(SaveError::Conflict {
                    current: Some(Base::Cluster(Obj::new(
                        &Default::default(),
                        Arc::new(newer),
                    ))),
                }),
            },
        );
        press(&mut app, KeyCode::Char('r'));
        app
    });
}

/// The YAML error's position is marked in the failed colour, and so is
/// its line number.
#[test]
fn the_editor_marks_the_error_position() {
    let mut app = editing("a: 1\nb: [1, 2\nc: 3");
    let (line, column) = app.editor.as_ref().unwrap().error_at().unwrap();
    let theme = app.theme.clone();
    let terminal = render(&mut app, (80, 24));
    let buffer = terminal.backend().buffer();
    let area =
        crate::tui::layout::editor(crate::tui::layout::bands(buffer.area, false).body, false).text;
    let gutter = crate::tui::state::editor::gutter(3) as u16;
    let cell = &buffer[(area.x + gutter + column as u16, area.y + line as u16)];
    assert_eq!(cell.fg, theme.failed);
    assert!(cell.modifier.contains(ratatui::style::Modifier::REVERSED));
    assert_eq!(buffer[(area.x + 1, area.y + line as u16)].fg, theme.failed);
    // Other lines are not marked.
    assert_ne!(buffer[(area.x + gutter, area.y)].fg, theme.failed);
}

/// The editor's chart arrives (`Ok`) or cannot be fetched (`Err`).
fn chart_arrives(app: &mut App, result: Result<(), &str>) {
    let Some(crate::tui::model::chart::ChartStatus::Fetching(id)) =
        app.editor.as_ref().map(|e| e.chart.clone())
    else {
        panic!("the editor waits for no chart");
    };
    let result = match result {
        Ok(()) => Ok(std::sync::Arc::new(crate::plan::chart::tests::upstream(
            "4.11.3",
        ))),
        Err(why) => Err(why.to_string()),
    };
    update(
        app,
        Msg::Chart {
            context: Default::default(),
            id,
            result,
        },
    );
}

#[test]
fn the_editor_knows_the_chart() {
    // A wrong type is an error at its place; an unknown key a warning.
    snap("editor_chart_findings", || {
        let mut app = editing("controller: {replicaCount: three, nosuchkey: 1}");
        chart_arrives(&mut app, Ok(()));
        app
    });
    // The cursor on a line with a warning shows it.
    snap("editor_chart_warning", || {
        let mut app = editing("controller:\n  replicaCount: 2\n  nosuchkey: 1");
        chart_arrives(&mut app, Ok(()));
        app
    });
    // Elsewhere, the status line counts what is wrong.
    snap("editor_chart_counts", || {
        let mut app = editing("controller:\n  replicaCount: x\n  nosuchkey: 1\n  nokey: 2");
        chart_arrives(&mut app, Ok(()));
        for _ in 0..3 {
            press(&mut app, KeyCode::Up);
        }
        app
    });
    snap("editor_chart_valid", || {
        let mut app = editing(VALID);
        chart_arrives(&mut app, Ok(()));
        app
    });
    // Empty: the hint uses the chart's own keys.
    snap("editor_chart_empty", || {
        let mut app = editing("");
        chart_arrives(&mut app, Ok(()));
        app
    });
    snap("editor_chart_unavailable", || {
        let mut app = editing(VALID);
        chart_arrives(&mut app, Err("its chart source has no archive yet"));
        app
    });
    // Unknown keys are listed in the review.
    snap("editor_chart_review", || {
        let mut app = editing("controller:\n  replicaCount: 2\n  nosuchkey: 1");
        chart_arrives(&mut app, Ok(()));
        ctrl(&mut app, 's');
        app
    });
}

/// An error against the chart is marked like a YAML error.
#[test]
fn the_editor_marks_a_wrong_type() {
    let mut app = editing("controller:\n  replicaCount: three");
    chart_arrives(&mut app, Ok(()));
    assert_eq!(app.editor.as_ref().unwrap().error_at(), Some((1, 16)));
    let theme = app.theme.clone();
    let terminal = render(&mut app, (80, 24));
    let buffer = terminal.backend().buffer();
    let area =
        crate::tui::layout::editor(crate::tui::layout::bands(buffer.area, false).body, false).text;
    let gutter = crate::tui::state::editor::gutter(2) as u16;
    let cell = &buffer[(area.x + gutter + 16, area.y + 1)];
    assert_eq!(cell.symbol(), "t");
    assert_eq!(cell.fg, theme.failed);
    assert!(cell.modifier.contains(ratatui::style::Modifier::REVERSED));
}

#[test]
fn events() {
    snap("events", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "events");
        press(&mut app, KeyCode::Enter);
        app
    });
    snap("events_of_a_cluster", || {
        let mut app = app();
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('v'));
        app
    });
}

/// Warnings are in the failed colour, Normal events muted.
#[test]
fn event_types_are_coloured() {
    let mut app = app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "ev");
    press(&mut app, KeyCode::Enter);
    let theme = app.theme.clone();
    let terminal = render(&mut app, (120, 40));
    let buffer = terminal.backend().buffer();
    let colour_of = |word: &str, hint: &str| {
        for y in 0..buffer.area.height {
            let line: String = (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol().to_string())
                .collect();
            if let (true, Some(byte)) = (line.contains(hint), line.find(word)) {
                let x = line[..byte].chars().count() as u16;
                return buffer[(x, y)].fg;
            }
        }
        panic!("{word} not found on a line with {hint}");
    };
    assert_eq!(colour_of("Warning", "TemplateNotFound"), theme.failed);
    assert_eq!(colour_of("Normal", "WaveApproved"), theme.muted);
}

#[test]
fn banners() {
    snap("banner_api_down", || {
        let mut app = app();
        for resource in ["managedclusters", "events", "helmreleases"] {
            update(
                &mut app,
                Msg::Watch {
                    resource: resource.into(),
                    health: failing(WatchFailure::Unreachable("connection refused".into())),
                },
            );
        }
        app
    });
    snap("banner_forbidden", || {
        let mut app = app();
        app.target.namespace = Some("team-a".into());
        for resource in ["managedclusters", "events"] {
            update(
                &mut app,
                Msg::Watch {
                    resource: resource.into(),
                    health: failing(WatchFailure::Forbidden),
                },
            );
        }
        app
    });
    // Not allowed to list a kind before the first list: the console says
    // why it waits.
    snap("banner_forbidden_connecting", || {
        let mut app = App::new(target(), Theme::default(), now());
        update(
            &mut app,
            Msg::Watch {
                resource: "templaterollouts".into(),
                health: failing(WatchFailure::Forbidden),
            },
        );
        app
    });
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
    let setups: [fn(&mut App); 13] = [
        |a| {
            update(a, Msg::data(valued()));
            press(a, KeyCode::Enter);
        },
        |a| {
            update(a, Msg::data(valued()));
            press(a, KeyCode::Enter);
            press(a, KeyCode::Enter);
        },
        |a| {
            update(a, Msg::data(valued()));
            press(a, KeyCode::Char(':'));
            type_str(a, "tmpl");
            press(a, KeyCode::Enter);
            press(a, KeyCode::Enter);
        },
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
    // The editor, with a long line and many lines, in each of its stages.
    let long = format!("a: {}\n{}", "x".repeat(300), "b: 1\n".repeat(120));
    let editors: [fn(&mut App); 5] = [
        |_| {},
        |a| {
            ctrl(a, 's');
        },
        |a| {
            press(a, KeyCode::Esc);
        },
        |a| {
            ctrl(a, 's');
            press(a, KeyCode::Char('y'));
            let key = a.editor.as_ref().unwrap().key.clone();
            update(
                a,
                Msg::ValuesApplied {
                    key,
                    result: Err(SaveError::Conflict { current: None }),
                },
            );
        },
        |a| {
            type_text(a, "\n  bad: [");
        },
    ];
    for setup in editors {
        for size in [(1, 1), (10, 3), (20, 5), (40, 10), (79, 23), (200, 60)] {
            let mut app = editing(&long);
            setup(&mut app);
            render(&mut app, size);
            press(&mut app, KeyCode::Up);
            render(&mut app, size);
        }
    }
    let mut app = App::new(target(), Theme::default(), now());
    render(&mut app, (5, 2));
}

/// A table made of only the rows on screen draws what the table of every
/// row draws, whatever the offset and the selection.
#[test]
fn tables_draw_only_the_rows_on_screen() {
    use ratatui::widgets::{Row, Table, TableState};
    let draw = |rows: &[usize], state: &mut TableState, height: u16| {
        let mut terminal = Terminal::new(TestBackend::new(6, height)).unwrap();
        let table = Table::new(
            rows.iter().map(|r| Row::new([r.to_string()])),
            [ratatui::layout::Constraint::Length(3)],
        )
        .highlight_symbol(">");
        terminal
            .draw(|f| f.render_stateful_widget(table, f.area(), state))
            .unwrap();
        terminal.backend().to_string()
    };
    for len in 0..6 {
        let all: Vec<usize> = (0..len).collect();
        for height in 1..5u16 {
            for offset in 0..8 {
                for selected in std::iter::once(None).chain((0..8).map(Some)) {
                    let mut state = TableState::default()
                        .with_offset(offset)
                        .with_selected(selected);
                    let whole = draw(&all, &mut state, height);
                    let shown = super::table::on_screen(len, offset, selected, usize::from(height));
                    let mut state = TableState::default()
                        .with_selected(selected.map(|s| s.saturating_sub(shown.start)));
                    let part = draw(&all[shown.clone()], &mut state, height);
                    assert_eq!(
                        whole, part,
                        "{len} rows, {height} high, offset {offset}, selected {selected:?}"
                    );
                }
            }
        }
    }
}

/// The keymap of a settings file's `keys:` section.
fn remapped(text: &str) -> crate::tui::keys::Keymap {
    let file: std::collections::BTreeMap<String, crate::tui::keys::remap::Section> =
        serde_yaml::from_str(text).unwrap();
    crate::tui::keys::remap::apply(&file["keys"], text).unwrap()
}

#[test]
fn remapped_keys_are_the_ones_the_screen_names() {
    let mut app = board_app();
    app.keys = remapped("keys:\n  board:\n    approve: A\n  abort:\n    roll-back: B\n");
    let screen = text(&mut app, (120, 40));
    assert!(
        screen.contains("waits for approval: A approves"),
        "{screen}"
    );
    assert!(screen.contains("A approve"), "the hint bar: {screen}");
    assert!(!screen.contains("a approve"), "{screen}");
    press(&mut app, KeyCode::Char('x'));
    let screen = text(&mut app, (120, 40));
    assert!(screen.contains("  B  roll back"), "{screen}");
    assert!(screen.contains("B roll back"), "the hint bar: {screen}");
    press(&mut app, KeyCode::Char('q'));
    assert!(app.modal.is_none());
    press(&mut app, KeyCode::Char('?'));
    let screen = text(&mut app, (120, 40));
    assert!(
        screen.contains("A  approve the wave that waits for approval"),
        "the help: {screen}"
    );
}

#[test]
fn sorted_lists_show_an_arrow_on_their_column() {
    snap("clusters_sorted_by_name_descending", || {
        let mut app = app();
        press(&mut app, KeyCode::Char('N'));
        press(&mut app, KeyCode::Char('N'));
        app
    });
    snap("rollouts_sorted_by_phase", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "rollouts");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('S'));
        app
    });
    // The templates screen has no AGE column: the sort goes after the crumbs.
    let mut app = app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "templates");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('A'));
    let screen = text(&mut app, (120, 40));
    assert!(screen.contains("templates (4) by age ↑"), "{screen}");
}

#[test]
fn describe() {
    snap("describe_cluster", || {
        let mut app = app();
        press(&mut app, KeyCode::Char('d'));
        app
    });
    snap("describe_template", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "templates");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('G'));
        press(&mut app, KeyCode::Char('d'));
        app
    });
    snap("describe_rollout", || {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "rollouts");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('d'));
        app
    });
}

#[test]
fn delete_asks_what_goes_and_where() {
    snap("delete_cluster", || {
        let mut app = app();
        ctrl(&mut app, 'd');
        app
    });
}

/// The console before its stores synced, drawn from the first pages: the
/// clusters that arrived, and how many of how many in the title.
fn loading_app(loading: Vec<(Kind, Loading)>) -> App {
    let mut app = App::new(target(), Theme::default(), now());
    let data = crate::tui::fixtures::sample::sample();
    update(&mut app, Msg::data(data.loading(loading, true)));
    app
}

#[test]
fn clusters_while_loading() {
    snap("clusters_loading", || {
        let shown = crate::tui::fixtures::sample::sample().clusters.len();
        loading_app(vec![
            (
                Kind::ManagedCluster,
                Loading {
                    shown,
                    total: Some(10_000),
                },
            ),
            (
                Kind::TemplateRollout,
                Loading {
                    shown: 0,
                    total: None,
                },
            ),
        ])
    });
}

#[test]
fn the_loading_indicator_counts_what_is_at_hand() {
    let title = |loading: Vec<(Kind, Loading)>, screen: &str| {
        let mut app = loading_app(loading);
        if !screen.is_empty() {
            press(&mut app, KeyCode::Char(':'));
            type_text(&mut app, screen);
            press(&mut app, KeyCode::Enter);
        }
        text(&mut app, (120, 40))
            .lines()
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    let clusters = |shown, total| vec![(Kind::ManagedCluster, Loading { shown, total })];
    assert!(title(clusters(3, Some(10_000)), "").contains("loading 3 / 10,000…"));
    // The API server did not say how many.
    assert!(title(clusters(3, None), "").contains("loading 3…"));
    // Nothing of the kind yet.
    assert!(title(clusters(0, None), "").contains("loading…"));
    // Complete: no indicator.
    assert!(!title(vec![], "").contains("loading"));
    // The templates screen adds both kinds of template; one complete counts
    // what it holds.
    let templates = title(
        vec![(
            Kind::ServiceTemplate,
            Loading {
                shown: 2,
                total: Some(1_200),
            },
        )],
        "templates",
    );
    let cluster_templates = crate::tui::fixtures::sample::sample()
        .cluster_templates
        .len();
    assert!(
        templates.contains(&format!(
            "loading {} / {}…",
            2 + cluster_templates,
            group(1_200 + cluster_templates)
        )),
        "{templates}"
    );
}

/// Nothing has arrived: still connecting, even with an empty snapshot.
#[test]
fn connecting_until_something_arrives() {
    let mut app = App::new(target(), Theme::default(), now());
    update(&mut app, Msg::data(Snapshot::default()));
    assert!(text(&mut app, (120, 40)).contains("connecting…"));
    let data = crate::tui::fixtures::sample::sample().loading(
        vec![(
            Kind::ManagedCluster,
            Loading {
                shown: 3,
                total: Some(3),
            },
        )],
        true,
    );
    update(&mut app, Msg::data(data));
    assert!(!text(&mut app, (120, 40)).contains("connecting…"));
}
