//! What the engine counts, and `/healthz`, `/readyz` and `/metrics` for a
//! headless engine in a pod.
//!
//! Counters are plain atomics and a small map per controller, updated by the
//! reconcilers; gauges (clusters, services, rollouts by state) are read from
//! the stores at scrape time, so they cost nothing between scrapes.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::Counters;
use super::leader::Role;
use crate::api::conditions::READY;
use crate::store::Stores;

/// Upper bounds (seconds) of the reconcile duration histogram.
const BUCKETS: [f64; 10] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

/// One controller's reconciles.
#[derive(Clone, Debug, Default)]
pub struct ControllerStats {
    pub reconciles: u64,
    pub errors: u64,
    /// Reconciles running right now.
    pub in_flight: i64,
    pub seconds_sum: f64,
    /// Cumulative counts per bucket of [`BUCKETS`].
    pub buckets: [u64; BUCKETS.len()],
}

/// Per-controller statistics, keyed by controller name.
#[derive(Debug, Default)]
pub struct ControllerMetrics(Mutex<BTreeMap<&'static str, ControllerStats>>);

impl ControllerMetrics {
    fn with(&self, controller: &'static str, f: impl FnOnce(&mut ControllerStats)) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        f(map.entry(controller).or_default());
    }

    pub fn snapshot(&self) -> BTreeMap<&'static str, ControllerStats> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Counters {
    /// Runs one reconcile of `controller`, counting it, its duration and
    /// whether it failed.
    pub async fn timed<T, E>(
        &self,
        controller: &'static str,
        reconcile: impl Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        self.controllers.with(controller, |s| s.in_flight += 1);
        let start = Instant::now();
        let result = reconcile.await;
        let secs = start.elapsed().as_secs_f64();
        self.reconciles.fetch_add(1, Ordering::Relaxed);
        self.controllers.with(controller, |s| {
            s.in_flight -= 1;
            s.reconciles += 1;
            s.errors += u64::from(result.is_err());
            s.seconds_sum += secs;
            for (bucket, bound) in s.buckets.iter_mut().zip(BUCKETS) {
                *bucket += u64::from(secs <= bound);
            }
        });
        result
    }
}

/// The Prometheus text exposition of everything the engine knows.
pub fn render(counters: &Counters, stores: &Stores, role: Role) -> String {
    let mut lines: Vec<String> = Vec::new();

    head(
        &mut lines,
        "hmc_engine_leader",
        "gauge",
        "1 while this process holds the engine lease and reconciles.",
    );
    lines.push(format!(
        "hmc_engine_leader {}",
        u8::from(role == Role::Leader)
    ));
    head(
        &mut lines,
        "hmc_engine_stores_synced",
        "gauge",
        "1 once every store holds its first full list.",
    );
    lines.push(format!(
        "hmc_engine_stores_synced {}",
        u8::from(stores.is_ready())
    ));
    head(
        &mut lines,
        "hmc_engine_writes_total",
        "counter",
        "Create, apply, patch and delete requests sent.",
    );
    lines.push(format!("hmc_engine_writes_total {}", counters.writes()));
    head(
        &mut lines,
        "hmc_api_requests_total",
        "counter",
        "Requests sent to the API server, by verb and resource: reads, writes, watches and lease renewals.",
    );
    for ((verb, resource), n) in counters.requests.snapshot() {
        lines.push(format!(
            "hmc_api_requests_total{{verb=\"{verb}\",resource=\"{resource}\"}} {n}"
        ));
    }

    let controllers = counters.controllers.snapshot();
    head(
        &mut lines,
        "hmc_reconcile_total",
        "counter",
        "Finished reconciles per controller.",
    );
    for (c, s) in &controllers {
        lines.push(format!(
            "hmc_reconcile_total{{controller=\"{c}\"}} {}",
            s.reconciles
        ));
    }
    head(
        &mut lines,
        "hmc_reconcile_errors_total",
        "counter",
        "Reconciles that ended in an error, per controller.",
    );
    for (c, s) in &controllers {
        lines.push(format!(
            "hmc_reconcile_errors_total{{controller=\"{c}\"}} {}",
            s.errors
        ));
    }
    head(
        &mut lines,
        "hmc_reconcile_in_flight",
        "gauge",
        "Reconciles running now, per controller (the busy part of its queue).",
    );
    for (c, s) in &controllers {
        lines.push(format!(
            "hmc_reconcile_in_flight{{controller=\"{c}\"}} {}",
            s.in_flight
        ));
    }
    head(
        &mut lines,
        "hmc_reconcile_duration_seconds",
        "histogram",
        "Time per reconcile, per controller.",
    );
    for (c, s) in &controllers {
        for (bound, n) in BUCKETS.iter().zip(s.buckets) {
            lines.push(format!(
                "hmc_reconcile_duration_seconds_bucket{{controller=\"{c}\",le=\"{bound}\"}} {n}"
            ));
        }
        lines.push(format!(
            "hmc_reconcile_duration_seconds_bucket{{controller=\"{c}\",le=\"+Inf\"}} {}",
            s.reconciles
        ));
        lines.push(format!(
            "hmc_reconcile_duration_seconds_sum{{controller=\"{c}\"}} {}",
            s.seconds_sum
        ));
        lines.push(format!(
            "hmc_reconcile_duration_seconds_count{{controller=\"{c}\"}} {}",
            s.reconciles
        ));
    }

    // Gauges from the stores.
    let mut clusters: BTreeMap<String, u64> = BTreeMap::new();
    let mut services: BTreeMap<String, u64> = BTreeMap::new();
    for mc in stores.managed_clusters.state() {
        let st = mc.status.clone().unwrap_or_default();
        let ready = st
            .conditions
            .iter()
            .find(|c| c.type_ == READY)
            .map_or("Unknown".to_string(), |c| c.status.clone());
        *clusters.entry(ready).or_default() += 1;
        for s in &st.services {
            *services.entry(s.state.to_string()).or_default() += 1;
        }
    }
    head(
        &mut lines,
        "hmc_managed_clusters",
        "gauge",
        "ManagedClusters by their Ready condition.",
    );
    for (ready, n) in &clusters {
        lines.push(format!("hmc_managed_clusters{{ready=\"{ready}\"}} {n}"));
    }
    head(
        &mut lines,
        "hmc_services",
        "gauge",
        "Services of all clusters by state.",
    );
    for (state, n) in &services {
        lines.push(format!("hmc_services{{state=\"{state}\"}} {n}"));
    }
    let mut rollouts: BTreeMap<String, u64> = BTreeMap::new();
    for r in stores.rollouts.state() {
        let phase = r.status.as_ref().map(|s| s.phase).unwrap_or_default();
        *rollouts.entry(phase.to_string()).or_default() += 1;
    }
    head(
        &mut lines,
        "hmc_rollouts",
        "gauge",
        "TemplateRollouts by phase.",
    );
    for (phase, n) in &rollouts {
        lines.push(format!("hmc_rollouts{{phase=\"{phase}\"}} {n}"));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Starts a metric family: its help and type lines.
fn head(lines: &mut Vec<String>, name: &str, kind: &str, help: &str) {
    lines.push(format!("# HELP {name} {help}"));
    lines.push(format!("# TYPE {name} {kind}"));
}

/// Serves `/healthz` (the process answers), `/readyz` (every store synced
/// and no watch failing) and `/metrics` on `addr` until `shutdown`.
pub async fn serve(
    addr: SocketAddr,
    counters: std::sync::Arc<Counters>,
    stores: Stores,
    role: watch::Receiver<Role>,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(%addr, "serving /healthz, /readyz and /metrics");
    loop {
        let (stream, _) = tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(error) => {
                    tracing::warn!(%error, "accepting a metrics connection failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let (counters, stores, role) = (counters.clone(), stores.clone(), role.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let response = answer(req.uri().path(), &counters, &stores, *role.borrow());
                async move { Ok::<_, Infallible>(response) }
            });
            if let Err(error) = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!(%error, "metrics connection ended");
            }
        });
    }
}

fn answer(path: &str, counters: &Counters, stores: &Stores, role: Role) -> Response<Full<Bytes>> {
    let (status, body) = match path {
        "/healthz" => (StatusCode::OK, "ok\n".to_string()),
        "/readyz" => match readiness(stores) {
            Ok(()) => (StatusCode::OK, "ready\n".to_string()),
            Err(why) => (
                StatusCode::SERVICE_UNAVAILABLE,
                format!("not ready: {why}\n"),
            ),
        },
        "/metrics" => (StatusCode::OK, render(counters, stores, role)),
        _ => (StatusCode::NOT_FOUND, "not found\n".to_string()),
    };
    Response::builder()
        .status(status)
        .header("content-type", "text/plain; version=0.0.4; charset=utf-8")
        .body(Full::new(Bytes::from(body)))
        .unwrap_or_default()
}

/// Ready once every store is synced and no watch is failing.
pub fn readiness(stores: &Stores) -> Result<(), String> {
    if !stores.is_ready() {
        return Err("the stores have not listed everything yet".into());
    }
    match stores.failing() {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn timed_counts_reconciles_errors_and_durations() {
        let c = Counters::default();
        let _ = c.timed("clusters", async { Ok::<_, ()>(()) }).await;
        let _ = c.timed("clusters", async { Err::<(), _>(()) }).await;
        let s = c.controllers.snapshot()["clusters"].clone();
        assert_eq!((s.reconciles, s.errors, s.in_flight), (2, 1, 0));
        assert_eq!(s.buckets[BUCKETS.len() - 1], 2, "both under 10 s");
        assert_eq!(c.reconciles(), 2);
    }
}
