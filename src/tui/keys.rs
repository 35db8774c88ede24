//! Keybindings as data: `(key, action, description)` per screen. The hint
//! bar and the `?` help are generated from these tables, and so is the
//! lookup, so what the help says is what the keys do.
//!
//! Also the `:` commands, their aliases and their completion.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What a key does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Quit,
    Help,
    Command,
    Filter,
    Back,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Yaml,
    /// Rollout board: approve the wave that waits.
    Approve,
    Pause,
    Resume,
    /// Rollout board: abort or roll back (asks which, then to confirm).
    Abort,
    /// Rollout board: leave the selected cluster out (asks to confirm).
    Skip,
    /// Rollout board: try the selected failed cluster again.
    Retry,
    /// Edit the selected service's values.
    Edit,
    /// The engine's Events about what is on screen.
    Events,
}

/// The screens, as far as keys are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScreenKind {
    Clusters,
    ClusterDetail,
    Templates,
    TemplateDetail,
    /// The values editor: it takes every key itself.
    Editor,
    Rollouts,
    RolloutBoard,
    Events,
    Yaml,
    /// A service's values, or a ServiceTemplate's defaults.
    Values,
}

/// A key with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl Key {
    pub const fn plain(code: KeyCode) -> Key {
        Key {
            code,
            modifiers: KeyModifiers::NONE,
        }
    }

    pub const fn char(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }

    pub const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCode::Char(c),
            modifiers: KeyModifiers::CONTROL,
        }
    }

    /// Whether a key event is this key. Shift is ignored for characters:
    /// terminals disagree on whether `G` or `?` carry it.
    pub fn matches(&self, event: &KeyEvent) -> bool {
        let ignore = match event.code {
            KeyCode::Char(_) => KeyModifiers::SHIFT,
            _ => KeyModifiers::NONE,
        };
        let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT;
        let mods = event.modifiers & relevant & !ignore;
        let want = self.modifiers & relevant & !ignore;
        self.code == event.code && mods == want
    }

    /// How the key is written in the hint bar and the help.
    pub fn label(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "enter".into(),
            KeyCode::Esc => "esc".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "pgup".into(),
            KeyCode::PageDown => "pgdn".into(),
            KeyCode::Home => "home".into(),
            KeyCode::End => "end".into(),
            KeyCode::Tab => "tab".into(),
            KeyCode::Backspace => "bksp".into(),
            other => format!("{other:?}").to_lowercase(),
        };
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            format!("ctrl-{base}")
        } else if self.modifiers.contains(KeyModifiers::ALT) {
            format!("alt-{base}")
        } else {
            base
        }
    }
}

/// One binding: a key, what it does, and what the help calls it.
#[derive(Clone, Copy, Debug)]
pub struct Binding {
    pub key: Key,
    pub action: Action,
    pub description: &'static str,
    /// Shown in the hint bar (the help shows every binding).
    pub hint: bool,
    /// What the help says, when the hint's word is too short to explain.
    pub help: Option<&'static str>,
}

const fn bind(key: Key, action: Action, description: &'static str, hint: bool) -> Binding {
    Binding {
        key,
        action,
        description,
        hint,
        help: None,
    }
}

impl Binding {
    /// The help's longer text for this binding.
    const fn explained(self, help: &'static str) -> Binding {
        Binding {
            help: Some(help),
            ..self
        }
    }
}

/// Moving through a list.
const LIST: &[Binding] = &[
    bind(Key::char('j'), Action::Down, "down", false),
    bind(Key::plain(KeyCode::Down), Action::Down, "down", false),
    bind(Key::char('k'), Action::Up, "up", false),
    bind(Key::plain(KeyCode::Up), Action::Up, "up", false),
    bind(
        Key::plain(KeyCode::PageDown),
        Action::PageDown,
        "page down",
        false,
    ),
    bind(Key::ctrl('f'), Action::PageDown, "page down", false),
    bind(
        Key::plain(KeyCode::PageUp),
        Action::PageUp,
        "page up",
        false,
    ),
    bind(Key::ctrl('b'), Action::PageUp, "page up", false),
    bind(Key::char('g'), Action::Top, "top", false),
    bind(Key::plain(KeyCode::Home), Action::Top, "top", false),
    bind(Key::char('G'), Action::Bottom, "bottom", false),
    bind(Key::plain(KeyCode::End), Action::Bottom, "bottom", false),
    bind(Key::char('/'), Action::Filter, "filter", true),
];

const CLUSTERS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "details", true),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
];

const DETAIL: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "values", true)
        .explained("the selected service's merged values, as Helm gets them"),
    bind(Key::char('e'), Action::Edit, "edit", true)
        .explained("edit the selected service's values on this cluster"),
    bind(Key::char('v'), Action::Events, "events", true)
        .explained("the engine's events about this cluster"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
];

const EVENTS: &[Binding] = &[
    bind(
        Key::plain(KeyCode::Enter),
        Action::Open,
        "open object",
        true,
    )
    .explained("the screen of the object the event is about"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
];

const TEMPLATES: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "open", true)
        .explained("a ClusterTemplate's services, a ServiceTemplate's default values"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
];

const TEMPLATE_DETAIL: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "values", true)
        .explained("the selected service's default values, before a cluster's own"),
    bind(Key::char('e'), Action::Edit, "edit", true)
        .explained("edit the selected service's values in this template"),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
];

const ROLLOUTS: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Open, "board", true),
    bind(Key::char('y'), Action::Yaml, "yaml", true),
];

/// The rollout board: the operator's requests first, then the list keys
/// (`/`, `y` and `:` stay out of the hint bar to leave room).
const BOARD: &[Binding] = &[
    bind(Key::char('a'), Action::Approve, "approve", true)
        .explained("approve the wave that waits for approval"),
    bind(Key::char('p'), Action::Pause, "pause", true).explained("pause the rollout"),
    bind(Key::char('r'), Action::Resume, "resume", true).explained("resume a paused rollout"),
    bind(Key::char('x'), Action::Abort, "abort", true)
        .explained("abort (clusters stay) or roll back; asks"),
    bind(Key::char('s'), Action::Skip, "skip", true).explained("skip the selected cluster; asks"),
    bind(Key::char('t'), Action::Retry, "retry", true)
        .explained("retry the selected failed cluster"),
    bind(Key::char('y'), Action::Yaml, "yaml", false),
];

const YAML: &[Binding] = &[
    bind(Key::char('j'), Action::Down, "scroll down", false),
    bind(
        Key::plain(KeyCode::Down),
        Action::Down,
        "scroll down",
        false,
    ),
    bind(Key::char('k'), Action::Up, "scroll up", false),
    bind(Key::plain(KeyCode::Up), Action::Up, "scroll up", false),
    bind(
        Key::plain(KeyCode::PageDown),
        Action::PageDown,
        "page down",
        false,
    ),
    bind(Key::ctrl('f'), Action::PageDown, "page down", false),
    bind(Key::char(' '), Action::PageDown, "page down", false),
    bind(
        Key::plain(KeyCode::PageUp),
        Action::PageUp,
        "page up",
        false,
    ),
    bind(Key::ctrl('b'), Action::PageUp, "page up", false),
    bind(Key::char('g'), Action::Top, "top", false),
    bind(Key::plain(KeyCode::Home), Action::Top, "top", false),
    bind(Key::char('G'), Action::Bottom, "bottom", false),
    bind(Key::plain(KeyCode::End), Action::Bottom, "bottom", false),
];

/// On every screen.
const GLOBAL: &[Binding] = &[
    bind(Key::char(':'), Action::Command, "command", true),
    bind(Key::char('?'), Action::Help, "help", true),
    bind(Key::plain(KeyCode::Esc), Action::Back, "back", true),
    bind(Key::char('q'), Action::Quit, "quit", true),
    bind(Key::ctrl('c'), Action::Quit, "quit", false),
];

/// Editing the `:` prompt (handled by the prompt, listed for the hint bar and help).
pub const COMMAND_PROMPT: &[(&str, &str)] = &[
    ("enter", "run"),
    ("tab", "complete"),
    ("esc", "cancel"),
    ("ctrl-u", "erase"),
];

/// Editing the `/` filter.
pub const FILTER_PROMPT: &[(&str, &str)] = &[
    ("enter", "keep"),
    ("esc", "clear"),
    ("↑ ↓", "move"),
    ("ctrl-u", "erase"),
];

/// Choosing how to stop a rollout (handled by the modal, listed for the
/// hint bar).
pub const ABORT_CHOICE: &[(&str, &str)] =
    &[("s", "stay (abort)"), ("b", "roll back"), ("esc", "cancel")];

/// A yes/no question before a request that cannot be undone.
pub const CONFIRM: &[(&str, &str)] = &[("y", "yes, ask"), ("n esc", "no")];

/// The values editor (it takes every key; listed for the hint bar).
pub const EDITOR: &[(&str, &str)] = &[
    ("ctrl-s", "save"),
    ("esc", "close"),
    ("ctrl-z", "undo"),
    ("ctrl-r", "redo"),
];

/// The values editor after a reload kept the text typed before.
pub const EDITOR_NOTE: &[(&str, &str)] = &[
    ("ctrl-s", "save"),
    ("ctrl-o", "put your text back"),
    ("esc", "close"),
    ("ctrl-z", "undo"),
];

/// The merged values diff before a save.
pub const EDITOR_REVIEW: &[(&str, &str)] = &[("y", "apply"), ("n esc", "keep editing")];

/// Unsaved changes on esc.
pub const EDITOR_DISCARD: &[(&str, &str)] = &[("y", "discard"), ("n esc", "keep editing")];

/// The object changed since the editor opened.
pub const EDITOR_CONFLICT: &[(&str, &str)] = &[("r", "reload"), ("esc", "keep my text")];

/// Every binding of a screen, the screen's own first.
pub fn bindings(screen: ScreenKind) -> Vec<&'static Binding> {
    let own: &[&[Binding]] = match screen {
        ScreenKind::Clusters => &[CLUSTERS, LIST],
        ScreenKind::ClusterDetail => &[DETAIL, LIST],
        ScreenKind::Templates => &[TEMPLATES, LIST],
        ScreenKind::TemplateDetail => &[TEMPLATE_DETAIL, LIST],
        // The editor reads its keys itself.
        ScreenKind::Editor => return Vec::new(),
        ScreenKind::Rollouts => &[ROLLOUTS, LIST],
        ScreenKind::RolloutBoard => &[BOARD, LIST],
        ScreenKind::Events => &[EVENTS, LIST],
        ScreenKind::Yaml | ScreenKind::Values => &[YAML],
    };
    own.iter()
        .flat_map(|b| b.iter())
        .chain(GLOBAL.iter())
        .collect()
}

/// What a key does on a screen.
pub fn action(screen: ScreenKind, event: &KeyEvent) -> Option<Action> {
    bindings(screen)
        .into_iter()
        .find(|b| b.key.matches(event))
        .map(|b| b.action)
}

/// The hint bar: `(keys, description)` for the bindings marked as hints.
/// The board's requests fill the bar, so there the filter and the command
/// prompt are only in the help.
pub fn hints(screen: ScreenKind) -> Vec<(String, &'static str)> {
    let crowded = screen == ScreenKind::RolloutBoard;
    bindings(screen)
        .into_iter()
        .filter(|b| b.hint)
        .filter(|b| !(crowded && matches!(b.action, Action::Filter | Action::Command)))
        .map(|b| (b.key.label(), b.description))
        .collect()
}

/// The help: one line per action, with every key that does it.
pub fn help(screen: ScreenKind) -> Vec<(String, &'static str)> {
    let mut lines: Vec<(Action, Vec<String>, &'static str)> = Vec::new();
    for b in bindings(screen) {
        match lines.iter_mut().find(|(a, _, _)| *a == b.action) {
            Some((_, keys, _)) => keys.push(b.key.label()),
            None => lines.push((
                b.action,
                vec![b.key.label()],
                b.help.unwrap_or(b.description),
            )),
        }
    }
    lines
        .into_iter()
        .map(|(_, keys, d)| (keys.join(" "), d))
        .collect()
}

/// Where a `:` command goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goto {
    Clusters,
    Templates,
    Rollouts,
    Events,
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
        aliases: &[
            "tmpl",
            "ct",
            "st",
            "clustertmpl",
            "svctmpl",
            "clustertemplates",
            "servicetemplates",
        ],
        description: "ClusterTemplates and ServiceTemplates",
        target: Goto::Templates,
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

    fn key(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn lookup_follows_the_tables() {
        let s = ScreenKind::Clusters;
        assert_eq!(
            action(s, &key(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(Action::Down)
        );
        assert_eq!(
            action(s, &key(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Action::Bottom)
        );
        assert_eq!(
            action(s, &key(KeyCode::Char('?'), KeyModifiers::SHIFT)),
            Some(Action::Help)
        );
        assert_eq!(
            action(s, &key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Action::Quit)
        );
        assert_eq!(
            action(s, &key(KeyCode::Char('c'), KeyModifiers::NONE)),
            None
        );
        assert_eq!(
            action(
                ScreenKind::Templates,
                &key(KeyCode::Enter, KeyModifiers::NONE)
            ),
            Some(Action::Open)
        );
        for screen in [ScreenKind::ClusterDetail, ScreenKind::TemplateDetail] {
            assert_eq!(
                action(screen, &key(KeyCode::Char('e'), KeyModifiers::NONE)),
                Some(Action::Edit)
            );
            // enter: the selected service's values, first in the hint bar.
            assert_eq!(
                action(screen, &key(KeyCode::Enter, KeyModifiers::NONE)),
                Some(Action::Open)
            );
            assert_eq!(hints(screen)[0], ("enter".to_string(), "values"));
        }
        // The values scroll like YAML.
        assert_eq!(
            action(
                ScreenKind::Values,
                &key(KeyCode::Char(' '), KeyModifiers::NONE)
            ),
            Some(Action::PageDown)
        );
        assert_eq!(
            action(
                ScreenKind::Editor,
                &key(KeyCode::Char('q'), KeyModifiers::NONE)
            ),
            None
        );
        assert_eq!(
            action(
                ScreenKind::Yaml,
                &key(KeyCode::Char('/'), KeyModifiers::NONE)
            ),
            None
        );
    }

    #[test]
    fn help_groups_keys_by_action() {
        let help = help(ScreenKind::Clusters);
        assert!(help.contains(&("j ↓".to_string(), "down")));
        assert!(help.contains(&("q ctrl-c".to_string(), "quit")));
        let hints = hints(ScreenKind::Clusters);
        assert_eq!(hints[0], ("enter".to_string(), "details"));
    }

    #[test]
    fn the_board_offers_the_requests() {
        let s = ScreenKind::RolloutBoard;
        for (c, a) in [
            ('a', Action::Approve),
            ('p', Action::Pause),
            ('r', Action::Resume),
            ('x', Action::Abort),
            ('s', Action::Skip),
            ('t', Action::Retry),
            ('j', Action::Down),
        ] {
            assert_eq!(
                action(s, &key(KeyCode::Char(c), KeyModifiers::NONE)),
                Some(a),
                "{c}"
            );
        }
        // The requests are only on the board.
        assert_eq!(
            action(
                ScreenKind::Rollouts,
                &key(KeyCode::Char('a'), KeyModifiers::NONE)
            ),
            None
        );
        let hints: Vec<String> = hints(s).into_iter().map(|(k, _)| k).collect();
        assert_eq!(hints[..6], ["a", "p", "r", "x", "s", "t"]);
        assert!(!hints.contains(&"/".to_string()));
        let help = help(s);
        assert!(help.contains(&("/".to_string(), "filter")));
        assert!(help.contains(&("a".to_string(), "approve the wave that waits for approval")));
    }

    #[test]
    fn commands_and_aliases() {
        for alias in ["clusters", "mcl", "mcluster", "cl", ":cl", " CL "] {
            assert_eq!(resolve(alias), Some(Goto::Clusters), "{alias}");
        }
        for alias in ["templates", "tmpl", "ct", "st"] {
            assert_eq!(resolve(alias), Some(Goto::Templates), "{alias}");
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
        assert_eq!(complete("cl"), "clusters");
        assert_eq!(complete("te"), "templates");
        assert_eq!(complete("q"), "quit");
        assert_eq!(complete("r"), "rollouts");
        assert_eq!(complete("ro"), "rollouts");
        assert_eq!(complete("e"), "events");
        // Aliases only when no name fits; then their common prefix.
        assert_eq!(candidates("s"), vec!["st", "svctmpl", "servicetemplates"]);
        assert_eq!(complete("s"), "s");
        assert_eq!(complete("sv"), "svctmpl");
        assert_eq!(complete("zz"), "zz");
        assert_eq!(candidates("").len(), COMMANDS.len());
    }
}
