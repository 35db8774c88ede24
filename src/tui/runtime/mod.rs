//! The console's runtime: everything that does I/O around the pure app.
//!
//! [`run`] only wires it up: the startup [`checks`], the stores and their
//! [`feeds`], the engine's task ([`engine_task`]), the [`writer`] (who the
//! console is comes from [`identity`]), the [`terminal`], then the
//! [`event_loop`](mod@event_loop) until the user quits; [`charts`] fetches
//! a service's chart for the values editor. Each of those does
//! one job.

pub mod charts;
pub mod checks;
pub mod engine_task;
pub mod event_loop;
pub mod feeds;
pub mod identity;
pub mod terminal;
pub mod writer;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use color_eyre::eyre::{Result, WrapErr};
use k8s_openapi::jiff::Timestamp;
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

use crate::engine::{Context, Counters, EngineOptions};
use crate::store::{Scope, Stores};
use crate::tui::keys::keymap::Keymap;
use crate::tui::logging;
use crate::tui::state::app::{App, Engine, Msg, Target};
use crate::tui::state::update;
use crate::tui::theme::Theme;

use checks::check_crds;
use engine_task::{spawn_engine, stop_engine};
use event_loop::{FirstFrame, Writes, event_loop};
use feeds::Readers;
use terminal::{TerminalGuard, install_panic_hook, read_terminal, restore_panic_hook};
use writer::Writer;

/// How to start the console.
pub struct TuiOptions {
    pub client: kube::Client,
    /// The kubeconfig context, for the header.
    pub context: String,
    /// The API server URL, for the header.
    pub cluster: String,
    /// `None` for all namespaces.
    pub namespace: Option<String>,
    /// Run the engine in-process (`false` for `--no-engine`; ignored when
    /// `readonly`).
    pub engine: bool,
    pub theme: Theme,
    /// The keybindings, with the settings file's remapping.
    pub keymap: Keymap,
    /// Never write to the cluster.
    pub readonly: bool,
    /// The kubeconfig context's user, for the name requests carry when the
    /// API server cannot say who the console is.
    pub kubeconfig_user: Option<String>,
    /// Quit right after the first full frame (drawn once the stores
    /// synced) and print how long it took from this instant, the start of
    /// the process.
    pub exit_after_first_frame: Option<std::time::Instant>,
}

/// Runs the console until the user quits.
pub async fn run(opts: TuiOptions) -> Result<()> {
    // A read-only console writes nothing, so it runs no engine either.
    let run_engine = opts.engine && !opts.readonly;
    let (tx, mut rx) = unbounded_channel::<Msg>();
    let log = logging::init(tx.clone());
    if let Ok(path) = &log {
        tracing::info!(path = %path.display(), context = %opts.context, cluster = %opts.cluster, "console starting");
    }
    check_crds(&opts.client, run_engine)
        .await
        .wrap_err_with(|| format!("cluster {} (context {})", opts.cluster, opts.context))?;

    let scope = Scope {
        namespace: opts.namespace.clone(),
    };
    let (stores, mut watches) = Stores::new(&opts.client, &scope);
    let (event_store, event_watches) = feeds::watch_events(&opts.client, &scope);
    watches.extend(event_watches);
    let watches = tokio::spawn(futures::future::join_all(watches));
    let shutdown = CancellationToken::new();
    let mut engine = run_engine.then(|| {
        let ctx = Arc::new(Context::new(
            opts.client.clone(),
            stores.clone(),
            Arc::new(Counters::default()),
            EngineOptions::default(),
        ));
        spawn_engine(ctx, opts.namespace.clone(), shutdown.clone(), tx.clone())
    });
    let readers = Readers::new(&stores, &event_store);

    let pending = Arc::new(AtomicBool::new(false));
    let mut tasks = feeds::spawn(&stores, &event_store, &tx, &pending);
    tasks.push(tokio::spawn(read_terminal(tx.clone())));
    let writer = Arc::new(Writer::new(
        opts.client.clone(),
        opts.readonly,
        opts.kubeconfig_user.clone(),
    ));
    // Who the console is, once, at the start: shown when asking to confirm.
    if !opts.readonly {
        tasks.push(tokio::spawn({
            let (writer, tx) = (writer.clone(), tx.clone());
            async move {
                let user = writer.user().await;
                let _ = tx.send(Msg::Identity(user));
            }
        }));
    }
    let writes = Writes {
        writer,
        tx: tx.clone(),
    };

    let target = Target {
        context: opts.context.clone(),
        cluster: opts.cluster.clone(),
        namespace: opts.namespace.clone(),
        engine: if run_engine {
            Engine::InProcess
        } else {
            Engine::Off
        },
        readonly: opts.readonly,
    };
    let mut app = App::new(target, opts.theme.clone(), Timestamp::now());
    app.keys = opts.keymap.clone();
    if let Err(e) = &log {
        update(
            &mut app,
            Msg::Log(format!(
                "cannot write the log file {}: {e}",
                logging::log_path().display()
            )),
        );
    }

    let original_hook = install_panic_hook();
    let mut first = FirstFrame::new(opts.exit_after_first_frame.is_some());
    let result = match TerminalGuard::enter() {
        Ok((guard, terminal)) => {
            let r = event_loop(
                &mut app, terminal, &mut rx, &readers, &pending, &writes, &mut first,
            )
            .await;
            // The last frame says so while the engine stops.
            stop_engine(engine.take(), &shutdown).await;
            drop(guard);
            r
        }
        Err(e) => Err(e),
    };
    restore_panic_hook(original_hook);
    stop_engine(engine, &shutdown).await;
    for task in tasks {
        task.abort();
    }
    watches.abort();
    if let Some(started) = opts.exit_after_first_frame {
        let report = first.report(started);
        tracing::info!(%report, "first frame");
        eprintln!("{report}");
    }
    tracing::info!("console stopped");
    result
}
