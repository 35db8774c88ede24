//! `fromYaml` as Sveltos runs it: `sigs.k8s.io/yaml` reads the text with
//! go-yaml v2 (YAML 1.1: an unquoted `yes`, `on`, `y` is a bool, `017` is
//! octal, `1_000` is a thousand), turns it into JSON (keys made strings,
//! NaN and the infinities refused) and decodes that (every number a
//! float64).
//!
//! serde_yaml parses, but resolves YAML 1.2 and does not tell a visitor
//! whether a scalar was quoted. What it does tell: a plain scalar it
//! resolved to something other than a string comes as that value (and
//! go-yaml's YAML 1.1 resolves every such text to the same value); any
//! other scalar comes as text, borrowed from the input when it is the
//! input's bytes. Whether the borrowed text sits between quotes in the
//! input says whether it was quoted; a plain one is then resolved as
//! go-yaml does. Owned text is quoted with escapes, a block scalar, or a
//! plain scalar folded over lines, which go-yaml resolves to a string
//! anyway (a space or line break in it makes it no number or bool).

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess};
use serde::de::{VariantAccess, Visitor};

use super::super::super::value::{Value, go_float, go_float32};
use super::super::sprig::{Map, parse_go_magnitude};
use super::MAX_NESTING;
use super::resolve::{Plain, resolve};

/// A YAML document as `sigs.k8s.io/yaml` reads it. `Err` is Go's message.
pub(super) fn yaml(text: &str) -> Result<Value, String> {
    let failure = RefCell::new(None);
    let node = Node {
        text,
        depth: 0,
        failure: &failure,
    };
    let read = node.deserialize(serde_yaml::Deserializer::from_str(text));
    if let Some(why) = failure.into_inner() {
        return Err(why);
    }
    read.map_err(|e| {
        let message = e.to_string();
        let problem = message
            .split(" at line ")
            .next()
            .unwrap_or(&message)
            .to_string();
        match e.location() {
            Some(at) => format!(
                "error converting YAML to JSON: yaml: line {}: {problem}",
                at.line()
            ),
            None => format!("error converting YAML to JSON: yaml: {problem}"),
        }
    })
}

/// One node of the document, `depth` deep. What go-yaml, the conversion
/// to JSON or the bounds refuse goes to `failure` with Go's words, so
/// serde_yaml's wording and position do not replace them.
#[derive(Clone, Copy)]
struct Node<'t, 'f> {
    text: &'t str,
    depth: usize,
    failure: &'f RefCell<Option<String>>,
}

impl Node<'_, '_> {
    fn fail<E: de::Error>(&self, why: String) -> E {
        let mut slot = self.failure.borrow_mut();
        if slot.is_none() {
            *slot = Some(why);
        }
        E::custom("refused")
    }

    fn deeper<E: de::Error>(self) -> Result<Self, E> {
        if self.depth >= MAX_NESTING {
            return Err(self.fail(format!("YAML nested deeper than {MAX_NESTING}")));
        }
        Ok(Node {
            depth: self.depth + 1,
            ..self
        })
    }

    fn float<E: de::Error>(&self, f: f64) -> Result<Value, E> {
        if f.is_finite() {
            Ok(Value::Float(f))
        } else {
            Err(self.fail(format!(
                "error converting YAML to JSON: json: unsupported value: {}",
                go_float(f)
            )))
        }
    }

    /// A scalar serde_yaml gave as text `s`: plain ones resolved as
    /// go-yaml v2 resolves them.
    fn text<E: de::Error>(&self, s: &str, borrowed: bool) -> Result<Value, E> {
        if !borrowed || !self.is_plain(s) {
            return Ok(Value::String(s.to_string()));
        }
        match resolve(s) {
            Plain::Null => Ok(Value::Nil),
            Plain::Bool(b) => Ok(Value::Bool(b)),
            Plain::Int(f) | Plain::Float(f) => self.float(f),
            Plain::Timestamp | Plain::String => Ok(Value::String(s.to_string())),
        }
    }

    /// Whether `s`, a slice of the input, is written there unquoted and
    /// untagged (`!!str 12` is the string "12").
    fn is_plain(&self, s: &str) -> bool {
        let start = (s.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        // Text not from the input (serde_yaml always lends the input's)
        // is taken as quoted, a string.
        let Some(head) = self.text.get(..start) else {
            return false;
        };
        if self.text.get(start..start.saturating_add(s.len())) != Some(s) {
            return false;
        }
        let before = head.as_bytes().last().copied();
        let after = self.text.as_bytes().get(start + s.len()).copied();
        if matches!(before, Some(b'"' | b'\'')) && before == after {
            return false;
        }
        // The properties before the scalar, on its line: anchors and tags.
        let mut head = head.trim_end_matches([' ', '\t']);
        loop {
            let token_start = head.rfind([' ', '\t', '\n', '\r']).map_or(0, |i| i + 1);
            let token = &head[token_start..];
            if token.starts_with('!') {
                return false;
            }
            if !token.starts_with('&') {
                return true;
            }
            head = head[..token_start].trim_end_matches([' ', '\t']);
        }
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML node")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Nil)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Float(i as f64))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        Ok(Value::Float(u as f64))
    }

    // Past 64 bits go-yaml reads a decimal as a float of the same value.
    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Value, E> {
        Ok(Value::Float(i as f64))
    }

    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Value, E> {
        Ok(Value::Float(u as f64))
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        self.float(f)
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Value, E> {
        self.text(s, true)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        self.text(s, false)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let inner = self.deeper()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(inner)? {
            items.push(item);
        }
        Ok(Value::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let inner = self.deeper()?;
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(Key(inner))? {
            let value = map.next_value_seed(inner)?;
            match key {
                // A later key replaces an earlier one, as go-yaml's
                // non-strict decoding does.
                Some(key) => {
                    out.insert(key, value);
                }
                None => self.merge(&mut out, value)?,
            }
        }
        Ok(Value::Map(out))
    }

    /// A node with a tag serde_yaml does not know (`!thing x`): go-yaml
    /// reads the node as if it had none.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (_tag, variant) = data.variant::<de::IgnoredAny>()?;
        variant.newtype_variant_seed(self)
    }
}

impl Node<'_, '_> {
    /// `<<: *base` or `<<: [*a, *b]`: the maps' entries go into `out`,
    /// replacing what is there (go-yaml v2 merges as it meets the key);
    /// of a list of maps, the first wins.
    fn merge<E: de::Error>(&self, out: &mut Map, value: Value) -> Result<(), E> {
        let refuse = || {
            self.fail("error converting YAML to JSON: yaml: map merge requires map or sequence of maps as the value".into())
        };
        match value {
            Value::Map(m) => out.extend(m),
            Value::List(items) => {
                for item in items.into_iter().rev() {
                    match item {
                        Value::Map(m) => out.extend(m),
                        _ => return Err(refuse()),
                    }
                }
            }
            _ => return Err(refuse()),
        }
        Ok(())
    }
}

/// A mapping key, as the conversion to JSON makes it a string; `None`
/// for the merge key `<<`.
struct Key<'t, 'f>(Node<'t, 'f>);

impl<'de> DeserializeSeed<'de> for Key<'_, '_> {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_any(self)
    }
}

impl Key<'_, '_> {
    fn unsupported<E: de::Error>(&self, of_type: &str) -> E {
        self.0.fail(format!(
            "error converting YAML to JSON: unsupported map key of type: {of_type}"
        ))
    }

    fn float<E: de::Error>(&self, f: f64) -> Result<Option<String>, E> {
        let text = match go_float32(f).as_str() {
            "+Inf" => ".inf".to_string(),
            "-Inf" => "-.inf".to_string(),
            "NaN" => ".nan".to_string(),
            other => other.to_string(),
        };
        Ok(Some(text))
    }

    fn text<E: de::Error>(&self, s: &str, borrowed: bool) -> Result<Option<String>, E> {
        if !borrowed || !self.0.is_plain(s) {
            return Ok(Some(s.to_string()));
        }
        if s == "<<" {
            return Ok(None);
        }
        match resolve(s) {
            Plain::Null => Err(self.unsupported("%!s(<nil>)")),
            Plain::Bool(b) => Ok(Some(b.to_string())),
            Plain::Int(f) => {
                // An integer key is Go's int, spelled exactly: from the
                // text, not the float. One past int64 is a uint64, which
                // the conversion refuses.
                let plain = s.replace('_', "");
                match parse_go_magnitude(&plain) {
                    Some((true, m)) if m > 0 && m <= i64::MAX as u64 + 1 => {
                        Ok(Some(format!("-{m}")))
                    }
                    Some((_, m)) if m <= i64::MAX as u64 => Ok(Some(m.to_string())),
                    Some(_) => Err(self.unsupported("uint64")),
                    None => Ok(Some(go_float(f))),
                }
            }
            Plain::Float(f) => self.float(f),
            Plain::Timestamp | Plain::String => Ok(Some(s.to_string())),
        }
    }
}

impl<'de> Visitor<'de> for Key<'_, '_> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML mapping key")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<String>, E> {
        Err(self.unsupported("%!s(<nil>)"))
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<String>, E> {
        Err(self.unsupported("%!s(<nil>)"))
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Option<String>, E> {
        Ok(Some(b.to_string()))
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Option<String>, E> {
        Ok(Some(i.to_string()))
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Option<String>, E> {
        if u > i64::MAX as u64 {
            return Err(self.unsupported("uint64"));
        }
        Ok(Some(u.to_string()))
    }

    fn visit_i128<E: de::Error>(self, i: i128) -> Result<Option<String>, E> {
        self.float(i as f64)
    }

    fn visit_u128<E: de::Error>(self, u: u128) -> Result<Option<String>, E> {
        self.float(u as f64)
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Option<String>, E> {
        self.float(f)
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Option<String>, E> {
        self.text(s, true)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<String>, E> {
        self.text(s, false)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Option<String>, A::Error> {
        Err(self
            .0
            .fail("error converting YAML to JSON: yaml: invalid map key: []interface {}".into()))
    }

    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Option<String>, A::Error> {
        Err(self.0.fail(
            "error converting YAML to JSON: yaml: invalid map key: map[interface {}]interface {}"
                .into(),
        ))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Option<String>, A::Error> {
        let (_tag, variant) = data.variant::<de::IgnoredAny>()?;
        variant.newtype_variant_seed(self)
    }
}
