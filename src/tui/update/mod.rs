//! [`update`]: every key, click, store change and tick arrives as a
//! [`Msg`]; `update` changes the [`App`] and returns the [`Command`]s the
//! loop runs. Keys and clicks go to [`input`], which routes a key's action
//! to the screen on top ([`crate::tui::screens`]); the rest changes the
//! state directly. Pure, as the state and the screens are.

pub mod input;

use crate::tui::model::banner;
use crate::tui::screens::objects;
use crate::tui::screens::templates::repository;
use crate::tui::state::app::{App, Command, Engine, Msg};
use crate::tui::state::flash::{self, FlashLevel};
use crate::tui::state::{contexts, editing, navigation, places};

/// Applies one message. Pure: the returned commands are the only effects.
pub fn update(app: &mut App, msg: Msg) -> Vec<Command> {
    match msg {
        Msg::Key(key) => return input::on_key(app, key),
        Msg::Mouse(mouse) => input::on_mouse(app, mouse),
        Msg::Resize(w, h) => {
            app.size = (w, h);
            navigation::fit_all(app);
            editing::fit_editor(app);
        }
        Msg::Tick(now) => {
            app.now = now;
            let shown = app.banner().is_some();
            banner::expire(&mut app.problems, now);
            contexts::expire(app);
            banner_changed(app, shown);
        }
        Msg::Changed(_) => return vec![Command::Refresh],
        Msg::Synced => {
            app.synced = true;
            return vec![Command::Refresh];
        }
        Msg::Data(snapshot) => navigation::set_data(app, *snapshot),
        // Never the status line: it keeps the answer to the user's last key.
        Msg::Log(warning) => app.warnings.add(warning),
        Msg::EngineLeading(leading) => {
            if matches!(app.target.engine, Engine::InProcess | Engine::Standby) {
                app.target.engine = if leading {
                    Engine::InProcess
                } else {
                    Engine::Standby
                };
            }
        }
        Msg::EngineObserving { installed, why } => {
            app.target.engine = Engine::Observing { installed };
            app.flash(FlashLevel::Info, flash::observing(&why));
        }
        Msg::Identity(user) => app.user = Some(user),
        Msg::Requested {
            context,
            name,
            request,
            result,
        } => {
            // With several contexts open, rollouts of one name may be in
            // each: say whose was asked.
            let whose = match app.others.is_empty() {
                true => name,
                false if context.is_empty() => format!("{name}, context {}", app.target.context),
                false => format!("{name}, context {context}"),
            };
            match result {
                Ok(()) => app.flash(
                    FlashLevel::Info,
                    format!("asked: {} ({whose})", request.to_annotation()),
                ),
                Err(why) => app.flash(
                    FlashLevel::Error,
                    format!("could not ask {} ({whose}): {why}", request.to_annotation()),
                ),
            }
        }
        Msg::Watch { resource, health } => {
            let shown = app.banner().is_some();
            banner::record(&mut app.problems, resource, health, app.now);
            banner_changed(app, shown);
        }
        Msg::ValuesApplied { key, result } => editing::values_applied(app, key, result),
        Msg::Chart {
            context,
            id,
            result,
        } => editing::chart_fetched(app, context, id, result),
        Msg::Deleted { key, result } => objects::deleted(app, key, result),
        Msg::Annotated { asks, result } => repository::annotated(app, asks, result),
        Msg::Namespaces(names) => {
            // With several contexts open, those of each.
            let known = app.places.namespaces.get_or_insert_with(Vec::new);
            known.extend(names);
            known.sort();
            known.dedup();
        }
        Msg::Switched {
            context,
            cluster,
            namespace,
        } => return places::switched(app, context, cluster, namespace),
        Msg::SwitchFailed(why) => places::switch_failed(app, why),
        Msg::Other { context, msg } => return contexts::other(app, context, *msg),
        Msg::Opened {
            context,
            cluster,
            namespace,
        } => return contexts::opened(app, context, cluster, namespace),
        Msg::OpenFailed { why, .. } => contexts::open_failed(app, why),
        Msg::Closed(name) => return contexts::closed(app, name),
        // The header says so; why is on the warnings screen (from the log).
        Msg::EngineStopped(_) => app.target.engine = Engine::Stopped,
    }
    Vec::new()
}

/// The banner takes a line from the body: lists keep their selection on
/// screen when it comes or goes.
fn banner_changed(app: &mut App, shown: bool) {
    if app.banner().is_some() != shown {
        navigation::fit_all(app);
        editing::fit_editor(app);
    }
}
