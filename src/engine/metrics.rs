//! What the engine counts, and `/healthz`, `/readyz` and `/metrics` for a
//! headless engine in a pod.
//!
//! Counters are plain atomics and a small map per controller, updated by the
//! reconcilers; gauges (clusters, services, rollouts by state) are read from
//! the stores at scrape time, so they cost nothing between scrapes.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::time::Duration;

use std::fmt::Write as _;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    DescriptorEncoder, EncodeLabelValue, LabelValueEncoder, NoLabelSet,
};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::counters::{BUCKETS, ControllerStats, Counters};
use super::role::Role;
use crate::api::conditions::READY;
use crate::store::Stores;

/// The content type of `/metrics`.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The OpenMetrics text exposition of everything the engine knows, encoded
/// by `prometheus-client` from a snapshot taken now.
pub fn render(counters: &Counters, stores: &Stores, role: Role) -> String {
    encode(Snapshot::take(counters, stores, role))
}

/// The value of the unlabelled metric `name` in an exposition, or the sum
/// over its samples when it is labelled (what the end-to-end tests read).
pub fn metric(text: &str, name: &str) -> Option<f64> {
    let values: Vec<f64> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter(|l| l.starts_with(&format!("{name} ")) || l.starts_with(&format!("{name}{{")))
        .filter_map(|l| l.rsplit_once(' ')?.1.parse().ok())
        .collect();
    (!values.is_empty()).then(|| values.iter().sum())
}

/// Every metric the engine serves, with one sample per family so that the
/// label names show: the exposition the book's metrics page is made from.
pub fn catalogue() -> String {
    let one = || BTreeMap::from([("…".to_string(), 0)]);
    encode(Snapshot {
        requests: BTreeMap::from([(("…", "…".to_string()), 0)]),
        controllers: BTreeMap::from([("…", ControllerStats::default())]),
        triggers: BTreeMap::from([(("…", "…"), 0)]),
        clusters: one(),
        services: one(),
        rollouts: one(),
        held_repositories: one(),
        ..Default::default()
    })
}

fn encode(snapshot: Snapshot) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(snapshot));
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = prometheus_client::encoding::text::encode(&mut text, &registry);
    text
}

/// What one scrape reports: the counters and the gauges of the stores.
#[derive(Debug, Default)]
struct Snapshot {
    leader: bool,
    synced: bool,
    writes: u64,
    events_dropped: u64,
    /// Notifications a receiver took, gave up on, and dropped unsent.
    notifications_sent: u64,
    notifications_failed: u64,
    notifications_dropped: u64,
    requests: BTreeMap<(&'static str, String), u64>,
    controllers: BTreeMap<&'static str, ControllerStats>,
    triggers: BTreeMap<(&'static str, &'static str), u64>,
    /// ManagedClusters by their Ready condition.
    clusters: BTreeMap<String, u64>,
    /// Services by state.
    services: BTreeMap<String, u64>,
    /// TemplateRollouts by phase.
    rollouts: BTreeMap<String, u64>,
    /// The engine's chart repositories held back (suspended), by reason.
    held_repositories: BTreeMap<String, u64>,
}

impl Snapshot {
    fn take(counters: &Counters, stores: &Stores, role: Role) -> Self {
        let mut snap = Snapshot {
            leader: role == Role::Leader,
            synced: stores.is_ready(),
            writes: counters.writes(),
            events_dropped: counters
                .events_dropped
                .load(std::sync::atomic::Ordering::Relaxed),
            notifications_sent: counters.notifications.sent.load(Ordering::Relaxed),
            notifications_failed: counters.notifications.failed.load(Ordering::Relaxed),
            notifications_dropped: counters.notifications.dropped.load(Ordering::Relaxed),
            requests: counters.requests.snapshot(),
            controllers: counters.controllers.snapshot(),
            triggers: counters.triggers.snapshot(),
            ..Default::default()
        };
        for mc in stores.managed_clusters.state() {
            let st = mc.status.clone().unwrap_or_default();
            let ready = st
                .conditions
                .iter()
                .find(|c| c.type_ == READY)
                .map_or("Unknown".to_string(), |c| c.status.clone());
            *snap.clusters.entry(ready).or_default() += 1;
            for s in &st.services {
                *snap.services.entry(s.state.to_string()).or_default() += 1;
            }
        }
        for r in stores.rollouts.state() {
            let phase = r.status.as_ref().map(|s| s.phase).unwrap_or_default();
            *snap.rollouts.entry(phase.to_string()).or_default() += 1;
        }
        let now = k8s_openapi::jiff::Timestamp::now();
        // Both reasons are always there, 0 or not, for alerts to compare.
        for reason in ["quarantined", "waiting"] {
            snap.held_repositories.insert(reason.to_string(), 0);
        }
        for r in stores.repositories.state() {
            let reason = match super::held_sources::held(&r, now) {
                Some(super::held_sources::Held::Quarantined(_)) => "quarantined",
                Some(super::held_sources::Held::Waiting) => "waiting",
                None => continue,
            };
            *snap
                .held_repositories
                .entry(reason.to_string())
                .or_default() += 1;
        }
        snap
    }
}

/// A label value with `\`, `"` and line feeds escaped as the text formats
/// require: `prometheus-client` writes label values as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Escaped<'a>(pub &'a str);

impl EncodeLabelValue for Escaped<'_> {
    fn encode(&self, encoder: &mut LabelValueEncoder) -> Result<(), std::fmt::Error> {
        let mut rest = self.0;
        while let Some(at) = rest.find(['\\', '"', '\n']) {
            encoder.write_str(&rest[..at])?;
            encoder.write_str(match rest.as_bytes()[at] {
                b'\\' => "\\\\",
                b'"' => "\\\"",
                _ => "\\n",
            })?;
            rest = &rest[at + 1..];
        }
        encoder.write_str(rest)
    }
}

/// One label, escaped.
type Label<'a> = (&'static str, Escaped<'a>);

fn gauge(e: &mut DescriptorEncoder, name: &str, help: &str, value: i64) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Gauge)?
        .encode_gauge(&value)
}

/// A counter; `name` without the `_total` that the encoder adds.
fn counter(e: &mut DescriptorEncoder, name: &str, help: &str, value: u64) -> std::fmt::Result {
    e.encode_descriptor(name, help, None, MetricType::Counter)?
        .encode_counter::<NoLabelSet, _, u64>(&value, None)
}

/// One sample per label set, of a counter or a gauge.
fn family<'a, const N: usize>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    kind: MetricType,
    samples: impl IntoIterator<Item = ([Label<'a>; N], i64)>,
) -> std::fmt::Result {
    let mut metric = e.encode_descriptor(name, help, None, kind)?;
    for (labels, value) in samples {
        let mut sample = metric.encode_family(&labels)?;
        match kind {
            MetricType::Counter => {
                sample.encode_counter::<NoLabelSet, _, u64>(&value.unsigned_abs(), None)?
            }
            _ => sample.encode_gauge(&value)?,
        }
    }
    Ok(())
}

fn count(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// One sample per entry of `map`, labelled `key`.
fn by<'m>(
    map: &'m BTreeMap<String, u64>,
    key: &'static str,
) -> impl Iterator<Item = ([Label<'m>; 1], i64)> + 'm {
    map.iter()
        .map(move |(v, n)| ([(key, Escaped(v))], count(*n)))
}

impl Collector for Snapshot {
    fn encode(&self, mut e: DescriptorEncoder) -> std::fmt::Result {
        gauge(
            &mut e,
            "hmc_engine_leader",
            "1 while this process holds the engine lease and reconciles.",
            i64::from(self.leader),
        )?;
        gauge(
            &mut e,
            "hmc_engine_stores_synced",
            "1 once every store holds its first full list.",
            i64::from(self.synced),
        )?;
        counter(
            &mut e,
            "hmc_engine_writes",
            "Create, apply, patch and delete requests sent.",
            self.writes,
        )?;
        counter(
            &mut e,
            "hmc_events_dropped",
            "Events not recorded because too many were waiting to be written.",
            self.events_dropped,
        )?;
        counter(
            &mut e,
            "hmc_notifications_sent",
            "Notifications a webhook took (a 2xx answer), one per receiver.",
            self.notifications_sent,
        )?;
        counter(
            &mut e,
            "hmc_notifications_failed",
            "Notifications given up for a receiver after their retries, or refused by it.",
            self.notifications_failed,
        )?;
        counter(
            &mut e,
            "hmc_notifications_dropped",
            "Notifications not sent because too many were waiting (for all receivers, or for one).",
            self.notifications_dropped,
        )?;
        family(
            &mut e,
            "hmc_api_requests",
            "Requests sent to the API server, by verb and resource: reads, writes, watches and lease renewals.",
            MetricType::Counter,
            self.requests.iter().map(|((verb, resource), n)| {
                (
                    [("verb", Escaped(verb)), ("resource", Escaped(resource))],
                    count(*n),
                )
            }),
        )?;
        let per_controller = |pick: fn(&ControllerStats) -> i64| {
            self.controllers
                .iter()
                .map(move |(c, s)| ([("controller", Escaped(c))], pick(s)))
        };
        family(
            &mut e,
            "hmc_reconcile",
            "Finished reconciles per controller.",
            MetricType::Counter,
            per_controller(|s| count(s.reconciles)),
        )?;
        family(
            &mut e,
            "hmc_reconcile_triggers",
            "Keys handed to a controller per trigger source; keys handed while the same key waited were one reconcile.",
            MetricType::Counter,
            self.triggers.iter().map(|((c, source), n)| {
                (
                    [("controller", Escaped(c)), ("source", Escaped(source))],
                    count(*n),
                )
            }),
        )?;
        family(
            &mut e,
            "hmc_reconcile_errors",
            "Reconciles that ended in an error, per controller.",
            MetricType::Counter,
            per_controller(|s| count(s.errors)),
        )?;
        family(
            &mut e,
            "hmc_reconcile_in_flight",
            "Reconciles running now, per controller (the busy part of its queue).",
            MetricType::Gauge,
            per_controller(|s| s.in_flight),
        )?;
        let mut histogram = e.encode_descriptor(
            "hmc_reconcile_duration",
            "Time per reconcile, per controller.",
            Some(&Unit::Seconds),
            MetricType::Histogram,
        )?;
        for (c, s) in &self.controllers {
            // The encoder takes the count of each bucket alone and adds
            // them up; the +Inf bucket is the one at f64::MAX.
            let mut below = 0;
            let mut buckets: Vec<(f64, u64)> = BUCKETS
                .iter()
                .zip(s.buckets)
                .map(|(bound, cumulative)| {
                    let alone = cumulative.saturating_sub(below);
                    below = cumulative.max(below);
                    (*bound, alone)
                })
                .collect();
            buckets.push((f64::MAX, s.reconciles.saturating_sub(below)));
            histogram
                .encode_family(&[("controller", Escaped(c))])?
                .encode_histogram::<NoLabelSet>(s.seconds_sum, s.reconciles, &buckets, None)?;
        }
        family(
            &mut e,
            "hmc_managed_clusters",
            "ManagedClusters by their Ready condition.",
            MetricType::Gauge,
            by(&self.clusters, "ready"),
        )?;
        family(
            &mut e,
            "hmc_services",
            "Services of all clusters by state.",
            MetricType::Gauge,
            by(&self.services, "state"),
        )?;
        family(
            &mut e,
            "hmc_rollouts",
            "TemplateRollouts by phase.",
            MetricType::Gauge,
            by(&self.rollouts, "phase"),
        )?;
        family(
            &mut e,
            "hmc_chart_repositories_held",
            "The engine's chart repository sources held back (suspended), by reason: quarantined (did not answer; waits for its next try) or waiting (for a turn of its namespace).",
            MetricType::Gauge,
            by(&self.held_repositories, "reason"),
        )
    }
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
    let respond = move |path: &str| answer(path, &counters, &stores, *role.borrow());
    serve_on(listener, Limits::default(), respond, shutdown).await
}

/// How long a client has to send a request's headers: one that connects and
/// sends nothing, or half a header, is closed after this.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// How many connections are served at once. A scraper, a probe or two and
/// a person with curl need a handful; the rest wait in the listen queue
/// until one ends, so that no number of clients can make the engine hold
/// more tasks and buffers than this.
pub const MAX_CONNECTIONS: usize = 16;

/// How long a connection is kept, whatever it does: a client that keeps
/// one open and idle between requests (or trickles a body) gives its slot
/// back after this, and opens another for its next scrape. Far longer than
/// an answer takes.
pub const CONNECTION_DEADLINE: Duration = Duration::from_secs(30);

/// The bounds of the metrics server.
#[derive(Clone, Copy, Debug)]
struct Limits {
    header_timeout: Duration,
    max_connections: usize,
    connection_deadline: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_timeout: HEADER_READ_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
            connection_deadline: CONNECTION_DEADLINE,
        }
    }
}

/// [`serve`] on a bound listener, within `limits`. `answer` gives the
/// response to a request's path.
async fn serve_on<A>(
    listener: tokio::net::TcpListener,
    limits: Limits,
    answer: A,
    shutdown: CancellationToken,
) -> std::io::Result<()>
where
    A: Fn(&str) -> Response<Full<Bytes>> + Clone + Send + Sync + 'static,
{
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(limits.max_connections));
    loop {
        // A slot first: while every slot is taken, nothing is accepted.
        let slot = tokio::select! {
            _ = shutdown.cancelled() => return Ok(()),
            slot = slots.clone().acquire_owned() => match slot {
                Ok(slot) => slot,
                // Never closed: it lives as long as this loop.
                Err(_) => return Ok(()),
            },
        };
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
        let (answer, http) = (answer.clone(), http.clone());
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                let response = answer(req.uri().path());
                async move { Ok::<_, Infallible>(response) }
            });
            let connection = http.serve_connection(TokioIo::new(stream), service);
            match tokio::time::timeout(limits.connection_deadline, connection).await {
                Ok(Err(error)) => tracing::debug!(%error, "metrics connection ended"),
                Ok(Ok(())) => {}
                Err(_) => tracing::debug!("metrics connection closed at its deadline"),
            }
            drop(slot);
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
        "/metrics" => {
            return Response::builder()
                .status(StatusCode::OK)
                .header("content-type", OPENMETRICS)
                .body(Full::new(Bytes::from(render(counters, stores, role))))
                .unwrap_or_default();
        }
        _ => (StatusCode::NOT_FOUND, "not found\n".to_string()),
    };
    Response::builder()
        .status(status)
        .header("content-type", "text/plain; charset=utf-8")
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

    fn stats(reconciles: u64, errors: u64, in_flight: i64, secs: &[f64]) -> ControllerStats {
        let mut s = ControllerStats {
            reconciles,
            errors,
            in_flight,
            seconds_sum: secs.iter().sum(),
            ..Default::default()
        };
        for secs in secs {
            for (bucket, bound) in s.buckets.iter_mut().zip(BUCKETS) {
                *bucket += u64::from(*secs <= bound);
            }
        }
        s
    }

    fn sample() -> Snapshot {
        Snapshot {
            leader: true,
            synced: true,
            writes: 42,
            events_dropped: 3,
            notifications_sent: 5,
            notifications_failed: 1,
            notifications_dropped: 2,
            requests: BTreeMap::from([
                (("get", "managedclusters".to_string()), 5),
                (("patch", "helmreleases".to_string()), 3),
            ]),
            controllers: BTreeMap::from([
                ("managedclusters", stats(3, 1, 2, &[0.001, 0.2, 30.0])),
                ("rollouts", stats(1, 0, 0, &[0.02])),
            ]),
            triggers: BTreeMap::from([
                (("managedclusters", "releases"), 6),
                (("managedclusters", "self"), 2),
            ]),
            clusters: BTreeMap::from([("True".to_string(), 4), ("False".to_string(), 1)]),
            services: BTreeMap::from([("Installed".to_string(), 7)]),
            rollouts: BTreeMap::from([("Succeeded".to_string(), 2)]),
            held_repositories: BTreeMap::from([
                ("quarantined".to_string(), 20),
                ("waiting".to_string(), 0),
            ]),
        }
    }

    #[test]
    fn every_metric_keeps_its_name_labels_and_value() {
        let text = encode(sample());
        let want = [
            ("hmc_engine_leader", 1.0),
            ("hmc_engine_stores_synced", 1.0),
            ("hmc_engine_writes_total", 42.0),
            ("hmc_events_dropped_total", 3.0),
            ("hmc_notifications_sent_total", 5.0),
            ("hmc_notifications_failed_total", 1.0),
            ("hmc_notifications_dropped_total", 2.0),
            ("hmc_api_requests_total", 8.0),
            ("hmc_reconcile_total", 4.0),
            ("hmc_reconcile_errors_total", 1.0),
            ("hmc_reconcile_triggers_total", 8.0),
            ("hmc_reconcile_in_flight", 2.0),
            ("hmc_reconcile_duration_seconds_count", 4.0),
            ("hmc_managed_clusters", 5.0),
            ("hmc_services", 7.0),
            ("hmc_rollouts", 2.0),
            ("hmc_chart_repositories_held", 20.0),
        ];
        for (name, value) in want {
            assert_eq!(metric(&text, name), Some(value), "{name} in\n{text}");
        }
        let sum = metric(&text, "hmc_reconcile_duration_seconds_sum").unwrap();
        assert!((sum - 30.221).abs() < 1e-9, "{sum}");
        for line in [
            "hmc_engine_writes_total 42",
            r#"hmc_api_requests_total{verb="get",resource="managedclusters"} 5"#,
            r#"hmc_reconcile_total{controller="managedclusters"} 3"#,
            r#"hmc_reconcile_errors_total{controller="rollouts"} 0"#,
            r#"hmc_reconcile_triggers_total{controller="managedclusters",source="releases"} 6"#,
            r#"hmc_reconcile_in_flight{controller="managedclusters"} 2"#,
            r#"hmc_managed_clusters{ready="False"} 1"#,
            r#"hmc_services{state="Installed"} 7"#,
            r#"hmc_rollouts{phase="Succeeded"} 2"#,
            r#"hmc_chart_repositories_held{reason="quarantined"} 20"#,
            r#"hmc_chart_repositories_held{reason="waiting"} 0"#,
            "# TYPE hmc_reconcile_duration_seconds histogram",
            "# EOF",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "{line} missing from\n{text}"
            );
        }
    }

    #[test]
    fn histogram_buckets_are_cumulative_up_to_inf() {
        let text = encode(sample());
        let bucket = |le: &str| -> u64 {
            let line = text
                .lines()
                .find(|l| {
                    l.starts_with("hmc_reconcile_duration_seconds_bucket{")
                        && l.contains(&format!("le=\"{le}\""))
                        && l.contains(r#"controller="managedclusters""#)
                })
                .unwrap_or_else(|| panic!("no bucket {le} in\n{text}"));
            line.rsplit_once(' ').unwrap().1.parse().unwrap()
        };
        // 0.001 s, 0.2 s and 30 s: one under 5 ms, two under 250 ms, three in all.
        assert_eq!(bucket("0.005"), 1);
        assert_eq!(bucket("0.1"), 1);
        assert_eq!(bucket("0.25"), 2);
        assert_eq!(bucket("10.0"), 2);
        assert_eq!(bucket("+Inf"), 3);
    }

    #[test]
    fn label_values_are_escaped() {
        let hostile = "a\"b\\c\nhmc_engine_leader 7";
        let mut snap = sample();
        snap.requests.insert(("get", hostile.to_string()), 9);
        snap.services.insert(hostile.to_string(), 1);
        let text = encode(snap);
        assert!(
            text.lines().any(|l| l
                == r#"hmc_api_requests_total{verb="get",resource="a\"b\\c\nhmc_engine_leader 7"} 9"#),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l == r#"hmc_services{state="a\"b\\c\nhmc_engine_leader 7"} 1"#),
            "{text}"
        );
        // The line feed did not start a sample of its own.
        assert_eq!(metric(&text, "hmc_engine_leader"), Some(1.0), "{text}");
        // Every sample line is `name{labels} value`, with balanced quotes.
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let unescaped = line.replace("\\\\", "").replace("\\\"", "");
            assert_eq!(unescaped.matches('"').count() % 2, 0, "{line}");
            assert!(
                line.rsplit_once(' ').unwrap().1.parse::<f64>().is_ok(),
                "{line}"
            );
        }
    }

    #[test]
    fn escaping_leaves_plain_text_alone() {
        let text = encode(sample());
        assert!(!text.contains('\\'), "{text}");
    }

    /// A server on a free loopback port with the given header timeout.
    async fn server(timeout: Duration) -> (SocketAddr, CancellationToken) {
        server_within(Limits {
            header_timeout: timeout,
            ..Limits::default()
        })
        .await
    }

    /// A server on a free loopback port within `limits`.
    async fn server_within(limits: Limits) -> (SocketAddr, CancellationToken) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = CancellationToken::new();
        let respond = |path: &str| Response::new(Full::new(Bytes::from(format!("{path}\n"))));
        tokio::spawn(serve_on(listener, limits, respond, stop.clone()));
        (addr, stop)
    }

    /// A connection that asked for `path` and read the whole answer, and
    /// stays open (keep-alive).
    async fn answered(addr: SocketAddr, path: &str) -> tokio::net::TcpStream {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let answer = tokio::time::timeout(Duration::from_secs(10), ask(&mut stream, path))
            .await
            .expect("an answer within 10 s");
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        assert!(answer.ends_with(&format!("{path}\n")), "{answer}");
        stream
    }

    /// Sends one keep-alive request for `path` and reads its whole answer.
    async fn ask(stream: &mut tokio::net::TcpStream, path: &str) -> String {
        use tokio::io::AsyncWriteExt;
        stream
            .write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        answer_to(stream, path).await
    }

    /// Reads the whole answer to a request for `path`.
    async fn answer_to(stream: &mut tokio::net::TcpStream, path: &str) -> String {
        use tokio::io::AsyncReadExt;
        let want = format!("{path}\n");
        let mut buf = Vec::new();
        let mut chunk = [0u8; 1024];
        while !String::from_utf8_lossy(&buf).ends_with(&want) {
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(
                n > 0,
                "closed before the answer: {}",
                String::from_utf8_lossy(&buf)
            );
            buf.extend_from_slice(&chunk[..n]);
        }
        String::from_utf8_lossy(&buf).into_owned()
    }

    #[tokio::test]
    async fn connections_beyond_the_bound_wait_for_a_slot() {
        let (addr, stop) = server_within(Limits {
            header_timeout: Duration::from_secs(30),
            max_connections: 2,
            connection_deadline: Duration::from_secs(30),
        })
        .await;
        // Two connections answered, and kept open: both slots are taken.
        let first = answered(addr, "/one").await;
        let _second = answered(addr, "/two").await;
        // A third is connected (the listen queue takes it) but not served
        // while they stay.
        let mut third = tokio::net::TcpStream::connect(addr).await.unwrap();
        let waiting = tokio::time::timeout(Duration::from_millis(500), ask(&mut third, "/three"));
        assert!(
            waiting.await.is_err(),
            "a third connection was served while two held the slots"
        );
        // One of the two ends: the third is served in its slot.
        drop(first);
        let answer = tokio::time::timeout(Duration::from_secs(10), answer_to(&mut third, "/three"))
            .await
            .expect("the third connection served once a slot was free");
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
        stop.cancel();
    }

    #[tokio::test]
    async fn an_idle_connection_gives_its_slot_back_at_the_deadline() {
        let (addr, stop) = server_within(Limits {
            header_timeout: Duration::from_secs(30),
            max_connections: 1,
            connection_deadline: Duration::from_millis(400),
        })
        .await;
        // Answered once, then idle with its connection open.
        let mut idle = answered(addr, "/one").await;
        let (sent, took) = until_closed(&mut idle).await;
        assert!(sent.is_empty(), "{sent}");
        assert!(took < Duration::from_secs(5), "{took:?}");
        // Its slot is free again: another connection is served.
        let _next = answered(addr, "/two").await;
        stop.cancel();
    }

    /// Reads until the server closes the connection; what it sent and how
    /// long that took.
    async fn until_closed(stream: &mut tokio::net::TcpStream) -> (String, Duration) {
        use tokio::io::AsyncReadExt;
        let start = std::time::Instant::now();
        let mut buf = Vec::new();
        let read =
            tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut buf)).await;
        assert!(read.is_ok(), "the server kept the connection open for 10 s");
        (String::from_utf8_lossy(&buf).into_owned(), start.elapsed())
    }

    #[tokio::test]
    async fn a_silent_client_is_cut_off_at_the_header_timeout() {
        let (addr, stop) = server(Duration::from_millis(300)).await;
        let mut silent = tokio::net::TcpStream::connect(addr).await.unwrap();
        let (sent, took) = until_closed(&mut silent).await;
        assert!(took >= Duration::from_millis(250), "{took:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
        assert!(!sent.contains("200 OK"), "{sent}");
        stop.cancel();
    }

    #[tokio::test]
    async fn half_a_header_is_cut_off_at_the_header_timeout() {
        use tokio::io::AsyncWriteExt;
        let (addr, stop) = server(Duration::from_millis(300)).await;
        let mut slow = tokio::net::TcpStream::connect(addr).await.unwrap();
        slow.write_all(b"GET /metrics HTTP/1.1\r\nHost: loc")
            .await
            .unwrap();
        let (sent, took) = until_closed(&mut slow).await;
        assert!(took >= Duration::from_millis(250), "{took:?}");
        assert!(took < Duration::from_secs(3), "{took:?}");
        assert!(!sent.contains("200 OK"), "{sent}");
        // A whole request on another connection is still answered.
        let mut whole = tokio::net::TcpStream::connect(addr).await.unwrap();
        whole
            .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let (sent, _) = until_closed(&mut whole).await;
        assert!(sent.starts_with("HTTP/1.1 200 OK"), "{sent}");
        assert!(sent.ends_with("/metrics\n"), "{sent}");
        stop.cancel();
    }
}
