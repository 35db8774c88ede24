use serde_json::json;

use super::*;
use crate::diff::manifests::Origin;
use crate::plan::impact::Wave;
use crate::plan::safe_text::mask_change;
use crate::plan::values::Change;

fn one(cluster: &str, outcome: Outcome, wave: Option<Wave>) -> ServiceImpact {
    ServiceImpact {
        namespace: "team-a".into(),
        cluster: cluster.into(),
        service: "ingress".into(),
        outcome,
        wave,
    }
}

fn report() -> Report {
    let change = Outcome::Changes {
        changes: vec![Change {
            path: "controller.replicaCount".into(),
            old: Some(json!(2)),
            new: Some(json!(3)),
        }],
        chart: None,
    };
    let wave = |number, approval| {
        Some(Wave {
            number,
            of: 2,
            approval,
        })
    };
    Report {
        impacts: vec![
            one("a", change.clone(), wave(1, false)),
            one("b", change, wave(2, true)),
            one(
                "c",
                Outcome::Blocked {
                    why: "the chart's schema: a|b <c>".into(),
                },
                None,
            ),
        ],
        notes: vec!["fleet.yaml, document 3: v1/ConfigMap is not one of ours; not planned".into()],
        errors: Vec::new(),
    }
}

#[test]
fn exit_codes_are_those_of_kubectl_diff() {
    assert_eq!(Report::default().exit_code(), 0);
    let mut r = report();
    assert_eq!(r.exit_code(), 1);
    r.errors.push(DocError {
        origin: Origin {
            file: "f.yaml".into(),
            document: 2,
        },
        message: "metadata.name is required".into(),
    });
    assert_eq!(r.exit_code(), 2);
}

#[test]
fn text_lists_groups_with_their_clusters_and_waves_and_colours_only_when_asked() {
    let plain = text(&report(), Colours(false));
    assert_eq!(
        plain,
        "3 clusters: 2 ingress: controller.replicaCount: 2 → 3; 1 ingress: blocked: the chart's \
         schema: a|b <c>\n\
         \n~ ingress: controller.replicaCount: 2 → 3 (2 clusters)\n    team-a/a  wave 1 of 2\n    \
         team-a/b  wave 2 of 2, after an approval\n\
         \n! ingress: blocked: the chart's schema: a|b <c> (1 cluster)\n    team-a/c\n\
         \nnote: fleet.yaml, document 3: v1/ConfigMap is not one of ours; not planned\n"
    );
    assert!(!plain.contains('\x1b'));
    assert!(text(&report(), Colours(true)).contains("\x1b[31m! ingress"));
}

#[test]
fn markdown_escapes_what_would_break_its_table_and_folds_each_group() {
    let md = markdown(&report());
    assert!(md.starts_with("### Fleet impact\n\n**`3 clusters:"), "{md}");
    assert!(
        md.contains("| ⛔ | `ingress` | `blocked: the chart's schema: a\\|b <c>` | 1 |"),
        "{md}"
    );
    assert_eq!(md.matches("<details>").count(), 2);
    assert!(
        md.contains("<summary><code>ingress</code>: <code>blocked: the chart&#39;s schema: a|b &lt;c&gt;</code> (1)</summary>"),
        "{md}"
    );
    assert!(
        md.contains("- `team-a/b` (wave 2 of 2, after an approval)"),
        "{md}"
    );
    assert!(md.contains("> `fleet.yaml, document 3"), "{md}");
}

#[test]
fn markdown_lists_at_most_fifty_clusters_a_group() {
    let impacts = (0..60)
        .map(|i| one(&format!("c{i:02}"), Outcome::Installed, None))
        .collect();
    let md = markdown(&Report {
        impacts,
        ..Default::default()
    });
    assert_eq!(md.matches("\n- `team-a/").count(), 50);
    assert!(md.contains("- and 10 more"), "{md}");
}

#[test]
fn json_has_a_versioned_shape_with_counts_groups_and_services() {
    let v = json(&report());
    assert_eq!(v["apiVersion"], JSON_VERSION);
    assert_eq!(v["clusters"], 3);
    assert_eq!(
        v["counts"],
        json!({"changes": 2, "overridden": 0, "installed": 0, "removed": 0, "blocked": 1})
    );
    assert_eq!(v["groups"][0]["clusters"], json!(["team-a/a", "team-a/b"]));
    assert_eq!(
        v["services"][1],
        json!({
            "namespace": "team-a", "cluster": "b", "service": "ingress", "outcome": "changes",
            "wave": {"number": 2, "of": 2, "approval": true},
            "changes": [{"path": "controller.replicaCount", "old": 2, "new": 3}],
            "chart": null,
        })
    );
    assert_eq!(v["services"][2]["why"], "the chart's schema: a|b <c>");
    assert_eq!(v["errors"], json!([]));
    let rendered = render(&report(), Format::Json, Colours(true));
    assert!(!rendered.contains('\x1b'));
    let back: serde_json::Value = serde_json::from_str(&rendered).unwrap();
    assert_eq!(back, v);
}

/// A report whose names, messages and values were written by a hostile
/// tenant: an escape sequence, a backtick, a pipe, HTML, a link, a mention,
/// and a password, which comes masked from the planner (`plan::impact`).
fn hostile() -> Report {
    let name = "web\u{1b}]0;owned\u{7}\u{1b}[2J`|<b>[x](https://evil.example)@org/admins";
    let change = Outcome::Changes {
        changes: vec![
            mask_change(&Change {
                path: "auth.password".into(),
                old: Some(json!("hunter2")),
                new: Some(json!("hunter3")),
            }),
            Change {
                path: "motd".into(),
                old: Some(json!("hi")),
                new: Some(json!("\u{1b}[31mred\u{9b}2J")),
            },
        ],
        chart: None,
    };
    Report {
        impacts: vec![ServiceImpact {
            namespace: "team-a".into(),
            cluster: name.into(),
            service: name.into(),
            outcome: change,
            wave: None,
        }],
        notes: vec![format!("f.yaml, document 1: {name} is not one of ours")],
        errors: vec![DocError {
            origin: Origin {
                file: "f\u{1b}[2J.yaml".into(),
                document: 1,
            },
            message: "bad \u{1b}[31m".into(),
        }],
    }
}

/// Whether `s` has anything a terminal interprets.
fn raw_control(s: &str) -> bool {
    s.chars().any(|c| c.is_control() && c != '\n')
}

#[test]
fn text_shows_control_characters_written_out_and_masks_secrets() {
    let plain = text(&hostile(), Colours(false));
    assert!(!raw_control(&plain), "{plain:?}");
    assert!(
        plain.contains("web\\u{1b}]0;owned\\u{7}\\u{1b}[2J"),
        "{plain}"
    );
    assert!(plain.contains("f\\u{1b}[2J.yaml"), "{plain}");
    assert!(
        plain.contains("auth.password: ++++++++ → ++++++++ (changed)"),
        "{plain}"
    );
    assert!(!plain.contains("hunter"), "{plain}");
    // Only the colours' own escapes reach the terminal, each a colour.
    let coloured = text(&hostile(), Colours(true));
    for sequence in coloured.split('\x1b').skip(1) {
        assert!(
            sequence.starts_with('[') && sequence[1..].starts_with(|c: char| c.is_ascii_digit()),
            "{sequence:?}"
        );
        let end = sequence.find('m').unwrap_or(usize::MAX);
        assert!(
            sequence[1..end].chars().all(|c| c.is_ascii_digit()),
            "{sequence:?}"
        );
    }
}

#[test]
fn markdown_keeps_a_crafted_name_in_its_code_span_and_cell() {
    let md = markdown(&hostile());
    assert!(!raw_control(&md), "{md:?}");
    assert!(!md.contains("hunter"), "{md}");
    let row = md
        .lines()
        .find(|l| l.starts_with("| ") && l.contains("owned"))
        .unwrap_or_default();
    // Four cells and their borders: no pipe of the name split the row.
    let splits = {
        let mut n = 0;
        let mut chars = row.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => {
                    chars.next();
                }
                '|' => n += 1,
                _ => {}
            }
        }
        n
    };
    assert_eq!(splits, 5, "{row}");
    // The name's backtick cannot close the span: the fence is longer.
    assert!(row.contains("| ``web\\u{1b}]0;owned"), "{row}");
    // In the summary, HTML text: no tag, link or mention.
    let summary = md
        .lines()
        .find(|l| l.contains("<summary>"))
        .unwrap_or_default();
    assert!(summary.contains("&lt;b&gt;"), "{summary}");
    assert!(summary.contains("&#64;org/admins"), "{summary}");
    assert!(!summary.contains("<b>"), "{summary}");
}

#[test]
fn json_escapes_every_control_character_and_masks_secrets() {
    let rendered = render(&hostile(), Format::Json, Colours(true));
    assert!(!raw_control(&rendered), "{rendered:?}");
    assert!(rendered.contains("\\u001b]0;owned"), "{rendered}");
    assert!(rendered.contains("\\u009b2J"), "{rendered}");
    assert!(!rendered.contains("hunter"), "{rendered}");
    // The same document: a reader of the JSON gets the names as they are.
    let back: serde_json::Value = serde_json::from_str(&rendered).unwrap_or_default();
    assert_eq!(
        back["services"][0]["cluster"],
        json!(hostile().impacts[0].cluster)
    );
    assert_eq!(
        back["services"][0]["changes"][0],
        json!({"path": "auth.password", "old": "++++++++", "new": "++++++++ (changed)"})
    );
}
