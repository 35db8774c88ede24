//! Go's `fmt` as `print`, `printf` and `println` use it, over template
//! values: the verbs, flags, widths, precisions and argument indexes of
//! `fmt.Sprintf`, and its complaints written inline (`%!d(string=x)`,
//! `%!s(MISSING)`, `%!(EXTRA int64=1)`), never an error, as Go writes them.
//!
//! Bounded: output past the limit it is given, or a width or precision
//! past it, is an error, found before the padding is allocated; values
//! nested deeper than [`MAX_DEPTH`] are refused rather than recursed into.

use super::strconv::{can_backquote, format_float, is_print, quote_with};
use crate::plan::template::value::Value;

/// How deep a list or map may nest and still be printed.
pub const MAX_DEPTH: usize = 1000;

/// `fmt.Sprint`: operands in `%v`, a space between two operands when
/// neither is a string.
pub fn sprint(args: &[Value], limit: usize) -> Result<String, String> {
    let mut p = Printer::new(limit);
    let mut previous_string = false;
    for (i, arg) in args.iter().enumerate() {
        let string = matches!(arg, Value::String(_));
        if i > 0 && !string && !previous_string {
            p.write(" ");
        }
        p.print_arg(arg, 'v', Flags::default());
        previous_string = string;
    }
    p.finish()
}

/// `fmt.Sprintln`: operands in `%v`, always a space between, a newline
/// after.
pub fn sprintln(args: &[Value], limit: usize) -> Result<String, String> {
    let mut p = Printer::new(limit);
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            p.write(" ");
        }
        p.print_arg(arg, 'v', Flags::default());
    }
    p.write("\n");
    p.finish()
}

/// `fmt.Sprintf`.
pub fn sprintf(format: &str, args: &[Value], limit: usize) -> Result<String, String> {
    let mut p = Printer::new(limit);
    p.printf(format, args)?;
    p.finish()
}

/// The formatting state of one verb.
#[derive(Clone, Copy, Debug, Default)]
struct Flags {
    plus: bool,
    minus: bool,
    sharp: bool,
    space: bool,
    zero: bool,
    sharp_v: bool,
    wid: Option<usize>,
    prec: Option<usize>,
}

struct Printer {
    out: String,
    limit: usize,
    /// Set when a write would pass the limit; the write is dropped.
    over: bool,
    /// Set when a value nests past [`MAX_DEPTH`].
    too_deep: bool,
}

/// Go's tooLarge: a width or precision past a million is not one.
const TOO_LARGE: i64 = 1_000_000;

impl Printer {
    fn new(limit: usize) -> Printer {
        Printer {
            out: String::new(),
            limit,
            over: false,
            too_deep: false,
        }
    }

    fn finish(self) -> Result<String, String> {
        if self.too_deep {
            return Err(format!("a value nested deeper than {MAX_DEPTH}"));
        }
        if self.over {
            return Err(format!("output longer than {} bytes", self.limit));
        }
        Ok(self.out)
    }

    fn room(&mut self, n: usize) -> bool {
        if self.over || self.out.len().saturating_add(n) > self.limit {
            self.over = true;
            return false;
        }
        true
    }

    fn write(&mut self, s: &str) {
        if self.room(s.len()) {
            self.out.push_str(s);
        }
    }

    fn write_char(&mut self, c: char) {
        if self.room(c.len_utf8()) {
            self.out.push(c);
        }
    }

    fn padding(&mut self, n: usize, zero: bool) {
        if self.room(n) {
            let byte = if zero { '0' } else { ' ' };
            self.out.extend(std::iter::repeat_n(byte, n));
        }
    }

    /// `s` padded to the width, on the left unless `-`.
    fn pad(&mut self, s: &str, f: Flags) {
        let Some(wid) = f.wid else {
            return self.write(s);
        };
        let width = wid.saturating_sub(s.chars().count());
        if f.minus {
            self.write(s);
            self.padding(width, f.zero);
        } else {
            self.padding(width, f.zero);
            self.write(s);
        }
    }

    fn printf(&mut self, format: &str, args: &[Value]) -> Result<(), String> {
        let bytes = format.as_bytes();
        let end = bytes.len();
        let mut arg_num = 0;
        let mut reordered = false;
        let mut i = 0;
        while i < end {
            if self.over {
                return Ok(());
            }
            let mut good_arg_num = true;
            let last = i;
            while i < end && bytes[i] != b'%' {
                i += 1;
            }
            if i > last {
                self.write(&format[last..i]);
            }
            if i >= end {
                break;
            }
            i += 1;
            let mut f = Flags::default();
            while i < end {
                match bytes[i] {
                    b'#' => f.sharp = true,
                    b'0' => f.zero = !f.minus,
                    b'+' => f.plus = true,
                    b'-' => {
                        f.minus = true;
                        f.zero = false;
                    }
                    b' ' => f.space = true,
                    _ => break,
                }
                i += 1;
            }
            let mut after_index;
            (arg_num, i, after_index) = arg_number(
                arg_num,
                format,
                i,
                args.len(),
                &mut reordered,
                &mut good_arg_num,
            );
            if i < end && bytes[i] == b'*' {
                i += 1;
                let (wid, ok, next) = int_from_arg(args, arg_num);
                arg_num = next;
                if !ok {
                    self.write("%!(BADWIDTH)");
                    f.wid = None;
                } else if wid < 0 {
                    f.wid = Some(wid.unsigned_abs() as usize);
                    f.minus = true;
                    f.zero = false;
                } else {
                    f.wid = Some(wid as usize);
                }
                after_index = false;
            } else {
                let (wid, next) = parse_num(bytes, i);
                i = next;
                f.wid = wid;
                if after_index && f.wid.is_some() {
                    good_arg_num = false;
                }
            }
            if i + 1 < end && bytes[i] == b'.' {
                i += 1;
                if after_index {
                    good_arg_num = false;
                }
                (arg_num, i, after_index) = arg_number(
                    arg_num,
                    format,
                    i,
                    args.len(),
                    &mut reordered,
                    &mut good_arg_num,
                );
                if i < end && bytes[i] == b'*' {
                    i += 1;
                    let (prec, ok, next) = int_from_arg(args, arg_num);
                    arg_num = next;
                    f.prec = (ok && prec >= 0).then_some(prec as usize);
                    if f.prec.is_none() {
                        self.write("%!(BADPREC)");
                    }
                    after_index = false;
                } else {
                    let (prec, next) = parse_num(bytes, i);
                    i = next;
                    f.prec = Some(prec.unwrap_or(0));
                }
            }
            if !after_index {
                (arg_num, i, _) = arg_number(
                    arg_num,
                    format,
                    i,
                    args.len(),
                    &mut reordered,
                    &mut good_arg_num,
                );
            }
            for n in [f.wid, f.prec].into_iter().flatten() {
                if n > self.limit {
                    return Err(format!(
                        "width or precision {n} is more than the output limit of {} bytes",
                        self.limit
                    ));
                }
            }
            let Some(verb) = format.get(i..).and_then(|rest| rest.chars().next()) else {
                self.write("%!(NOVERB)");
                break;
            };
            i += verb.len_utf8();
            match verb {
                '%' => self.write("%"),
                _ if !good_arg_num => self.bad_arg(verb, "BADINDEX"),
                _ if arg_num >= args.len() => self.bad_arg(verb, "MISSING"),
                _ => {
                    if verb == 'v' {
                        f.sharp_v = f.sharp;
                        f.sharp = false;
                        f.plus = false;
                    }
                    self.print_arg(&args[arg_num], verb, f);
                    arg_num += 1;
                }
            }
        }
        if !reordered && arg_num < args.len() {
            self.write("%!(EXTRA ");
            for (n, arg) in args[arg_num..].iter().enumerate() {
                if n > 0 {
                    self.write(", ");
                }
                if let Value::Nil = arg {
                    self.write("<nil>");
                } else {
                    self.write(arg.type_name());
                    self.write("=");
                    self.print_arg(arg, 'v', Flags::default());
                }
            }
            self.write(")");
        }
        Ok(())
    }

    fn bad_arg(&mut self, verb: char, why: &str) {
        self.write("%!");
        self.write_char(verb);
        self.write("(");
        self.write(why);
        self.write(")");
    }

    /// `%!verb(type=value)`, the value printed in `%v` with the verb's
    /// flags, as Go's badVerb does.
    fn bad_verb(&mut self, verb: char, v: &Value, f: Flags, depth: usize) {
        self.write("%!");
        self.write_char(verb);
        self.write("(");
        if let Value::Nil = v {
            self.write("<nil>");
        } else {
            self.write(v.type_name());
            self.write("=");
            self.print_value(v, 'v', f, depth);
        }
        self.write(")");
    }

    /// One operand of a print: Go's printArg.
    fn print_arg(&mut self, v: &Value, verb: char, f: Flags) {
        match (v, verb) {
            (Value::Nil, 'v' | 'T') => self.pad("<nil>", f),
            (Value::Nil, _) => self.bad_verb(verb, v, f, 0),
            (_, 'T') => self.fmt_s(v.type_name(), f),
            _ => self.print_value(v, verb, f, 0),
        }
    }

    fn print_value(&mut self, v: &Value, verb: char, f: Flags, depth: usize) {
        if depth > MAX_DEPTH {
            self.too_deep = true;
            return;
        }
        match v {
            Value::Nil if f.sharp_v => self.write("interface {}(nil)"),
            Value::Nil => self.pad("<nil>", f),
            Value::Bool(b) => match verb {
                't' | 'v' => self.pad(if *b { "true" } else { "false" }, f),
                _ => self.bad_verb(verb, v, f, depth),
            },
            Value::Int(i) | Value::GoInt(i) => self.fmt_int(*i, v, verb, f, depth),
            Value::Float(x) => self.fmt_float(*x, verb, f, depth),
            // fmt calls a Stringer's `String()` for every verb but `%T`,
            // `%p` and `%#v` (which Go spells as the struct's fields).
            Value::Version(version) if !f.sharp_v => {
                let s = version.canonical();
                self.print_value(&Value::String(s), verb, f, depth);
            }
            Value::Version(version) => self.write(&format!(
                "&semver.Version{{major:{:#x}, minor:{:#x}, patch:{:#x}, pre:{:?}, metadata:{:?}, original:{:?}}}",
                version.major, version.minor, version.patch, version.pre, version.metadata, version.original
            )),
            Value::String(s) => match verb {
                'v' if f.sharp_v => self.fmt_q(s, f),
                'v' | 's' => self.fmt_s(s, f),
                'x' => self.fmt_sbx(s, false, f),
                'X' => self.fmt_sbx(s, true, f),
                'q' => self.fmt_q(s, f),
                _ => self.bad_verb(verb, v, f, depth),
            },
            Value::List(items) => {
                self.write(if f.sharp_v { "[]interface {}{" } else { "[" });
                for (i, item) in items.iter().enumerate() {
                    if self.over || self.too_deep {
                        return;
                    }
                    if i > 0 {
                        self.write(if f.sharp_v { ", " } else { " " });
                    }
                    self.print_value(item, verb, f, depth + 1);
                }
                self.write(if f.sharp_v { "}" } else { "]" });
            }
            Value::Map(entries) => {
                self.write(if f.sharp_v {
                    "map[string]interface {}{"
                } else {
                    "map["
                });
                for (i, (key, value)) in entries.iter().enumerate() {
                    if self.over || self.too_deep {
                        return;
                    }
                    if i > 0 {
                        self.write(if f.sharp_v { ", " } else { " " });
                    }
                    self.print_value(&Value::String(key.clone()), verb, f, depth + 1);
                    self.write(":");
                    self.print_value(value, verb, f, depth + 1);
                }
                self.write(if f.sharp_v { "}" } else { "]" });
            }
        }
    }

    fn fmt_s(&mut self, s: &str, f: Flags) {
        let s = truncate(s, f.prec);
        self.pad(s, f);
    }

    fn fmt_q(&mut self, s: &str, f: Flags) {
        let s = truncate(s, f.prec);
        if f.sharp && can_backquote(s) {
            return self.pad(&format!("`{s}`"), f);
        }
        self.pad(&quote_with(s, '"', f.plus), f);
    }

    /// `%x` of a string: its bytes in hex, `% x` spaced, `%#x` prefixed.
    fn fmt_sbx(&mut self, s: &str, upper: bool, f: Flags) {
        let digits: &[u8; 16] = if upper {
            b"0123456789ABCDEF"
        } else {
            b"0123456789abcdef"
        };
        let bytes = &s.as_bytes()[..f.prec.map_or(s.len(), |p| p.min(s.len()))];
        let length = bytes.len();
        if length == 0 {
            if let Some(wid) = f.wid {
                self.padding(wid, f.zero);
            }
            return;
        }
        let mut width = 2 * length;
        if f.space {
            if f.sharp {
                width *= 2;
            }
            width += length - 1;
        } else if f.sharp {
            width += 2;
        }
        let fill = f.wid.map_or(0, |w| w.saturating_sub(width));
        if !f.minus {
            self.padding(fill, f.zero);
        }
        if !self.room(width) {
            return;
        }
        let x = if upper { 'X' } else { 'x' };
        if f.sharp {
            self.out.push('0');
            self.out.push(x);
        }
        for (i, b) in bytes.iter().enumerate() {
            if f.space && i > 0 {
                self.out.push(' ');
                if f.sharp {
                    self.out.push('0');
                    self.out.push(x);
                }
            }
            self.out.push(digits[(b >> 4) as usize] as char);
            self.out.push(digits[(b & 15) as usize] as char);
        }
        if f.minus {
            self.padding(fill, f.zero);
        }
    }

    /// `i` is the value of `v`, an integer of either type.
    fn fmt_int(&mut self, i: i64, v: &Value, verb: char, f: Flags, depth: usize) {
        match verb {
            'v' | 'd' => self.fmt_integer(i, 10, verb, false, f),
            'b' => self.fmt_integer(i, 2, verb, false, f),
            'o' | 'O' => self.fmt_integer(i, 8, verb, false, f),
            'x' => self.fmt_integer(i, 16, verb, false, f),
            'X' => self.fmt_integer(i, 16, verb, true, f),
            'c' => self.pad(&rune_of(i).to_string(), f),
            'q' => {
                // Unlike a string's, a character's `#` does not change it.
                let quoted = quote_with(&rune_of(i).to_string(), '\'', f.plus);
                self.pad(&quoted, f);
            }
            'U' => self.fmt_unicode(i as u64, f),
            _ => self.bad_verb(verb, v, f, depth),
        }
    }

    /// Go's fmtInteger.
    fn fmt_integer(&mut self, i: i64, base: u64, verb: char, upper: bool, mut f: Flags) {
        let negative = i < 0;
        let mut u = i.unsigned_abs();
        let mut prec = 0;
        if let Some(p) = f.prec {
            prec = p;
            if p == 0 && u == 0 {
                let wid = f.wid.unwrap_or(0);
                self.padding(wid, false);
                return;
            }
        } else if f.zero && !f.minus && f.wid.is_some() {
            prec = f.wid.unwrap_or(0);
            if negative || f.plus || f.space {
                prec = prec.saturating_sub(1);
            }
        }
        let digits: &[u8; 16] = if upper {
            b"0123456789ABCDEF"
        } else {
            b"0123456789abcdef"
        };
        let mut buf: Vec<u8> = Vec::new();
        loop {
            buf.push(digits[(u % base) as usize]);
            u /= base;
            if u == 0 {
                break;
            }
        }
        if !self.room(prec) {
            return;
        }
        while buf.len() < prec {
            buf.push(b'0');
        }
        if f.sharp {
            match base {
                2 => buf.extend_from_slice(b"b0"),
                8 if buf.last() != Some(&b'0') => buf.push(b'0'),
                16 => buf.extend_from_slice(if upper { b"X0" } else { b"x0" }),
                _ => {}
            }
        }
        if verb == 'O' {
            buf.extend_from_slice(b"o0");
        }
        if negative {
            buf.push(b'-');
        } else if f.plus {
            buf.push(b'+');
        } else if f.space {
            buf.push(b' ');
        }
        buf.reverse();
        f.zero = false;
        self.pad(&String::from_utf8_lossy(&buf), f);
    }

    /// `%U`: `U+0041`, with `%#U` the character too when printable.
    fn fmt_unicode(&mut self, u: u64, mut f: Flags) {
        let prec = f.prec.filter(|p| *p > 4).unwrap_or(4);
        if !self.room(prec) {
            return;
        }
        let mut s = format!("U+{u:0prec$X}");
        if f.sharp
            && let Some(r) = u32::try_from(u).ok().and_then(char::from_u32)
            && is_print(r)
        {
            s.push_str(&format!(" '{r}'"));
        }
        f.zero = false;
        self.pad(&s, f);
    }

    fn fmt_float(&mut self, x: f64, verb: char, f: Flags, depth: usize) {
        let (verb, prec) = match verb {
            'v' => ('g', None),
            'b' | 'g' | 'G' | 'x' | 'X' if f.sharp_v => ('g', None),
            'b' | 'g' | 'G' | 'x' | 'X' => (verb, None),
            'f' | 'e' | 'E' | 'F' if f.sharp_v => ('g', None),
            'F' => ('f', Some(6)),
            'f' | 'e' | 'E' => (verb, Some(6)),
            _ => return self.bad_verb(verb, &Value::Float(x), f, depth),
        };
        let prec = f.prec.or(prec);
        self.fmt_float_with(x, verb, prec, f);
    }

    /// Go's fmt.fmtFloat: the number from strconv, then its sign, the
    /// `#` flag's point and zeros, and the padding.
    fn fmt_float_with(&mut self, x: f64, verb: char, prec: Option<usize>, mut f: Flags) {
        let formatted = format_float(x, verb, prec);
        let mut num: Vec<u8> = if formatted.starts_with(['-', '+']) {
            formatted.into_bytes()
        } else {
            let mut n = vec![b'+'];
            n.extend_from_slice(formatted.as_bytes());
            n
        };
        if f.space && num[0] == b'+' && !f.plus {
            num[0] = b' ';
        }
        if num.get(1).is_some_and(|c| *c == b'I' || *c == b'N') {
            if num[1] == b'N' && !f.space && !f.plus {
                num.remove(0);
            }
            f.zero = false;
            return self.pad(&String::from_utf8_lossy(&num), f);
        }
        if f.sharp && verb != 'b' {
            let mut digits: i64 = match verb {
                'v' | 'g' | 'G' | 'x' => prec.map_or(6, |p| p as i64),
                _ => 0,
            };
            let mut tail = Vec::new();
            let mut has_point = false;
            let mut saw_nonzero = false;
            let mut i = 1;
            while i < num.len() {
                match num[i] {
                    b'.' => has_point = true,
                    b'p' | b'P' => {
                        tail = num.split_off(i);
                        break;
                    }
                    b'e' | b'E' if verb != 'x' && verb != 'X' => {
                        tail = num.split_off(i);
                        break;
                    }
                    c => {
                        if c != b'0' {
                            saw_nonzero = true;
                        }
                        if saw_nonzero {
                            digits -= 1;
                        }
                    }
                }
                i += 1;
            }
            if !has_point {
                if num.len() == 2 && num[1] == b'0' {
                    digits -= 1;
                }
                num.push(b'.');
            }
            if digits > 0 && !self.room(digits as usize) {
                return;
            }
            while digits > 0 {
                num.push(b'0');
                digits -= 1;
            }
            num.extend(tail);
        }
        let text = String::from_utf8_lossy(&num).into_owned();
        if f.plus || !text.starts_with('+') {
            if let Some(wid) = f.wid
                && f.zero
                && !f.minus
                && wid > text.len()
            {
                self.write(&text[..1]);
                self.padding(wid - text.len(), true);
                self.write(&text[1..]);
                return;
            }
            return self.pad(&text, f);
        }
        self.pad(&text[1..], f);
    }
}

/// A width or precision from the arguments (`*`): Go's intFromArg.
fn int_from_arg(args: &[Value], arg_num: usize) -> (i64, bool, usize) {
    match args.get(arg_num) {
        Some(Value::Int(n) | Value::GoInt(n)) if (-TOO_LARGE..=TOO_LARGE).contains(n) => {
            (*n, true, arg_num + 1)
        }
        Some(_) => (0, false, arg_num + 1),
        None => (0, false, arg_num),
    }
}

/// Go's parsenum: digits at `start`, or none. A number past a million
/// swallows the rest of the format, as in Go.
fn parse_num(bytes: &[u8], start: usize) -> (Option<usize>, usize) {
    let mut num: i64 = 0;
    let mut found = false;
    let mut i = start;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        if num > TOO_LARGE {
            return (None, bytes.len());
        }
        num = num * 10 + i64::from(bytes[i] - b'0');
        found = true;
        i += 1;
    }
    (found.then_some(num as usize), i)
}

/// An explicit argument index (`%[2]d`) at `i`: Go's argNumber.
fn arg_number(
    arg_num: usize,
    format: &str,
    i: usize,
    num_args: usize,
    reordered: &mut bool,
    good: &mut bool,
) -> (usize, usize, bool) {
    let bytes = format.as_bytes();
    if bytes.get(i) != Some(&b'[') {
        return (arg_num, i, false);
    }
    *reordered = true;
    let rest = &bytes[i..];
    let (index, wid, ok) = match rest.iter().position(|b| *b == b']') {
        Some(close) if rest.len() >= 3 => match parse_num(&rest[..close], 1) {
            (Some(n), next) if next == close => (n as i64 - 1, close + 1, true),
            _ => (0, close + 1, false),
        },
        _ => (0, 1, false),
    };
    if ok && index >= 0 && (index as usize) < num_args {
        return (index as usize, i + wid, true);
    }
    *good = false;
    (arg_num, i + wid, ok)
}

/// At most `prec` characters of `s`.
fn truncate(s: &str, prec: Option<usize>) -> &str {
    match prec.and_then(|p| s.char_indices().nth(p)) {
        Some((at, _)) => &s[..at],
        None => s,
    }
}

/// The character an integer is, or U+FFFD when it is none (negative, a
/// surrogate, past U+10FFFF).
fn rune_of(i: i64) -> char {
    u32::try_from(i)
        .ok()
        .and_then(char::from_u32)
        .unwrap_or('\u{FFFD}')
}
