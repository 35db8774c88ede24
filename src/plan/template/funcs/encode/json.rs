//! Go's `encoding/json` on a value: keys sorted, `<>&` escaped as
//! `\u003c\u003e\u0026` unless asked not to, U+2028 and U+2029 always
//! escaped, floats in exponent form only below 1e-6 or from 1e21 on. And
//! the reading side, as `json.Unmarshal` into an `interface{}` reads:
//! every number a float64.

use super::super::super::value::Value;
use super::super::sprig::MAX_DEPTH;

/// Why a value was not encoded.
pub(super) enum Refusal {
    /// What Go's encoder refuses, with Go's text.
    Unsupported(String),
    /// Past the output limit or too deep.
    Bounded(String),
}

/// How the text is laid out.
#[derive(Clone, Copy)]
pub(super) struct Layout {
    pub escape_html: bool,
    /// `MarshalIndent(v, "", "  ")`.
    pub pretty: bool,
}

/// `v` as Go's encoder writes it, within `limit` bytes.
pub(super) fn encode(v: &Value, layout: Layout, limit: usize) -> Result<String, Refusal> {
    check_encodable(v, 0)?;
    let mut out = String::new();
    write(&mut out, v, layout, 0, limit)?;
    Ok(out)
}

/// The refusals `json.Marshal` would make, before anything is written:
/// a NaN or infinite float, a value nested too deep.
pub(super) fn check_encodable(v: &Value, depth: usize) -> Result<(), Refusal> {
    if depth > MAX_DEPTH {
        return Err(Refusal::Bounded(format!(
            "a value nested deeper than {MAX_DEPTH}"
        )));
    }
    match v {
        Value::Float(f) if !f.is_finite() => Err(Refusal::Unsupported(format!(
            "json: unsupported value: {}",
            super::super::super::value::go_float(*f)
        ))),
        Value::List(items) => items.iter().try_for_each(|i| check_encodable(i, depth + 1)),
        Value::Map(m) => m.values().try_for_each(|i| check_encodable(i, depth + 1)),
        _ => Ok(()),
    }
}

fn push(out: &mut String, text: &str, limit: usize) -> Result<(), Refusal> {
    if out.len() + text.len() > limit {
        return Err(Refusal::Bounded(format!(
            "the JSON would be longer than the output limit of {limit} bytes"
        )));
    }
    out.push_str(text);
    Ok(())
}

fn newline(out: &mut String, layout: Layout, depth: usize, limit: usize) -> Result<(), Refusal> {
    if layout.pretty {
        push(out, "\n", limit)?;
        push(out, &"  ".repeat(depth.min(MAX_DEPTH + 1)), limit)?;
    }
    Ok(())
}

fn write(
    out: &mut String,
    v: &Value,
    layout: Layout,
    depth: usize,
    limit: usize,
) -> Result<(), Refusal> {
    match v {
        Value::Nil => push(out, "null", limit),
        Value::Bool(b) => push(out, if *b { "true" } else { "false" }, limit),
        Value::Int(i) | Value::GoInt(i) => push(out, &i.to_string(), limit),
        Value::Float(f) => push(out, &float(*f), limit),
        Value::String(s) => push(out, &string(s, layout.escape_html), limit),
        // A `*semver.Version` marshals as its `String()`.
        Value::Version(v) => push(out, &string(&v.canonical(), layout.escape_html), limit),
        Value::List(items) => {
            if items.is_empty() {
                return push(out, "[]", limit);
            }
            push(out, "[", limit)?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    push(out, ",", limit)?;
                }
                newline(out, layout, depth + 1, limit)?;
                write(out, item, layout, depth + 1, limit)?;
            }
            newline(out, layout, depth, limit)?;
            push(out, "]", limit)
        }
        Value::Map(m) => {
            if m.is_empty() {
                return push(out, "{}", limit);
            }
            push(out, "{", limit)?;
            for (i, (key, value)) in m.iter().enumerate() {
                if i > 0 {
                    push(out, ",", limit)?;
                }
                newline(out, layout, depth + 1, limit)?;
                push(out, &string(key, layout.escape_html), limit)?;
                push(out, if layout.pretty { ": " } else { ":" }, limit)?;
                write(out, value, layout, depth + 1, limit)?;
            }
            newline(out, layout, depth, limit)?;
            push(out, "}", limit)
        }
    }
}

/// A float as Go's encoder writes it: `0.5`, `1000000`, `1e+21`, `1e-7`.
pub(super) fn float(f: f64) -> String {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let scientific = format!("{f:e}");
        let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
        let exponent: i32 = exponent.parse().unwrap_or(0);
        // Go's 'e' format has two exponent digits, which the encoder cuts
        // back to one for negative exponents: `1e-07` → `1e-7`.
        return if exponent < 0 {
            format!("{mantissa}e-{}", -exponent)
        } else {
            format!("{mantissa}e+{exponent:02}")
        };
    }
    // Rust prints the shortest digits that read back, never an exponent.
    format!("{f}")
}

/// A JSON string as Go's encoder quotes it.
pub(super) fn string(s: &str, escape_html: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '<' | '>' | '&' if escape_html => out.push_str(&format!("\\u{:04x}", c as u32)),
            '\u{2028}' | '\u{2029}' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `json.Unmarshal` of `text` into an `interface{}`: numbers as floats,
/// nested at most `max_depth` deep. The error is Go's text where the
/// two parsers agree on the cause.
pub(super) fn decode(text: &str, max_depth: usize) -> Result<Value, String> {
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        if e.is_eof() {
            "unexpected end of JSON input".to_string()
        } else {
            e.to_string()
        }
    })?;
    from_json(&json, 0, max_depth)
}

fn from_json(json: &serde_json::Value, depth: usize, max_depth: usize) -> Result<Value, String> {
    if depth > max_depth {
        return Err(format!("JSON nested deeper than {max_depth}"));
    }
    Ok(match json {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(items) => Value::List(
            items
                .iter()
                .map(|i| from_json(i, depth + 1, max_depth))
                .collect::<Result<_, _>>()?,
        ),
        serde_json::Value::Object(m) => Value::Map(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), from_json(v, depth + 1, max_depth)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}
