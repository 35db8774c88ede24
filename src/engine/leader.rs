//! One engine per scope: a `coordination.k8s.io` Lease decides which engine
//! reconciles. The others wait, and take over when the holder goes away (or
//! releases the lease when it quits). How scopes share a management cluster
//! is in [`super::claims`].

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::Timestamp;
use kube::Api;
use kube::runtime::{WatchStreamExt, reflector, watcher};
use kube_lease_manager::LeaseManagerBuilder;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::claims::{self, lease_name};
use super::{Context, run};

/// Where the lease lives, which one it is, and who we are.
#[derive(Clone, Debug)]
pub struct LeaseOptions {
    /// The namespace of every engine's Lease (`HMC_LEASE_NAMESPACE`).
    pub namespace: String,
    /// The namespace this engine reconciles; `None` for all of them.
    pub scope: Option<String>,
    pub identity: String,
    /// Seconds a holder keeps the lease without renewing it
    /// (`HMC_LEASE_DURATION`, default 15).
    pub duration: u64,
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
                .filter(|d| *d >= 2)
                .unwrap_or(15),
        }
    }

    /// The Lease this engine competes for.
    pub fn lease_name(&self) -> String {
        lease_name(self.scope.as_deref())
    }

    /// How long before its term ends a holder renews.
    fn grace(&self) -> u64 {
        (self.duration / 3).clamp(1, 5)
    }
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
    ctx.claims.watch(reader.clone(), &lease.namespace);
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

/// Whether this process's engine reconciles right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Not yet known: the lease is being asked for.
    Starting,
    /// This engine holds the lease and reconciles.
    Leader,
    /// Another engine holds the lease; this one only watches.
    Standby,
}

/// Runs the engine whenever this process holds the lease, until `shutdown`.
/// `role` tells the caller (the console's header, `/readyz`) what happens.
pub async fn run_with_lease(
    ctx: Arc<Context>,
    lease: LeaseOptions,
    role: watch::Sender<Role>,
    shutdown: CancellationToken,
) -> Result<(), kube_lease_manager::LeaseManagerError> {
    if lease.scope.is_none() {
        watch_claims(&ctx, &lease, &shutdown).await;
    }
    let manager = LeaseManagerBuilder::new(ctx.client.clone(), lease.lease_name())
        .with_namespace(&lease.namespace)
        .with_identity(&lease.identity)
        .with_duration(lease.duration)
        .with_grace(lease.grace())
        .build()
        .await?;
    let (mut leading, task) = manager.watch().await;
    loop {
        let is_leader = *leading.borrow_and_update();
        let _ = role.send(if is_leader {
            Role::Leader
        } else {
            Role::Standby
        });
        if is_leader {
            tracing::info!(identity = %lease.identity, lease = %lease.lease_name(), "holding the engine lease: reconciling");
            if lease.scope.is_some() {
                let_the_cluster_engine_leave(&ctx, &lease, &shutdown).await;
            }
            let stop = shutdown.child_token();
            let engine = tokio::spawn(run(ctx.clone(), stop.clone()));
            tokio::select! {
                _ = shutdown.cancelled() => {}
                changed = leading.changed() => { if changed.is_err() { shutdown.cancel(); } }
            }
            // Stop writing before anyone else may start.
            stop.cancel();
            let _ = engine.await;
            if shutdown.is_cancelled() {
                break;
            }
            tracing::warn!("lost the engine lease: standing by");
        } else {
            tracing::info!("another engine holds the lease: standing by");
            tokio::select! {
                _ = shutdown.cancelled() => break,
                changed = leading.changed() => if changed.is_err() { break },
            }
        }
    }
    // Dropping the receiver makes the manager release the lease.
    drop(leading);
    match task.await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e),
        Err(_) => Ok(()),
    }
}
