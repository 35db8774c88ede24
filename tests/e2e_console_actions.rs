//! The k9s keys of the console end to end, in a terminal (tmux) against the
//! local control plane: `N` sorts the clusters by name and `N` again
//! reverses them on screen; `d` describes a cluster (conditions, services,
//! its kubeconfig secret, its Events); `ctrl-d` asks what it uninstalls and
//! where, and `y` deletes the cluster: its service leaves its child cluster
//! and the ManagedCluster goes, while the other cluster keeps its service.

mod common;

use std::time::{Duration, Instant};

use common::console::*;
use common::rollouts::*;
use common::*;
use hmc_tui::api::ManagedCluster;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::Api;
use serde_json::json;

/// How long a change may take to reach a child cluster.
const STEP: Duration = Duration::from_secs(180);

/// Two clusters, on child clusters 1 and 2.
const CLUSTERS: [(&str, usize); 2] = [FLEET[0], FLEET[1]];

/// The screen's text with the frames taken out and runs of spaces made one,
/// so a wrapped pop-up reads as one sentence.
fn flat(screen: &str) -> String {
    screen
        .lines()
        .flat_map(|l| l.split(['│', '┌', '┐', '└', '┘', '─']))
        .flat_map(|c| c.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where each of `names` is listed on screen (its row's index).
fn order(screen: &str, names: &[&str]) -> Vec<Option<usize>> {
    let rows = rows(screen);
    names
        .iter()
        .map(|n| rows.iter().position(|r| r.split(' ').next() == Some(n)))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sort_describe_and_delete_a_cluster_from_the_console() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "actions").await;
    let console = Console::ready(&ns.name, "").await;
    let policy = json!({"strategy": "Manual", "maxConcurrent": 1});
    fleet_at_4_11_3_of(&mgmt, &ns.name, policy, &CLUSTERS).await;
    console
        .wait_for("c1 and c2 ready", SCREEN, |s| {
            row_starts(s, "c1 True fleet 1 1/1") && row_starts(s, "c2 True fleet 1 1/1")
        })
        .await;
    eprintln!("[{:>5.1?}] the fleet is up", started.elapsed());

    // 1. N sorts by name (the header says so), N again reverses.
    console.keys(&["N"]);
    let screen = console
        .wait_for("NAME sorted ascending", SCREEN, |s| s.contains("NAME↑"))
        .await;
    let at = order(&screen, &["c1", "c2"]);
    assert!(at[0] < at[1], "c1 above c2: {at:?}\n{}", console.report());
    console.keys(&["N"]);
    let screen = console
        .wait_for("NAME sorted descending, c2 above c1", SCREEN, |s| {
            let at = order(s, &["c1", "c2"]);
            s.contains("NAME↓") && at[0].is_some() && at[1] < at[0]
        })
        .await;
    assert!(!screen.contains("NAME↑"), "{}", console.report());
    eprintln!("[{:>5.1?}] sorted both ways", started.elapsed());

    // 2. d describes c1: conditions, its service, related objects, Events.
    console.select_row("c1").await;
    console.keys(&["d"]);
    console
        .wait_text(
            &[
                &format!("describe: ManagedCluster {}/c1", ns.name),
                "Conditions",
                "Services",
                "ingress-nginx",
                "Installed",
                "Related",
                &format!("{}/c1-kubeconfig", ns.name),
                &format!("{}-ingress", ns.name),
            ],
            SCREEN,
        )
        .await;
    // The Events are at the end: scroll there.
    console.keys(&["G"]);
    console.wait_text(&["Events"], SCREEN).await;
    console.keys(&["Escape"]);
    console
        .wait_for("the clusters again", SCREEN, |s| {
            s.contains("clusters (2)") && !s.contains("describe:")
        })
        .await;

    // 3. ctrl-d asks what goes and where; y deletes.
    console.select_row("c1").await;
    console.keys(&["C-d"]);
    let question = format!(
        "delete cluster c1 in {ns}? uninstalls ingress-nginx (namespace {ns}-ingress) from c1, then removes the cluster",
        ns = ns.name
    );
    console
        .wait_for("the delete question", SCREEN, |s| {
            flat(s).contains(&question) && s.contains("yes, delete")
        })
        .await;
    let child1 = child(1).await;
    let deployments: Api<Deployment> =
        Api::namespaced(child1.clone(), &format!("{}-ingress", ns.name));
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let before = deployments.list(&Default::default()).await.unwrap().items;
    assert!(
        !before.is_empty() && mcs.get_opt("c1").await.unwrap().is_some(),
        "c1 and its service are there before the answer\n{}",
        console.report()
    );
    console.keys(&["y"]);
    console
        .until("c1's service uninstalled from child 1", STEP, || async {
            let left = deployments.list(&Default::default()).await.ok()?.items;
            left.is_empty().then_some(())
        })
        .await;
    eprintln!("[{:>5.1?}] c1's service uninstalled", started.elapsed());
    console
        .until("the ManagedCluster c1 gone", STEP, || async {
            mcs.get_opt("c1").await.ok()?.is_none().then_some(())
        })
        .await;
    console
        .wait_for("c1 gone from the screen, c2 still there", SCREEN, |s| {
            row(s, "c1").is_empty() && row_starts(s, "c2 True fleet 1 1/1")
        })
        .await;
    let child2 = child(2).await;
    assert_eq!(
        chart_in(&child2, &ns.name).await.as_deref(),
        Some("ingress-nginx-4.11.3"),
        "c2 keeps its service\n{}",
        console.report()
    );
    eprintln!(
        "[{:>5.1?}] c1 deleted, its service uninstalled",
        started.elapsed()
    );

    tear_down(&mgmt, &ns.name).await;
    console.quit().await;
    ns.cleanup().await;
    eprintln!("[{:>5.1?}] done", started.elapsed());
}
