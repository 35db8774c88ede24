//! Chaos: the headless engine is killed with SIGKILL twenty times at random
//! moments, each after it took the lease, while a Manual rollout runs and
//! approvals are given while no engine runs, and Cluster API's manager is
//! stopped for a third of the kills. The rollout still succeeds, each wave
//! is approved and started once, and each child's service gets exactly one
//! upgrade.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::headless::*;
use common::rollouts::*;
use common::*;
use hmc_tui::api::{RolloutPhase, TemplateRollout, WaveState};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, ListParams};
use serde_json::json;

const KILLS: usize = 20;
/// The kills during which Cluster API's manager does not run.
const CAPI_DOWN: std::ops::Range<usize> = 7..14;

/// Cluster API's manager, stopped: started again when dropped, so that a
/// failing run does not leave the harness without it for the tests after
/// (their Clusters would never be provisioned or deleted).
struct CapiStopped;

impl CapiStopped {
    async fn stop() -> CapiStopped {
        harness(&["stop", "cluster-api"]).await;
        CapiStopped
    }

    async fn start_again(self) {
        harness(&["up"]).await;
        std::mem::forget(self);
    }
}

impl Drop for CapiStopped {
    fn drop(&mut self) {
        let _ = std::process::Command::new(repo_root().join("tests/harness/harness"))
            .arg("up")
            .status();
    }
}
const STEP: Duration = Duration::from_secs(240);

/// A small xorshift: random moments without a dependency, and a seed to
/// print so that a failing run can be told apart.
struct Moments(u64);

impl Moments {
    fn next_ms(&mut self, max: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % max
    }
}

/// A headless engine for `ns` with a short lease, so that the next one does
/// not wait 15 s for a killed holder's lease to run out.
fn engine(ns: &str, port: u16) -> Headless {
    Headless::start(
        Some(ns),
        port,
        &harness_dir().join("mgmt.kubeconfig"),
        ns,
        &[("HMC_LEASE_DURATION", "4")],
    )
}

/// The wave that waits for approval, if any.
fn waiting_wave(r: &TemplateRollout) -> Option<u32> {
    let st = r.status.as_ref()?;
    (st.phase == RolloutPhase::WaitingForApproval)
        .then(|| {
            st.waves
                .iter()
                .find(|w| w.state == WaveState::WaitingForApproval)
                .map(|w| w.number)
        })
        .flatten()
}

/// Helm's release records (`sh.helm.release.v1.<name>.v<N>`) of the
/// service in one child cluster: the revisions Helm made.
async fn helm_revisions(child: &kube::Client, ns: &str) -> Vec<String> {
    let api: Api<Secret> = Api::namespaced(child.clone(), &format!("{ns}-ingress"));
    let list = api
        .list_metadata(&ListParams::default().labels("owner=helm,name=ingress-nginx"))
        .await
        .expect("list Helm's release records");
    let mut versions: Vec<String> = list
        .items
        .into_iter()
        .filter_map(|s| s.metadata.labels?.get("version").cloned())
        .collect();
    versions.sort();
    versions
}

/// How many times each wave was started, from the engine's Events on the
/// rollout: every engine process records its own, so a wave started twice
/// shows as two Events (or a series of two).
async fn wave_starts(mgmt: &kube::Client, ns: &str) -> BTreeMap<String, i32> {
    let api: Api<Event> = Api::namespaced(mgmt.clone(), ns);
    let mut starts = BTreeMap::new();
    for e in api.list(&Default::default()).await.expect("events").items {
        if e.reason.as_deref() != Some("WaveStarted") {
            continue;
        }
        let count = e.series.as_ref().map(|s| s.count).unwrap_or(1);
        *starts.entry(e.note.unwrap_or_default()).or_insert(0) += count;
    }
    starts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_kills_during_a_manual_rollout() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "chaos").await;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
        | 1;
    eprintln!("random moments from seed {seed}");
    let mut moments = Moments(seed);
    let policy = json!({"strategy": "Manual", "maxConcurrent": 1});

    // The fleet at 4.11.3, set up by an engine that is then stopped cleanly.
    let setup = engine(&ns.name, 17600);
    fleet_at_4_11_3(&mgmt, &ns.name, policy.clone()).await;
    let _ = setup.terminate().await;
    fleet_template(&mgmt, &ns.name, "ingress-nginx-4-11-4", policy).await;

    let rollouts: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), &ns.name);
    let mut approved: Vec<u32> = Vec::new();
    let mut approve_waiting = |r: Option<TemplateRollout>, by: &str| {
        let wave = r.as_ref().and_then(waiting_wave)?;
        (!approved.contains(&wave)).then(|| {
            approved.push(wave);
            (wave, by.to_string())
        })
    };
    let started = Instant::now();
    let mut capi_stopped = None;
    for kill in 0..KILLS {
        if kill == CAPI_DOWN.start {
            capi_stopped = Some(CapiStopped::stop().await);
            eprintln!("kill {kill}: Cluster API's manager stopped");
        } else if kill == CAPI_DOWN.end
            && let Some(stopped) = capi_stopped.take()
        {
            stopped.start_again().await;
            eprintln!("kill {kill}: Cluster API's manager started again");
        }
        let port = 17601 + kill as u16;
        let mut e = engine(&ns.name, port);
        eventually(
            &format!("engine {kill} to take the lease"),
            Duration::from_secs(60),
            || async { e.is_leader().await?.then_some(()) },
        )
        .await;
        let after = moments.next_ms(3000);
        tokio::time::sleep(Duration::from_millis(after)).await;
        e.child.kill().await.expect("SIGKILL the engine");
        // While no engine runs, every sixth kill: approve the wave that
        // waits, if one does. Spread out so, the three waves run across
        // the kills rather than in the first few.
        let current = match kill % 6 {
            3 => rollouts.get_opt("fleet-2").await.ok().flatten(),
            _ => None,
        };
        if let Some((wave, by)) = approve_waiting(current, "chaos") {
            request(&mgmt, &ns.name, "fleet-2", &format!("approve {wave}"), &by).await;
            eprintln!("kill {kill} ({after} ms after leading): approved wave {wave} while down");
        } else {
            eprintln!("kill {kill} ({after} ms after leading)");
        }
        // Now and then, a pause: Flux carries on meanwhile.
        tokio::time::sleep(Duration::from_millis(moments.next_ms(2000))).await;
    }
    eprintln!("{KILLS} kills in {:.0} s", started.elapsed().as_secs_f64());

    // One last engine, left running, finishes the rollout; waves that
    // still wait are approved while it runs.
    let last = engine(&ns.name, 17600 + KILLS as u16 + 1);
    let deadline = Instant::now() + STEP * 2;
    let st = loop {
        let r = rollouts.get_opt("fleet-2").await.ok().flatten();
        if let Some(r) = &r
            && phase(r) == RolloutPhase::Succeeded
        {
            break r.status.clone().unwrap();
        }
        if let Some((wave, by)) = approve_waiting(r, "chaos") {
            request(&mgmt, &ns.name, "fleet-2", &format!("approve {wave}"), &by).await;
        }
        assert!(
            Instant::now() < deadline,
            "the rollout did not succeed; last engine's log:\n{}",
            last.log_text()
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    };

    let approvals: Vec<Option<u32>> = st.history.iter().map(|a| a.wave).collect();
    assert_eq!(
        approvals,
        [Some(1), Some(2), Some(3)],
        "each wave approved once, in order: {:?}",
        st.history
    );
    assert!(
        st.waves
            .iter()
            .all(|w| w.state == WaveState::Succeeded && w.started_at.is_some()),
        "every wave ran: {:?}",
        st.waves
    );
    let starts = wave_starts(&mgmt, &ns.name).await;
    assert_eq!(starts.len(), 3, "three waves started: {starts:?}");
    assert!(
        starts.values().all(|n| *n == 1),
        "each wave started once: {starts:?}"
    );
    assert_eq!(charts(&ns.name).await, some(&["ingress-nginx-4.11.4"; 3]));
    for (name, i) in FLEET {
        assert_eq!(
            helm_revisions(&child(i).await, &ns.name).await,
            ["1", "2"],
            "{name}: one install and exactly one upgrade"
        );
    }

    teardown_fleet(&mgmt, &ns.name).await;
    let _ = last.terminate().await;
    ns.cleanup().await;
}
