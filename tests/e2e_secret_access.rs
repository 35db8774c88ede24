//! Kubeconfig secrets: the engine's token reads none, and a cluster's stays
//! while its ManagedCluster does.
//!
//! As the engine's ServiceAccount, with the RBAC of `assets/deploy/`: the
//! API server refuses it every verb on secrets in every namespace, and no
//! request shape returns a secret. The hold that keeps a cluster's
//! `<cluster>-kubeconfig` until its services are uninstalled is the
//! admission policy `kubeconfig-hold-policy.yaml`, which refuses everyone
//! the deletion of that secret while a ManagedCluster of its name exists in
//! its namespace, whether deleted alone, as a collection or with its
//! namespace. (The whole flow under that RBAC: e2e_rbac.rs; a namespace
//! deleted with clusters and services in it: e2e_namespace_delete.rs.)

mod common;

use std::time::Duration;

use common::accounts::{apply_deploy_rbac, service_account_kubeconfig};
use common::*;
use hmc_tui::api::ManagedCluster;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;

const CAPI_SECRET: &str = "cluster.x-k8s.io/secret";

/// Whether the API server would let the caller `verb` secrets in `ns`
/// (cluster-wide when empty), as `kubectl auth can-i` asks it.
async fn can_i(client: &kube::Client, verb: &str, ns: &str) -> bool {
    may(client, verb, "", "secrets", ns).await
}

/// Whether the API server would let the caller `verb` the `resource` of
/// `group` in `ns` (cluster-wide when empty).
async fn may(client: &kube::Client, verb: &str, group: &str, resource: &str, ns: &str) -> bool {
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                group: Some(group.into()),
                resource: Some(resource.into()),
                namespace: (!ns.is_empty()).then(|| ns.to_string()),
                ..Default::default()
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    Api::<SelfSubjectAccessReview>::all(client.clone())
        .create(&PostParams::default(), &review)
        .await
        .expect("a SelfSubjectAccessReview")
        .status
        .expect("its answer")
        .allowed
}

/// A secret of `type_` whose one value names it, labelled for `cluster`
/// as Cluster API labels what it writes.
fn secret(name: &str, type_: &str, cluster: Option<&str>) -> Secret {
    let labels = cluster.map(|c| json!({"cluster.x-k8s.io/cluster-name": c}));
    serde_json::from_value(json!({
        "metadata": {"name": name, "labels": labels},
        "type": type_,
        "stringData": {"value": format!("the-secret-bytes of {name}")},
    }))
    .unwrap()
}

/// The refusal of a request, which must be one, with RBAC's code.
fn refused<T: std::fmt::Debug>(what: &str, answer: kube::Result<T>) -> Box<kube::core::Status> {
    match answer {
        Err(kube::Error::Api(status)) => {
            // A refusal is a Status: no object, no secret bytes.
            assert_eq!(status.code, 403, "{what}: {status:?}");
            assert!(
                !status.message.contains("the-secret-bytes"),
                "{what}: {status:?}"
            );
            status
        }
        other => panic!("{what} was not refused: {other:?}"),
    }
}

/// A ManagedCluster named `name`, as a tenant writes it (no engine runs
/// here: nothing else is made of it).
async fn managed_cluster(mgmt: &kube::Client, ns: &str, name: &str) {
    let mc: ManagedCluster = serde_json::from_value(json!({
        "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
        "metadata": {"name": name},
        "spec": {"template": "absent"},
    }))
    .unwrap();
    Api::<ManagedCluster>::namespaced(mgmt.clone(), ns)
        .create(&PostParams::default(), &mc)
        .await
        .unwrap();
}

/// What the engine's token can do with secrets, proved complete: nothing.
/// Every verb is refused in every namespace, and every shape of request
/// that could answer with an object (a read, a patch that changes nothing
/// in each of the four patch types, an apply, a metadata patch, a delete,
/// a create) is refused without one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_token_reads_no_secret() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "secrets").await;
    apply_deploy_rbac(&mgmt).await;
    let path = std::env::temp_dir().join(format!("hmc-tui-{}.kubeconfig", ns.name));
    service_account_kubeconfig(&mgmt, "hmc-system", "hmc-tui", &path).await;
    let engine = client_for(path.clone()).await;

    // The account's rules are in force (RBAC denies what it does not
    // know, so a refusal alone would prove nothing): it may do its own
    // work first.
    eventually(
        "the engine's account to be bound to its rules",
        Duration::from_secs(30),
        || async {
            may(&engine, "list", "hmc.mirantis.com", "managedclusters", "")
                .await
                .then_some(())
        },
    )
    .await;
    for where_ in ["", ns.name.as_str(), "hmc-system", "kube-system"] {
        for verb in [
            "list",
            "watch",
            "get",
            "create",
            "update",
            "patch",
            "delete",
            "deletecollection",
        ] {
            assert!(
                !can_i(&engine, verb, where_).await,
                "{verb} secrets in {where_:?} is allowed"
            );
        }
    }

    let admin: Api<Secret> = Api::namespaced(mgmt.clone(), &ns.name);
    let names = ["dev-1-kubeconfig", "dev-1-ca", "plain"];
    for (name, type_) in [
        ("dev-1-kubeconfig", CAPI_SECRET),
        ("dev-1-ca", CAPI_SECRET),
        ("plain", "Opaque"),
    ] {
        admin
            .create(&PostParams::default(), &secret(name, type_, Some("dev-1")))
            .await
            .unwrap();
    }
    let as_engine: Api<Secret> = Api::namespaced(engine.clone(), &ns.name);
    refused("a list", as_engine.list(&ListParams::default()).await);
    refused(
        "a list of metadata",
        as_engine.list_metadata(&ListParams::default()).await,
    );
    refused(
        "a list in every namespace",
        Api::<Secret>::all(engine.clone())
            .list(&ListParams::default())
            .await,
    );
    for name in names {
        refused(&format!("get {name}"), as_engine.get(name).await);
        refused(
            &format!("get {name}'s metadata"),
            as_engine.get_metadata(name).await,
        );
        let shapes: [(&str, Patch<serde_json::Value>); 4] = [
            ("merge", Patch::Merge(json!({}))),
            ("strategic", Patch::Strategic(json!({}))),
            ("json", Patch::Json(json_patch::Patch(vec![]))),
            (
                "apply",
                Patch::Apply(
                    json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}}),
                ),
            ),
        ];
        for (shape, patch) in shapes {
            let params = match patch {
                Patch::Apply(_) => PatchParams::apply("thief").force(),
                _ => PatchParams::default(),
            };
            refused(
                &format!("a {shape} patch of {name}"),
                as_engine.patch(name, &params, &patch).await,
            );
        }
        refused(
            &format!("a finalizer on {name}'s metadata"),
            as_engine
                .patch_metadata(
                    name,
                    &PatchParams::default(),
                    &Patch::Strategic(json!({"metadata": {"finalizers": ["x.example/keep"]}})),
                )
                .await,
        );
        refused(
            &format!("deleting {name}"),
            as_engine.delete(name, &DeleteParams::default()).await,
        );
    }
    refused(
        "creating a secret",
        as_engine
            .create(&PostParams::default(), &secret("new", CAPI_SECRET, None))
            .await,
    );
    refused(
        "deleting them all",
        as_engine
            .delete_collection(&DeleteParams::default(), &ListParams::default())
            .await,
    );
    // And every secret is as it was.
    for name in names {
        let s = admin.get(name).await.unwrap();
        assert!(s.metadata.finalizers.unwrap_or_default().is_empty());
        assert!(s.metadata.deletion_timestamp.is_none());
    }
    let _ = std::fs::remove_file(&path);
    ns.cleanup().await;
}

/// The hold: `dev-1-kubeconfig` may not be deleted, alone, in a collection
/// or with its namespace, while ManagedCluster dev-1 exists there, and the
/// refusal says why; once dev-1 is gone it may. Nothing else is held: a
/// kubeconfig secret of a name no ManagedCluster has, a secret of another
/// type, or the same name in a namespace without that ManagedCluster.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kubeconfig_secret_stays_while_its_managed_cluster_does() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "hold").await;
    let other = TestNamespace::create(&mgmt, "hold-other").await;
    apply_deploy_rbac(&mgmt).await;
    let admin: Api<Secret> = Api::namespaced(mgmt.clone(), &ns.name);
    let admin_other: Api<Secret> = Api::namespaced(mgmt.clone(), &other.name);
    let pp = PostParams::default();
    managed_cluster(&mgmt, &ns.name, "dev-1").await;
    admin
        .create(&pp, &secret("dev-1-kubeconfig", CAPI_SECRET, Some("dev-1")))
        .await
        .unwrap();

    // A policy just written takes a moment to be in force: dry runs are
    // judged too, and change nothing.
    let dry = DeleteParams {
        dry_run: true,
        ..Default::default()
    };
    eventually(
        "the kubeconfig hold in force",
        Duration::from_secs(30),
        || async {
            matches!(admin.delete("dev-1-kubeconfig", &dry).await,
                Err(kube::Error::Api(s)) if s.code == 403)
            .then_some(())
        },
    )
    .await;

    let status = refused(
        "deleting dev-1-kubeconfig",
        admin
            .delete("dev-1-kubeconfig", &DeleteParams::default())
            .await,
    );
    assert!(
        status
            .message
            .contains("secret dev-1-kubeconfig is how the services of ManagedCluster dev-1"),
        "the refusal says why: {status:?}"
    );
    // Not held: another cluster's name, another type, another namespace.
    for (name, type_) in [
        ("dev-2-kubeconfig", CAPI_SECRET),
        ("dev-1-kubeconfig-old", CAPI_SECRET),
        ("dev-1-ca", CAPI_SECRET),
    ] {
        admin
            .create(&pp, &secret(name, type_, Some("dev-1")))
            .await
            .unwrap();
        admin
            .delete(name, &DeleteParams::default())
            .await
            .unwrap_or_else(|e| panic!("{name} deleted: {e}"));
    }
    managed_cluster(&mgmt, &ns.name, "dev-3").await;
    admin
        .create(&pp, &secret("dev-3-kubeconfig", "Opaque", Some("dev-3")))
        .await
        .unwrap();
    admin
        .delete("dev-3-kubeconfig", &DeleteParams::default())
        .await
        .expect("a secret not Cluster API's is not held");
    admin_other
        .create(&pp, &secret("dev-1-kubeconfig", CAPI_SECRET, Some("dev-1")))
        .await
        .unwrap();
    admin_other
        .delete("dev-1-kubeconfig", &DeleteParams::default())
        .await
        .expect("dev-1-kubeconfig deleted where no ManagedCluster dev-1 is");

    // A collection delete, as the namespace controller sends: each secret
    // is admitted on its own (without a request name), the held one is
    // refused with the same words, and stays. (The API server stops at the
    // first refusal; the namespace controller tries again.)
    let status = refused(
        "deleting every secret",
        admin
            .delete_collection(&DeleteParams::default(), &ListParams::default())
            .await,
    );
    assert!(
        status.message.contains("ManagedCluster dev-1"),
        "{status:?}"
    );
    let left: Vec<String> = admin
        .list_metadata(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .filter_map(|s| s.metadata.name)
        .collect();
    assert!(
        left.contains(&"dev-1-kubeconfig".to_string()),
        "the held secret stays: {left:?}"
    );

    // The ManagedCluster gone, its secret may go.
    Api::<ManagedCluster>::namespaced(mgmt.clone(), &ns.name)
        .delete("dev-1", &DeleteParams::default())
        .await
        .unwrap();
    eventually(
        "dev-1-kubeconfig deleted once dev-1 is gone",
        Duration::from_secs(30),
        || async {
            admin
                .delete("dev-1-kubeconfig", &DeleteParams::default())
                .await
                .ok()
                .map(|_| ())
        },
    )
    .await;
    other.cleanup().await;
    ns.cleanup().await;
}
