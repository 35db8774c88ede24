//! The engine end to end, against the real harness: templates define
//! services, clusters get them once provisioned.
//!
//! Each test runs its own in-process engine scoped to its own namespace, and
//! installs into child namespaces named after it, so tests do not collide.

mod common;

use std::time::Duration;

use common::*;
use hmc_tui::api::{ManagedCluster, ServiceState};
use hmc_tui::flux::HelmRelease;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Api, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::json;

const INSTALL: Duration = Duration::from_secs(300);

fn chart_repo_url() -> String {
    std::env::var("HMC_CHART_REPO").unwrap_or_else(|_| "http://127.0.0.1:18080".into())
}

/// The ingress-nginx ServiceTemplate and a ClusterTemplate that installs it
/// into `<ns>-ingress` with template-level values.
async fn templates(mgmt: &Client, ns: &str) {
    let yaml = format!(
        r#"
apiVersion: hmc.mirantis.com/v1alpha1
kind: ServiceTemplate
metadata:
  name: ingress-nginx-4-11-3
spec:
  helm:
    chartName: ingress-nginx
    chartVersion: 4.11.3
    repository:
      url: {repo}
---
apiVersion: hmc.mirantis.com/v1alpha1
kind: ClusterTemplate
metadata:
  name: demo
spec:
  helm:
    chartName: hmc-test-cluster
    chartVersion: 0.1.0
    repository:
      url: {repo}
  services:
    - name: ingress-nginx
      template: ingress-nginx-4-11-3
      namespace: {ns}-ingress
      values: |
        controller:
          service:
            type: ClusterIP
          ingressClassResource:
            name: {ns}-nginx
"#,
        repo = chart_repo_url()
    );
    apply_yaml(mgmt, ns, &yaml).await;
}

async fn managed_cluster(mgmt: &Client, ns: &str, name: &str, services: serde_json::Value) {
    let ar = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ManagedCluster",
        "managedclusters",
    );
    apply_json(
        mgmt,
        &ar,
        Some(ns),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
            "metadata": {"name": name},
            "spec": {"template": "demo", "services": services},
        }),
    )
    .await;
}

async fn status_of(
    api: &Api<ManagedCluster>,
    name: &str,
) -> Option<hmc_tui::api::ManagedClusterStatus> {
    api.get_opt(name).await.ok().flatten()?.status
}

async fn service_state(
    api: &Api<ManagedCluster>,
    cluster: &str,
    service: &str,
) -> Option<(ServiceState, String)> {
    let st = status_of(api, cluster).await?;
    let s = st.services.iter().find(|s| s.name == service)?;
    Some((s.state, s.message.clone().unwrap_or_default()))
}

async fn condition(
    api: &Api<ManagedCluster>,
    cluster: &str,
    type_: &str,
) -> Option<(String, String)> {
    let st = status_of(api, cluster).await?;
    let c = st.conditions.iter().find(|c| c.type_ == type_)?;
    Some((c.status.clone(), c.message.clone()))
}

async fn available_replicas(child: &Client, ns: &str) -> Option<i32> {
    let api: Api<Deployment> = Api::namespaced(child.clone(), ns);
    let d = api
        .get_opt("ingress-nginx-controller")
        .await
        .ok()
        .flatten()?;
    let status = d.status?;
    let available = status
        .conditions?
        .iter()
        .any(|c| c.type_ == "Available" && c.status == "True");
    available.then(|| status.available_replicas.unwrap_or(0))
}

async fn deployment_replicas(child: &Client, ns: &str) -> Option<i32> {
    let api: Api<Deployment> = Api::namespaced(child.clone(), ns);
    api.get_opt("ingress-nginx-controller")
        .await
        .ok()
        .flatten()?
        .spec?
        .replicas
}

async fn drop_child_namespace(child: &Client, ns: &str) {
    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(child.clone());
    let _ = api.delete(ns, &Default::default()).await;
}

/// Two clusters get ingress-nginx with merged values; a resync writes
/// nothing; disabling removes it from one cluster only; deleting a cluster
/// uninstalls its services before the cluster itself, and leaves nothing.
#[tokio::test]
async fn services_follow_templates_into_provisioned_clusters() {
    let mgmt = mgmt().await;
    let (child1, child2) = (child(1).await, child(2).await);
    let ns = TestNamespace::create(&mgmt, "life").await;
    let target = format!("{}-ingress", ns.name);
    let engine = RunningEngine::start(&mgmt, &ns.name).await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(
        &mgmt,
        &ns.name,
        "dev-1",
        json!([
            {"name": "ingress-nginx", "values": "controller:\n  replicaCount: 2\n"}
        ]),
    )
    .await;
    managed_cluster(&mgmt, &ns.name, "dev-2", json!([])).await;
    provision(&ns.name, "dev-1", 1).await;
    provision(&ns.name, "dev-2", 2).await;

    // Merged values reach each child cluster: the cluster override wins.
    let r1 = eventually("ingress-nginx Available on child-1", INSTALL, || {
        available_replicas(&child1, &target)
    })
    .await;
    let r2 = eventually("ingress-nginx Available on child-2", INSTALL, || {
        available_replicas(&child2, &target)
    })
    .await;
    assert_eq!(
        (r1, r2),
        (2, 1),
        "dev-1 overrides controller.replicaCount to 2"
    );
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    for name in ["dev-1", "dev-2"] {
        eventually(&format!("{name} Ready"), INSTALL, || async {
            let (status, _) = condition(&mcs, name, "Ready").await?;
            (status == "True").then_some(())
        })
        .await;
        let st = status_of(&mcs, name).await.unwrap();
        assert_eq!(st.services_ready.as_deref(), Some("1/1"));
        assert_eq!(st.services[0].version.as_deref(), Some("4.11.3"));
        assert_eq!(st.services[0].revision, Some(1));
        let text = serde_json::to_string(&st).unwrap();
        assert!(
            !text.contains("HelmRelease"),
            "status speaks our words: {text}"
        );
    }

    // A restarted engine finds nothing to do: zero writes.
    engine.stop().await;
    let engine = RunningEngine::start(&mgmt, &ns.name).await;
    eventually(
        "the new engine to reconcile every object",
        Duration::from_secs(60),
        || {
            let n = engine.counters.reconciles();
            async move { (n >= 4).then_some(()) }
        },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        engine.counters.writes(),
        0,
        "a resync of an unchanged world must not write"
    );

    // A template still in use cannot be deleted.
    let cts: Api<hmc_tui::api::ClusterTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    cts.delete("demo", &Default::default()).await.unwrap();
    let why = eventually(
        "the template to say it is in use",
        Duration::from_secs(30),
        || async {
            let ct = cts.get_opt("demo").await.ok().flatten()?;
            ct.status?
                .chart
                .validation_error
                .filter(|m| m.contains("in use"))
        },
    )
    .await;
    assert!(
        why.contains("ManagedCluster dev-1") && why.contains("ManagedCluster dev-2"),
        "{why}"
    );

    // Disable the service on dev-2: uninstalled there, kept on dev-1.
    managed_cluster(
        &mgmt,
        &ns.name,
        "dev-2",
        json!([{"name": "ingress-nginx", "disable": true}]),
    )
    .await;
    eventually("ingress-nginx gone from child-2", INSTALL, || async {
        deployment_replicas(&child2, &target)
            .await
            .is_none()
            .then_some(())
    })
    .await;
    assert_eq!(
        deployment_replicas(&child1, &target).await,
        Some(2),
        "dev-1 keeps its service"
    );
    eventually(
        "dev-2 to list no services",
        Duration::from_secs(60),
        || async {
            status_of(&mcs, "dev-2")
                .await
                .filter(|s| s.services.is_empty())
                .map(|_| ())
        },
    )
    .await;

    // Delete dev-1: services leave the child before the cluster release goes.
    mcs.delete("dev-1", &Default::default()).await.unwrap();
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let mut service_gone_first = None;
    let start = std::time::Instant::now();
    loop {
        let cluster_release = releases.get_opt("dev-1").await.unwrap();
        let cluster_deleting = cluster_release
            .as_ref()
            .is_none_or(|r| r.metadata.deletion_timestamp.is_some());
        if cluster_deleting && service_gone_first.is_none() {
            service_gone_first = Some(deployment_replicas(&child1, &target).await.is_none());
        }
        if mcs.get_opt("dev-1").await.unwrap().is_none() {
            break;
        }
        assert!(
            start.elapsed() < INSTALL,
            "timed out waiting for dev-1 to be deleted\n{}",
            logs_hint()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        service_gone_first,
        Some(true),
        "services are uninstalled before the cluster release goes"
    );
    let left: Vec<String> = releases
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .iter()
        .filter(|r| {
            r.labels()
                .get("hmc.mirantis.com/managed-cluster")
                .map(String::as_str)
                == Some("dev-1")
        })
        .map(|r| r.name_any())
        .collect();
    assert!(left.is_empty(), "nothing of dev-1 is left: {left:?}");
    let capi = ar("cluster.x-k8s.io", "v1beta1", "Cluster", "clusters");
    let capi_api: Api<kube::api::DynamicObject> =
        Api::namespaced_with(mgmt.clone(), &ns.name, &capi);
    assert!(
        capi_api.get_opt("dev-1").await.unwrap().is_none(),
        "the cluster's own objects are gone"
    );

    mcs.delete("dev-2", &Default::default()).await.unwrap();
    eventually("the template to go once unused", INSTALL, || async {
        cts.get_opt("demo").await.ok()?.is_none().then_some(())
    })
    .await;
    engine.stop().await;
    drop_child_namespace(&child1, &target).await;
    drop_child_namespace(&child2, &target).await;
    ns.cleanup().await;
}

/// No service is installed before the cluster is provisioned.
#[tokio::test]
async fn services_wait_for_the_cluster_to_be_provisioned() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "pend").await;
    let engine = RunningEngine::start(&mgmt, &ns.name).await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "later", json!([])).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let msg = eventually("the service to be Pending", INSTALL, || async {
        let (state, msg) = service_state(&mcs, "later", "ingress-nginx").await?;
        (state == ServiceState::Pending && msg.contains("provisioned")).then_some(msg)
    })
    .await;
    assert!(
        msg.contains("waiting for the cluster to be provisioned"),
        "{msg}"
    );
    // The cluster's own release exists; no service release does.
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually("the cluster release", Duration::from_secs(60), || async {
        releases.get_opt("later").await.ok()?.map(|_| ())
    })
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(
        releases
            .get_opt("later-ingress-nginx")
            .await
            .unwrap()
            .is_none()
    );
    let (ready, _) = condition(&mcs, "later", "ClusterReady").await.unwrap();
    assert_eq!(ready, "False");

    mcs.delete("later", &Default::default()).await.unwrap();
    eventually("the cluster to be deleted", INSTALL, || async {
        mcs.get_opt("later").await.ok()?.is_none().then_some(())
    })
    .await;
    engine.stop().await;
    ns.cleanup().await;
}

/// Bad input is reported where a person looks, and blocks nothing else.
#[tokio::test]
async fn bad_input_shows_up_as_clear_conditions() {
    let mgmt = mgmt().await;
    let child1 = child(1).await;
    let ns = TestNamespace::create(&mgmt, "bad").await;
    let good_ns = format!("{}-good", ns.name);
    let engine = RunningEngine::start(&mgmt, &ns.name).await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "mixed", json!([
        {"name": "ingress-nginx", "values": "controller:\n  replicaCount: [1, 2\n"},
        {"name": "unknown", "template": "no-such-template"},
        {"name": "good", "template": "ingress-nginx-4-11-3", "namespace": good_ns,
         "values": format!("controller:\n  service:\n    type: ClusterIP\n  ingressClassResource:\n    name: {}-good\n", ns.name)},
    ]))
    .await;
    provision(&ns.name, "mixed", 1).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);

    let (state, msg) = eventually("the bad values to be reported", INSTALL, || async {
        service_state(&mcs, "mixed", "ingress-nginx")
            .await
            .filter(|(s, _)| *s == ServiceState::Failed)
    })
    .await;
    assert_eq!(state, ServiceState::Failed);
    assert!(
        msg.contains("not valid") && msg.contains("line 2"),
        "line and column of the error: {msg}"
    );
    let (_, msg) = service_state(&mcs, "mixed", "unknown").await.unwrap();
    assert!(
        msg.contains("service template no-such-template does not exist"),
        "{msg}"
    );
    eventually("the good service to install anyway", INSTALL, || {
        available_replicas(&child1, &good_ns)
    })
    .await;
    eventually("the good service to be Installed", INSTALL, || async {
        service_state(&mcs, "mixed", "good")
            .await
            .filter(|(s, _)| *s == ServiceState::Installed)
    })
    .await;
    let (ready, msg) = condition(&mcs, "mixed", "ServicesReady").await.unwrap();
    assert_eq!(ready, "False");
    assert!(!msg.is_empty());

    // Provisioned, but the provider never wrote the kubeconfig secret.
    managed_cluster(&mgmt, &ns.name, "nokube", json!([])).await;
    let capi = ar("cluster.x-k8s.io", "v1beta1", "Cluster", "clusters");
    let capi_api: Api<kube::api::DynamicObject> =
        Api::namespaced_with(mgmt.clone(), &ns.name, &capi);
    eventually("the CAPI Cluster of nokube", INSTALL, || async {
        capi_api.get_opt("nokube").await.ok()?.map(|_| ())
    })
    .await;
    capi_api
        .patch_status(
            "nokube",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"controlPlaneReady": true}})),
        )
        .await
        .unwrap();
    let (_, msg) = eventually("the missing secret to be reported", INSTALL, || async {
        service_state(&mcs, "nokube", "ingress-nginx")
            .await
            .filter(|(_, m)| m.contains("kubeconfig"))
    })
    .await;
    assert!(
        msg.contains("kubeconfig secret nokube-kubeconfig not found"),
        "{msg}"
    );

    // A template that points at a chart version that does not exist.
    apply_yaml(&mgmt, &ns.name, &format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: ingress-nginx-4-11-9\nspec:\n  helm:\n    chartName: ingress-nginx\n    chartVersion: 4.11.9\n    repository:\n      url: {}\n",
        chart_repo_url()
    ))
    .await;
    let sts: Api<hmc_tui::api::ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let why = eventually("the unknown version to be reported", INSTALL, || async {
        let st = sts
            .get_opt("ingress-nginx-4-11-9")
            .await
            .ok()
            .flatten()?
            .status?;
        st.validation_error.filter(|m| m.contains("not found"))
    })
    .await;
    assert_eq!(
        why,
        format!(
            "chart ingress-nginx 4.11.9 not found in repository {}",
            chart_repo_url()
        )
    );

    for name in ["mixed", "nokube"] {
        mcs.delete(name, &Default::default()).await.unwrap();
    }
    for name in ["mixed", "nokube"] {
        eventually("cleanup", INSTALL, || async {
            mcs.get_opt(name).await.ok()?.is_none().then_some(())
        })
        .await;
    }
    engine.stop().await;
    drop_child_namespace(&child1, &good_ns).await;
    ns.cleanup().await;
}
