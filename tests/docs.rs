//! The book and the README: the generated reference pages are what the code
//! makes of them today, and no relative link or anchor points nowhere.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn page(name: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hmc-tui"))
        .args(["docs", name])
        .current_dir(root())
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "hmc-tui docs {name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("pages are UTF-8")
}

#[test]
fn generated_pages_match_the_code() {
    let mut stale = Vec::new();
    for (name, file) in hmc_tui::docs::PAGES {
        let path = root().join(hmc_tui::docs::DIR).join(file);
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != page(name) {
            stale.push(format!("{}/{file}", hmc_tui::docs::DIR));
        }
    }
    assert!(
        stale.is_empty(),
        "generated pages differ from the code: {}\nupdate them with `{}` (from the repository's root) and commit them",
        stale.join(", "),
        hmc_tui::docs::UPDATE
    );
}

/// Every markdown file the check reads: the book's sources, the README and
/// the other top-level documents.
fn markdown_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, into: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("docs/src is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, into);
            } else if path.extension().is_some_and(|e| e == "md") {
                into.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("docs/src"), &mut files);
    for top in ["README.md", "CONTRIBUTING.md", "CHANGELOG.md"] {
        files.push(root().join(top));
    }
    files.sort();
    files
}

/// The lines of `text` outside fenced code blocks.
fn prose(text: &str) -> Vec<&str> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            lines.push(line);
        }
    }
    lines
}

/// `line` without its code spans.
fn without_code(line: &str) -> String {
    let mut out = String::new();
    for (i, part) in line.split('`').enumerate() {
        if i % 2 == 0 {
            out.push_str(part);
        }
    }
    out
}

/// The anchor mdBook and GitHub make of a heading: lower case, letters,
/// digits, `-` and `_` kept, spaces made `-`, the rest dropped; a repeated
/// one gets `-1`, `-2`.
fn anchor(heading: &str) -> String {
    let mut text = String::new();
    // A link in a heading counts by its text.
    let mut rest = heading;
    while let Some(open) = rest.find('[') {
        let Some(mid) = rest[open..].find("](") else {
            break;
        };
        let Some(close) = rest[open + mid..].find(')') else {
            break;
        };
        text.push_str(&rest[..open]);
        text.push_str(&rest[open + 1..open + mid]);
        rest = &rest[open + mid + close + 1..];
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .filter_map(|c| {
            if c.is_alphanumeric() || c == '_' || c == '-' {
                Some(c.to_lowercase().next().unwrap_or(c))
            } else if c.is_whitespace() {
                Some('-')
            } else {
                None
            }
        })
        .collect()
}

fn anchors(text: &str) -> Vec<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = Vec::new();
    for line in prose(text) {
        let trimmed = line.trim_start_matches('#');
        if line.starts_with('#') && trimmed.starts_with(' ') {
            let id = anchor(trimmed);
            let n = seen.entry(id.clone()).or_default();
            out.push(if *n == 0 {
                id.clone()
            } else {
                format!("{id}-{n}")
            });
            *n += 1;
        }
    }
    out
}

/// The targets of the inline links of `text`: `[..](target)`.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose(text) {
        let line = without_code(line);
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push(target.to_string());
            rest = &after[end..];
        }
    }
    out
}

/// What is wrong with the links of `file`.
fn broken(file: &Path, texts: &BTreeMap<PathBuf, String>) -> Vec<String> {
    let mut wrong = Vec::new();
    for target in links(&texts[file]) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
        let to = if path.is_empty() {
            file.to_path_buf()
        } else {
            normalise(&file.parent().expect("a file has a folder").join(path))
        };
        if !to.exists() {
            wrong.push(format!("{target}: no file {}", to.display()));
            continue;
        }
        if !fragment.is_empty() {
            let text = match texts.get(&to) {
                Some(text) => text.clone(),
                None => std::fs::read_to_string(&to).unwrap_or_default(),
            };
            if !anchors(&text).iter().any(|a| a == fragment) {
                wrong.push(format!("{target}: no heading makes #{fragment}"));
            }
        }
    }
    wrong
}

/// `a/b/../c` as `a/c`, without asking the file system.
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn no_link_points_nowhere() {
    let texts: BTreeMap<PathBuf, String> = markdown_files()
        .into_iter()
        .filter_map(|f| Some((f.clone(), std::fs::read_to_string(&f).ok()?)))
        .collect();
    let mut wrong = Vec::new();
    for file in texts.keys() {
        for w in broken(file, &texts) {
            let shown = file.strip_prefix(root()).unwrap_or(file);
            wrong.push(format!("{}: {w}", shown.display()));
        }
    }
    assert!(wrong.is_empty(), "broken links:\n{}", wrong.join("\n"));
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let src = root().join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).expect("docs/src/SUMMARY.md");
    let listed: Vec<PathBuf> = links(&summary)
        .iter()
        .map(|l| normalise(&src.join(l)))
        .collect();
    let missing: Vec<String> = markdown_files()
        .into_iter()
        .filter(|f| f.starts_with(&src) && !f.ends_with("SUMMARY.md"))
        .filter(|f| !listed.contains(f))
        .map(|f| f.strip_prefix(root()).unwrap_or(&f).display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "pages not in docs/src/SUMMARY.md: {missing:?}"
    );
}

#[test]
fn anchors_are_made_as_mdbook_and_github_make_them() {
    assert_eq!(anchor("The local control plane"), "the-local-control-plane");
    assert_eq!(
        anchor("Default chart repository (as in hmc)"),
        "default-chart-repository-as-in-hmc"
    );
    assert_eq!(
        anchor("On GitHub: `.github/workflows/e2e.yml`"),
        "on-github-githubworkflowse2eyml"
    );
    assert_eq!(anchor("See [the book](x.md)"), "see-the-book");
    assert_eq!(anchors("# A\n## A\n```\n# not\n```\n"), ["a", "a-1"]);
}

#[test]
fn links_in_code_are_not_links() {
    assert_eq!(
        links("[a](b.md) `[c](d.md)`\n```\n[e](f.md)\n```\n"),
        ["b.md"]
    );
}

/// The mdBook version `tests/harness/build.py` installs.
const MDBOOK: &str = "0.5.4";

/// mdBook from the harness build's cache (`HMC_MDBOOK` to use another).
fn mdbook() -> PathBuf {
    if let Some(path) = std::env::var_os("HMC_MDBOOK") {
        return PathBuf::from(path);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .expect("HOME or XDG_CACHE_HOME is set");
    cache.join("hmc-tui/tools/mdbook/bin/mdbook")
}

#[test]
fn the_book_builds() {
    let mdbook = mdbook();
    assert!(
        mdbook.exists(),
        "no mdbook at {}: `tests/harness/harness build` installs it, or\n  \
         cargo install --locked mdbook@{MDBOOK} --root \"${{XDG_CACHE_HOME:-$HOME/.cache}}/hmc-tui/tools/mdbook\"\n\
         (or point HMC_MDBOOK at an mdbook {MDBOOK} binary)",
        mdbook.display()
    );
    let dest = std::env::temp_dir().join(format!("hmc-tui-book-{}", std::process::id()));
    let out = Command::new(&mdbook)
        .arg("build")
        .arg(root().join("docs"))
        .arg("--dest-dir")
        .arg(&dest)
        .output()
        .expect("mdbook runs");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let built = dest.join("index.html").exists() && dest.join("reference/crds.html").exists();
    let _ = std::fs::remove_dir_all(&dest);
    assert!(
        out.status.success() && built,
        "mdbook build docs failed:\n{log}"
    );
    // mdBook says a broken link or an unknown setting as a warning.
    let warnings: Vec<&str> = log.lines().filter(|l| l.contains("WARN")).collect();
    assert!(
        warnings.is_empty(),
        "mdbook build docs warns:\n{}",
        warnings.join("\n")
    );
}

/// `.ci/run` runs the test command the README gives, so the two say the
/// same: the line after its "The README's test command" comment is in the
/// README's first commands.
#[test]
fn the_readme_gives_the_test_command_ci_runs() {
    let run = std::fs::read_to_string(root().join(".ci/run")).expect(".ci/run");
    let command = run
        .lines()
        .skip_while(|l| !l.contains("The README's test command"))
        .nth(1)
        .expect(".ci/run names the README's test command")
        .trim();
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    assert!(
        readme.lines().any(|l| l.trim() == command),
        "README.md does not give the test command .ci/run runs: {command}"
    );
}
