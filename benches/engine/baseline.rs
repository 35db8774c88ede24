//! The baseline: a plain client that already knows the answer and writes the
//! same objects the engine wrote, straight to the same API server, with as
//! many clusters in flight as the engine's controller has reconciles in
//! flight. Its time is the practical limit for the engine's. Its namespace
//! holds the same provisioned clusters, kubeconfig secrets included.

use std::collections::BTreeMap;

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, ListParams, Patch, PatchParams};
use kube::{Client, Resource, ResourceExt};
use serde_json::json;

use k8s_openapi::api::core::v1::Secret;

use hmc_tui::api::{ManagedCluster, labels};
use hmc_tui::flux::HelmRelease;

/// The engine's concurrency per controller (`src/engine/mod.rs`).
pub const CONCURRENCY: usize = 16;
const FIELD_MANAGER: &str = "hmc-bench-baseline";
/// The label Cluster API puts on a cluster's kubeconfig secret.
const CAPI_CLUSTER: &str = "cluster.x-k8s.io/cluster-name";

/// What the baseline writes for one cluster, in the engine's order.
pub struct ClusterWrites {
    name: String,
    finalizer: bool,
    /// The kubeconfig secret the engine holds with its finalizer, while
    /// services are installed through it.
    hold: Option<String>,
    releases: Vec<HelmRelease>,
    status: Option<serde_json::Value>,
}

/// Copies what the engine wrote in `from` (releases, statuses) as writes
/// for the same clusters in `to`. Only service releases unless `cluster_release`;
/// the finalizers (the cluster's, and the hold on its kubeconfig secret)
/// with `finalizer`.
pub async fn copy(
    client: &Client,
    from: &str,
    to: &str,
    cluster_release: bool,
    finalizer: bool,
) -> Vec<ClusterWrites> {
    let lp = ListParams::default();
    let releases = Api::<HelmRelease>::namespaced(client.clone(), from)
        .list(&lp)
        .await
        .expect("list the engine's releases");
    let theirs = Api::<ManagedCluster>::namespaced(client.clone(), from)
        .list(&lp)
        .await
        .expect("list the engine's clusters");
    let ours: BTreeMap<String, ManagedCluster> =
        Api::<ManagedCluster>::namespaced(client.clone(), to)
            .list(&lp)
            .await
            .expect("list the baseline's clusters")
            .items
            .into_iter()
            .map(|mc| (mc.name_any(), mc))
            .collect();
    let mut plan: BTreeMap<String, ClusterWrites> = theirs
        .items
        .iter()
        .map(|mc| {
            let status = mc.status.as_ref().map(|st| {
                json!({
                    "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
                    "status": st,
                })
            });
            let name = mc.name_any();
            (
                name.clone(),
                ClusterWrites {
                    name,
                    finalizer,
                    hold: None,
                    releases: vec![],
                    status,
                },
            )
        })
        .collect();
    if finalizer {
        let secrets = Api::<Secret>::namespaced(client.clone(), from)
            .list_metadata(&lp)
            .await
            .expect("list the engine's kubeconfig secrets");
        for secret in secrets.items {
            let held = secret.finalizers().iter().any(|f| f == labels::FINALIZER);
            let cluster = secret.labels().get(CAPI_CLUSTER);
            if let (true, Some(writes)) = (held, cluster.and_then(|c| plan.get_mut(c))) {
                writes.hold = Some(secret.name_any());
            }
        }
    }
    for r in releases.items {
        let Some(cluster) = r.labels().get(labels::CLUSTER).cloned() else {
            continue;
        };
        let is_service = r.labels().contains_key(labels::SERVICE);
        let (Some(writes), Some(owner)) = (plan.get_mut(&cluster), ours.get(&cluster)) else {
            continue;
        };
        if !is_service && !cluster_release {
            continue;
        }
        let mut copy = HelmRelease {
            metadata: Default::default(),
            spec: r.spec.clone(),
            status: None,
        };
        copy.metadata.name = r.metadata.name.clone();
        copy.metadata.namespace = Some(to.to_string());
        copy.metadata.labels = r.metadata.labels.clone();
        copy.metadata.annotations = r.metadata.annotations.clone();
        copy.metadata.owner_references = owner.controller_owner_ref(&()).map(|o| vec![o]);
        // The cluster's own release first, as the engine writes it.
        if is_service {
            writes.releases.push(copy);
        } else {
            writes.releases.insert(0, copy);
        }
    }
    plan.into_values().collect()
}

/// Writes the plan into `ns`, `CONCURRENCY` clusters at a time, each
/// cluster's writes one after another. Returns the number of writes.
pub async fn write(client: &Client, ns: &str, plan: Vec<ClusterWrites>) -> usize {
    let mcs: Api<ManagedCluster> = Api::namespaced(client.clone(), ns);
    let releases: Api<HelmRelease> = Api::namespaced(client.clone(), ns);
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let apply = PatchParams::apply(FIELD_MANAGER).force();
    let counts: Vec<usize> = futures::stream::iter(plan)
        .map(|c| {
            let (mcs, releases, secrets, apply) = (&mcs, &releases, &secrets, &apply);
            async move {
                let mut writes = 0;
                if c.finalizer {
                    let patch = json!({"metadata": {"finalizers": [labels::FINALIZER]}});
                    mcs.patch(&c.name, &PatchParams::default(), &Patch::Merge(&patch))
                        .await?;
                    writes += 1;
                }
                if let Some(secret) = &c.hold {
                    let patch = json!({"metadata": {"finalizers": [labels::FINALIZER]}});
                    secrets
                        .patch_metadata(secret, &PatchParams::default(), &Patch::Merge(&patch))
                        .await?;
                    writes += 1;
                }
                for r in &c.releases {
                    releases
                        .patch(&r.name_any(), apply, &Patch::Apply(r))
                        .await?;
                    writes += 1;
                }
                if let Some(status) = &c.status {
                    mcs.patch_status(&c.name, apply, &Patch::Apply(status))
                        .await?;
                    writes += 1;
                }
                Ok::<_, kube::Error>(writes)
            }
        })
        .buffer_unordered(CONCURRENCY)
        .try_collect()
        .await
        .unwrap_or_else(|e| panic!("the baseline's writes in {ns}: {e}"));
    counts.into_iter().sum()
}
