//! The fence at the engine's API client: no write leaves the process unless
//! the engine's Lease is known to be held until a deadline that has not
//! passed.
//!
//! The lease loop ([`super::run_with_lease`]) moves the deadline: after each
//! successful take or renewal it is the instant that request was sent plus
//! the renew deadline, which ends before any other engine may take the
//! Lease (see [`super::Timing`]). A leader cut off from the API server thus
//! stops writing at its deadline even while it has not yet noticed, and a
//! write still waiting for its answer then is abandoned. Reads (and the
//! questions `read_only` lets through) always pass: a standby keeps its
//! stores filled.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use http::Method;
use tokio::time::Instant;
use tower::BoxError;

use crate::engine::read_only::{Gated, WriteGate};

/// Until when this process may write, shared by the lease loop and the
/// client. Clones share one deadline.
#[derive(Clone, Debug, Default)]
pub struct Fence {
    until: Arc<Mutex<Option<Instant>>>,
    refused: Arc<AtomicU64>,
}

impl Fence {
    /// Writes may leave until `deadline`.
    pub fn hold_until(&self, deadline: Instant) {
        *self.until.lock().unwrap_or_else(|e| e.into_inner()) = Some(deadline);
    }

    /// No write leaves any more.
    pub fn close(&self) {
        *self.until.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The deadline of writes, if one has not passed at `now`.
    pub fn open_until(&self, now: Instant) -> Option<Instant> {
        let until = *self.until.lock().unwrap_or_else(|e| e.into_inner());
        until.filter(|deadline| now < *deadline)
    }

    /// How many writes the fence refused.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}

/// The error of a write the fence refused.
#[derive(thiserror::Error, Debug)]
#[error(
    "not sure this engine leads (its lease is not known to be held): {method} {path} was refused before it was sent"
)]
pub struct NotLeading {
    pub method: Method,
    pub path: String,
}

/// The error of a write whose answer had not come when the lease deadline
/// passed.
#[derive(thiserror::Error, Debug)]
#[error("the engine's lease deadline passed before the API server answered {method} {path}")]
pub struct LeaseDeadlinePassed {
    pub method: Method,
    pub path: String,
}

impl WriteGate for Fence {
    fn admit(&self, method: &Method, path: &str) -> Result<Option<(Instant, BoxError)>, BoxError> {
        let (method, path) = (method.clone(), path.to_string());
        let Some(deadline) = self.open_until(Instant::now()) else {
            self.refused.fetch_add(1, Ordering::Relaxed);
            let refused = NotLeading { method, path };
            tracing::warn!(%refused, "write refused by the lease fence");
            return Err(refused.into());
        };
        Ok(Some((
            deadline,
            LeaseDeadlinePassed { method, path }.into(),
        )))
    }
}

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct FenceLayer(pub Fence);

impl<S> tower::Layer<S> for FenceLayer {
    type Service = Gated<S, Fence>;
    fn layer(&self, inner: S) -> Self::Service {
        Gated {
            inner,
            gate: self.0.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::Api;
    use kube::api::{Patch, PatchParams};
    use std::time::Duration;

    #[test]
    fn the_fence_is_open_only_until_its_deadline() {
        let fence = Fence::default();
        let t0 = Instant::now();
        assert_eq!(fence.open_until(t0), None, "closed until a lease is held");
        fence.hold_until(t0 + Duration::from_secs(10));
        assert_eq!(
            fence.open_until(t0 + Duration::from_secs(9)),
            Some(t0 + Duration::from_secs(10))
        );
        assert_eq!(fence.open_until(t0 + Duration::from_secs(10)), None);
        fence.hold_until(t0 + Duration::from_secs(20));
        fence.close();
        assert_eq!(fence.open_until(t0), None);
    }

    /// A fenced client pointed at a port that listens: with the fence
    /// closed a write fails with the refusal and never connects; with it
    /// open the write reaches the port.
    #[tokio::test]
    async fn a_write_leaves_only_while_the_fence_is_open() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let fence = Fence::default();
        let client = kube::client::ClientBuilder::try_from(kube::Config::new(url.parse().unwrap()))
            .unwrap()
            .with_layer(&FenceLayer(fence.clone()))
            .build();
        let api: Api<ConfigMap> = Api::namespaced(client, "team-a");
        async fn patch(api: &Api<ConfigMap>) -> kube::Result<ConfigMap> {
            let params = PatchParams::apply("hmc-tui");
            api.patch("x", &params, &Patch::Apply(serde_json::json!({})))
                .await
        }
        let e = patch(&api).await.unwrap_err();
        assert!(
            matches!(&e, kube::Error::Service(s) if s.downcast_ref::<NotLeading>().is_some()),
            "{e:?}"
        );
        assert_eq!(fence.refused(), 1);
        assert_eq!(
            listener.accept().map(drop).unwrap_err().kind(),
            std::io::ErrorKind::WouldBlock,
            "a refused write must not even connect"
        );
        // Open, with a deadline shorter than the silent port's answer: the
        // write reaches the port and is abandoned at the deadline.
        fence.hold_until(Instant::now() + Duration::from_millis(300));
        let e = patch(&api).await.unwrap_err();
        assert!(
            matches!(&e, kube::Error::Service(s) if s.downcast_ref::<LeaseDeadlinePassed>().is_some()),
            "{e:?}"
        );
        assert!(listener.accept().is_ok(), "an allowed write is sent");
        assert_eq!(fence.refused(), 1);
    }
}
