//! Webhook notifications on the real harness, from the engine under its
//! own ServiceAccount (which may read the one notifications Secret, by
//! name, and no other secret).
//!
//! Four receivers on loopback: one takes the JSON body, one Slack's, one
//! accepts connections and never answers, one refuses them. A Manual
//! rollout of one wave is approved: the two that answer get "wave waits
//! for approval", "wave completed" and "rollout completed", once each and
//! in that order; the other two cost the rollout nothing.

mod common;

use std::convert::Infallible;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use common::rollouts::*;
use common::*;
use hmc_tui::api::RolloutPhase;
use hmc_tui::engine::notifications::{CONFIG_KEY, DEFAULT_SECRET, JSON_VERSION};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, PostParams};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// A receiver on loopback that answers 200 and hands each body over.
async fn answering() -> (String, mpsc::UnboundedReceiver<Value>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                    let tx = tx.clone();
                    async move {
                        let body = req.into_body().collect().await.map(|b| b.to_bytes());
                        if let Ok(v) = serde_json::from_slice::<Value>(&body.unwrap_or_default()) {
                            let _ = tx.send(v);
                        }
                        Ok::<_, Infallible>(hyper::Response::new(Full::new(Bytes::from("ok"))))
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(socket), service)
                    .await;
            });
        }
    });
    (url, rx)
}

/// A receiver that accepts connections and never answers.
async fn hanging() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    url
}

/// An address where nothing listens: connections are refused.
async fn refusing() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// The next `n` bodies a receiver gets.
async fn next(rx: &mut mpsc::UnboundedReceiver<Value>, n: usize, what: &str) -> Vec<Value> {
    let mut got = Vec::new();
    while got.len() < n {
        match tokio::time::timeout(STEP, rx.recv()).await {
            Ok(Some(v)) => got.push(v),
            _ => panic!("{what}: got {} of {n}: {got:?}", got.len()),
        }
    }
    got
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approval_wave_and_completion_reach_webhooks_once_in_order() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "notify").await;
    let (json_url, mut json_rx) = answering().await;
    let (slack_url, mut slack_rx) = answering().await;
    let (hang_url, refuse_url) = (hanging().await, refusing().await);
    let events = json!([
        "waveWaitingForApproval",
        "waveCompleted",
        "rolloutCompleted"
    ]);
    let receiver = |name: &str, url: &str, format: &str| {
        json!({"name": name, "url": url, "format": format, "events": events,
               "namespaces": [ns.name], "templates": ["fleet"]})
    };
    let config = json!({"receivers": [
        receiver("hangs", &hang_url, "json"),
        receiver("refuses", &refuse_url, "json"),
        receiver("ops-json", &json_url, "json"),
        receiver("ops-slack", &slack_url, "slack"),
    ]});
    // The engine's own namespace, under the name its Role grants.
    let secrets: Api<Secret> = Api::namespaced(mgmt.clone(), "hmc-system");
    let _ = secrets
        .delete(DEFAULT_SECRET, &DeleteParams::default())
        .await;
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": DEFAULT_SECRET},
        "stringData": {CONFIG_KEY: serde_yaml::to_string(&config).unwrap()},
    }))
    .unwrap();
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .expect("the notifications Secret");

    let engine = RunningEngine::start(&ns.name).await;
    fleet_at_4_11_3(
        &mgmt,
        &ns.name,
        json!({"strategy": "Manual", "maxConcurrent": 3}),
    )
    .await;
    fleet_template(
        &mgmt,
        &ns.name,
        "ingress-nginx-4-11-4",
        json!({"strategy": "Manual", "maxConcurrent": 3}),
    )
    .await;
    in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::WaitingForApproval).await;
    // Told before anyone approves.
    let first = next(&mut json_rx, 1, "the approval wait (json)").await;
    assert_eq!(first[0]["event"], "waveWaitingForApproval");
    request(&mgmt, &ns.name, "fleet-2", "approve", "alice").await;
    in_phase(&mgmt, &ns.name, "fleet-2", RolloutPhase::Succeeded).await;

    let json_bodies = [first, next(&mut json_rx, 2, "the json receiver").await].concat();
    let kinds: Vec<&str> = json_bodies
        .iter()
        .map(|b| b["event"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        kinds,
        [
            "waveWaitingForApproval",
            "waveCompleted",
            "rolloutCompleted"
        ]
    );
    for b in &json_bodies {
        assert_eq!(b["version"], JSON_VERSION);
        assert_eq!(b["namespace"], ns.name.as_str());
        assert_eq!(b["template"], "fleet");
        assert_eq!(b["rollout"], "fleet-2");
        assert_eq!(b["revision"], 2);
        assert!(b["id"].as_str().is_some_and(|id| id.len() == 64), "{b}");
    }
    assert_eq!(json_bodies[0]["wave"], 1);
    assert_eq!(json_bodies[0]["message"], "wave 1 waits for approval");
    assert_eq!(json_bodies[1]["message"], "wave 1 finished");
    assert_eq!(
        json_bodies[2]["message"],
        "revision 2 reached every cluster"
    );

    let slack = next(&mut slack_rx, 3, "the slack receiver").await;
    let texts: Vec<&str> = slack
        .iter()
        .map(|b| b["text"].as_str().unwrap_or_default())
        .collect();
    let at = format!("{}/fleet rollout fleet-2", ns.name);
    assert_eq!(
        texts,
        [
            format!(":hourglass: {at}: wave 1 waits for approval"),
            format!(":heavy_check_mark: {at}: wave 1 finished"),
            format!(":white_check_mark: {at}: revision 2 reached every cluster"),
        ]
    );
    assert!(
        slack
            .iter()
            .all(|b| b.as_object().is_some_and(|o| o.len() == 1))
    );

    // The refusing receiver gives each of the three up after its retries
    // (a positive marker some 15 s on); by then nothing came twice.
    let notifications = &engine.counters.notifications;
    eventually("the refusing receiver to give up", STEP, || async {
        (notifications.failed.load(Ordering::Relaxed) >= 3).then_some(())
    })
    .await;
    assert!(json_rx.try_recv().is_err(), "a notification came twice");
    assert!(slack_rx.try_recv().is_err(), "a notification came twice");
    assert_eq!(notifications.sent.load(Ordering::Relaxed), 6);
    assert_eq!(notifications.dropped.load(Ordering::Relaxed), 0);
    // Nothing in the messages speaks of the machinery underneath.
    for b in json_bodies.iter().chain(&slack) {
        assert!(!b.to_string().contains("HelmRelease"), "{b}");
    }

    let _ = secrets
        .delete(DEFAULT_SECRET, &DeleteParams::default())
        .await;
    teardown_fleet(&mgmt, &ns.name).await;
    engine.stop().await;
    ns.cleanup().await;
}

/// The engine's token reads the notifications Secret and no other secret.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_may_read_the_notifications_secret_and_no_other() {
    let engine = client_for(accounts::engine_kubeconfig().await).await;
    let secrets: Api<Secret> = Api::namespaced(engine, "hmc-system");
    // Named: allowed (absent or present, never forbidden).
    match secrets.get_opt(DEFAULT_SECRET).await {
        Ok(_) => {}
        Err(e) => panic!("reading {DEFAULT_SECRET}: {e}"),
    }
    // Any other name, or the list: forbidden.
    let other = secrets.get_opt("hmc-templates-auth").await;
    assert!(
        matches!(&other, Err(kube::Error::Api(s)) if s.code == 403),
        "{other:?}"
    );
    let list = secrets.list(&Default::default()).await;
    assert!(
        matches!(&list, Err(kube::Error::Api(s)) if s.code == 403),
        "{:?}",
        list.map(|l| l.items.len())
    );
}
