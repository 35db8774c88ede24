//! Chart downloads that failed lately: one engine's memory of them, so that
//! a chart source that hangs is not tried again at every reconcile.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

#[cfg(test)]
mod tests {
    use super::*;

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
