//! Reads a chart archive produced by the chart source: its Chart.yaml and
//! values.yaml. Inside a cluster the archive's address is reachable directly;
//! from a laptop it is not, so an in-cluster address goes through the API
//! server's service proxy.

use std::collections::BTreeMap;
use std::io::Read;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, Empty};
use hyper::body::Body;
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use thiserror::Error;

use super::requests::{BoundedByCaller, seconds};

/// Charts larger than this are refused rather than read into memory.
pub const MAX_ARCHIVE: usize = 32 * 1024 * 1024;
/// A chart download, from the request's start to its last byte, takes at
/// most this long.
pub const DOWNLOAD_DEADLINE: Duration = Duration::from_secs(60);

/// How much a download may take: time and bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DownloadLimits {
    pub deadline: Duration,
    pub max_bytes: usize,
}

impl Default for DownloadLimits {
    fn default() -> Self {
        Self {
            deadline: DOWNLOAD_DEADLINE,
            max_bytes: MAX_ARCHIVE,
        }
    }
}

#[derive(Error, Debug)]
pub enum ArtifactError {
    #[error("cannot download chart from {url}: {reason}")]
    Download { url: String, reason: String },
    #[error("chart download from {url} did not finish within {}", seconds(.deadline))]
    Deadline { url: String, deadline: Duration },
    #[error("chart archive from {url} is larger than {}, the most a chart may be", size(*.max_bytes))]
    TooLarge { url: String, max_bytes: usize },
    #[error("digest mismatch: expected {expected}, got {actual}")]
    Digest { expected: String, actual: String },
    #[error(
        "the chart source states the digest {digest}, which cannot be checked here (only {DIGEST_ALGORITHMS}), so the chart is not used; have source-controller publish sha256 digests (--artifact-digest-algo=sha256)"
    )]
    UnknownDigest { digest: String },
    #[error("not a valid chart: {0}")]
    InvalidChart(String),
}

/// `32 MiB`, `512 KiB`, `100 bytes`.
fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// What the engine needs from a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartInfo {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub values: Value,
    /// The chart's annotations whose values are strings (as Helm reads
    /// them), e.g. `hmc.mirantis.com/k8s-version`.
    pub annotations: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct ChartYaml {
    name: String,
    version: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    annotations: Option<BTreeMap<String, serde_yaml::Value>>,
}

/// Downloads, verifies and reads one chart archive.
pub async fn fetch_chart(
    client: &kube::Client,
    url: &str,
    digest: &str,
) -> Result<ChartInfo, ArtifactError> {
    let in_cluster = std::env::var_os("KUBERNETES_SERVICE_HOST").is_some();
    let bytes = download(client, url, in_cluster, DownloadLimits::default()).await?;
    verify_digest(&bytes, digest)?;
    read_chart(&bytes)
}

/// Downloads `url` within `limits`: the whole exchange, headers and body,
/// ends by the deadline, and reading stops as soon as more than the most
/// bytes allowed have arrived. Inside a cluster the address is used as it
/// is; outside, an in-cluster address goes through the API server's
/// service proxy.
pub async fn download(
    client: &kube::Client,
    url: &str,
    in_cluster: bool,
    limits: DownloadLimits,
) -> Result<Bytes, ArtifactError> {
    let fail = |reason: String| ArtifactError::Download {
        url: url.to_string(),
        reason,
    };
    let uri: http::Uri = url.parse().map_err(|e| fail(format!("{e}")))?;
    let exchange = async {
        if let (false, Some(proxy)) = (in_cluster, service_proxy_path(&uri)) {
            let mut req = http::Request::get(proxy)
                .body(kube::client::Body::empty())
                .map_err(|e| fail(e.to_string()))?;
            // Bounded below, with a deadline of its own and its own words.
            req.extensions_mut().insert(BoundedByCaller);
            let resp = client.send(req).await.map_err(|e| fail(e.to_string()))?;
            read_body(url, resp, limits.max_bytes).await
        } else {
            let http: HttpClient<_, Empty<Bytes>> =
                HttpClient::builder(TokioExecutor::new()).build_http();
            let resp = http.get(uri).await.map_err(|e| fail(e.to_string()))?;
            read_body(url, resp, limits.max_bytes).await
        }
    };
    tokio::time::timeout(limits.deadline, exchange)
        .await
        .map_err(|_| ArtifactError::Deadline {
            url: url.to_string(),
            deadline: limits.deadline,
        })?
}

/// Reads a response's body, frame by frame, up to `max_bytes`: a body that
/// says or turns out to be larger is refused without reading the rest.
async fn read_body<B>(
    url: &str,
    resp: http::Response<B>,
    max_bytes: usize,
) -> Result<Bytes, ArtifactError>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    let fail = |reason: String| ArtifactError::Download {
        url: url.to_string(),
        reason,
    };
    let too_large = || ArtifactError::TooLarge {
        url: url.to_string(),
        max_bytes,
    };
    if !resp.status().is_success() {
        return Err(fail(format!("HTTP {}", resp.status())));
    }
    let announced = resp
        .headers()
        .get(http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    let mut body = resp.into_body();
    if announced.unwrap_or_default().max(body.size_hint().lower()) > max_bytes as u64 {
        return Err(too_large());
    }
    let mut bytes = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| fail(e.to_string()))?;
        if let Ok(data) = frame.into_data() {
            if bytes.len() + data.len() > max_bytes {
                return Err(too_large());
            }
            bytes.extend_from_slice(&data);
        }
    }
    Ok(bytes.freeze())
}

/// `http://svc.ns.svc.cluster.local./a/b` -> the API server's proxy path for
/// that service, or `None` for an address outside the cluster.
pub fn service_proxy_path(uri: &http::Uri) -> Option<String> {
    let host = uri.host()?.trim_end_matches('.');
    let rest = host
        .strip_suffix(".svc.cluster.local")
        .or_else(|| host.strip_suffix(".svc"))?;
    let (svc, ns) = rest.split_once('.')?;
    if svc.is_empty() || ns.is_empty() || ns.contains('.') {
        return None;
    }
    let scheme = uri.scheme_str().unwrap_or("http");
    let port = uri
        .port_u16()
        .unwrap_or(if scheme == "https" { 443 } else { 80 });
    let path = uri.path_and_query().map(|p| p.as_str()).unwrap_or("/");
    Some(format!(
        "/api/v1/namespaces/{ns}/services/{scheme}:{svc}:{port}/proxy{path}"
    ))
}

/// The namespace whose chart source an artifact address belongs to: the
/// source controller serves each artifact at `/<kind>/<namespace>/<name>/…`.
/// `None` for an address of another form.
pub fn artifact_namespace(url: &str) -> Option<String> {
    const KINDS: &[&str] = &[
        "helmchart",
        "helmrepository",
        "ocirepository",
        "gitrepository",
        "bucket",
        "externalartifact",
    ];
    let uri: http::Uri = url.parse().ok()?;
    let mut segments = uri.path().split('/').filter(|s| !s.is_empty());
    let kind = segments.next()?;
    let ns = segments.next()?;
    (KINDS.contains(&kind) && segments.next().is_some()).then(|| ns.to_string())
}

/// The digest algorithms a chart artifact may be checked with: what
/// source-controller's `--artifact-digest-algo` offers, less BLAKE3.
const DIGEST_ALGORITHMS: &str = "sha256, sha384 or sha512";

/// Checks `bytes` against `<algorithm>:<hex>` (what chart sources publish)
/// or a bare sha256 hex digest. Fails closed: a digest of an algorithm this
/// engine cannot compute refuses the artifact, as a mismatch does.
pub fn verify_digest(bytes: &[u8], expected: &str) -> Result<(), ArtifactError> {
    use sha2::{Sha384, Sha512};
    let (algorithm, hex_expected) = expected.split_once(':').unwrap_or(("sha256", expected));
    let actual = match algorithm {
        "sha256" => hex::encode(Sha256::digest(bytes)),
        "sha384" => hex::encode(Sha384::digest(bytes)),
        "sha512" => hex::encode(Sha512::digest(bytes)),
        _ => {
            return Err(ArtifactError::UnknownDigest {
                // Bounded: the digest is what the source's status says.
                digest: expected.chars().take(80).collect(),
            });
        }
    };
    if !hex_expected.eq_ignore_ascii_case(&actual) {
        return Err(ArtifactError::Digest {
            expected: expected.to_string(),
            actual: format!("{algorithm}:{actual}"),
        });
    }
    Ok(())
}

/// Reads `<chart>/Chart.yaml` and `<chart>/values.yaml` from a `.tgz`.
pub fn read_chart(archive: &[u8]) -> Result<ChartInfo, ArtifactError> {
    let invalid = |m: String| ArtifactError::InvalidChart(m);
    let [chart_yaml, values_yaml] = read_top_files(archive, ["Chart.yaml", "values.yaml"])?;
    let chart_yaml = chart_yaml.ok_or_else(|| invalid("the archive has no Chart.yaml".into()))?;
    let limits = &crate::plan::yaml::Limits::CHART;
    let meta: ChartYaml = crate::plan::yaml::from_str(&chart_yaml, limits)
        .map_err(|e| invalid(format!("Chart.yaml: {e}")))?;
    let values =
        crate::plan::values::parse_values_within(values_yaml.as_deref().unwrap_or(""), limits)
            .map_err(|e| invalid(format!("values.yaml: {e}")))?;
    Ok(ChartInfo {
        name: meta.name,
        version: meta.version,
        description: meta.description,
        values,
        annotations: meta
            .annotations
            .unwrap_or_default()
            .into_iter()
            .filter_map(|(k, v)| Some((k, v.as_str()?.to_string())))
            .collect(),
    })
}

/// The chart's own top-level files of these names from a `.tgz` (not its
/// subcharts'), each read up to one byte past the size limit of chart files
/// (enough for the parser to say it is too large); `None` for a file the
/// archive does not have. The first of each name counts.
pub fn read_top_files<const N: usize>(
    archive: &[u8],
    names: [&str; N],
) -> Result<[Option<String>; N], ArtifactError> {
    let invalid = |m: String| ArtifactError::InvalidChart(m);
    let mut found: [Option<String>; N] = std::array::from_fn(|_| None);
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    for entry in tar.entries().map_err(|e| invalid(e.to_string()))? {
        let mut entry = entry.map_err(|e| invalid(e.to_string()))?;
        let path = entry
            .path()
            .map_err(|e| invalid(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        let mut parts = path.split('/');
        let (Some(_top), Some(file), None) = (parts.next(), parts.next(), parts.next()) else {
            continue; // only the chart's own top-level files, not subcharts
        };
        let Some(slot) = names.iter().position(|n| *n == file).map(|i| &mut found[i]) else {
            continue;
        };
        if slot.is_some() {
            continue; // one chart per archive: the first of each file counts
        }
        let mut text = String::new();
        entry
            .by_ref()
            .take(crate::plan::yaml::Limits::CHART.bytes as u64 + 1)
            .read_to_string(&mut text)
            .map_err(|e| invalid(format!("{path}: {e}")))?;
        *slot = Some(text);
    }
    Ok(found)
}

/// Loopback servers that misbehave, for the tests of downloads and of the
/// client's deadlines.
#[cfg(test)]
pub(crate) mod hostile {
    use std::net::SocketAddr;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    /// How the server answers every connection.
    #[derive(Clone, Debug)]
    pub enum Behaviour {
        /// Accepts, reads nothing, never answers.
        Silent,
        /// Sends headers, then one byte of body every 20 ms, forever.
        Trickle,
        /// Sends headers, then a body without end, as fast as it is read.
        Endless,
        /// Sends headers announcing this many bytes of body, then nothing.
        Announces(u64),
        /// Answers 200 with this body.
        Serves(Vec<u8>),
    }

    pub struct Server {
        pub addr: SocketAddr,
        /// Bytes of body sent so far, all connections together.
        pub sent: Arc<AtomicU64>,
        /// Set once a client closed a connection the server was writing to.
        pub closed: Arc<AtomicBool>,
        task: tokio::task::JoinHandle<()>,
    }

    impl Drop for Server {
        fn drop(&mut self) {
            self.task.abort();
        }
    }

    impl Server {
        pub fn url(&self, path: &str) -> String {
            format!("http://{}{path}", self.addr)
        }
    }

    pub async fn start(behaviour: Behaviour) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let sent = Arc::new(AtomicU64::new(0));
        let closed = Arc::new(AtomicBool::new(false));
        let (s, c) = (sent.clone(), closed.clone());
        let task = tokio::spawn(async move {
            // Held, not dropped: a silent server keeps its sockets open.
            let mut held = Vec::new();
            let mut conns = tokio::task::JoinSet::new();
            while let Ok((socket, _)) = listener.accept().await {
                if let Behaviour::Silent = behaviour {
                    held.push(socket);
                    continue;
                }
                let (b, s, c) = (behaviour.clone(), s.clone(), c.clone());
                conns.spawn(async move {
                    if serve(socket, b, &s).await.is_err() {
                        c.store(true, Ordering::SeqCst);
                    }
                });
            }
        });
        Server {
            addr,
            sent,
            closed,
            task,
        }
    }

    async fn serve(mut socket: TcpStream, b: Behaviour, sent: &AtomicU64) -> std::io::Result<()> {
        let mut request = Vec::new();
        let mut buf = [0u8; 4096];
        while !request.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buf).await?;
            if n == 0 {
                return Ok(());
            }
            request.extend_from_slice(&buf[..n]);
        }
        let chunked = "HTTP/1.1 200 OK\r\nContent-Type: application/gzip\r\nTransfer-Encoding: chunked\r\n\r\n";
        match b {
            Behaviour::Silent => std::future::pending().await,
            Behaviour::Trickle => {
                socket.write_all(chunked.as_bytes()).await?;
                loop {
                    socket.write_all(b"1\r\nx\r\n").await?;
                    sent.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            }
            Behaviour::Endless => {
                socket.write_all(chunked.as_bytes()).await?;
                let chunk = [b'x'; 64 * 1024];
                loop {
                    socket.write_all(b"10000\r\n").await?;
                    socket.write_all(&chunk).await?;
                    socket.write_all(b"\r\n").await?;
                    sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
                }
            }
            Behaviour::Announces(n) => {
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {n}\r\n\r\n");
                socket.write_all(head.as_bytes()).await?;
                std::future::pending().await
            }
            Behaviour::Serves(body) => {
                let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len());
                socket.write_all(head.as_bytes()).await?;
                socket.write_all(&body).await?;
                sent.fetch_add(body.len() as u64, Ordering::SeqCst);
                // Keep the connection until the client is done with it.
                let _ = socket.read(&mut buf).await;
                Ok(())
            }
        }
    }

    /// Asserts that what took `took` ended at `deadline`, not before, and
    /// not much after.
    pub fn ended_at(took: Duration, deadline: Duration) {
        assert!(
            took >= deadline && took < deadline + Duration::from_secs(3),
            "took {took:?} for a deadline of {deadline:?}"
        );
    }

    /// A kube client whose API server is `server`.
    pub fn kube_client(server: &Server) -> kube::Client {
        let config = kube::Config::new(server.url("").parse().unwrap());
        kube::Client::try_from(config).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use super::hostile::{Behaviour, Server, ended_at, kube_client, start};
    use std::sync::atomic::Ordering;
    use std::time::Instant;

    const PROXIED: &str =
        "http://source-controller.flux-system.svc.cluster.local./helmchart/ns/x/x-1.0.0.tgz";

    /// The address the engine would download from, by path: direct to the
    /// server, or an in-cluster address through the server as API server.
    fn address(server: &Server, proxied: bool) -> String {
        if proxied {
            PROXIED.to_string()
        } else {
            server.url("/helmchart/ns/x/x-1.0.0.tgz")
        }
    }

    async fn download_from(
        server: &Server,
        proxied: bool,
        limits: DownloadLimits,
    ) -> (Result<Bytes, ArtifactError>, Duration) {
        let start = Instant::now();
        let got = download(
            &kube_client(server),
            &address(server, proxied),
            false,
            limits,
        )
        .await;
        (got, start.elapsed())
    }

    fn quick(deadline_ms: u64) -> DownloadLimits {
        DownloadLimits {
            deadline: Duration::from_millis(deadline_ms),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn downloads_that_never_finish_end_at_the_deadline() {
        // Silent: no headers ever. Trickle: headers, then a byte now and
        // then, for ever: the deadline covers the body too.
        for behaviour in [Behaviour::Silent, Behaviour::Trickle] {
            let server = start(behaviour.clone()).await;
            for proxied in [false, true] {
                let (got, took) = download_from(&server, proxied, quick(300)).await;
                let e = got.unwrap_err();
                assert!(matches!(e, ArtifactError::Deadline { .. }), "{e}");
                assert_eq!(
                    e.to_string(),
                    format!(
                        "chart download from {} did not finish within 300ms",
                        address(&server, proxied)
                    )
                );
                ended_at(took, Duration::from_millis(300));
            }
            if let Behaviour::Trickle = behaviour {
                assert!(server.sent.load(Ordering::SeqCst) > 0, "bytes came");
            }
        }
    }

    #[tokio::test]
    async fn reading_stops_as_soon_as_the_archive_is_over_the_limit() {
        for proxied in [false, true] {
            let server = start(Behaviour::Endless).await;
            let (got, took) = download_from(&server, proxied, DownloadLimits::default()).await;
            let e = got.unwrap_err();
            assert!(matches!(e, ArtifactError::TooLarge { .. }), "{e}");
            assert_eq!(
                e.to_string(),
                format!(
                    "chart archive from {} is larger than 32 MiB, the most a chart may be",
                    address(&server, proxied)
                )
            );
            assert!(took < Duration::from_secs(30), "{took:?}");
            // The server would send forever: the client hung up on it,
            // having taken the limit and at most what the sockets buffer.
            let deadline = Instant::now() + Duration::from_secs(5);
            while !server.closed.load(Ordering::SeqCst) && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert!(server.closed.load(Ordering::SeqCst), "the download went on");
            let sent = server.sent.load(Ordering::SeqCst) as usize;
            assert!(
                sent > MAX_ARCHIVE && sent < MAX_ARCHIVE + (16 << 20),
                "{sent} bytes sent"
            );
        }
    }

    #[tokio::test]
    async fn an_announced_size_over_the_limit_is_refused_unread() {
        let server = start(Behaviour::Announces(MAX_ARCHIVE as u64 + 1)).await;
        for proxied in [false, true] {
            let (got, took) = download_from(&server, proxied, DownloadLimits::default()).await;
            assert!(
                matches!(got, Err(ArtifactError::TooLarge { .. })),
                "{got:?}"
            );
            assert!(took < Duration::from_secs(5), "{took:?}");
        }
    }

    #[tokio::test]
    async fn a_sound_archive_arrives_whole() {
        let archive = tgz(&[("x/Chart.yaml", "name: x\nversion: 1.0.0\n")]);
        let server = start(Behaviour::Serves(archive.clone())).await;
        for proxied in [false, true] {
            let (got, _) = download_from(&server, proxied, DownloadLimits::default()).await;
            assert_eq!(got.unwrap().as_ref(), archive.as_slice());
        }
        let (got, _) = download_from(
            &server,
            false,
            DownloadLimits {
                max_bytes: archive.len() - 1,
                ..Default::default()
            },
        )
        .await;
        assert!(
            matches!(got, Err(ArtifactError::TooLarge { .. })),
            "{got:?}"
        );
    }

    #[test]
    fn artifact_addresses_name_their_namespace() {
        assert_eq!(
            artifact_namespace(PROXIED).as_deref(),
            Some("ns"),
            "source-controller's own address"
        );
        assert_eq!(
            artifact_namespace("http://127.0.0.1:9/ocirepository/team-b/x/sha.tar.gz").as_deref(),
            Some("team-b")
        );
        assert_eq!(
            artifact_namespace("http://127.0.0.1:9/charts/x-1.0.0.tgz"),
            None
        );
        assert_eq!(artifact_namespace("http://127.0.0.1:9/helmchart/ns"), None);
        assert_eq!(artifact_namespace("not a url"), None);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size(MAX_ARCHIVE), "32 MiB");
        assert_eq!(size(512 * 1024), "512 KiB");
        assert_eq!(size(100), "100 bytes");
    }

    fn tgz(files: &[(&str, &str)]) -> Vec<u8> {
        let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
            Vec::new(),
            flate2::Compression::fast(),
        ));
        for (path, body) in files {
            let mut header = tar::Header::new_gnu();
            header.set_size(body.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            builder
                .append_data(&mut header, path, body.as_bytes())
                .unwrap();
        }
        builder.into_inner().unwrap().finish().unwrap()
    }

    #[test]
    fn reads_chart_and_values_but_not_subcharts() {
        let archive = tgz(&[
            (
                "ingress-nginx/Chart.yaml",
                "apiVersion: v2\nname: ingress-nginx\nversion: 4.11.3\ndescription: Ingress\n\
                 annotations:\n  hmc.mirantis.com/k8s-version-constraint: \">=1.30\"\n  odd: 1\n",
            ),
            (
                "ingress-nginx/values.yaml",
                "controller:\n  replicaCount: 1\n",
            ),
            ("ingress-nginx/charts/sub/values.yaml", "other: true\n"),
        ]);
        let info = read_chart(&archive).unwrap();
        assert_eq!(info.version, "4.11.3");
        assert_eq!(info.description.as_deref(), Some("Ingress"));
        assert_eq!(
            info.annotations,
            BTreeMap::from([(
                "hmc.mirantis.com/k8s-version-constraint".to_string(),
                ">=1.30".to_string()
            )]),
            "string annotations only"
        );
        assert_eq!(
            info.values,
            serde_json::json!({"controller": {"replicaCount": 1}})
        );
    }

    #[test]
    fn refuses_archives_without_chart_yaml_or_with_bad_values() {
        let e = read_chart(&tgz(&[("x/values.yaml", "a: 1\n")])).unwrap_err();
        assert!(e.to_string().contains("no Chart.yaml"), "{e}");
        let e = read_chart(&tgz(&[
            ("x/Chart.yaml", "name: x\nversion: 1.0.0\n"),
            ("x/values.yaml", "a: [1\n"),
        ]))
        .unwrap_err();
        assert!(e.to_string().contains("values.yaml: line"), "{e}");
        assert!(read_chart(b"not gzip").is_err());
    }

    #[test]
    fn digest_is_checked() {
        let digest = format!("sha256:{}", hex::encode(Sha256::digest(b"abc")));
        assert!(verify_digest(b"abc", &digest).is_ok());
        assert!(matches!(
            verify_digest(b"abd", &digest),
            Err(ArtifactError::Digest { .. })
        ));
        let bare = hex::encode(Sha256::digest(b"abc"));
        assert!(verify_digest(b"abc", &bare).is_ok());
        assert!(verify_digest(b"abd", &bare).is_err());
        let sha512 = format!("sha512:{}", hex::encode(sha2::Sha512::digest(b"abc")));
        assert!(verify_digest(b"abc", &sha512).is_ok());
        assert!(matches!(
            verify_digest(b"abd", &sha512),
            Err(ArtifactError::Digest { .. })
        ));
    }

    #[test]
    fn a_digest_that_cannot_be_checked_refuses_the_chart() {
        for digest in [
            "blake3:abc",
            "md5:900150983cd24fb0d6963f7d28e17f72",
            ":",
            "SHA256:00",
        ] {
            let e = verify_digest(b"abc", digest).unwrap_err();
            assert!(
                matches!(
                    e,
                    ArtifactError::UnknownDigest { .. } | ArtifactError::Digest { .. }
                ),
                "{digest}: {e}"
            );
        }
        let e = verify_digest(b"abc", "blake3:6437b3ac").unwrap_err();
        assert!(e.to_string().contains("cannot be checked here"), "{e}");
        assert!(
            e.to_string().contains("--artifact-digest-algo=sha256"),
            "{e}"
        );
    }

    #[test]
    fn in_cluster_addresses_go_through_the_service_proxy() {
        let uri: http::Uri =
            "http://source-controller.flux-system.svc.cluster.local./helmchart/ns/x/x-1.0.0.tgz"
                .parse()
                .unwrap();
        assert_eq!(
            service_proxy_path(&uri).unwrap(),
            "/api/v1/namespaces/flux-system/services/http:source-controller:80/proxy/helmchart/ns/x/x-1.0.0.tgz"
        );
        let local: http::Uri = "http://127.0.0.1:17200/helmchart/ns/x.tgz".parse().unwrap();
        assert_eq!(service_proxy_path(&local), None);
    }
}
