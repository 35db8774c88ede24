//! Which engine reconciles which namespace.
//!
//! Every engine competes for the Lease of its scope, in one lease namespace
//! (`HMC_LEASE_NAMESPACE`, default `kube-system`):
//!
//! - a cluster-wide engine for `hmc-tui-engine`;
//! - an engine scoped to namespace `team-a` (`-n team-a`) for
//!   `hmc-tui-engine.team-a`. Namespace names hold no dot, so the two kinds
//!   of names never meet.
//!
//! So one engine per scope reconciles, and engines of different scopes no
//! longer starve each other. The rule that keeps them apart: a namespace
//! whose Lease is held belongs to the engine that holds it; the
//! cluster-wide engine leaves it alone (it watches the Leases) and takes it
//! back once that Lease has expired or been released. A namespace-scoped
//! engine that takes its Lease while a cluster-wide engine leads waits one
//! lease duration before it writes, so that reconciles the cluster-wide
//! engine had in flight there finish first.
//!
//! A claim counts only while it is renewed: for the cluster-wide engine a
//! claim's term is at most [`claim_cap`] (four of its own lease terms,
//! whatever `leaseDurationSeconds` says), and a claim renewed "in the
//! future" (beyond the clock skew margin) does not count at all. So a
//! forged or forgotten claim holds a namespace for one capped term at most.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::runtime::reflector::{ObjectRef, Store};

/// The Lease of the cluster-wide engine.
pub const CLUSTER_LEASE: &str = "hmc-tui-engine";

/// How far apart two engines' clocks may be: a holder's term is counted
/// this much longer by everyone else.
pub const CLOCK_SKEW: Duration = Duration::from_secs(2);

/// How many of the cluster-wide engine's own lease terms a namespace claim
/// may last without being renewed.
const CLAIM_TERMS: u32 = 4;

/// The longest term a namespace claim counts for, for a cluster-wide
/// engine whose own lease lasts `own_duration`: [`CLAIM_TERMS`] of those
/// (60 s with the default 15 s). A namespace-scoped engine renews its claim
/// every fifth of its own term, far within that.
pub fn claim_cap(own_duration: Duration) -> Duration {
    own_duration * CLAIM_TERMS
}

/// Whether the namespace claim `lease` counts at `now`: held (with the
/// clock skew margin), its term cut to `cap`, and renewed no later than
/// `now` and the margin.
pub fn is_claimed(lease: &Lease, now: Timestamp, cap: Duration) -> bool {
    let Some(spec) = &lease.spec else {
        return false;
    };
    let Some(renewed) = &spec.renew_time else {
        return false;
    };
    let skew = SignedDuration::try_from(CLOCK_SKEW).unwrap_or(SignedDuration::ZERO);
    if now.checked_add(skew).is_ok_and(|latest| renewed.0 > latest) {
        // From the future: no clock of a live engine is that far ahead.
        return false;
    }
    let cap_seconds = i32::try_from(cap.as_secs()).unwrap_or(i32::MAX);
    held_within(lease, now, CLOCK_SKEW, cap_seconds)
}

/// The Lease an engine of this scope competes for: `None` is cluster-wide.
pub fn lease_name(namespace: Option<&str>) -> String {
    match namespace {
        None => CLUSTER_LEASE.to_string(),
        Some(ns) => format!("{CLUSTER_LEASE}.{ns}"),
    }
}

/// Whether `lease` has a holder whose term has not run out at `now`.
/// `margin` is added to the term: a holder's clock may run behind ours, and
/// a holder stops writing when its term ends, not before.
pub fn is_held(lease: &Lease, now: Timestamp, margin: Duration) -> bool {
    held_within(lease, now, margin, i32::MAX)
}

/// [`is_held`] with the term cut to `cap_seconds`, whatever the Lease says.
fn held_within(lease: &Lease, now: Timestamp, margin: Duration, cap_seconds: i32) -> bool {
    let Some(spec) = &lease.spec else {
        return false;
    };
    if spec.holder_identity.as_deref().unwrap_or("").is_empty() {
        return false;
    }
    let (Some(renewed), Some(seconds)) = (&spec.renew_time, spec.lease_duration_seconds) else {
        return false;
    };
    let term = SignedDuration::from_secs(i64::from(seconds.clamp(0, cap_seconds)))
        + SignedDuration::try_from(margin).unwrap_or(SignedDuration::ZERO);
    match renewed.0.checked_add(term) {
        Ok(end) => now < end,
        Err(_) => false,
    }
}

/// The namespaces that namespace-scoped engines hold, as the cluster-wide
/// engine sees them. Empty (nothing held) for a namespace-scoped engine,
/// which never looks.
#[derive(Clone, Default)]
pub struct Claims {
    leases: Arc<OnceLock<Store<Lease>>>,
    lease_namespace: Arc<OnceLock<String>>,
    cap: Arc<OnceLock<Duration>>,
}

impl Claims {
    /// Starts reading the Leases of `lease_namespace` from `store`; a
    /// claim counts for `cap` at most (see [`claim_cap`]).
    pub fn watch(&self, store: Store<Lease>, lease_namespace: &str, cap: Duration) {
        let _ = self.cap.set(cap);
        let _ = self.lease_namespace.set(lease_namespace.to_string());
        let _ = self.leases.set(store);
    }

    /// The holder of `namespace`'s Lease, if another engine holds it now.
    pub fn holder(&self, namespace: &str) -> Option<String> {
        let store = self.leases.get()?;
        let lease_ns = self.lease_namespace.get()?;
        let name = lease_name(Some(namespace));
        let lease = store.get(&ObjectRef::new(&name).within(lease_ns))?;
        let cap = self.cap.get().copied().unwrap_or(Duration::ZERO);
        is_claimed(&lease, Timestamp::now(), cap)
            .then(|| lease.spec.as_ref()?.holder_identity.clone())
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::coordination::v1::LeaseSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;

    fn lease(holder: Option<&str>, renewed: Timestamp, seconds: i32) -> Lease {
        Lease {
            spec: Some(LeaseSpec {
                holder_identity: holder.map(String::from),
                renew_time: Some(MicroTime(renewed)),
                lease_duration_seconds: Some(seconds),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn names_of_the_two_scopes_never_meet() {
        assert_eq!(lease_name(None), "hmc-tui-engine");
        assert_eq!(lease_name(Some("team-a")), "hmc-tui-engine.team-a");
        // A namespace is a DNS label: no dot, so no namespace's Lease can be
        // the cluster-wide one or another namespace's.
        assert_ne!(lease_name(Some("engine")), lease_name(None));
    }

    #[test]
    fn a_lease_is_held_until_its_term_and_the_margin_run_out() {
        let t0: Timestamp = "2026-12-03T06:00:00Z".parse().unwrap();
        let l = lease(Some("engine-a"), t0, 15);
        let at = |s: i64| t0.checked_add(SignedDuration::from_secs(s)).unwrap();
        let margin = Duration::from_secs(2);
        assert!(is_held(&l, at(0), margin));
        assert!(is_held(&l, at(16), margin), "within the margin");
        assert!(!is_held(&l, at(17), margin), "term and margin over");
    }

    #[test]
    fn a_released_or_empty_lease_is_not_held() {
        let now = Timestamp::now();
        assert!(!is_held(&lease(None, now, 15), now, Duration::ZERO));
        assert!(!is_held(&lease(Some(""), now, 15), now, Duration::ZERO));
        assert!(!is_held(&Lease::default(), now, Duration::ZERO));
    }

    #[test]
    fn a_claim_counts_for_the_capped_term_only() {
        let t0: Timestamp = "2026-12-03T06:00:00Z".parse().unwrap();
        let at = |s: i64| t0.checked_add(SignedDuration::from_secs(s)).unwrap();
        let cap = claim_cap(Duration::from_secs(15));
        assert_eq!(cap, Duration::from_secs(60));
        let forged = lease(Some("forger"), t0, i32::MAX);
        assert!(
            is_held(&forged, at(86_400 * 365), CLOCK_SKEW),
            "uncapped: decades"
        );
        assert!(is_claimed(&forged, at(0), cap));
        assert!(
            is_claimed(&forged, at(61), cap),
            "within the cap and the margin"
        );
        assert!(
            !is_claimed(&forged, at(62), cap),
            "the cap and the margin over"
        );
        // A short claim keeps its own term.
        let short = lease(Some("engine-a"), t0, 15);
        assert!(is_claimed(&short, at(16), cap));
        assert!(!is_claimed(&short, at(17), cap));
    }

    #[test]
    fn a_claim_renewed_in_the_future_does_not_count() {
        let t0: Timestamp = "2026-12-03T06:00:00Z".parse().unwrap();
        let before = |s: i64| t0.checked_sub(SignedDuration::from_secs(s)).unwrap();
        let cap = claim_cap(Duration::from_secs(15));
        let ahead = lease(Some("forger"), t0, 15);
        assert!(
            is_claimed(&ahead, before(2), cap),
            "a clock within the margin"
        );
        assert!(!is_claimed(&ahead, before(3), cap));
        let far = lease(
            Some("forger"),
            "9999-01-01T00:00:00Z".parse().unwrap(),
            i32::MAX,
        );
        assert!(!is_claimed(&far, t0, cap));
    }

    #[test]
    fn claims_without_a_store_hold_nothing() {
        assert_eq!(Claims::default().holder("team-a"), None);
    }
}
