//! The figures of a run, and the tables they are printed as.

use std::time::Duration;

use crate::console::FirstFrame;

#[derive(Clone, Debug, Default)]
pub struct Run {
    pub n: usize,
    /// Engine start to every release and status as wanted.
    pub engine: Duration,
    /// The baseline's first write to the same.
    pub baseline: Duration,
    /// Requests the engine sent to converge (the lease's excluded).
    pub reads: u64,
    pub writes: u64,
    pub baseline_writes: u64,
    /// Writes of a second engine process reconciling the converged fleet.
    pub resync_writes: u64,
    pub resync_requests: (u64, u64),
    /// A new revision: the template's change to every release carrying it.
    pub revision: Duration,
    pub revision_baseline: Duration,
    /// Peak resident memory (MiB) of the converging engine, and of the one
    /// that resynced and rolled out the revision.
    pub rss_converge: f64,
    pub rss_resync: f64,
    /// The console over the fleet (medians of three consoles), and over
    /// three contexts of the fleet at once.
    pub console: FirstFrame,
    pub console_three: FirstFrame,
    /// `/proc/loadavg`'s 1, 5 and 15 minute figures at the run's end.
    pub load: String,
}

impl Run {
    fn ratio(&self) -> f64 {
        self.engine.as_secs_f64() / self.baseline.as_secs_f64()
    }
    fn revision_ratio(&self) -> f64 {
        self.revision.as_secs_f64() / self.revision_baseline.as_secs_f64()
    }
    fn per_cluster(&self, count: u64) -> f64 {
        count as f64 / self.n as f64
    }
    fn cells(&self) -> Vec<String> {
        vec![
            self.n.to_string(),
            format!("{:.2}", self.engine.as_secs_f64()),
            format!("{:.2}", self.baseline.as_secs_f64()),
            format!("{:.2}", self.ratio()),
            format!("{:.2}", self.per_cluster(self.reads)),
            format!("{:.2}", self.per_cluster(self.writes)),
            format!("{:.2}", self.per_cluster(self.baseline_writes)),
            format!("{} ({} reads)", self.resync_writes, self.resync_requests.0),
            format!("{:.2}", self.revision.as_secs_f64()),
            format!("{:.2}", self.revision_baseline.as_secs_f64()),
            format!("{:.2}", self.revision_ratio()),
            format!("{:.0}", self.rss_converge.max(self.rss_resync)),
            format!("{:.0}", self.console.rows),
            format!("{:.0}", self.console.synced),
            format!("{:.0}", self.console.full),
            format!("{:.0}", self.console_three.rows),
            format!("{:.0}", self.console_three.full),
            self.load.clone(),
        ]
    }
}

const HEADER: [&str; 18] = [
    "N",
    "engine s",
    "baseline s",
    "ratio",
    "reads/cluster",
    "writes/cluster",
    "baseline writes/cluster",
    "resync writes",
    "revision s",
    "revision baseline s",
    "revision ratio",
    "peak RSS MiB",
    "console first rows ms",
    "console synced ms",
    "first full frame ms",
    "three contexts first rows ms",
    "three contexts full frame ms",
    "load 1/5/15 min",
];

fn markdown(rows: &[Vec<String>]) -> String {
    markdown_with(&HEADER, rows)
}

fn markdown_with(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for r in rows {
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    out
}

/// Every run, one row each.
pub fn table(runs: &[Run]) -> String {
    markdown(&runs.iter().map(Run::cells).collect::<Vec<_>>())
}

/// The sizes measured, in the order first run.
fn sizes(runs: &[Run]) -> Vec<usize> {
    let mut sizes: Vec<usize> = Vec::new();
    for r in runs {
        if !sizes.contains(&r.n) {
            sizes.push(r.n);
        }
    }
    sizes
}

/// The median over the runs of size `n` of one figure.
fn median_of(runs: &[Run], n: usize, f: &dyn Fn(&Run) -> f64) -> f64 {
    let mut v: Vec<f64> = runs.iter().filter(|r| r.n == n).map(f).collect();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn peak_rss(r: &Run) -> f64 {
    r.rss_converge.max(r.rss_resync)
}

/// Per N, the median of each column over its runs.
pub fn medians(runs: &[Run]) -> String {
    let rows = sizes(runs)
        .into_iter()
        .map(|n| {
            let of: Vec<&Run> = runs.iter().filter(|r| r.n == n).collect();
            let median = |f: &dyn Fn(&Run) -> f64| median_of(runs, n, f);
            vec![
                format!("{n} (median of {})", of.len()),
                format!("{:.2}", median(&|r| r.engine.as_secs_f64())),
                format!("{:.2}", median(&|r| r.baseline.as_secs_f64())),
                format!("{:.2}", median(&Run::ratio)),
                format!("{:.2}", median(&|r| r.per_cluster(r.reads))),
                format!("{:.2}", median(&|r| r.per_cluster(r.writes))),
                format!("{:.2}", median(&|r| r.per_cluster(r.baseline_writes))),
                format!("{:.0}", median(&|r| r.resync_writes as f64)),
                format!("{:.2}", median(&|r| r.revision.as_secs_f64())),
                format!("{:.2}", median(&|r| r.revision_baseline.as_secs_f64())),
                format!("{:.2}", median(&Run::revision_ratio)),
                format!("{:.0}", median(&|r| r.rss_converge.max(r.rss_resync))),
                format!("{:.0}", median(&|r| r.console.rows)),
                format!("{:.0}", median(&|r| r.console.synced)),
                format!("{:.0}", median(&|r| r.console.full)),
                format!("{:.0}", median(&|r| r.console_three.rows)),
                format!("{:.0}", median(&|r| r.console_three.full)),
                of.iter()
                    .map(|r| r.load.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
            ]
        })
        .collect::<Vec<_>>();
    markdown(&rows)
}

/// The shape of growth: per N (medians), time and memory per cluster, and
/// what each step from the size before added per 1,000 more clusters.
pub fn growth(runs: &[Run]) -> String {
    let mut sizes = sizes(runs);
    sizes.sort_unstable();
    let figures: Vec<(usize, [f64; 4])> = sizes
        .iter()
        .map(|&n| {
            let m = |f: &dyn Fn(&Run) -> f64| median_of(runs, n, f);
            (
                n,
                [
                    m(&|r| r.engine.as_secs_f64()),
                    m(&|r| r.baseline.as_secs_f64()),
                    m(&|r| r.revision.as_secs_f64()),
                    m(&peak_rss),
                ],
            )
        })
        .collect();
    let mut rows = Vec::new();
    for (i, (n, [engine, baseline, revision, rss])) in figures.iter().enumerate() {
        let per_cluster = |secs: f64| format!("{:.1}", secs * 1000.0 / *n as f64);
        let step = |k: usize| match i.checked_sub(1).map(|j| figures[j]) {
            Some((before, f)) if *n > before => format!(
                "{:.1}",
                (figures[i].1[k] - f[k]) * 1000.0 / (*n - before) as f64
            ),
            _ => "".into(),
        };
        rows.push(vec![
            n.to_string(),
            format!("{engine:.1}"),
            per_cluster(*engine),
            per_cluster(*baseline),
            per_cluster(*revision),
            step(0),
            format!("{rss:.0}"),
            format!("{:.1}", rss * 1000.0 / *n as f64),
            step(3),
        ]);
    }
    markdown_with(
        &[
            "N",
            "converge s",
            "converge ms/cluster",
            "baseline ms/cluster",
            "revision ms/cluster",
            "converge s per 1,000 more",
            "peak RSS MiB",
            "MiB per 1,000",
            "MiB per 1,000 more",
        ],
        &rows,
    )
}

/// `/proc/loadavg`'s first three figures (`2.10 1.90 1.75`).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join("/")
}

/// Wall-clock time of day, for progress lines.
pub fn clock() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    format!(
        "{:02}:{:02}:{:02}",
        secs / 3600 % 24,
        secs / 60 % 60,
        secs % 60
    )
}

/// The engine's requests by verb and resource, and its reconciles by
/// controller, per cluster.
pub fn requests(m: &crate::engine::Metrics, n: usize) -> String {
    let mut out =
        String::from("| controller | reconciles | per cluster | mean ms |\n|---|---|---|---|\n");
    for (c, (count, secs)) in &m.controllers {
        out.push_str(&format!(
            "| {c} | {count} | {:.2} | {:.1} |\n",
            *count as f64 / n as f64,
            secs * 1000.0 / (*count).max(1) as f64
        ));
    }
    out.push_str("\n| controller | trigger source | keys | per cluster |\n|---|---|---|---|\n");
    for ((c, source), count) in &m.triggers {
        out.push_str(&format!(
            "| {c} | {source} | {count} | {:.2} |\n",
            *count as f64 / n as f64
        ));
    }
    out.push_str("\n| verb | resource | requests | per cluster |\n|---|---|---|---|\n");
    for ((verb, resource), count) in &m.requests {
        out.push_str(&format!(
            "| {verb} | {resource} | {count} | {:.2} |\n",
            *count as f64 / n as f64
        ));
    }
    out
}
