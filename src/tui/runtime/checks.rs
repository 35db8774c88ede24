//! What the console checks before it starts: the CRDs, through
//! [`crate::startup`], whose errors the binary prints as one paragraph.

use crate::startup::{self, Target, UserError};

/// Fails early when the CRDs are missing or cannot be read; with the
/// engine, says it may be left out.
pub async fn check_crds(
    client: &kube::Client,
    engine: bool,
    target: &Target,
) -> Result<(), UserError> {
    let also = engine.then_some("Or run with --no-engine to only look at the cluster.");
    startup::check_crds(client, engine, target, also).await
}
