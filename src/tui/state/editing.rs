//! Editing values: opening the editor on the selected service, its keys and
//! what they lead to (a save, a question, closing), keeping its cursor on
//! screen, the answer to a save, and the service's chart the text is
//! checked against (asked of the runtime once per chart version). The
//! editor itself is [`crate::tui::state::editor`].

use std::sync::Arc;

use crossterm::event::KeyEvent;
use kube::ResourceExt;

use crate::api::RolloutStrategy;
use crate::tui::keys::{Action, ScreenKind};
use crate::tui::layout;
use crate::tui::model::chart::{ChartId, ChartStatus, ChartValues, chart_source};
use crate::tui::model::key::{Kind, KubeContext};
use crate::tui::model::rows::{service_rows, template_service_rows};
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, quit, why_read_only};
use crate::tui::state::contexts;
use crate::tui::state::editor::{Base, EditKey, Editor, SaveError, Stage, Step};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{fit_all, push, selected_key};

/// `e` on a service: opens the editor on its values, on the cluster (its
/// `spec.services` entry, made on save when it has none) or on the
/// ClusterTemplate. Asks for the service's chart when the console does not
/// have it yet.
pub(crate) fn open_editor(app: &mut App) -> Vec<Command> {
    if let Some(why) = why_read_only(app, &contexts::of_screen(app), "edit values") {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    let view = app.view();
    let found = match &view.screen {
        Screen::ClusterDetail(key) => app
            .data
            .cluster(&key.context, &key.namespace, &key.name)
            .map(|mc| {
                let service = service_rows(mc, &view.filter)
                    .get(view.selected)
                    .map(|s| s.name.clone());
                (Base::Cluster(mc.clone()), service)
            }),
        Screen::TemplateDetail(key) => app
            .data
            .cluster_template(&key.context, &key.namespace, &key.name)
            .map(|ct| {
                let service = template_service_rows(ct, &view.filter)
                    .get(view.selected)
                    .map(|s| s.name.clone());
                (Base::Template(ct.clone()), service)
            }),
        _ => {
            if let Some(why) = edited_elsewhere(app) {
                app.flash(FlashLevel::Info, why);
            }
            return Vec::new();
        }
    };
    let (base, service) = match found {
        None => {
            let key = selected_key(app).map(|k| k.name).unwrap_or_default();
            app.flash(FlashLevel::Warn, format!("{key} no longer exists"));
            return Vec::new();
        }
        Some((_, None)) => {
            app.flash(FlashLevel::Warn, "no service selected to edit");
            return Vec::new();
        }
        Some((base, Some(service))) => (base, service),
    };
    if let Base::Cluster(mc) = &base {
        let ns = mc.namespace().unwrap_or_default();
        let in_template = app
            .data
            .cluster_template(&mc.context, &ns, &mc.spec.template)
            .is_some_and(|ct| ct.spec.services.iter().any(|s| s.name == service));
        if !in_template && !base.has_entry(&service) {
            app.flash(
                FlashLevel::Warn,
                format!(
                    "{service} is neither in template {} nor in the cluster's services: nothing to override",
                    mc.spec.template
                ),
            );
            return Vec::new();
        }
    }
    let mut editor = Editor::open(base, &service);
    let key = editor.key.clone();
    let (chart, fetch) = chart_for(app, &key);
    editor.set_chart(chart);
    app.editor = Some(editor);
    push(app, Screen::Edit(key));
    fit_editor(app);
    fetch.into_iter().collect()
}

/// `e` on the templates list: where the selected template's values are
/// edited. A ServiceTemplate is immutable (each chart version, with its
/// values, is an object of its own, as in hmc), so the values every
/// cluster of a template gets are edited in the ClusterTemplate's entry.
pub(crate) fn edited_elsewhere(app: &App) -> Option<String> {
    if *app.screen() != Screen::Templates {
        return None;
    }
    let key = selected_key(app)?;
    let open = app.keys.label(
        crate::tui::keys::Mode::Screen(ScreenKind::Templates),
        Action::Open,
    );
    Some(match key.kind {
        // One line at 120 columns: the help and the book say more.
        Kind::ServiceTemplate => format!(
            "{} is immutable: set values in a ClusterTemplate's service ({open} on it, e) or a cluster's",
            key.name
        ),
        _ => format!(
            "{open} opens {}'s services; e there edits one service's values",
            key.name
        ),
    })
}

/// The chart of the edited service as the console has it, and the command
/// that fetches it when it has not (or could not before).
fn chart_for(app: &mut App, key: &EditKey) -> (ChartStatus, Option<Command>) {
    let source = match chart_source(&app.data, &key.object, &key.service) {
        Ok(source) => source,
        Err(why) => return (ChartStatus::Unknown(why), None),
    };
    let cached = (source.context.clone(), source.chart.id.clone());
    match app.charts.get(&cached) {
        Some(known @ (ChartStatus::Ready(_) | ChartStatus::Fetching(_))) => (known.clone(), None),
        _ => {
            let fetching = ChartStatus::Fetching(source.chart.id.clone());
            app.charts.insert(cached, fetching.clone());
            (fetching, Some(Command::FetchChart(source)))
        }
    }
}

/// A chart arrived, or could not be fetched: kept for the next editor, and
/// given to the open one when it waits for it.
pub(crate) fn chart_fetched(
    app: &mut App,
    context: KubeContext,
    id: ChartId,
    result: Result<Arc<ChartValues>, String>,
) {
    let status = match result {
        Ok(values) => ChartStatus::Ready(values),
        Err(why) => ChartStatus::Failed(id.clone(), why),
    };
    if let Some(editor) = app.editor.as_mut()
        && editor.key.object.context == context
        && editor.chart == ChartStatus::Fetching(id.clone())
    {
        editor.set_chart(status.clone());
    }
    app.charts.insert((context, id), status);
}

/// Keys while the editor is open.
pub(crate) fn on_editor_key(app: &mut App, key: KeyEvent) -> Vec<Command> {
    // The answer to the last key stays until this one.
    app.flash = None;
    let Some(editor) = app.editor.as_mut() else {
        return Vec::new();
    };
    let step = editor.on_key(key, &app.keys, &app.data);
    let edit_key = editor.key.clone();
    fit_editor(app);
    match step {
        Step::Nothing => Vec::new(),
        Step::Say(level, text) => {
            app.flash(level, text);
            Vec::new()
        }
        Step::Close => {
            close_editor(app);
            Vec::new()
        }
        Step::Quit => quit(app),
        Step::Apply(patch) => {
            // Checked once more: a question asked before the console became
            // read-only sends nothing.
            if let Some(why) = why_read_only(app, &edit_key.object.context, "save values") {
                if let Some(editor) = app.editor.as_mut() {
                    editor.stage = Stage::Editing;
                }
                app.flash(FlashLevel::Warn, why);
                return Vec::new();
            }
            app.flash(
                FlashLevel::Info,
                format!("saving the values of {}…", edit_key.service),
            );
            vec![Command::ApplyValues {
                key: edit_key,
                patch,
            }]
        }
    }
}

/// Pops the editor's screen.
fn close_editor(app: &mut App) {
    app.editor = None;
    if matches!(app.screen(), Screen::Edit(_)) && app.stack.len() > 1 {
        app.stack.pop();
    }
    fit_all(app);
}

/// Keeps the editor's cursor on screen.
pub(crate) fn fit_editor(app: &mut App) {
    let (height, width) = layout::editor_text_size(
        app.viewport(),
        app.editor.as_ref().is_some_and(|e| e.note.is_some()),
    );
    if let Some(editor) = app.editor.as_mut() {
        editor.fit(height, width);
    }
}

/// What a saved edit leads to: the cluster gets it, or the template's
/// new revision rolls out to the clusters made from it, as its policy says.
fn what_next(app: &App, key: &EditKey) -> String {
    let object = &key.object;
    if object.kind != Kind::ClusterTemplate {
        return format!("the engine applies them to {} now", object.name);
    }
    let used = app.data.usage.get(object).copied().unwrap_or(0);
    let policy = app
        .data
        .cluster_template(&object.context, &object.namespace, &object.name)
        .and_then(|ct| ct.spec.rollout.clone());
    let how = match &policy {
        Some(p) if p.canary.is_some_and(|n| n > 0) => {
            "a canary wave first, then it waits for approval"
        }
        Some(p) if p.strategy == RolloutStrategy::Manual => "each wave waits for approval",
        _ => "wave by wave",
    };
    match used {
        0 => "a new revision; no cluster uses the template yet".into(),
        1 => format!(
            "a new revision; a rollout takes it to the 1 cluster that uses it ({how}; :rollouts)"
        ),
        n => format!(
            "a new revision; a rollout takes it to the {n} clusters that use it ({how}; :rollouts)"
        ),
    }
}

/// The answer to a save.
pub(crate) fn values_applied(app: &mut App, key: EditKey, result: Result<(), SaveError>) {
    let what = format!(
        "the values of {} on {} {}",
        key.service,
        key.object.kind.label(),
        key.object.name
    );
    let open = app
        .editor
        .as_ref()
        .is_some_and(|e| e.key == key && e.stage == Stage::Saving);
    match result {
        Ok(()) => {
            if open {
                close_editor(app);
            }
            let next = what_next(app, &key);
            app.flash(FlashLevel::Info, format!("saved {what}; {next}"));
        }
        Err(SaveError::Conflict { current }) => {
            if let (true, Some(editor)) = (open, app.editor.as_mut()) {
                editor.stage = Stage::Conflict { current };
            }
            app.flash(
                FlashLevel::Error,
                format!(
                    "not saved: {} changed by someone else since you opened it",
                    key.object.name
                ),
            );
        }
        Err(SaveError::Failed(why)) => {
            if let (true, Some(editor)) = (open, app.editor.as_mut()) {
                editor.stage = Stage::Editing;
            }
            app.flash(FlashLevel::Error, format!("could not save {what}: {why}"));
        }
    }
}
