//! The console's state and [`update`]: every key, click, store change and
//! tick arrives as a [`app::Msg`]; `update` changes the [`app::App`] and
//! returns the [`app::Command`]s the loop runs. No I/O here, so it is tested
//! without a terminal or a cluster.
//!
//! By topic: [`app`] the state and its messages, [`view`] the screens,
//! [`navigation`] rows, selection, crumbs and fitting, [`input`] keys,
//! prompts, questions and the mouse, [`board`] the rollout board's
//! requests, [`editing`] and [`editor`] the values editor, [`flash`] the
//! status line's messages.

pub mod app;
pub mod board;
pub mod editing;
pub mod editor;
pub mod flash;
pub mod input;
pub mod navigation;
pub mod view;

#[cfg(test)]
mod tests;

use crate::tui::model::banner;
use app::{App, Command, Engine, Msg};
use flash::{FLASH_SECONDS, FlashLevel};

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
            banner_changed(app, shown);
            if app
                .flash
                .as_ref()
                .is_some_and(|f| now.as_second() - f.at.as_second() >= FLASH_SECONDS)
            {
                app.flash = None;
            }
        }
        Msg::Changed(_) => return vec![Command::Refresh],
        Msg::Synced => {
            app.synced = true;
            return vec![Command::Refresh];
        }
        Msg::Data(snapshot) => navigation::set_data(app, snapshot),
        Msg::Log(text) => app.flash(FlashLevel::Warn, text),
        Msg::EngineLeading(leading) => {
            if matches!(app.target.engine, Engine::InProcess | Engine::Standby) {
                app.target.engine = if leading {
                    Engine::InProcess
                } else {
                    Engine::Standby
                };
            }
        }
        Msg::Identity(user) => app.user = Some(user),
        Msg::Requested {
            name,
            request,
            result,
        } => match result {
            Ok(()) => app.flash(
                FlashLevel::Info,
                format!("asked: {} ({name})", request.to_annotation()),
            ),
            Err(why) => app.flash(
                FlashLevel::Error,
                format!("could not ask {}: {why}", request.to_annotation()),
            ),
        },
        Msg::Watch { resource, health } => {
            let shown = app.banner().is_some();
            banner::record(&mut app.problems, resource, health, app.now);
            banner_changed(app, shown);
        }
        Msg::ValuesApplied { key, result } => editing::values_applied(app, key, result),
        Msg::Chart { id, result } => editing::chart_fetched(app, id, result),
        Msg::EngineStopped(why) => {
            app.target.engine = Engine::Stopped;
            app.flash(
                FlashLevel::Error,
                format!(
                    "the engine stopped: {}",
                    why.unwrap_or_else(|| "it returned".into())
                ),
            );
        }
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
