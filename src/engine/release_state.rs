//! How a release is, read from its status in our words: what the release
//! controller reports, and what the release found in the cluster that was
//! not the service's own. The releases themselves are built in
//! `plan::releases`.

use kube::ResourceExt;

use crate::api::{ServiceState, labels};
use crate::flux::words::{Holder, Refusal};
use crate::flux::{self, HelmRelease};
use crate::plan::releases::INSTALLS_AS_GENERATION;

/// The observed state of a release, in our words.
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    pub state: ServiceState,
    pub version: Option<String>,
    pub revision: Option<i64>,
    pub message: Option<String>,
}

/// Reads a release's status. `fresh` is true when the engine just changed
/// the release, so whatever its status says describes the previous spec.
pub fn observe(release: &HelmRelease, fresh: bool) -> Observed {
    let revision = release
        .annotations()
        .get(labels::REVISION)
        .and_then(|r| r.parse().ok());
    let status = release.status.clone().unwrap_or_default();
    let version = status
        .history
        .first()
        .map(|h| h.chart_version.clone())
        .filter(|v| !v.is_empty());
    if release.metadata.deletion_timestamp.is_some() {
        return Observed {
            state: ServiceState::Removing,
            version,
            revision,
            message: Some("uninstalling from the cluster".into()),
        };
    }
    // A status of an earlier generation that installs the same counts.
    let installs_as = release
        .annotations()
        .get(INSTALLS_AS_GENERATION)
        .and_then(|g| g.parse::<i64>().ok());
    let current = status.observed_generation.is_some()
        && (status.observed_generation == release.metadata.generation
            || installs_as.is_some_and(|g| status.observed_generation >= Some(g)));
    let ready = flux::ready(&status.conditions);
    let stalled = status
        .conditions
        .iter()
        .any(|c| c.type_ == "Stalled" && c.status == "True");
    // A release whose status is from before its current spec (just
    // written, or not yet picked up after a change) says the same thing in
    // every reconcile until it is picked up: a status that flips between
    // two wordings is a write for nothing.
    let old_success = !current && ready.is_some_and(|c| c.status == "True");
    let (state, message) = match ready {
        None if fresh || release.status.is_none() => {
            (ServiceState::Installing, Some("installing".to_string()))
        }
        _ if fresh || old_success => (
            ServiceState::Installing,
            Some("applying the new configuration".to_string()),
        ),
        Some(c) if c.status == "True" && current => (ServiceState::Installed, None),
        // Putting back what was changed by hand: still installed, as it was.
        Some(c) if c.status == "Unknown" && current && c.message == flux::CORRECTING_DRIFT => (
            ServiceState::Installed,
            Some(flux::words::REVERTING.to_string()),
        ),
        Some(c) if c.status == "False" && (stalled || c.reason.ends_with("Failed")) => (
            ServiceState::Failed,
            Some(flux::words::release_problem(&c.message)),
        ),
        Some(c) if !c.message.is_empty() && c.status != "True" => (
            ServiceState::Installing,
            Some(flux::words::release_problem(&c.message)),
        ),
        _ => (ServiceState::Installing, Some("installing".to_string())),
    };
    Observed {
        state,
        version,
        revision,
        message,
    }
}

/// How long before its release a service's Helm release must have been
/// first installed to count as there before it: the release's creation is
/// the API server's clock, Helm's record the release controller's.
const CLOCKS_APART: std::time::Duration = std::time::Duration::from_secs(10);

/// `observed`, corrected for what the release found in the cluster that
/// was not the service's own:
///
/// - an object the install (or an upgrade) would have taken over: the
///   service is Failed and names it; when the object belongs to another
///   service of the same cluster (a release among `releases`), it says the
///   two conflict. While the next attempt runs, it keeps saying so (`fresh`:
///   the engine just changed the release, whose status is of before).
/// - a Helm release of its name that was in the cluster before the
///   service's release: the release controller upgrades such a release as
///   if it were its own (it has no setting to refuse), so the service is
///   Failed and says it took it over, unless the cluster lets it
///   (`take_ownership`).
pub fn with_ownership(
    observed: Observed,
    release: &HelmRelease,
    releases: &[std::sync::Arc<HelmRelease>],
    take_ownership: bool,
    fresh: bool,
) -> Observed {
    if observed.state == ServiceState::Removing {
        return observed;
    }
    if !take_ownership && let Some(words) = taken_over(release) {
        return Observed {
            state: ServiceState::Failed,
            message: Some(words),
            ..observed
        };
    }
    let Some(status) = &release.status else {
        return observed;
    };
    let message = match flux::ready(&status.conditions) {
        Some(c) if c.status == "False" && observed.state == ServiceState::Failed => {
            Some(c.message.as_str())
        }
        // The next attempt runs: what the last one of this spec met.
        Some(c)
            if c.status == "Unknown" && !fresh && observed.state == ServiceState::Installing =>
        {
            flux::released(&status.conditions)
                .filter(|r| {
                    r.status == "False" && r.observed_generation == release.metadata.generation
                })
                .map(|r| r.message.as_str())
        }
        _ => None,
    };
    let Some(refusal) = message.and_then(Refusal::parse) else {
        return observed;
    };
    let other = holding_service(&refusal, release, releases);
    Observed {
        state: ServiceState::Failed,
        message: Some(refusal.for_service(other.as_deref())),
        ..observed
    }
}

/// The service of the same cluster whose release holds the refused
/// object: Helm's release is named after the service and installed into
/// its namespace.
fn holding_service(
    refusal: &Refusal,
    release: &HelmRelease,
    releases: &[std::sync::Arc<HelmRelease>],
) -> Option<String> {
    let Holder::Release { name, namespace } = &refusal.holder else {
        return None;
    };
    let name = name.as_deref().or(release.spec.release_name.as_deref())?;
    let namespace = namespace
        .as_deref()
        .or(release.spec.target_namespace.as_deref())?;
    releases
        .iter()
        .filter(|r| r.name_any() != release.name_any())
        .filter(|r| r.labels().get(labels::ROLE).map(String::as_str) == Some("service"))
        .find(|r| {
            r.spec.release_name.as_deref() == Some(name)
                && r.spec.target_namespace.as_deref() == Some(namespace)
        })
        .and_then(|r| r.labels().get(labels::SERVICE).cloned())
}

/// Words for a Helm release of the service's name that was first installed
/// before the service's release was created: it was there before, and the
/// release controller upgraded it. Helm keeps a release's first install
/// time through every upgrade, and the release controller records it.
fn taken_over(release: &HelmRelease) -> Option<String> {
    let created = release.metadata.creation_timestamp.as_ref()?.0;
    let snapshot = release.status.as_ref()?.history.first()?;
    let first: k8s_openapi::jiff::Timestamp = snapshot.first_deployed.as_deref()?.parse().ok()?;
    let before = created.checked_sub(CLOCKS_APART).ok()?;
    if first >= before {
        return None;
    }
    let name = Some(snapshot.name.as_str())
        .filter(|n| !n.is_empty())
        .or(release.spec.release_name.as_deref())?;
    let namespace = Some(snapshot.namespace.as_str())
        .filter(|n| !n.is_empty())
        .or(release.spec.target_namespace.as_deref())?;
    let at = first.strftime("%Y-%m-%d %H:%M:%S UTC").to_string();
    Some(flux::words::taken_over(
        name,
        namespace,
        Some(&at),
        snapshot.version,
    ))
}

#[cfg(test)]
mod tests;
