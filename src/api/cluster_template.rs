use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::CustomResource;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{HelmSpec, TemplateStatus};

/// The recipe for a cluster: its Cluster API chart and the services that every
/// cluster made from it gets.
#[derive(CustomResource, Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[kube(
    group = "hmc.mirantis.com",
    version = "v1alpha1",
    kind = "ClusterTemplate",
    namespaced,
    status = "ClusterTemplateStatus",
    shortname = "clustertmpl",
    category = "hmc",
    doc = "A cluster recipe: the Cluster API chart and the services every cluster made from it gets",
    printcolumn = r#"{"name":"Valid","type":"boolean","jsonPath":".status.valid"}"#,
    printcolumn = r#"{"name":"Revision","type":"integer","jsonPath":".status.revision"}"#,
    printcolumn = r#"{"name":"Services","type":"string","jsonPath":".status.servicesSummary"}"#,
    printcolumn = r#"{"name":"Description","type":"string","jsonPath":".status.description"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTemplateSpec {
    /// The Cluster API chart. Immutable.
    pub helm: HelmSpec,
    /// The Kubernetes version the chart's clusters run (`1.29.3`, `v1.29`),
    /// checked against each service's `k8sConstraint`. Overrides the
    /// chart's `hmc.mirantis.com/k8s-version` annotation. Immutable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 64))]
    pub k8s_version: Option<String>,
    /// Services installed into every cluster made from this template once it
    /// is provisioned. May change: each change is a new revision.
    #[serde(default)]
    #[schemars(length(max = super::names::MAX_SERVICES))]
    pub services: Vec<TemplateService>,
    /// How a change to the services reaches the clusters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollout: Option<RolloutPolicy>,
}

/// A service of a ClusterTemplate.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateService {
    /// Name of the service; also its Helm release name in the cluster: a
    /// DNS label of at most 53 characters.
    #[schemars(length(min = 1, max = super::names::MAX_SERVICE_NAME), regex(pattern = super::names::DNS_LABEL_PATTERN))]
    pub name: String,
    /// Name of the ServiceTemplate (same namespace).
    pub template: String,
    /// Namespace in the cluster; defaults to the service name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Values (YAML) for this service in every cluster made from the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = super::MAX_VALUES_BYTES))]
    pub values: Option<String>,
    /// Services of this template that must be Installed before this one is
    /// installed into a cluster. A name that is not a service of the
    /// template, or a cycle, makes the template invalid.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = super::names::MAX_DEPENDS_ON), inner(length(min = 1, max = super::names::MAX_SERVICE_NAME), regex(pattern = super::names::DNS_LABEL_PATTERN)))]
    pub depends_on: Vec<String>,
}

impl TemplateService {
    pub fn target_namespace(&self) -> &str {
        self.namespace
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or(&self.name)
    }
}

/// The rules of a rollout policy's values, as the API server checks them at
/// admission (CEL rules in the CRD) and as the engine reads them
/// (`plan::rollout::check_policy`): one wording for both.
pub mod policy_rules {
    /// `healthTimeout`: whole hours, minutes and seconds, in that order,
    /// each at most once, more than zero: `90s`, `10m`, `1h30m`, `1h30m15s`.
    pub const DURATION_PATTERN: &str = "^([0-9]+h)?([0-9]+m)?([0-9]+s)?$";
    /// `healthTimeout` is at most this many characters.
    pub const DURATION_MAX_LENGTH: usize = 16;
    pub const HEALTH_TIMEOUT_RULE: &str =
        "self.matches('^([0-9]+h)?([0-9]+m)?([0-9]+s)?$') && self.matches('[1-9]')";
    pub const HEALTH_TIMEOUT_MESSAGE: &str = "healthTimeout must be a duration in whole h, m and s, more than zero, such as 90s, 10m or 1h30m";
    /// `soak` is at most this long: a week.
    pub const SOAK_MAX_HOURS: u64 = 168;
    pub const SOAK_RULE: &str = "self.matches('^([0-9]+h)?([0-9]+m)?([0-9]+s)?$') && self.matches('[1-9]') && duration(self) <= duration('168h')";
    pub const SOAK_MESSAGE: &str = "soak must be a duration in whole h, m and s, more than zero and at most 168h, such as 30m or 24h";
    /// `maxConcurrent` as a percentage: 1% to 100%.
    pub const PERCENT_PATTERN: &str = "^(100|[1-9][0-9]?)%$";
    /// Counts (`maxConcurrent`, `canary`, `failureBudget`) are at most this:
    /// the int32 of the Kubernetes API conventions.
    pub const COUNT_MAX: u32 = i32::MAX as u32;
    pub const MAX_CONCURRENT_RULE: &str = "type(self) == int ? self >= 1 && self <= 2147483647 : self.matches('^(100|[1-9][0-9]?)%$')";
    pub const MAX_CONCURRENT_MESSAGE: &str = "maxConcurrent must be a whole number of clusters (1 or more) or a percentage from 1% to 100%, such as 3 or 25%";
    pub const COUNT_RULE: &str = "self >= 0 && self <= 2147483647";
    pub const CANARY_MESSAGE: &str =
        "canary must be a whole number of clusters, 0 or more (at most 2147483647)";
    pub const FAILURE_BUDGET_MESSAGE: &str =
        "failureBudget must be a whole number of clusters, 0 or more (at most 2147483647)";
    /// A change window's `start`: a 24-hour local time, `HH:MM`.
    pub const WINDOW_START_PATTERN: &str = "^([01][0-9]|2[0-3]):[0-5][0-9]$";
    pub const WINDOW_START_MESSAGE: &str =
        "start must be a 24-hour local time HH:MM, such as 03:00 or 22:30";
    /// A change window is open at most a week: it repeats weekly.
    pub const WINDOW_MAX_HOURS: u64 = 168;
    pub const WINDOW_DURATION_RULE: &str = "self.matches('^([0-9]+h)?([0-9]+m)?$') && self.matches('[1-9]') && duration(self) <= duration('168h')";
    pub const WINDOW_DURATION_MESSAGE: &str =
        "duration must be whole h and m, more than zero and at most 168h, such as 4h or 1h30m";
    /// A time zone's name as the time zone database spells it.
    pub const TIME_ZONE_PATTERN: &str = "^[A-Za-z][A-Za-z0-9_+/-]*$";
    pub const TIME_ZONE_MAX_LENGTH: usize = 64;
    /// Change windows in one policy, at most.
    pub const MAX_WINDOWS: usize = 16;
}

use policy_rules::*;

/// How a new revision of the services rolls out. The API server checks each
/// value against [`policy_rules`]; the engine reads them with the same rules.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RolloutPolicy {
    /// `Automatic` proceeds wave after wave while each stays healthy;
    /// `Manual` waits for an approval before every wave. Default: Automatic.
    #[serde(default)]
    pub strategy: RolloutStrategy,
    /// Clusters updated at once: a whole number (1 or more), or a percentage
    /// of the clusters from `1%` to `100%`, rounded up. Default: `25%`.
    #[serde(default = "default_max_concurrent")]
    #[schemars(schema_with = "max_concurrent_schema")]
    pub max_concurrent: IntOrString,
    /// Size of a first canary wave; after it the rollout always waits for an
    /// approval. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "canary_schema")]
    pub canary: Option<u32>,
    /// How long a cluster's services may take to become Installed at the new
    /// revision: whole h, m and s (`90s`, `10m`, `1h30m`). Default: `10m`.
    #[serde(default = "default_health_timeout")]
    #[schemars(length(max = DURATION_MAX_LENGTH))]
    #[schemars(extend("x-kubernetes-validations" = [{"rule": HEALTH_TIMEOUT_RULE, "message": HEALTH_TIMEOUT_MESSAGE}]))]
    pub health_timeout: String,
    /// Failed clusters the rollout tolerates: it stops by itself when more
    /// fail (0 stops at the first failure). Default: 1.
    #[serde(default = "default_failure_budget")]
    #[schemars(schema_with = "failure_budget_schema")]
    pub failure_budget: u32,
    /// A cluster label key to order and group waves by (`region`). Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// How long each wave stays healthy before the next wave may start (or
    /// its approval be asked): whole h, m and s, at most 168h (`30m`,
    /// `24h`). A cluster of the wave that fails meanwhile counts against
    /// the failure budget. Default: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = DURATION_MAX_LENGTH))]
    #[schemars(extend("x-kubernetes-validations" = [{"rule": SOAK_RULE, "message": SOAK_MESSAGE}]))]
    pub soak: Option<String>,
    /// Holds every rollout under this policy: no new wave starts (waves
    /// that started finish) until it is false again. Read from the template
    /// (or MultiClusterService) as it is now, not as it was when a rollout
    /// was planned. Default: false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
    /// When waves may start: a wave due outside every window waits for the
    /// next one to open, and a wave that started finishes even if its
    /// window closes. Read from the template as it is now. Default: none,
    /// any time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = MAX_WINDOWS))]
    pub windows: Vec<ChangeWindow>,
}

/// A weekly change window: open from `start` on each of `days`, for
/// `duration`, in `timeZone`.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeWindow {
    /// The days it opens on. Default: every day.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 7))]
    pub days: Vec<Weekday>,
    /// When it opens, in local time: `HH:MM`, 24-hour (`03:00`). A time that
    /// a daylight-saving change skips opens when the clocks have moved on
    /// (02:30 on a spring-forward night opens at 03:30); one that happens
    /// twice opens the first time.
    #[schemars(regex(pattern = WINDOW_START_PATTERN), length(max = 5))]
    pub start: String,
    /// How long it stays open, in real time: whole h and m, at most 168h
    /// (`4h`, `1h30m`).
    #[schemars(length(max = DURATION_MAX_LENGTH))]
    #[schemars(extend("x-kubernetes-validations" = [{"rule": WINDOW_DURATION_RULE, "message": WINDOW_DURATION_MESSAGE}]))]
    pub duration: String,
    /// A time zone of the IANA database (`Europe/Berlin`,
    /// `America/New_York`). Default: `UTC`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = TIME_ZONE_PATTERN), length(max = TIME_ZONE_MAX_LENGTH))]
    pub time_zone: Option<String>,
}

/// A day of the week.
#[derive(
    Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, JsonSchema,
)]
pub enum Weekday {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

/// An int-or-string that is never stored as null (a null is defaulted
/// instead), with its rule.
fn max_concurrent_schema(_: &mut SchemaGenerator) -> Schema {
    rule_schema(
        json!({"x-kubernetes-int-or-string": true, "nullable": false}),
        MAX_CONCURRENT_RULE,
        MAX_CONCURRENT_MESSAGE,
    )
}

fn canary_schema(_: &mut SchemaGenerator) -> Schema {
    rule_schema(
        json!({"type": "integer", "nullable": true}),
        COUNT_RULE,
        CANARY_MESSAGE,
    )
}

fn failure_budget_schema(_: &mut SchemaGenerator) -> Schema {
    rule_schema(
        json!({"type": "integer"}),
        COUNT_RULE,
        FAILURE_BUDGET_MESSAGE,
    )
}

/// `base` with one CEL rule and its message.
fn rule_schema(mut base: serde_json::Value, rule: &str, message: &str) -> Schema {
    base["x-kubernetes-validations"] = json!([{"rule": rule, "message": message}]);
    Schema::try_from(base).unwrap_or_default()
}

impl Default for RolloutPolicy {
    fn default() -> Self {
        Self {
            strategy: RolloutStrategy::default(),
            max_concurrent: default_max_concurrent(),
            canary: None,
            health_timeout: default_health_timeout(),
            failure_budget: default_failure_budget(),
            order: None,
            soak: None,
            paused: false,
            windows: Vec::new(),
        }
    }
}

fn default_max_concurrent() -> IntOrString {
    IntOrString::String("25%".into())
}
fn default_health_timeout() -> String {
    "10m".into()
}
fn default_failure_budget() -> u32 {
    1
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, JsonSchema)]
pub enum RolloutStrategy {
    #[default]
    Automatic,
    Manual,
}

/// Status of a ClusterTemplate: its chart, plus the revision of its services.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClusterTemplateStatus {
    #[serde(flatten)]
    pub chart: TemplateStatus,
    /// Revision of `spec.services`: bumped on every change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// Hash of the services of the current revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services_hash: Option<String>,
    /// `ingress-nginx, cert-manager` — for the printer column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub services_summary: Option<String>,
    /// The services of recent revisions, newest last: what a cluster at an
    /// older revision keeps, and what a rollback returns to. Written in the
    /// same status update as the revision it belongs to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revisions: Vec<ServicesRevision>,
}

/// The services of one revision of a ClusterTemplate.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServicesRevision {
    pub revision: i64,
    #[serde(default)]
    pub services: Vec<TemplateService>,
}

impl ClusterTemplate {
    /// The template as it was at `revision`: its spec with the services of
    /// that revision, if the status still remembers them, and the
    /// Kubernetes version it states ([`Self::k8s_version`]).
    pub fn spec_at(&self, revision: i64) -> Option<ClusterTemplateSpec> {
        let services = self.status.as_ref()?.services_at(revision)?;
        Some(ClusterTemplateSpec {
            services: services.to_vec(),
            ..self.spec_now()
        })
    }

    /// Its spec, with the Kubernetes version it states ([`Self::k8s_version`]).
    pub fn spec_now(&self) -> ClusterTemplateSpec {
        ClusterTemplateSpec {
            k8s_version: self.k8s_version().map(String::from),
            ..self.spec.clone()
        }
    }

    /// The Kubernetes version its clusters run: `spec.k8sVersion`, else what
    /// the engine read from the chart's annotation into the status.
    pub fn k8s_version(&self) -> Option<&str> {
        self.spec
            .k8s_version
            .as_deref()
            .or_else(|| self.status.as_ref()?.chart.k8s_version.as_deref())
            .filter(|v| !v.trim().is_empty())
    }
}

impl ClusterTemplateStatus {
    /// The services of `revision`, if the template still remembers it.
    pub fn services_at(&self, revision: i64) -> Option<&[TemplateService]> {
        self.revisions
            .iter()
            .find(|r| r.revision == revision)
            .map(|r| r.services.as_slice())
    }
}
