//! The upstream ingress-nginx chart (vendored in
//! `tests/fixtures/charts/upstream`, served by the harness under
//! `<chart repository>/upstream`) end to end: installed with a cluster
//! override, its admission webhook's hook Jobs completing in the kwok child,
//! rolled out from 4.11.3 to 4.11.4, and deleted without a trace.

mod common;

use std::io::Read;
use std::time::Duration;

use common::cases::*;
use common::rollouts::{fleet_template_with, phase, rollout_when, service_templates};
use common::*;
use hmc_tui::api::{ManagedCluster, RolloutPhase, ServiceState};
use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Client;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

const STEP: Duration = Duration::from_secs(180);

/// The cluster and the child cluster it runs on.
const CLUSTER: &str = "edge-1";
const CHILD: usize = 1;

/// The `fleet` ClusterTemplate (as the rollout tests make it) with the
/// upstream ingress-nginx of `service_template`, rolled out automatically.
/// The names the chart gives its cluster-wide objects all derive from its
/// full name, which the template sets per test (`fullnameOverride`, see
/// [`fullname`]). The webhook is the chart's own (failurePolicy Fail, with a
/// Service nobody serves on kwok); the template scopes it to the service's
/// namespace so that an install left behind by a failed run never refuses
/// other Ingresses.
async fn upstream_template(mgmt: &Client, ns: &str, service_template: &str) {
    let policy = json!({"strategy": "Automatic", "maxConcurrent": 1, "healthTimeout": "5m"});
    fleet_template_with(mgmt, ns, service_template, "", policy).await;
}

/// The controller Deployment's chart label and replicas, once Available.
async fn controller_at(child: &Client, ns: &str) -> Option<(String, i32)> {
    let target = format!("{ns}-ingress");
    let d = controller(child, &target, "ingress-nginx").await?;
    assert_eq!(
        d.metadata.name.as_deref(),
        Some(controller_name(&fullname(ns)).as_str())
    );
    let chart = d.metadata.labels.as_ref()?.get("helm.sh/chart").cloned()?;
    Some((chart, available_of(d)?))
}

/// Standard base64, as Helm writes its release records (no crate needed
/// for one test).
fn base64_decode(text: &[u8]) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let sextets: Vec<u8> = text.iter().filter_map(|&c| value(c)).collect();
    let mut out = Vec::with_capacity(sextets.len() * 3 / 4);
    for chunk in sextets.chunks(4) {
        let bits = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &s)| acc | (u32::from(s) << (18 - 6 * i)));
        out.extend_from_slice(&bits.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// Helm's record of revision `version` of the release: the release Secret
/// (`sh.helm.release.v1.ingress-nginx.v<N>`) decoded, as JSON.
async fn helm_record(child: &Client, ns: &str, version: u32) -> Option<Value> {
    let api: Api<Secret> = Api::namespaced(child.clone(), &format!("{ns}-ingress"));
    let secret = api
        .get_opt(&format!("sh.helm.release.v1.ingress-nginx.v{version}"))
        .await
        .ok()??;
    assert_eq!(secret.type_.as_deref(), Some("helm.sh/release.v1"));
    let data = secret.data?.get("release")?.0.clone();
    let gzipped = base64_decode(&data);
    let mut json = String::new();
    flate2::read::GzDecoder::new(gzipped.as_slice())
        .read_to_string(&mut json)
        .expect("a gzipped release record");
    serde_json::from_str(&json).ok()
}

/// The hooks of a release record: (name, kind, events, last run's phase).
fn hooks(record: &Value) -> Vec<(String, String, String, String)> {
    record["hooks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            let events: Vec<&str> = h["events"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            (
                h["name"].as_str().unwrap_or_default().to_string(),
                h["kind"].as_str().unwrap_or_default().to_string(),
                events.join(","),
                h["last_run"]["phase"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect()
}

/// The hook Jobs of a record, each with its last run's phase.
fn hook_jobs(record: &Value) -> Vec<(String, String, String)> {
    hooks(record)
        .into_iter()
        .filter(|(_, kind, _, _)| kind == "Job")
        .map(|(name, _, events, phase)| (name, events, phase))
        .collect()
}

/// `kind name` of each object of a list (a failed list fails the test:
/// an error must not read as "nothing left").
async fn names_of<K>(api: &Api<K>, what: &str, params: &ListParams) -> Vec<(String, ObjectMeta)>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    api.list_metadata(params)
        .await
        .unwrap_or_else(|e| panic!("list {what}: {e}"))
        .items
        .into_iter()
        .map(|o| {
            let name = format!("{what} {}", o.metadata.name.clone().unwrap_or_default());
            (name, o.metadata)
        })
        .collect()
}

/// What the release has in the child: its release records, Deployments,
/// webhook configurations and cluster-wide RBAC (Helm marks what it
/// installs with the release's namespace).
async fn release_objects(child: &Client, ns: &str) -> Vec<String> {
    let target = format!("{ns}-ingress");
    let records = ListParams::default().fields("type=helm.sh/release.v1");
    let all = ListParams::default();
    let mut found = names_of(
        &Api::<Secret>::namespaced(child.clone(), &target),
        "release record",
        &records,
    )
    .await;
    found.extend(
        names_of(
            &Api::<Deployment>::namespaced(child.clone(), &target),
            "Deployment",
            &all,
        )
        .await,
    );
    let mut cluster_wide = names_of(
        &Api::<ValidatingWebhookConfiguration>::all(child.clone()),
        "ValidatingWebhookConfiguration",
        &all,
    )
    .await;
    cluster_wide
        .extend(names_of(&Api::<ClusterRole>::all(child.clone()), "ClusterRole", &all).await);
    cluster_wide.extend(
        names_of(
            &Api::<ClusterRoleBinding>::all(child.clone()),
            "ClusterRoleBinding",
            &all,
        )
        .await,
    );
    let full = fullname(ns);
    found.extend(cluster_wide.into_iter().filter(|(name, meta)| {
        let ours = meta
            .annotations
            .as_ref()
            .and_then(|a| a.get("meta.helm.sh/release-namespace"))
            == Some(&target);
        // Hooks carry no release annotation: their names tell.
        ours || name.ends_with(&format!(" {full}-admission"))
    }));
    let mut names: Vec<String> = found.into_iter().map(|(name, _)| name).collect();
    names.sort();
    names
}

/// Removes whatever a failed run may have left cluster-wide in the child
/// (a passing run leaves nothing: Helm's uninstall removes it).
async fn drop_cluster_wide(child: &Client, ns: &str) {
    let full = fullname(ns);
    let webhooks: Api<ValidatingWebhookConfiguration> = Api::all(child.clone());
    let roles: Api<ClusterRole> = Api::all(child.clone());
    let bindings: Api<ClusterRoleBinding> = Api::all(child.clone());
    let classes: Api<k8s_openapi::api::networking::v1::IngressClass> = Api::all(child.clone());
    for name in [full.clone(), format!("{full}-admission")] {
        let _ = webhooks.delete(&name, &Default::default()).await;
        let _ = roles.delete(&name, &Default::default()).await;
        let _ = bindings.delete(&name, &Default::default()).await;
    }
    let _ = classes.delete(&full, &Default::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_chart_installs_rolls_out_and_leaves_nothing() {
    let mgmt = mgmt().await;
    let child = child(CHILD).await;
    let ns = TestNamespace::create(&mgmt, "upstream").await;
    let target = format!("{}-ingress", ns.name);
    let full = fullname(&ns.name);
    let engine = RunningEngine::start(&ns.name).await;
    let started = std::time::Instant::now();

    // Install 4.11.3 with a cluster override of the template's values.
    service_templates(&mgmt, &ns.name).await;
    upstream_template(&mgmt, &ns.name, "ingress-nginx-4-11-3").await;
    managed_cluster_from(
        &mgmt,
        &ns.name,
        CLUSTER,
        "fleet",
        json!([{
            "name": "ingress-nginx",
            "values": "controller:\n  replicaCount: 2\n",
        }]),
    )
    .await;
    provision(&ns.name, CLUSTER, CHILD).await;
    let (chart, replicas) = eventually("the upstream controller Available", INSTALL, || {
        controller_at(&child, &ns.name)
    })
    .await;
    assert_eq!(
        (chart.as_str(), replicas),
        ("ingress-nginx-4.11.3", 2),
        "the cluster's controller.replicaCount wins"
    );
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    until_ready(&mcs, CLUSTER, STEP).await;
    let (state, _) = service_state(&mcs, CLUSTER, "ingress-nginx").await.unwrap();
    assert_eq!(state, ServiceState::Installed);
    let st = status_of(&mcs, CLUSTER).await.unwrap();
    assert_eq!(st.services[0].version.as_deref(), Some("4.11.3"));
    eprintln!("installed in {:?}", started.elapsed());

    // It is the upstream chart: its RBAC and its webhook configuration,
    // cluster-wide, named after the release.
    let roles: Api<ClusterRole> = Api::all(child.clone());
    let role = roles.get(&full).await.expect("the chart's ClusterRole");
    assert_eq!(
        role.metadata
            .annotations
            .unwrap_or_default()
            .get("meta.helm.sh/release-namespace"),
        Some(&target)
    );
    let webhooks: Api<ValidatingWebhookConfiguration> = Api::all(child.clone());
    let webhook = webhooks
        .get(&format!("{full}-admission"))
        .await
        .expect("the chart's webhook configuration");
    let hooks_of = webhook.webhooks.unwrap_or_default();
    let hook = hooks_of.first().expect("one webhook");
    assert_eq!(hook.failure_policy.as_deref(), Some("Fail"));
    let scope = hook
        .namespace_selector
        .as_ref()
        .and_then(|s| s.match_labels.clone());
    assert_eq!(
        scope.unwrap_or_default().get("kubernetes.io/metadata.name"),
        Some(&target),
        "the template scopes the webhook to the service's namespace"
    );

    // The admission webhook's hook Jobs ran to completion in the kwok child:
    // Helm recorded each as Succeeded, then deleted it (hook-succeeded).
    let record = helm_record(&child, &ns.name, 1)
        .await
        .expect("Helm's record of revision 1");
    assert_eq!(record["info"]["status"].as_str(), Some("deployed"));
    assert_eq!(
        hook_jobs(&record),
        [
            (
                format!("{full}-admission-create"),
                "pre-install,pre-upgrade".to_string(),
                "Succeeded".to_string()
            ),
            (
                format!("{full}-admission-patch"),
                "post-install,post-upgrade".to_string(),
                "Succeeded".to_string()
            ),
        ],
        "hooks: {:?}",
        hooks(&record)
    );
    let jobs: Api<Job> = Api::namespaced(child.clone(), &target);
    let left_jobs = jobs.list_metadata(&Default::default()).await.unwrap().items;
    assert!(left_jobs.is_empty(), "hook Jobs are deleted once succeeded");
    assert!(
        roles
            .get_opt(&format!("{full}-admission"))
            .await
            .unwrap()
            .is_none(),
        "the hooks' own ClusterRole is deleted once they succeeded"
    );

    // Revision 2 names 4.11.4: the rollout upgrades the child, hooks again.
    let rollout_start = std::time::Instant::now();
    upstream_template(&mgmt, &ns.name, "ingress-nginx-4-11-4").await;
    let rollout = rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "the rollout to 4.11.4 to succeed",
        STEP,
        |r| phase(r) == RolloutPhase::Succeeded,
    )
    .await;
    let preview = rollout.status.unwrap().preview;
    assert_eq!(preview.len(), 1, "{preview:?}");
    assert_eq!(
        preview[0].changes,
        ["ingress-nginx 4.11.3 → 4.11.4".to_string()]
    );
    let (chart, replicas) = eventually("the controller at 4.11.4", STEP, || async {
        controller_at(&child, &ns.name)
            .await
            .filter(|(chart, _)| chart == "ingress-nginx-4.11.4")
    })
    .await;
    assert_eq!(
        (chart.as_str(), replicas),
        ("ingress-nginx-4.11.4", 2),
        "the override stays"
    );
    let st = status_of(&mcs, CLUSTER).await.unwrap();
    assert_eq!(
        (st.revision, st.services[0].version.as_deref()),
        (Some(2), Some("4.11.4"))
    );
    let record = helm_record(&child, &ns.name, 2)
        .await
        .expect("Helm's record of revision 2");
    assert_eq!(record["info"]["status"].as_str(), Some("deployed"));
    assert_eq!(record["chart"]["metadata"]["version"], "4.11.4");
    let phases: Vec<String> = hook_jobs(&record).into_iter().map(|j| j.2).collect();
    assert_eq!(
        phases,
        ["Succeeded", "Succeeded"],
        "the upgrade's hooks ran"
    );
    eprintln!("rolled out in {:?}", rollout_start.elapsed());

    // Delete: nothing of the release is left in the child.
    let before = release_objects(&child, &ns.name).await;
    let expected = [
        format!("ClusterRole {full}"),
        format!("ClusterRoleBinding {full}"),
        format!("Deployment {full}-controller"),
        format!("ValidatingWebhookConfiguration {full}-admission"),
        "release record sh.helm.release.v1.ingress-nginx.v1".to_string(),
        "release record sh.helm.release.v1.ingress-nginx.v2".to_string(),
    ];
    for want in &expected {
        assert!(
            before.contains(want),
            "{want} before the delete: {before:?}"
        );
    }
    let delete_start = std::time::Instant::now();
    mcs.delete(CLUSTER, &Default::default()).await.unwrap();
    eventually(&format!("{CLUSTER} deleted"), STEP, || async {
        mcs.get_opt(CLUSTER).await.ok()?.is_none().then_some(())
    })
    .await;
    let left = release_objects(&child, &ns.name).await;
    assert!(left.is_empty(), "left in the child: {left:?}");
    eprintln!(
        "deleted in {:?}; {:?} in all",
        delete_start.elapsed(),
        started.elapsed()
    );

    engine.stop().await;
    drop_cluster_wide(&child, &ns.name).await;
    drop_child_namespace(&child, &target).await;
    ns.cleanup().await;
}
