//! The engine's token reads no secret. As the engine's ServiceAccount, with
//! the RBAC and the admission policy of `assets/deploy/`: the API server
//! denies it list, watch and get on secrets in every namespace; it may add
//! and remove its own finalizer on a Cluster API kubeconfig secret, and
//! nothing else: a patch of any other secret, of a kubeconfig's data,
//! labels or someone else's finalizer is refused, and the refusal carries
//! no object. (The whole flow under that RBAC: e2e_rbac.rs.)

mod common;

use std::time::Duration;

use common::accounts::{apply_deploy_rbac, service_account_kubeconfig};
use common::*;
use hmc_tui::api::labels::FINALIZER;
use k8s_openapi::ByteString;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, ObjectMeta, Patch, PatchParams, PostParams};
use serde_json::json;

/// Whether the API server would let the caller `verb` secrets in `ns`
/// (cluster-wide when empty), as `kubectl auth can-i` asks it.
async fn can_i(client: &kube::Client, verb: &str, ns: &str) -> bool {
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(verb.into()),
                resource: Some("secrets".into()),
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

fn secret(name: &str, type_: &str, finalizers: &[&str]) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(
                [(
                    "cluster.x-k8s.io/cluster-name".to_string(),
                    "c1".to_string(),
                )]
                .into(),
            ),
            finalizers: Some(finalizers.iter().map(|f| f.to_string()).collect()),
            ..Default::default()
        },
        type_: Some(type_.into()),
        data: Some(
            [(
                "value".to_string(),
                ByteString(b"the-secret-bytes".to_vec()),
            )]
            .into(),
        ),
        ..Default::default()
    }
}

/// The engine's hold: our finalizer added, nothing read first.
fn hold() -> Patch<serde_json::Value> {
    Patch::Strategic(json!({"metadata": {"finalizers": [FINALIZER]}}))
}

/// The engine's release: our finalizer deleted.
fn release() -> Patch<serde_json::Value> {
    Patch::Strategic(json!({"metadata": {"$deleteFromPrimitiveList/finalizers": [FINALIZER]}}))
}

/// The refusal of a request, which must be one.
fn refused<T: std::fmt::Debug>(what: &str, answer: kube::Result<T>) -> Box<kube::core::Status> {
    match answer {
        Err(kube::Error::Api(status)) => {
            // A refusal is a Status: no object, no secret bytes.
            assert!(
                !status.message.contains("the-secret-bytes")
                    && !status.message.contains("dGhlLXNlY3JldC1ieXRlcw"),
                "{what}: {status:?}"
            );
            status
        }
        other => panic!("{what} was not refused: {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_engine_may_touch_its_finalizer_on_kubeconfig_secrets_only() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "secrets").await;
    apply_deploy_rbac(&mgmt).await;
    let path = std::env::temp_dir().join(format!("hmc-tui-{}.kubeconfig", ns.name));
    service_account_kubeconfig(&mgmt, "hmc-system", "hmc-tui", &path).await;
    let engine = client_for(path.clone()).await;

    // Denied reading secrets, everywhere; allowed the patch only.
    for where_ in ["", ns.name.as_str(), "hmc-system", "kube-system"] {
        for verb in ["list", "watch", "get", "create", "update", "delete"] {
            assert!(
                !can_i(&engine, verb, where_).await,
                "{verb} secrets in {where_:?} is allowed"
            );
        }
    }
    assert!(can_i(&engine, "patch", &ns.name).await);

    let admin: Api<Secret> = Api::namespaced(mgmt.clone(), &ns.name);
    let pp = PostParams::default();
    admin
        .create(&pp, &secret("plain", "Opaque", &[]))
        .await
        .unwrap();
    admin
        .create(
            &pp,
            &secret(
                "c1-kubeconfig",
                "cluster.x-k8s.io/secret",
                &["example.com/keep"],
            ),
        )
        .await
        .unwrap();
    let as_engine: Api<Secret> = Api::namespaced(engine.clone(), &ns.name);

    // The policy takes a moment to be in force: asked with dry runs, which
    // it judges as well and which change nothing.
    let dry = PatchParams {
        dry_run: true,
        ..Default::default()
    };
    eventually(
        "the secrets policy in force",
        Duration::from_secs(30),
        || async {
            match as_engine.patch_metadata("plain", &dry, &hold()).await {
                Err(kube::Error::Api(s)) if s.code == 403 || s.code == 422 => Some(()),
                _ => None,
            }
        },
    )
    .await;

    // Any other secret: refused, and it stays as it was.
    let status = refused(
        "our finalizer on an Opaque secret",
        as_engine
            .patch_metadata("plain", &PatchParams::default(), &hold())
            .await,
    );
    // As the engine reads it: a secret it may not hold (access.rs).
    assert_eq!(status.code, 403, "{status:?}");
    assert!(
        status.message.contains("type cluster.x-k8s.io/secret"),
        "{status:?}"
    );
    refused(
        "our finalizer on an Opaque secret, as a full object",
        as_engine
            .patch("plain", &PatchParams::default(), &hold())
            .await,
    );
    let plain = admin.get("plain").await.unwrap();
    assert!(plain.metadata.finalizers.unwrap_or_default().is_empty());

    // A kubeconfig secret: its data, type, labels, annotations and the
    // other finalizers are not the engine's to change.
    for (what, patch) in [
        ("its data", json!({"data": {"value": "b3RoZXI="}})),
        ("new data", json!({"stringData": {"extra": "x"}})),
        ("its labels", json!({"metadata": {"labels": {"a": "b"}}})),
        (
            "its annotations",
            json!({"metadata": {"annotations": {"a": "b"}}}),
        ),
        (
            "someone else's finalizer",
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/keep"]}}),
        ),
        (
            "a finalizer not ours",
            json!({"metadata": {"finalizers": ["example.com/other"]}}),
        ),
        (
            "our finalizer and its data at once",
            json!({"metadata": {"finalizers": [FINALIZER]}, "data": {"value": "b3RoZXI="}}),
        ),
    ] {
        refused(
            what,
            as_engine
                .patch(
                    "c1-kubeconfig",
                    &PatchParams::default(),
                    &Patch::Strategic(patch),
                )
                .await,
        );
    }
    let kc = admin.get("c1-kubeconfig").await.unwrap();
    assert_eq!(
        kc.data.unwrap()["value"],
        ByteString(b"the-secret-bytes".to_vec())
    );
    assert_eq!(
        kc.metadata.finalizers.unwrap_or_default(),
        vec!["example.com/keep".to_string()]
    );
    assert!(kc.metadata.annotations.unwrap_or_default().is_empty());

    // Nor may it create or delete one.
    refused(
        "creating a secret",
        as_engine
            .create(&pp, &secret("new", "cluster.x-k8s.io/secret", &[]))
            .await,
    );
    refused(
        "deleting a secret",
        as_engine
            .delete("c1-kubeconfig", &DeleteParams::default())
            .await,
    );

    // Its own finalizer, added and removed, as the engine sends them: the
    // answers carry metadata only, and nothing else changed.
    let held = as_engine
        .patch_metadata("c1-kubeconfig", &PatchParams::default(), &hold())
        .await
        .expect("the hold");
    let both = || {
        std::collections::BTreeSet::from(["example.com/keep".to_string(), FINALIZER.to_string()])
    };
    let set = |list: Option<Vec<String>>| {
        list.unwrap_or_default()
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>()
    };
    assert_eq!(set(held.metadata.finalizers.clone()), both());
    // Sent again, it changes nothing.
    as_engine
        .patch_metadata("c1-kubeconfig", &PatchParams::default(), &hold())
        .await
        .expect("the hold again");
    let kc = admin.get("c1-kubeconfig").await.unwrap();
    assert_eq!(kc.metadata.finalizers.clone().map(|l| l.len()), Some(2));
    assert_eq!(set(kc.metadata.finalizers), both());
    assert_eq!(
        kc.data.unwrap()["value"],
        ByteString(b"the-secret-bytes".to_vec())
    );
    as_engine
        .patch_metadata("c1-kubeconfig", &PatchParams::default(), &release())
        .await
        .expect("the release");
    let kc = admin.get("c1-kubeconfig").await.unwrap();
    assert_eq!(
        kc.metadata.finalizers.unwrap_or_default(),
        vec!["example.com/keep".to_string()]
    );
    // A secret that is not there: 404, as the engine reads it.
    match as_engine
        .patch_metadata("absent-kubeconfig", &PatchParams::default(), &hold())
        .await
    {
        Err(kube::Error::Api(s)) => assert_eq!(s.code, 404, "{s:?}"),
        other => panic!("a hold of a missing secret: {other:?}"),
    }

    // A kubeconfig secret being deleted takes no new finalizer: the
    // engine reads the refusal as "going".
    admin
        .delete("c1-kubeconfig", &DeleteParams::default())
        .await
        .unwrap();
    let status = refused(
        "our finalizer on a secret being deleted",
        as_engine
            .patch_metadata("c1-kubeconfig", &PatchParams::default(), &hold())
            .await,
    );
    assert!(
        status.message.contains("no new finalizers can be added"),
        "{status:?}"
    );

    admin
        .patch_metadata(
            "c1-kubeconfig",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .unwrap();
    let _ = std::fs::remove_file(&path);
    ns.cleanup().await;
}
