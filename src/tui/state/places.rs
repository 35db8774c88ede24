//! Where the console looks: the namespace (`:ns`, the favourites' digits)
//! and the kubeconfig context (`:ctx`). Asking for a place is a
//! [`Command`]; the runtime answers [`Msg::Switched`] once it watches the
//! new place, or [`Msg::SwitchFailed`] (and the console stays where it was).
//!
//! The favourites are k9s': each context keeps the namespaces last used,
//! the newest first, at most [`MAX_FAVOURITES`]; a namespace already there
//! keeps its place, so its digit does not move. `0` is all namespaces.

use kube::ResourceExt;

use crate::tui::keys::{self, Goto};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::state::app::{App, Command, Engine};
use crate::tui::state::contexts;
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::navigation::{back_to_lists, fit_all};

pub use crate::tui::model::places::{ALL, ContextInfo, MAX_FAVOURITES, Places, remember};

/// What `:ns` offers: `all`, then every namespace known (listed, seen in
/// the data, or a favourite), sorted.
pub fn namespace_names(app: &App) -> Vec<String> {
    let mut names: Vec<String> = app
        .places
        .namespaces
        .iter()
        .flatten()
        .cloned()
        .chain(seen_namespaces(&app.data))
        .chain(
            app.places
                .favourites_of(&app.target.context)
                .iter()
                .cloned(),
        )
        .chain(app.target.namespace.clone())
        .collect();
    names.sort();
    names.dedup();
    names.insert(0, ALL.to_string());
    names
}

fn seen_namespaces(data: &Snapshot) -> impl Iterator<Item = String> + '_ {
    data.clusters
        .iter()
        .filter_map(|o| o.namespace())
        .chain(data.cluster_templates.iter().filter_map(|o| o.namespace()))
        .chain(data.service_templates.iter().filter_map(|o| o.namespace()))
}

/// What `:ctx` offers.
pub fn context_names(app: &App) -> Vec<String> {
    app.places.contexts.iter().map(|c| c.name.clone()).collect()
}

/// The names that could complete what the `:` prompt holds, and what to
/// say when none does.
pub fn prompt_candidates(app: &App, text: &str) -> (Vec<String>, &'static str) {
    match keys::commands::argument(text) {
        Some((Goto::Namespace, typed)) => (
            names_starting(&namespace_names(app), &typed),
            "no such namespace known",
        ),
        Some((Goto::Context, typed)) => (
            names_starting(&context_names(app), &typed),
            "no such context in the kubeconfig",
        ),
        Some(_) => (Vec::new(), "takes no name"),
        None => (
            keys::candidates(text)
                .into_iter()
                .map(String::from)
                .collect(),
            "no such command",
        ),
    }
}

fn names_starting(names: &[String], typed: &str) -> Vec<String> {
    keys::commands::argument_candidates(typed, names)
        .into_iter()
        .map(String::from)
        .collect()
}

/// Tab in the `:` prompt: a command's name, or a namespace's or context's.
pub fn complete(app: &App, text: &str) -> String {
    match keys::commands::argument(text) {
        Some((Goto::Namespace, _)) => {
            keys::commands::complete_argument(text, &namespace_names(app))
        }
        Some((Goto::Context, _)) => keys::commands::complete_argument(text, &context_names(app)),
        Some(_) => text.to_string(),
        None => keys::complete(text),
    }
}

/// `:ns [name]`: lists the namespaces, or asks to show one.
pub fn namespace_command(app: &mut App, name: Option<&str>) -> Vec<Command> {
    match name.filter(|n| !n.is_empty()) {
        None => {
            let names = namespace_names(app);
            app.flash(
                FlashLevel::Info,
                format!(
                    "namespaces: {}; :ns NAME switches (tab completes)",
                    names.join(" ")
                ),
            );
            Vec::new()
        }
        Some(name) => switch_namespace(app, parse_namespace(name)),
    }
}

/// `all`, `-A` and `*` are all namespaces.
pub fn parse_namespace(name: &str) -> Option<String> {
    match name.trim() {
        "all" | "-A" | "*" | "" => None,
        name => Some(name.to_string()),
    }
}

fn shown(namespace: Option<&str>) -> String {
    match namespace {
        None => "all namespaces".into(),
        Some(ns) => format!("namespace {ns}"),
    }
}

/// Asks to show `namespace` (`None`: all), unless the cluster is known
/// not to have it.
pub fn switch_namespace(app: &mut App, namespace: Option<String>) -> Vec<Command> {
    if let Some(context) = &app.places.connecting {
        app.flash(
            FlashLevel::Warn,
            format!("still connecting to context {context}"),
        );
        return Vec::new();
    }
    if namespace == app.target.namespace {
        app.flash(
            FlashLevel::Info,
            format!("already showing {}", shown(namespace.as_deref())),
        );
        return Vec::new();
    }
    if let (Some(ns), Some(known)) = (&namespace, &app.places.namespaces)
        && !known.contains(ns)
    {
        app.flash(
            FlashLevel::Error,
            format!(
                "no namespace {ns} in context {}; :ns lists them",
                app.target.context
            ),
        );
        return Vec::new();
    }
    app.flash(
        FlashLevel::Info,
        format!("switching to {}…", shown(namespace.as_deref())),
    );
    vec![Command::Namespace(namespace)]
}

/// A favourite's key: slot 0 is all namespaces, slot n the n-th favourite.
pub fn favourite(app: &mut App, slot: usize) -> Vec<Command> {
    if slot == 0 {
        return switch_namespace(app, None);
    }
    let chosen = app
        .places
        .favourites_of(&app.target.context)
        .get(slot - 1)
        .cloned();
    match chosen {
        Some(ns) => switch_namespace(app, Some(ns)),
        None => {
            app.flash(
                FlashLevel::Warn,
                format!("no namespace favourite {slot}: :ns NAME adds one"),
            );
            Vec::new()
        }
    }
}

/// `:ctx [name]`: lists the contexts, or asks to connect to one;
/// `:ctx +name` opens one more beside those open, `:ctx -name` closes one.
pub fn context_command(app: &mut App, name: Option<&str>) -> Vec<Command> {
    if app.places.contexts.is_empty() {
        app.flash(
            FlashLevel::Warn,
            "no kubeconfig contexts: the console runs with the in-cluster account",
        );
        return Vec::new();
    }
    let Some(name) = name.filter(|n| !n.is_empty()) else {
        let names: Vec<String> = app
            .places
            .contexts
            .iter()
            .map(|c| {
                if c.name == app.target.context {
                    format!("*{}", c.name)
                } else if contexts::is_open(app, &c.name) {
                    format!("+{}", c.name)
                } else {
                    c.name.clone()
                }
            })
            .collect();
        app.flash(
            FlashLevel::Info,
            format!(
                "contexts: {}; :ctx NAME switches, :ctx +NAME opens one more, :ctx -NAME closes one",
                names.join(" ")
            ),
        );
        return Vec::new();
    };
    if let Some(added) = name.strip_prefix('+') {
        return contexts::add_command(app, added.trim());
    }
    if let Some(closed) = name.strip_prefix('-') {
        return contexts::close_command(app, closed.trim());
    }
    if app.others.iter().any(|o| o.name == name) {
        app.flash(
            FlashLevel::Info,
            format!("context {name} is open already; :ctx -{name} closes it"),
        );
        return Vec::new();
    }
    if let Some(context) = &app.places.connecting {
        app.flash(
            FlashLevel::Warn,
            format!("still connecting to context {context}"),
        );
        return Vec::new();
    }
    let Some(info) = app.places.contexts.iter().find(|c| c.name == name).cloned() else {
        app.flash(
            FlashLevel::Error,
            format!(
                "no context {name} in the kubeconfig; contexts: {}",
                context_names(app).join(" ")
            ),
        );
        return Vec::new();
    };
    if info.name == app.target.context {
        app.flash(FlashLevel::Info, format!("already on context {name}"));
        return Vec::new();
    }
    // The context's own namespace, as kubectl would; else the one shown.
    let namespace = info.namespace.clone().or(app.target.namespace.clone());
    app.places.connecting = Some(info.name.clone());
    app.flash(
        FlashLevel::Info,
        format!("connecting to context {}…", info.name),
    );
    vec![Command::Context {
        name: info.name,
        namespace,
    }]
}

/// The runtime watches a new place: the header says it, the lists start
/// over (the crumbs keep only list screens), and the namespace becomes a
/// favourite of its context, saved in the settings file.
pub fn switched(
    app: &mut App,
    context: String,
    cluster: String,
    namespace: Option<String>,
) -> Vec<Command> {
    let new_context = context != app.target.context;
    app.places.connecting = None;
    app.target.context = context;
    app.target.cluster = cluster;
    app.target.namespace = namespace;
    app.set_snapshot(Snapshot::default());
    app.synced = false;
    app.problems = Default::default();
    if new_context {
        app.places.namespaces = None;
        app.user = None;
        // Charts are read from this context's sources: another context's
        // may differ under the same name and version.
        app.charts.clear();
        app.target.readonly = app.places.readonly_at(&app.target.context);
        // A new engine starts there, once the old one let go of its lease;
        // none on a read-only context.
        let runs_engines = app.engine_scope.is_some() || app.target.engine != Engine::Off;
        app.target.engine = if runs_engines && !app.target.readonly {
            Engine::Standby
        } else {
            Engine::Off
        };
    }
    back_to_lists(app);
    for view in &mut app.stack {
        view.selected = 0;
        view.offset = 0;
    }
    fit_all(app);
    let what = if new_context {
        format!(
            "context {}, {}",
            app.target.context,
            shown(app.target.namespace.as_deref())
        )
    } else {
        shown(app.target.namespace.as_deref())
    };
    app.flash(FlashLevel::Info, format!("now showing {what}"));
    let (context, namespace) = (app.target.context.clone(), app.target.namespace.clone());
    app.keep_favourite(&context, namespace)
}

/// The runtime could not switch: the console stays where it was.
pub fn switch_failed(app: &mut App, why: String) {
    app.places.connecting = None;
    app.flash(FlashLevel::Error, why);
}
