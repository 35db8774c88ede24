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
        serde_yaml::Value::Mapping(_) => yaml_to_json(doc, &Path::Top),
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

/// Where a value sits in the document, for error messages: spelt out only
/// when there is an error, as every value of every parse has one.
enum Path<'a> {
    Top,
    Key(&'a Path<'a>, &'a str),
    Item(&'a Path<'a>, usize),
}

impl fmt::Display for Path<'_> {
    /// In the dotted form of [`Change::path`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Path::Top => Ok(()),
            Path::Key(parent, key) => f.write_str(&push_key(&parent.to_string(), key)),
            Path::Item(parent, i) => write!(f, "{parent}[{i}]"),
        }
    }
}

/// Converts parsed YAML to JSON; `path` names `value` in error messages.
fn yaml_to_json(value: serde_yaml::Value, path: &Path<'_>) -> Result<Value, ValuesError> {
    use serde_yaml::Value as Y;
    let invalid = |message: String| invalid(&path.to_string(), message);
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
                None => return Err(invalid(format!("{n} cannot be represented in JSON"))),
            }
        }
        Y::Sequence(items) => Value::Array(
            items
                .into_iter()
                .enumerate()
                .map(|(i, item)| yaml_to_json(item, &Path::Item(path, i)))
                .collect::<Result<_, _>>()?,
        ),
        Y::Mapping(mapping) => {
            let mut out = Map::new();
            for (k, v) in mapping {
                let key = yaml_key(k, path)?;
                if out.contains_key(&key) {
                    let child = Path::Key(path, &key).to_string();
                    return Err(self::invalid(
                        &child,
                        format!("duplicate key {key:?} once keys are converted to strings"),
                    ));
                }
                let v = yaml_to_json(v, &Path::Key(path, &key))?;
                out.insert(key, v);
            }
            Value::Object(out)
        }
        Y::Tagged(tagged) => {
            return Err(invalid(format!("unsupported YAML tag {}", tagged.tag)));
        }
    })
}

/// JSON keys are strings; scalar YAML keys are converted the way Kubernetes'
/// YAML-to-JSON conversion does, anything else is refused.
fn yaml_key(key: serde_yaml::Value, path: &Path<'_>) -> Result<String, ValuesError> {
    use serde_yaml::Value as Y;
    let invalid = |message: String| invalid(&path.to_string(), message);
    match key {
        Y::String(s) => Ok(s),
        Y::Bool(b) => Ok(b.to_string()),
        Y::Number(n) => Ok(n.to_string()),
        Y::Null => Err(invalid("a null map key is not supported".into())),
        other => Err(invalid(format!(
            "{} as a map key is not supported",
            yaml_kind(&other)
        ))),
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
                let nv = n.get(key);
                // Equal values have no differences: no path to spell.
                if nv != Some(ov) {
                    diff_at(&push_key(path, key), Some(ov), nv, out);
                }
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
mod tests;
