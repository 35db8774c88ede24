//! The console's state and `update`: every key, click, store change and tick
//! arrives as a [`Msg`]; `update` changes the [`App`] and returns the
//! [`Command`]s the loop runs. No I/O here, so it is tested without a
//! terminal or a cluster.

use std::collections::HashMap;
use std::sync::Arc;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use kube::api::ObjectMeta;

use crate::api::conditions::READY;
use crate::api::{
    ClusterTemplate, ManagedCluster, ServiceState, ServiceTemplate, TemplateRollout,
    TemplateRolloutStatus,
};
use crate::plan::rollout::Request;
use crate::tui::banner;
use crate::tui::editor::{Base, EditKey, Editor, SaveError, Stage, Step};
use crate::tui::events;
use crate::tui::keys::{self, Action, Goto, Keymap, Mode, ScreenKind};
use crate::tui::layout;
use crate::tui::rollouts::{self, BoardRow};
use crate::tui::theme::{Health, Theme};
use crate::tui::values::{self, ValuesKey};
use k8s_openapi::api::events::v1::Event;

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
    /// A fresh snapshot of the stores.
    Data(Snapshot),
    /// A warning or error from the log.
    Log(String),
    /// The in-process engine ended; `Some` says why when it was not asked to.
    EngineStopped(Option<String>),
    /// The in-process engine took the lease (`true`) or stands by (`false`).
    EngineLeading(bool),
    /// Who the console acts as, once known: the name its requests carry.
    Identity(String),
    /// How a [`Command::Request`] went: `Err` says why in plain words.
    Requested {
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
}

/// The kinds the console shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    ManagedCluster,
    ClusterTemplate,
    ServiceTemplate,
    TemplateRollout,
    /// The engine's Events (`events.k8s.io/v1`).
    Event,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::ManagedCluster => "ManagedCluster",
            Kind::ClusterTemplate => "ClusterTemplate",
            Kind::ServiceTemplate => "ServiceTemplate",
            Kind::TemplateRollout => "TemplateRollout",
            Kind::Event => "Event",
        }
    }
}

/// Names one object.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjKey {
    pub kind: Kind,
    pub namespace: String,
    pub name: String,
}

impl ObjKey {
    fn of(kind: Kind, meta: &ObjectMeta) -> ObjKey {
        ObjKey {
            kind,
            namespace: meta.namespace.clone().unwrap_or_default(),
            name: meta.name.clone().unwrap_or_default(),
        }
    }
}

/// What the console shows, read from the stores in one go: sorted by
/// namespace and name, with the counts the screens need.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    pub clusters: Vec<Arc<ManagedCluster>>,
    pub cluster_templates: Vec<Arc<ClusterTemplate>>,
    pub service_templates: Vec<Arc<ServiceTemplate>>,
    /// By namespace and template, the newest revision first.
    pub rollouts: Vec<Arc<TemplateRollout>>,
    /// The engine's Events, the last seen first.
    pub events: Vec<Arc<Event>>,
    /// How many clusters use each template.
    pub usage: HashMap<ObjKey, usize>,
}

fn sort_by_key<K: kube::Resource>(v: &mut [Arc<K>]) {
    v.sort_by(|a, b| {
        (a.meta().namespace.as_deref(), a.meta().name.as_deref())
            .cmp(&(b.meta().namespace.as_deref(), b.meta().name.as_deref()))
    });
}

impl Snapshot {
    pub fn new(
        mut clusters: Vec<Arc<ManagedCluster>>,
        mut cluster_templates: Vec<Arc<ClusterTemplate>>,
        mut service_templates: Vec<Arc<ServiceTemplate>>,
    ) -> Snapshot {
        sort_by_key(&mut clusters);
        sort_by_key(&mut cluster_templates);
        sort_by_key(&mut service_templates);
        let mut usage: HashMap<ObjKey, usize> = HashMap::new();
        for mc in &clusters {
            let ns = mc.namespace().unwrap_or_default();
            let key = |kind, name: &str| ObjKey {
                kind,
                namespace: ns.clone(),
                name: name.to_string(),
            };
            *usage
                .entry(key(Kind::ClusterTemplate, &mc.spec.template))
                .or_default() += 1;
            let template = cluster_templates.iter().find(|t| {
                t.namespace().as_deref() == Some(&ns) && t.name_any() == mc.spec.template
            });
            let mut used: Vec<&str> = service_templates_of(mc, template.map(|t| t.as_ref()));
            used.sort_unstable();
            used.dedup();
            for st in used {
                *usage.entry(key(Kind::ServiceTemplate, st)).or_default() += 1;
            }
        }
        Snapshot {
            clusters,
            cluster_templates,
            service_templates,
            rollouts: Vec::new(),
            events: Vec::new(),
            usage,
        }
    }

    /// The same snapshot with these Events.
    pub fn with_events(mut self, mut events: Vec<Arc<Event>>) -> Snapshot {
        events::sort(&mut events);
        self.events = events;
        self
    }

    /// The same snapshot with these rollouts.
    pub fn with_rollouts(mut self, mut rollouts: Vec<Arc<TemplateRollout>>) -> Snapshot {
        rollouts.sort_by(|a, b| {
            let key = |r: &TemplateRollout| {
                (
                    r.metadata.namespace.clone(),
                    r.spec.template.clone(),
                    std::cmp::Reverse(r.spec.revision),
                )
            };
            key(a).cmp(&key(b))
        });
        self.rollouts = rollouts;
        self
    }

    pub fn rollout(&self, namespace: &str, name: &str) -> Option<&Arc<TemplateRollout>> {
        self.rollouts
            .iter()
            .find(|r| r.metadata.namespace.as_deref() == Some(namespace) && r.name_any() == name)
    }

    pub fn cluster(&self, namespace: &str, name: &str) -> Option<&Arc<ManagedCluster>> {
        self.clusters
            .iter()
            .find(|c| c.metadata.namespace.as_deref() == Some(namespace) && c.name_any() == name)
    }

    pub fn cluster_template(&self, namespace: &str, name: &str) -> Option<&Arc<ClusterTemplate>> {
        self.cluster_templates
            .iter()
            .find(|t| t.metadata.namespace.as_deref() == Some(namespace) && t.name_any() == name)
    }

    pub fn service_template(&self, namespace: &str, name: &str) -> Option<&Arc<ServiceTemplate>> {
        self.service_templates
            .iter()
            .find(|t| t.metadata.namespace.as_deref() == Some(namespace) && t.name_any() == name)
    }

    /// The YAML of an object, without managedFields.
    pub fn yaml(&self, key: &ObjKey) -> Option<String> {
        fn find<K: kube::Resource + serde::Serialize + Clone>(
            v: &[Arc<K>],
            key: &ObjKey,
        ) -> Option<String> {
            let obj = v.iter().find(|o| {
                o.meta().namespace.as_deref().unwrap_or_default() == key.namespace
                    && o.meta().name.as_deref() == Some(&key.name)
            })?;
            let mut obj = K::clone(obj);
            obj.meta_mut().managed_fields = None;
            Some(
                serde_yaml::to_string(&obj)
                    .unwrap_or_else(|e| format!("# cannot show this object as YAML: {e}\n")),
            )
        }
        match key.kind {
            Kind::ManagedCluster => find(&self.clusters, key),
            Kind::ClusterTemplate => find(&self.cluster_templates, key),
            Kind::ServiceTemplate => find(&self.service_templates, key),
            Kind::TemplateRollout => find(&self.rollouts, key),
            Kind::Event => find(&self.events, key),
        }
    }
}

/// The ServiceTemplates a cluster's enabled services come from, following the
/// rules of `plan::services`: template services unless disabled (a cluster
/// entry may swap the template), plus the cluster's own services.
fn service_templates_of<'a>(
    mc: &'a ManagedCluster,
    template: Option<&'a ClusterTemplate>,
) -> Vec<&'a str> {
    let mut out = Vec::new();
    let template_services = template.map(|t| t.spec.services.as_slice()).unwrap_or(&[]);
    for ts in template_services {
        let over = mc.spec.services.iter().find(|s| s.name == ts.name);
        if over.is_some_and(|o| o.disable) {
            continue;
        }
        out.push(
            over.and_then(|o| o.template.as_deref())
                .unwrap_or(ts.template.as_str()),
        );
    }
    for cs in &mc.spec.services {
        if cs.disable || template_services.iter().any(|t| t.name == cs.name) {
            continue;
        }
        if let Some(t) = cs.template.as_deref() {
            out.push(t);
        }
    }
    out
}

/// One of the screens, with what it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Screen {
    Clusters,
    ClusterDetail(ObjKey),
    Templates,
    /// A ClusterTemplate and its services.
    TemplateDetail(ObjKey),
    /// The values editor; its state is [`App::editor`].
    Edit(EditKey),
    Rollouts,
    /// The live wave board of one rollout.
    Rollout(ObjKey),
    /// The engine's Events; about one object when set.
    Events(Option<ObjKey>),
    Yaml(ObjKey),
    /// The values of a service of a cluster (merged, as Helm gets them) or
    /// of a ClusterTemplate (its defaults), or a ServiceTemplate's defaults.
    Values(ValuesKey),
}

impl Screen {
    pub fn kind(&self) -> ScreenKind {
        match self {
            Screen::Clusters => ScreenKind::Clusters,
            Screen::ClusterDetail(_) => ScreenKind::ClusterDetail,
            Screen::Templates => ScreenKind::Templates,
            Screen::TemplateDetail(_) => ScreenKind::TemplateDetail,
            Screen::Edit(_) => ScreenKind::Editor,
            Screen::Rollouts => ScreenKind::Rollouts,
            Screen::Rollout(_) => ScreenKind::RolloutBoard,
            Screen::Events(_) => ScreenKind::Events,
            Screen::Yaml(_) => ScreenKind::Yaml,
            Screen::Values(_) => ScreenKind::Values,
        }
    }

    /// The screen's crumb.
    pub fn crumb(&self) -> String {
        match self {
            Screen::Clusters => "clusters".into(),
            Screen::ClusterDetail(k) | Screen::Rollout(k) | Screen::TemplateDetail(k) => {
                format!("{}/{}", k.namespace, k.name)
            }
            Screen::Edit(k) => format!("values: {}", k.service),
            Screen::Templates => "templates".into(),
            Screen::Rollouts => "rollouts".into(),
            Screen::Events(None) => "events".into(),
            Screen::Events(Some(k)) => format!("events: {}", k.name),
            Screen::Yaml(_) => "yaml".into(),
            Screen::Values(k) => match (k.object.kind, &k.service) {
                (Kind::ManagedCluster, Some(service)) => format!("merged: {service}"),
                (_, Some(service)) => format!("defaults: {service}"),
                (_, None) => format!("defaults: {}", k.object.name),
            },
        }
    }

    /// A text that scrolls, rather than a list with a selection.
    pub fn scrolls(&self) -> bool {
        matches!(self, Screen::Yaml(_) | Screen::Values(_))
    }
}

/// A screen on the crumb stack, with its selection, scroll and filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    pub screen: Screen,
    /// Index into the filtered rows.
    pub selected: usize,
    /// First row (or YAML line) shown.
    pub offset: usize,
    pub filter: String,
}

impl View {
    pub fn new(screen: Screen) -> View {
        View {
            screen,
            selected: 0,
            offset: 0,
            filter: String::new(),
        }
    }
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashLevel {
    Info,
    Warn,
    Error,
}

/// A message on the status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flash {
    pub level: FlashLevel,
    pub text: String,
    pub at: Timestamp,
}

/// How long a flash message stays.
const FLASH_SECONDS: i64 = 30;

/// Whether the in-process engine runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Runs here and holds the lease: it reconciles.
    InProcess,
    /// Runs here, but another engine holds the lease: this one only watches.
    Standby,
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
    pub modal: Option<Modal>,
    pub flash: Option<Flash>,
    /// Who the console's requests say asked, once known.
    pub user: Option<String>,
    /// The values editor, while [`Screen::Edit`] is on the stack.
    pub editor: Option<Editor>,
    /// The watches that fail, for the banner.
    pub problems: banner::Problems,
    /// The keybindings, with the settings file's remapping.
    pub keys: Keymap,
    pub quit: bool,
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
            modal: None,
            flash: None,
            user: None,
            editor: None,
            problems: banner::Problems::new(),
            keys: Keymap::default(),
            quit: false,
        }
    }

    pub fn view(&self) -> &View {
        self.stack.last().expect("the crumb stack is never empty")
    }

    fn view_mut(&mut self) -> &mut View {
        self.stack
            .last_mut()
            .expect("the crumb stack is never empty")
    }

    pub fn screen(&self) -> &Screen {
        &self.view().screen
    }

    /// The namespace column is shown when watching all namespaces.
    pub fn all_namespaces(&self) -> bool {
        self.target.namespace.is_none()
    }

    /// Puts a message on the status line.
    pub fn flash(&mut self, level: FlashLevel, text: impl Into<String>) {
        self.flash = Some(Flash {
            level,
            text: text.into(),
            at: self.now,
        });
    }

    /// The banner under the header, when watches fail.
    pub fn banner(&self) -> Option<String> {
        banner::text(
            &self.problems,
            &self.target.cluster,
            self.target.namespace.as_deref(),
        )
    }

    /// The rows of the current view after its filter.
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
            (None, Input::Command(_)) => Mode::Prompt,
            (None, Input::Filter) => Mode::Filter,
            (None, Input::None) => Mode::Screen(self.screen().kind()),
        }
    }

    pub fn row_count(&self) -> usize {
        row_count(self, self.view())
    }
}

// ---------------------------------------------------------------------------
// What the screens show, derived from the snapshot. The views draw these; the
// update navigates them; the filter applies to them.

/// Ready, its colour and its message, from a cluster's `Ready` condition.
pub fn cluster_ready(mc: &ManagedCluster) -> (String, Health, String) {
    let ready = mc
        .status
        .as_ref()
        .and_then(|s| s.conditions.iter().find(|c| c.type_ == READY));
    let deleting = mc.metadata.deletion_timestamp.is_some();
    match ready {
        None if deleting => ("False".into(), Health::Muted, "deleting".into()),
        None => ("-".into(), Health::Muted, String::new()),
        Some(c) => {
            let health = match c.status.as_str() {
                _ if deleting || c.reason == "Deleting" => Health::Muted,
                "True" => Health::Ready,
                "False" => reason_health(&c.reason),
                _ => Health::Muted,
            };
            (c.status.clone(), health, c.message.clone())
        }
    }
}

/// The colour of a condition reason.
fn reason_health(reason: &str) -> Health {
    let r = reason.to_ascii_lowercase();
    if r.contains("fail") || r.contains("notfound") || r.contains("notready") || r.contains("error")
    {
        Health::Failed
    } else if r == "pending" {
        Health::Pending
    } else if r.contains("removing") || r.contains("deleting") || r.contains("dryrun") {
        Health::Muted
    } else {
        Health::Progressing
    }
}

/// The colour of a condition, by status and reason.
pub fn condition_health(status: &str, reason: &str) -> Health {
    match status {
        "True" => Health::Ready,
        "False" => reason_health(reason),
        _ => Health::Muted,
    }
}

pub fn service_health(state: ServiceState) -> Health {
    match state {
        ServiceState::Installed => Health::Ready,
        ServiceState::Installing => Health::Progressing,
        ServiceState::Pending => Health::Pending,
        ServiceState::Failed => Health::Failed,
        ServiceState::Removing => Health::Muted,
    }
}

/// `servicesReady` (`1/2`) and its colour: the worst state of the services.
pub fn services_ready(mc: &ManagedCluster) -> (String, Health) {
    let Some(status) = &mc.status else {
        return ("-".into(), Health::Muted);
    };
    let text = status.services_ready.clone().unwrap_or_else(|| "-".into());
    let states: Vec<ServiceState> = status.services.iter().map(|s| s.state).collect();
    let health = if states.contains(&ServiceState::Failed) {
        Health::Failed
    } else if states.contains(&ServiceState::Installing) {
        Health::Progressing
    } else if states.contains(&ServiceState::Pending) {
        Health::Pending
    } else if states.contains(&ServiceState::Removing) {
        Health::Muted
    } else if status.services_ready.is_some() {
        Health::Ready
    } else {
        Health::Muted
    };
    (text, health)
}

/// `5s`, `3m`, `4h`, `12d`, `2y`: how long ago `then` was.
pub fn age(
    now: Timestamp,
    then: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
) -> String {
    age_of(now, then.map(|t| t.0))
}

/// [`age`] of a timestamp.
pub fn age_of(now: Timestamp, then: Option<Timestamp>) -> String {
    let Some(then) = then else {
        return "-".into();
    };
    let s = (now.as_second() - then.as_second()).max(0);
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s if s < 2 * 365 * 86400 => format!("{}d", s / 86400),
        s => format!("{}y", s / (365 * 86400)),
    }
}

/// A template row: either kind.
#[derive(Clone, Copy, Debug)]
pub enum TemplateRef<'a> {
    Cluster(&'a Arc<ClusterTemplate>),
    Service(&'a Arc<ServiceTemplate>),
}

impl TemplateRef<'_> {
    pub fn key(&self) -> ObjKey {
        match self {
            TemplateRef::Cluster(t) => ObjKey::of(Kind::ClusterTemplate, &t.metadata),
            TemplateRef::Service(t) => ObjKey::of(Kind::ServiceTemplate, &t.metadata),
        }
    }

    pub fn meta(&self) -> &ObjectMeta {
        match self {
            TemplateRef::Cluster(t) => &t.metadata,
            TemplateRef::Service(t) => &t.metadata,
        }
    }

    pub fn chart_status(&self) -> Option<&crate::api::TemplateStatus> {
        match self {
            TemplateRef::Cluster(t) => t.status.as_ref().map(|s| &s.chart),
            TemplateRef::Service(t) => t.status.as_ref(),
        }
    }

    /// `true`, `false` or `-` (not checked yet), with its colour.
    pub fn valid(&self) -> (String, Health) {
        match self.chart_status() {
            None => ("-".into(), Health::Pending),
            Some(s) if s.valid => ("true".into(), Health::Ready),
            Some(s) if s.validation_error.is_some() => ("false".into(), Health::Failed),
            Some(_) => ("false".into(), Health::Pending),
        }
    }

    pub fn chart(&self) -> String {
        match self {
            TemplateRef::Cluster(t) => t.spec.helm.describe(),
            TemplateRef::Service(t) => t.spec.helm.describe(),
        }
    }

    /// The services summary of a ClusterTemplate.
    pub fn services(&self) -> String {
        match self {
            TemplateRef::Cluster(t) => t
                .status
                .as_ref()
                .and_then(|s| s.services_summary.clone())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "-".into()),
            TemplateRef::Service(_) => "-".into(),
        }
    }

    pub fn revision(&self) -> String {
        match self {
            TemplateRef::Cluster(t) => t
                .status
                .as_ref()
                .and_then(|s| s.revision)
                .map_or_else(|| "-".into(), |r| r.to_string()),
            TemplateRef::Service(_) => "-".into(),
        }
    }

    /// The validation error when there is one, else the chart's description.
    pub fn message(&self) -> (String, bool) {
        match self.chart_status() {
            Some(s) if !s.valid && s.validation_error.is_some() => {
                (s.validation_error.clone().unwrap_or_default(), true)
            }
            Some(s) => (s.description.clone().unwrap_or_default(), false),
            None => (String::new(), false),
        }
    }
}

fn matches(filter: &str, fields: &[&str]) -> bool {
    if filter.is_empty() {
        return true;
    }
    let f = filter.to_lowercase();
    fields.iter().any(|s| s.to_lowercase().contains(&f))
}

/// The clusters the clusters screen shows.
pub fn cluster_rows<'a>(data: &'a Snapshot, filter: &str) -> Vec<&'a Arc<ManagedCluster>> {
    data.clusters
        .iter()
        .filter(|c| filter.is_empty() || matches(filter, &[&c.name_any(), &cluster_ready(c).2]))
        .collect()
}

/// The templates screen: ClusterTemplates, then ServiceTemplates.
pub fn template_rows<'a>(data: &'a Snapshot, filter: &str) -> Vec<TemplateRef<'a>> {
    data.cluster_templates
        .iter()
        .map(TemplateRef::Cluster)
        .chain(data.service_templates.iter().map(TemplateRef::Service))
        .filter(|t| {
            matches(
                filter,
                &[t.meta().name.as_deref().unwrap_or_default(), &t.message().0],
            )
        })
        .collect()
}

/// The services of a cluster that its detail screen lists.
pub fn service_rows<'a>(
    mc: &'a ManagedCluster,
    filter: &str,
) -> Vec<&'a crate::api::ServiceStatus> {
    mc.status
        .iter()
        .flat_map(|s| s.services.iter())
        .filter(|s| matches(filter, &[&s.name, s.message.as_deref().unwrap_or_default()]))
        .collect()
}

/// The services of a ClusterTemplate that its detail screen lists.
pub fn template_service_rows<'a>(
    ct: &'a ClusterTemplate,
    filter: &str,
) -> Vec<&'a crate::api::TemplateService> {
    ct.spec
        .services
        .iter()
        .filter(|s| matches(filter, &[&s.name, &s.template]))
        .collect()
}

/// The Events the events screen shows.
pub fn event_rows<'a>(
    data: &'a Snapshot,
    regarding: Option<&ObjKey>,
    filter: &str,
) -> Vec<&'a Arc<Event>> {
    events::rows(&data.events, regarding, filter)
}

/// The rollouts the rollouts screen shows.
pub fn rollout_rows<'a>(data: &'a Snapshot, filter: &str) -> Vec<&'a Arc<TemplateRollout>> {
    rollouts::rollout_rows(&data.rollouts, filter)
}

/// The lines of a rollout board's waves section, and the status they come
/// from; empty while the rollout has no status (or no longer exists).
pub fn board<'a>(data: &'a Snapshot, key: &ObjKey, filter: &str) -> Vec<BoardRow<'a>> {
    data.rollout(&key.namespace, &key.name)
        .and_then(|r| r.status.as_ref())
        .map(|s| rollouts::board_rows(s, filter))
        .unwrap_or_default()
}

/// Identities of the rows of a view, so a selection follows its row when
/// others come and go.
fn row_ids(app: &App, view: &View) -> Vec<String> {
    match &view.screen {
        Screen::Rollouts => rollout_rows(&app.data, &view.filter)
            .into_iter()
            .map(|r| format!("{}/{}", r.namespace().unwrap_or_default(), r.name_any()))
            .collect(),
        Screen::Rollout(key) => board(&app.data, key, &view.filter)
            .into_iter()
            .filter_map(|r| match r {
                BoardRow::Cluster(c) => Some(c.name.clone()),
                BoardRow::Wave { .. } => None,
            })
            .collect(),
        Screen::Clusters => cluster_rows(&app.data, &view.filter)
            .into_iter()
            .map(|c| format!("{}/{}", c.namespace().unwrap_or_default(), c.name_any()))
            .collect(),
        Screen::Templates => template_rows(&app.data, &view.filter)
            .into_iter()
            .map(|t| {
                let k = t.key();
                format!("{:?}/{}/{}", k.kind, k.namespace, k.name)
            })
            .collect(),
        Screen::ClusterDetail(key) => app
            .data
            .cluster(&key.namespace, &key.name)
            .map(|mc| {
                service_rows(mc, &view.filter)
                    .into_iter()
                    .map(|s| s.name.clone())
                    .collect()
            })
            .unwrap_or_default(),
        Screen::TemplateDetail(key) => app
            .data
            .cluster_template(&key.namespace, &key.name)
            .map(|ct| {
                template_service_rows(ct, &view.filter)
                    .into_iter()
                    .map(|s| s.name.clone())
                    .collect()
            })
            .unwrap_or_default(),
        Screen::Edit(_) => Vec::new(),
        Screen::Events(regarding) => event_rows(&app.data, regarding.as_ref(), &view.filter)
            .into_iter()
            .map(|e| {
                format!(
                    "{}/{}",
                    e.metadata.namespace.as_deref().unwrap_or_default(),
                    e.metadata.name.as_deref().unwrap_or_default()
                )
            })
            .collect(),
        Screen::Yaml(key) => {
            let lines = app.data.yaml(key).map_or(0, |y| y.lines().count());
            (0..lines).map(|i| i.to_string()).collect()
        }
        Screen::Values(key) => {
            let lines = values::shown(&app.data, key).values.lines().len();
            (0..lines).map(|i| i.to_string()).collect()
        }
    }
}

/// The values of the service selected on a cluster's or a ClusterTemplate's
/// detail screen.
pub fn selected_values(app: &App) -> Option<ValuesKey> {
    let view = app.view();
    let service = match &view.screen {
        Screen::ClusterDetail(key) => app.data.cluster(&key.namespace, &key.name).and_then(|mc| {
            service_rows(mc, &view.filter)
                .get(view.selected)
                .map(|s| s.name.clone())
        }),
        Screen::TemplateDetail(key) => app
            .data
            .cluster_template(&key.namespace, &key.name)
            .and_then(|ct| {
                template_service_rows(ct, &view.filter)
                    .get(view.selected)
                    .map(|s| s.name.clone())
            }),
        _ => None,
    }?;
    let (Screen::ClusterDetail(object) | Screen::TemplateDetail(object)) = &view.screen else {
        return None;
    };
    Some(ValuesKey {
        object: object.clone(),
        service: Some(service),
    })
}

/// How many rows a view has after its filter: as many as [`row_ids`], but
/// the long lists are counted without making their ids.
fn row_count(app: &App, view: &View) -> usize {
    match &view.screen {
        Screen::Clusters => cluster_rows(&app.data, &view.filter).len(),
        Screen::Rollout(key) => board(&app.data, key, &view.filter)
            .iter()
            .filter(|r| r.is_cluster())
            .count(),
        Screen::Events(regarding) => event_rows(&app.data, regarding.as_ref(), &view.filter).len(),
        Screen::Yaml(key) => app.data.yaml(key).map_or(0, |y| y.lines().count()),
        _ => row_ids(app, view).len(),
    }
}

/// The key of the selected row of a list view.
fn selected_key(app: &App) -> Option<ObjKey> {
    let view = app.view();
    match &view.screen {
        Screen::Clusters => cluster_rows(&app.data, &view.filter)
            .get(view.selected)
            .map(|c| ObjKey::of(Kind::ManagedCluster, &c.metadata)),
        Screen::Templates => template_rows(&app.data, &view.filter)
            .get(view.selected)
            .map(|t| t.key()),
        Screen::Rollouts => rollout_rows(&app.data, &view.filter)
            .get(view.selected)
            .map(|r| ObjKey::of(Kind::TemplateRollout, &r.metadata)),
        Screen::Events(regarding) => event_rows(&app.data, regarding.as_ref(), &view.filter)
            .get(view.selected)
            .map(|e| ObjKey::of(Kind::Event, &e.metadata)),
        Screen::ClusterDetail(key)
        | Screen::Rollout(key)
        | Screen::Yaml(key)
        | Screen::TemplateDetail(key) => Some(key.clone()),
        Screen::Edit(key) => Some(key.object.clone()),
        Screen::Values(key) => Some(key.object.clone()),
    }
}

// ---------------------------------------------------------------------------
// update

/// Applies one message. Pure: the returned commands are the only effects.
pub fn update(app: &mut App, msg: Msg) -> Vec<Command> {
    match msg {
        Msg::Key(key) => return on_key(app, key),
        Msg::Mouse(mouse) => on_mouse(app, mouse),
        Msg::Resize(w, h) => {
            app.size = (w, h);
            fit_all(app);
            fit_editor(app);
        }
        Msg::Tick(now) => {
            app.now = now;
            let shown = app.banner().is_some();
            banner::expire(&mut app.problems, now);
            banner_changed(app, shown);
            if app
                .flash
                .as_ref()
                .is_some_and(|f| now.as_second() - f.at.as_second() >= FLASH_SECONDS)
            {
                app.flash = None;
            }
        }
        Msg::Changed(_) => return vec![Command::Refresh],
        Msg::Synced => {
            app.synced = true;
            return vec![Command::Refresh];
        }
        Msg::Data(snapshot) => set_data(app, snapshot),
        Msg::Log(text) => app.flash(FlashLevel::Warn, text),
        Msg::EngineLeading(leading) => {
            if matches!(app.target.engine, Engine::InProcess | Engine::Standby) {
                app.target.engine = if leading {
                    Engine::InProcess
                } else {
                    Engine::Standby
                };
            }
        }
        Msg::Identity(user) => app.user = Some(user),
        Msg::Requested {
            name,
            request,
            result,
        } => match result {
            Ok(()) => app.flash(
                FlashLevel::Info,
                format!("asked: {} ({name})", request.to_annotation()),
            ),
            Err(why) => app.flash(
                FlashLevel::Error,
                format!("could not ask {}: {why}", request.to_annotation()),
            ),
        },
        Msg::Watch { resource, health } => {
            let shown = app.banner().is_some();
            banner::record(&mut app.problems, resource, health, app.now);
            banner_changed(app, shown);
        }
        Msg::ValuesApplied { key, result } => values_applied(app, key, result),
        Msg::EngineStopped(why) => {
            app.target.engine = Engine::Stopped;
            app.flash(
                FlashLevel::Error,
                format!(
                    "the engine stopped: {}",
                    why.unwrap_or_else(|| "it returned".into())
                ),
            );
        }
    }
    Vec::new()
}

/// The banner takes a line from the body: lists keep their selection on
/// screen when it comes or goes.
fn banner_changed(app: &mut App, shown: bool) {
    if app.banner().is_some() != shown {
        fit_all(app);
        fit_editor(app);
    }
}

/// Swaps in new data; every selection follows its row.
fn set_data(app: &mut App, snapshot: Snapshot) {
    let before: Vec<Option<String>> = app
        .stack
        .iter()
        .map(|v| row_ids(app, v).get(v.selected).cloned())
        .collect();
    app.data = snapshot;
    for (i, id) in before.into_iter().enumerate() {
        let ids = row_ids(app, &app.stack[i]);
        let view = &mut app.stack[i];
        if let Some(pos) = id.and_then(|id| ids.iter().position(|x| *x == id))
            && !view.screen.scrolls()
        {
            view.selected = pos;
        }
    }
    fit_all(app);
}

/// Keeps every view's selection in range and on screen.
fn fit_all(app: &mut App) {
    for i in 0..app.stack.len() {
        fit_at(app, i);
    }
}

/// Keeps one view's selection in range and on screen.
fn fit_at(app: &mut App, i: usize) {
    let height = layout::rows_height(app, &app.stack[i]);
    if let Screen::Rollout(key) = &app.stack[i].screen {
        let rows = board(&app.data, key, &app.stack[i].filter);
        let lines: Vec<bool> = rows.iter().map(|r| r.is_cluster()).collect();
        fit_board(&mut app.stack[i], &lines, height);
        return;
    }
    let count = row_count(app, &app.stack[i]);
    fit(&mut app.stack[i], count, height);
}

/// The board scrolls by lines (waves and their clusters) while the cursor
/// walks the clusters: the selected cluster stays on screen, with its
/// wave's heading when it is the wave's first.
fn fit_board(view: &mut View, clusters: &[bool], height: usize) {
    let height = height.max(1);
    let count = clusters.iter().filter(|c| **c).count();
    view.selected = view.selected.min(count.saturating_sub(1));
    let line = clusters
        .iter()
        .enumerate()
        .filter(|(_, c)| **c)
        .nth(view.selected)
        .map_or(0, |(i, _)| i);
    let top = if line > 0 && !clusters[line - 1] {
        line - 1
    } else {
        line
    };
    if top < view.offset {
        view.offset = top;
    }
    if line >= view.offset + height {
        view.offset = line + 1 - height;
    }
    view.offset = view.offset.min(clusters.len().saturating_sub(height));
}

fn fit(view: &mut View, count: usize, height: usize) {
    let height = height.max(1);
    if view.screen.scrolls() {
        view.offset = view.offset.min(count.saturating_sub(height));
        return;
    }
    view.selected = view.selected.min(count.saturating_sub(1));
    if view.selected < view.offset {
        view.offset = view.selected;
    }
    if view.selected >= view.offset + height {
        view.offset = view.selected + 1 - height;
    }
    view.offset = view.offset.min(count.saturating_sub(height));
}

fn on_key(app: &mut App, key: KeyEvent) -> Vec<Command> {
    if key.kind == crossterm::event::KeyEventKind::Release {
        return Vec::new();
    }
    // The editor takes every key, ctrl-c too: it asks before losing changes.
    if matches!(app.screen(), Screen::Edit(_)) && app.editor.is_some() {
        return on_editor_key(app, key);
    }
    let mode = app.mode();
    let action = app.keys.action(mode, &key);
    if action == Some(Action::Quit) && !matches!(mode, Mode::Screen(_)) {
        // ctrl-c leaves from a prompt or a question too.
        app.quit = true;
        return vec![Command::Quit];
    }
    if app
        .flash
        .as_ref()
        .is_some_and(|f| f.level != FlashLevel::Warn)
    {
        app.flash = None;
    }
    if let Some(modal) = app.modal.clone() {
        return on_modal_key(app, action, modal);
    }
    match app.input.clone() {
        Input::Command(text) => return on_command_key(app, key, action, text),
        Input::Filter => {
            on_filter_key(app, key, action);
            return Vec::new();
        }
        Input::None => {}
    }
    if app.help {
        return match action {
            Some(Action::Quit) => quit(app),
            Some(Action::Back | Action::Help) => {
                app.help = false;
                Vec::new()
            }
            _ => Vec::new(),
        };
    }
    match action {
        Some(a) => act(app, a),
        None => Vec::new(),
    }
}

fn quit(app: &mut App) -> Vec<Command> {
    app.quit = true;
    vec![Command::Quit]
}

fn act(app: &mut App, action: Action) -> Vec<Command> {
    match action {
        Action::Quit => return quit(app),
        Action::Help => app.help = true,
        Action::Command => app.input = Input::Command(String::new()),
        Action::Filter => {
            if !app.screen().scrolls() {
                app.input = Input::Filter;
            }
        }
        Action::Back => back(app),
        Action::Up => step(app, -1),
        Action::Down => step(app, 1),
        Action::PageUp => {
            let page = layout::rows_height(app, app.view()).max(1) as isize;
            step(app, -page);
        }
        Action::PageDown => {
            let page = layout::rows_height(app, app.view()).max(1) as isize;
            step(app, page);
        }
        Action::Top => step(app, isize::MIN / 2),
        Action::Bottom => step(app, isize::MAX / 2),
        Action::Open => match (app.screen(), selected_key(app)) {
            (Screen::Clusters, Some(key)) => push(app, Screen::ClusterDetail(key)),
            (Screen::Rollouts, Some(key)) => push(app, Screen::Rollout(key)),
            (Screen::Templates, Some(key)) if key.kind == Kind::ClusterTemplate => {
                push(app, Screen::TemplateDetail(key))
            }
            (Screen::Templates, Some(key)) => push(
                app,
                Screen::Values(ValuesKey {
                    object: key,
                    service: None,
                }),
            ),
            (Screen::ClusterDetail(_) | Screen::TemplateDetail(_), _) => {
                match selected_values(app) {
                    Some(key) => push(app, Screen::Values(key)),
                    None => app.flash(FlashLevel::Warn, "no service selected"),
                }
            }
            (Screen::Events(_), Some(key)) => open_regarded(app, &key),
            _ => {}
        },
        Action::Edit => open_editor(app),
        Action::Events => {
            if let Screen::ClusterDetail(key) = app.screen() {
                let key = key.clone();
                push(app, Screen::Events(Some(key)));
            }
        }
        Action::Yaml => {
            if let Some(key) = selected_key(app) {
                push(app, Screen::Yaml(key));
            }
        }
        Action::Approve => {
            return ask(app, |status, _| {
                Ok(Request::Approve(rollouts::waiting_wave(status)))
            });
        }
        Action::Pause => return ask(app, |_, _| Ok(Request::Pause)),
        Action::Resume => return ask(app, |_, _| Ok(Request::Resume)),
        Action::Abort => return stop_choice(app),
        Action::Skip => return ask(app, |_, c| Ok(Request::Skip(c.ok_or("skip")?))),
        Action::Retry => return ask(app, |_, c| Ok(Request::Retry(c.ok_or("retry")?))),
        // The prompts', questions' and editor's own: never bound on a screen.
        Action::Run
        | Action::Complete
        | Action::Cancel
        | Action::Erase
        | Action::Keep
        | Action::Clear
        | Action::Stay
        | Action::RollBack
        | Action::Yes
        | Action::No
        | Action::Save
        | Action::Close
        | Action::PutBack
        | Action::Undo
        | Action::Redo
        | Action::Apply
        | Action::KeepEditing
        | Action::Discard
        | Action::Reload
        | Action::KeepMine => {}
    }
    Vec::new()
}

// ---------------------------------------------------------------------------
// Requests on the rollout board

/// The rollout of the board on screen, with its status.
fn board_rollout(app: &App) -> Result<(ObjKey, &TemplateRollout, &TemplateRolloutStatus), String> {
    let Screen::Rollout(key) = app.screen() else {
        return Err("requests are made on a rollout's board".into());
    };
    let Some(r) = app.data.rollout(&key.namespace, &key.name) else {
        return Err(format!("{} no longer exists", key.name));
    };
    let Some(status) = r.status.as_ref() else {
        return Err(format!(
            "{} has no status yet: the engine has not planned it",
            key.name
        ));
    };
    Ok((key.clone(), r, status))
}

/// The cluster under the board's cursor.
fn board_cluster(app: &App) -> Option<String> {
    let view = app.view();
    let Screen::Rollout(key) = &view.screen else {
        return None;
    };
    board(&app.data, key, &view.filter)
        .into_iter()
        .filter_map(|r| match r {
            BoardRow::Cluster(c) => Some(c.name.clone()),
            BoardRow::Wave { .. } => None,
        })
        .nth(view.selected)
}

/// Why the console may not write, if it may not.
fn refuse_writes(app: &App, what: &str) -> Option<String> {
    app.target
        .readonly
        .then(|| format!("read-only console (--readonly): cannot {what}"))
}

/// A request from a board key: `make` builds it from the rollout's status
/// and the selected cluster (`Err` names the request when a cluster is
/// needed and none is selected). It is refused, with the reason on the
/// message line, when the console is read-only or the rollout's state does
/// not allow it; a skip asks to confirm first; anything else is sent.
fn ask(
    app: &mut App,
    make: impl FnOnce(&TemplateRolloutStatus, Option<String>) -> Result<Request, &'static str>,
) -> Vec<Command> {
    let cluster = board_cluster(app);
    let outcome = board_rollout(app).and_then(|(key, r, status)| {
        let request =
            make(status, cluster).map_err(|what| format!("no cluster selected to {what}"))?;
        if let Some(why) = refuse_writes(app, request.action()) {
            return Err(why);
        }
        rollouts::check(status, &request)?;
        let question =
            matches!(request, Request::Skip(_)).then(|| rollouts::question(r, status, &request));
        Ok((key, request, question))
    });
    match outcome {
        Err(why) => {
            app.flash(FlashLevel::Warn, why);
            Vec::new()
        }
        Ok((rollout, request, Some(question))) => {
            app.modal = Some(Modal::Confirm {
                rollout,
                request,
                question,
            });
            Vec::new()
        }
        Ok((rollout, request, None)) => send(app, rollout, request),
    }
}

/// `x`: asks whether to stop where it stands or to roll back, when either
/// is possible.
fn stop_choice(app: &mut App) -> Vec<Command> {
    let outcome = board_rollout(app).and_then(|(key, _, status)| {
        if let Some(why) = refuse_writes(app, "abort or roll back") {
            return Err(why);
        }
        match (
            rollouts::check(status, &Request::Abort),
            rollouts::check(status, &Request::Rollback),
        ) {
            (Err(_), Err(why)) => Err(why.replace("roll back", "abort or roll back")),
            _ => Ok(key),
        }
    });
    match outcome {
        Ok(rollout) => app.modal = Some(Modal::StopChoice { rollout }),
        Err(why) => app.flash(FlashLevel::Warn, why),
    }
    Vec::new()
}

/// Sends a request, checked once more against the rollout as it is now.
fn send(app: &mut App, rollout: ObjKey, request: Request) -> Vec<Command> {
    if let Some(why) = refuse_writes(app, request.action()) {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    let status = app
        .data
        .rollout(&rollout.namespace, &rollout.name)
        .and_then(|r| r.status.as_ref());
    let Some(status) = status else {
        app.flash(
            FlashLevel::Warn,
            format!("{} no longer exists", rollout.name),
        );
        return Vec::new();
    };
    if let Err(why) = rollouts::check(status, &request) {
        app.flash(FlashLevel::Warn, why);
        return Vec::new();
    }
    app.flash(
        FlashLevel::Info,
        format!("asking: {}…", request.to_annotation()),
    );
    vec![Command::Request {
        namespace: rollout.namespace,
        name: rollout.name,
        request,
    }]
}

/// Keys while a modal asks something: it answers or closes; nothing else
/// reaches the screen underneath.
fn on_modal_key(app: &mut App, action: Option<Action>, modal: Modal) -> Vec<Command> {
    match (modal, action) {
        (Modal::StopChoice { rollout }, Some(choice @ (Action::Stay | Action::RollBack))) => {
            let request = if choice == Action::Stay {
                Request::Abort
            } else {
                Request::Rollback
            };
            let found = app
                .data
                .rollout(&rollout.namespace, &rollout.name)
                .and_then(|r| {
                    r.status.as_ref().map(|s| {
                        rollouts::check(s, &request).map(|()| rollouts::question(r, s, &request))
                    })
                });
            match found {
                None => {
                    app.modal = None;
                    app.flash(
                        FlashLevel::Warn,
                        format!("{} no longer exists", rollout.name),
                    );
                }
                // Not possible now: say why and let the other choice be made.
                Some(Err(why)) => app.flash(FlashLevel::Warn, why),
                Some(Ok(question)) => {
                    app.modal = Some(Modal::Confirm {
                        rollout,
                        request,
                        question,
                    });
                }
            }
            Vec::new()
        }
        (
            Modal::Confirm {
                rollout, request, ..
            },
            Some(Action::Yes),
        ) => {
            app.modal = None;
            send(app, rollout, request)
        }
        (_, Some(Action::Cancel | Action::No)) => {
            app.modal = None;
            app.flash(FlashLevel::Info, "cancelled: nothing asked");
            Vec::new()
        }
        _ => Vec::new(),
    }
}

/// enter on an Event: the screen of the object it is about.
fn open_regarded(app: &mut App, event: &ObjKey) {
    let regarding = app
        .data
        .events
        .iter()
        .find(|e| ObjKey::of(Kind::Event, &e.metadata) == *event)
        .and_then(|e| e.regarding.clone());
    let Some(r) = regarding else {
        app.flash(FlashLevel::Warn, "the event is about no object");
        return;
    };
    let kind = match r.kind.as_deref() {
        Some("ManagedCluster") => Kind::ManagedCluster,
        Some("ClusterTemplate") => Kind::ClusterTemplate,
        Some("ServiceTemplate") => Kind::ServiceTemplate,
        Some("TemplateRollout") => Kind::TemplateRollout,
        other => {
            app.flash(
                FlashLevel::Warn,
                format!(
                    "the console has no screen for {}",
                    other.unwrap_or("that kind")
                ),
            );
            return;
        }
    };
    let key = ObjKey {
        kind,
        namespace: r.namespace.unwrap_or_default(),
        name: r.name.unwrap_or_default(),
    };
    let screen = match kind {
        Kind::ManagedCluster => Screen::ClusterDetail(key),
        Kind::ClusterTemplate => Screen::TemplateDetail(key),
        Kind::TemplateRollout => Screen::Rollout(key),
        _ => Screen::Yaml(key),
    };
    push(app, screen);
}

// ---------------------------------------------------------------------------
// The values editor

/// `e` on a service: opens the editor on its values, on the cluster (its
/// `spec.services` entry, made on save when it has none) or on the
/// ClusterTemplate.
fn open_editor(app: &mut App) {
    if let Some(why) = refuse_writes(app, "edit values") {
        app.flash(FlashLevel::Warn, why);
        return;
    }
    let view = app.view();
    let found = match &view.screen {
        Screen::ClusterDetail(key) => app.data.cluster(&key.namespace, &key.name).map(|mc| {
            let service = service_rows(mc, &view.filter)
                .get(view.selected)
                .map(|s| s.name.clone());
            (Base::Cluster(mc.clone()), service)
        }),
        Screen::TemplateDetail(key) => {
            app.data
                .cluster_template(&key.namespace, &key.name)
                .map(|ct| {
                    let service = template_service_rows(ct, &view.filter)
                        .get(view.selected)
                        .map(|s| s.name.clone());
                    (Base::Template(ct.clone()), service)
                })
        }
        _ => return,
    };
    let (base, service) = match found {
        None => {
            let key = selected_key(app).map(|k| k.name).unwrap_or_default();
            app.flash(FlashLevel::Warn, format!("{key} no longer exists"));
            return;
        }
        Some((_, None)) => {
            app.flash(FlashLevel::Warn, "no service selected to edit");
            return;
        }
        Some((base, Some(service))) => (base, service),
    };
    if let Base::Cluster(mc) = &base {
        let ns = mc.namespace().unwrap_or_default();
        let in_template = app
            .data
            .cluster_template(&ns, &mc.spec.template)
            .is_some_and(|ct| ct.spec.services.iter().any(|s| s.name == service));
        if !in_template && !base.has_entry(&service) {
            app.flash(
                FlashLevel::Warn,
                format!(
                    "{service} is neither in template {} nor in the cluster's services: nothing to override",
                    mc.spec.template
                ),
            );
            return;
        }
    }
    let editor = Editor::open(base, &service);
    let key = editor.key.clone();
    app.editor = Some(editor);
    push(app, Screen::Edit(key));
    fit_editor(app);
}

/// Keys while the editor is open.
fn on_editor_key(app: &mut App, key: KeyEvent) -> Vec<Command> {
    if app
        .flash
        .as_ref()
        .is_some_and(|f| f.level != FlashLevel::Warn)
    {
        app.flash = None;
    }
    let Some(editor) = app.editor.as_mut() else {
        return Vec::new();
    };
    let step = editor.on_key(key, &app.keys, &app.data);
    let edit_key = editor.key.clone();
    fit_editor(app);
    match step {
        Step::Nothing => Vec::new(),
        Step::Say(level, text) => {
            app.flash(level, text);
            Vec::new()
        }
        Step::Close => {
            close_editor(app);
            Vec::new()
        }
        Step::Quit => quit(app),
        Step::Apply(patch) => {
            // Checked once more: a question asked before the console became
            // read-only sends nothing.
            if let Some(why) = refuse_writes(app, "save values") {
                if let Some(editor) = app.editor.as_mut() {
                    editor.stage = Stage::Editing;
                }
                app.flash(FlashLevel::Warn, why);
                return Vec::new();
            }
            app.flash(
                FlashLevel::Info,
                format!("saving the values of {}…", edit_key.service),
            );
            vec![Command::ApplyValues {
                key: edit_key,
                patch,
            }]
        }
    }
}

/// Pops the editor's screen.
fn close_editor(app: &mut App) {
    app.editor = None;
    if matches!(app.screen(), Screen::Edit(_)) && app.stack.len() > 1 {
        app.stack.pop();
    }
    fit_all(app);
}

/// Keeps the editor's cursor on screen.
fn fit_editor(app: &mut App) {
    let (height, width) = layout::editor_text_size(app);
    if let Some(editor) = app.editor.as_mut() {
        editor.fit(height, width);
    }
}

/// The answer to a save.
fn values_applied(app: &mut App, key: EditKey, result: Result<(), SaveError>) {
    let what = format!(
        "the values of {} on {} {}",
        key.service,
        key.object.kind.label(),
        key.object.name
    );
    let open = app
        .editor
        .as_ref()
        .is_some_and(|e| e.key == key && e.stage == Stage::Saving);
    match result {
        Ok(()) => {
            if open {
                close_editor(app);
            }
            app.flash(FlashLevel::Info, format!("saved {what}"));
        }
        Err(SaveError::Conflict { current }) => {
            if let (true, Some(editor)) = (open, app.editor.as_mut()) {
                editor.stage = Stage::Conflict { current };
            }
            app.flash(
                FlashLevel::Error,
                format!(
                    "not saved: {} changed by someone else since you opened it",
                    key.object.name
                ),
            );
        }
        Err(SaveError::Failed(why)) => {
            if let (true, Some(editor)) = (open, app.editor.as_mut()) {
                editor.stage = Stage::Editing;
            }
            app.flash(FlashLevel::Error, format!("could not save {what}: {why}"));
        }
    }
}

fn push(app: &mut App, screen: Screen) {
    app.stack.push(View::new(screen));
    fit_all(app);
}

/// `esc`: clear the filter, else go back one crumb.
fn back(app: &mut App) {
    if !app.view().filter.is_empty() {
        app.view_mut().filter.clear();
        fit_all(app);
    } else if app.stack.len() > 1 {
        app.stack.pop();
        fit_all(app);
    } else if app.flash.is_some() {
        app.flash = None;
    }
}

/// Moves the selection (or the YAML scroll) by `delta`, clamped.
fn step(app: &mut App, delta: isize) {
    let count = app.row_count();
    let height = layout::rows_height(app, app.view());
    let view = app.view_mut();
    let clamp = |v: isize, max: usize| v.clamp(0, max as isize) as usize;
    if view.screen.scrolls() {
        let max = count.saturating_sub(height.max(1));
        view.offset = clamp(view.offset as isize + delta, max);
    } else {
        view.selected = clamp(view.selected as isize + delta, count.saturating_sub(1));
        let last = app.stack.len() - 1;
        fit_at(app, last);
    }
}

fn on_filter_key(app: &mut App, key: KeyEvent, action: Option<Action>) {
    match action {
        Some(Action::Clear) => {
            app.input = Input::None;
            app.view_mut().filter.clear();
        }
        Some(Action::Keep) => app.input = Input::None,
        Some(Action::Erase) => app.view_mut().filter.clear(),
        Some(Action::Down) => step(app, 1),
        Some(Action::Up) => step(app, -1),
        _ => match typed(&key) {
            Typed::Erase => {
                let was_empty = app.view_mut().filter.pop().is_none();
                if was_empty {
                    app.input = Input::None;
                }
            }
            Typed::Char(c) => {
                app.view_mut().filter.push(c);
                app.view_mut().selected = 0;
            }
            Typed::Other => {}
        },
    }
    fit_all(app);
}

fn on_command_key(
    app: &mut App,
    key: KeyEvent,
    action: Option<Action>,
    mut text: String,
) -> Vec<Command> {
    match action {
        Some(Action::Cancel) => app.input = Input::None,
        Some(Action::Run) => {
            app.input = Input::None;
            return run_command(app, &text);
        }
        Some(Action::Complete) => app.input = Input::Command(keys::complete(&text)),
        Some(Action::Erase) => app.input = Input::Command(String::new()),
        _ => match typed(&key) {
            Typed::Erase => {
                if text.pop().is_none() {
                    app.input = Input::None;
                } else {
                    app.input = Input::Command(text);
                }
            }
            Typed::Char(c) => {
                text.push(c);
                app.input = Input::Command(text);
            }
            Typed::Other => {}
        },
    }
    Vec::new()
}

/// A key a one-line text field reads itself, when no binding takes it.
enum Typed {
    Char(char),
    /// Backspace: the last character goes.
    Erase,
    Other,
}

fn typed(key: &KeyEvent) -> Typed {
    match key.code {
        KeyCode::Backspace => Typed::Erase,
        KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => Typed::Char(c),
        _ => Typed::Other,
    }
}

fn run_command(app: &mut App, text: &str) -> Vec<Command> {
    let word = text.trim();
    if word.is_empty() {
        return Vec::new();
    }
    match keys::resolve(word) {
        Some(Goto::Quit) => return quit(app),
        Some(Goto::Help) => app.help = true,
        Some(Goto::Clusters) => {
            app.stack.truncate(1);
            fit_all(app);
        }
        Some(Goto::Templates) => {
            app.stack.truncate(1);
            push(app, Screen::Templates);
        }
        Some(Goto::Rollouts) => {
            app.stack.truncate(1);
            push(app, Screen::Rollouts);
        }
        Some(Goto::Events) => {
            app.stack.truncate(1);
            push(app, Screen::Events(None));
        }
        None => app.flash(
            FlashLevel::Error,
            format!(
                "unknown command :{word}; try {}",
                keys::COMMANDS
                    .iter()
                    .map(|c| format!(":{}", c.name))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        ),
    }
    Vec::new()
}

fn on_mouse(app: &mut App, mouse: MouseEvent) {
    // A question waits for its answer from the keyboard; the editor is
    // keyboard only.
    if app.modal.is_some() || matches!(app.screen(), Screen::Edit(_)) {
        return;
    }
    match mouse.kind {
        MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
            if app.help {
                return;
            }
            let lines = if app.screen().scrolls() { 3 } else { 1 };
            let down = mouse.kind == MouseEventKind::ScrollDown;
            step(app, if down { lines } else { -lines });
        }
        MouseEventKind::Down(MouseButton::Left) => {
            if app.help {
                app.help = false;
                return;
            }
            let Some(area) = layout::rows_area(app, app.view()) else {
                return;
            };
            let (x, y) = (mouse.column, mouse.row);
            if x < area.x || x >= area.right() || y < area.y || y >= area.bottom() {
                return;
            }
            let line = app.view().offset + usize::from(y - area.y);
            let index = match &app.view().screen {
                Screen::Rollout(key) => {
                    rollouts::cluster_on_line(&board(&app.data, key, &app.view().filter), line)
                }
                _ => Some(line),
            };
            if let Some(index) = index.filter(|i| *i < app.row_count()) {
                app.view_mut().selected = index;
                let last = app.stack.len() - 1;
                fit_at(app, last);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::api::{
        ClusterRolloutState, ClusterRolloutStatus, PreviewGroup, RolloutPhase, RolloutPolicy,
        RolloutStrategy, TemplateRolloutSpec, TemplateRolloutStatus, WaveState, WaveStatus,
    };
    use crate::api::{
        ClusterTemplateSpec, ClusterTemplateStatus, ManagedClusterSpec, ManagedClusterStatus,
        ManagedService, ServiceTemplateSpec, TemplateService, TemplateStatus,
    };
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    pub use crate::tui::fixtures::{NOW, now, target};
    use crate::tui::fixtures::{cond, helm, meta, service, time};

    /// Three clusters in three states, two cluster templates (one invalid)
    /// and two service templates.
    pub fn sample() -> Snapshot {
        let ready = ManagedCluster {
            metadata: meta("hmc-system", "prod-eu-1", 3 * 86400 + 100),
            spec: ManagedClusterSpec {
                template: "aws-standalone-cp".into(),
                ..Default::default()
            },
            status: Some(ManagedClusterStatus {
                conditions: vec![
                    cond(
                        "TemplateReady",
                        true,
                        "Ready",
                        "cluster template aws-standalone-cp revision 2",
                        3 * 86400,
                    ),
                    cond(
                        "ClusterReady",
                        true,
                        "Provisioned",
                        "control plane initialized",
                        3 * 86400,
                    ),
                    cond(
                        "ServicesReady",
                        true,
                        "Installed",
                        "2/2 services installed",
                        2 * 86400,
                    ),
                    cond(READY, true, "Ready", "2/2 services installed", 2 * 86400),
                ],
                services: vec![
                    service(
                        "ingress-nginx",
                        ServiceState::Installed,
                        "4.11.3",
                        "installed",
                    ),
                    service(
                        "cert-manager",
                        ServiceState::Installed,
                        "1.16.2",
                        "installed",
                    ),
                ],
                services_ready: Some("2/2".into()),
                revision: Some(2),
                target_revision: None,
                observed_generation: Some(1),
            }),
        };
        let installing = ManagedCluster {
            metadata: meta("hmc-system", "staging-1", 25 * 60),
            spec: ManagedClusterSpec {
                template: "aws-standalone-cp".into(),
                services: vec![ManagedService {
                    name: "cert-manager".into(),
                    disable: true,
                    ..Default::default()
                }],
                ..Default::default()
            },
            status: Some(ManagedClusterStatus {
                conditions: vec![
                    cond(
                        "TemplateReady",
                        true,
                        "Ready",
                        "cluster template aws-standalone-cp revision 2",
                        1500,
                    ),
                    cond(
                        "ClusterReady",
                        true,
                        "Provisioned",
                        "control plane initialized",
                        600,
                    ),
                    cond(
                        "ServicesReady",
                        false,
                        "Installing",
                        "ingress-nginx: installing chart 4.11.3",
                        300,
                    ),
                    cond(
                        READY,
                        false,
                        "Installing",
                        "ingress-nginx: installing chart 4.11.3",
                        300,
                    ),
                ],
                services: vec![service(
                    "ingress-nginx",
                    ServiceState::Installing,
                    "4.11.3",
                    "installing chart 4.11.3",
                )],
                services_ready: Some("0/1".into()),
                revision: Some(2),
                target_revision: None,
                observed_generation: Some(1),
            }),
        };
        let failed = ManagedCluster {
            metadata: meta("team-a", "dev-broken", 45),
            spec: ManagedClusterSpec {
                template: "missing-template".into(),
                ..Default::default()
            },
            status: Some(ManagedClusterStatus {
                conditions: vec![
                    cond(
                        "TemplateReady",
                        false,
                        "TemplateNotFound",
                        "cluster template missing-template does not exist",
                        40,
                    ),
                    cond(
                        READY,
                        false,
                        "TemplateNotFound",
                        "cluster template missing-template does not exist",
                        40,
                    ),
                ],
                ..Default::default()
            }),
        };
        let ct = ClusterTemplate {
            metadata: meta("hmc-system", "aws-standalone-cp", 10 * 86400),
            spec: ClusterTemplateSpec {
                helm: helm("aws-standalone-cp", "0.0.3"),
                services: vec![
                    TemplateService {
                        name: "ingress-nginx".into(),
                        template: "ingress-nginx-4-11-3".into(),
                        ..Default::default()
                    },
                    TemplateService {
                        name: "cert-manager".into(),
                        template: "cert-manager-1-16-2".into(),
                        ..Default::default()
                    },
                ],
                rollout: None,
            },
            status: Some(ClusterTemplateStatus {
                chart: TemplateStatus {
                    valid: true,
                    description: Some("An AWS cluster with a standalone control plane".into()),
                    chart_version: Some("0.0.3".into()),
                    ..Default::default()
                },
                revision: Some(2),
                services_summary: Some("ingress-nginx, cert-manager".into()),
                ..Default::default()
            }),
        };
        let bad_ct = ClusterTemplate {
            metadata: meta("team-a", "azure-hosted", 2 * 3600),
            spec: ClusterTemplateSpec {
                helm: helm("azure-hosted", "9.9.9"),
                ..Default::default()
            },
            status: Some(ClusterTemplateStatus {
                chart: TemplateStatus {
                    valid: false,
                    validation_error: Some("chart azure-hosted 9.9.9 not found in repository https://charts.example.com".into()),
                    ..Default::default()
                },
                revision: Some(1),
                ..Default::default()
            }),
        };
        let st = |name: &str, chart: &str, version: &str, desc: &str| ServiceTemplate {
            metadata: meta("hmc-system", name, 10 * 86400),
            spec: ServiceTemplateSpec {
                helm: helm(chart, version),
                ..Default::default()
            },
            status: Some(TemplateStatus {
                valid: true,
                description: Some(desc.into()),
                chart_version: Some(version.into()),
                ..Default::default()
            }),
        };
        Snapshot::new(
            vec![Arc::new(failed), Arc::new(ready), Arc::new(installing)],
            vec![Arc::new(ct), Arc::new(bad_ct)],
            vec![
                Arc::new(st(
                    "ingress-nginx-4-11-3",
                    "ingress-nginx",
                    "4.11.3",
                    "Ingress controller for Kubernetes using NGINX",
                )),
                Arc::new(st(
                    "cert-manager-1-16-2",
                    "cert-manager",
                    "1.16.2",
                    "A Helm chart for cert-manager",
                )),
            ],
        )
        .with_rollouts(rollouts())
        .with_events(sample_events())
    }

    fn event(
        name: &str,
        ns: &str,
        warning: bool,
        reason: &str,
        regarding: (&str, &str),
        note: &str,
        ago: i64,
    ) -> Event {
        use k8s_openapi::api::core::v1::ObjectReference;
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
        Event {
            metadata: meta(ns, name, ago),
            type_: Some(if warning { "Warning" } else { "Normal" }.into()),
            reason: Some(reason.into()),
            note: Some(note.into()),
            regarding: Some(ObjectReference {
                kind: Some(regarding.0.into()),
                name: Some(regarding.1.into()),
                namespace: Some(ns.into()),
                ..Default::default()
            }),
            event_time: Some(MicroTime(Timestamp::from_second(NOW - ago).unwrap())),
            reporting_controller: Some("hmc-tui".into()),
            reporting_instance: Some("hmc-tui".into()),
            action: Some(note.chars().take(40).collect()),
            ..Default::default()
        }
    }

    /// What the engine reported about the sample objects, and one Event of
    /// another controller that the console leaves out.
    pub fn sample_events() -> Vec<Arc<Event>> {
        use k8s_openapi::api::events::v1::EventSeries;
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
        let mut refused = event(
            "aws-standalone-cp-3.1",
            "hmc-system",
            true,
            "RequestRefused",
            ("TemplateRollout", "aws-standalone-cp-3"),
            "resume: nothing to resume: the rollout is WaitingForApproval",
            3600,
        );
        refused.series = Some(EventSeries {
            count: 3,
            last_observed_time: MicroTime(Timestamp::from_second(NOW - 90).unwrap()),
        });
        let mut other = event(
            "kube-1",
            "hmc-system",
            true,
            "BackOff",
            ("Pod", "web-1"),
            "Back-off restarting failed container",
            5,
        );
        other.reporting_controller = Some("kubelet".into());
        vec![
            Arc::new(event(
                "prod-eu-1.1",
                "hmc-system",
                false,
                "ServiceApplied",
                ("ManagedCluster", "prod-eu-1"),
                "ingress-nginx 4.11.3 at revision 2",
                2 * 86400,
            )),
            Arc::new(event(
                "dev-broken.1",
                "team-a",
                true,
                "TemplateNotFound",
                ("ManagedCluster", "dev-broken"),
                "cluster template missing-template does not exist",
                40,
            )),
            Arc::new(refused),
            Arc::new(event(
                "aws-standalone-cp-3.2",
                "hmc-system",
                false,
                "WaveApproved",
                ("TemplateRollout", "aws-standalone-cp-3"),
                "wave 1 approved by alice@example.com",
                110 * 60,
            )),
            Arc::new(event(
                "staging-1.1",
                "hmc-system",
                false,
                "ServiceApplied",
                ("ManagedCluster", "staging-1"),
                "ingress-nginx 4.11.3 at revision 2",
                300,
            )),
            Arc::new(other),
        ]
    }

    fn rollout_cluster(
        name: &str,
        wave: u32,
        state: ClusterRolloutState,
        since: i64,
        reason: Option<&str>,
    ) -> ClusterRolloutStatus {
        ClusterRolloutStatus {
            name: name.into(),
            wave,
            state,
            from_revision: Some(2),
            rollback_revision: (wave == 1).then_some(2),
            since: Some(time(since)),
            reason: reason.map(str::to_string),
        }
    }

    /// A Manual rollout of revision 3 waiting for approval of wave 2, with
    /// one failed cluster in wave 1.
    pub fn waiting_rollout() -> TemplateRollout {
        use ClusterRolloutState::*;
        let wave = |number, state, approved: Option<i64>| WaveStatus {
            number,
            state,
            group: None,
            approved_by: approved.map(|_| "alice@example.com".into()),
            approved_at: approved.map(time),
            started_at: approved.map(time),
            finished_at: None,
        };
        let waiting = Some("waiting for approval of wave 2");
        let later = Some("wave 2 not yet healthy");
        TemplateRollout {
            metadata: meta("hmc-system", "aws-standalone-cp-3", 2 * 3600),
            spec: TemplateRolloutSpec {
                template: "aws-standalone-cp".into(),
                revision: 3,
                policy: RolloutPolicy {
                    strategy: RolloutStrategy::Manual,
                    max_concurrent: IntOrString::Int(2),
                    ..Default::default()
                },
            },
            status: Some(TemplateRolloutStatus {
                phase: RolloutPhase::WaitingForApproval,
                message: Some("wave 2/3 waits for approval; 1/6 updated, 1 failed".into()),
                waves: vec![
                    wave(1, WaveState::Failed, Some(110 * 60)),
                    wave(2, WaveState::WaitingForApproval, None),
                    wave(3, WaveState::Pending, None),
                ],
                clusters: vec![
                    rollout_cluster("prod-eu-1", 1, Updated, 100 * 60, None),
                    rollout_cluster(
                        "staging-1",
                        1,
                        Failed,
                        95 * 60,
                        Some(
                            "not healthy within 10m: ingress-nginx: install failed: timed out waiting for the condition",
                        ),
                    ),
                    rollout_cluster("prod-us-1", 2, Waiting, 2 * 3600, waiting),
                    rollout_cluster("prod-us-2", 2, Waiting, 2 * 3600, waiting),
                    rollout_cluster("prod-ap-1", 3, Waiting, 2 * 3600, later),
                    rollout_cluster("prod-ap-2", 3, Waiting, 2 * 3600, later),
                ],
                preview: vec![
                    PreviewGroup {
                        count: 5,
                        changes: vec!["ingress-nginx 4.11.0 → 4.11.3".into()],
                        clusters: vec![
                            "prod-ap-1".into(),
                            "prod-ap-2".into(),
                            "prod-eu-1".into(),
                            "prod-us-1".into(),
                            "prod-us-2".into(),
                        ],
                    },
                    PreviewGroup {
                        count: 1,
                        changes: vec![
                            "ingress-nginx 4.11.0 → 4.11.3".into(),
                            "ingress-nginx: controller.replicaCount 2 → 3".into(),
                        ],
                        clusters: vec!["staging-1".into()],
                    },
                ],
                history: vec![],
                paused_by: None,
                wave_summary: Some("2/3".into()),
                updated_summary: Some("1/6".into()),
                change_summary: Some(
                    "5 clusters: ingress-nginx 4.11.0 → 4.11.3 (+1 more groups)".into(),
                ),
                superseded_by: None,
                started_at: Some(time(110 * 60)),
                finished_at: None,
            }),
        }
    }

    /// The waiting rollout, the one before it (done) and a paused one.
    pub fn rollouts() -> Vec<Arc<TemplateRollout>> {
        let done = TemplateRollout {
            metadata: meta("hmc-system", "aws-standalone-cp-2", 3 * 86400),
            spec: TemplateRolloutSpec {
                template: "aws-standalone-cp".into(),
                revision: 2,
                policy: RolloutPolicy::default(),
            },
            status: Some(TemplateRolloutStatus {
                phase: RolloutPhase::Succeeded,
                message: Some("6/6 clusters updated".into()),
                wave_summary: Some("2/2".into()),
                updated_summary: Some("6/6".into()),
                change_summary: Some("6 clusters: cert-manager 1.16.1 → 1.16.2".into()),
                ..Default::default()
            }),
        };
        let paused = TemplateRollout {
            metadata: meta("team-a", "azure-hosted-1", 40 * 60),
            spec: TemplateRolloutSpec {
                template: "azure-hosted".into(),
                revision: 1,
                policy: RolloutPolicy::default(),
            },
            status: Some(TemplateRolloutStatus {
                phase: RolloutPhase::Paused,
                message: Some("paused by bob; 0/1 updated".into()),
                waves: vec![WaveStatus {
                    number: 1,
                    state: WaveState::Progressing,
                    ..Default::default()
                }],
                clusters: vec![rollout_cluster(
                    "dev-broken",
                    1,
                    ClusterRolloutState::Updating,
                    30 * 60,
                    Some("cluster not provisioned"),
                )],
                paused_by: Some("bob".into()),
                wave_summary: Some("1/1".into()),
                updated_summary: Some("0/1".into()),
                change_summary: Some("1 clusters: add ingress-nginx 4.11.3".into()),
                ..Default::default()
            }),
        };
        vec![
            Arc::new(paused),
            Arc::new(done),
            Arc::new(waiting_rollout()),
        ]
    }

    /// A synced app over the sample data.
    pub fn app() -> App {
        crate::tui::fixtures::app(sample())
    }

    fn press(app: &mut App, code: KeyCode) -> Vec<Command> {
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)))
    }

    pub fn type_str(app: &mut App, text: &str) {
        for c in text.chars() {
            press(app, KeyCode::Char(c));
        }
    }

    fn selected_name(app: &App) -> String {
        selected_key(app).unwrap().name
    }

    #[test]
    fn snapshot_sorts_and_counts_usage() {
        let s = sample();
        let names: Vec<String> = s.clusters.iter().map(|c| c.name_any()).collect();
        assert_eq!(names, ["prod-eu-1", "staging-1", "dev-broken"]);
        let use_of = |kind, ns: &str, name: &str| {
            s.usage
                .get(&ObjKey {
                    kind,
                    namespace: ns.into(),
                    name: name.into(),
                })
                .copied()
                .unwrap_or(0)
        };
        assert_eq!(
            use_of(Kind::ClusterTemplate, "hmc-system", "aws-standalone-cp"),
            2
        );
        assert_eq!(
            use_of(Kind::ServiceTemplate, "hmc-system", "ingress-nginx-4-11-3"),
            2
        );
        // staging-1 disables cert-manager.
        assert_eq!(
            use_of(Kind::ServiceTemplate, "hmc-system", "cert-manager-1-16-2"),
            1
        );
    }

    #[test]
    fn navigation_is_clamped() {
        let mut app = app();
        assert_eq!(selected_name(&app), "prod-eu-1");
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(selected_name(&app), "staging-1");
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Down);
        assert_eq!(selected_name(&app), "dev-broken");
        press(&mut app, KeyCode::Char('k'));
        assert_eq!(selected_name(&app), "staging-1");
        press(&mut app, KeyCode::Char('g'));
        assert_eq!(app.view().selected, 0);
        update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT)),
        );
        assert_eq!(app.view().selected, 2);
        press(&mut app, KeyCode::Up);
        press(&mut app, KeyCode::Up);
        press(&mut app, KeyCode::Up);
        assert_eq!(app.view().selected, 0);
    }

    #[test]
    fn selection_follows_its_row_when_data_changes() {
        let mut app = app();
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(selected_name(&app), "staging-1");
        let mut data = sample();
        data.clusters.remove(0);
        update(&mut app, Msg::Data(data));
        assert_eq!(selected_name(&app), "staging-1");
        assert_eq!(app.view().selected, 0);
        // The selected row went away: the selection stays in range.
        update(&mut app, Msg::Data(Snapshot::default()));
        assert_eq!(app.view().selected, 0);
        assert_eq!(app.row_count(), 0);
    }

    #[test]
    fn filter_narrows_and_esc_clears() {
        let mut app = app();
        press(&mut app, KeyCode::Char('/'));
        assert_eq!(app.input, Input::Filter);
        type_str(&mut app, "STAG");
        assert_eq!(app.row_count(), 1);
        assert_eq!(selected_name(&app), "staging-1");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.input, Input::None);
        assert_eq!(app.view().filter, "STAG");
        // Keys act on the list again, the filter stays.
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(app.row_count(), 1);
        // Message text matches too.
        press(&mut app, KeyCode::Char('/'));
        press(&mut app, KeyCode::Backspace);
        press(&mut app, KeyCode::Backspace);
        press(&mut app, KeyCode::Backspace);
        press(&mut app, KeyCode::Backspace);
        type_str(&mut app, "does not exist");
        assert_eq!(app.row_count(), 1);
        assert_eq!(selected_name(&app), "dev-broken");
        press(&mut app, KeyCode::Enter);
        // esc clears the filter first, and only then goes back.
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.view().filter, "");
        assert_eq!(app.row_count(), 3);
        // esc in the filter prompt clears it too.
        press(&mut app, KeyCode::Char('/'));
        type_str(&mut app, "zzz");
        assert_eq!(app.row_count(), 0);
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.input, Input::None);
        assert_eq!(app.row_count(), 3);
        // q while typing a filter is text, not quit.
        press(&mut app, KeyCode::Char('/'));
        assert!(press(&mut app, KeyCode::Char('q')).is_empty());
        assert_eq!(app.view().filter, "q");
    }

    #[test]
    fn enter_and_esc_walk_the_crumbs() {
        let mut app = app();
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Enter);
        let key = ObjKey {
            kind: Kind::ManagedCluster,
            namespace: "hmc-system".into(),
            name: "staging-1".into(),
        };
        assert_eq!(app.screen(), &Screen::ClusterDetail(key.clone()));
        press(&mut app, KeyCode::Char('y'));
        assert_eq!(app.screen(), &Screen::Yaml(key.clone()));
        let crumbs: Vec<String> = app.stack.iter().map(|v| v.screen.crumb()).collect();
        assert_eq!(crumbs, ["clusters", "hmc-system/staging-1", "yaml"]);
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), &Screen::ClusterDetail(key));
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), &Screen::Clusters);
        // The selection is where it was.
        assert_eq!(selected_name(&app), "staging-1");
        // esc at the root stays.
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.stack.len(), 1);
    }

    #[test]
    fn yaml_hides_managed_fields_and_scrolls() {
        let mut data = sample();
        let mut mc = (*data.clusters[0]).clone();
        mc.metadata.managed_fields = Some(vec![Default::default()]);
        data.clusters[0] = Arc::new(mc);
        let mut app = app();
        update(&mut app, Msg::Data(data));
        press(&mut app, KeyCode::Char('y'));
        let Screen::Yaml(key) = app.screen().clone() else {
            panic!("not on the yaml screen");
        };
        let yaml = app.data.yaml(&key).unwrap();
        assert!(yaml.contains("kind: ManagedCluster"), "{yaml}");
        assert!(!yaml.contains("managedFields"), "{yaml}");
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(app.view().offset, 1);
        press(&mut app, KeyCode::Char('G'));
        let lines = yaml.lines().count();
        let height = layout::rows_height(&app, app.view());
        assert_eq!(app.view().offset, lines.saturating_sub(height));
    }

    #[test]
    fn command_prompt_completes_and_resolves_aliases() {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "te");
        press(&mut app, KeyCode::Tab);
        assert_eq!(app.input, Input::Command("templates".into()));
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), &Screen::Templates);
        assert_eq!(app.row_count(), 4);
        // Back through the crumbs to the clusters.
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), &Screen::Clusters);
        for alias in ["tmpl", "ct", "st"] {
            press(&mut app, KeyCode::Char(':'));
            type_str(&mut app, alias);
            press(&mut app, KeyCode::Enter);
            assert_eq!(app.screen(), &Screen::Templates, "{alias}");
            assert_eq!(app.stack.len(), 2, "{alias}");
        }
        for alias in ["clusters", "mcl", "mcluster", "cl"] {
            press(&mut app, KeyCode::Char(':'));
            type_str(&mut app, alias);
            press(&mut app, KeyCode::Enter);
            assert_eq!(app.screen(), &Screen::Clusters, "{alias}");
            assert_eq!(app.stack.len(), 1);
            press(&mut app, KeyCode::Char(':'));
            type_str(&mut app, "templates");
            press(&mut app, KeyCode::Enter);
        }
    }

    #[test]
    fn unknown_command_is_an_error_line() {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "pods");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.input, Input::None);
        let flash = app.flash.clone().unwrap();
        assert_eq!(flash.level, FlashLevel::Error);
        assert!(flash.text.contains(":pods"), "{}", flash.text);
        // The next key clears it.
        press(&mut app, KeyCode::Char('j'));
        assert!(app.flash.is_none());
        // esc leaves the prompt without running anything; backspace on an
        // empty prompt too.
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "q");
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.input, Input::None);
        assert!(!app.quit);
        press(&mut app, KeyCode::Char(':'));
        press(&mut app, KeyCode::Backspace);
        assert_eq!(app.input, Input::None);
    }

    #[test]
    fn quit_by_q_ctrl_c_and_command() {
        let mut app = app();
        assert_eq!(press(&mut app, KeyCode::Char('q')), vec![Command::Quit]);
        let mut app = self::app();
        let cmds = update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        );
        assert_eq!(cmds, vec![Command::Quit]);
        let mut app = self::app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "quit");
        assert_eq!(press(&mut app, KeyCode::Enter), vec![Command::Quit]);
        // ctrl-c quits even from a prompt.
        let mut app = self::app();
        press(&mut app, KeyCode::Char(':'));
        let cmds = update(
            &mut app,
            Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        );
        assert_eq!(cmds, vec![Command::Quit]);
    }

    #[test]
    fn help_opens_and_closes() {
        let mut app = app();
        press(&mut app, KeyCode::Char('?'));
        assert!(app.help);
        // Keys do not reach the list underneath.
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(app.view().selected, 0);
        press(&mut app, KeyCode::Esc);
        assert!(!app.help);
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "help");
        press(&mut app, KeyCode::Enter);
        assert!(app.help);
        press(&mut app, KeyCode::Char('?'));
        assert!(!app.help);
    }

    #[test]
    fn store_messages_ask_for_a_refresh() {
        let mut app = App::new(target(), Theme::default(), now());
        assert!(!app.synced);
        assert_eq!(
            update(&mut app, Msg::Changed(Kind::ManagedCluster)),
            vec![Command::Refresh]
        );
        assert!(!app.synced);
        assert_eq!(update(&mut app, Msg::Synced), vec![Command::Refresh]);
        assert!(app.synced);
    }

    #[test]
    fn mouse_selects_and_scrolls() {
        let mut app = app();
        let area = layout::rows_area(&app, app.view()).unwrap();
        let click = |row| {
            Msg::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: area.x + 3,
                row,
                modifiers: KeyModifiers::NONE,
            })
        };
        update(&mut app, click(area.y + 2));
        assert_eq!(selected_name(&app), "dev-broken");
        // Below the last row: nothing.
        update(&mut app, click(area.y + 5));
        assert_eq!(selected_name(&app), "dev-broken");
        let wheel = |kind| {
            Msg::Mouse(MouseEvent {
                kind,
                column: 0,
                row: 0,
                modifiers: KeyModifiers::NONE,
            })
        };
        update(&mut app, wheel(MouseEventKind::ScrollUp));
        assert_eq!(selected_name(&app), "staging-1");
        update(&mut app, wheel(MouseEventKind::ScrollDown));
        update(&mut app, wheel(MouseEventKind::ScrollDown));
        assert_eq!(selected_name(&app), "dev-broken");
    }

    #[test]
    fn long_lists_scroll_to_keep_the_selection_visible() {
        let mut data = sample();
        let template = (*data.clusters[0]).clone();
        data.clusters = (0..100)
            .map(|i| {
                let mut c = template.clone();
                c.metadata.name = Some(format!("c-{i:03}"));
                Arc::new(c)
            })
            .collect();
        let mut app = app();
        update(
            &mut app,
            Msg::Data(Snapshot::new(data.clusters, vec![], vec![])),
        );
        let height = layout::rows_height(&app, app.view());
        assert!(height > 5);
        for _ in 0..height {
            press(&mut app, KeyCode::Down);
        }
        assert_eq!(app.view().selected, height);
        assert_eq!(app.view().offset, 1);
        press(&mut app, KeyCode::PageDown);
        assert_eq!(app.view().selected, 2 * height);
        press(&mut app, KeyCode::End);
        assert_eq!(app.view().selected, 99);
        assert_eq!(app.view().offset, 100 - height);
        // A smaller terminal keeps the selection on screen.
        update(&mut app, Msg::Resize(80, 12));
        let small = layout::rows_height(&app, app.view());
        assert_eq!(app.view().offset, 100 - small);
    }

    #[test]
    fn ages_and_flash_expiry() {
        let t = |ago| Some(time(ago));
        assert_eq!(age(now(), t(5).as_ref()), "5s");
        assert_eq!(age(now(), t(125).as_ref()), "2m");
        assert_eq!(age(now(), t(5 * 3600).as_ref()), "5h");
        assert_eq!(age(now(), t(3 * 86400).as_ref()), "3d");
        assert_eq!(age(now(), t(-10).as_ref()), "0s");
        assert_eq!(age(now(), None), "-");
        let mut app = app();
        update(&mut app, Msg::Log("watch failed".into()));
        assert!(app.flash.is_some());
        // A warning survives key presses but not time.
        press(&mut app, KeyCode::Char('j'));
        assert!(app.flash.is_some());
        update(
            &mut app,
            Msg::Tick(Timestamp::from_second(NOW + 31).unwrap()),
        );
        assert!(app.flash.is_none());
    }

    #[test]
    fn health_of_clusters_and_services() {
        let s = sample();
        let h: Vec<Health> = s.clusters.iter().map(|c| cluster_ready(c).1).collect();
        assert_eq!(h, [Health::Ready, Health::Progressing, Health::Failed]);
        let sv: Vec<(String, Health)> = s.clusters.iter().map(|c| services_ready(c)).collect();
        assert_eq!(sv[0], ("2/2".into(), Health::Ready));
        assert_eq!(sv[1], ("0/1".into(), Health::Progressing));
        assert_eq!(sv[2], ("-".into(), Health::Muted));
        assert_eq!(service_health(ServiceState::Pending), Health::Pending);
        assert_eq!(service_health(ServiceState::Removing), Health::Muted);
    }

    // -----------------------------------------------------------------------
    // Rollouts

    /// The board of the Manual rollout waiting for approval of wave 2.
    pub fn board_app() -> App {
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "ro");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        app
    }

    fn flash_text(app: &App) -> String {
        app.flash
            .as_ref()
            .map(|f| f.text.clone())
            .unwrap_or_default()
    }

    fn request(name: &str, request: Request) -> Command {
        Command::Request {
            namespace: if name == "azure-hosted-1" {
                "team-a"
            } else {
                "hmc-system"
            }
            .into(),
            name: name.into(),
            request,
        }
    }

    fn board_cursor(app: &App) -> Option<String> {
        board_cluster(app)
    }

    #[test]
    fn rollouts_list_and_board() {
        let mut app = app();
        for alias in ["rollouts", "ro", "rollout"] {
            press(&mut app, KeyCode::Char(':'));
            type_str(&mut app, alias);
            press(&mut app, KeyCode::Enter);
            assert_eq!(app.screen(), &Screen::Rollouts, "{alias}");
            assert_eq!(app.stack.len(), 2);
        }
        // The newest revision of a template first.
        let names: Vec<String> = rollout_rows(&app.data, "")
            .iter()
            .map(|r| r.name_any())
            .collect();
        assert_eq!(
            names,
            [
                "aws-standalone-cp-3",
                "aws-standalone-cp-2",
                "azure-hosted-1"
            ]
        );
        press(&mut app, KeyCode::Enter);
        let key = ObjKey {
            kind: Kind::TemplateRollout,
            namespace: "hmc-system".into(),
            name: "aws-standalone-cp-3".into(),
        };
        assert_eq!(app.screen(), &Screen::Rollout(key.clone()));
        assert_eq!(app.row_count(), 6);
        assert_eq!(board_cursor(&app).as_deref(), Some("prod-eu-1"));
        // The cursor walks the clusters, not the wave headings.
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Down);
        assert_eq!(board_cursor(&app).as_deref(), Some("prod-us-1"));
        press(&mut app, KeyCode::Char('G'));
        assert_eq!(board_cursor(&app).as_deref(), Some("prod-ap-2"));
        // y shows the rollout's YAML; esc comes back to the board.
        press(&mut app, KeyCode::Char('y'));
        assert_eq!(app.screen(), &Screen::Yaml(key.clone()));
        assert!(
            app.data
                .yaml(&key)
                .unwrap()
                .contains("kind: TemplateRollout")
        );
        press(&mut app, KeyCode::Esc);
        assert_eq!(board_cursor(&app).as_deref(), Some("prod-ap-2"));
        // The filter narrows the clusters.
        press(&mut app, KeyCode::Char('/'));
        type_str(&mut app, "fail");
        assert_eq!(app.row_count(), 1);
        assert_eq!(board_cursor(&app).as_deref(), Some("staging-1"));
    }

    #[test]
    fn approve_pause_resume_and_refusals() {
        let mut app = board_app();
        let cmds = press(&mut app, KeyCode::Char('a'));
        assert_eq!(
            cmds,
            vec![request("aws-standalone-cp-3", Request::Approve(Some(2)))]
        );
        assert_eq!(flash_text(&app), "asking: approve 2…");
        assert_eq!(
            press(&mut app, KeyCode::Char('p')),
            vec![request("aws-standalone-cp-3", Request::Pause)]
        );
        // Resume does not apply while waiting for approval: it says why.
        assert!(press(&mut app, KeyCode::Char('r')).is_empty());
        assert_eq!(
            flash_text(&app),
            "nothing to resume: the rollout is WaitingForApproval"
        );
        // Retry applies to failed clusters only.
        assert!(press(&mut app, KeyCode::Char('t')).is_empty());
        assert_eq!(flash_text(&app), "prod-eu-1 has not failed (it is Updated)");
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(
            press(&mut app, KeyCode::Char('t')),
            vec![request(
                "aws-standalone-cp-3",
                Request::Retry("staging-1".into())
            )]
        );

        // A paused rollout: nothing to approve, resume it.
        let mut app = self::app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "rollouts");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::End);
        press(&mut app, KeyCode::Enter);
        assert!(press(&mut app, KeyCode::Char('a')).is_empty());
        assert_eq!(
            flash_text(&app),
            "no wave waits for approval (the rollout is Paused)"
        );
        assert!(press(&mut app, KeyCode::Char('p')).is_empty());
        assert_eq!(flash_text(&app), "nothing to pause: the rollout is Paused");
        assert_eq!(
            press(&mut app, KeyCode::Char('r')),
            vec![request("azure-hosted-1", Request::Resume)]
        );

        // The requests are only on the board.
        let mut app = self::app();
        assert!(press(&mut app, KeyCode::Char('a')).is_empty());
        assert!(app.flash.is_none());
    }

    #[test]
    fn remapped_keys_drive_the_board_prompts_and_questions() {
        let text = "keys:\n  board:\n    approve: A\n    skip: S\n  confirm:\n    yes: enter\n  prompt:\n    run: ctrl-j\n  filter:\n    erase: ctrl-w\n";
        let file: std::collections::BTreeMap<String, crate::tui::keys::remap::Section> =
            serde_yaml::from_str(text).unwrap();
        let keys = crate::tui::keys::remap::apply(&file["keys"], text).unwrap();
        let mut app = board_app();
        app.keys = keys.clone();
        // The old key does nothing; the new one asks.
        assert!(press(&mut app, KeyCode::Char('a')).is_empty());
        assert!(app.flash.is_none());
        assert_eq!(
            update(
                &mut app,
                Msg::Key(KeyEvent::new(KeyCode::Char('A'), KeyModifiers::SHIFT))
            ),
            vec![request("aws-standalone-cp-3", Request::Approve(Some(2)))]
        );
        // A question answered by the rebound key only.
        press(&mut app, KeyCode::Down);
        assert!(
            update(
                &mut app,
                Msg::Key(KeyEvent::new(KeyCode::Char('S'), KeyModifiers::SHIFT))
            )
            .is_empty()
        );
        assert!(matches!(app.modal, Some(Modal::Confirm { .. })));
        assert!(press(&mut app, KeyCode::Char('y')).is_empty());
        assert!(
            matches!(app.modal, Some(Modal::Confirm { .. })),
            "y is not yes now"
        );
        assert_eq!(
            press(&mut app, KeyCode::Enter),
            vec![request(
                "aws-standalone-cp-3",
                Request::Skip("staging-1".into())
            )]
        );
        // The prompt runs on its new key; enter types nothing and runs nothing.
        let mut app = self::app();
        app.keys = keys;
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "rollouts");
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.input, Input::Command("rollouts".into()));
        ctrl(&mut app, 'j');
        assert_eq!(app.input, Input::None);
        assert_eq!(*app.screen(), Screen::Rollouts);
        // The filter erases on its new key, and ctrl-u is plain again.
        press(&mut app, KeyCode::Char('/'));
        type_str(&mut app, "azu");
        ctrl(&mut app, 'u');
        assert_eq!(app.view().filter, "azu");
        ctrl(&mut app, 'w');
        assert_eq!(app.view().filter, "");
    }

    #[test]
    fn skip_asks_to_confirm() {
        let mut app = board_app();
        press(&mut app, KeyCode::Down);
        assert!(press(&mut app, KeyCode::Char('s')).is_empty());
        let Some(Modal::Confirm {
            request: asked,
            question,
            ..
        }) = app.modal.clone()
        else {
            panic!("no confirmation: {:?}", app.modal);
        };
        assert_eq!(asked, Request::Skip("staging-1".into()));
        assert!(question.contains("revision 2"), "{question}");
        // The modal takes the keys: the cursor does not move.
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(board_cursor(&app).as_deref(), Some("staging-1"));
        assert!(press(&mut app, KeyCode::Char('n')).is_empty());
        assert!(app.modal.is_none());
        assert_eq!(flash_text(&app), "cancelled: nothing asked");
        press(&mut app, KeyCode::Char('s'));
        assert_eq!(
            press(&mut app, KeyCode::Char('y')),
            vec![request(
                "aws-standalone-cp-3",
                Request::Skip("staging-1".into())
            )]
        );
        assert!(app.modal.is_none());
        // An updated cluster cannot be skipped: no question, a reason.
        press(&mut app, KeyCode::Up);
        assert!(press(&mut app, KeyCode::Char('s')).is_empty());
        assert!(app.modal.is_none());
        assert_eq!(
            flash_text(&app),
            "prod-eu-1 cannot be skipped: it is Updated"
        );
    }

    #[test]
    fn abort_chooses_then_confirms() {
        let mut app = board_app();
        press(&mut app, KeyCode::Char('x'));
        let rollout = ObjKey {
            kind: Kind::TemplateRollout,
            namespace: "hmc-system".into(),
            name: "aws-standalone-cp-3".into(),
        };
        assert_eq!(
            app.modal,
            Some(Modal::StopChoice {
                rollout: rollout.clone()
            })
        );
        // esc cancels without asking.
        assert!(press(&mut app, KeyCode::Esc).is_empty());
        assert!(app.modal.is_none());
        assert_eq!(app.stack.len(), 3, "esc closed the modal, not the board");
        // s: stay (abort), then y.
        press(&mut app, KeyCode::Char('x'));
        assert!(press(&mut app, KeyCode::Char('s')).is_empty());
        assert!(matches!(
            &app.modal,
            Some(Modal::Confirm { request: Request::Abort, question, .. })
                if question.contains("1 cluster updated keep revision 3")
        ));
        assert_eq!(
            press(&mut app, KeyCode::Char('y')),
            vec![request("aws-standalone-cp-3", Request::Abort)]
        );
        // b: roll back, then y.
        press(&mut app, KeyCode::Char('x'));
        press(&mut app, KeyCode::Char('b'));
        assert!(matches!(
            &app.modal,
            Some(Modal::Confirm { request: Request::Rollback, question, .. })
                if question.contains("2 clusters go back")
        ));
        assert_eq!(
            press(&mut app, KeyCode::Char('y')),
            vec![request("aws-standalone-cp-3", Request::Rollback)]
        );

        // A succeeded rollout can be rolled back but not aborted.
        let mut app = self::app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "ro");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('x'));
        press(&mut app, KeyCode::Char('s'));
        assert_eq!(
            flash_text(&app),
            "nothing to abort: the rollout is Succeeded"
        );
        assert!(matches!(app.modal, Some(Modal::StopChoice { .. })));
        press(&mut app, KeyCode::Char('b'));
        assert!(matches!(
            app.modal,
            Some(Modal::Confirm {
                request: Request::Rollback,
                ..
            })
        ));
    }

    #[test]
    fn a_read_only_console_refuses_requests() {
        let mut app = board_app();
        app.target.readonly = true;
        for key in ['a', 'p', 'x'] {
            assert!(press(&mut app, KeyCode::Char(key)).is_empty(), "{key}");
            assert!(app.modal.is_none(), "{key}");
            assert!(
                flash_text(&app).starts_with("read-only console (--readonly): cannot"),
                "{key}: {}",
                flash_text(&app)
            );
        }
        // A question asked before the console became read-only sends nothing.
        let mut app = board_app();
        press(&mut app, KeyCode::Char('x'));
        press(&mut app, KeyCode::Char('s'));
        app.target.readonly = true;
        assert!(press(&mut app, KeyCode::Char('y')).is_empty());
        assert!(flash_text(&app).contains("read-only"));
    }

    #[test]
    fn request_results_reach_the_message_line() {
        let mut app = board_app();
        update(
            &mut app,
            Msg::Requested {
                name: "aws-standalone-cp-3".into(),
                request: Request::Approve(Some(2)),
                result: Ok(()),
            },
        );
        let flash = app.flash.clone().unwrap();
        assert_eq!(flash.level, FlashLevel::Info);
        assert_eq!(flash.text, "asked: approve 2 (aws-standalone-cp-3)");
        update(
            &mut app,
            Msg::Requested {
                name: "aws-standalone-cp-3".into(),
                request: Request::Pause,
                result: Err("not allowed to change TemplateRollout aws-standalone-cp-3".into()),
            },
        );
        let flash = app.flash.clone().unwrap();
        assert_eq!(flash.level, FlashLevel::Error);
        assert_eq!(
            flash.text,
            "could not ask pause: not allowed to change TemplateRollout aws-standalone-cp-3"
        );
        update(&mut app, Msg::Identity("alice@example.com".into()));
        assert_eq!(app.user.as_deref(), Some("alice@example.com"));
    }

    #[test]
    fn the_board_follows_the_store() {
        let mut app = board_app();
        assert_eq!(
            update(&mut app, Msg::Changed(Kind::TemplateRollout)),
            vec![Command::Refresh]
        );
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Down);
        assert_eq!(board_cursor(&app).as_deref(), Some("prod-us-1"));
        // Wave 2 is approved elsewhere and staging-1 skipped: the board
        // changes, the cursor stays on its cluster, approve says why not.
        let mut r = waiting_rollout();
        let status = r.status.as_mut().unwrap();
        status.phase = RolloutPhase::Progressing;
        status.waves[1].state = WaveState::Progressing;
        status.clusters.remove(1);
        let data = sample().with_rollouts(vec![Arc::new(r)]);
        update(&mut app, Msg::Data(data));
        assert_eq!(board_cursor(&app).as_deref(), Some("prod-us-1"));
        assert_eq!(app.view().selected, 1);
        assert!(press(&mut app, KeyCode::Char('a')).is_empty());
        assert_eq!(
            flash_text(&app),
            "no wave waits for approval (the rollout is Progressing)"
        );
        // The rollout goes away: keys say so, nothing is sent.
        update(&mut app, Msg::Data(sample().with_rollouts(vec![])));
        assert_eq!(app.row_count(), 0);
        assert!(press(&mut app, KeyCode::Char('p')).is_empty());
        assert_eq!(flash_text(&app), "aws-standalone-cp-3 no longer exists");
    }

    #[test]
    fn a_long_board_scrolls_by_lines_and_clicks_select_clusters() {
        let mut r = waiting_rollout();
        let status = r.status.as_mut().unwrap();
        status.waves = (1..=10)
            .map(|n| WaveStatus {
                number: n,
                ..Default::default()
            })
            .collect();
        status.clusters = (0..60)
            .map(|i| {
                rollout_cluster(
                    &format!("c-{i:02}"),
                    i / 6 + 1,
                    ClusterRolloutState::Waiting,
                    60,
                    None,
                )
            })
            .collect();
        let mut app = board_app();
        update(
            &mut app,
            Msg::Data(sample().with_rollouts(vec![Arc::new(r)])),
        );
        let height = layout::rows_height(&app, app.view());
        assert!(height >= 5, "{height}");
        assert_eq!(app.view().offset, 0);
        // 7 lines per wave: the heading and six clusters.
        for _ in 0..height {
            press(&mut app, KeyCode::Down);
        }
        let line = |i: usize| i / 6 * 7 + i % 6 + 1;
        let selected = app.view().selected;
        assert_eq!(selected, height);
        assert_eq!(app.view().offset, line(selected) + 1 - height);
        press(&mut app, KeyCode::End);
        assert_eq!(board_cursor(&app).as_deref(), Some("c-59"));
        assert_eq!(app.view().offset, 70 - height);
        // Back to the top: the first wave's heading shows too.
        press(&mut app, KeyCode::Home);
        assert_eq!(app.view().offset, 0);
        // Walking up, a wave's first cluster always shows with its heading.
        press(&mut app, KeyCode::End);
        for _ in 0..59 {
            press(&mut app, KeyCode::Up);
            let at = app.view().selected;
            let offset = app.view().offset;
            assert!(line(at) >= offset && line(at) < offset + height, "{at}");
            if at.is_multiple_of(6) {
                assert!(offset < line(at), "the heading of {at} shows");
            }
        }
        assert_eq!(board_cursor(&app).as_deref(), Some("c-00"));
        assert_eq!(app.view().offset, 0);

        // A click on a cluster selects it; a click on a heading does nothing.
        press(&mut app, KeyCode::Home);
        let area = layout::rows_area(&app, app.view()).unwrap();
        let click = |row| {
            Msg::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column: area.x + 5,
                row,
                modifiers: KeyModifiers::NONE,
            })
        };
        update(&mut app, click(area.y + 3));
        assert_eq!(board_cursor(&app).as_deref(), Some("c-02"));
        update(&mut app, click(area.y + 7));
        assert_eq!(board_cursor(&app).as_deref(), Some("c-02"));
        update(&mut app, click(area.y + 8));
        assert_eq!(board_cursor(&app).as_deref(), Some("c-06"));
        // While a question is open, clicks do nothing.
        press(&mut app, KeyCode::Char('x'));
        update(&mut app, click(area.y + 1));
        assert_eq!(board_cursor(&app).as_deref(), Some("c-06"));
    }

    // -----------------------------------------------------------------------
    // The values editor

    /// The sample data with resourceVersions, as the API server gives them.
    pub fn versioned() -> Snapshot {
        let mut data = sample();
        for (i, mc) in data.clusters.iter_mut().enumerate() {
            Arc::make_mut(mc).metadata.resource_version = Some(format!("{}", 100 + i));
        }
        for (i, ct) in data.cluster_templates.iter_mut().enumerate() {
            Arc::make_mut(ct).metadata.resource_version = Some(format!("{}", 200 + i));
        }
        data
    }

    /// The versioned sample with values at every layer: chart defaults and
    /// values on the ServiceTemplates, values on the ClusterTemplate's
    /// ingress-nginx at revision 2 (3 replicas at revision 1), prod-eu-1
    /// given revision 2 with its own service type, staging-1 still given
    /// revision 1.
    pub fn valued() -> Snapshot {
        use crate::api::ServicesRevision;
        let mut data = versioned();
        for st in data.service_templates.iter_mut() {
            let st = Arc::make_mut(st);
            let status = st.status.as_mut().unwrap();
            if st.metadata.name.as_deref() == Some("ingress-nginx-4-11-3") {
                status.config = Some(serde_json::json!({"controller": {
                    "replicaCount": 1,
                    "kind": "Deployment",
                    "service": {"type": "LoadBalancer"},
                    "metrics": {"enabled": false},
                }}));
                st.spec.values = Some("controller:\n  metrics:\n    enabled: true\n".into());
            } else {
                status.config = Some(serde_json::json!({
                    "crds": {"enabled": false},
                    "replicaCount": 1,
                }));
                st.spec.values = Some("crds:\n  enabled: true\n".into());
            }
        }
        let ct = Arc::make_mut(&mut data.cluster_templates[0]);
        assert_eq!(ct.metadata.name.as_deref(), Some("aws-standalone-cp"));
        let mut old = ct.spec.services.clone();
        old[0].values = Some("controller:\n  replicaCount: 3\n".into());
        ct.spec.services[0].values = Some("controller:\n  replicaCount: 2\n".into());
        ct.status.as_mut().unwrap().revisions = vec![
            ServicesRevision {
                revision: 1,
                services: old,
            },
            ServicesRevision {
                revision: 2,
                services: ct.spec.services.clone(),
            },
        ];
        for (mc, revision) in data.clusters.iter_mut().zip([2, 1]) {
            let mc = Arc::make_mut(mc);
            let status = mc.status.as_mut().unwrap();
            status.target_revision = Some(revision);
            status.revision = Some(revision);
            for service in &mut status.services {
                service.revision = Some(revision);
            }
            if revision == 2 {
                mc.spec.services = vec![ManagedService {
                    name: "ingress-nginx".into(),
                    values: Some("controller:\n  service:\n    type: ClusterIP\n".into()),
                    ..Default::default()
                }];
            }
        }
        data
    }

    /// The detail of prod-eu-1, with versioned data.
    pub fn detail_app() -> App {
        let mut app = app();
        update(&mut app, Msg::Data(versioned()));
        press(&mut app, KeyCode::Enter);
        app
    }

    pub fn ctrl(app: &mut App, c: char) -> Vec<Command> {
        update(
            app,
            Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
        )
    }

    /// Types text into the editor, `\n` as enter.
    pub fn type_text(app: &mut App, text: &str) {
        for c in text.chars() {
            if c == '\n' {
                press(app, KeyCode::Enter);
            } else {
                press(app, KeyCode::Char(c));
            }
        }
    }

    fn editor(app: &App) -> &Editor {
        app.editor.as_ref().expect("the editor is open")
    }

    fn edit_key(kind: Kind, ns: &str, name: &str, service: &str) -> EditKey {
        EditKey {
            object: ObjKey {
                kind,
                namespace: ns.into(),
                name: name.into(),
            },
            service: service.into(),
        }
    }

    #[test]
    fn edit_check_refuse_review_apply() {
        let mut app = detail_app();
        assert!(press(&mut app, KeyCode::Char('e')).is_empty());
        let key = edit_key(
            Kind::ManagedCluster,
            "hmc-system",
            "prod-eu-1",
            "ingress-nginx",
        );
        assert_eq!(app.screen(), &Screen::Edit(key.clone()));
        assert_eq!(editor(&app).text(), "");
        assert!(!editor(&app).dirty());
        // Every key goes to the text: q does not quit, j does not move.
        type_text(&mut app, "controller:\n  replicaCount: [3");
        assert!(!app.quit);
        assert_eq!(editor(&app).text(), "controller:\n  replicaCount: [3\n");
        // Invalid YAML: the error has a place, and save is refused.
        assert!(matches!(
            editor(&app).check,
            Err(crate::plan::values::ValuesError::Syntax { .. })
        ));
        assert!(editor(&app).error_at().is_some());
        assert!(ctrl(&mut app, 's').is_empty());
        assert_eq!(editor(&app).stage, Stage::Editing);
        assert!(
            flash_text(&app).starts_with("not saved: the values are not valid YAML (line "),
            "{}",
            flash_text(&app)
        );
        // Fixed: the review shows the merged values before → after.
        press(&mut app, KeyCode::Home);
        press(&mut app, KeyCode::End);
        for _ in 0..2 {
            press(&mut app, KeyCode::Backspace);
        }
        type_text(&mut app, "3");
        assert_eq!(editor(&app).check, Ok(()));
        assert!(ctrl(&mut app, 's').is_empty());
        let Stage::Review(review) = editor(&app).stage.clone() else {
            panic!("no review: {:?}", editor(&app).stage);
        };
        assert_eq!(review.changes, ["+ controller.replicaCount: 3"]);
        assert_eq!(
            review.notes,
            ["adds an entry for ingress-nginx to the cluster's spec.services"]
        );
        // n keeps editing; y sends the patch with the resourceVersion.
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(editor(&app).stage, Stage::Editing);
        ctrl(&mut app, 's');
        let cmds = press(&mut app, KeyCode::Char('y'));
        assert_eq!(
            cmds,
            vec![Command::ApplyValues {
                key: key.clone(),
                patch: serde_json::json!({
                    "metadata": {"resourceVersion": "100"},
                    "spec": {"services": [{
                        "name": "ingress-nginx",
                        "values": "controller:\n  replicaCount: 3\n",
                        "disable": false,
                    }]},
                }),
            }]
        );
        assert_eq!(editor(&app).stage, Stage::Saving);
        // Keys wait while saving.
        assert!(press(&mut app, KeyCode::Esc).is_empty());
        assert_eq!(app.screen(), &Screen::Edit(key.clone()));
        update(
            &mut app,
            Msg::ValuesApplied {
                key,
                result: Ok(()),
            },
        );
        assert!(app.editor.is_none());
        assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
        assert_eq!(
            flash_text(&app),
            "saved the values of ingress-nginx on ManagedCluster prod-eu-1"
        );
    }

    #[test]
    fn a_conflict_reloads_and_keeps_the_typed_text() {
        let mut app = detail_app();
        press(&mut app, KeyCode::Char('e'));
        type_text(&mut app, "controller:\n  replicaCount: 3");
        ctrl(&mut app, 's');
        let key = editor(&app).key.clone();
        assert_eq!(press(&mut app, KeyCode::Char('y')).len(), 1);
        // Someone else set the values meanwhile: the API server says 409
        // and the writer read the object again.
        let mut newer = (*app.data.clusters[0]).clone();
        newer.metadata.resource_version = Some("107".into());
        newer.spec.services = vec![crate::api::ManagedService {
            name: "ingress-nginx".into(),
            values: Some("controller:\n  replicaCount: 5\n".into()),
            ..Default::default()
        }];
        update(
            &mut app,
            Msg::ValuesApplied {
                key: key.clone(),
                result: Err(SaveError::Conflict {
                    current: Some(Base::Cluster(Arc::new(newer))),
                }),
            },
        );
        assert!(matches!(editor(&app).stage, Stage::Conflict { .. }));
        assert_eq!(
            flash_text(&app),
            "not saved: prod-eu-1 changed by someone else since you opened it"
        );
        // esc goes back to the text; saving again is refused again by the
        // API server, never overwritten.
        press(&mut app, KeyCode::Esc);
        assert_eq!(editor(&app).stage, Stage::Editing);
        assert_eq!(editor(&app).text(), "controller:\n  replicaCount: 3\n");
        ctrl(&mut app, 's');
        let cmds = press(&mut app, KeyCode::Char('y'));
        let [Command::ApplyValues { patch, .. }] = cmds.as_slice() else {
            panic!("{cmds:?}");
        };
        assert_eq!(patch["metadata"]["resourceVersion"], "100");
        let mut newer = (*app.data.clusters[0]).clone();
        newer.metadata.resource_version = Some("107".into());
        newer.spec.services = vec![crate::api::ManagedService {
            name: "ingress-nginx".into(),
            values: Some("controller:\n  replicaCount: 5\n".into()),
            ..Default::default()
        }];
        update(
            &mut app,
            Msg::ValuesApplied {
                key: key.clone(),
                result: Err(SaveError::Conflict {
                    current: Some(Base::Cluster(Arc::new(newer))),
                }),
            },
        );
        // r: the current values, the typed text in the note.
        press(&mut app, KeyCode::Char('r'));
        let e = editor(&app);
        assert_eq!(e.stage, Stage::Editing);
        assert_eq!(e.text(), "controller:\n  replicaCount: 5\n");
        assert_eq!(e.note.as_deref(), Some("controller:\n  replicaCount: 3\n"));
        assert_eq!(e.base.resource_version(), Some("107"));
        assert!(!e.dirty());
        assert!(ctrl(&mut app, 's').is_empty());
        assert_eq!(
            flash_text(&app),
            "nothing to save: the values are as you opened them"
        );
        // ctrl-o puts the typed text back; the review is against the newer
        // version and the patch carries its resourceVersion.
        ctrl(&mut app, 'o');
        assert!(editor(&app).note.is_none());
        ctrl(&mut app, 's');
        let Stage::Review(review) = editor(&app).stage.clone() else {
            panic!("no review");
        };
        assert_eq!(review.changes, ["controller.replicaCount: 5 → 3"]);
        assert!(review.notes.is_empty(), "{:?}", review.notes);
        let cmds = press(&mut app, KeyCode::Char('y'));
        let [Command::ApplyValues { patch, .. }] = cmds.as_slice() else {
            panic!("{cmds:?}");
        };
        assert_eq!(patch["metadata"]["resourceVersion"], "107");
        assert_eq!(
            patch["spec"]["services"][0]["values"],
            "controller:\n  replicaCount: 3\n"
        );
    }

    #[test]
    fn a_conflict_without_the_newer_object_waits_for_the_store() {
        let mut app = detail_app();
        press(&mut app, KeyCode::Char('e'));
        type_text(&mut app, "a: 1");
        ctrl(&mut app, 's');
        press(&mut app, KeyCode::Char('y'));
        let key = editor(&app).key.clone();
        update(
            &mut app,
            Msg::ValuesApplied {
                key,
                result: Err(SaveError::Conflict { current: None }),
            },
        );
        press(&mut app, KeyCode::Char('r'));
        assert!(matches!(editor(&app).stage, Stage::Conflict { .. }));
        assert!(
            flash_text(&app).contains("press r again"),
            "{}",
            flash_text(&app)
        );
        // The watch brings the newer version: r reloads it.
        let mut data = versioned();
        let mc = Arc::make_mut(&mut data.clusters[0]);
        mc.metadata.resource_version = Some("150".into());
        mc.spec.services = vec![crate::api::ManagedService {
            name: "ingress-nginx".into(),
            values: Some("b: 2\n".into()),
            ..Default::default()
        }];
        update(&mut app, Msg::Data(data));
        press(&mut app, KeyCode::Char('r'));
        assert_eq!(editor(&app).stage, Stage::Editing);
        assert_eq!(editor(&app).text(), "b: 2\n");
        assert_eq!(editor(&app).note.as_deref(), Some("a: 1\n"));
    }

    #[test]
    fn the_editor_sees_when_the_object_changes_under_it() {
        let mut app = detail_app();
        press(&mut app, KeyCode::Char('e'));
        assert!(!editor(&app).changed_since_opened(&app.data));
        let bump = |app: &mut App, rv: &str| {
            let mut data = versioned();
            Arc::make_mut(&mut data.clusters[0])
                .metadata
                .resource_version = Some(rv.into());
            update(app, Msg::Data(data));
        };
        bump(&mut app, "300");
        assert!(editor(&app).changed_since_opened(&app.data));
        // After a reload from the API server the stores lag behind: their
        // older version is not a change; a newer one is.
        type_text(&mut app, "a: 1");
        ctrl(&mut app, 's');
        press(&mut app, KeyCode::Char('y'));
        let key = editor(&app).key.clone();
        let mut newer = (*app.data.clusters[0]).clone();
        newer.metadata.resource_version = Some("301".into());
        update(
            &mut app,
            Msg::ValuesApplied {
                key,
                result: Err(SaveError::Conflict {
                    current: Some(Base::Cluster(Arc::new(newer))),
                }),
            },
        );
        press(&mut app, KeyCode::Char('r'));
        assert!(!editor(&app).changed_since_opened(&app.data));
        bump(&mut app, "301");
        assert!(!editor(&app).changed_since_opened(&app.data));
        bump(&mut app, "302");
        assert!(editor(&app).changed_since_opened(&app.data));
    }

    #[test]
    fn esc_and_ctrl_c_ask_before_losing_changes() {
        let mut app = detail_app();
        // Unchanged: esc closes at once.
        press(&mut app, KeyCode::Char('e'));
        press(&mut app, KeyCode::Esc);
        assert!(app.editor.is_none());
        assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
        // Changed: esc asks; n keeps editing; y discards.
        press(&mut app, KeyCode::Char('e'));
        type_text(&mut app, "x: 1");
        press(&mut app, KeyCode::Esc);
        assert_eq!(editor(&app).stage, Stage::Discard { quit: false });
        press(&mut app, KeyCode::Char('n'));
        assert_eq!(editor(&app).stage, Stage::Editing);
        assert_eq!(editor(&app).text(), "x: 1\n");
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('y'));
        assert!(app.editor.is_none());
        assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
        // ctrl-c asks too, then quits.
        press(&mut app, KeyCode::Char('e'));
        type_text(&mut app, "x: 1");
        assert!(ctrl(&mut app, 'c').is_empty());
        assert_eq!(editor(&app).stage, Stage::Discard { quit: true });
        assert_eq!(press(&mut app, KeyCode::Char('y')), vec![Command::Quit]);
    }

    #[test]
    fn a_read_only_console_does_not_open_the_editor() {
        let mut app = detail_app();
        app.target.readonly = true;
        assert!(press(&mut app, KeyCode::Char('e')).is_empty());
        assert!(app.editor.is_none());
        assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
        assert_eq!(
            flash_text(&app),
            "read-only console (--readonly): cannot edit values"
        );
        // A review answered after the console became read-only sends nothing.
        let mut app = detail_app();
        press(&mut app, KeyCode::Char('e'));
        type_text(&mut app, "a: 1");
        ctrl(&mut app, 's');
        app.target.readonly = true;
        assert!(press(&mut app, KeyCode::Char('y')).is_empty());
        assert_eq!(editor(&app).stage, Stage::Editing);
        assert!(flash_text(&app).contains("read-only"));
    }

    #[test]
    fn enter_on_a_service_shows_all_its_values() {
        let mut app = app();
        update(&mut app, Msg::Data(valued()));
        // prod-eu-1, then its second service.
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('j'));
        press(&mut app, KeyCode::Enter);
        let cluster = ObjKey {
            kind: Kind::ManagedCluster,
            namespace: "hmc-system".into(),
            name: "prod-eu-1".into(),
        };
        assert_eq!(
            app.screen(),
            &Screen::Values(ValuesKey {
                object: cluster.clone(),
                service: Some("cert-manager".into()),
            })
        );
        let crumbs: Vec<String> = app.stack.iter().map(|v| v.screen.crumb()).collect();
        assert_eq!(
            crumbs,
            ["clusters", "hmc-system/prod-eu-1", "merged: cert-manager"]
        );
        // crds.enabled, replicaCount: one line per key and the map's own.
        assert_eq!(app.row_count(), 3);
        // A text: no filter, no selection; it scrolls only when it is longer
        // than the screen.
        press(&mut app, KeyCode::Char('/'));
        assert_eq!(app.input, Input::None);
        press(&mut app, KeyCode::Char('j'));
        assert_eq!(app.view().offset, 0);
        // esc comes back to the same service.
        press(&mut app, KeyCode::Esc);
        assert_eq!(app.screen(), &Screen::ClusterDetail(cluster.clone()));
        assert_eq!(app.view().selected, 1);

        // A long text scrolls, and stays in range when it gets shorter.
        let mut data = valued();
        let st = Arc::make_mut(&mut data.service_templates[0]);
        let many: serde_json::Map<String, serde_json::Value> = (0..100)
            .map(|i| (format!("key{i:03}"), serde_json::json!(i)))
            .collect();
        st.status.as_mut().unwrap().config = Some(serde_json::Value::Object(many));
        update(&mut app, Msg::Data(data));
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.row_count(), 102);
        press(&mut app, KeyCode::Char('G'));
        let height = layout::rows_height(&app, app.view());
        assert_eq!(app.view().offset, 102 - height);
        update(&mut app, Msg::Data(valued()));
        assert_eq!(app.view().offset, 0);

        // enter on a cluster without services says so.
        let mut app = self::app();
        press(&mut app, KeyCode::Char('G'));
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        assert!(matches!(app.screen(), Screen::ClusterDetail(k) if k.name == "dev-broken"));
        assert_eq!(flash_text(&app), "no service selected");

        // On a ClusterTemplate: the selected service's defaults.
        let mut app = self::app();
        update(&mut app, Msg::Data(valued()));
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Enter);
        let Screen::Values(key) = app.screen().clone() else {
            panic!("not on the values screen: {:?}", app.screen());
        };
        assert_eq!(
            (key.object.kind, key.service.as_deref()),
            (Kind::ClusterTemplate, Some("ingress-nginx"))
        );
        assert_eq!(app.screen().crumb(), "defaults: ingress-nginx");
    }

    #[test]
    fn the_template_detail_edits_the_template_entry() {
        let mut app = app();
        update(&mut app, Msg::Data(versioned()));
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        // enter on a ClusterTemplate: its services.
        press(&mut app, KeyCode::Enter);
        let ct = ObjKey {
            kind: Kind::ClusterTemplate,
            namespace: "hmc-system".into(),
            name: "aws-standalone-cp".into(),
        };
        assert_eq!(app.screen(), &Screen::TemplateDetail(ct.clone()));
        assert_eq!(app.row_count(), 2);
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Char('e'));
        let key = edit_key(
            Kind::ClusterTemplate,
            "hmc-system",
            "aws-standalone-cp",
            "cert-manager",
        );
        assert_eq!(app.screen(), &Screen::Edit(key.clone()));
        type_text(&mut app, "crds:\n  enabled: true");
        ctrl(&mut app, 's');
        let Stage::Review(review) = editor(&app).stage.clone() else {
            panic!("no review");
        };
        assert_eq!(review.changes, ["+ crds.enabled: true"]);
        assert_eq!(
            review.notes,
            [
                "a new revision of aws-standalone-cp: its rollout takes it to the 2 clusters that use it"
            ]
        );
        let cmds = press(&mut app, KeyCode::Char('y'));
        let [Command::ApplyValues { key: sent, patch }] = cmds.as_slice() else {
            panic!("{cmds:?}");
        };
        assert_eq!(sent, &key);
        assert_eq!(patch["metadata"]["resourceVersion"], "200");
        assert_eq!(
            patch["spec"]["services"][1],
            serde_json::json!({"name": "cert-manager", "template": "cert-manager-1-16-2", "values": "crds:\n  enabled: true\n"})
        );
        assert_eq!(
            patch["spec"]["services"][0],
            serde_json::json!({"name": "ingress-nginx", "template": "ingress-nginx-4-11-3"})
        );
        // A failure other than a conflict: the text stays, the reason shows.
        update(
            &mut app,
            Msg::ValuesApplied {
                key,
                result: Err(SaveError::Failed(
                    "not allowed to change ClusterTemplate".into(),
                )),
            },
        );
        assert_eq!(editor(&app).stage, Stage::Editing);
        assert_eq!(editor(&app).text(), "crds:\n  enabled: true\n");
        assert!(flash_text(&app).starts_with("could not save the values of cert-manager"));
        // enter on a ServiceTemplate shows its default values; y its YAML.
        let mut app = self::app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "tmpl");
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::End);
        press(&mut app, KeyCode::Enter);
        assert!(matches!(
            app.screen(),
            Screen::Values(ValuesKey { object, service: None }) if object.kind == Kind::ServiceTemplate
        ));
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('y'));
        assert!(matches!(app.screen(), Screen::Yaml(k) if k.kind == Kind::ServiceTemplate));
    }

    #[test]
    fn the_review_uses_the_merged_values() {
        // The ServiceTemplate and the ClusterTemplate set values below the
        // cluster's entry; chart defaults are at the bottom.
        let mut data = versioned();
        let st = Arc::make_mut(&mut data.service_templates[1]);
        assert_eq!(st.metadata.name.as_deref(), Some("ingress-nginx-4-11-3"));
        st.spec.values = Some("controller:\n  replicaCount: 2\n".into());
        st.status.as_mut().unwrap().config =
            Some(serde_json::json!({"controller": {"replicaCount": 1, "kind": "Deployment"}}));
        let ct = Arc::make_mut(&mut data.cluster_templates[0]);
        ct.spec.services[0].values = Some("controller:\n  kind: DaemonSet\n".into());
        let mut app = app();
        update(&mut app, Msg::Data(data));
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('e'));
        type_text(&mut app, "controller:\n  replicaCount: 4\n  kind: null");
        ctrl(&mut app, 's');
        let Stage::Review(review) = editor(&app).stage.clone() else {
            panic!("no review: {:?}", editor(&app).check);
        };
        assert_eq!(
            review.changes,
            [
                "- controller.kind: DaemonSet",
                "controller.replicaCount: 2 → 4"
            ]
        );
    }

    // -----------------------------------------------------------------------
    // Events

    fn event_names(app: &App) -> Vec<String> {
        let Screen::Events(regarding) = app.screen() else {
            panic!("not on the events screen: {:?}", app.screen());
        };
        event_rows(&app.data, regarding.as_ref(), &app.view().filter)
            .iter()
            .map(|e| e.metadata.name.clone().unwrap_or_default())
            .collect()
    }

    #[test]
    fn the_events_screen_lists_the_engine_s_events_newest_first() {
        for alias in ["events", "ev", "event"] {
            let mut app = app();
            press(&mut app, KeyCode::Char(':'));
            type_str(&mut app, alias);
            press(&mut app, KeyCode::Enter);
            assert_eq!(app.screen(), &Screen::Events(None), "{alias}");
        }
        let mut app = app();
        press(&mut app, KeyCode::Char(':'));
        type_str(&mut app, "ev");
        press(&mut app, KeyCode::Enter);
        // Last seen first: a series counts from its last observation; the
        // kubelet's Event is not the engine's.
        assert_eq!(
            event_names(&app),
            [
                "dev-broken.1",
                "aws-standalone-cp-3.1",
                "staging-1.1",
                "aws-standalone-cp-3.2",
                "prod-eu-1.1"
            ]
        );
        // / filters by type, reason, object or message.
        press(&mut app, KeyCode::Char('/'));
        type_str(&mut app, "warning");
        assert_eq!(event_names(&app), ["dev-broken.1", "aws-standalone-cp-3.1"]);
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('/'));
        type_str(&mut app, "rollout/aws");
        press(&mut app, KeyCode::Enter);
        assert_eq!(
            event_names(&app),
            ["aws-standalone-cp-3.1", "aws-standalone-cp-3.2"]
        );
        // enter opens the object the event is about; y its YAML.
        press(&mut app, KeyCode::Enter);
        assert_eq!(
            app.screen(),
            &Screen::Rollout(ObjKey {
                kind: Kind::TemplateRollout,
                namespace: "hmc-system".into(),
                name: "aws-standalone-cp-3".into(),
            })
        );
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Char('y'));
        let Screen::Yaml(key) = app.screen().clone() else {
            panic!("{:?}", app.screen());
        };
        assert_eq!(key.kind, Kind::Event);
        assert!(
            app.data
                .yaml(&key)
                .unwrap()
                .contains("reason: RequestRefused")
        );
    }

    #[test]
    fn the_cluster_detail_opens_its_events() {
        let mut app = app();
        press(&mut app, KeyCode::Down);
        press(&mut app, KeyCode::Enter);
        press(&mut app, KeyCode::Char('v'));
        let staging = ObjKey {
            kind: Kind::ManagedCluster,
            namespace: "hmc-system".into(),
            name: "staging-1".into(),
        };
        assert_eq!(app.screen(), &Screen::Events(Some(staging.clone())));
        assert_eq!(event_names(&app), ["staging-1.1"]);
        assert_eq!(app.screen().crumb(), "events: staging-1");
        // enter goes to the cluster again; esc twice back to the detail.
        press(&mut app, KeyCode::Enter);
        assert_eq!(app.screen(), &Screen::ClusterDetail(staging));
        press(&mut app, KeyCode::Esc);
        press(&mut app, KeyCode::Esc);
        assert!(matches!(app.screen(), Screen::ClusterDetail(_)));
        // New events arrive through the store like any other kind.
        assert_eq!(
            update(&mut app, Msg::Changed(Kind::Event)),
            vec![Command::Refresh]
        );
    }

    // -----------------------------------------------------------------------
    // Watch failures

    pub fn failing(failure: crate::store::WatchFailure) -> crate::store::WatchHealth {
        crate::store::WatchHealth::Failing {
            failure,
            attempts: 1,
        }
    }

    #[test]
    fn failing_watches_show_a_banner_until_they_recover() {
        use crate::store::{WatchFailure, WatchHealth};
        let mut app = app();
        assert_eq!(app.banner(), None);
        let height = layout::rows_height(&app, app.view());
        update(
            &mut app,
            Msg::Watch {
                resource: "managedclusters".into(),
                health: failing(WatchFailure::Unreachable("connection refused".into())),
            },
        );
        assert_eq!(
            app.banner().as_deref(),
            Some("cannot reach https://127.0.0.1:6443: connection refused — retrying")
        );
        // The banner takes a line from the lists.
        assert_eq!(layout::rows_height(&app, app.view()), height - 1);
        // Warnings from the log do not repeat it; the console keeps going.
        press(&mut app, KeyCode::Down);
        assert_eq!(selected_key(&app).unwrap().name, "staging-1");
        update(
            &mut app,
            Msg::Watch {
                resource: "managedclusters".into(),
                health: WatchHealth::Ok,
            },
        );
        assert_eq!(app.banner(), None);
        assert_eq!(layout::rows_height(&app, app.view()), height);

        // Forbidden: the kinds and the namespace, until they list.
        app.target.namespace = Some("team-a".into());
        update(
            &mut app,
            Msg::Watch {
                resource: "managedclusters".into(),
                health: failing(WatchFailure::Forbidden),
            },
        );
        assert_eq!(
            app.banner().as_deref(),
            Some("not allowed to list managedclusters in namespace team-a (RBAC) — retrying")
        );
        // A problem no failure confirms goes after a while.
        let later = |s: i64| Msg::Tick(Timestamp::from_second(NOW + s).unwrap());
        update(&mut app, later(banner::QUIET - 1));
        assert!(app.banner().is_some());
        update(&mut app, later(banner::QUIET + 1));
        assert_eq!(app.banner(), None);
    }
}
