//! The small typed subset of Cluster API that the engine reads: its
//! `Cluster`, through `v1beta2` where the API server serves it, else
//! `v1beta1` ([`Version`]).

use std::borrow::Cow;

use k8s_openapi::NamespaceResourceScope;
use kube::api::ObjectMeta;
use serde::{Deserialize, Serialize};

mod version;

pub use version::{GROUP, Version, discover};

/// Helm's annotation naming the release an object belongs to.
pub const HELM_RELEASE_NAME: &str = "meta.helm.sh/release-name";
/// Helm's annotation naming that release's namespace.
pub const HELM_RELEASE_NAMESPACE: &str = "meta.helm.sh/release-namespace";

/// The condition both versions set once the control plane accepts requests.
pub const CONTROL_PLANE_INITIALIZED: &str = "ControlPlaneInitialized";
/// The phase of a Cluster that Cluster API is deleting.
pub const DELETING: &str = "Deleting";

/// A Cluster API `Cluster`, read through either version of the API: only
/// what tells whether it is provisioned, and whose it is. Its dynamic type
/// is the [`Version`] its `Api` reads; each object says in its
/// `apiVersion` which one it was read through, and so how its status reads.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Cluster {
    /// `cluster.x-k8s.io/v1beta2` or `cluster.x-k8s.io/v1beta1`: the
    /// version the API server answered in.
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ClusterSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ClusterStatus>,
}

impl kube::Resource for Cluster {
    type DynamicType = Version;
    type Scope = NamespaceResourceScope;

    fn kind(_: &Version) -> Cow<'_, str> {
        "Cluster".into()
    }

    fn group(_: &Version) -> Cow<'_, str> {
        GROUP.into()
    }

    fn version(version: &Version) -> Cow<'_, str> {
        version.name().into()
    }

    fn api_version(version: &Version) -> Cow<'_, str> {
        version.api_version().into()
    }

    fn plural(_: &Version) -> Cow<'_, str> {
        "clusters".into()
    }

    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }

    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// The same in both versions. `paused` is what the engine reads itself; the
/// rest is kept as the API server gives it, because a service's values may
/// read any of it (`{{ .Cluster.spec.clusterNetwork.pods.cidrBlocks }}`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct ClusterSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,
    #[serde(flatten)]
    pub rest: serde_json::Map<String, serde_json::Value>,
}

/// What the engine reads of a Cluster's status, of either version; each
/// field says which version has it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    /// Both: `Pending`, `Provisioning`, `Provisioned`, `Deleting`,
    /// `Failed`, `Unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Both, of different types. v1beta2: `Available`,
    /// `ControlPlaneInitialized`, `ControlPlaneAvailable`,
    /// `InfrastructureReady`, `RemoteConnectionProbe`, …; v1beta1: `Ready`,
    /// `ControlPlaneInitialized`, `ControlPlaneReady`,
    /// `InfrastructureReady`, ….
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<CapiCondition>,
    /// v1beta2: how far the first provisioning went.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialization: Option<Initialization>,
    /// v1beta2: v1beta1's conditions, while v1beta1 is served.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<Deprecated>,
    /// v1beta1: what v1beta2 calls `initialization.controlPlaneInitialized`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_plane_ready: Option<bool>,
    /// v1beta1: v1beta2's conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v1beta2: Option<Conditions>,
}

/// v1beta2's `status.initialization`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Initialization {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control_plane_initialized: Option<bool>,
}

/// v1beta2's `status.deprecated`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Deprecated {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub v1beta1: Option<Conditions>,
}

/// The conditions of the other version, kept beside a version's own.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct Conditions {
    #[serde(default)]
    pub conditions: Vec<CapiCondition>,
}

/// A condition of either version (v1beta1's have a severity too, v1beta2's
/// an observed generation; neither is read).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct CapiCondition {
    #[serde(default, rename = "type")]
    pub type_: String,
    #[serde(default)]
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Whether `conditions` has a condition of `type_` that is True.
fn is_true(conditions: &[CapiCondition], type_: &str) -> bool {
    conditions
        .iter()
        .any(|c| c.type_ == type_ && c.status == "True")
}

impl Cluster {
    /// An empty Cluster named `name`, as read through `version`.
    pub fn new(name: &str, version: Version) -> Cluster {
        Cluster {
            api_version: version.api_version().into(),
            kind: "Cluster".into(),
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// The version this Cluster was read through, by its `apiVersion`
    /// (the current one when it names neither).
    pub fn read_as(&self) -> Version {
        Version::of_api_version(&self.api_version).unwrap_or_default()
    }

    /// The conditions of Cluster API's current contract (`Available`,
    /// `ControlPlaneInitialized`, …): v1beta2's `status.conditions`,
    /// v1beta1's `status.v1beta2.conditions`.
    pub fn conditions(&self) -> &[CapiCondition] {
        let Some(status) = &self.status else {
            return &[];
        };
        match self.read_as() {
            Version::V1Beta2 => &status.conditions,
            Version::V1Beta1 => status.v1beta2.as_ref().map_or(&[], |c| &c.conditions),
        }
    }

    /// v1beta1's conditions (`Ready`, `ControlPlaneReady`, …): v1beta1's
    /// `status.conditions`, v1beta2's `status.deprecated.v1beta1.conditions`.
    pub fn v1beta1_conditions(&self) -> &[CapiCondition] {
        let Some(status) = &self.status else {
            return &[];
        };
        match self.read_as() {
            Version::V1Beta1 => &status.conditions,
            Version::V1Beta2 => status
                .deprecated
                .as_ref()
                .and_then(|d| d.v1beta1.as_ref())
                .map_or(&[], |c| &c.conditions),
        }
    }

    /// True once the control plane is initialised: services can be
    /// installed. v1beta2 says so in `status.initialization
    /// .controlPlaneInitialized`, v1beta1 in `status.controlPlaneReady`;
    /// both in a True `ControlPlaneInitialized` condition, among either
    /// version's conditions.
    pub fn control_plane_initialized(&self) -> bool {
        let Some(status) = &self.status else {
            return false;
        };
        let field = match self.read_as() {
            Version::V1Beta2 => status
                .initialization
                .as_ref()
                .and_then(|i| i.control_plane_initialized),
            Version::V1Beta1 => status.control_plane_ready,
        };
        field == Some(true)
            || is_true(self.conditions(), CONTROL_PLANE_INITIALIZED)
            || is_true(self.v1beta1_conditions(), CONTROL_PLANE_INITIALIZED)
    }

    /// Whether the Cluster is being deleted: it has a deletion timestamp,
    /// or Cluster API says so in its phase.
    pub fn deleting(&self) -> bool {
        self.metadata.deletion_timestamp.is_some() || self.phase() == DELETING
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

    /// The phase Cluster API reports (`Provisioning`, `Provisioned`, …),
    /// the same field in both versions; `Pending` before it reports one.
    pub fn phase(&self) -> &str {
        self.status
            .as_ref()
            .and_then(|s| s.phase.as_deref())
            .unwrap_or("Pending")
    }
}

#[cfg(test)]
pub(crate) mod examples;
#[cfg(test)]
mod tests;
