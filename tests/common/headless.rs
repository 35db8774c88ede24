//! The real binary as a headless engine (`hmc-tui --reconcile`), scoped to a
//! test's namespace and competing for a lease of its own there.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use super::*;

pub struct Headless {
    pub child: Child,
    pub port: u16,
    pub log: PathBuf,
}

impl Headless {
    /// Starts `hmc-tui --reconcile -n <ns>` with the lease in `ns` and
    /// /metrics on `port`; its JSON log goes to a file named after both.
    pub fn spawn(ns: &str, port: u16) -> Self {
        Self::spawn_with(ns, port, &harness_dir().join("mgmt.kubeconfig"), ns)
    }

    /// As [`spawn`](Self::spawn), with another kubeconfig (other
    /// credentials) and the lease in `lease_namespace`.
    pub fn spawn_with(
        ns: &str,
        port: u16,
        kubeconfig: &std::path::Path,
        lease_namespace: &str,
    ) -> Self {
        Self::start(Some(ns), port, kubeconfig, lease_namespace, &[])
    }

    /// `hmc-tui --reconcile`, scoped to `scope` (`None`: every namespace),
    /// with the lease in `lease_namespace` and more environment in `env`.
    pub fn start(
        scope: Option<&str>,
        port: u16,
        kubeconfig: &std::path::Path,
        lease_namespace: &str,
        env: &[(&str, &str)],
    ) -> Self {
        let name = scope.unwrap_or("all-namespaces");
        let mut args = vec!["--reconcile".to_string()];
        if let Some(ns) = scope {
            args.extend(["-n".into(), ns.into()]);
        }
        let mut env = env.to_vec();
        env.insert(0, ("HMC_LEASE_NAMESPACE", lease_namespace));
        Self::start_args(name, args, port, kubeconfig, &env)
    }

    /// `hmc-tui <args>` with the kubeconfig, /metrics on `port` and `env`;
    /// its log goes to a file named after `name` and the port.
    pub fn start_args(
        name: &str,
        args: Vec<String>,
        port: u16,
        kubeconfig: &std::path::Path,
        env: &[(&str, &str)],
    ) -> Self {
        Self::start_under(&[], name, args, port, kubeconfig, env)
    }

    /// As [`start_args`](Self::start_args), run by `wrapper` (a program and
    /// its arguments, e.g. `heaptrack`) when it is not empty.
    pub fn start_under(
        wrapper: &[&str],
        name: &str,
        mut args: Vec<String>,
        port: u16,
        kubeconfig: &std::path::Path,
        env: &[(&str, &str)],
    ) -> Self {
        let log = std::env::temp_dir().join(format!("hmc-tui-{name}-{port}.log"));
        let file = std::fs::File::create(&log).expect("create the engine's log file");
        args.extend([
            "--kubeconfig".into(),
            kubeconfig.to_str().unwrap().into(),
            "--metrics-addr".into(),
            format!("127.0.0.1:{port}"),
        ]);
        let binary = env!("CARGO_BIN_EXE_hmc-tui");
        let mut command = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(binary);
                c
            }
            None => Command::new(binary),
        };
        let child = command
            .args(args)
            .env(
                "RUST_LOG",
                std::env::var("HMC_TEST_ENGINE_LOG").unwrap_or_else(|_| "info,kube=warn".into()),
            )
            .envs(env.iter().copied())
            .stdout(Stdio::from(file.try_clone().unwrap()))
            .stderr(Stdio::from(file))
            .kill_on_drop(true)
            .spawn()
            .expect("start hmc-tui --reconcile");
        Self { child, port, log }
    }

    /// The body of one of its endpoints, with the status code.
    pub async fn get(&self, path: &str) -> Option<(u16, String)> {
        http_get(self.port, path).await
    }

    /// The value of an unlabelled metric, or the sum over a labelled one.
    pub async fn metric(&self, name: &str) -> Option<f64> {
        let (_, text) = self.get("/metrics").await?;
        hmc_tui::engine::metrics::metric(&text, name)
    }

    pub async fn is_leader(&self) -> Option<bool> {
        self.metric("hmc_engine_leader").await.map(|v| v == 1.0)
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends SIGTERM and waits for the exit; the exit status and how long
    /// it took.
    pub async fn terminate(mut self) -> (std::process::ExitStatus, Duration) {
        let pid = self.child.id().expect("running") as i32;
        let start = std::time::Instant::now();
        // SAFETY-free: plain kill(2) through the `kill` command.
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .await;
        let status = tokio::time::timeout(Duration::from_secs(60), self.child.wait())
            .await
            .expect("exits within 60 s of SIGTERM")
            .expect("wait for the engine");
        (status, start.elapsed())
    }
}

/// The `reportingInstance` of the engine's Events in `ns` (the engines are
/// told apart by `POD_NAME`, which the engine reports as its instance).
pub async fn reporters(mgmt: &kube::Client, ns: &str) -> std::collections::BTreeSet<String> {
    let api: kube::Api<k8s_openapi::api::events::v1::Event> =
        kube::Api::namespaced(mgmt.clone(), ns);
    let list = api
        .list(&kube::api::ListParams::default().fields("reportingController=hmc-tui"))
        .await
        .expect("list events");
    list.items
        .into_iter()
        .map(|e| e.reporting_instance.unwrap_or_default())
        .collect()
}

/// A plain HTTP/1.0 GET on loopback.
pub async fn http_get(port: u16, path: &str) -> Option<(u16, String)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::time::timeout(
        Duration::from_secs(2),
        tokio::net::TcpStream::connect(("127.0.0.1", port)),
    )
    .await
    .ok()?
    .ok()?;
    s.write_all(format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n").as_bytes())
        .await
        .ok()?;
    let mut buf = String::new();
    tokio::time::timeout(Duration::from_secs(5), s.read_to_string(&mut buf))
        .await
        .ok()?
        .ok()?;
    let (head, body) = buf.split_once("\r\n\r\n")?;
    let code = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((code, body.to_string()))
}

/// Runs the harness script with `args`.
pub async fn harness(args: &[&str]) {
    let out = Command::new(repo_root().join("tests/harness/harness"))
        .args(args)
        .output()
        .await
        .expect("run the harness");
    assert!(
        out.status.success(),
        "harness {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
