//! The lexer of Go's template language: text and actions (`{{ … }}`), with
//! the trim markers (`{{- ` and ` -}}`), comments (`{{/* … */}}`) and every
//! token an action may hold. Tokens keep their byte offset, from which an
//! error says its line and column.
//!
//! Pure, and linear in the text: each byte is looked at a bounded number of
//! times, so a hostile text costs no more than its length.

use std::fmt;

/// A place in the template: a byte offset, and the line and column (both
/// 1-based, the column in characters) a person reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pos {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

impl Pos {
    /// The place of byte `offset` in `text`.
    pub fn of(text: &str, offset: usize) -> Pos {
        let before = &text[..offset.min(text.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        Pos {
            offset,
            line,
            column,
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// The words of the language that are not functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    Block,
    Break,
    Continue,
    Define,
    Else,
    End,
    If,
    Range,
    Template,
    With,
}

impl Keyword {
    fn of(word: &str) -> Option<Keyword> {
        Some(match word {
            "block" => Keyword::Block,
            "break" => Keyword::Break,
            "continue" => Keyword::Continue,
            "define" => Keyword::Define,
            "else" => Keyword::Else,
            "end" => Keyword::End,
            "if" => Keyword::If,
            "range" => Keyword::Range,
            "template" => Keyword::Template,
            "with" => Keyword::With,
            _ => return None,
        })
    }
}

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Token {
    /// Text outside actions, trim markers already applied.
    Text(String),
    /// `{{` (with its trim marker, if any).
    Open,
    /// `}}`.
    Close,
    Keyword(Keyword),
    /// A function's name.
    Identifier(String),
    /// `.name`, one segment of a field chain.
    Field(String),
    /// `.` alone: the cursor.
    Dot,
    /// `$` or `$name`.
    Variable(String),
    /// A quoted or raw string, its escapes read.
    String(String),
    /// A character constant (`'a'`, `'\xff'`), which Go's templates read
    /// as a number: its code.
    Char(u32),
    /// A number as written (`1`, `-2.5e3`, `0x1F`, `1_000`).
    Number(String),
    Bool(bool),
    Nil,
    /// `|`.
    Pipe,
    /// `(`.
    OpenParen,
    /// `)`.
    CloseParen,
    /// `:=`.
    Declare,
    /// `=`.
    Assign,
    /// `,`.
    Comma,
    /// Space between the parts of an action (it separates arguments).
    Space,
}

/// A token and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Lexeme {
    pub token: Token,
    pub offset: usize,
}

/// Why a text is not a template, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LexError {
    pub offset: usize,
    pub message: String,
}

const OPEN: &str = "{{";
const CLOSE: &str = "}}";
const OPEN_COMMENT: &str = "/*";
const CLOSE_COMMENT: &str = "*/";

/// Go's trim markers are a `-` with ASCII space beside it.
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The tokens of `text`, or the first reason it is not a template.
pub fn lex(text: &str) -> Result<Vec<Lexeme>, LexError> {
    let mut lexer = Lexer {
        text,
        at: 0,
        out: Vec::new(),
        trim_next_text: false,
    };
    lexer.run()?;
    Ok(lexer.out)
}

struct Lexer<'a> {
    text: &'a str,
    at: usize,
    out: Vec<Lexeme>,
    /// The action before ended with ` -}}`: the text after it loses its
    /// leading space.
    trim_next_text: bool,
}

impl Lexer<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn push(&mut self, token: Token, offset: usize) {
        self.out.push(Lexeme { token, offset });
    }

    fn error<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            offset,
            message: message.into(),
        })
    }

    fn run(&mut self) -> Result<(), LexError> {
        while self.at < self.text.len() {
            let open = self.rest().find(OPEN).map(|i| self.at + i);
            let end = open.unwrap_or(self.text.len());
            // A `{{- ` trims the space before it.
            let trims_before = open.is_some_and(|o| {
                let after = &self.text.as_bytes()[o + OPEN.len()..];
                after.first() == Some(&b'-') && after.get(1).is_some_and(|c| is_space(*c))
            });
            let mut text = &self.text[self.at..end];
            let mut start = self.at;
            if self.trim_next_text {
                let trimmed = text.trim_start_matches(|c: char| c.is_ascii() && is_space(c as u8));
                start += text.len() - trimmed.len();
                text = trimmed;
                self.trim_next_text = false;
            }
            if trims_before {
                text = text.trim_end_matches(|c: char| c.is_ascii() && is_space(c as u8));
            }
            if !text.is_empty() {
                self.push(Token::Text(text.to_string()), start);
            }
            let Some(open) = open else {
                self.at = self.text.len();
                break;
            };
            self.at = open + OPEN.len() + if trims_before { 2 } else { 0 };
            self.action(open)?;
        }
        Ok(())
    }

    /// From after `{{` (and its trim marker) to after `}}`.
    fn action(&mut self, open: usize) -> Result<(), LexError> {
        // A comment fills the whole action.
        if self.rest().starts_with(OPEN_COMMENT) {
            let Some(end) = self.rest().find(CLOSE_COMMENT) else {
                return self.error(open, "unclosed comment");
            };
            self.at += end + CLOSE_COMMENT.len();
            let (closed, trims) = self.close_here();
            if !closed {
                return self.error(open, "comment ends before closing delimiter");
            }
            self.trim_next_text = trims;
            return Ok(());
        }
        self.push(Token::Open, open);
        // Where each paren still open was opened.
        let mut parens: Vec<usize> = Vec::new();
        loop {
            let close = self.at;
            let (closed, trims) = self.close_here();
            if closed {
                if let Some(paren) = parens.last() {
                    return self.error(*paren, "unclosed left paren");
                }
                self.push(Token::Close, close);
                self.trim_next_text = trims;
                return Ok(());
            }
            let start = self.at;
            let Some(c) = self.rest().chars().next() else {
                return self.error(open, "unclosed action");
            };
            match c {
                c if c.is_ascii() && is_space(c as u8) => {
                    let spaces = self.rest().bytes().take_while(|b| is_space(*b)).count();
                    // ` -}}` is a close with a trim marker, not a space.
                    self.at += spaces;
                    if !matches!(self.close_ahead(), Some((_, true))) {
                        self.push(Token::Space, start);
                    }
                }
                '|' => self.single(Token::Pipe),
                ',' => self.single(Token::Comma),
                '(' => {
                    parens.push(start);
                    self.single(Token::OpenParen);
                }
                ')' => {
                    if parens.pop().is_none() {
                        return self.error(start, "unexpected right paren");
                    }
                    self.single(Token::CloseParen);
                }
                ':' => {
                    if !self.rest().starts_with(":=") {
                        return self.error(start, "expected :=");
                    }
                    self.at += 2;
                    self.push(Token::Declare, start);
                }
                '=' => self.single(Token::Assign),
                '"' => self.quoted(start)?,
                '`' => self.raw(start)?,
                '\'' => self.character(start)?,
                '$' => {
                    let name = self.word_after(1);
                    self.push(Token::Variable(format!("${name}")), start);
                }
                '.' => {
                    let next = self.rest()[1..].chars().next();
                    if next.is_some_and(|c| c.is_ascii_digit()) {
                        self.number(start)?;
                    } else if next.is_some_and(is_word) {
                        let name = self.word_after(1);
                        self.push(Token::Field(name), start);
                    } else {
                        self.single(Token::Dot);
                    }
                }
                '+' | '-' | '0'..='9' => self.number(start)?,
                c if is_word(c) => {
                    let word = self.word_after(0);
                    let token = match word.as_str() {
                        "true" => Token::Bool(true),
                        "false" => Token::Bool(false),
                        "nil" => Token::Nil,
                        w => Keyword::of(w)
                            .map_or_else(|| Token::Identifier(word.clone()), Token::Keyword),
                    };
                    self.push(token, start);
                }
                c => {
                    return self.error(start, format!("unrecognized character in action: {c:?}"));
                }
            }
        }
    }

    /// The action's close at the current place, if it is one: its length
    /// and whether it carries a trim marker (` -}}`, the space before the
    /// `-` read already or still here).
    fn close_ahead(&self) -> Option<(usize, bool)> {
        let rest = self.rest();
        if rest.starts_with(CLOSE) {
            return Some((CLOSE.len(), false));
        }
        let spaces = rest.bytes().take_while(|b| is_space(*b)).count();
        let spaced = spaces > 0
            || self.text.as_bytes()[..self.at]
                .last()
                .is_some_and(|b| is_space(*b));
        (spaced && rest[spaces..].starts_with("-}}")).then_some((spaces + 3, true))
    }

    /// Whether the action closes here; if so, moves past the close and
    /// says whether it trims the text after it.
    fn close_here(&mut self) -> (bool, bool) {
        match self.close_ahead() {
            Some((length, trims)) => {
                self.at += length;
                (true, trims)
            }
            None => (false, false),
        }
    }

    fn single(&mut self, token: Token) {
        let start = self.at;
        self.at += 1;
        self.push(token, start);
    }

    /// The word that starts `skip` bytes on, moving past both.
    fn word_after(&mut self, skip: usize) -> String {
        let word: String = self.rest()[skip..]
            .chars()
            .take_while(|c| is_word(*c))
            .collect();
        self.at += skip + word.len();
        word
    }

    fn quoted(&mut self, start: usize) -> Result<(), LexError> {
        // Escapes by code (`\xe9`, `\351`) are bytes, as in Go's strings:
        // the bytes are collected, and must make UTF-8 in the end.
        let mut bytes = Vec::new();
        let body = &self.rest()[1..];
        let mut i = 0;
        while let Some(c) = body[i..].chars().next() {
            match c {
                '"' => {
                    let Ok(value) = String::from_utf8(bytes) else {
                        return self.error(start, "a string constant must be UTF-8");
                    };
                    self.at += 1 + i + 1;
                    self.push(Token::String(value), start);
                    return Ok(());
                }
                '\n' => break,
                '\\' => {
                    let Some((unit, length)) = unescape(&body[i + 1..], '"') else {
                        if body[i + 1..].starts_with(['\n']) || body.len() == i + 1 {
                            break;
                        }
                        return self.error(start, "invalid syntax");
                    };
                    match unit {
                        Unit::Byte(b) => bytes.push(b),
                        Unit::Char(c) => {
                            bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes())
                        }
                    }
                    i += 1 + length;
                }
                c => {
                    bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    i += c.len_utf8();
                }
            }
        }
        self.error(start, "unterminated quoted string")
    }

    fn raw(&mut self, start: usize) -> Result<(), LexError> {
        let Some(end) = self.rest()[1..].find('`') else {
            return self.error(start, "unterminated raw quoted string");
        };
        let value = self.rest()[1..1 + end].replace('\r', "");
        self.at += end + 2;
        self.push(Token::String(value), start);
        Ok(())
    }

    fn character(&mut self, start: usize) -> Result<(), LexError> {
        let body = &self.rest()[1..];
        let (value, written) = match body.chars().next() {
            Some('\\') => match unescape(&body[1..], '\'') {
                Some((Unit::Byte(b), length)) => (u32::from(b), 1 + length),
                Some((Unit::Char(c), length)) => (c as u32, 1 + length),
                None => return self.error(start, "malformed character constant"),
            },
            Some(c) if c != '\n' && c != '\'' => (c as u32, c.len_utf8()),
            _ => return self.error(start, "unterminated character constant"),
        };
        if !body[written..].starts_with('\'') {
            return self.error(start, "malformed character constant");
        }
        self.at += 1 + written + 1;
        self.push(Token::Char(value), start);
        Ok(())
    }

    /// A number as Go's lexer takes it: sign, base prefix, digits with
    /// `_`, a fraction, an exponent; followed by a letter or digit is not
    /// a number.
    fn number(&mut self, start: usize) -> Result<(), LexError> {
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let mut i = 0;
        if matches!(bytes.first(), Some(b'+' | b'-')) {
            i += 1;
        }
        let mut digits: &dyn Fn(u8) -> bool = &|b: u8| b.is_ascii_digit() || b == b'_';
        let hex = |b: u8| b.is_ascii_hexdigit() || b == b'_';
        let (mut exponent_a, mut exponent_b) = (b'e', b'E');
        if bytes.get(i) == Some(&b'0') && matches!(bytes.get(i + 1), Some(b'x' | b'X')) {
            i += 2;
            digits = &hex;
            (exponent_a, exponent_b) = (b'p', b'P');
        } else if bytes.get(i) == Some(&b'0')
            && matches!(bytes.get(i + 1), Some(b'o' | b'O' | b'b' | b'B'))
        {
            i += 2;
        }
        while bytes.get(i).is_some_and(|b| digits(*b)) {
            i += 1;
        }
        if bytes.get(i) == Some(&b'.') {
            i += 1;
            while bytes.get(i).is_some_and(|b| digits(*b)) {
                i += 1;
            }
        }
        if bytes
            .get(i)
            .is_some_and(|b| *b == exponent_a || *b == exponent_b)
        {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            while bytes
                .get(i)
                .is_some_and(|b| b.is_ascii_digit() || *b == b'_')
            {
                i += 1;
            }
        }
        if bytes.get(i) == Some(&b'i') {
            i += 1;
        }
        let written = rest[..i].to_string();
        let bad = written.trim_start_matches(['+', '-']).is_empty()
            || rest[i..].chars().next().is_some_and(is_word);
        if bad {
            let upto = i + rest[i..]
                .chars()
                .take_while(|c| is_word(*c))
                .map(char::len_utf8)
                .sum::<usize>();
            return self.error(
                start,
                format!("bad number syntax: {:?}", &rest[..upto.max(1)]),
            );
        }
        self.at += i;
        self.push(Token::Number(written), start);
        Ok(())
    }
}

/// What an escape stands for: a byte (`\x`, octal) or a character.
enum Unit {
    Byte(u8),
    Char(char),
}

/// The escape after a `\\` at the start of `rest`, as Go's
/// `strconv.UnquoteChar` reads it inside `quote`, and its length; `None`
/// where Go's is a syntax error.
fn unescape(rest: &str, quote: char) -> Option<(Unit, usize)> {
    let c = rest.chars().next()?;
    let simple = |c| Some((Unit::Char(c), 1));
    match c {
        'a' => simple('\u{7}'),
        'b' => simple('\u{8}'),
        'f' => simple('\u{c}'),
        'n' => simple('\n'),
        'r' => simple('\r'),
        't' => simple('\t'),
        'v' => simple('\u{b}'),
        '\\' => simple('\\'),
        // Only the quote that delimits may be escaped.
        '\'' | '"' if c == quote => simple(c),
        'x' | 'u' | 'U' => {
            let digits = match c {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let hex = rest.get(1..1 + digits)?;
            if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let code = u32::from_str_radix(hex, 16).ok()?;
            if c == 'x' {
                return Some((Unit::Byte(code as u8), 1 + digits));
            }
            Some((Unit::Char(char::from_u32(code)?), 1 + digits))
        }
        '0'..='7' => {
            let octal = rest.get(..3)?;
            if !octal.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                return None;
            }
            let code = u32::from_str_radix(octal, 8).ok()?;
            Some((Unit::Byte(u8::try_from(code).ok()?), 3))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests;
