//! What the engine counts: plain atomics and a small map per controller,
//! updated by the reconcilers and read by the tests and `metrics`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Counters the tests and `/metrics` read.
#[derive(Debug, Default)]
pub struct Counters {
    /// Every create, apply, patch and delete the engine sends.
    pub writes: AtomicU64,
    /// Every finished reconcile, all controllers together.
    pub reconciles: AtomicU64,
    pub errors: AtomicU64,
    /// Events dropped because the queue to the API server was full (see
    /// [`super::recorder`]).
    pub events_dropped: AtomicU64,
    /// Per controller: reconciles, errors, durations, in flight.
    pub controllers: ControllerMetrics,
    /// Per controller and trigger source: the keys it handed.
    pub triggers: TriggerCounts,
    /// Notifications sent, given up and dropped (see
    /// [`super::notifications`]).
    pub notifications: super::notifications::Counts,
    /// Every request sent to the API server, when the client counts them
    /// (see [`super::requests::counted_client`]).
    pub requests: Arc<super::requests::ApiRequests>,
}

impl Counters {
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }
    pub fn reconciles(&self) -> u64 {
        self.reconciles.load(Ordering::Relaxed)
    }
}

/// Upper bounds (seconds) of the reconcile duration histogram.
pub const BUCKETS: [f64; 10] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

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

/// Keys each trigger source handed a controller, keyed by (controller,
/// source). A key handed while the same key waits is one reconcile, so the
/// counts say where reconciles come from, not how many there were; the
/// reconciles beyond them are the controller's own looks again.
#[derive(Debug, Default)]
pub struct TriggerCounts(Mutex<BTreeMap<(&'static str, &'static str), u64>>);

impl TriggerCounts {
    pub fn add(&self, controller: &'static str, source: &'static str) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *map.entry((controller, source)).or_default() += 1;
    }

    pub fn snapshot(&self) -> BTreeMap<(&'static str, &'static str), u64> {
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
