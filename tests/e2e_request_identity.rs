//! The admission policy of `assets/deploy/` makes `requested-by` true: a
//! request naming someone else is refused by the API server, one naming the
//! requester passes, and the engine's removal of a request passes.

mod common;

use common::*;
use hmc_tui::api::{RolloutPolicy, TemplateRollout, TemplateRolloutSpec};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_must_name_its_requester() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "identity").await;

    // The policy as shipped; bound here to this test's namespace only, so
    // other tests' requests are not judged by it.
    let text =
        std::fs::read_to_string(repo_root().join("assets/deploy/rollout-requests-policy.yaml"))
            .unwrap();
    let policy = text.split("\n---\n").next().unwrap();
    apply_yaml(&mgmt, &ns.name, policy).await;
    let binding = ar(
        "admissionregistration.k8s.io",
        "v1",
        "ValidatingAdmissionPolicyBinding",
        "validatingadmissionpolicybindings",
    );
    let binding_name = format!("hmc-tui-rollout-requests-{}", ns.name);
    apply_json(
        &mgmt,
        &binding,
        None,
        json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": binding_name},
            "spec": {
                "policyName": "hmc-tui-rollout-requests",
                "validationActions": ["Deny"],
                "matchResources": {"namespaceSelector": {"matchLabels": {
                    "kubernetes.io/metadata.name": ns.name,
                }}},
            },
        }),
    )
    .await;

    let review: SelfSubjectReview = kube::Api::all(mgmt.clone())
        .create(&PostParams::default(), &SelfSubjectReview::default())
        .await
        .expect("who am I");
    let me = review
        .status
        .and_then(|s| s.user_info)
        .and_then(|u| u.username)
        .expect("a user name");

    let rollouts: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), &ns.name);
    let mut r = TemplateRollout::new(
        "demo-2",
        TemplateRolloutSpec {
            template: "demo".into(),
            multi_cluster_service: None,
            revision: 2,
            policy: RolloutPolicy::default(),
        },
    );
    r.metadata.namespace = Some(ns.name.clone());
    rollouts.create(&PostParams::default(), &r).await.unwrap();
    // Each attempt asks something new: an unchanged request passes (the
    // engine's own writes leave it as it is).
    let attempt = std::sync::atomic::AtomicU32::new(0);
    let ask = |by: String| {
        let rollouts = rollouts.clone();
        let n = attempt.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        async move {
            let patch = json!({"metadata": {"annotations": {
                "hmc.mirantis.com/request": format!("skip c{n}"),
                "hmc.mirantis.com/requested-by": by,
            }}});
            rollouts
                .patch("demo-2", &PatchParams::default(), &Patch::Merge(&patch))
                .await
        }
    };

    // Policies reach the API server's admission a moment after they exist.
    let refused = eventually(
        "a request naming someone else to be refused",
        std::time::Duration::from_secs(30),
        || async {
            match ask("mallory".into()).await {
                Err(kube::Error::Api(s)) => Some(s.message),
                _ => None,
            }
        },
    )
    .await;
    assert!(
        refused.contains("requested-by must be your user name"),
        "{refused}"
    );
    ask(me.clone()).await.expect("a request naming me passes");
    let clear = json!({"metadata": {"annotations": {
        "hmc.mirantis.com/request": null,
        "hmc.mirantis.com/requested-by": null,
    }}});
    rollouts
        .patch("demo-2", &PatchParams::default(), &Patch::Merge(&clear))
        .await
        .expect("removing a request passes");

    let bindings: Api<kube::api::DynamicObject> = Api::all_with(mgmt.clone(), &binding);
    let _ = bindings.delete(&binding_name, &Default::default()).await;
    ns.cleanup().await;
}
