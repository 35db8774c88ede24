//! The console's start against the harness: `hmc-tui --readonly
//! --exit-after-first-frame` in a 120×40 tmux pane, which prints how long
//! the stores took to sync and the first full frame after them.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::harness_dir;

/// (stores synced, first full frame) in ms after the process started.
pub async fn first_frame(ns: &str) -> (f64, f64) {
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
    let line = loop {
        let text = std::fs::read_to_string(&report).unwrap_or_default();
        if let Some(l) = text
            .lines()
            .find(|l| l.contains("first full frame") || l.contains("quit before"))
        {
            break l.to_string();
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the console printed no first frame: {text}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = tmux(&["kill-server"]);
    parse(&line).unwrap_or_else(|| panic!("the console's report: {line}"))
}

/// `stores synced 812 ms after start; first full frame 14.0 ms later (826 ms after start)`.
fn parse(line: &str) -> Option<(f64, f64)> {
    let synced = line
        .split("stores synced ")
        .nth(1)?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    let total = line.split('(').nth(1)?.split(' ').next()?.parse().ok()?;
    Some((synced, total))
}
