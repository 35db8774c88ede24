//! The cluster's own release: written when its template is ready, and what
//! it and the cluster's Cluster API objects say.

use kube::ResourceExt;

use super::events::Applied;
use super::given::Given;
use crate::api::ManagedCluster;
use crate::api::conditions::{CLUSTER_READY, Cond, INSTALLER_MISSING, NAME_CONFLICT};
use crate::api::names::CLUSTER_INSTALLER;
use crate::api::names::TemplateKind;
use crate::capi;
use crate::engine::apply::apply_if_changed;
use crate::engine::context::Context;
use crate::engine::error::{Error, Result};
use crate::flux::{self, FluxCondition};
use crate::plan::releases::{carry_installs_as, chart_ref, cluster_release};
use crate::store::{WatchHealth, get};

/// The cluster's own release, as this reconcile leaves it.
pub(super) struct ClusterRelease {
    /// Whether the control plane is initialized, of a Cluster API cluster
    /// this cluster's own chart made: services may go in.
    pub(super) provisioned: bool,
    /// Why the Cluster API cluster of this name is not this cluster's (see
    /// [`not_made_here`]): its services wait.
    pub(super) foreign: Option<String>,
    /// Why the release was not written: its name belongs to something else.
    pub(super) conflict: Option<String>,
    pub(super) cond: Cond,
}

/// Applies the cluster's release (unless its template is not ready, or this
/// is a dry run) and reads how far the cluster is.
pub(super) async fn apply(
    mc: &ManagedCluster,
    ctx: &Context,
    given: &Given,
    applied: &mut Applied,
) -> Result<ClusterRelease> {
    let ns = &given.ns;
    let mut cluster_release_obj = given.find(&given.name);
    let mut conflict = None;
    let no_installer = if given.dry_run {
        None
    } else {
        installer_missing(ctx, ns)
    };
    if let (Some(t), true, false, None) = (
        &given.template,
        given.template_cond.status,
        given.dry_run,
        &no_installer,
    ) {
        let chart = chart_ref(TemplateKind::Cluster, &t.name_any(), ns, &t.spec.helm);
        let mut desired = cluster_release(mc, chart, ctx.options.releases());
        // Another release interval alone installs nothing again.
        let same_install = carry_installs_as(&mut desired, cluster_release_obj.as_deref());
        let writing = ctx.echoes.writing(&desired);
        match apply_if_changed(ctx, &desired, cluster_release_obj.as_deref()).await {
            Ok(Some(written)) => {
                writing.wrote(&written);
                if !same_install {
                    applied.cluster_chart = Some(t.spec.helm.describe());
                    cluster_release_obj = None; // its status describes the previous spec
                }
            }
            Ok(None) => {}
            Err(Error::NameConflict(c)) => conflict = Some(c.to_string()),
            Err(e) => return Err(e),
        }
    }
    let capi = get(&ctx.stores.capi_clusters, ns, &given.name);
    let foreign = not_made_here(
        capi.as_deref(),
        own_release_name(given),
        ns,
        conflict.as_deref(),
    );
    let provisioned =
        foreign.is_none() && capi.as_ref().is_some_and(|c| c.control_plane_initialized());
    let failure = cluster_release_obj
        .as_ref()
        .and_then(|r| r.status.as_ref())
        .and_then(|s| {
            flux::ready(&s.conditions)
                .filter(|c| c.status == "False" && c.reason.ends_with("Failed"))
                .cloned()
        });
    let cond = match (&foreign, &no_installer) {
        // A conflict of the release's own name says more than its
        // consequence for the Cluster API cluster.
        (Some(why), _) if conflict.is_none() => Cond::new(
            CLUSTER_READY,
            false,
            NAME_CONFLICT,
            format!(
                "{why}; no service is installed into it: create this cluster under another name"
            ),
        ),
        // Nothing of the cluster's chart is written or changed meanwhile.
        (None, Some(why)) if conflict.is_none() => {
            Cond::new(CLUSTER_READY, false, INSTALLER_MISSING, why.as_str())
        }
        _ => condition(
            capi.as_deref(),
            provisioned,
            failure,
            conflict.as_deref(),
            given.dry_run,
        ),
    };
    Ok(ClusterRelease {
        provisioned,
        foreign,
        conflict,
        cond,
    })
}

/// Why the cluster's chart cannot be installed in `ns` now: the namespace
/// has no installer account, or the engine cannot see whether it has.
fn installer_missing(ctx: &Context, ns: &str) -> Option<String> {
    if get(&ctx.stores.installers, ns, CLUSTER_INSTALLER).is_some() {
        return None;
    }
    let failing = match &*ctx.stores.health.installers.health.borrow() {
        WatchHealth::Failing { failure, .. } => Some(failure.describe()),
        WatchHealth::Ok => None,
    };
    Some(installer_problem(ns, failing.as_deref()))
}

/// The words for a missing installer account; `unseen` says why the engine
/// cannot look.
fn installer_problem(ns: &str, unseen: Option<&str>) -> String {
    match unseen {
        Some(why) => format!(
            "cannot see service account {CLUSTER_INSTALLER} in namespace {ns} ({why}); \
             the cluster chart is installed as that account"
        ),
        None => format!(
            "service account {CLUSTER_INSTALLER} not found in namespace {ns}: the cluster chart \
             is installed as that account, so nothing is installed until a platform admin \
             creates it and grants it what the chart makes (the book: Operations, RBAC)"
        ),
    }
}

/// The Helm release name of the cluster's own release: `plan::releases::cluster_release`
/// names it after the ManagedCluster (a test below holds the two together).
fn own_release_name(given: &Given) -> &str {
    &given.name
}

/// Why the Cluster API cluster named after this ManagedCluster was not made
/// by the ManagedCluster's own release, if it was not: then its
/// `<name>-kubeconfig` secret is someone else's access to someone else's
/// cluster, and nothing of this ManagedCluster may go through it. `None`
/// when it was, and when there is no such cluster yet (services wait for
/// it to be provisioned anyway).
///
/// Made by the release means carrying Helm's marks of it: Helm 3 sets
/// `meta.helm.sh/release-name` (`release`) and
/// `meta.helm.sh/release-namespace` (the ManagedCluster's namespace, where
/// its release installs) on every object it creates, and adopts an object
/// that exists already only when both say so, as the cluster's release
/// refuses to take objects over. When the cluster's own release could not
/// be written (`conflict`: another object has its name), a release of that
/// name is not ours, and neither is what carries its marks.
pub(super) fn not_made_here(
    capi: Option<&capi::Cluster>,
    release: &str,
    ns: &str,
    conflict: Option<&str>,
) -> Option<String> {
    let cluster = capi?;
    let object = format!("Cluster API cluster {ns}/{}", cluster.name_any());
    if let Some(conflict) = conflict {
        return Some(format!(
            "the cluster's chart was not installed ({conflict}), so {object} is not this cluster's"
        ));
    }
    match cluster.helm_release() {
        (Some(name), Some(namespace)) if name == release && namespace == ns => None,
        (None, _) => Some(format!(
            "{object} was not made by this cluster's chart (it carries no Helm release's marks)"
        )),
        (Some(name), Some(namespace)) if is_word(name) && is_word(namespace) => Some(format!(
            "{object} belongs to Helm release {name} in namespace {namespace}, not to this \
             cluster's chart"
        )),
        (Some(name), None) if is_word(name) => Some(format!(
            "{object} belongs to Helm release {name}, not to this cluster's chart"
        )),
        _ => Some(format!(
            "{object} belongs to another Helm release, not to this cluster's chart"
        )),
    }
}

/// Whether an annotation's value reads as a name, fit to be quoted in a
/// status: anyone who may write a Cluster writes its annotations.
fn is_word(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))
}

/// How far the cluster is, in one condition.
fn condition(
    capi: Option<&capi::Cluster>,
    provisioned: bool,
    failure: Option<FluxCondition>,
    conflict: Option<&str>,
    dry_run: bool,
) -> Cond {
    if let Some(conflict) = conflict {
        return Cond::new(CLUSTER_READY, false, NAME_CONFLICT, conflict);
    }
    match (capi, provisioned, failure) {
        (_, false, Some(c)) => Cond::new(
            CLUSTER_READY,
            false,
            "ClusterChartFailed",
            format!(
                "cluster chart: {}",
                flux::words::release_problem(&c.message)
            ),
        ),
        (Some(c), true, _) if c.deleting() => Cond::new(
            CLUSTER_READY,
            true,
            "Provisioned",
            format!(
                "control plane initialized; Cluster API is deleting the cluster (phase {})",
                c.phase()
            ),
        ),
        (_, true, _) => Cond::new(
            CLUSTER_READY,
            true,
            "Provisioned",
            "control plane initialized",
        ),
        (None, false, None) if dry_run => Cond::new(
            CLUSTER_READY,
            false,
            "DryRun",
            "dry run: nothing is created",
        ),
        (None, false, None) => Cond::new(
            CLUSTER_READY,
            false,
            "Provisioning",
            "waiting for the cluster's Cluster API objects",
        ),
        (Some(c), false, None) if c.deleting() => Cond::new(
            CLUSTER_READY,
            false,
            "Deleting",
            format!(
                "Cluster API is deleting the cluster before its control plane was initialized \
                 (phase {})",
                c.phase()
            ),
        ),
        (Some(c), false, None) => Cond::new(
            CLUSTER_READY,
            false,
            "Provisioning",
            format!("control plane not initialized yet (phase {})", c.phase()),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capi::{Cluster, HELM_RELEASE_NAME, HELM_RELEASE_NAMESPACE, Version};

    fn capi_cluster(marks: &[(&str, &str)]) -> Cluster {
        let mut c = Cluster::new("dev-1", Version::default());
        if !marks.is_empty() {
            c.metadata.annotations = Some(
                marks
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            );
        }
        c
    }

    fn marked(name: &str, namespace: &str) -> Cluster {
        capi_cluster(&[
            (HELM_RELEASE_NAME, name),
            (HELM_RELEASE_NAMESPACE, namespace),
        ])
    }

    #[test]
    fn a_cluster_made_by_the_clusters_own_release_is_its_own() {
        assert_eq!(
            not_made_here(Some(&marked("dev-1", "team-a")), "dev-1", "team-a", None),
            None
        );
        // None yet: the services wait for it to be provisioned, not for this.
        assert_eq!(not_made_here(None, "dev-1", "team-a", None), None);
    }

    #[test]
    fn a_cluster_made_by_anything_else_is_not() {
        let why = |c: &Cluster| not_made_here(Some(c), "dev-1", "team-a", None).unwrap();
        assert_eq!(
            why(&capi_cluster(&[])),
            "Cluster API cluster team-a/dev-1 was not made by this cluster's chart \
             (it carries no Helm release's marks)"
        );
        assert_eq!(
            why(&marked("prod", "team-b")),
            "Cluster API cluster team-a/dev-1 belongs to Helm release prod in namespace \
             team-b, not to this cluster's chart"
        );
        // The right name from another namespace, or the other way round.
        assert!(why(&marked("dev-1", "team-b")).contains("Helm release dev-1 in namespace team-b"));
        assert!(why(&marked("other", "team-a")).contains("Helm release other in namespace team-a"));
        assert_eq!(
            why(&capi_cluster(&[(HELM_RELEASE_NAME, "dev-1")])),
            "Cluster API cluster team-a/dev-1 belongs to Helm release dev-1, not to this \
             cluster's chart"
        );
        // Values that do not read as names are not quoted.
        let odd = why(&marked("dev-1\u{1b}[2J", "team-a"));
        assert!(odd.contains("another Helm release"), "{odd}");
        assert!(!odd.contains('\u{1b}'), "{odd}");
    }

    #[test]
    fn a_release_that_could_not_be_written_owns_nothing() {
        let why = not_made_here(
            Some(&marked("dev-1", "team-a")),
            "dev-1",
            "team-a",
            Some("cluster release dev-1 already exists and is not managed by hmc-tui"),
        )
        .unwrap();
        assert!(why.starts_with("the cluster's chart was not installed (cluster release dev-1"));
        assert!(why.ends_with("so Cluster API cluster team-a/dev-1 is not this cluster's"));
    }

    #[test]
    fn the_release_checked_is_the_one_the_cluster_release_names() {
        let mc: ManagedCluster = serde_json::from_value(serde_json::json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
            "metadata": {"name": "dev-1", "namespace": "team-a"},
            "spec": {"template": "demo"},
        }))
        .unwrap();
        let chart = chart_ref(TemplateKind::Cluster, "demo", "team-a", &Default::default());
        let release = cluster_release(&mc, chart, Default::default());
        assert_eq!(release.spec.release_name.as_deref(), Some("dev-1"));
        assert_eq!(release.spec.target_namespace, None, "installs into team-a");
    }

    /// The words of `ClusterReady` are the same whichever version of
    /// Cluster API the cluster was read through.
    #[test]
    fn how_far_the_cluster_is_reads_the_same_through_both_versions() {
        use crate::capi::examples::{Point, served};
        let said = |c: &Cluster| {
            let cond = condition(Some(c), c.control_plane_initialized(), None, None, false);
            (cond.status, cond.reason, cond.message)
        };
        let want = |point| match point {
            Point::Provisioning => (
                false,
                "Provisioning".to_string(),
                "control plane not initialized yet (phase Provisioning)".to_string(),
            ),
            Point::Provisioned => (
                true,
                "Provisioned".to_string(),
                "control plane initialized".to_string(),
            ),
            Point::Deleting => (
                true,
                "Provisioned".to_string(),
                "control plane initialized; Cluster API is deleting the cluster (phase Deleting)"
                    .to_string(),
            ),
        };
        for point in Point::ALL {
            for version in [Version::V1Beta1, Version::V1Beta2] {
                assert_eq!(said(&served(version, point)), want(point), "{version}");
            }
        }
        // Deleted before its control plane came up, and not reported on yet.
        for version in [Version::V1Beta1, Version::V1Beta2] {
            let mut c = served(version, Point::Provisioning);
            c.metadata.deletion_timestamp =
                served(version, Point::Deleting).metadata.deletion_timestamp;
            let (status, reason, message) = said(&c);
            assert!(!status);
            assert_eq!(reason, "Deleting");
            assert_eq!(
                message,
                "Cluster API is deleting the cluster before its control plane was initialized \
                 (phase Provisioning)"
            );
            c.status = None;
            assert_eq!(
                said(&c).2,
                "Cluster API is deleting the cluster before its control plane was initialized (phase Pending)"
            );
        }
    }

    #[test]
    fn a_missing_installer_is_named_with_its_namespace_and_what_to_do() {
        let missing = installer_problem("team-a", None);
        assert!(
            missing.contains("service account hmc-cluster-installer not found in namespace team-a")
        );
        assert!(missing.contains("platform admin creates it"));
        let unseen = installer_problem("team-a", Some("forbidden by RBAC"));
        assert!(unseen.starts_with("cannot see service account hmc-cluster-installer"));
        assert!(unseen.contains("forbidden by RBAC"));
        for words in [missing, unseen] {
            assert!(!words.contains("HelmRelease"), "{words}");
        }
    }
}
