//! The parser of Go's template language: the lexer's tokens into a tree of
//! nodes, each with the byte offset it starts at. The tree is what Go's
//! `text/template/parse` builds: text, actions (pipelines of commands),
//! `if`/`with`/`range` with their `else` (and `else if`, `else with`),
//! `break`/`continue` inside `range`, `define`, `template` and `block`.
//!
//! Pure. Nesting is bounded ([`MAX_DEPTH`]), so a hostile text cannot
//! exhaust the stack.

use std::collections::BTreeMap;

use super::lex::{Keyword, LexError, Lexeme, Token, lex};
use super::number::constant;

/// How deep blocks and parentheses may nest.
pub const MAX_DEPTH: usize = 64;

/// A parsed template: its main tree and the ones `define` and `block` name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    pub main: Vec<Node>,
    pub defined: BTreeMap<String, Vec<Node>>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    Text(String),
    /// `{{ pipeline }}`: its value is printed unless it declares.
    Action(Pipeline),
    If(Branch),
    With(Branch),
    Range(Branch),
    Break(usize),
    Continue(usize),
    /// `{{ template "name" pipeline }}`.
    Template {
        name: String,
        pipeline: Option<Pipeline>,
        offset: usize,
    },
}

/// `if`, `with` and `range`: a pipeline, what runs when it holds (or for
/// each element), and what runs otherwise.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    pub pipeline: Pipeline,
    pub then: Vec<Node>,
    pub otherwise: Vec<Node>,
    pub offset: usize,
}

/// Commands joined by `|`, each one's value the last argument of the next;
/// optionally declaring (`:=`) or assigning (`=`) variables.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    pub variables: Vec<String>,
    pub declares: bool,
    pub commands: Vec<Command>,
    pub offset: usize,
}

/// A function or a value, with its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    pub args: Vec<Arg>,
    pub offset: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// `.`.
    Dot(usize),
    /// `.a.b` on the cursor.
    Field(Vec<String>, usize),
    /// `$x.a.b`.
    Variable(String, Vec<String>, usize),
    /// `(pipeline).a.b`.
    Chain(Box<Pipeline>, Vec<String>, usize),
    /// A function's name.
    Function(String, usize),
    String(String, usize),
    Number(String, usize),
    Char(u32, usize),
    Bool(bool, usize),
    Nil(usize),
}

/// Why a text is not a template, and where (a byte offset).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}

impl From<LexError> for ParseError {
    fn from(e: LexError) -> Self {
        ParseError {
            offset: e.offset,
            message: e.message,
        }
    }
}

/// The tree of `text`, or the first reason it is not a template.
pub fn parse(text: &str) -> Result<Parsed, ParseError> {
    let tokens = lex(text)?;
    let mut parser = Parser {
        tokens,
        at: 0,
        end: text.len(),
        parsed: Parsed::default(),
        ranges: 0,
        variables: vec!["$".into()],
    };
    let (main, stop) = parser.list(0)?;
    if let Some((keyword, offset)) = stop {
        return Err(ParseError {
            offset,
            message: format!("unexpected {{{{{}}}}}", keyword_name(keyword)),
        });
    }
    parser.parsed.main = main;
    Ok(parser.parsed)
}

fn keyword_name(k: Keyword) -> &'static str {
    match k {
        Keyword::Block => "block",
        Keyword::Break => "break",
        Keyword::Continue => "continue",
        Keyword::Define => "define",
        Keyword::Else => "else",
        Keyword::End => "end",
        Keyword::If => "if",
        Keyword::Range => "range",
        Keyword::Template => "template",
        Keyword::With => "with",
    }
}

struct Parser {
    /// The tokens, spaces kept: they tell `$x .y` (two arguments) from
    /// `$x.y` (a field of `$x`).
    tokens: Vec<Lexeme>,
    at: usize,
    end: usize,
    parsed: Parsed,
    /// How many `range`s enclose the current place (`break` and
    /// `continue` need one).
    ranges: usize,
    /// The variables declared so far in scope: Go refuses a use of any
    /// other when it parses the text. A declaration in an `if`, `with` or
    /// `range` (its pipeline or its body) lasts to its `{{end}}`.
    variables: Vec<String>,
}

/// What a pipeline may declare: one variable (`$x :=`, an action or the
/// pipeline of `if` and `with`), two (`range $i, $e :=`), none (`template`).
#[derive(Clone, Copy, PartialEq)]
enum Declares {
    None,
    One,
    Range,
}

type Stop = Option<(Keyword, usize)>;

impl Parser {
    fn skip_spaces(&mut self) {
        while self
            .tokens
            .get(self.at)
            .is_some_and(|l| l.token == Token::Space)
        {
            self.at += 1;
        }
    }

    /// The next token that is not a space.
    fn peek(&mut self) -> Option<&Token> {
        self.skip_spaces();
        self.tokens.get(self.at).map(|l| &l.token)
    }

    fn offset(&mut self) -> usize {
        self.skip_spaces();
        self.tokens.get(self.at).map_or(self.end, |l| l.offset)
    }

    fn next(&mut self) -> Option<Lexeme> {
        self.skip_spaces();
        let l = self.tokens.get(self.at).cloned();
        self.at += 1;
        l
    }

    fn fail<T>(&self, offset: usize, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }

    fn expect_close(&mut self, what: &str) -> Result<(), ParseError> {
        match self.next() {
            Some(Lexeme {
                token: Token::Close,
                ..
            }) => Ok(()),
            Some(l) => self.fail(l.offset, format!("unexpected {:?} in {what}", l.token)),
            None => self.fail(self.end, format!("unclosed {what}")),
        }
    }

    /// Nodes until `{{end}}`, `{{else}}` or the end of the text: the nodes,
    /// and the keyword that stopped them (`None` at the end).
    fn list(&mut self, depth: usize) -> Result<(Vec<Node>, Stop), ParseError> {
        if depth > MAX_DEPTH {
            let at = self.offset();
            return self.fail(at, format!("nested deeper than {MAX_DEPTH}"));
        }
        let mut nodes = Vec::new();
        while let Some(l) = self.next() {
            match l.token {
                Token::Text(t) => nodes.push(Node::Text(t)),
                Token::Open => match self.peek().cloned() {
                    Some(Token::Keyword(k)) => {
                        let offset = self.offset();
                        self.at += 1;
                        match k {
                            Keyword::End | Keyword::Else => return Ok((nodes, Some((k, offset)))),
                            // Go reads a `define` at the top of the text
                            // only: elsewhere it is not a command.
                            Keyword::Define if depth > 0 => {
                                return self.fail(offset, "unexpected <define> in command");
                            }
                            _ => nodes.extend(self.keyword(k, offset, depth)?),
                        }
                    }
                    _ => {
                        let pipeline = self.pipeline(Declares::One, depth)?;
                        self.expect_close("command")?;
                        nodes.push(Node::Action(pipeline));
                    }
                },
                other => return self.fail(l.offset, format!("unexpected {other:?}")),
            }
        }
        Ok((nodes, None))
    }

    fn keyword(
        &mut self,
        k: Keyword,
        offset: usize,
        depth: usize,
    ) -> Result<Option<Node>, ParseError> {
        match k {
            Keyword::If | Keyword::With | Keyword::Range => {
                let branch = self.branch(k, offset, depth)?;
                Ok(Some(match k {
                    Keyword::If => Node::If(branch),
                    Keyword::With => Node::With(branch),
                    _ => Node::Range(branch),
                }))
            }
            Keyword::Break | Keyword::Continue => {
                if self.ranges == 0 {
                    return self.fail(
                        offset,
                        format!("{{{{{}}}}} outside {{{{range}}}}", keyword_name(k)),
                    );
                }
                self.expect_close(keyword_name(k))?;
                Ok(Some(if k == Keyword::Break {
                    Node::Break(offset)
                } else {
                    Node::Continue(offset)
                }))
            }
            Keyword::Template | Keyword::Block | Keyword::Define => {
                // Go places a `template` where its name is.
                let (name, offset) = match self.next() {
                    Some(Lexeme {
                        token: Token::String(name),
                        offset,
                    }) => (name, offset),
                    _ => {
                        return self
                            .fail(offset, format!("{} needs a quoted name", keyword_name(k)));
                    }
                };
                if k == Keyword::Define {
                    self.expect_close("define")?;
                    let body = self.definition(offset, depth)?;
                    return self.define(name, body, offset).map(|()| None);
                }
                let pipeline = if self.peek() == Some(&Token::Close) {
                    None
                } else {
                    Some(self.pipeline(Declares::None, depth)?)
                };
                self.expect_close(keyword_name(k))?;
                if k == Keyword::Block {
                    let body = self.definition(offset, depth)?;
                    self.define(name.clone(), body, offset)?;
                }
                Ok(Some(Node::Template {
                    name,
                    pipeline,
                    offset,
                }))
            }
            Keyword::End | Keyword::Else => unreachable!("handled by list"),
        }
    }

    fn define(&mut self, name: String, body: Vec<Node>, offset: usize) -> Result<(), ParseError> {
        if self.parsed.defined.contains_key(&name) {
            return self.fail(
                offset,
                format!("template: multiple definition of template {name:?}"),
            );
        }
        self.parsed.defined.insert(name, body);
        Ok(())
    }

    /// The body of a `define` or `block`, a template of its own: its
    /// variables are its own `$` alone.
    fn definition(&mut self, offset: usize, depth: usize) -> Result<Vec<Node>, ParseError> {
        let outer = std::mem::replace(&mut self.variables, vec!["$".into()]);
        let body = self.body_to_end(offset, depth);
        self.variables = outer;
        body
    }

    fn body_to_end(&mut self, _offset: usize, depth: usize) -> Result<Vec<Node>, ParseError> {
        match self.list(depth + 1)? {
            (body, Some((Keyword::End, _))) => {
                self.expect_close("end")?;
                Ok(body)
            }
            (_, Some((k, at))) => self.fail(at, format!("unexpected {{{{{}}}}}", keyword_name(k))),
            // Go says where the text ends.
            (_, None) => self.fail(self.end, "unexpected EOF"),
        }
    }

    fn branch(&mut self, k: Keyword, offset: usize, depth: usize) -> Result<Branch, ParseError> {
        let scope = self.variables.len();
        let branch = self.branch_in_scope(k, offset, depth);
        self.variables.truncate(scope);
        branch
    }

    fn branch_in_scope(
        &mut self,
        k: Keyword,
        offset: usize,
        depth: usize,
    ) -> Result<Branch, ParseError> {
        let declares = if k == Keyword::Range {
            Declares::Range
        } else {
            Declares::One
        };
        let pipeline = self.pipeline(declares, depth)?;
        self.expect_close(keyword_name(k))?;
        if k == Keyword::Range {
            self.ranges += 1;
        }
        let then = self.list(depth + 1);
        if k == Keyword::Range {
            self.ranges -= 1;
        }
        let (then, stop) = then?;
        let otherwise = match stop {
            Some((Keyword::End, _)) => {
                self.expect_close("end")?;
                Vec::new()
            }
            Some((Keyword::Else, at)) => match self.peek().cloned() {
                // `else if` and `else with` chain: their own end closes both.
                Some(Token::Keyword(chained @ (Keyword::If | Keyword::With))) => {
                    self.at += 1;
                    let inner = self.branch(chained, at, depth + 1)?;
                    vec![if chained == Keyword::If {
                        Node::If(inner)
                    } else {
                        Node::With(inner)
                    }]
                }
                _ => {
                    self.expect_close("else")?;
                    self.body_to_end(offset, depth)?
                }
            },
            Some((other, at)) => {
                return self.fail(at, format!("unexpected {{{{{}}}}}", keyword_name(other)));
            }
            None => return self.fail(self.end, "unexpected EOF"),
        };
        Ok(Branch {
            pipeline,
            then,
            otherwise,
            offset,
        })
    }

    /// `$x := cmd | cmd`, or `cmd | cmd`, up to the close or a `)`.
    fn pipeline(&mut self, may: Declares, depth: usize) -> Result<Pipeline, ParseError> {
        if depth > MAX_DEPTH {
            let at = self.offset();
            return self.fail(at, format!("nested deeper than {MAX_DEPTH}"));
        }
        let offset = self.offset();
        let mut variables = Vec::new();
        let mut declares = false;
        if may != Declares::None {
            let start = self.at;
            while let Some(Token::Variable(v)) = self.peek().cloned() {
                let at = self.offset();
                self.at += 1;
                variables.push(v);
                match self.peek() {
                    Some(Token::Comma) if variables.len() < 2 && may == Declares::Range => {
                        self.at += 1
                    }
                    Some(Token::Comma) => {
                        let context = if may == Declares::Range {
                            "range"
                        } else {
                            "command"
                        };
                        return self.fail(at, format!("too many declarations in {context}"));
                    }
                    Some(Token::Declare) | Some(Token::Assign) => {
                        declares = self.peek() == Some(&Token::Declare);
                        self.at += 1;
                        break;
                    }
                    _ => {
                        // Not a declaration: the variable is an argument.
                        variables.clear();
                        self.at = start;
                        break;
                    }
                }
            }
        }
        // Declared (or assigned: Go takes that as a declaration too) from
        // here on, the pipeline itself included.
        self.variables.extend(variables.iter().cloned());
        let mut commands = Vec::new();
        loop {
            let command = self.command(depth)?;
            // Go runs only a function or a value it can call past the
            // first stage of a pipeline.
            if !commands.is_empty()
                && let Some(
                    Arg::Bool(..)
                    | Arg::Dot(_)
                    | Arg::Nil(_)
                    | Arg::Number(..)
                    | Arg::Char(..)
                    | Arg::String(..),
                ) = command.args.first()
            {
                return self.fail(
                    command.offset,
                    format!(
                        "non executable command in pipeline stage {}",
                        commands.len() + 1
                    ),
                );
            }
            commands.push(command);
            if self.peek() != Some(&Token::Pipe) {
                break;
            }
            self.at += 1;
            // A pipe with nothing after it ends the pipeline, as in Go.
            if matches!(self.peek(), Some(Token::Close | Token::CloseParen) | None) {
                break;
            }
        }
        Ok(Pipeline {
            variables,
            declares,
            commands,
            offset,
        })
    }

    fn command(&mut self, depth: usize) -> Result<Command, ParseError> {
        let offset = self.offset();
        let mut args = Vec::new();
        while let Some(token) = self.peek().cloned() {
            let at = self.offset();
            let arg = match token {
                Token::Close | Token::Pipe | Token::CloseParen => break,
                Token::Dot => {
                    self.at += 1;
                    Arg::Dot(at)
                }
                Token::Field(_) => Arg::Field(self.fields(), at),
                Token::Variable(v) => {
                    if !self.variables.contains(&v) {
                        return self.fail(at, format!("undefined variable {v:?}"));
                    }
                    self.at += 1;
                    Arg::Variable(v, self.fields(), at)
                }
                Token::OpenParen => {
                    self.at += 1;
                    let inner = self.pipeline(Declares::One, depth + 1)?;
                    if self.next().map(|l| l.token) != Some(Token::CloseParen) {
                        return self.fail(at, "unclosed left paren");
                    }
                    Arg::Chain(Box::new(inner), self.fields(), at)
                }
                Token::Identifier(f) => {
                    self.at += 1;
                    let fields = self.fields();
                    if fields.is_empty() {
                        Arg::Function(f, at)
                    } else {
                        // `f.a`: the function's value, then its field.
                        let call = Pipeline {
                            variables: Vec::new(),
                            declares: false,
                            commands: vec![Command {
                                args: vec![Arg::Function(f, at)],
                                offset: at,
                            }],
                            offset: at,
                        };
                        Arg::Chain(Box::new(call), fields, at)
                    }
                }
                Token::String(s) => {
                    self.at += 1;
                    Arg::String(s, at)
                }
                Token::Number(n) => {
                    if constant(&n).is_none() {
                        return self.fail(at, format!("illegal number syntax: {n:?}"));
                    }
                    self.at += 1;
                    Arg::Number(n, at)
                }
                Token::Char(c) => {
                    self.at += 1;
                    Arg::Char(c, at)
                }
                Token::Bool(b) => {
                    self.at += 1;
                    Arg::Bool(b, at)
                }
                Token::Nil => {
                    self.at += 1;
                    Arg::Nil(at)
                }
                other => return self.fail(at, format!("unexpected {other:?} in operand")),
            };
            args.push(arg);
            // An operand ends at a space, a pipe, a paren or the close:
            // `1.2.3` is `1.2` and then an unexpected `.3`.
            if let Some(l) = self.tokens.get(self.at)
                && !matches!(
                    l.token,
                    Token::Space | Token::Pipe | Token::CloseParen | Token::Close
                )
            {
                return self.fail(l.offset, format!("unexpected {:?} in operand", l.token));
            }
        }
        if args.is_empty() {
            return self.fail(offset, "missing value for command");
        }
        Ok(Command { args, offset })
    }

    /// The field chain right here (`.a.b`, no space before it), if any.
    fn fields(&mut self) -> Vec<String> {
        let mut fields = Vec::new();
        while let Some(Lexeme {
            token: Token::Field(f),
            ..
        }) = self.tokens.get(self.at)
        {
            fields.push(f.clone());
            self.at += 1;
        }
        fields
    }
}

#[cfg(test)]
mod tests;
