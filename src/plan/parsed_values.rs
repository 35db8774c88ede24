//! Values texts read once while they are borrowed, and those that are
//! templates rendered for each cluster that reads them.

use std::collections::HashMap;

use serde_json::Value;

use crate::plan::template::{self, Template, TemplateError};
use crate::plan::values::{self, ValuesError};
use crate::plan::values_data::{Parts, ValuesData};

/// Values texts, each parsed once while they are borrowed: planning many
/// clusters reads the same templates' values again and again. Holds what
/// [`parse_values`](values::parse_values) gives for each text, error
/// included, by the text's place in memory (so that a lookup does not
/// compare texts): the same text borrowed twice, from one object, is
/// parsed once.
///
/// A text that is a template ([`template::is_template`]) is parsed as one
/// once, and rendered for each cluster that reads it: what it renders to is
/// that cluster's alone and is not kept here.
#[derive(Debug, Default)]
pub struct ParsedValues<'t> {
    parsed: HashMap<Text<'t>, Result<Value, values::ValuesError>>,
    templates: HashMap<Text<'t>, Result<Template, TemplateError>>,
}

/// A borrowed text, equal only to itself (its address and length): while
/// it is borrowed it cannot change, so equal keys hold equal texts.
#[derive(Clone, Copy, Debug)]
struct Text<'t>(&'t str);

impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Eq for Text<'_> {}

impl std::hash::Hash for Text<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.as_ptr().hash(state);
        self.0.len().hash(state);
    }
}

impl<'t> ParsedValues<'t> {
    /// `text` parsed, from memory when it was parsed before.
    pub fn parse(&mut self, text: &'t str) -> &Result<Value, values::ValuesError> {
        self.parsed
            .entry(Text(text))
            .or_insert_with(|| values::parse_values(text))
    }

    /// Lets `texts` go: a text no later plan reads need not be kept.
    pub fn forget(&mut self, texts: impl IntoIterator<Item = &'t str>) {
        for text in texts {
            self.parsed.remove(&Text(text));
            self.templates.remove(&Text(text));
        }
    }

    /// `text` as [`parse`](Self::parse) left it.
    pub fn get(&self, text: &'t str) -> Option<&Value> {
        self.parsed.get(&Text(text)).and_then(|v| v.as_ref().ok())
    }

    /// `text` as values for the cluster `data` describes: parsed, or, when
    /// it is a template, rendered over the cluster's data and then parsed.
    pub fn layer(&mut self, text: &'t str, data: &ValuesData) -> Result<Layer<'t>, LayerError> {
        if !template::is_template(text) {
            return match self.parse(text) {
                Ok(_) => Ok(Layer::Text(text)),
                Err(e) => Err(LayerError::Values(e.clone())),
            };
        }
        let parsed = self
            .templates
            .entry(Text(text))
            .or_insert_with(|| Template::parse(text));
        let template = parsed
            .as_ref()
            .map_err(|e| LayerError::Template(e.clone()))?;
        let root = data.root_for(Parts::read_by(template));
        let rendered = template
            .render(&root, template::Limits::default())
            .map_err(LayerError::Template)?;
        values::parse_values(&rendered)
            .map(Layer::Rendered)
            .map_err(LayerError::Rendered)
    }

    /// The values of `layer`, as [`layer`](Self::layer) gave it.
    pub fn value<'s>(&'s self, layer: &'s Layer<'t>) -> Option<&'s Value> {
        match layer {
            Layer::Text(text) => self.get(text),
            Layer::Rendered(value) => Some(value),
        }
    }
}

/// One layer of a cluster's values: a text parsed (kept in
/// [`ParsedValues`]), or what a template rendered to for this cluster.
#[derive(Debug)]
pub enum Layer<'t> {
    Text(&'t str),
    Rendered(Value),
}

/// Why a layer gives no values for a cluster.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayerError {
    /// The text is not valid values.
    #[error(transparent)]
    Values(ValuesError),
    /// The text is not a template, or it failed on this cluster's data.
    #[error(transparent)]
    Template(TemplateError),
    /// The template rendered, to text that is not valid values.
    #[error("as rendered for this cluster, {0}")]
    Rendered(ValuesError),
}

impl LayerError {
    /// True when the text is refused for its size rather than its content.
    pub fn is_limit(&self) -> bool {
        match self {
            LayerError::Values(e) | LayerError::Rendered(e) => e.is_limit(),
            LayerError::Template(_) => false,
        }
    }
}

#[cfg(test)]
mod tests;
