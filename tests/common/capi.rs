//! What Cluster API and its providers write for a cluster, for tests and
//! benchmarks that make many clusters without running them.

use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::json;

/// A CAPI Cluster whose control plane is up, the way `tests/harness/harness
/// provision` writes it, made as the ManagedCluster of that name's chart
/// would make it: with Helm's marks of its release, so that its services
/// may go into it.
pub async fn provision(capi: &Api<DynamicObject>, name: &str) -> kube::Result<()> {
    let namespace = capi.namespace().unwrap_or("default");
    let cluster: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
        "metadata": {
            "name": name,
            "labels": {"app.kubernetes.io/managed-by": "Helm"},
            "annotations": {
                "meta.helm.sh/release-name": name,
                "meta.helm.sh/release-namespace": namespace,
            },
        },
        "spec": {},
    }))
    .expect("a CAPI Cluster");
    capi.create(&PostParams::default(), &cluster).await?;
    // What either version reads, as the fixture CRD converts nothing:
    // v1beta1's controlPlaneReady, v1beta2's initialization, and the
    // condition both versions have.
    let status = json!({"status": {
        "phase": "Provisioned",
        "controlPlaneReady": true,
        "initialization": {"controlPlaneInitialized": true},
        "conditions": [{"type": "ControlPlaneInitialized", "status": "True",
                        "lastTransitionTime": "2026-01-01T00:00:00Z"}],
    }});
    capi.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await
        .map(drop)
}

/// The cluster's kubeconfig secret, as Cluster API writes it.
pub async fn kubeconfig_secret(
    secrets: &Api<Secret>,
    name: &str,
    kubeconfig: &str,
) -> kube::Result<()> {
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": format!("{name}-kubeconfig"),
                     "labels": {"cluster.x-k8s.io/cluster-name": name}},
        "type": "cluster.x-k8s.io/secret",
        "stringData": {"value": kubeconfig},
    }))
    .expect("a kubeconfig secret");
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .map(drop)
}
