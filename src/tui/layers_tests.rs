//! The console's layers, as `tui/mod.rs` writes them, checked: every
//! import of a module of the console points down the order (test code and
//! comments aside).

use std::path::Path;

/// The order of `tui/mod.rs`'s text block: each name's rank, top first.
fn ranks() -> Vec<(String, usize)> {
    let text = include_str!("mod.rs");
    let line = text
        .lines()
        .map(|l| l.trim_start_matches("//!").trim())
        .find(|l| l.starts_with("runtime →"))
        .expect("tui/mod.rs writes the order of the layers");
    line.split('→')
        .enumerate()
        .flat_map(|(rank, names)| {
            names
                .split(',')
                .map(move |name| (name.trim().to_string(), rank))
        })
        .collect()
}

/// The module files under `dir`, test files left out.
fn sources(dir: &Path, into: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("src/tui").flatten() {
        let path = entry.path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, into);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" && !name.ends_with("_tests.rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            into.push((path.display().to_string(), text));
        }
    }
}

/// The code of a file: no comments, nothing from an inline test module on.
fn code(text: &str) -> Vec<&str> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines
                    .get(i + 1)
                    .is_some_and(|l| l.trim_end().ends_with('{'))
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect()
}

#[test]
fn every_import_in_the_console_points_down_its_layers() {
    let ranks = ranks();
    let rank = |name: &str| ranks.iter().find(|(n, _)| n == name).map(|(_, r)| *r);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/tui");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut upward = Vec::new();
    for (path, text) in &files {
        let inside = path[root.display().to_string().len() + 1..].to_string();
        let top = inside
            .split('/')
            .next()
            .unwrap_or_default()
            .trim_end_matches(".rs");
        let Some(from) = rank(top) else {
            continue;
        };
        for line in code(text) {
            for (at, _) in line.match_indices("crate::tui::") {
                let rest = &line[at + "crate::tui::".len()..];
                let to: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if to != top && rank(&to).is_some_and(|r| r <= from) {
                    upward.push(format!("{inside}: {}", line.trim()));
                }
            }
        }
    }
    assert!(ranks.len() >= 8, "the order names the layers: {ranks:?}");
    assert!(
        upward.is_empty(),
        "imports against the layers:\n  {}",
        upward.join("\n  ")
    );
}
