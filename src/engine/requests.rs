//! Counts every request a client sends to the API server, by verb and
//! resource: what `/metrics` reports as `hmc_api_requests_total` and what
//! the engine benchmark divides by the number of clusters.
//!
//! The count is taken by a tower layer around the whole client, so it sees
//! every request: the stores' lists and watches, reconcilers' reads and
//! writes, Events and lease renewals alike.
//!
//! The same client bounds every request in time: a connect timeout and a
//! read timeout on the connection (above the watches' long polls), and a
//! deadline for each request that is not a watch, from its start to the
//! last byte of its response.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{Method, Request, Response};
use hyper::body::{Body, Frame, SizeHint};
use tokio::time::{Instant, Sleep};
use tower::BoxError;

use super::leader::fence::{Fence, FenceLayer};
use super::read_only::{Access, ReadOnlyLayer};

/// Connecting to the API server (TCP and TLS) takes at most this long.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest silence on a connection before it counts as dead. Watches
/// ask the API server to end them after 290 s and the watcher gives up 5 s
/// later, so this is above both: a quiet watch is never cut by it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(300);
/// The longest any request but a watch may take, from its start to the
/// last byte of its response. The API server ends its own work on such a
/// request at 60 s; an engine that waits half of that knows sooner.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(30);

/// Marks a request whose caller bounds it in time itself, so the client's
/// deadline leaves it alone: a chart download through the service proxy
/// has a longer deadline of its own, and its own words for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoundedByCaller;

/// Requests sent, keyed by (verb, resource).
#[derive(Debug, Default)]
pub struct ApiRequests(Mutex<BTreeMap<(&'static str, String), u64>>);

impl ApiRequests {
    /// Counts one request.
    pub fn count<B>(&self, req: &Request<B>) {
        let (verb, resource) = classify(req.method(), req.uri().path(), req.uri().query());
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *map.entry((verb, resource)).or_default() += 1;
    }

    pub fn snapshot(&self) -> BTreeMap<(&'static str, String), u64> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Whether a verb reads (get, list, watch) rather than writes.
pub fn is_read(verb: &str) -> bool {
    matches!(verb, "get" | "list" | "watch")
}

/// The Kubernetes verb and the resource (with `/subresource`) of a request
/// path such as `/apis/group/v1/namespaces/ns/kind/name/status`.
/// Whether a request's query asks for a watch.
fn is_watch(query: Option<&str>) -> bool {
    query.is_some_and(|q| q.split('&').any(|kv| kv == "watch=true" || kv == "watch=1"))
}

pub fn classify(method: &Method, path: &str, query: Option<&str>) -> (&'static str, String) {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // `/api/v1/...` or `/apis/<group>/<version>/...`; anything else (discovery,
    // /version) is counted under its first segment.
    let rest: &[&str] = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        other => other,
    };
    // Namespaced paths: `namespaces/<ns>/<resource>...`; a bare
    // `namespaces[/<name>]` is the Namespace resource itself.
    let rest = match rest {
        ["namespaces", _ns, tail @ ..] if !tail.is_empty() => tail,
        other => other,
    };
    let resource = match rest {
        [] => String::new(),
        [kind] | [kind, _] => (*kind).to_string(),
        [kind, _name, sub, ..] => format!("{kind}/{sub}"),
    };
    let named = rest.len() >= 2;
    let watching = is_watch(query);
    let verb = match *method {
        Method::GET if watching => "watch",
        Method::GET if named => "get",
        Method::GET => "list",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if named => "delete",
        Method::DELETE => "deletecollection",
        _ => "other",
    };
    (verb, resource)
}

/// `config` with the connection's timeouts: [`CONNECT_TIMEOUT`] and
/// [`READ_TIMEOUT`], the read timeout counted from each request sent (not
/// from when a pooled connection went idle).
pub fn with_timeouts(mut config: kube::Config) -> kube::Config {
    config.connect_timeout = Some(CONNECT_TIMEOUT);
    config.read_timeout = Some(READ_TIMEOUT);
    config.reset_reader_on_write = true;
    config
}

/// A kube client for `config` whose every request is counted in `requests`
/// and, unless it is a watch, ends within [`REQUEST_DEADLINE`]. A
/// [`Access::ReadOnly`] client refuses every write before it is counted or
/// sent.
pub fn counted_client(
    config: kube::Config,
    requests: Arc<ApiRequests>,
    access: Access,
) -> Result<kube::Client, kube::Error> {
    client(config, requests, access, None)
}

/// The headless engine's client: as [`counted_client`], and every write
/// refused before it is counted or sent unless `fence` says the engine's
/// lease is held (see [`crate::engine::leader::fence`]).
pub fn fenced_client(
    config: kube::Config,
    requests: Arc<ApiRequests>,
    fence: Fence,
) -> Result<kube::Client, kube::Error> {
    client(config, requests, Access::ReadWrite, Some(fence))
}

fn client(
    config: kube::Config,
    requests: Arc<ApiRequests>,
    access: Access,
    fence: Option<Fence>,
) -> Result<kube::Client, kube::Error> {
    let layer = tower::util::MapRequestLayer::new(move |req: Request<kube::client::Body>| {
        requests.count(&req);
        req
    });
    let read_only = (access == Access::ReadOnly).then_some(ReadOnlyLayer);
    Ok(
        kube::client::ClientBuilder::try_from(with_timeouts(config))?
            .with_layer(&layer)
            .with_layer(&DeadlineLayer(REQUEST_DEADLINE))
            // The outermost layers: a refused write is not even counted.
            .with_layer(&tower::util::option_layer(fence.map(FenceLayer)))
            .with_layer(&tower::util::option_layer(read_only))
            .build(),
    )
}

/// `60s`, `1.5s`, `300ms`: a duration as people write it.
pub fn seconds(d: &Duration) -> String {
    match (d.as_millis(), d.subsec_millis()) {
        (ms, _) if ms < 1000 => format!("{ms}ms"),
        (_, 0) => format!("{}s", d.as_secs()),
        _ => format!("{:.1}s", d.as_secs_f64()),
    }
}

/// Gives every request but a watch a deadline for its whole exchange: the
/// response's headers and every byte of its body.
#[derive(Clone, Copy, Debug)]
pub struct DeadlineLayer(pub Duration);

impl<S> tower::Layer<S> for DeadlineLayer {
    type Service = Deadline<S>;
    fn layer(&self, inner: S) -> Deadline<S> {
        Deadline {
            inner,
            limit: self.0,
        }
    }
}

/// See [`DeadlineLayer`].
#[derive(Clone, Debug)]
pub struct Deadline<S> {
    inner: S,
    limit: Duration,
}

/// The error of a request that ran out of time.
#[derive(thiserror::Error, Debug)]
#[error("no complete answer from the API server within {}", seconds(.0))]
pub struct DeadlineExceeded(pub Duration);

impl<S, B, ReqB> tower::Service<Request<ReqB>> for Deadline<S>
where
    S: tower::Service<Request<ReqB>, Response = Response<B>>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    B: Body<Data = Bytes> + Unpin + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = Response<DeadlineBody<B>>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, req: Request<ReqB>) -> Self::Future {
        // Only the query is read: the counting layer already classified it.
        let watch = req.method() == http::Method::GET && is_watch(req.uri().query());
        let bounded_by_caller = req.extensions().get::<BoundedByCaller>().is_some();
        let limit = (!watch && !bounded_by_caller).then_some(self.limit);
        let response = self.inner.call(req);
        Box::pin(async move {
            let Some(limit) = limit else {
                let resp = response.await.map_err(Into::into)?;
                return Ok(resp.map(|body| DeadlineBody::new(body, None)));
            };
            let until = Instant::now() + limit;
            let resp = tokio::time::timeout_at(until, response)
                .await
                .map_err(|_| DeadlineExceeded(limit))?
                .map_err(Into::into)?;
            Ok(resp.map(|body| DeadlineBody::new(body, Some((until, limit)))))
        })
    }
}

/// A response body that fails once its request's deadline has passed.
pub struct DeadlineBody<B> {
    inner: B,
    /// When the request's time is up, and how long it had; none for a watch.
    until: Option<(Pin<Box<Sleep>>, Duration)>,
}

impl<B> DeadlineBody<B> {
    fn new(inner: B, until: Option<(Instant, Duration)>) -> Self {
        Self {
            inner,
            until: until.map(|(at, limit)| (Box::pin(tokio::time::sleep_until(at)), limit)),
        }
    }
}

impl<B> Body for DeadlineBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        if let Some((until, limit)) = this.until.as_mut()
            && until.as_mut().poll(cx).is_ready()
        {
            return Poll::Ready(Some(Err(DeadlineExceeded(*limit).into())));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verb_of(method: Method, path: &str, query: Option<&str>) -> (&'static str, String) {
        classify(&method, path, query)
    }

    #[test]
    fn classifies_kubernetes_paths() {
        let cases = [
            (
                Method::GET,
                "/apis/hmc.mirantis.com/v1alpha1/namespaces/a/managedclusters",
                None,
                ("list", "managedclusters"),
            ),
            (
                Method::GET,
                "/apis/hmc.mirantis.com/v1alpha1/managedclusters",
                Some("watch=true&resourceVersion=1"),
                ("watch", "managedclusters"),
            ),
            (
                Method::GET,
                "/apis/hmc.mirantis.com/v1alpha1/namespaces/a/templaterollouts/t-2",
                None,
                ("get", "templaterollouts"),
            ),
            (
                Method::PATCH,
                "/apis/helm.toolkit.fluxcd.io/v2/namespaces/a/helmreleases/c1-ingress",
                Some("fieldManager=hmc-tui&force=true"),
                ("patch", "helmreleases"),
            ),
            (
                Method::PATCH,
                "/apis/hmc.mirantis.com/v1alpha1/namespaces/a/managedclusters/c1/status",
                None,
                ("patch", "managedclusters/status"),
            ),
            (
                Method::POST,
                "/apis/events.k8s.io/v1/namespaces/a/events",
                None,
                ("create", "events"),
            ),
            (
                Method::PUT,
                "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/hmc-tui-engine",
                None,
                ("update", "leases"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/a",
                None,
                ("get", "namespaces"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces",
                None,
                ("list", "namespaces"),
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/a/secrets/s",
                None,
                ("delete", "secrets"),
            ),
            (Method::GET, "/version", None, ("list", "version")),
        ];
        for (method, path, query, (verb, resource)) in cases {
            assert_eq!(
                verb_of(method, path, query),
                (verb, resource.to_string()),
                "{path}"
            );
        }
    }

    use crate::engine::artifact::hostile::{Behaviour, Server, ended_at, start};

    /// A client with the deadline layer, as `counted_client` builds it, but
    /// with a deadline short enough for a test.
    fn client_with_deadline(server: &Server, deadline: Duration) -> kube::Client {
        let config = with_timeouts(kube::Config::new(server.url("").parse().unwrap()));
        kube::client::ClientBuilder::try_from(config)
            .unwrap()
            .with_layer(&DeadlineLayer(deadline))
            .build()
    }

    fn get(path: &str) -> Request<Vec<u8>> {
        Request::get(path).body(Vec::new()).unwrap()
    }

    #[tokio::test]
    async fn requests_end_at_the_deadline_headers_and_body_alike() {
        for behaviour in [Behaviour::Silent, Behaviour::Trickle] {
            let server = start(behaviour.clone()).await;
            let client = client_with_deadline(&server, Duration::from_millis(300));
            let started = std::time::Instant::now();
            let e = client
                .request_text(get("/api/v1/namespaces"))
                .await
                .unwrap_err();
            let took = started.elapsed();
            assert!(
                e.to_string()
                    .contains("no complete answer from the API server within 300ms"),
                "{behaviour:?}: {e}"
            );
            ended_at(took, Duration::from_millis(300));
        }
    }

    #[tokio::test]
    async fn watches_and_requests_bounded_by_their_caller_have_no_deadline() {
        let server = start(Behaviour::Silent).await;
        let client = client_with_deadline(&server, Duration::from_millis(200));
        let watch = client.request_text(get("/api/v1/namespaces?watch=true&timeoutSeconds=290"));
        assert!(
            tokio::time::timeout(Duration::from_millis(800), watch)
                .await
                .is_err(),
            "a watch is still waiting after 4 deadlines"
        );
        let mut req = http::Request::get("/api/v1/namespaces/a/services/http:x:80/proxy/c.tgz")
            .body(kube::client::Body::empty())
            .unwrap();
        req.extensions_mut().insert(BoundedByCaller);
        assert!(
            tokio::time::timeout(Duration::from_millis(800), client.send(req))
                .await
                .is_err(),
            "a request its caller bounds is left alone"
        );
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(seconds(&Duration::from_secs(60)), "60s");
        assert_eq!(seconds(&Duration::from_millis(300)), "300ms");
        assert_eq!(seconds(&Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn the_read_timeout_is_above_the_watches_long_poll() {
        let config = with_timeouts(kube::Config::new("http://127.0.0.1:1".parse().unwrap()));
        assert_eq!(config.connect_timeout, Some(CONNECT_TIMEOUT));
        assert_eq!(config.read_timeout, Some(READ_TIMEOUT));
        // 290 s asked of the API server, 5 s more before the watcher gives up.
        assert!(READ_TIMEOUT > Duration::from_secs(295));
        assert!(REQUEST_DEADLINE * 5 <= READ_TIMEOUT);
    }

    #[test]
    fn counts_by_verb_and_resource() {
        let requests = ApiRequests::default();
        for _ in 0..3 {
            requests.count(
                &Request::patch("/api/v1/namespaces/a/secrets/s")
                    .body(())
                    .unwrap(),
            );
        }
        requests.count(
            &Request::get("/api/v1/namespaces/a/secrets")
                .body(())
                .unwrap(),
        );
        let snapshot = requests.snapshot();
        assert_eq!(snapshot[&("patch", "secrets".to_string())], 3);
        assert_eq!(snapshot[&("list", "secrets".to_string())], 1);
        assert!(is_read("watch") && !is_read("patch"));
    }
}
