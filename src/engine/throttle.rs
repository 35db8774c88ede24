//! At most one trigger per key and interval.
//!
//! A rollout looks at every cluster of its template, so a reconcile per
//! cluster status change costs O(N) each while N clusters move at once. Its
//! cluster triggers go through a [`Throttle`]: the first trigger of a key
//! goes through at once, those that follow within the interval are held and
//! come out as one at its end. Nothing is lost: a change held back is looked
//! at no later than one interval after it.
//!
//! The interval may differ per key, and is worked out when the key goes
//! through: a rollout of 10,000 clusters writes a status ten times the size
//! of one of 1,000, so it is looked at a tenth as often.

use std::collections::HashMap;
use std::hash::Hash;
use std::time::Duration;

use futures::{Stream, StreamExt, stream};
use tokio::time::Instant;

/// How long a key is held after it went through.
pub type IntervalOf<K> = Box<dyn Fn(&K) -> Duration + Send>;

/// Which keys went through when, and which wait for the end of their
/// interval. Pure: the caller says what time it is.
pub struct Throttle<K> {
    interval: IntervalOf<K>,
    /// When each key's interval ends, while it has not.
    last: HashMap<K, Instant>,
    /// Keys held back, with when they go through.
    held: HashMap<K, Instant>,
}

impl<K: Hash + Eq + Clone> Throttle<K> {
    pub fn new(interval: Duration) -> Self {
        Self::per_key(Box::new(move |_| interval))
    }

    /// A throttle whose interval for each key is `interval(key)`, asked
    /// each time the key goes through.
    pub fn per_key(interval: IntervalOf<K>) -> Self {
        Self {
            interval,
            last: HashMap::new(),
            held: HashMap::new(),
        }
    }

    fn pass(&mut self, key: K, now: Instant) {
        let until = now + (self.interval)(&key);
        self.last.insert(key, until);
    }

    /// A trigger of `key` at `now`: true when it goes through now; otherwise
    /// it is held, and [`Throttle::due`] gives it once at the end of the
    /// interval however many more arrive meanwhile.
    pub fn offer(&mut self, key: K, now: Instant) -> bool {
        if self.held.contains_key(&key) {
            return false;
        }
        match self.last.get(&key) {
            Some(&until) if now < until => {
                self.held.insert(key, until);
                false
            }
            _ => {
                self.pass(key, now);
                true
            }
        }
    }

    /// When the next held key goes through.
    pub fn next_due(&self) -> Option<Instant> {
        self.held.values().min().copied()
    }

    /// The held keys whose time has come, which now count as gone through
    /// at `now`. Keys that went through more than an interval ago are
    /// forgotten.
    pub fn due(&mut self, now: Instant) -> Vec<K> {
        let ready: Vec<K> = self
            .held
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(k, _)| k.clone())
            .collect();
        self.last.retain(|_, until| now < *until);
        for k in &ready {
            self.held.remove(k);
            self.pass(k.clone(), now);
        }
        ready
    }
}

/// `input` with at most one item per key and interval (see [`Throttle`]).
/// It ends when `input` has ended and nothing is held.
pub fn throttled<T, S>(input: S, throttle: Throttle<T>) -> impl Stream<Item = T> + Send + 'static
where
    T: Hash + Eq + Clone + Send + 'static,
    S: Stream<Item = T> + Send + 'static,
{
    let state = (input.boxed().fuse(), throttle);
    stream::unfold(state, |(mut input, mut throttle)| async move {
        loop {
            let due = throttle.due(Instant::now());
            if !due.is_empty() {
                return Some((stream::iter(due), (input, throttle)));
            }
            let next = throttle.next_due();
            if input.is_done() {
                tokio::time::sleep_until(next?).await;
                continue;
            }
            let wake = tokio::time::sleep_until(next.unwrap_or_else(Instant::now));
            tokio::select! {
                item = input.next() => {
                    if let Some(key) = item
                        && throttle.offer(key.clone(), Instant::now())
                    {
                        return Some((stream::iter(vec![key]), (input, throttle)));
                    }
                }
                _ = wake, if next.is_some() => {}
            }
        }
    })
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    #[test]
    fn the_first_trigger_goes_through_and_the_rest_come_out_once_at_the_end() {
        let t0 = Instant::now();
        let mut th = Throttle::new(SEC);
        assert!(th.offer("a", t0));
        // Another key is not held back by the first.
        assert!(th.offer("b", t0));
        for ms in [10, 200, 900] {
            assert!(!th.offer("a", t0 + Duration::from_millis(ms)));
        }
        assert_eq!(th.next_due(), Some(t0 + SEC));
        assert!(th.due(t0 + Duration::from_millis(999)).is_empty());
        assert_eq!(th.due(t0 + SEC), ["a"]);
        assert_eq!(th.next_due(), None);
        // Having gone through at the end of the interval, it starts one.
        assert!(!th.offer("a", t0 + Duration::from_millis(1_500)));
        assert_eq!(th.next_due(), Some(t0 + 2 * SEC));
    }

    #[test]
    fn a_key_quiet_for_an_interval_goes_through_at_once_and_is_forgotten() {
        let t0 = Instant::now();
        let mut th = Throttle::new(SEC);
        assert!(th.offer("a", t0));
        assert!(th.due(t0 + 2 * SEC).is_empty());
        assert!(th.last.is_empty(), "nothing kept for a quiet key");
        assert!(th.offer("a", t0 + 2 * SEC));
    }

    #[test]
    fn each_key_is_held_for_its_own_interval() {
        let t0 = Instant::now();
        let mut th = Throttle::per_key(Box::new(
            |k: &&str| {
                if *k == "big" { 10 * SEC } else { SEC }
            },
        ));
        assert!(th.offer("big", t0) && th.offer("small", t0));
        assert!(!th.offer("big", t0 + 2 * SEC));
        assert!(th.offer("small", t0 + 2 * SEC));
        assert_eq!(th.next_due(), Some(t0 + 10 * SEC));
        assert_eq!(th.due(t0 + 10 * SEC), ["big"]);
    }

    #[tokio::test]
    async fn a_burst_becomes_one_item_now_and_one_at_the_end_and_nothing_is_lost() {
        let interval = Duration::from_millis(300);
        let t0 = Instant::now();
        // Ten triggers of one key, then one of another.
        let burst = stream::iter((0..11).map(|i| if i < 10 { "a" } else { "b" }));
        let out: Vec<(&str, Duration)> = throttled(burst, Throttle::new(interval))
            .map(|k| (k, Instant::now() - t0))
            .collect()
            .await;
        let keys: Vec<&str> = out.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, ["a", "b", "a"]);
        assert!(out[2].1 >= interval, "the held one waits for the interval");
    }
}
