//! `--readonly` at the API client: a tower layer that refuses every request
//! that could change the cluster before it is sent. It is the one guarantee
//! that a read-only console or engine writes nothing: the console's keys
//! only say up front why a write would be refused, and a write that reaches
//! this layer anyway comes back refused, and the console says it is
//! read-only.
//!
//! Allowed: GET, HEAD and OPTIONS (reads, lists, watches), and the POSTs
//! that only ask the API server a question and store nothing (who am I,
//! may I): SelfSubjectReview, SelfSubjectAccessReview,
//! SelfSubjectRulesReview.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::{Method, Request};
use tokio::time::Instant;
use tower::BoxError;

/// Whether a client may write.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Access {
    #[default]
    ReadWrite,
    /// `--readonly`: every write is refused before it is sent.
    ReadOnly,
}

impl Access {
    /// The access `--readonly` asks for.
    pub fn from_readonly(readonly: bool) -> Access {
        if readonly {
            Access::ReadOnly
        } else {
            Access::ReadWrite
        }
    }
}

/// The error of a write refused by a read-only client.
#[derive(thiserror::Error, Debug)]
#[error("read-only (--readonly): {method} {path} was refused before it was sent")]
pub struct WriteRefused {
    pub method: Method,
    pub path: String,
}

/// The reviews that answer a question about the caller and store nothing.
const QUESTIONS: [&str; 3] = [
    "/apis/authentication.k8s.io/v1/selfsubjectreviews",
    "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
    "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
];

/// Whether a read-only client may send a request with this method and path.
pub fn is_read(method: &Method, path: &str) -> bool {
    match *method {
        Method::GET | Method::HEAD | Method::OPTIONS => true,
        Method::POST => QUESTIONS.contains(&path.trim_end_matches('/')),
        _ => false,
    }
}

/// What decides whether a client's writes leave: `--readonly` here, the
/// lease's fence in `leader::fence`. Reads always pass.
pub trait WriteGate: Clone {
    /// `Err`: the write is refused before it is sent. `Ok(None)`: it is
    /// sent. `Ok(Some((deadline, error)))`: it is sent, and fails with
    /// `error` if no answer has come by `deadline`.
    fn admit(&self, method: &Method, path: &str) -> Result<Option<(Instant, BoxError)>, BoxError>;
}

/// See the module documentation.
#[derive(Clone, Copy, Debug)]
pub struct ReadOnlyLayer;

impl WriteGate for ReadOnlyLayer {
    fn admit(&self, method: &Method, path: &str) -> Result<Option<(Instant, BoxError)>, BoxError> {
        let refused = WriteRefused {
            method: method.clone(),
            path: path.to_string(),
        };
        tracing::warn!(%refused, "write refused by the read-only client");
        Err(refused.into())
    }
}

impl<S> tower::Layer<S> for ReadOnlyLayer {
    type Service = Gated<S, ReadOnlyLayer>;
    fn layer(&self, inner: S) -> Self::Service {
        Gated { inner, gate: *self }
    }
}

/// A client's service behind a [`WriteGate`].
#[derive(Clone, Debug)]
pub struct Gated<S, G> {
    pub(crate) inner: S,
    pub(crate) gate: G,
}

impl<S, B, G> tower::Service<Request<B>> for Gated<S, G>
where
    S: tower::Service<Request<B>>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    G: WriteGate,
{
    type Response = S::Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let until = if is_read(req.method(), req.uri().path()) {
            None
        } else {
            match self.gate.admit(req.method(), req.uri().path()) {
                Ok(until) => until,
                Err(refused) => return Box::pin(std::future::ready(Err(refused))),
            }
        };
        let response = self.inner.call(req);
        Box::pin(async move {
            let Some((deadline, late)) = until else {
                return response.await.map_err(Into::into);
            };
            match tokio::time::timeout_at(deadline, response).await {
                Ok(answer) => answer.map_err(Into::into),
                Err(_) => Err(late),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::authentication::v1::SelfSubjectReview;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::Api;
    use kube::api::{DeleteParams, Patch, PatchParams, PostParams};

    #[test]
    fn reads_and_questions_pass_and_every_write_is_refused() {
        assert!(is_read(&Method::GET, "/api/v1/namespaces/a/secrets"));
        assert!(is_read(&Method::HEAD, "/version"));
        assert!(is_read(
            &Method::POST,
            "/apis/authentication.k8s.io/v1/selfsubjectreviews"
        ));
        assert!(is_read(
            &Method::POST,
            "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
        ));
        for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            assert!(
                !is_read(&method, "/api/v1/namespaces/a/configmaps"),
                "{method}"
            );
        }
        // A question about someone else (SubjectAccessReview) is not ours to ask.
        assert!(!is_read(
            &Method::POST,
            "/apis/authorization.k8s.io/v1/subjectaccessreviews"
        ));
        assert!(!is_read(
            &Method::POST,
            "/apis/authentication.k8s.io/v1/selfsubjectreviews/../../../api/v1/pods"
        ));
    }

    /// A read-only client pointed at a port that listens: the writes fail
    /// with the refusal, and the port sees no connection at all.
    #[tokio::test]
    async fn a_write_through_a_read_only_client_never_reaches_the_server() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let config = kube::Config::new(url.parse().unwrap());
        let client = kube::client::ClientBuilder::try_from(config)
            .unwrap()
            .with_layer(&ReadOnlyLayer)
            .build();
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), "team-a");
        let refusals = [
            api.create(&PostParams::default(), &ConfigMap::default())
                .await
                .map(drop),
            api.patch(
                "x",
                &PatchParams::apply("hmc-tui"),
                &Patch::Apply(serde_json::json!({})),
            )
            .await
            .map(drop),
            api.delete("x", &DeleteParams::default()).await.map(drop),
            api.replace("x", &PostParams::default(), &ConfigMap::default())
                .await
                .map(drop),
        ];
        for result in refusals {
            let e = result.unwrap_err();
            assert!(
                matches!(&e, kube::Error::Service(s) if s.downcast_ref::<WriteRefused>().is_some()),
                "{e:?}"
            );
            assert!(
                e.to_string().contains("was refused before it was sent"),
                "{e}"
            );
        }
        assert_eq!(
            listener.accept().map(drop).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "a refused write must not even connect"
        );
        // A read goes through: it reaches the port (and fails there, as no
        // API server answers).
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), api.get("x")).await;
        let reads = Api::<SelfSubjectReview>::all(client);
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(2),
            reads.create(&PostParams::default(), &SelfSubjectReview::default()),
        )
        .await;
        let mut connections = 0;
        while listener.accept().is_ok() {
            connections += 1;
        }
        assert!(connections >= 1, "reads must reach the server");
    }
}
