//! What a lookup that failed for a missing key was looking for, read back
//! from the tree: the path from the data's root to the map that lacks the
//! key. The run reports only the key (Go's `map has no entry for key "x"`);
//! the path lets a message say "label region is not set on Cluster dev-3".

use super::parse::{Arg, Node, Parsed, Pipeline};

/// A key missing from the map at `path` (from the data's root).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingKey {
    pub path: Vec<String>,
    pub key: String,
}

/// The key missing at `offset`, when `message` says one is and the lookup
/// there starts at the root: `.a.b` where the cursor is still the root
/// (outside `with`, `range` and `define`), or `$.a.b` anywhere outside a
/// `define`.
pub fn missing_key(parsed: &Parsed, offset: usize, message: &str) -> Option<MissingKey> {
    let quoted = message.strip_prefix("map has no entry for key ")?;
    let fields = find(&parsed.main, offset, true)?;
    let at = fields
        .iter()
        .position(|f| format!("{f:?}") == quoted || *f == quoted)?;
    // Names as long as a whole message are said by the bounded message
    // instead: the explained one would carry them whole.
    let named: usize = fields[..=at].iter().map(String::len).sum();
    if named > super::MAX_MESSAGE / 2 {
        return None;
    }
    Some(MissingKey {
        path: fields[..at].to_vec(),
        key: fields[at].clone(),
    })
}

/// The root-relative fields of the lookup that starts at `offset`.
fn find(nodes: &[Node], offset: usize, dot_is_root: bool) -> Option<&[String]> {
    nodes.iter().find_map(|node| match node {
        Node::Action(p) => in_pipeline(p, offset, dot_is_root),
        Node::If(b) => in_pipeline(&b.pipeline, offset, dot_is_root)
            .or_else(|| find(&b.then, offset, dot_is_root))
            .or_else(|| find(&b.otherwise, offset, dot_is_root)),
        // The cursor moves inside the body, not in the pipeline or `else`.
        Node::With(b) | Node::Range(b) => in_pipeline(&b.pipeline, offset, dot_is_root)
            .or_else(|| find(&b.then, offset, false))
            .or_else(|| find(&b.otherwise, offset, dot_is_root)),
        Node::Template {
            pipeline: Some(p), ..
        } => in_pipeline(p, offset, dot_is_root),
        Node::Text(_) | Node::Break(_) | Node::Continue(_) | Node::Template { .. } => None,
    })
}

fn in_pipeline(p: &Pipeline, offset: usize, dot_is_root: bool) -> Option<&[String]> {
    p.commands
        .iter()
        .flat_map(|c| &c.args)
        .find_map(|arg| match arg {
            Arg::Field(fields, at) if dot_is_root && spans(*at, "", fields, offset) => {
                Some(fields.as_slice())
            }
            Arg::Variable(name, fields, at) if name == "$" && spans(*at, name, fields, offset) => {
                Some(fields.as_slice())
            }
            Arg::Chain(inner, _, _) => in_pipeline(inner, offset, dot_is_root),
            _ => None,
        })
}

/// Whether the lookup `name.f1.f2…` written at `at` covers byte `offset`:
/// the run reports a chain's failure where Go does, at its second name.
fn spans(at: usize, name: &str, fields: &[String], offset: usize) -> bool {
    let len = name.len() + fields.iter().map(|f| f.len() + 1).sum::<usize>();
    (at..at + len).contains(&offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::template::parse::parse;

    fn missing(text: &str, at: &str) -> Option<MissingKey> {
        let parsed = parse(text).unwrap();
        let offset = text.find(at).unwrap() + 2;
        missing_key(&parsed, offset, "map has no entry for key \"region\"")
    }

    #[test]
    fn a_lookup_from_the_root_names_its_path() {
        let want = Some(MissingKey {
            path: vec!["Cluster".into(), "metadata".into(), "labels".into()],
            key: "region".into(),
        });
        let text = "a: {{ .Cluster.metadata.labels.region | lower }}";
        assert_eq!(missing(text, ".Cluster"), want);
        let text = "{{ range .x }}{{ $.Cluster.metadata.labels.region }}{{ end }}";
        assert_eq!(missing(text, "$.Cluster"), want);
        let text = "{{ if true }}{{ printf \"%s\" (.Cluster.metadata.labels.region) }}{{ end }}";
        assert_eq!(missing(text, ".Cluster"), want);
    }

    #[test]
    fn a_lookup_from_a_moved_cursor_names_none() {
        let text = "{{ with .Cluster }}{{ .metadata.labels.region }}{{ end }}";
        assert_eq!(missing(text, ".metadata"), None);
        let text = "{{ $c := .Cluster }}{{ $c.metadata.labels.region }}";
        assert_eq!(missing(text, "$c.metadata"), None);
    }
}
