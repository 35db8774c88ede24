//! Sveltos' YAML and JSON functions (`toYaml`, `fromYaml`,
//! `fromYamlArray`, `toJson`, `fromJson`, `fromJsonArray`) and Sprig's
//! `toPrettyJson` and `toRawJson`, as their Go writes and reads:
//! `toYaml` through JSON and go-yaml v2's emitter, `toJson` HTML-safe,
//! decoded numbers all float64, and a document that does not read put in
//! the result (an `Error` key, or the list's only item) rather than
//! failing the template.
//!
//! Input to the readers is bounded by the output limit and nested at most
//! [`MAX_NESTING`] deep.

use super::super::value::Value;
use super::sprig::{Map, exact, fits, string};
use super::{Call, Functions};

mod json;
mod read;
mod resolve;
mod yaml;

/// The deepest a document `fromYaml` or `fromJson` reads may nest.
pub const MAX_NESTING: usize = 64;

/// How `sigs.k8s.io/yaml` words a document of the wrong shape, before
/// the JSON decoder's own words.
const YAML_PREFIX: &str = "error unmarshaling JSON: while decoding JSON: ";

/// Adds the encoding functions.
pub fn add(functions: &mut Functions) {
    functions.insert("toYaml", to_yaml);
    functions.insert("toJson", |c, a| to_json(c, a, true, false));
    functions.insert("toPrettyJson", |c, a| to_json(c, a, true, true));
    functions.insert("toRawJson", to_raw_json);
    functions.insert("fromYaml", |c, a| {
        let text = input(c, a)?;
        Ok(into_map(read::yaml(text).map_err(Some), YAML_PREFIX))
    });
    functions.insert("fromYamlArray", |c, a| {
        let text = input(c, a)?;
        Ok(into_list(read::yaml(text).map_err(Some), YAML_PREFIX))
    });
    functions.insert("fromJson", |c, a| {
        let text = input(c, a)?;
        Ok(into_map(json::decode(text, MAX_NESTING).map_err(Some), ""))
    });
    functions.insert("fromJsonArray", |c, a| {
        let text = input(c, a)?;
        Ok(into_list(json::decode(text, MAX_NESTING).map_err(Some), ""))
    });
}

fn to_yaml(call: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 1)?;
    match yaml::to_yaml(&a[0], call.limits.output) {
        Ok(text) => Ok(Value::String(text)),
        // Sveltos swallows a marshal error into "".
        Err(yaml::Refusal::Unsupported) => Ok(Value::String(String::new())),
        Err(yaml::Refusal::Bounded(why)) => Err(why),
    }
}

fn to_json(call: &Call, a: &[Value], escape_html: bool, pretty: bool) -> Result<Value, String> {
    exact(a, 1)?;
    let layout = json::Layout {
        escape_html,
        pretty,
    };
    match json::encode(&a[0], layout, call.limits.output) {
        Ok(text) => Ok(Value::String(text)),
        Err(json::Refusal::Unsupported(_)) => Ok(Value::String(String::new())),
        Err(json::Refusal::Bounded(why)) => Err(why),
    }
}

/// Sprig's `toRawJson`: no HTML escaping, and Go's encoder error is the
/// template's error.
fn to_raw_json(call: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 1)?;
    let layout = json::Layout {
        escape_html: false,
        pretty: false,
    };
    match json::encode(&a[0], layout, call.limits.output) {
        Ok(text) => Ok(Value::String(text)),
        Err(json::Refusal::Unsupported(why) | json::Refusal::Bounded(why)) => Err(why),
    }
}

/// The one string argument of a reader, within the output limit.
fn input<'a>(call: &Call, a: &'a [Value]) -> Result<&'a str, String> {
    exact(a, 1)?;
    let text = string(&a[0])?;
    fits(call, text.len())?;
    Ok(text)
}

/// What a reader gives for a map: the document's map, an empty one for
/// an empty document, or `{"Error": why}`.
fn into_map(read: Result<Value, Option<String>>, prefix: &str) -> Value {
    let why = match read {
        Ok(Value::Map(m)) => return Value::Map(m),
        Ok(Value::Nil) => return Value::Map(Map::new()),
        Ok(other) => format!(
            "{prefix}{}",
            unmarshal_error(&other, "map[string]interface {}")
        ),
        Err(Some(why)) => why,
        Err(None) => return Value::Map(Map::new()),
    };
    let mut m = Map::new();
    m.insert("Error".into(), Value::String(why));
    Value::Map(m)
}

/// What a reader gives for a list: the document's list, an empty one for
/// an empty document, or `[why]`.
fn into_list(read: Result<Value, Option<String>>, prefix: &str) -> Value {
    match read {
        Ok(Value::List(l)) => Value::List(l),
        Ok(Value::Nil) | Err(None) => Value::List(Vec::new()),
        Ok(other) => Value::List(vec![Value::String(format!(
            "{prefix}{}",
            unmarshal_error(&other, "[]interface {}")
        ))]),
        Err(Some(why)) => Value::List(vec![Value::String(why)]),
    }
}

/// `json: cannot unmarshal array into Go value of type …`.
fn unmarshal_error(v: &Value, into: &str) -> String {
    let what = match v {
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::GoInt(_) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::List(_) => "array",
        _ => "object",
    };
    format!("json: cannot unmarshal {what} into Go value of type {into}")
}

#[cfg(test)]
mod tests;
