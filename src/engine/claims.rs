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

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::runtime::reflector::{ObjectRef, Store};

/// The Lease of the cluster-wide engine.
pub const CLUSTER_LEASE: &str = "hmc-tui-engine";

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
    let Some(spec) = &lease.spec else {
        return false;
    };
    if spec.holder_identity.as_deref().unwrap_or("").is_empty() {
        return false;
    }
    let (Some(renewed), Some(seconds)) = (&spec.renew_time, spec.lease_duration_seconds) else {
        return false;
    };
    let term = SignedDuration::from_secs(i64::from(seconds.max(0)))
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
}

impl Claims {
    /// Starts reading the Leases of `lease_namespace` from `store`.
    pub fn watch(&self, store: Store<Lease>, lease_namespace: &str) {
        let _ = self.lease_namespace.set(lease_namespace.to_string());
        let _ = self.leases.set(store);
    }

    /// The holder of `namespace`'s Lease, if another engine holds it now.
    pub fn holder(&self, namespace: &str) -> Option<String> {
        let store = self.leases.get()?;
        let lease_ns = self.lease_namespace.get()?;
        let name = lease_name(Some(namespace));
        let lease = store.get(&ObjectRef::new(&name).within(lease_ns))?;
        is_held(&lease, Timestamp::now(), Duration::from_secs(2))
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
    fn claims_without_a_store_hold_nothing() {
        assert_eq!(Claims::default().holder("team-a"), None);
    }
}
