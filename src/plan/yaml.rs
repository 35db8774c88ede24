//! Bounded YAML parsing for text that comes from outside: `values` strings
//! typed by users, and `Chart.yaml` / `values.yaml` read from chart archives.
//!
//! YAML aliases let a few kilobytes stand for billions of nodes (an anchor
//! of 10,000 items referenced 10,000 times is 50 KB of text and 100 million
//! nodes). serde_yaml replays every alias as events into the visitor that
//! builds the value, so the visitor here counts as it builds and stops as
//! soon as a limit is passed, long before memory runs out:
//!
//! - **bytes**: the size of the text, checked before anything is parsed;
//! - **nodes**: scalars, lists and maps, counted after expanding aliases;
//! - **depth**: how deeply lists and maps nest;
//! - **text**: bytes of keys, strings and tags after expanding aliases (an
//!   alias of one long string repeated many times has few nodes but a lot
//!   of text).
//!
//! serde_yaml's own limit on alias repetitions (100 jumps per event of the
//! document) can trip first on a small document with nested aliases; it is
//! reported as a limit too ([`LimitError::Aliases`]).
//!
//! Pure: no I/O, no logging.

use std::cell::Cell;
use std::fmt;

use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde_yaml::mapping::Entry;
use serde_yaml::value::{Tag, TaggedValue};
use serde_yaml::{Mapping, Value};

/// The limit this module's reading enforces on every `values` text (see
/// [`crate::api::MAX_VALUES_BYTES`], where the CRDs take it from).
pub use crate::api::MAX_VALUES_BYTES;

/// How much YAML one parse may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of input text.
    pub bytes: usize,
    /// Nodes (scalars, lists, maps, tags) after expanding aliases.
    pub nodes: usize,
    /// Nesting of lists and maps; the top-level map is at depth 1.
    pub depth: usize,
    /// Bytes of keys, strings and tags after expanding aliases.
    pub text: usize,
}

impl Limits {
    /// For `values` strings in ServiceTemplates, ClusterTemplates and
    /// ManagedClusters, in the engine and in the console.
    ///
    /// - 128 KiB of text: real overrides are a few kilobytes, and what is
    ///   accepted ends up inline in the cluster's release.
    /// - 100,000 nodes: every node takes at least a character and a
    ///   separator, and keys must differ, so a text of 128 KiB without
    ///   aliases stays below that; the limit bites on alias expansion.
    /// - Depth 64: values nest a handful of levels; serde_yaml itself stops
    ///   at 128.
    /// - 1 MiB of keys and strings after expansion: eight times what a text
    ///   without aliases can hold, and about what the API server accepts in
    ///   one object, so nothing larger could be applied anyway.
    pub const VALUES: Limits = Limits {
        bytes: MAX_VALUES_BYTES,
        nodes: 100_000,
        depth: 64,
        text: 1024 * 1024,
    };

    /// For `Chart.yaml` and `values.yaml` read from chart archives. Real
    /// charts ship larger defaults than anyone types (kube-prometheus-stack
    /// about 200 KB, ingress-nginx about 45 KB, both far below 200,000
    /// nodes), so the bounds are larger; the depth is the same.
    pub const CHART: Limits = Limits {
        bytes: 1024 * 1024,
        nodes: 200_000,
        depth: 64,
        text: 8 * 1024 * 1024,
    };
}

/// A limit that a text passed. The messages say what to change; callers
/// prefix them with whose text it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("{} bytes, more than the limit of {}", group(*size), group(*limit))]
    Bytes { size: usize, limit: usize },
    #[error("more than {} nodes after expanding aliases", group(*limit))]
    Nodes { limit: usize },
    #[error("nested more than {limit} levels deep")]
    Depth { limit: usize },
    #[error(
        "more than {} bytes of keys and strings after expanding aliases",
        group(*limit)
    )]
    Text { limit: usize },
    /// serde_yaml's own bound: alias jumps may not exceed 100 per event.
    #[error("aliases repeated more than 100 times the size of the document")]
    Aliases,
}

/// Why a text could not be parsed.
#[derive(Debug, thiserror::Error)]
pub enum YamlError {
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// Not YAML, or not what was expected, as serde_yaml says.
    #[error(transparent)]
    Yaml(#[from] serde_yaml::Error),
}

/// `131072` → `131,072`.
pub fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Refuses a text longer than `limits.bytes`, before any parsing.
pub fn check_size(text: &str, limits: &Limits) -> Result<(), LimitError> {
    if text.len() > limits.bytes {
        return Err(LimitError::Bytes {
            size: text.len(),
            limit: limits.bytes,
        });
    }
    Ok(())
}

/// Parses one YAML document within `limits`, aliases expanded, `<<` merge
/// keys not yet applied (as `serde_yaml::from_str::<Value>` does). A key
/// written twice in one map is an error, as in serde_yaml.
pub fn parse(text: &str, limits: &Limits) -> Result<Value, YamlError> {
    parse_with(text, limits, Keys::Unique)
}

/// Deserializes `T` from one YAML document once the document is known to
/// stay within `limits`: a counting pass first, then serde_yaml's own
/// deserializer, so `T` is read exactly as `serde_yaml::from_str` reads it
/// (repeated keys included) and the second pass is bounded too.
pub fn from_str<T: DeserializeOwned>(text: &str, limits: &Limits) -> Result<T, YamlError> {
    parse_with(text, limits, Keys::Repeatable)?;
    Ok(serde_yaml::from_str(text)?)
}

fn parse_with(text: &str, limits: &Limits, keys: Keys) -> Result<Value, YamlError> {
    check_size(text, limits)?;
    let budget = Budget {
        limits: *limits,
        keys,
        nodes: Cell::new(0),
        text: Cell::new(0),
        passed: Cell::new(None),
    };
    let node = Node {
        budget: &budget,
        depth: 0,
    };
    node.deserialize(serde_yaml::Deserializer::from_str(text))
        .map_err(|err| match budget.passed.take() {
            // The visitor's error went through serde_yaml, which added a
            // position and a path; the limit itself is what matters.
            Some(limit) => YamlError::Limit(limit),
            None if is_repetition_limit(&err) => YamlError::Limit(LimitError::Aliases),
            None => YamlError::Yaml(err),
        })
}

fn is_repetition_limit(err: &serde_yaml::Error) -> bool {
    err.location().is_none() && err.to_string() == "repetition limit exceeded"
}

/// Whether a map may repeat a key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// Refused, as serde_yaml's `Mapping` does (the later key would
    /// silently win).
    Unique,
    /// Kept once (counting pass before a typed parse).
    Repeatable,
}

/// What one parse has used so far, shared by every node of it.
struct Budget {
    limits: Limits,
    keys: Keys,
    nodes: Cell<usize>,
    text: Cell<usize>,
    /// The limit that stopped the parse, if one did.
    passed: Cell<Option<LimitError>>,
}

impl Budget {
    fn fail<E: de::Error>(&self, limit: LimitError) -> E {
        let err = E::custom(&limit);
        self.passed.set(Some(limit));
        err
    }

    /// One more node, carrying `text` bytes of keys or strings.
    fn take<E: de::Error>(&self, text: usize) -> Result<(), E> {
        let nodes = self.nodes.get() + 1;
        if nodes > self.limits.nodes {
            return Err(self.fail(LimitError::Nodes {
                limit: self.limits.nodes,
            }));
        }
        self.nodes.set(nodes);
        let total = self.text.get().saturating_add(text);
        if total > self.limits.text {
            return Err(self.fail(LimitError::Text {
                limit: self.limits.text,
            }));
        }
        self.text.set(total);
        Ok(())
    }
}

/// Builds one node and everything below it; `depth` is the number of lists
/// and maps around it.
#[derive(Clone, Copy)]
struct Node<'b> {
    budget: &'b Budget,
    depth: usize,
}

impl<'b> Node<'b> {
    /// Counts a list or map and gives the seed for its items.
    fn open<E: de::Error>(self) -> Result<Node<'b>, E> {
        self.budget.take(0)?;
        let depth = self.depth + 1;
        if depth > self.budget.limits.depth {
            return Err(self.budget.fail(LimitError::Depth {
                limit: self.budget.limits.depth,
            }));
        }
        Ok(Node {
            budget: self.budget,
            depth,
        })
    }

    fn scalar<E: de::Error>(self, value: Value, text: usize) -> Result<Value, E> {
        self.budget.take(text)?;
        Ok(value)
    }
}

impl<'de> DeserializeSeed<'de> for Node<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<Value, E> {
        self.scalar(Value::Bool(b), 0)
    }

    fn visit_i64<E: de::Error>(self, i: i64) -> Result<Value, E> {
        self.scalar(Value::Number(i.into()), 0)
    }

    fn visit_u64<E: de::Error>(self, u: u64) -> Result<Value, E> {
        self.scalar(Value::Number(u.into()), 0)
    }

    fn visit_f64<E: de::Error>(self, f: f64) -> Result<Value, E> {
        self.scalar(Value::Number(f.into()), 0)
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Value, E> {
        // Counted before the copy is made.
        self.budget.take(s.len())?;
        Ok(Value::String(s.to_owned()))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Value, E> {
        let len = s.len();
        self.scalar(Value::String(s), len)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null, 0)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.scalar(Value::Null, 0)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let item = self.open()?;
        // No capacity from the size hint: it is the document's word.
        let mut items = Vec::new();
        while let Some(value) = seq.next_element_seed(item)? {
            items.push(value);
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let item = self.open()?;
        let mut out = Mapping::new();
        while let Some(key) = map.next_key_seed(item)? {
            match out.entry(key) {
                Entry::Occupied(entry) if self.budget.keys == Keys::Unique => {
                    return Err(de::Error::custom(duplicate_key(entry.key())));
                }
                Entry::Occupied(_) => {
                    map.next_value_seed(item)?;
                }
                Entry::Vacant(entry) => {
                    entry.insert(map.next_value_seed(item)?);
                }
            }
        }
        Ok(Value::Mapping(out))
    }

    /// A tagged node (`!foo x`): serde_yaml hands it over as an enum whose
    /// variant is the tag.
    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<Value, A::Error> {
        let (tag, contents) = data.variant_seed(TagSeed(self.budget))?;
        let value = contents.newtype_variant_seed(self)?;
        Ok(Value::Tagged(Box::new(TaggedValue { tag, value })))
    }
}

/// The same words as serde_yaml's `Mapping` uses for a repeated key.
fn duplicate_key(key: &Value) -> String {
    match key {
        Value::Null => "duplicate entry with null key".into(),
        Value::Bool(b) => format!("duplicate entry with key `{b}`"),
        Value::Number(n) => format!("duplicate entry with key {n}"),
        Value::String(s) => format!("duplicate entry with key {s:?}"),
        Value::Sequence(_) | Value::Mapping(_) | Value::Tagged(_) => {
            "duplicate entry in YAML map".into()
        }
    }
}

/// Reads a tag, counted as a node with its text.
struct TagSeed<'b>(&'b Budget);

impl<'de> DeserializeSeed<'de> for TagSeed<'_> {
    type Value = Tag;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Tag, D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl<'de> Visitor<'de> for TagSeed<'_> {
    type Value = Tag;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a YAML tag")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Tag, E> {
        if s.is_empty() {
            return Err(E::custom("empty YAML tag is not allowed"));
        }
        self.0.take(s.len())?;
        Ok(Tag::new(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SMALL: Limits = Limits {
        bytes: 1000,
        nodes: 20,
        depth: 3,
        text: 50,
    };

    /// `anchor` items, then `refs` aliases of them: the usual bomb.
    pub(crate) fn alias_bomb(anchor: usize, refs: usize) -> String {
        let items = vec!["x"; anchor].join(",");
        let aliases = vec!["*a"; refs].join(",");
        format!("a: &a [{items}]\nb: [{aliases}]\n")
    }

    fn limit(text: &str, limits: &Limits) -> Option<LimitError> {
        match parse(text, limits) {
            Err(YamlError::Limit(l)) => Some(l),
            _ => None,
        }
    }

    #[test]
    fn group_puts_commas_between_thousands() {
        for (n, want) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (131_072, "131,072"),
            (1_048_576, "1,048,576"),
            (100_000_000, "100,000,000"),
        ] {
            assert_eq!(group(n), want);
        }
    }

    #[test]
    fn each_limit_has_its_message() {
        let big = "a: 1\n".repeat(201);
        assert_eq!(
            limit(&big, &SMALL),
            Some(LimitError::Bytes {
                size: 1005,
                limit: 1000
            })
        );
        assert_eq!(
            limit(&big, &SMALL).unwrap().to_string(),
            "1,005 bytes, more than the limit of 1,000"
        );

        let nodes = limit(&alias_bomb(5, 5), &SMALL).unwrap();
        assert_eq!(nodes, LimitError::Nodes { limit: 20 });
        assert_eq!(
            nodes.to_string(),
            "more than 20 nodes after expanding aliases"
        );

        let deep = limit("a: {b: {c: [1]}}\n", &SMALL).unwrap();
        assert_eq!(deep, LimitError::Depth { limit: 3 });
        assert_eq!(deep.to_string(), "nested more than 3 levels deep");

        let long = format!("a: &s {}\nb: [*s, *s]\n", "x".repeat(20));
        let text = limit(&long, &SMALL).unwrap();
        assert_eq!(text, LimitError::Text { limit: 50 });
        assert_eq!(
            text.to_string(),
            "more than 50 bytes of keys and strings after expanding aliases"
        );
    }

    #[test]
    fn just_within_the_limits_parses() {
        // Exactly 3 levels, exactly 20 nodes, exactly 50 bytes of text.
        assert!(parse("a: {b: [1]}\n", &SMALL).is_ok());
        // Map 1, key a 1, list 1, 4 items: 7; key b 1, list 1, two copies
        // of 5 and one item: 13. Twenty in all.
        let bomb = "a: &a [x, x, x, x]\nb: [*a, *a, 1]\n";
        assert!(parse(bomb, &SMALL).is_ok(), "{:?}", parse(bomb, &SMALL));
        let bomb = "a: &a [x, x, x, x]\nb: [*a, *a, 1, 2]\n";
        assert_eq!(limit(bomb, &SMALL), Some(LimitError::Nodes { limit: 20 }));
        let text = format!("{}: {}\n", "k".repeat(25), "v".repeat(25));
        assert!(parse(&text, &SMALL).is_ok());
        let text = format!("{}: {}\n", "k".repeat(25), "v".repeat(26));
        assert_eq!(limit(&text, &SMALL), Some(LimitError::Text { limit: 50 }));
    }

    #[test]
    fn nested_aliases_stop_at_serde_yaml_repetition_limit() {
        // Each level repeats the one below ten times: few events, many jumps.
        let mut text = String::from("l0: &l0 [x, x]\n");
        for i in 1..8 {
            let refs = vec![format!("*l{}", i - 1); 10].join(", ");
            text.push_str(&format!("l{i}: &l{i} [{refs}]\n"));
        }
        assert!(text.len() < 1000);
        let err = limit(&text, &Limits::VALUES).unwrap();
        assert_eq!(err, LimitError::Aliases);
        assert_eq!(
            err.to_string(),
            "aliases repeated more than 100 times the size of the document"
        );
    }

    #[test]
    fn the_reported_bomb_is_refused_quickly() {
        let bomb = alias_bomb(10_000, 10_000);
        assert!(bomb.len() < Limits::VALUES.bytes, "{}", bomb.len());
        let start = std::time::Instant::now();
        assert_eq!(
            limit(&bomb, &Limits::VALUES),
            Some(LimitError::Nodes { limit: 100_000 })
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn tags_are_counted_and_kept() {
        let value = parse("a: !foo [1]\n", &SMALL).unwrap();
        let Value::Mapping(map) = value else {
            panic!("want a map")
        };
        let Some(Value::Tagged(tagged)) = map.get("a") else {
            panic!("want a tagged value: {map:?}")
        };
        assert_eq!(tagged.tag, Tag::new("foo"));
        let long_tag = format!("a: !{} 1\n", "t".repeat(60));
        assert_eq!(
            limit(&long_tag, &SMALL),
            Some(LimitError::Text { limit: 50 })
        );
    }

    #[test]
    fn typed_reads_keep_serde_yaml_semantics() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Meta {
            name: String,
            version: String,
        }
        let meta: Meta =
            from_str("name: x\nversion: 1.0\nannotations: {a: 1, a: 2}\n", &SMALL).unwrap();
        assert_eq!(
            meta,
            Meta {
                name: "x".into(),
                version: "1.0".into()
            }
        );
        assert!(matches!(
            from_str::<Meta>(&alias_bomb(5, 5), &SMALL),
            Err(YamlError::Limit(LimitError::Nodes { .. }))
        ));
        assert!(matches!(
            from_str::<Meta>("name: [\n", &SMALL),
            Err(YamlError::Yaml(_))
        ));
    }

    #[test]
    fn repeated_keys_are_refused_with_serde_yaml_words() {
        for (text, want) in [
            ("a: 1\na: 2\n", "duplicate entry with key \"a\""),
            ("1: a\n1: b\n", "duplicate entry with key 1"),
            ("true: a\ntrue: b\n", "duplicate entry with key `true`"),
            ("~: a\n~: b\n", "duplicate entry with null key"),
            ("[1]: a\n[1]: b\n", "duplicate entry in YAML map"),
        ] {
            let err = parse(text, &Limits::VALUES).unwrap_err().to_string();
            assert!(err.starts_with(want), "{text:?}: {err}");
        }
    }

    /// Counts nodes, depth and text of a parsed value as the budget does.
    fn measure(value: &Value, depth: usize, out: &mut (usize, usize, usize)) {
        out.0 += 1;
        match value {
            Value::String(s) => out.2 += s.len(),
            Value::Sequence(items) => {
                out.1 = out.1.max(depth + 1);
                for item in items {
                    measure(item, depth + 1, out);
                }
            }
            Value::Mapping(map) => {
                out.1 = out.1.max(depth + 1);
                for (k, v) in map {
                    measure(k, depth + 1, out);
                    measure(v, depth + 1, out);
                }
            }
            Value::Tagged(tagged) => {
                out.2 += tagged.tag.to_string().len().saturating_sub(1);
                measure(&tagged.value, depth, out);
            }
            _ => {}
        }
    }

    /// YAML made of anchors, aliases and nesting, to explore the limits.
    fn hostile_yaml() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("x".to_string()),
            Just("*a".to_string()),
            Just("*b".to_string()),
            "[a-z]{0,12}".prop_map(|s| format!("'{s}'")),
        ];
        let node = leaf.prop_recursive(12, 200, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6)
                    .prop_map(|v| format!("[{}]", v.join(", "))),
                prop::collection::vec(inner, 0..6).prop_map(|v| {
                    let entries: Vec<String> = v
                        .iter()
                        .enumerate()
                        .map(|(i, x)| format!("k{i}: {x}"))
                        .collect();
                    format!("{{{}}}", entries.join(", "))
                }),
            ]
        });
        (node.clone(), node.clone(), node, 0..40usize).prop_map(|(a, b, c, deep)| {
            format!(
                "a: &a {a}\nb: &b [*a, *a, *a, {b}]\nc: {c}\nd: {}1{}\n",
                "[".repeat(deep),
                "]".repeat(deep)
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn prop_arbitrary_text_never_panics(text in any::<String>()) {
            let _ = parse(&text, &SMALL);
            let _ = parse(&text, &Limits::VALUES);
        }

        #[test]
        fn prop_results_stay_within_limits(
            text in hostile_yaml(),
            nodes in 1..400usize,
            depth in 1..20usize,
            text_limit in 1..400usize,
        ) {
            let limits = Limits { bytes: 100_000, nodes, depth, text: text_limit };
            if let Ok(value) = parse(&text, &limits) {
                let mut seen = (0, 0, 0);
                measure(&value, 0, &mut seen);
                prop_assert!(seen.0 <= limits.nodes, "{seen:?} {text}");
                prop_assert!(seen.1 <= limits.depth, "{seen:?} {text}");
                prop_assert!(seen.2 <= limits.text, "{seen:?} {text}");
            }
        }
    }
}
