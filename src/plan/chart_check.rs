//! Values checked against their chart: what its `values.schema.json`
//! refuses is an error, keys the chart does not have are warnings, each
//! with its path and, when the text shows it, its line and column.
//!
//! - The schema is Helm's: the values are merged over the chart's defaults
//!   (a `null` removes a default) and the result is validated against the
//!   compiled schema ([`ChartValues::validator`],
//!   [`ChartValues::with_merged`]), as `helm install` does.
//!   What it refuses, Helm would refuse: an error. A violation at a path
//!   the text does not set (a `required` key missing under a map the user
//!   set) is placed at the nearest ancestor the text sets. A schema that
//!   cannot be compiled is one warning, and the other checks go on.
//! - A key is known when the chart's `values.yaml` has it, or its schema
//!   declares it (`properties`, a matching `patternProperties`,
//!   `additionalProperties`, through `$ref`, `allOf`, `anyOf`, `oneOf` and
//!   `if`/`then`/`else`). Under a map the chart leaves empty (`{}`, such as
//!   `podAnnotations`) or null, any key goes; so do `global` and the keys
//!   of the chart's dependencies.
//! - Where the schema says nothing of a value's type (no `type`, `enum`,
//!   `const`), a value that clearly differs from the default's type is an
//!   error: text where the chart has a number or true/false, a scalar where
//!   it has a map or a list. `null` is always allowed: it removes a default.
//!
//! [`schema_errors`] is the schema part alone, for planners that check
//! many clusters' values against one chart.
//!
//! Pure.

use std::collections::HashMap;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{JsonType, ValidationError, Validator};
use regex::{Regex, RegexBuilder};
use serde_json::Value;

use crate::plan::chart::{ChartId, ChartValues, PATTERN_SIZE_LIMIT};
use crate::plan::key_places::{PathText, Place, Seg, places};

/// How bad a finding is: a warning lets the save through, an error does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Warning,
    Error,
}

/// One thing wrong with the values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub level: Level,
    pub path: Vec<Seg>,
    /// In words, the path included.
    pub message: String,
    /// The same, short, for beside its line: `replicaCount: a number in
    /// the chart, not "three"`.
    pub note: String,
    /// 0-based line and column in the text, when it could be placed.
    pub at: Option<(usize, usize)>,
}

impl Finding {
    /// `line 1, column 28: …` (1-based), or the message alone.
    pub fn text(&self) -> String {
        match self.at {
            Some((l, c)) => format!("line {}, column {}: {}", l + 1, c + 1, self.message),
            None => self.message.clone(),
        }
    }
}

/// One way merged values break the chart's values.schema.json.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    /// Dotted, e.g. `controller.replicaCount` or `tolerations[0].key`;
    /// empty for the values as a whole.
    pub path: String,
    /// In a person's words, the path first: `controller.replicaCount must
    /// be an integer, not "three"`.
    pub message: String,
}

/// How many schema violations are told: past the first few, more of them
/// help nobody, and a hostile chart could make thousands.
const MAX_SCHEMA_ERRORS: usize = 20;

/// The first way `values` break the chart's schema, in words (the path
/// first), as the fleet's planners report one blocked service.
pub fn first_schema_error(chart: &ChartValues, values: &Value) -> Option<String> {
    schema_errors(chart, values)
        .into_iter()
        .next()
        .map(|e| e.message)
}

/// How `values` (the user's values over the chart's: the effective values
/// of a service WITHOUT the chart's defaults; a `null` in them removes a
/// default) break the chart's schema, first error first; empty when the
/// chart has no usable schema. At most [`MAX_SCHEMA_ERRORS`].
pub fn schema_errors(chart: &ChartValues, values: &Value) -> Vec<SchemaError> {
    let Some(Ok(validator)) = chart.validator() else {
        return Vec::new();
    };
    chart
        .with_merged(values, |merged| violations(validator, merged))
        .into_iter()
        .map(|v| SchemaError {
            path: PathText(&v.path).to_string(),
            message: v.sentence(None),
        })
        .collect()
}

/// What is wrong with `values` (parsed from `text`) for `chart`, in text
/// order; what cannot be placed comes last.
pub fn check(chart: &ChartValues, values: &Value, text: &str) -> Vec<Finding> {
    let places = places(text);
    let mut out = Vec::new();
    match chart.validator() {
        None => {}
        Some(Ok(validator)) => {
            for v in chart.with_merged(values, |merged| violations(validator, merged)) {
                let message = v.sentence(Some(&chart.id));
                let (at, what) = (place(&places, &v.path, v.on_value), v.rule_short());
                out.push(finding(Level::Error, v.path, message, what, at));
            }
        }
        Some(Err(why)) => out.push(Finding {
            level: Level::Warning,
            path: Vec::new(),
            message: format!("the chart's values.schema.json cannot be used: {why}"),
            note: "values.schema.json cannot be used".to_string(),
            at: None,
        }),
    }
    let mut walk = Walk {
        chart,
        root: chart.schema.as_ref(),
        places: &places,
        patterns: HashMap::new(),
        out: Vec::new(),
    };
    let top: Vec<&Value> = walk.root.into_iter().collect();
    walk.value(&mut Vec::new(), values, Some(&chart.defaults), &top);
    // An unknown key the schema also refuses is told once, as the error.
    let refused: Vec<Vec<Seg>> = out
        .iter()
        .filter(|f| f.level == Level::Error)
        .map(|f| f.path.clone())
        .collect();
    out.extend(
        walk.out
            .into_iter()
            .filter(|f| f.level == Level::Error || !refused.contains(&f.path)),
    );
    out.sort_by_key(|f| f.at.map_or((usize::MAX, usize::MAX), |a| a));
    out
}

fn finding(
    level: Level,
    path: Vec<Seg>,
    message: String,
    what: String,
    at: Option<(usize, usize)>,
) -> Finding {
    let note = match path.last() {
        Some(Seg::Key(k)) => format!("{k}: {what}"),
        Some(Seg::Index(n)) => format!("[{n}]: {what}"),
        None => what,
    };
    Finding {
        level,
        path,
        message,
        note,
        at,
    }
}

/// Where a finding about `path` goes: on the value (when `on_value`) or
/// the key of `path` itself, or on the key of its nearest ancestor the text
/// sets; `None` when not even the top key is in the text.
fn place(places: &[(Vec<Seg>, Place)], path: &[Seg], on_value: bool) -> Option<(usize, usize)> {
    (1..=path.len()).rev().find_map(|n| {
        let (_, p) = places
            .iter()
            .rev()
            .find(|(p, _)| p.as_slice() == &path[..n])?;
        Some(match p.value {
            Some(value) if on_value && n == path.len() => value,
            _ => p.key,
        })
    })
}

// ---------------------------------------------------------------------------
// The schema's violations, in words.

/// One violation of the schema: where, and what the schema asks there.
struct Violation {
    path: Vec<Seg>,
    /// What the schema asks: `must be an integer`, `is required`.
    rule: String,
    /// What was there instead, when worth saying: `"three"`.
    instead: Option<String>,
    /// Placed on the value rather than the key.
    on_value: bool,
}

impl Violation {
    /// `controller.replicaCount must be an integer by the schema of web
    /// 1.0.0, not "three"`; without `chart`, no "by the schema".
    fn sentence(&self, chart: Option<&ChartId>) -> String {
        let mut s = if self.path.is_empty() {
            format!("the values {}", self.rule)
        } else {
            format!("{} {}", PathText(&self.path), self.rule)
        };
        if let Some(id) = chart {
            s.push_str(&format!(" by the schema of {id}"));
        }
        if let Some(instead) = self.shown_instead() {
            s.push_str(&format!(", not {instead}"));
        }
        s
    }

    /// `must be an integer, not "three"`, for beside the line.
    fn rule_short(&self) -> String {
        match self.shown_instead() {
            Some(instead) => format!("{}, not {instead}", self.rule),
            None => self.rule.clone(),
        }
    }

    /// The offending value as it may be quoted: not at all under a
    /// secret-looking key, since these sentences reach statuses and
    /// reviews (see `safe_text::is_secret_path`).
    fn shown_instead(&self) -> Option<&str> {
        let secret = super::safe_text::is_secret_path(&PathText(&self.path).to_string());
        self.instead.as_deref().filter(|_| !secret)
    }
}

/// The first [`MAX_SCHEMA_ERRORS`] violations of `validator` by `merged`.
/// A panic in the validator (it should not happen) is one violation
/// rather than a crash of the console or the planner.
fn violations(validator: &Validator, merged: &Value) -> Vec<Violation> {
    let run = || {
        if validator.is_valid(merged) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for error in validator.iter_errors(merged) {
            explain(&error, merged, &mut out);
            if out.len() >= MAX_SCHEMA_ERRORS {
                break;
            }
        }
        out.truncate(MAX_SCHEMA_ERRORS);
        out
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|_| {
        vec![Violation {
            path: Vec::new(),
            rule: "cannot be checked against the chart's schema (its validator failed)".into(),
            instead: None,
            on_value: false,
        }]
    })
}

/// Turns one error of the validator into violations (one per key for the
/// keys a map may not have).
fn explain(error: &ValidationError<'_>, merged: &Value, out: &mut Vec<Violation>) {
    let path = segments(error.instance_path().as_str(), merged);
    let instance: &Value = error.instance();
    let on = |rule: String, instead: Option<String>| Violation {
        path: path.clone(),
        rule,
        instead,
        on_value: true,
    };
    let not = || Some(shown(instance));
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let v = match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            for key in unexpected {
                let mut path = path.clone();
                path.push(Seg::Key(key.clone()));
                out.push(Violation {
                    path,
                    rule: "is not allowed".into(),
                    instead: None,
                    on_value: false,
                });
            }
            return;
        }
        ValidationErrorKind::Required { property } => {
            let mut path = path.clone();
            path.push(Seg::Key(
                property
                    .as_str()
                    .map_or_else(|| property.to_string(), str::to_string),
            ));
            Violation {
                path,
                rule: "is required".into(),
                instead: None,
                on_value: false,
            }
        }
        ValidationErrorKind::FalseSchema => Violation {
            on_value: false,
            ..on("is not allowed".into(), None)
        },
        ValidationErrorKind::Type { kind } => on(format!("must be {}", type_names(kind)), not()),
        ValidationErrorKind::Enum { options } => {
            on(format!("must be one of {}", choices(options)), not())
        }
        ValidationErrorKind::Constant { expected_value } => {
            on(format!("must be {}", shown(expected_value)), not())
        }
        ValidationErrorKind::Minimum { limit } => on(format!("must be at least {limit}"), not()),
        ValidationErrorKind::Maximum { limit } => on(format!("must be at most {limit}"), not()),
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            on(format!("must be more than {limit}"), not())
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            on(format!("must be less than {limit}"), not())
        }
        ValidationErrorKind::MultipleOf { multiple_of } => {
            on(format!("must be a multiple of {multiple_of}"), not())
        }
        ValidationErrorKind::MinLength { limit } => on(
            format!(
                "must be at least {} long",
                plural(*limit, "character", "characters")
            ),
            not(),
        ),
        ValidationErrorKind::MaxLength { limit } => on(
            format!(
                "must be at most {} long",
                plural(*limit, "character", "characters")
            ),
            not(),
        ),
        ValidationErrorKind::Pattern { pattern } => on(
            format!("must match the pattern {}", clipped(pattern, 60)),
            not(),
        ),
        ValidationErrorKind::Format { format } => on(format!("must be a valid {format}"), not()),
        ValidationErrorKind::MinItems { limit } => on(
            format!("must have at least {}", plural(*limit, "item", "items")),
            None,
        ),
        ValidationErrorKind::MaxItems { limit } => on(
            format!("must have at most {}", plural(*limit, "item", "items")),
            None,
        ),
        ValidationErrorKind::AdditionalItems { limit } => on(
            format!(
                "must have at most {}",
                plural(*limit as u64, "item", "items")
            ),
            None,
        ),
        ValidationErrorKind::UnevaluatedItems { .. } => {
            on("has items the schema does not allow".into(), None)
        }
        ValidationErrorKind::UniqueItems => on("must not repeat an item".into(), None),
        ValidationErrorKind::Contains => on(
            "must have an item of the kind the schema asks for".into(),
            None,
        ),
        ValidationErrorKind::MinProperties { limit } => on(
            format!("must have at least {}", plural(*limit, "key", "keys")),
            None,
        ),
        ValidationErrorKind::MaxProperties { limit } => on(
            format!("must have at most {}", plural(*limit, "key", "keys")),
            None,
        ),
        ValidationErrorKind::PropertyNames { error } => on(
            format!(
                "has a key the schema does not allow: {}",
                shown(error.instance())
            ),
            None,
        ),
        ValidationErrorKind::Not { .. } => on("is a value the schema forbids".into(), not()),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            match branch_types(error.instance_path().as_str(), context) {
                Some(types) => on(format!("must be {types}"), not()),
                None => on(
                    format!("must match one of its {} forms", error.kind().keyword()),
                    None,
                ),
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => on(
            "must match exactly one of its oneOf forms".into(),
            Some("several".into()),
        ),
        ValidationErrorKind::ContentEncoding { content_encoding } => {
            on(format!("must be {content_encoding}-encoded"), None)
        }
        ValidationErrorKind::ContentMediaType { content_media_type } => {
            on(format!("must be {content_media_type}"), None)
        }
        ValidationErrorKind::BacktrackLimitExceeded { .. }
        | ValidationErrorKind::RegexEngineFailure { .. } => on(
            "cannot be matched against the schema's pattern".into(),
            None,
        ),
        ValidationErrorKind::Referencing(e) => on(format!("cannot be checked: {e}"), None),
        ValidationErrorKind::Custom { message, .. } => on(message.clone(), None),
        _ => on(format!("breaks the schema: {error}"), None),
    };
    out.push(v);
}

/// A JSON pointer into `merged` as a path: a number is a list index where
/// `merged` has a list, a key elsewhere.
fn segments(pointer: &str, merged: &Value) -> Vec<Seg> {
    let mut out = Vec::new();
    let Some(rest) = pointer.strip_prefix('/') else {
        return out;
    };
    let mut here = Some(merged);
    for raw in rest.split('/') {
        let key = raw.replace("~1", "/").replace("~0", "~");
        let (seg, next) = match (here, key.parse::<usize>()) {
            (Some(Value::Array(items)), Ok(i)) => (Seg::Index(i), items.get(i)),
            (Some(Value::Object(map)), _) => {
                let next = map.get(&key);
                (Seg::Key(key), next)
            }
            _ => (Seg::Key(key), None),
        };
        out.push(seg);
        here = next;
    }
    out
}

/// When every branch of an `anyOf`/`oneOf` fails on the value's type
/// alone, the types they allow: `a string or an integer`.
fn branch_types(at: &str, branches: &[Vec<ValidationError<'static>>]) -> Option<String> {
    let mut names: Vec<&'static str> = Vec::new();
    for branch in branches {
        let [error] = branch.as_slice() else {
            return None;
        };
        let ValidationErrorKind::Type { kind } = error.kind() else {
            return None;
        };
        if error.instance_path().as_str() != at {
            return None;
        }
        for t in types_of(kind) {
            if !names.contains(&t) {
                names.push(t);
            }
        }
    }
    (!names.is_empty()).then(|| names.join(" or "))
}

fn types_of(kind: &TypeKind) -> Vec<&'static str> {
    match kind {
        TypeKind::Single(t) => vec![type_name(*t)],
        TypeKind::Multiple(set) => set.iter().map(type_name).collect(),
    }
}

fn type_names(kind: &TypeKind) -> String {
    types_of(kind).join(" or ")
}

fn type_name(t: JsonType) -> &'static str {
    match t {
        JsonType::Object => "a map",
        JsonType::Array => "a list",
        JsonType::String => "a string",
        JsonType::Boolean => "true or false",
        JsonType::Null => "null",
        JsonType::Number => "a number",
        JsonType::Integer => "an integer",
    }
}

/// An enum's values as the message shows them, the first ten.
fn choices(options: &Value) -> String {
    let Some(all) = options.as_array() else {
        return shown(options);
    };
    let mut names: Vec<String> = all.iter().take(10).map(shown).collect();
    if all.len() > 10 {
        names.push(format!("… ({} in all)", all.len()));
    }
    names.join(", ")
}

fn clipped(s: &str, max: usize) -> String {
    if s.chars().count() > max {
        format!("{}…", s.chars().take(max - 1).collect::<String>())
    } else {
        s.to_string()
    }
}

// ---------------------------------------------------------------------------
// Keys the chart does not have, and types that clash with the defaults.

struct Walk<'a> {
    chart: &'a ChartValues,
    /// The chart's schema, read as it is (compiled or not) for the keys it
    /// declares and the types it states.
    root: Option<&'a Value>,
    places: &'a [(Vec<Seg>, Place)],
    /// `patternProperties` compiled as met; `None` for one that does not
    /// compile (then it is taken to match any key).
    patterns: HashMap<&'a str, Option<Regex>>,
    out: Vec<Finding>,
}

/// How many schemas one path may gather through `$ref`, `allOf` and the
/// like: a bound on what a hostile schema can make the walk do.
const MAX_GATHERED: usize = 64;

impl<'a> Walk<'a> {
    /// Checks `user` at `path`, whose chart default is `default` and which
    /// `schemas` (not yet gathered) speak of.
    fn value(
        &mut self,
        path: &mut Vec<Seg>,
        user: &Value,
        default: Option<&'a Value>,
        schemas: &[&'a Value],
    ) {
        if user.is_null() {
            return;
        }
        let schemas = self.gather(schemas);
        let chart: &'a ChartValues = self.chart;
        if !states_type(&schemas)
            && let Some(d) = default.filter(|d| clash(d, user))
        {
            let message = format!(
                "{} is {} in {}, not {}",
                PathText(path),
                kind(d),
                chart.id,
                shown(user)
            );
            let what = format!("{} in the chart, not {}", kind(d), shown(user));
            return self.push(Level::Error, path, message, what, true);
        }
        match user {
            Value::Object(map) => {
                let defaults = default.and_then(Value::as_object);
                let declared = schemas.iter().any(|s| {
                    ["properties", "patternProperties"].iter().any(|k| {
                        s.get(k)
                            .and_then(Value::as_object)
                            .is_some_and(|p| !p.is_empty())
                    })
                });
                let known_map = declared || defaults.is_some_and(|m| !m.is_empty());
                for (k, v) in map {
                    path.push(Seg::Key(k.clone()));
                    let free = path.len() == 1
                        && (k == "global" || chart.subcharts.iter().any(|s| s == k));
                    let child_default = defaults.and_then(|m| m.get(k));
                    let (known, child_schemas) = self.child(&schemas, k);
                    if free {
                        // `global` and the dependencies' values: not this
                        // chart's to check (but its schema's, above).
                    } else if child_default.is_some() || known {
                        self.value(path, v, child_default, &child_schemas);
                    } else if known_map {
                        let message = format!("{} is not a value of {}", PathText(path), chart.id);
                        let what = "not a value of the chart".to_string();
                        self.push(Level::Warning, path, message, what, false);
                    }
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    let item_schemas = item_schemas(&schemas, i);
                    if item_schemas.is_empty() {
                        continue;
                    }
                    path.push(Seg::Index(i));
                    self.value(path, v, None, &item_schemas);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// `schemas` and those they bring in at the same place: `$ref`s within
    /// the file, `allOf`, `anyOf`, `oneOf`, `if`/`then`/`else`,
    /// `dependentSchemas`. Each once, at most [`MAX_GATHERED`].
    fn gather(&self, schemas: &[&'a Value]) -> Vec<&'a Value> {
        let mut out: Vec<&'a Value> = Vec::new();
        let mut todo: Vec<&'a Value> = schemas.iter().rev().copied().collect();
        while let Some(s) = todo.pop() {
            if out.len() >= MAX_GATHERED {
                break;
            }
            if !s.is_object() || out.iter().any(|o| std::ptr::eq(*o, s)) {
                continue;
            }
            out.push(s);
            let mut brought: Vec<&'a Value> = Vec::new();
            if let Some(target) = s
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| self.local(r))
            {
                brought.push(target);
            }
            for key in ["allOf", "anyOf", "oneOf"] {
                brought.extend(s.get(key).and_then(Value::as_array).into_iter().flatten());
            }
            for key in ["if", "then", "else"] {
                brought.extend(s.get(key));
            }
            if let Some(Value::Object(deps)) = s.get("dependentSchemas") {
                brought.extend(deps.values());
            }
            todo.extend(brought.into_iter().rev());
        }
        out
    }

    /// A `$ref` within the chart's schema (`#/definitions/x`, `#/$defs/x`).
    fn local(&self, reference: &str) -> Option<&'a Value> {
        let pointer = reference.strip_prefix('#')?;
        let pointer = pointer.replace("%25", "%");
        self.root?.pointer(&pointer)
    }

    /// Whether `schemas` declare `key`, and the schemas they give it.
    fn child(&mut self, schemas: &[&'a Value], key: &str) -> (bool, Vec<&'a Value>) {
        let mut known = false;
        let mut out = Vec::new();
        for s in schemas {
            let mut matched = false;
            if let Some(sub) = s.get("properties").and_then(|p| p.get(key)) {
                out.push(sub);
                matched = true;
            }
            if let Some(Value::Object(patterns)) = s.get("patternProperties") {
                for (pattern, sub) in patterns {
                    if self.matches(pattern, key) {
                        out.push(sub);
                        matched = true;
                    }
                }
            }
            if !matched {
                for extra in ["additionalProperties", "unevaluatedProperties"] {
                    match s.get(extra) {
                        Some(sub @ Value::Object(_)) => {
                            out.push(sub);
                            matched = true;
                        }
                        Some(Value::Bool(true)) => matched = true,
                        _ => {}
                    }
                }
            }
            known |= matched;
        }
        (known, out)
    }

    fn matches(&mut self, pattern: &'a str, key: &str) -> bool {
        let compiled = self.patterns.entry(pattern).or_insert_with(|| {
            RegexBuilder::new(pattern)
                .size_limit(PATTERN_SIZE_LIMIT)
                .build()
                .ok()
        });
        compiled.as_ref().is_none_or(|re| re.is_match(key))
    }

    fn push(&mut self, level: Level, path: &[Seg], message: String, what: String, on_value: bool) {
        let at = place(self.places, path, on_value);
        self.out
            .push(finding(level, path.to_vec(), message, what, at));
    }
}

/// The schemas of the `i`th item of a list: `items`, `prefixItems`, or
/// draft-07's list of `items` and `additionalItems`.
fn item_schemas<'s>(schemas: &[&'s Value], i: usize) -> Vec<&'s Value> {
    let mut out = Vec::new();
    for s in schemas {
        let prefix = s
            .get("prefixItems")
            .or_else(|| s.get("items").filter(|i| i.is_array()))
            .and_then(Value::as_array);
        match prefix {
            Some(list) if i < list.len() => out.push(&list[i]),
            Some(_) => out.extend(
                s.get("additionalItems")
                    .or_else(|| s.get("items").filter(|i| i.is_object())),
            ),
            None => out.extend(s.get("items").filter(|i| i.is_object())),
        }
    }
    out
}

/// Whether the schemas say what type a value has: then the chart's
/// default is no guide.
fn states_type(schemas: &[&Value]) -> bool {
    schemas
        .iter()
        .any(|s| ["type", "enum", "const"].iter().any(|k| s.get(k).is_some()))
}

/// Whether `user` clearly has another type than the chart's `default`.
fn clash(default: &Value, user: &Value) -> bool {
    let numeric = |s: &str| s.trim().parse::<f64>().is_ok();
    match (default, user) {
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::Number(_), Value::Number(_)) => false,
        (Value::Number(_), Value::String(s)) => !numeric(s),
        (Value::Bool(_), Value::Bool(_)) => false,
        (Value::Bool(_), Value::String(s)) => !matches!(s.as_str(), "true" | "false"),
        (Value::String(_), Value::String(_) | Value::Number(_) | Value::Bool(_)) => false,
        // An empty string often stands for "not set", whatever comes.
        (Value::String(s), _) => !s.is_empty(),
        (Value::Object(_), Value::Object(_)) | (Value::Array(_), Value::Array(_)) => false,
        _ => true,
    }
}

/// What kind of value the chart has.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a map",
    }
}

/// A value as the message shows it: `"three"`, `3`, `a map`.
fn shown(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 24 => {
            format!("\"{}…\"", s.chars().take(23).collect::<String>())
        }
        Value::String(s) => format!("\"{s}\""),
        Value::Array(_) | Value::Object(_) => kind(v).to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests;
