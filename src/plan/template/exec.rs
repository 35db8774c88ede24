//! Running a parsed template over a value, as Go's `text/template` runs it
//! with `missingkey=error` (as Sveltos does): a missing map key is an
//! error, not `<no value>`. Every run is bounded: steps, output, `range`
//! iterations, `template` nesting and wall-clock time each have a limit
//! ([`Limits`]), and going past one is an error that says which, never a
//! longer run.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::time::Instant;

use super::funcs::go::fmt;
use super::funcs::{Call, Function};
pub use super::limits::Limits;
use super::number::constant;
use super::parse::{Arg, Branch, Command, Node, Parsed, Pipeline};
use super::value::{ARITY_ERROR, Value};

/// The functions the run evaluates itself rather than calling from the
/// table: `and` and `or` stop at the argument that decides them, `call`
/// has no function to call in values.
pub const BUILTINS: &[&str] = &["and", "or", "call"];

/// Whether `name` is `and` or `or`.
fn is_and_or(name: &str) -> bool {
    name == "and" || name == "or"
}

/// How many steps pass between two looks at the clock.
const STEPS_PER_CLOCK_CHECK: usize = 1024;

/// Why a run failed, and at which byte of the template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecError {
    pub offset: usize,
    pub message: String,
}

/// Runs `parsed` with `data` as the cursor.
pub fn run<'a>(
    parsed: &'a Parsed,
    data: &'a Value,
    functions: &BTreeMap<&'static str, Function>,
    limits: Limits,
) -> Result<String, ExecError> {
    let mut state = State {
        parsed,
        functions,
        limits,
        steps: 0,
        ranges: 0,
        started: Instant::now(),
        calls: 0,
        out: String::new(),
        variables: vec![Variable {
            name: "$".to_string(),
            // Borrowed: a cluster's data is rendered twice per plan, and
            // copied only if the template changes a map of it in place.
            value: Cow::Borrowed(data),
            element: false,
        }],
        dot_element: false,
        dot_writes: Vec::new(),
    };
    state.walk(&parsed.main, data)?;
    Ok(state.out)
}

enum Flow {
    Next,
    Break,
    Continue,
}

/// A variable in scope. `element` says the value was taken out of a list
/// or a map (a `range` element): Go then holds it as an `interface {}`,
/// which is the type its errors name.
struct Variable<'a> {
    name: String,
    value: Cow<'a, Value>,
    element: bool,
}

struct State<'a> {
    parsed: &'a Parsed,
    functions: &'a BTreeMap<&'static str, Function>,
    limits: Limits,
    steps: usize,
    ranges: usize,
    started: Instant,
    calls: usize,
    out: String,
    /// Variables in scope, innermost last.
    variables: Vec<Variable<'a>>,
    /// Whether the cursor is an element of a list or a map (see
    /// [`Variable::element`]).
    dot_element: bool,
    /// Maps of the cursor changed in place, by their path from it, not yet
    /// seen by the walk that holds the cursor: Go's maps are shared, and
    /// Sprig's `set`, `unset`, `merge` and `mergeOverwrite` change theirs.
    dot_writes: Vec<(Vec<String>, Value)>,
}

fn fail<T>(offset: usize, message: impl Into<String>) -> Result<T, ExecError> {
    Err(ExecError {
        offset,
        message: message.into(),
    })
}

/// Go's truth: false, 0, "", nil and empty lists and maps are false.
pub fn truth(v: &Value) -> bool {
    v.truth()
}

impl State<'_> {
    fn step(&mut self, offset: usize) -> Result<(), ExecError> {
        self.steps += 1;
        if self.steps > self.limits.steps {
            return fail(offset, format!("more than {} steps", self.limits.steps));
        }
        if self.steps.is_multiple_of(STEPS_PER_CLOCK_CHECK)
            && self.started.elapsed() > self.limits.time
        {
            return fail(
                offset,
                format!("ran longer than {} ms", self.limits.time.as_millis()),
            );
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

    /// `nodes` in order. A map of the cursor that a function changed in
    /// place (`set .labels "k" "v"`) reads changed from the next node on,
    /// here and in the caller, whose cursor this is (see `dot_writes`).
    fn walk(&mut self, nodes: &[Node], dot: &Value) -> Result<Flow, ExecError> {
        let scope = self.variables.len();
        let mut written: Option<Value> = None;
        let mut applied = Vec::new();
        let mut result = Flow::Next;
        for node in nodes {
            if !self.dot_writes.is_empty() {
                let own = written.get_or_insert_with(|| dot.clone());
                for (path, value) in std::mem::take(&mut self.dot_writes) {
                    call::set_path(own, &path, value.clone());
                    applied.push((path, value));
                }
            }
            let flow = self.node(node, written.as_ref().unwrap_or(dot))?;
            if !matches!(flow, Flow::Next) {
                result = flow;
                break;
            }
        }
        self.variables.truncate(scope);
        applied.append(&mut self.dot_writes);
        self.dot_writes = applied;
        Ok(result)
    }

    /// `walk` with a cursor whose kind (an element or not) is `element`.
    fn walk_with(&mut self, nodes: &[Node], dot: &Value, element: bool) -> Result<Flow, ExecError> {
        let outer = std::mem::replace(&mut self.dot_element, element);
        // Writes to the outer cursor wait for it; those to this one end
        // with it.
        let pending = std::mem::take(&mut self.dot_writes);
        let flow = self.walk(nodes, dot);
        self.dot_writes = pending;
        self.dot_element = outer;
        flow
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
                        v => {
                            let room = self.limits.output.saturating_sub(self.out.len());
                            fmt::sprint(std::slice::from_ref(v), room).map_err(|_| ExecError {
                                offset: p.offset,
                                message: format!("output longer than {} bytes", self.limits.output),
                            })?
                        }
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
                let root = Variable {
                    name: "$".into(),
                    value: Cow::Owned(arg.clone()),
                    element: false,
                };
                let outer = std::mem::replace(&mut self.variables, vec![root]);
                let result = self.walk_with(body, &arg, false);
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
            return self.walk_with(&b.then, &v, false).map(Some);
        }
        Ok(None)
    }

    fn range(&mut self, b: &Branch, dot: &Value) -> Result<Flow, ExecError> {
        self.step(b.offset)?;
        let scope = self.variables.len();
        let over = self.pipeline_value(&b.pipeline, dot)?;
        let empty = match &over {
            Value::List(l) => l.is_empty(),
            Value::Map(m) => m.is_empty(),
            Value::Int(n) | Value::GoInt(n) if b.pipeline.variables.len() > 1 => {
                let at = b.pipeline.commands.last().map_or(b.offset, |c| c.offset);
                return fail(
                    at,
                    format!("can't use {n} to iterate over more than one variable"),
                );
            }
            Value::Int(n) | Value::GoInt(n) => *n <= 0,
            Value::Nil => true,
            other => {
                return fail(
                    b.pipeline.offset,
                    format!("range can't iterate over {}", other.go_string()),
                );
            }
        };
        if empty {
            let flow = self.walk(&b.otherwise, dot);
            self.variables.truncate(scope);
            return flow.map(|_| Flow::Next);
        }
        let result = match &over {
            Value::List(l) => self.iterate(
                b,
                l.iter()
                    .enumerate()
                    .map(|(i, v)| (Value::GoInt(i as i64), v.clone())),
                true,
            ),
            Value::Map(m) => self.iterate(
                b,
                m.iter().map(|(k, v)| (Value::String(k.clone()), v.clone())),
                true,
            ),
            // Counted lazily: `range 1000000000000` costs its iterations,
            // not a list of them.
            // Each number is of the integer's own type.
            Value::Int(n) => {
                self.iterate(b, (0..*n).map(|i| (Value::Int(i), Value::Int(i))), false)
            }
            Value::GoInt(n) => self.iterate(
                b,
                (0..*n).map(|i| (Value::GoInt(i), Value::GoInt(i))),
                false,
            ),
            _ => Ok(()),
        };
        self.variables.truncate(scope);
        result.map(|()| Flow::Next)
    }

    /// The body of `b` once per (key, element), until a `break`.
    fn iterate(
        &mut self,
        b: &Branch,
        items: impl Iterator<Item = (Value, Value)>,
        element: bool,
    ) -> Result<(), ExecError> {
        let scope = self.variables.len();
        for (key, item) in items {
            self.step(b.offset)?;
            self.ranges += 1;
            if self.ranges > self.limits.ranges {
                return fail(
                    b.offset,
                    format!("more than {} range iterations", self.limits.ranges),
                );
            }
            let declare = |name: &String, value, element| Variable {
                name: name.clone(),
                value: Cow::Owned(value),
                element,
            };
            match b.pipeline.variables.as_slice() {
                [one] => self.variables.push(declare(one, item.clone(), element)),
                [k, v] => {
                    self.variables.push(declare(k, key, false));
                    self.variables.push(declare(v, item.clone(), element));
                }
                _ => {}
            }
            let flow = self.walk_with(&b.then, &item, element);
            self.variables.truncate(scope);
            if matches!(flow?, Flow::Break) {
                break;
            }
        }
        Ok(())
    }

    /// A pipeline's value, its variables declared or assigned.
    fn pipeline(&mut self, p: &Pipeline, dot: &Value) -> Result<Value, ExecError> {
        let v = self.pipeline_value(p, dot)?;
        if p.variables.len() == 1 && !p.declares {
            let name = &p.variables[0];
            match self
                .variables
                .iter_mut()
                .rev()
                .find(|var| &var.name == name)
            {
                Some(slot) => {
                    slot.value = Cow::Owned(v.clone());
                    slot.element = false;
                }
                None => {
                    // Go says where the run last was: the last argument
                    // of the pipeline's last command.
                    let at = p
                        .commands
                        .last()
                        .and_then(|c| c.args.last())
                        .map_or(p.offset, call::offset_of);
                    return fail(at, format!("undefined variable: {name}"));
                }
            }
        } else if p.declares && p.variables.len() == 1 {
            self.variables.push(Variable {
                name: p.variables[0].clone(),
                value: Cow::Owned(v.clone()),
                element: false,
            });
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
        let Some((first, rest)) = c.args.split_first() else {
            return fail(c.offset, "missing value for command");
        };
        let has_args = !rest.is_empty() || piped.is_some();
        match first {
            Arg::Function(name, at) if is_and_or(name) => self.and_or(name, *at, rest, dot, piped),
            Arg::Function(name, at) => self.call_with(name, *at, rest, dot, piped),
            Arg::Field(fields, at) => fields_of(
                dot,
                self.dot_element,
                fields,
                field_at(fields, *at),
                has_args,
            ),
            Arg::Variable(name, fields, at) if !fields.is_empty() => {
                let var = self.variable(name, *at)?;
                fields_of(&var.value, var.element, fields, *at + name.len(), has_args)
            }
            Arg::Chain(p, fields, at) if !fields.is_empty() => {
                let v = self.pipeline_value(p, dot)?;
                fields_of(&v, false, fields, *at, has_args)
            }
            Arg::Nil(at) => fail(*at, "nil is not a command"),
            value => {
                if has_args {
                    return fail(
                        c.offset,
                        format!("can't give argument to non-function {}", describe(value)),
                    );
                }
                self.arg(value, dot)
            }
        }
    }

    /// Go's `and` and `or`: the arguments in order, up to the first that
    /// decides (false for `and`, true for `or`), which is the value; else
    /// the last one, the piped value when there is one.
    fn and_or(
        &mut self,
        name: &str,
        at: usize,
        args: &[Arg],
        dot: &Value,
        piped: Option<Value>,
    ) -> Result<Value, ExecError> {
        if args.is_empty() && piped.is_none() {
            return fail(at, format!("{ARITY_ERROR}{name}: want at least 1 got 0"));
        }
        let deciding = name == "or";
        let mut last = Value::Nil;
        for arg in args {
            last = self.arg(arg, dot)?;
            if truth(&last) == deciding {
                return Ok(last);
            }
        }
        Ok(piped.unwrap_or(last))
    }

    fn call(&mut self, name: &str, at: usize, args: &[Value]) -> Result<Value, ExecError> {
        let Some(f) = self.functions.get(name).copied() else {
            return fail(at, format!("function {name:?} not defined"));
        };
        f(
            &Call {
                limits: &self.limits,
            },
            args,
        )
        .map_err(|why| ExecError {
            offset: at,
            message: if why.starts_with(ARITY_ERROR) {
                why
            } else {
                format!("error calling {name}: {why}")
            },
        })
    }

    fn variable(&self, name: &str, at: usize) -> Result<&Variable<'_>, ExecError> {
        match self.variables.iter().rev().find(|var| var.name == name) {
            Some(var) => Ok(var),
            None => fail(at, format!("undefined variable: {name}")),
        }
    }

    /// An argument's value (not the first word of a command).
    fn arg(&mut self, arg: &Arg, dot: &Value) -> Result<Value, ExecError> {
        match arg {
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Field(fields, at) => {
                fields_of(dot, self.dot_element, fields, field_at(fields, *at), false)
            }
            Arg::Variable(name, fields, at) => {
                let var = self.variable(name, *at)?;
                if fields.is_empty() {
                    return Ok(var.value.as_ref().clone());
                }
                fields_of(&var.value, var.element, fields, *at + name.len(), false)
            }
            Arg::Chain(p, fields, at) => {
                let v = self.pipeline_value(p, dot)?;
                if fields.is_empty() {
                    return Ok(v);
                }
                fields_of(&v, false, fields, *at, false)
            }
            Arg::Function(name, at) if is_and_or(name) => self.and_or(name, *at, &[], dot, None),
            Arg::Function(name, at) => self.call_with(name, *at, &[], dot, None),
            Arg::String(s, _) => Ok(Value::String(s.clone())),
            Arg::Number(n, at) => number(n, *at),
            Arg::Char(c, _) => Ok(Value::GoInt(i64::from(*c))),
            Arg::Bool(b, _) => Ok(Value::Bool(*b)),
            // As an argument, nil is a value: Go passes a nil interface.
            Arg::Nil(_) => Ok(Value::Nil),
        }
    }
}

/// How Go names a word in "can't give argument to non-function …".
fn describe(arg: &Arg) -> String {
    match arg {
        Arg::Dot(_) => ".".into(),
        Arg::Variable(name, _, _) => name.clone(),
        Arg::Chain(..) => "(pipeline)".into(),
        Arg::Function(name, _) => name.clone(),
        Arg::String(s, _) => format!("{s:?}"),
        Arg::Number(n, _) => n.clone(),
        Arg::Char(c, _) => format!(
            "{:?}",
            char::from_u32(*c).unwrap_or(char::REPLACEMENT_CHARACTER)
        ),
        Arg::Bool(b, _) => b.to_string(),
        Arg::Nil(_) => "nil".into(),
        Arg::Field(fields, _) => fields.iter().map(|f| format!(".{f}")).collect(),
    }
}

/// Where Go says a field chain's error is: at the second field of `.a.b.c`
/// (its parser makes the chain there), at the field itself when alone; for
/// `$x.a`, at `.a`.
fn field_at(fields: &[String], at: usize) -> usize {
    match fields {
        [first, _, ..] => at + 1 + first.len(),
        _ => at,
    }
}

/// `.a.b` on `v`: a missing key is an error (`missingkey=error`), and so
/// is a field of something that is not a map. Borrows all the way and
/// clones only the value it ends at, so a long chain over a big map costs
/// the size of the result, not of the map. `element` says `v` was taken
/// out of a list or a map, which Go holds as an `interface {}` (the type
/// its errors name); every later step is one.
fn fields_of(
    v: &Value,
    element: bool,
    fields: &[String],
    at: usize,
    has_args: bool,
) -> Result<Value, ExecError> {
    let mut v = v;
    for (i, field) in fields.iter().enumerate() {
        let element = element || i > 0;
        let last = i + 1 == fields.len();
        v = match v {
            Value::Map(_) if last && has_args => {
                return fail(at, format!("{field} is not a method but has arguments"));
            }
            Value::Map(m) => match m.get(field) {
                Some(next) => next,
                None => return fail(at, format!("map has no entry for key {field:?}")),
            },
            Value::Nil if element => {
                return fail(at, format!("nil pointer evaluating interface {{}}.{field}"));
            }
            Value::Nil => return fail(at, format!("nil data; no entry for key {field:?}")),
            Value::Version(version) => {
                // A method of the pointer, called with no arguments.
                let Some(result) = version.method(field) else {
                    return fail(
                        at,
                        format!("can't evaluate field {field} in type *semver.Version"),
                    );
                };
                if last && has_args {
                    return fail(at, format!("wrong number of args for {field}: want 0"));
                }
                return match fields.get(i + 1) {
                    None => Ok(result),
                    Some(next) => fail(
                        at,
                        format!("can't evaluate field {next} in type {}", result.type_name()),
                    ),
                };
            }
            other => {
                let type_name = if element {
                    "interface {}"
                } else {
                    other.type_name()
                };
                return fail(
                    at,
                    format!("can't evaluate field {field} in type {type_name}"),
                );
            }
        };
    }
    Ok(v.clone())
}

/// A number constant's value (the parser refused the text of one that has
/// none).
fn number(n: &str, at: usize) -> Result<Value, ExecError> {
    constant(n).ok_or_else(|| ExecError {
        offset: at,
        message: format!("illegal number syntax: {n:?}"),
    })
}

mod call;

#[cfg(test)]
mod tests;
