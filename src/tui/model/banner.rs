//! The banner under the header: why the console cannot see the cluster, in
//! plain words, from the watches' health (see [`crate::store::WatchHealth`]).
//!
//! A problem is kept from the first failure until its watch delivers again.
//! A watch that resumes after an outage may stay silent until something
//! changes, so a problem no failure has confirmed for [`QUIET`] is taken
//! as gone, and any watch delivering clears every "cannot reach" problem:
//! reachability is the server's, not one kind's.

use std::collections::BTreeMap;

use k8s_openapi::jiff::Timestamp;

use crate::store::{WatchFailure, WatchHealth};

/// Longer than a failing watch's longest wait between two attempts (the
/// backoff's 30 s, plus a connect timeout of 30 s).
pub const QUIET: i64 = 90;

/// A failing watch, and when it last failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub failure: WatchFailure,
    pub last: Timestamp,
}

/// The failing watches, by resource (`managedclusters`).
pub type Problems = BTreeMap<String, Problem>;

/// Records a watch's health at `now`.
pub fn record(problems: &mut Problems, resource: String, health: WatchHealth, now: Timestamp) {
    match health {
        WatchHealth::Ok => {
            problems.remove(&resource);
            problems.retain(|_, p| !matches!(p.failure, WatchFailure::Unreachable(_)));
        }
        WatchHealth::Failing { failure, .. } => {
            problems.insert(resource, Problem { failure, last: now });
        }
    }
}

/// Forgets problems no failure has confirmed for [`QUIET`].
pub fn expire(problems: &mut Problems, now: Timestamp) {
    problems.retain(|_, p| now.as_second() - p.last.as_second() < QUIET);
}

/// The banner's text, if anything fails. `cluster` is the API server's URL;
/// `namespace` the watched one (`None` for all).
pub fn text(problems: &Problems, cluster: &str, namespace: Option<&str>) -> Option<String> {
    if problems.is_empty() {
        return None;
    }
    if let Some(why) = problems.values().find_map(|p| match &p.failure {
        WatchFailure::Unreachable(why) => Some(why),
        _ => None,
    }) {
        return Some(format!("cannot reach {cluster}: {why} — retrying"));
    }
    let of = |want: fn(&WatchFailure) -> bool| -> Vec<&str> {
        problems
            .iter()
            .filter(|(_, p)| want(&p.failure))
            .map(|(r, _)| r.as_str())
            .collect()
    };
    let mut parts = Vec::new();
    if problems
        .values()
        .any(|p| p.failure == WatchFailure::Unauthorized)
    {
        parts.push("the API server does not accept the console's credentials (401)".to_string());
    }
    let forbidden = of(|f| *f == WatchFailure::Forbidden);
    if !forbidden.is_empty() {
        let place = match namespace {
            Some(ns) => format!("in namespace {ns}"),
            None => "across all namespaces".to_string(),
        };
        parts.push(format!(
            "not allowed to list {} {place} (RBAC)",
            forbidden.join(", ")
        ));
    }
    let missing = of(|f| *f == WatchFailure::NotServed);
    if !missing.is_empty() {
        parts.push(format!(
            "the API server does not serve {} (is the CRD installed?)",
            missing.join(", ")
        ));
    }
    for (resource, problem) in problems {
        if let WatchFailure::Other(why) = &problem.failure {
            parts.push(format!("watching {resource} fails: {why}"));
        }
    }
    Some(format!("{} — retrying", parts.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_second(1_735_689_600 + s).unwrap()
    }

    fn failing(failure: WatchFailure) -> WatchHealth {
        WatchHealth::Failing {
            failure,
            attempts: 1,
        }
    }

    const URL: &str = "https://127.0.0.1:6443";

    #[test]
    fn unreachable_says_where_and_why() {
        let mut p = Problems::new();
        assert_eq!(text(&p, URL, None), None);
        let refused = || failing(WatchFailure::Unreachable("connection refused".into()));
        record(&mut p, "managedclusters".into(), refused(), at(0));
        record(&mut p, "events".into(), refused(), at(0));
        record(
            &mut p,
            "helmreleases".into(),
            failing(WatchFailure::Forbidden),
            at(0),
        );
        assert_eq!(
            text(&p, URL, None).as_deref(),
            Some("cannot reach https://127.0.0.1:6443: connection refused — retrying")
        );
        // One watch delivers: the server is reachable again.
        record(&mut p, "events".into(), WatchHealth::Ok, at(5));
        assert_eq!(
            text(&p, URL, None).as_deref(),
            Some("not allowed to list helmreleases across all namespaces (RBAC) — retrying")
        );
    }

    #[test]
    fn forbidden_kinds_are_named_with_the_namespace() {
        let mut p = Problems::new();
        for r in ["managedclusters", "events"] {
            record(&mut p, r.into(), failing(WatchFailure::Forbidden), at(0));
        }
        assert_eq!(
            text(&p, URL, Some("team-a")).as_deref(),
            Some(
                "not allowed to list events, managedclusters in namespace team-a (RBAC) — retrying"
            )
        );
        record(&mut p, "events".into(), WatchHealth::Ok, at(1));
        record(
            &mut p,
            "charts".into(),
            failing(WatchFailure::Other("etcd is down".into())),
            at(1),
        );
        record(
            &mut p,
            "templaterollouts".into(),
            failing(WatchFailure::NotServed),
            at(1),
        );
        assert_eq!(
            text(&p, URL, Some("team-a")).as_deref(),
            Some(
                "not allowed to list managedclusters in namespace team-a (RBAC); \
                 the API server does not serve templaterollouts (is the CRD installed?); \
                 watching charts fails: etcd is down — retrying"
            )
        );
    }

    #[test]
    fn a_problem_nothing_confirms_expires() {
        let mut p = Problems::new();
        let refused = || failing(WatchFailure::Unreachable("connection refused".into()));
        record(&mut p, "managedclusters".into(), refused(), at(0));
        expire(&mut p, at(QUIET - 1));
        assert_eq!(p.len(), 1);
        // Failing again keeps it.
        record(&mut p, "managedclusters".into(), refused(), at(QUIET - 1));
        expire(&mut p, at(QUIET + 10));
        assert_eq!(p.len(), 1);
        expire(&mut p, at(2 * QUIET));
        assert!(p.is_empty());
    }
}
