//! A TCP proxy on loopback between an engine and the harness's API server,
//! that can cut the engine off: while cut, it holds every connection open
//! and passes nothing (as a network partition does, not as a refusal
//! would); when the cut heals, the connections held through it are closed
//! and new ones pass again.
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct Proxy {
    pub addr: SocketAddr,
    cut: watch::Sender<bool>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// A proxy to `upstream` (`host:port`).
    pub async fn start(upstream: String) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("address");
        let (cut, cut_rx) = watch::channel(false);
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(connection(client, upstream.clone(), cut_rx.clone()));
            }
        });
        Self { addr, cut, task }
    }

    /// Nothing passes from now on.
    pub fn cut(&self) {
        self.cut.send_replace(true);
    }

    /// Traffic passes again.
    pub fn heal(&self) {
        self.cut.send_replace(false);
    }

    /// A copy of the kubeconfig at `from` (JSON, as the harness writes
    /// them) whose server is this proxy, written to `to`.
    pub fn kubeconfig(&self, from: &Path, to: &Path) -> String {
        let mut config: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(from).expect("read the kubeconfig"))
                .expect("a JSON kubeconfig");
        let server = config["clusters"][0]["cluster"]["server"]
            .as_str()
            .expect("a server")
            .to_string();
        config["clusters"][0]["cluster"]["server"] = format!("https://{}", self.addr).into();
        std::fs::write(to, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
        server
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// `host:port` of an `https://host:port` URL.
pub fn host_port(url: &str) -> String {
    url.trim_start_matches("https://")
        .trim_end_matches('/')
        .to_string()
}

async fn connection(client: TcpStream, upstream: String, mut cut: watch::Receiver<bool>) {
    let held = *cut.borrow();
    if held {
        // Accepted during the cut: held open, nothing passes, closed when
        // the cut heals.
        let _ = cut.wait_for(|c| !*c).await;
        return;
    }
    let Ok(server) = TcpStream::connect(&upstream).await else {
        return;
    };
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    tokio::select! {
        _ = pump(client_read, server_write, cut.clone()) => {}
        _ = pump(server_read, client_write, cut) => {}
    }
}

/// Copies `from` to `to` until either ends or a cut begins; through a cut
/// it holds both open and passes nothing, and ends when the cut heals.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    mut cut: watch::Receiver<bool>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let now_cut = cut.clone();
    loop {
        tokio::select! {
            read = from.read(&mut buf) => {
                let n = match read {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                let is_cut = *now_cut.borrow();
                if is_cut {
                    break;
                }
                if to.write_all(&buf[..n]).await.is_err() {
                    return;
                }
            }
            // Its output (a borrow of the flag) must not live in the
            // select's state: that would make the task not Send.
            _ = async { cut.wait_for(|c| *c).await.is_ok() } => break,
        }
    }
    let _ = cut.wait_for(|c| !*c).await;
}
