//! What a cluster chart and its provider write for a cluster, for tests and
//! benchmarks that make many clusters without installing charts. Cluster
//! API's own controllers run in the harness: these write what a chart and
//! the harness's provider (`tests/fixtures/crds/harness-provider.yaml`)
//! would, and Cluster API sets the Cluster's status from them.

use std::collections::BTreeSet;

use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use super::ar;

/// The harness's infrastructure kind.
pub fn harness_clusters() -> kube::api::ApiResource {
    ar(
        "infrastructure.cluster.x-k8s.io",
        "v1alpha1",
        "HarnessCluster",
        "harnessclusters",
    )
}

/// The harness's control-plane kind.
pub fn harness_control_planes() -> kube::api::ApiResource {
    ar(
        "controlplane.cluster.x-k8s.io",
        "v1alpha1",
        "HarnessControlPlane",
        "harnesscontrolplanes",
    )
}

/// Cluster API's Cluster, as the engine reads it.
pub fn clusters() -> kube::api::ApiResource {
    ar("cluster.x-k8s.io", "v1beta2", "Cluster", "clusters")
}

/// The API server address of child `i`, as the harness's kubeconfig names
/// it: `(host, port)`.
pub fn child_endpoint(i: usize) -> (String, u16) {
    let text = super::child_kubeconfig_text(i);
    let kc: serde_json::Value = serde_yaml::from_str(&text).expect("a kubeconfig");
    let server = kc["clusters"][0]["cluster"]["server"]
        .as_str()
        .expect("a server")
        .to_string();
    let hostport = server.trim_start_matches("https://");
    let (host, port) = hostport.split_once(':').expect("host:port");
    (host.to_string(), port.parse().expect("a port"))
}

/// Cluster API cluster `name` in `ns` as a cluster chart renders it: the
/// Cluster, referring to its HarnessCluster and HarnessControlPlane, and
/// those two, not yet provisioned (`tests/harness/harness provision`, or
/// [`provision`], plays the provider). With `made_by_release`, the objects
/// carry Helm's marks of the ManagedCluster `name`'s release, as its chart
/// would make them (so that its services may go into it); without, they
/// are someone else's.
pub async fn make(
    client: &Client,
    ns: &str,
    name: &str,
    made_by_release: bool,
) -> kube::Result<()> {
    let marks = if made_by_release {
        json!({
            "labels": {"app.kubernetes.io/managed-by": "Helm"},
            "annotations": {
                "meta.helm.sh/release-name": name,
                "meta.helm.sh/release-namespace": ns,
            },
        })
    } else {
        json!({})
    };
    let metadata = |extra: &serde_json::Value| {
        let mut m = extra.clone();
        m["name"] = json!(name);
        m
    };
    let pp = PostParams::default();
    for (resource, api_version, kind) in [
        (
            harness_clusters(),
            "infrastructure.cluster.x-k8s.io/v1alpha1",
            "HarnessCluster",
        ),
        (
            harness_control_planes(),
            "controlplane.cluster.x-k8s.io/v1alpha1",
            "HarnessControlPlane",
        ),
    ] {
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &resource);
        let object: DynamicObject = serde_json::from_value(json!({
            "apiVersion": api_version, "kind": kind,
            "metadata": metadata(&marks), "spec": {},
        }))
        .expect("a provider object");
        api.create(&pp, &object).await?;
    }
    let cluster: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "cluster.x-k8s.io/v1beta2", "kind": "Cluster",
        "metadata": metadata(&marks),
        "spec": {
            "controlPlaneRef": {"apiGroup": "controlplane.cluster.x-k8s.io",
                                "kind": "HarnessControlPlane", "name": name},
            "infrastructureRef": {"apiGroup": "infrastructure.cluster.x-k8s.io",
                                  "kind": "HarnessCluster", "name": name},
        },
    }))
    .expect("a CAPI Cluster");
    Api::<DynamicObject>::namespaced_with(client.clone(), ns, &clusters())
        .create(&pp, &cluster)
        .await
        .map(drop)
}

/// A Cluster API cluster `name` in `ns` on child `child`, as the
/// ManagedCluster `name`'s chart and its provider make it ([`make`]), with
/// its HarnessCluster provisioned at the child's address and its
/// HarnessControlPlane initialised, as `harness provision` leaves them but
/// without its kubeconfig secret ([`kubeconfig_secret`]). Cluster API then
/// says the Cluster's control plane is initialised (not waited for here:
/// a fleet is made faster than Cluster API takes it in).
pub async fn provision(client: &Client, ns: &str, name: &str, child: usize) -> kube::Result<()> {
    make(client, ns, name, true).await?;
    provide(client, ns, name, child).await
}

/// Plays the provider of `name`'s infrastructure and control plane, made
/// by its chart or by [`make`]: both at child `child`'s address, the
/// infrastructure provisioned and the control plane initialised, as
/// `harness provision` does but without the kubeconfig secret and without
/// waiting for Cluster API.
pub async fn provide(client: &Client, ns: &str, name: &str, child: usize) -> kube::Result<()> {
    let (host, port) = child_endpoint(child);
    let endpoint =
        Patch::Merge(json!({"spec": {"controlPlaneEndpoint": {"host": host, "port": port}}}));
    let pp = PatchParams::default();
    // The infrastructure first, as a provider's would be ready first.
    for (resource, done) in [
        (harness_clusters(), json!({"provisioned": true})),
        (
            harness_control_planes(),
            json!({"controlPlaneInitialized": true}),
        ),
    ] {
        let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &resource);
        api.patch(name, &pp, &endpoint).await?;
        let status = Patch::Merge(json!({"status": {"initialization": done}}));
        api.patch_status(name, &pp, &status).await?;
    }
    Ok(())
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

/// Plays the provider of every Cluster API cluster of `ns` its chart has
/// made and that is not yet in `done`, as `harness provision` does (Cluster
/// API then takes it in), and notes it in `done`: a cluster named with
/// digits `…i` goes to child `i mod children + 1`, with its kubeconfig
/// secret. For benchmarks that make a fleet faster than one provision
/// command each would.
pub async fn provide_new(client: &Client, ns: &str, children: usize, done: &mut BTreeSet<String>) {
    let capi: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &clusters());
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let Ok(list) = capi.list_metadata(&ListParams::default()).await else {
        return;
    };
    let new: Vec<String> = list
        .items
        .into_iter()
        .map(|c| c.name_any())
        .filter(|n| !done.contains(n))
        .collect();
    let results = futures::stream::iter(new)
        .map(|name| {
            let secrets = &secrets;
            async move {
                let digits: String = name.chars().filter(char::is_ascii_digit).collect();
                let child = digits.parse::<usize>().unwrap_or(0) % children + 1;
                let secret = json!({
                    "apiVersion": "v1", "kind": "Secret", "type": "cluster.x-k8s.io/secret",
                    "metadata": {"name": format!("{name}-kubeconfig"),
                                 "labels": {"cluster.x-k8s.io/cluster-name": name}},
                    "stringData": {"value": super::child_kubeconfig_text(child)},
                });
                let params = PatchParams::apply("bench-provider").force();
                let ok = provide(client, ns, &name, child).await.is_ok()
                    && secrets
                        .patch(
                            &format!("{name}-kubeconfig"),
                            &params,
                            &Patch::Apply(&secret),
                        )
                        .await
                        .is_ok();
                ok.then_some(name)
            }
        })
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    done.extend(results.into_iter().flatten());
}
