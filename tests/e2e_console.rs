//! The console end to end: the real binary in a terminal (tmux), driven by
//! keys, against the local control plane. An operator edits a service's
//! values on one cluster and sees them reach the child cluster, then
//! approves a manual rollout's first wave from the rollout board and sees it
//! move exactly one cluster to the new chart version. The operator's
//! settings file rebinds approve to `A`, so the board names and obeys that
//! key.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::cases::{INSTALL, available_replicas, deployment_replicas};
use common::rollouts::*;
use common::*;
use hmc_tui::api::{ClusterTemplate, ManagedCluster, RolloutPhase, ServiceTemplate, WaveState};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::api::{Api, PostParams};
use serde_json::json;

/// How long the screen may take to show what a key or a change brings.
const SCREEN: Duration = Duration::from_secs(30);
/// How long a change may take to reach a child cluster.
const STEP: Duration = Duration::from_secs(180);

/// Two clusters, on child clusters 1 and 2.
const CLUSTERS: [(&str, usize); 2] = [FLEET[0], FLEET[1]];

/// The console running in a tmux server of its own (its own socket, so
/// nothing else's sessions are touched). Dropping it kills the server; on a
/// failure it first prints the screen and the log and removes what the test
/// made (see its `Drop`).
struct Console {
    /// The test's namespace.
    ns: String,
    /// The tmux server's socket, in `dir`.
    socket: PathBuf,
    session: String,
    /// The console's log and settings (kept when the test fails).
    dir: PathBuf,
}

impl Console {
    /// Starts `hmc-tui --kubeconfig <mgmt> -n <ns>` in a 120×40 terminal,
    /// with the engine's lease in `ns` and its log and settings in a folder
    /// of its own. When the console exits, the pane stays and says how.
    fn start(ns: &str, settings: &str) -> Console {
        let dir = std::env::temp_dir().join(format!("hmc-tui-console-{ns}"));
        std::fs::create_dir_all(dir.join("config/hmc-tui")).expect("the console's folder");
        std::fs::write(dir.join("config/hmc-tui/config.yaml"), settings)
            .expect("the console's settings file");
        let socket = dir.join("tmux.sock");
        let quote = |p: &std::path::Path| format!("'{}'", p.display());
        let command = format!(
            "env HMC_LEASE_NAMESPACE={ns} XDG_STATE_HOME={state} XDG_CONFIG_HOME={config} \
             RUST_LOG=info,hmc_tui=debug,kube=warn {bin} --kubeconfig {kc} -n {ns}; \
             echo \"[console exited: $?]\"; sleep 3600",
            state = quote(&dir.join("state")),
            config = quote(&dir.join("config")),
            bin = quote(std::path::Path::new(env!("CARGO_BIN_EXE_hmc-tui"))),
            kc = quote(&harness_dir().join("mgmt.kubeconfig")),
        );
        let console = Console {
            ns: ns.to_string(),
            socket,
            session: "console".into(),
            dir,
        };
        let out = console.tmux(&[
            "new-session",
            "-d",
            "-s",
            &console.session,
            "-x",
            "120",
            "-y",
            "40",
            &command,
        ]);
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        console
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-u")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .env("LC_ALL", "C.UTF-8")
            .env_remove("TMUX")
            .output()
            .expect("run tmux")
    }

    /// Keys by tmux name (`Enter`, `C-s`, `j`).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", &self.session];
        args.extend(keys);
        let out = self.tmux(&args);
        assert!(
            out.status.success(),
            "tmux send-keys {keys:?}: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            self.report()
        );
    }

    /// Literal text, typed.
    fn type_text(&self, text: &str) {
        let out = self.tmux(&["send-keys", "-t", &self.session, "-l", text]);
        assert!(
            out.status.success(),
            "tmux send-keys -l {text:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The screen as text.
    fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn log_path(&self) -> PathBuf {
        self.dir.join("state/hmc-tui/hmc-tui.log")
    }

    /// The screen and the end of the console's log, for failure messages.
    fn report(&self) -> String {
        let log = std::fs::read_to_string(self.log_path()).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(40)..].join("\n");
        format!(
            "--- screen ---\n{}\n--- console log ({}), last lines ---\n{tail}\n{}",
            self.screen(),
            self.log_path().display(),
            logs_hint()
        )
    }

    /// Waits until the screen satisfies `check`; the screen then.
    async fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        check: impl Fn(&str) -> bool,
    ) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if check(&screen) {
                return screen;
            }
            if start.elapsed() > timeout {
                panic!(
                    "timed out after {timeout:?} waiting for the screen to show {what}\n{}",
                    self.report()
                );
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Waits until the screen shows every one of `texts`.
    async fn wait_text(&self, texts: &[&str], timeout: Duration) -> String {
        self.wait_for(&format!("{texts:?}"), timeout, |s| {
            texts.iter().all(|t| s.contains(t))
        })
        .await
    }

    /// Polls the API (or a child cluster) with the screen in the failure
    /// message.
    async fn until<T, F, Fut>(&self, what: &str, timeout: Duration, mut check: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
    {
        let start = Instant::now();
        loop {
            if let Some(v) = check().await {
                return v;
            }
            if start.elapsed() > timeout {
                panic!(
                    "timed out after {timeout:?} waiting for {what}\n{}",
                    self.report()
                );
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Moves the list's cursor (`j`/`k`) to the row whose first column is
    /// `name`.
    async fn select_row(&self, name: &str) {
        let selected = |screen: &str| -> Option<String> {
            screen
                .lines()
                .find_map(|l| l.split_once("▶ ").map(|(_, rest)| rest.to_string()))
                .and_then(|rest| rest.split_whitespace().next().map(String::from))
        };
        let names = |screen: &str| -> Vec<String> {
            rows(screen)
                .iter()
                .filter_map(|l| l.split(' ').next().map(String::from))
                .collect()
        };
        for _ in 0..20 {
            let screen = self.screen();
            let Some(at) = selected(&screen) else {
                panic!("no row is selected\n{}", self.report());
            };
            if at == name {
                return;
            }
            let all = names(&screen);
            let (here, there) = (
                all.iter().position(|r| *r == at),
                all.iter().position(|r| r == name),
            );
            let key = match (here, there) {
                (Some(h), Some(t)) if t < h => "k",
                _ => "j",
            };
            self.keys(&[key]);
            self.wait_for(&format!("the cursor to leave {at}"), SCREEN, |s| {
                selected(s).as_deref() != Some(at.as_str())
            })
            .await;
        }
        panic!("cannot select {name}\n{}", self.report());
    }
}

/// Dropped during a panic, the console shows its last screen and log, and
/// [`tear_down`] runs (for at most 3 minutes) while its engine still does,
/// then the namespace goes: a failure leaves nothing in the shared harness.
impl Drop for Console {
    fn drop(&mut self) {
        let failed = std::thread::panicking();
        if failed {
            eprintln!("the console at the failure:\n{}", self.report());
            eprintln!("removing what the test made in {}…", self.ns);
            let ns = self.ns.clone();
            // A thread of its own: this one is unwinding inside a runtime.
            let _ = std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime");
                rt.block_on(async {
                    let mgmt = mgmt().await;
                    let _ =
                        tokio::time::timeout(Duration::from_secs(180), tear_down(&mgmt, &ns)).await;
                    let api: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(mgmt);
                    let _ = api.delete(&ns, &Default::default()).await;
                });
            })
            .join();
        }
        let _ = self.tmux(&["kill-server"]);
        if failed {
            eprintln!("the console's log stays in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Deletes the clusters while the console's engine runs, so their services
/// leave the child clusters, and the namespaces the fleet made there; then
/// the templates, whose finalizers only an engine removes.
async fn tear_down(mgmt: &kube::Client, ns: &str) {
    teardown_fleet(mgmt, ns).await;
    let cts: Api<ClusterTemplate> = Api::namespaced(mgmt.clone(), ns);
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), ns);
    let _ = cts
        .delete_collection(&Default::default(), &Default::default())
        .await;
    let _ = sts
        .delete_collection(&Default::default(), &Default::default())
        .await;
    eventually("the templates to be deleted", INSTALL, || async {
        let left = cts.list(&Default::default()).await.ok()?.items.len()
            + sts.list(&Default::default()).await.ok()?.items.len();
        (left == 0).then_some(())
    })
    .await;
}

/// The user the API server says the test (and so the console) is.
async fn whoami(client: &kube::Client) -> String {
    let api: Api<SelfSubjectReview> = Api::all(client.clone());
    api.create(&PostParams::default(), &SelfSubjectReview::default())
        .await
        .expect("SelfSubjectReview")
        .status
        .and_then(|s| s.user_info)
        .and_then(|u| u.username)
        .expect("a user name")
}

/// The line of the screen that contains `needle`.
fn line_with<'a>(screen: &'a str, needle: &str) -> Option<&'a str> {
    screen.lines().find(|l| l.contains(needle))
}

/// The screen's lines as their cells joined by one space, without the
/// frame and the cursor (`│ ▶ c1   True  fleet` is `c1 True fleet`).
fn rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| {
            l.split(['│', '▶', ' '])
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

/// The row whose first cell is `name`, as [`rows`] gives it; empty if none.
fn row(screen: &str, name: &str) -> String {
    rows(screen)
        .into_iter()
        .find(|l| l.split(' ').next() == Some(name))
        .unwrap_or_default()
}

/// Whether the row of the first cell of `cells` begins with `cells` (whole
/// cells: `c1 Updated` does not match `c1 UpdatedX`).
fn row_starts(screen: &str, cells: &str) -> bool {
    let name = cells.split(' ').next().unwrap_or_default();
    let row = row(screen, name);
    row == cells || row.starts_with(&format!("{cells} "))
}

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
    let console = Console::start(&ns.name, "keys:\n  board:\n    approve: A\n");
    console
        .wait_text(
            &[
                &format!("no ManagedClusters in namespace {}", ns.name),
                "engine: in-process",
            ],
            SCREEN,
        )
        .await;

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
                "values of ingress-nginx 4.11.3: controller",
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
    console
        .wait_for("the save to go through", SCREEN, |s| {
            s.contains("saved the values of ingress-nginx on ManagedCluster c2")
                || (s.contains("services (1)") && !s.contains("services[ingress-nginx]"))
        })
        .await;
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
    console.type_text(":rollouts");
    console.keys(&["Enter"]);
    console
        .wait_for("fleet revision 2 waiting for approval", SCREEN, |s| {
            line_with(s, "▶ fleet ").is_some()
                && row_starts(s, "fleet 2 WaitingForApproval 1/2 0/2")
        })
        .await;
    console.keys(&["Enter"]);
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
    console.keys(&["q"]);
    console.wait_text(&["[console exited: 0]"], SCREEN).await;
    drop(console);
    ns.cleanup().await;
    eprintln!("[{:>5.1?}] done", started.elapsed());
}
