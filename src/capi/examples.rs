//! One Cluster as Cluster API serves it through each version, at three
//! points of its life: its control plane not initialised yet, provisioned,
//! and being deleted. For the tests of what reads it.

use serde_json::{Value, json};

use super::{Cluster, HELM_RELEASE_NAME, HELM_RELEASE_NAMESPACE, Version};

/// When everything in them happened.
pub const AT: &str = "2026-01-01T00:00:00Z";

fn marks() -> Value {
    json!({
        "name": "dev-1",
        "namespace": "team-a",
        "generation": 2,
        "annotations": {
            HELM_RELEASE_NAME: "dev-1",
            HELM_RELEASE_NAMESPACE: "team-a",
        },
        "labels": {"app.kubernetes.io/managed-by": "Helm"},
    })
}

fn deleting_marks() -> Value {
    let mut m = marks();
    m["deletionTimestamp"] = json!(AT);
    m["finalizers"] = json!(["cluster.cluster.x-k8s.io"]);
    m
}

/// A v1beta2 condition (`metav1.Condition`).
fn v2(type_: &str, status: bool, reason: &str) -> Value {
    json!({
        "type": type_,
        "status": if status { "True" } else { "False" },
        "reason": reason,
        "observedGeneration": 2,
        "lastTransitionTime": AT,
    })
}

/// A v1beta1 condition: a severity when not True, a reason optional.
fn v1(type_: &str, status: bool, reason: Option<&str>) -> Value {
    let mut c = json!({
        "type": type_,
        "status": if status { "True" } else { "False" },
        "lastTransitionTime": AT,
    });
    if let Some(reason) = reason {
        c["reason"] = json!(reason);
        c["severity"] = json!("Info");
    }
    c
}

fn v1beta2_spec() -> Value {
    json!({
        "paused": false,
        "controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io",
                            "kind": "KubeadmControlPlane", "name": "dev-1"},
        "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                              "kind": "DockerCluster", "name": "dev-1"},
    })
}

fn v1beta1_spec() -> Value {
    json!({
        "paused": false,
        "controlPlaneRef": {"apiVersion": "controlplane.cluster.x-k8s.io/v1beta2",
                            "kind": "KubeadmControlPlane", "name": "dev-1", "namespace": "team-a"},
        "infrastructureRef": {"apiVersion": "infrastructure.cluster.x-k8s.io/v1beta2",
                              "kind": "DockerCluster", "name": "dev-1", "namespace": "team-a"},
    })
}

/// The v1beta2 conditions of each point of its life.
fn current_conditions(point: Point) -> Value {
    match point {
        Point::Provisioning => json!([
            v2("Available", false, "NotAvailable"),
            v2("InfrastructureReady", true, "Ready"),
            v2("ControlPlaneInitialized", false, "NotInitialized"),
            v2("ControlPlaneAvailable", false, "NotAvailable"),
            v2("RemoteConnectionProbe", false, "ProbeFailed"),
        ]),
        Point::Provisioned => json!([
            v2("Available", true, "Available"),
            v2("InfrastructureReady", true, "Ready"),
            v2("ControlPlaneInitialized", true, "Initialized"),
            v2("ControlPlaneAvailable", true, "Available"),
            v2("RemoteConnectionProbe", true, "ProbeSucceeded"),
        ]),
        Point::Deleting => json!([
            v2("Available", false, "NotAvailable"),
            v2("InfrastructureReady", true, "Ready"),
            v2("ControlPlaneInitialized", true, "Initialized"),
            v2("ControlPlaneAvailable", false, "NotAvailable"),
            v2("RemoteConnectionProbe", true, "ProbeSucceeded"),
            v2("Deleting", true, "WaitingForWorkersDeletion"),
        ]),
    }
}

/// The v1beta1 conditions of each point of its life.
fn legacy_conditions(point: Point) -> Value {
    match point {
        Point::Provisioning => json!([
            v1("Ready", false, Some("WaitingForControlPlane")),
            v1(
                "ControlPlaneInitialized",
                false,
                Some("WaitingForControlPlaneProviderInitialized")
            ),
            v1("ControlPlaneReady", false, Some("WaitingForControlPlane")),
            v1("InfrastructureReady", true, None),
        ]),
        Point::Provisioned => json!([
            v1("Ready", true, None),
            v1("ControlPlaneInitialized", true, None),
            v1("ControlPlaneReady", true, None),
            v1("InfrastructureReady", true, None),
        ]),
        Point::Deleting => json!([
            v1("Ready", false, Some("Deleting")),
            v1("ControlPlaneInitialized", true, None),
            v1("ControlPlaneReady", false, Some("Deleting")),
            v1("InfrastructureReady", true, None),
        ]),
    }
}

/// A point of the Cluster's life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// Its infrastructure is there; its control plane not initialised.
    Provisioning,
    /// Its control plane initialised and available.
    Provisioned,
    /// Being deleted, its control plane initialised before.
    Deleting,
}

impl Point {
    /// Every point, in the order of a Cluster's life.
    pub const ALL: [Point; 3] = [Point::Provisioning, Point::Provisioned, Point::Deleting];
}

impl Point {
    pub fn phase(self) -> &'static str {
        match self {
            Point::Provisioning => "Provisioning",
            Point::Provisioned => "Provisioned",
            Point::Deleting => "Deleting",
        }
    }

    pub fn initialized(self) -> bool {
        !matches!(self, Point::Provisioning)
    }

    fn metadata(self) -> Value {
        match self {
            Point::Deleting => deleting_marks(),
            _ => marks(),
        }
    }
}

/// The Cluster as Cluster API v1.11 and later serves it through v1beta2.
pub fn v1beta2(point: Point) -> Value {
    let mut initialization = json!({"infrastructureProvisioned": true});
    if point.initialized() {
        initialization["controlPlaneInitialized"] = json!(true);
    }
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2",
        "kind": "Cluster",
        "metadata": point.metadata(),
        "spec": v1beta2_spec(),
        "status": {
            "conditions": current_conditions(point),
            "initialization": initialization,
            "controlPlane": {"desiredReplicas": 1, "replicas": 1, "upToDateReplicas": 1,
                             "readyReplicas": 1, "availableReplicas": 1},
            "phase": point.phase(),
            "observedGeneration": 2,
            "deprecated": {"v1beta1": {"conditions": legacy_conditions(point)}},
        },
    })
}

/// The same Cluster served through v1beta1 (by Cluster API's conversion
/// since v1.11, as stored before).
pub fn v1beta1(point: Point) -> Value {
    json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1",
        "kind": "Cluster",
        "metadata": point.metadata(),
        "spec": v1beta1_spec(),
        "status": {
            "conditions": legacy_conditions(point),
            "controlPlaneReady": point.initialized(),
            "infrastructureReady": true,
            "phase": point.phase(),
            "observedGeneration": 2,
            "v1beta2": {
                "conditions": current_conditions(point),
                "controlPlane": {"desiredReplicas": 1, "replicas": 1, "upToDateReplicas": 1,
                                 "readyReplicas": 1, "availableReplicas": 1},
            },
        },
    })
}

/// The Cluster at `point`, as read through `version`.
pub fn served(version: Version, point: Point) -> Cluster {
    let json = match version {
        Version::V1Beta2 => v1beta2(point),
        Version::V1Beta1 => v1beta1(point),
    };
    serde_json::from_value(json).expect("a Cluster")
}
