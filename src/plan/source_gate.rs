//! Which chart repositories the source controller may fetch now, and which
//! the engine holds back (suspended) so that no worker waits on them.
//!
//! The source controller works a few sources at a time (2 by default), and a
//! fetch from a repository that accepts a connection and never answers holds
//! a worker for the whole timeout. One tenant's broken repositories would
//! hold everyone else's charts. So the engine plans, per namespace:
//!
//! - **Quarantine.** A repository that did not answer, refused, or could not
//!   be reached is suspended until its next try: 1 minute after the first
//!   failure, doubling up to 1 hour, spread by jitter. Repositories of one
//!   namespace with the same address share it: one does not answer for all.
//!   A fetch that works forgets the failures.
//! - **A fair share.** At most `share` repositories of a namespace are being
//!   fetched for the first time (or again after a failure) at once; the
//!   rest wait, suspended, for a turn. Repositories that fetched once keep
//!   running and take no turn.
//!
//! Pure: the source gate (`engine::source_gate`) reads the stores, asks this
//! module, and writes what differs.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::flux::words::is_timeout;
use crate::plan::doubling::Doubling;

/// The wait after the first failure.
pub const FIRST: Duration = Duration::from_secs(60);
/// No wait is longer, jitter included.
pub const CAP: Duration = Duration::from_secs(3600);
/// Each wait is spread uniformly over ±this fraction of itself.
pub const JITTER: f64 = 0.2;

/// Why a repository could not be fetched, when it is a reason to hold it
/// back: each of these holds a worker (for the timeout) or would fail again
/// at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Unreachable {
    /// It accepted the connection, or the address, and gave no answer in time.
    NoAnswer,
    /// It refused the connection, or reset it.
    Refused,
    /// Its host has no address, or no route leads there.
    NoRoute,
}

impl Unreachable {
    /// What the repository does, in a person's words: "does not answer".
    pub fn words(self) -> &'static str {
        match self {
            Unreachable::NoAnswer => "does not answer",
            Unreachable::Refused => "refuses connections",
            Unreachable::NoRoute => "cannot be reached",
        }
    }

    /// The reason in a failure message of the source controller, if it is
    /// one of these; any other failure (a missing index, a bad credential)
    /// is the source controller's to retry, and holds no worker long.
    pub fn of(message: &str) -> Option<Unreachable> {
        if is_timeout(message) {
            return Some(Unreachable::NoAnswer);
        }
        let has = |words: &[&str]| words.iter().any(|w| message.contains(w));
        if has(&["connection refused", "connection reset"]) {
            Some(Unreachable::Refused)
        } else if has(&[
            "no such host",
            "no route to host",
            "network is unreachable",
            "server misbehaving",
        ]) {
            Some(Unreachable::NoRoute)
        } else {
            None
        }
    }
}

/// What the engine remembers of a repository's failures, on the repository
/// itself (so that another engine, or this one after a restart, goes on
/// from there).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Quarantine {
    /// Failed fetches in a row.
    pub failures: u32,
    /// Why the last one failed.
    pub reason: Unreachable,
    /// When it was held back.
    pub since: Timestamp,
    /// When it is tried again.
    pub next_try: Timestamp,
}

/// What became of the fetch the engine last let happen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not finished, or not started: it holds (or will hold) a worker.
    Fetching,
    /// The repository answered.
    Ready,
    /// It failed for a reason that holds workers: hold it back.
    Unreachable(Unreachable),
    /// It failed for another reason, fast: the source controller retries.
    Failed,
}

/// One repository source of the engine's, as the gate sees it.
#[derive(Clone, Debug)]
pub struct Source {
    pub namespace: String,
    pub name: String,
    pub url: String,
    pub suspended: bool,
    pub outcome: Outcome,
    pub quarantine: Option<Quarantine>,
    /// Someone asked for a try now (a template's retry annotation, or a
    /// change of it): held back no longer, and first in line.
    pub retry: bool,
}

/// What the gate does with one repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Leave it running (not suspended), with what to remember: `None`
    /// once it answered.
    Run(Option<Quarantine>),
    /// Let it be fetched now: not suspended, with a new request to fetch,
    /// so that what comes back is known to be this try's outcome.
    Admit(Option<Quarantine>),
    /// Hold it back until its next try.
    Quarantined(Quarantine),
    /// Hold it back until a turn of its namespace is free.
    Waiting(Option<Quarantine>),
}

impl Decision {
    /// Whether the repository is to be suspended.
    pub fn suspended(&self) -> bool {
        matches!(self, Decision::Quarantined(_) | Decision::Waiting(_))
    }

    /// What the repository should remember of its failures.
    pub fn quarantine(&self) -> Option<&Quarantine> {
        match self {
            Decision::Run(q) | Decision::Admit(q) | Decision::Waiting(q) => q.as_ref(),
            Decision::Quarantined(q) => Some(q),
        }
    }
}

/// The rule of the waits: from [`FIRST`], doubling, up to [`CAP`], spread
/// by ±[`JITTER`].
const RULE: Doubling = Doubling {
    first: FIRST,
    cap: CAP,
    jitter: JITTER,
};

/// The wait after `failures` failed tries in a row, without jitter:
/// `FIRST · 2^(failures-1)`, at most [`CAP`].
pub fn base_wait(failures: u32) -> Duration {
    RULE.base(failures)
}

/// [`base_wait`] spread by `unit` (in `[0, 1)`) over ±[`JITTER`], at most
/// [`CAP`].
pub fn wait(failures: u32, unit: f64) -> Duration {
    RULE.wait(failures, unit)
}

/// Plans every source: one decision each, in the order given. `unit` draws
/// the jitter of a new quarantine (a number in `[0, 1)`), given the
/// source's index.
pub fn plan(
    sources: &[Source],
    now: Timestamp,
    share: usize,
    mut unit: impl FnMut(usize) -> f64,
) -> Vec<Decision> {
    let after = |d: Duration| {
        now.checked_add(SignedDuration::try_from(d).unwrap_or(SignedDuration::MAX))
            .unwrap_or(Timestamp::MAX)
    };
    // A quarantine read from a repository never lasts longer than the
    // longest wait from when it began, nor began after now: whoever may
    // edit the repository can edit it, and must not hold it back for ever.
    let sources: Vec<Source> = sources
        .iter()
        .map(|s| Source {
            quarantine: s.quarantine.clone().map(|q| {
                let since = q.since.min(now);
                let latest = since
                    .checked_add(SignedDuration::try_from(CAP).unwrap_or(SignedDuration::MAX))
                    .unwrap_or(Timestamp::MAX);
                Quarantine {
                    since,
                    next_try: q.next_try.min(latest),
                    ..q
                }
            }),
            ..s.clone()
        })
        .collect();
    let sources = sources.as_slice();
    let mut decisions: Vec<Option<Decision>> = vec![None; sources.len()];
    // A new failure first, so that the address it failed at holds back the
    // namespace's other repositories of that address in this same plan.
    for (i, s) in sources.iter().enumerate() {
        if let (false, Outcome::Unreachable(reason)) = (s.suspended, &s.outcome) {
            let failures = s.quarantine.as_ref().map_or(0, |q| q.failures) + 1;
            decisions[i] = Some(Decision::Quarantined(Quarantine {
                failures,
                reason: *reason,
                since: now,
                next_try: after(wait(failures, unit(i))),
            }));
        }
    }
    // The latest next try per address: repositories of one address share it.
    let mut held: BTreeMap<(&str, &str), Quarantine> = BTreeMap::new();
    let fresh = decisions
        .iter()
        .map(|d| d.as_ref().and_then(Decision::quarantine));
    for (s, q) in sources.iter().zip(fresh) {
        let q = q.or(s.quarantine.as_ref().filter(|_| s.suspended && !s.retry));
        if let Some(q) = q.filter(|q| q.next_try > now) {
            let e = held.entry((&s.namespace, &s.url)).or_insert(q.clone());
            if q.next_try > e.next_try {
                *e = q.clone();
            }
        }
    }
    let retried: BTreeMap<(&str, &str), bool> = sources
        .iter()
        .filter(|s| s.retry)
        .map(|s| ((s.namespace.as_str(), s.url.as_str()), true))
        .collect();
    // Who runs, who waits for a next try, who for a turn.
    let mut busy: BTreeMap<&str, usize> = BTreeMap::new();
    let mut candidates: Vec<usize> = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        if decisions[i].is_some() {
            continue;
        }
        let address = (s.namespace.as_str(), s.url.as_str());
        let kept = s.quarantine.clone();
        if !s.suspended && s.retry {
            // Asked to fetch again now: a new request, and a turn.
            *busy.entry(&s.namespace).or_default() += 1;
            decisions[i] = Some(Decision::Admit(kept));
        } else if !s.suspended {
            decisions[i] = Some(match s.outcome {
                Outcome::Ready => Decision::Run(None),
                Outcome::Failed => Decision::Run(kept),
                _ => {
                    *busy.entry(&s.namespace).or_default() += 1;
                    Decision::Run(kept)
                }
            });
        } else if let Some(q) = held
            .get(&address)
            .filter(|_| !retried.contains_key(&address))
        {
            let q = Quarantine {
                failures: kept
                    .as_ref()
                    .map_or(q.failures, |k| k.failures.max(q.failures)),
                ..q.clone()
            };
            decisions[i] = Some(Decision::Quarantined(q));
        } else {
            candidates.push(i);
        }
    }
    // Asked-for tries first, then the longest held back, then by name.
    candidates.sort_by_key(|&i| {
        let s = &sources[i];
        let since = s.quarantine.as_ref().map(|q| q.next_try);
        (!s.retry, since, &s.namespace, &s.name)
    });
    for i in candidates {
        let s = &sources[i];
        let taken = busy.entry(&s.namespace).or_default();
        let kept = s.quarantine.clone();
        decisions[i] = Some(if *taken < share || s.retry {
            *taken += 1;
            Decision::Admit(kept)
        } else {
            Decision::Waiting(kept)
        });
    }
    decisions
        .into_iter()
        .map(|d| d.unwrap_or(Decision::Run(None)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + secs).unwrap()
    }

    fn source(ns: &str, name: &str, url: &str, suspended: bool, outcome: Outcome) -> Source {
        Source {
            namespace: ns.into(),
            name: name.into(),
            url: url.into(),
            suspended,
            outcome,
            quarantine: None,
            retry: false,
        }
    }

    fn held(failures: u32, next_try: i64) -> Quarantine {
        Quarantine {
            failures,
            reason: Unreachable::NoAnswer,
            since: at(-60),
            next_try: at(next_try),
        }
    }

    fn middle(_: usize) -> f64 {
        0.5
    }

    #[test]
    fn failure_messages_of_the_source_controller_are_told_apart() {
        let of = |m: &str| Unreachable::of(m);
        assert_eq!(
            of(
                "failed to fetch Helm repository index: Get \"http://127.0.0.1:1/index.yaml\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
            ),
            Some(Unreachable::NoAnswer)
        );
        assert_eq!(
            of("dial tcp 127.0.0.1:1: connect: connection refused"),
            Some(Unreachable::Refused)
        );
        assert_eq!(
            of("dial tcp: lookup charts.invalid: no such host"),
            Some(Unreachable::NoRoute)
        );
        assert_eq!(of("failed to fetch index: 404 Not Found"), None);
        assert_eq!(of("unauthorized"), None);
    }

    #[test]
    fn waits_double_from_a_minute_to_an_hour_with_jitter() {
        assert_eq!(base_wait(1), Duration::from_secs(60));
        assert_eq!(base_wait(2), Duration::from_secs(120));
        assert_eq!(base_wait(7), CAP);
        assert_eq!(base_wait(100), CAP);
        assert_eq!(wait(1, 0.0), Duration::from_secs(48));
        assert_eq!(wait(1, 1.0), Duration::from_secs(72));
        assert_eq!(wait(50, 1.0), CAP, "never past the cap");
        assert_eq!(wait(1, f64::NAN), Duration::from_secs(60));
    }

    #[test]
    fn a_namespace_fetches_one_new_repository_at_a_time_and_others_are_not_held() {
        let sources = [
            source("a", "r1", "http://a1", true, Outcome::Fetching),
            source("a", "r2", "http://a2", true, Outcome::Fetching),
            source("a", "r3", "http://a3", true, Outcome::Fetching),
            source("b", "r1", "http://b1", true, Outcome::Fetching),
        ];
        let d = plan(&sources, at(0), 1, middle);
        assert_eq!(d[0], Decision::Admit(None));
        assert_eq!(d[1], Decision::Waiting(None));
        assert_eq!(d[2], Decision::Waiting(None));
        assert_eq!(d[3], Decision::Admit(None), "b has its own turn");
    }

    #[test]
    fn a_fetch_under_way_keeps_its_turn_and_a_ready_one_takes_none() {
        let sources = [
            source("a", "ready", "http://a0", false, Outcome::Ready),
            source("a", "busy", "http://a1", false, Outcome::Fetching),
            source("a", "next", "http://a2", true, Outcome::Fetching),
            source("a", "broken", "http://a3", false, Outcome::Failed),
        ];
        let d = plan(&sources, at(0), 1, middle);
        assert_eq!(d[0], Decision::Run(None));
        assert_eq!(d[1], Decision::Run(None));
        assert_eq!(d[2], Decision::Waiting(None));
        assert_eq!(
            d[3],
            Decision::Run(None),
            "a fast failure is Flux's to retry"
        );
        let d = plan(&sources, at(0), 2, middle);
        assert_eq!(d[2], Decision::Admit(None), "a share of 2");
    }

    #[test]
    fn a_repository_that_does_not_answer_is_held_back_and_the_next_one_admitted() {
        let mut hanging = source("a", "r1", "http://a1", false, Outcome::Fetching);
        hanging.outcome = Outcome::Unreachable(Unreachable::NoAnswer);
        let sources = [
            hanging,
            source("a", "r2", "http://a2", true, Outcome::Fetching),
        ];
        let d = plan(&sources, at(0), 1, middle);
        assert_eq!(
            d[0],
            Decision::Quarantined(Quarantine {
                failures: 1,
                reason: Unreachable::NoAnswer,
                since: at(0),
                next_try: at(60),
            })
        );
        assert_eq!(d[1], Decision::Admit(None), "its turn is free again");
    }

    #[test]
    fn each_failure_in_a_row_doubles_the_wait_and_an_answer_forgets_them() {
        let mut again = source("a", "r", "http://a", false, Outcome::Fetching);
        again.outcome = Outcome::Unreachable(Unreachable::Refused);
        again.quarantine = Some(held(3, -10));
        let d = plan(std::slice::from_ref(&again), at(0), 1, middle);
        let q = d[0].quarantine().unwrap();
        assert_eq!((q.failures, q.next_try), (4, at(480)));
        assert_eq!(q.reason, Unreachable::Refused);
        again.outcome = Outcome::Ready;
        assert_eq!(
            plan(&[again], at(0), 1, middle)[0],
            Decision::Run(None),
            "forgotten once it answers"
        );
    }

    #[test]
    fn a_held_repository_waits_for_its_next_try_then_for_a_turn() {
        let mut r = source(
            "a",
            "r",
            "http://a",
            true,
            Outcome::Unreachable(Unreachable::NoAnswer),
        );
        r.quarantine = Some(held(2, 100));
        let busy = source("a", "busy", "http://b", false, Outcome::Fetching);
        let d = plan(&[r.clone(), busy.clone()], at(99), 1, middle);
        assert_eq!(d[0], Decision::Quarantined(held(2, 100)));
        let d = plan(&[r.clone(), busy], at(100), 1, middle);
        assert_eq!(
            d[0],
            Decision::Waiting(Some(held(2, 100))),
            "the turn is taken"
        );
        let d = plan(&[r], at(100), 1, middle);
        assert_eq!(
            d[0],
            Decision::Admit(Some(held(2, 100))),
            "admitted, remembering its failures"
        );
    }

    #[test]
    fn repositories_of_one_address_share_the_quarantine_within_a_namespace_only() {
        let mut failed = source("a", "r1", "http://same", false, Outcome::Fetching);
        failed.outcome = Outcome::Unreachable(Unreachable::NoAnswer);
        let sources = [
            failed,
            source("a", "r2", "http://same", true, Outcome::Fetching),
            source("b", "r3", "http://same", true, Outcome::Fetching),
        ];
        let d = plan(&sources, at(0), 1, middle);
        assert!(matches!(d[0], Decision::Quarantined(_)));
        assert_eq!(
            d[1],
            Decision::Quarantined(d[0].quarantine().unwrap().clone())
        );
        assert_eq!(
            d[2],
            Decision::Admit(None),
            "another tenant tries for itself"
        );
    }

    #[test]
    fn a_next_try_written_far_off_waits_no_longer_than_the_longest_wait() {
        let mut r = source("a", "r", "http://a", true, Outcome::Fetching);
        r.quarantine = Some(held(3, 10_000_000_000));
        let d = plan(std::slice::from_ref(&r), at(0), 1, middle);
        assert_eq!(
            d[0].quarantine().unwrap().next_try,
            at(3540),
            "an hour from when it began"
        );
        let d = plan(&[r], at(3540), 1, middle);
        assert_eq!(
            d[0],
            Decision::Admit(Some(Quarantine {
                since: at(-60),
                next_try: at(3540),
                ..held(3, 0)
            })),
            "and then it is tried"
        );
    }

    #[test]
    fn a_retry_ends_the_quarantine_at_once_and_goes_first() {
        let mut r = source("a", "z", "http://a", true, Outcome::Fetching);
        r.quarantine = Some(held(5, 3000));
        r.retry = true;
        let other = source("a", "a", "http://b", true, Outcome::Fetching);
        let d = plan(&[r, other], at(0), 1, middle);
        assert_eq!(d[0], Decision::Admit(Some(held(5, 3000))));
        assert_eq!(d[1], Decision::Waiting(None));
    }

    #[test]
    fn a_retry_of_a_running_repository_asks_for_a_fetch_now() {
        let mut r = source("a", "r", "http://a", false, Outcome::Failed);
        r.retry = true;
        assert_eq!(plan(&[r], at(0), 1, middle)[0], Decision::Admit(None));
    }

    #[test]
    fn a_retry_is_admitted_even_when_its_namespace_is_busy() {
        let mut r = source("a", "r", "http://a", true, Outcome::Fetching);
        r.quarantine = Some(held(1, 30));
        r.retry = true;
        let busy = source("a", "busy", "http://b", false, Outcome::Fetching);
        assert_eq!(
            plan(&[r, busy], at(0), 1, middle)[0],
            Decision::Admit(Some(held(1, 30)))
        );
    }

    proptest::proptest! {
        /// Whatever the sources, a namespace never has more than its share
        /// of new fetches let through, besides the asked-for ones and those
        /// already under way; and nothing runs while held back.
        #[test]
        fn no_namespace_takes_more_than_its_share(
            raw in proptest::collection::vec((0u8..3, 0u8..4, proptest::bool::ANY, 0u8..5, proptest::option::of((1u32..8, -200i64..200))), 0..24),
            share in 1usize..3,
        ) {
            let sources: Vec<Source> = raw.iter().enumerate().map(|(i, (ns, url, suspended, outcome, q))| Source {
                namespace: format!("ns{ns}"),
                name: format!("r{i}"),
                url: format!("http://u{url}"),
                suspended: *suspended,
                outcome: match outcome {
                    0 => Outcome::Fetching,
                    1 => Outcome::Ready,
                    2 => Outcome::Failed,
                    3 => Outcome::Unreachable(Unreachable::NoAnswer),
                    _ => Outcome::Unreachable(Unreachable::Refused),
                },
                quarantine: q.map(|(f, t)| held(f, t)),
                retry: false,
            }).collect();
            let d = plan(&sources, at(0), share, middle);
            proptest::prop_assert_eq!(d.len(), sources.len());
            for ns in 0..3 {
                let ns = format!("ns{ns}");
                let admitted = sources.iter().zip(&d).filter(|(s, d)| s.namespace == ns && matches!(d, Decision::Admit(_))).count();
                let under_way = sources.iter().zip(&d).filter(|(s, d)| s.namespace == ns && matches!(d, Decision::Run(_)) && s.outcome == Outcome::Fetching).count();
                proptest::prop_assert!(admitted == 0 || admitted + under_way <= share);
            }
            for (s, d) in sources.iter().zip(&d) {
                if let Decision::Quarantined(q) = d {
                    proptest::prop_assert!(q.next_try > at(0));
                }
                if !s.suspended && matches!(s.outcome, Outcome::Unreachable(_)) {
                    proptest::prop_assert!(matches!(d, Decision::Quarantined(_)), "a new failure is held back");
                }
            }
            proptest::prop_assert_eq!(plan(&sources, at(0), share, middle), d, "same inputs, same plan");
        }
    }
}
