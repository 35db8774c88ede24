//! The values a template works on, as Go holds data decoded the way the
//! Kubernetes API machinery decodes it (integers as `int64`, every other
//! number as `float64`), and how Go's `fmt` prints them (`%v`), which is
//! what an action writes out.

use std::collections::BTreeMap;
use std::sync::Arc;

/// A value in a template.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Nil,
    Bool(bool),
    /// An `int64`: an integer of the data (the API machinery decodes one
    /// so) or of Sprig's arithmetic.
    Int(i64),
    /// Go's `int`: a constant in the template, what `len`, Sprig's `int`
    /// and `atoi` give. Go tells the two apart: `typeOf`, `%T`, a typed
    /// parameter (`until` takes an `int` only) and `has`/`reflect.DeepEqual`.
    GoInt(i64),
    Float(f64),
    String(String),
    List(Vec<Value>),
    /// Go prints and ranges over a map's keys in sorted order.
    Map(BTreeMap<String, Value>),
    /// Sprig's `semver` gives a `*semver.Version`: a pointer, so `eq` is
    /// true only for the same one (`Arc::ptr_eq`), printed by its
    /// `String()`, with methods `.Major` to `.Original`.
    Version(Arc<Version>),
}

/// A version as Masterminds/semver v3 holds one.
#[derive(Clone, Debug, PartialEq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: String,
    pub metadata: String,
    /// The text it was read from, `.Original`.
    pub original: String,
}

impl Version {
    /// Masterminds' `String()`: `1.2.0`, `1.2.0-rc.1+b7` (the `v` and
    /// missing parts of the original are not kept).
    pub fn canonical(&self) -> String {
        let mut s = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            s.push('-');
            s.push_str(&self.pre);
        }
        if !self.metadata.is_empty() {
            s.push('+');
            s.push_str(&self.metadata);
        }
        s
    }

    /// What a method of the version gives, as a template calls it
    /// (`.Major`); `None` for a name it does not answer. The numbers are
    /// Go's `uint64`s, held as `int64` (so `typeOf` says `int64`); one
    /// past `int64`, which no real version has, is capped there.
    pub fn method(&self, name: &str) -> Option<Value> {
        let number = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
        Some(match name {
            "Major" => number(self.major),
            "Minor" => number(self.minor),
            "Patch" => number(self.patch),
            "Prerelease" => Value::String(self.pre.clone()),
            "Metadata" => Value::String(self.metadata.clone()),
            "Original" => Value::String(self.original.clone()),
            "String" => Value::String(self.canonical()),
            _ => return None,
        })
    }
}

impl From<&serde_json::Value> for Value {
    /// As the API machinery decodes JSON: an integer that fits `int64` is
    /// one, any other number a `float64`.
    fn from(json: &serde_json::Value) -> Self {
        match json {
            serde_json::Value::Null => Value::Nil,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(a) => Value::List(a.iter().map(Value::from).collect()),
            serde_json::Value::Object(o) => {
                Value::Map(o.iter().map(|(k, v)| (k.clone(), Value::from(v))).collect())
            }
        }
    }
}

impl Value {
    /// `fmt.Sprint`'s `%v` of the value: `<nil>`, `true`, `3`, `1e+06`,
    /// `[a b]`, `map[a:1 b:2]`.
    pub fn go_string(&self) -> String {
        let mut out = String::new();
        self.write_go(&mut out);
        out
    }

    fn write_go(&self, out: &mut String) {
        match self {
            Value::Nil => out.push_str("<nil>"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) | Value::GoInt(i) => out.push_str(&i.to_string()),
            Value::Float(f) => out.push_str(&go_float(*f)),
            Value::String(s) => out.push_str(s),
            Value::Version(v) => out.push_str(&v.canonical()),
            Value::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    item.write_go(out);
                }
                out.push(']');
            }
            Value::Map(entries) => {
                out.push_str("map[");
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(key);
                    out.push(':');
                    value.write_go(out);
                }
                out.push(']');
            }
        }
    }
}

/// The start of a function's error that Go raises while calling it rather
/// than from inside it (a wrong count of arguments): the run does not
/// prefix it with "error calling NAME: ".
pub const ARITY_ERROR: &str = "wrong number of args for ";

impl Value {
    /// Go's truth: false, 0, "", nil and empty lists and maps are false.
    pub fn truth(&self) -> bool {
        match self {
            Value::Nil => false,
            Value::Bool(b) => *b,
            Value::Int(i) | Value::GoInt(i) => *i != 0,
            Value::Float(f) => *f != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            // A non-nil pointer.
            Value::Version(_) => true,
        }
    }

    /// An integer's value, of either integer type.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Value::Int(i) | Value::GoInt(i) => Some(*i),
            _ => None,
        }
    }

    /// The Go type a value of this kind holds, as Go's errors and `%T`
    /// name it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil => "interface {}",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int64",
            Value::GoInt(_) => "int",
            Value::Float(_) => "float64",
            Value::String(_) => "string",
            Value::List(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
            Value::Version(_) => "*semver.Version",
        }
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`, which `%v` prints: the shortest
/// digits that read back as `f`, in exponent form when the exponent is
/// below -4 or at least 6 (`1e+06`, `123456`, `1.5e-05`, `0.0001`).
pub fn go_float(f: f64) -> String {
    format_g(f, |f| format!("{f:e}"))
}

/// `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest digits that read
/// back as the same `float32`, which `sigs.k8s.io/yaml` writes for a
/// float mapping key.
pub fn go_float32(f: f64) -> String {
    // The value is first made a float32, which a large one overflows.
    let narrow = f as f32;
    format_g(f64::from(narrow), |_| format!("{narrow:e}"))
}

/// Go's `'g'` format with the digits `scientific` gives, as Rust's `{:e}`
/// writes them.
fn format_g(f: f64, scientific: impl Fn(f64) -> String) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `-1.2345e6`.
    let scientific = scientific(f);
    let (mantissa, exponent) = scientific
        .split_once('e')
        .expect("a float's {:e} has an exponent");
    let exponent: i32 = exponent.parse().expect("a float's exponent is a number");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if !(-4..6).contains(&exponent) {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{first}{point}{rest}e{exp_sign}{:02}", exponent.abs());
    }
    let plain = if exponent < 0 {
        format!("0.{}{digits}", "0".repeat((-exponent - 1) as usize))
    } else {
        let whole = exponent as usize + 1;
        if digits.len() <= whole {
            format!("{digits}{}", "0".repeat(whole - digits.len()))
        } else {
            format!("{}.{}", &digits[..whole], &digits[whole..])
        }
    };
    format!("{sign}{plain}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn floats_print_as_go_prints_them() {
        let cases = [
            (1e6, "1e+06"),
            (1.0, "1"),
            (2.5, "2.5"),
            (1e20, "1e+20"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (0.5, "0.5"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1.2345678901234568e16, "1.2345678901234568e+16"),
            (-3.75, "-3.75"),
            (1e100, "1e+100"),
            (0.0, "0"),
        ];
        for (f, go) in cases {
            assert_eq!(go_float(f), go, "{f}");
        }
    }

    #[test]
    fn values_print_as_fmt_sprint() {
        let v = Value::from(&json!({
            "b": [1, "x", null, true],
            "a": {"n": 1000000, "f": 0.5},
            "e": {},
        }));
        assert_eq!(
            v.go_string(),
            "map[a:map[f:0.5 n:1000000] b:[1 x <nil> true] e:map[]]"
        );
        // The API machinery's integers stay integers; a fraction or a
        // number past int64 is a float.
        assert_eq!(
            Value::from(&json!(12345678901234567_i64)),
            Value::Int(12345678901234567)
        );
        assert_eq!(Value::from(&json!(1e6)).go_string(), "1e+06");
        assert_eq!(Value::from(&json!(u64::MAX)), Value::Float(u64::MAX as f64));
    }
}
