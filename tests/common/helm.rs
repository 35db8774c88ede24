//! The Helm CLI the harness builds (tests/harness/build.py), for the chart
//! in `assets/chart/hmc-tui`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;

use super::repo_root;

pub fn chart_dir() -> PathBuf {
    repo_root().join("assets/chart/hmc-tui")
}

/// The `helm` binary: where build.py builds it, or `HMC_HELM_BIN`.
pub fn helm_bin() -> PathBuf {
    super::harness_binary("helm")
}

/// Runs `helm args…`, whatever comes of it. With repositories of its own
/// (a file and a cache under the system's temporary directory): a
/// repository someone added to this user's Helm configuration must not
/// change what `--repo` finds.
pub fn helm_output<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    let own = std::env::temp_dir().join(format!("hmc-tui-tests-helm-{}", std::process::id()));
    Command::new(helm_bin())
        .args(args)
        .env("HELM_REPOSITORY_CONFIG", own.join("repositories.yaml"))
        .env("HELM_REPOSITORY_CACHE", own.join("repository"))
        .output()
        .expect("run helm")
}

/// Runs `helm args…`; its stdout, or a panic with its stderr.
pub fn helm<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> String {
    let out = helm_output(args);
    let shown: Vec<_> = args.iter().map(|a| a.as_ref().to_string_lossy()).collect();
    assert!(
        out.status.success(),
        "helm {shown:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `helm template <release> <chart> -n <namespace> --set …`: every object
/// the chart renders, as JSON.
pub fn template(release: &str, namespace: &str, set: &[&str]) -> Vec<serde_json::Value> {
    documents(&helm(&template_args(release, namespace, set)))
}

/// The arguments of `helm template` for [`template`].
pub fn template_args(release: &str, namespace: &str, set: &[&str]) -> Vec<String> {
    let chart = chart_dir().to_string_lossy().into_owned();
    let mut args: Vec<String> = vec!["template".into(), release.into(), chart];
    args.extend(["--namespace".into(), namespace.into()]);
    for s in set {
        args.extend(["--set".into(), s.to_string()]);
    }
    args
}

/// What `helm install` would print under NOTES (templates/NOTES.txt), for
/// release `release` in `namespace` with `--set …`, without a cluster:
/// `helm install --dry-run` insists on reaching one and `helm template`
/// leaves the notes out, so a copy of the chart renders them with `tpl`
/// into a ConfigMap that `helm template` prints.
pub fn notes(release: &str, namespace: &str, set: &[&str]) -> String {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap() {
            let path = entry.unwrap().path();
            let dest = to.join(path.file_name().unwrap());
            // Follows the CRDs' symbolic link, as helm does.
            if path.is_dir() {
                copy(&path, &dest);
            } else {
                std::fs::copy(&path, &dest).unwrap();
            }
        }
    }
    let dir = std::env::temp_dir().join(format!("hmc-tui-notes-{}-{release}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    copy(&chart_dir(), &dir);
    std::fs::rename(dir.join("templates/NOTES.txt"), dir.join("notes.txt")).unwrap();
    std::fs::write(
        dir.join("templates/notes.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\n\
         data:\n  notes: {{ tpl (.Files.Get \"notes.txt\") . | toJson }}\n",
    )
    .unwrap();
    let mut args = template_args(release, namespace, set);
    args[2] = dir.to_string_lossy().into_owned();
    args.extend(["--show-only".into(), "templates/notes.yaml".into()]);
    let out = documents(&helm(&args));
    let _ = std::fs::remove_dir_all(&dir);
    out[0]["data"]["notes"].as_str().unwrap().to_string()
}

/// The objects of a YAML stream (empty documents left out).
pub fn documents(yaml: &str) -> Vec<serde_json::Value> {
    serde_yaml::Deserializer::from_str(yaml)
        .map(|doc| serde_json::Value::deserialize(doc).expect("yaml"))
        .filter(|v| !v.is_null())
        .collect()
}

/// Packages the chart into `dir`; the path of the .tgz.
pub fn package(dir: &Path) -> PathBuf {
    let chart = chart_dir();
    let out = helm(&[
        "package".as_ref(),
        chart.as_os_str(),
        "--destination".as_ref(),
        dir.as_os_str(),
    ]);
    // "Successfully packaged chart and saved it to: <path>"
    PathBuf::from(out.trim().rsplit(": ").next().unwrap())
}

/// A chart repository on loopback: `helm repo index` of `dir`, served by
/// a plain file server for as long as it lives.
pub struct ChartRepo {
    pub port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl ChartRepo {
    /// Packages the chart into `dir`, indexes it and serves it.
    pub async fn serve_chart(dir: PathBuf) -> Self {
        std::fs::create_dir_all(&dir).unwrap();
        package(&dir);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        helm(&[
            "repo".as_ref(),
            "index".as_ref(),
            dir.as_os_str(),
            "--url".as_ref(),
            format!("http://127.0.0.1:{port}").as_ref(),
        ]);
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let dir = dir.clone();
                tokio::spawn(async move {
                    let _ = serve_file(socket, &dir).await;
                });
            }
        });
        Self { port, task }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for ChartRepo {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Answers one GET for a file directly in `dir`; anything else is a 404.
async fn serve_file(mut socket: tokio::net::TcpStream, dir: &Path) -> std::io::Result<()> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
        let n = socket.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&head);
    let path = head
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("GET "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_default();
    let name = path.trim_start_matches('/');
    let body = (!name.is_empty() && !name.contains('/') && !name.contains(".."))
        .then(|| std::fs::read(dir.join(name)).ok())
        .flatten();
    let (status, body) = match body {
        Some(b) => ("200 OK", b),
        None => ("404 Not Found", b"not found\n".to_vec()),
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\nConnection: close\r\n\r\n",
        body.len()
    );
    socket.write_all(reply.as_bytes()).await?;
    socket.write_all(&body).await?;
    socket.shutdown().await
}
