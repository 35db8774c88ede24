//! What each controller process spends during a phase: CPU seconds (user
//! and system, from `/proc/<pid>/stat`), peak memory (`VmHWM`, reset at the
//! phase's start through `/proc/<pid>/clear_refs`) and the API requests it
//! sent (its own request counter, from its metrics endpoint).

use std::path::Path;

/// One controller process of a tool.
#[derive(Clone, Debug)]
pub struct Process {
    pub name: &'static str,
    pub pid: u32,
    /// Its metrics endpoint's port, and the counter of API requests there.
    pub metrics: (u16, &'static str),
}

impl Process {
    /// A process the harness started, by its name there.
    pub fn of_harness(name: &'static str, metrics: (u16, &'static str)) -> Self {
        let file = super::common::harness_dir()
            .join("pids")
            .join(format!("{name}.pid"));
        let pid = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
            .unwrap_or_else(|| panic!("no pid in {}: is the harness up?", file.display()));
        Self { name, pid, metrics }
    }
}

/// One process's counters at a moment.
#[derive(Clone, Copy, Debug, Default)]
struct Reading {
    cpu_ticks: u64,
    requests: f64,
    /// Of those, the ones sent to the child clusters (client-go's counter
    /// names each request's host; the engine's sends none there).
    to_children: f64,
}

/// What one process spent over a phase.
#[derive(Clone, Debug, Default)]
pub struct Spent {
    pub name: String,
    pub cpu_secs: f64,
    pub peak_mib: f64,
    pub requests: f64,
    pub to_children: f64,
}

/// Counters of a tool's processes from the start of a phase.
pub struct Meter {
    processes: Vec<Process>,
    start: Vec<Reading>,
}

impl Meter {
    /// Resets each process's peak memory and reads its counters.
    pub async fn start(processes: Vec<Process>) -> Self {
        let mut start = Vec::new();
        for p in &processes {
            // 5: reset the peak resident set size to the current one.
            let _ = std::fs::write(format!("/proc/{}/clear_refs", p.pid), "5");
            start.push(read(p).await);
        }
        Self { processes, start }
    }

    /// What each process spent since [`start`](Self::start).
    pub async fn stop(self) -> Vec<Spent> {
        let mut spent = Vec::new();
        for (p, before) in self.processes.iter().zip(&self.start) {
            let now = read(p).await;
            spent.push(Spent {
                name: p.name.to_string(),
                cpu_secs: (now.cpu_ticks.saturating_sub(before.cpu_ticks)) as f64
                    / ticks_per_second(),
                peak_mib: peak_kib(p.pid) as f64 / 1024.0,
                requests: now.requests - before.requests,
                to_children: now.to_children - before.to_children,
            });
        }
        spent
    }
}

async fn read(p: &Process) -> Reading {
    let text = super::common::headless::http_get(p.metrics.0, "/metrics")
        .await
        .map(|(_, body)| body)
        .unwrap_or_default();
    Reading {
        cpu_ticks: cpu_ticks(p.pid),
        requests: hmc_tui::engine::metrics::metric(&text, p.metrics.1).unwrap_or(0.0),
        to_children: to_children(&text, p.metrics.1),
    }
}

/// The samples of counter `name` whose `host` is one of the children's API
/// servers, summed.
fn to_children(text: &str, name: &str) -> f64 {
    let children: Vec<String> = (1..=super::tools::CHILDREN)
        .map(|i| {
            let (host, port) = super::common::capi::child_endpoint(i);
            format!("host=\"{host}:{port}\"")
        })
        .collect();
    text.lines()
        .filter(|l| l.starts_with(&format!("{name}{{")))
        .filter(|l| children.iter().any(|c| l.contains(c.as_str())))
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

/// User and system time of `pid`, in clock ticks.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command (which may hold spaces): state is the
    // first, utime the 12th and stime the 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// The clock ticks of `/proc/<pid>/stat`: 100 a second on Linux (`USER_HZ`).
fn ticks_per_second() -> f64 {
    100.0
}

fn peak_kib(pid: u32) -> u64 {
    status_kib(&format!("/proc/{pid}/status"), "VmHWM:")
}

fn status_kib(path: &str, field: &str) -> u64 {
    std::fs::read_to_string(Path::new(path))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}
