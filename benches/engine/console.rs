//! The console's start against the harness: `hmc-tui --readonly
//! --exit-after-first-frame` in a 120×40 tmux pane, which prints when it
//! drew its first frame with rows (from the first pages), when the stores
//! synced and when it drew the first full frame after them.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::harness_dir;

/// The console's start, in ms after the process started.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FirstFrame {
    /// The first frame with rows.
    pub rows: f64,
    /// Every store has its first full list.
    pub synced: f64,
    /// The first frame after that.
    pub full: f64,
}

/// When the console over `ns` drew its first frames.
pub async fn first_frame(ns: &str) -> FirstFrame {
    let dir = std::env::temp_dir().join(format!("hmc-tui-bench-console-{ns}"));
    std::fs::create_dir_all(&dir).expect("the console's folder");
    let socket = dir.join("tmux.sock");
    let report = dir.join("stderr");
    let _ = std::fs::remove_file(&report);
    let quote = |p: &Path| format!("'{}'", p.display());
    let command = format!(
        "env XDG_STATE_HOME={state} XDG_CONFIG_HOME={state} {bin} --readonly \
         --exit-after-first-frame --kubeconfig {kc} -n {ns} 2>{report}; sleep 60",
        state = quote(&dir),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_hmc-tui"))),
        kc = quote(&harness_dir().join("mgmt.kubeconfig")),
        report = quote(&report),
    );
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(args)
            .output()
            .expect("run tmux")
    };
    let out = tmux(&["new-session", "-d", "-x", "120", "-y", "40", &command]);
    assert!(
        out.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let start = Instant::now();
    let text = loop {
        let text = std::fs::read_to_string(&report).unwrap_or_default();
        if text
            .lines()
            .any(|l| l.contains("first full frame") || l.contains("quit before"))
        {
            break text;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the console printed no first frame: {text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = tmux(&["kill-server"]);
    parse(&text).unwrap_or_else(|| panic!("the console's report: {text}"))
}

/// `first rows 240 ms after start (500 of 10000 clusters)` and `stores
/// synced 812 ms after start; first full frame 14.0 ms later (826 ms after
/// start)`, on two lines. A console that says nothing of its first rows
/// drew them with the full frame.
fn parse(text: &str) -> Option<FirstFrame> {
    let number = |line: &str, after: &str| -> Option<f64> {
        line.split(after).nth(1)?.split(' ').next()?.parse().ok()
    };
    let line = text.lines().find(|l| l.contains("stores synced"))?;
    let synced = number(line, "stores synced ")?;
    let full = number(line, "(")?;
    let rows = match text.lines().find(|l| l.starts_with("first rows ")) {
        Some(line) => number(line, "first rows ")?,
        None => full,
    };
    Some(FirstFrame { rows, synced, full })
}
