//! One engine per scope: a `coordination.k8s.io` Lease decides which engine
//! reconciles. The others wait, and take over when the holder goes away (or
//! releases the lease when it quits). How scopes share a management cluster
//! is in [`super::claims`].
//!
//! The holder renews the Lease every [`Timing::retry`]. If it has not
//! renewed within [`Timing::renew_deadline`] (shorter than the Lease's
//! term), it stops writing at once (the [`fence`] at its client refuses
//! every write from that instant, whether the engine has noticed or not),
//! stops its controllers, and ends with [`LeaseError::Lost`]; it then
//! stands down ([`run_standing_down`]): its state is rebuilt from nothing
//! and it competes for the Lease again, as a process restarted after
//! controller-runtime's managers exit would, in the same process and
//! without a restart's back-off. No other engine may take the Lease
//! before its term and [`claims::CLOCK_SKEW`] have passed since the last
//! renewal, which is after the renew deadline.

mod candidate;
pub mod fence;

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::Timestamp;
use kube::Api;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::claims::{self, lease_name};
use super::requests::seconds;
pub use super::role::Role;
use super::{Context, run};
use candidate::{Candidate, Outcome};
pub use fence::Fence;

/// The terms `HMC_LEASE_DURATION` may set, in seconds (15 otherwise): at
/// least 2 for a renewal within it, at most a minute so that the
/// deadlines' arithmetic stays small and a namespace engine renews its
/// claim within the cluster-wide engine's cap on claims (keep every
/// engine of a management cluster on one term).
pub const LEASE_DURATIONS: std::ops::RangeInclusive<u64> = 2..=60;

/// Where the lease lives, which one it is, and who we are.
#[derive(Clone)]
pub struct LeaseOptions {
    /// The namespace of every engine's Lease (`HMC_LEASE_NAMESPACE`).
    pub namespace: String,
    /// The namespace this engine reconciles; `None` for all of them.
    pub scope: Option<String>,
    pub identity: String,
    /// Seconds a holder keeps the lease without renewing it
    /// (`HMC_LEASE_DURATION`, default 15).
    pub duration: u64,
    /// Until when the engine's client may write; moved by every renewal.
    pub fence: Fence,
    /// The client that takes and renews the Lease, when the engine's own
    /// client is fenced (and so could not take it); `None`: the engine's.
    pub lease_client: Option<kube::Client>,
}

impl std::fmt::Debug for LeaseOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LeaseOptions")
            .field("namespace", &self.namespace)
            .field("scope", &self.scope)
            .field("identity", &self.identity)
            .field("duration", &self.duration)
            .finish_non_exhaustive()
    }
}

impl LeaseOptions {
    /// The lease of an engine that reconciles `scope` (`None`: every
    /// namespace), from the environment.
    pub fn for_scope(scope: Option<String>) -> Self {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_else(|_| "unknown".into());
        Self {
            namespace: std::env::var("HMC_LEASE_NAMESPACE")
                .unwrap_or_else(|_| "kube-system".into()),
            scope,
            identity: format!("{}-{}", host.trim(), std::process::id()),
            duration: std::env::var("HMC_LEASE_DURATION")
                .ok()
                .and_then(|d| d.parse().ok())
                .filter(|d| LEASE_DURATIONS.contains(d))
                .unwrap_or(15),
            fence: Fence::default(),
            lease_client: None,
        }
    }

    /// The engine's client is fenced by `fence`; `lease_client` (not
    /// fenced) takes and renews the Lease.
    pub fn fenced(mut self, fence: Fence, lease_client: kube::Client) -> Self {
        self.fence = fence;
        self.lease_client = Some(lease_client);
        self
    }

    /// The Lease this engine competes for.
    pub fn lease_name(&self) -> String {
        lease_name(self.scope.as_deref())
    }

    pub fn timing(&self) -> Timing {
        Timing::new(Duration::from_secs(self.duration))
    }
}

/// The lease's clocks, all from its term, as controller-runtime sets them
/// (term 15 s, renew deadline 10 s, a try every 2 s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    /// How long a holder keeps the Lease without renewing it.
    pub duration: Duration,
    /// How long after a renewal was sent the holder may still write: two
    /// thirds of the term.
    pub renew_deadline: Duration,
    /// How often the holder renews, and a standby looks: a fifth of the
    /// term, so that a holder tries about three times before its deadline.
    pub retry: Duration,
}

impl Timing {
    pub fn new(duration: Duration) -> Self {
        Self {
            duration,
            renew_deadline: duration * 2 / 3,
            retry: (duration / 5).max(Duration::from_millis(200)),
        }
    }

    /// How long after a renewal was sent another engine may take the
    /// Lease, by its clock: the term and the clock skew margin.
    pub fn takeover_after(&self) -> Duration {
        self.duration + claims::CLOCK_SKEW
    }

    /// How far the holder's clock may run ahead of the next holder's
    /// before both could write at once: the holder writes `renewTime` from
    /// its clock, stops at its renew deadline by its own monotonic clock,
    /// and the other compares `renewTime` with its clock.
    pub fn skew_tolerated(&self) -> Duration {
        self.takeover_after().saturating_sub(self.renew_deadline)
    }
}

/// Why the engine stopped leading without being asked to.
#[derive(thiserror::Error, Debug)]
pub enum LeaseError {
    #[error(
        "the engine lease {lease} is not known to be held any more ({why}; renew deadline {deadline}): this engine stopped writing"
    )]
    Lost {
        lease: String,
        deadline: String,
        why: String,
    },
    #[error("the engine stopped by itself while holding the lease {lease}")]
    EngineEnded { lease: String },
}

/// Feeds `ctx.claims` with the Leases of the lease namespace, for a
/// cluster-wide engine; returns once they are listed.
async fn watch_claims(ctx: &Context, lease: &LeaseOptions, shutdown: &CancellationToken) {
    let api: Api<Lease> = Api::namespaced(ctx.client.clone(), &lease.namespace);
    let (reader, writer) = reflector::store();
    let stream = reflector(
        writer,
        watcher(api, watcher::Config::default()).default_backoff(),
    )
    .touched_objects()
    .for_each(|item| {
        if let Err(error) = item {
            tracing::warn!(%error, "watching the engines' leases");
        }
        futures::future::ready(())
    });
    let stop = shutdown.clone();
    tokio::spawn(async move {
        tokio::select! {
            _ = stream => {}
            _ = stop.cancelled() => {}
        }
    });
    ctx.claims.watch(
        reader.clone(),
        &lease.namespace,
        claims::claim_cap(lease.timing().duration),
    );
    // Without the Leases it cannot know which namespaces are held, so it
    // does not start; every 30 s it says why it waits.
    let ready = reader.wait_until_ready();
    tokio::pin!(ready);
    loop {
        tokio::select! {
            _ = &mut ready => break,
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(Duration::from_secs(30)) => tracing::error!(
                namespace = %lease.namespace,
                "cannot list the engines' leases (the engine needs list and watch on leases there); not reconciling until it can"
            ),
        }
    }
}

/// For a namespace-scoped engine that just took its lease: while a
/// cluster-wide engine leads, wait one lease duration, so that whatever it
/// had in flight in this namespace finishes before this engine writes.
async fn let_the_cluster_engine_leave(
    ctx: &Context,
    lease: &LeaseOptions,
    shutdown: &CancellationToken,
) {
    let api: Api<Lease> = Api::namespaced(ctx.client.clone(), &lease.namespace);
    let held = match api.get_opt(claims::CLUSTER_LEASE).await {
        Ok(Some(l)) => claims::is_held(&l, Timestamp::now(), Duration::ZERO),
        Ok(None) => false,
        // Not knowing is treated as "it may lead".
        Err(error) => {
            tracing::warn!(%error, "cannot read the cluster-wide engine's lease");
            true
        }
    };
    if held {
        tracing::info!(
            seconds = lease.duration,
            "a cluster-wide engine leads: waiting for it to leave this namespace"
        );
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(lease.duration)) => {}
            _ = shutdown.cancelled() => {}
        }
    }
}

/// Runs the engine whenever this process holds the lease, until `shutdown`.
/// `role` tells the caller (the console's header, `/readyz`) what happens.
/// Ends with [`LeaseError::Lost`] when the lease was not renewed in time:
/// the engine then has stopped writing, and the caller stands down
/// ([`run_standing_down`]).
pub async fn run_with_lease(
    ctx: Arc<Context>,
    lease: LeaseOptions,
    role: watch::Sender<Role>,
    shutdown: CancellationToken,
) -> Result<(), LeaseError> {
    let timing = lease.timing();
    if lease.scope.is_none() {
        watch_claims(&ctx, &lease, &shutdown).await;
    }
    let client = lease
        .lease_client
        .clone()
        .unwrap_or_else(|| ctx.client.clone());
    let mut candidate = Candidate::new(
        Api::namespaced(client, &lease.namespace),
        lease.lease_name(),
        lease.identity.clone(),
        timing.duration,
    );
    let fence = lease.fence.clone();
    if !take(&mut candidate, &lease, &timing, &role, &shutdown).await {
        return Ok(());
    }
    set_role(&role, Role::Leader);
    tracing::info!(
        identity = %lease.identity,
        lease = %lease.lease_name(),
        renew_deadline = %seconds(&timing.renew_deadline),
        "holding the engine lease: reconciling"
    );
    let stop = shutdown.child_token();
    let mut engine = {
        let (ctx, lease, stop) = (ctx.clone(), lease.clone(), stop.clone());
        tokio::spawn(async move {
            if lease.scope.is_some() {
                let_the_cluster_engine_leave(&ctx, &lease, &stop).await;
            }
            if !stop.is_cancelled() {
                run(ctx, stop).await;
            }
        })
    };
    let lost = loop {
        let Some(deadline) = fence.open_until(Instant::now()) else {
            break Some(MISSED.to_string());
        };
        tokio::select! {
            _ = shutdown.cancelled(), if !stop.is_cancelled() => {
                // Renewals go on while the controllers finish, so that what
                // they write on the way out is still fenced by the lease.
                stop.cancel();
            }
            _ = &mut engine => break None,
            _ = tokio::time::sleep_until(deadline) => {
                break Some(MISSED.to_string());
            }
            _ = tokio::time::sleep(timing.retry) => {
                let sent = Instant::now();
                tokio::select! {
                    outcome = candidate.take_or_renew() => match outcome {
                        Ok(Outcome::Held) => fence.hold_until(sent + timing.renew_deadline),
                        Ok(Outcome::HeldBy(holder)) => {
                            break Some(format!("another engine ({holder}) holds it now"));
                        }
                        Err(error) => tracing::warn!(
                            %error,
                            until = %seconds(&deadline.saturating_duration_since(Instant::now())),
                            "cannot renew the engine lease; trying again until the renew deadline"
                        ),
                    },
                    _ = tokio::time::sleep_until(deadline) => {
                        break Some(MISSED.to_string());
                    }
                }
            }
        }
    };
    // Nothing leaves any more, then the controllers stop.
    fence.close();
    stop.cancel();
    let lease_name = lease.lease_name();
    let Some(why) = lost else {
        // The controllers ended: asked to, or by themselves.
        if let Err(error) = tokio::time::timeout(timing.renew_deadline, candidate.release())
            .await
            .unwrap_or_else(|_| Err(kube::Error::Service("no answer in time".into())))
        {
            tracing::warn!(%error, "cannot release the engine lease; it expires by itself");
        }
        set_role(&role, Role::Standby);
        if shutdown.is_cancelled() {
            return Ok(());
        }
        return Err(LeaseError::EngineEnded { lease: lease_name });
    };
    set_role(&role, Role::Standby);
    let error = LeaseError::Lost {
        lease: lease_name,
        deadline: seconds(&timing.renew_deadline),
        why,
    };
    tracing::error!(%error, "not leading: stopped writing");
    // The fence refuses the controllers' writes already; their reads may
    // hang where the API server is cut off, so they get one term at most.
    if tokio::time::timeout(timing.duration, &mut engine)
        .await
        .is_err()
    {
        engine.abort();
    }
    Err(error)
}

/// [`run_with_lease`] until `shutdown`, standing down whenever the lease is
/// lost: the engine has stopped writing (the fence) and its controllers;
/// its state is then rebuilt from nothing ([`Context::rebuilt`]: the same
/// client and stores, which the API server's watches keep true, and none
/// of what the engine remembered of its own writes, retries and claims) and
/// it competes for the lease again, as a restarted process would, without a
/// restart's delay. The same for the headless engine and the console's.
pub async fn run_standing_down(
    ctx: Arc<Context>,
    lease: LeaseOptions,
    role: watch::Sender<Role>,
    shutdown: CancellationToken,
) -> Result<(), LeaseError> {
    let mut ctx = ctx;
    loop {
        // What one term of leading starts (the claims' watch) ends with it.
        let term = shutdown.child_token();
        let outcome = run_with_lease(ctx.clone(), lease.clone(), role.clone(), term.clone()).await;
        term.cancel();
        match outcome {
            Err(lost @ LeaseError::Lost { .. }) if !shutdown.is_cancelled() => {
                tracing::warn!(
                    error = %lost,
                    "stood down: the engine's state is rebuilt, and it competes for the lease again"
                );
                ctx = Arc::new(ctx.rebuilt());
            }
            done => return done,
        }
    }
}

/// Why a leader stops when its renew deadline passes.
const MISSED: &str = "no renewal succeeded within the renew deadline";

/// Tells `role`'s listeners of a change only.
fn set_role(role: &watch::Sender<Role>, now: Role) {
    role.send_if_modified(|was| std::mem::replace(was, now) != now);
}

/// Until this engine takes the lease (true) or `shutdown` (false); the role
/// is `Standby` while another engine holds it.
async fn take(
    candidate: &mut Candidate,
    lease: &LeaseOptions,
    timing: &Timing,
    role: &watch::Sender<Role>,
    shutdown: &CancellationToken,
) -> bool {
    let mut told = None;
    loop {
        let sent = Instant::now();
        let attempt = tokio::select! {
            _ = shutdown.cancelled() => return false,
            attempt = tokio::time::timeout(timing.renew_deadline, candidate.take_or_renew()) => attempt,
        };
        match attempt {
            Ok(Ok(Outcome::Held)) => {
                lease.fence.hold_until(sent + timing.renew_deadline);
                return true;
            }
            Ok(Ok(Outcome::HeldBy(holder))) => {
                set_role(role, Role::Standby);
                if told.as_ref() != Some(&holder) && !holder.is_empty() {
                    tracing::info!(%holder, "another engine holds the lease: standing by");
                    told = Some(holder);
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(%error, lease = %lease.lease_name(), "cannot read or take the engine lease")
            }
            Err(_) => {
                tracing::warn!(lease = %lease.lease_name(), "no answer about the engine lease in time")
            }
        }
        tokio::select! {
            _ = shutdown.cancelled() => return false,
            _ = tokio::time::sleep(timing.retry) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_renew_deadline_ends_before_another_engine_may_take_the_lease() {
        for secs in [2, 6, 15, 60] {
            let t = Timing::new(Duration::from_secs(secs));
            assert!(t.renew_deadline < t.duration, "{t:?}");
            assert!(t.renew_deadline < t.takeover_after(), "{t:?}");
            // At least two tries before the deadline.
            assert!(t.retry * 2 < t.renew_deadline, "{t:?}");
        }
        let t = Timing::new(Duration::from_secs(15));
        assert_eq!(t.renew_deadline, Duration::from_secs(10));
        assert_eq!(t.retry, Duration::from_secs(3));
        assert_eq!(t.takeover_after(), Duration::from_secs(17));
        // Clocks may disagree by up to 7 s before two engines could write.
        assert_eq!(t.skew_tolerated(), Duration::from_secs(7));
    }
}
