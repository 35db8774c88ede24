//! The console's state: the [`App`], the messages that change it and the
//! commands it asks the loop for. `update::update` applies the
//! messages; the files beside this one do the work by topic.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crossterm::event::{KeyEvent, MouseEvent};
use k8s_openapi::jiff::Timestamp;
use ratatui::layout::Rect;

use crate::plan::rollout::Request;
use crate::tui::keys::keymap::Keymap;
use crate::tui::keys::tables::{Mode, ScreenKind};
use crate::tui::layout::Viewport;
use crate::tui::model::banner;
use crate::tui::model::chart::{ChartId, ChartSource, ChartStatus, ChartValues};
use crate::tui::model::key::{Kind, KubeContext, ObjKey};
use crate::tui::model::listing::{BoardListing, ClusterListing};
use crate::tui::model::places::Places;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::view::{Screen, View};
use crate::tui::model::warnings::{Warning, Warnings};
use crate::tui::state::editor::{EditKey, Editor, SaveError, Stage};
use crate::tui::state::flash::{Flash, FlashLevel};
use crate::tui::state::listings::Listings;
use crate::tui::theme::Theme;

/// Everything that can happen to the console.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    /// Once a second: ages, and expiring messages.
    Tick(Timestamp),
    /// A store changed; the loop answers [`Command::Refresh`] with [`Msg::Data`].
    Changed(Kind),
    /// Every store has its first full list.
    Synced,
    /// A fresh snapshot of the stores (boxed: it is by far the largest
    /// message, and the others are many more).
    Data(Box<Snapshot>),
    /// A warning or error from the log: counted in the header, listed on
    /// the warnings screen, never on the status line.
    Log(Warning),
    /// The in-process engine ended; `Some` says why when it was not asked to.
    EngineStopped(Option<String>),
    /// The in-process engine took the lease (`true`) or stands by (`false`).
    EngineLeading(bool),
    /// The in-process engine never starts: an engine is installed there
    /// (`installed`), or whether one is cannot be read; `why` in words.
    EngineObserving {
        installed: bool,
        why: String,
    },
    /// Who the console acts as, once known: the name its requests carry.
    Identity(String),
    /// How a [`Command::Request`] went: `Err` says why in plain words.
    Requested {
        /// The rollout's context (empty: the first).
        context: String,
        name: String,
        request: Request,
        result: Result<(), String>,
    },
    /// A watch's health changed: it fails (and why), or it delivers again.
    Watch {
        resource: String,
        health: crate::store::WatchHealth,
    },
    /// How a [`Command::ApplyValues`] went.
    ValuesApplied {
        key: EditKey,
        result: Result<(), SaveError>,
    },
    /// How a [`Command::Annotate`] went: `Err` says why in plain words.
    Annotated {
        asks: String,
        result: Result<(), String>,
    },
    /// How a [`Command::Delete`] went: `Err` says why in plain words.
    Deleted {
        key: ObjKey,
        result: Result<(), String>,
    },
    /// The namespaces the API server lists, for `:ns`.
    Namespaces(Vec<String>),
    /// The console now watches this context and namespace (`None`: all),
    /// after a [`Command::Namespace`] or [`Command::Context`].
    Switched {
        context: String,
        cluster: String,
        namespace: Option<String>,
    },
    /// A [`Command::Context`] failed, in plain words; nothing changed.
    SwitchFailed(String),
    /// A message of an open context beside the first: it changes that
    /// context alone.
    Other {
        context: String,
        msg: Box<Msg>,
    },
    /// A context is open beside the first (after [`Command::AddContext`]),
    /// or shows another namespace (after [`Command::Namespace`]).
    Opened {
        context: String,
        cluster: String,
        namespace: Option<String>,
    },
    /// A [`Command::AddContext`] failed, in plain words; the open contexts
    /// go on.
    OpenFailed {
        context: String,
        why: String,
    },
    /// A context was closed ([`Command::CloseContext`]); the first one's
    /// closing makes the next first.
    Closed(String),
    /// A chart's values for the editor, or why they could not be fetched
    /// (the answer to [`Command::FetchChart`]).
    Chart {
        context: KubeContext,
        id: ChartId,
        result: Result<Arc<ChartValues>, String>,
    },
}

impl Msg {
    /// [`Msg::Data`] of `snapshot`.
    pub fn data(snapshot: Snapshot) -> Msg {
        Msg::Data(Box::new(snapshot))
    }
}

/// Side effects `update` asks the loop for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Quit,
    /// Rebuild the snapshot from the stores and send [`Msg::Data`].
    Refresh,
    /// Ask the engine for something on a TemplateRollout: set the request
    /// annotations; the loop answers with [`Msg::Requested`].
    Request {
        /// The rollout's context: the request goes there.
        context: String,
        namespace: String,
        name: String,
        request: Request,
    },
    /// Send a values edit: a JSON merge patch of `spec.services` carrying
    /// the resourceVersion the editor opened; the loop answers with
    /// [`Msg::ValuesApplied`].
    ApplyValues {
        key: EditKey,
        patch: serde_json::Value,
    },
    /// Ask the engine for something on a template through annotations
    /// (a JSON merge patch of `metadata.annotations`), such as trying its
    /// chart repository again; the loop answers with [`Msg::Annotated`].
    Annotate {
        key: ObjKey,
        annotations: BTreeMap<String, String>,
        /// What it asks the engine, for the status line: `try chart
        /// repository https://… again`.
        asks: String,
    },
    /// Delete a cluster or a template; the loop answers with
    /// [`Msg::Deleted`].
    Delete {
        key: ObjKey,
    },
    /// Watch this namespace of the same context (`None`: all); the loop
    /// answers with [`Msg::Switched`].
    Namespace(Option<String>),
    /// Connect to this kubeconfig context and watch `namespace` there; the
    /// loop answers with [`Msg::Switched`] or [`Msg::SwitchFailed`].
    Context {
        name: String,
        namespace: Option<String>,
    },
    /// Open this kubeconfig context beside the open ones, showing
    /// `namespace` there; the loop answers with [`Msg::Opened`] or
    /// [`Msg::OpenFailed`].
    AddContext {
        name: String,
        namespace: Option<String>,
    },
    /// Close an open context; the loop answers with [`Msg::Closed`].
    CloseContext(String),
    /// Keep a context's namespace favourites in the settings file.
    SaveFavourites {
        context: String,
        namespaces: Vec<String>,
    },
    /// Fetch a chart's values and schema for the editor; the loop answers
    /// with [`Msg::Chart`].
    FetchChart(ChartSource),
}

/// What the bottom line is editing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    None,
    /// `/`: the filter of the current view.
    Filter,
    /// `:` and what was typed.
    Command(String),
}

/// A question over the screen; it takes every key until answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Modal {
    /// `x` on the board: abort where it stands, or roll back.
    StopChoice { rollout: ObjKey },
    /// y/n before a request that cannot be undone.
    Confirm {
        rollout: ObjKey,
        request: Request,
        question: String,
    },
    /// y/n before deleting a cluster or a template.
    Delete { target: ObjKey, question: String },
}

/// Whether the in-process engine runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Runs here and holds the lease: it reconciles.
    InProcess,
    /// Runs here, but another engine holds the lease: this one only watches.
    Standby,
    /// Does not run: an engine is installed in the cluster (`installed`),
    /// or whether one is could not be read; the console only observes.
    Observing {
        installed: bool,
    },
    Off,
    Stopped,
}

/// Where the console points, for the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub context: String,
    pub cluster: String,
    pub namespace: Option<String>,
    pub engine: Engine,
    pub readonly: bool,
}

/// An open context beside the first.
#[derive(Clone, Debug, PartialEq)]
pub struct OtherContext {
    pub name: String,
    /// Its API server's URL.
    pub cluster: String,
    /// The namespace shown there (`None`: all).
    pub namespace: Option<String>,
    /// Its stores have their first full lists.
    pub synced: bool,
    /// Its failing watches: why it cannot be reached or read.
    pub problems: banner::Problems,
    pub engine: Engine,
    pub readonly: bool,
    /// Who the console is there, once known.
    pub user: Option<String>,
}

impl OtherContext {
    /// Whether its API server answers: no watch says it cannot reach it.
    pub fn reachable(&self) -> bool {
        !self
            .problems
            .values()
            .any(|p| matches!(p.failure, crate::store::WatchFailure::Unreachable(_)))
    }

    /// Its banner's words, when a watch fails there.
    pub fn trouble(&self) -> Option<String> {
        banner::text(&self.problems, &self.cluster, self.namespace.as_deref())
    }
}

/// The identities of a view's rows after its filter.
pub type RowIds = fn(&App, &View) -> Vec<String>;
/// How many rows a view has after its filter.
pub type RowCount = fn(&App, &View) -> usize;
/// The identity of a view's row at an index.
pub type RowId = fn(&App, &View, usize) -> Option<String>;
/// Where the row of an identity is in a view now.
pub type FindRow = fn(&App, &View, &str) -> Option<usize>;
/// The object of a view's selected row, or the one its screen shows.
pub type SelectedKey = fn(&App, &View) -> Option<ObjKey>;
/// Where a view's rows (or lines) are drawn; `None` when it has none.
pub type RowsArea = fn(&Snapshot, Viewport, &View) -> Option<Rect>;

/// A screen's rows, as navigation reaches them: each screen holds its own
/// (`crate::tui::screens`).
#[derive(Clone, Copy)]
pub struct ScreenRows {
    /// The identities of the rows, so a selection follows its row when
    /// others come and go.
    pub ids: RowIds,
    /// How many: when counting is cheaper than making every id.
    pub count: Option<RowCount>,
    /// One row's identity: when a long list makes them one at a time.
    pub id_at: Option<RowId>,
    /// Where a row is: likewise.
    pub find: Option<FindRow>,
    pub selected: SelectedKey,
    /// Where they are drawn, for clicks and pages.
    pub area: RowsArea,
}

impl ScreenRows {
    /// Rows known by their identities alone.
    pub const fn by_ids(ids: RowIds, selected: SelectedKey, area: RowsArea) -> ScreenRows {
        ScreenRows {
            ids,
            count: None,
            id_at: None,
            find: None,
            selected,
            area,
        }
    }
}

/// Each screen's rows, by its kind. The default is the screens' own, as
/// `crate::tui::screens` lists them.
#[derive(Clone, Copy)]
pub struct RowsOf(pub fn(ScreenKind) -> &'static ScreenRows);

impl std::fmt::Debug for RowsOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RowsOf")
    }
}

/// The whole state of the console, owned by one task.
#[derive(Debug)]
pub struct App {
    pub target: Target,
    pub theme: Theme,
    pub data: Snapshot,
    /// Every store has its first full list.
    pub synced: bool,
    /// The time ages are measured from.
    pub now: Timestamp,
    /// The terminal size, for clicks and pages.
    pub size: (u16, u16),
    /// The crumbs; never empty, clusters at the bottom.
    pub stack: Vec<View>,
    pub input: Input,
    pub help: bool,
    /// How far the `?` help is scrolled, on a short terminal.
    pub help_scroll: usize,
    pub modal: Option<Modal>,
    pub flash: Option<Flash>,
    /// Who the console's requests say asked, once known.
    pub user: Option<String>,
    /// The values editor, while [`Screen::Edit`] is on the stack.
    pub editor: Option<Editor>,
    /// The charts the editor checks values against, per context and
    /// chart version.
    pub charts: HashMap<(KubeContext, ChartId), ChartStatus>,
    /// The watches that fail, for the banner.
    pub problems: banner::Problems,
    /// The engine's warnings, for the header's count and their screen.
    pub warnings: Warnings,
    /// The keybindings, with the settings file's remapping.
    pub keys: Keymap,
    /// The namespaces and contexts to switch to, and the favourites.
    pub places: Places,
    /// The contexts open beside the first ([`App::target`]'s).
    pub others: Vec<OtherContext>,
    /// The in-process engine's namespace (`Some(None)`: all), once the
    /// runtime says it: the engine keeps the scope it started with while
    /// `:ns` changes what the console shows, and the header says so.
    pub engine_scope: Option<Option<String>>,
    pub quit: bool,
    /// The long lists of the views, for [`App::data`] as it is.
    pub(crate) listings: Listings,
    /// Each screen's rows.
    pub rows_of: RowsOf,
}

impl App {
    pub fn new(target: Target, theme: Theme, now: Timestamp) -> App {
        App {
            target,
            theme,
            data: Snapshot::default(),
            synced: false,
            now,
            size: (80, 24),
            stack: vec![View::new(Screen::Clusters)],
            input: Input::None,
            help: false,
            help_scroll: 0,
            modal: None,
            flash: None,
            user: None,
            editor: None,
            charts: HashMap::new(),
            problems: banner::Problems::new(),
            warnings: Warnings::default(),
            keys: Keymap::default(),
            places: Places::default(),
            others: Vec::new(),
            engine_scope: None,
            quit: false,
            listings: Listings::default(),
            rows_of: RowsOf::default(),
        }
    }

    /// Swaps in new data: the long lists are worked out again when next
    /// asked for.
    pub(crate) fn set_snapshot(&mut self, data: Snapshot) {
        self.data = data;
        self.listings.renew();
    }

    /// The clusters screen's rows for `view`'s filter and order.
    pub fn cluster_listing(&self, view: &View) -> Arc<ClusterListing> {
        self.listings.clusters(&self.data, view)
    }

    /// The lines of the board of the rollout `key` for `view`'s filter;
    /// `None` while the rollout has no status (or no longer exists).
    pub fn board_listing(&self, view: &View, key: &ObjKey) -> Option<Arc<BoardListing>> {
        self.listings.board(&self.data, view, key)
    }

    pub fn view(&self) -> &View {
        self.stack.last().expect("the crumb stack is never empty")
    }

    pub(crate) fn view_mut(&mut self) -> &mut View {
        self.stack
            .last_mut()
            .expect("the crumb stack is never empty")
    }

    /// Where the keys go now: a question, a prompt, an editor stage or
    /// the screen.
    pub fn mode(&self) -> Mode {
        if let (Screen::Edit(_), Some(editor)) = (self.screen(), &self.editor) {
            return match editor.stage {
                Stage::Review(_) => Mode::Review,
                Stage::Discard { .. } => Mode::Discard,
                Stage::Conflict { .. } => Mode::Conflict,
                Stage::Editing | Stage::Saving => Mode::Screen(ScreenKind::Editor),
            };
        }
        match (&self.modal, &self.input) {
            (Some(Modal::StopChoice { .. }), _) => Mode::AbortChoice,
            (Some(Modal::Confirm { .. }), _) => Mode::Confirm,
            (Some(Modal::Delete { .. }), _) => Mode::Delete,
            (None, Input::Command(_)) => Mode::Prompt,
            (None, Input::Filter) => Mode::Filter,
            (None, Input::None) => Mode::Screen(self.screen().kind()),
        }
    }

    pub fn screen(&self) -> &Screen {
        &self.view().screen
    }

    /// A context shows `namespace` (`None`: all): it becomes a favourite of
    /// that context, saved in the settings file when that changed them.
    pub fn keep_favourite(&mut self, context: &str, namespace: Option<String>) -> Vec<Command> {
        namespace
            .and_then(|ns| self.places.keep_favourite(context, &ns))
            .map(|namespaces| Command::SaveFavourites {
                context: context.to_string(),
                namespaces,
            })
            .into_iter()
            .collect()
    }

    /// The namespace column is shown when watching all namespaces, or
    /// when the open contexts show different ones.
    pub fn all_namespaces(&self) -> bool {
        self.target.namespace.is_none()
            || self
                .others
                .iter()
                .any(|o| o.namespace != self.target.namespace)
    }

    /// Whether the console may not write on `context` (empty: the first).
    pub fn readonly_at(&self, context: &str) -> bool {
        if context.is_empty() || context == self.target.context {
            return self.target.readonly;
        }
        self.others
            .iter()
            .find(|o| o.name == context)
            .map_or_else(|| self.places.readonly_at(context), |o| o.readonly)
    }

    /// Who the console is on `context` (empty: the first), once known.
    pub fn user_at(&self, context: &str) -> Option<&str> {
        if context.is_empty() || context == self.target.context {
            return self.user.as_deref();
        }
        self.others
            .iter()
            .find(|o| o.name == context)
            .and_then(|o| o.user.as_deref())
    }

    /// Puts a message on the status line.
    pub fn flash(&mut self, level: FlashLevel, text: impl Into<String>) {
        self.flash = Some(Flash {
            level,
            text: text.into(),
            at: self.now,
        });
    }

    /// The banner under the header, when watches fail: the first
    /// context's, else the first other context's, named.
    pub fn banner(&self) -> Option<String> {
        banner::text(
            &self.problems,
            &self.target.cluster,
            self.target.namespace.as_deref(),
        )
        .or_else(|| {
            self.others
                .iter()
                .find_map(|o| Some(format!("context {}: {}", o.name, o.trouble()?)))
        })
    }

    /// The terminal and what takes lines from its body, for the layout.
    pub fn viewport(&self) -> Viewport {
        Viewport {
            width: self.size.0,
            height: self.size.1,
            banner: self.banner().is_some(),
        }
    }
}

/// Stops the console.
pub(crate) fn quit(app: &mut App) -> Vec<Command> {
    app.quit = true;
    vec![Command::Quit]
}

/// What to tell the user before a write on `context` (an object's; empty:
/// the first context's) that its client would refuse: read-only by
/// `--readonly` or by the settings file. Only words: the client of a
/// read-only context refuses every write, whatever is sent
/// ([`crate::tui::runtime::writer`]).
pub(crate) fn why_read_only(app: &App, context: &str, what: &str) -> Option<String> {
    let context = if context.is_empty() {
        app.target.context.as_str()
    } else {
        context
    };
    if !app.readonly_at(context) {
        return None;
    }
    let by_settings =
        !app.places.readonly_everywhere && app.places.readonly_contexts.contains(context);
    Some(if by_settings {
        format!("context {context} is read-only (its readonly in config.yaml): cannot {what}")
    } else {
        format!("read-only console (--readonly): cannot {what}")
    })
}
