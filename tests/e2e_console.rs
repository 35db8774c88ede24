//! The console end to end: the real binary in a terminal (tmux), driven by
//! keys, against the local control plane. An operator edits a service's
//! values on one cluster and sees them reach the child cluster, then
//! approves a manual rollout's first wave from the rollout board and sees it
//! move exactly one cluster to the new chart version. The operator's
//! settings file rebinds approve to `A`, so the board names and obeys that
//! key.

mod common;

use std::time::{Duration, Instant};

use common::cases::{available_replicas, deployment_replicas};
use common::console::*;
use common::rollouts::*;
use common::*;
use hmc_tui::api::{ManagedCluster, RolloutPhase, WaveState};
use kube::api::Api;
use serde_json::json;

/// How long a change may take to reach a child cluster.
const STEP: Duration = Duration::from_secs(180);

/// Two clusters, on child clusters 1 and 2.
const CLUSTERS: [(&str, usize); 2] = [FLEET[0], FLEET[1]];

/// Whether the clusters screen's row of `name` says Ready True, revision
/// `rev`, services 1/1.
fn cluster_row_ready(screen: &str, name: &str, rev: &str) -> bool {
    row_starts(screen, &format!("{name} True fleet {rev} 1/1"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_edits_values_and_approves_a_wave() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "console").await;
    let me = whoami(&mgmt).await;

    // 1. The clusters screen, empty, with the console's own engine leading.
    let console = Console::ready(&ns.name, "keys:\n  board:\n    approve: A\n").await;

    // Two clusters at 4.11.3, installed by the console's engine.
    let policy = json!({"strategy": "Manual", "maxConcurrent": 1});
    fleet_at_4_11_3_of(&mgmt, &ns.name, policy.clone(), &CLUSTERS).await;
    console
        .wait_for("c1 and c2 ready at revision 1", SCREEN, |s| {
            CLUSTERS
                .iter()
                .all(|(name, _)| cluster_row_ready(s, name, "1"))
        })
        .await;
    eprintln!("[{:>5.1?}] the fleet is up", started.elapsed());

    // 2. c2's ingress-nginx values, edited and saved from the keyboard.
    let child2 = child(2).await;
    let ingress = format!("{}-ingress", ns.name);
    assert_eq!(deployment_replicas(&child2, &ingress).await, Some(1));
    console.select_row("c2").await;
    console.keys(&["Enter"]);
    console
        .wait_for("c2's detail with ingress-nginx Installed", SCREEN, |s| {
            s.contains("services (1)")
                && line_with(s, "▶ ingress-nginx").is_some()
                && row_starts(s, "ingress-nginx Installed 4.11.3 1")
        })
        .await;
    console.keys(&["e"]);
    // c2 has no entry of its own yet: the editor opens empty, and once the
    // chart is fetched it suggests the chart's own keys.
    console
        .wait_text(
            &[
                "ManagedCluster c2  services[ingress-nginx].values (new entry)",
                "empty: no overrides here; type YAML such as `controller: {replicaCount: 1}`",
                "values of ingress-nginx 4.11.3: commonLabels, controller",
                "✓ valid values of ingress-nginx 4.11.3",
                "ln 1, col 1  unchanged",
            ],
            STEP,
        )
        .await;
    console.type_text("controller:");
    console.keys(&["Enter"]);
    console.type_text("  replicaCount: 2");
    console.keys(&["Enter"]);
    // A key the chart does not have is a warning beside its line.
    console.type_text("  nosuchkey: 1");
    console
        .wait_text(
            &[
                "3   nosuchkey: 1  ← nosuchkey: not a value of the chart",
                "! line 3, column 3: controller.nosuchkey is not a value of ingress-nginx 4.11.3",
            ],
            SCREEN,
        )
        .await;
    console.keys(&["BSpace"; 14]);
    // A value of the wrong type refuses the save, with its place.
    console.type_text("  containerPort: {http: web}");
    console
        .wait_text(
            &[
                "← http: a number in the chart, not \"web\"",
                "✗ line 3, column 25: controller.containerPort.http is a number in ingress-nginx",
            ],
            SCREEN,
        )
        .await;
    console.keys(&["C-s"]);
    console
        .wait_text(
            &["not saved: line 3, column 25: controller.containerPort.http is a number in ingress-nginx 4.11.3, not \"web\""],
            SCREEN,
        )
        .await;
    console.keys(&["BSpace"; 28]);
    console
        .wait_text(
            &[
                "1 controller:",
                "2   replicaCount: 2",
                "✓ valid values of ingress-nginx 4.11.3",
                "ln 3, col 1  modified",
            ],
            SCREEN,
        )
        .await;
    console.keys(&["C-s"]);
    console
        .wait_text(
            &[
                "save ingress-nginx: ManagedCluster c2",
                "controller.replicaCount: 1 → 2",
                "adds an entry for ingress-nginx to the cluster's spec.services",
                &format!("apply as {me}"),
            ],
            SCREEN,
        )
        .await;
    console.keys(&["y"]);
    // The status line says it is saved and what happens next, and keeps
    // saying so (the engine's warnings go to the header's count).
    const SAVED: &str = "saved the values of ingress-nginx on ManagedCluster c2; \
                         the engine applies them to c2 now";
    console.wait_text(&[SAVED], SCREEN).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let spec = mcs.get("c2").await.unwrap().spec;
    let entry = spec
        .services
        .iter()
        .find(|s| s.name == "ingress-nginx")
        .unwrap_or_else(|| panic!("c2 has an ingress-nginx entry: {spec:?}"));
    assert_eq!(
        entry.values.as_deref(),
        Some("controller:\n  replicaCount: 2\n")
    );

    // 3. The new value reaches c2's Deployment, and only c2's; the detail
    // shows the service installed again.
    console
        .until("c2's controller available with 2 replicas", STEP, || {
            let child2 = child2.clone();
            let ingress = ingress.clone();
            async move {
                let spec = deployment_replicas(&child2, &ingress).await;
                let available = available_replicas(&child2, &ingress).await;
                (spec == Some(2) && available == Some(2)).then_some(())
            }
        })
        .await;
    console
        .wait_for("c2's ingress-nginx Installed again", STEP, |s| {
            s.contains("services 1/1")
                && line_with(s, "▶ ingress-nginx").is_some()
                && row_starts(s, "ingress-nginx Installed 4.11.3 1")
        })
        .await;
    // No key since the save: its answer is still there.
    let screen = console.screen();
    assert!(
        screen.contains(SAVED),
        "the save's answer stays until a key\n{}",
        console.report()
    );
    let child1 = child(1).await;
    assert_eq!(
        deployment_replicas(&child1, &ingress).await,
        Some(1),
        "c1 keeps its replicas\n{}",
        console.report()
    );
    eprintln!("[{:>5.1?}] c2 runs 2 replicas", started.elapsed());

    // 4. Revision 2 (4.11.4) waits for approval; the board approves wave 1.
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", policy).await;
    rollout_when(
        &mgmt,
        &ns.name,
        "fleet-2",
        "wave 1 to wait for approval",
        STEP,
        |r| phase(r) == RolloutPhase::WaitingForApproval,
    )
    .await;
    console
        .open_board("fleet-2 fleet 2 WaitingForApproval 1/2 0/2")
        .await;
    console
        .wait_text(
            &[
                "2 clusters: ingress-nginx 4.11.3 → 4.11.4",
                "waits for approval: A approves",
            ],
            SCREEN,
        )
        .await;
    let waiting = console.screen();
    assert!(
        line_with(&waiting, "wave 1").is_some_and(|l| l.contains("WaitingForApproval")),
        "wave 1 is the one that waits\n{}",
        console.report()
    );
    assert_eq!(
        chart_in(&child1, &ns.name).await.as_deref(),
        Some("ingress-nginx-4.11.3")
    );
    // The default key is unbound now: it asks nothing.
    console.keys(&["a"]);
    console.keys(&["A"]);

    let r = rollout_when(&mgmt, &ns.name, "fleet-2", "wave 1 to succeed", STEP, |r| {
        r.status
            .as_ref()
            .is_some_and(|s| s.waves.first().map(|w| w.state) == Some(WaveState::Succeeded))
    })
    .await;
    let st = r.status.unwrap();
    assert_eq!(
        st.waves[0].approved_by.as_deref(),
        Some(me.as_str()),
        "approved by the console's user\n{}",
        console.report()
    );
    let act = st.history.last().expect("the approval is recorded");
    assert_eq!(
        (act.action.as_str(), act.by.as_str(), act.revision, act.wave),
        ("approve", me.as_str(), 2, Some(1))
    );
    assert_eq!(st.history.len(), 1, "one act: {:?}", st.history);
    assert_eq!(
        (st.phase, st.waves[1].state),
        (
            RolloutPhase::WaitingForApproval,
            WaveState::WaitingForApproval
        ),
        "wave 2 waits\n{}",
        console.report()
    );
    assert_eq!(
        (
            chart_in(&child1, &ns.name).await,
            chart_in(&child2, &ns.name).await
        ),
        (
            Some("ingress-nginx-4.11.4".to_string()),
            Some("ingress-nginx-4.11.3".to_string())
        ),
        "wave 1 moved c1 only\n{}",
        console.report()
    );
    assert_eq!(
        deployment_replicas(&child2, &ingress).await,
        Some(2),
        "c2 keeps its own values"
    );
    // The board: wave 1 done with its approver, c1 updated to revision 2,
    // wave 2 and c2 waiting.
    console
        .wait_for(
            "wave 1 Succeeded, approved by the console's user",
            SCREEN,
            |s| {
                line_with(s, "wave 1").is_some_and(|l| {
                    l.contains("Succeeded")
                        && l.contains("1/1 updated")
                        && l.contains(&format!("approved by {me}"))
                }) && line_with(s, "wave 2").is_some_and(|l| l.contains("WaitingForApproval"))
                    && row_starts(s, "c1 Updated 1 → 2")
                    && row_starts(s, "c2 Waiting 1 → 2 - waiting for approval of wave 2")
            },
        )
        .await;
    eprintln!("[{:>5.1?}] wave 1 approved and done", started.elapsed());

    // The clusters and templates go while the console's engine runs; then
    // q quits the console.
    tear_down(&mgmt, &ns.name).await;
    console.quit().await;
    ns.cleanup().await;
    eprintln!("[{:>5.1?}] done", started.elapsed());
}
