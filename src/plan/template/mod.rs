//! Values templated from the cluster: Go's `text/template` language, as
//! Sveltos and k0rdent users write it in a service's values, read and run
//! by the engine itself, bounded.
//!
//! [`render`] is the one entry: a values text in, the text it renders to
//! out, or a [`TemplateError`] that says the line and column. A text with
//! no `{{` is returned as it is, without parsing.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

pub mod exec;
pub mod funcs;
pub mod lex;
pub mod limits;
pub mod missing;
pub mod number;
pub mod parse;
pub mod value;

pub use limits::Limits;
pub use value::Value;

use lex::Pos;
use parse::{Arg, Node, Parsed, Pipeline};

/// The longest values text the engine reads as a template.
pub const MAX_SOURCE: usize = 64 * 1024;

/// Why a values text did not render, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TemplateError {
    /// Where in the text, as a person counts lines and columns.
    pub pos: Pos,
    pub kind: ErrorKind,
    pub message: String,
    /// The key a lookup from the data's root did not find, and where.
    pub missing: Option<missing::MissingKey>,
}

/// Whether the text is not a template, or a template that failed on the
/// cluster's data (a missing label, a function's error, a limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    Parse,
    Exec,
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.pos, self.message)
    }
}

impl std::error::Error for TemplateError {}

/// The longest message an error keeps: a message may carry what the
/// template wrote (`fail`, `required`, a value Go names in its error), and
/// it ends up in the status of the object the values belong to.
pub const MAX_MESSAGE: usize = 1024;

/// `message`, cut at [`MAX_MESSAGE`] bytes on a character's boundary.
fn bounded(mut message: String) -> String {
    if message.len() > MAX_MESSAGE {
        let end = crate::plan::safe_text::cut_to_bytes(&message, MAX_MESSAGE).len();
        message.truncate(end);
        message.push_str("… (cut)");
    }
    message
}

/// Whether `text` holds an action at all: values without one are data
/// alone, and the engine never parses them.
pub fn is_template(text: &str) -> bool {
    text.contains("{{")
}

/// `text` run as a template over `data`, with the limits of `limits`.
pub fn render(text: &str, data: &Value, limits: Limits) -> Result<String, TemplateError> {
    if !is_template(text) {
        return Ok(text.to_string());
    }
    Template::parse(text)?.render(data, limits)
}

/// A values text read as a template once, to be run over many clusters'
/// data.
#[derive(Clone, Debug)]
pub struct Template {
    text: String,
    parsed: Parsed,
    reads: Reads,
}

/// Which of the root's keys a template may read: those it names after the
/// root's `.` or `$`, or all of them when it hands the root on whole (to a
/// variable, a function, `with`, `range` or `template`). Of a key it names
/// with a key under it (`.Cluster.metadata.name`), those keys under it; of
/// one it hands on (`.Cluster`, `with .Cluster`), all of them. The data of
/// a key no template reads need not be built.
#[derive(Clone, Debug, Default)]
struct Reads {
    /// By root key: the keys under it named, or `None` for all of them.
    keys: BTreeMap<String, Option<BTreeSet<String>>>,
    everything: bool,
}

impl Reads {
    /// The template reads `fields` from the root (`.a.b` or `$.a.b`; none:
    /// the root itself).
    fn path(&mut self, fields: &[String]) {
        match fields {
            [] => self.everything = true,
            [key] => {
                self.keys.insert(key.clone(), None);
            }
            [key, under, ..] => {
                let named = self
                    .keys
                    .entry(key.clone())
                    .or_insert_with(|| Some(BTreeSet::new()));
                // `None` stays: the whole key is read elsewhere.
                if let Some(named) = named {
                    named.insert(under.clone());
                }
            }
        }
    }
}

impl Template {
    /// `text` parsed, or why it is not a template (a function it calls that
    /// does not exist included, as Go refuses it before any data is seen).
    pub fn parse(text: &str) -> Result<Template, TemplateError> {
        let at = |offset: usize, message: String| TemplateError {
            pos: Pos::of(text, offset),
            kind: ErrorKind::Parse,
            message: bounded(message),
            missing: None,
        };
        if text.len() > MAX_SOURCE {
            return Err(at(
                0,
                format!(
                    "the template is {} bytes, longer than the {MAX_SOURCE} a values text may be",
                    text.len()
                ),
            ));
        }
        let parsed = parse::parse(text).map_err(|e| at(e.offset, e.message))?;
        let functions = funcs::all();
        if let Some((name, offset)) = unknown_function(&parsed, |name| {
            functions.contains_key(name) || exec::BUILTINS.contains(&name)
        }) {
            return Err(at(offset, format!("function {name:?} not defined")));
        }
        let mut reads = Reads::default();
        reads_nodes(&parsed.main, true, &mut reads);
        Ok(Template {
            text: text.to_string(),
            parsed,
            reads,
        })
    }

    /// Whether the template may read the root's `key`.
    pub fn may_read(&self, key: &str) -> bool {
        self.reads.everything || self.reads.keys.contains_key(key)
    }

    /// Whether the template may read `under` in the root's `key`
    /// (`.Cluster.spec`): it names it there, or it may read all of `key`.
    pub fn may_read_under(&self, key: &str, under: &str) -> bool {
        self.reads.everything
            || self
                .reads
                .keys
                .get(key)
                .is_some_and(|named| named.as_ref().is_none_or(|n| n.contains(under)))
    }

    /// The text this template renders to over `data`.
    pub fn render(&self, data: &Value, limits: Limits) -> Result<String, TemplateError> {
        exec::run(&self.parsed, data, funcs::all(), limits).map_err(|e| TemplateError {
            pos: Pos::of(&self.text, e.offset),
            kind: ErrorKind::Exec,
            missing: missing::missing_key(&self.parsed, e.offset, &e.message),
            message: bounded(e.message),
        })
    }
}

/// What `nodes` read of the root, the cursor being the root or not. A
/// `define`'s body reads what its caller hands it, counted at the call.
fn reads_nodes(nodes: &[Node], dot_is_root: bool, reads: &mut Reads) {
    for node in nodes {
        match node {
            Node::Action(p) => reads_pipeline(p, dot_is_root, reads),
            Node::If(b) => {
                reads_pipeline(&b.pipeline, dot_is_root, reads);
                reads_nodes(&b.then, dot_is_root, reads);
                reads_nodes(&b.otherwise, dot_is_root, reads);
            }
            Node::With(b) | Node::Range(b) => {
                reads_pipeline(&b.pipeline, dot_is_root, reads);
                reads_nodes(&b.then, false, reads);
                reads_nodes(&b.otherwise, dot_is_root, reads);
            }
            Node::Template {
                pipeline: Some(p), ..
            } => reads_pipeline(p, dot_is_root, reads),
            Node::Text(_) | Node::Break(_) | Node::Continue(_) | Node::Template { .. } => {}
        }
    }
}

fn reads_pipeline(p: &Pipeline, dot_is_root: bool, reads: &mut Reads) {
    for arg in p.commands.iter().flat_map(|c| &c.args) {
        match arg {
            Arg::Dot(_) if dot_is_root => reads.everything = true,
            Arg::Field(fields, _) if dot_is_root => reads.path(fields),
            Arg::Variable(name, fields, _) if name == "$" => reads.path(fields),
            Arg::Chain(inner, _, _) => reads_pipeline(inner, dot_is_root, reads),
            _ => {}
        }
    }
}

/// The first function `parsed` calls that `known` does not know: Go
/// refuses such a template when it parses it, before any data is seen.
fn unknown_function(parsed: &Parsed, known: impl Fn(&str) -> bool + Copy) -> Option<(&str, usize)> {
    parsed
        .defined
        .values()
        .chain(std::iter::once(&parsed.main))
        .find_map(|nodes| unknown_in_nodes(nodes, known))
}

fn unknown_in_nodes(nodes: &[Node], known: impl Fn(&str) -> bool + Copy) -> Option<(&str, usize)> {
    nodes.iter().find_map(|node| match node {
        Node::Action(p) => unknown_in_pipeline(p, known),
        Node::If(b) | Node::With(b) | Node::Range(b) => unknown_in_pipeline(&b.pipeline, known)
            .or_else(|| unknown_in_nodes(&b.then, known))
            .or_else(|| unknown_in_nodes(&b.otherwise, known)),
        Node::Template {
            pipeline: Some(p), ..
        } => unknown_in_pipeline(p, known),
        Node::Text(_) | Node::Break(_) | Node::Continue(_) | Node::Template { .. } => None,
    })
}

fn unknown_in_pipeline(p: &Pipeline, known: impl Fn(&str) -> bool + Copy) -> Option<(&str, usize)> {
    p.commands
        .iter()
        .flat_map(|c| &c.args)
        .find_map(|arg| match arg {
            Arg::Function(name, at) if !known(name) => Some((name.as_str(), *at)),
            Arg::Chain(inner, _, _) => unknown_in_pipeline(inner, known),
            _ => None,
        })
}

#[cfg(test)]
mod tests;
