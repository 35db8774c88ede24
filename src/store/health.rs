//! The health of the watches that feed the stores: why a watch cannot list
//! or watch, in a person's words, when a failing one counts as healthy
//! again, and waiting for a store's first full list.

use futures::{FutureExt, future::BoxFuture};
use kube::runtime::watcher;
use tokio::sync::watch;

/// The tracing target of watch failures. They are logged as warnings; the
/// console shows them as a banner from [`WatchHealth`] instead of as log
/// messages.
pub const WATCH_LOG_TARGET: &str = "hmc_tui::store::watch";

/// Why a watch cannot list or watch its kind, in terms a person can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WatchFailure {
    /// The API server cannot be reached; why, in a few words
    /// (`connection refused`).
    Unreachable(String),
    /// RBAC does not allow listing or watching the kind.
    Forbidden,
    /// The API server does not accept the credentials.
    Unauthorized,
    /// The API server does not serve the kind (its CRD is missing).
    NotServed,
    /// Anything else, as the error says it.
    Other(String),
}

impl WatchFailure {
    /// In a few words, for `/readyz` and logs.
    pub fn describe(&self) -> String {
        match self {
            WatchFailure::Unreachable(why) => format!("cannot reach the API server ({why})"),
            WatchFailure::Forbidden => "forbidden by RBAC".into(),
            WatchFailure::Unauthorized => "credentials not accepted".into(),
            WatchFailure::NotServed => "not served (is its CRD installed?)".into(),
            WatchFailure::Other(why) => why.clone(),
        }
    }
}

/// The health of one watch.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum WatchHealth {
    /// Its last attempt worked (or it has not failed yet).
    #[default]
    Ok,
    /// Its last attempt failed; `attempts` counts the failures in a row,
    /// so every failure is a change that wakes the followers.
    Failing {
        failure: WatchFailure,
        attempts: u64,
    },
}

/// One watch's health, with the resource it watches (`managedclusters`).
#[derive(Clone, Debug)]
pub struct WatchState {
    pub resource: String,
    pub health: watch::Receiver<WatchHealth>,
}

/// What a watcher error means for a person; `None` for what the watcher
/// recovers from by itself at once (an expired resourceVersion: it lists
/// again).
pub fn classify(error: &watcher::Error) -> Option<WatchFailure> {
    match error {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => Some(classify_client(e)),
        watcher::Error::WatchError(status) => match status.code {
            410 => None,
            401 => Some(WatchFailure::Unauthorized),
            403 => Some(WatchFailure::Forbidden),
            _ => Some(WatchFailure::Other(status.message.clone())),
        },
        watcher::Error::NoResourceVersion => Some(WatchFailure::Other(error.to_string())),
    }
}

fn classify_client(error: &kube::Error) -> WatchFailure {
    match error {
        kube::Error::Api(status) => match status.code {
            401 => WatchFailure::Unauthorized,
            403 => WatchFailure::Forbidden,
            404 => WatchFailure::NotServed,
            _ if status.message.is_empty() => {
                WatchFailure::Other(format!("{} ({})", status.reason, status.code))
            }
            _ => WatchFailure::Other(status.message.clone()),
        },
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
            WatchFailure::Unreachable(cause(error))
        }
        other => WatchFailure::Other(other.to_string()),
    }
}

/// The root cause of a connection error in a few words: the I/O error at
/// the bottom of the chain (`connection refused`), else the innermost
/// message.
pub(crate) fn cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut innermost = error;
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".into(),
                std::io::ErrorKind::ConnectionReset => "connection reset".into(),
                std::io::ErrorKind::TimedOut => "timed out".into(),
                _ => {
                    let text = io.to_string();
                    match text.find(" (os error") {
                        Some(i) => text[..i].to_lowercase(),
                        None => text,
                    }
                }
            };
        }
        innermost = e;
        current = e.source();
    }
    innermost.to_string()
}

/// The watch feeding a store ended before its first list.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the watch ended before its first list")]
pub struct WatchEnded;

/// Waits until one store's flag says it holds its first full list.
pub async fn listed(mut flag: watch::Receiver<bool>) -> Result<(), WatchEnded> {
    let ok = flag.wait_for(|l| *l).await.is_ok();
    if ok { Ok(()) } else { Err(WatchEnded) }
}

/// How long a failing watch must go without a new failure to count as
/// healthy again. A watch that resumes after an outage with its
/// resourceVersion still valid delivers nothing until something changes,
/// so no event would ever say it works; the watcher retries a failing
/// watch at least every 30 s (its backoff's ceiling), so a spell of more
/// than twice that without a failure means it is watching again.
const QUIET_RECOVERY: std::time::Duration = std::time::Duration::from_secs(65);
/// How often a failing watch is looked at for such a spell.
const RECOVERY_CHECK: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether a watch in `health`, whose last failure was at `last_failure`,
/// has been quiet long enough at `now` to count as healthy.
fn quiet_again(
    health: &WatchHealth,
    last_failure: Option<std::time::Instant>,
    now: std::time::Instant,
) -> bool {
    matches!(health, WatchHealth::Failing { .. })
        && last_failure.is_some_and(|t| now.saturating_duration_since(t) >= QUIET_RECOVERY)
}

/// The check that marks a failing watch healthy after a quiet spell, and
/// where its watch records the time of each failure.
pub(super) struct Recovery {
    pub(super) last_failure: std::sync::Arc<std::sync::Mutex<Option<std::time::Instant>>>,
    pub(super) run: BoxFuture<'static, ()>,
}

pub(super) fn recover_when_quiet(health: std::sync::Arc<watch::Sender<WatchHealth>>) -> Recovery {
    let last_failure = std::sync::Arc::new(std::sync::Mutex::new(None));
    let seen = last_failure.clone();
    let run = async move {
        loop {
            tokio::time::sleep(RECOVERY_CHECK).await;
            let last = *seen.lock().unwrap_or_else(|e| e.into_inner());
            health.send_if_modified(|h| {
                let quiet = quiet_again(h, last, std::time::Instant::now());
                if quiet {
                    *h = WatchHealth::Ok;
                }
                quiet
            });
        }
    }
    .boxed();
    Recovery { last_failure, run }
}
#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    #[test]
    fn a_failing_watch_counts_as_healthy_after_a_quiet_spell_only() {
        let failing = WatchHealth::Failing {
            failure: WatchFailure::Unreachable("connection refused".into()),
            attempts: 3,
        };
        let failed = std::time::Instant::now();
        let at = |secs| failed + std::time::Duration::from_secs(secs);
        // Retries fail at most every 30 s while it is down: not quiet yet.
        assert!(!quiet_again(&failing, Some(failed), at(30)));
        assert!(!quiet_again(&failing, Some(failed), at(64)));
        assert!(quiet_again(&failing, Some(failed), at(65)));
        // Nothing to recover from.
        assert!(!quiet_again(&WatchHealth::Ok, Some(failed), at(600)));
        assert!(!quiet_again(&failing, None, at(600)));
    }

    fn api(code: u16, message: &str) -> kube::Error {
        kube::Error::Api(Status::failure(message, "Reason").with_code(code).boxed())
    }

    /// An error that wraps another, as hyper's client errors do.
    #[derive(Debug)]
    struct Wrapped(&'static str, Box<dyn std::error::Error + Send + Sync>);

    impl std::fmt::Display for Wrapped {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl std::error::Error for Wrapped {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(self.1.as_ref())
        }
    }

    #[test]
    fn watch_errors_in_a_person_s_terms() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let connect = kube::Error::Service(Box::new(Wrapped(
            "client error (Connect)",
            Box::new(Wrapped("tcp connect error", Box::new(refused))),
        )));
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(connect)),
            Some(WatchFailure::Unreachable("connection refused".into()))
        );
        let dns = std::io::Error::other("failed to lookup address information (os error -2)");
        assert_eq!(
            classify(&watcher::Error::WatchStartFailed(kube::Error::Service(
                Box::new(dns)
            ))),
            Some(WatchFailure::Unreachable(
                "failed to lookup address information".into()
            ))
        );
        let nested = kube::Error::Service(Box::new(Wrapped(
            "request failed",
            Box::new(Wrapped("deadline has elapsed", Box::new(std::fmt::Error))),
        )));
        assert_eq!(
            classify(&watcher::Error::WatchFailed(nested)),
            Some(WatchFailure::Unreachable(std::fmt::Error.to_string()))
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(403, "forbidden"))),
            Some(WatchFailure::Forbidden)
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(401, "Unauthorized"))),
            Some(WatchFailure::Unauthorized)
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(404, "not found"))),
            Some(WatchFailure::NotServed)
        );
        assert_eq!(
            classify(&watcher::Error::InitialListFailed(api(500, "etcd is down"))),
            Some(WatchFailure::Other("etcd is down".into()))
        );
        // An expired resourceVersion is no failure: the watcher lists again.
        let gone = Status::failure("too old", "Expired").with_code(410).boxed();
        assert_eq!(classify(&watcher::Error::WatchError(gone)), None);
    }
}
