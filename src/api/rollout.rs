use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::RolloutPolicy;

/// The rollout of one revision of a ClusterTemplate's services across the
/// clusters made from it (named `<template>-<revision>`), or of a
/// MultiClusterService's services across the clusters it selects (named
/// `mcs-<name>-<revision>`). The engine creates it and moves it forward;
/// operators steer it with the request annotations
/// (`hmc.mirantis.com/request`), never by editing the status.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "hmc.mirantis.com",
    version = "v1alpha1",
    kind = "TemplateRollout",
    namespaced,
    status = "TemplateRolloutStatus",
    shortname = "tr",
    category = "hmc",
    doc = "The rollout of one revision of a ClusterTemplate's or a MultiClusterService's services to its clusters, wave by wave",
    printcolumn = r#"{"name":"Template","type":"string","jsonPath":".spec.template"}"#,
    printcolumn = r#"{"name":"MultiClusterService","type":"string","jsonPath":".spec.multiClusterService"}"#,
    printcolumn = r#"{"name":"Revision","type":"integer","jsonPath":".spec.revision"}"#,
    printcolumn = r#"{"name":"Phase","type":"string","jsonPath":".status.phase"}"#,
    printcolumn = r#"{"name":"Wave","type":"string","jsonPath":".status.waveSummary"}"#,
    printcolumn = r#"{"name":"Updated","type":"string","jsonPath":".status.updatedSummary"}"#,
    printcolumn = r#"{"name":"Change","type":"string","jsonPath":".status.changeSummary"}"#,
    printcolumn = r#"{"name":"Message","type":"string","priority":1,"jsonPath":".status.message"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct TemplateRolloutSpec {
    /// The ClusterTemplate (same namespace) whose services roll out; empty
    /// for a MultiClusterService's rollout.
    #[serde(default)]
    pub template: String,
    /// The MultiClusterService (same namespace) whose services roll out,
    /// instead of a template's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multi_cluster_service: Option<String>,
    /// The revision of its services this rollout brings to the clusters.
    pub revision: i64,
    /// The template's rollout policy when this rollout was planned. Waves
    /// are planned once; a later policy change applies to the next revision.
    #[serde(default)]
    pub policy: RolloutPolicy,
}

/// What a rollout brings to its clusters: one revision of the services of
/// a ClusterTemplate or of a MultiClusterService, each of its namespace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RolloutSubject<'a> {
    Template(&'a str),
    MultiClusterService(&'a str),
}

impl<'a> RolloutSubject<'a> {
    /// Its name.
    pub fn name(self) -> &'a str {
        match self {
            Self::Template(n) | Self::MultiClusterService(n) => n,
        }
    }

    /// What a person reads: `template edge`, `MultiClusterService prod-addons`.
    pub fn describe(self) -> String {
        match self {
            Self::Template(n) => format!("template {n}"),
            Self::MultiClusterService(n) => format!("MultiClusterService {n}"),
        }
    }

    /// The name of its rollout of `revision`: `<template>-<revision>`, or
    /// `mcs-<name>-<revision>` (the engine checks, before it writes one,
    /// that a rollout of that name is this subject's).
    pub fn rollout_name(self, revision: i64) -> String {
        match self {
            Self::Template(n) => rollout_name(n, revision),
            Self::MultiClusterService(n) => rollout_name(&format!("mcs-{n}"), revision),
        }
    }
}

impl TemplateRolloutSpec {
    /// Whose services it rolls out.
    pub fn subject(&self) -> RolloutSubject<'_> {
        match &self.multi_cluster_service {
            Some(m) => RolloutSubject::MultiClusterService(m),
            None => RolloutSubject::Template(&self.template),
        }
    }
}

/// The CEL rule on a rollout's spec: a template's or a MultiClusterService's.
pub const ONE_SUBJECT_RULE: &str = "(size(self.template) > 0) != (has(self.multiClusterService) && size(self.multiClusterService) > 0)";
pub const ONE_SUBJECT_MESSAGE: &str =
    "a rollout names a template or a multiClusterService, exactly one";

/// Where a rollout stands.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
pub enum RolloutPhase {
    /// Planned; nothing applied yet.
    #[default]
    Pending,
    /// A wave is being applied.
    Progressing,
    /// The next wave waits for an operator's approval.
    WaitingForApproval,
    /// Stopped by an operator; resume continues it.
    Paused,
    /// Every cluster is at the revision, was skipped, or failed within the
    /// failure budget.
    Succeeded,
    /// More clusters failed than the failure budget allows: stopped by itself.
    Failed,
    /// Stopped by an operator; the updated clusters keep the revision.
    Aborted,
    /// Stopped by an operator; the clusters it touched went back to their
    /// last good revision.
    RolledBack,
    /// A newer revision of the template took over.
    Superseded,
}

impl RolloutPhase {
    /// True when the rollout will not move again by itself.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Succeeded | Self::Aborted | Self::RolledBack | Self::Superseded
        )
    }
}

impl std::fmt::Display for RolloutPhase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Pending => "Pending",
            Self::Progressing => "Progressing",
            Self::WaitingForApproval => "WaitingForApproval",
            Self::Paused => "Paused",
            Self::Succeeded => "Succeeded",
            Self::Failed => "Failed",
            Self::Aborted => "Aborted",
            Self::RolledBack => "RolledBack",
            Self::Superseded => "Superseded",
        })
    }
}

/// Where one wave stands.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
pub enum WaveState {
    #[default]
    Pending,
    WaitingForApproval,
    /// Due (and approved, when it needs approval), but outside every change
    /// window: it starts when the next one opens.
    WaitingForWindow,
    Progressing,
    /// Every cluster of the wave is updated or skipped, and it stays
    /// healthy for the policy's `soak` before the next wave may start.
    Soaking,
    /// Every cluster of the wave is updated or skipped.
    Succeeded,
    /// The wave finished with failed clusters.
    Failed,
}

/// Where one cluster stands in a rollout.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash, JsonSchema)]
pub enum ClusterRolloutState {
    /// Its wave has not started: it keeps the revision it has.
    #[default]
    Waiting,
    /// It was given the revision; its services are not all installed yet.
    Updating,
    /// Every service is installed at the revision.
    Updated,
    /// Not healthy within the health timeout, or a service failed.
    Failed,
    /// Left out by an operator: it keeps its previous revision.
    Skipped,
    /// Given back its last good revision by a rollback.
    RolledBack,
}

impl ClusterRolloutState {
    /// True when the cluster counts as done for its wave.
    pub fn is_settled(self) -> bool {
        matches!(
            self,
            Self::Updated | Self::Failed | Self::Skipped | Self::RolledBack
        )
    }
}

impl std::fmt::Display for ClusterRolloutState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Waiting => "Waiting",
            Self::Updating => "Updating",
            Self::Updated => "Updated",
            Self::Failed => "Failed",
            Self::Skipped => "Skipped",
            Self::RolledBack => "RolledBack",
        })
    }
}

/// One wave of a rollout.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WaveStatus {
    /// 1-based.
    pub number: u32,
    pub state: WaveState,
    /// The group of the `order` label this wave belongs to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Who approved this wave, when one was needed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_at: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Time>,
    /// While it soaks: when the soak ends and the next wave may start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soak_until: Option<Time>,
    /// While it waits for a change window: when the next one opens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opens_at: Option<Time>,
    /// Who started it early ("start now"): past its soak, window or approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_now_by: Option<String>,
}

/// One cluster in a rollout.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterRolloutStatus {
    /// The ManagedCluster (same namespace).
    pub name: String,
    /// The wave it belongs to, 1-based.
    pub wave: u32,
    pub state: ClusterRolloutState,
    /// The revision it had when the rollout was planned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_revision: Option<i64>,
    /// Its last good revision when its wave started: where a rollback takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback_revision: Option<i64>,
    /// When it entered its state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Time>,
    /// One line: why it waits or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Clusters that get the same change, in a rollout's preview.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewGroup {
    /// How many clusters get this change.
    pub count: u32,
    /// The change, one item per service (`ingress-nginx 4.11.3 → 4.11.4`,
    /// `ingress-nginx: controller.replicaCount 2 → 3`).
    pub changes: Vec<String>,
    /// Up to ten of these clusters, by name.
    pub clusters: Vec<String>,
}

/// An operator's act on a rollout, as recorded.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutAct {
    /// `approve`, `pause`, `resume`, `abort`, `rollback`, `skip`, `retry`.
    pub action: String,
    /// Who asked (the `hmc.mirantis.com/requested-by` annotation).
    pub by: String,
    pub at: Time,
    /// The revision the rollout brings.
    pub revision: i64,
    /// The wave it applied to, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wave: Option<u32>,
    /// The cluster it applied to, for `skip` and `retry`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

/// The state of a rollout, kept in the API server so that any engine can
/// resume it.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateRolloutStatus {
    #[serde(default)]
    pub phase: RolloutPhase,
    /// One line on where it stands and what it waits for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default)]
    pub waves: Vec<WaveStatus>,
    #[serde(default)]
    pub clusters: Vec<ClusterRolloutStatus>,
    /// Clusters grouped by identical change.
    #[serde(default)]
    pub preview: Vec<PreviewGroup>,
    /// Operator acts, oldest first (the last 50).
    #[serde(default)]
    pub history: Vec<RolloutAct>,
    /// Who paused it, while paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_by: Option<String>,
    /// `2/5`: the wave running or waiting, of all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wave_summary: Option<String>,
    /// `12/200`: clusters updated, of all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_summary: Option<String>,
    /// The largest preview group in one line, for `kubectl get`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change_summary: Option<String>,
    /// The newer revision that superseded this rollout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Time>,
}

impl TemplateRolloutStatus {
    pub fn cluster(&self, name: &str) -> Option<&ClusterRolloutStatus> {
        self.clusters.iter().find(|c| c.name == name)
    }
}

/// Name of the rollout of `revision` of `template`: `<template>-<revision>`
/// (the revision has no `-`, so no two pairs share it), shortened with a
/// hash past the 253 characters of an object name.
pub fn rollout_name(template: &str, revision: i64) -> String {
    super::names::shorten(
        &format!("{template}-{revision}"),
        super::names::MAX_OBJECT_NAME,
    )
}
