//! The figures of a run, and the tables they are printed as.

use std::time::Duration;

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
    /// The console: stores synced, first full frame (ms after start).
    pub synced_ms: f64,
    pub first_frame_ms: f64,
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
            format!("{:.0}", self.synced_ms),
            format!("{:.0}", self.first_frame_ms),
        ]
    }
}

const HEADER: [&str; 14] = [
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
    "console synced ms",
    "first frame ms",
];

fn markdown(rows: &[Vec<String>]) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        HEADER.join(" | "),
        "---|".repeat(HEADER.len())
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

/// Per N, the median of each column over its runs.
pub fn medians(runs: &[Run]) -> String {
    let mut sizes: Vec<usize> = runs.iter().map(|r| r.n).collect();
    sizes.dedup();
    let rows = sizes
        .iter()
        .map(|&n| {
            let of: Vec<&Run> = runs.iter().filter(|r| r.n == n).collect();
            let median = |f: &dyn Fn(&Run) -> f64| {
                let mut v: Vec<f64> = of.iter().map(|r| f(r)).collect();
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
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
                format!("{:.0}", median(&|r| r.synced_ms)),
                format!("{:.0}", median(&|r| r.first_frame_ms)),
            ]
        })
        .collect::<Vec<_>>();
    markdown(&rows)
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
    out.push_str("\n| verb | resource | requests | per cluster |\n|---|---|---|---|\n");
    for ((verb, resource), count) in &m.requests {
        out.push_str(&format!(
            "| {verb} | {resource} | {count} | {:.2} |\n",
            *count as f64 / n as f64
        ));
    }
    out
}
