//! The engine under measurement: the real binary (`hmc-tui --reconcile`)
//! scoped to the bench namespace, its releases on a shard no helm-controller
//! watches, read through its `/metrics` and its peak resident memory from
//! `/proc`.

use std::collections::BTreeMap;
use std::time::Duration;

use hmc_tui::engine::requests::is_read;

use crate::common::{harness_dir, headless::Headless};

/// The shard key of every release the bench's engines write: the harness
/// runs no helm-controller for it (its main one leaves labelled releases
/// alone), so Flux keeps serving everyone else and installs none of them.
pub const SHARD: &str = "unwatched";
pub use hmc_tui::flux::SHARD_LABEL;

/// Refuses to run with a binary that cannot put its releases on a shard:
/// Flux runs during the bench and would install every release.
pub fn check_shards() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_hmc-tui"))
        .arg("--help")
        .output()
        .expect("run hmc-tui --help");
    assert!(
        String::from_utf8_lossy(&help.stdout).contains("--shards"),
        "this hmc-tui has no --shards: the bench needs it, since Flux keeps running"
    );
}

pub struct Engine {
    process: Headless,
    pid: u32,
    /// Run by a wrapper (see [`wrapped`]): `pid` is the wrapper's.
    wrapped: bool,
}

/// What an engine's `/metrics` says, at one moment.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metrics {
    /// `hmc_api_requests_total` by (verb, resource).
    pub requests: BTreeMap<(String, String), u64>,
    /// `hmc_engine_writes_total`.
    pub writes: u64,
    /// `hmc_reconcile_total` of the ManagedCluster controller.
    pub cluster_reconciles: u64,
    /// `hmc_reconcile_in_flight`, all controllers.
    pub in_flight: i64,
    /// Per controller: reconciles and the seconds they took.
    pub controllers: BTreeMap<String, (u64, f64)>,
    /// `hmc_reconcile_triggers_total` by (controller, source).
    pub triggers: BTreeMap<(String, String), u64>,
}

impl Metrics {
    /// Reads and writes sent for the fleet: everything but the lease's
    /// renewals, which depend on time, not on clusters.
    pub fn reads_writes(&self) -> (u64, u64) {
        self.requests
            .iter()
            .filter(|((_, resource), _)| resource != "leases")
            .fold((0, 0), |(r, w), ((verb, _), n)| {
                if is_read(verb) {
                    (r + n, w)
                } else {
                    (r, w + n)
                }
            })
    }

    /// The requests a quiet engine would not send.
    fn activity(&self) -> (u64, u64) {
        let (r, w) = self.reads_writes();
        (r + w, self.writes)
    }

    /// What happened between `before` and `self`.
    pub fn since(&self, before: &Metrics) -> Metrics {
        let mut d = self.clone();
        for (k, n) in d.requests.iter_mut() {
            *n -= before.requests.get(k).copied().unwrap_or(0);
        }
        d.requests.retain(|_, n| *n > 0);
        for (k, n) in d.triggers.iter_mut() {
            *n -= before.triggers.get(k).copied().unwrap_or(0);
        }
        d.triggers.retain(|_, n| *n > 0);
        for (k, (n, secs)) in d.controllers.iter_mut() {
            let (bn, bs) = before.controllers.get(k).copied().unwrap_or_default();
            *n -= bn;
            *secs -= bs;
        }
        d.writes -= before.writes;
        d.cluster_reconciles -= before.cluster_reconciles;
        d
    }

    fn parse(text: &str) -> Self {
        let mut m = Metrics::default();
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let Some((key, value)) = line.rsplit_once(' ') else {
                continue;
            };
            let Ok(value) = value.parse::<f64>() else {
                continue;
            };
            let (name, labels) = key.split_once('{').unwrap_or((key, ""));
            let label = |l: &str| {
                labels
                    .split(',')
                    .find_map(|kv| kv.strip_prefix(&format!("{l}=\"")))
                    .map(|v| v.trim_end_matches(['"', '}']).to_string())
            };
            match name {
                "hmc_api_requests_total" => {
                    if let (Some(verb), Some(resource)) = (label("verb"), label("resource")) {
                        m.requests.insert((verb, resource), value as u64);
                    }
                }
                "hmc_reconcile_triggers_total" => {
                    if let (Some(c), Some(source)) = (label("controller"), label("source")) {
                        m.triggers.insert((c, source), value as u64);
                    }
                }
                "hmc_engine_writes_total" => m.writes = value as u64,
                "hmc_reconcile_total"
                    if label("controller").as_deref() == Some("managedclusters") =>
                {
                    m.cluster_reconciles = value as u64
                }
                "hmc_reconcile_in_flight" => m.in_flight += value as i64,
                "hmc_reconcile_duration_seconds_count" | "hmc_reconcile_duration_seconds_sum" => {
                    let entry = m
                        .controllers
                        .entry(label("controller").unwrap_or_default())
                        .or_default();
                    if name.ends_with("_count") {
                        entry.0 = value as u64;
                    } else {
                        entry.1 = value;
                    }
                }
                _ => {}
            }
        }
        m
    }
}

impl Engine {
    pub fn start(ns: &str, port: u16) -> Self {
        let kubeconfig = harness_dir().join("mgmt.kubeconfig");
        let env = [("HMC_SHARDS", SHARD)];
        let wrapper = std::env::var("HMC_BENCH_ENGINE_WRAPPER").unwrap_or_default();
        let process = match wrapper.as_str() {
            "" => Headless::start(Some(ns), port, &kubeconfig, ns, &env),
            // `heaptrack`, say, for a profile of its memory; its peak
            // memory is then the wrapper's.
            wrapper => {
                let words: Vec<&str> = wrapper.split_whitespace().collect();
                let args = ["--reconcile", "-n", ns].map(String::from).to_vec();
                let env = [env.as_slice(), &[("HMC_LEASE_NAMESPACE", ns)]].concat();
                Headless::start_under(&words, ns, args, port, &kubeconfig, &env)
            }
        };
        let pid = process.child.id().expect("the engine runs");
        Self {
            process,
            pid,
            wrapped: !wrapper.is_empty(),
        }
    }

    pub async fn metrics(&self) -> Option<Metrics> {
        let (_, text) = self.process.get("/metrics").await?;
        Some(Metrics::parse(&text))
    }

    /// Waits until the engine has reconciled at least `clusters` clusters
    /// and sent nothing for 3 s (no request, no write, nothing in flight),
    /// and returns its metrics then.
    pub async fn settle(&self, clusters: u64, timeout: Duration) -> Metrics {
        let start = std::time::Instant::now();
        let mut last: Option<Metrics> = None;
        let mut quiet = 0;
        loop {
            assert!(
                start.elapsed() < timeout,
                "the engine did not settle within {timeout:?}; its log: {}",
                self.process.log.display()
            );
            tokio::time::sleep(Duration::from_secs(1)).await;
            let Some(now) = self.metrics().await else {
                continue;
            };
            let same = last
                .as_ref()
                .is_some_and(|l| l.activity() == now.activity());
            quiet = if same && now.in_flight == 0 && now.cluster_reconciles >= clusters {
                quiet + 1
            } else {
                0
            };
            if quiet >= 3 {
                return now;
            }
            last = Some(now);
        }
    }

    /// The engine's peak resident memory so far, in MiB (`VmHWM`).
    pub fn peak_rss_mib(&self) -> f64 {
        let status =
            std::fs::read_to_string(format!("/proc/{}/status", self.pid)).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
            .map_or(0.0, |kib| kib / 1024.0)
    }

    /// Stops it (SIGTERM) and returns its peak resident memory in MiB.
    pub async fn stop(mut self) -> f64 {
        let peak = self.peak_rss_mib();
        if self.wrapped {
            // The engine is the wrapper's child: it stops, then the wrapper
            // writes what it recorded and exits by itself.
            // A wrapper that runs it as its own child; one that `exec`s
            // it (`env`) is the engine itself.
            let child = std::process::Command::new("pkill")
                .args(["-TERM", "-P", &self.pid.to_string(), "hmc-tui"])
                .status()
                .is_ok_and(|s| s.success());
            if !child {
                let _ = std::process::Command::new("kill")
                    .args(["-TERM", &self.pid.to_string()])
                    .status();
            }
            let _ = tokio::time::timeout(Duration::from_secs(600), self.process.child.wait()).await;
            return peak;
        }
        let (status, _) = self.process.terminate().await;
        assert!(status.success(), "the engine exited with {status}");
        peak
    }
}
