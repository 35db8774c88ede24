//! Where each key of a YAML text is: line and column of every mapping key
//! and list item, by path, so that a finding about `controller.replicaCount`
//! can point at the text a person typed.
//!
//! A best effort over text that already parsed as YAML: block mappings and
//! lists by indentation, flow collections (`{a: 1, b: [x, y]}`) by their
//! brackets, comments, quoted keys and block scalars (`|`, `>`) skipped.
//! What it cannot place (multi-line plain scalars, complex keys) simply has
//! no place. Pure; linear in the text.

use std::fmt;

/// One step of a path into values.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seg {
    Key(String),
    Index(usize),
}

/// A path as people write it: `controller.service.type`, `tolerations[0]`.
pub struct PathText<'a>(pub &'a [Seg]);

impl fmt::Display for PathText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, seg) in self.0.iter().enumerate() {
            match seg {
                Seg::Key(k) if i == 0 => write!(f, "{k}")?,
                Seg::Key(k) => write!(f, ".{k}")?,
                Seg::Index(n) => write!(f, "[{n}]")?,
            }
        }
        Ok(())
    }
}

/// Where one key (or list item) is, 0-based (line, column in characters);
/// `value` is where its value starts, when on the same line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    pub key: (usize, usize),
    pub value: Option<(usize, usize)>,
}

/// Every key and list item of `text` with its path, in text order.
pub fn places(text: &str) -> Vec<(Vec<Seg>, Place)> {
    let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
    let mut out = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    // Lines indented more than this belong to a block scalar.
    let mut block_scalar: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = &lines[i];
        let indent = line.iter().take_while(|c| **c == ' ').count();
        let blank = indent >= line.len() || line[indent] == '#';
        if let Some(b) = block_scalar {
            if blank || indent > b {
                i += 1;
                continue;
            }
            block_scalar = None;
        }
        if blank || (indent == 0 && (starts(line, 0, "---") || starts(line, 0, "..."))) {
            i += 1;
            continue;
        }
        let mut col = indent;
        // List items, possibly nested on one line: `- - a`.
        while line.get(col) == Some(&'-') && line.get(col + 1).is_none_or(|c| *c == ' ') {
            while stack
                .last()
                .is_some_and(|f| f.indent > col || (f.indent == col && f.item))
            {
                stack.pop();
            }
            let index = stack.last_mut().map_or(0, |f| {
                f.items += 1;
                f.items - 1
            });
            let mut path = segs(&stack);
            path.push(Seg::Index(index));
            let value = skip_spaces(line, col + 1);
            let starts_value = value < line.len() && line[value] != '#';
            out.push((
                path.clone(),
                Place {
                    key: (i, col),
                    value: starts_value.then_some((i, value)),
                },
            ));
            stack.push(Frame {
                indent: col,
                seg: Seg::Index(index),
                item: true,
                items: 0,
            });
            col = value;
            if !starts_value {
                break;
            }
        }
        if col >= line.len() || line[col] == '#' {
            i += 1;
            continue;
        }
        if matches!(line[col], '{' | '[') {
            let (end, _) = flow(&lines, (i, col), segs(&stack), &mut out);
            i = end + 1;
            continue;
        }
        let Some((key, after)) = block_key(line, col) else {
            i += 1;
            continue;
        };
        while stack.last().is_some_and(|f| f.indent >= col) {
            stack.pop();
        }
        let mut path = segs(&stack);
        path.push(Seg::Key(key.clone()));
        let value = skip_spaces(line, after);
        let has_value = value < line.len() && line[value] != '#';
        out.push((
            path.clone(),
            Place {
                key: (i, col),
                value: has_value.then_some((i, value)),
            },
        ));
        stack.push(Frame {
            indent: col,
            seg: Seg::Key(key),
            item: false,
            items: 0,
        });
        if has_value {
            match line[value] {
                '{' | '[' => {
                    let (end, _) = flow(&lines, (i, value), path, &mut out);
                    i = end + 1;
                    continue;
                }
                '|' | '>' => block_scalar = Some(col),
                _ => {}
            }
        }
        i += 1;
    }
    out
}

/// The place of `path`, or of its longest prefix that has one.
pub fn find(places: &[(Vec<Seg>, Place)], path: &[Seg]) -> Option<Place> {
    (1..=path.len()).rev().find_map(|n| {
        places
            .iter()
            .rev()
            .find(|(p, _)| p.as_slice() == &path[..n])
            .map(|(_, place)| *place)
    })
}

struct Frame {
    indent: usize,
    seg: Seg,
    /// A list item (`- `), not a key.
    item: bool,
    /// How many list items it has had so far.
    items: usize,
}

fn segs(stack: &[Frame]) -> Vec<Seg> {
    stack.iter().map(|f| f.seg.clone()).collect()
}

fn starts(line: &[char], at: usize, s: &str) -> bool {
    s.chars()
        .enumerate()
        .all(|(k, c)| line.get(at + k) == Some(&c))
}

fn skip_spaces(line: &[char], mut at: usize) -> usize {
    while line.get(at).is_some_and(|c| *c == ' ' || *c == '\t') {
        at += 1;
    }
    at
}

/// A block mapping key at `col`: its text and the column after its `:`.
fn block_key(line: &[char], col: usize) -> Option<(String, usize)> {
    if matches!(line[col], '"' | '\'') {
        let end = quoted_end(line, col)?;
        let key: String = line[col + 1..end].iter().collect();
        let colon = skip_spaces(line, end + 1);
        return (line.get(colon) == Some(&':') && line.get(colon + 1).is_none_or(|c| *c == ' '))
            .then_some((key, colon + 1));
    }
    let mut at = col;
    while at < line.len() {
        match line[at] {
            ':' if line.get(at + 1).is_none_or(|c| *c == ' ' || *c == '\t') => {
                let key: String = line[col..at].iter().collect();
                return Some((key.trim().to_string(), at + 1));
            }
            '#' if at > col && line[at - 1] == ' ' => return None,
            _ => at += 1,
        }
    }
    None
}

/// The column of the quote that closes the one at `col`, on the same line.
fn quoted_end(line: &[char], col: usize) -> Option<usize> {
    let q = line[col];
    let mut at = col + 1;
    while at < line.len() {
        match line[at] {
            '\\' if q == '"' => at += 2,
            c if c == q && q == '\'' && line.get(at + 1) == Some(&'\'') => at += 2,
            c if c == q => return Some(at),
            _ => at += 1,
        }
    }
    None
}

struct FlowFrame {
    map: bool,
    path: Vec<Seg>,
    items: usize,
}

/// Reads a flow collection that opens at `start`, recording its keys and
/// items under `base`; returns where it ended (the closing bracket, or the
/// end of the text).
fn flow(
    lines: &[Vec<char>],
    start: (usize, usize),
    base: Vec<Seg>,
    out: &mut Vec<(Vec<Seg>, Place)>,
) -> (usize, usize) {
    let (mut i, mut c) = start;
    let at = |i: usize, c: usize| lines.get(i).and_then(|l| l.get(c)).copied();
    let mut stack = vec![FlowFrame {
        map: at(i, c) == Some('{'),
        path: base,
        items: 0,
    }];
    c += 1;
    loop {
        // Whitespace, line ends and comments.
        loop {
            match at(i, c) {
                Some(' ' | '\t') => c += 1,
                Some('#') if c > 0 && at(i, c - 1) != Some(' ') => break,
                Some(_) if at(i, c) != Some('#') => break,
                // A comment or the end of a line: on to the next line.
                _ if i + 1 < lines.len() => {
                    i += 1;
                    c = 0;
                }
                _ => return (i, lines.get(i).map_or(0, Vec::len)),
            }
        }
        let ch = at(i, c).unwrap_or(' ');
        match ch {
            '}' | ']' => {
                stack.pop();
                if stack.is_empty() {
                    return (i, c);
                }
                c += 1;
            }
            ',' => c += 1,
            _ => {
                let Some(top) = stack.last_mut() else {
                    return (i, c);
                };
                let mut path = top.path.clone();
                let here = (i, c);
                let value = if top.map {
                    let line = &lines[i];
                    let (key, end) = flow_scalar(line, c, true);
                    path.push(Seg::Key(key));
                    let colon = skip_spaces(line, end);
                    if line.get(colon) == Some(&':') {
                        let v = skip_spaces(line, colon + 1);
                        c = v;
                        (v < line.len() && !matches!(line[v], ',' | '}' | '#')).then_some((i, v))
                    } else {
                        c = colon;
                        None
                    }
                } else {
                    top.items += 1;
                    path.push(Seg::Index(top.items - 1));
                    Some(here)
                };
                out.push((path.clone(), Place { key: here, value }));
                match value.and_then(|(vi, vc)| at(vi, vc)) {
                    Some(open @ ('{' | '[')) => {
                        stack.push(FlowFrame {
                            map: open == '{',
                            path,
                            items: 0,
                        });
                        c += 1;
                    }
                    Some(_) => c = flow_scalar(&lines[i], c, false).1,
                    None => {}
                }
            }
        }
    }
}

/// A scalar in a flow collection at `col`: its text and the column after
/// it. A key ends at its `:`; a value at `,`, `}` or `]`.
fn flow_scalar(line: &[char], col: usize, key: bool) -> (String, usize) {
    if matches!(line.get(col), Some('"' | '\'')) {
        return match quoted_end(line, col) {
            Some(end) => (line[col + 1..end].iter().collect(), end + 1),
            None => (line[col + 1..].iter().collect(), line.len()),
        };
    }
    let mut at = col;
    while at < line.len() {
        match line[at] {
            ',' | '}' | ']' => break,
            ':' if key
                && line
                    .get(at + 1)
                    .is_none_or(|c| matches!(c, ' ' | ',' | '}' | ']')) =>
            {
                break;
            }
            '#' if at > col && line[at - 1] == ' ' => break,
            _ => at += 1,
        }
    }
    (
        line[col..at].iter().collect::<String>().trim().to_string(),
        at,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(k: &str) -> Seg {
        Seg::Key(k.into())
    }

    fn at(text: &str, path: &[Seg]) -> Option<Place> {
        find(&places(text), path)
    }

    #[test]
    fn block_keys_and_list_items_have_places() {
        let text = "\
# a comment
controller:
  replicaCount: 3   # three
  extraArgs:
    - a
    - name: x
      value: 'y'
  \"quoted.key\": 1
  script: |
    notakey: 1
  after: 2
other: {}
";
        let p = |path: &[Seg]| at(text, path).unwrap();
        let rc = p(&[key("controller"), key("replicaCount")]);
        assert_eq!(rc.key, (2, 2));
        assert_eq!(rc.value, Some((2, 16)));
        assert_eq!(
            p(&[
                key("controller"),
                key("extraArgs"),
                Seg::Index(1),
                key("value")
            ])
            .value,
            Some((6, 13))
        );
        assert_eq!(
            p(&[key("controller"), key("extraArgs"), Seg::Index(0)]).key,
            (4, 4)
        );
        assert_eq!(p(&[key("controller"), key("quoted.key")]).key, (7, 2));
        assert_eq!(p(&[key("controller"), key("after")]).key, (10, 2));
        assert!(
            !places(text)
                .iter()
                .any(|(p, _)| p.contains(&key("notakey"))),
            "a block scalar's text has no keys"
        );
        assert_eq!(p(&[key("other")]).value, Some((11, 7)));
    }

    #[test]
    fn flow_collections_have_places_too() {
        let text = "controller: {replicaCount: three, nosuchkey: 1, image: {tag: \"v1\"}}\nlist: [a, {b: 1}]\n";
        let rc = at(text, &[key("controller"), key("replicaCount")]).unwrap();
        assert_eq!(rc.key, (0, 13));
        assert_eq!(rc.value, Some((0, 27)));
        assert_eq!(
            at(text, &[key("controller"), key("nosuchkey")])
                .unwrap()
                .key,
            (0, 34)
        );
        assert_eq!(
            at(text, &[key("controller"), key("image"), key("tag")])
                .unwrap()
                .value,
            Some((0, 61))
        );
        assert_eq!(
            at(text, &[key("list"), Seg::Index(1), key("b")])
                .unwrap()
                .key,
            (1, 11)
        );
        // Over several lines, with a comment.
        let text = "a: {\n  b: 1, # one\n  c: [x,\n    y]\n}\nd: 2\n";
        assert_eq!(
            at(text, &[key("a"), key("c"), Seg::Index(1)]).unwrap().key,
            (3, 4)
        );
        assert_eq!(at(text, &[key("d")]).unwrap().key, (5, 0));
    }

    proptest::proptest! {
        /// Any text, however broken: no panic, and every place is in it.
        #[test]
        fn any_text_is_read_without_panic(text in "[a-z:{}\\[\\],#'\" |>\n-]{0,80}") {
            let lines: Vec<Vec<char>> = text.lines().map(|l| l.chars().collect()).collect();
            for (_, place) in places(&text) {
                for (l, c) in [Some(place.key), place.value].into_iter().flatten() {
                    proptest::prop_assert!(l < lines.len() && c <= lines[l].len(), "{place:?}");
                }
            }
        }
    }

    #[test]
    fn a_path_without_a_place_falls_back_to_its_parent() {
        let text = "controller:\n  service: {}\n";
        let p = at(text, &[key("controller"), key("service"), key("type")]).unwrap();
        assert_eq!(p.key, (1, 2));
        assert_eq!(at(text, &[key("nope")]), None);
        assert_eq!(
            PathText(&[key("a"), Seg::Index(0), key("b")]).to_string(),
            "a[0].b"
        );
    }
}
