//! What the console knows of a service's chart, for the values editor: which
//! chart and version a service's ServiceTemplate installs, where its archive
//! is, and, once the runtime fetched it, its `values.yaml` and
//! `values.schema.json`, parsed once per chart version.
//!
//! Pure: the runtime downloads the archive and hands the files over;
//! [`ChartValues::parse`] reads them.

use std::fmt;
use std::sync::Arc;

use kube::ResourceExt;
use serde_json::Value;

use crate::plan::services::enabled_services;
use crate::plan::values::parse_values_within;
use crate::plan::yaml::{self, Limits};
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::values::services_given;

/// One chart at one version: `ingress-nginx 4.11.3`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ChartId {
    pub name: String,
    pub version: String,
}

impl fmt::Display for ChartId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.version.is_empty() {
            write!(f, "{}", self.name)
        } else {
            write!(f, "{} {}", self.name, self.version)
        }
    }
}

/// Where the runtime finds a chart's archive: the chart source of a
/// ServiceTemplate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartSource {
    pub id: ChartId,
    pub namespace: String,
    /// The ServiceTemplate; its chart source is named after it.
    pub template: String,
    /// `(kind, name)` of the chart source the template names itself
    /// (`chartRef`), instead of the one made for it.
    pub chart_ref: Option<(String, String)>,
}

/// A chart's values, as the editor checks against them.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartValues {
    pub id: ChartId,
    /// The chart's `values.yaml`.
    pub defaults: Value,
    /// The chart's `values.schema.json`, when it has one.
    pub schema: Option<Value>,
    /// The names (or aliases) of the chart's dependencies: their values
    /// live under these keys and are not checked.
    pub subcharts: Vec<String>,
}

/// What the console has of a chart.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartStatus {
    /// No chart to check against, and why.
    Unknown(String),
    /// Being fetched.
    Fetching(ChartId),
    /// Could not be fetched, and why.
    Failed(ChartId, String),
    Ready(Arc<ChartValues>),
}

impl ChartStatus {
    pub fn values(&self) -> Option<&ChartValues> {
        match self {
            ChartStatus::Ready(v) => Some(v),
            _ => None,
        }
    }

    /// Why only the syntax is checked, in one line; `None` once the chart
    /// is there.
    pub fn syntax_only(&self) -> Option<String> {
        match self {
            ChartStatus::Ready(_) => None,
            ChartStatus::Unknown(why) => Some(format!("syntax only: {why}")),
            ChartStatus::Fetching(id) => Some(format!("syntax only: fetching {id}…")),
            ChartStatus::Failed(id, why) => Some(format!("syntax only: cannot fetch {id}: {why}")),
        }
    }
}

/// The chart whose values `service` of `object` (a ManagedCluster or a
/// ClusterTemplate) sets: its ServiceTemplate's, by the same rule the
/// engine uses to pick it. `Err` says why there is none.
pub fn chart_source(
    data: &Snapshot,
    object: &ObjKey,
    service: &str,
) -> Result<ChartSource, String> {
    let ns = &object.namespace;
    let template = match object.kind {
        Kind::ManagedCluster => {
            let mc = data
                .cluster(ns, &object.name)
                .ok_or_else(|| format!("cluster {} no longer exists", object.name))?;
            let spec = data
                .cluster_template(ns, &mc.spec.template)
                .map(|ct| services_given(ct, mc).1)
                .unwrap_or_default();
            let enabled = enabled_services(&spec.services, &mc.spec.services);
            enabled
                .iter()
                .find(|s| s.name == service)
                .and_then(|s| s.template())
                .map(str::to_string)
        }
        Kind::ClusterTemplate => data
            .cluster_template(ns, &object.name)
            .and_then(|ct| ct.spec.services.iter().find(|s| s.name == service))
            .map(|s| s.template.clone()),
        _ => None,
    };
    let template = template
        .filter(|t| !t.is_empty())
        .ok_or_else(|| format!("{service} names no service template here"))?;
    let st = data
        .service_template(ns, &template)
        .ok_or_else(|| format!("service template {template} does not exist"))?;
    let helm = &st.spec.helm;
    let status = st.status.as_ref();
    let version = status
        .and_then(|s| s.chart_version.clone())
        .or_else(|| helm.chart_version.clone())
        .unwrap_or_default();
    let chart_ref = helm
        .chart_ref
        .as_ref()
        .map(|r| (r.kind.clone(), r.name.clone()));
    let name = match (&helm.chart_name, &chart_ref) {
        (Some(name), None) => name.clone(),
        (_, Some((_, name))) => name.clone(),
        (None, None) => return Err(format!("service template {template} names no chart")),
    };
    Ok(ChartSource {
        id: ChartId { name, version },
        namespace: st.namespace().unwrap_or_default(),
        template: st.name_any(),
        chart_ref,
    })
}

#[derive(serde::Deserialize)]
struct ChartYaml {
    #[serde(default)]
    dependencies: Vec<Dependency>,
}

#[derive(serde::Deserialize)]
struct Dependency {
    #[serde(default)]
    name: String,
    #[serde(default)]
    alias: Option<String>,
}

impl ChartValues {
    /// Reads a chart's files: `Chart.yaml` (for its dependencies),
    /// `values.yaml` and `values.schema.json`, within the limits of chart
    /// files.
    pub fn parse(
        id: ChartId,
        chart_yaml: Option<&str>,
        values_yaml: Option<&str>,
        schema_json: Option<&str>,
    ) -> Result<ChartValues, String> {
        let limits = &Limits::CHART;
        let defaults = parse_values_within(values_yaml.unwrap_or(""), limits)
            .map_err(|e| format!("values.yaml: {e}"))?;
        let schema = match schema_json.filter(|s| !s.trim().is_empty()) {
            None => None,
            Some(text) => {
                // JSON is YAML: the same bounded reader.
                let schema: Value =
                    yaml::from_str(text, limits).map_err(|e| format!("values.schema.json: {e}"))?;
                schema.is_object().then_some(schema)
            }
        };
        let subcharts = match chart_yaml {
            Some(text) => yaml::from_str::<ChartYaml>(text, limits)
                .map(|c| {
                    c.dependencies
                        .into_iter()
                        .map(|d| d.alias.unwrap_or(d.name))
                        .filter(|n| !n.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            None => Vec::new(),
        };
        Ok(ChartValues {
            id,
            defaults,
            schema,
            subcharts,
        })
    }

    /// The chart's top-level keys, in order.
    pub fn top_keys(&self) -> Vec<&str> {
        match &self.defaults {
            Value::Object(map) => map.keys().map(String::as_str).collect(),
            _ => Vec::new(),
        }
    }

    /// An override to suggest in an empty editor, made of the chart's own
    /// keys: `controller: {replicaCount: 1}` for ingress-nginx. A
    /// `replicaCount` one or two levels down is preferred, then the first
    /// number, then the first true/false, then any short scalar.
    pub fn example(&self) -> Option<String> {
        let Value::Object(top) = &self.defaults else {
            return None;
        };
        let scalar = |v: &Value| match v {
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            Value::String(s) if !s.is_empty() && s.len() <= 24 && !s.contains(['\n', '"']) => {
                Some(format!("\"{s}\""))
            }
            _ => None,
        };
        // (rank, text): replicas first, shallow before deep.
        let mut candidates: Vec<(u8, String)> = Vec::new();
        let rank = |key: &str, v: &Value| match v {
            _ if key == "replicaCount" && v.is_number() => Some(0),
            Value::Number(_) => Some(1),
            Value::Bool(_) => Some(2),
            _ => scalar(v).map(|_| 3),
        };
        for (k, v) in top {
            if let (Some(r), Some(s)) = (rank(k, v), scalar(v)) {
                candidates.push((r * 2, format!("{k}: {s}")));
            }
            for (c, cv) in v.as_object().into_iter().flatten() {
                if let (Some(r), Some(s)) = (rank(c, cv), scalar(cv)) {
                    candidates.push((r * 2 + 1, format!("{k}: {{{c}: {s}}}")));
                }
            }
        }
        candidates.sort_by_key(|(r, _)| *r);
        candidates.into_iter().next().map(|(_, s)| s)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Read;

    use super::*;
    use crate::tui::fixtures::sample::valued;

    /// Files of a chart archive in tests/fixtures/charts/upstream.
    pub(crate) fn upstream(version: &str) -> ChartValues {
        let path = format!(
            "{}/tests/fixtures/charts/upstream/ingress-nginx-{version}.tgz",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(path).unwrap();
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
        let (mut chart, mut values) = (None, None);
        for entry in tar.entries().unwrap() {
            let mut entry = entry.unwrap();
            let path = entry.path().unwrap().to_string_lossy().into_owned();
            let slot = match path.as_str() {
                "ingress-nginx/Chart.yaml" => &mut chart,
                "ingress-nginx/values.yaml" => &mut values,
                _ => continue,
            };
            let mut text = String::new();
            entry.read_to_string(&mut text).unwrap();
            *slot = Some(text);
        }
        let id = ChartId {
            name: "ingress-nginx".into(),
            version: version.into(),
        };
        ChartValues::parse(id, chart.as_deref(), values.as_deref(), None).unwrap()
    }

    #[test]
    fn the_upstream_chart_suggests_its_own_keys() {
        let chart = upstream("4.11.3");
        assert_eq!(chart.id.to_string(), "ingress-nginx 4.11.3");
        assert!(chart.top_keys().contains(&"controller"));
        assert!(!chart.top_keys().contains(&"replicaCount"));
        assert_eq!(
            chart.example().as_deref(),
            Some("controller: {replicaCount: 1}")
        );
        assert!(chart.schema.is_none());
        assert!(chart.subcharts.is_empty());
    }

    #[test]
    fn a_chart_without_replicas_suggests_a_number_then_a_switch() {
        let id = ChartId {
            name: "x".into(),
            version: "1.0.0".into(),
        };
        let chart = ChartValues::parse(
            id.clone(),
            Some("name: x\nversion: 1.0.0\ndependencies:\n- name: redis\n  alias: cache\n- name: pg\n"),
            Some("name: web\nenabled: true\nimage: {tag: v1, pullPolicy: Always}\n"),
            Some("{\"type\": \"object\"}"),
        )
        .unwrap();
        assert_eq!(chart.example().as_deref(), Some("enabled: true"));
        assert_eq!(chart.subcharts, ["cache", "pg"]);
        assert!(chart.schema.is_some());
        let bad = ChartValues::parse(id, None, Some("a: [1\n"), None).unwrap_err();
        assert!(bad.starts_with("values.yaml: line 2"), "{bad}");
    }

    #[test]
    fn a_service_finds_the_chart_of_its_template() {
        let data = valued();
        let object = |kind, name: &str| ObjKey {
            kind,
            namespace: "hmc-system".into(),
            name: name.into(),
        };
        let source = chart_source(
            &data,
            &object(Kind::ManagedCluster, "prod-eu-1"),
            "ingress-nginx",
        )
        .unwrap();
        assert_eq!(source.template, "ingress-nginx-4-11-3");
        assert_eq!(source.id.name, "ingress-nginx");
        assert_eq!(source.chart_ref, None);
        let source = chart_source(
            &data,
            &object(Kind::ClusterTemplate, "aws-standalone-cp"),
            "ingress-nginx",
        )
        .unwrap();
        assert_eq!(source.template, "ingress-nginx-4-11-3");
        let none = chart_source(&data, &object(Kind::ManagedCluster, "prod-eu-1"), "nope");
        assert_eq!(none.unwrap_err(), "nope names no service template here");
    }
}
