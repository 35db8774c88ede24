//! `hmc-tui`: the console by default, `--reconcile` for the headless engine.

use std::sync::Arc;

use clap::Parser;
use color_eyre::eyre::Result;
use tokio_util::sync::CancellationToken;

use hmc_tui::engine::{self, Context, Counters, EngineOptions};
use hmc_tui::startup::{self, UserError};
use hmc_tui::store::{Scope, Stores};

use cli::{Cli, Command};
use kubeconfig::{Kubeconfig, config, context_name, kubeconfig_user};

mod cli;
mod kubeconfig;

#[tokio::main]
async fn main() -> Result<()> {
    let started = std::time::Instant::now();
    color_eyre::install()?;
    let cli = Cli::parse();
    let result = run(cli, started).await;
    // The user's own setup (a context, the server, CRDs, permission): one
    // paragraph and exit 1. Anything else is a bug: color-eyre's report.
    if let Err(report) = &result
        && let Some(user) = report.downcast_ref::<UserError>()
    {
        eprintln!("hmc-tui: {user}");
        std::process::exit(1);
    }
    result
}

async fn run(cli: Cli, started: std::time::Instant) -> Result<()> {
    let (cli, more_contexts) = split_contexts(cli)?;
    match cli.command {
        Some(Command::Crds) => {
            print!("{}", hmc_tui::api::crds_yaml());
            Ok(())
        }
        Some(Command::Completions { shell }) => {
            let mut command = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut command, "hmc-tui", &mut std::io::stdout());
            Ok(())
        }
        Some(Command::Keys) => {
            let settings = settings();
            print!(
                "{}",
                hmc_tui::tui::config::keymap(settings.as_ref()).describe()
            );
            Ok(())
        }
        Some(Command::Docs { page }) => docs(&page),
        Some(Command::Diff {
            ref files,
            recursive,
            output,
        }) => {
            // As `kubectl diff`: anything that stops the plan exits 2.
            let code = match diff(&cli, &Kubeconfig::read(&cli), files, recursive, output).await {
                Ok(code) => code,
                Err(report) => {
                    match report.downcast_ref::<UserError>() {
                        Some(user) => eprintln!("hmc-tui: {user}"),
                        None => eprintln!("hmc-tui: {report:#}"),
                    }
                    2
                }
            };
            std::process::exit(code)
        }
        None if cli.reconcile => reconcile(&cli, &Kubeconfig::read(&cli)).await,
        None => console(&cli, &Kubeconfig::read(&cli), &more_contexts, started).await,
    }
}

/// `--context a,b,c`: the first context, and the others the console opens
/// beside it. Only the console shows several: the engine and `diff` work
/// on one management cluster.
fn split_contexts(mut cli: Cli) -> Result<(Cli, Vec<String>)> {
    let Some(given) = cli.context.take() else {
        return Ok((cli, Vec::new()));
    };
    let mut names: Vec<String> = Vec::new();
    for name in given.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    if names.is_empty() {
        return Err(UserError("--context names no context".into()).into());
    }
    let more = names.split_off(1);
    if !more.is_empty() && (cli.reconcile || cli.command.is_some()) {
        return Err(UserError(format!(
            "--context {given}: only the console shows several contexts; the engine and diff take one"
        ))
        .into());
    }
    cli.context = names.pop();
    Ok((cli, more))
}

/// `hmc-tui diff`: the fleet's impact of some manifests, printed; the exit
/// status to leave with.
async fn diff(
    cli: &Cli,
    kubeconfig: &Kubeconfig,
    files: &[String],
    recursive: bool,
    output: hmc_tui::diff::report::Format,
) -> Result<i32> {
    use hmc_tui::diff::{self, report};
    use std::io::IsTerminal;
    let config = config(cli, kubeconfig).await?;
    let namespace = cli
        .namespace
        .clone()
        .unwrap_or_else(|| config.default_namespace.clone());
    // Read-only: every write is refused before it is sent.
    let access = engine::read_only::Access::from_readonly(true);
    let client = engine::requests::counted_client(config, Default::default(), access)?;
    let request = diff::Request {
        paths: files.to_vec(),
        recursive,
        namespace,
    };
    let found = diff::run(&client, &request, &mut std::io::stdin()).await?;
    let colours =
        report::Colours(std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none());
    print!("{}", report::render(&found, output, colours));
    Ok(found.exit_code())
}

/// `hmc-tui docs <page>`: print a generated page, or write them all.
fn docs(page: &str) -> Result<()> {
    use hmc_tui::docs;
    let command = <Cli as clap::CommandFactory>::command();
    let root = std::path::Path::new(".");
    if page != "write" {
        let text = docs::page(page, &command, root).map_err(UserError)?;
        print!("{text}");
        return Ok(());
    }
    let dir = root.join(docs::DIR);
    if !dir.is_dir() {
        return Err(UserError(format!(
            "{} is not here: run `hmc-tui docs write` from the repository's root",
            docs::DIR
        ))
        .into());
    }
    for (name, file) in docs::PAGES {
        let text = docs::page(name, &command, root).map_err(UserError)?;
        std::fs::write(dir.join(file), text)?;
        println!("wrote {}/{file}", docs::DIR);
    }
    Ok(())
}

/// The settings file, if any. A file that cannot be used is a user's
/// mistake, not a crash: it is said in one line, with where it is wrong.
fn settings() -> Option<hmc_tui::tui::config::Config> {
    use hmc_tui::tui::config;
    let path = config::config_path()?;
    match config::load(&path) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("hmc-tui: {e}");
            std::process::exit(1);
        }
    }
}

async fn console(
    cli: &Cli,
    kubeconfig: &Kubeconfig,
    more_contexts: &[String],
    started: std::time::Instant,
) -> Result<()> {
    use hmc_tui::tui::config;
    let settings = settings();
    let theme = hmc_tui::tui::Theme::load(&config::choose_theme(
        cli.theme.as_deref(),
        settings.as_ref(),
    ))?;
    let config = config(cli, kubeconfig).await?;
    let cluster = config
        .cluster_url
        .to_string()
        .trim_end_matches('/')
        .to_string();
    // The same timeouts and deadlines as the headless engine's client;
    // under --readonly, or on a context the settings make read-only, it
    // refuses every write before sending it.
    let readonly_contexts = hmc_tui::tui::config::readonly_contexts(settings.as_ref());
    let readonly_here = cli.readonly || readonly_contexts.contains(&context_name(cli, kubeconfig));
    let access = engine::read_only::Access::from_readonly(readonly_here);
    let client = engine::requests::counted_client(config.clone(), Default::default(), access)?;
    hmc_tui::tui::run(hmc_tui::tui::TuiOptions {
        client,
        config,
        context: context_name(cli, kubeconfig),
        more_contexts: more_contexts.to_vec(),
        cluster,
        namespace: if cli.all_namespaces {
            None
        } else {
            cli.namespace.clone()
        },
        // Several contexts, neither -n nor -A: each shows the namespace its
        // kubeconfig context gives, as kubectl would there.
        own_namespaces: !more_contexts.is_empty() && !cli.all_namespaces && cli.namespace.is_none(),
        engine: !cli.no_engine && !cli.readonly,
        force_engine: cli.force_engine,
        theme,
        keymap: hmc_tui::tui::config::keymap(settings.as_ref()),
        readonly: cli.readonly,
        kubeconfig_user: kubeconfig_user(cli, kubeconfig),
        kubeconfig: cli.kubeconfig.clone(),
        favourites: hmc_tui::tui::config::favourites(settings.as_ref()),
        readonly_contexts,
        exit_after_first_frame: cli.exit_after_first_frame.then_some(started),
        engine_options: engine_options(cli),
    })
    .await
}

/// The engine's tunables from the command line: the same for the headless
/// engine and the console's in-process one, so that both write the same
/// releases (shard labels, intervals, the default repository).
fn engine_options(cli: &Cli) -> EngineOptions {
    EngineOptions {
        release_interval: cli.release_interval.clone(),
        deletion_timeout: cli.deletion_timeout,
        source_timeout: cli.source_timeout.clone(),
        source_share: usize::from(cli.source_share),
        system_namespace: cli.system_namespace.clone(),
        default_repository: cli.default_repository.clone(),
        shards: cli.shards.clone(),
        max_rollout_status_bytes: cli.max_rollout_status_bytes,
        notifications_secret: cli.notifications_secret.clone(),
        notifications_namespace: if cli.notifications_namespace.is_empty() {
            cli.system_namespace.clone()
        } else {
            cli.notifications_namespace.clone()
        },
        ..EngineOptions::default()
    }
}

async fn reconcile(cli: &Cli, kubeconfig: &Kubeconfig) -> Result<()> {
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,kube=warn".into()),
        )
        .init();
    let counters = Arc::new(Counters::default());
    let config = config(cli, kubeconfig).await?;
    let target = startup::Target {
        cluster: config
            .cluster_url
            .to_string()
            .trim_end_matches('/')
            .to_string(),
        context: context_name(cli, kubeconfig),
    };
    // Two clients: the engine's, whose writes leave only while its lease is
    // known to be held (the fence), and the lease's own, which takes and
    // renews the lease and so cannot be fenced by it.
    let fence = engine::leader::Fence::default();
    let lease_client = engine::requests::counted_client(
        config.clone(),
        counters.requests.clone(),
        engine::read_only::Access::ReadWrite,
    )?;
    let client = engine::requests::fenced_client(config, counters.requests.clone(), fence.clone())?;
    let (checked, capi) = tokio::join!(
        startup::check_crds(&client, true, &target, None),
        startup::capi_version(&client, &target)
    );
    checked?;
    let scope = Scope {
        namespace: cli.namespace.clone(),
    };
    let (stores, watches) = Stores::new(&client, &scope, capi);
    let ctx = Arc::new(Context::new(
        client,
        stores.clone(),
        counters.clone(),
        engine_options(cli),
    ));
    let shutdown = CancellationToken::new();
    let (role, role_rx) = tokio::sync::watch::channel(engine::leader::Role::Starting);
    let listener = engine::metrics::serve(
        cli.metrics_addr,
        counters,
        stores,
        role_rx,
        shutdown.clone(),
    );
    let metrics_addr = cli.metrics_addr;
    tokio::spawn(async move {
        if let Err(error) = listener.await {
            tracing::error!(%error, addr = %metrics_addr, "cannot serve /healthz, /readyz and /metrics");
        }
    });
    let engine = engine::leader::run_standing_down(
        ctx,
        engine::leader::LeaseOptions::for_scope(cli.namespace.clone()).fenced(fence, lease_client),
        role,
        shutdown.clone(),
    );
    let watches = tokio::spawn(futures::future::join_all(watches));
    let signal = shutdown.clone();
    tokio::spawn(async move {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM");
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {},
            _ = term.recv() => {},
        }
        tracing::info!("shutting down");
        signal.cancel();
    });
    tracing::info!("engine starting");
    engine.await?;
    watches.abort();
    Ok(())
}
