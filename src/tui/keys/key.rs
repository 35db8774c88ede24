//! One key with its modifiers: how it matches a terminal event, how the
//! hint bar writes it, and how a settings file names it.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key with its modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

/// The modifiers a binding may carry; others (keypad, meta) are ignored.
const RELEVANT: KeyModifiers = KeyModifiers::CONTROL
    .union(KeyModifiers::ALT)
    .union(KeyModifiers::SHIFT);

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

    pub const fn with(code: KeyCode, modifiers: KeyModifiers) -> Key {
        Key { code, modifiers }
    }

    /// Whether a key event is this key. Shift is ignored for characters:
    /// terminals disagree on whether `G` or `?` carry it.
    pub fn matches(&self, event: &KeyEvent) -> bool {
        self.code == event.code && self.mods() == Key::of(event).mods()
    }

    /// The key an event stands for.
    pub fn of(event: &KeyEvent) -> Key {
        Key::with(event.code, event.modifiers)
    }

    /// The key as matching sees it: two keys with the same normal form are
    /// one key to the console.
    pub fn normal(&self) -> Key {
        Key::with(self.code, self.mods())
    }

    /// The modifiers that tell keys apart.
    fn mods(&self) -> KeyModifiers {
        let ignore = match self.code {
            KeyCode::Char(_) => KeyModifiers::SHIFT,
            _ => KeyModifiers::NONE,
        };
        self.modifiers & RELEVANT & !ignore
    }

    /// The same key with a character folded to lower case, for questions
    /// that take `Y` as well as `y`.
    pub fn folded(&self) -> Key {
        match self.code {
            KeyCode::Char(c) => Key::with(KeyCode::Char(c.to_ascii_lowercase()), self.modifiers),
            _ => *self,
        }
    }

    /// Whether the key types a character in a text field: a printable
    /// character without ctrl or alt.
    pub fn types_text(&self) -> bool {
        matches!(self.code, KeyCode::Char(_))
            && !self
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
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
            KeyCode::BackTab => "backtab".into(),
            KeyCode::Backspace => "bksp".into(),
            KeyCode::Delete => "del".into(),
            KeyCode::Insert => "ins".into(),
            KeyCode::F(n) => format!("f{n}"),
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

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// Reads a key as a settings file writes it: `a`, `A`, `ctrl-s`, `alt-x`,
/// `enter`, `esc`, `space`, `tab`, `up`, `pgdn`, `f5` … (the labels of the
/// hint bar are accepted too, so `↑` and `bksp` work).
pub fn parse(text: &str) -> Result<Key, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("an empty key".into());
    }
    let mut modifiers = KeyModifiers::NONE;
    let mut rest = text;
    // A lone `-` is the minus key, not a modifier separator.
    while let Some((prefix, tail)) = rest.split_once('-').filter(|(_, t)| !t.is_empty()) {
        let m = match prefix.to_ascii_lowercase().as_str() {
            "ctrl" | "c" | "control" => KeyModifiers::CONTROL,
            "alt" | "a" | "meta" | "m" => KeyModifiers::ALT,
            "shift" | "s" => KeyModifiers::SHIFT,
            _ => return Err(format!("`{prefix}` is not a modifier (ctrl, alt, shift)")),
        };
        modifiers |= m;
        rest = tail;
    }
    let code = match rest.to_ascii_lowercase().as_str() {
        "enter" | "return" | "cr" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "space" | "spc" => KeyCode::Char(' '),
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "backspace" | "bksp" | "bs" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "up" | "↑" => KeyCode::Up,
        "down" | "↓" => KeyCode::Down,
        "left" | "←" => KeyCode::Left,
        "right" | "→" => KeyCode::Right,
        "pageup" | "pgup" => KeyCode::PageUp,
        "pagedown" | "pgdn" => KeyCode::PageDown,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        f if f.len() > 1 && f.starts_with('f') && f[1..].parse::<u8>().is_ok() => {
            let n: u8 = f[1..].parse().unwrap_or(0);
            if !(1..=12).contains(&n) {
                return Err(format!("`{rest}`: function keys are f1 to f12"));
            }
            KeyCode::F(n)
        }
        _ => {
            let mut chars = rest.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) if !c.is_control() => {
                    // shift-a is A; a control key is written lower case.
                    if modifiers.contains(KeyModifiers::SHIFT) {
                        modifiers -= KeyModifiers::SHIFT;
                        KeyCode::Char(c.to_ascii_uppercase())
                    } else if modifiers.contains(KeyModifiers::CONTROL) {
                        KeyCode::Char(c.to_ascii_lowercase())
                    } else {
                        KeyCode::Char(c)
                    }
                }
                _ => return Err(format!("`{text}` is not a key")),
            }
        }
    };
    Ok(Key::with(code, modifiers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_read_as_they_are_written() {
        for (text, want) in [
            ("a", Key::char('a')),
            ("A", Key::char('A')),
            ("shift-a", Key::char('A')),
            ("ctrl-s", Key::ctrl('s')),
            ("Ctrl-S", Key::ctrl('s')),
            ("enter", Key::plain(KeyCode::Enter)),
            ("esc", Key::plain(KeyCode::Esc)),
            ("space", Key::char(' ')),
            ("↑", Key::plain(KeyCode::Up)),
            ("pgdn", Key::plain(KeyCode::PageDown)),
            ("f5", Key::plain(KeyCode::F(5))),
            ("-", Key::char('-')),
            ("ctrl--", Key::ctrl('-')),
            ("ctrl-home", Key::with(KeyCode::Home, KeyModifiers::CONTROL)),
            ("alt-x", Key::with(KeyCode::Char('x'), KeyModifiers::ALT)),
        ] {
            assert_eq!(parse(text), Ok(want), "{text}");
        }
        for bad in ["", "ctlr-s", "hello", "f13", "ctrl-"] {
            assert!(parse(bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn labels_read_back() {
        for key in [
            Key::char('a'),
            Key::char('G'),
            Key::ctrl('s'),
            Key::plain(KeyCode::Enter),
            Key::plain(KeyCode::Down),
            Key::char(' '),
            Key::with(KeyCode::End, KeyModifiers::CONTROL),
            Key::plain(KeyCode::F(2)),
        ] {
            assert_eq!(parse(&key.label()), Ok(key), "{}", key.label());
        }
    }

    #[test]
    fn shift_is_ignored_for_characters_only() {
        let ev = |code, m| KeyEvent::new(code, m);
        assert!(Key::char('G').matches(&ev(KeyCode::Char('G'), KeyModifiers::SHIFT)));
        assert!(Key::char('?').matches(&ev(KeyCode::Char('?'), KeyModifiers::NONE)));
        assert!(!Key::char('g').matches(&ev(KeyCode::Char('g'), KeyModifiers::CONTROL)));
        assert!(!Key::plain(KeyCode::Tab).matches(&ev(KeyCode::Tab, KeyModifiers::SHIFT)));
        assert!(Key::char('y').types_text());
        assert!(!Key::ctrl('y').types_text());
        assert!(!Key::plain(KeyCode::Esc).types_text());
    }
}
