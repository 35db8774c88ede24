//! `toYaml` as Sveltos runs it: `sigs.k8s.io/yaml` v1.6.0 marshals the
//! value to JSON, reads the JSON back with go-yaml v2 and emits it with
//! go-yaml v2's port of libyaml. This is that emitter, cut down to what
//! such a value needs (block mappings and sequences, `[]` and `{}` when
//! empty, scalars), with libyaml's choice of scalar style, its 80-column
//! folding of long scalars, and go-yaml's order of map keys.

use super::super::super::value::{Value, go_float};
use super::super::sprig::MAX_DEPTH;
use super::json;

/// Why a value did not marshal.
pub(super) enum Refusal {
    /// What Go's `json.Marshal` refuses (NaN, an infinity): `toYaml` gives
    /// "" then, as Sveltos does.
    Unsupported,
    /// The limit the text went past, or the depth: an error.
    Bounded(String),
}

/// The YAML go-yaml v2 writes for `v`, the trailing newline cut.
pub(super) fn to_yaml(v: &Value, limit: usize) -> Result<String, Refusal> {
    json::check_encodable(v, 0).map_err(|e| match e {
        json::Refusal::Unsupported(_) => Refusal::Unsupported,
        json::Refusal::Bounded(why) => Refusal::Bounded(why),
    })?;
    let mut e = Emitter {
        out: String::new(),
        limit,
        over: false,
        column: 0,
        whitespace: true,
        indention: true,
        indent: -1,
        indents: Vec::new(),
    };
    e.node(v, Context::default(), 0)?;
    // The document end puts a last line break, which Sveltos cuts.
    e.write_indent();
    if e.over {
        return Err(Refusal::Bounded(format!(
            "the YAML would be longer than the output limit of {limit} bytes"
        )));
    }
    let mut out = e.out;
    if out.ends_with('\n') {
        out.pop();
    }
    Ok(out)
}

/// Where a node is, as libyaml's emitter tracks it.
#[derive(Clone, Copy, Default)]
struct Context {
    mapping: bool,
    simple_key: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

struct Emitter {
    out: String,
    limit: usize,
    over: bool,
    /// In characters, as libyaml counts.
    column: usize,
    whitespace: bool,
    indention: bool,
    indent: i64,
    indents: Vec<i64>,
}

/// The widest a line grows before a scalar folds at a space.
const BEST_WIDTH: usize = 80;
const BEST_INDENT: i64 = 2;

impl Emitter {
    fn put(&mut self, c: char) {
        if self.out.len() + c.len_utf8() > self.limit {
            self.over = true;
            return;
        }
        self.out.push(c);
        self.column += 1;
    }

    fn put_break(&mut self) {
        if self.out.len() < self.limit {
            self.out.push('\n');
        } else {
            self.over = true;
        }
        self.column = 0;
    }

    /// A break character of a scalar: `\n` as a line break, the others
    /// written as they are.
    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.put(c);
            self.column = 0;
        }
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent && !self.over {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        for c in indicator.chars() {
            self.put(c);
        }
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn node(&mut self, v: &Value, ctx: Context, depth: usize) -> Result<(), Refusal> {
        if depth > MAX_DEPTH {
            return Err(Refusal::Bounded(format!(
                "a value nested deeper than {MAX_DEPTH}"
            )));
        }
        match v {
            Value::List(items) if items.is_empty() => self.empty_flow("[", "]"),
            Value::Map(entries) if entries.is_empty() => self.empty_flow("{", "}"),
            Value::List(items) => {
                self.increase_indent(false, ctx.mapping && !self.indention);
                for item in items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::default(), depth + 1)?;
                }
                self.pop_indent();
            }
            Value::Map(entries) => {
                self.increase_indent(false, false);
                for key in sorted_keys(entries.keys().map(String::as_str).collect()) {
                    let value = &entries[key];
                    self.write_indent();
                    let simple = key.len() <= 128 && !analyze(key).multiline;
                    if simple {
                        let ctx = Context {
                            mapping: true,
                            simple_key: true,
                        };
                        self.scalar(key, string_style(key), ctx);
                        self.write_indicator(":", false, false, false);
                    } else {
                        self.write_indicator("?", true, false, true);
                        let ctx = Context {
                            mapping: true,
                            simple_key: false,
                        };
                        self.scalar(key, string_style(key), ctx);
                        self.write_indent();
                        self.write_indicator(":", true, false, true);
                    }
                    let ctx = Context {
                        mapping: true,
                        simple_key: false,
                    };
                    self.node(value, ctx, depth + 1)?;
                }
                self.pop_indent();
            }
            Value::String(s) => self.scalar(s, string_style(s), ctx),
            // Through JSON a version is the string it prints as.
            Value::Version(v) => {
                let s = v.canonical();
                self.scalar(&s, string_style(&s), ctx);
            }
            scalar => self.scalar(&scalar_text(scalar), Style::Plain, ctx),
        }
        Ok(())
    }

    fn empty_flow(&mut self, open: &str, close: &str) {
        self.write_indicator(open, true, true, false);
        self.write_indicator(close, false, false, false);
    }

    fn scalar(&mut self, text: &str, requested: Style, ctx: Context) {
        let a = analyze(text);
        let mut style = requested;
        if ctx.simple_key && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain && (!a.block_plain_allowed || (text.is_empty() && ctx.simple_key))
        {
            style = Style::Single;
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        if style == Style::Literal && (!a.block_allowed || ctx.simple_key) {
            style = Style::Double;
        }
        self.increase_indent(true, false);
        let chars: Vec<char> = text.chars().collect();
        let allow_breaks = !ctx.simple_key;
        match style {
            Style::Plain => self.plain(&chars, allow_breaks),
            Style::Single => self.single_quoted(&chars, allow_breaks),
            Style::Double => self.double_quoted(&chars, allow_breaks),
            Style::Literal => self.literal(&chars),
        }
        self.pop_indent();
    }

    fn plain(&mut self, s: &[char], allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in s.iter().enumerate() {
            if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && s.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, s: &[char], allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let (mut spaces, mut breaks) = (false, false);
        for (i, &c) in s.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < s.len() - 1
                    && s.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.write_indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn double_quoted(&mut self, s: &[char], allow_breaks: bool) {
        let mut spaces = false;
        self.write_indicator("\"", true, false, false);
        for (i, &c) in s.iter().enumerate() {
            if !is_printable(c) || c == '\u{feff}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                let escape = match c {
                    '\0' => Some('0'),
                    '\x07' => Some('a'),
                    '\x08' => Some('b'),
                    '\t' => Some('t'),
                    '\n' => Some('n'),
                    '\x0b' => Some('v'),
                    '\x0c' => Some('f'),
                    '\r' => Some('r'),
                    '\x1b' => Some('e'),
                    '"' => Some('"'),
                    '\\' => Some('\\'),
                    '\u{85}' => Some('N'),
                    '\u{a0}' => Some('_'),
                    '\u{2028}' => Some('L'),
                    '\u{2029}' => Some('P'),
                    _ => None,
                };
                match escape {
                    Some(e) => self.put(e),
                    None => {
                        let v = c as u32;
                        let hex = if v <= 0xff {
                            format!("x{v:02X}")
                        } else if v <= 0xffff {
                            format!("u{v:04X}")
                        } else {
                            format!("U{v:08X}")
                        };
                        for h in hex.chars() {
                            self.put(h);
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks && !spaces && self.column > BEST_WIDTH && i > 0 && i < s.len() - 1 {
                    self.write_indent();
                    if s.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn literal(&mut self, s: &[char]) {
        self.write_indicator("|", true, false, false);
        if s.first().is_some_and(|c| *c == ' ' || is_break(*c)) {
            self.write_indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let chomp = match s {
            [] => Some("-"),
            [.., last] if !is_break(*last) => Some("-"),
            [_] => Some("+"),
            [.., before, _] if is_break(*before) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for &c in s {
            if is_break(c) {
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

/// How a non-string scalar prints after its trip through JSON and back:
/// a float that JSON writes without a point or exponent comes back as an
/// integer (`1e6` is `1000000`, `-0.0` is `0`).
fn scalar_text(v: &Value) -> String {
    match v {
        Value::Nil => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) | Value::GoInt(i) => i.to_string(),
        Value::Float(f) => {
            let text = json::float(*f);
            if text.contains(['.', 'e', 'E']) {
                return go_float(*f);
            }
            if let Ok(i) = text.parse::<i64>() {
                return i.to_string();
            }
            if let Ok(u) = text.parse::<u64>() {
                return u.to_string();
            }
            go_float(*f)
        }
        Value::String(s) => s.clone(),
        Value::Version(v) => v.canonical(),
        Value::List(_) | Value::Map(_) => String::new(),
    }
}

/// go-yaml's choice for a string: a block when it has a line break, plain
/// when go-yaml would read it back as the same string, else quoted.
fn string_style(s: &str) -> Style {
    if s.contains('\n') {
        Style::Literal
    } else if super::resolve::reads_as_string(s) {
        Style::Plain
    } else {
        Style::Double
    }
}

/// What libyaml's `analyze_scalar` finds of a scalar, the flags the
/// block context needs.
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// libyaml's printable set (no characters beyond the BMP).
fn is_printable(c: char) -> bool {
    let v = c as u32;
    v == 0x0a
        || (0x20..=0x7e).contains(&v)
        || (0xa0..=0xd7ff).contains(&v)
        || ((0xe000..=0xfffd).contains(&v) && v != 0xfeff)
}

fn analyze(s: &str) -> Analysis {
    if s.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let mut block_indicators = s.starts_with("---") || s.starts_with("...");
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = chars.get(i + 1).is_none_or(|n| is_blank(*n));
        let last = i + 1 == chars.len();
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= last;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= last;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = is_blank(c) || is_break(c) || c == '\0';
    }
    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

/// Map keys in go-yaml's order: letters by code point, runs of digits by
/// their number (`a2` before `a10`), a letter after a non-letter.
fn sorted_keys(mut keys: Vec<&str>) -> Vec<&str> {
    // A merge sort: go-yaml's order is not quite a total order, and the
    // standard sort may panic on one.
    fn sort(keys: &mut Vec<&str>) {
        if keys.len() < 2 {
            return;
        }
        let mut right = keys.split_off(keys.len() / 2);
        sort(keys);
        sort(&mut right);
        let left = std::mem::take(keys);
        let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
        while let (Some(a), Some(b)) = (l.peek(), r.peek()) {
            if key_less(b, a) {
                keys.extend(r.next());
            } else {
                keys.extend(l.next());
            }
        }
        keys.extend(l);
        keys.extend(r);
    }
    sort(&mut keys);
    keys
}

/// go-yaml v2's `keyList.Less` on two string keys.
fn key_less(a: &str, b: &str) -> bool {
    let (ar, br): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let digit = |c: char| c.is_ascii_digit();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let (al, bl) = (ar[i].is_alphabetic(), br[i].is_alphabetic());
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn) = (0i64, 0i64);
        // Go's quirk: a zero inside a number that already has a non-zero
        // digit counts from 1.
        let zero_inside = (ar[i] == '0' || br[i] == '0')
            && ar[..i]
                .iter()
                .rev()
                .take_while(|c| digit(**c))
                .any(|c| *c != '0');
        if zero_inside {
            an = 1;
            bn = 1;
        }
        let mut ai = i;
        while ai < ar.len() && digit(ar[ai]) {
            an = an
                .wrapping_mul(10)
                .wrapping_add(i64::from(ar[ai] as u8 - b'0'));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && digit(br[bi]) {
            bn = bn
                .wrapping_mul(10)
                .wrapping_add(i64::from(br[bi] as u8 - b'0'));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

#[cfg(test)]
mod tests;
