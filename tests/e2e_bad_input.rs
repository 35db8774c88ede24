//! The engine end to end: bad input becomes clear conditions and blocks nothing else.

mod common;

use common::cases::*;
use common::*;
use hmc_tui::api::{ManagedCluster, ServiceState};
use kube::api::Api;
use serde_json::json;

/// Bad input is reported where a person looks, and blocks nothing else.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_shows_up_as_clear_conditions() {
    let mgmt = mgmt().await;
    let child1 = child(1).await;
    let ns = TestNamespace::create(&mgmt, "bad").await;
    let good_ns = format!("{}-good", ns.name);
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(
        &mgmt,
        &ns.name,
        "mixed",
        json!([
            {"name": "ingress-nginx", "values": "controller:\n  replicaCount: [1, 2\n"},
            {"name": "unknown", "template": "no-such-template"},
            {"name": "good", "template": "ingress-nginx-4-11-3", "namespace": good_ns,
             "values": chart_values(&good_ns, &good_ns)},
        ]),
    )
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
        available_release(&child1, &good_ns, "good")
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
    headless::harness(&[
        "provision",
        &format!("{}/nokube", ns.name),
        "--child",
        "1",
        "--without-kubeconfig",
    ])
    .await;
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
        upstream_repo_url()
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
            upstream_repo_url()
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
