//! Taking, renewing and releasing the engine's Lease. Each write is a merge
//! patch that names the resourceVersion it was decided on, so of two
//! engines deciding on one version of the Lease only one succeeds; the
//! other gets a conflict and looks again.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::Api;
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use serde_json::json;

use crate::engine::claims;

/// What an attempt found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// This engine holds the Lease: the write that says so succeeded.
    Held,
    /// Another engine holds it (its identity; empty when another engine's
    /// write won a race and its name is not known yet).
    HeldBy(String),
}

/// One engine competing for one Lease.
pub struct Candidate {
    api: Api<Lease>,
    name: String,
    identity: String,
    duration_seconds: i32,
    /// The resourceVersion of the Lease as this engine last wrote it, while
    /// it holds it: a renewal names it, so it fails if anyone wrote since.
    written: Option<String>,
}

impl Candidate {
    pub fn new(api: Api<Lease>, name: String, identity: String, duration: Duration) -> Self {
        Self {
            api,
            name,
            identity,
            duration_seconds: i32::try_from(duration.as_secs()).unwrap_or(i32::MAX),
            written: None,
        }
    }

    /// Renews the Lease if this engine holds it, takes it if nobody does
    /// (no holder, or a term that ended [`claims::CLOCK_SKEW`] ago), or
    /// says who holds it.
    pub async fn take_or_renew(&mut self) -> Result<Outcome, kube::Error> {
        let now = Timestamp::now();
        if let Some(version) = self.written.take()
            && let Some(written) = self.patch(&version, now, None).await?
        {
            self.written = Some(written);
            return Ok(Outcome::Held);
        }
        // Not held by us as we last wrote it: look at what is there.
        let Some(current) = self.api.get_opt(&self.name).await? else {
            return self.create(now).await;
        };
        let spec = current.spec.clone().unwrap_or_default();
        let holder = spec.holder_identity.clone().unwrap_or_default();
        let ours = holder == self.identity;
        if !ours && claims::is_held(&current, now, claims::CLOCK_SKEW) {
            return Ok(Outcome::HeldBy(holder));
        }
        let Some(version) = current.metadata.resource_version.clone() else {
            return Ok(Outcome::HeldBy(holder));
        };
        let taken = (!ours).then(|| spec.lease_transitions.unwrap_or(0).saturating_add(1));
        match self.patch(&version, now, taken).await? {
            Some(written) => {
                self.written = Some(written);
                Ok(Outcome::Held)
            }
            None => Ok(Outcome::HeldBy(String::new())),
        }
    }

    /// Lets the Lease go, if this engine holds it as it last wrote it, so
    /// that a standby takes over at once.
    pub async fn release(&mut self) -> Result<(), kube::Error> {
        let Some(version) = self.written.take() else {
            return Ok(());
        };
        let patch = json!({
            "metadata": {"resourceVersion": version},
            "spec": {"holderIdentity": null},
        });
        match self
            .api
            .patch(&self.name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => Ok(()),
            // Someone wrote it since: it is not ours to release any more.
            Err(kube::Error::Api(e)) if e.code == 409 => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Writes this engine as the holder, renewed at `now`, over `version`
    /// (and, with `taken`, as a new holder after that many transitions).
    /// The new resourceVersion, or `None` on a conflict.
    async fn patch(
        &self,
        version: &str,
        now: Timestamp,
        taken: Option<i32>,
    ) -> Result<Option<String>, kube::Error> {
        let mut spec = json!({
            "holderIdentity": self.identity,
            "leaseDurationSeconds": self.duration_seconds,
            "renewTime": MicroTime(now),
        });
        if let Some(transitions) = taken {
            spec["acquireTime"] = json!(MicroTime(now));
            spec["leaseTransitions"] = json!(transitions);
        }
        let patch = json!({"metadata": {"resourceVersion": version}, "spec": spec});
        match self
            .api
            .patch(&self.name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(lease) => Ok(Some(lease.metadata.resource_version.unwrap_or_default())),
            Err(kube::Error::Api(e)) if e.code == 409 => Ok(None),
            Err(e) => Err(e),
        }
    }

    async fn create(&mut self, now: Timestamp) -> Result<Outcome, kube::Error> {
        let lease = Lease {
            metadata: ObjectMeta {
                name: Some(self.name.clone()),
                ..Default::default()
            },
            spec: Some(LeaseSpec {
                holder_identity: Some(self.identity.clone()),
                lease_duration_seconds: Some(self.duration_seconds),
                acquire_time: Some(MicroTime(now)),
                renew_time: Some(MicroTime(now)),
                lease_transitions: Some(0),
                ..Default::default()
            }),
        };
        match self.api.create(&PostParams::default(), &lease).await {
            Ok(made) => {
                self.written = made.metadata.resource_version;
                Ok(Outcome::Held)
            }
            // Another engine made it first.
            Err(kube::Error::Api(e)) if e.code == 409 => Ok(Outcome::HeldBy(String::new())),
            Err(e) => Err(e),
        }
    }
}
