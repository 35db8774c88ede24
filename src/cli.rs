//! The command line: every flag and subcommand as clap's derive tree. The
//! CLI reference page is generated from it (`hmc-tui docs cli`).

use clap::{Parser, Subcommand};
use hmc_tui::engine;

#[derive(Parser, Debug)]
#[command(
    name = "hmc-tui",
    version,
    about = "Services for the clusters made from templates"
)]
pub struct Cli {
    /// Run the engine headless, without a terminal.
    #[arg(long)]
    pub reconcile: bool,
    /// Path to the kubeconfig (default: $KUBECONFIG, then ~/.kube/config).
    #[arg(long, global = true)]
    pub kubeconfig: Option<std::path::PathBuf>,
    /// Kubeconfig context to use; the console takes several, comma
    /// separated (`--context a,b,c`), and shows them side by side.
    #[arg(long, global = true)]
    pub context: Option<String>,
    /// Only this namespace (default: all namespaces).
    #[arg(short, long, global = true)]
    pub namespace: Option<String>,
    /// Watch all namespaces (the default).
    #[arg(short = 'A', long, conflicts_with = "namespace")]
    pub all_namespaces: bool,
    /// Console: do not run the engine in-process; only look.
    #[arg(long)]
    pub no_engine: bool,
    /// Console: run the engine in-process even on a cluster where the
    /// engine is installed (its Deployment, or a Lease an engine that is
    /// not a console holds or held in the last 10 minutes), or where that
    /// cannot be read. Without it the console only observes there. It
    /// then competes for the lease, and leads once the installed engine
    /// lets go of it or stops renewing it. On every context opened. Where
    /// the chart's lease policy is installed, only the engines' accounts
    /// may write the Lease: a person's console is refused it there.
    #[arg(long, conflicts_with_all = ["no_engine", "readonly", "reconcile"])]
    pub force_engine: bool,
    /// Console: never write to the cluster (implies --no-engine).
    #[arg(long)]
    pub readonly: bool,
    /// Headless: where to serve /healthz, /readyz and /metrics.
    #[arg(long, default_value = "0.0.0.0:8080", env = "HMC_METRICS_ADDR")]
    pub metrics_addr: std::net::SocketAddr,
    /// The engine: how often each release is looked at again; changes made
    /// by hand to a service's objects in its cluster are reverted within
    /// one interval. A duration: 30s, 10m, 1h.
    #[arg(long, env = "HMC_RELEASE_INTERVAL", default_value = "10m",
          value_parser = engine::context::release_interval)]
    pub release_interval: String,
    /// The engine: how long deleting a cluster waits for its services to be
    /// uninstalled from a child cluster that does not answer before its
    /// Deleting condition says so. A duration: 30s, 5m.
    #[arg(long, env = "HMC_DELETION_TIMEOUT", default_value = engine::context::DELETION_TIMEOUT,
          value_parser = engine::context::deletion_timeout)]
    pub deletion_timeout: std::time::Duration,
    /// The engine: how long a chart repository is given to answer one fetch
    /// of its index, unless its template sets repository.timeout. A
    /// repository that does not answer holds a worker of the source
    /// controller this long, then waits (suspended) for its next try.
    /// A duration from 1s to 5m.
    #[arg(long, env = "HMC_SOURCE_TIMEOUT", default_value = engine::context::SOURCE_TIMEOUT,
          value_parser = engine::context::source_timeout)]
    pub source_timeout: String,
    /// The engine: how many of one namespace's chart repositories may be
    /// fetched for the first time, or again after a failure, at once; the
    /// rest wait their turn, so that no namespace holds more workers of the
    /// source controller than this. Keep it below the source controller's
    /// --concurrent (2 by default).
    #[arg(long, env = "HMC_SOURCE_SHARE", default_value_t = 1,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub source_share: u16,
    /// Namespace of the default chart repository: where a template that
    /// names no repository takes its chart from, as in hmc.
    #[arg(long, default_value = engine::context::SYSTEM_NAMESPACE, env = "HMC_SYSTEM_NAMESPACE")]
    pub system_namespace: String,
    /// The engine: the Secret whose config.yaml lists the webhooks told of
    /// rollouts and failed services. The engine reads only this one Secret
    /// (by name, every 30s). Empty: no notifications.
    #[arg(long, env = "HMC_NOTIFICATIONS_SECRET",
          default_value = engine::notifications::DEFAULT_SECRET)]
    pub notifications_secret: String,
    /// The engine: the namespace of --notifications-secret, the engine's
    /// own. Default: the system namespace.
    #[arg(
        long,
        env = "HMC_NOTIFICATIONS_NAMESPACE",
        default_value = "",
        hide_default_value = true
    )]
    pub notifications_namespace: String,
    /// Name of the default chart repository in the system namespace.
    #[arg(long, default_value = engine::context::DEFAULT_REPOSITORY, env = "HMC_DEFAULT_REPOSITORY")]
    pub default_repository: String,
    /// The engine: the shard keys of the release controller, comma-separated
    /// (shard1,shard2). Each cluster's releases are labelled with one key,
    /// the same for all of a cluster's releases, picked by a stable hash
    /// of its namespace and name; adding or removing a key moves only the
    /// clusters of that key. Empty (the default): no shard label.
    #[arg(long, env = "HMC_SHARDS", value_name = "KEYS", default_value = "",
          hide_default_value = true, value_parser = hmc_tui::plan::shard::keys)]
    pub shards: hmc_tui::plan::shard::Keys,
    /// The engine: the most bytes a rollout's status may take. It lists
    /// every cluster of the template, and the API server stores an object
    /// in one etcd request (etcd's --max-request-bytes, 1.5 MiB by default):
    /// past this, the clusters' reasons are left out, and a rollout that
    /// still does not fit stops with a StatusTooLarge Event.
    #[arg(long, env = "HMC_MAX_ROLLOUT_STATUS_BYTES", value_name = "BYTES",
          default_value_t = hmc_tui::plan::rollout::MAX_STATUS_BYTES)]
    pub max_rollout_status_bytes: usize,
    /// Console theme: default, light, high-contrast, or a path to a .yaml
    /// file. Wins over `theme:` in ~/.config/hmc-tui/config.yaml.
    #[arg(long, env = "HMC_TUI_THEME")]
    pub theme: Option<String>,
    /// Console: quit right after the first full frame and print when the
    /// first frame with rows came (from the first pages), how long the
    /// stores took to sync and the full frame to come (for measuring).
    #[arg(long, hide = true)]
    pub exit_after_first_frame: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
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
