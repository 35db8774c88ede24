//! The supply chain, checked in the test command: the dependency graph
//! with cargo-deny (advisories from the RustSec snapshot, licenses,
//! sources, duplicates; policy in deny.toml), and the GitHub workflows with
//! actionlint. Both tools come from the harness build's cache
//! (`tests/harness/harness build`); a missing tool fails the test, it never
//! skips it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{harness_binary, repo_root as repo};

fn shown(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn cargo_deny_passes_the_dependency_graph() {
    let out = Command::new("bash")
        .arg(repo().join(".ci/cargo-deny"))
        .current_dir(repo())
        .output()
        .expect("bash");
    let text = shown(&out);
    assert!(
        out.status.success(),
        "cargo-deny refused the graph:\n{text}"
    );
    // Every check ran, against the snapshot (not a database it fetched).
    for check in ["advisories ok", "bans ok", "licenses ok", "sources ok"] {
        assert!(text.contains(check), "{check:?} missing from:\n{text}");
    }
}

fn workflows() -> Vec<PathBuf> {
    let dir = repo().join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    // The example users copy into their own repositories is checked too.
    files.push(repo().join("assets/examples/github/diff-comment.yml"));
    files
}

fn actionlint(files: &[PathBuf]) -> Output {
    Command::new(harness_binary("actionlint"))
        .arg("-no-color")
        .args(files)
        .current_dir(repo())
        .output()
        .expect("actionlint")
}

#[test]
fn actionlint_passes_every_workflow() {
    let files = workflows();
    assert!(
        files.iter().any(|f| f.ends_with("release.yml")),
        "{files:?}"
    );
    let out = actionlint(&files);
    assert!(out.status.success(), "actionlint:\n{}", shown(&out));
}

#[test]
fn actionlint_refuses_a_broken_workflow() {
    // The check can fail: a job that uses an undefined output and an
    // unknown runner.
    let dir = std::env::temp_dir().join(format!("hmc-actionlint-{}", std::process::id()));
    std::fs::create_dir_all(dir.join(".github/workflows")).unwrap();
    let file = dir.join(".github/workflows/broken.yml");
    std::fs::write(
        &file,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ steps.none.outputs.x }}\n        shell: bash\n      - uses: actions/checkout@v4\n        with:\n          no-such-input: 1\n",
    )
    .unwrap();
    let out = actionlint(std::slice::from_ref(&file));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success(), "{}", shown(&out));
}

/// Every `uses:` of every workflow names a full commit (40 hex digits) and
/// says which version it is in a comment; local actions excepted.
#[test]
fn every_action_is_pinned_by_commit() {
    let mut unpinned = Vec::new();
    for file in workflows() {
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            let Some(rest) = line
                .trim_start()
                .trim_start_matches("- ")
                .strip_prefix("uses:")
            else {
                continue;
            };
            let (target, comment) = rest.split_once('#').unwrap_or((rest, ""));
            let target = target.trim().trim_matches(['"', '\'']);
            if target.starts_with("./") || target.starts_with("docker://") {
                continue;
            }
            let sha = target.rsplit_once('@').map(|(_, r)| r).unwrap_or("");
            let pinned = sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit());
            if !pinned || comment.trim().is_empty() {
                unpinned.push(format!("{}:{}: {}", name(&file), n + 1, line.trim()));
            }
        }
    }
    assert!(
        unpinned.is_empty(),
        "not pinned by commit with its version:\n{}",
        unpinned.join("\n")
    );
}

/// Every workflow sets `permissions:` at its top level, so that a job
/// gets only what it widens.
#[test]
fn every_workflow_sets_least_permissions() {
    for file in workflows() {
        let doc: serde_yaml::Value =
            serde_yaml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        let top = &doc["permissions"];
        let least = match top {
            serde_yaml::Value::Mapping(m) => m
                .values()
                .all(|v| v.as_str().is_some_and(|s| s == "read" || s == "none")),
            _ => false,
        };
        assert!(
            least,
            "{}: top-level permissions must be read-only: {top:?}",
            name(&file)
        );
    }
}

fn name(file: &Path) -> String {
    file.strip_prefix(repo())
        .unwrap_or(file)
        .display()
        .to_string()
}
