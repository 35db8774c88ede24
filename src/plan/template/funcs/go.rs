//! Go's own template functions (`text/template`'s builtins), with Go's
//! semantics and error texts: `not len index print printf println eq ne
//! lt le gt ge html js urlquery`. `and` and `or` are the run's own (they
//! stop early); `slice` is Sprig's, which replaces Go's; `call` has
//! nothing to call in values data.

use super::{Call, Functions};
use crate::plan::template::value::{ARITY_ERROR, Value};

pub mod fmt;
pub mod strconv;

/// Adds this module's functions.
pub fn add(functions: &mut Functions) {
    functions.insert("not", not);
    functions.insert("len", len);
    functions.insert("index", index);
    functions.insert("print", print);
    functions.insert("printf", printf);
    functions.insert("println", println);
    functions.insert("eq", eq);
    functions.insert("ne", ne);
    functions.insert("lt", lt);
    functions.insert("le", le);
    functions.insert("gt", gt);
    functions.insert("ge", ge);
    functions.insert("html", html);
    functions.insert("js", js);
    functions.insert("urlquery", urlquery);
}

/// Go's error for a call with the wrong count of arguments.
fn want(name: &str, args: &[Value], count: usize) -> Result<(), String> {
    if args.len() == count {
        return Ok(());
    }
    Err(format!(
        "{ARITY_ERROR}{name}: want {count} got {}",
        args.len()
    ))
}

fn want_at_least(name: &str, args: &[Value], count: usize) -> Result<(), String> {
    if args.len() >= count {
        return Ok(());
    }
    Err(format!(
        "{ARITY_ERROR}{name}: want at least {count} got {}",
        args.len()
    ))
}

fn not(_: &Call, args: &[Value]) -> Result<Value, String> {
    want("not", args, 1)?;
    Ok(Value::Bool(!args[0].truth()))
}

/// Bytes of a string, elements of a list, entries of a map.
fn len(_: &Call, args: &[Value]) -> Result<Value, String> {
    want("len", args, 1)?;
    let n = match &args[0] {
        Value::String(s) => s.len(),
        Value::List(l) => l.len(),
        Value::Map(m) => m.len(),
        Value::Nil => return Err("len of nil pointer".into()),
        // Go looks through the pointer before it refuses.
        Value::Version(_) => return Err("len of type semver.Version".into()),
        other => return Err(format!("len of type {}", other.type_name())),
    };
    Ok(Value::GoInt(n as i64))
}

/// `index x 1 "a"`: `x[1]["a"]`. A missing key is nil, as in Go (not
/// the error a missing field is).
fn index(_: &Call, args: &[Value]) -> Result<Value, String> {
    want_at_least("index", args, 1)?;
    let (item, indexes) = args.split_first().ok_or("index of untyped nil")?;
    if let Value::Nil = item {
        return Err("index of untyped nil".into());
    }
    let mut item = item;
    for (n, index) in indexes.iter().enumerate() {
        item = match item {
            Value::Nil => return Err("index of nil pointer".into()),
            Value::List(l) => {
                let i = index_arg(index, l.len())?;
                l.get(i).ok_or("reflect: slice index out of range")?
            }
            Value::String(s) => {
                let i = index_arg(index, s.len())?;
                let byte = s
                    .as_bytes()
                    .get(i)
                    .ok_or("reflect: string index out of range")?;
                // A string's element is a byte, Go's uint8.
                if n + 1 < indexes.len() {
                    return Err("can't index item of type uint8".into());
                }
                return Ok(Value::GoInt(i64::from(*byte)));
            }
            Value::Map(m) => match index {
                Value::String(key) => match m.get(key) {
                    Some(v) => v,
                    None => &Value::Nil,
                },
                Value::Nil => return Err("value is nil; should be of type string".into()),
                other => {
                    return Err(format!(
                        "value has type {}; should be string",
                        other.type_name()
                    ));
                }
            },
            other => return Err(format!("can't index item of type {}", other.type_name())),
        };
    }
    Ok(item.clone())
}

/// An index into a list or string of `len` (Go's indexArg: the length
/// itself passes, and fails when read).
fn index_arg(index: &Value, len: usize) -> Result<usize, String> {
    match index {
        Value::Int(x) | Value::GoInt(x) if *x < 0 || *x as u64 > len as u64 => {
            Err(format!("index out of range: {x}"))
        }
        Value::Int(x) | Value::GoInt(x) => Ok(*x as usize),
        Value::Nil => Err("cannot index slice/array with nil".into()),
        other => Err(format!(
            "cannot index slice/array with type {}",
            other.type_name()
        )),
    }
}

fn print(call: &Call, args: &[Value]) -> Result<Value, String> {
    fmt::sprint(args, call.limits.output).map(Value::String)
}

fn println(call: &Call, args: &[Value]) -> Result<Value, String> {
    fmt::sprintln(args, call.limits.output).map(Value::String)
}

fn printf(call: &Call, args: &[Value]) -> Result<Value, String> {
    want_at_least("printf", args, 1)?;
    let (format, rest) = args.split_first().ok_or("printf needs a format")?;
    let Value::String(format) = format else {
        return Err(format!(
            "wrong type for value; expected string; got {}",
            format.type_name()
        ));
    };
    fmt::sprintf(format, rest, call.limits.output).map(Value::String)
}

/// Go's basicKind: which values compare, and how.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Invalid,
    Bool,
    Int,
    Float,
    String,
    Other,
}

fn kind(v: &Value) -> Kind {
    match v {
        Value::Nil => Kind::Invalid,
        Value::Bool(_) => Kind::Bool,
        Value::Int(_) | Value::GoInt(_) => Kind::Int,
        Value::Float(_) => Kind::Float,
        Value::String(_) => Kind::String,
        Value::List(_) | Value::Map(_) | Value::Version(_) => Kind::Other,
    }
}

fn incompatible(a: &Value, b: &Value) -> String {
    format!(
        "incompatible types for comparison: {} and {}",
        a.type_name(),
        b.type_name()
    )
}

/// `eq x a b …`: whether `x` equals any of the others. Numbers compare
/// only with numbers of their own kind (an integer never equals a float),
/// nil equals only nil, lists and maps do not compare.
fn equal_any(a: &Value, others: &[Value]) -> Result<bool, String> {
    if others.is_empty() {
        return Err("missing argument for comparison".into());
    }
    for b in others {
        let same = match (a, b) {
            (Value::Bool(x), Value::Bool(y)) => x == y,
            (Value::Int(x) | Value::GoInt(x), Value::Int(y) | Value::GoInt(y)) => x == y,
            (Value::Float(x), Value::Float(y)) => x == y,
            (Value::String(x), Value::String(y)) => x == y,
            (Value::Nil, Value::Nil) => true,
            // Pointers: equal when they are the same one.
            (Value::Version(x), Value::Version(y)) => std::sync::Arc::ptr_eq(x, y),
            (Value::Nil, _) | (_, Value::Nil) => false,
            (Value::List(_), Value::List(_)) | (Value::Map(_), Value::Map(_)) => {
                return Err(format!(
                    "non-comparable type {}: {}",
                    shown(b),
                    b.type_name()
                ));
            }
            (Value::List(_) | Value::Map(_), Value::List(_) | Value::Map(_)) => {
                return Err(format!(
                    "non-comparable types {}: {}, {}: {}",
                    shown(a),
                    a.type_name(),
                    b.type_name(),
                    shown(b)
                ));
            }
            _ => return Err(incompatible(a, b)),
        };
        if same {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A value in an error, as Go's `%s` shows it (shortened: an error is
/// not output).
fn shown(v: &Value) -> String {
    fmt::sprintf("%s", std::slice::from_ref(v), SHOWN_LIMIT).unwrap_or_else(|_| "…".into())
}

const SHOWN_LIMIT: usize = 4096;

/// Go's lt: basic kinds only, both of the same kind.
fn less(a: &Value, b: &Value) -> Result<bool, String> {
    const BAD: &str = "invalid type for comparison";
    let (ka, kb) = (kind(a), kind(b));
    if matches!(ka, Kind::Invalid | Kind::Other) || matches!(kb, Kind::Invalid | Kind::Other) {
        return Err(BAD.into());
    }
    if ka != kb {
        return Err(incompatible(a, b));
    }
    match (a, b) {
        (Value::Int(x) | Value::GoInt(x), Value::Int(y) | Value::GoInt(y)) => Ok(x < y),
        (Value::Float(x), Value::Float(y)) => Ok(x < y),
        (Value::String(x), Value::String(y)) => Ok(x < y),
        _ => Err(BAD.into()),
    }
}

fn eq(_: &Call, args: &[Value]) -> Result<Value, String> {
    want_at_least("eq", args, 1)?;
    equal_any(&args[0], &args[1..]).map(Value::Bool)
}

fn ne(_: &Call, args: &[Value]) -> Result<Value, String> {
    want("ne", args, 2)?;
    equal_any(&args[0], &args[1..]).map(|e| Value::Bool(!e))
}

fn lt(_: &Call, args: &[Value]) -> Result<Value, String> {
    want("lt", args, 2)?;
    less(&args[0], &args[1]).map(Value::Bool)
}

fn le(_: &Call, args: &[Value]) -> Result<Value, String> {
    want("le", args, 2)?;
    if less(&args[0], &args[1])? {
        return Ok(Value::Bool(true));
    }
    equal_any(&args[0], &args[1..]).map(Value::Bool)
}

fn gt(call: &Call, args: &[Value]) -> Result<Value, String> {
    want("gt", args, 2)?;
    match le(call, args)? {
        Value::Bool(b) => Ok(Value::Bool(!b)),
        other => Ok(other),
    }
}

fn ge(_: &Call, args: &[Value]) -> Result<Value, String> {
    want("ge", args, 2)?;
    less(&args[0], &args[1]).map(|l| Value::Bool(!l))
}

/// The text `html`, `js` and `urlquery` escape: one string as it is, else
/// the arguments printed as `print` does, a nil as `<no value>`.
fn text_of(call: &Call, args: &[Value]) -> Result<String, String> {
    if let [Value::String(s)] = args {
        return Ok(s.clone());
    }
    let args: Vec<Value> = args
        .iter()
        .map(|a| match a {
            Value::Nil => Value::String("<no value>".into()),
            a => a.clone(),
        })
        .collect();
    fmt::sprint(&args, call.limits.output)
}

fn html(call: &Call, args: &[Value]) -> Result<Value, String> {
    let text = text_of(call, args)?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    Ok(Value::String(out))
}

fn js(call: &Call, args: &[Value]) -> Result<Value, String> {
    let text = text_of(call, args)?;
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if c < ' ' => out.push_str(&format!("\\u00{:02X}", c as u32)),
            c if c.is_ascii() || strconv::is_print(c) => out.push(c),
            c => out.push_str(&format!("\\u{:04X}", c as u32)),
        }
    }
    Ok(Value::String(out))
}

/// Go's url.QueryEscape: unreserved bytes as they are, a space as `+`,
/// every other byte `%XX`.
fn urlquery(call: &Call, args: &[Value]) -> Result<Value, String> {
    let text = text_of(call, args)?;
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    Ok(Value::String(out))
}

#[cfg(test)]
mod tests;
