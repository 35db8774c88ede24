//! `hmc-tui`: the console by default, `--reconcile` for the headless engine.

use std::sync::Arc;

use clap::{Parser, Subcommand};
use color_eyre::eyre::Result;
use tokio_util::sync::CancellationToken;

use hmc_tui::engine::{self, Context, Counters, EngineOptions};
use hmc_tui::startup::{self, UserError};
use hmc_tui::store::{Scope, Stores};

#[derive(Parser, Debug)]
#[command(
    name = "hmc-tui",
    version,
    about = "Services for the clusters made from templates"
)]
struct Cli {
    /// Run the engine headless, without a terminal.
    #[arg(long)]
    reconcile: bool,
    /// Path to the kubeconfig (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, global = true)]
    kubeconfig: Option<std::path::PathBuf>,
    /// Kubeconfig context to use; the console takes several, comma
    /// separated (`--context a,b,c`), and shows them side by side.
    #[arg(long, global = true)]
    context: Option<String>,
    /// Only this namespace (default: all namespaces).
    #[arg(short, long, global = true)]
    namespace: Option<String>,
    /// Watch all namespaces (the default).
    #[arg(short = 'A', long, conflicts_with = "namespace")]
    all_namespaces: bool,
    /// Console: do not run the engine in-process; only look.
    #[arg(long)]
    no_engine: bool,
    /// Console: run the engine in-process even on a cluster where the
    /// engine is installed (its Deployment, or a Lease an engine that is
    /// not a console holds or held in the last 10 minutes), or where that
    /// cannot be read. Without it the console only observes there. It
    /// then competes for the lease, and leads once the installed engine
    /// lets go of it or stops renewing it. On every context opened. Where
    /// the chart's lease policy is installed, only the engines' accounts
    /// may write the Lease: a person's console is refused it there.
    #[arg(long, conflicts_with_all = ["no_engine", "readonly", "reconcile"])]
    force_engine: bool,
    /// Console: never write to the cluster (implies --no-engine).
    #[arg(long)]
    readonly: bool,
    /// Headless: where to serve /healthz, /readyz and /metrics.
    #[arg(long, default_value = "0.0.0.0:8080", env = "HMC_METRICS_ADDR")]
    metrics_addr: std::net::SocketAddr,
    /// The engine: how often each release is looked at again; changes made
    /// by hand to a service's objects in its cluster are reverted within
    /// one interval. A duration: 30s, 10m, 1h.
    #[arg(long, env = "HMC_RELEASE_INTERVAL", default_value = "10m",
          value_parser = engine::context::release_interval)]
    release_interval: String,
    /// The engine: how long deleting a cluster waits for its services to be
    /// uninstalled from a child cluster that does not answer before its
    /// Deleting condition says so. A duration: 30s, 5m.
    #[arg(long, env = "HMC_DELETION_TIMEOUT", default_value = engine::context::DELETION_TIMEOUT,
          value_parser = engine::context::deletion_timeout)]
    deletion_timeout: std::time::Duration,
    /// The engine: how long a chart repository is given to answer one fetch
    /// of its index, unless its template sets repository.timeout. A
    /// repository that does not answer holds a worker of the source
    /// controller this long, then waits (suspended) for its next try.
    /// A duration from 1s to 5m.
    #[arg(long, env = "HMC_SOURCE_TIMEOUT", default_value = engine::context::SOURCE_TIMEOUT,
          value_parser = engine::context::source_timeout)]
    source_timeout: String,
    /// The engine: how many of one namespace's chart repositories may be
    /// fetched for the first time, or again after a failure, at once; the
    /// rest wait their turn, so that no namespace holds more workers of the
    /// source controller than this. Keep it below the source controller's
    /// --concurrent (2 by default).
    #[arg(long, env = "HMC_SOURCE_SHARE", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..))]
    source_share: u16,
    /// Namespace of the default chart repository: where a template that
    /// names no repository takes its chart from, as in hmc.
    #[arg(long, default_value = engine::context::SYSTEM_NAMESPACE, env = "HMC_SYSTEM_NAMESPACE")]
    system_namespace: String,
    /// Name of the default chart repository in the system namespace.
    #[arg(long, default_value = engine::context::DEFAULT_REPOSITORY, env = "HMC_DEFAULT_REPOSITORY")]
    default_repository: String,
    /// The engine: the shard keys of the release controller, comma-separated
    /// (shard1,shard2). Each cluster's releases are labelled with one key,
    /// the same for all of a cluster's releases, picked by a stable hash
    /// of its namespace and name; adding or removing a key moves only the
    /// clusters of that key. Empty (the default): no shard label.
    #[arg(long, env = "HMC_SHARDS", value_name = "KEYS", default_value = "",
          hide_default_value = true, value_parser = hmc_tui::plan::shard::keys)]
    shards: hmc_tui::plan::shard::Keys,
    /// The engine: the most bytes a rollout's status may take. It lists
    /// every cluster of the template, and the API server stores an object
    /// in one etcd request (etcd's --max-request-bytes, 1.5 MiB by default):
    /// past this, the clusters' reasons are left out, and a rollout that
    /// still does not fit stops with a StatusTooLarge Event.
    #[arg(long, env = "HMC_MAX_ROLLOUT_STATUS_BYTES", value_name = "BYTES",
          default_value_t = hmc_tui::plan::rollout::MAX_STATUS_BYTES)]
    max_rollout_status_bytes: usize,
    /// Console theme: default, light, high-contrast, or a path to a .yaml
    /// file. Wins over `theme:` in ~/.config/hmc-tui/config.yaml.
    #[arg(long, env = "HMC_TUI_THEME")]
    theme: Option<String>,
    /// Console: quit right after the first full frame and print when the
    /// first frame with rows came (from the first pages), how long the
    /// stores took to sync and the full frame to come (for measuring).
    #[arg(long, hide = true)]
    exit_after_first_frame: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the CustomResourceDefinitions as YAML.
    Crds,
    /// Print the shell completion script for SHELL.
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the console's effective keymap: every table, action and key,
    /// with the remapping of ~/.config/hmc-tui/config.yaml applied.
    Keys,
    /// Show what applying manifests would do to the fleet, cluster by
    /// cluster, before they are applied: values that change, clusters that
    /// keep their own, services installed, removed or blocked, and the
    /// rollout's waves. Reads the management cluster; writes nothing.
    /// Exit status as `kubectl diff`: 0 no change, 1 changes, 2 an error.
    Diff {
        /// A manifest file, a directory of them, or `-` for standard
        /// input; several YAML documents per file. Repeatable.
        #[arg(short = 'f', long = "filename", required = true)]
        files: Vec<String>,
        /// Read directories' folders too.
        #[arg(short = 'R', long)]
        recursive: bool,
        /// text (coloured on a terminal), json (shape hmc-tui.diff/v1) or
        /// markdown (for a pull-request comment).
        #[arg(short = 'o', long, value_enum, default_value = "text")]
        output: hmc_tui::diff::report::Format,
    },
    /// Print one of the book's generated reference pages (cli, crds, keys,
    /// metrics), or `write` them all under docs/src/reference/ (run from
    /// the repository's root).
    #[command(hide = true)]
    Docs { page: String },
}

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
            let code = match diff(&cli, files, recursive, output).await {
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
        None if cli.reconcile => reconcile(&cli).await,
        None => console(&cli, &more_contexts, started).await,
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
    files: &[String],
    recursive: bool,
    output: hmc_tui::diff::report::Format,
) -> Result<i32> {
    use hmc_tui::diff::{self, report};
    use std::io::IsTerminal;
    let config = config(cli).await?;
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

async fn console(cli: &Cli, more_contexts: &[String], started: std::time::Instant) -> Result<()> {
    use hmc_tui::tui::config;
    let settings = settings();
    let theme = hmc_tui::tui::Theme::load(&config::choose_theme(
        cli.theme.as_deref(),
        settings.as_ref(),
    ))?;
    let config = config(cli).await?;
    let cluster = config
        .cluster_url
        .to_string()
        .trim_end_matches('/')
        .to_string();
    // The same timeouts and deadlines as the headless engine's client;
    // under --readonly, or on a context the settings make read-only, it
    // refuses every write before sending it.
    let readonly_contexts = hmc_tui::tui::config::readonly_contexts(settings.as_ref());
    let readonly_here = cli.readonly || readonly_contexts.contains(&context_name(cli));
    let access = engine::read_only::Access::from_readonly(readonly_here);
    let client = engine::requests::counted_client(config.clone(), Default::default(), access)?;
    hmc_tui::tui::run(hmc_tui::tui::TuiOptions {
        client,
        config,
        context: context_name(cli),
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
        kubeconfig_user: kubeconfig_user(cli),
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
        ..EngineOptions::default()
    }
}

/// The user of the kubeconfig context in use: the name the console's
/// requests carry when the API server cannot say who it is.
fn kubeconfig_user(cli: &Cli) -> Option<String> {
    let kubeconfig = match &cli.kubeconfig {
        Some(path) => kube::config::Kubeconfig::read_from(path).ok(),
        None => kube::config::Kubeconfig::read().ok(),
    }?;
    let context = cli
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())?;
    kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone())
}

/// The kubeconfig context in use, for the console's header.
fn context_name(cli: &Cli) -> String {
    if let Some(context) = &cli.context {
        return context.clone();
    }
    let kubeconfig = match &cli.kubeconfig {
        Some(path) => kube::config::Kubeconfig::read_from(path).ok(),
        None => kube::config::Kubeconfig::read().ok(),
    };
    kubeconfig
        .and_then(|k| k.current_context)
        .unwrap_or_else(|| "in-cluster".into())
}

async fn config(cli: &Cli) -> Result<kube::Config> {
    let options = kube::config::KubeConfigOptions {
        context: cli.context.clone(),
        ..Default::default()
    };
    let kubeconfig = match &cli.kubeconfig {
        Some(path) => Some(kube::config::Kubeconfig::read_from(path).map_err(|e| {
            startup::bad_kubeconfig(&format!("cannot read {}: {}", path.display(), words(&e)))
        })?),
        None if cli.context.is_some() => Some(
            kube::config::Kubeconfig::read().map_err(|e| startup::bad_kubeconfig(&words(&e)))?,
        ),
        None => None,
    };
    let config = match kubeconfig {
        Some(kc) => {
            let contexts: Vec<String> = kc.contexts.iter().map(|c| c.name.clone()).collect();
            let current = kc.current_context.clone();
            kube::Config::from_custom_kubeconfig(kc, &options)
                .await
                .map_err(|e| match (&e, &cli.context) {
                    (kube::config::KubeconfigError::LoadContext(_), Some(wanted))
                        if !contexts.contains(wanted) =>
                    {
                        startup::unknown_context(wanted, &contexts, current.as_deref())
                    }
                    _ => startup::bad_kubeconfig(&words(&e)),
                })?
        }
        None => kube::Config::infer().await.map_err(|e| {
            startup::bad_kubeconfig(&format!(
                "no kubeconfig found ($KUBECONFIG, ~/.kube/config) and not running in a cluster ({})",
                words(&e)
            ))
        })?,
    };
    // Connect and read timeouts; `counted_client` adds a deadline to each
    // request that is not a watch.
    Ok(engine::requests::with_timeouts(config))
}

/// An error and its causes on one line, each said once.
fn words(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = e.source();
    }
    text
}

async fn reconcile(cli: &Cli) -> Result<()> {
    tracing_subscriber::fmt()
        .json()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "info,kube=warn".into()),
        )
        .init();
    let counters = Arc::new(Counters::default());
    let config = config(cli).await?;
    let target = startup::Target {
        cluster: config
            .cluster_url
            .to_string()
            .trim_end_matches('/')
            .to_string(),
        context: context_name(cli),
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
