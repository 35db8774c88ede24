//! When a failed reconcile is tried again: per object, exponential, capped,
//! with jitter, and forgotten once the object reconciles or is gone.
//!
//! Like controller-runtime's per-item rate limiter, scaled to this engine:
//! the first retry after [`FIRST`], each further failure doubles it, up to
//! [`CAP`]; every delay is spread by ±[`JITTER`] so that objects that failed
//! together (an API server restart) do not retry together, and never goes
//! past the cap. A reconcile that succeeds, or finds its object gone, starts
//! the object over at [`FIRST`].

use std::collections::HashMap;
use std::hash::{BuildHasher, RandomState};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::plan::doubling::Doubling;

/// The delay after the first failure.
pub const FIRST: Duration = Duration::from_secs(1);
/// No retry waits longer, jitter included.
pub const CAP: Duration = Duration::from_secs(300);
/// Each delay is spread uniformly over ±this fraction of itself.
pub const JITTER: f64 = 0.2;
/// Objects whose failures are remembered at most; past that, the longest
/// quiet ones are forgotten first.
pub const MAX_TRACKED: usize = 10_000;

/// The rule of the delays: from [`FIRST`], doubling, up to [`CAP`], spread
/// by ±[`JITTER`].
const RULE: Doubling = Doubling {
    first: FIRST,
    cap: CAP,
    jitter: JITTER,
};

/// The delay before retry number `failures` (1 for the first failure),
/// without jitter: `FIRST · 2^(failures-1)`, at most [`CAP`].
pub fn base_delay(failures: u32) -> Duration {
    RULE.base(failures)
}

/// [`base_delay`] spread by `unit` (in `[0, 1)`) over ±[`JITTER`], at most
/// [`CAP`].
pub fn delay(failures: u32, unit: f64) -> Duration {
    RULE.wait(failures, unit)
}

/// Which object of which controller: the same ClusterTemplate fails apart
/// in the template and the rollout controllers.
pub type Key = (&'static str, String, String);

/// The key of `name` in `namespace` for `controller`.
pub fn key(controller: &'static str, namespace: Option<&str>, name: &str) -> Key {
    (
        controller,
        namespace.unwrap_or_default().to_string(),
        name.to_string(),
    )
}

#[derive(Debug)]
struct Failures {
    count: u32,
    last: Instant,
}

/// The failure count of every object that is failing now.
#[derive(Debug, Default)]
pub struct Backoff {
    failing: Mutex<HashMap<Key, Failures>>,
    random: RandomState,
    draws: AtomicU64,
}

impl Backoff {
    /// Counts a failure of `key` and says how long to wait before the retry.
    pub fn failed(&self, key: Key) -> Duration {
        let now = Instant::now();
        let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        if failing.len() >= MAX_TRACKED && !failing.contains_key(&key) {
            // Forget the quietest tenth: they are the least likely to fail
            // again soon, and forgetting only shortens their next delay.
            let mut lasts: Vec<Instant> = failing.values().map(|f| f.last).collect();
            lasts.sort_unstable();
            let cut = lasts[MAX_TRACKED / 10];
            failing.retain(|_, f| f.last > cut);
        }
        let entry = failing.entry(key).or_insert(Failures {
            count: 0,
            last: now,
        });
        entry.count = entry.count.saturating_add(1);
        entry.last = now;
        let count = entry.count;
        drop(failing);
        delay(count, self.unit())
    }

    /// The object reconciled, or is gone: its next failure starts over.
    pub fn forget(&self, key: &Key) {
        let mut failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        failing.remove(key);
    }

    /// How many failures of `key` are remembered.
    pub fn failures(&self, key: &Key) -> u32 {
        let failing = self.failing.lock().unwrap_or_else(|e| e.into_inner());
        failing.get(key).map_or(0, |f| f.count)
    }

    /// How many objects are failing now.
    pub fn len(&self) -> usize {
        self.failing.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A uniform draw in `[0, 1)`, from the process's random hasher keys.
    fn unit(&self) -> f64 {
        let n = self.draws.fetch_add(1, Ordering::Relaxed);
        let bits = self.random.hash_one(n) >> 11;
        bits as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(name: &str) -> Key {
        key("clusters", Some("ns"), name)
    }

    #[test]
    fn the_schedule_doubles_from_one_second_to_five_minutes() {
        let secs: Vec<u64> = (1..=12).map(|n| base_delay(n).as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
        assert_eq!(base_delay(0), FIRST);
        assert_eq!(base_delay(u32::MAX), CAP);
    }

    #[test]
    fn the_schedule_is_monotone_and_capped() {
        let mut previous = Duration::ZERO;
        for n in 1..200 {
            let d = base_delay(n);
            assert!(d >= previous, "{n}: {d:?} < {previous:?}");
            assert!(d <= CAP);
            // The jitter bounds move up with it.
            assert!(delay(n, 0.0) >= delay(n.saturating_sub(1).max(1), 0.0));
            previous = d;
        }
    }

    #[test]
    fn jitter_stays_within_twenty_percent_and_under_the_cap() {
        for n in 1..20 {
            let base = base_delay(n).as_secs_f64();
            for unit in [
                0.0,
                0.25,
                0.5,
                0.999_999,
                1.0,
                -3.0,
                f64::NAN,
                f64::INFINITY,
            ] {
                let d = delay(n, unit).as_secs_f64();
                assert!(d >= base * (1.0 - JITTER) - 1e-9, "{n} {unit}: {d}");
                assert!(d <= base * (1.0 + JITTER) + 1e-9, "{n} {unit}: {d}");
                assert!(d <= CAP.as_secs_f64(), "{n} {unit}: {d}");
            }
        }
        assert_eq!(delay(1, 0.0), Duration::from_millis(800));
        assert_eq!(delay(1, 0.5), Duration::from_secs(1));
        assert_eq!(delay(20, 0.0), Duration::from_secs(240));
        assert_eq!(delay(20, 0.999), CAP);
    }

    #[test]
    fn draws_spread_over_the_whole_jitter_range() {
        let b = Backoff::default();
        let draws: Vec<f64> = (0..2000).map(|_| b.unit()).collect();
        assert!(draws.iter().all(|u| (0.0..1.0).contains(u)));
        let low = draws.iter().filter(|u| **u < 0.1).count();
        let high = draws.iter().filter(|u| **u >= 0.9).count();
        assert!(low > 100 && high > 100, "{low} low, {high} high of 2000");
    }

    #[test]
    fn failures_count_per_object_and_reset_on_forget() {
        let b = Backoff::default();
        let mut last = Duration::ZERO;
        for n in 1..=12u32 {
            let d = b.failed(k("a"));
            let base = base_delay(n).as_secs_f64();
            assert!(
                d.as_secs_f64() >= base * 0.8 - 1e-9 && d <= CAP,
                "{n}: {d:?}"
            );
            last = d;
        }
        assert!(last >= Duration::from_secs(240));
        assert_eq!(b.failures(&k("a")), 12);
        // Another object, or the same name in another controller, starts at 1 s.
        assert!(b.failed(k("b")) <= Duration::from_millis(1200));
        assert!(b.failed(key("rollouts", Some("ns"), "a")) <= Duration::from_millis(1200));
        assert_eq!(b.len(), 3);
        b.forget(&k("a"));
        assert_eq!(b.failures(&k("a")), 0);
        assert!(b.failed(k("a")) <= Duration::from_millis(1200));
    }

    #[test]
    fn the_memory_is_bounded() {
        let b = Backoff::default();
        for i in 0..(MAX_TRACKED + 500) {
            b.failed(k(&format!("c{i}")));
        }
        assert!(b.len() <= MAX_TRACKED, "{}", b.len());
        // The newest failures are kept.
        assert_eq!(b.failures(&k(&format!("c{}", MAX_TRACKED + 499))), 1);
    }
}
