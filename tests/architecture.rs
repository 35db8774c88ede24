//! The shape of `src/`, checked: no non-test source file over 800 lines,
//! no import cycle between source files, and every import pointing down
//! the layers of `docs/src/architecture.md`.
//!
//! What counts as test code (it is left out of both checks):
//! - a file named `tests.rs`, or one under a `tests/` folder;
//! - a file whose module its parent declares behind `#[cfg(test)]`, and every
//!   file below such a module;
//! - in any other file, an item behind `#[cfg(test)]` (an inline
//!   `mod tests { … }`, a helper): from the attribute to the line that closes
//!   the item at the attribute's indentation.
//!
//! The import graph: its nodes are the library's module files; there is an
//! edge A → B when A names a path that resolves into module B: `use crate::…`,
//! `use super::…`, `use self::…` (use trees expanded), and the same paths
//! written inline in code. A path that starts with a child module the file
//! declares (`mod child;`) is read as `self::child::…`: a re-export such as
//! `pub use context::Context;` in `engine/mod.rs`, or a call `child::f()`,
//! is an edge to the child's file, so that a loop through a parent's
//! re-exports is seen (`engine/a.rs` → `engine/mod.rs` through
//! `use super::X`, then on to the child that defines `X`). A path resolves
//! to the deepest module file that exists (`src/x/y.rs` or
//! `src/x/y/mod.rs`): `crate::engine::Context` is in `engine/mod.rs`,
//! `crate::engine::apply::delete` in `engine/apply.rs`. Comments (doc links
//! too) and string literals are not code. A parent's `mod child;` itself is
//! not an edge. Paths inside inline modules are resolved as if written at
//! the file's top.
//! `src/main.rs` is the binary's own crate: it reaches the library as
//! `hmc_tui::…`, which no library file can name back, so only its size is
//! checked; so are the modules it declares (`mod cli;` in `main.rs`:
//! `src/cli.rs`), which are the binary's too.
//!
//! Pure: it reads files and nothing else; no cluster is needed.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

/// The most lines of non-test code a source file may have.
const MAX_LINES: usize = 800;

/// One source file: its path under `src/` (`engine/apply.rs`) and its text.
struct Source {
    path: String,
    text: String,
}

/// A source file as the checks see it.
struct Module {
    path: String,
    /// `["engine", "apply"]`; empty for the crate root.
    module: Vec<String>,
    /// Test code, whole file.
    test: bool,
    /// The text with comments, string literals and test items blanked out,
    /// line for line.
    code: Vec<String>,
    /// Child modules this file declares behind `#[cfg(test)]`.
    test_children: BTreeSet<String>,
    /// Child modules this file declares outside test code (`mod child;`).
    children: BTreeSet<String>,
    /// Its lines, blank and comment lines included, test items left out.
    lines: usize,
}

fn module_path(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn test_by_name(path: &str) -> bool {
    let file = path.rsplit('/').next().unwrap_or(path);
    file == "tests.rs" || path.split('/').any(|p| p == "tests")
}

/// Files that break the one layout of unit tests (CONTRIBUTING.md, "Where
/// unit tests go"): a module's tests are its child `tests`, found where Rust
/// looks for it, so no `#[path]` attribute and no `*_tests.rs` file.
fn off_layout(sources: &[Source]) -> Vec<String> {
    let mut found = Vec::new();
    for source in sources {
        if source.path.ends_with("_tests.rs") {
            found.push(format!("{}: name it <module>/tests.rs", source.path));
        }
        let code = blank_comments_and_strings(&source.text);
        if code.lines().any(|l| l.trim_start().starts_with("#[path")) {
            found.push(format!("{}: a #[path] attribute", source.path));
        }
    }
    found
}

/// The binary's files: `main.rs` and the modules it declares, with every
/// file below them.
fn binary_files(sources: &[Source]) -> BTreeSet<String> {
    let Some(main) = sources.iter().find(|s| s.path == "main.rs") else {
        return BTreeSet::new();
    };
    let own: BTreeSet<String> = code_of(&main.text)
        .lines
        .iter()
        .filter_map(|l| declared_module(l))
        .collect();
    sources
        .iter()
        .map(|s| s.path.clone())
        .filter(|p| p == "main.rs" || own.contains(top_module(p)))
        .collect()
}

fn analyse(sources: &[Source]) -> Vec<Module> {
    let binary = binary_files(sources);
    let mut modules: Vec<Module> = sources
        .iter()
        .filter(|s| !binary.contains(&s.path))
        .map(|s| {
            let Code {
                lines: code,
                test_children,
                test_lines,
            } = code_of(&s.text);
            let children = code.iter().filter_map(|l| declared_module(l)).collect();
            Module {
                path: s.path.clone(),
                module: module_path(&s.path),
                test: test_by_name(&s.path),
                lines: s.text.lines().count() - test_lines,
                code,
                test_children,
                children,
            }
        })
        .collect();
    // A module is test code when its parent declares it so, or is test code:
    // parents are settled before their children (shorter paths first).
    modules.sort_by_key(|m| m.module.len());
    for i in 0..modules.len() {
        let Some((name, parent)) = modules[i].module.split_last() else {
            continue;
        };
        let parent_is_test = modules[..i]
            .iter()
            .find(|p| p.module == parent)
            .map(|p| p.test || p.test_children.contains(name));
        if parent_is_test == Some(true) {
            modules[i].test = true;
        }
    }
    modules.sort_by(|a, b| a.path.cmp(&b.path));
    modules
}

/// A file's code, line for line: comments, the contents of string and
/// character literals, and every item behind `#[cfg(test)]` blanked.
struct Code {
    lines: Vec<String>,
    /// Child modules declared behind `#[cfg(test)]`.
    test_children: BTreeSet<String>,
    /// How many lines the items behind `#[cfg(test)]` take.
    test_lines: usize,
}

fn code_of(text: &str) -> Code {
    let plain = blank_comments_and_strings(text);
    let mut lines: Vec<String> = plain.lines().map(String::from).collect();
    let mut test_children = BTreeSet::new();
    let mut test_lines = 0;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "#[cfg(test)]" {
            i += 1;
            continue;
        }
        let indent = indent_of(&lines[i]);
        let mut end = i + 1;
        while end < lines.len() && lines[end].trim_start().starts_with("#[") {
            end += 1;
        }
        if let Some(name) = lines.get(end).and_then(|l| declared_module(l)) {
            test_children.insert(name);
        }
        // The item ends on its own line (`mod tests;`, `fn f() {}`), or at the
        // next line that closes a block at the attribute's indentation.
        let first = lines.get(end).map(|l| l.trim_end()).unwrap_or_default();
        if !(first.ends_with(';') || first.ends_with('}')) {
            end += 1;
            while end < lines.len()
                && !(indent_of(&lines[end]) == indent && lines[end].trim_start().starts_with('}'))
            {
                end += 1;
            }
        }
        let end = end.min(lines.len() - 1);
        for line in &mut lines[i..=end] {
            line.clear();
        }
        test_lines += end + 1 - i;
        i = end + 1;
    }
    Code {
        lines,
        test_children,
        test_lines,
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// `name` when the line declares `mod name;` (with any visibility).
fn declared_module(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "mod")?;
    let name = words.get(at + 1)?.strip_suffix(';')?;
    Some(name.to_string())
}

/// Blanks comments and the insides of string and character literals, keeping
/// every newline so that lines keep their numbers.
fn blank_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep_newlines = |from: &[char], out: &mut String| {
        out.extend(from.iter().filter(|c| **c == '\n'));
    };
    while i < chars.len() {
        let rest = &chars[i..];
        let end = if rest.starts_with(&['/', '/']) {
            i + rest.iter().position(|c| *c == '\n').unwrap_or(rest.len())
        } else if rest.starts_with(&['/', '*']) {
            i + 2 + find(&rest[2..], &['*', '/']).map_or(rest.len() - 2, |p| p + 2)
        } else if let Some(hashes) = raw_string_start(rest) {
            let open = hashes + 2; // r, hashes, "
            let close: Vec<char> = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i + open + find(&rest[open..], &close).map_or(rest.len() - open, |p| p + close.len())
        } else if rest[0] == '"' && (i == 0 || chars[i - 1] != 'r') {
            i + 1 + literal_end(&rest[1..], '"')
        } else if rest[0] == '\'' && is_char_literal(rest) {
            i + 1 + literal_end(&rest[1..], '\'')
        } else {
            out.push(rest[0]);
            i += 1;
            continue;
        };
        out.push(' ');
        keep_newlines(&chars[i..end.min(chars.len())], &mut out);
        i = end;
    }
    out
}

fn find(hay: &[char], needle: &[char]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The number of `#` when `rest` opens a raw string (`r"`, `r#"`, `br"`).
fn raw_string_start(rest: &[char]) -> Option<usize> {
    let after_r = match rest {
        ['r', ..] => &rest[1..],
        ['b', 'r', ..] => &rest[2..],
        _ => return None,
    };
    let hashes = after_r.iter().take_while(|c| **c == '#').count();
    (after_r.get(hashes) == Some(&'"')).then_some(hashes)
}

/// Where a literal opened just before `rest` ends, past its closing quote.
fn literal_end(rest: &[char], quote: char) -> usize {
    let mut i = 0;
    while i < rest.len() {
        match rest[i] {
            '\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    rest.len()
}

/// `'x'` and `'\n'` are character literals; `'a` in `&'a str` is a lifetime.
fn is_char_literal(rest: &[char]) -> bool {
    matches!(rest, [_, '\\', ..] | [_, _, '\'', ..])
}

/// Every `crate::`/`super::`/`self::` path the code names, as segments,
/// and every path through one of `children` (the file's own child modules),
/// written as `self::child::…`.
fn paths_named(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let (uses, rest_of_code) = use_statements(code);
    let mut paths: Vec<Vec<String>> = uses
        .iter()
        .flat_map(|tree| expand_use_tree(tree))
        .map(|(path, _)| path)
        .collect();
    // Paths written inline.
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in rest_of_code.match_indices(start) {
            let before = rest_of_code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '$')) {
                continue;
            }
            let run: String = rest_of_code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || matches!(c, '_' | ':'))
                .collect();
            paths.push(segments(&run));
        }
    }
    paths
        .into_iter()
        .filter_map(|p| in_crate(p, children))
        .collect()
}

/// The name a glob import (`use a::*;`) brings in, as [`expand_use_tree`]
/// tells it.
const GLOB: &str = "*";

/// What a module file holds, for paths that go through it.
#[derive(Default)]
struct Names {
    /// The names its `use` statements bring in (`use a::b as c;` brings
    /// `c`), each with the path it names; paths that leave the crate are
    /// left out.
    brought_in: BTreeMap<String, Vec<String>>,
    /// The paths it glob-imports (`pub use a::*;`) within the crate.
    globs: Vec<Vec<String>>,
    /// The items it defines (`fn x`, `struct X`, `const X`, …).
    defined: BTreeSet<String>,
}

fn names_of(code: &str, children: &BTreeSet<String>) -> Names {
    let mut names = Names::default();
    for (path, name) in use_statements(code)
        .0
        .iter()
        .flat_map(|tree| expand_use_tree(tree))
    {
        let Some(path) = in_crate(path, children) else {
            continue;
        };
        if name == GLOB {
            names.globs.push(path);
        } else {
            names.brought_in.insert(name, path);
        }
    }
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    for pair in words.windows(2) {
        let kinds = [
            "fn", "struct", "enum", "const", "static", "type", "trait", "union", "mod",
        ];
        if kinds.contains(&pair[0]) {
            names.defined.insert(pair[1].to_string());
        }
    }
    names
}

/// A path as the crate sees it: `crate::…`, `super::…` and `self::…` as they
/// are, `child::…` as `self::child::…`; `None` for another crate's.
fn in_crate(path: Vec<String>, children: &BTreeSet<String>) -> Option<Vec<String>> {
    match path.first().map(String::as_str) {
        Some("crate" | "super" | "self") => Some(path),
        Some(child) if children.contains(child) => {
            Some(std::iter::once("self".to_string()).chain(path).collect())
        }
        _ => None,
    }
}

/// The trees of the code's `use` statements (`a::{b, c}`), and the code
/// without them.
fn use_statements(code: &str) -> (Vec<&str>, String) {
    let mut trees = Vec::new();
    let mut rest_of_code = String::with_capacity(code.len());
    let mut text = code;
    while let Some(at) = find_word(text, "use") {
        rest_of_code.push_str(&text[..at]);
        let end = text[at..].find(';').map_or(text.len(), |e| at + e);
        trees.push(&text[at + 3..end]);
        text = &text[(end + 1).min(text.len())..];
    }
    rest_of_code.push_str(text);
    (trees, rest_of_code)
}

/// Where `word` occurs as a whole word.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

fn segments(path: &str) -> Vec<String> {
    path.split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty() && *s != "*")
        .map(String::from)
        .collect()
}

/// `crate::a::{b, c::{self, D as E}}` → `crate::a::b`, `crate::a::c`,
/// `crate::a::c::D`, each with the name it brings in (`b`, `c`, `E`).
fn expand_use_tree(tree: &str) -> Vec<(Vec<String>, String)> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else {
        let mut words = tree.split_whitespace();
        let written = words.next().unwrap_or_default();
        let path = segments(written);
        let alias = match (words.next(), words.next()) {
            _ if written.ends_with('*') => Some(GLOB.to_string()),
            (Some("as"), Some(alias)) => Some(alias.to_string()),
            _ => None,
        };
        let name = alias.or_else(|| path.last().cloned()).unwrap_or_default();
        return vec![(path, name)];
    };
    let prefix = segments(&tree[..open]);
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut paths = Vec::new();
    let (mut depth, mut from) = (0, 0);
    for (i, c) in inner.char_indices().chain([(inner.len(), ',')]) {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                for (tail, name) in expand_use_tree(&inner[from..i]) {
                    let tail = tail.into_iter().filter(|s| s != "self");
                    let path: Vec<String> = prefix.iter().cloned().chain(tail).collect();
                    let name = match name.as_str() {
                        "self" => path.last().cloned().unwrap_or_default(),
                        _ => name,
                    };
                    paths.push((path, name));
                }
                from = i + 1;
            }
            _ => {}
        }
    }
    paths
}

/// The module a path names, from the module `here`: the deepest one of
/// `known` that the path reaches. When the next name on the path is one
/// that module brings in with `use` (a re-export such as
/// `pub use context::Context;`, a child's `use super::Context` of it, or a
/// glob `pub use common::*;` of a module that defines it), the path goes on
/// from there, to the module that defines the name; a name brought in from
/// another crate is no module of ours.
fn resolve(
    here: &[String],
    path: &[String],
    known: &BTreeMap<Vec<String>, Names>,
) -> Option<Vec<String>> {
    let (mut here, mut path) = (here.to_vec(), path.to_vec());
    // A re-export of a re-export is followed; a loop of them is not.
    for _ in 0..16 {
        let full = absolute(&here, &path)?;
        let module = (0..=full.len())
            .rev()
            .map(|n| full[..n].to_vec())
            .find(|m| known.contains_key(m))?;
        let names = &known[&module];
        let Some(name) = full.get(module.len()) else {
            return Some(module);
        };
        let through_glob = || {
            names.globs.iter().find(|glob| {
                let target = absolute(&module, glob);
                target
                    .and_then(|t| known.get(&t))
                    .is_some_and(|n| n.defined.contains(name) || n.brought_in.contains_key(name))
            })
        };
        let next = match names.brought_in.get(name) {
            Some(to) if *to != ["self".to_string(), name.clone()] => to.clone(),
            Some(_) => return Some(module),
            None if names.defined.contains(name) => return Some(module),
            None => match through_glob() {
                Some(glob) => glob.iter().chain([name]).cloned().collect(),
                None => return Some(module),
            },
        };
        path = next
            .into_iter()
            .chain(full[module.len() + 1..].iter().cloned())
            .collect();
        here = module;
    }
    None
}

/// A `crate::`/`super::`/`self::` path written in module `here`, from the
/// crate's root.
fn absolute(here: &[String], path: &[String]) -> Option<Vec<String>> {
    let mut base: Vec<String> = here.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = &path[1..];
        }
        Some("self") => rest = &path[1..],
        Some("super") => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        _ => return None,
    }
    Some(base.into_iter().chain(rest.iter().cloned()).collect())
}

/// file → the files it imports from, test code left out.
fn import_graph(modules: &[Module]) -> BTreeMap<String, BTreeSet<String>> {
    let live: Vec<&Module> = modules.iter().filter(|m| !m.test).collect();
    let file_of: BTreeMap<Vec<String>, String> = live
        .iter()
        .map(|m| (m.module.clone(), m.path.clone()))
        .collect();
    let known: BTreeMap<Vec<String>, Names> = live
        .iter()
        .map(|m| (m.module.clone(), names_of(&m.code.join("\n"), &m.children)))
        .collect();
    live.iter()
        .map(|m| {
            let targets = paths_named(&m.code.join("\n"), &m.children)
                .iter()
                .filter_map(|p| resolve(&m.module, p, &known))
                .map(|t| file_of[&t].clone())
                .filter(|t| *t != m.path)
                .collect();
            (m.path.clone(), targets)
        })
        .collect()
}

/// Every cycle of the graph that closes over one of its edges, the shortest
/// such, each once: `a.rs → b.rs → a.rs`.
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = BTreeSet::new();
    for (from, tos) in graph {
        for to in tos {
            if let Some(back) = shortest_path(graph, to, from) {
                let mut cycle: Vec<&String> = std::iter::once(from).chain(back.iter()).collect();
                cycle.pop(); // `from` again
                // One way to write each cycle: from its first file.
                let first = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap_or(0);
                cycle.rotate_left(first);
                cycle.push(cycle[0]);
                let names: Vec<&str> = cycle.iter().map(|s| s.as_str()).collect();
                found.insert(names.join(" → "));
            }
        }
    }
    found.into_iter().collect()
}

/// The files from `from` to `to`, both included, on a shortest path.
fn shortest_path(
    graph: &BTreeMap<String, BTreeSet<String>>,
    from: &String,
    to: &String,
) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![to.clone()];
            let mut step = to;
            while step != from {
                step = came_from[step];
                path.push(step.clone());
            }
            path.reverse();
            return Some(path);
        }
        for next in graph.get(at).into_iter().flatten() {
            if next != from && !came_from.contains_key(next) {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Non-test files with more than [`MAX_LINES`] lines of non-test code.
fn oversized(sources: &[Source], modules: &[Module]) -> Vec<String> {
    sources
        .iter()
        .filter_map(|s| {
            let lines = match modules.iter().find(|m| m.path == s.path) {
                Some(m) if m.test => return None,
                Some(m) => m.lines,
                None => s.text.lines().count(), // the binary's
            };
            (lines > MAX_LINES).then(|| format!("{}: {lines} lines", s.path))
        })
        .collect()
}

fn read_sources(dir: &Path, under: &str, into: &mut Vec<Source>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let rel = format!("{under}{name}");
        if path.is_dir() {
            read_sources(&path, &format!("{rel}/"), into);
        } else if name.ends_with(".rs") {
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            into.push(Source { path: rel, text });
        }
    }
}

fn crate_sources() -> Vec<Source> {
    let mut sources = Vec::new();
    read_sources(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        "",
        &mut sources,
    );
    sources
}

#[test]
fn unit_tests_are_where_the_module_system_looks() {
    let found = off_layout(&crate_sources());
    assert!(
        found.is_empty(),
        "unit tests off the one layout (paths under src/):\n  {}",
        found.join("\n  ")
    );
}

#[test]
fn no_source_file_has_more_than_800_lines_of_non_test_code() {
    let sources = crate_sources();
    let too_long = oversized(&sources, &analyse(&sources));
    assert!(
        too_long.is_empty(),
        "source files over {MAX_LINES} lines of non-test code (split them by responsibility, \
         or move their tests to a sibling file):\n  {}",
        too_long.join("\n  ")
    );
}

#[test]
fn no_source_files_import_each_other_in_a_cycle() {
    let sources = crate_sources();
    let found = cycles(&import_graph(&analyse(&sources)));
    assert!(
        found.is_empty(),
        "import cycles between source files (paths under src/):\n  {}",
        found.join("\n  ")
    );
}

/// The page that draws the layers, and the line on it that lists them, top
/// to bottom: modules of one layer between commas, layers between arrows.
const ARCHITECTURE_PAGE: &str = "docs/src/architecture.md";
const LAYERS_LINE: &str = "Layers, top to bottom:";

/// The layers as the architecture page writes them (`diff, docs → tui →
/// startup → engine → plan, store → api, flux, capi`; the binary is not in
/// the library). A module may import from its own top-level module and from
/// any layer below its own, never from its own layer's other modules or
/// from above.
fn layers() -> Vec<Vec<String>> {
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(ARCHITECTURE_PAGE))
            .expect("the architecture page");
    layers_in(&page)
        .unwrap_or_else(|| panic!("{ARCHITECTURE_PAGE} has no line `{LAYERS_LINE} `a, b → c → …``"))
}

/// The layers on the page's line that starts with [`LAYERS_LINE`], written
/// in backticks.
fn layers_in(page: &str) -> Option<Vec<Vec<String>>> {
    let line = page
        .lines()
        .find(|l| l.trim_start().starts_with(LAYERS_LINE))?;
    order_of(line.split('`').nth(1)?)
}

/// `a, b → c → d`: modules of one layer between commas, layers between
/// arrows, top first.
fn order_of(text: &str) -> Option<Vec<Vec<String>>> {
    let layers: Vec<Vec<String>> = text
        .split('→')
        .map(|layer| layer.split(',').map(|m| m.trim().to_string()).collect())
        .collect();
    let complete = layers.iter().flatten().all(|m| !m.is_empty());
    (complete && layers.len() > 1).then_some(layers)
}

/// The doc line of a top-level module's `mod.rs` after which the next line
/// with arrows orders its own child modules, as [`order_of`] reads them
/// (`tui/mod.rs`: `runtime → update → screens → … → keys`).
const INNER_LAYERS_MARK: &str = "The layers, each importing only those below it";

/// Each top-level module that orders its children: its name and layers.
fn inner_layers(sources: &[Source]) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut found = BTreeMap::new();
    for source in sources {
        let Some(top) = source.path.strip_suffix("/mod.rs") else {
            continue;
        };
        if top.contains('/') {
            continue;
        }
        let order = source
            .text
            .lines()
            .skip_while(|l| !l.contains(INNER_LAYERS_MARK))
            .find(|l| l.contains('→'))
            .map(|l| l.trim_start().trim_start_matches("//!").trim());
        if let Some(layers) = order.and_then(order_of) {
            found.insert(top.to_string(), layers);
        }
    }
    found
}

/// Every import between two children of a module that orders them that
/// goes up or sideways: `tui/model/x.rs → tui/state/app.rs (state is
/// above model in tui)`. A child not in the order, and the module's own
/// `mod.rs`, are not checked.
fn inner_upward_imports(
    inner: &BTreeMap<String, Vec<Vec<String>>>,
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let child = |path: &str| -> Option<String> {
        let mut parts = path.split('/');
        parts.next()?;
        Some(parts.next()?.trim_end_matches(".rs").to_string())
    };
    let mut found = Vec::new();
    for (from, targets) in graph {
        let Some(layers) = inner.get(top_module(from)) else {
            continue;
        };
        let Some(a) = child(from).filter(|a| a != "mod") else {
            continue;
        };
        let Some(a_layer) = layer_of(layers, &a) else {
            continue;
        };
        for to in targets
            .iter()
            .filter(|to| top_module(to) == top_module(from))
        {
            let Some(b) = child(to).filter(|b| *b != a) else {
                continue;
            };
            match layer_of(layers, &b) {
                Some(b_layer) if b_layer <= a_layer => {
                    let how = if b_layer == a_layer {
                        "beside"
                    } else {
                        "above"
                    };
                    found.push(format!(
                        "{from} → {to} ({b} is {how} {a} in {})",
                        top_module(from)
                    ));
                }
                _ => {}
            }
        }
    }
    found
}

/// The layer of a file under `src/`, by its top-level module; `None` for
/// the crate root (`lib.rs`), which declares them all.
fn layer_of(layers: &[Vec<String>], path: &str) -> Option<usize> {
    let top = path.split('/').next()?.trim_end_matches(".rs");
    layers
        .iter()
        .position(|layer| layer.iter().any(|m| m == top))
}

fn top_module(path: &str) -> &str {
    path.split('/')
        .next()
        .unwrap_or(path)
        .trim_end_matches(".rs")
}

/// Every import that goes up a layer or sideways within one:
/// `api/crds.rs → plan/yaml.rs (api is below plan)`.
fn upward_imports(
    layers: &[Vec<String>],
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let mut found = Vec::new();
    for (from, targets) in graph {
        let Some(from_layer) = layer_of(layers, from) else {
            continue;
        };
        for to in targets {
            let Some(to_layer) = layer_of(layers, to) else {
                continue;
            };
            if top_module(from) == top_module(to) || to_layer > from_layer {
                continue;
            }
            let how = if to_layer == from_layer {
                "beside it, in the same layer"
            } else {
                "above it"
            };
            found.push(format!("{from} → {to} ({} is {how})", top_module(to)));
        }
    }
    found
}

#[test]
fn every_import_points_down_the_layers() {
    let sources = crate_sources();
    let graph = import_graph(&analyse(&sources));
    let layers = layers();
    // Every top-level module has a layer: a new one must be placed.
    for path in graph.keys() {
        assert!(
            path == "lib.rs" || layer_of(&layers, path).is_some(),
            "{path}: its module {} is in no layer of {ARCHITECTURE_PAGE}'s `{LAYERS_LINE}` line",
            top_module(path)
        );
    }
    let mut up = upward_imports(&layers, &graph);
    up.extend(inner_upward_imports(&inner_layers(&sources), &graph));
    assert!(
        up.is_empty(),
        "imports that do not point down the layers (paths under src/):\n  {}",
        up.join("\n  ")
    );
}

/// Where the architecture page's import map starts and ends.
const IMPORT_MAP_START: &str =
    "<!-- import map: written by UPDATE_ARCHITECTURE=1 cargo test --test architecture -->";
const IMPORT_MAP_END: &str = "<!-- end of import map -->";

/// What each top-level module imports from the others, in layer order: one
/// line per module, each module it reaches with how many of its files do.
fn import_map(layers: &[Vec<String>], graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    let order: Vec<&String> = layers.iter().flatten().collect();
    let rank = |m: &str| order.iter().position(|o| *o == m).unwrap_or(order.len());
    let mut reaches: BTreeMap<&str, BTreeMap<&str, BTreeSet<&str>>> = BTreeMap::new();
    for (from, targets) in graph {
        for to in targets {
            let (a, b) = (top_module(from), top_module(to));
            if a != b && a != "lib" {
                reaches
                    .entry(a)
                    .or_default()
                    .entry(b)
                    .or_default()
                    .insert(from);
            }
        }
    }
    let width = order.iter().map(|m| m.len()).max().unwrap_or(0);
    let mut text = String::from("```text\n");
    for module in &order {
        let mut targets: Vec<(&str, usize)> = reaches
            .get(module.as_str())
            .map(|t| t.iter().map(|(to, files)| (*to, files.len())).collect())
            .unwrap_or_default();
        targets.sort_by_key(|(to, _)| rank(to));
        let listed: Vec<String> = targets
            .iter()
            .map(|(to, n)| format!("{to} ({n})"))
            .collect();
        let listed = if listed.is_empty() {
            "nothing of ours".to_string()
        } else {
            listed.join(", ")
        };
        text.push_str(&format!("{module:<width$} → {listed}\n"));
    }
    text.push_str("```\n");
    text
}

/// The page's import map is what the code imports now: a change of layers
/// shows in the book. `UPDATE_ARCHITECTURE=1` writes it.
#[test]
fn the_architecture_pages_import_map_is_the_codes() {
    let sources = crate_sources();
    let graph = import_graph(&analyse(&sources));
    let map = import_map(&layers(), &graph);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(ARCHITECTURE_PAGE);
    let page = std::fs::read_to_string(&path).expect("the architecture page");
    let (Some(start), Some(end)) = (page.find(IMPORT_MAP_START), page.find(IMPORT_MAP_END)) else {
        panic!("{ARCHITECTURE_PAGE} has no `{IMPORT_MAP_START}` … `{IMPORT_MAP_END}` block");
    };
    let body_start = start + IMPORT_MAP_START.len() + 1;
    let written = page.get(body_start..end).unwrap_or_default();
    if written == map {
        return;
    }
    if std::env::var_os("UPDATE_ARCHITECTURE").is_some() {
        let page = format!("{}{map}{}", &page[..body_start], &page[end..]);
        std::fs::write(&path, page).expect("write the architecture page");
        return;
    }
    panic!(
        "{ARCHITECTURE_PAGE}'s import map is not what the code imports; write it again with \
         UPDATE_ARCHITECTURE=1 cargo test --test architecture. Now:\n{map}"
    );
}

/// The checks themselves, on tiny crates written here.
mod checks {
    use super::*;

    fn sources(files: &[(&str, &str)]) -> Vec<Source> {
        files
            .iter()
            .map(|(path, text)| Source {
                path: path.to_string(),
                text: text.to_string(),
            })
            .collect()
    }

    fn cycles_of(files: &[(&str, &str)]) -> Vec<String> {
        cycles(&import_graph(&analyse(&sources(files))))
    }

    fn edges_of(files: &[(&str, &str)], from: &str) -> Vec<String> {
        import_graph(&analyse(&sources(files)))[from]
            .iter()
            .cloned()
            .collect()
    }

    const LIB: (&str, &str) = ("lib.rs", "pub mod a;\npub mod b;\npub mod engine;\n");

    #[test]
    fn two_files_that_use_each_other_are_one_cycle() {
        let found = cycles_of(&[
            LIB,
            ("a.rs", "use crate::b::Thing;\n"),
            ("b.rs", "pub struct Thing;\nfn f() { super::a::g() }\n"),
        ]);
        assert_eq!(found, ["a.rs → b.rs → a.rs"]);
    }

    #[test]
    fn a_longer_loop_is_told_from_its_first_file() {
        let found = cycles_of(&[
            LIB,
            ("engine/mod.rs", "pub mod x;\npub mod y;\n"),
            ("engine/x.rs", "use super::y::Y;\n"),
            ("engine/y.rs", "use crate::a::A;\n"),
            ("a.rs", "fn f() -> crate::engine::x::X { todo!() }\n"),
        ]);
        assert_eq!(found, ["a.rs → engine/x.rs → engine/y.rs → a.rs"]);
    }

    #[test]
    fn paths_resolve_to_the_deepest_module_file_there_is() {
        let files = [
            LIB,
            (
                "engine/mod.rs",
                "pub mod apply;\npub use apply::Ctx;\npub fn run() {}\n",
            ),
            ("engine/apply.rs", "pub struct Ctx;\n"),
            (
                "a.rs",
                "use crate::engine::{Ctx, run, apply::{self, delete}};\nuse crate::b as other;\n",
            ),
            ("b.rs", ""),
        ];
        // `Ctx` is `engine/apply.rs`'s, through the re-export; `run` is
        // `engine/mod.rs`'s own.
        assert_eq!(
            edges_of(&files, "a.rs"),
            ["b.rs", "engine/apply.rs", "engine/mod.rs"]
        );
        // `mod apply;` is not an edge; the re-export `apply::Ctx` is.
        assert_eq!(edges_of(&files, "engine/mod.rs"), ["engine/apply.rs"]);
    }

    #[test]
    fn a_loop_through_a_parents_re_export_is_a_cycle() {
        // `ctx.rs` takes `Role` from `leader.rs`, which calls the parent's
        // `run`; the parent re-exports `ctx.rs`'s `Ctx`. `wiring.rs` takes
        // `Ctx` through the parent, which is no loop: it is `ctx.rs`'s.
        let found = cycles_of(&[
            LIB,
            (
                "engine/mod.rs",
                "pub mod ctx;\nmod leader;\nmod wiring;\npub use ctx::Ctx;\npub fn run() {}\n",
            ),
            (
                "engine/ctx.rs",
                "use super::leader::Role;\npub struct Ctx;\n",
            ),
            ("engine/leader.rs", "use super::run;\npub enum Role {}\n"),
            ("engine/wiring.rs", "use super::Ctx;\npub fn start() {}\n"),
        ]);
        assert_eq!(
            found,
            ["engine/ctx.rs → engine/leader.rs → engine/mod.rs → engine/ctx.rs"]
        );
    }

    #[test]
    fn a_glob_re_export_leads_to_the_module_that_defines_the_name() {
        let files = [
            LIB,
            (
                "engine/mod.rs",
                "mod common;\nmod kinds;\npub use common::*;\npub use kinds::*;\n",
            ),
            ("engine/common.rs", "pub struct Spec;\n"),
            ("engine/kinds.rs", "use super::Spec;\n"),
        ];
        assert_eq!(edges_of(&files, "engine/kinds.rs"), ["engine/common.rs"]);
        assert!(cycles_of(&files).is_empty());
    }

    #[test]
    fn super_and_self_start_from_the_files_own_module() {
        let files = [
            LIB,
            ("engine/mod.rs", "pub mod x;\npub struct Top;\n"),
            ("engine/x/mod.rs", "pub mod deep;\nuse self::deep::D;\n"),
            (
                "engine/x/deep.rs",
                "use super::super::Top;\nuse super::X;\n",
            ),
        ];
        assert_eq!(edges_of(&files, "engine/x/mod.rs"), ["engine/x/deep.rs"]);
        assert_eq!(
            edges_of(&files, "engine/x/deep.rs"),
            ["engine/mod.rs", "engine/x/mod.rs"]
        );
    }

    #[test]
    fn comments_strings_and_test_code_are_not_edges() {
        let found = cycles_of(&[
            LIB,
            ("a.rs", "use crate::b::B;\n"),
            (
                "b.rs",
                "/// See [`crate::a::A`].\n\
                 fn f() -> &'static str { \"crate::a::A\" } // crate::a\n\
                 /* crate::a::A */\n\
                 #[cfg(test)]\n\
                 mod tests {\n    use crate::a::A;\n}\n\
                 #[cfg(test)]\n\
                 use crate::a::A;\n\
                 #[cfg(test)]\n\
                 mod more;\n",
            ),
            ("b/more.rs", "use crate::a::A;\n"),
            ("b/tests.rs", "use crate::a::A;\n"),
            ("a/tests.rs", "use crate::b::B;\n"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn test_code_does_not_count_towards_a_files_size() {
        let code = "fn f() {}\n".repeat(MAX_LINES);
        let tests = "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";
        let files = sources(&[
            ("fits.rs", &format!("{code}{tests}")),
            ("over.rs", &format!("{code}\n")),
            ("fits/tests.rs", &format!("{code}{code}")),
            ("main.rs", &format!("mod cli;\n{code}")),
            ("cli.rs", &format!("{code}// one more\n")),
        ]);
        assert_eq!(
            oversized(&files, &analyse(&files)),
            [
                "over.rs: 801 lines",
                "main.rs: 801 lines",
                "cli.rs: 801 lines"
            ]
        );
        // The binary's modules are in no layer and no graph of the library.
        assert!(analyse(&files).iter().all(|m| m.path != "cli.rs"));
    }

    #[test]
    fn lifetimes_are_not_character_literals() {
        let plain =
            blank_comments_and_strings("fn f<'a>(x: &'a str) -> char { '\"' }\nuse crate::b;");
        assert_eq!(plain.lines().nth(1), Some("use crate::b;"));
        assert_eq!(
            paths_named(&plain, &BTreeSet::new()),
            [vec!["crate".to_string(), "b".to_string()]]
        );
    }

    #[test]
    fn a_path_attribute_or_a_tests_suffix_is_off_the_layout() {
        let files = sources(&[
            (
                "plan/a.rs",
                "#[cfg(test)]\n#[path = \"a_tests.rs\"]\nmod tests;\n",
            ),
            ("plan/a_tests.rs", "fn t() {}\n"),
            (
                "plan/b.rs",
                "// #[path = \"x.rs\"] in a comment\n#[cfg(test)]\nmod tests;\n",
            ),
            ("plan/b/tests.rs", "fn t() {}\n"),
        ]);
        assert_eq!(
            off_layout(&files),
            [
                "plan/a.rs: a #[path] attribute",
                "plan/a_tests.rs: name it <module>/tests.rs",
            ]
        );
    }

    #[test]
    fn the_layers_are_read_from_the_pages_line() {
        let page = "# A\n\nLayers, top to bottom: `diff, docs → tui → api`.\n";
        assert_eq!(
            layers_in(page).unwrap(),
            [vec!["diff", "docs"], vec!["tui"], vec!["api"]]
        );
        assert_eq!(layers_in("Layers, top to bottom: `tui → , api`"), None);
        assert_eq!(layers_in("no such line"), None);
    }

    #[test]
    fn a_module_that_orders_its_children_has_them_checked() {
        let files = sources(&[
            ("lib.rs", "pub mod tui;\n"),
            (
                "tui/mod.rs",
                "//! The layers, each importing only those below it:\n//!\n//! ```text\n\
                 //! runtime → state → model\n//! ```\npub mod runtime;\npub mod state;\n\
                 pub mod model;\npub mod config;\n",
            ),
            (
                "tui/runtime.rs",
                "use crate::tui::state::App;\nuse crate::tui::config;\n",
            ),
            ("tui/state/mod.rs", "pub mod app;\n"),
            (
                "tui/state/app.rs",
                "use crate::tui::model::Row;\nuse super::super::runtime;\n",
            ),
            ("tui/model.rs", "use crate::tui::state::app::App;\n"),
            ("tui/config.rs", "use crate::tui::runtime;\n"),
        ]);
        let inner = inner_layers(&files);
        assert_eq!(
            inner["tui"],
            [vec!["runtime"], vec!["state"], vec!["model"]]
        );
        assert_eq!(
            inner_upward_imports(&inner, &import_graph(&analyse(&files))),
            [
                "tui/model.rs → tui/state/app.rs (state is above model in tui)",
                "tui/state/app.rs → tui/runtime.rs (runtime is above state in tui)",
            ]
        );
    }

    #[test]
    fn an_import_up_or_sideways_is_named_and_one_down_is_not() {
        let files = sources(&[
            (
                "lib.rs",
                "pub mod api;\npub mod plan;\npub mod store;\npub mod engine;\n",
            ),
            ("api/mod.rs", "pub mod limits;\n"),
            ("api/limits.rs", "use crate::plan::yaml::MAX;\n"),
            ("plan/mod.rs", "pub mod yaml;\n"),
            (
                "plan/yaml.rs",
                "use crate::api::limits;\nuse crate::store::x;\nuse super::yaml;\n",
            ),
            ("store.rs", "use crate::api::limits;\n"),
            (
                "engine/mod.rs",
                "use crate::plan::yaml;\nuse crate::store;\n",
            ),
        ]);
        let layers = layers_in("Layers, top to bottom: `engine → plan, store → api`").unwrap();
        assert_eq!(
            upward_imports(&layers, &import_graph(&analyse(&files))),
            [
                "api/limits.rs → plan/yaml.rs (plan is above it)",
                "plan/yaml.rs → store.rs (store is beside it, in the same layer)",
            ]
        );
    }
}
