//! The CRD fields reference, from the CRDs themselves.

use std::fmt::Write as _;

use serde_json::Value;

use super::text::{header, inline};

/// A table of fields per kind, read from each CRD's OpenAPI schema.
pub fn crds() -> String {
    let mut out = header("CRD fields");
    out.push_str(
        "Every field of the five kinds of `hmc.mirantis.com/v1alpha1`, read from the \
         CRDs that `hmc-tui crds` prints (and `assets/crds/` holds). What they mean \
         together is in [The objects](../concepts/objects.md).\n",
    );
    for crd in crate::api::all_crds() {
        let names = &crd.spec.names;
        let _ = write!(out, "\n## {}\n\n", names.kind);
        let short = names.short_names.clone().unwrap_or_default();
        let _ = writeln!(
            out,
            "`{}`, {}; short names: {}.\n",
            crd.spec.group,
            crd.spec.scope.to_lowercase(),
            if short.is_empty() {
                "none".to_string()
            } else {
                short
                    .iter()
                    .map(|s| format!("`{s}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
        for version in &crd.spec.versions {
            let Some(schema) = version
                .schema
                .as_ref()
                .and_then(|s| s.open_api_v3_schema.as_ref())
            else {
                continue;
            };
            let schema = serde_json::to_value(schema).expect("a schema always serializes");
            if let Some(what) = schema.get("description").and_then(Value::as_str) {
                let _ = writeln!(out, "{}\n", inline(what));
            }
            out.push_str("| field | type | what it says |\n|---|---|---|\n");
            for part in ["spec", "status"] {
                if let Some(field) = schema.pointer(&format!("/properties/{part}")) {
                    let required = required_of(&schema).contains(&part.to_string());
                    rows(&mut out, part, field, required);
                }
            }
        }
    }
    out
}

fn required_of(schema: &Value) -> Vec<String> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// The row of `path` and, depth first, those of the fields under it.
fn rows(out: &mut String, path: &str, schema: &Value, required: bool) {
    let (kind, inner) = type_of(schema);
    let mut notes = Vec::new();
    if required {
        notes.push("required".to_string());
    }
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values.iter().map(|v| format!("`{}`", plain(v))).collect();
        notes.push(format!("one of {}", values.join(", ")));
    }
    if let Some(default) = schema.get("default") {
        notes.push(format!("default `{}`", plain(default)));
    }
    for (key, word) in [
        ("maxLength", "at most {} characters"),
        ("maxItems", "at most {} items"),
        ("minimum", "at least {}"),
        ("maximum", "at most {}"),
    ] {
        if let Some(n) = schema.get(key) {
            notes.push(word.replace("{}", &plain(n)));
        }
    }
    let mut what = schema
        .get("description")
        .and_then(Value::as_str)
        .map(inline)
        .unwrap_or_default();
    if !notes.is_empty() {
        if !what.is_empty() {
            what.push(' ');
        }
        let _ = write!(what, "({})", notes.join("; "));
    }
    let _ = writeln!(out, "| `{path}` | {kind} | {what} |");
    if let Some(props) = inner.get("properties").and_then(Value::as_object) {
        let required = required_of(inner);
        let under = if kind.starts_with("[]") {
            format!("{path}[]")
        } else {
            path.to_string()
        };
        for (name, field) in props {
            rows(
                out,
                &format!("{under}.{name}"),
                field,
                required.contains(name),
            );
        }
    }
}

/// The type as a reader says it (`[]object`, `map[string]string`), and the
/// schema whose fields come under it.
fn type_of(schema: &Value) -> (String, &Value) {
    let ty = schema.get("type").and_then(Value::as_str);
    if ty == Some("array")
        && let Some(items) = schema.get("items")
    {
        let (inner, fields) = type_of(items);
        return (format!("[]{inner}"), fields);
    }
    if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        let (inner, _) = type_of(values);
        return (format!("map[string]{inner}"), schema);
    }
    if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
        return ("any".to_string(), schema);
    }
    if schema.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        return ("int-or-string".to_string(), schema);
    }
    (ty.unwrap_or("any").to_string(), schema)
}

fn plain(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
