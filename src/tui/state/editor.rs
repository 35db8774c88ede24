//! The values editor: one service's `values` on a ManagedCluster or a
//! ClusterTemplate, as a state machine without I/O.
//!
//! The text is checked with [`parse_values`] on every change; save
//! (`ctrl-s`) is refused while it is not valid, so invalid YAML never
//! leaves the console. A valid save first shows what changes in the
//! service's *merged* values (chart defaults < ServiceTemplate <
//! ClusterTemplate entry < ManagedCluster entry, as [`plan_services`]
//! computes them) and asks y/n; yes gives the patch to send
//! ([`Step::Apply`]), built by [`crate::tui::model::patch`] from the object as it
//! was when the editor opened, with its resourceVersion. A 409 answer comes
//! back as [`Stage::Conflict`]: `r` reopens the editor on the current text
//! and keeps the text typed so far in a note.
//!
//! Once the service's chart is known ([`Editor::set_chart`]), the text is
//! also checked against the chart's values and schema
//! ([`chart_check`]): unknown keys are warnings, shown and listed in the
//! review; values of the wrong type are errors that refuse the save, like
//! invalid YAML. Until then, or when the chart cannot be had, only the
//! syntax is checked, and the editor says so.
//!
//! [`tui_textarea`] does the editing (cursor, undo, words, paste); the view
//! draws the lines itself so that the error position can be marked and the
//! scroll position is part of the state.

use crossterm::event::KeyEvent;
use kube::ResourceExt;
use serde_json::Value;
use tui_textarea::{CursorMove, TextArea};

use crate::api::{ClusterTemplate, ManagedCluster, ManagedClusterSpec};
use crate::plan::chart_check::{self, Finding, Level};
use crate::plan::services::{ServicePlan, plan_services};
use crate::plan::template::{self, Template};
use crate::plan::values::{ValuesError, diff, parse_values};
use crate::plan::values_data::ValuesData;
use crate::tui::keys::{Action, Keymap, Mode, ScreenKind};
use crate::tui::model::chart::{ChartStatus, chart_source};
use crate::tui::model::key::{Kind, Obj, ObjKey};
use crate::tui::model::patch;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::values::{self, services_given};
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::fleet_review::{FleetReview, Proposed};

pub use crate::tui::model::values::EditKey;

/// The object as the editor opened it: the patch is built from it and
/// carries its resourceVersion.
#[derive(Clone, Debug)]
pub enum Base {
    Cluster(Obj<ManagedCluster>),
    Template(Obj<ClusterTemplate>),
}

/// The same object at the same version.
impl PartialEq for Base {
    fn eq(&self, other: &Base) -> bool {
        self.key() == other.key() && self.resource_version() == other.resource_version()
    }
}

impl Base {
    pub fn key(&self) -> ObjKey {
        match self {
            Base::Cluster(mc) => ObjKey::of(Kind::ManagedCluster, mc),
            Base::Template(ct) => ObjKey::of(Kind::ClusterTemplate, ct),
        }
    }

    pub fn resource_version(&self) -> Option<&str> {
        match self {
            Base::Cluster(mc) => mc.metadata.resource_version.as_deref(),
            Base::Template(ct) => ct.metadata.resource_version.as_deref(),
        }
    }

    /// Whether the object has an entry for `service` in `spec.services`.
    pub fn has_entry(&self, service: &str) -> bool {
        match self {
            Base::Cluster(mc) => mc.spec.services.iter().any(|s| s.name == service),
            Base::Template(ct) => ct.spec.services.iter().any(|s| s.name == service),
        }
    }

    /// The values text of `service`'s entry; empty without one.
    pub fn values(&self, service: &str) -> String {
        let values = match self {
            Base::Cluster(mc) => mc
                .spec
                .services
                .iter()
                .find(|s| s.name == service)
                .and_then(|s| s.values.clone()),
            Base::Template(ct) => ct
                .spec
                .services
                .iter()
                .find(|s| s.name == service)
                .and_then(|s| s.values.clone()),
        };
        values.unwrap_or_default()
    }

    /// The same object as it is in the stores now.
    pub fn current(&self, data: &Snapshot) -> Option<Base> {
        let key = self.key();
        match self {
            Base::Cluster(_) => data
                .cluster(&key.context, &key.namespace, &key.name)
                .map(|c| Base::Cluster(c.clone())),
            Base::Template(_) => data
                .cluster_template(&key.context, &key.namespace, &key.name)
                .map(|t| Base::Template(t.clone())),
        }
    }
}

/// What the save would change, shown before it is sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Review {
    /// `path: old → new` of the service's merged values.
    pub changes: Vec<String>,
    /// What else to know, in plain words.
    pub notes: Vec<String>,
    /// What the save does to the clusters it reaches, if it reaches any.
    pub fleet: Option<FleetReview>,
}

/// Where the editor is.
#[derive(Clone, Debug, PartialEq)]
pub enum Stage {
    Editing,
    /// esc (`quit: false`) or ctrl-c with unsaved changes: y discards them.
    Discard {
        quit: bool,
    },
    /// ctrl-s on valid YAML: y applies.
    Review(Review),
    /// The patch is on its way.
    Saving,
    /// The API server refused the patch: the object changed since the
    /// editor opened. `current` is the object as the API server has it now,
    /// when it could be read.
    Conflict {
        current: Option<Base>,
    },
}

/// Why a save did not go through.
#[derive(Clone, Debug, PartialEq)]
pub enum SaveError {
    /// 409: the object changed since the editor opened; `current` is the
    /// object as the API server has it now, when it could be read.
    Conflict { current: Option<Base> },
    /// Anything else, in plain words.
    Failed(String),
}

/// What the app does after a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Nothing,
    /// Put this on the status line.
    Say(FlashLevel, String),
    /// Close the editor.
    Close,
    /// Close the editor and the console.
    Quit,
    /// Send this merge patch.
    Apply(Value),
}

/// The editor's whole state.
#[derive(Clone, Debug)]
pub struct Editor {
    pub key: EditKey,
    pub base: Base,
    pub area: TextArea<'static>,
    /// The text when opened (or reloaded), as [`Editor::text`] gives it.
    original: String,
    /// The text checked with [`parse_values`].
    pub check: Result<(), ValuesError>,
    /// The service's chart, as far as the console has it.
    pub chart: ChartStatus,
    /// The valid text checked against the chart, in text order.
    pub findings: Vec<Finding>,
    pub stage: Stage,
    /// The text typed before a reload, kept to look at or put back.
    pub note: Option<String>,
    /// The first line and column shown.
    pub top: usize,
    pub left: usize,
    /// After a reload from the API server: the resourceVersion the stores
    /// had then, which is older than the base's until the watch catches up.
    behind: Option<String>,
}

/// The text of some lines as it is saved: lines joined, one final newline,
/// blank text empty.
fn join(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    if text.trim().is_empty() {
        return String::new();
    }
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

fn textarea(text: &str) -> TextArea<'static> {
    let mut area = TextArea::new(text.lines().map(String::from).collect());
    // YAML indents with spaces.
    area.set_tab_length(2);
    area.set_hard_tab_indent(false);
    area
}

/// The text checked: its syntax, then against the chart when there is one.
/// A template is checked as a template here (its line and column when it
/// is not one); what it renders to is each cluster's, which the review of
/// the save shows cluster by cluster.
fn check(text: &str, chart: &ChartStatus) -> (Result<(), ValuesError>, Vec<Finding>) {
    if template::is_template(text) {
        let checked = Template::parse(text)
            .map(drop)
            .map_err(|e| ValuesError::Syntax {
                line: e.pos.line,
                column: e.pos.column,
                message: format!("template: {}", e.message),
            });
        return (checked, Vec::new());
    }
    match parse_values(text) {
        Err(e) => (Err(e), Vec::new()),
        Ok(values) => {
            let findings = chart
                .values()
                .map(|c| chart_check::check(c, &values, text))
                .unwrap_or_default();
            (Ok(()), findings)
        }
    }
}

/// The width of the line-number gutter for `lines` lines, its space included.
pub fn gutter(lines: usize) -> usize {
    lines.max(1).to_string().len().max(2) + 1
}

impl Editor {
    /// Opens the editor on `service`'s values of `base`.
    pub fn open(base: Base, service: &str) -> Editor {
        let text = base.values(service);
        let area = textarea(&text);
        let original = join(area.lines());
        let chart = ChartStatus::Unknown("the chart is not known yet".into());
        let (check, findings) = check(&original, &chart);
        Editor {
            key: EditKey {
                object: base.key(),
                service: service.to_string(),
            },
            check,
            chart,
            findings,
            base,
            area,
            original,
            stage: Stage::Editing,
            note: None,
            top: 0,
            left: 0,
            behind: None,
        }
    }

    /// Whether the stores hold a version of the object other than the one
    /// the editor opened (and not merely an older one): someone changed it,
    /// and saving will be refused.
    pub fn changed_since_opened(&self, data: &Snapshot) -> bool {
        let Some(now) = self.base.current(data) else {
            return false;
        };
        let now = now.resource_version();
        now != self.base.resource_version() && now != self.behind.as_deref()
    }

    /// The text as it would be saved.
    pub fn text(&self) -> String {
        join(self.area.lines())
    }

    /// Whether the text differs from what was opened.
    pub fn dirty(&self) -> bool {
        self.text() != self.original
    }

    /// Where the YAML error is, 0-based (line, column), when it has a
    /// place; else where the first error against the chart is.
    pub fn error_at(&self) -> Option<(usize, usize)> {
        match &self.check {
            Err(ValuesError::Syntax { line, column, .. }) => {
                Some((line.saturating_sub(1), column.saturating_sub(1)))
            }
            Err(_) => None,
            Ok(()) => self.errors().find_map(|f| f.at),
        }
    }

    /// The findings that refuse the save.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.level == Level::Error)
    }

    /// The findings that do not.
    pub fn warnings(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| f.level == Level::Warning)
    }

    /// What the console has of the chart now: the text is checked again.
    pub fn set_chart(&mut self, chart: ChartStatus) {
        self.chart = chart;
        self.recheck();
    }

    fn recheck(&mut self) {
        (self.check, self.findings) = check(&self.text(), &self.chart);
    }

    /// Reopens on `base`'s current text; the text typed so far goes to the
    /// note when it differs.
    pub fn reload(&mut self, base: Base) {
        let mine = self.text();
        let fresh = Editor::open(base, &self.key.service);
        let note = (mine != fresh.original).then_some(mine);
        let chart = self.chart.clone();
        *self = Editor { note, ..fresh };
        self.set_chart(chart);
    }

    fn set_text(&mut self, text: &str) {
        self.area = textarea(text);
        self.recheck();
        self.top = 0;
        self.left = 0;
    }

    /// Keeps the cursor inside a text pane of `height` lines and `width`
    /// columns (the gutter included).
    pub fn fit(&mut self, height: usize, width: usize) {
        let (row, col) = self.area.cursor();
        let height = height.max(1);
        let width = width.saturating_sub(gutter(self.area.lines().len())).max(1);
        if row < self.top {
            self.top = row;
        } else if row >= self.top + height {
            self.top = row + 1 - height;
        }
        if col < self.left {
            self.left = col;
        } else if col >= self.left + width {
            self.left = col + 1 - width;
        }
    }

    /// Handles one key; `data` is what the stores hold now (for the review
    /// and for a reload).
    pub fn on_key(&mut self, key: KeyEvent, keys: &Keymap, data: &Snapshot) -> Step {
        let mode = match self.stage {
            Stage::Editing | Stage::Saving => Mode::Screen(ScreenKind::Editor),
            Stage::Review(_) => Mode::Review,
            Stage::Discard { .. } => Mode::Discard,
            Stage::Conflict { .. } => Mode::Conflict,
        };
        let action = keys.action(mode, &key);
        match self.stage.clone() {
            Stage::Editing => self.edit(key, action, data),
            Stage::Discard { quit } => match action {
                Some(Action::Discard) if quit => Step::Quit,
                Some(Action::Discard) => Step::Close,
                Some(Action::KeepEditing) => {
                    self.stage = Stage::Editing;
                    Step::Nothing
                }
                _ => Step::Nothing,
            },
            Stage::Review(mut review) => match action {
                Some(Action::Apply)
                    if review
                        .fleet
                        .as_ref()
                        .is_some_and(|f| f.blocked > 0 && !f.confirming) =>
                {
                    if let Some(f) = review.fleet.as_mut() {
                        f.confirming = true;
                    }
                    self.stage = Stage::Review(review);
                    Step::Nothing
                }
                Some(a @ (Action::Up | Action::Down | Action::Open | Action::Back))
                    if review.fleet.as_mut().is_some_and(|f| f.on(a)) =>
                {
                    self.stage = Stage::Review(review);
                    Step::Nothing
                }
                Some(Action::Apply) => match self.patch() {
                    Ok(patch) => {
                        self.stage = Stage::Saving;
                        Step::Apply(patch)
                    }
                    Err(e) => {
                        self.stage = Stage::Editing;
                        Step::Say(FlashLevel::Error, format!("not saved: {e}"))
                    }
                },
                Some(Action::KeepEditing) => {
                    self.stage = Stage::Editing;
                    Step::Say(FlashLevel::Info, "not saved; still editing".into())
                }
                _ => Step::Nothing,
            },
            Stage::Saving => Step::Nothing,
            Stage::Conflict { current } => match action {
                Some(Action::Reload) => {
                    let newer = current.or_else(|| {
                        self.base
                            .current(data)
                            .filter(|b| b.resource_version() != self.base.resource_version())
                    });
                    match newer {
                        Some(base) => {
                            let seen = self
                                .base
                                .current(data)
                                .and_then(|b| b.resource_version().map(String::from));
                            self.reload(base);
                            if seen.as_deref() != self.base.resource_version() {
                                self.behind = seen;
                            }
                            let kept = if self.note.is_some() {
                                format!(
                                    "; your text is in the note ({} puts it back)",
                                    keys.label(Mode::Screen(ScreenKind::Editor), Action::PutBack)
                                )
                            } else {
                                String::new()
                            };
                            Step::Say(
                                FlashLevel::Info,
                                format!("reloaded the current values{kept}"),
                            )
                        }
                        None => Step::Say(
                            FlashLevel::Warn,
                            format!(
                                "the newer version has not reached the console yet; press {} again in a moment",
                                keys.label(Mode::Conflict, Action::Reload)
                            ),
                        ),
                    }
                }
                Some(Action::KeepMine) => {
                    self.stage = Stage::Editing;
                    Step::Say(
                        FlashLevel::Warn,
                        "not saved: your text is still here; saving again is refused until you reload"
                            .into(),
                    )
                }
                _ => Step::Nothing,
            },
        }
    }

    fn edit(&mut self, key: KeyEvent, action: Option<Action>, data: &Snapshot) -> Step {
        match action {
            Some(Action::Close) if self.dirty() => {
                self.stage = Stage::Discard { quit: false };
                Step::Nothing
            }
            Some(Action::Close) => Step::Close,
            Some(Action::Quit) if self.dirty() => {
                self.stage = Stage::Discard { quit: true };
                Step::Nothing
            }
            Some(Action::Quit) => Step::Quit,
            Some(Action::Save) => self.save(data),
            Some(Action::PutBack) => match self.note.take() {
                Some(note) => {
                    self.set_text(&note);
                    Step::Say(FlashLevel::Info, "your text is back in the editor".into())
                }
                None => Step::Nothing,
            },
            Some(Action::Undo) => {
                if self.area.undo() {
                    self.recheck();
                }
                Step::Nothing
            }
            // As in the filter and the `:` prompt: the line before the cursor.
            Some(Action::Erase) => {
                if self.area.delete_line_by_head() {
                    self.recheck();
                }
                Step::Nothing
            }
            Some(Action::Redo) => {
                if self.area.redo() {
                    self.recheck();
                }
                Step::Nothing
            }
            Some(Action::Top) => {
                self.area.move_cursor(CursorMove::Top);
                self.area.move_cursor(CursorMove::Head);
                Step::Nothing
            }
            Some(Action::Bottom) => {
                self.area.move_cursor(CursorMove::Bottom);
                self.area.move_cursor(CursorMove::End);
                Step::Nothing
            }
            _ => {
                if self.area.input(key) {
                    self.recheck();
                }
                Step::Nothing
            }
        }
    }

    /// ctrl-s: refused while the YAML is not valid or nothing changed;
    /// otherwise shows the review.
    fn save(&mut self, data: &Snapshot) -> Step {
        if let Err(e) = &self.check {
            let why = if e.is_limit() {
                format!(
                    "not saved: the values of {} are too large ({e})",
                    self.key.service
                )
            } else {
                format!("not saved: the values are not valid YAML ({e})")
            };
            return Step::Say(FlashLevel::Error, why);
        }
        if let Some(first) = self.errors().next() {
            let more = match self.errors().count() - 1 {
                0 => String::new(),
                1 => " (and 1 more error)".into(),
                n => format!(" (and {n} more errors)"),
            };
            return Step::Say(
                FlashLevel::Error,
                format!("not saved: {}{more}", first.text()),
            );
        }
        if !self.dirty() {
            return Step::Say(
                FlashLevel::Info,
                "nothing to save: the values are as you opened them".into(),
            );
        }
        self.stage = Stage::Review(self.review(data));
        Step::Nothing
    }

    /// The patch of the object as opened, with the text as it is now.
    pub fn patch(&self) -> Result<Value, patch::PatchError> {
        let text = self.text();
        match &self.base {
            Base::Cluster(mc) => patch::cluster_values(mc, &self.key.service, &text),
            Base::Template(ct) => patch::template_values(ct, &self.key.service, &text),
        }
    }

    /// What saving changes in the service's merged values.
    pub fn review(&self, data: &Snapshot) -> Review {
        let service = &self.key.service;
        let (old_text, new_text) = (self.original.as_str(), self.text());
        let ns = self.key.object.namespace.clone();
        let ctx = &self.key.object.context;
        let lookup = values::lookup(data, ctx, &ns);
        let mut notes = Vec::new();
        let service_template = chart_source(data, &self.key.object, service)
            .ok()
            .map(|s| s.chart.template);
        let proposed;
        let (before, after) = match &self.base {
            Base::Cluster(mc) => {
                let template = data
                    .cluster_template(ctx, &ns, &mc.spec.template)
                    .map(|ct| services_given(ct, mc).1)
                    .unwrap_or_default();
                let mut spec = mc.spec.clone();
                spec.services = patch::with_cluster_values(&mc.spec.services, service, &new_text);
                if !self.base.has_entry(service) {
                    notes.push(format!(
                        "adds an entry for {service} to the cluster's spec.services"
                    ));
                }
                let mut new = (**mc).clone();
                new.spec = spec.clone();
                let capi = data.capi_cluster(ctx, &ns, &mc.name_any());
                let values_data = ValuesData::of(mc, capi);
                proposed = Proposed::Cluster(Box::new(new));
                (
                    plan_services(&template, &mc.spec, &values_data, &lookup),
                    plan_services(&template, &spec, &values_data, &lookup),
                )
            }
            Base::Template(ct) => {
                // The same services the save would write.
                let mut spec = ct.spec.clone();
                if let Some(services) =
                    patch::with_template_values(&ct.spec.services, service, &new_text)
                {
                    spec.services = services;
                }
                let cluster = ManagedClusterSpec {
                    template: ct.name_any(),
                    ..Default::default()
                };
                let mut new = (**ct).clone();
                new.spec = spec.clone();
                proposed = Proposed::Template(Box::new(new));
                let used = data.usage.get(&self.key.object).copied().unwrap_or(0);
                notes.push(match used {
                    0 => format!("a new revision of {}; no cluster uses it yet", ct.name_any()),
                    1 => format!(
                        "a new revision of {}: its rollout takes it to the 1 cluster that uses it",
                        ct.name_any()
                    ),
                    n => format!(
                        "a new revision of {}: its rollout takes it to the {n} clusters that use it",
                        ct.name_any()
                    ),
                });
                (
                    plan_services(&ct.spec, &cluster, &ValuesData::none(), &lookup),
                    plan_services(&spec, &cluster, &ValuesData::none(), &lookup),
                )
            }
        };
        let merged = |plans: &[ServicePlan]| match plans.iter().find(|p| p.name() == service) {
            Some(ServicePlan::Install(d)) => Ok(d.effective.clone()),
            Some(ServicePlan::Blocked(b)) => Err(b.message.clone()),
            None => Err(format!("{service} is disabled here")),
        };
        let changes = match (merged(&before), merged(&after)) {
            (Ok(old), Ok(new)) => diff(&old, &new),
            (old, new) => {
                let why = old.err().or(new.err()).unwrap_or_default();
                notes.push(format!(
                    "the merged values cannot be computed ({why}); showing this entry's own values"
                ));
                let parse = |t: &str| parse_values(t).unwrap_or(Value::Object(Default::default()));
                diff(&parse(old_text), &parse(&new_text))
            }
        };
        let warnings: Vec<&Finding> = self.warnings().collect();
        for w in warnings.iter().take(3) {
            notes.push(format!("! {}", w.text()));
        }
        if warnings.len() > 3 {
            notes.push(format!(
                "! … and {} more keys the chart does not have",
                warnings.len() - 3
            ));
        }
        let fleet = FleetReview::of(
            data,
            ctx,
            proposed,
            service_template.as_deref(),
            self.chart.values(),
        );
        Review {
            changes: changes.iter().map(ToString::to_string).collect(),
            notes,
            fleet,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ManagedService;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn base(values: Option<&str>) -> Base {
        let mut mc = ManagedCluster::new(
            "prod-eu-1",
            ManagedClusterSpec {
                template: "t".into(),
                services: vec![ManagedService {
                    name: "web".into(),
                    values: values.map(String::from),
                    ..Default::default()
                }],
                ..Default::default()
            },
        );
        mc.metadata.namespace = Some("ns".into());
        mc.metadata.resource_version = Some("1".into());
        Base::Cluster(Obj::new(&Default::default(), std::sync::Arc::new(mc)))
    }

    #[test]
    fn the_text_is_saved_with_one_final_newline() {
        assert_eq!(join(&["a: 1".into()]), "a: 1\n");
        assert_eq!(join(&["a: 1".into(), String::new()]), "a: 1\n");
        assert_eq!(join(&["  ".into(), String::new()]), "");
        let e = Editor::open(base(Some("a: 1\n")), "web");
        assert_eq!(e.text(), "a: 1\n");
        assert!(!e.dirty(), "opening changes nothing");
        let e = Editor::open(base(Some("a: 1")), "web");
        assert!(!e.dirty(), "a missing final newline is not a change");
    }

    #[test]
    fn the_view_follows_the_cursor() {
        let text = format!(
            "{}\n{}",
            "k: ".to_string() + &"v".repeat(100),
            "x: 1\n".repeat(50)
        );
        let mut e = Editor::open(base(Some(&text)), "web");
        let data = Snapshot::default();
        e.on_key(
            KeyEvent::new(KeyCode::End, KeyModifiers::NONE),
            &Keymap::default(),
            &data,
        );
        e.fit(10, 40);
        assert_eq!(e.area.cursor(), (0, 103));
        let width = 40 - gutter(51);
        assert_eq!(e.left, 103 + 1 - width);
        e.on_key(
            KeyEvent::new(KeyCode::End, KeyModifiers::CONTROL),
            &Keymap::default(),
            &data,
        );
        e.fit(10, 40);
        assert_eq!(e.area.cursor().0, 50);
        assert_eq!(e.top, 41);
        e.on_key(
            KeyEvent::new(KeyCode::Home, KeyModifiers::CONTROL),
            &Keymap::default(),
            &data,
        );
        e.fit(10, 40);
        assert_eq!((e.top, e.left), (0, 0));
    }

    #[test]
    fn text_over_a_limit_is_refused_with_the_limit() {
        let data = Snapshot::default();
        let bomb = format!(
            "a: &a [{}]\nb: [{}]\n",
            vec!["x"; 1000].join(","),
            vec!["*a"; 1000].join(",")
        );
        // Over the size limit in bytes, within it in characters.
        let wide = format!("a: 1\n# {}\n", "é".repeat(70_000));
        for (text, why) in [
            (
                bomb.as_str(),
                "not saved: the values of web are too large (more than 100,000 nodes after expanding aliases)".to_string(),
            ),
            (
                wide.as_str(),
                format!(
                    "not saved: the values of web are too large ({} bytes, more than the limit of 131,072)",
                    crate::plan::yaml::group(wide.len())
                ),
            ),
        ] {
            let mut e = Editor::open(base(None), "web");
            e.set_text(text);
            assert!(e.dirty());
            assert!(e.check.as_ref().is_err_and(ValuesError::is_limit));
            assert_eq!(e.error_at(), None, "a limit has no place in the text");
            match e.on_key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL), &Keymap::default(), &data) {
                Step::Say(FlashLevel::Error, said) => assert_eq!(said, why),
                other => panic!("want the refusal, got {other:?}"),
            }
            assert!(matches!(e.stage, Stage::Editing), "nothing is applied");
        }
    }

    #[test]
    fn tab_indents_with_spaces() {
        let mut e = Editor::open(base(None), "web");
        let data = Snapshot::default();
        for key in [
            KeyCode::Char('a'),
            KeyCode::Char(':'),
            KeyCode::Enter,
            KeyCode::Tab,
        ] {
            e.on_key(
                KeyEvent::new(key, KeyModifiers::NONE),
                &Keymap::default(),
                &data,
            );
        }
        assert_eq!(e.area.lines(), ["a:", "  "]);
    }
}
