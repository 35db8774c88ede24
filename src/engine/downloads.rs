//! Chart downloads: those that failed lately, so that a chart source that
//! hangs is not tried again at every reconcile, and the turns of each
//! namespace, so that one namespace's archives that hang never hold every
//! worker of the template controllers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::api::TemplateStatus;

/// A chart archive that could not be downloaded is tried again after this
/// long, not at every reconcile: a chart source that hangs holds one of the
/// controller's workers for one download deadline every few minutes, and
/// the other templates get the rest.
pub const DOWNLOAD_RETRY: Duration = Duration::from_secs(120);

/// A download that failed: the archive's digest, when, and the status
/// that said so.
type Failure = (String, Instant, TemplateStatus);

/// Downloads that failed lately, by template uid: one engine's memory, kept
/// in its [`Context`](super::context::Context) like its other per-object retry state.
#[derive(Debug, Default)]
pub struct FailedDownloads(Mutex<HashMap<String, Failure>>);

impl FailedDownloads {
    /// When the download of `digest` for template `uid` failed less than
    /// [`DOWNLOAD_RETRY`] ago: how long until it may be tried again, and
    /// the status that said why.
    pub(super) fn recent(&self, uid: &str, digest: &str) -> Option<(Duration, TemplateStatus)> {
        let failed = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (d, at, status) = failed.get(uid)?;
        let left = DOWNLOAD_RETRY.checked_sub(at.elapsed())?;
        (d == digest && !left.is_zero()).then(|| (left, status.clone()))
    }

    pub(super) fn remember(&self, uid: &str, digest: &str, status: &TemplateStatus) {
        let mut failed = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Old entries go; the map holds at most the templates failing now.
        failed.retain(|_, (_, at, _)| at.elapsed() < DOWNLOAD_RETRY);
        failed.insert(
            uid.to_string(),
            (digest.to_string(), Instant::now(), status.clone()),
        );
    }

    pub(super) fn forget(&self, uid: &str) {
        let mut failed = self.0.lock().unwrap_or_else(|e| e.into_inner());
        failed.remove(uid);
    }
}

/// Chart downloads one namespace may have under way at once. The template
/// controllers have 16 workers each: a namespace whose archives hang holds
/// at most this many of them, for one download deadline.
pub const NAMESPACE_TURNS: usize = 4;

/// How soon a template whose namespace had no free turn looks again.
pub const TURN_RETRY: Duration = Duration::from_secs(3);

/// The download turns of each namespace: a semaphore per namespace with
/// downloads under way, gone once none is.
#[derive(Debug, Default)]
pub struct Turns(Mutex<HashMap<String, Arc<Semaphore>>>);

impl Turns {
    /// A turn of `namespace`, if one is free: held until dropped.
    pub fn try_take(&self, namespace: &str) -> Option<OwnedSemaphorePermit> {
        let mut turns = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // Namespaces with nothing under way are forgotten: the map holds at
        // most the namespaces downloading now.
        turns.retain(|_, s| s.available_permits() < NAMESPACE_TURNS);
        turns
            .entry(namespace.to_string())
            .or_insert_with(|| Arc::new(Semaphore::new(NAMESPACE_TURNS)))
            .clone()
            .try_acquire_owned()
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_namespace_has_a_bounded_number_of_turns_and_others_are_not_held() {
        let turns = Turns::default();
        let held: Vec<_> = (0..NAMESPACE_TURNS)
            .map(|_| turns.try_take("a").expect("a free turn"))
            .collect();
        assert!(turns.try_take("a").is_none(), "a's turns are taken");
        let b = turns.try_take("b");
        assert!(b.is_some(), "b has turns of its own");
        drop(held);
        assert!(turns.try_take("a").is_some(), "a turn comes back when done");
        drop(b);
        let _c = turns.try_take("c");
        assert_eq!(
            turns.0.lock().unwrap().len(),
            1,
            "idle namespaces are forgotten"
        );
    }

    #[test]
    fn a_failed_download_is_not_tried_again_before_its_time() {
        let failed = TemplateStatus {
            validation_error: Some("chart download from u did not finish within 60s".into()),
            ..Default::default()
        };
        let downloads = FailedDownloads::default();
        downloads.remember("uid-1", "sha256:a", &failed);
        let (left, status) = downloads.recent("uid-1", "sha256:a").unwrap();
        assert!(left <= DOWNLOAD_RETRY && left > DOWNLOAD_RETRY - Duration::from_secs(5));
        assert_eq!(status, failed);
        assert!(
            downloads.recent("uid-1", "sha256:b").is_none(),
            "a new archive is tried at once"
        );
        assert!(downloads.recent("uid-2", "sha256:a").is_none());
        downloads.forget("uid-1");
        assert!(downloads.recent("uid-1", "sha256:a").is_none());
    }
}
