//! Calling a function of the table as Go's `evalCall` does: the count of
//! arguments checked first, then each argument evaluated against its
//! parameter's type (a constant converted to it, a value checked), so a
//! wrong one is refused where it is written; and Go's builtin `call`.

use super::super::funcs::params::{Param, signature};
use super::{ExecError, State, describe, fail};
use crate::plan::template::parse::Arg;
use crate::plan::template::value::{ARITY_ERROR, Value};

impl State<'_> {
    /// `name` (written at `at`) called with `rest` and the piped value.
    pub(super) fn call_with(
        &mut self,
        name: &str,
        at: usize,
        rest: &[Arg],
        dot: &Value,
        piped: Option<Value>,
    ) -> Result<Value, ExecError> {
        if name == "call" {
            return self.call_builtin(at, rest, dot, piped);
        }
        let Some((fixed, variadic)) = signature(name) else {
            let mut args = Vec::with_capacity(rest.len() + 1);
            for arg in rest {
                args.push(self.arg(arg, dot)?);
            }
            args.extend(piped);
            return self.call(name, at, &args);
        };
        let count = rest.len() + usize::from(piped.is_some());
        match variadic {
            Some(_) if count < fixed.len() => {
                return fail(
                    at,
                    format!(
                        "{ARITY_ERROR}{name}: want at least {} got {}",
                        fixed.len(),
                        rest.len()
                    ),
                );
            }
            None if count != fixed.len() => {
                return fail(
                    at,
                    format!("{ARITY_ERROR}{name}: want {} got {count}", fixed.len()),
                );
            }
            _ => {}
        }
        let param = |i: usize| fixed.get(i).copied().or(variadic).unwrap_or(Param::Any);
        let mut args = Vec::with_capacity(count);
        for (i, arg) in rest.iter().enumerate() {
            args.push(self.typed_arg(arg, param(i), dot)?);
        }
        if let Some(v) = piped {
            // Go checks the piped value last, where the run last was: the
            // last argument, or the function's name.
            let last = rest.last().map_or(at, offset_of);
            args.push(validate(v, param(rest.len())).map_err(|message| ExecError {
                offset: last,
                message,
            })?);
        }
        let result = self.call(name, at, &args)?;
        if MUTATES.contains(&name)
            && let (Some(target), Value::Map(_)) = (rest.first(), &result)
        {
            self.write_back(target, &result);
        }
        Ok(result)
    }

    /// The map `target` names, changed in place by a function, as later
    /// reads see it: in its variable, or in the cursor.
    fn write_back(&mut self, target: &Arg, changed: &Value) {
        match target {
            Arg::Variable(name, fields, _) => {
                if let Some(slot) = self.variables.iter_mut().rev().find(|v| &v.name == name) {
                    set_path(slot.value.to_mut(), fields, changed.clone());
                }
            }
            Arg::Field(fields, _) => self.dot_writes.push((fields.clone(), changed.clone())),
            Arg::Dot(_) => self.dot_writes.push((Vec::new(), changed.clone())),
            _ => {}
        }
    }

    /// An argument for a parameter of type `param`: a constant must be
    /// of the type (an integral number for an `int`), a value must hold it.
    fn typed_arg(&mut self, arg: &Arg, param: Param, dot: &Value) -> Result<Value, ExecError> {
        let at = offset_of(arg);
        let found =
            |expected: &str| fail(at, format!("expected {expected}; found {}", describe(arg)));
        let constant = matches!(arg, Arg::Number(..) | Arg::Char(..));
        match (param, arg) {
            // Go's builtins take a literal nil too.
            (Param::Any | Param::Reflect, _) => self.arg(arg, dot),
            (Param::Map, Arg::Nil(_)) => Ok(Value::Nil),
            (_, Arg::Nil(_)) => fail(at, format!("cannot assign nil to {}", param.go_name())),
            (Param::String, Arg::String(..)) | (Param::Bool, Arg::Bool(..)) => self.arg(arg, dot),
            (Param::Int, _) if constant => match self.arg(arg, dot)? {
                Value::GoInt(i) => Ok(Value::GoInt(i)),
                // Go's `1.0` or `1e3` is an integer constant too.
                Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => {
                    Ok(Value::GoInt(f as i64))
                }
                _ => found("integer"),
            },
            (Param::Float64, _) if constant => match self.arg(arg, dot)? {
                Value::GoInt(i) => Ok(Value::Float(i as f64)),
                v => Ok(v),
            },
            (_, Arg::String(..) | Arg::Number(..) | Arg::Char(..) | Arg::Bool(..)) => match param {
                Param::String => found("string"),
                Param::Int => found("integer"),
                Param::Float64 => found("float"),
                Param::Bool => found("bool"),
                _ => fail(
                    at,
                    format!(
                        "can't handle {} for arg of type {}",
                        describe(arg),
                        param.go_name()
                    ),
                ),
            },
            _ => {
                let v = self.arg(arg, dot)?;
                validate(v, param).map_err(|message| ExecError {
                    offset: at,
                    message,
                })
            }
        }
    }

    /// Go's `call`: values hold no functions, so every call is refused
    /// with Go's error, its arguments evaluated first.
    fn call_builtin(
        &mut self,
        at: usize,
        rest: &[Arg],
        dot: &Value,
        piped: Option<Value>,
    ) -> Result<Value, ExecError> {
        let mut values = Vec::with_capacity(rest.len() + 1);
        for arg in rest {
            values.push(self.typed_arg(arg, Param::Reflect, dot)?);
        }
        values.extend(piped);
        let Some(callee) = values.first() else {
            return fail(at, format!("{ARITY_ERROR}call: want at least 1 got 0"));
        };
        let name = rest
            .first()
            .map_or_else(|| format!("<{} Value>", callee.type_name()), describe);
        let why = match callee {
            Value::Nil => "call of nil".to_string(),
            v => format!("non-function {name} of type {}", v.type_name()),
        };
        fail(at, format!("error calling call: {why}"))
    }
}

/// The functions that change their first argument, a map, in place (and
/// return it).
const MUTATES: &[&str] = &["set", "unset", "merge", "mergeOverwrite"];

/// `value` put at `path` in `target`, where the path leads through maps.
pub(super) fn set_path(target: &mut Value, path: &[String], value: Value) {
    let mut at = target;
    for field in path {
        let Value::Map(m) = at else { return };
        let Some(next) = m.get_mut(field) else { return };
        at = next;
    }
    *at = value;
}

/// Go's `validateType`: a value for a parameter must be of its type (a
/// nil or a map for a map).
fn validate(v: Value, param: Param) -> Result<Value, String> {
    let fits = matches!(
        (&v, param),
        (_, Param::Any | Param::Reflect)
            | (Value::String(_), Param::String)
            | (Value::GoInt(_), Param::Int)
            | (Value::Float(_), Param::Float64)
            | (Value::Bool(_), Param::Bool)
            | (Value::Map(_) | Value::Nil, Param::Map)
    );
    if fits {
        return Ok(v);
    }
    Err(format!(
        "wrong type for value; expected {}; got {}",
        param.go_name(),
        v.type_name()
    ))
}

/// Where an argument is written.
pub(super) fn offset_of(arg: &Arg) -> usize {
    match arg {
        Arg::Dot(at)
        | Arg::Field(_, at)
        | Arg::Variable(_, _, at)
        | Arg::Chain(_, _, at)
        | Arg::Function(_, at)
        | Arg::String(_, at)
        | Arg::Number(_, at)
        | Arg::Char(_, at)
        | Arg::Bool(_, at)
        | Arg::Nil(at) => *at,
    }
}
