//! The console in a terminal: the real binary in a tmux server of its own,
//! driven by keys and read back from the screen, for the tmux tests of the
//! console (`tests/e2e_console*.rs`).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use hmc_tui::api::{ClusterTemplate, ServiceTemplate};
use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::api::{Api, PostParams};

use super::cases::INSTALL;
use super::rollouts::teardown_fleet;
use super::*;

/// How long the screen may take to show what a key or a change brings.
pub const SCREEN: Duration = Duration::from_secs(30);

/// The console running in a tmux server of its own (its own socket, so
/// nothing else's sessions are touched). Dropping it kills the server; on a
/// failure it first prints the screen and the log and removes what the test
/// made (see its `Drop`).
pub struct Console {
    /// The test's namespace.
    pub ns: String,
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
    pub fn start(ns: &str, settings: &str) -> Console {
        let kubeconfig = harness_dir().join("mgmt.kubeconfig");
        Console::start_with(ns, settings, &kubeconfig, &format!("-n {ns}"))
    }

    /// The folder of the console's log and settings for the test of `ns`.
    pub fn dir_of(ns: &str) -> PathBuf {
        std::env::temp_dir().join(format!("hmc-tui-console-{ns}"))
    }

    /// The settings file the console reads and writes.
    pub fn settings_path(&self) -> PathBuf {
        self.dir.join("config/hmc-tui/config.yaml")
    }

    /// Starts `hmc-tui --kubeconfig <kubeconfig> <args>` as [`Console::start`]
    /// does; `args` are shell words.
    pub fn start_with(ns: &str, settings: &str, kubeconfig: &Path, args: &str) -> Console {
        let bin = Path::new(env!("CARGO_BIN_EXE_hmc-tui"));
        Console::start_binary(bin, ns, settings, kubeconfig, args)
    }

    /// [`Console::start_with`], running the binary `bin` (another build,
    /// to compare with).
    pub fn start_binary(
        bin: &Path,
        ns: &str,
        settings: &str,
        kubeconfig: &Path,
        args: &str,
    ) -> Console {
        Console::start_in(bin, ns, Console::dir_of(ns), settings, kubeconfig, args)
    }

    /// A second console of the test of `ns`, [`Console::start_with`] but
    /// with a log, settings and tmux server of its own (`name`), and the
    /// same lease namespace.
    pub fn start_another(
        ns: &str,
        name: &str,
        settings: &str,
        kubeconfig: &Path,
        args: &str,
    ) -> Console {
        let bin = Path::new(env!("CARGO_BIN_EXE_hmc-tui"));
        let mut dir = Console::dir_of(ns).into_os_string();
        dir.push(format!("-{name}"));
        Console::start_in(bin, ns, dir.into(), settings, kubeconfig, args)
    }

    fn start_in(
        bin: &Path,
        ns: &str,
        dir: PathBuf,
        settings: &str,
        kubeconfig: &Path,
        args: &str,
    ) -> Console {
        std::fs::create_dir_all(dir.join("config/hmc-tui")).expect("the console's folder");
        std::fs::write(dir.join("config/hmc-tui/config.yaml"), settings)
            .expect("the console's settings file");
        let socket = dir.join("tmux.sock");
        let quote = |p: &std::path::Path| format!("'{}'", p.display());
        let command = format!(
            "env HMC_LEASE_NAMESPACE={ns} XDG_STATE_HOME={state} XDG_CONFIG_HOME={config} \
             RUST_LOG=info,hmc_tui=debug,kube=warn {bin} --kubeconfig {kc} {args}; \
             echo \"[console exited: $?]\"; sleep 3600",
            state = quote(&dir.join("state")),
            config = quote(&dir.join("config")),
            bin = quote(bin),
            kc = quote(kubeconfig),
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

    /// [`Console::start`], then waits for the empty clusters screen of a
    /// new namespace, with the console's own engine leading.
    pub async fn ready(ns: &str, settings: &str) -> Console {
        let console = Console::start(ns, settings);
        console
            .wait_text(
                &[
                    &format!("no ManagedClusters in namespace {ns}"),
                    "engine: in-process",
                ],
                SCREEN,
            )
            .await;
        console
    }

    pub fn tmux(&self, args: &[&str]) -> Output {
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
    pub fn keys(&self, keys: &[&str]) {
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
    pub fn type_text(&self, text: &str) {
        let out = self.tmux(&["send-keys", "-t", &self.session, "-l", text]);
        assert!(
            out.status.success(),
            "tmux send-keys -l {text:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The screen as text.
    pub fn screen(&self) -> String {
        let out = self.tmux(&["capture-pane", "-p", "-t", &self.session]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn log_path(&self) -> PathBuf {
        self.dir.join("state/hmc-tui/hmc-tui.log")
    }

    /// The screen and the end of the console's log, for failure messages.
    pub fn report(&self) -> String {
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
    pub async fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        check: impl Fn(&str) -> bool,
    ) -> String {
        let what = format!("the screen to show {what}");
        let shown = || {
            let screen = self.screen();
            std::future::ready(check(&screen).then_some(screen))
        };
        poll_until(&what, timeout, Duration::from_millis(200), shown, || {
            self.report()
        })
        .await
    }

    /// Waits until the screen shows every one of `texts`.
    pub async fn wait_text(&self, texts: &[&str], timeout: Duration) -> String {
        self.wait_for(&format!("{texts:?}"), timeout, |s| {
            texts.iter().all(|t| s.contains(t))
        })
        .await
    }

    /// Polls the API (or a child cluster) with the screen in the failure
    /// message.
    pub async fn until<T, F, Fut>(&self, what: &str, timeout: Duration, check: F) -> T
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Option<T>>,
    {
        poll_until(what, timeout, POLL, check, || self.report()).await
    }

    /// `q`: the console exits with 0, and its tmux server goes.
    pub async fn quit(self) {
        self.keys(&["q"]);
        self.wait_text(&["[console exited: 0]"], SCREEN).await;
    }

    /// `:rollouts`, then enter on the row that reads `row` (`fleet-2 fleet
    /// 2 WaitingForApproval 1/2 0/2`) once it is selected: that rollout's
    /// board.
    pub async fn open_board(&self, row: &str) {
        self.type_text(":rollouts");
        self.keys(&["Enter"]);
        let name = row.split(' ').next().unwrap_or_default();
        self.wait_for(
            &format!("the rollouts screen with `{row}` selected"),
            SCREEN,
            |s| line_with(s, &format!("▶ {name} ")).is_some() && row_starts(s, row),
        )
        .await;
        self.keys(&["Enter"]);
    }

    /// Moves the list's cursor (`j`/`k`) to the row whose first column is
    /// `name`.
    pub async fn select_row(&self, name: &str) {
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
pub async fn tear_down(mgmt: &kube::Client, ns: &str) {
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
pub async fn whoami(client: &kube::Client) -> String {
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
pub fn line_with<'a>(screen: &'a str, needle: &str) -> Option<&'a str> {
    screen.lines().find(|l| l.contains(needle))
}

/// The screen's lines as their cells joined by one space, without the
/// frame and the cursor (`│ ▶ c1   True  fleet` is `c1 True fleet`).
pub fn rows(screen: &str) -> Vec<String> {
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
pub fn row(screen: &str, name: &str) -> String {
    rows(screen)
        .into_iter()
        .find(|l| l.split(' ').next() == Some(name))
        .unwrap_or_default()
}

/// Whether the row of the first cell of `cells` begins with `cells` (whole
/// cells: `c1 Updated` does not match `c1 UpdatedX`).
pub fn row_starts(screen: &str, cells: &str) -> bool {
    let name = cells.split(' ').next().unwrap_or_default();
    let row = row(screen, name);
    row == cells || row.starts_with(&format!("{cells} "))
}
