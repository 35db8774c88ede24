//! What the source gate (`source_gate`) writes on a chart repository, read
//! back: whether it is held back, why and until when; and the requests to
//! try one again now.

use std::collections::BTreeSet;
use std::sync::Mutex;

use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use tokio::sync::Notify;

use crate::flux::HelmRepository;
use crate::plan::source_gate::Quarantine;

/// The annotation on a repository that remembers its failures, as JSON
/// ([`Quarantine`]).
pub const QUARANTINE: &str = "hmc.mirantis.com/quarantine";

/// Repositories someone asked to try again now, by namespace and name.
#[derive(Debug, Default)]
pub struct Retries {
    asked: Mutex<BTreeSet<(String, String)>>,
    wake: Notify,
}

impl Retries {
    /// Asks for a try of repository `namespace/name` now.
    pub fn ask(&self, namespace: &str, name: &str) {
        self.asked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert((namespace.to_string(), name.to_string()));
        self.wake.notify_one();
    }

    /// Waits until someone asks.
    pub async fn asked(&self) {
        self.wake.notified().await
    }

    /// The requests made since the last take.
    pub fn take(&self) -> BTreeSet<(String, String)> {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// What a repository remembers of its failures, if anything readable.
pub fn quarantine_of(repo: &HelmRepository) -> Option<Quarantine> {
    serde_json::from_str(repo.annotations().get(QUARANTINE)?).ok()
}

/// Why the gate holds `repo` back now, if it does.
pub enum Held {
    /// Until its next try.
    Quarantined(Quarantine),
    /// Until a turn of its namespace is free.
    Waiting,
}

/// Whether `repo` is held back at `now`, and why.
pub fn held(repo: &HelmRepository, now: Timestamp) -> Option<Held> {
    if repo.spec.suspend != Some(true) {
        return None;
    }
    Some(match quarantine_of(repo).filter(|q| q.next_try > now) {
        Some(q) => Held::Quarantined(q),
        None => Held::Waiting,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flux::HelmRepositorySpec;
    use crate::plan::source_gate::Unreachable;

    #[test]
    fn a_repository_is_held_while_suspended_and_quarantined_until_its_next_try() {
        let now = Timestamp::from_second(1_800_000_000).unwrap();
        let q = Quarantine {
            failures: 2,
            reason: Unreachable::Refused,
            since: now,
            next_try: Timestamp::from_second(1_800_000_100).unwrap(),
        };
        let mut r = HelmRepository::new("r", HelmRepositorySpec::default());
        r.annotations_mut()
            .insert(QUARANTINE.into(), serde_json::to_string(&q).unwrap());
        assert!(held(&r, now).is_none(), "not suspended: not held");
        r.spec.suspend = Some(true);
        assert!(matches!(held(&r, now), Some(Held::Quarantined(h)) if h == q));
        let later = Timestamp::from_second(1_800_000_100).unwrap();
        assert!(matches!(held(&r, later), Some(Held::Waiting)));
        r.annotations_mut()
            .insert(QUARANTINE.into(), "{not json".into());
        assert!(
            matches!(held(&r, now), Some(Held::Waiting)),
            "unreadable: forgotten"
        );
    }
}
