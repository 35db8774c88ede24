//! The console's in-process engine end to end.
//!
//! - It takes the engine's flags as the headless one does: started with
//!   `--shards shard2 --release-interval 7m`, the console's engine labels
//!   every release of its cluster for the harness's `shard2` release
//!   controller (the only one that watches that key, so the service being
//!   installed shows that shard did it) and writes the interval asked for.
//! - It never takes the fleet from an installed engine: where a Lease of
//!   its scope is held by an engine that is not a console, it only
//!   observes, and says so; with `--force-engine` it competes for the
//!   lease and leads once the other's term has run out. The engine's
//!   Deployment in the system namespace is enough for it to observe.

mod common;

use std::time::Instant;

use common::console::*;
use common::rollouts::*;
use common::*;
use hmc_tui::flux::{HelmRelease, SHARD_LABEL};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, PostParams};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_engine_takes_the_engine_flags() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "console-engine").await;
    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    let console = Console::start_with(
        &ns.name,
        "",
        &kubeconfig,
        &format!("-n {} --shards shard2 --release-interval 7m", ns.name),
    );
    console.wait_text(&["engine: in-process"], SCREEN).await;
    let policy = json!({"strategy": "Automatic"});
    fleet_at_4_11_3_of(&mgmt, &ns.name, policy, &[FLEET[0]]).await;
    eprintln!("[{:>5.1?}] c1 is at 4.11.3", started.elapsed());

    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let listed = releases.list(&Default::default()).await.expect("releases");
    assert!(
        listed.items.len() >= 2,
        "the cluster's release and its service's: {:?}",
        listed
            .items
            .iter()
            .map(|r| r.metadata.name.clone())
            .collect::<Vec<_>>()
    );
    for release in &listed.items {
        let name = release.metadata.name.clone().unwrap_or_default();
        let shard = release
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(SHARD_LABEL));
        assert_eq!(shard.map(String::as_str), Some("shard2"), "{name}'s shard");
        assert_eq!(release.spec.interval, "7m", "{name}'s interval");
    }

    tear_down(&mgmt, &ns.name).await;
    console.quit().await;
    ns.cleanup().await;
}

/// A Lease of the console's scope held by an engine that is not a console
/// (the headless engine's identity: its pod's host name and pid): the
/// console's header says it observes, and the Lease stays as that engine
/// wrote it. A second console started with `--force-engine` competes for
/// it and leads once that engine's term has run out; the Lease then passed
/// once, to a console, so the first never took it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_observes_an_installed_engine_unless_forced() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "console-observes").await;
    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    // The console's lease namespace is the test's (see Console::start).
    let leases: Api<Lease> = Api::namespaced(mgmt.clone(), &ns.name);
    let name = format!("hmc-tui-engine.{}", ns.name);
    let engine = "hmc-tui-7d9f8c5b6-x2x4q-1";
    let term = 20;
    let now = Timestamp::now();
    let mut lease = Lease {
        spec: Some(LeaseSpec {
            holder_identity: Some(engine.into()),
            acquire_time: Some(MicroTime(now)),
            renew_time: Some(MicroTime(now)),
            lease_duration_seconds: Some(term),
            lease_transitions: Some(0),
            ..Default::default()
        }),
        ..Default::default()
    };
    lease.metadata.name = Some(name.clone());
    let written = leases
        .create(&PostParams::default(), &lease)
        .await
        .expect("the engine's Lease");

    let observer = Console::start_with(&ns.name, "", &kubeconfig, &format!("-n {}", ns.name));
    observer
        .wait_text(&["engine: in-cluster (observing)"], SCREEN)
        .await;
    eprintln!("[{:>5.1?}] the console observes", started.elapsed());
    let log = std::fs::read_to_string(observer.log_path()).unwrap_or_default();
    assert!(
        log.contains(&format!("{engine} holds the Lease {}/{name}", ns.name)),
        "the log says which engine it observes\n{}",
        observer.report()
    );
    let now_there = leases.get(&name).await.expect("the Lease");
    assert_eq!(
        now_there.metadata.resource_version,
        written.metadata.resource_version,
        "the observing console wrote the Lease\n{}",
        observer.report()
    );

    let forced = Console::start_another(
        &ns.name,
        "forced",
        "",
        &kubeconfig,
        &format!("-n {} --force-engine", ns.name),
    );
    forced.wait_text(&["engine: in-process"], SCREEN).await;
    eprintln!("[{:>5.1?}] the forced console leads", started.elapsed());
    let taken = leases.get(&name).await.expect("the Lease");
    let spec = taken.spec.clone().unwrap_or_default();
    let holder = spec.holder_identity.clone().unwrap_or_default();
    assert!(
        holder.starts_with("console/"),
        "a console's engine says it is one: {holder}"
    );
    assert_eq!(
        spec.lease_transitions,
        Some(1),
        "the Lease passed once, from the engine to the forced console: {spec:?}"
    );
    let end_of_term = now
        .checked_add(SignedDuration::from_secs(i64::from(term)))
        .expect("a time");
    let acquired = spec.acquire_time.map(|t| t.0).expect("acquireTime");
    assert!(
        acquired >= end_of_term,
        "taken at {acquired}, before the engine's term ended at {end_of_term}"
    );
    // The first console still only observes.
    let screen = observer.screen();
    assert!(
        screen.contains("engine: in-cluster (observing)"),
        "{}",
        observer.report()
    );

    forced.quit().await;
    observer.quit().await;
    ns.cleanup().await;
}

/// The engine's Deployment, as the chart labels it, in the system
/// namespace (the test's, through `--system-namespace`: the harness's
/// hmc-system is every test's): the console observes, and makes no Lease.
/// The management cluster has no nodes, so the Deployment runs nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_observes_where_the_engine_deployment_is() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "console-deployed").await;
    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    let labels = json!({
        "app.kubernetes.io/name": "hmc-tui",
        "app.kubernetes.io/instance": "hmc-tui",
        "app.kubernetes.io/part-of": "hmc-tui",
        "app.kubernetes.io/component": "engine",
    });
    let deployment: Deployment = serde_json::from_value(json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "hmc-tui", "labels": labels},
        "spec": {
            "replicas": 0,
            "selector": {"matchLabels": labels},
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "hmc-tui", "image": "hmc-tui:test"}]},
            },
        },
    }))
    .expect("a Deployment");
    let deployments: Api<Deployment> = Api::namespaced(mgmt.clone(), &ns.name);
    deployments
        .create(&PostParams::default(), &deployment)
        .await
        .expect("the engine's Deployment");

    let console = Console::start_with(
        &ns.name,
        "",
        &kubeconfig,
        &format!("-n {0} --system-namespace {0}", ns.name),
    );
    console
        .wait_text(&["engine: in-cluster (observing)"], SCREEN)
        .await;
    let log = std::fs::read_to_string(console.log_path()).unwrap_or_default();
    assert!(
        log.contains(&format!(
            "the engine is installed (Deployment {}/hmc-tui)",
            ns.name
        )),
        "the log says what it saw\n{}",
        console.report()
    );
    let leases: Api<Lease> = Api::namespaced(mgmt.clone(), &ns.name);
    let name = format!("hmc-tui-engine.{}", ns.name);
    assert!(
        leases.get_opt(&name).await.expect("the Leases").is_none(),
        "the observing console made its Lease\n{}",
        console.report()
    );

    console.quit().await;
    ns.cleanup().await;
}
