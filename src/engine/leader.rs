//! One engine per management cluster: a `coordination.k8s.io` Lease decides
//! which engine reconciles. The others wait, and take over when the holder
//! goes away (or releases the lease when it quits).

use std::sync::Arc;

use kube_lease_manager::LeaseManagerBuilder;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::{Context, run};

/// The lease every engine of a management cluster competes for.
pub const LEASE_NAME: &str = "hmc-tui-engine";

/// Where the lease lives, and who we are.
#[derive(Clone, Debug)]
pub struct LeaseOptions {
    pub namespace: String,
    pub identity: String,
    /// Seconds a holder keeps the lease without renewing it.
    pub duration: u64,
}

impl Default for LeaseOptions {
    fn default() -> Self {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap_or_else(|_| "unknown".into());
        Self {
            namespace: std::env::var("HMC_LEASE_NAMESPACE")
                .unwrap_or_else(|_| "kube-system".into()),
            identity: format!("{}-{}", host.trim(), std::process::id()),
            duration: 15,
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
    let manager = LeaseManagerBuilder::new(ctx.client.clone(), LEASE_NAME)
        .with_namespace(&lease.namespace)
        .with_identity(&lease.identity)
        .with_duration(lease.duration)
        .with_grace(5)
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
            tracing::info!(identity = %lease.identity, "holding the engine lease: reconciling");
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
