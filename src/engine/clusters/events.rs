//! What a reconcile of a cluster tells as Events: what it applied (one
//! Event), each service it uninstalls, services that became installed or
//! failed, and changes made by hand in a child cluster that were reverted.

use crate::api::{ManagedCluster, ServiceState, ServiceStatus};
use crate::engine::context::Context;
use crate::engine::drift;
use crate::engine::notifications::{EventKind, Notification};
use kube::ResourceExt;

/// What one reconcile applied. It is told in a single Event, not one per
/// release: a fleet-wide change would otherwise double the engine's writes.
#[derive(Default)]
pub(super) struct Applied {
    pub(super) cluster_chart: Option<String>,
    pub(super) services: Vec<String>,
}

impl Applied {
    /// The Event's reason and note, if anything was applied.
    fn event(&self, revision: Option<i64>) -> Option<(&'static str, String)> {
        let chart = self
            .cluster_chart
            .as_ref()
            .map(|c| format!("applying cluster chart {c}"));
        let services = (!self.services.is_empty()).then(|| {
            format!(
                "applying {}{}",
                self.services.join(", "),
                revision
                    .map(|r| format!(" (revision {r})"))
                    .unwrap_or_default()
            )
        });
        match (chart, services) {
            (None, None) => None,
            (Some(c), None) => Some(("ClusterChartApplied", c)),
            (None, Some(s)) => Some(("ServiceApplied", s)),
            (Some(c), Some(s)) => Some(("ServiceApplied", format!("{c}; {s}"))),
        }
    }
}

/// Tells what this reconcile applied, if anything.
pub(super) fn applied(
    mc: &ManagedCluster,
    ctx: &Context,
    applied: &Applied,
    revision: Option<i64>,
) {
    if let Some((reason, note)) = applied.event(revision) {
        ctx.event(mc, false, reason, note);
    }
}

/// Tells that a service is being uninstalled.
pub(super) fn removing(mc: &ManagedCluster, ctx: &Context, service: &str) {
    ctx.event(
        mc,
        false,
        "ServiceRemoving",
        format!("uninstalling {service}"),
    );
}

/// Transitions people want to hear about: a service that became installed,
/// or failed, since the status the cluster has. (A correction of changes
/// made by hand that failed fails the service, and is told here as any
/// failure; one that worked is told by [`corrections`].)
pub(super) fn transitions(mc: &ManagedCluster, ctx: &Context, services: &[ServiceStatus]) {
    let old_services = mc
        .status
        .as_ref()
        .map(|s| s.services.clone())
        .unwrap_or_default();
    for s in services {
        let before = old_services
            .iter()
            .find(|o| o.name == s.name)
            .map(|o| o.state);
        if before != Some(s.state)
            && matches!(s.state, ServiceState::Installed | ServiceState::Failed)
        {
            let warning = s.state == ServiceState::Failed;
            if warning {
                ctx.notifier.tell(service_failed(mc, s));
            }
            let note = match (&s.state, &s.message) {
                (ServiceState::Failed, Some(m)) => format!("{}: {m}", s.name),
                _ => format!(
                    "{} {} installed",
                    s.name,
                    s.version.clone().unwrap_or_default()
                ),
            };
            ctx.event(
                mc,
                warning,
                if warning {
                    "ServiceFailed"
                } else {
                    "ServiceInstalled"
                },
                note,
            );
        }
    }
}

/// What the webhooks are told of a service that failed on a cluster.
fn service_failed(mc: &ManagedCluster, s: &ServiceStatus) -> Notification {
    let mut n = Notification::new(
        EventKind::ServiceFailed,
        mc.namespace().unwrap_or_default(),
        format!(
            "{} failed: {}",
            s.name,
            s.message.as_deref().unwrap_or("no reason given")
        ),
    );
    n.template = Some(mc.spec.template.clone());
    n.cluster = Some(mc.name_any());
    n.service = Some(s.name.clone());
    n.revision = mc.status.as_ref().and_then(|st| st.target_revision);
    n
}

/// Tells each correction of changes made by hand that the cluster's status
/// did not tell yet, once: a reconcile may read the cluster before the
/// store has the status that tells it, so the engine also remembers what
/// it told. Called once the status is written.
pub(super) fn corrections(mc: &ManagedCluster, ctx: &Context, services: &[ServiceStatus]) {
    let old_services = mc
        .status
        .as_ref()
        .map(|s| s.services.as_slice())
        .unwrap_or_default();
    for s in services {
        let Some(message) = &s.message else { continue };
        let told = old_services
            .iter()
            .any(|o| o.name == s.name && o.message.as_ref() == Some(message));
        let uid = mc.metadata.uid.as_deref().unwrap_or_default();
        if s.state == ServiceState::Installed
            && drift::tells_correction(message)
            && !told
            && ctx.told_corrections.first_time(uid, &s.name, message)
        {
            ctx.event(
                mc,
                false,
                "ServiceDriftCorrected",
                format!("{}: {message}", s.name),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Applied;

    #[test]
    fn one_event_tells_everything_a_reconcile_applied() {
        assert_eq!(Applied::default().event(Some(2)), None);
        let chart = Applied {
            cluster_chart: Some("cluster 0.1.0".into()),
            services: vec![],
        };
        assert_eq!(
            chart.event(None),
            Some((
                "ClusterChartApplied",
                "applying cluster chart cluster 0.1.0".into()
            ))
        );
        let both = Applied {
            cluster_chart: Some("cluster 0.1.0".into()),
            services: vec![
                "a 4.11.3 to namespace x".into(),
                "b 4.11.4 to namespace y".into(),
            ],
        };
        assert_eq!(
            both.event(Some(2)),
            Some((
                "ServiceApplied",
                "applying cluster chart cluster 0.1.0; applying a 4.11.3 to namespace x, \
                 b 4.11.4 to namespace y (revision 2)"
                    .into()
            ))
        );
    }
}
