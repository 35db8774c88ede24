//! The engine runs with exactly the RBAC of `assets/deploy/` (no right on
//! secrets at all): a cluster gets its service through its kubeconfig
//! secret, a new revision rolls out, the cluster is deleted, and nothing it
//! asks for is forbidden.

mod common;

use std::time::Duration;

use common::accounts::{apply_deploy_rbac, service_account_kubeconfig, stop_refused_nothing};
use common::cases::*;
use common::headless::*;
use common::rollouts::request;
use common::*;
use hmc_tui::api::{ManagedCluster, RolloutPhase, TemplateRollout};
use kube::api::Api;
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_needs_nothing_beyond_its_rbac() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "rbac").await;
    let target = format!("{}-ingress", ns.name);
    apply_deploy_rbac(&mgmt).await;
    let kubeconfig = std::env::temp_dir().join(format!("hmc-tui-{}.kubeconfig", ns.name));
    service_account_kubeconfig(&mgmt, "hmc-system", "hmc-tui", &kubeconfig).await;
    // Cluster-wide, as the Deployment runs it: its Lease is the one the
    // Role names, and it watches the other engines' Leases.
    let engine = Headless::start(None, 17531, &kubeconfig, "kube-system", &[]);
    eventually("the engine to lead", Duration::from_secs(60), || async {
        engine.is_leader().await?.then_some(())
    })
    .await;

    // Install, roll out a new version, delete: every verb the engine uses.
    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 1).await;
    let child1 = child(1).await;
    eventually("ingress-nginx on child-1", INSTALL, || {
        available_replicas(&child1, &target)
    })
    .await;
    common::rollouts::service_templates(&mgmt, &ns.name).await;
    let ar = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ClusterTemplate",
        "clustertemplates",
    );
    let cts: Api<kube::api::DynamicObject> = Api::namespaced_with(mgmt.clone(), &ns.name, &ar);
    cts.patch(
        "demo",
        &kube::api::PatchParams::default(),
        &kube::api::Patch::Json::<()>(
            serde_json::from_value(json!([{
                "op": "replace", "path": "/spec/services/0/template",
                "value": "ingress-nginx-4-11-4",
            }]))
            .unwrap(),
        ),
    )
    .await
    .unwrap();
    let rollouts: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually("the rollout to succeed", INSTALL, || async {
        let r = rollouts.get_opt("demo-2").await.ok()??;
        (r.status?.phase == RolloutPhase::Succeeded).then_some(())
    })
    .await;
    // A request is read, recorded and removed under the same RBAC.
    request(&mgmt, &ns.name, "demo-2", "pause", "carol").await;
    eventually(
        "the request to be answered",
        Duration::from_secs(60),
        || async {
            let r = rollouts.get_opt("demo-2").await.ok()??;
            let gone = !r
                .metadata
                .annotations
                .unwrap_or_default()
                .contains_key("hmc.mirantis.com/request");
            gone.then_some(())
        },
    )
    .await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("dev-1 deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;

    stop_refused_nothing(engine).await;
    drop_child_namespace(&child1, &target).await;
    let _ = std::fs::remove_file(&kubeconfig);
    ns.cleanup().await;
}
