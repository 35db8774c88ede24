//! The book's reference pages, generated from the code: the CLI (from
//! clap), the CRD fields (from the CRDs), the keymap (from the key tables)
//! the metrics (from the exposition) and the engine's permissions (from the
//! ClusterRole of `assets/deploy/`). `hmc-tui docs <page>` prints one
//! and `hmc-tui docs write` writes them all under `docs/src/reference/`;
//! `tests/docs.rs` fails when a committed page differs.

mod cli;
mod crds;
mod rbac;
mod text;

use std::fmt::Write as _;

pub use cli::cli;
pub use crds::crds;
pub use rbac::{CLUSTER_ROLE, rbac};
pub use text::UPDATE;
use text::{header, inline};

/// The generated pages: their name (`hmc-tui docs <name>`) and file under
/// `docs/src/reference/`.
pub const PAGES: [(&str, &str); 5] = [
    ("cli", "cli.md"),
    ("crds", "crds.md"),
    ("keys", "keys.md"),
    ("metrics", "metrics.md"),
    ("rbac", "rbac.md"),
];

/// Where the generated pages live, from the repository's root.
pub const DIR: &str = "docs/src/reference";

/// Page `name`, with `command` the binary's clap command (for `cli`) and
/// `root` the repository's root (for `rbac`, read from the chart's render).
pub fn page(name: &str, command: &clap::Command, root: &std::path::Path) -> Result<String, String> {
    match name {
        "cli" => Ok(cli(command)),
        "crds" => Ok(crds()),
        "keys" => Ok(keys()),
        "metrics" => Ok(metrics()),
        "rbac" => {
            let path = root.join(CLUSTER_ROLE);
            let text = std::fs::read_to_string(&path).map_err(|e| {
                format!(
                    "{}: {e}; run `hmc-tui docs` from the repository's root",
                    path.display()
                )
            })?;
            rbac(&text)
        }
        _ => {
            let names: Vec<&str> = PAGES.iter().map(|(n, _)| *n).collect();
            Err(format!(
                "no page {name:?}: one of {}, or write",
                names.join(", ")
            ))
        }
    }
}

/// The default keymap, one table per key table.
pub fn keys() -> String {
    let mut out = header("Keymap");
    out.push_str(
        "The console's default keys, table by table, as `hmc-tui keys` prints them. \
         Keys are data: `keys:` in `~/.config/hmc-tui/config.yaml` remaps them \
         (see [The console](../console.md)), and `hmc-tui keys` prints the map \
         with the remapping applied.\n",
    );
    for (name, about, lines) in crate::tui::keys::Keymap::default().tables() {
        let _ = write!(
            out,
            "\n## {name}\n\n{}\n\n| action | keys | what it does |\n|---|---|---|\n",
            inline(about)
        );
        for (action, keys, what) in lines {
            let keys: Vec<String> = keys.iter().map(|k| code(k)).collect();
            let _ = writeln!(
                out,
                "| `{action}` | {} | {} |",
                keys.join(" "),
                inline(what)
            );
        }
    }
    out
}

/// `text` as a code span, whatever backticks it holds.
fn code(text: &str) -> String {
    match text {
        "|" => "`\\|`".to_string(),
        t if t.contains('`') => format!("`` {t} ``"),
        t => format!("`{t}`"),
    }
}

/// Every metric the engine serves on `/metrics`, with its type, labels and
/// help, read from the encoder's own exposition.
pub fn metrics() -> String {
    let mut out = header("Metrics");
    out.push_str(
        "What the engine serves on `/metrics` (the address of `--metrics-addr`, \
         `0.0.0.0:8080` by default), in the OpenMetrics text format. \
         See [Metrics and alerts](../operations/metrics.md) for what to watch.\n\n\
         | metric | type | labels | what it counts |\n|---|---|---|---|\n",
    );
    let text = crate::engine::metrics::catalogue();
    let mut help: Vec<(String, String)> = Vec::new();
    let mut kinds: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ")
            && let Some((name, what)) = rest.split_once(' ')
        {
            help.push((name.to_string(), what.to_string()));
        } else if let Some(rest) = line.strip_prefix("# TYPE ")
            && let Some((name, kind)) = rest.split_once(' ')
        {
            kinds.push((name.to_string(), kind.to_string()));
        }
    }
    for (name, what) in help {
        let kind = kinds
            .iter()
            .find(|(n, _)| *n == name)
            .map_or("", |(_, k)| k.as_str());
        let shown = match kind {
            "counter" => format!("{name}_total"),
            _ => name.clone(),
        };
        let labels = labels_of(&text, &name);
        let labels = if labels.is_empty() {
            "—".to_string()
        } else {
            labels
                .iter()
                .map(|l| format!("`{l}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = writeln!(out, "| `{shown}` | {kind} | {labels} | {} |", inline(&what));
    }
    out
}

/// The label names of the samples of metric family `name` (`le` left out).
fn labels_of(text: &str, name: &str) -> Vec<String> {
    let mut labels: Vec<String> = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some(rest) = line.strip_prefix(name) else {
            continue;
        };
        let Some(start) = rest.find('{') else {
            continue;
        };
        if !["", "_total", "_bucket", "_count", "_sum", "_created"].contains(&&rest[..start]) {
            continue;
        }
        let inside = &rest[start + 1..rest.find('}').unwrap_or(rest.len())];
        for pair in inside.split(',') {
            if let Some((label, _)) = pair.split_once('=')
                && label != "le"
                && !labels.iter().any(|l| l == label)
            {
                labels.push(label.to_string());
            }
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_is_one_line_with_pipes_and_tags_escaped() {
        assert_eq!(
            inline("a | b\n  <c> `<d>`"),
            "a \\| b &lt;c> `<d>`".to_string()
        );
    }

    #[test]
    fn every_metric_has_a_row_with_its_labels() {
        let page = metrics();
        assert!(page.contains("| `hmc_engine_writes_total` | counter | — |"));
        assert!(page.contains("| `hmc_api_requests_total` | counter | `verb`, `resource` |"));
        assert!(page.contains("| `hmc_reconcile_duration_seconds` | histogram | `controller` |"));
        assert!(page.contains("`hmc_chart_repositories_held` | gauge | `reason`"));
    }

    #[test]
    fn every_key_table_has_a_section() {
        let page = keys();
        for (name, _, _) in crate::tui::keys::Keymap::default().tables() {
            assert!(page.contains(&format!("\n## {name}\n")), "{name}");
        }
    }
}
