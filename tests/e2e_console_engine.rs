//! The console's in-process engine takes the engine's flags as the headless
//! one does: started with `--shards shard2 --release-interval 7m`, the
//! console's engine labels every release of its cluster for the harness's
//! `shard2` release controller (the only one that watches that key, so the
//! service being installed shows that shard did it) and writes the
//! interval asked for.

mod common;

use std::time::Instant;

use common::console::*;
use common::rollouts::*;
use common::*;
use hmc_tui::flux::{HelmRelease, SHARD_LABEL};
use kube::api::Api;
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
