//! The Sprig v3.3.0 functions people write in values, with Sprig's own
//! semantics (its argument order, its conversions through `spf13/cast`,
//! its silent defaults), plus Helm's `required`. Nothing that reads the
//! environment, a file, the network, the clock or a random source is
//! here, nor key and certificate generation: a template's output depends
//! on its data alone.
//!
//! Go checks a typed parameter before it calls the function; here each
//! function checks its own with the helpers below, which word the error as
//! Go's `text/template` does.

use super::super::value::{Value, go_float};
use super::{Call, Functions};

mod dicts;
mod lists;
mod math;
mod misc;
mod semver;
mod strings;

/// The most entries a list or a map built by a template function may
/// have: a tenant's template must not turn a few bytes into gigabytes.
pub const MAX_ENTRIES: usize = 10_000;

/// Adds the Sprig functions and Helm's `required`.
pub fn add(functions: &mut Functions) {
    strings::add(functions);
    lists::add(functions);
    dicts::add(functions);
    math::add(functions);
    misc::add(functions);
}

/// Go's `%T` of a value as the API machinery decodes it.
pub(crate) fn go_type(v: &Value) -> &'static str {
    match v {
        Value::Nil => "<nil>",
        other => other.type_name(),
    }
}

/// Go's `reflect.Kind` name of a value.
pub(crate) fn go_kind(v: &Value) -> &'static str {
    match v {
        Value::Nil => "invalid",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int64",
        Value::GoInt(_) => "int",
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::List(_) => "slice",
        Value::Map(_) => "map",
        Value::Version(_) => "ptr",
    }
}

/// Go's refusal of an argument of the wrong type for a typed parameter.
pub(crate) fn wrong_type(v: &Value, want: &str) -> String {
    match v {
        Value::Nil => format!("invalid value; expected {want}"),
        v => format!("wrong type for value; expected {want}; got {}", go_type(v)),
    }
}

/// Exactly `n` arguments, as Go checks a function's arity.
pub(crate) fn exact(args: &[Value], n: usize) -> Result<(), String> {
    if args.len() != n {
        return Err(format!("wrong number of args: want {n} got {}", args.len()));
    }
    Ok(())
}

/// At least `n` arguments, for a variadic function.
pub(crate) fn at_least(args: &[Value], n: usize) -> Result<(), String> {
    if args.len() < n {
        return Err(format!(
            "wrong number of args: want at least {n} got {}",
            args.len()
        ));
    }
    Ok(())
}

/// A `string` parameter.
pub(crate) fn string(v: &Value) -> Result<&str, String> {
    match v {
        Value::String(s) => Ok(s),
        v => Err(wrong_type(v, "string")),
    }
}

/// An `int` parameter. The run refuses an `int64` for one before the call,
/// as Go does (`exec`'s typed parameters).
pub(crate) fn int(v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(i) | Value::GoInt(i) => Ok(*i),
        v => Err(wrong_type(v, "int")),
    }
}

/// A `bool` parameter.
pub(crate) fn boolean(v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        v => Err(wrong_type(v, "bool")),
    }
}

/// A `map[string]interface{}` parameter: Go passes nil as an empty map.
pub(crate) fn map(v: &Value) -> Result<std::borrow::Cow<'_, Map>, String> {
    match v {
        Value::Map(m) => Ok(std::borrow::Cow::Borrowed(m)),
        Value::Nil => Ok(std::borrow::Cow::Owned(Map::new())),
        v => Err(wrong_type(v, "map[string]interface {}")),
    }
}

/// A map as the values hold one.
pub(crate) type Map = std::collections::BTreeMap<String, Value>;

/// Sprig's `strval`: a string as it is, anything else as `%v` prints it.
pub(crate) fn strval(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.go_string(),
    }
}

/// Sprig's `empty`: false, 0, "", nil and empty lists and maps.
pub(crate) fn is_empty(v: &Value) -> bool {
    match v {
        Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(i) | Value::GoInt(i) => *i == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::List(l) => l.is_empty(),
        Value::Map(m) => m.is_empty(),
        // A non-nil pointer is not empty.
        Value::Version(_) => false,
    }
}

/// A string of `len` bytes fits the output limit, checked before it is
/// built.
pub(crate) fn fits(call: &Call, len: usize) -> Result<(), String> {
    if len > call.limits.output {
        return Err(format!(
            "the result would be {len} bytes, longer than the output limit of {} bytes",
            call.limits.output
        ));
    }
    Ok(())
}

/// A list or map of `len` entries is within [`MAX_ENTRIES`].
pub(crate) fn entries(len: usize) -> Result<(), String> {
    if len > MAX_ENTRIES {
        return Err(format!(
            "the result would have {len} entries, more than the limit of {MAX_ENTRIES}"
        ));
    }
    Ok(())
}

/// `reflect.DeepEqual` on two values, bounded: a value nested deeper than
/// [`MAX_DEPTH`] compares as different rather than exhausting the stack.
pub(crate) fn deep_equal(a: &Value, b: &Value) -> bool {
    fn eq(a: &Value, b: &Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match (a, b) {
            (Value::List(x), Value::List(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| eq(x, y, depth + 1))
            }
            (Value::Map(x), Value::Map(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|((kx, x), (ky, y))| kx == ky && eq(x, y, depth + 1))
            }
            (Value::Float(x), Value::Float(y)) => x == y,
            (Value::List(_) | Value::Map(_), _) | (_, Value::List(_) | Value::Map(_)) => false,
            (a, b) => a == b,
        }
    }
    eq(a, b, 0)
}

/// How deep the functions that walk a value (equality, merging, the
/// encoders) go before they refuse it.
pub const MAX_DEPTH: usize = 256;

/// `cast.ToInt64`: numbers truncated, strings parsed as Go integer
/// literals (`"0x1F"`, `"010"` is octal, `"42.0"` is 42), anything else 0.
pub(crate) fn to_int64(v: &Value) -> i64 {
    match v {
        Value::Int(i) | Value::GoInt(i) => *i,
        // Go's conversion of an out-of-range float is the hardware's;
        // Rust's saturates. Both are nonsense values for such input.
        Value::Float(f) => *f as i64,
        Value::Bool(b) => i64::from(*b),
        Value::String(s) => parse_go_int(trim_zero_decimal(s)).unwrap_or(0),
        _ => 0,
    }
}

/// `cast.ToFloat64`: numbers as they are, strings parsed, else 0.
pub(crate) fn to_float64(v: &Value) -> f64 {
    match v {
        Value::Int(i) | Value::GoInt(i) => *i as f64,
        Value::Float(f) => *f,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::String(s) => parse_go_float(s).unwrap_or(0.0),
        _ => 0.0,
    }
}

/// `strconv.ParseFloat(s, 64)`, without hexadecimal floats: an
/// out-of-range number is an error, as in Go.
pub(crate) fn parse_go_float(s: &str) -> Option<f64> {
    let f: f64 = s.parse().ok()?;
    let spelled_infinite = s
        .trim_start_matches(['+', '-'])
        .to_ascii_lowercase()
        .starts_with("inf");
    if f.is_infinite() && !spelled_infinite {
        return None;
    }
    Some(f)
}

/// cast's `trimZeroDecimal`: `"42.000"` → `"42"`, others unchanged.
fn trim_zero_decimal(s: &str) -> &str {
    let mut found_zero = false;
    for (i, b) in s.bytes().enumerate().rev() {
        match b {
            b'.' if found_zero => return &s[..i],
            b'.' => return s,
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

/// `strconv.ParseInt(s, 0, 64)`: a sign, then a `0x`, `0o`, `0b` or `0`
/// (octal) prefix, underscores between digits allowed.
pub(crate) fn parse_go_int(s: &str) -> Option<i64> {
    let (negative, magnitude) = parse_go_magnitude(s)?;
    if negative {
        if magnitude <= i64::MAX as u64 + 1 {
            return Some((magnitude as i64).wrapping_neg());
        }
        return None;
    }
    i64::try_from(magnitude).ok()
}

/// The sign and magnitude of a Go integer literal with base prefix.
pub(crate) fn parse_go_magnitude(s: &str) -> Option<(bool, u64)> {
    let (negative, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let lower = body.get(..2).map(str::to_ascii_lowercase);
    let (base, digits, prefixed) = match lower.as_deref() {
        Some("0x") => (16, &body[2..], true),
        Some("0o") => (8, &body[2..], true),
        Some("0b") => (2, &body[2..], true),
        _ if body.len() > 1 && body.starts_with('0') => (8, &body[1..], true),
        _ => (10, body, false),
    };
    if digits.is_empty() {
        return None;
    }
    // Underscores only with a base prefix (or a leading 0), and only
    // between digits.
    if digits.contains('_')
        && (!prefixed || digits.starts_with('_') || digits.ends_with('_') || digits.contains("__"))
    {
        return None;
    }
    let clean: String = digits.chars().filter(|c| *c != '_').collect();
    if clean.starts_with(['+', '-']) {
        return None;
    }
    u64::from_str_radix(&clean, base)
        .ok()
        .map(|m| (negative, m))
}

/// A float as `%v` prints it, for messages.
pub(crate) fn float_text(f: f64) -> String {
    go_float(f)
}

#[cfg(test)]
mod tests;
