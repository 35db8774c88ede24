//! Delivery against real HTTP servers on the loopback interface.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use k8s_openapi::ByteString;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc::UnboundedReceiver;

use super::*;
use crate::engine::notifications::config::CONFIG_KEY;
use crate::engine::notifications::message::{EventKind, JSON_VERSION};

/// How long a test waits for what it expects before it fails.
const PATIENCE: Duration = Duration::from_secs(20);

/// A request a test server got.
#[derive(Debug)]
struct Got {
    method: Method,
    path: String,
    content_type: Option<String>,
    body: Bytes,
}

impl Got {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// An HTTP server on 127.0.0.1: hands every request it gets to the test,
/// and answers what `answer` says.
async fn server<A>(answer: A) -> (SocketAddr, UnboundedReceiver<Got>)
where
    A: Fn(&Got) -> (u16, String) + Send + Sync + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tell, got) = tokio::sync::mpsc::unbounded_channel();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (tell, answer) = (tell.clone(), answer.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: Request<Incoming>| {
                    let (tell, answer) = (tell.clone(), answer.clone());
                    async move {
                        let (parts, body) = req.into_parts();
                        let body = body
                            .collect()
                            .await
                            .map(|b| b.to_bytes())
                            .unwrap_or_default();
                        let got = Got {
                            method: parts.method,
                            path: parts.uri.path().to_string(),
                            content_type: parts
                                .headers
                                .get(CONTENT_TYPE)
                                .and_then(|v| v.to_str().ok())
                                .map(str::to_string),
                            body,
                        };
                        let (status, body) = answer(&got);
                        let _ = tell.send(got);
                        let response = Response::builder()
                            .status(status)
                            .header(CONTENT_TYPE, "application/json")
                            .body(Full::new(Bytes::from(body)))
                            .unwrap();
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (addr, got)
}

/// A webhook answering the statuses of `script` in turn, then 200.
async fn webhook(script: &[u16]) -> (String, UnboundedReceiver<Got>) {
    let script = Mutex::new(VecDeque::from(script.to_vec()));
    let (addr, got) = server(move |_| {
        let status = script.lock().unwrap().pop_front().unwrap_or(200);
        (status, "ok".to_string())
    })
    .await;
    (format!("http://{addr}/hook"), got)
}

/// A port that takes connections and never answers on them.
async fn hanging() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    format!("http://{addr}/hook")
}

/// A port nothing listens on any more: connections are refused.
fn refusing() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    format!("http://{addr}/hook")
}

/// A configuration of receivers given as (name, url, format), each wanting
/// everything.
fn config(receivers: &[(&str, &str, &str)]) -> Config {
    let mut yaml = String::from("receivers:\n");
    for (name, url, format) in receivers {
        yaml.push_str(&format!(
            "  - name: {name}\n    url: {url}\n    format: {format}\n"
        ));
    }
    Config::parse(yaml.as_bytes()).unwrap()
}

fn note(message: &str) -> Notification {
    Notification {
        template: Some("demo-cluster".into()),
        rollout: Some("demo-cluster-5".into()),
        ..Notification::new(EventKind::WaveCompleted, "team-a", message)
    }
}

/// The next request `got` gets, within [`PATIENCE`].
async fn next(got: &mut UnboundedReceiver<Got>) -> Got {
    tokio::time::timeout(PATIENCE, got.recv())
        .await
        .expect("no request in time")
        .expect("the server is gone")
}

/// Waits, within [`PATIENCE`], until `done` holds.
async fn eventually(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + PATIENCE;
    while !done() {
        assert!(Instant::now() < deadline, "never: {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn load(counter: &AtomicU64) -> u64 {
    counter.load(Ordering::Relaxed)
}

#[tokio::test]
async fn a_receiver_gets_events_in_order_each_once() {
    let (url, mut got) = webhook(&[]).await;
    let counts = Counts::default();
    let notifier = Notifier::with_config(
        config(&[("audit", &url, "json")]),
        counts.clone(),
        Duration::from_millis(1),
    );
    let first = note("wave 0 completed");
    notifier.tell(first.clone());
    notifier.tell(note("wave 1 completed"));
    // Told again, as after a status write that failed: not sent again.
    notifier.tell(first.clone());
    notifier.tell(note("wave 2 completed"));
    notifier.tell(note("wave 3 completed"));

    let mut messages = Vec::new();
    for _ in 0..4 {
        let request = next(&mut got).await;
        assert_eq!(request.method, Method::POST);
        assert_eq!(request.path, "/hook");
        assert_eq!(request.content_type.as_deref(), Some("application/json"));
        let body = request.json();
        assert_eq!(body["version"], JSON_VERSION);
        assert_eq!(body["event"], "waveCompleted");
        messages.push(body["message"].as_str().unwrap().to_string());
        if messages.len() == 1 {
            assert_eq!(body, first.json_body());
        }
    }
    assert_eq!(
        messages,
        [
            "wave 0 completed",
            "wave 1 completed",
            "wave 2 completed",
            "wave 3 completed"
        ]
    );
    eventually("four sent", || load(&counts.sent) == 4).await;
    assert!(got.try_recv().is_err(), "the repeat must not be sent");
    assert_eq!(load(&counts.dropped), 0);
    assert_eq!(load(&counts.failed), 0);
}

#[tokio::test]
async fn a_slack_receiver_gets_the_slack_body() {
    let (url, mut got) = webhook(&[]).await;
    let notifier = Notifier::with_config(
        config(&[("ops-slack", &url, "slack")]),
        Counts::default(),
        Duration::from_millis(1),
    );
    notifier.tell(note("wave 1 <done> & dusted"));
    assert_eq!(
        next(&mut got).await.json(),
        serde_json::json!({
            "text": ":heavy_check_mark: team-a/demo-cluster rollout demo-cluster-5: wave 1 &lt;done&gt; &amp; dusted"
        })
    );
}

#[tokio::test]
async fn a_receiver_failing_for_a_while_gets_the_event_after_retries() {
    let (url, mut got) = webhook(&[500, 429, 503]).await;
    let counts = Counts::default();
    let notifier = Notifier::with_config(
        config(&[("flaky", &url, "json")]),
        counts.clone(),
        Duration::from_millis(1),
    );
    let told = note("wave 0 completed");
    notifier.tell(told.clone());
    for _ in 0..4 {
        assert_eq!(next(&mut got).await.json(), told.json_body());
    }
    eventually("sent once", || load(&counts.sent) == 1).await;
    assert_eq!(load(&counts.failed), 0);
    assert!(got.try_recv().is_err(), "a 200 ends the retries");
}

#[tokio::test]
async fn a_receiver_failing_every_time_is_given_up_after_the_last_attempt() {
    let (url, mut got) = webhook(&[500; ATTEMPTS as usize]).await;
    let counts = Counts::default();
    let notifier = Notifier::with_config(
        config(&[("down", &url, "json")]),
        counts.clone(),
        Duration::from_millis(1),
    );
    notifier.tell(note("wave 0 completed"));
    for _ in 0..ATTEMPTS {
        next(&mut got).await;
    }
    eventually("given up", || load(&counts.failed) == 1).await;
    // The next notification is the next request: no sixth attempt.
    notifier.tell(note("wave 1 completed"));
    assert_eq!(next(&mut got).await.json()["message"], "wave 1 completed");
    eventually("the next one sent", || load(&counts.sent) == 1).await;
    assert_eq!(load(&counts.failed), 1);
}

#[tokio::test]
async fn a_refusal_is_not_retried() {
    let (url, mut got) = webhook(&[404]).await;
    let counts = Counts::default();
    let notifier = Notifier::with_config(
        config(&[("revoked", &url, "slack")]),
        counts.clone(),
        Duration::from_millis(1),
    );
    notifier.tell(note("wave 0 completed"));
    notifier.tell(note("wave 1 completed"));
    let messages = [next(&mut got).await, next(&mut got).await]
        .map(|g| g.json()["text"].as_str().unwrap().to_string());
    assert!(messages[0].ends_with("wave 0 completed"), "{messages:?}");
    assert!(messages[1].ends_with("wave 1 completed"), "{messages:?}");
    eventually("one failed, one sent", || {
        load(&counts.failed) == 1 && load(&counts.sent) == 1
    })
    .await;
}

#[tokio::test]
async fn a_hanging_or_refusing_receiver_delays_no_other() {
    let (healthy, mut got) = webhook(&[]).await;
    let (hangs, refuses) = (hanging().await, refusing());
    let counts = Counts::default();
    let notifier = Notifier::with_config(
        config(&[
            ("hangs", &hangs, "json"),
            ("refuses", &refuses, "json"),
            ("healthy", &healthy, "json"),
        ]),
        counts.clone(),
        BACKOFF_BASE,
    );
    let started = Instant::now();
    for i in 0..3 {
        notifier.tell(note(&format!("wave {i} completed")));
    }
    let telling = started.elapsed();
    for i in 0..3 {
        let request = next(&mut got).await;
        assert_eq!(request.json()["message"], format!("wave {i} completed"));
    }
    let received = started.elapsed();
    // Had the others held it up, the healthy one would have waited for an
    // attempt to time out at least.
    assert!(received < ATTEMPT_TIMEOUT, "{received:?}");
    assert!(telling < Duration::from_millis(500), "{telling:?}");
    eventually("three sent", || load(&counts.sent) == 3).await;
    assert_eq!(load(&counts.dropped), 0);
}

#[tokio::test]
async fn a_full_queue_counts_dropped() {
    let counts = Counts::default();
    let notifier = Notifier::with_config(
        config(&[("hangs", &hanging().await, "json")]),
        counts.clone(),
        Duration::from_millis(1),
    );
    // A test runtime has one thread: the dispatcher does not run while
    // this test does not wait, so the queue fills and stays full.
    for i in 0..QUEUED + 3 {
        notifier.tell(note(&format!("wave {i} completed")));
    }
    assert_eq!(load(&counts.dropped), 3);
}

#[tokio::test]
async fn a_receiver_falling_behind_counts_dropped() {
    let counts = Counts::default();
    let tuning = Tuning {
        receiver_queued: 2,
        ..Tuning::default()
    };
    let (_updates, config_updates) = watch::channel(config(&[("hangs", &hanging().await, "json")]));
    let notifier = Notifier::spawn(config_updates, false, counts.clone(), tuning);
    for i in 0..10 {
        notifier.tell(note(&format!("wave {i} completed")));
    }
    // One in flight (or not yet taken), two queued: seven or eight dropped.
    eventually("seven dropped", || load(&counts.dropped) >= 7).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(load(&counts.dropped) <= 8, "{}", load(&counts.dropped));
}

#[tokio::test]
async fn a_changed_configuration_takes_effect_and_the_first_is_waited_for() {
    let (url_a, mut got_a) = webhook(&[]).await;
    let (url_b, mut got_b) = webhook(&[]).await;
    let (updates, config_updates) = watch::channel(Config::default());
    let notifier = Notifier::spawn(config_updates, true, Counts::default(), Tuning::default());

    // Told before any configuration is read: held until one is.
    notifier.tell(note("wave 0 completed"));
    tokio::task::yield_now().await;
    updates.send_replace(config(&[("a", &url_a, "json")]));
    assert_eq!(next(&mut got_a).await.json()["message"], "wave 0 completed");

    updates.send_replace(config(&[("b", &url_b, "json")]));
    // Until the dispatcher has taken the change in, what it is told still
    // goes to `a`: tell until `b` gets something.
    let deadline = Instant::now() + PATIENCE;
    for i in 1.. {
        assert!(Instant::now() < deadline, "b never got a notification");
        notifier.tell(note(&format!("change {i}")));
        let wait = tokio::time::timeout(Duration::from_millis(100), got_b.recv());
        if let Ok(Some(_)) = wait.await {
            break;
        }
    }
    notifier.tell(note("after the change"));
    assert_eq!(next(&mut got_b).await.json()["message"], "after the change");
    while let Ok(got) = got_a.try_recv() {
        assert_ne!(got.json()["message"], "after the change");
    }
}

#[test]
fn repeats_are_remembered_for_a_window_and_up_to_a_cap() {
    let start = Instant::now();
    let mut recent = Recent::new(Duration::from_secs(60), 3);
    assert!(recent.first_time("a".into(), start));
    assert!(!recent.first_time("a".into(), start + Duration::from_secs(59)));
    // Forgotten once the window has passed.
    assert!(recent.first_time("a".into(), start + Duration::from_secs(61)));

    let later = start + Duration::from_secs(100);
    for id in ["b", "c", "d"] {
        assert!(recent.first_time(id.into(), later));
    }
    // "a" (at 61 s) was the oldest and went to make room.
    assert!(recent.first_time("a".into(), later));
    assert!(!recent.first_time("d".into(), later));
    assert_eq!(recent.order.len(), 3);
    assert_eq!(recent.ids.len(), 3);
}

/// `start` against a made-up API server: one `get` of the Secret by name,
/// and its receivers used.
#[tokio::test]
async fn start_reads_the_secret_by_its_name_only() {
    let (hook, mut got_hook) = webhook(&[]).await;
    let yaml = format!("receivers:\n  - name: audit\n    url: {hook}\n");
    let secret = Secret {
        data: Some(BTreeMap::from([(
            CONFIG_KEY.to_string(),
            ByteString(yaml.into_bytes()),
        )])),
        ..Secret::default()
    };
    let mut secret = serde_json::to_value(secret).unwrap();
    secret["apiVersion"] = "v1".into();
    secret["kind"] = "Secret".into();
    secret["metadata"] = serde_json::json!({"name": "hooks", "namespace": "hmc-system"});
    let (client, mut got_api) = api_server(200, secret.to_string()).await;

    let counts = Counts::default();
    let notifier = Notifier::start(
        client,
        "hmc-system".into(),
        "hooks".into(),
        counts.dropped.clone(),
        counts.sent.clone(),
        counts.failed.clone(),
    );
    notifier.tell(note("wave 0 completed"));
    assert_eq!(
        next(&mut got_hook).await.json()["message"],
        "wave 0 completed"
    );
    let read = next(&mut got_api).await;
    assert_eq!(read.method, Method::GET);
    assert_eq!(read.path, "/api/v1/namespaces/hmc-system/secrets/hooks");
    assert!(got_api.try_recv().is_err(), "one read until the next poll");
    eventually("sent", || load(&counts.sent) == 1).await;
}

/// An API server answering every request with `status` and `body`, and
/// a client of it.
async fn api_server(status: u16, body: String) -> (kube::Client, UnboundedReceiver<Got>) {
    let (addr, got) = server(move |_| (status, body.clone())).await;
    let url = format!("http://{addr}").parse().unwrap();
    let client = kube::Client::try_from(kube::Config::new(url)).unwrap();
    (client, got)
}

/// What `read_config` publishes first, starting from `last_good`.
async fn first_read(status: u16, body: String, last_good: Config) -> Config {
    let (client, mut got) = api_server(status, body).await;
    let (updates, mut config) = watch::channel(last_good);
    let api = Api::<Secret>::namespaced(client, "hmc-system");
    tokio::spawn(read_config(
        api,
        "hmc-system".into(),
        "hooks".into(),
        updates,
    ));
    tokio::time::timeout(PATIENCE, config.changed())
        .await
        .expect("no configuration in time")
        .expect("the reader ended");
    assert_eq!(next(&mut got).await.method, Method::GET);
    config.borrow().clone()
}

#[tokio::test]
async fn a_missing_secret_is_no_receivers() {
    let status = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "status": "Failure",
        "reason": "NotFound", "code": 404, "message": "secrets \"hooks\" not found",
    });
    let last_good = config(&[("audit", "http://audit.example/", "json")]);
    assert_eq!(
        first_read(404, status.to_string(), last_good).await,
        Config::default()
    );
}

#[tokio::test]
async fn a_refused_configuration_keeps_the_last_good_one() {
    let secret = serde_json::json!({
        "apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "hooks", "namespace": "hmc-system"},
        "data": {CONFIG_KEY: serde_json::to_value(ByteString(b"receivers: [{name: Bad}]".to_vec())).unwrap()},
    });
    let last_good = config(&[("audit", "http://audit.example/", "json")]);
    assert_eq!(
        first_read(200, secret.to_string(), last_good.clone()).await,
        last_good
    );
}

#[tokio::test]
async fn an_api_server_refusing_the_read_keeps_the_last_good_one() {
    let status = serde_json::json!({
        "kind": "Status", "apiVersion": "v1", "status": "Failure",
        "reason": "Forbidden", "code": 403, "message": "secrets \"hooks\" is forbidden",
    });
    let last_good = config(&[("audit", "http://audit.example/", "json")]);
    assert_eq!(
        first_read(403, status.to_string(), last_good.clone()).await,
        last_good
    );
}

#[test]
fn a_disabled_notifier_takes_everything_and_sends_nothing() {
    let notifier = Notifier::disabled();
    assert!(!notifier.is_enabled());
    notifier.tell(note("wave 0 completed"));
    assert_eq!(format!("{notifier:?}"), "Notifier { enabled: false }");
}
