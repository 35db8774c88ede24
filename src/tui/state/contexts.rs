//! More than one context at once: `--context a,b` and `:ctx +name` open
//! contexts beside the first (the one the header names first and `:ctx
//! NAME` switches), `:ctx -name` closes one. Each keeps its own
//! reachability, engine and identity; the lists show every open context's
//! objects, with a CONTEXT column.
//!
//! The runtime tags every message of a context but the first as
//! [`Msg::Other`]; [`other`] applies it to that context alone, so one
//! context that cannot be reached never blanks or blocks the others.

use crate::tui::model::banner;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::Screen;
use crate::tui::state::app::{App, Command, Engine, Msg, OtherContext};
use crate::tui::state::flash::{FlashLevel, observing};
use crate::tui::state::navigation::{back_to_lists, fit_all};

/// The names of every open context, the first first.
pub fn open_names(app: &App) -> Vec<String> {
    std::iter::once(app.target.context.clone())
        .chain(app.others.iter().map(|o| o.name.clone()))
        .collect()
}

/// Whether `name` is open.
pub fn is_open(app: &App, name: &str) -> bool {
    app.target.context == name || app.others.iter().any(|o| o.name == name)
}

/// The context of the object the screen shows; the first context's on a
/// list.
pub fn of_screen(app: &App) -> String {
    match app.screen() {
        Screen::ClusterDetail(k)
        | Screen::TemplateDetail(k)
        | Screen::Rollout(k)
        | Screen::MultiClusterService(k)
        | Screen::Yaml(k)
        | Screen::Describe(k)
        | Screen::Events(Some(k)) => k.context.to_string(),
        Screen::Edit(k) => k.object.context.to_string(),
        Screen::Values(k) => k.object.context.to_string(),
        _ => app.target.context.clone(),
    }
}

/// Every open context has its first full lists.
pub fn all_synced(app: &App) -> bool {
    app.synced && app.others.iter().all(|o| o.synced)
}

/// `:ctx +name`: asks to open one more context.
pub fn add_command(app: &mut App, name: &str) -> Vec<Command> {
    let Some(info) = app.places.contexts.iter().find(|c| c.name == name).cloned() else {
        app.flash(
            FlashLevel::Error,
            format!("no context {name} in the kubeconfig; :ctx lists them"),
        );
        return Vec::new();
    };
    if is_open(app, name) {
        app.flash(FlashLevel::Info, format!("context {name} is open already"));
        return Vec::new();
    }
    // Its own namespace, as kubectl would; else the one shown.
    let namespace = info.namespace.clone().or(app.target.namespace.clone());
    app.flash(FlashLevel::Info, format!("opening context {name}…"));
    vec![Command::AddContext {
        name: info.name,
        namespace,
    }]
}

/// `:ctx -name`: asks to close an open context; the last one stays.
pub fn close_command(app: &mut App, name: &str) -> Vec<Command> {
    if !is_open(app, name) {
        app.flash(
            FlashLevel::Error,
            format!(
                "context {name} is not open; open: {}",
                open_names(app).join(" ")
            ),
        );
        return Vec::new();
    }
    if app.others.is_empty() {
        app.flash(
            FlashLevel::Warn,
            format!("context {name} is the only one open; :ctx NAME switches"),
        );
        return Vec::new();
    }
    vec![Command::CloseContext(name.to_string())]
}

/// The runtime opened a context beside the first, or shows another
/// namespace there after `:ns` (which becomes a favourite of that
/// context, as for the first).
pub fn opened(
    app: &mut App,
    context: String,
    cluster: String,
    namespace: Option<String>,
) -> Vec<Command> {
    let readonly = app.places.readonly_at(&context);
    let runs_engines = app.engine_scope.is_some();
    let engine = if runs_engines && !readonly {
        Engine::Standby
    } else {
        Engine::Off
    };
    if let Some(other) = app.others.iter_mut().find(|o| o.name == context) {
        other.namespace = namespace.clone();
        other.synced = false;
        other.problems = Default::default();
        // Moved by `:ns`: the namespace becomes a favourite there.
        let mut commands = app.keep_favourite(&context, namespace);
        commands.push(Command::Refresh);
        return commands;
    }
    // The namespace a context opens in is no favourite, as with the first.
    app.flash(FlashLevel::Info, format!("context {context} is open"));
    app.others.push(OtherContext {
        name: context,
        cluster,
        namespace,
        synced: false,
        problems: Default::default(),
        engine,
        readonly,
        user: None,
    });
    vec![Command::Refresh]
}

/// An open context could not be opened: the others go on.
pub fn open_failed(app: &mut App, why: String) {
    app.flash(FlashLevel::Error, why);
}

/// The runtime closed a context. When it was the first, the next one
/// becomes first: the header names it and `:ctx` switches it.
pub fn closed(app: &mut App, name: String) -> Vec<Command> {
    if name == app.target.context {
        let next = app.others.remove(0);
        app.target.context = next.name;
        app.target.cluster = next.cluster;
        app.target.namespace = next.namespace;
        app.target.engine = next.engine;
        app.target.readonly = next.readonly;
        app.user = next.user;
        app.synced = next.synced;
        app.problems = next.problems;
    } else {
        app.others.retain(|o| o.name != name);
    }
    // A screen of one of its objects is gone with it: back to the lists.
    back_to_lists(app);
    app.set_snapshot(Snapshot::default());
    fit_all(app);
    app.flash(
        FlashLevel::Info,
        format!("closed context {name}; open: {}", open_names(app).join(" ")),
    );
    vec![Command::Refresh]
}

/// A message of an open context beside the first: it changes that context
/// alone.
pub fn other(app: &mut App, context: String, msg: Msg) -> Vec<Command> {
    let now = app.now;
    if let Msg::Watch { resource, health } = msg {
        let shown = app.banner().is_some();
        if let Some(other) = app.others.iter_mut().find(|o| o.name == context) {
            banner::record(&mut other.problems, resource, health, now);
        }
        // The banner takes a line from the body.
        if app.banner().is_some() != shown {
            fit_all(app);
        }
        return Vec::new();
    }
    let Some(other) = app.others.iter_mut().find(|o| o.name == context) else {
        // Closed meanwhile.
        return Vec::new();
    };
    match msg {
        Msg::Changed(_) => return vec![Command::Refresh],
        Msg::Synced => {
            other.synced = true;
            return vec![Command::Refresh];
        }
        Msg::Identity(user) => other.user = Some(user),
        Msg::EngineLeading(leading) => {
            if matches!(other.engine, Engine::InProcess | Engine::Standby) {
                other.engine = if leading {
                    Engine::InProcess
                } else {
                    Engine::Standby
                };
            }
        }
        Msg::EngineStopped(_) => other.engine = Engine::Stopped,
        Msg::EngineObserving { installed, why } => {
            other.engine = Engine::Observing { installed };
            let text = format!("context {context}: {}", observing(&why));
            app.flash(FlashLevel::Info, text);
        }
        // `:ns` offers the namespaces of every open context.
        Msg::Namespaces(names) => {
            let known = app.places.namespaces.get_or_insert_with(Vec::new);
            known.extend(names);
            known.sort();
            known.dedup();
        }
        // One clock is enough: the first context's.
        Msg::Tick(_) => {}
        other_msg => tracing::debug!(?other_msg, %context, "not a message of a context"),
    }
    Vec::new()
}

/// A tick: problems no failure confirmed for a while are forgotten in
/// every open context.
pub fn expire(app: &mut App) {
    let now = app.now;
    for other in &mut app.others {
        banner::expire(&mut other.problems, now);
    }
}
