//! Health: the colour a status means, by name, and how the console reads it
//! from conditions and service states. The theme maps it to a colour.

use crate::api::conditions::READY;
use crate::api::{ManagedCluster, ServiceState};

/// How something is doing, in the colours of the theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Health {
    /// Ready, Installed, valid.
    Ready,
    /// Provisioning, Installing.
    Progressing,
    /// Pending, not yet checked.
    Pending,
    /// Failed, invalid.
    Failed,
    /// Removing, unknown.
    Muted,
}

/// Ready, its colour and its message, from a cluster's `Ready` condition.
pub fn cluster_ready(mc: &ManagedCluster) -> (String, Health, String) {
    let (ready, health, message) = cluster_ready_ref(mc);
    (ready.to_string(), health, message.to_string())
}

/// [`cluster_ready`], borrowed from the cluster: what the long lists read
/// for every row.
pub fn cluster_ready_ref(mc: &ManagedCluster) -> (&str, Health, &str) {
    let ready = mc
        .status
        .as_ref()
        .and_then(|s| s.conditions.iter().find(|c| c.type_ == READY));
    let deleting = mc.metadata.deletion_timestamp.is_some();
    match ready {
        None if deleting => ("False", Health::Muted, "deleting"),
        None => ("-", Health::Muted, ""),
        Some(c) => {
            let health = match c.status.as_str() {
                _ if deleting || c.reason == "Deleting" => Health::Muted,
                "True" => Health::Ready,
                "False" => reason_health(&c.reason),
                _ => Health::Muted,
            };
            (&c.status, health, &c.message)
        }
    }
}

/// The colour of a condition reason.
fn reason_health(reason: &str) -> Health {
    let r = reason.to_ascii_lowercase();
    if r.contains("fail") || r.contains("notfound") || r.contains("notready") || r.contains("error")
    {
        Health::Failed
    } else if r == "pending" {
        Health::Pending
    } else if r.contains("removing") || r.contains("deleting") || r.contains("dryrun") {
        Health::Muted
    } else {
        Health::Progressing
    }
}

/// The colour of a condition, by status and reason.
pub fn condition_health(status: &str, reason: &str) -> Health {
    match status {
        "True" => Health::Ready,
        "False" => reason_health(reason),
        _ => Health::Muted,
    }
}

pub fn service_health(state: ServiceState) -> Health {
    match state {
        ServiceState::Installed => Health::Ready,
        ServiceState::Installing => Health::Progressing,
        ServiceState::Pending => Health::Pending,
        ServiceState::Failed => Health::Failed,
        ServiceState::Removing => Health::Muted,
    }
}

/// `servicesReady` (`1/2`) and its colour: the worst state of the services.
pub fn services_ready(mc: &ManagedCluster) -> (String, Health) {
    let (text, health) = services_ready_ref(mc);
    (text.to_string(), health)
}

/// [`services_ready`], borrowed from the cluster.
pub fn services_ready_ref(mc: &ManagedCluster) -> (&str, Health) {
    let Some(status) = &mc.status else {
        return ("-", Health::Muted);
    };
    let text = status.services_ready.as_deref().unwrap_or("-");
    let has = |state| status.services.iter().any(|s| s.state == state);
    let health = if has(ServiceState::Failed) {
        Health::Failed
    } else if has(ServiceState::Installing) {
        Health::Progressing
    } else if has(ServiceState::Pending) {
        Health::Pending
    } else if has(ServiceState::Removing) {
        Health::Muted
    } else if status.services_ready.is_some() {
        Health::Ready
    } else {
        Health::Muted
    };
    (text, health)
}
