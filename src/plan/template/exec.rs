//! Running a parsed template over a value, as Go's `text/template` runs it
//! with `missingkey=error` (as Sveltos does): a missing map key is an
//! error, not `<no value>`. Every run is bounded: steps, output and
//! `range` iterations each have a limit ([`Limits`]), and going past one is
//! an error that says which, never a longer run.

use std::collections::BTreeMap;

use super::funcs::{Call, Function};
pub use super::limits::Limits;
use super::parse::{Arg, Branch, Command, Node, Parsed, Pipeline};
use super::value::Value;

/// The functions the run evaluates itself rather than calling from the
/// table: `and` and `or` stop at the argument that decides them.
pub const BUILTINS: &[&str] = &["and", "or"];

/// Why a run failed, and at which byte of the template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub offset: usize,
    pub message: String,
}

/// Runs `parsed` with `data` as the cursor.
pub fn run(
    parsed: &Parsed,
    data: &Value,
    functions: &BTreeMap<&'static str, Function>,
    limits: Limits,
) -> Result<String, ExecError> {
    let mut state = State {
        parsed,
        functions,
        limits,
        steps: 0,
        calls: 0,
        out: String::new(),
        variables: vec![("$".to_string(), data.clone())],
    };
    match state.walk(&parsed.main, data)? {
        Flow::Next => Ok(state.out),
        Flow::Break | Flow::Continue => Ok(state.out),
    }
}

enum Flow {
    Next,
    Break,
    Continue,
}

struct State<'a> {
    parsed: &'a Parsed,
    functions: &'a BTreeMap<&'static str, Function>,
    limits: Limits,
    steps: usize,
    calls: usize,
    out: String,
    /// Variables in scope, innermost last.
    variables: Vec<(String, Value)>,
}

fn fail<T>(offset: usize, message: impl Into<String>) -> Result<T, ExecError> {
    Err(ExecError {
        offset,
        message: message.into(),
    })
}

/// Go's truth: false, 0, "", nil and empty lists and maps are false.
pub fn truth(v: &Value) -> bool {
    match v {
        Value::Nil => false,
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Float(f) => *f != 0.0,
        Value::String(s) => !s.is_empty(),
        Value::List(l) => !l.is_empty(),
        Value::Map(m) => !m.is_empty(),
    }
}

impl State<'_> {
    fn step(&mut self, offset: usize) -> Result<(), ExecError> {
        self.steps += 1;
        if self.steps > self.limits.steps {
            return fail(offset, format!("more than {} steps", self.limits.steps));
        }
        Ok(())
    }

    fn write(&mut self, text: &str, offset: usize) -> Result<(), ExecError> {
        if self.out.len() + text.len() > self.limits.output {
            return fail(
                offset,
                format!("output longer than {} bytes", self.limits.output),
            );
        }
        self.out.push_str(text);
        Ok(())
    }

    fn walk(&mut self, nodes: &[Node], dot: &Value) -> Result<Flow, ExecError> {
        let scope = self.variables.len();
        for node in nodes {
            let flow = self.node(node, dot)?;
            if !matches!(flow, Flow::Next) {
                self.variables.truncate(scope);
                return Ok(flow);
            }
        }
        self.variables.truncate(scope);
        Ok(Flow::Next)
    }

    fn node(&mut self, node: &Node, dot: &Value) -> Result<Flow, ExecError> {
        match node {
            Node::Text(t) => {
                self.step(0)?;
                self.write(t, 0)?;
            }
            Node::Action(p) => {
                let v = self.pipeline(p, dot)?;
                if p.variables.is_empty() {
                    let text = match &v {
                        // An action's nil prints as Go's missing value.
                        Value::Nil => "<no value>".to_string(),
                        v => v.go_string(),
                    };
                    self.write(&text, p.offset)?;
                }
            }
            Node::If(b) => return self.branch(b, dot, |s, b, dot| s.then_if(b, dot)),
            Node::With(b) => return self.branch(b, dot, |s, b, dot| s.then_with(b, dot)),
            Node::Range(b) => return self.range(b, dot),
            Node::Break(_) => return Ok(Flow::Break),
            Node::Continue(_) => return Ok(Flow::Continue),
            Node::Template {
                name,
                pipeline,
                offset,
            } => {
                let Some(body) = self.parsed.defined.get(name) else {
                    return fail(*offset, format!("no such template {name:?}"));
                };
                let arg = match pipeline {
                    Some(p) => self.pipeline(p, dot)?,
                    None => Value::Nil,
                };
                if self.calls >= self.limits.calls {
                    return fail(
                        *offset,
                        format!("templates called deeper than {}", self.limits.calls),
                    );
                }
                self.calls += 1;
                // A called template sees only its own `$`.
                let outer = std::mem::replace(&mut self.variables, vec![("$".into(), arg.clone())]);
                let result = self.walk(body, &arg);
                self.variables = outer;
                self.calls -= 1;
                result?;
            }
        }
        Ok(Flow::Next)
    }

    fn branch(
        &mut self,
        b: &Branch,
        dot: &Value,
        then: impl FnOnce(&mut Self, &Branch, &Value) -> Result<Option<Flow>, ExecError>,
    ) -> Result<Flow, ExecError> {
        self.step(b.offset)?;
        let scope = self.variables.len();
        let result = match then(self, b, dot)? {
            Some(flow) => Ok(flow),
            None => self.walk(&b.otherwise, dot),
        };
        self.variables.truncate(scope);
        result
    }

    fn then_if(&mut self, b: &Branch, dot: &Value) -> Result<Option<Flow>, ExecError> {
        let v = self.pipeline(&b.pipeline, dot)?;
        if truth(&v) {
            return self.walk(&b.then, dot).map(Some);
        }
        Ok(None)
    }

    fn then_with(&mut self, b: &Branch, dot: &Value) -> Result<Option<Flow>, ExecError> {
        let v = self.pipeline(&b.pipeline, dot)?;
        if truth(&v) {
            return self.walk(&b.then, &v).map(Some);
        }
        Ok(None)
    }

    fn range(&mut self, b: &Branch, dot: &Value) -> Result<Flow, ExecError> {
        self.step(b.offset)?;
        let scope = self.variables.len();
        let over = self.pipeline_value(&b.pipeline, dot)?;
        let items: Vec<(Value, Value)> = match over {
            Value::List(l) => l
                .into_iter()
                .enumerate()
                .map(|(i, v)| (Value::Int(i as i64), v))
                .collect(),
            Value::Map(m) => m.into_iter().map(|(k, v)| (Value::String(k), v)).collect(),
            Value::Int(n) => (0..n.max(0))
                .map(|i| (Value::Int(i), Value::Int(i)))
                .collect(),
            Value::Nil => Vec::new(),
            other => {
                return fail(
                    b.pipeline.offset,
                    format!("range can't iterate over {}", other.go_string()),
                );
            }
        };
        if items.is_empty() {
            let flow = self.walk(&b.otherwise, dot);
            self.variables.truncate(scope);
            return flow.map(|_| Flow::Next);
        }
        for (key, item) in items {
            self.step(b.offset)?;
            match b.pipeline.variables.as_slice() {
                [one] => self.variables.push((one.clone(), item.clone())),
                [k, v] => {
                    self.variables.push((k.clone(), key));
                    self.variables.push((v.clone(), item.clone()));
                }
                _ => {}
            }
            let flow = self.walk(&b.then, &item)?;
            self.variables.truncate(scope);
            if matches!(flow, Flow::Break) {
                break;
            }
        }
        Ok(Flow::Next)
    }

    /// A pipeline's value, its variables declared or assigned.
    fn pipeline(&mut self, p: &Pipeline, dot: &Value) -> Result<Value, ExecError> {
        let v = self.pipeline_value(p, dot)?;
        if p.variables.len() == 1 && !p.declares {
            let name = &p.variables[0];
            match self.variables.iter_mut().rev().find(|(n, _)| n == name) {
                Some(slot) => slot.1 = v.clone(),
                None => return fail(p.offset, format!("undefined variable: {name}")),
            }
        } else if p.declares && p.variables.len() == 1 {
            self.variables.push((p.variables[0].clone(), v.clone()));
        }
        Ok(v)
    }

    /// A pipeline's value without declaring (a `range`'s variables are
    /// per element).
    fn pipeline_value(&mut self, p: &Pipeline, dot: &Value) -> Result<Value, ExecError> {
        let mut last: Option<Value> = None;
        for command in &p.commands {
            last = Some(self.command(command, dot, last)?);
        }
        Ok(last.unwrap_or(Value::Nil))
    }

    fn command(
        &mut self,
        c: &Command,
        dot: &Value,
        piped: Option<Value>,
    ) -> Result<Value, ExecError> {
        self.step(c.offset)?;
        let (first, rest) = c.args.split_first().expect("a command has an argument");
        match first {
            Arg::Function(name, at) => {
                let Some(f) = self.functions.get(name.as_str()).copied() else {
                    return fail(*at, format!("function {name:?} not defined"));
                };
                let mut args = Vec::with_capacity(rest.len() + 1);
                for arg in rest {
                    args.push(self.arg(arg, dot)?);
                }
                args.extend(piped);
                f(
                    &Call {
                        limits: &self.limits,
                    },
                    &args,
                )
                .map_err(|why| ExecError {
                    offset: *at,
                    message: format!("error calling {name}: {why}"),
                })
            }
            value => {
                if !rest.is_empty() || piped.is_some() {
                    return fail(c.offset, "can't give argument to non-function");
                }
                self.arg(value, dot)
            }
        }
    }

    fn arg(&mut self, arg: &Arg, dot: &Value) -> Result<Value, ExecError> {
        match arg {
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Field(fields, at) => fields_of(dot, fields, *at),
            Arg::Variable(name, fields, at) => {
                let Some((_, v)) = self.variables.iter().rev().find(|(n, _)| n == name) else {
                    return fail(*at, format!("undefined variable: {name}"));
                };
                let v = v.clone();
                fields_of(&v, fields, *at)
            }
            Arg::Chain(p, fields, at) => {
                let v = self.pipeline_value(p, dot)?;
                fields_of(&v, fields, *at)
            }
            Arg::Function(name, at) => {
                let Some(f) = self.functions.get(name.as_str()).copied() else {
                    return fail(*at, format!("function {name:?} not defined"));
                };
                f(
                    &Call {
                        limits: &self.limits,
                    },
                    &[],
                )
                .map_err(|why| ExecError {
                    offset: *at,
                    message: format!("error calling {name}: {why}"),
                })
            }
            Arg::String(s, _) => Ok(Value::String(s.clone())),
            Arg::Number(n, at) => number(n, *at),
            Arg::Char(c, _) => Ok(Value::Int(*c as i64)),
            Arg::Bool(b, _) => Ok(Value::Bool(*b)),
            Arg::Nil(at) => fail(*at, "nil is not a command"),
        }
    }
}

/// `.a.b` on `v`: a missing key is an error (`missingkey=error`), and so
/// is a field of something that is not a map.
fn fields_of(v: &Value, fields: &[String], at: usize) -> Result<Value, ExecError> {
    let mut v = v.clone();
    for field in fields {
        v = match v {
            Value::Map(mut m) => match m.remove(field) {
                Some(next) => next,
                None => return fail(at, format!("map has no entry for key {field:?}")),
            },
            Value::Nil => {
                return fail(at, format!("nil pointer evaluating interface {{}}.{field}"));
            }
            other => {
                return fail(
                    at,
                    format!("can't evaluate field {field} in type {}", type_name(&other)),
                );
            }
        };
    }
    Ok(v)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "interface {}",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int64",
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::List(_) => "[]interface {}",
        Value::Map(_) => "map[string]interface {}",
    }
}

/// A number constant as Go reads one in an action: written with a point
/// or an exponent it is a float (`{{ 1.0 }}` prints `1`, `{{ 1e6 }}`
/// `1e+06`), else an integer (decimal, hex, octal or binary).
fn number(n: &str, at: usize) -> Result<Value, ExecError> {
    let plain = n.replace('_', "");
    let (sign, digits) = match plain.strip_prefix('-') {
        Some(d) => (-1, d),
        None => (1, plain.strip_prefix('+').unwrap_or(&plain)),
    };
    let radix = |prefix: [&str; 2], base| {
        prefix
            .iter()
            .find_map(|p| digits.strip_prefix(p))
            .map(|d| i64::from_str_radix(d, base).ok())
    };
    let based = radix(["0x", "0X"], 16)
        .or_else(|| radix(["0o", "0O"], 8))
        .or_else(|| radix(["0b", "0B"], 2));
    let value = match based {
        Some(Some(i)) => Some(Value::Int(sign * i)),
        Some(None) => None,
        None if digits.contains(['.', 'e', 'E']) => plain.parse::<f64>().ok().map(Value::Float),
        None => plain
            .parse::<i64>()
            .ok()
            .map(Value::Int)
            .or_else(|| plain.parse::<f64>().ok().map(Value::Float)),
    };
    value.ok_or_else(|| ExecError {
        offset: at,
        message: format!("illegal number syntax: {n:?}"),
    })
}

#[cfg(test)]
mod tests;
