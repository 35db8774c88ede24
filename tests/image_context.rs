//! The image builds from a clean clone: every stage of `assets/Dockerfile`
//! that runs cargo sees every file cargo needs. No container runtime is
//! needed: the build context is worked out from the repository's files and
//! `assets/Dockerfile.dockerignore` (Docker's matching rules), each stage's
//! COPY instructions are followed, and at each cargo step the files that
//! stage holds are laid out in a temporary directory where cargo must load
//! the manifest (every declared bin, bench and test target has its file) and
//! every `include_str!`/`include_bytes!` of the crate must find its file.
//!
//! What a RUN instruction writes itself (stub sources, cargo-chef's skeleton)
//! is not modelled: a stage that runs cargo on the crate must have copied it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// What the image's build stage compiles for (Alpine's host target).
const IMAGE_TARGET: &str = "x86_64-unknown-linux-musl";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

// --- .dockerignore ------------------------------------------------------------

/// One line of a .dockerignore: a path pattern, or an exception (`!`).
struct Rule {
    segments: Vec<String>,
    exception: bool,
}

fn parse_ignore(text: &str) -> Vec<Rule> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let (exception, pattern) = match line.strip_prefix('!') {
                Some(rest) => (true, rest.trim()),
                None => (false, line),
            };
            assert!(
                !pattern.contains('['),
                "character classes in {pattern:?} are not modelled by this test"
            );
            let segments = pattern
                .trim_start_matches('/')
                .trim_end_matches('/')
                .split('/')
                .filter(|s| !s.is_empty() && *s != ".")
                .map(String::from)
                .collect();
            Rule {
                segments,
                exception,
            }
        })
        .collect()
}

/// `*` and `?` within one path segment, as Go's filepath.Match.
fn segment_matches(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            segment_matches(&pattern[1..], name)
                || (!name.is_empty() && segment_matches(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => segment_matches(&pattern[1..], &name[1..]),
        (Some(p), Some(n)) if p == n => segment_matches(&pattern[1..], &name[1..]),
        _ => false,
    }
}

/// A pattern matches a path, `**` standing for any number of segments.
fn path_matches(pattern: &[String], path: &[&str]) -> bool {
    match pattern.first() {
        None => path.is_empty(),
        Some(p) if p == "**" => {
            (0..=path.len()).any(|skip| path_matches(&pattern[1..], &path[skip..]))
        }
        Some(p) => {
            !path.is_empty()
                && segment_matches(p.as_bytes(), path[0].as_bytes())
                && path_matches(&pattern[1..], &path[1..])
        }
    }
}

/// Whether Docker leaves `path` out of the context: the last rule that
/// matches the path, or one of its parent directories, decides.
fn ignored(rules: &[Rule], path: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    let mut out = false;
    for rule in rules {
        if (1..=segments.len()).any(|n| path_matches(&rule.segments, &segments[..n])) {
            out = !rule.exception;
        }
    }
    out
}

/// The build context: the files a clean clone has (tracked, and new files
/// not ignored by git), less what the .dockerignore leaves out.
fn context(ignore: &str) -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-co", "--exclude-standard", "-z"])
        .current_dir(repo())
        .output()
        .expect("git ls-files");
    assert!(out.status.success(), "git ls-files failed");
    let rules = parse_ignore(ignore);
    String::from_utf8(out.stdout)
        .unwrap()
        .split('\0')
        .filter(|p| !p.is_empty() && repo().join(p).is_file())
        .filter(|p| !ignored(&rules, p))
        .map(String::from)
        .collect()
}

// --- Dockerfile ------------------------------------------------------------------

/// The files one stage holds: path in the image -> path in the context.
#[derive(Clone, Default)]
struct Stage {
    files: BTreeMap<PathBuf, String>,
    workdir: PathBuf,
}

/// Instructions with their continuation lines joined, comments dropped.
fn instructions(dockerfile: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in dockerfile.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('#') || (trimmed.is_empty() && current.is_empty()) {
            continue;
        }
        match trimmed.strip_suffix('\\') {
            Some(head) => {
                current.push_str(head);
                current.push(' ');
            }
            None => {
                current.push_str(trimmed);
                let (word, rest) = current
                    .split_once(char::is_whitespace)
                    .unwrap_or((&current, ""));
                out.push((word.to_ascii_uppercase(), rest.trim().to_string()));
                current.clear();
            }
        }
    }
    out
}

fn image_path(workdir: &Path, dest: &str) -> PathBuf {
    if dest.starts_with('/') {
        PathBuf::from(dest)
    } else {
        workdir.join(dest)
    }
}

/// COPY from the context: a directory's contents go under the destination;
/// a file goes to it, or into it when it ends with `/` or there are several
/// sources.
fn copy(stage: &mut Stage, files: &[String], args: &str) {
    let words: Vec<&str> = args
        .split_whitespace()
        .filter(|w| !w.starts_with("--"))
        .collect();
    let (dest, sources) = words.split_last().expect("COPY with a destination");
    let into_dir = dest.ends_with('/') || sources.len() > 1;
    for source in sources {
        let source = source.trim_start_matches("./").trim_end_matches('/');
        let pattern: Vec<String> = source
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .map(String::from)
            .collect();
        for file in files {
            let segments: Vec<&str> = file.split('/').collect();
            let Some(depth) =
                (0..=segments.len()).find(|&n| path_matches(&pattern, &segments[..n]))
            else {
                continue;
            };
            let target = if depth == segments.len() {
                let name = segments[segments.len() - 1];
                let dest = image_path(&stage.workdir, dest);
                if into_dir { dest.join(name) } else { dest }
            } else {
                image_path(&stage.workdir, dest).join(segments[depth..].join("/"))
            };
            stage.files.insert(target, file.clone());
        }
    }
}

/// A RUN that has cargo read the crate's manifest: `build` and its kin also
/// compile it, so the files it includes must be there too.
fn cargo_step(run: &str) -> Option<bool> {
    let compiles = [
        "cargo build",
        "cargo check",
        "cargo test",
        "cargo run",
        "cargo install --path",
    ];
    if compiles.iter().any(|c| run.contains(c)) {
        Some(true)
    } else if run.contains("cargo chef prepare") || run.contains("cargo metadata") {
        Some(false)
    } else {
        None
    }
}

/// Lays out the files a stage holds under its working directory.
fn lay_out(stage: &Stage, dir: &Path) {
    for (target, source) in &stage.files {
        let Ok(relative) = target.strip_prefix(&stage.workdir) else {
            continue;
        };
        let to = dir.join(relative);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(repo().join(source), &to).unwrap();
    }
}

/// `include_str!("...")` and `include_bytes!("...")` of every Rust file
/// under `sources` whose file is not there; paths shown relative to `root`.
fn missing_includes(sources: &Path, root: &Path) -> Vec<String> {
    let mut missing = Vec::new();
    let mut pending = vec![sources.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for marker in ["include_str!(\"", "include_bytes!(\""] {
                for (at, _) in text.match_indices(marker) {
                    let rest = &text[at + marker.len()..];
                    let included = &rest[..rest.find('"').unwrap()];
                    if !path.parent().unwrap().join(included).exists() {
                        missing.push(format!(
                            "{} includes {included}",
                            path.strip_prefix(root).unwrap().display()
                        ));
                    }
                }
            }
        }
    }
    missing
}

/// Follows the Dockerfile and checks every cargo step; the errors, and how
/// many compiling steps were checked.
fn check(dockerfile: &str, ignore: &str) -> (Vec<String>, usize) {
    let files = context(ignore);
    let mut stages: BTreeMap<String, Stage> = BTreeMap::new();
    let mut stage = Stage::default();
    let mut name = String::new();
    let mut errors = Vec::new();
    let mut compiled = 0;
    for (word, args) in instructions(dockerfile) {
        match word.as_str() {
            "FROM" => {
                stages.insert(std::mem::take(&mut name), std::mem::take(&mut stage));
                let words: Vec<&str> = args
                    .split_whitespace()
                    .filter(|w| !w.starts_with("--"))
                    .collect();
                stage = stages.get(words[0]).cloned().unwrap_or_else(|| Stage {
                    workdir: PathBuf::from("/"),
                    ..Stage::default()
                });
                if let [_, as_word, stage_name] = words[..]
                    && as_word.eq_ignore_ascii_case("as")
                {
                    name = stage_name.to_string();
                }
            }
            "WORKDIR" => stage.workdir = image_path(&stage.workdir, &args),
            "COPY" | "ADD" if args.contains("--from=") => {}
            "COPY" | "ADD" => copy(&mut stage, &files, &args),
            "RUN" => {
                let Some(compiles) = cargo_step(&args) else {
                    continue;
                };
                // Tests run in parallel threads: one directory per step.
                static STEPS: AtomicUsize = AtomicUsize::new(0);
                let dir = std::env::temp_dir().join(format!(
                    "hmc-image-context-{}-{}",
                    std::process::id(),
                    STEPS.fetch_add(1, Ordering::Relaxed)
                ));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir).unwrap();
                lay_out(&stage, &dir);
                // `cargo fetch` loads the whole manifest (every declared
                // target must have its file, which `cargo metadata` does
                // not check) and the lock file, and compiles nothing; the
                // crates it needs are in the local cache after a build.
                let out = Command::new(env!("CARGO"))
                    .args(["fetch", "--locked", "--target", IMAGE_TARGET])
                    .current_dir(&dir)
                    .output()
                    .expect("cargo fetch");
                let at = format!("stage {name:?}, RUN {args}");
                if !out.status.success() {
                    errors.push(format!(
                        "{at}: cargo cannot load the manifest:\n{}",
                        String::from_utf8_lossy(&out.stderr)
                    ));
                } else if compiles {
                    compiled += 1;
                    // `--bin hmc-tui` compiles the library and the binary,
                    // both under src/.
                    for m in missing_includes(&dir.join("src"), &dir) {
                        errors.push(format!("{at}: {m}, which the stage does not have"));
                    }
                }
                let _ = std::fs::remove_dir_all(&dir);
            }
            _ => {}
        }
    }
    (errors, compiled)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo().join(path)).unwrap()
}

#[test]
fn every_cargo_step_of_the_image_sees_what_cargo_needs() {
    let (errors, compiled) = check(
        &read("assets/Dockerfile"),
        &read("assets/Dockerfile.dockerignore"),
    );
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
    assert!(
        compiled >= 1,
        "no stage of assets/Dockerfile builds the crate"
    );
}

#[test]
fn a_stage_with_only_the_manifests_is_refused() {
    // The dependency layer this image used to have: the manifests alone,
    // with stub sources written by RUN. Cargo refuses it for the targets
    // Cargo.toml declares.
    let old = "FROM rust AS build\nWORKDIR /src\nCOPY Cargo.toml Cargo.lock ./\n\
               RUN mkdir src && echo 'fn main() {}' > src/main.rs \\\n && cargo build --release --locked\n";
    let (errors, _) = check(old, "");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("cannot load the manifest"),
        "{}",
        errors[0]
    );
}

#[test]
fn a_context_without_a_declared_bench_or_the_themes_is_refused() {
    let dockerfile = read("assets/Dockerfile");
    let ignore = read("assets/Dockerfile.dockerignore");
    let (errors, _) = check(&dockerfile, &format!("{ignore}\nbenches\n"));
    assert!(
        errors.iter().any(|e| e.contains("bench")),
        "leaving benches/ out must break the manifest: {errors:?}"
    );
    let (errors, _) = check(&dockerfile, &format!("{ignore}\nthemes/*.yaml\n"));
    assert!(
        errors.iter().any(|e| e.contains("themes/default.yaml")),
        "leaving the themes out must break the build: {errors:?}"
    );
}

#[test]
fn dockerignore_rules_match_as_docker_matches_them() {
    let rules =
        parse_ignore("target\n*.profraw\ndocs/**/*.png\n!docs/keep/a.png\n/assets/chart/\n");
    assert!(ignored(&rules, "target/debug/x"));
    assert!(ignored(&rules, "default.profraw"));
    assert!(
        !ignored(&rules, "src/default.profraw"),
        "a pattern is anchored at the root"
    );
    assert!(ignored(&rules, "docs/img/deep/x.png"));
    assert!(ignored(&rules, "docs/x.png"), "** matches no directory too");
    assert!(
        !ignored(&rules, "docs/keep/a.png"),
        "an exception that comes later wins"
    );
    assert!(ignored(&rules, "assets/chart/hmc-tui/Chart.yaml"));
    assert!(!ignored(&rules, "assets/crds/hmc.mirantis.com.yaml"));
    assert!(!ignored(&rules, "targets.rs"));
}
