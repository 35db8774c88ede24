//! The values editor: check, review, save, conflicts, leaving.

use std::sync::Arc;

use crossterm::event::KeyCode;

use super::flash_text;
use crate::tui::fixtures::console::{ctrl, press, type_str, type_text};
use crate::tui::fixtures::sample::{app, detail_app, valued, versioned};
use crate::tui::model::key::{Kind, Obj, ObjKey};
use crate::tui::model::values::ValuesKey;
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, Input, Msg};
use crate::tui::state::editor::{Base, EditKey, Editor, SaveError, Stage};
use crate::tui::state::navigation::rows_height;
use crate::tui::update::update;

fn editor(app: &App) -> &Editor {
    app.editor.as_ref().expect("the editor is open")
}

fn edit_key(kind: Kind, ns: &str, name: &str, service: &str) -> EditKey {
    EditKey {
        object: ObjKey {
            context: Default::default(),
            kind,
            namespace: ns.into(),
            name: name.into(),
        },
        service: service.into(),
    }
}

#[test]
fn edit_check_refuse_review_apply() {
    let mut app = detail_app();
    // The only command asks for the service's chart (see `chart.rs`).
    assert!(matches!(
        press(&mut app, KeyCode::Char('e')).as_slice(),
        [Command::FetchChart(_)]
    ));
    let key = edit_key(
        Kind::ManagedCluster,
        "hmc-system",
        "prod-eu-1",
        "ingress-nginx",
    );
    assert_eq!(app.screen(), &Screen::Edit(key.clone()));
    assert_eq!(editor(&app).text(), "");
    assert!(!editor(&app).dirty());
    // Every key goes to the text: q does not quit, j does not move.
    type_text(&mut app, "controller:\n  replicaCount: [3");
    assert!(!app.quit);
    assert_eq!(editor(&app).text(), "controller:\n  replicaCount: [3\n");
    // Invalid YAML: the error has a place, and save is refused.
    assert!(matches!(
        editor(&app).check,
        Err(crate::plan::values::ValuesError::Syntax { .. })
    ));
    assert!(editor(&app).error_at().is_some());
    assert!(ctrl(&mut app, 's').is_empty());
    assert_eq!(editor(&app).stage, Stage::Editing);
    assert!(
        flash_text(&app).starts_with("not saved: the values are not valid YAML (line "),
        "{}",
        flash_text(&app)
    );
    // Fixed: the review shows the merged values before → after.
    press(&mut app, KeyCode::Home);
    press(&mut app, KeyCode::End);
    for _ in 0..2 {
        press(&mut app, KeyCode::Backspace);
    }
    type_text(&mut app, "3");
    assert_eq!(editor(&app).check, Ok(()));
    assert!(ctrl(&mut app, 's').is_empty());
    let Stage::Review(review) = editor(&app).stage.clone() else {
        panic!("no review: {:?}", editor(&app).stage);
    };
    assert_eq!(review.changes, ["+ controller.replicaCount: 3"]);
    assert_eq!(
        review.notes,
        ["adds an entry for ingress-nginx to the cluster's spec.services"]
    );
    // n keeps editing; y sends the patch with the resourceVersion.
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(editor(&app).stage, Stage::Editing);
    ctrl(&mut app, 's');
    let cmds = press(&mut app, KeyCode::Char('y'));
    assert_eq!(
        cmds,
        vec![Command::ApplyValues {
            key: key.clone(),
            patch: serde_json::json!({
                "metadata": {"resourceVersion": "100"},
                "spec": {"services": [{
                    "name": "ingress-nginx",
                    "values": "controller:\n  replicaCount: 3\n",
                    "disable": false,
                }]},
            }),
        }]
    );
    assert_eq!(editor(&app).stage, Stage::Saving);
    // Keys wait while saving.
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert_eq!(app.screen(), &Screen::Edit(key.clone()));
    update(
        &mut app,
        Msg::ValuesApplied {
            key,
            result: Ok(()),
        },
    );
    assert!(app.editor.is_none());
    assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
    assert_eq!(
        flash_text(&app),
        "saved the values of ingress-nginx on ManagedCluster prod-eu-1; the engine applies them to prod-eu-1 now"
    );
}

#[test]
fn a_conflict_reloads_and_keeps_the_typed_text() {
    let mut app = detail_app();
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "controller:\n  replicaCount: 3");
    ctrl(&mut app, 's');
    let key = editor(&app).key.clone();
    assert_eq!(press(&mut app, KeyCode::Char('y')).len(), 1);
    // Someone else set the values meanwhile: the API server says 409
    // and the writer read the object again.
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
            key: key.clone(),
            result: Err(SaveError::Conflict {
                current: Some(Base::Cluster(Obj::new(
                    &Default::default(),
                    Arc::new(newer),
                ))),
            }),
        },
    );
    assert!(matches!(editor(&app).stage, Stage::Conflict { .. }));
    assert_eq!(
        flash_text(&app),
        "not saved: prod-eu-1 changed by someone else since you opened it"
    );
    // esc goes back to the text; saving again is refused again by the
    // API server, never overwritten.
    press(&mut app, KeyCode::Esc);
    assert_eq!(editor(&app).stage, Stage::Editing);
    assert_eq!(editor(&app).text(), "controller:\n  replicaCount: 3\n");
    ctrl(&mut app, 's');
    let cmds = press(&mut app, KeyCode::Char('y'));
    let [Command::ApplyValues { patch, .. }] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    assert_eq!(patch["metadata"]["resourceVersion"], "100");
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
            key: key.clone(),
            result: Err(SaveError::Conflict {
                current: Some(Base::Cluster(Obj::new(
                    &Default::default(),
                    Arc::new(newer),
                ))),
            }),
        },
    );
    // r: the current values, the typed text in the note.
    press(&mut app, KeyCode::Char('r'));
    let e = editor(&app);
    assert_eq!(e.stage, Stage::Editing);
    assert_eq!(e.text(), "controller:\n  replicaCount: 5\n");
    assert_eq!(e.note.as_deref(), Some("controller:\n  replicaCount: 3\n"));
    assert_eq!(e.base.resource_version(), Some("107"));
    assert!(!e.dirty());
    assert!(ctrl(&mut app, 's').is_empty());
    assert_eq!(
        flash_text(&app),
        "nothing to save: the values are as you opened them"
    );
    // ctrl-o puts the typed text back; the review is against the newer
    // version and the patch carries its resourceVersion.
    ctrl(&mut app, 'o');
    assert!(editor(&app).note.is_none());
    ctrl(&mut app, 's');
    let Stage::Review(review) = editor(&app).stage.clone() else {
        panic!("no review");
    };
    assert_eq!(review.changes, ["controller.replicaCount: 5 → 3"]);
    assert!(review.notes.is_empty(), "{:?}", review.notes);
    let cmds = press(&mut app, KeyCode::Char('y'));
    let [Command::ApplyValues { patch, .. }] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    assert_eq!(patch["metadata"]["resourceVersion"], "107");
    assert_eq!(
        patch["spec"]["services"][0]["values"],
        "controller:\n  replicaCount: 3\n"
    );
}

#[test]
fn a_conflict_without_the_newer_object_waits_for_the_store() {
    let mut app = detail_app();
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "a: 1");
    ctrl(&mut app, 's');
    press(&mut app, KeyCode::Char('y'));
    let key = editor(&app).key.clone();
    update(
        &mut app,
        Msg::ValuesApplied {
            key,
            result: Err(SaveError::Conflict { current: None }),
        },
    );
    press(&mut app, KeyCode::Char('r'));
    assert!(matches!(editor(&app).stage, Stage::Conflict { .. }));
    assert!(
        flash_text(&app).contains("press r again"),
        "{}",
        flash_text(&app)
    );
    // The watch brings the newer version: r reloads it.
    let mut data = versioned();
    let mc = Arc::make_mut(&mut data.clusters[0].object);
    mc.metadata.resource_version = Some("150".into());
    mc.spec.services = vec![crate::api::ManagedService {
        name: "ingress-nginx".into(),
        values: Some("b: 2\n".into()),
        ..Default::default()
    }];
    update(&mut app, Msg::data(data));
    press(&mut app, KeyCode::Char('r'));
    assert_eq!(editor(&app).stage, Stage::Editing);
    assert_eq!(editor(&app).text(), "b: 2\n");
    assert_eq!(editor(&app).note.as_deref(), Some("a: 1\n"));
}

#[test]
fn the_editor_sees_when_the_object_changes_under_it() {
    let mut app = detail_app();
    press(&mut app, KeyCode::Char('e'));
    assert!(!editor(&app).changed_since_opened(&app.data));
    let bump = |app: &mut App, rv: &str| {
        let mut data = versioned();
        Arc::make_mut(&mut data.clusters[0].object)
            .metadata
            .resource_version = Some(rv.into());
        update(app, Msg::data(data));
    };
    bump(&mut app, "300");
    assert!(editor(&app).changed_since_opened(&app.data));
    // After a reload from the API server the stores lag behind: their
    // older version is not a change; a newer one is.
    type_text(&mut app, "a: 1");
    ctrl(&mut app, 's');
    press(&mut app, KeyCode::Char('y'));
    let key = editor(&app).key.clone();
    let mut newer = (*app.data.clusters[0]).clone();
    newer.metadata.resource_version = Some("301".into());
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
    assert!(!editor(&app).changed_since_opened(&app.data));
    bump(&mut app, "301");
    assert!(!editor(&app).changed_since_opened(&app.data));
    bump(&mut app, "302");
    assert!(editor(&app).changed_since_opened(&app.data));
}

#[test]
fn esc_and_ctrl_c_ask_before_losing_changes() {
    let mut app = detail_app();
    // Unchanged: esc closes at once.
    press(&mut app, KeyCode::Char('e'));
    press(&mut app, KeyCode::Esc);
    assert!(app.editor.is_none());
    assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
    // Changed: esc asks; n keeps editing; y discards.
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "x: 1");
    press(&mut app, KeyCode::Esc);
    assert_eq!(editor(&app).stage, Stage::Discard { quit: false });
    press(&mut app, KeyCode::Char('n'));
    assert_eq!(editor(&app).stage, Stage::Editing);
    assert_eq!(editor(&app).text(), "x: 1\n");
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('y'));
    assert!(app.editor.is_none());
    assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
    // ctrl-c asks too, then quits.
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "x: 1");
    assert!(ctrl(&mut app, 'c').is_empty());
    assert_eq!(editor(&app).stage, Stage::Discard { quit: true });
    assert_eq!(press(&mut app, KeyCode::Char('y')), vec![Command::Quit]);
}

#[test]
fn a_read_only_console_does_not_open_the_editor() {
    let mut app = detail_app();
    app.target.readonly = true;
    assert!(press(&mut app, KeyCode::Char('e')).is_empty());
    assert!(app.editor.is_none());
    assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
    assert_eq!(
        flash_text(&app),
        "read-only console (--readonly): cannot edit values"
    );
    // A review answered after the console became read-only sends nothing.
    let mut app = detail_app();
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "a: 1");
    ctrl(&mut app, 's');
    app.target.readonly = true;
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
    assert_eq!(editor(&app).stage, Stage::Editing);
    assert!(flash_text(&app).contains("read-only"));
}

#[test]
fn enter_on_a_service_shows_all_its_values() {
    let mut app = app();
    update(&mut app, Msg::data(valued()));
    // prod-eu-1, then its second service.
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Enter);
    let cluster = ObjKey {
        context: Default::default(),
        kind: Kind::ManagedCluster,
        namespace: "hmc-system".into(),
        name: "prod-eu-1".into(),
    };
    assert_eq!(
        app.screen(),
        &Screen::Values(ValuesKey {
            object: cluster.clone(),
            service: Some("cert-manager".into()),
        })
    );
    let crumbs: Vec<String> = app.stack.iter().map(|v| v.screen.crumb()).collect();
    assert_eq!(
        crumbs,
        ["clusters", "hmc-system/prod-eu-1", "merged: cert-manager"]
    );
    // crds.enabled, replicaCount: one line per key and the map's own.
    assert_eq!(app.row_count(), 3);
    // A text: no selection; `/` searches it; it scrolls only when it is
    // longer than the screen.
    press(&mut app, KeyCode::Char('/'));
    assert_eq!(app.input, Input::Filter);
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.input, Input::None);
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(app.view().offset, 0);
    // esc comes back to the same service.
    press(&mut app, KeyCode::Esc);
    assert_eq!(app.screen(), &Screen::ClusterDetail(cluster.clone()));
    assert_eq!(app.view().selected, 1);

    // A long text scrolls, and stays in range when it gets shorter.
    let mut data = valued();
    let st = Arc::make_mut(&mut data.service_templates[0].object);
    let many: serde_json::Map<String, serde_json::Value> = (0..100)
        .map(|i| (format!("key{i:03}"), serde_json::json!(i)))
        .collect();
    st.status.as_mut().unwrap().config = Some(serde_json::Value::Object(many));
    update(&mut app, Msg::data(data));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.row_count(), 102);
    press(&mut app, KeyCode::Char('G'));
    let height = rows_height(&app, app.view());
    assert_eq!(app.view().offset, 102 - height);
    update(&mut app, Msg::data(valued()));
    assert_eq!(app.view().offset, 0);

    // enter on a cluster without services says so.
    let mut app = self::app();
    press(&mut app, KeyCode::Char('G'));
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.screen(), Screen::ClusterDetail(k) if k.name == "dev-broken"));
    assert_eq!(flash_text(&app), "no service selected");

    // On a ClusterTemplate: the selected service's defaults.
    let mut app = self::app();
    update(&mut app, Msg::data(valued()));
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "tmpl");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    let Screen::Values(key) = app.screen().clone() else {
        panic!("not on the values screen: {:?}", app.screen());
    };
    assert_eq!(
        (key.object.kind, key.service.as_deref()),
        (Kind::ClusterTemplate, Some("ingress-nginx"))
    );
    assert_eq!(app.screen().crumb(), "defaults: ingress-nginx");
}

#[test]
fn the_template_detail_edits_the_template_entry() {
    let mut app = app();
    update(&mut app, Msg::data(versioned()));
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "tmpl");
    press(&mut app, KeyCode::Enter);
    // enter on a ClusterTemplate: its services.
    press(&mut app, KeyCode::Enter);
    let ct = ObjKey {
        context: Default::default(),
        kind: Kind::ClusterTemplate,
        namespace: "hmc-system".into(),
        name: "aws-standalone-cp".into(),
    };
    assert_eq!(app.screen(), &Screen::TemplateDetail(ct.clone()));
    assert_eq!(app.row_count(), 2);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Char('e'));
    let key = edit_key(
        Kind::ClusterTemplate,
        "hmc-system",
        "aws-standalone-cp",
        "cert-manager",
    );
    assert_eq!(app.screen(), &Screen::Edit(key.clone()));
    type_text(&mut app, "crds:\n  enabled: true");
    ctrl(&mut app, 's');
    let Stage::Review(review) = editor(&app).stage.clone() else {
        panic!("no review");
    };
    assert_eq!(review.changes, ["+ crds.enabled: true"]);
    assert_eq!(
        review.notes,
        ["a new revision of aws-standalone-cp: its rollout takes it to the 2 clusters that use it"]
    );
    let cmds = press(&mut app, KeyCode::Char('y'));
    let [Command::ApplyValues { key: sent, patch }] = cmds.as_slice() else {
        panic!("{cmds:?}");
    };
    assert_eq!(sent, &key);
    assert_eq!(patch["metadata"]["resourceVersion"], "200");
    assert_eq!(
        patch["spec"]["services"][1],
        serde_json::json!({"name": "cert-manager", "template": "cert-manager-1-16-2", "values": "crds:\n  enabled: true\n"})
    );
    assert_eq!(
        patch["spec"]["services"][0],
        serde_json::json!({"name": "ingress-nginx", "template": "ingress-nginx-4-11-3"})
    );
    // A failure other than a conflict: the text stays, the reason shows.
    update(
        &mut app,
        Msg::ValuesApplied {
            key,
            result: Err(SaveError::Failed(
                "not allowed to change ClusterTemplate".into(),
            )),
        },
    );
    assert_eq!(editor(&app).stage, Stage::Editing);
    assert_eq!(editor(&app).text(), "crds:\n  enabled: true\n");
    assert!(flash_text(&app).starts_with("could not save the values of cert-manager"));
    // enter on a ServiceTemplate shows its default values; y its YAML.
    let mut app = self::app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "tmpl");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::End);
    press(&mut app, KeyCode::Enter);
    assert!(matches!(
        app.screen(),
        Screen::Values(ValuesKey { object, service: None }) if object.kind == Kind::ServiceTemplate
    ));
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Char('y'));
    assert!(matches!(app.screen(), Screen::Yaml(k) if k.kind == Kind::ServiceTemplate));
}

#[test]
fn the_review_uses_the_merged_values() {
    // The ServiceTemplate and the ClusterTemplate set values below the
    // cluster's entry; chart defaults are at the bottom.
    let mut data = versioned();
    let st = Arc::make_mut(&mut data.service_templates[1].object);
    assert_eq!(st.metadata.name.as_deref(), Some("ingress-nginx-4-11-3"));
    st.spec.values = Some("controller:\n  replicaCount: 2\n".into());
    st.status.as_mut().unwrap().config =
        Some(serde_json::json!({"controller": {"replicaCount": 1, "kind": "Deployment"}}));
    let ct = Arc::make_mut(&mut data.cluster_templates[0].object);
    ct.spec.services[0].values = Some("controller:\n  kind: DaemonSet\n".into());
    let mut app = app();
    update(&mut app, Msg::data(data));
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('e'));
    type_text(&mut app, "controller:\n  replicaCount: 4\n  kind: null");
    ctrl(&mut app, 's');
    let Stage::Review(review) = editor(&app).stage.clone() else {
        panic!("no review: {:?}", editor(&app).check);
    };
    assert_eq!(
        review.changes,
        [
            "- controller.kind: DaemonSet",
            "controller.replicaCount: 2 → 4"
        ]
    );
}

#[test]
fn e_on_a_template_in_the_list_says_where_its_values_are_edited() {
    let mut app = app();
    for (command, says) in [
        (
            "st",
            "is immutable: set values in a ClusterTemplate's service (enter on it, e)",
        ),
        ("ct", "'s services; e there edits one service's values"),
    ] {
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, command);
        press(&mut app, KeyCode::Enter);
        assert!(press(&mut app, KeyCode::Char('e')).is_empty(), "{command}");
        assert!(app.editor.is_none(), "no editor opens");
        assert_eq!(app.screen(), &Screen::Templates);
        let said = flash_text(&app);
        assert!(said.contains(says), "{command}: {said}");
    }
}
