//! Deleting a cluster whose child cluster does not answer: the `Deleting`
//! condition says why, the force-delete annotation lets go, and nothing
//! else in the namespace waits meanwhile. The child's API server is down
//! for as short a time as the test allows, and started again even when the
//! test fails.

mod common;

use std::time::{Duration, Instant};

use common::cases::*;
use common::headless::harness;
use common::*;
use hmc_tui::api::{ManagedCluster, labels};
use hmc_tui::engine::EngineOptions;
use hmc_tui::flux::HelmRelease;
use kube::Client;
use kube::api::{Api, ListParams, Patch, PatchParams};
use serde_json::json;

/// The child cluster whose API server the test stops.
const DOWN: usize = 3;
/// The engine's deletion timeout in this test (5 minutes by default).
const DELETION_TIMEOUT: Duration = Duration::from_secs(20);
/// How long a step may take on a loaded machine.
const STEP: Duration = Duration::from_secs(180);

/// Child-3's API server, stopped; dropping it starts it again (`harness up`
/// starts what is stopped and leaves the rest alone), also when the test
/// panics.
struct ChildDown {
    up: bool,
}

impl ChildDown {
    async fn stop() -> Self {
        harness(&["stop", &format!("child-{DOWN}-apiserver")]).await;
        Self { up: false }
    }

    /// Starts the API server again and waits until it answers.
    async fn start_again(mut self) -> Duration {
        let start = Instant::now();
        harness(&["up"]).await;
        self.up = true;
        let _ = child(DOWN).await;
        start.elapsed()
    }
}

impl Drop for ChildDown {
    fn drop(&mut self) {
        if self.up {
            return;
        }
        eprintln!("starting child-{DOWN}-apiserver again (harness up)");
        let status = std::process::Command::new(repo_root().join("tests/harness/harness"))
            .arg("up")
            .status();
        eprintln!("harness up: {status:?}");
    }
}

/// The engine's releases (the cluster's own and its services') of `cluster`.
async fn releases_of(mgmt: &Client, ns: &str, cluster: &str) -> Vec<String> {
    let api: Api<HelmRelease> = Api::namespaced(mgmt.clone(), ns);
    api.list_metadata(&ListParams::default().labels(&format!("{}={cluster}", labels::CLUSTER)))
        .await
        .map(|l| {
            l.items
                .into_iter()
                .filter_map(|r| r.metadata.name)
                .collect()
        })
        .unwrap_or_default()
}

/// The `Deleting` condition of a cluster: status, reason and message.
async fn deleting(api: &Api<ManagedCluster>, name: &str) -> Option<(String, String, String)> {
    let st = status_of(api, name).await?;
    let c = st.conditions.iter().find(|c| c.type_ == "Deleting")?;
    Some((c.status.clone(), c.reason.clone(), c.message.clone()))
}

/// `gone` on child-3, `busy` on child-1. Child-3's API server stops and
/// `gone` is deleted: it waits, says so in its `Deleting` condition once the
/// deletion timeout has passed, and goes when annotated with
/// `hmc.mirantis.com/force-delete=true`. Meanwhile `busy` takes a change of
/// its values and `fresh`, a new cluster on child-1, gets its service.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_cluster_whose_child_is_down() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let child1 = child(1).await;
    let ns = TestNamespace::create(&mgmt, "childdown").await;
    let target = format!("{}-ingress", ns.name);
    let fresh_target = format!("{}-fresh", ns.name);
    let engine = RunningEngine::start_with(
        &ns.name,
        EngineOptions {
            deletion_timeout: DELETION_TIMEOUT,
            ..EngineOptions::default()
        },
    )
    .await;
    templates(&mgmt, &ns.name).await;
    for (name, child_index) in [("gone", DOWN), ("busy", 1)] {
        managed_cluster(&mgmt, &ns.name, name, json!([])).await;
        provision(&ns.name, name, child_index).await;
    }
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    for name in ["gone", "busy"] {
        until_ready(&mcs, name, INSTALL).await;
    }
    let child3 = child(DOWN).await;
    assert!(
        !release_records(&child3, &target).await.is_empty(),
        "gone's service is installed in child-{DOWN} before the outage"
    );
    eprintln!("[{:>5.1?}] both clusters Ready", started.elapsed());

    // Child-3 stops answering; gone is deleted.
    let down = ChildDown::stop().await;
    let outage = Instant::now();
    mcs.delete("gone", &Default::default())
        .await
        .expect("delete gone");
    let (_, reason, message) = eventually("gone to say it is uninstalling", STEP, || async {
        deleting(&mcs, "gone").await
    })
    .await;
    assert_eq!(
        (reason.as_str(), message.as_str()),
        ("UninstallingServices", "uninstalling ingress-nginx"),
        "before the deletion timeout, the condition says what it does"
    );

    // Nothing else in the namespace waits for child-3: busy takes new
    // values and a new cluster on child-1 gets its service.
    managed_cluster(
        &mgmt,
        &ns.name,
        "busy",
        json!([{"name": "ingress-nginx", "values": "controller:\n  replicaCount: 2\n"}]),
    )
    .await;
    let fresh = json!([{
        "name": "ingress-nginx",
        "namespace": fresh_target,
        // Its own cluster-wide objects (ClusterRole, IngressClass, …): a
        // second release of the chart in child-1 may not take busy's over.
        "values": chart_values(&format!("{}-fresh", ns.name), &fresh_target),
    }]);
    managed_cluster(&mgmt, &ns.name, "fresh", fresh).await;
    provision(&ns.name, "fresh", 1).await;
    eventually("busy's 2 replicas in child-1", STEP, || async {
        (available_replicas(&child1, &target).await == Some(2)).then_some(())
    })
    .await;
    eventually("fresh's service in child-1", STEP, || {
        available_release(&child1, &fresh_target, "ingress-nginx")
    })
    .await;
    for name in ["busy", "fresh"] {
        until_ready(&mcs, name, STEP).await;
    }
    let meanwhile = outage.elapsed();
    eprintln!(
        "[{:>5.1?}] busy updated and fresh installed {meanwhile:?} into the outage",
        started.elapsed()
    );

    // Past the deletion timeout the condition says why, in our words.
    let (status, _, message) = eventually(
        "gone's Deleting condition to say the child does not answer",
        STEP,
        || async {
            let d = deleting(&mcs, "gone").await?;
            (d.1 == "ChildUnreachable").then_some(d)
        },
    )
    .await;
    eprintln!("[{:>5.1?}] Deleting: {message}", started.elapsed());
    assert_eq!(status, "False");
    assert!(
        message.starts_with("services ingress-nginx could not be uninstalled for "),
        "{message}"
    );
    assert!(
        message.contains("annotate hmc.mirantis.com/force-delete=true to delete anyway"),
        "{message}"
    );
    assert!(
        message.contains("does not answer (connection refused)"),
        "the cause, in our words: {message}"
    );
    assert!(
        !message.contains("HelmRelease") && !message.contains("Flux"),
        "said in our words: {message}"
    );
    let (ready, why) = condition(&mcs, "gone", "Ready").await.expect("Ready");
    assert_eq!((ready.as_str(), why.as_str()), ("False", message.as_str()));
    assert!(
        mcs.get_opt("gone").await.unwrap().is_some(),
        "without the annotation, gone waits for its child"
    );

    // The annotation lets go: gone and its releases leave the management
    // cluster; what is in child-3 stays there.
    let patch = json!({"metadata": {"annotations": {labels::FORCE_DELETE: "true"}}});
    mcs.patch("gone", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("annotate gone");
    eventually("gone to be deleted", STEP, || async {
        mcs.get_opt("gone").await.ok()?.is_none().then_some(())
    })
    .await;
    assert_eq!(
        releases_of(&mgmt, &ns.name, "gone").await,
        Vec::<String>::new(),
        "no release of gone stays behind"
    );
    let back = down.start_again().await;
    eprintln!(
        "[{:>5.1?}] gone deleted; child-{DOWN} was down for {:?} (up again in {back:?})",
        started.elapsed(),
        outage.elapsed()
    );
    let child3 = child(DOWN).await;
    assert!(
        !release_records(&child3, &target).await.is_empty(),
        "forced, the service stays in child-{DOWN}, as the condition said"
    );

    // busy and fresh go while the engine runs; then the children's namespaces.
    for name in ["busy", "fresh"] {
        mcs.delete(name, &Default::default()).await.expect("delete");
    }
    eventually("busy and fresh to be deleted", INSTALL, || async {
        let left = mcs.list(&Default::default()).await.ok()?.items.len();
        (left == 0).then_some(())
    })
    .await;
    engine.stop().await;
    drop_child_namespace(&child3, &target).await;
    drop_child_namespace(&child1, &target).await;
    drop_child_namespace(&child1, &fresh_target).await;
    ns.cleanup().await;
    eprintln!("[{:>5.1?}] done", started.elapsed());
}
