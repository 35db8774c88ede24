//! go-yaml v2's `resolve` for an unquoted scalar: whether it reads back
//! as the same string, or as a bool, null, number or timestamp (YAML
//! 1.1: `yes`, `on`, `~`, `007`, `1e3`, `2001-12-14`, `1:20`). A string
//! that would not is written plain; one that would is quoted.

use super::super::sprig::{parse_go_float, parse_go_magnitude};

/// What go-yaml v2 makes of an unquoted scalar.
#[derive(Debug, PartialEq)]
pub(super) enum Plain {
    Null,
    Bool(bool),
    /// An integer (`int`, `int64` or `uint64` in Go), as the float64 it
    /// becomes after the trip through JSON.
    Int(f64),
    Float(f64),
    /// A timestamp: a string again when decoded into an `interface{}`.
    Timestamp,
    String,
}

/// Whether go-yaml v2 reads `s`, unquoted, as the string `s`.
pub(super) fn reads_as_string(s: &str) -> bool {
    resolve(s) == Plain::String && !base60_float(s)
}

/// go-yaml v2's `resolve` of an untagged plain scalar. Base 60 numbers
/// (`1:20`) are left strings: go-yaml dropped them as YAML 1.2 did.
pub(super) fn resolve(s: &str) -> Plain {
    let Some(first) = s.bytes().next() else {
        return Plain::Null;
    };
    let hint = match first {
        b'+' | b'-' | b'0'..=b'9' => 'D',
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => 'M',
        b'.' => '.',
        _ => return Plain::String,
    };
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Plain::Bool(true);
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Plain::Bool(false);
        }
        "~" | "null" | "Null" | "NULL" => return Plain::Null,
        ".nan" | ".NaN" | ".NAN" => return Plain::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Plain::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Plain::Float(f64::NEG_INFINITY),
        _ => {}
    }
    match hint {
        '.' => parse_go_float(s).map_or(Plain::String, Plain::Float),
        'D' => {
            if timestamp(s) {
                return Plain::Timestamp;
            }
            let plain = s.replace('_', "");
            if let Some((negative, m)) = parse_go_magnitude(&plain)
                && fits_int(negative, m, &plain)
            {
                // `-0` is the integer 0, which JSON writes without a sign.
                let m = m as f64;
                return Plain::Int(if negative { 0.0 - m } else { m });
            }
            if yaml_style_float(&plain)
                && let Some(f) = parse_go_float(&plain)
            {
                return Plain::Float(f);
            }
            // `0b…` and `-0b…` were tried as Go integer literals above.
            Plain::String
        }
        _ => Plain::String,
    }
}

/// Whether `ParseInt` or `ParseUint` (base 0) take the literal: a signed
/// value within int64, or an unsigned one (no sign) within uint64.
fn fits_int(negative: bool, magnitude: u64, text: &str) -> bool {
    if negative {
        return magnitude <= i64::MAX as u64 + 1;
    }
    !text.starts_with('+') || magnitude <= i64::MAX as u64
}

/// `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (number, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let number_ok = match number.split_once('.') {
        Some(("", fraction)) => digits(fraction),
        Some((whole, fraction)) => digits(whole) && (fraction.is_empty() || digits(fraction)),
        None => digits(number),
    };
    let exponent_ok = exponent.is_none_or(|e| digits(e.strip_prefix(['+', '-']).unwrap_or(e)));
    number_ok && exponent_ok
}

/// go-yaml's `isBase60Float`:
/// `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
fn base60_float(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    if !s.starts_with(|c: char| c.is_ascii_digit()) || !s.contains(':') {
        return false;
    }
    let (body, fraction) = match s.split_once('.') {
        Some((b, f)) => (b, Some(f)),
        None => (s, None),
    };
    if fraction.is_some_and(|f| !f.bytes().all(|b| b.is_ascii_digit() || b == b'_')) {
        return false;
    }
    let mut parts = body.split(':');
    let head = parts.next().unwrap_or_default();
    if !head.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
        return false;
    }
    let mut sexagesimal = 0;
    for part in parts {
        let b = part.as_bytes();
        let ok = match b {
            [d] => d.is_ascii_digit(),
            [t, d] => (b'0'..=b'5').contains(t) && d.is_ascii_digit(),
            _ => false,
        };
        if !ok {
            return false;
        }
        sexagesimal += 1;
    }
    sexagesimal > 0
}

/// go-yaml's `parseTimestamp`: `YYYY-M-D`, optionally followed by a time
/// (`T`, `t` or a space, `H:M:S`, a fraction, a zone after `T`/`t`).
fn timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let mut rest = &s[5..];
    let mut number = |max_digits: usize| -> Option<u32> {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > max_digits {
            return None;
        }
        let v = rest[..n].parse().ok();
        rest = &rest[n..];
        v
    };
    let year: u32 = s[..4].parse().unwrap_or(0);
    let Some(month) = number(2) else { return false };
    if !rest.starts_with('-') {
        return false;
    }
    rest = &rest[1..];
    let mut number = |max_digits: usize| -> Option<u32> {
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > max_digits {
            return None;
        }
        let v = rest[..n].parse().ok();
        rest = &rest[n..];
        v
    };
    let Some(day) = number(2) else { return false };
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let zoned = rest.starts_with(['T', 't']);
    if !zoned && !rest.starts_with(' ') {
        return false;
    }
    let time = &rest[1..];
    clock(time, zoned)
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `15:4:5.999999999` and, when `zoned`, `Z07:00` after it.
fn clock(text: &str, zoned: bool) -> bool {
    let mut rest = text;
    let mut fields = [0u32; 3];
    for (i, field) in fields.iter_mut().enumerate() {
        if i > 0 {
            let Some(r) = rest.strip_prefix(':') else {
                return false;
            };
            rest = r;
        }
        let n = rest.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > 2 {
            return false;
        }
        *field = rest[..n].parse().unwrap_or(99);
        rest = &rest[n..];
    }
    if fields[0] > 23 || fields[1] > 59 || fields[2] > 59 {
        return false;
    }
    if let Some(r) = rest.strip_prefix('.') {
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > 9 {
            return false;
        }
        rest = &r[n..];
    }
    if !zoned {
        return rest.is_empty();
    }
    if rest == "Z" {
        return true;
    }
    let b = rest.as_bytes();
    b.len() == 6
        && matches!(b[0], b'+' | b'-')
        && b[1..3].iter().all(u8::is_ascii_digit)
        && b[3] == b':'
        && b[4..].iter().all(u8::is_ascii_digit)
}
