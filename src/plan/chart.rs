//! A chart's values as checks and suggestions read them: its `values.yaml`,
//! `values.schema.json` and the names of its dependencies, parsed once per
//! chart version within the limits of chart files.
//!
//! The schema is compiled into a validator once per chart version, on
//! first use, and shared by every clone: the checks of one editor and those
//! of a fleet of clusters ask the same compiled schema.
//!
//! Pure: whoever downloads the archive hands its files to
//! [`ChartValues::parse`].

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, PatternOptions, ReferencingError, ValidationError, Validator};
use serde_json::{Map, Value};

use crate::plan::values::{merge, parse_values_within};
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
///
/// Build it with [`ChartValues::parse`] or [`ChartValues::new`]: the
/// compiled schema is made from `schema` on first use, so changing
/// `schema` afterwards is not seen by the checks; make a new one instead.
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
    compiled: CompiledSchema,
}

/// What the checks make from a chart once and share between clones: the
/// compiled schema, and a copy of the defaults that values are laid over
/// in place ([`ChartValues::with_merged`]), so that checking a fleet's
/// values does not copy the defaults once per cluster. Equal whatever its
/// state: it is made from the fields that equality already compares.
#[derive(Clone, Default)]
struct CompiledSchema(Arc<Compiled>);

#[derive(Default)]
struct Compiled {
    validator: OnceLock<Result<Validator, String>>,
    /// A copy of `defaults`, made on first use; equal to `defaults`
    /// whenever it is not locked.
    scratch: Mutex<Option<Value>>,
}

impl PartialEq for CompiledSchema {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.0.validator.get() {
            None => "not yet compiled",
            Some(Ok(_)) => "compiled",
            Some(Err(_)) => "unusable",
        };
        write!(f, "CompiledSchema({state})")
    }
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
        Ok(ChartValues::new(id, defaults, schema, subcharts))
    }

    /// A chart's values from parts already read.
    pub fn new(
        id: ChartId,
        defaults: Value,
        schema: Option<Value>,
        subcharts: Vec<String>,
    ) -> ChartValues {
        ChartValues {
            id,
            defaults,
            schema,
            subcharts,
            compiled: CompiledSchema::default(),
        }
    }

    /// The chart's schema compiled for validation, compiled on the first
    /// call: `None` without a schema, `Err` (in words) when the schema
    /// cannot be used.
    pub fn validator(&self) -> Option<Result<&Validator, &str>> {
        let schema = self.schema.as_ref()?;
        let compiled = self.compiled.0.validator.get_or_init(|| compile(schema));
        Some(compiled.as_ref().map_err(String::as_str))
    }

    /// Runs `f` on `values` merged over the chart's defaults the way Helm
    /// coalesces them ([`merge`]: maps merge, the rest replaces, a `null`
    /// removes a default).
    ///
    /// Copying ingress-nginx's defaults costs more than validating them, so
    /// when it can this lays `values` over the chart's own copy of its
    /// defaults and takes them off again afterwards. It copies instead when
    /// another caller holds that copy, and when `values` remove a default
    /// (a removal could not be put back in its place in a map that keeps
    /// its order). A panic in `f` poisons the copy: copies from then on.
    pub fn with_merged<T>(&self, values: &Value, f: impl FnOnce(&Value) -> T) -> T {
        if let Ok(mut held) = self.compiled.0.scratch.try_lock() {
            let scratch = held.get_or_insert_with(|| self.defaults.clone());
            let mut undo = Vec::new();
            let laid = match (&mut *scratch, values) {
                (_, Value::Null) => true,
                (Value::Object(target), Value::Object(overlay)) => {
                    lay(target, overlay, &mut Vec::new(), &mut undo)
                }
                _ => false,
            };
            if laid {
                let out = f(scratch);
                take_off(scratch, undo);
                return out;
            }
            take_off(scratch, undo);
        }
        f(&merge(&self.defaults, values))
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

/// One change [`lay`] made: under the map at `at`, `key` had `old`.
struct Undo {
    at: Vec<String>,
    key: String,
    old: Option<Value>,
}

/// Lays `overlay` over `target` in place as [`merge`] would, noting how to
/// undo it; `false` (part laid, all noted) at a `null` that would remove a
/// key.
fn lay(
    target: &mut Map<String, Value>,
    overlay: &Map<String, Value>,
    at: &mut Vec<String>,
    undo: &mut Vec<Undo>,
) -> bool {
    for (key, value) in overlay {
        let old = match (target.get_mut(key), value) {
            (Some(_), Value::Null) => return false,
            (None, Value::Null) => continue,
            (Some(Value::Object(below)), Value::Object(sub)) => {
                at.push(key.clone());
                let laid = lay(below, sub, at, undo);
                at.pop();
                if !laid {
                    return false;
                }
                continue;
            }
            // A map over anything else is the map with its nulls dropped.
            (_, Value::Object(_)) => target.insert(key.clone(), merge(&Value::Null, value)),
            (_, other) => target.insert(key.clone(), other.clone()),
        };
        undo.push(Undo {
            at: at.clone(),
            key: key.clone(),
            old,
        });
    }
    true
}

/// Undoes what [`lay`] did, last change first: a replaced value goes back
/// where it was, an added key (the last of its map) goes.
fn take_off(root: &mut Value, undo: Vec<Undo>) {
    for u in undo.into_iter().rev() {
        let map =
            u.at.iter()
                .try_fold(&mut *root, |v, k| v.get_mut(k))
                .and_then(Value::as_object_mut);
        let Some(map) = map else { continue };
        match u.old {
            Some(old) => {
                map.insert(u.key, old);
            }
            None => {
                map.remove(&u.key);
            }
        }
    }
}

/// The draft a schema is read by when its `$schema` names none (or one
/// that is not a JSON Schema draft): 2020-12, because that is what Helm
/// does since 3.18 (and Helm 4): it compiles `values.schema.json` with
/// santhosh-tekuri/jsonschema v6, which takes the latest draft when
/// `$schema` is absent. (Earlier Helm 3 releases read such a schema with
/// gojsonschema, drafts 4 to 7; the keywords charts use, `type`,
/// `properties`, `required`, `enum`, `$ref` to `definitions`, read the
/// same in both. A chart that relies on draft 7, such as `$ref` hiding its
/// siblings, names it in `$schema`, and is read by it.)
const DEFAULT_DRAFT: Draft = Draft::Draft202012;

/// Compiled regular expressions above this size are refused: a chart's
/// `pattern` is small, a hostile one should not take the memory.
pub(crate) const PATTERN_SIZE_LIMIT: usize = 4 << 20;

/// Compiles a chart's schema, offline: a `$ref` to anything outside the
/// file makes it unusable rather than fetched. Patterns use the `regex`
/// engine, linear in time like Go's RE2 that Helm uses, so no pattern can
/// make a check hang (and those RE2 refuses, lookarounds, are refused
/// here too). A panic in the compiler makes the schema unusable, as Helm
/// recovers from one in its validator.
fn compile(schema: &Value) -> Result<Validator, String> {
    let draft = match DEFAULT_DRAFT.detect(schema) {
        Draft::Unknown => DEFAULT_DRAFT,
        named => named,
    };
    let options = jsonschema::options()
        .offline()
        .with_draft(draft)
        .with_pattern_options(PatternOptions::regex().size_limit(PATTERN_SIZE_LIMIT));
    match catch_unwind(AssertUnwindSafe(|| options.build(schema))) {
        Ok(Ok(validator)) => Ok(validator),
        Ok(Err(e)) => Err(unusable(&e)),
        Err(_) => Err("the validator failed while reading it".to_string()),
    }
}

/// Why a schema cannot be compiled, in words, with where in the file:
/// `properties.name.pattern: "(x" is not a usable regular expression`.
fn unusable(e: &ValidationError<'_>) -> String {
    let why = match e.kind() {
        ValidationErrorKind::Referencing(ReferencingError::Unretrievable { uri, .. }) => {
            format!(
                "it refers to {uri}, outside the chart (only references within the file are followed)"
            )
        }
        ValidationErrorKind::Referencing(ReferencingError::PointerToNowhere { pointer }) => {
            format!("it refers to #{pointer}, which the file does not have")
        }
        ValidationErrorKind::Format { format } if format == "regex" => {
            format!("{} is not a usable regular expression", e.instance())
        }
        _ => e.to_string(),
    };
    let at: Vec<String> = e
        .instance_path()
        .as_str()
        .split('/')
        .skip(1)
        .map(|k| k.replace("~1", "/").replace("~0", "~"))
        .collect();
    if at.is_empty() {
        why
    } else {
        format!("{}: {why}", at.join("."))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::io::Read;

    use serde_json::json;

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

    #[test]
    fn values_laid_over_the_defaults_in_place_merge_as_helm_does() {
        let defaults = json!({
            "a": 1,
            "m": {"x": 1, "y": {"z": 2}, "l": [1, 2]},
            "s": "text",
            "e": {},
        });
        let id = ChartId {
            name: "web".into(),
            version: "1.0.0".into(),
        };
        let chart = ChartValues::new(id, defaults.clone(), None, Vec::new());
        for values in [
            json!(null),
            json!({}),
            json!({"a": 2, "new": {"k": null, "j": 1}}),
            json!({"m": {"y": {"z": 3, "w": [null]}, "l": [], "n": 1}, "s": {"now": "a map"}}),
            json!({"m": {"x": null}}),
            json!({"m": {"y": {"z": 5}, "x": null}}),
            json!({"e": {"a": {"b": null, "c": 1}}, "a": [1]}),
            json!({"zz": 1, "m": 3}),
            json!(["not", "a", "map"]),
        ] {
            let merged = chart.with_merged(&values, Value::clone);
            assert_eq!(merged, merge(&defaults, &values), "{values}");
            // And the chart's copy is its defaults again.
            let copy = chart.compiled.0.scratch.lock().unwrap();
            assert_eq!(copy.as_ref(), Some(&defaults), "{values}");
        }
        // While the copy is held, a copy is made.
        let held = chart.compiled.0.scratch.lock().unwrap();
        assert_eq!(
            chart.with_merged(&json!({"a": 3}), |m| m["a"].clone()),
            json!(3)
        );
        drop(held);
        // A panic while the copy is laid over leaves it poisoned: copies then.
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            chart.with_merged(&json!({"a": 4}), |_| panic!("a validator's bug"))
        }));
        assert!(caught.is_err());
        assert_eq!(
            chart.with_merged(&json!({"s": 1}), Value::clone),
            merge(&defaults, &json!({"s": 1}))
        );
    }
}
