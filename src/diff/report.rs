//! The fleet's impact as `hmc-tui diff` prints it: text (coloured on a
//! terminal), JSON (a documented, versioned shape) or Markdown short enough
//! for a pull-request comment. Pure.
//!
//! Every name, message and value in a report comes from manifests or the
//! API server, so from anyone who may write one: values under
//! secret-looking keys come masked from the planner
//! ([`crate::plan::impact`]), and each format shows control characters
//! written out, never raw ([`crate::plan::safe_text`]).

use serde::Serialize;
use serde_json::{Value, json};

use super::manifests::DocError;
use crate::plan::impact::{Outcome, ServiceImpact, headline, summarize};
use crate::plan::safe_text::{Place, escape_control, escape_json_text, html_text, markdown_code};

/// The JSON shape's name and version; a change that removes or renames a
/// field gets a new version.
pub const JSON_VERSION: &str = "hmc-tui.diff/v1";

/// At most this many clusters are listed per group in Markdown; the rest
/// are counted, so that a comment stays under GitHub's size limit.
const LISTED: usize = 50;

/// Everything `diff` found.
#[derive(Debug, Default)]
pub struct Report {
    pub impacts: Vec<ServiceImpact>,
    /// What was not checked, and documents of other kinds.
    pub notes: Vec<String>,
    /// Documents that would be refused on apply.
    pub errors: Vec<DocError>,
}

impl Report {
    /// As `kubectl diff`: 0 when nothing changes, 1 when something does,
    /// 2 when a document would be refused.
    pub fn exit_code(&self) -> i32 {
        if !self.errors.is_empty() {
            2
        } else if self.impacts.is_empty() {
            0
        } else {
            1
        }
    }
}

fn kind(o: &Outcome) -> &'static str {
    match o {
        Outcome::Changes { .. } => "changes",
        Outcome::Overridden { .. } => "overridden",
        Outcome::Installed => "installed",
        Outcome::Removed => "removed",
        Outcome::Blocked { .. } => "blocked",
    }
}

/// Counts of affected services per outcome, in a fixed order.
fn counts(impacts: &[ServiceImpact]) -> Vec<(&'static str, usize)> {
    ["changes", "overridden", "installed", "removed", "blocked"]
        .into_iter()
        .map(|k| (k, impacts.iter().filter(|i| kind(&i.outcome) == k).count()))
        .collect()
}

fn clusters(impacts: &[ServiceImpact]) -> usize {
    let mut c: Vec<(&str, &str)> = impacts
        .iter()
        .map(|i| (i.namespace.as_str(), i.cluster.as_str()))
        .collect();
    c.sort();
    c.dedup();
    c.len()
}

/// Each cluster's wave (`namespace/name` → its words), worked out once per
/// report: a group lists up to every cluster of the fleet.
fn waves(impacts: &[ServiceImpact]) -> std::collections::HashMap<String, String> {
    impacts
        .iter()
        .filter_map(|i| Some((format!("{}/{}", i.namespace, i.cluster), i.wave?.words())))
        .collect()
}

/// The JSON shape (documented in the book's CLI page).
pub fn json(report: &Report) -> Value {
    let impacts = &report.impacts;
    let services: Vec<Value> = impacts
        .iter()
        .map(|i| {
            let mut v = json!({
                "namespace": i.namespace,
                "cluster": i.cluster,
                "service": i.service,
                "outcome": kind(&i.outcome),
                "wave": i.wave.map(|w| json!({"number": w.number, "of": w.of, "approval": w.approval})),
            });
            match &i.outcome {
                Outcome::Changes { changes, chart } => {
                    v["changes"] = json!(changes
                        .iter()
                        .map(|c| json!({"path": c.path, "old": c.old, "new": c.new}))
                        .collect::<Vec<_>>());
                    v["chart"] = json!(chart.as_ref().map(|(from, to)| json!({"from": from, "to": to})));
                }
                Outcome::Overridden { paths } => v["paths"] = json!(paths),
                Outcome::Blocked { why } => v["why"] = json!(why),
                Outcome::Installed | Outcome::Removed => {}
            }
            v
        })
        .collect();
    let groups: Vec<Value> = summarize(impacts)
        .into_iter()
        .map(|g| json!({"service": g.service, "what": g.what, "blocked": g.blocked, "clusters": g.clusters}))
        .collect();
    let counts: serde_json::Map<String, Value> = counts(impacts)
        .into_iter()
        .map(|(k, n)| (k.to_string(), json!(n)))
        .collect();
    json!({
        "apiVersion": JSON_VERSION,
        "headline": headline(impacts),
        "clusters": clusters(impacts),
        "counts": counts,
        "groups": groups,
        "services": services,
        "notes": report.notes,
        "errors": report.errors,
    })
}

/// Terminal colours, or none.
#[derive(Clone, Copy)]
pub struct Colours(pub bool);

impl Colours {
    fn paint(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
}

/// Text for a person at a terminal: the headline, then each group with its
/// clusters (and their waves), the notes and the errors. Control
/// characters from the report are written out before any colour is added.
pub fn text(report: &Report, colours: Colours) -> String {
    let impacts = &report.impacts;
    let mut out = String::new();
    out.push_str(&colours.paint("1", &escape_control(&headline(impacts))));
    out.push('\n');
    let waves = waves(impacts);
    for g in summarize(impacts) {
        let (mark, code) = if g.blocked {
            ("!", "31")
        } else if g.what.starts_with("keep their own") {
            ("=", "2")
        } else if g.what == "newly installed" {
            ("+", "32")
        } else if g.what == "removed" {
            ("-", "31")
        } else {
            ("~", "33")
        };
        let noun = if g.clusters.len() == 1 {
            "cluster"
        } else {
            "clusters"
        };
        out.push('\n');
        out.push_str(&colours.paint(
            code,
            &format!(
                "{mark} {}: {} ({} {noun})",
                escape_control(&g.service),
                escape_control(&g.what),
                g.clusters.len()
            ),
        ));
        out.push('\n');
        for c in &g.clusters {
            let name = escape_control(c);
            match waves.get(c) {
                Some(w) => out.push_str(&format!("    {name}  {}\n", colours.paint("2", w))),
                None => out.push_str(&format!("    {name}\n")),
            }
        }
    }
    if !report.notes.is_empty() {
        out.push('\n');
        for n in &report.notes {
            out.push_str(&colours.paint("2", &format!("note: {}", escape_control(n))));
            out.push('\n');
        }
    }
    if !report.errors.is_empty() {
        out.push('\n');
        for e in &report.errors {
            let line = format!("error: {}: {}", e.origin, e.message);
            out.push_str(&colours.paint("31", &escape_control(&line)));
            out.push('\n');
        }
    }
    out
}

/// Markdown for a pull-request comment: the headline, a table of groups,
/// then one `<details>` per group with its clusters (at most 50 listed).
/// Whatever came from the report is a code span (no link, no HTML, no
/// mention, and a table cell it cannot leave) or, in a `<summary>`, HTML
/// text.
pub fn markdown(report: &Report) -> String {
    let impacts = &report.impacts;
    let mut out = format!(
        "### Fleet impact\n\n**{}**\n",
        markdown_code(&headline(impacts), Place::Text)
    );
    let groups = summarize(impacts);
    if !groups.is_empty() {
        out.push_str("\n| | Service | Outcome | Clusters |\n|---|---|---|---:|\n");
        for g in &groups {
            let mark = if g.blocked { "⛔" } else { "" };
            out.push_str(&format!(
                "| {mark} | {} | {} | {} |\n",
                markdown_code(&g.service, Place::TableCell),
                markdown_code(&g.what, Place::TableCell),
                g.clusters.len()
            ));
        }
        let waves = waves(impacts);
        for g in &groups {
            out.push_str(&format!(
                "\n<details><summary><code>{}</code>: <code>{}</code> ({})</summary>\n\n",
                html_text(&g.service),
                html_text(&g.what),
                g.clusters.len()
            ));
            for c in g.clusters.iter().take(LISTED) {
                let name = markdown_code(c, Place::Text);
                match waves.get(c) {
                    Some(w) => out.push_str(&format!("- {name} ({w})\n")),
                    None => out.push_str(&format!("- {name}\n")),
                }
            }
            if g.clusters.len() > LISTED {
                out.push_str(&format!("- and {} more\n", g.clusters.len() - LISTED));
            }
            out.push_str("\n</details>\n");
        }
    }
    if !report.errors.is_empty() {
        out.push_str("\n**Refused:**\n\n");
        for e in &report.errors {
            out.push_str(&format!(
                "- {}: {}\n",
                markdown_code(&e.origin.to_string(), Place::Text),
                markdown_code(&e.message, Place::Text)
            ));
        }
    }
    if !report.notes.is_empty() {
        out.push('\n');
        for n in &report.notes {
            out.push_str(&format!("> {}\n", markdown_code(n, Place::Text)));
        }
    }
    out
}

/// The output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
pub enum Format {
    Text,
    Json,
    Markdown,
}

/// The report in `format`.
pub fn render(report: &Report, format: Format, colours: Colours) -> String {
    match format {
        Format::Text => text(report, colours),
        Format::Json => {
            // The serializer escapes C0; DEL, C1 and the invisible format
            // characters it leaves raw are escaped here.
            let text = serde_json::to_string_pretty(&json(report)).unwrap_or_default();
            let mut s = escape_json_text(&text).into_owned();
            s.push('\n');
            s
        }
        Format::Markdown => markdown(report),
    }
}

#[cfg(test)]
mod tests;
