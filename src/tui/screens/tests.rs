//! Each screen's key table and its actions agree: every action a screen's
//! own table binds is one its `on_action` handles, and every action it
//! handles is bound in its mode; every table has its default keys.

use super::{SCREENS, defaults};
use crate::tui::fixtures::sample::app;
use crate::tui::keys::action::ALL;
use crate::tui::keys::tables::TABLES;
use crate::tui::keys::{Action, Mode};
use crate::tui::state::app::{App, Command};

/// Whether the screen's `on_action` handles `action` (on a fresh console:
/// what it does there does not matter, only that it is the screen's).
fn handles(on_action: fn(&mut App, Action) -> Option<Vec<Command>>, action: Action) -> bool {
    on_action(&mut app(), action).is_some()
}

#[test]
fn every_action_a_screen_binds_is_one_it_handles() {
    for parts in SCREENS {
        let Some((table, keys)) = parts.table else {
            continue;
        };
        assert!(!keys.is_empty(), "{:?}: an empty table", parts.kind);
        for binding in keys {
            assert!(
                handles(parts.on_action, binding.action),
                "{:?}: table `{}` binds `{}`, which the screen does not handle",
                parts.kind,
                table.name(),
                binding.action
            );
        }
    }
}

#[test]
fn every_action_a_screen_handles_is_bound_in_its_mode() {
    for parts in SCREENS {
        if parts.on_key.is_some() {
            continue;
        }
        let mode = Mode::Screen(parts.kind);
        let bound: Vec<Action> = mode
            .tables()
            .iter()
            .flat_map(|t| defaults(*t))
            .map(|b| b.action)
            .collect();
        for action in ALL {
            if handles(parts.on_action, *action) {
                assert!(
                    bound.contains(action),
                    "{:?}: handles `{action}`, which no table of its mode binds",
                    parts.kind
                );
            }
        }
    }
}

#[test]
fn a_screen_own_table_comes_first_in_its_mode() {
    for parts in SCREENS {
        let mode = Mode::Screen(parts.kind);
        if let Some((table, _)) = parts.table {
            assert_eq!(mode.tables().first(), Some(&table), "{:?}", parts.kind);
        }
    }
}

#[test]
fn every_screen_is_listed_once_and_every_table_has_keys() {
    let modes: Vec<Mode> = Mode::all()
        .into_iter()
        .filter(|m| matches!(m, Mode::Screen(_)))
        .collect();
    for mode in &modes {
        let Mode::Screen(kind) = *mode else {
            continue;
        };
        let listed = SCREENS.iter().filter(|p| p.kind == kind).count();
        assert_eq!(listed, 1, "{kind:?} is listed {listed} times");
    }
    for parts in SCREENS {
        let mode = Mode::Screen(parts.kind);
        assert!(modes.contains(&mode), "{:?} has no mode", parts.kind);
        assert!(!mode.title().is_empty() && !mode.tables().is_empty());
    }
    for table in TABLES {
        assert!(
            !defaults(*table).is_empty(),
            "`{}` has no keys",
            table.name()
        );
    }
}
