//! Go's `strconv` as `fmt` uses it: quoting strings and characters
//! (`Quote`, `QuoteRune`, their ASCII forms, `CanBackquote`, `IsPrint`)
//! and writing floats (`FormatFloat` in every format).

use std::sync::OnceLock;

/// Go's strconv.CanBackquote.
pub fn can_backquote(s: &str) -> bool {
    s.chars().all(|c| {
        if c.len_utf8() > 1 {
            return c != '\u{FEFF}';
        }
        !((c < ' ' && c != '\t') || c == '`' || c == '\u{7F}')
    })
}

/// Go's strconv.Quote (`"…"`), QuoteRune (`'…'`), and with `ascii` their
/// ToASCII forms.
pub fn quote_with(s: &str, quote: char, ascii: bool) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        if c == quote || c == '\\' {
            out.push('\\');
            out.push(c);
            continue;
        }
        let printable = if ascii {
            c.is_ascii() && is_print(c)
        } else {
            is_print(c)
        };
        if printable {
            out.push(c);
            continue;
        }
        match c {
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0C' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0B' => out.push_str("\\v"),
            c if c < ' ' || c == '\x7F' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// Go's strconv.IsPrint: letters, marks, numbers, punctuation, symbols
/// and the ASCII space.
pub fn is_print(c: char) -> bool {
    if c.is_ascii() {
        return (' '..='~').contains(&c);
    }
    static GRAPHIC: OnceLock<Option<regex::Regex>> = OnceLock::new();
    GRAPHIC
        .get_or_init(|| regex::Regex::new(r"^[\p{L}\p{M}\p{N}\p{P}\p{S}]$").ok())
        .as_ref()
        .is_none_or(|re| re.is_match(c.encode_utf8(&mut [0; 4])))
}

/// Go's strconv.FormatFloat(x, verb, prec, 64); `None` is the shortest
/// precision that reads back as `x`.
pub fn format_float(x: f64, verb: char, prec: Option<usize>) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let a = x.abs();
    let body = match verb {
        'b' => {
            let (mant, exp) = float_bits(x);
            let exp = exp - 52;
            format!("{mant}p{}{}", if exp >= 0 { "+" } else { "-" }, exp.abs())
        }
        'x' | 'X' => hex_float(x, prec, verb),
        'f' => match prec {
            Some(p) => format!("{a:.p$}"),
            None => {
                let (digits, dp) = decimal(a, None);
                fixed(&digits, dp, digits.len().saturating_sub(dp.max(0) as usize))
            }
        },
        'e' | 'E' => {
            let (digits, dp) = decimal(a, prec.map(|p| p + 1));
            let prec = prec.unwrap_or(digits.len().saturating_sub(1));
            exponent(&digits, dp, prec, verb)
        }
        _ => {
            // 'g' and 'G'.
            let shortest = prec.is_none();
            let sig = prec.map(|p| p.max(1));
            let (digits, dp) = decimal(a, sig);
            let nd = digits.len() as i64;
            let dp64 = i64::from(dp);
            let mut eprec = sig.map_or(nd, |s| s as i64);
            if eprec > nd && nd >= dp64 {
                eprec = nd;
            }
            if shortest {
                eprec = 6;
            }
            let exp = dp64 - 1;
            let mut p = sig.map_or(nd, |s| s as i64);
            let e = if verb == 'G' { 'E' } else { 'e' };
            if exp < -4 || exp >= eprec {
                if p > nd {
                    p = nd;
                }
                exponent(&digits, dp, (p - 1).max(0) as usize, e)
            } else {
                if p > dp64 {
                    p = nd;
                }
                fixed(&digits, dp, (p - dp64).max(0) as usize)
            }
        }
    };
    if body.starts_with('-') {
        return body;
    }
    format!("{sign}{body}")
}

/// The significant digits of `a` (no trailing zeros; none for zero) and
/// the place of the decimal point, rounded to `sig` digits or shortest.
fn decimal(a: f64, sig: Option<usize>) -> (String, i32) {
    if a == 0.0 {
        return (String::new(), 0);
    }
    let s = match sig {
        Some(n) => format!("{a:.*e}", n.saturating_sub(1)),
        None => format!("{a:e}"),
    };
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let digits = digits.trim_end_matches('0').to_string();
    (digits, exp + 1)
}

/// Go's fmtE: `d.ddde±dd`.
fn exponent(digits: &str, dp: i32, prec: usize, e: char) -> String {
    let d = digits.as_bytes();
    let mut out = String::new();
    out.push(d.first().map_or('0', |c| *c as char));
    if prec > 0 {
        out.push('.');
        for i in 1..=prec {
            out.push(d.get(i).map_or('0', |c| *c as char));
        }
    }
    out.push(e);
    let exp = if d.is_empty() { 0 } else { dp - 1 };
    out.push(if exp < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", exp.abs()));
    out
}

/// Go's fmtF: the digits with `prec` of them after the point.
fn fixed(digits: &str, dp: i32, prec: usize) -> String {
    let d = digits.as_bytes();
    let mut out = String::new();
    if dp > 0 {
        for i in 0..dp as usize {
            out.push(d.get(i).map_or('0', |c| *c as char));
        }
    } else {
        out.push('0');
    }
    if prec > 0 {
        out.push('.');
        for i in 1..=prec as i64 {
            let j = i64::from(dp) + i - 1;
            let c = usize::try_from(j).ok().and_then(|j| d.get(j));
            out.push(c.map_or('0', |c| *c as char));
        }
    }
    out
}

/// The mantissa and binary exponent of `x` as strconv reads them.
fn float_bits(x: f64) -> (u64, i64) {
    let bits = x.to_bits();
    let mut exp = ((bits >> 52) & 0x7FF) as i64;
    let mut mant = bits & ((1 << 52) - 1);
    if exp == 0 {
        exp += 1;
    } else {
        mant |= 1 << 52;
    }
    (mant, exp - 1023)
}

/// Go's fmtX: `0x1.8p+00`.
fn hex_float(x: f64, prec: Option<usize>, verb: char) -> String {
    let (mut mant, mut exp) = float_bits(x);
    if mant == 0 {
        exp = 0;
    }
    mant <<= 60 - 52;
    while mant != 0 && mant & (1 << 60) == 0 {
        mant <<= 1;
        exp -= 1;
    }
    if let Some(p) = prec.filter(|p| *p < 15) {
        let shift = (p * 4) as u32;
        let extra = mant.wrapping_shl(shift) & ((1 << 60) - 1);
        mant >>= 60 - shift;
        if extra | (mant & 1) > 1 << 59 {
            mant += 1;
        }
        mant <<= 60 - shift;
        if mant & (1 << 61) != 0 {
            mant >>= 1;
            exp += 1;
        }
    }
    let digits: &[u8; 16] = if verb == 'X' {
        b"0123456789ABCDEF"
    } else {
        b"0123456789abcdef"
    };
    let mut out = String::from("0");
    out.push(verb);
    out.push(if (mant >> 60) & 1 == 1 { '1' } else { '0' });
    mant <<= 4;
    let count = match prec {
        None if mant != 0 => Some(usize::MAX),
        Some(p) if p > 0 => Some(p),
        _ => None,
    };
    if let Some(count) = count {
        out.push('.');
        let mut n = 0;
        while n < count && (count != usize::MAX || mant != 0) {
            out.push(digits[((mant >> 60) & 15) as usize] as char);
            mant <<= 4;
            n += 1;
        }
    }
    out.push(if verb == 'X' { 'P' } else { 'p' });
    out.push(if exp < 0 { '-' } else { '+' });
    out.push_str(&format!("{:02}", exp.abs()));
    out
}
