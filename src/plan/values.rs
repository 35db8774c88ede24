//! Helm values in layers: parsing, merging, diffing and printing.
//!
//! A service's values come from up to four places. From lowest to highest
//! precedence:
//!
//! 1. the chart's own defaults (`values.yaml` inside the chart),
//! 2. the ServiceTemplate,
//! 3. the ClusterTemplate's entry for the service,
//! 4. the ManagedCluster's entry for the service.
//!
//! The rules are Helm's: maps merge deeply, lists replace (they never
//! concatenate, because a list has no key to merge by), and an explicit
//! `null` in a higher layer deletes the key from what lies below.
//!
//! The value type is [`serde_json::Value`] because the CRDs carry values as
//! JSON; the YAML people type is parsed into it by [`parse_values`], within
//! the limits of [`Limits::VALUES`] (see [`crate::plan::yaml`]).
//!
//! Everything here is pure: no I/O, no clock, no logging. The UI and the
//! reconciler both call into it, so both agree on what "effective values"
//! means.

use std::fmt;

use serde_json::{Map, Value};

use crate::plan::yaml::{self, LimitError, Limits, YamlError};

/// Why a `values` text could not be turned into values.
///
/// The variants are separate so that an editor can put a marker at
/// [`ValuesError::Syntax`]'s position, and just show the message for the
/// others, which have no position in the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValuesError {
    /// The YAML parser rejected the text at a known position.
    ///
    /// `line` and `column` are 1-based, as an editor shows them. `message`
    /// is the parser's message without the repeated position.
    #[error("line {line}, column {column}: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    /// The document is valid YAML but its top level is not a mapping.
    ///
    /// Helm only accepts a mapping at the top of a values file; a list or a
    /// scalar there is almost always a paste into the wrong field.
    #[error("values must be a YAML mapping, got {found}")]
    NotAMapping {
        /// What was found, with an article: "a list", "a string", ...
        found: &'static str,
    },
    /// The YAML is well formed but holds something JSON cannot carry (a
    /// `.nan`, a list used as a key, a custom tag, two keys that become the
    /// same string, several documents, a bad `<<` merge key).
    ///
    /// `path` is where it happened, in the same dotted form as
    /// [`Change::path`] (empty for the whole document). The YAML library
    /// does not keep positions after parsing, so there is no line number.
    #[error("{}", join_path_message(path, message))]
    Invalid { path: String, message: String },
    /// The text is larger than a limit allows: too many bytes, too many
    /// nodes once aliases are expanded, nested too deeply. Nothing of it is
    /// used.
    #[error(transparent)]
    Limit(#[from] LimitError),
}

impl ValuesError {
    /// True when the text is refused for its size rather than its content.
    pub fn is_limit(&self) -> bool {
        matches!(self, ValuesError::Limit(_))
    }
}

fn join_path_message(path: &str, message: &str) -> String {
    if path.is_empty() {
        message.to_owned()
    } else {
        format!("{path}: {message}")
    }
}

/// Parses the `values` text a person writes into values.
///
/// - Empty, whitespace-only or comment-only text, and a document that is
///   just `null` or `~`, give `{}`: that is what Helm does with an empty
///   values file, and an empty editor should mean "no overrides", not an
///   error.
/// - The top level must be a mapping ([`ValuesError::NotAMapping`]
///   otherwise).
/// - Anchors and aliases are resolved and `<<` merge keys are applied, as
///   Helm's YAML library does, so that what is stored in JSON is what Helm
///   would have seen.
/// - Boolean and number keys (`1: a`, `true: b`) become strings, as they do
///   in Kubernetes' YAML-to-JSON conversion. Null, list and map keys are an
///   error, and so are two keys that become the same string (`1` and `"1"`),
///   because silently dropping one would lose a value.
/// - A key written twice is an error, rather than the last one silently
///   winning: in an editor that is nearly always a mistake.
/// - `.nan` and `.inf` are an error because JSON has no such numbers, and
///   so are custom tags (`!foo`) because their meaning is unknown here.
///
/// The parser follows YAML 1.2: `yes`, `no`, `on` and `off` are strings, not
/// booleans as in the YAML 1.1 rules some Kubernetes tools still apply.
/// Write `true`/`false` to be safe everywhere.
///
/// Text over one of the limits of [`Limits::VALUES`] (bytes, nodes after
/// expanding aliases, depth, text after expanding aliases) is a
/// [`ValuesError::Limit`]; the parse stops as soon as a limit is passed.
pub fn parse_values(text: &str) -> Result<Value, ValuesError> {
    parse_values_within(text, &Limits::VALUES)
}

/// [`parse_values`] with other limits: a chart's own `values.yaml` is read
/// with [`Limits::CHART`].
pub fn parse_values_within(text: &str, limits: &Limits) -> Result<Value, ValuesError> {
    yaml::check_size(text, limits)?;
    // libyaml rejects a tab it takes for indentation even on an otherwise
    // blank line, so blank and comment-only text is recognised up front.
    if text.lines().all(|line| {
        let line = line.trim();
        line.is_empty() || line.starts_with('#')
    }) {
        return Ok(Value::Object(Map::new()));
    }
    let mut doc = yaml::parse(text, limits).map_err(|e| match e {
        YamlError::Limit(limit) => ValuesError::Limit(limit),
        YamlError::Yaml(e) => yaml_error(e),
    })?;
    doc.apply_merge().map_err(yaml_error)?;
    match doc {
        serde_yaml::Value::Null => Ok(Value::Object(Map::new())),
        serde_yaml::Value::Mapping(_) => yaml_to_json(doc, ""),
        other => Err(ValuesError::NotAMapping {
            found: yaml_kind(&other),
        }),
    }
}

/// Turns a serde_yaml error into a [`ValuesError`], keeping the position
/// when the library has one.
fn yaml_error(err: serde_yaml::Error) -> ValuesError {
    let full = err.to_string();
    match err.location() {
        Some(loc) => {
            let (line, column) = (loc.line(), loc.column());
            // serde_yaml's message repeats the position ("... at line 3
            // column 1, while parsing ..."); the variant carries it already.
            let message = full.replacen(&format!(" at line {line} column {column}"), "", 1);
            ValuesError::Syntax {
                line,
                column,
                message,
            }
        }
        None => ValuesError::Invalid {
            path: String::new(),
            message: full,
        },
    }
}

fn yaml_kind(value: &serde_yaml::Value) -> &'static str {
    match value {
        serde_yaml::Value::Null => "null",
        serde_yaml::Value::Bool(_) => "a boolean",
        serde_yaml::Value::Number(_) => "a number",
        serde_yaml::Value::String(_) => "a string",
        serde_yaml::Value::Sequence(_) => "a list",
        serde_yaml::Value::Mapping(_) => "a mapping",
        serde_yaml::Value::Tagged(_) => "a tagged value",
    }
}

fn invalid(path: &str, message: impl Into<String>) -> ValuesError {
    ValuesError::Invalid {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// Converts parsed YAML to JSON; `path` names `value` in error messages.
fn yaml_to_json(value: serde_yaml::Value, path: &str) -> Result<Value, ValuesError> {
    use serde_yaml::Value as Y;
    Ok(match value {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::String(s) => Value::String(s),
        Y::Number(n) => {
            let json = if let Some(u) = n.as_u64() {
                Some(serde_json::Number::from(u))
            } else if let Some(i) = n.as_i64() {
                Some(serde_json::Number::from(i))
            } else {
                n.as_f64().and_then(serde_json::Number::from_f64)
            };
            match json {
                Some(num) => Value::Number(num),
                None => return Err(invalid(path, format!("{n} cannot be represented in JSON"))),
            }
        }
        Y::Sequence(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| yaml_to_json(item, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        Y::Mapping(mapping) => {
            let mut out = Map::new();
            for (k, v) in mapping {
                let key = yaml_key(k, path)?;
                let child = push_key(path, &key);
                if out.contains_key(&key) {
                    return Err(invalid(
                        &child,
                        format!("duplicate key {key:?} once keys are converted to strings"),
                    ));
                }
                let v = yaml_to_json(v, &child)?;
                out.insert(key, v);
            }
            Value::Object(out)
        }
        Y::Tagged(tagged) => {
            return Err(invalid(
                path,
                format!("unsupported YAML tag {}", tagged.tag),
            ));
        }
    })
}

/// JSON keys are strings; scalar YAML keys are converted the way Kubernetes'
/// YAML-to-JSON conversion does, anything else is refused.
fn yaml_key(key: serde_yaml::Value, path: &str) -> Result<String, ValuesError> {
    use serde_yaml::Value as Y;
    match key {
        Y::String(s) => Ok(s),
        Y::Bool(b) => Ok(b.to_string()),
        Y::Number(n) => Ok(n.to_string()),
        Y::Null => Err(invalid(path, "a null map key is not supported")),
        other => Err(invalid(
            path,
            format!("{} as a map key is not supported", yaml_kind(&other)),
        )),
    }
}

/// Appends `key` to a dotted path, escaping `\`, `.`, `[` and `]` with a
/// backslash as `helm --set` does, so that annotation keys such as
/// `prometheus.io/scrape` stay one segment and every path is unambiguous.
fn push_key(path: &str, key: &str) -> String {
    let mut out = String::with_capacity(path.len() + key.len() + 1);
    out.push_str(path);
    if !path.is_empty() {
        out.push('.');
    }
    for c in key.chars() {
        if matches!(c, '\\' | '.' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Deep-merges `overlay` onto `base`; `overlay` wins.
///
/// - Two maps merge key by key, recursively.
/// - Anything else in `overlay` (scalar, list) replaces what `base` has.
///   Lists replace rather than concatenate because list items have no
///   identity to merge by; this is Helm's rule too.
/// - A `null` under a key in `overlay` removes that key from the result,
///   whatever `base` had there (Helm's way of deleting a default). A map in
///   `overlay` with nothing below it in `base` is copied with its nulls
///   dropped, so the result never holds a null that came from a map value.
/// - A map in `overlay` replaces a scalar or list in `base`, and vice versa.
/// - A top-level `null` overlay is "no values at all" (what an absent field
///   deserializes to) and leaves `base` unchanged.
///
/// Nulls inside lists are list items, not deletions, and are kept.
pub fn merge(base: &Value, overlay: &Value) -> Value {
    let mut out = base.clone();
    merge_into(&mut out, overlay, NullMode::Remove);
    out
}

/// Folds [`merge`] over `layers`, from lowest to highest precedence,
/// starting from `{}`.
///
/// Passing chart defaults, ServiceTemplate, ClusterTemplate entry and
/// ManagedCluster entry, in that order, gives the effective values a person
/// should see: what the chart templates will be rendered with. Explicit
/// nulls have done their job of deleting and do not appear in the result.
pub fn merge_layers<'a>(layers: impl IntoIterator<Item = &'a Value>) -> Value {
    let mut out = Value::Object(Map::new());
    for layer in layers {
        merge_into(&mut out, layer, NullMode::Remove);
    }
    out
}

/// Folds the user layers into one set of overrides for Helm, from lowest to
/// highest precedence, starting from `{}`. Explicit nulls are kept.
///
/// The result is handed to Helm, which applies the chart's defaults
/// underneath it itself. A `null` user value is how Helm is told "delete
/// this default key", so it has to survive the fold: a null replaces
/// whatever the lower layers had at that key and stays `null` in the
/// result. Otherwise the rules are those of [`merge`]. This is exactly how
/// Helm folds several `-f` files before coalescing them with the chart.
///
/// Caveat, inherent to Helm's model: when a lower layer puts a scalar, a
/// list or a `null` at a key and a higher layer puts a map there, the map
/// is what ends up in the overrides, and Helm merges it with the chart's
/// default map. So `merge(defaults, merge_overrides(layers))` equals
/// `merge_layers(defaults, layers...)` except in that case, where the
/// default map's other keys come back. Without chart defaults the two
/// always agree: `merge(&{}, &merge_overrides(l)) == merge_layers(l)`.
pub fn merge_overrides<'a>(layers: impl IntoIterator<Item = &'a Value>) -> Value {
    let mut out = Value::Object(Map::new());
    for layer in layers {
        merge_into(&mut out, layer, NullMode::Keep);
    }
    out
}

/// What a `null` map value in an overlay does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NullMode {
    /// Delete the key (effective values).
    Remove,
    /// Store the null, replacing the key (overrides for Helm).
    Keep,
}

fn merge_into(target: &mut Value, overlay: &Value, nulls: NullMode) {
    match overlay {
        // Only reachable at the top: nested nulls are handled per key.
        Value::Null => {}
        Value::Object(overlay) => {
            if let Value::Object(target) = target {
                merge_map_into(target, overlay, nulls);
            } else {
                let mut fresh = Map::new();
                merge_map_into(&mut fresh, overlay, nulls);
                *target = Value::Object(fresh);
            }
        }
        other => *target = other.clone(),
    }
}

fn merge_map_into(target: &mut Map<String, Value>, overlay: &Map<String, Value>, nulls: NullMode) {
    for (key, value) in overlay {
        match value {
            Value::Null if nulls == NullMode::Remove => {
                if target.contains_key(key) {
                    // `retain` keeps the order of the other keys when
                    // serde_json preserves order; `remove` would not.
                    target.retain(|k, _| k != key);
                }
            }
            Value::Object(sub) => match target.get_mut(key) {
                Some(Value::Object(below)) => merge_map_into(below, sub, nulls),
                _ => {
                    let mut fresh = Map::new();
                    merge_map_into(&mut fresh, sub, nulls);
                    target.insert(key.clone(), Value::Object(fresh));
                }
            },
            other => {
                target.insert(key.clone(), other.clone());
            }
        }
    }
}

/// One difference between two sets of values.
///
/// `old` is `None` for an added key, `new` is `None` for a removed key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Dotted path to the key, e.g. `controller.service.type`. Dots,
    /// backslashes and brackets inside a key are escaped with a backslash
    /// (`podAnnotations.prometheus\.io/scrape`), as for `helm --set`. Empty
    /// when the two whole values differ and are not both maps.
    pub path: String,
    pub old: Option<Value>,
    pub new: Option<Value>,
}

/// Lists what differs between two sets of values, leaf by leaf.
///
/// Maps are descended into; lists are compared as whole values, because
/// lists replace as a whole when merged, so a changed list is one change.
/// A key whose value switches between a map and something else is one
/// change carrying both whole values. An added or removed map shows up as
/// its leaves (an empty map is itself a leaf). The result is sorted by
/// `path` (plain string order) and is empty exactly when `old == new`.
pub fn diff(old: &Value, new: &Value) -> Vec<Change> {
    let mut out = Vec::new();
    diff_at("", Some(old), Some(new), &mut out);
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

fn diff_at(path: &str, old: Option<&Value>, new: Option<&Value>, out: &mut Vec<Change>) {
    match (old, new) {
        (Some(Value::Object(o)), Some(Value::Object(n))) => {
            for (key, ov) in o {
                diff_at(&push_key(path, key), Some(ov), n.get(key), out);
            }
            for (key, nv) in n {
                if !o.contains_key(key) {
                    diff_at(&push_key(path, key), None, Some(nv), out);
                }
            }
        }
        (Some(Value::Object(o)), None) if !o.is_empty() => {
            for (key, ov) in o {
                diff_at(&push_key(path, key), Some(ov), None, out);
            }
        }
        (None, Some(Value::Object(n))) if !n.is_empty() => {
            for (key, nv) in n {
                diff_at(&push_key(path, key), None, Some(nv), out);
            }
        }
        (o, n) => {
            if o != n {
                out.push(Change {
                    path: path.to_owned(),
                    old: o.cloned(),
                    new: n.cloned(),
                });
            }
        }
    }
}

/// Renders a value on one line for [`Change`]'s display: strings bare (as a
/// person writes them in YAML), everything else as compact JSON. Empty
/// strings and strings with control characters (newlines) are quoted, or
/// they would vanish or break the line.
fn show_value(value: &Value) -> String {
    match value {
        Value::String(s) if !s.is_empty() && !s.chars().any(char::is_control) => s.clone(),
        other => other.to_string(),
    }
}

impl fmt::Display for Change {
    /// `path: old → new` for a change, `+ path: new` for an addition and
    /// `- path: old` for a removal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        match (&self.old, &self.new) {
            (Some(old), Some(new)) => {
                write!(f, "{path}: {} → {}", show_value(old), show_value(new))
            }
            (None, Some(new)) => write!(f, "+ {path}: {}", show_value(new)),
            (Some(old), None) => write!(f, "- {path}: {}", show_value(old)),
            (None, None) => write!(f, "{path}: (unchanged)"),
        }
    }
}

/// Pretty YAML for display; `{}` prints as `"{}\n"`.
///
/// The output parses back to the same value with [`parse_values`], so it can
/// prefill an editor. Strings that YAML 1.2 would read as another type are
/// quoted; YAML 1.1-only words such as `yes` are not.
pub fn to_yaml(value: &Value) -> String {
    match serde_yaml::to_string(value) {
        Ok(text) => text,
        // Serializing a JSON value to YAML has no known failure; fall back to
        // JSON, which is valid YAML, rather than panic in a UI path.
        Err(_) => {
            let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    // ---- merge ------------------------------------------------------------

    #[test]
    fn merge_table() {
        let cases: Vec<(&str, Value, Value, Value)> = vec![
            (
                "deep maps merge",
                json!({"controller": {"replicaCount": 1, "image": {"tag": "v1", "pullPolicy": "IfNotPresent"}}}),
                json!({"controller": {"image": {"tag": "v2"}}}),
                json!({"controller": {"replicaCount": 1, "image": {"tag": "v2", "pullPolicy": "IfNotPresent"}}}),
            ),
            (
                "lists replace, never concatenate",
                json!({"controller": {"extraArgs": ["--a", "--b"]}}),
                json!({"controller": {"extraArgs": ["--c"]}}),
                json!({"controller": {"extraArgs": ["--c"]}}),
            ),
            (
                "empty list replaces too",
                json!({"tolerations": [{"key": "x"}]}),
                json!({"tolerations": []}),
                json!({"tolerations": []}),
            ),
            (
                "null removes a key",
                json!({"controller": {"replicaCount": 2, "nodeSelector": {"os": "linux"}}}),
                json!({"controller": {"nodeSelector": null}}),
                json!({"controller": {"replicaCount": 2}}),
            ),
            (
                "null for a missing key is a no-op",
                json!({"a": 1}),
                json!({"b": null}),
                json!({"a": 1}),
            ),
            (
                "nulls inside a new map are dropped",
                json!({}),
                json!({"a": {"b": null, "c": 1}}),
                json!({"a": {"c": 1}}),
            ),
            (
                "nulls inside lists are items, kept",
                json!({}),
                json!({"a": [null, 1]}),
                json!({"a": [null, 1]}),
            ),
            (
                "scalar replaces map",
                json!({"service": {"type": "LoadBalancer"}}),
                json!({"service": "none"}),
                json!({"service": "none"}),
            ),
            (
                "map replaces scalar, nulls dropped",
                json!({"service": "none"}),
                json!({"service": {"type": "NodePort", "x": null}}),
                json!({"service": {"type": "NodePort"}}),
            ),
            (
                "map replaces list",
                json!({"a": [1, 2]}),
                json!({"a": {"b": 1}}),
                json!({"a": {"b": 1}}),
            ),
            (
                "empty overlay is identity",
                json!({"a": {"b": [1]}, "c": true}),
                json!({}),
                json!({"a": {"b": [1]}, "c": true}),
            ),
            (
                "empty map overlay keeps base map",
                json!({"a": {"b": 1}}),
                json!({"a": {}}),
                json!({"a": {"b": 1}}),
            ),
            (
                "top-level null overlay leaves base",
                json!({"a": 1}),
                Value::Null,
                json!({"a": 1}),
            ),
            (
                "top-level scalar overlay wins",
                json!({"a": 1}),
                json!(5),
                json!(5),
            ),
            (
                "scalar types replace each other",
                json!({"a": 1, "b": "x", "c": true}),
                json!({"a": "1", "b": 2.5, "c": false}),
                json!({"a": "1", "b": 2.5, "c": false}),
            ),
        ];
        for (name, base, overlay, want) in cases {
            assert_eq!(merge(&base, &overlay), want, "case {name}");
        }
    }

    #[test]
    fn merge_layers_table() {
        let cases: Vec<(&str, Vec<Value>, Value)> = vec![
            ("no layers", vec![], json!({})),
            ("one layer", vec![json!({"a": 1})], json!({"a": 1})),
            (
                "one layer with nulls",
                vec![json!({"a": 1, "b": null, "c": {"d": null}})],
                json!({"a": 1, "c": {}}),
            ),
            (
                "null deletes, later layer re-adds",
                vec![
                    json!({"a": {"x": 1, "y": 2}}),
                    json!({"a": null}),
                    json!({"a": {"x": 3}}),
                ],
                json!({"a": {"x": 3}}),
            ),
            (
                "null layer is skipped",
                vec![json!({"a": 1}), Value::Null, json!({"b": 2})],
                json!({"a": 1, "b": 2}),
            ),
        ];
        for (name, layers, want) in cases {
            assert_eq!(merge_layers(&layers), want, "case {name}");
        }
    }

    #[test]
    fn merge_overrides_table() {
        let cases: Vec<(&str, Vec<Value>, Value)> = vec![
            ("no layers", vec![], json!({})),
            (
                "null kept",
                vec![json!({"a": 1, "b": {"c": 2}}), json!({"b": null})],
                json!({"a": 1, "b": null}),
            ),
            (
                "null for a key no layer has is kept",
                vec![json!({"a": 1}), json!({"x": {"y": null}})],
                json!({"a": 1, "x": {"y": null}}),
            ),
            (
                "null replaced by a later value",
                vec![json!({"a": null}), json!({"a": 5})],
                json!({"a": 5}),
            ),
            (
                "map over null replaces the null",
                vec![json!({"a": null}), json!({"a": {"x": 1, "y": null}})],
                json!({"a": {"x": 1, "y": null}}),
            ),
            (
                "deep merge and list replace as in merge",
                vec![
                    json!({"c": {"args": [1, 2], "k": {"x": 1}}}),
                    json!({"c": {"args": [3], "k": {"y": 2}}}),
                ],
                json!({"c": {"args": [3], "k": {"x": 1, "y": 2}}}),
            ),
        ];
        for (name, layers, want) in cases {
            assert_eq!(merge_overrides(&layers), want, "case {name}");
        }
    }

    /// The example from the product: ingress-nginx with four layers.
    #[test]
    fn four_layer_precedence_ingress_nginx() {
        let chart = json!({
            "controller": {
                "replicaCount": 1,
                "service": {"type": "LoadBalancer", "annotations": {}},
                "extraArgs": {},
                "nodeSelector": {"kubernetes.io/os": "linux"},
                "tolerations": [{"key": "a"}],
                "metrics": {"enabled": false},
            },
            "defaultBackend": {"enabled": false},
        });
        let service_template = json!({
            "controller": {
                "replicaCount": 2,
                "metrics": {"enabled": true},
                "tolerations": [{"key": "b"}, {"key": "c"}],
            },
        });
        let cluster_template = json!({
            "controller": {
                "replicaCount": 3,
                "service": {"type": "NodePort"},
                "nodeSelector": null,
            },
        });
        let managed_cluster = json!({
            "controller": {"replicaCount": 5, "tolerations": []},
            "defaultBackend": {"enabled": true},
        });
        let user = [&service_template, &cluster_template, &managed_cluster];

        let effective = merge_layers([
            &chart,
            &service_template,
            &cluster_template,
            &managed_cluster,
        ]);
        assert_eq!(
            effective,
            json!({
                "controller": {
                    "replicaCount": 5,
                    "service": {"type": "NodePort", "annotations": {}},
                    "extraArgs": {},
                    "tolerations": [],
                    "metrics": {"enabled": true},
                },
                "defaultBackend": {"enabled": true},
            })
        );
        assert_eq!(effective["controller"]["replicaCount"], json!(5));
        assert_eq!(
            effective["controller"]["service"]["type"],
            json!("NodePort")
        );

        let overrides = merge_overrides(user);
        assert_eq!(
            overrides,
            json!({
                "controller": {
                    "replicaCount": 5,
                    "service": {"type": "NodePort"},
                    "nodeSelector": null,
                    "tolerations": [],
                    "metrics": {"enabled": true},
                },
                "defaultBackend": {"enabled": true},
            })
        );
        // Helm puts the chart defaults under the overrides: same result.
        assert_eq!(merge(&chart, &overrides), effective);
        // Lower layers lose one by one as higher ones are removed.
        assert_eq!(
            merge_layers([&chart, &service_template])["controller"]["replicaCount"],
            json!(2)
        );
        assert_eq!(
            merge_layers([&chart, &service_template, &cluster_template])["controller"]["replicaCount"],
            json!(3)
        );
    }

    /// The documented caveat of `merge_overrides`: a map over a lower
    /// layer's null does not hide the chart's default map from Helm.
    #[test]
    fn overrides_cannot_reset_a_default_map() {
        let chart = json!({"k": {"x": 0, "y": 2}});
        let lower = json!({"k": null});
        let higher = json!({"k": {"x": 1}});
        assert_eq!(
            merge_layers([&chart, &lower, &higher]),
            json!({"k": {"x": 1}})
        );
        let overrides = merge_overrides([&lower, &higher]);
        assert_eq!(overrides, json!({"k": {"x": 1}}));
        assert_eq!(merge(&chart, &overrides), json!({"k": {"x": 1, "y": 2}}));
    }

    // ---- parse ------------------------------------------------------------

    #[test]
    fn parse_empty_inputs_give_empty_object() {
        for text in [
            "",
            "   ",
            "\n\n",
            "  \n\t\n",
            "# just a comment\n",
            "# a\n  # b\n",
            "\t# tabbed comment\r\n",
            "---\n",
            "~",
            "null\n",
        ] {
            assert_eq!(parse_values(text), Ok(json!({})), "input {text:?}");
        }
    }

    #[test]
    fn parse_mapping() {
        let text = "controller:\n  replicaCount: 2\n  service:\n    type: NodePort\n  extraArgs: [\"--v=2\"]\n  nodeSelector: null\n";
        assert_eq!(
            parse_values(text),
            Ok(json!({"controller": {
                "replicaCount": 2,
                "service": {"type": "NodePort"},
                "extraArgs": ["--v=2"],
                "nodeSelector": null,
            }}))
        );
    }

    #[test]
    fn parse_anchors_and_merge_keys() {
        let text = "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n";
        assert_eq!(
            parse_values(text),
            Ok(json!({"base": {"x": 1, "y": 2}, "d": {"x": 1, "y": 3}}))
        );
    }

    #[test]
    fn parse_scalar_keys_become_strings() {
        assert_eq!(
            parse_values("1: a\ntrue: b\n1.5: c\n"),
            Ok(json!({"1": "a", "true": "b", "1.5": "c"}))
        );
    }

    #[test]
    fn parse_refuses_what_json_cannot_hold() {
        let cases = [
            ("a: .nan\n", "a", ".nan cannot be represented in JSON"),
            (
                "a:\n  list: [1, .inf]\n",
                "a.list[1]",
                ".inf cannot be represented in JSON",
            ),
            ("~: x\n", "", "a null map key is not supported"),
            (
                "a:\n  [1]: x\n",
                "a",
                "a list as a map key is not supported",
            ),
            ("a: !foo 1\n", "a", "unsupported YAML tag !foo"),
            (
                "x:\n  1: a\n  \"1\": b\n",
                "x.1",
                "duplicate key \"1\" once keys are converted to strings",
            ),
        ];
        for (text, path, message) in cases {
            assert_eq!(
                parse_values(text),
                Err(ValuesError::Invalid {
                    path: path.into(),
                    message: message.into()
                }),
                "input {text:?}"
            );
        }
    }

    #[test]
    fn parse_unclosed_flow_list_reports_position() {
        let err = parse_values("a: 1\nb: [1, 2\n").unwrap_err();
        let ValuesError::Syntax {
            line,
            column,
            message,
        } = &err
        else {
            panic!("want Syntax, got {err:?}");
        };
        assert_eq!((*line, *column), (3, 1));
        assert!(!message.is_empty());
        assert_eq!(
            message,
            "did not find expected ',' or ']', while parsing a flow sequence at line 2 column 4"
        );
        assert_eq!(
            err.to_string(),
            "line 3, column 1: did not find expected ',' or ']', while parsing a flow sequence at line 2 column 4"
        );
    }

    #[test]
    fn parse_bad_indentation_reports_position() {
        // Dedented by one: the parser expects another key of `a`'s map.
        let err = parse_values("a:\n  b: 1\n c: 2\n").unwrap_err();
        assert_eq!(
            err,
            ValuesError::Syntax {
                line: 3,
                column: 2,
                message: "did not find expected key, while parsing a block mapping".into(),
            }
        );
        assert_eq!(
            err.to_string(),
            "line 3, column 2: did not find expected key, while parsing a block mapping"
        );

        // Indented by one more: `c: 2` continues the scalar `1`.
        let err = parse_values("a:\n  b: 1\n   c: 2\n").unwrap_err();
        assert_eq!(
            err,
            ValuesError::Syntax {
                line: 3,
                column: 5,
                message: "mapping values are not allowed in this context".into(),
            }
        );
        assert_eq!(
            err.to_string(),
            "line 3, column 5: mapping values are not allowed in this context"
        );
    }

    #[test]
    fn parse_other_syntax_errors_have_positions() {
        let cases = [
            ("a: 'open\n", 2, 1),
            ("\tfoo: 1\n", 1, 1),
            ("a: b: c\n", 1, 5),
            ("key: *nope\n", 1, 6),
            ("x:\n  a: 1\n  a: 2\n", 2, 3),
        ];
        for (text, want_line, want_column) in cases {
            match parse_values(text) {
                Err(ValuesError::Syntax {
                    line,
                    column,
                    message,
                }) => {
                    assert_eq!((line, column), (want_line, want_column), "input {text:?}");
                    assert!(!message.is_empty(), "input {text:?}");
                    assert!(!message.contains(&format!(" at line {line} column {column}")));
                }
                other => panic!("input {text:?}: want Syntax, got {other:?}"),
            }
        }
    }

    #[test]
    fn parse_duplicate_key_is_an_error() {
        let err = parse_values("x:\n  a: 1\n  a: 2\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2, column 3: x: duplicate entry with key \"a\""
        );
    }

    #[test]
    fn parse_top_level_must_be_a_mapping() {
        let cases = [
            ("- 1\n- 2\n", "a list"),
            ("[a, b]", "a list"),
            ("hello", "a string"),
            ("42", "a number"),
            ("true", "a boolean"),
        ];
        for (text, found) in cases {
            let err = parse_values(text).unwrap_err();
            assert_eq!(err, ValuesError::NotAMapping { found }, "input {text:?}");
        }
        assert_eq!(
            parse_values("- a\n").unwrap_err().to_string(),
            "values must be a YAML mapping, got a list"
        );
    }

    #[test]
    fn parse_several_documents_is_an_error() {
        let err = parse_values("a: 1\n---\nb: 2\n").unwrap_err();
        assert!(
            matches!(&err, ValuesError::Invalid { path, .. } if path.is_empty()),
            "{err:?}"
        );
        assert!(!err.to_string().is_empty());
    }

    // ---- limits -----------------------------------------------------------

    fn bomb(anchor: usize, refs: usize) -> String {
        format!(
            "a: &a [{}]\nb: [{}]\n",
            vec!["x"; anchor].join(","),
            vec!["*a"; refs].join(",")
        )
    }

    #[test]
    fn parse_refuses_each_limit_with_its_message() {
        let max = Limits::VALUES.bytes;
        let cases: Vec<(String, &str)> = vec![
            (
                bomb(10_000, 10_000),
                "more than 100,000 nodes after expanding aliases",
            ),
            (
                format!("a: 1\n#{}\n", "x".repeat(max)),
                "131,079 bytes, more than the limit of 131,072",
            ),
            // Blank text is measured too, before anything else.
            (
                " ".repeat(max + 1),
                "131,073 bytes, more than the limit of 131,072",
            ),
            (
                format!("a: {}1{}\n", "[".repeat(64), "]".repeat(64)),
                "nested more than 64 levels deep",
            ),
            (
                format!(
                    "a: &s {}\nb: [{}]\n",
                    "x".repeat(60_000),
                    vec!["*s"; 20].join(",")
                ),
                "more than 1,048,576 bytes of keys and strings after expanding aliases",
            ),
        ];
        for (text, want) in cases {
            let err = parse_values(&text).unwrap_err();
            assert!(err.is_limit(), "{err:?}");
            assert_eq!(err.to_string(), want);
        }
    }

    #[test]
    fn parse_accepts_what_stays_within_the_limits() {
        // The largest text, in bytes, with multi-byte characters.
        let max = Limits::VALUES.bytes;
        let mut text = String::from("a: 1\n#");
        while text.len() + 3 <= max {
            text.push('é');
        }
        text.push_str(&"x".repeat(max - 1 - text.len()));
        text.push('\n');
        assert_eq!(text.len(), max);
        assert_eq!(parse_values(&text), Ok(json!({"a": 1})));
        // 63 levels under the top-level map.
        let deep = format!("a: {}1{}\n", "[".repeat(63), "]".repeat(63));
        assert!(parse_values(&deep).is_ok());
        // Aliases that expand within the limits, merge keys included.
        let shared = bomb(300, 300);
        let value = parse_values(&shared).unwrap();
        assert_eq!(value["b"].as_array().map(Vec::len), Some(300));
        assert_eq!(value["b"][299].as_array().map(Vec::len), Some(300));
    }

    #[test]
    fn chart_limits_are_larger() {
        let text = format!("a: 1\n#{}\n", "x".repeat(Limits::VALUES.bytes));
        assert_eq!(
            parse_values_within(&text, &Limits::CHART),
            Ok(json!({"a": 1}))
        );
        assert!(parse_values_within(&bomb(400, 400), &Limits::CHART).is_ok());
        assert_eq!(
            parse_values_within(&bomb(500, 500), &Limits::CHART)
                .unwrap_err()
                .to_string(),
            "more than 200,000 nodes after expanding aliases"
        );
    }

    // ---- diff -------------------------------------------------------------

    fn ch(path: &str, old: Option<Value>, new: Option<Value>) -> Change {
        Change {
            path: path.into(),
            old,
            new,
        }
    }

    #[test]
    fn diff_table() {
        let cases: Vec<(&str, Value, Value, Vec<Change>)> = vec![
            (
                "equal",
                json!({"a": {"b": 1}}),
                json!({"a": {"b": 1}}),
                vec![],
            ),
            (
                "changed leaf",
                json!({"controller": {"replicaCount": 2}}),
                json!({"controller": {"replicaCount": 3}}),
                vec![ch(
                    "controller.replicaCount",
                    Some(json!(2)),
                    Some(json!(3)),
                )],
            ),
            (
                "added and removed leaves, sorted",
                json!({"controller": {"bar": 1, "keep": true}}),
                json!({"controller": {"foo": "bar", "keep": true}}),
                vec![
                    ch("controller.bar", Some(json!(1)), None),
                    ch("controller.foo", None, Some(json!("bar"))),
                ],
            ),
            (
                "lists compare whole",
                json!({"args": [1, 2, 3]}),
                json!({"args": [1, 2, 4]}),
                vec![ch("args", Some(json!([1, 2, 3])), Some(json!([1, 2, 4])))],
            ),
            (
                "removed subtree shows its leaves",
                json!({"a": {"b": 1, "c": {"d": 2}}}),
                json!({}),
                vec![
                    ch("a.b", Some(json!(1)), None),
                    ch("a.c.d", Some(json!(2)), None),
                ],
            ),
            (
                "empty map is a leaf",
                json!({}),
                json!({"a": {}}),
                vec![ch("a", None, Some(json!({})))],
            ),
            (
                "map to scalar is one change",
                json!({"s": {"type": "LB"}}),
                json!({"s": "none"}),
                vec![ch("s", Some(json!({"type": "LB"})), Some(json!("none")))],
            ),
            (
                "null is a value",
                json!({"a": null}),
                json!({"a": 1}),
                vec![ch("a", Some(Value::Null), Some(json!(1)))],
            ),
            (
                "dotted key is escaped",
                json!({"podAnnotations": {"prometheus.io/scrape": "true"}}),
                json!({"podAnnotations": {}}),
                vec![ch(
                    "podAnnotations.prometheus\\.io/scrape",
                    Some(json!("true")),
                    None,
                )],
            ),
            (
                "root scalars",
                json!(1),
                json!(2),
                vec![ch("", Some(json!(1)), Some(json!(2)))],
            ),
            (
                "sorted by path string",
                json!({}),
                json!({"b": 1, "a": {"z": 1}, "a-b": 2}),
                vec![
                    ch("a-b", None, Some(json!(2))),
                    ch("a.z", None, Some(json!(1))),
                    ch("b", None, Some(json!(1))),
                ],
            ),
        ];
        for (name, old, new, want) in cases {
            assert_eq!(diff(&old, &new), want, "case {name}");
        }
    }

    #[test]
    fn change_display() {
        let cases = [
            (
                ch("controller.replicaCount", Some(json!(2)), Some(json!(3))),
                "controller.replicaCount: 2 → 3",
            ),
            (
                ch("controller.foo", None, Some(json!("bar"))),
                "+ controller.foo: bar",
            ),
            (
                ch("controller.bar", Some(json!(1)), None),
                "- controller.bar: 1",
            ),
            (
                ch("a", Some(json!([1, "x"])), Some(json!({"k": true}))),
                r#"a: [1,"x"] → {"k":true}"#,
            ),
            (
                ch("a", Some(Value::Null), Some(json!(false))),
                "a: null → false",
            ),
            (
                ch("a", Some(json!("")), Some(json!("two\nlines"))),
                r#"a: "" → "two\nlines""#,
            ),
            (ch("", Some(json!(1)), Some(json!(2))), "(root): 1 → 2"),
        ];
        for (change, want) in cases {
            assert_eq!(change.to_string(), want);
        }
    }

    // ---- to_yaml ----------------------------------------------------------

    #[test]
    fn to_yaml_table() {
        assert_eq!(to_yaml(&json!({})), "{}\n");
        assert_eq!(
            // Keys already sorted: serde_json may or may not keep insertion
            // order depending on crate features.
            to_yaml(&json!({"controller": {"args": ["a", "b"], "replicaCount": 2}})),
            "controller:\n  args:\n  - a\n  - b\n  replicaCount: 2\n"
        );
        assert_eq!(
            to_yaml(&json!({"s": "123", "t": "true"})),
            "s: '123'\nt: 'true'\n"
        );
    }

    // ---- properties -------------------------------------------------------

    fn key() -> impl Strategy<Value = String> {
        // Few keys so that layers collide often; one with a dot to exercise
        // path escaping.
        prop::sample::select(vec!["a", "b", "c", "a.b"]).prop_map(String::from)
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[a-z]{0,3}",
            1 => prop::sample::select(vec!["yes", "null", "~", "1.5", "0x10", "a: b", "- x", "#c", "two\nlines", "true"])
                .prop_map(String::from),
        ]
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            (-3i64..4).prop_map(Value::from),
            text().prop_map(Value::String),
            any::<bool>().prop_map(Value::Bool),
        ]
    }

    fn object(entries: std::collections::BTreeMap<String, Value>) -> Value {
        Value::Object(entries.into_iter().collect())
    }

    /// Values with no null anywhere: what merge_layers produces.
    fn plain() -> BoxedStrategy<Value> {
        leaf()
            .prop_recursive(4, 32, 4, |inner| {
                prop_oneof![
                    prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                    prop::collection::btree_map(key(), inner, 0..4).prop_map(object),
                ]
            })
            .boxed()
    }

    fn plain_object() -> BoxedStrategy<Value> {
        prop::collection::btree_map(key(), plain(), 0..4)
            .prop_map(object)
            .boxed()
    }

    /// Overlay values: nulls may appear as map values (deletions); lists
    /// are null-free.
    fn overlay() -> BoxedStrategy<Value> {
        prop_oneof![
            3 => leaf(),
            1 => prop::collection::vec(plain(), 0..3).prop_map(Value::Array),
            1 => Just(Value::Null),
        ]
        .prop_recursive(4, 32, 4, |inner| {
            prop::collection::btree_map(key(), inner, 0..4).prop_map(object)
        })
        .boxed()
    }

    fn overlay_object() -> BoxedStrategy<Value> {
        prop::collection::btree_map(key(), overlay(), 0..4)
            .prop_map(object)
            .boxed()
    }

    fn contains_null(value: &Value) -> bool {
        match value {
            Value::Null => true,
            Value::Array(items) => items.iter().any(contains_null),
            Value::Object(map) => map.values().any(contains_null),
            _ => false,
        }
    }

    /// Every non-null overlay leaf is in the result, every null overlay key
    /// is absent, and every overlay map is a map in the result.
    fn overlay_wins(result: &Value, overlay: &Value) -> bool {
        let (Value::Object(r), Value::Object(o)) = (result, overlay) else {
            return false;
        };
        o.iter().all(|(k, v)| match v {
            Value::Null => !r.contains_key(k),
            Value::Object(_) => r.get(k).is_some_and(|rv| overlay_wins(rv, v)),
            leaf => r.get(k) == Some(leaf),
        })
    }

    /// True when somewhere `lower` has a non-map (scalar, list or null) and
    /// `higher` has a map: the case `merge_overrides` cannot express.
    fn has_reset(lower: &Value, higher: &Value) -> bool {
        match (lower, higher) {
            (Value::Object(l), Value::Object(h)) => h
                .iter()
                .any(|(k, hv)| l.get(k).is_some_and(|lv| has_reset(lv, hv))),
            (_, Value::Object(_)) => true,
            _ => false,
        }
    }

    /// Nodes (keys included) and depth of a value.
    fn size_of(value: &Value) -> (usize, usize) {
        let below = |items: &mut dyn Iterator<Item = (usize, usize)>| {
            items.fold((1, 1), |(n, d), (cn, cd)| (n + cn, d.max(cd + 1)))
        };
        match value {
            Value::Array(items) => below(&mut items.iter().map(size_of)),
            Value::Object(map) => below(&mut map.values().map(|v| {
                let (n, d) = size_of(v);
                (n + 1, d)
            })),
            _ => (1, 0),
        }
    }

    /// Values text with anchors, aliases of aliases, merge keys, long
    /// strings and deep nesting, sized around the limits.
    fn hostile_values() -> impl Strategy<Value = String> {
        (
            0..400usize,
            0..400usize,
            0..40usize,
            0..80usize,
            0..20_000usize,
            0..100usize,
            any::<bool>(),
        )
            .prop_map(|(items, refs, again, deep, long, copies, merge)| {
                let mut text = format!(
                    "a: &a [{}]\nb: &b [{}]\nc: [{}]\ns: &s '{}'\nt: [{}]\nd: {}1{}\n",
                    vec!["x"; items].join(","),
                    vec!["*a"; refs].join(","),
                    vec!["*b"; again].join(","),
                    "y".repeat(long),
                    vec!["*s"; copies].join(","),
                    "[".repeat(deep),
                    "]".repeat(deep),
                );
                if merge {
                    text.push_str("m: &m {k: *b}\nn: {<<: *m, j: *a}\n");
                }
                text
            })
    }

    proptest! {
        // Each case parses up to 128 KiB and expands up to the limits.
        #![proptest_config(ProptestConfig::with_cases(48))]

        #[test]
        fn prop_parse_stays_within_limits(text in hostile_values()) {
            match parse_values(&text) {
                Ok(value) => {
                    let (nodes, depth) = size_of(&value);
                    prop_assert!(nodes <= Limits::VALUES.nodes, "{nodes} nodes");
                    prop_assert!(depth <= Limits::VALUES.depth, "{depth} deep");
                }
                // The generator writes only valid YAML: a refusal is a limit.
                Err(e) => prop_assert!(e.is_limit(), "{e}"),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn prop_empty_overlay_is_identity(a in plain_object()) {
            prop_assert_eq!(merge(&a, &json!({})), a.clone());
            prop_assert_eq!(merge(&json!({}), &a), a.clone());
            prop_assert_eq!(merge_layers([&a]), a);
        }

        #[test]
        fn prop_merge_is_idempotent(a in plain_object(), b in overlay_object()) {
            let once = merge(&a, &b);
            prop_assert_eq!(merge(&once, &b), once);
        }

        #[test]
        fn prop_overlay_wins(a in plain_object(), b in overlay_object()) {
            let merged = merge(&a, &b);
            prop_assert!(overlay_wins(&merged, &b), "merged = {}", merged);
        }

        #[test]
        fn prop_merge_layers_has_no_null(
            layers in prop::collection::vec(overlay_object(), 0..5)
        ) {
            let merged = merge_layers(&layers);
            prop_assert!(merged.is_object());
            prop_assert!(!contains_null(&merged), "merged = {}", merged);
        }

        #[test]
        fn prop_overrides_without_defaults_equal_layers(
            layers in prop::collection::vec(overlay_object(), 0..5)
        ) {
            prop_assert_eq!(merge(&json!({}), &merge_overrides(&layers)), merge_layers(&layers));
        }

        #[test]
        fn prop_overrides_associate_without_resets(
            a in plain_object(), b in overlay_object(), c in overlay_object()
        ) {
            if !has_reset(&b, &c) {
                prop_assert_eq!(
                    merge(&merge(&a, &b), &c),
                    merge(&a, &merge_overrides([&b, &c]))
                );
                prop_assert_eq!(
                    merge_layers([&a, &b, &c]),
                    merge(&a, &merge_overrides([&b, &c]))
                );
            }
        }

        #[test]
        fn prop_null_free_layers_associate(
            a in plain_object(), b in plain_object(), c in plain_object()
        ) {
            // Even without nulls a scalar-then-map pair is a reset.
            if !has_reset(&b, &c) {
                prop_assert_eq!(merge(&merge(&a, &b), &c), merge(&a, &merge(&b, &c)));
            }
        }

        #[test]
        fn prop_diff_empty_iff_equal(a in plain(), b in plain()) {
            prop_assert_eq!(diff(&a, &b).is_empty(), a == b);
            prop_assert!(diff(&a, &a).is_empty());
        }

        #[test]
        fn prop_diff_sorted_unique_and_real(a in overlay_object(), b in overlay_object()) {
            let changes = diff(&a, &b);
            prop_assert_eq!(changes.is_empty(), a == b);
            for pair in changes.windows(2) {
                prop_assert!(pair[0].path < pair[1].path, "{:?}", changes);
            }
            for change in &changes {
                prop_assert!(change.old != change.new);
            }
        }

        #[test]
        fn prop_parse_never_panics(text in any::<String>()) {
            let _ = parse_values(&text);
        }

        #[test]
        fn prop_to_yaml_round_trips(a in plain_object()) {
            let text = to_yaml(&a);
            prop_assert_eq!(parse_values(&text), Ok(a), "yaml = {}", text);
        }
    }
}
