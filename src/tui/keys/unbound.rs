//! What a key that does nothing on a screen says, from the keymap: a key
//! of another screen names what it does there (`a (approve) does nothing
//! on this screen`), any other key says it is none of this screen's.

use crossterm::event::{KeyCode, KeyEvent};

use super::action::Action;
use super::key::Key;
use super::keymap::Keymap;
use super::tables::{Mode, TABLES};

/// One short line for a key with no binding in `mode`; `None` in modes that
/// read typed text or answer a question (there a key types or is ignored),
/// and for keys that are no key of their own (a lone modifier).
pub fn not_here(keys: &Keymap, mode: Mode, event: &KeyEvent) -> Option<String> {
    if !matches!(mode, Mode::Screen(_)) || mode.tables().iter().any(|t| t.takes_text()) {
        return None;
    }
    if matches!(event.code, KeyCode::Modifier(_) | KeyCode::Null) {
        return None;
    }
    let key = Key::of(event);
    let help = keys.label(mode, Action::Help);
    // The same key on a screen elsewhere: what it does there.
    let elsewhere = TABLES
        .iter()
        .filter(|t| !t.takes_text() && !t.answers())
        .flat_map(|t| keys.table(*t))
        .find(|b| b.key.normal() == key.normal());
    Some(match elsewhere {
        Some(b) => format!(
            "{} ({}) does nothing on this screen ({help} lists its keys)",
            key.label(),
            b.description
        ),
        None => format!(
            "{} is not a key of this screen ({help} lists them)",
            key.label()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crossterm::event::KeyModifiers;

    use crate::tui::keys::tables::ScreenKind;

    fn say(mode: Mode, code: KeyCode, modifiers: KeyModifiers) -> Option<String> {
        not_here(&Keymap::default(), mode, &KeyEvent::new(code, modifiers))
    }

    #[test]
    fn a_key_of_another_screen_says_what_it_does_there() {
        let clusters = Mode::Screen(ScreenKind::Clusters);
        assert_eq!(
            say(clusters, KeyCode::Char('a'), KeyModifiers::NONE).as_deref(),
            Some("a (approve) does nothing on this screen (? lists its keys)")
        );
        assert_eq!(
            say(
                Mode::Screen(ScreenKind::Yaml),
                KeyCode::Char('/'),
                KeyModifiers::NONE
            )
            .as_deref(),
            Some("/ (filter) does nothing on this screen (? lists its keys)")
        );
    }

    #[test]
    fn any_other_key_is_none_of_the_screens() {
        let clusters = Mode::Screen(ScreenKind::Clusters);
        assert_eq!(
            say(clusters, KeyCode::Char('z'), KeyModifiers::NONE).as_deref(),
            Some("z is not a key of this screen (? lists them)")
        );
        assert_eq!(
            say(clusters, KeyCode::Char('x'), KeyModifiers::CONTROL).as_deref(),
            Some("ctrl-x is not a key of this screen (? lists them)")
        );
    }

    #[test]
    fn text_fields_questions_and_modifiers_say_nothing() {
        for mode in [
            Mode::Filter,
            Mode::Prompt,
            Mode::Confirm,
            Mode::Review,
            Mode::Screen(ScreenKind::Editor),
        ] {
            assert_eq!(say(mode, KeyCode::Char('z'), KeyModifiers::NONE), None);
        }
        assert_eq!(
            say(
                Mode::Screen(ScreenKind::Clusters),
                KeyCode::Modifier(crossterm::event::ModifierKeyCode::LeftShift),
                KeyModifiers::SHIFT
            ),
            None
        );
    }

    #[test]
    fn a_remapped_key_is_named_by_its_new_binding() {
        let mut keys = Keymap::default();
        keys.rebind(
            crate::tui::keys::tables::Table::Global,
            Action::Help,
            &[Key::plain(KeyCode::F(1))],
        )
        .unwrap();
        let text = not_here(
            &keys,
            Mode::Screen(ScreenKind::Clusters),
            &KeyEvent::new(KeyCode::Char('z'), KeyModifiers::NONE),
        );
        assert_eq!(
            text.as_deref(),
            Some("z is not a key of this screen (f1 lists them)")
        );
    }
}
