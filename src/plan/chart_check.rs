//! Values checked against their chart: keys the chart does not have are
//! warnings, values of the wrong type are errors, each with its path and,
//! when the text shows it, its line and column.
//!
//! - A key is known when the chart's `values.yaml` has it, or its
//!   `values.schema.json` declares it (`properties`, `patternProperties`,
//!   `additionalProperties`). Under a map the chart leaves empty (`{}`,
//!   such as `podAnnotations`) or null, any key goes; so do `global` and
//!   the keys of the chart's dependencies. A key the schema closes
//!   (`additionalProperties: false`) is an error: Helm would refuse it.
//! - A type is wrong when the schema states another (`type`, `enum`), or,
//!   where the schema says nothing, when it clearly differs from the
//!   default's: text where the chart has a number or true/false, a scalar
//!   where it has a map or a list. `null` is always allowed: it removes a
//!   default.
//!
//! Pure.

use serde_json::Value;

use crate::plan::chart::ChartValues;
use crate::plan::key_places::{PathText, Place, Seg, find, places};

/// How bad a finding is: a warning lets the save through, an error does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Warning,
    Error,
}

/// One thing wrong with the values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub path: Vec<Seg>,
    /// In words, the path included.
    pub message: String,
    /// The same, short, for beside its line: `replicaCount: a number in
    /// the chart, not "three"`.
    pub note: String,
    /// 0-based line and column in the text, when it could be placed.
    pub at: Option<(usize, usize)>,
}

impl Finding {
    /// `line 1, column 28: …` (1-based), or the message alone.
    pub fn text(&self) -> String {
        match self.at {
            Some((l, c)) => format!("line {}, column {}: {}", l + 1, c + 1, self.message),
            None => self.message.clone(),
        }
    }
}

/// What is wrong with `values` (parsed from `text`) for `chart`, in text
/// order.
pub fn check(chart: &ChartValues, values: &Value, text: &str) -> Vec<Finding> {
    let mut walk = Walk {
        chart,
        places: places(text),
        out: Vec::new(),
    };
    walk.value(
        &mut Vec::new(),
        values,
        Some(&chart.defaults),
        chart.schema.as_ref(),
    );
    let mut out = walk.out;
    out.sort_by_key(|f| f.at.map_or((usize::MAX, usize::MAX), |a| a));
    out
}

struct Walk<'a> {
    chart: &'a ChartValues,
    places: Vec<(Vec<Seg>, Place)>,
    out: Vec<Finding>,
}

impl<'a> Walk<'a> {
    fn value(
        &mut self,
        path: &mut Vec<Seg>,
        user: &Value,
        default: Option<&'a Value>,
        schema: Option<&'a Value>,
    ) {
        if user.is_null() {
            return;
        }
        let chart: &'a ChartValues = self.chart;
        let schema = schema.map(|s| resolve(chart.schema.as_ref(), s));
        let id = &chart.id;
        let at = PathText(path);
        if let Some(types) = schema.and_then(types) {
            if !types.iter().any(|t| has_type(t, user)) {
                let wanted: Vec<String> = types.iter().map(|t| type_name(t)).collect();
                let what = format!("must be {}, not {}", wanted.join(" or "), shown(user));
                let message = format!(
                    "{at} must be {} by the schema of {id}, not {}",
                    wanted.join(" or "),
                    shown(user)
                );
                return self.push(Level::Error, path, message, what, true);
            }
        } else if let Some(d) = default.filter(|d| clash(d, user)) {
            let message = format!("{at} is {} in {id}, not {}", kind(d), shown(user));
            let what = format!("{} in the chart, not {}", kind(d), shown(user));
            return self.push(Level::Error, path, message, what, true);
        }
        if let Some(allowed) = schema.and_then(|s| s.get("enum")?.as_array())
            && !allowed.contains(user)
        {
            let names: Vec<String> = allowed.iter().map(shown).collect();
            let message = format!(
                "{at} must be one of {} by the schema of {id}, not {}",
                names.join(", "),
                shown(user)
            );
            let what = format!("one of {}, not {}", names.join(", "), shown(user));
            return self.push(Level::Error, path, message, what, true);
        }
        match user {
            Value::Object(map) => {
                let defaults = default.and_then(Value::as_object);
                let declared = schema
                    .and_then(|s| s.get("properties")?.as_object())
                    .is_some_and(|p| !p.is_empty());
                let known_map = declared || defaults.is_some_and(|m| !m.is_empty());
                for (k, v) in map {
                    path.push(Seg::Key(k.clone()));
                    let free = path.len() == 1
                        && (k == "global" || chart.subcharts.iter().any(|s| s == k));
                    let child_default = defaults.and_then(|m| m.get(k));
                    let (known, child_schema) = schema.map_or((false, None), |s| child(s, k));
                    if free {
                        // `global` and the dependencies' values: not this
                        // chart's to check.
                    } else if child_default.is_some() || known {
                        self.value(path, v, child_default, child_schema);
                    } else if schema.is_some_and(closed) {
                        let message = format!(
                            "{} is not allowed by the schema of {}",
                            PathText(path),
                            chart.id
                        );
                        let what = "not allowed by the schema".to_string();
                        self.push(Level::Error, path, message, what, false);
                    } else if known_map {
                        let message = format!("{} is not a value of {}", PathText(path), chart.id);
                        let what = "not a value of the chart".to_string();
                        self.push(Level::Warning, path, message, what, false);
                    }
                    path.pop();
                }
            }
            Value::Array(items) => {
                let item_schema = schema
                    .and_then(|s| s.get("items"))
                    .filter(|s| s.is_object());
                if let Some(item_schema) = item_schema {
                    for (i, v) in items.iter().enumerate() {
                        path.push(Seg::Index(i));
                        self.value(path, v, None, Some(item_schema));
                        path.pop();
                    }
                }
            }
            _ => {}
        }
    }

    fn push(&mut self, level: Level, path: &[Seg], message: String, what: String, on_value: bool) {
        let place = find(&self.places, path);
        let at = place.and_then(|p| {
            if on_value {
                p.value.or(Some(p.key))
            } else {
                Some(p.key)
            }
        });
        self.out.push(Finding {
            level,
            path: path.to_vec(),
            message,
            note: match path.last() {
                Some(Seg::Key(k)) => format!("{k}: {what}"),
                Some(Seg::Index(n)) => format!("[{n}]: {what}"),
                None => what,
            },
            at,
        });
    }
}

/// Follows local `$ref`s (`#/definitions/x`, `#/$defs/x`) within `root`,
/// a few deep.
fn resolve<'s>(root: Option<&'s Value>, mut schema: &'s Value) -> &'s Value {
    let Some(root) = root else {
        return schema;
    };
    for _ in 0..8 {
        let target = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|pointer| root.pointer(pointer));
        match target {
            Some(t) => schema = t,
            None => break,
        }
    }
    schema
}

/// The types a schema states.
fn types(schema: &Value) -> Option<Vec<&str>> {
    match schema.get("type")? {
        Value::String(t) => Some(vec![t.as_str()]),
        Value::Array(ts) => {
            let ts: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            (!ts.is_empty()).then_some(ts)
        }
        _ => None,
    }
}

fn has_type(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64() || v.as_f64().is_some_and(|f| f.fract() == 0.0),
        // A type this checker does not know: not held against the value.
        _ => true,
    }
}

fn type_name(t: &str) -> String {
    match t {
        "object" => "a map".into(),
        "array" => "a list".into(),
        "string" => "a string".into(),
        "boolean" => "true or false".into(),
        "null" => "null".into(),
        "number" => "a number".into(),
        "integer" => "an integer".into(),
        other => other.into(),
    }
}

/// What a schema says of `key` under it: whether it declares it, and its
/// schema when it has one.
fn child<'s>(schema: &'s Value, key: &str) -> (bool, Option<&'s Value>) {
    if let Some(s) = schema.get("properties").and_then(|p| p.get(key)) {
        return (true, Some(s));
    }
    // Patterns are not matched here: any key may be one of them.
    if schema
        .get("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
    {
        return (true, None);
    }
    match schema.get("additionalProperties") {
        Some(s @ Value::Object(_)) => (true, Some(s)),
        Some(Value::Bool(true)) => (true, None),
        _ => (false, None),
    }
}

fn closed(schema: &Value) -> bool {
    schema.get("additionalProperties") == Some(&Value::Bool(false))
}

/// Whether `user` clearly has another type than the chart's `default`.
fn clash(default: &Value, user: &Value) -> bool {
    let numeric = |s: &str| s.trim().parse::<f64>().is_ok();
    match (default, user) {
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Number(_), Value::Number(_)) => false,
        (Value::Number(_), Value::String(s)) => !numeric(s),
        (Value::Bool(_), Value::Bool(_)) => false,
        (Value::Bool(_), Value::String(s)) => !matches!(s.as_str(), "true" | "false"),
        (Value::String(_), Value::String(_) | Value::Number(_) | Value::Bool(_)) => false,
        // An empty string often stands for "not set", whatever comes.
        (Value::String(s), _) => !s.is_empty(),
        (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_)) => false,
        _ => true,
    }
}

/// What kind of value the chart has.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// A value as the message shows it: `"three"`, `3`, `a map`.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 24 => {
            format!("\"{}…\"", s.chars().take(23).collect::<String>())
        }
        Value::String(s) => format!("\"{s}\""),
        Value::Array(_) | Value::Object(_) => kind(v).to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::plan::chart::ChartId;
    use crate::plan::chart::tests::upstream;
    use crate::plan::values::parse_values;

    fn findings(chart: &ChartValues, text: &str) -> Vec<(Level, String)> {
        let values = parse_values(text).unwrap();
        check(chart, &values, text)
            .into_iter()
            .map(|f| (f.level, f.text()))
            .collect()
    }

    #[test]
    fn ingress_nginx_flags_unknown_keys_and_wrong_types() {
        let chart = upstream("4.11.3");
        assert_eq!(
            findings(&chart, "controller: {replicaCount: three, nosuchkey: 1}\n"),
            [
                (
                    Level::Error,
                    "line 1, column 28: controller.replicaCount is a number in ingress-nginx 4.11.3, not \"three\"".to_string()
                ),
                (
                    Level::Warning,
                    "line 1, column 35: controller.nosuchkey is not a value of ingress-nginx 4.11.3".to_string()
                ),
            ]
        );
        let values = parse_values("controller: {replicaCount: three, nosuchkey: 1}").unwrap();
        let notes: Vec<String> = check(
            &chart,
            &values,
            "controller: {replicaCount: three, nosuchkey: 1}",
        )
        .into_iter()
        .map(|f| f.note)
        .collect();
        assert_eq!(
            notes,
            [
                "replicaCount: a number in the chart, not \"three\"",
                "nosuchkey: not a value of the chart"
            ]
        );
        // Block style, and the top level.
        assert_eq!(
            findings(&chart, "replicaCount: 2\ncontroller:\n  service:\n    type: [LoadBalancer]\n"),
            [
                (
                    Level::Warning,
                    "line 1, column 1: replicaCount is not a value of ingress-nginx 4.11.3".to_string()
                ),
                (
                    Level::Error,
                    "line 4, column 11: controller.service.type is a string in ingress-nginx 4.11.3, not a list".to_string()
                ),
            ]
        );
    }

    #[test]
    fn what_the_chart_allows_passes() {
        let chart = upstream("4.11.3");
        let fine = "\
controller:
  replicaCount: \"3\"          # a number in quotes
  podAnnotations: {a: b}      # the chart leaves it empty: free
  service: {type: ClusterIP, annotations: {x: y}}
  metrics: {enabled: \"true\"}
  extraArgs: {v: 2}
  nodeSelector: null          # removes the default
global: {image: {registry: r.example}}
";
        assert_eq!(findings(&chart, fine), []);
        // 4.11.4 reads the same for these keys.
        assert_eq!(findings(&upstream("4.11.4"), fine), []);
    }

    fn schema_chart(schema: Value) -> ChartValues {
        ChartValues {
            id: ChartId {
                name: "web".into(),
                version: "1.0.0".into(),
            },
            defaults: json!({"image": {"tag": "v1"}, "port": 80}),
            schema: Some(schema),
            subcharts: vec!["redis".into()],
        }
    }

    #[test]
    fn a_schema_states_types_enums_and_closed_maps() {
        let chart = schema_chart(json!({
            "type": "object",
            "properties": {
                "port": {"$ref": "#/definitions/port"},
                "mode": {"enum": ["a", "b"]},
                "image": {"type": "object", "additionalProperties": false,
                          "properties": {"tag": {"type": "string"}}},
                "extra": {"type": "array", "items": {"type": "object",
                          "properties": {"name": {"type": "string"}}}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            },
            "definitions": {"port": {"type": "integer"}},
        }));
        assert_eq!(
            findings(
                &chart,
                "port: 80.5\nmode: c\nimage: {tag: v2, digest: x}\nextra:\n- name: 1\nlabels: {a: 1}\nredis: {any: thing}\nnew: 1\n"
            ),
            [
                (Level::Error, "line 1, column 7: port must be an integer by the schema of web 1.0.0, not 80.5".to_string()),
                (Level::Error, "line 2, column 7: mode must be one of \"a\", \"b\" by the schema of web 1.0.0, not \"c\"".to_string()),
                (Level::Error, "line 3, column 18: image.digest is not allowed by the schema of web 1.0.0".to_string()),
                (Level::Error, "line 5, column 9: extra[0].name must be a string by the schema of web 1.0.0, not 1".to_string()),
                (Level::Error, "line 6, column 13: labels.a must be a string by the schema of web 1.0.0, not 1".to_string()),
                (Level::Warning, "line 8, column 1: new is not a value of web 1.0.0".to_string()),
            ]
        );
        assert_eq!(
            findings(&chart, "port: 8080\nmode: b\nextra: [{name: x}]\n"),
            []
        );
    }
}

// SHIM until the jsonschema check lands (replaced by the real one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    pub path: String,
    pub message: String,
}
pub fn schema_errors(_chart: &ChartValues, _values: &Value) -> Vec<SchemaError> {
    Vec::new()
}
