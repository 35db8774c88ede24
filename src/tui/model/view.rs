//! The screens and the crumb stack's views.

use crate::tui::keys::ScreenKind;
use crate::tui::model::key::{Kind, ObjKey};
use crate::tui::model::sort::Sort;
use crate::tui::model::values::{EditKey, ValuesKey};

/// One of the screens, with what it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Screen {
    Clusters,
    ClusterDetail(ObjKey),
    Templates,
    /// A ClusterTemplate and its services.
    TemplateDetail(ObjKey),
    /// The values editor; its state is the app's `editor`.
    Edit(EditKey),
    Rollouts,
    /// The live wave board of one rollout.
    Rollout(ObjKey),
    MultiClusterServices,
    /// The clusters one MultiClusterService selects.
    MultiClusterService(ObjKey),
    /// The engine's Events; about one object when set.
    Events(Option<ObjKey>),
    Yaml(ObjKey),
    /// The values of a service of a cluster (merged, as Helm gets them) or
    /// of a ClusterTemplate (its defaults), or a ServiceTemplate's defaults.
    Values(ValuesKey),
    /// The engine's warnings, newest first.
    Warnings,
    /// `d`: an object described.
    Describe(ObjKey),
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
            Screen::MultiClusterServices => ScreenKind::MultiClusterServices,
            Screen::MultiClusterService(_) => ScreenKind::MultiClusterService,
            Screen::Events(_) => ScreenKind::Events,
            Screen::Yaml(_) => ScreenKind::Yaml,
            Screen::Values(_) => ScreenKind::Values,
            Screen::Warnings => ScreenKind::Warnings,
            Screen::Describe(_) => ScreenKind::Describe,
        }
    }

    /// The screen's crumb.
    pub fn crumb(&self) -> String {
        match self {
            Screen::Clusters => "clusters".into(),
            Screen::ClusterDetail(k)
            | Screen::Rollout(k)
            | Screen::TemplateDetail(k)
            | Screen::MultiClusterService(k) => {
                format!("{}/{}", k.namespace, k.name)
            }
            Screen::Edit(k) => format!("values: {}", k.service),
            Screen::Templates => "templates".into(),
            Screen::Rollouts => "rollouts".into(),
            Screen::MultiClusterServices => "multiclusterservices".into(),
            Screen::Events(None) => "events".into(),
            Screen::Events(Some(k)) => format!("events: {}", k.name),
            Screen::Yaml(_) => "yaml".into(),
            Screen::Describe(_) => "describe".into(),
            Screen::Values(k) => match (k.object.kind, &k.service) {
                (Kind::ManagedCluster, Some(service)) => format!("merged: {service}"),
                (_, Some(service)) => format!("defaults: {service}"),
                (_, None) => format!("defaults: {}", k.object.name),
            },
            Screen::Warnings => "warnings".into(),
        }
    }

    /// A text that scrolls, rather than a list with a selection.
    pub fn scrolls(&self) -> bool {
        matches!(
            self,
            Screen::Yaml(_) | Screen::Values(_) | Screen::Describe(_)
        )
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
    /// The templates screen opened by `:ct` or `:st`: one kind only.
    pub only: Option<Kind>,
    /// The order the user chose (`N`, `A`, `S`); `None` keeps the
    /// snapshot's.
    pub sort: Option<Sort>,
}

impl View {
    pub fn new(screen: Screen) -> View {
        View {
            screen,
            selected: 0,
            offset: 0,
            filter: String::new(),
            only: None,
            sort: None,
        }
    }

    /// The view's crumb: the screen's, or the one kind of templates it
    /// lists.
    pub fn crumb(&self) -> String {
        match (&self.screen, self.only) {
            (Screen::Templates, Some(Kind::ClusterTemplate)) => "clustertemplates".into(),
            (Screen::Templates, Some(Kind::ServiceTemplate)) => "servicetemplates".into(),
            (screen, _) => screen.crumb(),
        }
    }

    /// Whether a row of this kind is listed (see [`View::only`]).
    pub fn lists(&self, kind: Kind) -> bool {
        self.only.is_none_or(|only| only == kind)
    }
}
