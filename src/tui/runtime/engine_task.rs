//! The engine in the console's process: a task that reconciles while it
//! holds the lease, and tells the loop when it leads and when it stops.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::engine::{self, Context};
use crate::tui::state::app::Msg;

/// How long quitting waits for the engine to stop.
const ENGINE_STOP: Duration = Duration::from_secs(10);

/// The engine in a task, reconciling while it holds the lease; messages
/// when it takes or loses the lease, and when it stops without being asked to.
pub fn spawn_engine(
    ctx: Arc<Context>,
    scope: Option<String>,
    shutdown: CancellationToken,
    tx: UnboundedSender<Msg>,
) -> JoinHandle<()> {
    let (role_tx, mut role_rx) = tokio::sync::watch::channel(engine::leader::Role::Starting);
    let roles = tx.clone();
    tokio::spawn(async move {
        while role_rx.changed().await.is_ok() {
            let leading = *role_rx.borrow_and_update() == engine::leader::Role::Leader;
            if roles.send(Msg::EngineLeading(leading)).is_err() {
                break;
            }
        }
    });
    let lease = engine::leader::LeaseOptions::for_scope(scope);
    let handle = tokio::spawn(engine::leader::run_with_lease(
        ctx,
        lease,
        role_tx,
        shutdown.clone(),
    ));
    tokio::spawn(async move {
        let result = handle.await;
        if !shutdown.is_cancelled() {
            let why = match result {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(format!("the engine lease failed: {e}")),
                Err(e) if e.is_panic() => Some("it panicked; see the log file".to_string()),
                Err(e) => Some(e.to_string()),
            };
            // The log's error reaches the warnings screen; the header says
            // the engine stopped.
            tracing::error!(
                error = why.as_deref().unwrap_or("it returned"),
                "the engine stopped"
            );
            let _ = tx.send(Msg::EngineStopped(why));
        }
    })
}

/// Asks the engine to stop and waits for it, at most `ENGINE_STOP` (10 s).
pub async fn stop_engine(engine: Option<JoinHandle<()>>, shutdown: &CancellationToken) {
    if let Some(engine) = engine {
        shutdown.cancel();
        if tokio::time::timeout(ENGINE_STOP, engine).await.is_err() {
            tracing::warn!("the engine did not stop within {ENGINE_STOP:?}");
        }
    }
}
