//! The rollouts list and a rollout's board: its requests and questions.

use std::sync::Arc;

use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use kube::ResourceExt;

use super::flash_text;
use crate::api::{ClusterRolloutState, RolloutPhase, WaveState, WaveStatus};
use crate::plan::rollout::Request;
use crate::tui::fixtures::console::{press, type_str};
use crate::tui::fixtures::sample::{app, board_app, rollout_cluster, sample, waiting_rollout};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::rows::rollout_rows;
use crate::tui::model::view::Screen;
use crate::tui::screens::board::requests::board_cluster;
use crate::tui::state::app::{App, Command, Modal, Msg};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{rows_area, rows_height};
use crate::tui::update::update;

pub(super) fn request(name: &str, request: Request) -> Command {
    Command::Request {
        context: String::new(),
        namespace: if name == "azure-hosted-1" {
            "team-a"
        } else {
            "hmc-system"
        }
        .into(),
        name: name.into(),
        request,
    }
}

fn board_cursor(app: &App) -> Option<String> {
    board_cluster(app)
}

#[test]
fn rollouts_list_and_board() {
    let mut app = app();
    for alias in ["rollouts", "ro", "rollout"] {
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, alias);
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), &Screen::Rollouts, "{alias}");
        assert_eq!(app.stack.len(), 2);
    }
    // The newest revision of a template first.
    let names: Vec<String> = rollout_rows(&app.data, "")
        .iter()
        .map(|r| r.name_any())
        .collect();
    assert_eq!(
        names,
        [
            "aws-standalone-cp-3",
            "aws-standalone-cp-2",
            "azure-hosted-1"
        ]
    );
    press(&mut app, KeyCode::Enter);
    let key = ObjKey {
        context: Default::default(),
        kind: Kind::TemplateRollout,
        namespace: "hmc-system".into(),
        name: "aws-standalone-cp-3".into(),
    };
    assert_eq!(app.screen(), &Screen::Rollout(key.clone()));
    assert_eq!(app.row_count(), 6);
    assert_eq!(board_cursor(&app).as_deref(), Some("prod-eu-1"));
    // The cursor walks the clusters, not the wave headings.
    press(&mut app, KeyCode::Char('j'));
    press(&mut app, KeyCode::Down);
    assert_eq!(board_cursor(&app).as_deref(), Some("prod-us-1"));
    press(&mut app, KeyCode::Char('G'));
    assert_eq!(board_cursor(&app).as_deref(), Some("prod-ap-2"));
    // y shows the rollout's YAML; esc comes back to the board.
    press(&mut app, KeyCode::Char('y'));
    assert_eq!(app.screen(), &Screen::Yaml(key.clone()));
    assert!(
        app.data
            .yaml(&key)
            .unwrap()
            .contains("kind: TemplateRollout")
    );
    press(&mut app, KeyCode::Esc);
    assert_eq!(board_cursor(&app).as_deref(), Some("prod-ap-2"));
    // The filter narrows the clusters.
    press(&mut app, KeyCode::Char('/'));
    type_str(&mut app, "fail");
    assert_eq!(app.row_count(), 1);
    assert_eq!(board_cursor(&app).as_deref(), Some("staging-1"));
}

#[test]
fn approve_pause_resume_and_refusals() {
    let mut app = board_app();
    let cmds = press(&mut app, KeyCode::Char('a'));
    assert_eq!(
        cmds,
        vec![request("aws-standalone-cp-3", Request::Approve(Some(2)))]
    );
    assert_eq!(flash_text(&app), "asking: approve 2…");
    assert_eq!(
        press(&mut app, KeyCode::Char('p')),
        vec![request("aws-standalone-cp-3", Request::Pause)]
    );
    // Resume does not apply while waiting for approval: it says why.
    assert!(press(&mut app, KeyCode::Char('r')).is_empty());
    assert_eq!(
        flash_text(&app),
        "nothing to resume: the rollout is WaitingForApproval"
    );
    // Retry applies to failed clusters only.
    assert!(press(&mut app, KeyCode::Char('t')).is_empty());
    assert_eq!(flash_text(&app), "prod-eu-1 has not failed (it is Updated)");
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(
        press(&mut app, KeyCode::Char('t')),
        vec![request(
            "aws-standalone-cp-3",
            Request::Retry("staging-1".into())
        )]
    );

    // A paused rollout: nothing to approve, resume it.
    let mut app = self::app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "rollouts");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::End);
    press(&mut app, KeyCode::Enter);
    assert!(press(&mut app, KeyCode::Char('a')).is_empty());
    assert_eq!(
        flash_text(&app),
        "no wave waits for approval (the rollout is Paused)"
    );
    assert!(press(&mut app, KeyCode::Char('p')).is_empty());
    assert_eq!(flash_text(&app), "nothing to pause: the rollout is Paused");
    assert_eq!(
        press(&mut app, KeyCode::Char('r')),
        vec![request("azure-hosted-1", Request::Resume)]
    );

    // The requests are only on the board.
    // Elsewhere `a` asks nothing and says so.
    let mut app = self::app();
    assert!(press(&mut app, KeyCode::Char('a')).is_empty());
    assert_eq!(
        flash_text(&app),
        "a (approve) does nothing on this screen (? lists its keys)"
    );
}

#[test]
fn skip_asks_to_confirm() {
    let mut app = board_app();
    press(&mut app, KeyCode::Down);
    assert!(press(&mut app, KeyCode::Char('s')).is_empty());
    let Some(Modal::Confirm {
        request: asked,
        question,
        ..
    }) = app.modal.clone()
    else {
        panic!("no confirmation: {:?}", app.modal);
    };
    assert_eq!(asked, Request::Skip("staging-1".into()));
    assert!(question.contains("revision 2"), "{question}");
    // The modal takes the keys: the cursor does not move.
    press(&mut app, KeyCode::Char('j'));
    assert_eq!(board_cursor(&app).as_deref(), Some("staging-1"));
    assert!(press(&mut app, KeyCode::Char('n')).is_empty());
    assert!(app.modal.is_none());
    assert_eq!(flash_text(&app), "cancelled: nothing asked");
    press(&mut app, KeyCode::Char('s'));
    assert_eq!(
        press(&mut app, KeyCode::Char('y')),
        vec![request(
            "aws-standalone-cp-3",
            Request::Skip("staging-1".into())
        )]
    );
    assert!(app.modal.is_none());
    // An updated cluster cannot be skipped: no question, a reason.
    press(&mut app, KeyCode::Up);
    assert!(press(&mut app, KeyCode::Char('s')).is_empty());
    assert!(app.modal.is_none());
    assert_eq!(
        flash_text(&app),
        "prod-eu-1 cannot be skipped: it is Updated"
    );
}

#[test]
fn abort_chooses_then_confirms() {
    let mut app = board_app();
    press(&mut app, KeyCode::Char('x'));
    let rollout = ObjKey {
        context: Default::default(),
        kind: Kind::TemplateRollout,
        namespace: "hmc-system".into(),
        name: "aws-standalone-cp-3".into(),
    };
    assert_eq!(
        app.modal,
        Some(Modal::StopChoice {
            rollout: rollout.clone()
        })
    );
    // esc cancels without asking.
    assert!(press(&mut app, KeyCode::Esc).is_empty());
    assert!(app.modal.is_none());
    assert_eq!(app.stack.len(), 3, "esc closed the modal, not the board");
    // x again: abort, the clusters stay; then y.
    press(&mut app, KeyCode::Char('x'));
    assert!(press(&mut app, KeyCode::Char('x')).is_empty());
    assert!(matches!(
        &app.modal,
        Some(Modal::Confirm { request: Request::Abort, question, .. })
            if question.contains("1 cluster updated keep revision 3")
    ));
    assert_eq!(
        press(&mut app, KeyCode::Char('y')),
        vec![request("aws-standalone-cp-3", Request::Abort)]
    );
    // b: roll back, then y.
    press(&mut app, KeyCode::Char('x'));
    press(&mut app, KeyCode::Char('b'));
    assert!(matches!(
        &app.modal,
        Some(Modal::Confirm { request: Request::Rollback, question, .. })
            if question.contains("2 clusters go back")
    ));
    assert_eq!(
        press(&mut app, KeyCode::Char('y')),
        vec![request("aws-standalone-cp-3", Request::Rollback)]
    );

    // A succeeded rollout can be rolled back but not aborted.
    let mut app = self::app();
    press(&mut app, KeyCode::Char(':'));
    type_str(&mut app, "ro");
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Char('x'));
    press(&mut app, KeyCode::Char('x'));
    assert_eq!(
        flash_text(&app),
        "nothing to abort: the rollout is Succeeded"
    );
    assert!(matches!(app.modal, Some(Modal::StopChoice { .. })));
    press(&mut app, KeyCode::Char('b'));
    assert!(matches!(
        app.modal,
        Some(Modal::Confirm {
            request: Request::Rollback,
            ..
        })
    ));
}

#[test]
fn a_read_only_console_refuses_requests() {
    let mut app = board_app();
    app.target.readonly = true;
    for key in ['a', 'p', 'x'] {
        assert!(press(&mut app, KeyCode::Char(key)).is_empty(), "{key}");
        assert!(app.modal.is_none(), "{key}");
        assert!(
            flash_text(&app).starts_with("read-only console (--readonly): cannot"),
            "{key}: {}",
            flash_text(&app)
        );
    }
    // A question asked before the console became read-only sends nothing.
    let mut app = board_app();
    press(&mut app, KeyCode::Char('x'));
    press(&mut app, KeyCode::Char('x'));
    app.target.readonly = true;
    assert!(press(&mut app, KeyCode::Char('y')).is_empty());
    assert!(flash_text(&app).contains("read-only"));
}

#[test]
fn request_results_reach_the_message_line() {
    let mut app = board_app();
    update(
        &mut app,
        Msg::Requested {
            context: String::new(),
            name: "aws-standalone-cp-3".into(),
            request: Request::Approve(Some(2)),
            result: Ok(()),
        },
    );
    let flash = app.flash.clone().unwrap();
    assert_eq!(flash.level, FlashLevel::Info);
    assert_eq!(flash.text, "asked: approve 2 (aws-standalone-cp-3)");
    update(
        &mut app,
        Msg::Requested {
            context: String::new(),
            name: "aws-standalone-cp-3".into(),
            request: Request::Pause,
            result: Err("not allowed to change TemplateRollout aws-standalone-cp-3".into()),
        },
    );
    let flash = app.flash.clone().unwrap();
    assert_eq!(flash.level, FlashLevel::Error);
    assert_eq!(
        flash.text,
        "could not ask pause (aws-standalone-cp-3): not allowed to change TemplateRollout aws-standalone-cp-3"
    );
    update(&mut app, Msg::Identity("alice@example.com".into()));
    assert_eq!(app.user.as_deref(), Some("alice@example.com"));
}

#[test]
fn the_board_follows_the_store() {
    let mut app = board_app();
    assert_eq!(
        update(&mut app, Msg::Changed(Kind::TemplateRollout)),
        vec![Command::Refresh]
    );
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert_eq!(board_cursor(&app).as_deref(), Some("prod-us-1"));
    // Wave 2 is approved elsewhere and staging-1 skipped: the board
    // changes, the cursor stays on its cluster, approve says why not.
    let mut r = waiting_rollout();
    let status = r.status.as_mut().unwrap();
    status.phase = RolloutPhase::Progressing;
    status.waves[1].state = WaveState::Progressing;
    status.clusters.remove(1);
    let data = sample().with_rollouts(vec![Arc::new(r)]);
    update(&mut app, Msg::data(data));
    assert_eq!(board_cursor(&app).as_deref(), Some("prod-us-1"));
    assert_eq!(app.view().selected, 1);
    assert!(press(&mut app, KeyCode::Char('a')).is_empty());
    assert_eq!(
        flash_text(&app),
        "no wave waits for approval (the rollout is Progressing)"
    );
    // The rollout goes away: keys say so, nothing is sent.
    update(&mut app, Msg::data(sample().with_rollouts(vec![])));
    assert_eq!(app.row_count(), 0);
    assert!(press(&mut app, KeyCode::Char('p')).is_empty());
    assert_eq!(flash_text(&app), "aws-standalone-cp-3 no longer exists");
}

#[test]
fn a_long_board_scrolls_by_lines_and_clicks_select_clusters() {
    let mut r = waiting_rollout();
    let status = r.status.as_mut().unwrap();
    status.waves = (1..=10)
        .map(|n| WaveStatus {
            number: n,
            ..Default::default()
        })
        .collect();
    status.clusters = (0..60)
        .map(|i| {
            rollout_cluster(
                &format!("c-{i:02}"),
                i / 6 + 1,
                ClusterRolloutState::Waiting,
                60,
                None,
            )
        })
        .collect();
    let mut app = board_app();
    update(
        &mut app,
        Msg::data(sample().with_rollouts(vec![Arc::new(r)])),
    );
    let height = rows_height(&app, app.view());
    assert!(height >= 5, "{height}");
    assert_eq!(app.view().offset, 0);
    // 7 lines per wave: the heading and six clusters.
    for _ in 0..height {
        press(&mut app, KeyCode::Down);
    }
    let line = |i: usize| i / 6 * 7 + i % 6 + 1;
    let selected = app.view().selected;
    assert_eq!(selected, height);
    assert_eq!(app.view().offset, line(selected) + 1 - height);
    press(&mut app, KeyCode::End);
    assert_eq!(board_cursor(&app).as_deref(), Some("c-59"));
    assert_eq!(app.view().offset, 70 - height);
    // Back to the top: the first wave's heading shows too.
    press(&mut app, KeyCode::Home);
    assert_eq!(app.view().offset, 0);
    // Walking up, a wave's first cluster always shows with its heading.
    press(&mut app, KeyCode::End);
    for _ in 0..59 {
        press(&mut app, KeyCode::Up);
        let at = app.view().selected;
        let offset = app.view().offset;
        assert!(line(at) >= offset && line(at) < offset + height, "{at}");
        if at.is_multiple_of(6) {
            assert!(offset < line(at), "the heading of {at} shows");
        }
    }
    assert_eq!(board_cursor(&app).as_deref(), Some("c-00"));
    assert_eq!(app.view().offset, 0);

    // A click on a cluster selects it; a click on a heading does nothing.
    press(&mut app, KeyCode::Home);
    let area = rows_area(&app, app.view()).unwrap();
    let click = |row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: area.x + 5,
            row,
            modifiers: KeyModifiers::NONE,
        })
    };
    update(&mut app, click(area.y + 3));
    assert_eq!(board_cursor(&app).as_deref(), Some("c-02"));
    update(&mut app, click(area.y + 7));
    assert_eq!(board_cursor(&app).as_deref(), Some("c-02"));
    update(&mut app, click(area.y + 8));
    assert_eq!(board_cursor(&app).as_deref(), Some("c-06"));
    // While a question is open, clicks do nothing.
    press(&mut app, KeyCode::Char('x'));
    update(&mut app, click(area.y + 1));
    assert_eq!(board_cursor(&app).as_deref(), Some("c-06"));
}
