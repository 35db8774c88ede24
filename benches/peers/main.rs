//! hmc-tui with Flux beside Sveltos, on the same harness, in one run: how
//! long each takes to install the upstream ingress-nginx 4.11.3 on every
//! cluster of a fleet, to upgrade it to 4.11.4 and to remove it, and what
//! its controllers spend doing so.
//!
//! For each N: one fleet of N clusters made by real Cluster API (see
//! `tools.rs`), which both tools serve, each into namespaces of its own.
//! For each mode (both tools at their defaults; then matched), each run
//! takes both tools through install, upgrade and removal, in alternating
//! order (hmc-tui first in odd runs, Sveltos first in even ones). The
//! clock of a phase runs from the one write that asks for it (the
//! ClusterTemplate's services, or the Profile) until one watcher of Helm's
//! release records in the children (`releases.rs`) sees every cluster's
//! release deployed at the phase's version, or gone. Each controller's CPU
//! seconds, peak memory and API requests over the phase come from /proc
//! and its own metrics (`usage.rs`).
//!
//! `cargo bench --bench peers` runs N = 10 and 100, both modes, three runs
//! each (`-- --sizes 10 --runs 1 --modes matched` for fewer). Sveltos is
//! built on demand (`tests/harness/harness build sveltos`, cached) and
//! started beside the harness. Under `cargo test` it runs hmc-tui alone,
//! once, at N = 2 and at its defaults, and builds nothing.

#[path = "../../tests/common/mod.rs"]
mod common;
mod releases;
mod tools;
mod usage;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kube::Api;

use hmc_tui::api::ManagedCluster;
use releases::Releases;
use tools::{Fleet, Mode, Phase, Tool};
use usage::{Meter, Spent};

struct Options {
    sizes: Vec<usize>,
    runs: usize,
    modes: Vec<Mode>,
    tools: Vec<Tool>,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given = |flag: &str| args.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone());
    let bench = args.iter().any(|a| a == "--bench");
    let list = |flag: &str| -> Option<Vec<String>> {
        given(flag).map(|l| l.split(',').map(|s| s.trim().to_string()).collect())
    };
    let sizes = list("--sizes").map_or_else(
        || if bench { vec![10, 100] } else { vec![2] },
        |l| {
            l.iter()
                .map(|n| n.parse().expect("--sizes 10,100"))
                .collect()
        },
    );
    let runs = given("--runs").map_or(if bench { 3 } else { 1 }, |n| n.parse().expect("--runs 3"));
    let modes = list("--modes").map_or_else(
        || {
            if bench {
                vec![Mode::Defaults, Mode::Matched]
            } else {
                vec![Mode::Defaults]
            }
        },
        |l| {
            l.iter()
                .map(|m| match m.as_str() {
                    "defaults" => Mode::Defaults,
                    "matched" => Mode::Matched,
                    other => panic!("--modes defaults,matched, not {other}"),
                })
                .collect()
        },
    );
    let tools = if bench {
        vec![Tool::HmcTui, Tool::Sveltos]
    } else {
        vec![Tool::HmcTui]
    };
    Options {
        sizes,
        runs,
        modes,
        tools,
    }
}

fn progress(what: &str) {
    eprintln!("[peers bench +{:?}] {what}", started().elapsed());
}

fn started() -> &'static Instant {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now)
}

/// One tool's phase, measured.
struct Measured {
    n: usize,
    mode: Mode,
    run: usize,
    tool: Tool,
    phase: Phase,
    secs: f64,
    spent: Vec<Spent>,
}

impl Measured {
    fn cpu(&self) -> f64 {
        self.spent.iter().map(|s| s.cpu_secs).sum()
    }
    fn requests(&self) -> f64 {
        self.spent.iter().map(|s| s.requests).sum()
    }
    fn to_children(&self) -> f64 {
        self.spent.iter().map(|s| s.to_children).sum()
    }
}

/// Takes `tool` through one phase on `fleet` and measures it.
async fn phase(
    fleet: &Fleet,
    releases: &Releases,
    tool: Tool,
    mode: Mode,
    phase: Phase,
) -> (f64, Vec<Spent>) {
    let meter = Meter::start(fleet.processes(tool)).await;
    let wanted = fleet.releases(tool);
    let patience = Duration::from_secs(600 + 6 * fleet.n as u64);
    let start = Instant::now();
    fleet.ask(tool, mode, phase).await;
    let mut last = usize::MAX;
    loop {
        let newest = releases.newest();
        let done = wanted
            .iter()
            .filter(|r| match phase.target() {
                Some(version) => newest
                    .get(*r)
                    .is_some_and(|rec| rec.status == "deployed" && rec.chart_version == version),
                None => !newest.contains_key(*r),
            })
            .count();
        if done == wanted.len() {
            break;
        }
        if done / 10 != last / 10 {
            progress(&format!(
                "{} {}: {done} of {}",
                tool.name(),
                phase.name(),
                wanted.len()
            ));
            last = done;
        }
        assert!(
            start.elapsed() < patience,
            "{} {}: {done} of {} clusters after {patience:?}; {}",
            tool.name(),
            phase.name(),
            wanted.len(),
            common::logs_hint()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let secs = start.elapsed().as_secs_f64();
    let spent = meter.stop().await;
    progress(&format!("{} {}: {secs:.1} s", tool.name(), phase.name()));
    fleet.settle(tool, phase).await;
    (secs, spent)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let options = options();
    let _ = started();
    let client = common::mgmt().await;
    common::TestNamespace::remove_leftovers(&client, tools::MARKER, Duration::from_secs(600)).await;
    let releases = Releases::watch(tools::CHILDREN).await;
    let mut measured = Vec::new();
    for &n in &options.sizes {
        progress(&format!("making a fleet of {n} clusters"));
        let fleet = Fleet::make(n).await;
        progress(&format!("{}: {n} clusters Ready", fleet.ns));
        for &mode in &options.modes {
            for run in 1..=options.runs {
                let mut order = options.tools.clone();
                if run % 2 == 0 {
                    order.reverse();
                }
                for &tool in &order {
                    progress(&format!(
                        "N = {n}, {}, run {run}: {}",
                        mode.name(),
                        tool.name()
                    ));
                    fleet.configure(tool, mode).await;
                    for p in Phase::ALL {
                        let (secs, spent) = phase(&fleet, &releases, tool, mode, p).await;
                        let m = Measured {
                            n,
                            mode,
                            run,
                            tool,
                            phase: p,
                            secs,
                            spent,
                        };
                        // Each row as it comes, so that a run cut short keeps them.
                        progress(&row(&m));
                        measured.push(m);
                    }
                }
            }
        }
        if options.tools.contains(&Tool::HmcTui) {
            overrides_said(&fleet).await;
        }
        fleet.remove().await;
    }
    report(&measured);
}

/// After the removal, each cluster's entry for the service (its namespace
/// and values) gives nothing, and its status says so.
async fn overrides_said(fleet: &Fleet) {
    let api: Api<ManagedCluster> = Api::namespaced(common::mgmt().await, &fleet.ns);
    let mc = api.get(&tools::cluster_name(0)).await.expect("a cluster");
    let said = mc
        .status
        .iter()
        .flat_map(|s| &s.conditions)
        .find(|c| c.type_ == hmc_tui::api::conditions::SERVICES_READY)
        .map(|c| (c.status.clone(), c.message.clone()));
    let (status, message) = said.expect("ServicesReady");
    assert_eq!(status, "True", "{message}");
    assert!(
        message.contains("ingress overrides no service of cluster template fleet"),
        "{message}"
    );
}

/// One phase as a row of the report's first table.
fn row(m: &Measured) -> String {
    let each = |f: fn(&Spent) -> String| {
        m.spent
            .iter()
            .map(|s| format!("{} {}", s.name, f(s)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "| {} | {} | {} | {} | {} | {:.1} s | {:.1} ({}) | {} | {:.0} ({}; {:.0} to the children) |",
        m.n,
        m.mode.name(),
        m.run,
        m.tool.name(),
        m.phase.name(),
        m.secs,
        m.cpu(),
        each(|s| format!("{:.1}", s.cpu_secs)),
        each(|s| format!("{:.0}", s.peak_mib)),
        m.requests(),
        each(|s| format!("{:.0}", s.requests)),
        m.to_children(),
    )
}

fn report(measured: &[Measured]) {
    println!(
        "| N | mode | run | tool | phase | to the last cluster | CPU s | peak MiB | API requests |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for m in measured {
        println!("{}", row(m));
    }
    // Medians side by side, and hmc-tui's time and CPU as a share of
    // Sveltos'.
    let mut groups: BTreeMap<(usize, Mode, Phase), BTreeMap<Tool, Vec<&Measured>>> =
        BTreeMap::new();
    for m in measured {
        groups
            .entry((m.n, m.mode, m.phase))
            .or_default()
            .entry(m.tool)
            .or_default()
            .push(m);
    }
    println!();
    println!("| N | mode | phase | tool | runs | median time | median CPU s | ratio time / CPU |");
    println!("|---|---|---|---|---|---|---|---|");
    for ((n, mode, phase), tools) in &groups {
        let medians: BTreeMap<Tool, (f64, f64)> = tools
            .iter()
            .map(|(tool, ms)| {
                (
                    *tool,
                    (
                        common::median(ms.iter().map(|m| m.secs).collect()),
                        common::median(ms.iter().map(|m| m.cpu()).collect()),
                    ),
                )
            })
            .collect();
        for (tool, ms) in tools {
            let (secs, cpu) = medians[tool];
            let ratio = match (tool, medians.get(&Tool::Sveltos)) {
                (Tool::HmcTui, Some((s, c))) => format!("{:.2} / {:.2}", secs / s, cpu / c),
                _ => String::new(),
            };
            println!(
                "| {n} | {} | {} | {} | {} | {secs:.1} s | {cpu:.1} | {ratio} |",
                mode.name(),
                phase.name(),
                tool.name(),
                ms.len()
            );
        }
    }
}
