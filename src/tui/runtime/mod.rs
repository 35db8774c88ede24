//! The console's runtime: everything that does I/O around the pure app.
//!
//! [`run`] only wires it up: the startup [`checks`], the place shown
//! ([`live`]: the stores, their [`feeds`] and the engine's task,
//! [`engine_task`], switched by `:ns` and `:ctx`, which [`connect`]s), the
//! [`writer`] (who the console is comes from [`identity`]), the
//! [`terminal`], then the [`event_loop`](mod@event_loop) until the user
//! quits; the writer also fetches a service's chart for the values editor
//! ([`crate::engine::chart_values`], which `hmc-tui diff` uses too). Each
//! of those does one job.

pub mod checks;
pub mod connect;
pub mod engine_task;
pub mod event_loop;
pub mod feeds;
pub mod identity;
pub mod live;
pub mod terminal;
pub mod writer;

use color_eyre::eyre::Result;
use k8s_openapi::jiff::Timestamp;
use tokio::sync::mpsc::unbounded_channel;

use crate::tui::keys::keymap::Keymap;
use crate::tui::logging;
use crate::tui::state::app::{App, Engine, Msg, Target};
use crate::tui::theme::Theme;
use crate::tui::update::update;

use checks::check_crds;
use connect::Connection;
use event_loop::{FirstFrame, event_loop};
use live::{Live, Start};
use terminal::{TerminalGuard, install_panic_hook, read_terminal, restore_panic_hook};

/// How to start the console.
pub struct TuiOptions {
    pub client: kube::Client,
    /// The connection `client` was made from: the in-process engine makes
    /// its own, fenced client of it (see `engine_task`).
    pub config: kube::Config,
    /// The kubeconfig context, for the header.
    pub context: String,
    /// More contexts to open beside it (`--context a,b,c`).
    pub more_contexts: Vec<String>,
    /// The API server URL, for the header.
    pub cluster: String,
    /// `None` for all namespaces.
    pub namespace: Option<String>,
    /// Each context shows the namespace its kubeconfig context gives
    /// (else all), instead of `namespace`: `--context a,b` without `-n`.
    pub own_namespaces: bool,
    /// Run the engine in-process (`false` for `--no-engine`; ignored when
    /// `readonly`), where no engine is installed.
    pub engine: bool,
    /// `--force-engine`: run it even where an engine is installed.
    pub force_engine: bool,
    pub theme: Theme,
    /// The keybindings, with the settings file's remapping.
    pub keymap: Keymap,
    /// Never write to the cluster.
    pub readonly: bool,
    /// The kubeconfig context's user, for the name requests carry when the
    /// API server cannot say who the console is.
    pub kubeconfig_user: Option<String>,
    /// The `--kubeconfig` file, if given: `:ctx` reads its contexts
    /// (else `$KUBECONFIG` or `~/.kube/config`).
    pub kubeconfig: Option<std::path::PathBuf>,
    /// The namespace favourites of each context, from the settings file.
    pub favourites: std::collections::BTreeMap<String, Vec<String>>,
    /// The contexts the settings file makes read-only.
    pub readonly_contexts: std::collections::BTreeSet<String>,
    /// Quit right after the first full frame (drawn once the stores
    /// synced) and print how long it and the first frame with rows (drawn
    /// from the first pages) took from this instant, the start of the
    /// process.
    pub exit_after_first_frame: Option<std::time::Instant>,
    /// The in-process engine's tunables, as the headless engine takes them.
    pub engine_options: crate::engine::EngineOptions,
}

/// Runs the console until the user quits.
pub async fn run(opts: TuiOptions) -> Result<()> {
    // A read-only console writes nothing, so it runs no engine either; a
    // read-only context, none there.
    let readonly_here = opts.readonly || opts.readonly_contexts.contains(&opts.context);
    let run_engine = opts.engine && !readonly_here;
    let (tx, mut rx) = unbounded_channel::<Msg>();
    let log = logging::init(tx.clone());
    if let Ok(path) = &log {
        tracing::info!(path = %path.display(), context = %opts.context, cluster = %opts.cluster, "console starting");
    }
    // A user's error (unreachable, forbidden, CRDs missing) is one
    // paragraph from the binary, not a crash report.
    let target = crate::startup::Target {
        cluster: opts.cluster.clone(),
        context: opts.context.clone(),
    };
    let start = Start {
        kubeconfig: opts.kubeconfig.clone(),
        engine: (opts.engine && !opts.readonly).then(|| opts.namespace.clone()),
        force_engine: opts.force_engine,
        readonly: opts.readonly,
        readonly_contexts: opts.readonly_contexts.clone(),
        engine_options: opts.engine_options.clone(),
    };
    // Whether an engine is installed there is looked up beside the checks.
    let (checked, stance, capi) = tokio::join!(
        check_crds(&opts.client, run_engine, &target),
        start.stance(&opts.client, &opts.context),
        crate::startup::capi_version(&opts.client, &target)
    );
    checked?;
    let kubeconfig_contexts = connect::contexts(opts.kubeconfig.as_deref());
    let namespace_of = |name: &str| {
        if !opts.own_namespaces {
            return opts.namespace.clone();
        }
        kubeconfig_contexts
            .iter()
            .find(|c| c.name == name)
            .and_then(|c| c.namespace.clone())
    };
    let connection = Connection {
        client: opts.client.clone(),
        config: Box::new(opts.config.clone()),
        context: opts.context.clone(),
        cluster: opts.cluster.clone(),
        kubeconfig_user: opts.kubeconfig_user.clone(),
        namespace: namespace_of(&opts.context),
        capi,
    };
    let first_namespace = connection.namespace.clone();
    let mut live = Live::new(connection, start, stance);
    // The others open in the background: one that cannot be reached says
    // so and never holds up the first.
    for name in &opts.more_contexts {
        live.add(name.clone(), namespace_of(name));
    }
    let terminal_task = tokio::spawn(read_terminal(tx.clone()));
    let mut writes = live.writes(tx.clone());

    let target = Target {
        context: opts.context.clone(),
        cluster: opts.cluster.clone(),
        namespace: first_namespace,
        // Standby until its engine takes the lease, or says it only
        // observes an installed engine.
        engine: if run_engine {
            Engine::Standby
        } else {
            Engine::Off
        },
        readonly: readonly_here,
    };
    let mut app = App::new(target, opts.theme.clone(), Timestamp::now());
    app.places.readonly_everywhere = opts.readonly;
    app.places.readonly_contexts = opts.readonly_contexts.clone();
    app.keys = opts.keymap.clone();
    app.engine_scope = live.engine_scope();
    app.places.contexts = kubeconfig_contexts;
    app.places.favourites = opts.favourites.clone();
    if let Err(e) = &log {
        update(
            &mut app,
            Msg::Log(crate::tui::model::warnings::Warning::plain(
                format!(
                    "cannot write the log file {}: {e}",
                    logging::log_path().display()
                ),
                Timestamp::now(),
            )),
        );
    }

    let original_hook = install_panic_hook();
    let mut first = FirstFrame::new(opts.exit_after_first_frame.is_some());
    let result = match TerminalGuard::enter() {
        Ok((guard, terminal)) => {
            let r = event_loop(
                &mut app,
                terminal,
                &mut rx,
                &mut live,
                &mut writes,
                &mut first,
            )
            .await;
            // The last frame says so while the engine stops.
            live.stop().await;
            drop(guard);
            r
        }
        Err(e) => {
            live.stop().await;
            Err(e)
        }
    };
    restore_panic_hook(original_hook);
    terminal_task.abort();
    if let Some(started) = opts.exit_after_first_frame {
        let report = first.report(started);
        tracing::info!(%report, "first frame");
        eprintln!("{report}");
    }
    tracing::info!("console stopped");
    result
}
