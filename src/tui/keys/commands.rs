//! The `:` commands, their aliases and their completion.

/// Where a `:` command goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goto {
    Clusters,
    Templates,
    /// The templates screen, ClusterTemplates only.
    ClusterTemplates,
    /// The templates screen, ServiceTemplates only.
    ServiceTemplates,
    Rollouts,
    MultiClusterServices,
    Events,
    Warnings,
    Help,
    Quit,
    /// `:ns [name]`: switch the namespace shown, or list them.
    Namespace,
    /// `:ctx [name]`: switch the kubeconfig context, or list them.
    Context,
}

/// A `:` command with its aliases.
#[derive(Clone, Copy, Debug)]
pub struct CommandSpec {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub description: &'static str,
    pub target: Goto,
}

pub const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "clusters",
        aliases: &["mcl", "mcluster", "cl", "managedclusters", "managedcluster"],
        description: "ManagedClusters",
        target: Goto::Clusters,
    },
    CommandSpec {
        name: "templates",
        aliases: &["tmpl", "template"],
        description: "ClusterTemplates and ServiceTemplates",
        target: Goto::Templates,
    },
    CommandSpec {
        name: "clustertemplates",
        aliases: &["ct", "clustertmpl", "clustertemplate"],
        description: "ClusterTemplates only",
        target: Goto::ClusterTemplates,
    },
    CommandSpec {
        name: "servicetemplates",
        aliases: &["st", "svctmpl", "servicetemplate"],
        description: "ServiceTemplates only",
        target: Goto::ServiceTemplates,
    },
    CommandSpec {
        name: "rollouts",
        aliases: &["ro", "rollout", "tr", "templaterollouts", "templaterollout"],
        description: "TemplateRollouts: waves, approvals",
        target: Goto::Rollouts,
    },
    CommandSpec {
        name: "multiclusterservices",
        aliases: &["mcs", "multiclusterservice"],
        description: "MultiClusterServices",
        target: Goto::MultiClusterServices,
    },
    CommandSpec {
        name: "events",
        aliases: &["ev", "event"],
        description: "what the engine did, newest first",
        target: Goto::Events,
    },
    CommandSpec {
        name: "warnings",
        aliases: &["warn", "warning"],
        description: "the engine's warnings, newest first",
        target: Goto::Warnings,
    },
    CommandSpec {
        name: "ns",
        aliases: &["namespace", "namespaces"],
        description: "switch namespace: NAME or all",
        target: Goto::Namespace,
    },
    CommandSpec {
        name: "ctx",
        aliases: &["context", "contexts"],
        description: "switch context: NAME, +NAME, -NAME",
        target: Goto::Context,
    },
    CommandSpec {
        name: "help",
        aliases: &["h"],
        description: "keys and commands",
        target: Goto::Help,
    },
    CommandSpec {
        name: "quit",
        aliases: &["q", "q!", "exit"],
        description: "leave the console",
        target: Goto::Quit,
    },
];

fn normalize(input: &str) -> String {
    input.trim().trim_start_matches(':').trim().to_lowercase()
}

/// The command a line names, by name or alias.
pub fn resolve(input: &str) -> Option<Goto> {
    let word = normalize(input);
    COMMANDS
        .iter()
        .find(|c| c.name == word || c.aliases.contains(&word.as_str()))
        .map(|c| c.target)
}

/// The names that could complete `input`: command names first; aliases only
/// when no name fits.
pub fn candidates(input: &str) -> Vec<&'static str> {
    let word = normalize(input);
    let names: Vec<&'static str> = COMMANDS
        .iter()
        .map(|c| c.name)
        .filter(|n| n.starts_with(&word))
        .collect();
    if !names.is_empty() {
        return names;
    }
    COMMANDS
        .iter()
        .flat_map(|c| c.aliases.iter().copied())
        .filter(|a| a.starts_with(&word))
        .collect()
}

/// Tab: the unique candidate, else the longest prefix the candidates share.
pub fn complete(input: &str) -> String {
    extend(input, &normalize(input), &candidates(input))
}

/// `typed` completed among `cands`: the unique candidate, else the longest
/// prefix they share when it is longer than `typed`; else `input` as it is.
fn extend(input: &str, typed: &str, cands: &[&str]) -> String {
    match cands {
        [] => input.to_string(),
        [one] => (*one).to_string(),
        [first, rest @ ..] => {
            let mut prefix: &str = first;
            for c in rest {
                let n = prefix
                    .chars()
                    .zip(c.chars())
                    .take_while(|(a, b)| a == b)
                    .count();
                prefix = &prefix[..prefix
                    .char_indices()
                    .nth(n)
                    .map_or(prefix.len(), |(i, _)| i)];
            }
            if prefix.len() > typed.len() {
                prefix.to_string()
            } else {
                input.to_string()
            }
        }
    }
}

/// A `:` line as its command word (lower case) and its argument, if one
/// was typed after a space: `ns team-a` is `("ns", Some("team-a"))`, and
/// `ns ` is `("ns", Some(""))`.
pub fn split(input: &str) -> (String, Option<String>) {
    let line = input.trim_start().trim_start_matches(':').trim_start();
    match line.split_once(char::is_whitespace) {
        Some((word, arg)) => (word.to_lowercase(), Some(arg.trim().to_string())),
        None => (line.trim().to_lowercase(), None),
    }
}

/// The command of a line that is typing an argument (`ns te`), and what
/// was typed of the argument; `None` when the line is still at its word.
pub fn argument(input: &str) -> Option<(Goto, String)> {
    let (word, arg) = split(input);
    Some((resolve(&word)?, arg?))
}

/// The `names` that could complete the argument being typed.
pub fn argument_candidates<'a>(typed: &str, names: &'a [String]) -> Vec<&'a str> {
    names
        .iter()
        .map(String::as_str)
        .filter(|n| n.starts_with(typed))
        .collect()
}

/// Tab on an argument: the line with the argument completed among `names`.
pub fn complete_argument(input: &str, names: &[String]) -> String {
    let (word, arg) = split(input);
    let typed = arg.unwrap_or_default();
    let done = extend(&typed, &typed, &argument_candidates(&typed, names));
    format!("{word} {done}")
}

/// k9s' screens that hmc-tui does not have, so `:pods` says so rather than
/// only `unknown command`.
const K9S_ONLY: &[&str] = &[
    "pods",
    "pod",
    "po",
    "deploy",
    "deployments",
    "deployment",
    "dp",
    "svc",
    "services",
    "service",
    "nodes",
    "node",
    "no",
    "secrets",
    "secret",
    "sec",
    "cm",
    "configmaps",
    "configmap",
    "sts",
    "statefulsets",
    "ds",
    "daemonsets",
    "rs",
    "replicasets",
    "jobs",
    "job",
    "cj",
    "cronjobs",
    "ing",
    "ingress",
    "pvc",
    "pv",
    "sa",
    "crd",
    "crds",
    "hr",
    "helmreleases",
    "helm",
    "xray",
    "pulses",
    "popeye",
    "dir",
];

/// The status line's answer to a `:` word that names no command.
pub fn unknown(word: &str) -> String {
    let word = normalize(word);
    if K9S_ONLY.contains(&word.as_str()) {
        format!("`:{word}` is not a screen of hmc-tui; :help lists the commands")
    } else {
        format!("unknown command :{word}; :help lists the commands")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_aliases() {
        for alias in ["clusters", "mcl", "mcluster", "cl", ":cl", " CL "] {
            assert_eq!(resolve(alias), Some(Goto::Clusters), "{alias}");
        }
        for alias in ["templates", "tmpl"] {
            assert_eq!(resolve(alias), Some(Goto::Templates), "{alias}");
        }
        for alias in ["ct", "clustertmpl", "clustertemplates", ":CT"] {
            assert_eq!(resolve(alias), Some(Goto::ClusterTemplates), "{alias}");
        }
        for alias in ["st", "svctmpl", "servicetemplates", " st "] {
            assert_eq!(resolve(alias), Some(Goto::ServiceTemplates), "{alias}");
        }
        for alias in ["warnings", "warn"] {
            assert_eq!(resolve(alias), Some(Goto::Warnings), "{alias}");
        }
        for alias in ["rollouts", "ro", "rollout", "tr", ":RO"] {
            assert_eq!(resolve(alias), Some(Goto::Rollouts), "{alias}");
        }
        for alias in ["mcs", "multiclusterservices", "multiclusterservice", ":MCS"] {
            assert_eq!(resolve(alias), Some(Goto::MultiClusterServices), "{alias}");
        }
        for alias in ["events", "ev", "event", ":EV"] {
            assert_eq!(resolve(alias), Some(Goto::Events), "{alias}");
        }
        for alias in ["q", "quit"] {
            assert_eq!(resolve(alias), Some(Goto::Quit), "{alias}");
        }
        assert_eq!(resolve("pods"), None);
    }

    #[test]
    fn completion() {
        // Two names start with `cl`: tab goes as far as they agree.
        assert_eq!(complete("cl"), "cluster");
        assert_eq!(complete("clusters"), "clusters");
        assert_eq!(complete("clustert"), "clustertemplates");
        assert_eq!(complete("se"), "servicetemplates");
        assert_eq!(complete("w"), "warnings");
        assert_eq!(complete("te"), "templates");
        assert_eq!(complete("q"), "quit");
        assert_eq!(complete("r"), "rollouts");
        assert_eq!(complete("ro"), "rollouts");
        assert_eq!(complete("e"), "events");
        assert_eq!(complete("mu"), "multiclusterservices");
        // Aliases only when no name fits; then their common prefix.
        assert_eq!(candidates("s"), vec!["servicetemplates"]);
        assert_eq!(candidates("c"), vec!["clusters", "clustertemplates", "ctx"]);
        assert_eq!(complete("sv"), "svctmpl");
        assert_eq!(candidates("x"), Vec::<&str>::new());
        assert_eq!(complete("zz"), "zz");
        assert_eq!(candidates("").len(), COMMANDS.len());
    }

    #[test]
    fn namespaces_and_contexts_take_a_name() {
        for alias in ["ns", "namespace", ":NS"] {
            assert_eq!(resolve(alias), Some(Goto::Namespace), "{alias}");
        }
        for alias in ["ctx", "context", "contexts"] {
            assert_eq!(resolve(alias), Some(Goto::Context), "{alias}");
        }
        assert_eq!(split(":ns team-a "), ("ns".into(), Some("team-a".into())));
        assert_eq!(split("CTX"), ("ctx".into(), None));
        assert_eq!(split("ns "), ("ns".into(), Some(String::new())));
        assert_eq!(argument("ns te"), Some((Goto::Namespace, "te".into())));
        assert_eq!(argument("context "), Some((Goto::Context, String::new())));
        assert_eq!(argument("ns"), None);
        assert_eq!(argument("nosuch x"), None);
        let names: Vec<String> = ["all", "team-a", "team-b", "prod"]
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(argument_candidates("te", &names), vec!["team-a", "team-b"]);
        assert_eq!(complete_argument("ns t", &names), "ns team-");
        assert_eq!(complete_argument("ns p", &names), "ns prod");
        assert_eq!(complete_argument("ns x", &names), "ns x");
        assert_eq!(complete("n"), "ns");
        assert_eq!(complete("ct"), "ctx");
    }

    #[test]
    fn k9s_screens_we_do_not_have_say_so() {
        assert_eq!(
            unknown("pods"),
            "`:pods` is not a screen of hmc-tui; :help lists the commands"
        );
        assert_eq!(
            unknown(":Deploy"),
            "`:deploy` is not a screen of hmc-tui; :help lists the commands"
        );
        assert_eq!(
            unknown("zz"),
            "unknown command :zz; :help lists the commands"
        );
    }
}
