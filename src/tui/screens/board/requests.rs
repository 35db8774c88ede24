//! The rollout board's requests: approve, pause, resume, abort or roll
//! back, skip, retry and start now; and the way to a cluster's board. Each is checked against the rollout's state and
//! refused with the reason on the message line, asked to confirm when it
//! cannot be undone, and sent as a [`Command::Request`].

use crate::api::{TemplateRollout, TemplateRolloutStatus};
use crate::plan::rollout::Request;
use crate::tui::keys::Action;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::pending::rollout_of;
use crate::tui::model::rollouts;
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, Modal, why_read_only};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{fit_at, push, row_id, selected_key};

/// The rollout of the board on screen, with its status.
fn board_rollout(app: &App) -> Result<(ObjKey, &TemplateRollout, &TemplateRolloutStatus), String> {
    let Screen::Rollout(key) = app.screen() else {
        return Err("requests are made on a rollout's board".into());
    };
    let Some(r) = app.data.rollout(&key.context, &key.namespace, &key.name) else {
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
    if !matches!(view.screen, Screen::Rollout(_)) {
        return None;
    }
    row_id(app, view, view.selected)
}

/// Builds a request from the rollout's status and the selected cluster
/// (`Err` names the request when a cluster is needed and none is selected).
type RequestFrom = fn(&TemplateRolloutStatus, Option<String>) -> Result<Request, &'static str>;

/// A request from a board key, checked: refused, with the reason, when the
/// console is read-only or the rollout's state does not allow it; else the
/// rollout, the request, and the question to ask first (a skip).
fn checked(
    app: &App,
    request_from: RequestFrom,
) -> Result<(ObjKey, Request, Option<String>), String> {
    let cluster = board_cluster(app);
    board_rollout(app).and_then(|(key, r, status)| {
        let request = request_from(status, cluster)
            .map_err(|what| format!("no cluster selected to {what}"))?;
        if let Some(why) = why_read_only(app, &key.context, request.action()) {
            return Err(why);
        }
        rollouts::check(status, &request)?;
        let question = matches!(request, Request::Skip(_) | Request::StartNow)
            .then(|| in_context(app, &key, rollouts::question(r, status, &request)));
        Ok((key, request, question))
    })
}

/// A request from a board key: refused with the reason on the message
/// line, asked to confirm first (a skip), or sent.
fn ask(app: &mut App, request_from: RequestFrom) -> Vec<Command> {
    match checked(app, request_from) {
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

/// Whether `x` may ask how to stop: when aborting or rolling back is
/// possible.
fn stop_checked(app: &App) -> Result<ObjKey, String> {
    board_rollout(app).and_then(|(key, _, status)| {
        if let Some(why) = why_read_only(app, &key.context, "abort or roll back") {
            return Err(why);
        }
        match (
            rollouts::check(status, &Request::Abort),
            rollouts::check(status, &Request::Rollback),
        ) {
            (Err(_), Err(why)) => Err(why.replace("roll back", "abort or roll back")),
            _ => Ok(key),
        }
    })
}

/// `x`: asks whether to stop where it stands or to roll back, when either
/// is possible.
pub(crate) fn stop_choice(app: &mut App) -> Vec<Command> {
    match stop_checked(app) {
        Ok(rollout) => app.modal = Some(Modal::StopChoice { rollout }),
        Err(why) => app.flash(FlashLevel::Warn, why),
    }
    Vec::new()
}

/// Why a board key, or an answer to "stop or roll back?", would be refused
/// now; `None` when it would not (or the action is not the board's).
pub(crate) fn refusal(app: &App, action: Action) -> Option<String> {
    let request_from: RequestFrom = match action {
        Action::Approve => approve_request,
        Action::Pause => |_, _| Ok(Request::Pause),
        Action::Resume => |_, _| Ok(Request::Resume),
        Action::Skip => skip_request,
        Action::Retry => retry_request,
        Action::StartNow => |_, _| Ok(Request::StartNow),
        Action::Stay => |_, _| Ok(Request::Abort),
        Action::RollBack => |_, _| Ok(Request::Rollback),
        Action::Abort => return stop_checked(app).err(),
        _ => return None,
    };
    checked(app, request_from).err()
}

/// The rollout of the cluster on screen (a cluster's screen) or selected
/// (the clusters screen): the one that moves it, else the newest of its
/// template that lists it.
pub(crate) fn cluster_rollout(app: &App) -> Result<ObjKey, String> {
    let key = match app.screen() {
        Screen::Clusters | Screen::ClusterDetail(_) => selected_key(app),
        _ => None,
    }
    .filter(|k| k.kind == Kind::ManagedCluster)
    .ok_or_else(|| "no cluster selected".to_string())?;
    let Some(mc) = app.data.cluster(&key.context, &key.namespace, &key.name) else {
        return Err(format!("{} no longer exists", key.name));
    };
    rollout_of(mc, app.data.pending.get(&key), &app.data.rollouts)
        .ok_or_else(|| format!("no rollout of {} includes {}", mc.spec.template, key.name))
}

/// `o` on a cluster: the board of its rollout, the cursor on the cluster.
pub(crate) fn open_for_cluster(app: &mut App) {
    let cluster = selected_key(app).map(|k| k.name);
    match cluster_rollout(app) {
        Ok(key) => {
            let index = app
                .data
                .rollout(&key.context, &key.namespace, &key.name)
                .and_then(|r| r.status.as_ref())
                .and_then(|s| {
                    rollouts::board_clusters(s, "")
                        .iter()
                        .position(|c| Some(&c.name) == cluster.as_ref())
                });
            push(app, Screen::Rollout(key));
            if let Some(index) = index {
                app.view_mut().selected = index;
                let last = app.stack.len() - 1;
                fit_at(app, last);
            }
        }
        Err(why) => app.flash(FlashLevel::Warn, why),
    }
}

/// With several contexts open, what is asked names the context it goes to.
fn in_context(app: &App, key: &ObjKey, text: String) -> String {
    if app.data.several_contexts() {
        format!("{text} (context {})", key.context)
    } else {
        text
    }
}

/// Sends a request, checked once more against the rollout as it is now.
pub(crate) fn send(app: &mut App, rollout: ObjKey, request: Request) -> Vec<Command> {
    if let Some(why) = why_read_only(app, &rollout.context, request.action()) {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    let status = app
        .data
        .rollout(&rollout.context, &rollout.namespace, &rollout.name)
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
    let asking = in_context(
        app,
        &rollout,
        format!("asking: {}", request.to_annotation()),
    );
    app.flash(FlashLevel::Info, format!("{asking}…"));
    vec![Command::Request {
        context: rollout.context.to_string(),
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
        .rollout(&rollout.context, &rollout.namespace, &rollout.name)
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
    ask(app, approve_request)
}

fn approve_request(
    status: &TemplateRolloutStatus,
    _: Option<String>,
) -> Result<Request, &'static str> {
    Ok(Request::Approve(rollouts::waiting_wave(status)))
}

pub(crate) fn pause(app: &mut App) -> Vec<Command> {
    ask(app, |_, _| Ok(Request::Pause))
}

pub(crate) fn resume(app: &mut App) -> Vec<Command> {
    ask(app, |_, _| Ok(Request::Resume))
}

/// Leave the selected cluster out (asks to confirm).
pub(crate) fn skip(app: &mut App) -> Vec<Command> {
    ask(app, skip_request)
}

fn skip_request(_: &TemplateRolloutStatus, c: Option<String>) -> Result<Request, &'static str> {
    Ok(Request::Skip(c.ok_or("skip")?))
}

/// Try the selected failed cluster again.
pub(crate) fn retry(app: &mut App) -> Vec<Command> {
    ask(app, retry_request)
}

fn retry_request(_: &TemplateRolloutStatus, c: Option<String>) -> Result<Request, &'static str> {
    Ok(Request::Retry(c.ok_or("retry")?))
}

/// Start the next wave now (asks to confirm: it passes the soak, the
/// change windows and the approval the policy asks for).
pub(crate) fn start_now(app: &mut App) -> Vec<Command> {
    ask(app, |_, _| Ok(Request::StartNow))
}
