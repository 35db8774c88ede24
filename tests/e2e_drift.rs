//! The engine end to end: changes made by hand in a child cluster to what a
//! service installed are reverted, and the cluster's status and Events say so.

mod common;

use std::time::{Duration, Instant};

use common::cases::*;
use common::rollouts::event_notes;
use common::*;
use hmc_tui::api::names::service_release_name;
use hmc_tui::api::{ManagedCluster, ServiceState};
use hmc_tui::engine::EngineOptions;
use hmc_tui::flux::HelmRelease;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service};
use kube::api::{Api, Patch, PatchParams};
use kube::{Client, ResourceExt};
use serde_json::json;

/// How often the release controller looks at the service here.
const INTERVAL: &str = "30s";
/// A few intervals, on a loaded machine.
const REVERTED: Duration = Duration::from_secs(240);

/// Helm's record of each release version in the child (Helm's own
/// `sh.helm.release.v1.<name>.v<n>` secrets).
async fn helm_versions(child: &Client, ns: &str) -> Vec<String> {
    let api: Api<Secret> = Api::namespaced(child.clone(), ns);
    let mut names: Vec<String> = api
        .list_metadata(&Default::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|s| s.metadata.name)
        .filter(|n| n.starts_with("sh.helm.release.v1.ingress-nginx."))
        .collect();
    names.sort();
    names
}

/// Scaling the controller and deleting its Service and its ConfigMap by hand in the child: all put back within a few
/// release intervals, and the service's status and an Event of the cluster
/// say what was reverted. Before that, turning drift correction on for a
/// release installed without it upgrades nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_made_by_hand_in_the_child_are_reverted() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let child1 = child(1).await;
    let ns = TestNamespace::create(&mgmt, "byhand").await;
    let target = format!("{}-ingress", ns.name);
    // The controller's Deployment, Service and ConfigMap.
    let controller = controller_name(&fullname(&ns.name));
    let engine = RunningEngine::start_with(
        &ns.name,
        EngineOptions {
            release_interval: INTERVAL.into(),
            ..Default::default()
        },
    )
    .await;
    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 1).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually("ingress-nginx installed on dev-1", INSTALL, || async {
        let (state, _) = service_state(&mcs, "dev-1", "ingress-nginx").await?;
        (state == ServiceState::Installed).then_some(())
    })
    .await;
    eventually("ingress-nginx Available on child-1", INSTALL, || {
        available_replicas(&child1, &target)
    })
    .await;

    // Every release the engine writes takes the engine's interval; the
    // service's release corrects drift.
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let rel_name = service_release_name("dev-1", "ingress-nginx");
    let rel = releases.get(&rel_name).await.unwrap();
    assert_eq!(rel.spec.interval, INTERVAL);
    assert_eq!(
        rel.spec
            .drift_detection
            .as_ref()
            .and_then(|d| d.mode.as_deref()),
        Some("enabled")
    );
    assert_eq!(releases.get("dev-1").await.unwrap().spec.interval, INTERVAL);

    // An engine upgrade: the release as an engine without drift correction
    // wrote it, settled; the new engine turns correction on, and nothing is
    // upgraded (the same Helm version, the same Deployment generation) nor
    // told as applied or installed again.
    let versions = helm_versions(&child1, &target).await;
    assert_eq!(versions.len(), 1, "one install: {versions:?}");
    let deployments: Api<Deployment> = Api::namespaced(child1.clone(), &target);
    let generation = deployments
        .get(&controller)
        .await
        .unwrap()
        .metadata
        .generation;
    engine.stop().await;
    releases
        .patch(
            &rel_name,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"driftDetection": null}})),
        )
        .await
        .expect("take drift correction off the release");
    let settled = |want_drift: bool| {
        let releases = releases.clone();
        let rel_name = rel_name.clone();
        move || {
            let (releases, rel_name) = (releases.clone(), rel_name.clone());
            async move {
                let r = releases.get(&rel_name).await.ok()?;
                let status = r.status.as_ref()?;
                let ready = hmc_tui::flux::ready(&status.conditions)?;
                (r.spec.drift_detection.is_some() == want_drift
                    && status.observed_generation == r.metadata.generation
                    && ready.status == "True")
                    .then_some(())
            }
        }
    };
    eventually(
        "the release without correction, settled",
        REVERTED,
        settled(false),
    )
    .await;
    let engine = RunningEngine::start_with(
        &ns.name,
        EngineOptions {
            release_interval: INTERVAL.into(),
            ..Default::default()
        },
    )
    .await;
    let since = Instant::now();
    eventually(
        "the new engine to turn correction on, and the release to take it",
        REVERTED,
        settled(true),
    )
    .await;
    eprintln!(
        "drift correction turned on for an installed release in {:?}",
        since.elapsed()
    );
    assert_eq!(
        helm_versions(&child1, &target).await,
        versions,
        "no upgrade"
    );
    let marked = releases.get(&rel_name).await.unwrap();
    assert!(
        marked
            .annotations()
            .contains_key(hmc_tui::plan::releases::INSTALLS_AS_GENERATION),
        "{:?}",
        marked.metadata.annotations
    );
    assert_eq!(
        deployments
            .get(&controller)
            .await
            .unwrap()
            .metadata
            .generation,
        generation,
        "the Deployment is untouched"
    );

    // By hand, in the child: scale the controller, delete its Service and
    // its ConfigMap.
    deployments
        .patch_scale(
            &controller,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 3}})),
        )
        .await
        .expect("scale the controller by hand");
    let services: Api<Service> = Api::namespaced(child1.clone(), &target);
    services
        .delete(&controller, &Default::default())
        .await
        .expect("delete the controller's Service by hand");
    let config_maps: Api<ConfigMap> = Api::namespaced(child1.clone(), &target);
    config_maps
        .delete(&controller, &Default::default())
        .await
        .expect("delete the controller's ConfigMap by hand");
    let changed = Instant::now();

    eventually("the changes made by hand reverted", REVERTED, || async {
        let replicas = deployments.get(&controller).await.ok()?.spec?.replicas;
        let service = services.get_opt(&controller).await.ok()?;
        let config_map = config_maps.get_opt(&controller).await.ok()?;
        (replicas == Some(1) && service.is_some() && config_map.is_some()).then_some(())
    })
    .await;
    eprintln!("reverted {:?} after the change", changed.elapsed());

    // The service's status says so, in our words.
    let message = eventually("the status to tell the correction", REVERTED, || async {
        let (state, msg) = service_state(&mcs, "dev-1", "ingress-nginx").await?;
        (state == ServiceState::Installed && msg.contains("were reverted")).then_some(msg)
    })
    .await;
    assert!(
        message.starts_with("changes made by hand in the cluster were reverted at "),
        "{message}"
    );
    assert!(
        message.contains(&format!("Deployment {target}/{controller}"))
            || message.contains(&format!("Service {target}/{controller} recreated")),
        "names what was put back: {message}"
    );
    for word in ["HelmRelease", "Flux", "drift"] {
        assert!(!message.contains(word), "our words: {message}");
    }
    let (ready, _) = condition(&mcs, "dev-1", "Ready").await.unwrap();
    assert_eq!(ready, "True", "a reverted change leaves the cluster Ready");

    // And an Event of the cluster.
    let note = eventually("an Event telling the correction", REVERTED, || async {
        event_notes(&mgmt, &ns.name, "dev-1")
            .await
            .into_iter()
            .find(|n| n.starts_with("ServiceDriftCorrected: "))
    })
    .await;
    assert!(
        note.contains("ingress-nginx: changes made by hand in the cluster were reverted"),
        "{note}"
    );
    // What the cluster told, and how often (an Event repeated is a series):
    // turning correction on applied and installed nothing again.
    let events: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(mgmt.clone(), &ns.name);
    for e in events.list(&Default::default()).await.unwrap().items {
        if e.reporting_controller.as_deref() == Some("hmc-tui") {
            let count = e.series.map_or(1, |s| s.count);
            let (reason, note) = (e.reason.unwrap_or_default(), e.note.unwrap_or_default());
            eprintln!("event of the cluster, {count}x: {reason}: {note}");
            if matches!(
                reason.as_str(),
                "ServiceApplied" | "ServiceInstalled" | "ServiceDriftCorrected"
            ) {
                assert_eq!(count, 1, "told once: {reason}: {note}");
            }
        }
    }

    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("dev-1 deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;
    engine.stop().await;
    drop_child_namespace(&child1, &target).await;
    ns.cleanup().await;
    eprintln!("e2e_drift took {:?}", started.elapsed());
}
