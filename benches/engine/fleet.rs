//! The fleet a benchmark run works on: one ClusterTemplate with three
//! services, N ManagedClusters made from it, and what an infrastructure
//! provider would write for each (a provisioned CAPI Cluster and its
//! kubeconfig secret), created in bulk with a bounded number of requests in
//! flight.

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Secret;
use kube::Client;
use kube::api::{Api, ListParams, PostParams};
use serde_json::{Value, json};

use hmc_tui::api::{ClusterTemplate, ManagedCluster, ServiceTemplate};

use crate::common::{self, ar, cases::chart_repo_url};

/// The three services of the bench template: (service, ServiceTemplate, chart version).
pub const SERVICES: [(&str, &str, &str); 3] = [
    ("a", "bench-a", "4.11.3"),
    ("b", "bench-b", "4.11.4"),
    ("c", "bench-c", "4.11.3"),
];
pub const TEMPLATE: &str = "bench";
/// Requests in flight while creating the fleet (setup, not measured).
const SETUP_CONCURRENCY: usize = 64;

pub fn cluster_name(i: usize) -> String {
    format!("c{i:05}")
}

/// The values a service gets at `revision`: what the checks look for.
pub fn service_values(service: &str, revision: i64) -> Value {
    json!({"bench": {"service": service, "revision": revision}})
}

fn cluster_template(revision: i64) -> Value {
    let services: Vec<Value> = SERVICES
        .iter()
        .map(|(name, template, _)| {
            json!({
                "name": name, "template": template, "namespace": format!("bench-{name}"),
                "values": serde_yaml::to_string(&service_values(name, revision)).unwrap(),
            })
        })
        .collect();
    json!({
        "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ClusterTemplate",
        "metadata": {"name": TEMPLATE},
        "spec": {
            "helm": {
                "chartName": "hmc-test-cluster", "chartVersion": "0.1.0",
                "repository": {"url": chart_repo_url()},
            },
            "services": services,
            "rollout": {"strategy": "Automatic", "maxConcurrent": "100%"},
        },
    })
}

/// The ServiceTemplates and the ClusterTemplate (services at revision 1).
pub async fn templates(client: &Client, ns: &str) {
    for (_, name, version) in SERVICES {
        common::apply_json(
            client,
            &ar(
                "hmc.mirantis.com",
                "v1alpha1",
                "ServiceTemplate",
                "servicetemplates",
            ),
            Some(ns),
            json!({
                "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ServiceTemplate",
                "metadata": {"name": name},
                "spec": {"helm": {
                    "chartName": "ingress-nginx", "chartVersion": version,
                    "repository": {"url": chart_repo_url()},
                }},
            }),
        )
        .await;
    }
    set_template_revision(client, ns, 1).await;
}

/// Changes the template's service values so that they are those of `revision`.
pub async fn set_template_revision(client: &Client, ns: &str, revision: i64) {
    common::apply_json(
        client,
        &ar(
            "hmc.mirantis.com",
            "v1alpha1",
            "ClusterTemplate",
            "clustertemplates",
        ),
        Some(ns),
        cluster_template(revision),
    )
    .await;
}

/// True once every template's chart was fetched (Flux must run for that).
pub async fn templates_valid(client: &Client, ns: &str) -> Option<()> {
    let st: Api<ServiceTemplate> = Api::namespaced(client.clone(), ns);
    let ct: Api<ClusterTemplate> = Api::namespaced(client.clone(), ns);
    for (_, name, _) in SERVICES {
        st.get_opt(name).await.ok()??.status?.valid.then_some(())?;
    }
    ct.get_opt(TEMPLATE)
        .await
        .ok()??
        .status?
        .chart
        .valid
        .then_some(())
}

/// Creates `n` ManagedClusters, a kubeconfig secret for each and, with
/// `provisioned`, a provisioned CAPI Cluster.
pub async fn clusters(client: &Client, ns: &str, n: usize, provisioned: bool) {
    let mcs: Api<ManagedCluster> = Api::namespaced(client.clone(), ns);
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let kubeconfig = common::child_kubeconfig_text(1);
    futures::stream::iter(0..n)
        .map(|i| {
            let (mcs, secrets, kubeconfig) = (&mcs, &secrets, &kubeconfig);
            async move {
                let name = cluster_name(i);
                if provisioned {
                    common::capi::provision(client, ns, &name, 1).await?;
                }
                common::capi::kubeconfig_secret(secrets, &name, kubeconfig).await?;
                let mc: ManagedCluster = serde_json::from_value(json!({
                    "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
                    "metadata": {"name": name},
                    "spec": {"template": TEMPLATE},
                }))
                .expect("a ManagedCluster");
                mcs.create(&PostParams::default(), &mc).await.map(drop)
            }
        })
        .buffer_unordered(SETUP_CONCURRENCY)
        .try_collect::<Vec<()>>()
        .await
        .unwrap_or_else(|e| panic!("create the fleet in {ns}: {e}"));
}

/// Deletes every release in `ns`. One request for 40,000 releases can
/// outlast the connection (`SendRequest`) while the API server goes on
/// deleting: it is asked again, for what is left, a few times.
pub async fn delete_releases(client: &Client, ns: &str) {
    let api = Api::<hmc_tui::flux::HelmRelease>::namespaced(client.clone(), ns);
    let mut attempt = 1;
    loop {
        match api
            .delete_collection(&Default::default(), &ListParams::default())
            .await
        {
            Ok(_) => return,
            Err(e) if attempt < 5 => {
                eprintln!("deleting the releases in {ns} broke off ({e}); asking again");
                attempt += 1;
                tokio::time::sleep(std::time::Duration::from_secs(10)).await;
            }
            Err(e) => panic!("delete the releases in {ns}: {e}"),
        }
    }
}
