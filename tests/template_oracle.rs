//! The values template interpreter held against Go itself. Every case of
//! `tests/template_oracle/cases.yaml` runs through Go's `text/template` with
//! Sprig and Sveltos' functions (`tests/template_oracle/main.go`, which
//! `tests/harness/harness up` builds and caches) and through
//! [`template::render`]; where the two disagree, ours is wrong.
//!
//! Compared: an output byte for byte; an error's class (parse or exec) and
//! line, and an exec error's column. Message texts are not: ours may say
//! more than Go's. A missing oracle fails the test, it never skips it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Deserialize;
use sha2::{Digest, Sha256};

use hmc_tui::plan::template::{self, ErrorKind, Limits, TemplateError, Value};

fn oracle_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/template_oracle")
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    template: String,
    /// A file of `data/`, without `.json`.
    #[serde(default = "default_data")]
    data: String,
    /// Numbers decoded as plain `encoding/json` does: all `float64`.
    #[serde(default)]
    floats: bool,
    /// `false` where Go's column is not one we can hold ours to (the case
    /// says why); the line is still compared.
    #[serde(default = "yes")]
    columns: bool,
}

fn default_data() -> String {
    "cluster".into()
}

fn yes() -> bool {
    true
}

#[derive(Deserialize, Debug)]
struct GoResult {
    name: String,
    out: Option<String>,
    out_utf8: bool,
    error: Option<GoError>,
}

#[derive(Deserialize, Debug)]
struct GoError {
    /// `parse`, `exec`; `panic` or `data` for a case the oracle could not run.
    class: String,
    /// 1-based; 0 when Go's message names no line.
    line: usize,
    /// Exec errors: a 0-based byte offset within the line.
    column: usize,
    message: String,
}

/// The oracle binary: where `tests/harness/build.py` caches it (or
/// `HMC_TEMPLATE_ORACLE_BIN`), built from the source in this tree.
fn oracle_binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("python3")
        .arg(root.join("tests/harness/build.py"))
        .args(["--path", "template-oracle"])
        .output()
        .expect("run python3 tests/harness/build.py");
    assert!(
        out.status.success(),
        "tests/harness/build.py --path template-oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let path = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(
        path.exists(),
        "no template oracle at {}: run tests/harness/harness up \
         (or tests/harness/harness build template-oracle), which builds it from tests/template_oracle/",
        path.display()
    );
    let stamped = Command::new(&path)
        .arg("--source-key")
        .output()
        .expect("run the template oracle");
    let stamped = String::from_utf8_lossy(&stamped.stdout).trim().to_string();
    assert_eq!(
        stamped,
        source_key(),
        "the template oracle at {} was built from other sources than tests/template_oracle/ holds: \
         run tests/harness/harness build template-oracle",
        path.display()
    );
    path
}

/// What build.py's `source_key` computes: SHA-256 over each source file
/// (go.mod, go.sum, *.go; by name) as name, NUL, bytes, NUL.
fn source_key() -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(oracle_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.is_file()
                && (p.extension().is_some_and(|e| e == "go")
                    || p.file_name()
                        .is_some_and(|n| n == "go.mod" || n == "go.sum"))
        })
        .collect();
    files.sort();
    let mut hash = Sha256::new();
    for file in files {
        hash.update(file.file_name().unwrap().as_encoded_bytes());
        hash.update([0]);
        hash.update(std::fs::read(&file).unwrap());
        hash.update([0]);
    }
    hex::encode(hash.finalize())[..16].to_string()
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(oracle_dir().join("cases.yaml")).unwrap();
    let cases: Vec<Case> = serde_yaml::from_str(&text).expect("tests/template_oracle/cases.yaml");
    let mut names = BTreeSet::new();
    for c in &cases {
        assert!(names.insert(&c.name), "two cases named {}", c.name);
    }
    cases
}

/// The JSON text of each data file, by name.
fn datasets(cases: &[Case]) -> BTreeMap<String, String> {
    cases
        .iter()
        .map(|c| {
            let path = oracle_dir().join("data").join(format!("{}.json", c.data));
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("case {}: {}: {e}", c.name, path.display()));
            (c.data.clone(), text)
        })
        .collect()
}

/// Go's results for all cases, from one run of the oracle.
fn run_go(cases: &[Case], data: &BTreeMap<String, String>) -> Vec<GoResult> {
    let input: Vec<serde_json::Value> = cases
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name, "template": c.template, "data": data[&c.data], "floats": c.floats,
            })
        })
        .collect();
    let mut child = Command::new(oracle_binary())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the template oracle");
    // The oracle reads every case before it writes a byte, so writing all
    // of stdin first cannot deadlock on a full stdout pipe.
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(&serde_json::to_vec(&input).unwrap())
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "the template oracle failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<GoResult> = serde_json::from_slice(&out.stdout).expect("the oracle's JSON");
    assert_eq!(results.len(), cases.len(), "one result per case");
    for (c, r) in cases.iter().zip(&results) {
        assert_eq!(c.name, r.name, "results in the order of the cases");
    }
    results
}

/// The data as `render` gets it; with `floats`, every number a float, as
/// Go's plain JSON decoding gives.
fn value(json_text: &str, floats: bool) -> Value {
    fn floated(v: Value) -> Value {
        match v {
            Value::Int(i) => Value::Float(i as f64),
            Value::List(items) => Value::List(items.into_iter().map(floated).collect()),
            Value::Map(m) => Value::Map(m.into_iter().map(|(k, v)| (k, floated(v))).collect()),
            other => other,
        }
    }
    let json: serde_json::Value = serde_json::from_str(json_text).unwrap();
    let v = Value::from(&json);
    if floats { floated(v) } else { v }
}

/// Go's exec column (a 0-based byte offset in the line) as ours counts
/// (1-based, in characters).
fn our_column(template: &str, line: usize, go_byte: usize) -> Option<usize> {
    let text = template.split('\n').nth(line.checked_sub(1)?)?;
    Some(text.get(..go_byte)?.chars().count() + 1)
}

/// The byte length of the first name of a field chain `.a.b.c` or
/// `$x.a.b` as Go prints the node (`at <…>`), when the chain has more than
/// one: Go's parser places such a node at its *second* name (the chain's
/// position), while ours places it where the chain starts.
fn chain_head(node: &str) -> Option<usize> {
    if !(node.starts_with('.') || node.starts_with('$')) {
        return None;
    }
    let head = node[1..].find('.')? + 1;
    (head < node.len() - 1).then_some(head)
}

/// The node Go names in an exec error: `… at <NODE>: …`.
fn go_node(message: &str) -> Option<&str> {
    let start = message.find(" at <")? + 5;
    let end = message[start..].find(">: ")?;
    Some(&message[start..start + end])
}

/// Why ours and Go's disagree on `case`, or `None`.
fn differs(case: &Case, go: &GoResult, ours: &Result<String, TemplateError>) -> Option<String> {
    match (&go.error, ours) {
        (Some(e), _) if e.class == "panic" || e.class == "data" => Some(format!(
            "the oracle could not run the case ({}): fix the case",
            e.class
        )),
        // Go writes bytes (`trunc` cuts inside a character); a values text
        // must be UTF-8, so ours refuses such an output while it runs.
        (None, Err(mine)) if !go.out_utf8 && mine.kind == ErrorKind::Exec => None,
        (None, _) if !go.out_utf8 => {
            Some("Go's output is not UTF-8: ours must be an exec error".into())
        }
        (None, Ok(mine)) => (Some(mine) != go.out.as_ref()).then(|| "outputs differ".to_string()),
        (None, Err(_)) => Some("ours failed where Go rendered".into()),
        (Some(_), Ok(_)) => Some("ours rendered where Go failed".into()),
        (Some(e), Err(mine)) => {
            let class = match mine.kind {
                ErrorKind::Parse => "parse",
                ErrorKind::Exec => "exec",
            };
            if class != e.class {
                return Some(format!(
                    "Go's error is a {} error, ours a {class} error",
                    e.class
                ));
            }
            if e.line != 0 && e.line != mine.pos.line {
                return Some(format!("line {} in Go, {} in ours", e.line, mine.pos.line));
            }
            if class == "parse" || !case.columns {
                // Go's parse errors name a line only.
                return None;
            }
            let go_col = our_column(&case.template, e.line, e.column)?;
            let mut allowed = vec![go_col];
            if let Some(head) = go_node(&e.message).and_then(chain_head) {
                allowed.extend(our_column(&case.template, e.line, e.column - head));
            }
            (!allowed.contains(&mine.pos.column)).then(|| {
                format!(
                    "column: Go's {} (byte {}) is column {}, ours is {}",
                    e.line, e.column, go_col, mine.pos.column
                )
            })
        }
    }
}

/// A function ours does not know where Go knows it: the difference is a
/// function not written yet rather than the interpreter's.
fn missing_function(go: &GoResult, ours: &Result<String, TemplateError>) -> Option<String> {
    let mine = ours.as_ref().err()?;
    let rest = mine.message.strip_prefix("function \"")?;
    let name = &rest[..rest.find('"')?];
    let refused = format!("function \"{name}\" not defined");
    let go_refuses = go
        .error
        .as_ref()
        .is_some_and(|e| e.message.contains(&refused));
    (!go_refuses).then(|| name.to_string())
}

fn shown_go(go: &GoResult) -> String {
    match (&go.error, &go.out) {
        (Some(e), _) => format!(
            "{} error at {}:{}: {}",
            e.class, e.line, e.column, e.message
        ),
        (None, Some(out)) if go.out_utf8 => format!("{out:?}"),
        (None, Some(out)) => format!("{out:?} (not UTF-8; shown lossily)"),
        (None, None) => "nothing".into(),
    }
}

fn shown_ours(ours: &Result<String, TemplateError>) -> String {
    match ours {
        Ok(out) => format!("{out:?}"),
        Err(e) => format!(
            "{} error at {}:{} (byte {}): {}",
            match e.kind {
                ErrorKind::Parse => "parse",
                ErrorKind::Exec => "exec",
            },
            e.pos.line,
            e.pos.column,
            e.pos.offset,
            e.message
        ),
    }
}

#[test]
fn every_case_renders_as_go_renders_it() {
    let cases = cases();
    let data = datasets(&cases);
    let go = run_go(&cases, &data);
    let mut report = String::new();
    let mut differing = 0;
    let mut missing: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (case, go) in cases.iter().zip(&go) {
        let ours = template::render(
            &case.template,
            &value(&data[&case.data], case.floats),
            Limits::default(),
        );
        let Some(why) = differs(case, go, &ours) else {
            continue;
        };
        differing += 1;
        let function = missing_function(go, &ours);
        if let Some(f) = &function {
            missing.entry(f.clone()).or_default().push(&case.name);
        }
        let _ = write!(
            report,
            "\n--- {}: {why}{}\n  template: {:?}\n  data: {}{}\n  Go:   {}\n  ours: {}\n",
            case.name,
            function.map_or(String::new(), |f| format!(" (ours lacks {f})")),
            case.template,
            case.data,
            if case.floats { " (floats)" } else { "" },
            shown_go(go),
            shown_ours(&ours),
        );
    }
    let lacking: usize = missing.values().map(Vec::len).sum();
    let _ = write!(
        report,
        "\n{differing} of {} cases differ from Go: {lacking} because ours lacks a function \
         ({}), {} for another reason.\n",
        cases.len(),
        missing.keys().cloned().collect::<Vec<_>>().join(" "),
        differing - lacking
    );
    assert!(differing == 0, "{report}");
}

/// Go's names and ours, the same: a template calling a function the other
/// side lacks would fail on one side only, and an excluded function
/// (`env`, `now`, …) must be refused by both.
#[test]
fn the_functions_are_the_ones_go_has() {
    let out = Command::new(oracle_binary())
        .arg("--functions")
        .output()
        .expect("run the template oracle");
    assert!(out.status.success());
    let go: BTreeSet<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let ours: BTreeSet<String> = template::funcs::all()
        .keys()
        .chain(template::exec::BUILTINS)
        .map(|n| n.to_string())
        .collect();
    let lacking: Vec<_> = go.difference(&ours).cloned().collect();
    let extra: Vec<_> = ours.difference(&go).cloned().collect();
    assert!(
        lacking.is_empty() && extra.is_empty(),
        "ours lacks {} of Go's functions: {}\nours has {} Go has not: {}",
        lacking.len(),
        lacking.join(" "),
        extra.len(),
        extra.join(" ")
    );
}
