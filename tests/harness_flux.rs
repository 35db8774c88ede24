//! Proof that the harness is real: by hand, without our engine, a chart
//! repository and a release pointed at a child cluster's kubeconfig secret
//! install the stand-in ingress-nginx into that child cluster.

mod common;

use std::time::Duration;

use common::*;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;

#[tokio::test]
async fn a_release_by_hand_installs_into_the_child_cluster() {
    let mgmt = mgmt().await;
    let child = child(1).await;
    let ns = TestNamespace::create(&mgmt, "smoke").await;
    let target = format!("{}-ingress", ns.name);

    let secrets: Api<Secret> = Api::namespaced(mgmt.clone(), &ns.name);
    let secret: Secret = serde_json::from_value(json!({
        "metadata": {"name": "child-kubeconfig"},
        "type": "cluster.x-k8s.io/secret",
        "stringData": {"value": child_kubeconfig_text(1)},
    }))
    .unwrap();
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();

    let repo_ar = ar(
        "source.toolkit.fluxcd.io",
        "v1",
        "HelmRepository",
        "helmrepositories",
    );
    apply_json(
        &mgmt,
        &repo_ar,
        Some(&ns.name),
        json!({
            "apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
            "metadata": {"name": "fixtures"},
            "spec": {"url": chart_repo_url(), "interval": "5m"},
        }),
    )
    .await;
    let hr_ar = ar(
        "helm.toolkit.fluxcd.io",
        "v2",
        "HelmRelease",
        "helmreleases",
    );
    apply_json(&mgmt, &hr_ar, Some(&ns.name), json!({
        "apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
        "metadata": {"name": "ingress"},
        "spec": {
            "interval": "5m",
            "chart": {"spec": {"chart": "ingress-nginx", "version": "4.11.3",
                               "sourceRef": {"kind": "HelmRepository", "name": "fixtures"}}},
            "kubeConfig": {"secretRef": {"name": "child-kubeconfig", "key": "value"}},
            "releaseName": "ingress-nginx",
            "targetNamespace": target,
            "storageNamespace": target,
            "install": {"createNamespace": true},
            "values": {"controller": {"service": {"type": "ClusterIP"},
                                      "ingressClassResource": {"name": format!("{}-nginx", ns.name)}}},
        },
    }))
    .await;

    let in_child: Api<Deployment> = Api::namespaced(child.clone(), &target);
    eventually(
        "the Deployment to be Available in child-1",
        Duration::from_secs(240),
        || {
            let api = in_child.clone();
            async move {
                let d = api
                    .get_opt("ingress-nginx-controller")
                    .await
                    .ok()
                    .flatten()?;
                let conds = d.status?.conditions?;
                conds
                    .iter()
                    .any(|c| c.type_ == "Available" && c.status == "True")
                    .then_some(())
            }
        },
    )
    .await;

    let in_mgmt: Api<Deployment> = Api::namespaced(mgmt.clone(), &target);
    assert!(
        in_mgmt
            .get_opt("ingress-nginx-controller")
            .await
            .unwrap()
            .is_none(),
        "the chart must land in the child cluster, not in the management cluster"
    );

    let releases: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), &ns.name, &hr_ar);
    eventually(
        "the release to turn Ready",
        Duration::from_secs(120),
        || {
            let api = releases.clone();
            async move {
                let hr = api.get("ingress").await.ok()?;
                let conds = hr.data["status"]["conditions"].as_array()?.clone();
                conds
                    .iter()
                    .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    .then_some(())
            }
        },
    )
    .await;

    // Leave nothing behind: uninstall from the child, then drop the namespaces.
    releases
        .delete("ingress", &Default::default())
        .await
        .unwrap();
    eventually(
        "the chart to be uninstalled from child-1",
        Duration::from_secs(120),
        || {
            let api = in_child.clone();
            async move {
                api.get_opt("ingress-nginx-controller")
                    .await
                    .ok()?
                    .is_none()
                    .then_some(())
            }
        },
    )
    .await;
    let child_ns: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(child.clone());
    let _ = child_ns.delete(&target, &Default::default()).await;
    ns.cleanup().await;
}

fn chart_repo_url() -> String {
    std::env::var("HMC_CHART_REPO").unwrap_or_else(|_| "http://127.0.0.1:18080".into())
}
