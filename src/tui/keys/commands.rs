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
    Events,
    Warnings,
    Help,
    Quit,
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
    let cands = candidates(input);
    match cands.as_slice() {
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
            if prefix.len() > normalize(input).len() {
                prefix.to_string()
            } else {
                input.to_string()
            }
        }
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
        // Aliases only when no name fits; then their common prefix.
        assert_eq!(candidates("s"), vec!["servicetemplates"]);
        assert_eq!(candidates("c"), vec!["clusters", "clustertemplates"]);
        assert_eq!(complete("sv"), "svctmpl");
        assert_eq!(candidates("x"), Vec::<&str>::new());
        assert_eq!(complete("zz"), "zz");
        assert_eq!(candidates("").len(), COMMANDS.len());
    }
}
