//! Text that cannot attack its reader. Names, messages and values come from
//! manifests and the API server, written by anyone who may write a template
//! or a cluster; what a person reads of them (the console, `hmc-tui diff`
//! in every format, a pull-request comment, a rollout's preview) goes
//! through here first. Pure.
//!
//! - [`escape_control`]: every character a terminal interprets (C0, DEL,
//!   C1, so every escape sequence) and every invisible character that
//!   reorders or hides text (bidirectional overrides, zero-width ones) is
//!   shown as `\u{1b}` (`\n`, `\r`, `\t` for those), so a reader sees that
//!   something was there.
//! - [`markdown_code`] and [`html_text`]: untrusted text in a pull-request
//!   comment, as a code span (no link, no HTML, no mention, no way out of
//!   its table cell) or inside an HTML element.
//! - [`is_secret_key`], [`mask_value`], [`mask_change`]: values under
//!   secret-looking keys shown as [`MASK`], as Argo CD shows a Secret's
//!   data, and whether they changed.

use std::borrow::Cow;
use std::fmt::Write;

use serde_json::{Map, Value};

use crate::plan::values::Change;

/// What a masked value shows instead of itself.
pub const MASK: &str = "++++++++";

/// A masked value that differs from the one before it.
pub const MASK_CHANGED: &str = "++++++++ (changed)";

/// A masked value inside a changed whole that is the same as before.
pub const MASK_UNCHANGED: &str = "++++++++ (unchanged)";

/// Whether a terminal, or a reader's eye, could be fooled by `c`: the
/// control characters (C0, DEL, C1) and the invisible format characters
/// that reorder or hide text.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200b}'..='\u{200f}'
                | '\u{2028}'..='\u{202e}'
                | '\u{2060}'..='\u{2069}'
                | '\u{feff}'
        )
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        // Writing to a String cannot fail.
        other => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(other));
        }
    }
}

/// `text` with every control and invisible format character written out
/// (`\u{1b}`, `\n`); borrowed when there is none, which is nearly always.
pub fn escape_control(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// How many characters [`escape_control`] makes of `text`, counted in one
/// pass without making them (a table sizes its columns from every row).
pub fn escaped_len(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '\n' | '\r' | '\t' => 2,
            c if is_unsafe(c) => format!("{:x}", u32::from(c)).len() + 4,
            _ => 1,
        })
        .sum()
}

/// Where a Markdown code span goes: a table cell splits at every `|` that
/// is not escaped, even inside the span.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    Text,
    TableCell,
}

/// `text` as a Markdown code span that nothing in it can leave: control
/// characters escaped, a fence longer than any run of backticks inside,
/// and in a table cell every `|` escaped (with the backslashes before it
/// doubled, so that none of them escapes the escape). Inside a code span
/// there is no link, no HTML, no emphasis and no mention.
pub fn markdown_code(text: &str, place: Place) -> String {
    let text = escape_control(text);
    let mut body = String::with_capacity(text.len() + 2);
    let mut backslashes = 0;
    for c in text.chars() {
        match c {
            '\\' => backslashes += 1,
            '|' if place == Place::TableCell => {
                body.extend(std::iter::repeat_n('\\', backslashes * 2 + 1));
                body.push('|');
                backslashes = 0;
            }
            other => {
                body.extend(std::iter::repeat_n('\\', backslashes));
                body.push(other);
                backslashes = 0;
            }
        }
    }
    body.extend(std::iter::repeat_n('\\', backslashes));
    let longest_run = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest_run + 1);
    // A space on both sides is taken off again; it keeps a backtick at
    // either end from joining the fence, and an empty text a code span.
    if body.is_empty() || body.starts_with('`') || body.ends_with('`') {
        format!("{fence} {body} {fence}")
    } else {
        format!("{fence}{body}{fence}")
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a
/// character boundary.
pub fn cut_to_bytes(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `text` inside an HTML element of a comment (a `<summary>`): control
/// characters escaped, and `&`, `<`, `>`, `"`, `'` as entities.
pub fn html_text(text: &str) -> String {
    let text = escape_control(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // GitHub's mentions and references read text, even in HTML.
            '@' => out.push_str("&#64;"),
            '#' => out.push_str("&#35;"),
            other => out.push(other),
        }
    }
    out
}

/// Serialized JSON with every character of [`escape_control`]'s that JSON
/// may carry raw (DEL, C1, the invisible format characters) written as a
/// `\u` escape: the same document, and nothing a terminal interprets.
/// (The serializer already escapes C0.)
pub fn escape_json_text(json: &str) -> Cow<'_, str> {
    // C0 left raw is the document's own line breaks.
    let raw = |c: char| c >= '\u{7f}' && is_unsafe(c);
    if !json.chars().any(raw) {
        return Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if raw(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// How a secret-looking key ends, once lower-cased and without anything
/// but letters and digits (`api_key`, `apiKey`, `API-KEY` are all
/// `apikey`). A bare `key` is not one of them (`monkey`, a toleration's
/// `key`, `topologyKey`): only keys of the kinds that are secrets.
/// The book's limits page lists the same words.
pub const SECRET_KEY_ENDINGS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "secrets",
    "token",
    "tokens",
    "credential",
    "credentials",
    "apikey",
    "apikeys",
    "privatekey",
    "accesskey",
    "secretkey",
    "tlskey",
    "sslkey",
    "cakey",
    "clientkey",
    "signingkey",
    "encryptionkey",
    "masterkey",
    "sshkey",
    "licensekey",
    "authkey",
    "sessionkey",
    "hmackey",
    "dockerconfigjson",
    "dockercfg",
    "kubeconfig",
    "connectionstring",
];

fn folded(key: &str) -> String {
    key.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether a value under `key` is masked: its folded name ends with one
/// of [`SECRET_KEY_ENDINGS`].
pub fn is_secret_key(key: &str) -> bool {
    let key = folded(key);
    SECRET_KEY_ENDINGS.iter().any(|end| key.ends_with(end))
}

/// Whether the entry `key` of a map under `parent` is masked: a secret
/// key, or a bare `key` whose parent makes it one (`tls: {key: …}`).
fn is_secret_entry(parent: Option<&str>, key: &str) -> bool {
    is_secret_key(key)
        || (folded(key) == "key" && parent.is_some_and(|p| is_secret_key(&format!("{p}key"))))
}

/// `value` with every entry under a secret key, at any depth, as [`MASK`].
pub fn mask_value(value: &Value) -> Value {
    mask_pair(None, None, value)
}

/// `new` masked, each masked entry compared with the same place of `old`:
/// [`MASK`] without an `old` to compare with, [`MASK_UNCHANGED`] when the
/// same, [`MASK_CHANGED`] when not.
fn mask_pair(parent: Option<&str>, old: Option<&Value>, new: &Value) -> Value {
    match new {
        Value::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (key, v) in map {
                let before = old.and_then(|o| o.get(key));
                let masked = if is_secret_entry(parent, key) {
                    Value::String(mark(old.map(|_| before), v).to_string())
                } else {
                    mask_pair(Some(key), before, v)
                };
                out.insert(key.clone(), masked);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| mask_pair(parent, old.and_then(|o| o.get(i)), v))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The mask for `new`, given what was at its place before: `None` when
/// there is nothing to compare with.
fn mark(before: Option<Option<&Value>>, new: &Value) -> &'static str {
    match before {
        None => MASK,
        Some(old) if old == Some(new) => MASK_UNCHANGED,
        Some(_) => MASK_CHANGED,
    }
}

/// A values path's keys: `a.b\.c` is `a`, `b.c` (as [`Change`]'s paths
/// escape them).
fn path_keys(path: &str) -> Vec<String> {
    let mut keys = vec![String::new()];
    let mut chars = path.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => keys.last_mut().into_iter().for_each(|k| {
                k.extend(chars.next());
            }),
            '.' => keys.push(String::new()),
            other => keys.last_mut().into_iter().for_each(|k| k.push(other)),
        }
    }
    keys
}

/// Whether a dotted values path (`auth.password`, `certs.tls\.key`,
/// `users[0].apiKey`) has a secret-looking key anywhere in it: what is
/// under it is masked.
pub fn is_secret_path(path: &str) -> bool {
    let keys = path_keys(path);
    keys.iter().enumerate().any(|(i, key)| {
        let parent = i.checked_sub(1).map(|p| keys[p].as_str());
        !key.is_empty() && is_secret_entry(parent, key)
    })
}

/// `change` with its values masked: wholly when a key of its path is
/// secret-looking (the new one then says that it changed), else every
/// secret entry inside them. The path stays: a reader sees what changed,
/// not to what.
pub fn mask_change(change: &Change) -> Change {
    let keys = path_keys(&change.path);
    if is_secret_path(&change.path) {
        let changed = change.old.is_some() && change.new.is_some();
        return Change {
            path: change.path.clone(),
            old: change.old.as_ref().map(|_| Value::String(MASK.into())),
            new: change
                .new
                .as_ref()
                .map(|_| Value::String(if changed { MASK_CHANGED } else { MASK }.into())),
        };
    }
    let parent = keys.last().map(String::as_str).filter(|k| !k.is_empty());
    Change {
        path: change.path.clone(),
        old: change.old.as_ref().map(|o| mask_pair(parent, None, o)),
        new: change
            .new
            .as_ref()
            .map(|n| mask_pair(parent, change.old.as_ref(), n)),
    }
}

#[cfg(test)]
mod tests;
