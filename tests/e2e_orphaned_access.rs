//! A cluster that went without the engine's cleanup (its finalizer removed
//! by hand) does not leave its kubeconfig secret held for ever: once its
//! services are uninstalled from the child, the engine lets go.

mod common;

use common::cases::*;
use common::*;
use hmc_tui::api::{ManagedCluster, labels};
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_held_secret_is_let_go_of_once_its_cluster_is_gone() {
    let mgmt = mgmt().await;
    let child = child(2).await;
    let ns = TestNamespace::create(&mgmt, "orphan").await;
    let target = format!("{}-ingress", ns.name);
    let secret = "dev-1-kubeconfig";
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 2).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    until_ready(&mcs, "dev-1", INSTALL).await;
    let held = |want: bool| {
        let mgmt = mgmt.clone();
        let ns = ns.name.clone();
        move || {
            let (mgmt, ns) = (mgmt.clone(), ns.clone());
            async move {
                let list = secret_finalizers(&mgmt, &ns, secret).await?;
                (list.iter().any(|f| f == labels::FINALIZER) == want).then_some(())
            }
        }
    };
    eventually("the kubeconfig secret held", INSTALL, held(true)).await;
    assert!(!release_records(&child, &target).await.is_empty());

    // The cluster goes without the engine's cleanup.
    mcs.patch_metadata(
        "dev-1",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await
    .expect("remove the cluster's finalizers");
    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("the cluster gone", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;

    // Its releases go with it (they are owned by it), their uninstall
    // reaches the child through the secret, and then the hold ends.
    eventually(
        "the service uninstalled from the child",
        INSTALL,
        || async {
            release_records(&child, &target)
                .await
                .is_empty()
                .then_some(())
        },
    )
    .await;
    eventually("the kubeconfig secret let go of", INSTALL, held(false)).await;

    engine.stop().await;
    drop_child_namespace(&child, &target).await;
    ns.cleanup().await;
}
