//! The rollout board's requests: approve, pause, resume, abort or roll
//! back, skip and retry. Each is checked against the rollout's state and
//! refused with the reason on the message line, asked to confirm when it
//! cannot be undone, and sent as a [`Command::Request`].

use crate::api::{TemplateRollout, TemplateRolloutStatus};
use crate::plan::rollout::Request;
use crate::tui::model::key::ObjKey;
use crate::tui::model::rollouts::{self, BoardRow};
use crate::tui::model::rows::board;
use crate::tui::state::app::{App, Command, Modal, refuse_writes};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::view::Screen;

/// The rollout of the board on screen, with its status.
fn board_rollout(app: &App) -> Result<(ObjKey, &TemplateRollout, &TemplateRolloutStatus), String> {
    let Screen::Rollout(key) = app.screen() else {
        return Err("requests are made on a rollout's board".into());
    };
    let Some(r) = app.data.rollout(&key.namespace, &key.name) else {
        return Err(format!("{} no longer exists", key.name));
    };
    let Some(status) = r.status.as_ref() else {
        return Err(format!(
            "{} has no status yet: the engine has not planned it",
            key.name
        ));
    };
    Ok((key.clone(), r, status))
}

/// The cluster under the board's cursor.
pub(crate) fn board_cluster(app: &App) -> Option<String> {
    let view = app.view();
    let Screen::Rollout(key) = &view.screen else {
        return None;
    };
    board(&app.data, key, &view.filter)
        .into_iter()
        .filter_map(|r| match r {
            BoardRow::Cluster(c) => Some(c.name.clone()),
            BoardRow::Wave { .. } => None,
        })
        .nth(view.selected)
}

/// A request from a board key: `make` builds it from the rollout's status
/// and the selected cluster (`Err` names the request when a cluster is
/// needed and none is selected). It is refused, with the reason on the
/// message line, when the console is read-only or the rollout's state does
/// not allow it; a skip asks to confirm first; anything else is sent.
fn ask(
    app: &mut App,
    make: impl FnOnce(&TemplateRolloutStatus, Option<String>) -> Result<Request, &'static str>,
) -> Vec<Command> {
    let cluster = board_cluster(app);
    let outcome = board_rollout(app).and_then(|(key, r, status)| {
        let request =
            make(status, cluster).map_err(|what| format!("no cluster selected to {what}"))?;
        if let Some(why) = refuse_writes(app, request.action()) {
            return Err(why);
        }
        rollouts::check(status, &request)?;
        let question =
            matches!(request, Request::Skip(_)).then(|| rollouts::question(r, status, &request));
        Ok((key, request, question))
    });
    match outcome {
        Err(why) => {
            app.flash(FlashLevel::Warn, why);
            Vec::new()
        }
        Ok((rollout, request, Some(question))) => {
            app.modal = Some(Modal::Confirm {
                rollout,
                request,
                question,
            });
            Vec::new()
        }
        Ok((rollout, request, None)) => send(app, rollout, request),
    }
}

/// `x`: asks whether to stop where it stands or to roll back, when either
/// is possible.
pub(crate) fn stop_choice(app: &mut App) -> Vec<Command> {
    let outcome = board_rollout(app).and_then(|(key, _, status)| {
        if let Some(why) = refuse_writes(app, "abort or roll back") {
            return Err(why);
        }
        match (
            rollouts::check(status, &Request::Abort),
            rollouts::check(status, &Request::Rollback),
        ) {
            (Err(_), Err(why)) => Err(why.replace("roll back", "abort or roll back")),
            _ => Ok(key),
        }
    });
    match outcome {
        Ok(rollout) => app.modal = Some(Modal::StopChoice { rollout }),
        Err(why) => app.flash(FlashLevel::Warn, why),
    }
    Vec::new()
}

/// Sends a request, checked once more against the rollout as it is now.
pub(crate) fn send(app: &mut App, rollout: ObjKey, request: Request) -> Vec<Command> {
    if let Some(why) = refuse_writes(app, request.action()) {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    let status = app
        .data
        .rollout(&rollout.namespace, &rollout.name)
        .and_then(|r| r.status.as_ref());
    let Some(status) = status else {
        app.flash(
            FlashLevel::Warn,
            format!("{} no longer exists", rollout.name),
        );
        return Vec::new();
    };
    if let Err(why) = rollouts::check(status, &request) {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    app.flash(
        FlashLevel::Info,
        format!("asking: {}…", request.to_annotation()),
    );
    vec![Command::Request {
        namespace: rollout.namespace,
        name: rollout.name,
        request,
    }]
}

/// The answer to "stop or roll back?": asks to confirm `request`, or says
/// why it is not possible now and lets the other choice be made.
pub(crate) fn choose_stop(app: &mut App, rollout: ObjKey, request: Request) {
    let found = app
        .data
        .rollout(&rollout.namespace, &rollout.name)
        .and_then(|r| {
            r.status
                .as_ref()
                .map(|s| rollouts::check(s, &request).map(|()| rollouts::question(r, s, &request)))
        });
    match found {
        None => {
            app.modal = None;
            app.flash(
                FlashLevel::Warn,
                format!("{} no longer exists", rollout.name),
            );
        }
        // Not possible now: say why and let the other choice be made.
        Some(Err(why)) => app.flash(FlashLevel::Warn, why),
        Some(Ok(question)) => {
            app.modal = Some(Modal::Confirm {
                rollout,
                request,
                question,
            });
        }
    }
}

/// Approve the wave that waits.
pub(crate) fn approve(app: &mut App) -> Vec<Command> {
    ask(app, |status, _| {
        Ok(Request::Approve(rollouts::waiting_wave(status)))
    })
}

pub(crate) fn pause(app: &mut App) -> Vec<Command> {
    ask(app, |_, _| Ok(Request::Pause))
}

pub(crate) fn resume(app: &mut App) -> Vec<Command> {
    ask(app, |_, _| Ok(Request::Resume))
}

/// Leave the selected cluster out (asks to confirm).
pub(crate) fn skip(app: &mut App) -> Vec<Command> {
    ask(app, |_, c| Ok(Request::Skip(c.ok_or("skip")?)))
}

/// Try the selected failed cluster again.
pub(crate) fn retry(app: &mut App) -> Vec<Command> {
    ask(app, |_, c| Ok(Request::Retry(c.ok_or("retry")?)))
}
