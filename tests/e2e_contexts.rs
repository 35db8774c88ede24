//! Two management contexts in one console, end to end: the real console in
//! tmux, started with `--context east,west`. Both contexts reach the
//! harness's management cluster, each with its own namespace and its own
//! identity (`east` the harness's admin, `west` the engine's
//! ServiceAccount), and `west` through a TCP proxy the test runs, so that
//! it can be made unreachable. The lists show both contexts' objects with a
//! CONTEXT column; an approval on `west`'s board is written by `west`'s
//! identity to `west`'s rollout only; once `west` cannot be reached, the
//! header and banner say so while `east` keeps updating; `:ctx -west`
//! closes it, opening it again is refused while it cannot be reached, and
//! `:ctx +name` opens another.

mod common;

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use common::accounts::{apply_deploy_rbac, service_account_kubeconfig};
use common::cases::managed_cluster_from;
use common::console::*;
use common::*;
use hmc_tui::api::{
    ClusterRolloutState, ClusterRolloutStatus, RolloutPhase, TemplateRollout,
    TemplateRolloutStatus, WaveState, WaveStatus, labels,
};
use kube::api::{Api, Patch, PatchParams, PostParams};
use serde_json::json;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A TCP proxy on loopback to the harness's API server; dropping its
/// tasks (`kill`) makes whoever uses it unable to reach the server.
struct Proxy {
    port: u16,
    tasks: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl Proxy {
    async fn start(upstream: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let port = listener.local_addr().unwrap().port();
        let tasks: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let conns = tasks.clone();
        let accept = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let conn = tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                conns.lock().unwrap().push(conn);
            }
        });
        tasks.lock().unwrap().push(accept);
        Proxy { port, tasks }
    }

    /// Stops listening and cuts every connection.
    fn kill(&self) {
        for task in self.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

/// The harness's API server as `host:port`, and its kubeconfig.
fn harness_server() -> (String, serde_json::Value) {
    let text = std::fs::read_to_string(harness_dir().join("mgmt.kubeconfig")).unwrap();
    let kc: serde_json::Value = serde_json::from_str(&text).expect("the harness's kubeconfig");
    let server = kc["clusters"][0]["cluster"]["server"]
        .as_str()
        .expect("a server")
        .trim_start_matches("https://")
        .to_string();
    (server, kc)
}

/// A kubeconfig with contexts `east` (the harness's admin, namespace `a`),
/// `west` (the engine's ServiceAccount through the proxy on `port`,
/// namespace `b`) and `north` (the admin, namespace `b`).
fn kubeconfig(path: &Path, sa_kubeconfig: &Path, port: u16, a: &str, b: &str) {
    let (_, admin) = harness_server();
    let sa: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sa_kubeconfig).unwrap()).unwrap();
    let mut proxied = admin["clusters"][0].clone();
    proxied["name"] = json!("proxied");
    proxied["cluster"]["server"] = json!(format!("https://127.0.0.1:{port}"));
    let admin_user = admin["contexts"][0]["context"]["user"].clone();
    let sa_user = sa["users"][0]["name"].clone();
    let mut users = admin["users"].as_array().unwrap().clone();
    users.extend(sa["users"].as_array().unwrap().iter().cloned());
    let config = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [admin["clusters"][0].clone(), proxied],
        "users": users,
        "contexts": [
            {"name": "east", "context": {"cluster": "mgmt", "user": admin_user, "namespace": a}},
            {"name": "west", "context": {"cluster": "proxied", "user": sa_user, "namespace": b}},
            {"name": "north", "context": {"cluster": "mgmt", "user": admin_user, "namespace": b}},
        ],
        "current-context": "east",
    });
    std::fs::write(path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
}

/// Revision 2 of template `fleet` in `ns`, its first wave waiting for
/// approval, as the engine would leave it.
async fn waiting_rollout(mgmt: &kube::Client, ns: &str, cluster: &str) {
    let api: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), ns);
    let rollout: TemplateRollout = serde_json::from_value(json!({
        "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "TemplateRollout",
        "metadata": {"name": "fleet-2"},
        "spec": {"template": "fleet", "revision": 2},
    }))
    .unwrap();
    api.create(&PostParams::default(), &rollout)
        .await
        .expect("create the rollout");
    let status = TemplateRolloutStatus {
        phase: RolloutPhase::WaitingForApproval,
        message: Some("wave 1 waits for approval".into()),
        waves: vec![WaveStatus {
            number: 1,
            state: WaveState::WaitingForApproval,
            ..Default::default()
        }],
        clusters: vec![ClusterRolloutStatus {
            name: cluster.into(),
            wave: 1,
            state: ClusterRolloutState::Waiting,
            from_revision: Some(1),
            ..Default::default()
        }],
        wave_summary: Some("1/1".into()),
        updated_summary: Some("0/1".into()),
        ..Default::default()
    };
    api.patch_status(
        "fleet-2",
        &PatchParams::default(),
        &Patch::Merge(json!({ "status": status })),
    )
    .await
    .expect("the rollout's status");
}

/// The request annotations of `ns`'s rollout: what was asked, by whom.
async fn request_of(mgmt: &kube::Client, ns: &str) -> (Option<String>, Option<String>) {
    let api: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), ns);
    let r = api.get("fleet-2").await.expect("the rollout");
    let a = r.metadata.annotations.unwrap_or_default();
    (
        a.get(labels::REQUEST).cloned(),
        a.get(labels::REQUESTED_BY).cloned(),
    )
}

/// The header line.
fn header(screen: &str) -> &str {
    screen.lines().next().unwrap_or_default()
}

/// Whether a row reads `context … name` (CONTEXT first, then the
/// namespace when all are shown, then the name).
fn listed(screen: &str, context: &str, name: &str) -> bool {
    rows(screen).iter().any(|r| {
        let cells: Vec<&str> = r.split_whitespace().collect();
        cells.first() == Some(&context) && cells.iter().take(3).any(|c| *c == name)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_contexts_side_by_side() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let a = TestNamespace::create(&mgmt, "ctx-east").await;
    let b = TestNamespace::create(&mgmt, "ctx-west").await;
    apply_deploy_rbac(&mgmt).await;
    managed_cluster_from(&mgmt, &a.name, "in-east", "fleet", json!([])).await;
    managed_cluster_from(&mgmt, &b.name, "in-west", "fleet", json!([])).await;
    waiting_rollout(&mgmt, &a.name, "in-east").await;
    waiting_rollout(&mgmt, &b.name, "in-west").await;

    let (server, _) = harness_server();
    let proxy = Proxy::start(server).await;
    let dir = Console::dir_of(&a.name);
    std::fs::create_dir_all(&dir).unwrap();
    let sa_kubeconfig = dir.join("sa.kubeconfig");
    service_account_kubeconfig(&mgmt, "hmc-system", "hmc-tui", &sa_kubeconfig).await;
    let path = dir.join("kubeconfig");
    kubeconfig(&path, &sa_kubeconfig, proxy.port, &a.name, &b.name);
    let sa_user = whoami(&client_for(sa_kubeconfig.clone()).await).await;
    let admin = whoami(&mgmt).await;
    assert_ne!(sa_user, admin, "two identities");

    // 1. Both contexts, each in its own namespace: a CONTEXT column, and
    // the header names both.
    let console = Console::start_with(&a.name, "", &path, "--context east,west --no-engine");
    let screen = console
        .wait_for("both contexts' clusters", SCREEN, |s| {
            listed(s, "east", "in-east") && listed(s, "west", "in-west")
        })
        .await;
    assert!(screen.contains("CONTEXT"), "{screen}");
    assert!(header(&screen).contains("context: east +west"), "{screen}");
    eprintln!("[{:>5.1?}] both contexts listed", started.elapsed());

    // 2. An approval on west's board is west's: its rollout, its identity;
    // east's rollout of the same name is untouched.
    console.type_text(":rollouts");
    console.keys(&["Enter"]);
    console
        .wait_for("both rollouts", SCREEN, |s| {
            listed(s, "east", "fleet-2") && listed(s, "west", "fleet-2")
        })
        .await;
    // The rows are by namespace, then context: east's first.
    console.keys(&["j"]);
    console
        .wait_for("west's rollout selected", SCREEN, |s| {
            s.lines().any(|l| l.contains('▶') && l.contains(" west "))
        })
        .await;
    console.keys(&["Enter"]);
    console.wait_text(&["waits for approval"], SCREEN).await;
    console.keys(&["a"]);
    let (asked, by) = console
        .until("west's rollout to carry the approval", SCREEN, || async {
            let (asked, by) = request_of(&mgmt, &b.name).await;
            asked.map(|a| (a, by))
        })
        .await;
    assert!(asked.starts_with("approve"), "{asked}");
    assert_eq!(by.as_deref(), Some(sa_user.as_str()), "west's identity");
    // The answer names the context the rollout is in.
    console
        .wait_text(&["asked: approve", "context west)"], SCREEN)
        .await;
    assert_eq!(
        request_of(&mgmt, &a.name).await,
        (None, None),
        "east's rollout is untouched"
    );
    eprintln!("[{:>5.1?}] approved through west", started.elapsed());
    console.keys(&["Escape"]);
    console.type_text(":clusters");
    console.keys(&["Enter"]);

    // 3. West cannot be reached: the header and the banner say so, its
    // rows stay, and east keeps updating.
    proxy.kill();
    let screen = console
        .wait_for("west unreachable", SCREEN, |s| {
            header(s).contains("+west ✗ unreachable") && s.contains("context west: cannot reach")
        })
        .await;
    assert!(listed(&screen, "west", "in-west"), "{screen}");
    managed_cluster_from(&mgmt, &a.name, "late-east", "fleet", json!([])).await;
    console
        .wait_for("east's new cluster", SCREEN, |s| {
            listed(s, "east", "late-east") && listed(s, "east", "in-east")
        })
        .await;
    eprintln!(
        "[{:>5.1?}] east updates while west is down",
        started.elapsed()
    );

    // 4. `:ctx -west` closes it: one context, no CONTEXT column; `:ctx
    // +north` opens another (the admin, in west's namespace).
    console.type_text(":ctx -west");
    console.keys(&["Enter"]);
    let screen = console
        .wait_for("west closed", SCREEN, |s| {
            !s.contains("CONTEXT") && !header(s).contains("+west") && s.contains("late-east")
        })
        .await;
    assert!(!screen.contains("in-west"), "{screen}");
    // West's server is still out of reach: opening it again is refused in
    // one line, and nothing else changes.
    console.type_text(":ctx +west");
    console.keys(&["Enter"]);
    let screen = console
        .wait_text(&["cannot open context west: "], SCREEN)
        .await;
    assert!(!header(&screen).contains("+west"), "{screen}");
    assert!(screen.contains("late-east"), "{screen}");
    console.type_text(":ctx +north");
    console.keys(&["Enter"]);
    let screen = console
        .wait_for("north open", SCREEN, |s| {
            listed(s, "north", "in-west") && listed(s, "east", "late-east")
        })
        .await;
    assert!(header(&screen).contains("+north"), "{screen}");
    eprintln!("[{:>5.1?}] :ctx -west, :ctx +north", started.elapsed());

    console.quit().await;
    a.cleanup().await;
    b.cleanup().await;
}
