//! Waits that double after each failure, up to a cap, spread by jitter: the
//! one rule behind the engine's retries of a failing reconcile
//! (`engine::backoff`) and the next tries of a chart repository that does
//! not answer (`plan::source_gate`), each with its own first wait and cap.

use std::time::Duration;

/// A rule: the first wait, the longest, and the spread of each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Doubling {
    /// The wait after the first failure.
    pub first: Duration,
    /// No wait is longer, jitter included.
    pub cap: Duration,
    /// Each wait is spread uniformly over ±this fraction of itself.
    pub jitter: f64,
}

impl Doubling {
    /// The wait after `failures` failures in a row (1 for the first),
    /// without jitter: `first · 2^(failures-1)`, at most `cap`.
    pub fn base(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(31);
        self.first.saturating_mul(1u32 << doublings).min(self.cap)
    }

    /// [`base`](Self::base) spread by `unit` (in `[0, 1)`; anything else
    /// reads as the middle) over ±`jitter`, at most `cap`.
    pub fn wait(&self, failures: u32, unit: f64) -> Duration {
        let unit = if unit.is_finite() {
            unit.clamp(0.0, 1.0)
        } else {
            0.5
        };
        self.base(failures)
            .mul_f64(1.0 - self.jitter + 2.0 * self.jitter * unit)
            .min(self.cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_up_to_the_cap_and_jitter_never_passes_it() {
        let rule = Doubling {
            first: Duration::from_secs(1),
            cap: Duration::from_secs(10),
            jitter: 0.2,
        };
        assert_eq!(rule.base(0), Duration::from_secs(1));
        assert_eq!(rule.base(3), Duration::from_secs(4));
        assert_eq!(rule.base(u32::MAX), Duration::from_secs(10));
        assert_eq!(rule.wait(1, 0.0), Duration::from_millis(800));
        assert_eq!(rule.wait(1, 1.0), Duration::from_millis(1200));
        assert_eq!(rule.wait(9, 1.0), Duration::from_secs(10));
        assert_eq!(rule.wait(1, f64::NAN), Duration::from_secs(1));
    }
}
