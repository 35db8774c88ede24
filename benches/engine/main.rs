//! The engine at fleet scale, against the harness, next to a baseline.
//!
//! For each N: one ClusterTemplate with three services and N ManagedClusters,
//! each provisioned (a CAPI Cluster whose control plane is up and a
//! kubeconfig secret). Flux keeps running for everyone else: the engine
//! labels every release with a shard key that no helm-controller watches
//! (`--shards unwatched`), so only the engine's own work is measured.
//! Then:
//!
//! 1. convergence: the time from starting `hmc-tui --reconcile` until every
//!    release exists with the right spec and every cluster's status is
//!    written, and the API requests it took;
//! 2. the baseline: a plain client writing the same objects to a second
//!    namespace with the same concurrency;
//! 3. steady state: a second engine process resyncs everything, and must
//!    write nothing;
//! 4. a new template revision rolled out with `maxConcurrent: 100%`, and
//!    the baseline writing the same releases;
//! 5. the console's first frame over those N clusters (medians of three
//!    consoles), and over three contexts of N clusters each;
//! 6. the engine's peak resident memory.
//!
//! `cargo bench --bench engine` runs N = 100, 1,000 and 3,000 three times
//! each (`-- --sizes 100,1000 --runs 1` for fewer, `--sizes 10000` for the
//! large fleet). Under `cargo test` it runs once at N = 10 and checks that
//! every step still works.

#[path = "../../tests/common/mod.rs"]
mod common;

mod baseline;
mod console;
mod converge;
mod engine;
mod fleet;
mod report;

use std::time::{Duration, Instant};

use converge::{Goal, Tracker};
use engine::Engine;

/// The bench engine's `/metrics` port.
const PORT: u16 = 17690;

struct Options {
    sizes: Vec<usize>,
    runs: usize,
    smoke: bool,
    /// Only convergence and the baseline's (`--converge-only`): no resync,
    /// revision or console, for the largest fleets.
    converge_only: bool,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let smoke = !args.iter().any(|a| a == "--bench");
    let sizes = match value("--sizes") {
        Some(list) => list
            .split(',')
            .map(|n| n.trim().parse().expect("--sizes takes numbers: 100,1000"))
            .collect(),
        None if smoke => vec![10],
        None => vec![100, 1000, 3000],
    };
    let runs = match value("--runs") {
        Some(n) => n.parse().expect("--runs takes a number"),
        None if smoke => 1,
        None => 3,
    };
    let converge_only = args.iter().any(|a| a == "--converge-only");
    Options {
        sizes,
        runs,
        smoke,
        converge_only,
    }
}

/// Time allowed for one fleet to converge.
fn patience(n: usize) -> Duration {
    Duration::from_secs(120) + Duration::from_millis(200 * n as u64)
}

fn progress(what: &str) {
    eprintln!("[bench {}] {what}", report::clock());
}

/// The label value of this benchmark's namespaces (see
/// `common::TestNamespace::remove_leftovers`).
const MARKER: &str = "engine-bench";

async fn run_once(n: usize, converge_only: bool) -> report::Run {
    let client = common::mgmt().await;
    let marked = |prefix: String| {
        let client = client.clone();
        async move { common::TestNamespace::create_marked(&client, &prefix, Some(MARKER)).await }
    };
    let engine_ns = marked(format!("bench-{n}")).await;
    let base_ns = marked(format!("bench-{n}-base")).await;
    let (ns, base) = (engine_ns.name.clone(), base_ns.name.clone());
    let mut run = report::Run {
        n,
        ..Default::default()
    };

    progress(&format!("{ns}: templates, with Flux fetching their charts"));
    fleet::templates(&client, &ns).await;
    let setup = Engine::start(&ns, PORT);
    common::eventually(
        "the bench templates valid",
        Duration::from_secs(120),
        || fleet::templates_valid(&client, &ns),
    )
    .await;
    setup.stop().await;

    progress(&format!(
        "{ns}: {n} provisioned clusters, and {n} in {base}"
    ));
    fleet::clusters(&client, &ns, n, true).await;
    fleet::clusters(&client, &base, n, false).await;

    // 1. Convergence.
    let goal = Goal {
        clusters: n,
        revision: 1,
        statuses: true,
    };
    let tracker = Tracker::start(&client, &ns, goal).await;
    progress("engine: converging");
    let start = Instant::now();
    let first = Engine::start(&ns, PORT);
    run.engine = tracker
        .wait(start, patience(n))
        .await
        .unwrap_or_else(|e| panic!("the engine: {e}"));
    let converged = first.settle(n as u64, patience(n)).await;
    (run.reads, run.writes) = converged.reads_writes();
    eprintln!("{}", report::requests(&converged, n));
    run.rss_converge = first.stop().await;
    progress(&format!(
        "engine: converged in {:.1} s, peak RSS {:.0} MiB, load {}",
        run.engine.as_secs_f64(),
        run.rss_converge,
        report::load_average()
    ));

    // 2. The baseline.
    progress("baseline: writing the same objects");
    let plan = baseline::copy(&client, &ns, &base, true, true).await;
    let tracker = Tracker::start(&client, &base, goal).await;
    let start = Instant::now();
    run.baseline_writes = baseline::write(&client, &base, plan).await as u64;
    run.baseline = tracker
        .wait(start, patience(n))
        .await
        .unwrap_or_else(|e| panic!("the baseline: {e}"));

    if !converge_only {
        steady_state_and_revision(&client, &ns, &base, &mut run).await;
    }
    done(&client, run, engine_ns, base_ns).await
}

/// Steps 3 to 5: a resync, a new revision to every cluster, and the console.
async fn steady_state_and_revision(
    client: &kube::Client,
    ns: &str,
    base: &str,
    run: &mut report::Run,
) {
    let (client, ns, base, n) = (client.clone(), ns.to_string(), base.to_string(), run.n);
    // 3. Steady state: a new process lists everything and reconciles it all.
    progress("engine: resync");
    let second = Engine::start(&ns, PORT);
    let resync = second.settle(n as u64, patience(n)).await;
    progress(&format!(
        "baseline: {:.1} s; resync wrote {}",
        run.baseline.as_secs_f64(),
        resync.writes
    ));
    run.resync_writes = resync.writes;
    run.resync_requests = resync.reads_writes();

    // 4. A new revision, to every cluster at once.
    progress("engine: revision 2");
    let goal = Goal {
        clusters: n,
        revision: 2,
        statuses: false,
    };
    let tracker = Tracker::start(&client, &ns, goal).await;
    let start = Instant::now();
    fleet::set_template_revision(&client, &ns, 2).await;
    run.revision = tracker
        .wait(start, patience(n))
        .await
        .unwrap_or_else(|e| panic!("the revision: {e}"));
    let rolled = second.settle(n as u64, patience(n)).await;
    eprintln!("{}", report::requests(&rolled.since(&resync), n));
    run.rss_resync = second.stop().await;
    progress(&format!(
        "engine: revision 2 in {:.1} s, peak RSS {:.0} MiB",
        run.revision.as_secs_f64(),
        run.rss_resync
    ));

    progress("baseline: revision 2");
    let plan = baseline::copy(&client, &ns, &base, false, false).await;
    let tracker = Tracker::start(&client, &base, goal).await;
    let start = Instant::now();
    baseline::write(&client, &base, plan).await;
    run.revision_baseline = tracker
        .wait(start, patience(n))
        .await
        .unwrap_or_else(|e| panic!("the baseline revision: {e}"));

    // 5. The console over the fleet.
    progress("console: first frame");
    (run.console, run.console_three) = console::first_frames(&ns, &base, n).await;
}

/// The run's row, then everything it made goes.
async fn done(
    client: &kube::Client,
    mut run: report::Run,
    engine_ns: common::TestNamespace,
    base_ns: common::TestNamespace,
) -> report::Run {
    let (client, ns, base) = (client.clone(), engine_ns.name.clone(), base_ns.name.clone());

    // No helm-controller watches the releases' shard, so they carry no
    // finalizer of Flux's and go at once.
    run.load = report::load_average();
    eprintln!("{}", report::table(std::slice::from_ref(&run)));
    progress("cleaning up");
    fleet::delete_releases(&client, &ns).await;
    fleet::delete_releases(&client, &base).await;
    engine_ns.cleanup_and_wait(Duration::from_secs(600)).await;
    base_ns.cleanup_and_wait(Duration::from_secs(600)).await;
    run
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let options = options();
    engine::check_shards();
    let client = common::mgmt().await;
    common::TestNamespace::remove_leftovers(&client, MARKER, Duration::from_secs(600)).await;
    let mut runs = Vec::new();
    for &n in &options.sizes {
        for i in 0..options.runs {
            progress(&format!("N = {n}, run {} of {}", i + 1, options.runs));
            runs.push(run_once(n, options.converge_only).await);
        }
    }
    println!("{}", report::table(&runs));
    println!("{}", report::medians(&runs));
    println!("{}", report::growth(&runs));
    if options.smoke {
        for r in &runs {
            assert_eq!(r.resync_writes, 0, "a resync of a converged fleet wrote");
            assert!(r.reads > 0 && r.writes > 0, "no requests counted: {r:?}");
            assert!(r.rss_converge > 0.0, "no peak memory read");
            assert!(
                r.console.full > 0.0 && r.console_three.full > 0.0,
                "no console figures: {r:?}"
            );
        }
    }
}
