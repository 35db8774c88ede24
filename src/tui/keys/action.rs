//! What a key can do, with the name a settings file uses for it.

use std::fmt;

/// What a key does. One enum for every mode, so dispatch, the hint bar,
/// the help and the settings file all speak of the same things.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
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
    /// Rollout board: try the selected failed cluster again. A template:
    /// try its chart repository again now.
    Retry,
    /// Rollout board: start the next wave now, past its soak, change
    /// windows and approval (asks to confirm).
    StartNow,
    /// Edit the selected service's values.
    Edit,
    /// The engine's Events about what is on screen.
    Events,
    /// The yaml and values views: the next line the `/` search finds.
    NextMatch,
    /// The yaml and values views: the previous line the `/` search finds.
    PreviousMatch,
    /// A cluster: the board of the rollout that moves it, or last moved it.
    Rollout,
    /// A prompt: run the `:` command typed.
    Run,
    /// A prompt: complete the `:` command typed.
    Complete,
    /// A prompt or a question: close it, changing nothing.
    Cancel,
    /// A text field: erase what was typed.
    Erase,
    /// The filter: close the prompt and keep the filter.
    Keep,
    /// The filter: close the prompt and clear the filter.
    Clear,
    /// Stopping a rollout: abort, the clusters stay where they are.
    Stay,
    /// Stopping a rollout: roll back.
    RollBack,
    /// A question: yes.
    Yes,
    /// A question: no.
    No,
    /// The editor: review the merged values, then save.
    Save,
    /// The editor: close it (asks first when there are changes).
    Close,
    /// The editor: put the text typed before a reload back.
    PutBack,
    Undo,
    Redo,
    /// The editor's review: send the values.
    Apply,
    /// The editor's questions: go back to the text.
    KeepEditing,
    /// The editor, on unsaved changes: throw them away.
    Discard,
    /// The editor, on a conflict: load the newer values.
    Reload,
    /// The editor, on a conflict: keep the text typed.
    KeepMine,
    /// The engine's warnings, counted in the header.
    Warnings,
    /// A list: sort by name; again reverses.
    SortName,
    /// A list: sort by age; again reverses.
    SortAge,
    /// A list: sort by the screen's status column; again reverses.
    SortStatus,
    /// A list: describe the selected object.
    Describe,
    /// A list: delete the selected object (asks to confirm).
    Delete,
    /// Switch to a namespace favourite: the action's n-th key picks
    /// favourite n (`0` all namespaces, `1`–`9` the header's list).
    Favourite,
}

/// Every action, for reading names back.
pub const ALL: &[Action] = &[
    Action::Quit,
    Action::Help,
    Action::Command,
    Action::Filter,
    Action::Back,
    Action::Up,
    Action::Down,
    Action::PageUp,
    Action::PageDown,
    Action::Top,
    Action::Bottom,
    Action::Open,
    Action::Yaml,
    Action::Approve,
    Action::Pause,
    Action::Resume,
    Action::Abort,
    Action::Skip,
    Action::Retry,
    Action::StartNow,
    Action::Edit,
    Action::Events,
    Action::NextMatch,
    Action::PreviousMatch,
    Action::Rollout,
    Action::Run,
    Action::Complete,
    Action::Cancel,
    Action::Erase,
    Action::Keep,
    Action::Clear,
    Action::Stay,
    Action::RollBack,
    Action::Yes,
    Action::No,
    Action::Save,
    Action::Close,
    Action::PutBack,
    Action::Undo,
    Action::Redo,
    Action::Apply,
    Action::KeepEditing,
    Action::Discard,
    Action::Reload,
    Action::KeepMine,
    Action::Warnings,
    Action::SortName,
    Action::SortAge,
    Action::SortStatus,
    Action::Describe,
    Action::Delete,
    Action::Favourite,
];

impl Action {
    /// The action's name in the settings file and in `hmc-tui keys`.
    pub fn name(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::Command => "command",
            Action::Filter => "filter",
            Action::Back => "back",
            Action::Up => "up",
            Action::Down => "down",
            Action::PageUp => "page-up",
            Action::PageDown => "page-down",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::Open => "open",
            Action::Yaml => "yaml",
            Action::Approve => "approve",
            Action::Pause => "pause",
            Action::Resume => "resume",
            Action::Abort => "abort",
            Action::Skip => "skip",
            Action::Retry => "retry",
            Action::StartNow => "start-now",
            Action::Edit => "edit",
            Action::Events => "events",
            Action::NextMatch => "next-match",
            Action::PreviousMatch => "previous-match",
            Action::Rollout => "rollout",
            Action::Run => "run",
            Action::Complete => "complete",
            Action::Cancel => "cancel",
            Action::Erase => "erase",
            Action::Keep => "keep",
            Action::Clear => "clear",
            Action::Stay => "stay",
            Action::RollBack => "roll-back",
            Action::Yes => "yes",
            Action::No => "no",
            Action::Save => "save",
            Action::Close => "close",
            Action::PutBack => "put-back",
            Action::Undo => "undo",
            Action::Redo => "redo",
            Action::Apply => "apply",
            Action::KeepEditing => "keep-editing",
            Action::Discard => "discard",
            Action::Reload => "reload",
            Action::KeepMine => "keep-mine",
            Action::Warnings => "warnings",
            Action::SortName => "sort-name",
            Action::SortAge => "sort-age",
            Action::SortStatus => "sort-status",
            Action::Describe => "describe",
            Action::Delete => "delete",
            Action::Favourite => "favourite",
        }
    }

    /// The action a settings file names (`page-down`, `page_down` and
    /// `pageDown` are one name).
    pub fn named(name: &str) -> Option<Action> {
        let want = simple(name);
        ALL.iter().copied().find(|a| simple(a.name()) == want)
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name without case or separators.
fn simple(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_one_name_that_reads_back() {
        let mut names: Vec<&str> = ALL.iter().map(|a| a.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), ALL.len(), "names are unique");
        for action in ALL {
            assert_eq!(Action::named(action.name()), Some(*action));
        }
        assert_eq!(Action::named("pageDown"), Some(Action::PageDown));
        assert_eq!(Action::named("PAGE_DOWN"), Some(Action::PageDown));
        assert_eq!(Action::named("launch"), None);
    }
}
