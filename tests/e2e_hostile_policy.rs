//! The API server refuses a rollout policy that breaks its rules, with the
//! rule's own words, and takes a sound one: the CEL rules of the CRD are the
//! engine's rules (`hmc_tui::api::policy_rules`).

mod common;

use std::time::Duration;

use common::*;
use hmc_tui::api::ClusterTemplate;
use hmc_tui::api::policy_rules::{
    CANARY_MESSAGE, FAILURE_BUDGET_MESSAGE, HEALTH_TIMEOUT_MESSAGE, MAX_CONCURRENT_MESSAGE,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;

const CRD: &str = "clustertemplates.hmc.mirantis.com";

/// The API server checks the rules of this build. A test never changes the
/// shared CRDs: `harness up` applies those of the checkout.
async fn rules_installed(mgmt: &Client) {
    let crds: Api<CustomResourceDefinition> = Api::all(mgmt.clone());
    let installed = crds.get(CRD).await.expect("the ClusterTemplate CRD");
    let text = serde_json::to_string(&installed.spec).unwrap();
    assert!(
        text.contains(HEALTH_TIMEOUT_MESSAGE) && text.contains(MAX_CONCURRENT_MESSAGE),
        "the harness's {CRD} lacks this build's rollout policy rules: run tests/harness/harness up to apply this checkout's CRDs"
    );
}

/// A ClusterTemplate named `name` with `rollout` as its policy, as JSON:
/// the typed object could not even hold most of these values.
fn template(ns: &str, name: &str, rollout: serde_json::Value) -> DynamicObject {
    serde_json::from_value(json!({
        "apiVersion": "hmc.mirantis.com/v1alpha1",
        "kind": "ClusterTemplate",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "helm": {
                "chartName": "hmc-test-cluster",
                "chartVersion": "0.1.0",
                "repository": {"url": "http://127.0.0.1:18080"}
            },
            "rollout": rollout
        }
    }))
    .expect("an object")
}

/// Creates the template; the API server's refusal in words, if it refuses.
async fn create(api: &Api<DynamicObject>, ct: &DynamicObject) -> Result<(), String> {
    match api.create(&PostParams::default(), ct).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) => Err(format!("{} ({} {})", s.message, s.code, s.reason)),
        Err(e) => panic!("create {}: {e}", ct.name_any()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_refuses_a_policy_that_breaks_its_rules() {
    let mgmt = mgmt().await;
    rules_installed(&mgmt).await;
    let ns = TestNamespace::create(&mgmt, "policy").await;
    let api: Api<DynamicObject> = Api::namespaced_with(
        mgmt.clone(),
        &ns.name,
        &ar(
            "hmc.mirantis.com",
            "v1alpha1",
            "ClusterTemplate",
            "clustertemplates",
        ),
    );
    let typed: Api<ClusterTemplate> = Api::namespaced(mgmt.clone(), &ns.name);

    // A CRD just applied takes a moment to reach the API server's
    // validators: wait until the first rule bites.
    let fractional = template(&ns.name, "fractional", json!({"healthTimeout": "1.5h"}));
    let why = eventually(
        "the healthTimeout rule to be enforced",
        Duration::from_secs(60),
        || async {
            match create(&api, &fractional).await {
                Err(why) => Some(why),
                Ok(()) => {
                    let _ = api.delete("fractional", &Default::default()).await;
                    None
                }
            }
        },
    )
    .await;
    assert!(
        why.contains("spec.rollout.healthTimeout") && why.contains(HEALTH_TIMEOUT_MESSAGE),
        "{why}"
    );
    assert!(why.contains("(422 Invalid)"), "{why}");

    // Each bad value is refused with its rule's message.
    let cases = [
        (
            "misspelt-percent",
            json!({"maxConcurrent": "2O%"}),
            "spec.rollout.maxConcurrent",
            MAX_CONCURRENT_MESSAGE,
        ),
        (
            "negative-budget",
            json!({"failureBudget": -1}),
            "spec.rollout.failureBudget",
            FAILURE_BUDGET_MESSAGE,
        ),
        (
            "bare-seconds",
            json!({"healthTimeout": "45"}),
            "spec.rollout.healthTimeout",
            HEALTH_TIMEOUT_MESSAGE,
        ),
        (
            "zero-timeout",
            json!({"healthTimeout": "0s"}),
            "spec.rollout.healthTimeout",
            HEALTH_TIMEOUT_MESSAGE,
        ),
        (
            "zero-concurrent",
            json!({"maxConcurrent": 0}),
            "spec.rollout.maxConcurrent",
            MAX_CONCURRENT_MESSAGE,
        ),
        (
            "over-a-hundred",
            json!({"maxConcurrent": "101%"}),
            "spec.rollout.maxConcurrent",
            MAX_CONCURRENT_MESSAGE,
        ),
        (
            "count-as-text",
            json!({"maxConcurrent": "4"}),
            "spec.rollout.maxConcurrent",
            MAX_CONCURRENT_MESSAGE,
        ),
        (
            "negative-canary",
            json!({"canary": -2}),
            "spec.rollout.canary",
            CANARY_MESSAGE,
        ),
        (
            "huge-budget",
            json!({"failureBudget": 5_000_000_000u64}),
            "spec.rollout.failureBudget",
            FAILURE_BUDGET_MESSAGE,
        ),
    ];
    eprintln!("1.5h: {why}");
    for (name, rollout, field, message) in cases {
        let why = create(&api, &template(&ns.name, name, rollout.clone()))
            .await
            .expect_err(&format!("{rollout} must be refused"));
        eprintln!("{rollout}: {why}");
        assert!(
            why.contains(field) && why.contains(message),
            "{rollout}: {why}"
        );
    }
    // Several bad values at once: each is named.
    let why = create(
        &api,
        &template(
            &ns.name,
            "all-wrong",
            json!({"healthTimeout": "1.5h", "maxConcurrent": "2O%", "failureBudget": -1}),
        ),
    )
    .await
    .expect_err("three bad values");
    for message in [
        HEALTH_TIMEOUT_MESSAGE,
        MAX_CONCURRENT_MESSAGE,
        FAILURE_BUDGET_MESSAGE,
    ] {
        assert!(why.contains(message), "{why}");
    }
    // An update to a bad value is refused as a create is.
    create(
        &api,
        &template(
            &ns.name,
            "sound",
            json!({"healthTimeout": "90s", "maxConcurrent": "25%", "failureBudget": 3}),
        ),
    )
    .await
    .expect("a sound policy is accepted");
    let err = api
        .patch(
            "sound",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"rollout": {"healthTimeout": "1.5h"}}})),
        )
        .await
        .expect_err("an update to 1.5h is refused");
    assert!(err.to_string().contains(HEALTH_TIMEOUT_MESSAGE), "{err}");

    // Sound policies are taken as written; a null maxConcurrent becomes
    // the default instead of being stored.
    let stored = typed.get("sound").await.unwrap();
    let policy = stored.spec.rollout.expect("its policy");
    assert_eq!(policy.health_timeout, "90s");
    assert_eq!(
        policy.max_concurrent,
        k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::String("25%".into())
    );
    assert_eq!(policy.failure_budget, 3);
    for (name, rollout) in [
        (
            "counts",
            json!({"healthTimeout": "1h30m", "maxConcurrent": 3, "canary": 0, "failureBudget": 0}),
        ),
        (
            "limits",
            json!({"healthTimeout": "1h30m15s", "maxConcurrent": "100%", "canary": 2147483647}),
        ),
        ("one-percent", json!({"maxConcurrent": "1%"})),
        ("defaults", json!({})),
        ("null-max", json!({"maxConcurrent": null})),
    ] {
        create(&api, &template(&ns.name, name, rollout.clone()))
            .await
            .unwrap_or_else(|why| panic!("{rollout} must be accepted: {why}"));
    }
    let defaults = typed.get("null-max").await.unwrap().spec.rollout.unwrap();
    assert_eq!(
        defaults.max_concurrent,
        k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::String("25%".into())
    );
    assert_eq!(defaults.health_timeout, "10m");

    ns.cleanup().await;
}
