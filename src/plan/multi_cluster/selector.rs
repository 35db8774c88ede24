//! Kubernetes label selectors, as `metav1.LabelSelectorAsSelector` reads
//! them, with one difference taken from k0rdent: an empty selector selects
//! nothing (in Kubernetes it selects everything), so a MultiClusterService
//! whose selector was left out reaches no cluster by accident.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// Terms (`matchLabels` entries and `matchExpressions` together) a selector
/// may have: far beyond what a person writes, and it bounds the work per
/// cluster whatever is stored.
pub const MAX_TERMS: usize = 64;
/// Values all of a selector's expressions may list together.
pub const MAX_VALUES: usize = 256;

/// Why a selector cannot be used. It selects nothing, and the
/// MultiClusterService says so.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error(
        "clusterSelector has {found} terms (matchLabels and matchExpressions), more than {MAX_TERMS}"
    )]
    TooManyTerms { found: usize },
    #[error("clusterSelector.matchExpressions list {found} values, more than {MAX_VALUES}")]
    TooManyValues { found: usize },
    #[error(
        "clusterSelector.matchExpressions[{index}]: operator {operator:?} is none of In, NotIn, Exists, DoesNotExist"
    )]
    UnknownOperator { index: usize, operator: String },
    #[error(
        "clusterSelector.matchExpressions[{index}]: operator {operator} needs at least one value"
    )]
    MissingValues { index: usize, operator: String },
    #[error("clusterSelector.matchExpressions[{index}]: operator {operator} takes no values")]
    UnexpectedValues { index: usize, operator: String },
    #[error("clusterSelector.{place}: {key:?} is not a label key: {why}")]
    InvalidKey {
        place: String,
        key: String,
        why: &'static str,
    },
    #[error("clusterSelector.{place}: {value:?} is not a label value: {why}")]
    InvalidValue {
        place: String,
        value: String,
        why: &'static str,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
}

/// One requirement: a key, how it is compared, and the values.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Requirement<'a> {
    key: &'a str,
    operator: Operator,
    values: BTreeSet<&'a str>,
}

impl Requirement<'_> {
    fn holds(&self, labels: &BTreeMap<String, String>) -> bool {
        let value = labels.get(self.key).map(String::as_str);
        match self.operator {
            Operator::In => value.is_some_and(|v| self.values.contains(v)),
            Operator::NotIn => value.is_none_or(|v| !self.values.contains(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
        }
    }
}

/// A selector, checked once and then matched against many clusters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selector<'a> {
    requirements: Vec<Requirement<'a>>,
}

impl<'a> Selector<'a> {
    /// Reads `selector`, refusing what Kubernetes refuses and what is past
    /// the bounds.
    pub fn parse(selector: &'a LabelSelector) -> Result<Self, SelectorError> {
        let labels = selector.match_labels.as_ref();
        let expressions = selector.match_expressions.as_deref().unwrap_or(&[]);
        let terms = labels.map_or(0, BTreeMap::len) + expressions.len();
        if terms > MAX_TERMS {
            return Err(SelectorError::TooManyTerms { found: terms });
        }
        let values: usize = expressions
            .iter()
            .map(|e| e.values.as_ref().map_or(0, Vec::len))
            .sum();
        if values > MAX_VALUES {
            return Err(SelectorError::TooManyValues { found: values });
        }
        let mut requirements = Vec::with_capacity(terms);
        for (key, value) in labels.into_iter().flatten() {
            let place = || format!("matchLabels[{key:?}]");
            check_key(key).map_err(|why| SelectorError::InvalidKey {
                place: place(),
                key: key.clone(),
                why,
            })?;
            check_value(value).map_err(|why| SelectorError::InvalidValue {
                place: place(),
                value: value.clone(),
                why,
            })?;
            requirements.push(Requirement {
                key,
                operator: Operator::In,
                values: BTreeSet::from([value.as_str()]),
            });
        }
        for (index, e) in expressions.iter().enumerate() {
            let place = || format!("matchExpressions[{index}]");
            let operator = match e.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(SelectorError::UnknownOperator {
                        index,
                        operator: other.to_string(),
                    });
                }
            };
            check_key(&e.key).map_err(|why| SelectorError::InvalidKey {
                place: place(),
                key: e.key.clone(),
                why,
            })?;
            let values = e.values.as_deref().unwrap_or(&[]);
            match operator {
                Operator::In | Operator::NotIn if values.is_empty() => {
                    return Err(SelectorError::MissingValues {
                        index,
                        operator: e.operator.clone(),
                    });
                }
                Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
                    return Err(SelectorError::UnexpectedValues {
                        index,
                        operator: e.operator.clone(),
                    });
                }
                _ => {}
            }
            for value in values {
                check_value(value).map_err(|why| SelectorError::InvalidValue {
                    place: place(),
                    value: value.clone(),
                    why,
                })?;
            }
            requirements.push(Requirement {
                key: &e.key,
                operator,
                values: values.iter().map(String::as_str).collect(),
            });
        }
        Ok(Self { requirements })
    }

    /// True when it has no requirement, and so selects nothing.
    pub fn is_empty(&self) -> bool {
        self.requirements.is_empty()
    }

    /// Whether a cluster labelled `labels` is selected: every requirement
    /// holds, and there is at least one.
    pub fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        !self.is_empty() && self.requirements.iter().all(|r| r.holds(labels))
    }
}

/// Whether `selector` selects a cluster labelled `labels`: Kubernetes'
/// semantics, except that an empty selector selects nothing.
pub fn selects(
    selector: &LabelSelector,
    labels: &BTreeMap<String, String>,
) -> Result<bool, SelectorError> {
    Ok(Selector::parse(selector)?.matches(labels))
}

/// A qualified name as Kubernetes checks a label key: an optional DNS
/// subdomain prefix of at most 253 characters and `/`, then a name of at
/// most 63 characters.
fn check_key(key: &str) -> Result<(), &'static str> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() || prefix.len() > 253 {
            return Err("its prefix (before '/') must be a DNS subdomain of 1 to 253 characters");
        }
        let label_ok = |l: &str| {
            let b = l.as_bytes();
            let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
            !b.is_empty()
                && inner(&b[0])
                && inner(&b[b.len() - 1])
                && b.iter().all(|c| inner(c) || *c == b'-')
        };
        if !prefix.split('.').all(label_ok) {
            return Err(
                "its prefix (before '/') must be a DNS subdomain: lower-case letters, digits, '-' and '.'",
            );
        }
    }
    if name.is_empty() {
        return Err("its name is empty");
    }
    check_name(name)
}

/// A label value: empty, or a name as [`check_name`] reads it.
fn check_value(value: &str) -> Result<(), &'static str> {
    if value.is_empty() {
        return Ok(());
    }
    check_name(value)
}

/// At most 63 characters, alphanumeric at both ends, `-`, `_` and `.`
/// inside.
fn check_name(name: &str) -> Result<(), &'static str> {
    let b = name.as_bytes();
    if b.len() > 63 {
        return Err("at most 63 characters");
    }
    let inner = |c: &u8| c.is_ascii_alphanumeric();
    let ok = b.first().is_some_and(inner)
        && b.last().is_some_and(inner)
        && b.iter()
            .all(|c| inner(c) || matches!(c, b'-' | b'_' | b'.'));
    if ok {
        Ok(())
    } else {
        Err("letters, digits, '-', '_' and '.' only, starting and ending with a letter or digit")
    }
}
