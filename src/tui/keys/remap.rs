//! The `keys:` section of the settings file: the user's remapping, in the
//! style of k9s' hotkeys and yazi's keymap, one table per mode:
//!
//! ```yaml
//! keys:
//!   board:
//!     approve: A            # one key
//!     skip: [S, ctrl-k]     # or several
//!   global:
//!     quit: ctrl-q
//! ```
//!
//! Naming an action gives it these keys in place of its defaults. A table
//! or action that does not exist, a key that cannot be read, a plain
//! character where text is typed, and a key that would do two things in
//! one mode are refused at start, with the line of the file that says it.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::action::Action;
use super::key::{self, Key};
use super::keymap::Keymap;
use super::tables::{TABLES, Table};

/// One key or a list of keys.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Keys {
    One(String),
    Many(Vec<String>),
}

impl Keys {
    fn texts(&self) -> Vec<&str> {
        match self {
            Keys::One(k) => vec![k.as_str()],
            Keys::Many(ks) => ks.iter().map(String::as_str).collect(),
        }
    }
}

/// The section as written: table → action → keys.
pub type Section = BTreeMap<String, BTreeMap<String, Keys>>;

/// A remapping refused, with the line of the settings file that asks it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct Refused {
    pub line: usize,
    pub reason: String,
}

/// The default keymap with a settings file's section applied. `text` is
/// the file, for the line numbers.
pub fn apply(section: &Section, text: &str) -> Result<Keymap, Refused> {
    let mut keymap = Keymap::default();
    // In the order of the file, so the first mistake is the one reported.
    let mut entries: Vec<(usize, &str, &str, &Keys)> = section
        .iter()
        .flat_map(|(table, actions)| {
            actions.iter().map(move |(action, keys)| {
                let line = line_of(text, &["keys", table, action])
                    .or_else(|| line_of(text, &["keys", table]))
                    .or_else(|| line_of(text, &["keys"]))
                    .unwrap_or(1);
                (line, table.as_str(), action.as_str(), keys)
            })
        })
        .collect();
    entries.sort_by_key(|(line, ..)| *line);
    for (line, table_name, action_name, keys) in entries {
        let refuse = |reason: String| Refused { line, reason };
        let table = Table::named(table_name).ok_or_else(|| {
            refuse(format!(
                "`{table_name}` is not a keys table; tables: {}",
                TABLES
                    .iter()
                    .map(|t| t.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let action = Action::named(action_name).ok_or_else(|| {
            refuse(format!(
                "`{action_name}` is not an action; `hmc-tui keys` lists them by table"
            ))
        })?;
        let keys: Vec<Key> = keys
            .texts()
            .into_iter()
            .map(key::parse)
            .collect::<Result<_, _>>()
            .map_err(|e| refuse(format!("{}.{}: {e}", table.name(), action.name())))?;
        keymap
            .rebind(table, action, &keys)
            .and_then(|()| keymap.check())
            .map_err(|e| refuse(format!("{}.{}: {e}", table.name(), action.name())))?;
    }
    Ok(keymap)
}

/// The 1-based line where a path of block-mapping keys is written, such as
/// `keys:` › `board:` › `approve:`. Flow-style YAML falls back to the
/// nearest enclosing key the caller asks for.
pub fn line_of(text: &str, path: &[&str]) -> Option<usize> {
    let mut depth = 0;
    // The indentation the current level's keys must be deeper than.
    let mut outer: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let content = raw.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = raw.len() - content.len();
        if outer.is_some_and(|o| indent <= o) {
            // Left the mapping the path was in: the key is not there.
            return None;
        }
        let Some((name, _)) = content.split_once(':') else {
            continue;
        };
        let name = name.trim().trim_matches(|c| c == '"' || c == '\'');
        if name == path[depth] {
            depth += 1;
            if depth == path.len() {
                return Some(i + 1);
            }
            outer = Some(indent);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use crate::tui::keys::tables::{Mode, ScreenKind};

    fn section(text: &str) -> Section {
        #[derive(Deserialize)]
        struct File {
            keys: Section,
        }
        serde_yaml::from_str::<File>(text).expect("test yaml").keys
    }

    fn remap(text: &str) -> Result<Keymap, Refused> {
        apply(&section(text), text)
    }

    fn press(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
    }

    const BOARD: Mode = Mode::Screen(ScreenKind::RolloutBoard);

    #[test]
    fn a_rebound_action_takes_its_new_keys_and_leaves_the_old() {
        let map = remap("theme: light\nkeys:\n  board:\n    approve: A\n").unwrap();
        assert_eq!(map.action(BOARD, &press('A')), Some(Action::Approve));
        assert_eq!(map.action(BOARD, &press('a')), None);
        // The hint bar and the help follow.
        assert_eq!(map.hints(BOARD, false)[0], ("A".to_string(), "approve"));
        assert!(
            map.help(BOARD)
                .contains(&("A".to_string(), "approve the wave that waits for approval"))
        );
        // Other tables keep their keys.
        assert_eq!(
            map.action(Mode::Screen(ScreenKind::Clusters), &press('y')),
            Some(Action::Yaml)
        );
    }

    #[test]
    fn several_keys_and_every_mode_can_be_rebound() {
        let text = "keys:\n  global:\n    quit: [Q, ctrl-q]\n  confirm:\n    yes: enter\n  editor:\n    save: f2\n  prompt:\n    complete: ctrl-space\n";
        let map = remap(text).unwrap();
        let clusters = Mode::Screen(ScreenKind::Clusters);
        assert_eq!(map.action(clusters, &press('Q')), Some(Action::Quit));
        assert_eq!(
            map.action(
                clusters,
                &KeyEvent::new(KeyCode::Char('q'), KeyModifiers::CONTROL)
            ),
            Some(Action::Quit)
        );
        assert_eq!(map.action(clusters, &press('q')), None);
        // Only the first new key is in the hint bar.
        assert!(
            map.hints(clusters, false)
                .contains(&("Q".to_string(), "quit"))
        );
        assert_eq!(
            map.action(
                Mode::Confirm,
                &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)
            ),
            Some(Action::Yes)
        );
        assert_eq!(
            map.action(
                Mode::Screen(ScreenKind::Editor),
                &KeyEvent::new(KeyCode::F(2), KeyModifiers::NONE)
            ),
            Some(Action::Save)
        );
        assert_eq!(
            map.action(
                Mode::Prompt,
                &KeyEvent::new(KeyCode::Char(' '), KeyModifiers::CONTROL)
            ),
            Some(Action::Complete)
        );
    }

    #[test]
    fn mistakes_are_refused_with_their_line() {
        for (text, line, words) in [
            (
                "keys:\n  bored:\n    approve: A\n",
                3,
                "`bored` is not a keys table",
            ),
            (
                "keys:\n  board:\n    launch: A\n",
                3,
                "`launch` is not an action",
            ),
            (
                "keys:\n  board:\n    edit: e\n",
                3,
                "`edit` is not an action of `board`",
            ),
            (
                "keys:\n  board:\n    approve: ctlr-a\n",
                3,
                "`ctlr` is not a modifier",
            ),
            (
                "# mine\nkeys:\n  board:\n    pause: P\n    approve: r\n",
                5,
                "`r` would do both `approve` and `resume`",
            ),
            (
                "keys:\n  board:\n    approve: x\n",
                3,
                "`x` would do both `approve` and `abort` in rollout board",
            ),
            (
                "keys:\n  board:\n    approve: q\n",
                3,
                "`q` would do both `approve` and `quit` in rollout board",
            ),
            (
                "keys:\n  editor:\n    save: s\n",
                3,
                "`s` types text in the values editor",
            ),
            ("keys:\n  filter:\n    keep: k\n", 3, "`k` types text"),
            (
                "keys:\n  board:\n    approve: []\n",
                3,
                "no key left for `approve`",
            ),
            (
                "keys:\n  anywhere:\n    quit: ctrl-u\n",
                3,
                "`ctrl-u` would do both `erase` and `quit` in filter",
            ),
        ] {
            let Err(err) = remap(text) else {
                panic!("{text} should be refused")
            };
            assert_eq!(err.line, line, "{text}: {err}");
            assert!(err.reason.contains(words), "{text}: {err}");
        }
    }

    #[test]
    fn questions_take_either_case() {
        let map = Keymap::default();
        assert_eq!(map.action(Mode::Confirm, &press('Y')), Some(Action::Yes));
        assert_eq!(
            map.action(Mode::AbortChoice, &press('B')),
            Some(Action::RollBack)
        );
        // A question's key in upper case clashes with the same in lower.
        let Err(err) = remap("keys:\n  confirm:\n    yes: N\n") else {
            panic!("N and n are one answer")
        };
        assert!(err.reason.contains("would do both"), "{err}");
    }

    #[test]
    fn lines_are_found_under_their_parents() {
        let text = "theme: x\napprove: 1\nkeys:\n  # comment\n  list:\n    up: K\n  board:\n    up: K\n    approve: A\nother:\n  board:\n    pause: p\n";
        assert_eq!(line_of(text, &["keys"]), Some(3));
        assert_eq!(line_of(text, &["keys", "board", "approve"]), Some(9));
        assert_eq!(line_of(text, &["keys", "board", "up"]), Some(8));
        assert_eq!(line_of(text, &["keys", "board", "pause"]), None);
    }
}
