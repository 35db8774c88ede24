//! A release's inline values, held as compact JSON text.
//!
//! The engine writes a release's values whole and compares them whole; it
//! never reads into them. Held as `serde_json::Value`, every map of them is
//! a tree of its own allocations: the small values of the benchmark's
//! releases took about 1.3 KiB each, an upstream chart's overrides many
//! times that, and the store holds every release of the fleet. As text they
//! take their length. On the wire they are the same JSON object as before.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Inline values: JSON text of one value (an object, for Helm), with keys
/// in the order `serde_json` writes a `Value`'s map (sorted), so equal
/// values are equal text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InlineValues(Box<str>);

impl InlineValues {
    pub fn new(value: &Value) -> Self {
        Self(value.to_string().into_boxed_str())
    }

    /// The values as a `Value` again (parsed from text this type wrote).
    pub fn to_value(&self) -> Value {
        // The text was written from a `Value`, so it parses; `Null` is
        // what an unparsable text would mean to Helm: no values.
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// The length of the text, in bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<Value> for InlineValues {
    fn from(value: Value) -> Self {
        Self::new(&value)
    }
}

impl Serialize for InlineValues {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for InlineValues {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(|v| Self::new(&v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn values_go_out_as_the_object_they_came_in_as() {
        let v = json!({"controller": {"replicaCount": 2, "podAnnotations": {"a": "b"}}, "x": [1, "2", null]});
        let held: InlineValues = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&held).unwrap(), v);
        assert_eq!(held.to_value(), v);
        // YAML, as the console shows objects, sees the object too.
        let yaml = serde_yaml::to_string(&held).unwrap();
        assert_eq!(serde_yaml::from_str::<Value>(&yaml).unwrap(), v);
    }

    #[test]
    fn equal_values_are_equal_whatever_the_order_of_their_keys() {
        let a: InlineValues = serde_json::from_str(r#"{"b": 1, "a": {"y": 2, "x": 3}}"#).unwrap();
        let b: InlineValues = serde_json::from_str(r#"{"a": {"x": 3, "y": 2}, "b": 1}"#).unwrap();
        assert_eq!(a, b);
        let c: InlineValues = serde_json::from_str(r#"{"a": {"x": 3, "y": 2}, "b": 2}"#).unwrap();
        assert_ne!(a, c);
    }

    #[test]
    fn text_is_smaller_than_the_tree() {
        let v = json!({"bench": {"service": "svc-1", "revision": 2}});
        let held = InlineValues::new(&v);
        assert_eq!(
            held.len(),
            r#"{"bench":{"revision":2,"service":"svc-1"}}"#.len()
        );
    }
}
