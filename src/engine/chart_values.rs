//! Fetches a service's chart for the values editor and `hmc-tui diff`: the
//! archive the chart source of its ServiceTemplate publishes, downloaded
//! the way the engine downloads charts (the same size and time limits, the
//! digest checked, only archives of the template's own namespace), then its
//! `Chart.yaml`, `values.yaml` and `values.schema.json` read and parsed
//! once. Its callers keep the result per chart and version.

use crate::api::names::{TemplateKind, source_name};
use crate::engine::artifact::{
    DownloadLimits, artifact_namespace, download, read_top_files, verify_digest,
};
use crate::engine::templates::source_status;
use crate::plan::chart::ChartValues;
use crate::plan::service_chart::ServiceChart;

/// The chart of `source`, parsed; `Err` says why not, in plain words.
pub async fn fetch(client: &kube::Client, source: &ServiceChart) -> Result<ChartValues, String> {
    let (kind, name) = match &source.chart_ref {
        Some((kind, name)) => (kind.clone(), name.clone()),
        None => (
            "HelmChart".to_string(),
            source_name(TemplateKind::Service, &source.template),
        ),
    };
    let ns = &source.namespace;
    let status = source_status(client, &kind, ns, &name)
        .await
        .map_err(|e| format!("cannot read its chart source: {e}"))?
        .ok_or("its chart source does not exist yet")?;
    let artifact = status
        .artifact
        .filter(|a| !a.url.is_empty())
        .ok_or("its chart source has no archive yet")?;
    // As the engine: only an archive of the template's own namespace.
    if artifact_namespace(&artifact.url).as_deref() != Some(ns.as_str()) {
        return Err(format!(
            "the archive {} is not one of namespace {ns}",
            artifact.url
        ));
    }
    let in_cluster = std::env::var_os("KUBERNETES_SERVICE_HOST").is_some();
    let bytes = download(client, &artifact.url, in_cluster, DownloadLimits::default())
        .await
        .map_err(|e| e.to_string())?;
    verify_digest(&bytes, &artifact.digest).map_err(|e| e.to_string())?;
    let [chart, values, schema] =
        read_top_files(&bytes, ["Chart.yaml", "values.yaml", "values.schema.json"])
            .map_err(|e| e.to_string())?;
    if chart.is_none() {
        return Err("the archive holds no chart (no Chart.yaml at its top)".into());
    }
    let parsed = ChartValues::parse(
        source.id.clone(),
        chart.as_deref(),
        values.as_deref(),
        schema.as_deref(),
    );
    match &parsed {
        Ok(c) => {
            tracing::info!(chart = %c.id, schema = c.schema.is_some(), "read the chart's values for the editor")
        }
        // The editor says so; no warning on the status line over it.
        Err(e) => tracing::info!(chart = %source.id, error = %e, "cannot read the chart's values"),
    }
    parsed
}
