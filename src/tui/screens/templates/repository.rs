//! `t` on a template (the templates screen, a ClusterTemplate's screen):
//! asks the engine to try the template's chart repository again now, even
//! while it holds the repository back. The console writes the time into
//! the template's retry annotation (a [`Command::Annotate`], refused when
//! read-only); the engine sees a new value and fetches at once.

use std::collections::BTreeMap;

use k8s_openapi::jiff::Timestamp;

use crate::api::{ChartSource, labels};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::rows::TemplateRef;
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, why_read_only};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::selected_key;

/// Whether `t` means "try the template's chart repository again" on the
/// screen shown (on the board it retries a cluster).
pub(crate) fn on_templates(app: &App) -> bool {
    matches!(app.screen(), Screen::Templates | Screen::TemplateDetail(_))
}

/// The annotations that ask the engine to try a template's chart
/// repository again: the retry annotation, set to `now` (RFC 3339), a new
/// value each time.
pub fn retry_annotations(now: Timestamp) -> BTreeMap<String, String> {
    BTreeMap::from([(labels::RETRY.to_string(), now.to_string())])
}

/// The template `t` would ask for, and what it asks (`try chart
/// repository https://… again`); refused, with the reason, when there is
/// no template, the console is read-only, or the template names no
/// repository of the engine's to try.
fn checked(app: &App) -> Result<(ObjKey, String), String> {
    let key = on_templates(app)
        .then(|| selected_key(app))
        .flatten()
        .ok_or_else(|| "no template selected".to_string())?;
    let template = match key.kind {
        Kind::ClusterTemplate => app
            .data
            .cluster_template(&key.context, &key.namespace, &key.name)
            .map(TemplateRef::Cluster),
        Kind::ServiceTemplate => app
            .data
            .service_template(&key.context, &key.namespace, &key.name)
            .map(TemplateRef::Service),
        _ => return Err("no template selected".into()),
    }
    .ok_or_else(|| format!("{} no longer exists", key.name))?;
    if let Some(why) = why_read_only(app, &key.context, "try a chart repository again") {
        return Err(why);
    }
    let asks = match (template.hold(), template.helm().validate()) {
        (Some(hold), _) if !hold.url.is_empty() => {
            format!("try chart repository {} again", hold.url)
        }
        (_, Ok(ChartSource::Repository(repo))) => {
            format!("try chart repository {} again", repo.url)
        }
        (_, Ok(ChartSource::DefaultRepository)) => "try the default chart repository again".into(),
        (_, Ok(ChartSource::Reference(r))) => {
            return Err(format!(
                "{} takes its chart from a source of its own (chartRef {}): no repository for the engine to try",
                key.name, r.name
            ));
        }
        (_, Err(why)) => return Err(format!("{}: {why}", key.name)),
    };
    Ok((key, asks))
}

/// Why `t` would be refused on a template now, or `None` when it applies.
pub(crate) fn refusal(app: &App) -> Option<String> {
    checked(app).err()
}

/// `t`: asks the engine to try the template's chart repository again, or
/// says why not.
pub(crate) fn retry(app: &mut App) -> Vec<Command> {
    match checked(app) {
        Err(why) => {
            app.flash(FlashLevel::Warn, why);
            Vec::new()
        }
        Ok((key, asks)) => {
            app.flash(FlashLevel::Info, format!("asking the engine to {asks}…"));
            vec![Command::Annotate {
                key,
                annotations: retry_annotations(app.now),
                asks,
            }]
        }
    }
}

/// The API server's answer to a [`Command::Annotate`]: `asks` is what it
/// asked the engine.
pub(crate) fn annotated(app: &mut App, asks: String, result: Result<(), String>) {
    match result {
        Ok(()) => app.flash(FlashLevel::Info, format!("asked the engine to {asks}")),
        Err(why) => app.flash(
            FlashLevel::Error,
            format!("could not ask the engine to {asks}: {why}"),
        ),
    }
}
