//! The small typed subset of Cluster API that the engine reads.

use kube::CustomResource;
use serde::{Deserialize, Serialize};

/// Helm's annotation naming the release an object belongs to.
pub const HELM_RELEASE_NAME: &str = "meta.helm.sh/release-name";
/// Helm's annotation naming that release's namespace.
pub const HELM_RELEASE_NAMESPACE: &str = "meta.helm.sh/release-namespace";

/// cluster.x-k8s.io/v1beta1 Cluster: only what tells us it is provisioned.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[kube(
    group = "cluster.x-k8s.io",
    version = "v1beta1",
    kind = "Cluster",
    namespaced,
    status = "ClusterStatus",
    schema = "disabled"
)]
pub struct ClusterSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_plane_ready: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialization: Option<Initialization>,
    #[serde(default)]
    pub conditions: Vec<CapiCondition>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Initialization {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_plane_initialized: Option<bool>,
}

#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CapiCondition {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Cluster {
    /// True once the control plane is initialised: services can be installed.
    /// Accepts the v1beta1 fields and the v1beta2 one.
    pub fn control_plane_initialized(&self) -> bool {
        let Some(status) = &self.status else {
            return false;
        };
        status.control_plane_ready == Some(true)
            || status
                .initialization
                .as_ref()
                .and_then(|i| i.control_plane_initialized)
                == Some(true)
            || status
                .conditions
                .iter()
                .any(|c| c.type_ == "ControlPlaneInitialized" && c.status == "True")
    }

    /// The Helm release that made this Cluster, as Helm marks every object
    /// it installs: `meta.helm.sh/release-name` and
    /// `meta.helm.sh/release-namespace`, each `None` when missing.
    pub fn helm_release(&self) -> (Option<&str>, Option<&str>) {
        let annotation = |key: &str| {
            self.metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(key))
                .map(String::as_str)
        };
        (
            annotation(HELM_RELEASE_NAME),
            annotation(HELM_RELEASE_NAMESPACE),
        )
    }

    /// The phase Cluster API reports (`Provisioning`, `Provisioned`, …).
    pub fn phase(&self) -> &str {
        self.status
            .as_ref()
            .and_then(|s| s.phase.as_deref())
            .unwrap_or("Pending")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_status(v: serde_json::Value) -> Cluster {
        let mut c = Cluster::new("c", ClusterSpec::default());
        c.status = Some(serde_json::from_value(v).unwrap());
        c
    }

    #[test]
    fn each_readiness_signal_counts() {
        assert!(!Cluster::new("c", ClusterSpec::default()).control_plane_initialized());
        assert!(
            with_status(serde_json::json!({"controlPlaneReady": true})).control_plane_initialized()
        );
        assert!(
            with_status(serde_json::json!({"initialization": {"controlPlaneInitialized": true}}))
                .control_plane_initialized()
        );
        assert!(
            with_status(serde_json::json!({"conditions": [{"type": "ControlPlaneInitialized", "status": "True"}]}))
                .control_plane_initialized()
        );
        assert!(
            !with_status(serde_json::json!({"conditions": [{"type": "ControlPlaneInitialized", "status": "False"}]}))
                .control_plane_initialized()
        );
    }

    #[test]
    fn the_helm_release_is_read_from_helms_annotations() {
        let mut c = Cluster::new("c", ClusterSpec::default());
        assert_eq!(c.helm_release(), (None, None));
        c.metadata.annotations = Some(
            [
                (HELM_RELEASE_NAME.to_string(), "c".to_string()),
                ("other".to_string(), "x".to_string()),
            ]
            .into(),
        );
        assert_eq!(c.helm_release(), (Some("c"), None));
        c.metadata
            .annotations
            .as_mut()
            .unwrap()
            .insert(HELM_RELEASE_NAMESPACE.into(), "team-a".into());
        assert_eq!(c.helm_release(), (Some("c"), Some("team-a")));
    }
}
