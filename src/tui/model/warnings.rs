//! The engine's warnings, as the console keeps them: a list the header
//! counts and the warnings screen shows, never the status line (which
//! belongs to the user's own actions).
//!
//! A warning comes from the log (`tui/logging.rs`) as its message and
//! fields; [`Warning::from_log`] reads the fields the engine gives
//! (`kind`, `namespace`, `object`, `error`) into columns and words. The
//! same warning again counts up instead of adding a row.

use std::collections::VecDeque;

use k8s_openapi::jiff::Timestamp;

use crate::tui::model::filter::matches;

/// At most this many distinct warnings are kept; the oldest go first.
pub const KEEP: usize = 200;

/// One warning, with how often and when it was last seen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// The kind of the object it is about, empty when about none.
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// What went wrong, in words.
    pub message: String,
    pub count: u32,
    pub last: Timestamp,
}

impl Warning {
    /// A warning about nothing in particular.
    pub fn plain(message: impl Into<String>, now: Timestamp) -> Warning {
        Warning {
            kind: String::new(),
            namespace: String::new(),
            name: String::new(),
            message: message.into(),
            count: 1,
            last: now,
        }
    }

    /// A log line's message and fields as a warning: `kind`, `namespace`
    /// and `object` (or `name`) name what it is about, `error` says what
    /// went wrong; the fields kept for the log file only (`label`,
    /// `retry_in_ms`, `controller`) are left out, others follow in words.
    pub fn from_log(message: &str, fields: &[(String, String)], now: Timestamp) -> Warning {
        let mut w = Warning::plain(String::new(), now);
        let mut error = None;
        let mut rest = Vec::new();
        for (field, value) in fields {
            let value = unquote(value);
            match field.as_str() {
                "kind" => w.kind = value,
                "namespace" => w.namespace = value,
                "object" | "name" => w.name = value,
                "error" => error = Some(value),
                "label" | "retry_in_ms" | "controller" => {}
                _ => rest.push(format!("{field} {value}")),
            }
        }
        let mut text = match error {
            Some(error) if message.is_empty() => error,
            Some(error) => format!("{error} ({message})"),
            None => message.to_string(),
        };
        if !rest.is_empty() {
            text = format!("{text}; {}", rest.join(", "));
        }
        w.message = one_line(&text);
        w
    }

    fn same(&self, other: &Warning) -> bool {
        (&self.kind, &self.namespace, &self.name, &self.message)
            == (&other.kind, &other.namespace, &other.name, &other.message)
    }
}

/// A value recorded with `?` arrives quoted (`"demo"`); shown without.
fn unquote(value: &str) -> String {
    let v = value.trim();
    let v = v
        .strip_prefix("Some(")
        .and_then(|v| v.strip_suffix(')'))
        .unwrap_or(v);
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
        .to_string()
}

/// One line, single spaces.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The warnings seen, newest last.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Warnings {
    list: VecDeque<Warning>,
}

impl Warnings {
    /// Adds a warning, or counts up the same one seen before.
    pub fn add(&mut self, warning: Warning) {
        if let Some(i) = self.list.iter().position(|w| w.same(&warning)) {
            let mut seen = self.list.remove(i).unwrap_or_else(|| warning.clone());
            seen.count = seen.count.saturating_add(warning.count);
            seen.last = warning.last;
            self.list.push_back(seen);
            return;
        }
        if self.list.len() >= KEEP {
            self.list.pop_front();
        }
        self.list.push_back(warning);
    }

    /// How many distinct warnings there are.
    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The rows of the warnings screen: newest first, matching the filter
    /// (kind, namespace, name or message).
    pub fn rows(&self, filter: &str) -> Vec<&Warning> {
        self.list
            .iter()
            .rev()
            .filter(|w| matches(filter, &[&w.kind, &w.namespace, &w.name, &w.message]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> Timestamp {
        Timestamp::from_second(s).unwrap()
    }

    fn fields(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_failed_reconcile_reads_as_columns_and_words() {
        let w = Warning::from_log(
            "reconcile failed; retrying",
            &fields(&[
                ("controller", "clustertemplates"),
                ("kind", "ClusterTemplate"),
                ("namespace", "bomb-4977"),
                ("object", "bomb-ct"),
                ("error", "namespaces \"bomb-4977\" not found"),
                ("label", "kube"),
                ("retry_in_ms", "4000"),
            ]),
            at(10),
        );
        assert_eq!(w.kind, "ClusterTemplate");
        assert_eq!(w.namespace, "bomb-4977");
        assert_eq!(w.name, "bomb-ct");
        assert_eq!(
            w.message,
            "namespaces \"bomb-4977\" not found (reconcile failed; retrying)"
        );
        assert!(!w.message.contains("Status {"), "{}", w.message);
    }

    #[test]
    fn debug_values_lose_their_quotes_and_other_fields_follow() {
        let w = Warning::from_log(
            "could not record event",
            &fields(&[("namespace", "Some(\"demo\")"), ("path", "\"/tmp/x\"")]),
            at(1),
        );
        assert_eq!(w.namespace, "demo");
        assert_eq!(w.message, "could not record event; path /tmp/x");
    }

    #[test]
    fn the_same_warning_counts_up_and_moves_to_the_top() {
        let mut list = Warnings::default();
        list.add(Warning::plain("one", at(1)));
        list.add(Warning::plain("two", at(2)));
        list.add(Warning::plain("one", at(3)));
        assert_eq!(list.len(), 2);
        let rows = list.rows("");
        assert_eq!(rows[0].message, "one");
        assert_eq!(rows[0].count, 2);
        assert_eq!(rows[0].last, at(3));
        assert_eq!(list.rows("TWO").len(), 1);
        for i in 0..(KEEP + 5) {
            list.add(Warning::plain(format!("w{i}"), at(4)));
        }
        assert_eq!(list.len(), KEEP);
    }
}
