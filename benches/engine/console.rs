//! The console's start against the harness: `hmc-tui --readonly
//! --exit-after-first-frame` in a 120×40 tmux pane, which prints when it
//! drew its first frame with rows (from the first pages), when the stores
//! synced and when it drew the first full frame after them. Three consoles
//! over one context, then three over three contexts at once, each figure
//! the median of its three.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::harness_dir;

/// The console's start, in ms after the process started.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FirstFrame {
    /// The first frame with rows.
    pub rows: f64,
    /// Every store has its first full list.
    pub synced: f64,
    /// The first frame after that.
    pub full: f64,
    /// The clusters the first rows had, of how many (none said: the
    /// rows came with the full frame).
    pub of: Option<(u64, u64)>,
}

/// Consoles started one after another for each figure.
const RUNS: usize = 3;

/// The medians of [`RUNS`] consoles over `ns`, then of as many over three
/// contexts at once: `ns`, `other` and `ns` again (one API server seen as
/// three management clusters of N clusters each).
pub async fn first_frames(ns: &str, other: &str, n: usize) -> (FirstFrame, FirstFrame) {
    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    let one = medians(ns, &kubeconfig, &format!("-n {ns}"), "one context", n).await;
    let three_kc =
        std::env::temp_dir().join(format!("hmc-tui-bench-console-{ns}-three.kubeconfig"));
    crate::common::admin_contexts(&three_kc, &[("one", ns), ("two", other), ("three", ns)]);
    let three = medians(
        ns,
        &three_kc,
        "--context one,two,three",
        "three contexts",
        3 * n,
    )
    .await;
    (one, three)
}

/// Each figure's median over [`RUNS`] consoles started with `args`, whose
/// first rows must be of all `clusters` (a frame of fewer contexts than
/// asked for is no figure of them).
async fn medians(
    ns: &str,
    kubeconfig: &Path,
    args: &str,
    label: &str,
    clusters: usize,
) -> FirstFrame {
    let mut runs = Vec::new();
    for i in 0..RUNS {
        let f = first_frame(ns, kubeconfig, args).await;
        let of =
            f.of.map_or(String::new(), |(a, t)| format!(" ({a} of {t} clusters)"));
        crate::progress(&format!(
            "console ({label}) {} of {RUNS}: first rows {:.0} ms{of}, synced {:.0} ms, first full frame {:.0} ms",
            i + 1,
            f.rows,
            f.synced,
            f.full
        ));
        if let Some((_, total)) = f.of {
            assert_eq!(
                total, clusters as u64,
                "the first rows ({label}) were not of every cluster"
            );
        }
        runs.push(f);
    }
    let median = |figure: fn(&FirstFrame) -> f64| {
        let mut v: Vec<f64> = runs.iter().map(figure).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    FirstFrame {
        rows: median(|f| f.rows),
        synced: median(|f| f.synced),
        full: median(|f| f.full),
        of: None,
    }
}

/// When one console of `args` (with `kubeconfig`) drew its first frames.
async fn first_frame(ns: &str, kubeconfig: &Path, args: &str) -> FirstFrame {
    // A folder (and a tmux server) of its own for each console: a server
    // told to quit is not gone at once, and a new one on its socket fails.
    static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let i = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("hmc-tui-bench-console-{ns}-{i}"));
    std::fs::create_dir_all(&dir).expect("the console's folder");
    let socket = dir.join("tmux.sock");
    let report = dir.join("stderr");
    let _ = std::fs::remove_file(&report);
    let quote = |p: &Path| format!("'{}'", p.display());
    let command = format!(
        "env XDG_STATE_HOME={state} XDG_CONFIG_HOME={state} {bin} --readonly \
         --exit-after-first-frame --kubeconfig {kc} {args} 2>{report}; sleep 60",
        state = quote(&dir),
        bin = quote(Path::new(env!("CARGO_BIN_EXE_hmc-tui"))),
        kc = quote(kubeconfig),
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
    let rows_line = text.lines().find(|l| l.starts_with("first rows "));
    let rows = match rows_line {
        Some(line) => number(line, "first rows ")?,
        None => full,
    };
    // `(500 of 10000 clusters)`
    let of = rows_line.and_then(|line| {
        let (a, t) = line
            .split_once('(')?
            .1
            .split_once(" clusters")?
            .0
            .split_once(" of ")?;
        Some((a.parse().ok()?, t.parse().ok()?))
    });
    Some(FirstFrame {
        rows,
        synced,
        full,
        of,
    })
}
