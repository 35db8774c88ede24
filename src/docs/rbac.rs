//! The engine's permissions, from the ClusterRole of `assets/deploy/`: each
//! rule with the comment above it, which says which code needs it.

use std::fmt::Write as _;

use k8s_openapi::api::rbac::v1::{ClusterRole, PolicyRule};

use super::text::{header, inline};

/// Where the ClusterRole is, from the repository's root.
pub const CLUSTER_ROLE: &str = "assets/deploy/clusterrole.yaml";

/// The page, from the text of `assets/deploy/clusterrole.yaml`.
pub fn rbac(cluster_role: &str) -> Result<String, String> {
    let role: ClusterRole = serde_yaml::from_str(cluster_role)
        .map_err(|e| format!("{CLUSTER_ROLE} is not a ClusterRole: {e}"))?;
    let rules = role.rules.unwrap_or_default();
    let why = comments_above_rules(cluster_role);
    if why.len() != rules.len() {
        return Err(format!(
            "{CLUSTER_ROLE}: {} rules but {} comment blocks above them",
            rules.len(),
            why.len()
        ));
    }
    // A comment may speak for the rules right under it; the first rule
    // must have one.
    if why.first().is_some_and(String::is_empty) {
        return Err(format!(
            "{CLUSTER_ROLE}: its first rule says nothing of why the engine needs it; write a comment above it in the chart"
        ));
    }
    let mut out = header("Engine permissions");
    let _ = writeln!(
        out,
        "Every rule of the engine's ClusterRole (`{CLUSTER_ROLE}`, rendered from the \
         chart `assets/chart/hmc-tui`), with why the engine needs it, as the chart says. \
         The Lease is granted apart, in its namespace only (`lease-rbac.yaml`), and so is \
         the one Secret the engine reads, by name (`notifications-rbac.yaml`); a \
         namespace-scoped engine gets the same rules in a Role. What they add up to: \
         [RBAC](../operations/rbac.md).\n\n\
         | API group | resources | verbs | why |\n|---|---|---|---|"
    );
    for (rule, why) in rules.iter().zip(why) {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            groups(rule),
            resources(rule),
            codes(&rule.verbs),
            if why.is_empty() {
                "as the rule above".to_string()
            } else {
                inline(&why)
            }
        );
    }
    Ok(out)
}

fn groups(rule: &PolicyRule) -> String {
    let groups: Vec<String> = rule
        .api_groups
        .iter()
        .flatten()
        .map(|g| {
            if g.is_empty() {
                "core".to_string()
            } else {
                format!("`{g}`")
            }
        })
        .collect();
    groups.join(", ")
}

fn resources(rule: &PolicyRule) -> String {
    let mut text = codes(rule.resources.as_deref().unwrap_or_default());
    if let Some(names) = rule.resource_names.as_ref().filter(|n| !n.is_empty()) {
        let _ = write!(text, " named {}", codes(names));
    }
    text
}

fn codes(words: &[String]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The comment block right above each `- apiGroups:` under `rules:`, in
/// order, as one paragraph each.
fn comments_above_rules(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut comment: Vec<&str> = Vec::new();
    let mut in_rules = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if line.starts_with("rules:") {
            in_rules = true;
        } else if !in_rules {
            continue;
        } else if let Some(words) = trimmed.strip_prefix('#') {
            comment.push(words.trim());
        } else if trimmed.starts_with("- apiGroups:") {
            blocks.push(comment.join(" "));
            comment.clear();
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLE: &str = r#"apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: x
rules:
  # Watched by
  # the stores.
  - apiGroups: [""]
    resources: ["secrets"]
    verbs: ["patch"]
  # The CRDs.
  - apiGroups: ["apiextensions.k8s.io"]
    resources: ["customresourcedefinitions"]
    resourceNames: [a, b]
    verbs: ["get"]
"#;

    #[test]
    fn each_rule_has_its_comment() {
        let page = rbac(ROLE).expect("a page");
        assert!(page.contains("| core | `secrets` | `patch` | Watched by the stores. |"));
        assert!(page.contains(
            "| `apiextensions.k8s.io` | `customresourcedefinitions` named `a`, `b` | `get` | The CRDs. |"
        ));
    }

    #[test]
    fn a_comment_speaks_for_the_rules_under_it_but_not_for_none() {
        let role = ROLE.replace("  # The CRDs.\n", "");
        assert!(
            rbac(&role)
                .expect("a page")
                .contains("| `get` | as the rule above |")
        );
        let role = ROLE.replace("  # Watched by\n  # the stores.\n", "");
        assert!(rbac(&role).unwrap_err().contains("first rule says nothing"));
        assert!(rbac("kind: ClusterRole\nrules: [").is_err());
    }
}
