//! `t` on a template: asks the engine to try its chart repository again,
//! as the retry annotation set to now; refused when read-only or when the
//! template names no repository; the board's `t` still retries a cluster.

use std::collections::BTreeMap;

use crossterm::event::KeyCode;
use k8s_openapi::jiff::Timestamp;

use super::{flash_text, selected_name};
use crate::api::{ChartRef, HelmSpec, labels};
use crate::tui::fixtures::console::{self, press, type_str};
use crate::tui::fixtures::objects::now;
use crate::tui::fixtures::sample::held;
use crate::tui::keys::Action;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::view::Screen;
use crate::tui::screens::applies;
use crate::tui::state::app::{App, Command, Msg};
use crate::tui::state::flash::FlashLevel;
use crate::tui::update::update;

/// The templates screen over the sample with two repositories held back.
fn templates() -> App {
    let mut app = console::app(held());
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "tmpl");
    press(&mut app, KeyCode::Enter);
    app
}

fn key(kind: Kind, name: &str) -> ObjKey {
    ObjKey {
        context: Default::default(),
        kind,
        namespace: "hmc-system".into(),
        name: name.into(),
    }
}

/// The one write `t` asks for: its object, its annotations and what it
/// asks the engine.
fn annotate(commands: Vec<Command>) -> (ObjKey, BTreeMap<String, String>, String) {
    match <[Command; 1]>::try_from(commands) {
        Ok(
            [
                Command::Annotate {
                    key,
                    annotations,
                    asks,
                },
            ],
        ) => (key, annotations, asks),
        other => panic!("not one annotation: {other:?}"),
    }
}

/// The retry annotation, alone, set to a time that reads as RFC 3339: now.
fn assert_retry_now(annotations: &BTreeMap<String, String>) {
    assert_eq!(
        annotations.keys().collect::<Vec<_>>(),
        ["hmc.mirantis.com/retry"]
    );
    assert_eq!(labels::RETRY, "hmc.mirantis.com/retry");
    let at: Timestamp = annotations[labels::RETRY]
        .parse()
        .unwrap_or_else(|e| panic!("{:?} is not RFC 3339: {e}", annotations[labels::RETRY]));
    assert_eq!(at, now());
}

#[test]
fn t_on_a_service_template_asks_to_try_its_repository_again() {
    let mut app = templates();
    press(&mut app, KeyCode::Char('G'));
    assert_eq!(selected_name(&app), "podinfo-6-7-1");
    assert!(applies(&app, Action::Retry));
    let (target, annotations, asks) = annotate(press(&mut app, KeyCode::Char('t')));
    assert_eq!(target, key(Kind::ServiceTemplate, "podinfo-6-7-1"));
    assert_retry_now(&annotations);
    assert_eq!(
        asks,
        "try chart repository http://charts.unreachable.example again"
    );
    assert_eq!(
        flash_text(&app),
        "asking the engine to try chart repository http://charts.unreachable.example again…"
    );
    // The API server's answer.
    update(
        &mut app,
        Msg::Annotated {
            asks: asks.clone(),
            result: Ok(()),
        },
    );
    let flash = app.flash.clone().unwrap();
    assert_eq!(flash.level, FlashLevel::Info);
    assert_eq!(
        flash.text,
        "asked the engine to try chart repository http://charts.unreachable.example again"
    );
    update(
        &mut app,
        Msg::Annotated {
            asks,
            result: Err("not allowed to change ServiceTemplate podinfo-6-7-1".into()),
        },
    );
    let flash = app.flash.clone().unwrap();
    assert_eq!(flash.level, FlashLevel::Error);
    assert_eq!(
        flash.text,
        "could not ask the engine to try chart repository http://charts.unreachable.example again: \
         not allowed to change ServiceTemplate podinfo-6-7-1"
    );
}

#[test]
fn t_on_a_cluster_template_asks_from_the_list_and_its_screen() {
    let mut app = templates();
    assert_eq!(selected_name(&app), "aws-standalone-cp");
    let want = key(Kind::ClusterTemplate, "aws-standalone-cp");
    // Not held back: `t` still asks, for a repository that answers but
    // lacked the chart, say.
    let (target, annotations, asks) = annotate(press(&mut app, KeyCode::Char('t')));
    assert_eq!(target, want);
    assert_retry_now(&annotations);
    assert_eq!(
        asks,
        "try chart repository https://charts.example.com again"
    );
    // On the ClusterTemplate's screen, `t` is about the template on screen
    // whatever service is selected.
    press(&mut app, KeyCode::Enter);
    assert!(matches!(app.screen(), Screen::TemplateDetail(k) if *k == want));
    press(&mut app, KeyCode::Down);
    let (target, annotations, _) = annotate(press(&mut app, KeyCode::Char('t')));
    assert_eq!(target, want);
    assert_retry_now(&annotations);
    // azure-hosted waits for a turn: the hold's address is named.
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Down);
    assert_eq!(selected_name(&app), "azure-hosted");
    let (target, _, asks) = annotate(press(&mut app, KeyCode::Char('t')));
    assert_eq!(target.kind, Kind::ClusterTemplate);
    assert_eq!(target.namespace, "team-a");
    assert_eq!(
        asks,
        "try chart repository https://charts.example.com again"
    );
}

#[test]
fn a_read_only_console_refuses_and_dims_it() {
    let mut app = templates();
    app.target.readonly = true;
    press(&mut app, KeyCode::Char('G'));
    assert!(!applies(&app, Action::Retry));
    assert!(press(&mut app, KeyCode::Char('t')).is_empty());
    let flash = app.flash.clone().unwrap();
    assert_eq!(flash.level, FlashLevel::Warn);
    assert_eq!(
        flash.text,
        "read-only console (--readonly): cannot try a chart repository again"
    );
}

#[test]
fn a_template_without_a_repository_of_the_engines_is_refused() {
    let mut data = held();
    let st = std::sync::Arc::make_mut(&mut data.service_templates[0].object);
    st.spec.helm = HelmSpec {
        chart_ref: Some(ChartRef {
            kind: "OCIRepository".into(),
            name: "cert-manager".into(),
            ..Default::default()
        }),
        ..Default::default()
    };
    let mut app = console::app(data);
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "st");
    press(&mut app, KeyCode::Enter);
    assert_eq!(selected_name(&app), "cert-manager-1-16-2");
    assert!(press(&mut app, KeyCode::Char('t')).is_empty());
    assert_eq!(
        flash_text(&app),
        "cert-manager-1-16-2 takes its chart from a source of its own (chartRef cert-manager): \
         no repository for the engine to try"
    );
    assert!(!applies(&app, Action::Retry));
}

/// `t` means "try again" on the screens that bind it only: elsewhere it
/// says so, on the board it retries a cluster (see the board's tests).
#[test]
fn t_elsewhere_does_nothing() {
    let mut app = console::app(held());
    assert!(press(&mut app, KeyCode::Char('t')).is_empty());
    assert_eq!(
        flash_text(&app),
        "t (retry) does nothing on this screen (? lists its keys)"
    );
}
