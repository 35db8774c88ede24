//! A number constant of the template language read as Go's parser reads
//! it (`text/template/parse`'s `newNumber`) and typed as its run types it
//! (`idealConstant`): an integer is Go's `int`; written with a point, an
//! exponent or as a hexadecimal float (`0x1p4`) it is a `float64`.

use super::value::Value;

/// The value of the constant `text`, or `None` where Go's parser refuses
/// it ("illegal number syntax").
pub fn constant(text: &str) -> Option<Value> {
    if !underscores_ok(text) {
        return None;
    }
    let clean = text.replace('_', "");
    let (negative, body) = match clean.as_bytes().first()? {
        b'-' => (true, &clean[1..]),
        b'+' => (false, &clean[1..]),
        _ => (false, clean.as_str()),
    };
    let lower = body.to_ascii_lowercase();
    let signed = |f: f64| if negative { -f } else { f };
    if let Some(hex) = lower.strip_prefix("0x") {
        if hex.contains('p') {
            return hex_float(hex).map(|f| Value::Float(signed(f)));
        }
        if hex.contains('.') {
            return None;
        }
        return integer(negative, hex, 16);
    }
    let prefixed = |p: &str, base| lower.strip_prefix(p).map(|d| integer(negative, d, base));
    if let Some(v) = prefixed("0o", 8).or_else(|| prefixed("0b", 2)) {
        return v;
    }
    if lower.len() > 1
        && lower.starts_with('0')
        && lower.bytes().all(|b| b.is_ascii_digit())
        && let Some(v) = integer(negative, &lower[1..], 8)
    {
        return Some(v);
    }
    if !lower.contains(['.', 'e'])
        && let Some(v) = integer(negative, &lower, 10)
    {
        return Some(v);
    }
    // Go reads what is not an integer as a float: written as one, it is
    // one; `08` or a number past int64 that is a whole number is an int
    // when it fits.
    if !lower
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'+' | b'-'))
    {
        return None;
    }
    let f: f64 = body.parse().ok()?;
    if !f.is_finite() {
        return None;
    }
    let f = signed(f);
    if !lower.contains(['.', 'e']) && f.fract() == 0.0 && f.abs() < 9.2e18 {
        return Some(Value::GoInt(f as i64));
    }
    Some(Value::Float(f))
}

/// Digits in `base` as Go's `int`, if they fit.
fn integer(negative: bool, digits: &str, base: u32) -> Option<Value> {
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = i128::from(u64::from_str_radix(digits, base).ok()?);
    let value = if negative { -magnitude } else { magnitude };
    i64::try_from(value).ok().map(Value::GoInt)
}

/// A hexadecimal float's body after `0x`: hex digits with an optional
/// point, then `p` and a decimal power of two.
fn hex_float(hex: &str) -> Option<f64> {
    let (mantissa, exponent) = hex.split_once('p')?;
    let exponent: i32 = exponent.parse().ok()?;
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() {
        return None;
    }
    let mut value = 0f64;
    for c in whole.chars().chain(fraction.chars()) {
        value = value * 16.0 + f64::from(c.to_digit(16)?);
    }
    let shift = exponent.checked_sub(i32::try_from(fraction.len()).ok()?.checked_mul(4)?)?;
    let f = value * 2f64.powi(shift);
    f.is_finite().then_some(f)
}

/// Go's `underscoreOK`: an underscore only between digits (or after a
/// base prefix).
fn underscores_ok(text: &str) -> bool {
    let s = text.trim_start_matches(['+', '-']).as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if s.len() >= 2 && s[0] == b'0' && matches!(s[1] | 0x20, b'b' | b'o' | b'x') {
        hex = s[1] | 0x20 == b'x';
        i = 2;
        saw = b'0';
    }
    while i < s.len() {
        let b = s[i];
        if b.is_ascii_digit() || (hex && b.is_ascii_hexdigit()) {
            saw = b'0';
        } else if b == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_read_as_go_reads_them() {
        let cases = [
            ("0o17", Value::GoInt(15)),
            ("017", Value::GoInt(15)),
            ("0b101", Value::GoInt(5)),
            ("0X1f", Value::GoInt(31)),
            ("0x1p4", Value::Float(16.0)),
            ("0x1.8p1", Value::Float(3.0)),
            ("1_000", Value::GoInt(1000)),
            ("-3", Value::GoInt(-3)),
            ("+4", Value::GoInt(4)),
            ("08", Value::GoInt(8)),
            ("1e6", Value::Float(1e6)),
            ("1.0", Value::Float(1.0)),
            ("-2.5", Value::Float(-2.5)),
            ("1.", Value::Float(1.0)),
            (".5", Value::Float(0.5)),
        ];
        for (text, want) in cases {
            assert_eq!(constant(text), Some(want), "{text}");
        }
        for bad in ["0x", "1__0", "_1", "1_", "0x1.8", "1e", "0b2", "-"] {
            assert_eq!(constant(bad), None, "{bad}");
        }
    }
}
