//! A chart's values as checks and suggestions read them: its `values.yaml`,
//! `values.schema.json` and the names of its dependencies, parsed once per
//! chart version within the limits of chart files.
//!
//! Pure: whoever downloads the archive hands its files to
//! [`ChartValues::parse`].

use std::fmt;

use serde_json::Value;

use crate::plan::values::parse_values_within;
use crate::plan::yaml::{self, Limits};

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

/// A chart's values, as the checks of values read them.
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
}
