//! Deleting a whole namespace with the engine running: the services leave
//! the child clusters before the kubeconfig secrets that reach them go
//! (the kubeconfig-hold admission policy of `assets/deploy/` keeps each
//! while its ManagedCluster exists; helm-controller skips the uninstall of
//! a release whose kubeconfig is gone). And a dry run writes nothing to its
//! child cluster.

mod common;

use std::time::{Duration, Instant};

use common::accounts::apply_deploy_rbac;
use common::cases::*;
use common::*;
use hmc_tui::api::ManagedCluster;
use hmc_tui::flux::HelmRelease;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use k8s_openapi::api::rbac::v1::ClusterRole;
use kube::Client;
use kube::api::Api;
use serde_json::json;

/// The most a namespace's deletion may take (the engine's deletion timeout
/// is 5 minutes; services on reachable children go in seconds).
const NAMESPACE_GONE: Duration = Duration::from_secs(180);

async fn has_deployment(child: &Client, ns: &str) -> bool {
    controller(child, ns, "ingress-nginx").await.is_some()
}

/// A namespace holding templates, two clusters on two children and their
/// kubeconfig secrets, services Installed, is deleted whole: it is gone
/// within 3 minutes, and neither child keeps a release record, a
/// Deployment or the ClusterRole of the service.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_namespace_uninstalls_its_services_first() {
    let mgmt = mgmt().await;
    let children = [child(1).await, child(2).await];
    let ns = TestNamespace::create(&mgmt, "nsdel").await;
    let target = format!("{}-ingress", ns.name);
    apply_deploy_rbac(&mgmt).await;
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    for (i, name) in ["dev-1", "dev-2"].iter().enumerate() {
        managed_cluster(&mgmt, &ns.name, name, json!([])).await;
        provision(&ns.name, name, i + 1).await;
    }
    for (i, c) in children.iter().enumerate() {
        eventually(
            &format!("ingress-nginx Available on child-{}", i + 1),
            INSTALL,
            || available_replicas(c, &target),
        )
        .await;
    }
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    // The access to each child cannot go first: without the hold, the
    // namespace controller may delete a kubeconfig secret before
    // helm-controller uninstalls through it, which then skips the
    // uninstall and leaves the service in the child.
    let secrets: Api<Secret> = Api::namespaced(mgmt.clone(), &ns.name);
    for name in ["dev-1", "dev-2"] {
        until_ready(&mcs, name, INSTALL).await;
        let secret = format!("{name}-kubeconfig");
        match secrets.delete(&secret, &Default::default()).await {
            Err(kube::Error::Api(s)) => assert!(
                s.code == 403 && s.message.contains(&format!("ManagedCluster {name}")),
                "{secret}'s deletion refused by the hold: {s:?}"
            ),
            other => panic!("{secret} deleted while its services are installed: {other:?}"),
        }
    }
    for c in &children {
        assert!(
            !release_records(c, &target).await.is_empty(),
            "the service has a release record before the deletion"
        );
        let roles: Api<ClusterRole> = Api::all(c.clone());
        assert!(
            roles.get_opt(&fullname(&ns.name)).await.unwrap().is_some(),
            "the chart's ClusterRole before the deletion"
        );
    }

    // Delete the whole namespace, with the engine running.
    let namespaces: Api<Namespace> = Api::all(mgmt.clone());
    let start = Instant::now();
    namespaces
        .delete(&ns.name, &Default::default())
        .await
        .expect("delete the namespace");
    let name = ns.name.clone();
    let gone = eventually(
        &format!("namespace {name} gone"),
        NAMESPACE_GONE,
        || async {
            namespaces
                .get_opt(&name)
                .await
                .ok()?
                .is_none()
                .then(|| start.elapsed())
        },
    )
    .await;
    eprintln!("namespace {name} gone after {gone:?}");
    for (i, c) in children.iter().enumerate() {
        let left = release_records(c, &target).await;
        assert!(
            left.is_empty(),
            "child-{} keeps release records: {left:?}",
            i + 1
        );
        assert!(
            !has_deployment(c, &target).await,
            "child-{} keeps the service's Deployment",
            i + 1
        );
        // The chart's cluster-wide RBAC goes with the release.
        let roles: Api<ClusterRole> = Api::all(c.clone());
        let role = roles.get_opt(&fullname(&name)).await.unwrap();
        assert!(role.is_none(), "child-{} keeps ClusterRole {role:?}", i + 1);
    }

    engine.stop().await;
    for c in &children {
        drop_child_namespace(c, &target).await;
    }
    ns.cleanup().await;
}

/// A cluster with `dryRun: true`, provisioned on a child, gets nothing
/// written: no release of its own or of its services, nothing in the
/// child; its service says what it would
/// install. Turning the dry run off installs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dry_run_writes_nothing_to_the_child() {
    let mgmt = mgmt().await;
    let child3 = child(3).await;
    let ns = TestNamespace::create(&mgmt, "dryrun").await;
    let target = format!("{}-ingress", ns.name);
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    let mc_ar = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ManagedCluster",
        "managedclusters",
    );
    let dry = |dry_run: bool| {
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
            "metadata": {"name": "dry"},
            "spec": {"template": "demo", "dryRun": dry_run},
        })
    };
    apply_json(&mgmt, &mc_ar, Some(&ns.name), dry(true)).await;
    // The cluster exists and is provisioned as if a provider had made it:
    // the dry run, not a missing kubeconfig, is what holds everything back.
    // It carries Helm's marks of the cluster's release, which adopts it once
    // the dry run is off.
    common::capi::make(&mgmt, &ns.name, "dry", true)
        .await
        .expect("the cluster, as its chart makes it");
    provision(&ns.name, "dry", 3).await;

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let message = eventually(
        "the dry run to say what it would install, on a provisioned cluster",
        INSTALL,
        || async {
            let (ready, _) = condition(&mcs, "dry", "ClusterReady").await?;
            let (_, message) = service_state(&mcs, "dry", "ingress-nginx").await?;
            (ready == "True" && message.starts_with("dry run")).then_some(message)
        },
    )
    .await;
    assert_eq!(
        message,
        format!("dry run: would install ingress-nginx-4-11-3 into namespace {target}")
    );
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let made: Vec<String> = releases
        .list_metadata(&Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|r| r.metadata.name)
        .collect();
    assert!(made.is_empty(), "a dry run makes no release: {made:?}");
    let child_namespaces: Api<Namespace> = Api::all(child3.clone());
    assert!(
        child_namespaces.get_opt(&target).await.unwrap().is_none(),
        "a dry run creates no namespace in the child"
    );
    assert!(release_records(&child3, &target).await.is_empty());
    let (ready, _) = condition(&mcs, "dry", "Ready").await.unwrap();
    assert_eq!(ready, "False", "a dry run is not Ready");

    // The same cluster without the dry run gets its service.
    apply_json(&mgmt, &mc_ar, Some(&ns.name), dry(false)).await;
    eventually("ingress-nginx Available on child-3", INSTALL, || {
        available_replicas(&child3, &target)
    })
    .await;
    mcs.delete("dry", &Default::default()).await.unwrap();
    eventually("dry deleted", INSTALL, || async {
        mcs.get_opt("dry").await.ok()?.is_none().then_some(())
    })
    .await;
    assert!(
        release_records(&child3, &target).await.is_empty(),
        "deleting the cluster uninstalled its service"
    );

    engine.stop().await;
    drop_child_namespace(&child3, &target).await;
    ns.cleanup().await;
}
