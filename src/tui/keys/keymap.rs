//! The effective keymap: the default tables with the user's remapping
//! applied. Dispatch asks it what a key does in a mode; the hint bar and
//! the help ask it what to show; `hmc-tui keys` prints it.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crossterm::event::KeyEvent;

use super::action::Action;
use super::key::Key;
use super::tables::{Binding, Hint, Mode, ScreenKind, TABLES, Table};

/// Every table's bindings, as the console uses them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Keymap {
    tables: BTreeMap<Table, Vec<Binding>>,
}

impl Keymap {
    /// The map of every table's `defaults`, before any remapping. The
    /// console's own is `Keymap::default()`, whose screens' tables the
    /// screens hold ([`crate::tui::screens`]).
    pub fn from_defaults(defaults: impl Fn(Table) -> &'static [Binding]) -> Keymap {
        Keymap {
            tables: TABLES.iter().map(|t| (*t, defaults(*t).to_vec())).collect(),
        }
    }
}

/// Why a remapping is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RemapError {
    #[error("`{action}` is not an action of `{table}` ({about}); its actions: {known}")]
    NotInTable {
        table: &'static str,
        about: &'static str,
        action: Action,
        known: String,
    },
    #[error(
        "`{key}` types text in {about}; bind a key with ctrl or alt, or one such as enter or f2"
    )]
    TypesText { key: String, about: &'static str },
    #[error("`{key}` would do both `{first}` and `{second}` in {mode}")]
    Clash {
        key: String,
        first: Action,
        second: Action,
        mode: &'static str,
    },
    #[error("no key left for `{action}` in `{table}`: give it at least one")]
    NoKey { table: &'static str, action: Action },
    #[error(
        "`{key}` means `{under}` on the {screen} but `{asked}` while {mode}, which is asked over it: give one of them another key"
    )]
    Shadow {
        key: String,
        under: Action,
        asked: Action,
        screen: &'static str,
        mode: &'static str,
    },
}

impl Keymap {
    /// The bindings of a table.
    pub fn table(&self, table: Table) -> &[Binding] {
        self.tables.get(&table).map_or(&[], Vec::as_slice)
    }

    /// Every binding of a mode, the first tables' first.
    pub fn bindings(&self, mode: Mode) -> impl Iterator<Item = &Binding> {
        mode.tables().iter().flat_map(|t| self.table(*t))
    }

    /// What a key does in a mode. Questions take `Y` as `y`.
    pub fn action(&self, mode: Mode, event: &KeyEvent) -> Option<Action> {
        let key = Key::of(event);
        for table in mode.tables() {
            let fold = |k: Key| if table.answers() { k.folded() } else { k };
            let found = self
                .table(*table)
                .iter()
                .find(|b| fold(b.key.normal()) == fold(key.normal()));
            if let Some(b) = found {
                return Some(b.action);
            }
        }
        None
    }

    /// Which of an action's keys in a mode a key is, counting from 0: the
    /// favourite a digit picks.
    pub fn slot(&self, mode: Mode, action: Action, event: &KeyEvent) -> Option<usize> {
        let key = Key::of(event).normal();
        self.bindings(mode)
            .filter(|b| b.action == action)
            .position(|b| b.key.normal() == key)
    }

    /// The keys that do an action in a mode, as the help writes them.
    pub fn keys_for(&self, mode: Mode, action: Action) -> Vec<String> {
        self.bindings(mode)
            .filter(|b| b.action == action)
            .map(|b| b.key.label())
            .collect()
    }

    /// The first key that does an action in a mode, for texts that name
    /// it (`waits for approval: a approves`).
    pub fn label(&self, mode: Mode, action: Action) -> String {
        self.bindings(mode)
            .find(|b| b.action == action)
            .map_or_else(|| "(unbound)".into(), |b| b.key.label())
    }

    /// The hint bar: `(keys, description)` for the bindings shown there,
    /// keys with one description on one entry (`n esc no`). On the board
    /// the requests fill the bar, so the filter and the command prompt are
    /// only in the help. `note`: the editor holds text typed before a
    /// reload.
    pub fn hints(&self, mode: Mode, note: bool) -> Vec<(String, &'static str)> {
        self.hints_now(mode, note, &|_| true)
            .into_iter()
            .map(|(k, d, _)| (k, d))
            .collect()
    }

    /// The hint bar as [`Keymap::hints`], with whether each entry's action
    /// applies now, as `applies` says (a pure question about the state on
    /// screen): the bar dims what does not.
    pub fn hints_now(
        &self,
        mode: Mode,
        note: bool,
        applies: &dyn Fn(Action) -> bool,
    ) -> Vec<(String, &'static str, bool)> {
        let crowded = mode == Mode::Screen(ScreenKind::RolloutBoard);
        let mut out: Vec<(String, &'static str, bool)> = Vec::new();
        let shown = self.bindings(mode).filter(|b| match b.hint {
            Hint::Never => false,
            Hint::Always => true,
            Hint::WithNote => note,
            Hint::WithoutNote => !note,
        });
        for b in shown {
            if crowded && matches!(b.action, Action::Filter | Action::Command) {
                continue;
            }
            match out.iter_mut().find(|(_, d, _)| *d == b.description) {
                Some((keys, _, _)) => {
                    keys.push(' ');
                    keys.push_str(&b.key.label());
                }
                None => out.push((b.key.label(), b.description, applies(b.action))),
            }
        }
        out
    }

    /// The help: one line per action, with every key that does it (a run
    /// of characters such as the favourites' digits as `0-9`).
    pub fn help(&self, mode: Mode) -> Vec<(String, &'static str)> {
        self.help_now(mode, &|_| true)
            .into_iter()
            .map(|(k, d, _)| (k, d))
            .collect()
    }

    /// The help as [`Keymap::help`], with whether each action applies now.
    pub fn help_now(
        &self,
        mode: Mode,
        applies: &dyn Fn(Action) -> bool,
    ) -> Vec<(String, &'static str, bool)> {
        by_action(self.bindings(mode))
            .into_iter()
            .map(|(action, keys, d)| {
                let keys = run(&keys).unwrap_or_else(|| keys.join(" "));
                (keys, d, applies(action))
            })
            .collect()
    }

    /// Gives an action of a table new keys, in place of its old ones. The
    /// first new key takes the old keys' place in the hint bar.
    pub fn rebind(&mut self, table: Table, action: Action, keys: &[Key]) -> Result<(), RemapError> {
        let bindings = self.tables.entry(table).or_default();
        let Some(first) = bindings.iter().position(|b| b.action == action) else {
            return Err(RemapError::NotInTable {
                table: table.name(),
                about: table.about(),
                action,
                known: actions_of(bindings),
            });
        };
        if keys.is_empty() {
            return Err(RemapError::NoKey {
                table: table.name(),
                action,
            });
        }
        if let Some(k) = keys.iter().find(|k| table.takes_text() && k.types_text()) {
            return Err(RemapError::TypesText {
                key: k.label(),
                about: table.about(),
            });
        }
        let old: Vec<Binding> = bindings
            .iter()
            .filter(|b| b.action == action)
            .copied()
            .collect();
        let shown = old
            .iter()
            .map(|b| b.hint)
            .find(|h| *h != Hint::Never)
            .unwrap_or(Hint::Never);
        let new = keys.iter().enumerate().map(|(i, key)| Binding {
            key: *key,
            hint: if i == 0 { shown } else { Hint::Never },
            ..old[0]
        });
        bindings.retain(|b| b.action != action);
        let at = first.min(bindings.len());
        bindings.splice(at..at, new);
        Ok(())
    }

    /// Refuses a keymap where one key does two things in one mode.
    pub fn check(&self) -> Result<(), RemapError> {
        for mode in Mode::all() {
            let mut seen: Vec<(Key, Action)> = Vec::new();
            for table in mode.tables() {
                for b in self.table(*table) {
                    let key = if table.answers() {
                        b.key.normal().folded()
                    } else {
                        b.key.normal()
                    };
                    match seen.iter().find(|(k, _)| *k == key) {
                        Some((_, first)) if *first != b.action => {
                            return Err(RemapError::Clash {
                                key: b.key.label(),
                                first: *first,
                                second: b.action,
                                mode: mode.title(),
                            });
                        }
                        Some(_) => {}
                        None => seen.push((key, b.action)),
                    }
                }
            }
            self.check_over(mode)?;
        }
        Ok(())
    }

    /// Refuses a question whose key means another thing on the screen it
    /// is asked over (after `x` on the board, `s` may not mean "stay" when
    /// it means "skip" on the board): the screen's keys are still in sight.
    /// Answers that close the question (`y`, `n`, `esc`) are the same
    /// everywhere and left out, as is the key of the action that asked.
    fn check_over(&self, mode: Mode) -> Result<(), RemapError> {
        let Some(under) = mode.over() else {
            return Ok(());
        };
        let shared = |t: &Table| under.tables().contains(t);
        for table in mode.tables().iter().filter(|t| !shared(t)) {
            for b in self.table(*table).iter().filter(|b| !closes(b.action)) {
                let key = b.key.normal().folded();
                let clash = self.bindings(under).find(|u| {
                    u.key.normal().folded() == key
                        && u.action != b.action
                        && Some(u.action) != asked_by(b.action)
                });
                if let Some(u) = clash {
                    return Err(RemapError::Shadow {
                        key: b.key.label(),
                        under: u.action,
                        asked: b.action,
                        screen: under.title(),
                        mode: mode.title(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The whole map as `hmc-tui keys` prints it: a block per table, a
    /// line per action with its keys and what it does.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        for (name, about, lines) in self.tables() {
            let _ = writeln!(out, "{name}: {about}");
            for (action, keys, what) in lines {
                let _ = writeln!(out, "  {action:<14} {:<16} {what}", keys.join(" "));
            }
            out.push('\n');
        }
        out
    }

    /// Every table in order: its name, what it is for, and per action its
    /// name, its keys and what it does (`describe` and the book's keymap).
    pub fn tables(&self) -> Vec<KeyTable> {
        TABLES
            .iter()
            .map(|table| {
                let lines = by_action(self.table(*table).iter())
                    .into_iter()
                    .map(|(action, keys, what)| (action.name(), keys, what))
                    .collect();
                (table.name(), table.about(), lines)
            })
            .collect()
    }
}

/// One table of the map: its name, what it is for, and per action its
/// name, its keys and what it does.
pub type KeyTable = (
    &'static str,
    &'static str,
    Vec<(&'static str, Vec<String>, &'static str)>,
);

/// Bindings grouped by action, in order: the action, its keys, and what
/// the help says of it.
fn by_action<'a>(
    bindings: impl Iterator<Item = &'a Binding>,
) -> Vec<(Action, Vec<String>, &'static str)> {
    let mut lines: Vec<(Action, Vec<String>, &'static str)> = Vec::new();
    for b in bindings {
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
}

/// Answers that close a question, the same on every question.
fn closes(action: Action) -> bool {
    matches!(
        action,
        Action::Yes | Action::No | Action::Cancel | Action::KeepEditing | Action::KeepMine
    )
}

/// The action on the screen underneath whose question this answer belongs
/// to: its key may repeat that action's key (`x` then `x`).
fn asked_by(answer: Action) -> Option<Action> {
    match answer {
        Action::Stay | Action::RollBack => Some(Action::Abort),
        _ => None,
    }
}

/// `0-9` for more than two one-character keys that follow each other.
fn run(keys: &[String]) -> Option<String> {
    let chars: Vec<char> = keys
        .iter()
        .map(|k| {
            let mut c = k.chars();
            c.next().filter(|_| c.next().is_none())
        })
        .collect::<Option<_>>()?;
    let follows = chars
        .windows(2)
        .all(|w| u32::from(w[0]) + 1 == u32::from(w[1]));
    (chars.len() > 2 && follows).then(|| format!("{}-{}", chars[0], chars[chars.len() - 1]))
}

/// A table's actions, for an error message.
fn actions_of(bindings: &[Binding]) -> String {
    let mut names: Vec<&str> = bindings.iter().map(|b| b.action.name()).collect();
    names.dedup();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    use crossterm::event::{KeyCode, KeyModifiers};

    fn action(screen: ScreenKind, event: &KeyEvent) -> Option<Action> {
        Keymap::default().action(Mode::Screen(screen), event)
    }

    fn hints(screen: ScreenKind) -> Vec<(String, &'static str)> {
        Keymap::default().hints(Mode::Screen(screen), false)
    }

    fn help(screen: ScreenKind) -> Vec<(String, &'static str)> {
        Keymap::default().help(Mode::Screen(screen))
    }

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
        // `/` searches the yaml and values views, `n` and `N` jump.
        assert_eq!(
            action(
                ScreenKind::Yaml,
                &key(KeyCode::Char('/'), KeyModifiers::NONE)
            ),
            Some(Action::Filter)
        );
        assert_eq!(
            action(
                ScreenKind::Values,
                &key(KeyCode::Char('N'), KeyModifiers::SHIFT)
            ),
            Some(Action::PreviousMatch)
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
        assert!(help.contains(&(
            "/".to_string(),
            "rows with the text in any column; /!text: the others"
        )));
        assert!(help.contains(&("a".to_string(), "approve the wave that waits for approval")));
    }

    /// `t` tries again: a board's failed cluster, a template's chart
    /// repository. On the templates screens it is in the help and
    /// `hmc-tui keys`, not the hint bar.
    #[test]
    fn t_tries_a_templates_repository_again() {
        let t = key(KeyCode::Char('t'), KeyModifiers::NONE);
        for (screen, help_text) in [
            (
                ScreenKind::Templates,
                "try the selected template's chart repository again now",
            ),
            (
                ScreenKind::TemplateDetail,
                "try this template's chart repository again now",
            ),
        ] {
            assert_eq!(action(screen, &t), Some(Action::Retry), "{screen:?}");
            assert!(help(screen).contains(&("t".to_string(), help_text)));
            assert!(!hints(screen).iter().any(|(k, _)| k == "t"), "{screen:?}");
        }
        assert_eq!(action(ScreenKind::Clusters, &t), None);
        let printed = Keymap::default().describe();
        let templates = printed
            .split("\n\n")
            .find(|block| block.starts_with("templates:"))
            .unwrap_or_else(|| panic!("no templates table:\n{printed}"));
        assert!(
            templates.contains(
                "  retry          t                try the selected template's chart repository again now"
            ),
            "{templates}"
        );
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, &'static str)> {
        list.iter()
            .map(|(k, d)| {
                (
                    k.to_string(),
                    Box::leak(d.to_string().into_boxed_str()) as &str,
                )
            })
            .collect()
    }

    #[test]
    fn prompts_questions_and_the_editor_hint_as_before() {
        let map = Keymap::default();
        for (mode, note, want) in [
            (
                Mode::Prompt,
                false,
                pairs(&[
                    ("enter", "run"),
                    ("tab", "complete"),
                    ("esc", "cancel"),
                    ("ctrl-u", "erase"),
                ]),
            ),
            (
                Mode::Filter,
                false,
                pairs(&[
                    ("enter", "keep"),
                    ("esc", "clear"),
                    ("↑ ↓", "move"),
                    ("ctrl-u", "erase"),
                ]),
            ),
            (
                Mode::AbortChoice,
                false,
                pairs(&[
                    ("x", "abort (clusters stay)"),
                    ("b", "roll back"),
                    ("esc", "cancel"),
                ]),
            ),
            (
                Mode::Confirm,
                false,
                pairs(&[("y", "yes, ask"), ("n esc", "no")]),
            ),
            (
                Mode::Screen(ScreenKind::Editor),
                false,
                pairs(&[
                    ("ctrl-s", "save"),
                    ("esc", "close"),
                    ("ctrl-z", "undo"),
                    ("ctrl-r", "redo"),
                ]),
            ),
            (
                Mode::Screen(ScreenKind::Editor),
                true,
                pairs(&[
                    ("ctrl-s", "save"),
                    ("ctrl-o", "put your text back"),
                    ("esc", "close"),
                    ("ctrl-z", "undo"),
                ]),
            ),
            (
                Mode::Review,
                false,
                pairs(&[("y", "apply"), ("n esc", "keep editing")]),
            ),
            (
                Mode::Discard,
                false,
                pairs(&[("y", "discard"), ("n esc", "keep editing")]),
            ),
            (
                Mode::Conflict,
                false,
                pairs(&[("r", "reload"), ("esc", "keep my text")]),
            ),
        ] {
            assert_eq!(map.hints(mode, note), want, "{mode:?}");
        }
    }

    #[test]
    fn the_defaults_mean_one_thing_per_key_and_name_every_action() {
        let map = Keymap::default();
        assert_eq!(map.check(), Ok(()));
        for table in TABLES {
            for b in map.table(*table) {
                assert_eq!(Action::named(b.action.name()), Some(b.action));
            }
        }
        // Every table is reachable from some mode.
        for table in TABLES {
            assert!(
                Mode::all().iter().any(|m| m.tables().contains(table)),
                "{table:?}"
            );
        }
        let printed = map.describe();
        assert!(printed.contains("board: the rollout board"), "{printed}");
        assert!(printed.contains("  approve        a"), "{printed}");
    }

    /// A question over the board may not give a board key another meaning;
    /// its answers (`y`, `n`, `esc`) and the key that asked (`x`) may.
    #[test]
    fn a_question_keeps_the_meaning_of_the_keys_underneath() {
        let mut map = Keymap::default();
        map.rebind(Table::Abort, Action::Stay, &[Key::char('s')])
            .unwrap();
        let err = map.check().unwrap_err();
        assert_eq!(
            err,
            RemapError::Shadow {
                key: "s".into(),
                under: Action::Skip,
                asked: Action::Stay,
                screen: "rollout board",
                mode: "stopping a rollout",
            }
        );
        assert_eq!(
            err.to_string(),
            "`s` means `skip` on the rollout board but `stay` while stopping a rollout, \
             which is asked over it: give one of them another key"
        );
        // Moving skip away settles it (not to `S`: the question takes `S`
        // as `s`).
        map.rebind(Table::Board, Action::Skip, &[Key::char('S')])
            .unwrap();
        assert!(map.check().is_err());
        map.rebind(Table::Board, Action::Skip, &[Key::char('l')])
            .unwrap();
        assert_eq!(map.check(), Ok(()));
        // Answers that close a question may be anything underneath.
        let mut map = Keymap::default();
        map.rebind(Table::Confirm, Action::No, &[Key::char('a')])
            .unwrap();
        assert_eq!(map.check(), Ok(()));
        // `y`, `p`... asked after `x` would mean something else on the board.
        let mut map = Keymap::default();
        map.rebind(Table::Abort, Action::RollBack, &[Key::char('p')])
            .unwrap();
        assert!(matches!(map.check(), Err(RemapError::Shadow { .. })));
        // A question takes an upper-case key as its lower case, both ways.
        let mut map = Keymap::default();
        map.rebind(Table::Abort, Action::RollBack, &[Key::char('B')])
            .unwrap();
        for c in ['b', 'B'] {
            let event = key(KeyCode::Char(c), KeyModifiers::NONE);
            assert_eq!(
                map.action(Mode::AbortChoice, &event),
                Some(Action::RollBack)
            );
        }
    }

    /// The hint bar and the help say which actions apply now.
    #[test]
    fn hints_and_help_carry_what_applies() {
        let map = Keymap::default();
        let mode = Mode::Screen(ScreenKind::RolloutBoard);
        let only_resume = |a: Action| !matches!(a, Action::Approve | Action::Pause);
        let hints = map.hints_now(mode, false, &only_resume);
        assert_eq!(hints[0], ("a".to_string(), "approve", false));
        assert_eq!(hints[1], ("p".to_string(), "pause", false));
        assert_eq!(hints[2], ("r".to_string(), "resume", true));
        let help = map.help_now(mode, &only_resume);
        assert!(help.contains(&(
            "a".to_string(),
            "approve the wave that waits for approval",
            false
        )));
        assert!(help.contains(&("j ↓".to_string(), "down", true)));
        // Without a question, everything applies.
        assert!(map.hints(mode, false).len() == hints.len());
    }

    #[test]
    fn digits_pick_namespace_favourites_and_can_be_remapped() {
        let mut map = Keymap::default();
        let screen = Mode::Screen(ScreenKind::Clusters);
        let digit = |c| key(KeyCode::Char(c), KeyModifiers::NONE);
        for (i, c) in "0123456789".chars().enumerate() {
            assert_eq!(map.action(screen, &digit(c)), Some(Action::Favourite));
            assert_eq!(map.slot(screen, Action::Favourite, &digit(c)), Some(i));
        }
        assert_eq!(map.action(Mode::Prompt, &digit('1')), None, "types text");
        assert!(help(ScreenKind::Yaml).iter().any(|(k, _)| k == "0-9"));
        let f = |n| Key::plain(KeyCode::F(n));
        map.rebind(Table::Global, Action::Favourite, &[f(10), f(1), f(2)])
            .unwrap();
        assert_eq!(map.check(), Ok(()));
        let f2 = key(KeyCode::F(2), KeyModifiers::NONE);
        assert_eq!(map.slot(screen, Action::Favourite, &f2), Some(2));
        assert_eq!(map.action(screen, &digit('1')), None);
    }

    #[test]
    fn the_editor_and_questions_do_not_quit_on_ctrl_c_unasked() {
        let map = Keymap::default();
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(
            map.action(Mode::Screen(ScreenKind::Editor), &ctrl_c),
            Some(Action::Quit)
        );
        assert_eq!(map.action(Mode::Review, &ctrl_c), None);
        assert_eq!(map.action(Mode::Filter, &ctrl_c), Some(Action::Quit));
        assert_eq!(map.action(Mode::Confirm, &ctrl_c), Some(Action::Quit));
    }
}
