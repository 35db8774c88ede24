//! Sprig's string functions. Lengths and cuts are in bytes, as in Go; a
//! cut that would split a character is an error rather than the invalid
//! UTF-8 Go would write.

use super::super::{Call, Functions};
use super::{Value, at_least, entries, exact, fits, int, is_empty, string, strval};

pub(super) fn add(f: &mut Functions) {
    f.insert("default", default);
    f.insert("empty", |_, a| {
        exact(a, 1)?;
        Ok(Value::Bool(is_empty(&a[0])))
    });
    f.insert("coalesce", |_, a| {
        Ok(a.iter()
            .find(|v| !is_empty(v))
            .cloned()
            .unwrap_or(Value::Nil))
    });
    f.insert("ternary", |_, a| {
        exact(a, 3)?;
        let pick = super::boolean(&a[2])?;
        Ok(if pick { a[0].clone() } else { a[1].clone() })
    });
    f.insert("fail", |_, a| {
        exact(a, 1)?;
        Err(string(&a[0])?.to_string())
    });
    f.insert("required", required);
    f.insert("quote", quote);
    f.insert("squote", squote);
    f.insert("upper", |c, a| {
        map_string(c, a, |s| s.chars().map(upper_char).collect())
    });
    f.insert("lower", |c, a| {
        map_string(c, a, |s| s.chars().map(lower_char).collect())
    });
    f.insert("title", |c, a| map_string(c, a, title));
    f.insert("untitle", |c, a| map_string(c, a, untitle));
    f.insert("trim", |c, a| map_string(c, a, |s| s.trim().to_string()));
    f.insert("nospace", |c, a| {
        map_string(c, a, |s| s.chars().filter(|c| !c.is_whitespace()).collect())
    });
    f.insert("trimAll", |_, a| {
        let (set, s) = two_strings(a)?;
        Ok(Value::String(
            s.trim_matches(|c| set.contains(c)).to_string(),
        ))
    });
    f.insert("trimPrefix", |_, a| {
        let (p, s) = two_strings(a)?;
        Ok(Value::String(s.strip_prefix(p).unwrap_or(s).to_string()))
    });
    f.insert("trimSuffix", |_, a| {
        let (p, s) = two_strings(a)?;
        Ok(Value::String(s.strip_suffix(p).unwrap_or(s).to_string()))
    });
    f.insert("contains", |_, a| {
        let (sub, s) = two_strings(a)?;
        Ok(Value::Bool(s.contains(sub)))
    });
    f.insert("hasPrefix", |_, a| {
        let (p, s) = two_strings(a)?;
        Ok(Value::Bool(s.starts_with(p)))
    });
    f.insert("hasSuffix", |_, a| {
        let (p, s) = two_strings(a)?;
        Ok(Value::Bool(s.ends_with(p)))
    });
    f.insert("trunc", trunc);
    f.insert("abbrev", abbrev);
    f.insert("substr", substr);
    f.insert("replace", replace);
    f.insert("repeat", repeat);
    f.insert("cat", cat);
    f.insert("indent", |c, a| indent(c, a, false));
    f.insert("nindent", |c, a| indent(c, a, true));
    f.insert("split", split);
    f.insert("splitList", |_, a| {
        let (sep, s) = two_strings(a)?;
        let parts = go_split(s, sep)?;
        Ok(Value::List(parts.into_iter().map(Value::String).collect()))
    });
    f.insert("join", join);
    f.insert("toString", |_, a| {
        exact(a, 1)?;
        Ok(Value::String(strval(&a[0])))
    });
    f.insert("toStrings", |_, a| {
        exact(a, 1)?;
        Ok(Value::List(
            strslice(&a[0]).into_iter().map(Value::String).collect(),
        ))
    });
}

fn default(_: &Call, a: &[Value]) -> Result<Value, String> {
    at_least(a, 1)?;
    match a.get(1) {
        Some(given) if !is_empty(given) => Ok(given.clone()),
        _ => Ok(a[0].clone()),
    }
}

/// Helm's `required`: the value, or the message when it is nil or "".
fn required(_: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 2)?;
    let message = string(&a[0])?;
    match &a[1] {
        Value::Nil => Err(message.to_string()),
        Value::String(s) if s.is_empty() => Err(message.to_string()),
        v => Ok(v.clone()),
    }
}

/// A one-string function whose result is no longer than a few times its
/// input (case mapping may grow a string).
fn map_string(call: &Call, a: &[Value], f: impl Fn(&str) -> String) -> Result<Value, String> {
    exact(a, 1)?;
    let s = string(&a[0])?;
    fits(call, s.len().saturating_mul(3))?;
    Ok(Value::String(f(s)))
}

fn two_strings(a: &[Value]) -> Result<(&str, &str), String> {
    exact(a, 2)?;
    Ok((string(&a[0])?, string(&a[1])?))
}

/// Go's `unicode.ToUpper`: one character for one, by Unicode's simple
/// mapping (`ß` stays `ß`, where Rust's full mapping makes it `SS`).
fn upper_char(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// Go's `unicode.ToLower`: one character for one (`İ` is `i`, and a
/// final `Σ` is `σ`, not Rust's contextual `ς`).
fn lower_char(c: char) -> char {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => l,
        _ if c == '\u{130}' => 'i',
        _ => c,
    }
}

/// `strings.Title`: the first letter of every word upper-cased, a word
/// starting after a space, a punctuation mark or a symbol.
fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous_separates = true;
    for c in s.chars() {
        if previous_separates {
            out.push(upper_char(c));
        } else {
            out.push(c);
        }
        previous_separates = separates_words(c);
    }
    out
}

/// Go's `isSeparator` in `strings.Title`.
fn separates_words(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphanumeric() {
        return false;
    }
    c.is_whitespace()
}

/// goutils' `Uncapitalize`: the first letter of every word, words
/// separated by white space, lower-cased.
fn untitle(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut starts_word = true;
    for c in s.chars() {
        if starts_word {
            out.push(lower_char(c));
        } else {
            out.push(c);
        }
        starts_word = c.is_whitespace();
    }
    out
}

/// `fmt.Sprintf("%q", s)`: Go's double-quoted string with its escapes.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c if go_printable(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// Close to Go's `unicode.IsPrint`: letters, marks, numbers, punctuation,
/// symbols and the ASCII space; not controls, other spaces or format
/// characters.
fn go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32, 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e
        | 0x200b..=0x200f | 0x202a..=0x202e | 0x2060..=0x206f | 0xfeff
        | 0xfff9..=0xfffb | 0xe000..=0xf8ff | 0xf0000..)
}

fn quote(call: &Call, a: &[Value]) -> Result<Value, String> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| go_quote(&strval(v)))
        .collect();
    joined(call, &parts, " ")
}

fn squote(call: &Call, a: &[Value]) -> Result<Value, String> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(|v| format!("'{}'", v.go_string()))
        .collect();
    joined(call, &parts, " ")
}

/// `parts` joined by `sep`, within the output limit.
fn joined(call: &Call, parts: &[String], sep: &str) -> Result<Value, String> {
    let len = parts
        .iter()
        .map(String::len)
        .sum::<usize>()
        .saturating_add(sep.len().saturating_mul(parts.len().saturating_sub(1)));
    fits(call, len)?;
    Ok(Value::String(parts.join(sep)))
}

fn cat(call: &Call, a: &[Value]) -> Result<Value, String> {
    let parts: Vec<String> = a
        .iter()
        .filter(|v| !matches!(v, Value::Nil))
        .map(Value::go_string)
        .collect();
    joined(call, &parts, " ")
}

/// `s[from..to]` in bytes, or an error when a bound splits a character.
fn cut(s: &str, from: usize, to: usize) -> Result<Value, String> {
    s.get(from..to)
        .map(|t| Value::String(t.to_string()))
        .ok_or_else(|| format!("cutting at byte {from}..{to} would split a character"))
}

fn trunc(_: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 2)?;
    let n = int(&a[0])?;
    let s = string(&a[1])?;
    let len = s.len() as i64;
    if n < 0 && len + n > 0 {
        return cut(s, (len + n) as usize, s.len());
    }
    if n >= 0 && len > n {
        return cut(s, 0, n as usize);
    }
    Ok(Value::String(s.to_string()))
}

fn abbrev(_: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 2)?;
    let width = int(&a[0])?;
    let s = string(&a[1])?;
    if width < 4 || s.len() as i64 <= width {
        return Ok(Value::String(s.to_string()));
    }
    match cut(s, 0, (width - 3) as usize)? {
        Value::String(head) => Ok(Value::String(head + "...")),
        other => Ok(other),
    }
}

fn substr(_: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 3)?;
    let (start, end, s) = (int(&a[0])?, int(&a[1])?, string(&a[2])?);
    let len = s.len() as i64;
    let out_of_range = |from: i64, to: i64| {
        format!("runtime error: slice bounds out of range [{from}:{to}] with length {len}")
    };
    if start < 0 {
        if end < 0 || end > len {
            return Err(out_of_range(0, end));
        }
        return cut(s, 0, end as usize);
    }
    if end < 0 || end > len {
        if start > len {
            return Err(out_of_range(start, len));
        }
        return cut(s, start as usize, s.len());
    }
    if start > end {
        return Err(out_of_range(start, end));
    }
    cut(s, start as usize, end as usize)
}

fn replace(call: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 3)?;
    let (old, new, src) = (string(&a[0])?, string(&a[1])?, string(&a[2])?);
    let count = if old.is_empty() {
        src.chars().count() + 1
    } else {
        src.matches(old).count()
    };
    let len = src
        .len()
        .saturating_add(count.saturating_mul(new.len()))
        .saturating_sub(count.saturating_mul(old.len()));
    fits(call, len)?;
    if old.is_empty() {
        // Go inserts `new` before every character and at the end.
        let mut out = String::with_capacity(len);
        for c in src.chars() {
            out.push_str(new);
            out.push(c);
        }
        out.push_str(new);
        return Ok(Value::String(out));
    }
    Ok(Value::String(src.replace(old, new)))
}

fn repeat(call: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 2)?;
    let count = int(&a[0])?;
    let s = string(&a[1])?;
    if count < 0 {
        return Err("strings: negative Repeat count".into());
    }
    fits(call, s.len().saturating_mul(count as usize))?;
    Ok(Value::String(s.repeat(count as usize)))
}

fn indent(call: &Call, a: &[Value], newline: bool) -> Result<Value, String> {
    exact(a, 2)?;
    let spaces = int(&a[0])?;
    let s = string(&a[1])?;
    let pad = usize::try_from(spaces).unwrap_or(0);
    let lines = s.matches('\n').count() + 1;
    fits(
        call,
        s.len()
            .saturating_add(pad.saturating_mul(lines))
            .saturating_add(usize::from(newline)),
    )?;
    let pad = " ".repeat(pad);
    let mut out = String::new();
    if newline {
        out.push('\n');
    }
    out.push_str(&pad);
    out.push_str(&s.replace('\n', &format!("\n{pad}")));
    Ok(Value::String(out))
}

/// `strings.Split`: an empty separator splits after each character.
fn go_split(s: &str, sep: &str) -> Result<Vec<String>, String> {
    let parts: Vec<String> = if sep.is_empty() {
        s.chars().map(String::from).collect()
    } else {
        s.split(sep).map(String::from).collect()
    };
    entries(parts.len())?;
    Ok(parts)
}

fn split(_: &Call, a: &[Value]) -> Result<Value, String> {
    let (sep, s) = two_strings(a)?;
    let parts = go_split(s, sep)?;
    Ok(Value::Map(
        parts
            .into_iter()
            .enumerate()
            .map(|(i, p)| (format!("_{i}"), Value::String(p)))
            .collect(),
    ))
}

/// Sprig's `strslice`: a list's non-nil items as strings; nil is no
/// items; anything else one item.
pub(crate) fn strslice(v: &Value) -> Vec<String> {
    match v {
        Value::List(items) => items
            .iter()
            .filter(|v| !matches!(v, Value::Nil))
            .map(strval)
            .collect(),
        Value::Nil => Vec::new(),
        v => vec![strval(v)],
    }
}

fn join(call: &Call, a: &[Value]) -> Result<Value, String> {
    exact(a, 2)?;
    let sep = string(&a[0])?;
    joined(call, &strslice(&a[1]), sep)
}
