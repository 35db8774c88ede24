//! Sending notifications, off the engine's path.
//!
//! [`Notifier::tell`] puts a notification in a bounded queue and returns;
//! a full queue drops it (counted). One dispatcher task takes them in
//! order, forgets a repeat of one sent in the last [`REMEMBER_FOR`] (the
//! engine may tell a transition twice when a status write failed), and
//! hands each to the queue of every receiver that wants it. Each receiver
//! has its own worker task and queue, so a receiver that hangs or refuses
//! only delays itself. A worker POSTs with a timeout per attempt and
//! retries what may pass later (no connection, no answer, 429, 5xx).
//!
//! The configuration is read from the Secret at start and every
//! [`CONFIG_POLL`]; a refused one is logged once and the last good one
//! kept. Workers are remade only for receivers whose name, URL or format
//! changed.
//!
//! Notifications are a courtesy and the status is the truth: what cannot
//! be sent is counted (`dropped`, `failed`) and logged, never waited for.
//! A receiver's URL may be a credential (Slack's is): it is never logged.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http::header::{CONTENT_TYPE, USER_AGENT};
use http::{Request, StatusCode, Uri};
use http_body_util::Full;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;
use tokio_util::sync::{CancellationToken, DropGuard};

use super::config::{Config, ConfigError, Format, Receiver};
use super::message::Notification;

/// How many notifications may wait for the dispatcher.
pub const QUEUED: usize = 1024;
/// How many notifications may wait for one receiver.
pub const RECEIVER_QUEUED: usize = 256;
/// How often the Secret is read again.
pub const CONFIG_POLL: Duration = Duration::from_secs(30);
/// How long one POST may take, answer included.
pub const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);
/// How many times a notification is POSTed before it is given up.
pub const ATTEMPTS: u32 = 5;
/// The first wait between attempts; each next one is twice the last
/// (1 s, 2 s, 4 s, 8 s).
pub const BACKOFF_BASE: Duration = Duration::from_secs(1);
/// How long a sent notification's id is remembered, to drop a repeat.
pub const REMEMBER_FOR: Duration = Duration::from_secs(60 * 60);
/// How many ids are remembered at most; the oldest are forgotten first.
pub const REMEMBERED: usize = 4096;

/// Where the notifier counts, for the engine's metrics.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    /// Notifications dropped because a queue was full.
    pub dropped: Arc<AtomicU64>,
    /// Notifications a receiver took (2xx), one per receiver.
    pub sent: Arc<AtomicU64>,
    /// Notifications given up for a receiver.
    pub failed: Arc<AtomicU64>,
}

/// Hands notifications to the background tasks. Cheap to clone; the tasks
/// end when every clone is dropped.
#[derive(Clone)]
pub struct Notifier {
    /// `None` when notifications are off.
    inner: Option<Arc<Queue>>,
}

struct Queue {
    sender: mpsc::Sender<Notification>,
    dropped: Arc<AtomicU64>,
    /// Whether the last notification was dropped: a streak of drops is
    /// logged once.
    dropping: AtomicBool,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier")
            .field("enabled", &self.is_enabled())
            .finish()
    }
}

/// The knobs tests turn; the engine uses [`Tuning::default`].
#[derive(Clone, Copy, Debug)]
struct Tuning {
    queued: usize,
    receiver_queued: usize,
    attempt_timeout: Duration,
    backoff_base: Duration,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            queued: QUEUED,
            receiver_queued: RECEIVER_QUEUED,
            attempt_timeout: ATTEMPT_TIMEOUT,
            backoff_base: BACKOFF_BASE,
        }
    }
}

impl Notifier {
    /// A notifier that drops everything it is told, uncounted: for an
    /// engine without a notifications Secret, and for tests.
    pub fn disabled() -> Self {
        Notifier { inner: None }
    }

    /// Starts the tasks: the dispatcher, and a reader of `secret` in
    /// `namespace` (only ever `get` by name). Must be called within a
    /// Tokio runtime.
    pub fn start(
        client: kube::Client,
        namespace: String,
        secret: String,
        dropped: Arc<AtomicU64>,
        sent: Arc<AtomicU64>,
        failed: Arc<AtomicU64>,
    ) -> Notifier {
        let (updates, config) = watch::channel(Config::default());
        let api = Api::<Secret>::namespaced(client, &namespace);
        tokio::spawn(read_config(api, namespace, secret, updates));
        let counts = Counts {
            dropped,
            sent,
            failed,
        };
        Notifier::spawn(config, true, counts, Tuning::default())
    }

    /// Starts a dispatcher with `config` given, never read again (no
    /// Kubernetes client): for tests, and wherever the configuration
    /// comes from elsewhere. `backoff_base` is the first wait between
    /// attempts ([`BACKOFF_BASE`] in the engine).
    pub fn with_config(config: Config, counts: Counts, backoff_base: Duration) -> Notifier {
        // The sender dropped at once: the configuration never changes.
        let (_, receiver) = watch::channel(config);
        let tuning = Tuning {
            backoff_base,
            ..Tuning::default()
        };
        Notifier::spawn(receiver, false, counts, tuning)
    }

    /// The dispatcher over `config`; with `wait_for_first`, nothing is
    /// routed before the first configuration is read, so that what the
    /// engine tells at start waits for its receivers.
    fn spawn(
        config: watch::Receiver<Config>,
        wait_for_first: bool,
        counts: Counts,
        tuning: Tuning,
    ) -> Notifier {
        let (sender, queue) = mpsc::channel(tuning.queued);
        let dropped = counts.dropped.clone();
        let dispatcher = Dispatcher {
            transport: Arc::new(Transport::new()),
            counts,
            tuning,
            routes: Vec::new(),
            recent: Recent::new(REMEMBER_FOR, REMEMBERED),
        };
        tokio::spawn(dispatcher.run(queue, config, wait_for_first));
        Notifier {
            inner: Some(Arc::new(Queue {
                sender,
                dropped,
                dropping: AtomicBool::new(false),
            })),
        }
    }

    /// Whether notifications are sent at all.
    pub fn is_enabled(&self) -> bool {
        self.inner.is_some()
    }

    /// Queues `n` to be sent, without waiting; drops it (counted) when the
    /// queue is full.
    pub fn tell(&self, n: Notification) {
        let Some(queue) = &self.inner else {
            return;
        };
        match queue.sender.try_send(n) {
            Ok(()) => queue.dropping.store(false, Ordering::Relaxed),
            // Closed only when the dispatcher is gone (the runtime shuts
            // down): dropped all the same.
            Err(TrySendError::Full(n) | TrySendError::Closed(n)) => {
                queue.dropped.fetch_add(1, Ordering::Relaxed);
                if !queue.dropping.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        event = %n.kind,
                        "notification queue full: notifications are dropped until it drains"
                    );
                }
            }
        }
    }
}

/// Takes notifications in order and hands each to its receivers' workers.
struct Dispatcher {
    transport: Arc<Transport>,
    counts: Counts,
    tuning: Tuning,
    /// The receivers in the configuration's order, each with its worker.
    routes: Vec<Route>,
    recent: Recent,
}

struct Route {
    receiver: Receiver,
    worker: Worker,
}

/// The dispatcher's end of one receiver's worker.
struct Worker {
    queue: mpsc::Sender<Arc<Notification>>,
    /// Stops the worker when the receiver goes away (or the dispatcher
    /// ends), even in the middle of its retries.
    _stop: DropGuard,
    /// Whether the last notification for it was dropped (a streak of drops
    /// is logged once).
    dropping: bool,
}

impl Dispatcher {
    async fn run(
        mut self,
        mut queue: mpsc::Receiver<Notification>,
        mut config: watch::Receiver<Config>,
        wait_for_first: bool,
    ) {
        if wait_for_first && config.changed().await.is_err() {
            return;
        }
        let first = config.borrow_and_update().clone();
        self.apply(first);
        let mut config_open = true;
        loop {
            tokio::select! {
                n = queue.recv() => match n {
                    Some(n) => self.route(n),
                    // Every notifier is dropped.
                    None => return,
                },
                changed = config.changed(), if config_open => match changed {
                    Ok(()) => {
                        let next = config.borrow_and_update().clone();
                        self.apply(next);
                    }
                    Err(_) => config_open = false,
                },
            }
        }
    }

    /// Takes `config` in: keeps the worker of a receiver whose name, URL
    /// and format are unchanged (a filter change needs no new worker),
    /// starts the others and stops those of receivers gone.
    fn apply(&mut self, config: Config) {
        let mut old = std::mem::take(&mut self.routes);
        for receiver in config.receivers {
            let kept = old.iter().position(|r| same_worker(&r.receiver, &receiver));
            let worker = match kept {
                Some(i) => old.swap_remove(i).worker,
                None => self.start_worker(&receiver),
            };
            self.routes.push(Route { receiver, worker });
        }
        // What is left in `old` is dropped here, which stops its workers.
        tracing::debug!(receivers = self.routes.len(), "notification receivers");
    }

    fn start_worker(&self, receiver: &Receiver) -> Worker {
        let (queue, rx) = mpsc::channel(self.tuning.receiver_queued);
        let stop = CancellationToken::new();
        let target = Target {
            name: receiver.name.clone(),
            url: receiver.url.clone(),
            format: receiver.format,
        };
        let (transport, counts, tuning) =
            (self.transport.clone(), self.counts.clone(), self.tuning);
        let token = stop.clone();
        tokio::spawn(async move {
            token
                .run_until_cancelled(deliver_all(target, rx, transport, counts, tuning))
                .await;
        });
        Worker {
            queue,
            _stop: stop.drop_guard(),
            dropping: false,
        }
    }

    fn route(&mut self, n: Notification) {
        if !self.recent.first_time(n.id(), Instant::now()) {
            tracing::debug!(event = %n.kind, "notification told again: not sent twice");
            return;
        }
        let n = Arc::new(n);
        for route in &mut self.routes {
            if !route.receiver.matches(&n) {
                continue;
            }
            match route.worker.queue.try_send(n.clone()) {
                Ok(()) => route.worker.dropping = false,
                // Closed only if the worker panicked: dropped all the same.
                Err(TrySendError::Full(_) | TrySendError::Closed(_)) => {
                    self.counts.dropped.fetch_add(1, Ordering::Relaxed);
                    if !route.worker.dropping {
                        route.worker.dropping = true;
                        tracing::warn!(
                            receiver = %route.receiver.name,
                            event = %n.kind,
                            "notification receiver falls behind: its notifications are dropped until it catches up"
                        );
                    }
                }
            }
        }
    }
}

/// Whether a worker made for `a` can serve `b`.
fn same_worker(a: &Receiver, b: &Receiver) -> bool {
    a.name == b.name && a.url == b.url && a.format == b.format
}

/// The ids sent lately, to drop a repeat.
struct Recent {
    /// In the order sent, with when.
    order: VecDeque<(Instant, String)>,
    ids: HashSet<String>,
    window: Duration,
    cap: usize,
}

impl Recent {
    fn new(window: Duration, cap: usize) -> Self {
        Recent {
            order: VecDeque::new(),
            ids: HashSet::new(),
            window,
            cap,
        }
    }

    /// Remembers `id`; false when it was sent within the window.
    fn first_time(&mut self, id: String, now: Instant) -> bool {
        while let Some((at, _)) = self.order.front() {
            if now.saturating_duration_since(*at) < self.window {
                break;
            }
            if let Some((_, old)) = self.order.pop_front() {
                self.ids.remove(&old);
            }
        }
        if self.ids.contains(&id) {
            return false;
        }
        if self.order.len() >= self.cap
            && let Some((_, old)) = self.order.pop_front()
        {
            self.ids.remove(&old);
        }
        self.ids.insert(id.clone());
        self.order.push_back((now, id));
        true
    }
}

/// Where a worker sends, and how.
struct Target {
    name: String,
    url: Uri,
    format: Format,
}

/// One receiver's worker: its notifications one at a time, in order.
async fn deliver_all(
    target: Target,
    mut queue: mpsc::Receiver<Arc<Notification>>,
    transport: Arc<Transport>,
    counts: Counts,
    tuning: Tuning,
) {
    while let Some(n) = queue.recv().await {
        deliver(&target, &n, &transport, &counts, tuning).await;
    }
}

/// POSTs `n` to `target` until it is taken, refused for good, or
/// [`ATTEMPTS`] are spent.
async fn deliver(
    target: &Target,
    n: &Notification,
    transport: &Transport,
    counts: &Counts,
    tuning: Tuning,
) {
    let body = match target.format {
        Format::Slack => n.slack_body(),
        Format::Json => n.json_body(),
    };
    let body = Bytes::from(body.to_string());
    let mut last = Failure::Status(StatusCode::INTERNAL_SERVER_ERROR);
    for attempt in 1..=ATTEMPTS {
        let outcome = transport
            .post(&target.url, body.clone(), tuning.attempt_timeout)
            .await;
        match outcome {
            Ok(status) if status.is_success() => {
                counts.sent.fetch_add(1, Ordering::Relaxed);
                tracing::debug!(receiver = %target.name, event = %n.kind, attempt, "notification sent");
                return;
            }
            // Too many requests, or the receiver's own trouble: may pass.
            Ok(status) if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() => {
                last = Failure::Status(status);
            }
            // Refused (a 4xx: a revoked webhook, a bad body) or not
            // understood: sending it again would not help.
            Ok(status) => {
                give_up(target, n, counts, attempt, Failure::Status(status));
                return;
            }
            Err(error) => last = Failure::Error(error),
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(tuning.backoff_base * 2u32.pow(attempt - 1)).await;
        }
    }
    give_up(target, n, counts, ATTEMPTS, last);
}

/// Why an attempt did not deliver.
enum Failure {
    Status(StatusCode),
    Error(AttemptError),
}

fn give_up(target: &Target, n: &Notification, counts: &Counts, attempts: u32, why: Failure) {
    counts.failed.fetch_add(1, Ordering::Relaxed);
    // The receiver's name, never its URL: the URL may be a credential.
    match why {
        Failure::Status(status) => tracing::warn!(
            receiver = %target.name,
            event = %n.kind,
            attempts,
            status = status.as_u16(),
            "notification not delivered: the receiver answered {status}"
        ),
        Failure::Error(error) => tracing::warn!(
            receiver = %target.name,
            event = %n.kind,
            attempts,
            %error,
            "notification not delivered"
        ),
    }
}

/// Why a POST got no answer.
#[derive(Debug, thiserror::Error)]
enum AttemptError {
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    /// The error and its causes, joined (hyper's say which step failed,
    /// not which URL).
    #[error("{0}")]
    Http(String),
}

/// The HTTP client, shared by the workers.
enum Transport {
    /// https with the machine's trusted roots, and plain http.
    Tls(HttpClient<HttpsConnector<HttpConnector>, Full<Bytes>>),
    /// Plain http only: the machine has no trusted roots to check https
    /// receivers with.
    PlainOnly(HttpClient<HttpConnector, Full<Bytes>>),
}

impl Transport {
    fn new() -> Self {
        let client = HttpClient::builder(TokioExecutor::new());
        match HttpsConnectorBuilder::new().with_native_roots() {
            Ok(builder) => {
                // http too: receivers inside the cluster, and tests.
                let connector = builder.https_or_http().enable_http1().build();
                Transport::Tls(client.build(connector))
            }
            Err(error) => {
                tracing::warn!(
                    %error,
                    "no trusted root certificates: notifications to https receivers will fail"
                );
                Transport::PlainOnly(client.build_http())
            }
        }
    }

    /// POSTs `body` as JSON to `url`; the answer's status.
    async fn post(
        &self,
        url: &Uri,
        body: Bytes,
        timeout: Duration,
    ) -> Result<StatusCode, AttemptError> {
        let request = Request::post(url.clone())
            .header(CONTENT_TYPE, "application/json")
            .header(USER_AGENT, concat!("hmc-tui/", env!("CARGO_PKG_VERSION")))
            .body(Full::new(body))
            .map_err(|e| AttemptError::Http(e.to_string()))?;
        let response = match self {
            Transport::Tls(client) => tokio::time::timeout(timeout, client.request(request)).await,
            Transport::PlainOnly(client) => {
                tokio::time::timeout(timeout, client.request(request)).await
            }
        };
        // The answer's body is not read: its status is all that counts.
        match response {
            Ok(Ok(response)) => Ok(response.status()),
            Ok(Err(error)) => Err(AttemptError::Http(chain(&error))),
            Err(_) => Err(AttemptError::Timeout(timeout)),
        }
    }
}

/// `error` and its causes, joined by ": ".
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// What reading the Secret gave.
enum Read {
    /// No such Secret: no receivers.
    Missing,
    Good(Config),
    Refused(ConfigError),
    /// The API server did not answer, or refused the `get`.
    Failed(String),
}

/// Reads the configuration now and every [`CONFIG_POLL`], publishing it
/// to the dispatcher; ends when the dispatcher does.
async fn read_config(
    api: Api<Secret>,
    namespace: String,
    secret: String,
    updates: watch::Sender<Config>,
) {
    let reading = async {
        let mut first = true;
        // The last problem logged, so that each is logged once.
        let mut problem: Option<String> = None;
        let mut missing = false;
        loop {
            let read = match tokio::time::timeout(CONFIG_POLL, api.get_opt(&secret)).await {
                Err(_) => Read::Failed(format!("no answer within {CONFIG_POLL:?}")),
                Ok(Err(error)) => Read::Failed(error.to_string()),
                Ok(Ok(None)) => Read::Missing,
                Ok(Ok(Some(s))) => match Config::from_secret(&s) {
                    Ok(config) => Read::Good(config),
                    Err(error) => Read::Refused(error),
                },
            };
            let next = match read {
                Read::Missing => {
                    if !missing {
                        tracing::debug!(%namespace, %secret, "no notifications Secret: no receivers");
                    }
                    missing = true;
                    problem = None;
                    Some(Config::default())
                }
                Read::Good(config) => {
                    if problem.take().is_some() || missing {
                        tracing::info!(%namespace, %secret, receivers = config.receivers.len(), "notification configuration read");
                    }
                    missing = false;
                    Some(config)
                }
                Read::Refused(error) => {
                    let text = error.to_string();
                    if problem.as_ref() != Some(&text) {
                        tracing::warn!(%namespace, %secret, %error, "notification configuration refused: the last good one is kept");
                        problem = Some(text);
                    }
                    None
                }
                Read::Failed(error) => {
                    if problem.as_ref() != Some(&error) {
                        tracing::warn!(%namespace, %secret, %error, "reading the notifications Secret failed: the last configuration is kept");
                        problem = Some(error);
                    }
                    None
                }
            };
            // The first read is always published, good or not: the
            // dispatcher waits for it.
            updates.send_if_modified(|current| match next {
                Some(next) if next != *current => {
                    *current = next;
                    true
                }
                _ => first,
            });
            first = false;
            tokio::time::sleep(CONFIG_POLL).await;
        }
    };
    tokio::select! {
        _ = updates.closed() => {}
        _ = reading => {}
    }
}

#[cfg(test)]
mod tests;
