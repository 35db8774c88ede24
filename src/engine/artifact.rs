//! Reads a chart archive produced by the chart source: its Chart.yaml and
//! values.yaml. Inside a cluster the archive's address is reachable directly;
//! from a laptop it is not, so an in-cluster address goes through the API
//! server's service proxy.

use std::io::Read;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Limited};
use hyper_util::client::legacy::Client as HttpClient;
use hyper_util::rt::TokioExecutor;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use thiserror::Error;

/// Charts larger than this are refused rather than read into memory.
const MAX_ARCHIVE: usize = 32 * 1024 * 1024;

#[derive(Error, Debug)]
pub enum ArtifactError {
    #[error("cannot download {url}: {reason}")]
    Download { url: String, reason: String },
    #[error("digest mismatch: expected {expected}, got {actual}")]
    Digest { expected: String, actual: String },
    #[error("not a valid chart: {0}")]
    InvalidChart(String),
}

/// What the engine needs from a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartInfo {
    pub name: String,
    pub version: String,
    pub description: Option<String>,
    pub values: Value,
}

#[derive(Deserialize)]
struct ChartYaml {
    name: String,
    version: String,
    #[serde(default)]
    description: Option<String>,
}

/// Downloads, verifies and reads one chart archive.
pub async fn fetch_chart(
    client: &kube::Client,
    url: &str,
    digest: &str,
) -> Result<ChartInfo, ArtifactError> {
    let bytes = download(client, url).await?;
    verify_digest(&bytes, digest)?;
    read_chart(&bytes)
}

async fn download(client: &kube::Client, url: &str) -> Result<Bytes, ArtifactError> {
    let fail = |reason: String| ArtifactError::Download {
        url: url.to_string(),
        reason,
    };
    let uri: http::Uri = url.parse().map_err(|e| fail(format!("{e}")))?;
    let in_cluster = std::env::var_os("KUBERNETES_SERVICE_HOST").is_some();
    if let (false, Some(proxy)) = (in_cluster, service_proxy_path(&uri)) {
        let req = http::Request::get(proxy)
            .body(Vec::new())
            .map_err(|e| fail(e.to_string()))?;
        let resp = client
            .send(req.map(kube::client::Body::from))
            .await
            .map_err(|e| fail(e.to_string()))?;
        if !resp.status().is_success() {
            return Err(fail(format!("HTTP {}", resp.status())));
        }
        let body = resp
            .into_body()
            .collect_bytes()
            .await
            .map_err(|e| fail(e.to_string()))?;
        if body.len() > MAX_ARCHIVE {
            return Err(fail(format!("archive larger than {MAX_ARCHIVE} bytes")));
        }
        return Ok(body);
    }
    let http: HttpClient<_, Empty<Bytes>> = HttpClient::builder(TokioExecutor::new()).build_http();
    let resp = tokio::time::timeout(std::time::Duration::from_secs(30), http.get(uri))
        .await
        .map_err(|_| fail("timed out".into()))?
        .map_err(|e| fail(e.to_string()))?;
    if !resp.status().is_success() {
        return Err(fail(format!("HTTP {}", resp.status())));
    }
    let body = Limited::new(resp.into_body(), MAX_ARCHIVE)
        .collect()
        .await
        .map_err(|e| fail(e.to_string()))?
        .to_bytes();
    Ok(body)
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

/// Accepts `sha256:<hex>` (what chart sources publish) or a bare hex digest.
pub fn verify_digest(bytes: &[u8], expected: &str) -> Result<(), ArtifactError> {
    let hex_expected = expected.strip_prefix("sha256:").unwrap_or(expected);
    if expected.contains(':') && !expected.starts_with("sha256:") {
        // Another algorithm: cannot check it here, and refusing would block every chart.
        tracing::debug!(%expected, "digest algorithm not checked");
        return Ok(());
    }
    let actual = hex::encode(Sha256::digest(bytes));
    if !hex_expected.eq_ignore_ascii_case(&actual) {
        return Err(ArtifactError::Digest {
            expected: expected.to_string(),
            actual: format!("sha256:{actual}"),
        });
    }
    Ok(())
}

/// Reads `<chart>/Chart.yaml` and `<chart>/values.yaml` from a `.tgz`.
pub fn read_chart(archive: &[u8]) -> Result<ChartInfo, ArtifactError> {
    let invalid = |m: String| ArtifactError::InvalidChart(m);
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
    let mut chart_yaml = None;
    let mut values_yaml = None;
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
        let slot = match file {
            "Chart.yaml" => &mut chart_yaml,
            "values.yaml" => &mut values_yaml,
            _ => continue,
        };
        let mut text = String::new();
        entry
            .by_ref()
            .take(MAX_ARCHIVE as u64)
            .read_to_string(&mut text)
            .map_err(|e| invalid(format!("{path}: {e}")))?;
        *slot = Some(text);
    }
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
                "apiVersion: v2\nname: ingress-nginx\nversion: 4.11.3\ndescription: Ingress\n",
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
