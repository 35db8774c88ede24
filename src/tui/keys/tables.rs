//! The default keybindings, as data: the tables the screens share, and
//! the modes made of them and of each screen's own table (which the screen
//! holds, [`crate::tui::screens`]), `(key, action, description)` per row. Dispatch, the hint bar, the `?`
//! help and `hmc-tui keys` are all generated from these tables (through
//! [`super::keymap::Keymap`], which applies the user's remapping), so
//! what the help says is what the keys do.

use crossterm::event::{KeyCode, KeyModifiers};

use super::action::Action;
use super::key::Key;

/// The screens, as far as keys are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScreenKind {
    Clusters,
    ClusterDetail,
    Templates,
    TemplateDetail,
    /// The values editor: its own table takes every key.
    Editor,
    Rollouts,
    RolloutBoard,
    /// The MultiClusterServices.
    MultiClusterServices,
    /// The clusters one MultiClusterService selects.
    MultiClusterService,
    Events,
    Yaml,
    /// A service's values, or a ServiceTemplate's defaults.
    Values,
    /// The engine's warnings.
    Warnings,
    /// `d`: an object described.
    Describe,
}

/// Where the user is, as far as keys are concerned: a screen, or a prompt,
/// question or editor stage in front of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Screen(ScreenKind),
    /// Typing the `/` filter.
    Filter,
    /// Typing a `:` command.
    Prompt,
    /// Choosing how to stop a rollout.
    AbortChoice,
    /// A yes/no question before a request that cannot be undone.
    Confirm,
    /// The merged values diff before a save.
    Review,
    /// Unsaved changes on close.
    Discard,
    /// The object changed since the editor opened.
    Conflict,
    /// A yes/no question before a delete.
    Delete,
}

/// One table of bindings; a mode is made of one or more of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Table {
    /// Everywhere but the editor: ctrl-c quits.
    Anywhere,
    /// On every screen.
    Global,
    /// Moving through a list.
    List,
    Clusters,
    Cluster,
    Templates,
    Template,
    Rollouts,
    Board,
    MultiClusterServices,
    MultiClusterService,
    Events,
    /// Scrolling text: YAML and values.
    Text,
    Filter,
    Prompt,
    Abort,
    Confirm,
    Editor,
    Review,
    Discard,
    Conflict,
    Delete,
}

/// Every table, in the order `hmc-tui keys` prints them.
pub const TABLES: &[Table] = &[
    Table::Global,
    Table::Anywhere,
    Table::List,
    Table::Clusters,
    Table::Cluster,
    Table::Templates,
    Table::Template,
    Table::Rollouts,
    Table::Board,
    Table::MultiClusterServices,
    Table::MultiClusterService,
    Table::Events,
    Table::Text,
    Table::Filter,
    Table::Prompt,
    Table::Abort,
    Table::Confirm,
    Table::Editor,
    Table::Review,
    Table::Discard,
    Table::Conflict,
    Table::Delete,
];

impl Table {
    /// The table's name in the settings file.
    pub fn name(self) -> &'static str {
        match self {
            Table::Anywhere => "anywhere",
            Table::Global => "global",
            Table::List => "list",
            Table::Clusters => "clusters",
            Table::Cluster => "cluster",
            Table::Templates => "templates",
            Table::Template => "template",
            Table::Rollouts => "rollouts",
            Table::Board => "board",
            Table::MultiClusterServices => "multiclusterservices",
            Table::MultiClusterService => "multiclusterservice",
            Table::Events => "events",
            Table::Text => "text",
            Table::Filter => "filter",
            Table::Prompt => "prompt",
            Table::Abort => "abort",
            Table::Confirm => "confirm",
            Table::Editor => "editor",
            Table::Review => "review",
            Table::Discard => "discard",
            Table::Conflict => "conflict",
            Table::Delete => "delete",
        }
    }

    /// Where the table's keys work, for `hmc-tui keys` and error messages.
    pub fn about(self) -> &'static str {
        match self {
            Table::Anywhere => "everywhere but the values editor",
            Table::Global => "on every screen",
            Table::List => "moving through a list",
            Table::Clusters => "the clusters screen",
            Table::Cluster => "a cluster's screen",
            Table::Templates => "the templates screen",
            Table::Template => "a ClusterTemplate's screen",
            Table::Rollouts => "the rollouts screen",
            Table::Board => "the rollout board",
            Table::MultiClusterServices => "the MultiClusterServices screen",
            Table::MultiClusterService => "a MultiClusterService's clusters",
            Table::Events => "the events screen",
            Table::Text => "the yaml and values views",
            Table::Filter => "typing a / filter",
            Table::Prompt => "typing a : command",
            Table::Abort => "choosing how to stop a rollout",
            Table::Confirm => "a yes/no question before a request",
            Table::Editor => "the values editor",
            Table::Review => "the values editor's review before a save",
            Table::Discard => "the values editor's question on unsaved changes",
            Table::Conflict => "the values editor when the object changed under it",
            Table::Delete => "a yes/no question before a delete",
        }
    }

    /// The table a settings file names.
    pub fn named(name: &str) -> Option<Table> {
        TABLES
            .iter()
            .copied()
            .find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether the table's mode reads typed text: a plain character there
    /// types itself and cannot be bound.
    pub fn takes_text(self) -> bool {
        matches!(self, Table::Filter | Table::Prompt | Table::Editor)
    }

    /// Whether the table answers a question, where `Y` means `y`.
    pub fn answers(self) -> bool {
        matches!(
            self,
            Table::Abort
                | Table::Confirm
                | Table::Review
                | Table::Discard
                | Table::Conflict
                | Table::Delete
        )
    }

    /// The default bindings of a table the screens share; `None` for a
    /// screen's own table, which the screen holds
    /// ([`crate::tui::screens`]).
    pub fn shared(self) -> Option<&'static [Binding]> {
        Some(match self {
            Table::Anywhere => ANYWHERE,
            Table::Global => GLOBAL,
            Table::List => LIST,
            Table::Text => TEXT,
            Table::Filter => FILTER,
            Table::Prompt => PROMPT,
            Table::Abort => ABORT,
            Table::Confirm => CONFIRM,
            Table::Editor => EDITOR,
            Table::Review => REVIEW,
            Table::Discard => DISCARD,
            Table::Conflict => CONFLICT,
            Table::Delete => DELETE,
            Table::Clusters
            | Table::Cluster
            | Table::Templates
            | Table::Template
            | Table::Rollouts
            | Table::Board
            | Table::MultiClusterServices
            | Table::MultiClusterService
            | Table::Events => return None,
        })
    }
}

/// Every screen's mode, one entry each: its kind, how the help and error
/// messages name it, and its tables, the first winning.
const SCREEN_MODES: &[(ScreenKind, &str, &[Table])] = &[
    (
        ScreenKind::Clusters,
        "clusters",
        &[Table::Clusters, Table::List, Table::Global, Table::Anywhere],
    ),
    (
        ScreenKind::ClusterDetail,
        "cluster",
        &[Table::Cluster, Table::List, Table::Global, Table::Anywhere],
    ),
    (
        ScreenKind::Templates,
        "templates",
        &[
            Table::Templates,
            Table::List,
            Table::Global,
            Table::Anywhere,
        ],
    ),
    (
        ScreenKind::TemplateDetail,
        "template",
        &[Table::Template, Table::List, Table::Global, Table::Anywhere],
    ),
    // The editor takes every key, ctrl-c too: it asks before losing changes.
    (ScreenKind::Editor, "values editor", &[Table::Editor]),
    (
        ScreenKind::Rollouts,
        "rollouts",
        &[Table::Rollouts, Table::List, Table::Global, Table::Anywhere],
    ),
    (
        ScreenKind::RolloutBoard,
        "rollout board",
        &[Table::Board, Table::List, Table::Global, Table::Anywhere],
    ),
    (
        ScreenKind::MultiClusterServices,
        "multiclusterservices",
        &[
            Table::MultiClusterServices,
            Table::List,
            Table::Global,
            Table::Anywhere,
        ],
    ),
    (
        ScreenKind::MultiClusterService,
        "multiclusterservice",
        &[
            Table::MultiClusterService,
            Table::List,
            Table::Global,
            Table::Anywhere,
        ],
    ),
    (
        ScreenKind::Events,
        "events",
        &[Table::Events, Table::List, Table::Global, Table::Anywhere],
    ),
    (ScreenKind::Yaml, "yaml", TEXT_MODE),
    (ScreenKind::Values, "values", TEXT_MODE),
    (
        ScreenKind::Warnings,
        "warnings",
        &[Table::List, Table::Global, Table::Anywhere],
    ),
    (ScreenKind::Describe, "describe", TEXT_MODE),
];

/// The tables of a screen that scrolls text.
const TEXT_MODE: &[Table] = &[Table::Text, Table::Global, Table::Anywhere];

/// A screen's title and tables (none for a screen not listed).
fn screen_mode(kind: ScreenKind) -> (&'static str, &'static [Table]) {
    SCREEN_MODES
        .iter()
        .find(|(k, _, _)| *k == kind)
        .map_or(("", &[]), |(_, title, tables)| (*title, *tables))
}

impl Mode {
    /// The tables a mode is made of, the first winning.
    pub fn tables(self) -> &'static [Table] {
        match self {
            Mode::Screen(screen) => screen_mode(screen).1,
            Mode::Filter => &[Table::Filter, Table::Anywhere],
            Mode::Prompt => &[Table::Prompt, Table::Anywhere],
            Mode::AbortChoice => &[Table::Abort, Table::Anywhere],
            Mode::Confirm => &[Table::Confirm, Table::Anywhere],
            Mode::Review => &[Table::Review],
            Mode::Discard => &[Table::Discard],
            Mode::Conflict => &[Table::Conflict],
            Mode::Delete => &[Table::Delete, Table::Anywhere],
        }
    }

    /// Every mode, for checking that no key means two things in one.
    pub fn all() -> Vec<Mode> {
        SCREEN_MODES
            .iter()
            .map(|(kind, _, _)| Mode::Screen(*kind))
            .chain([
                Mode::Filter,
                Mode::Prompt,
                Mode::AbortChoice,
                Mode::Confirm,
                Mode::Review,
                Mode::Discard,
                Mode::Conflict,
                Mode::Delete,
            ])
            .collect()
    }

    /// The screen a question is asked over, whose keys stay in sight: a
    /// key of the question must not mean something else there.
    pub fn over(self) -> Option<Mode> {
        match self {
            Mode::AbortChoice | Mode::Confirm => Some(Mode::Screen(ScreenKind::RolloutBoard)),
            Mode::Review | Mode::Discard | Mode::Conflict => Some(Mode::Screen(ScreenKind::Editor)),
            _ => None,
        }
    }

    /// How the help and error messages name the mode.
    pub fn title(self) -> &'static str {
        match self {
            Mode::Screen(screen) => screen_mode(screen).0,
            Mode::Filter => "filter",
            Mode::Prompt => "command prompt",
            Mode::AbortChoice => "stopping a rollout",
            Mode::Confirm => "confirming a request",
            Mode::Review => "values review",
            Mode::Discard => "unsaved values",
            Mode::Conflict => "values changed elsewhere",
            Mode::Delete => "confirming a delete",
        }
    }
}

/// When a binding shows in the hint bar (the help shows every binding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hint {
    Never,
    Always,
    /// Only while the editor holds text typed before a reload.
    WithNote,
    /// Hidden while the editor holds such text, to leave room.
    WithoutNote,
}

/// One binding: a key, what it does, and what the help calls it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Binding {
    pub key: Key,
    pub action: Action,
    pub description: &'static str,
    pub hint: Hint,
    /// What the help says, when the hint's word is too short to explain.
    pub help: Option<&'static str>,
}

pub const fn bind(key: Key, action: Action, description: &'static str, hint: bool) -> Binding {
    Binding {
        key,
        action,
        description,
        hint: if hint { Hint::Always } else { Hint::Never },
        help: None,
    }
}

impl Binding {
    /// The help's longer text for this binding.
    pub const fn explained(self, help: &'static str) -> Binding {
        Binding {
            help: Some(help),
            ..self
        }
    }

    pub const fn hinted(self, hint: Hint) -> Binding {
        Binding { hint, ..self }
    }
}

const ANYWHERE: &[Binding] = &[bind(Key::ctrl('c'), Action::Quit, "quit", false)];

const GLOBAL: &[Binding] = &[
    bind(Key::char(':'), Action::Command, "command", true),
    bind(Key::char('?'), Action::Help, "help", true),
    bind(Key::plain(KeyCode::Esc), Action::Back, "back", true),
    bind(Key::char('q'), Action::Quit, "quit", true),
    bind(Key::char('!'), Action::Warnings, "warnings", false).explained("the engine's warnings"),
    bind(Key::char('0'), Action::Favourite, "namespace", false).explained(FAVOURITES),
    bind(Key::char('1'), Action::Favourite, "namespace", false),
    bind(Key::char('2'), Action::Favourite, "namespace", false),
    bind(Key::char('3'), Action::Favourite, "namespace", false),
    bind(Key::char('4'), Action::Favourite, "namespace", false),
    bind(Key::char('5'), Action::Favourite, "namespace", false),
    bind(Key::char('6'), Action::Favourite, "namespace", false),
    bind(Key::char('7'), Action::Favourite, "namespace", false),
    bind(Key::char('8'), Action::Favourite, "namespace", false),
    bind(Key::char('9'), Action::Favourite, "namespace", false),
];

/// The help's line for the namespace favourites' keys.
const FAVOURITES: &str = "switch namespace: 0 all, 1-9 the header's favourites";

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
    bind(Key::char('/'), Action::Filter, "filter", true)
        .explained("rows with the text in any column; /!text: the others"),
];

pub const DESCRIBE: Binding = bind(Key::char('d'), Action::Describe, "describe", true)
    .explained("conditions, services, related objects, last events");
pub const SORT_NAME: Binding = bind(Key::char('N'), Action::SortName, "sort by name", false)
    .explained("sort by name; again reverses");
pub const SORT_AGE: Binding = bind(Key::char('A'), Action::SortAge, "sort by age", false)
    .explained("sort by age, the youngest first; again reverses");

/// `t` on a template, as on the board: try again, here the template's
/// chart repository, at once (even while the engine holds it back). Out
/// of the hint bar, to leave room: the REPOSITORY column says when a
/// repository is held back, and the help names the key.
pub const RETRY_REPOSITORY: Binding = bind(Key::char('t'), Action::Retry, "retry", false);

const TEXT: &[Binding] = &[
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
    bind(Key::char('/'), Action::Filter, "search", true)
        .explained("find text, ignoring case; /!text finds the lines without it"),
    bind(Key::char('n'), Action::NextMatch, "next", true)
        .explained("the next line the search finds"),
    bind(Key::char('N'), Action::PreviousMatch, "previous", false)
        .explained("the previous line the search finds"),
];

/// What `ctrl-u` does in every text field (the filter, the `:` prompt,
/// the values editor), as in readline and k9s.
const ERASE: &str = "erase the line before the cursor";

const FILTER: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Keep, "keep", true),
    bind(Key::plain(KeyCode::Esc), Action::Clear, "clear", true),
    bind(Key::plain(KeyCode::Up), Action::Up, "move", true),
    bind(Key::plain(KeyCode::Down), Action::Down, "move", true),
    bind(Key::ctrl('u'), Action::Erase, "erase", true).explained(ERASE),
];

const PROMPT: &[Binding] = &[
    bind(Key::plain(KeyCode::Enter), Action::Run, "run", true),
    bind(Key::plain(KeyCode::Tab), Action::Complete, "complete", true),
    bind(Key::plain(KeyCode::Esc), Action::Cancel, "cancel", true),
    bind(Key::ctrl('u'), Action::Erase, "erase", true).explained(ERASE),
];

const ABORT: &[Binding] = &[
    // `x` again: what `x` means on the board underneath.
    bind(Key::char('x'), Action::Stay, "abort (clusters stay)", true),
    bind(Key::char('b'), Action::RollBack, "roll back", true),
    bind(Key::plain(KeyCode::Esc), Action::Cancel, "cancel", true),
    bind(Key::char('n'), Action::Cancel, "cancel", false),
    bind(Key::char('q'), Action::Cancel, "cancel", false),
];

const CONFIRM: &[Binding] = &[
    bind(Key::char('y'), Action::Yes, "yes, ask", true),
    bind(Key::char('n'), Action::No, "no", true),
    bind(Key::plain(KeyCode::Esc), Action::No, "no", true),
    bind(Key::char('q'), Action::No, "no", false),
];

const DELETE: &[Binding] = &[
    bind(Key::char('y'), Action::Yes, "yes, delete", true),
    bind(Key::char('n'), Action::No, "no", true),
    bind(Key::plain(KeyCode::Esc), Action::No, "no", true),
    bind(Key::char('q'), Action::No, "no", false),
];

const CTRL_HOME: Key = Key::with(KeyCode::Home, KeyModifiers::CONTROL);
const CTRL_END: Key = Key::with(KeyCode::End, KeyModifiers::CONTROL);

/// The values editor: keys not bound here go to the text area, which
/// types, moves and deletes as terminal editors do.
const EDITOR: &[Binding] = &[
    bind(Key::ctrl('s'), Action::Save, "save", true)
        .explained("check, review the merged values, then save"),
    bind(Key::ctrl('o'), Action::PutBack, "put your text back", false)
        .hinted(Hint::WithNote)
        .explained("after a reload: put the text you typed back"),
    bind(Key::plain(KeyCode::Esc), Action::Close, "close", true)
        .explained("close the editor; asks when there are changes"),
    bind(Key::ctrl('c'), Action::Quit, "quit", false)
        .explained("leave the console; asks when there are changes"),
    bind(Key::ctrl('z'), Action::Undo, "undo", true),
    bind(Key::ctrl('r'), Action::Redo, "redo", false).hinted(Hint::WithoutNote),
    bind(Key::ctrl('u'), Action::Erase, "erase", false).explained(ERASE),
    bind(CTRL_HOME, Action::Top, "top", false),
    bind(CTRL_END, Action::Bottom, "bottom", false),
];

const REVIEW: &[Binding] = &[
    bind(Key::char('y'), Action::Apply, "apply", true),
    bind(Key::char('n'), Action::KeepEditing, "keep editing", true),
    bind(
        Key::plain(KeyCode::Esc),
        Action::KeepEditing,
        "keep editing",
        true,
    ),
    // The fleet's impact: groups, a group's clusters, a cluster's diff.
    bind(Key::char('j'), Action::Down, "next group or cluster", false),
    bind(
        Key::plain(KeyCode::Down),
        Action::Down,
        "next group or cluster",
        false,
    ),
    bind(
        Key::char('k'),
        Action::Up,
        "previous group or cluster",
        false,
    ),
    bind(
        Key::plain(KeyCode::Up),
        Action::Up,
        "previous group or cluster",
        false,
    ),
    bind(
        Key::plain(KeyCode::Enter),
        Action::Open,
        "open the group or cluster",
        false,
    ),
    bind(
        Key::plain(KeyCode::Backspace),
        Action::Back,
        "back to the groups",
        false,
    ),
];

const DISCARD: &[Binding] = &[
    bind(Key::char('y'), Action::Discard, "discard", true),
    bind(Key::char('n'), Action::KeepEditing, "keep editing", true),
    bind(
        Key::plain(KeyCode::Esc),
        Action::KeepEditing,
        "keep editing",
        true,
    ),
];

const CONFLICT: &[Binding] = &[
    bind(Key::char('r'), Action::Reload, "reload", true),
    bind(
        Key::plain(KeyCode::Esc),
        Action::KeepMine,
        "keep my text",
        true,
    ),
];
