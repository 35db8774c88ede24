//! Templates: fetch each template's chart once, read its defaults, keep the
//! revision of a ClusterTemplate's services, and refuse deletion while used.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use kube::api::{ApiResource, DynamicObject, GroupVersionKind};
use kube::runtime::controller::Action;
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};

use super::apply::{apply_if_changed, apply_if_changed_as, delete, status_if_changed};
use super::artifact::{ArtifactError, artifact_namespace, fetch_chart};
use super::context::{Context, FIELD_MANAGER, source_timeout};
use super::default_repository;
use super::downloads::{DOWNLOAD_RETRY, NAMESPACE_TURNS, TURN_RETRY};
use super::error::{Error, Result};
use super::finalizer;
use super::held_sources::{self, Held};
use crate::api::names::{TemplateKind, source_name, template_label};
use crate::api::{
    ChartSource, ClusterTemplate, ClusterTemplateStatus, HelmSpec, ServiceTemplate,
    ServicesRevision, SourceHold, SourceHoldReason, TemplateService, TemplateStatus, labels,
};
use crate::flux::words::is_fetching;
use crate::flux::{self, SourceStatus};
use crate::flux::{HelmRepository, REQUESTED_AT};
use crate::plan::order::{Node, dependency_problems};
use crate::plan::releases::{chart_sources, foreign_chart_ref};
use crate::plan::revisions;
use crate::plan::rollout::check_policy;
use crate::plan::services::{kube_constraint, kube_version};
use crate::plan::source_gate::Unreachable;
use crate::plan::users::{cluster_template_users, service_template_users};
use crate::store::{Stores, get};
use k8s_openapi::jiff::Timestamp;

/// What the template controller needs to know about either kind.
pub trait Template:
    Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
    + Clone
    + Serialize
    + DeserializeOwned
    + Debug
    + Send
    + Sync
    + 'static
{
    type Status: Serialize + PartialEq + Clone + Debug + Send + Sync;
    const KIND: TemplateKind;
    fn helm(&self) -> &HelmSpec;
    fn status(&self) -> Option<&Self::Status>;
    fn chart_status(&self) -> Option<&TemplateStatus>;
    /// The whole status, given what the engine found out about the chart.
    fn next_status(&self, chart: TemplateStatus, stores: &Stores) -> Self::Status;
    /// Names of the objects that use this template (`ManagedCluster dev-1`).
    fn users(&self, stores: &Stores) -> Vec<String>;
    /// The spec's Kubernetes field: a ClusterTemplate's `k8sVersion`, a
    /// ServiceTemplate's `k8sConstraint`.
    fn k8s_spec(&self) -> Option<&str>;
    /// What in the spec breaks a rule the API server checks today but may
    /// not have checked when the object was stored.
    fn spec_problem(&self) -> Option<String> {
        None
    }
}

impl Template for ServiceTemplate {
    type Status = TemplateStatus;
    const KIND: TemplateKind = TemplateKind::Service;
    fn helm(&self) -> &HelmSpec {
        &self.spec.helm
    }
    fn status(&self) -> Option<&TemplateStatus> {
        self.status.as_ref()
    }
    fn chart_status(&self) -> Option<&TemplateStatus> {
        self.status.as_ref()
    }
    fn next_status(&self, chart: TemplateStatus, _: &Stores) -> TemplateStatus {
        chart
    }
    fn k8s_spec(&self) -> Option<&str> {
        self.spec.k8s_constraint.as_deref()
    }
    fn spec_problem(&self) -> Option<String> {
        k8s_problem(Self::KIND, self.k8s_spec(), "spec.k8sConstraint")
    }
    fn users(&self, stores: &Stores) -> Vec<String> {
        service_template_users(
            &self.namespace().unwrap_or_default(),
            &self.name_any(),
            &stores.cluster_templates.state(),
            &stores.managed_clusters.state(),
        )
    }
}

impl Template for ClusterTemplate {
    type Status = ClusterTemplateStatus;
    const KIND: TemplateKind = TemplateKind::Cluster;
    fn helm(&self) -> &HelmSpec {
        &self.spec.helm
    }
    fn status(&self) -> Option<&ClusterTemplateStatus> {
        self.status.as_ref()
    }
    fn chart_status(&self) -> Option<&TemplateStatus> {
        self.status.as_ref().map(|s| &s.chart)
    }
    fn next_status(&self, chart: TemplateStatus, stores: &Stores) -> ClusterTemplateStatus {
        let prev = self.status.clone().unwrap_or_default();
        let (ns, name) = (self.namespace(), self.name_any());
        let in_use: BTreeSet<i64> = stores
            .managed_clusters
            .state()
            .iter()
            .filter(|c| c.namespace() == ns && c.spec.template == name)
            .filter_map(|c| c.status.as_ref())
            .flat_map(|s| [s.revision, s.target_revision])
            .flatten()
            .collect();
        let names: Vec<&str> = self.spec.services.iter().map(|s| s.name.as_str()).collect();
        ClusterTemplateStatus {
            chart,
            services_summary: (!names.is_empty()).then(|| names.join(", ")),
            ..next_revision(&prev, &self.spec.services, &in_use)
        }
    }
    fn users(&self, stores: &Stores) -> Vec<String> {
        cluster_template_users(
            &self.namespace().unwrap_or_default(),
            &self.name_any(),
            &stores.managed_clusters.state(),
        )
    }
    fn k8s_spec(&self) -> Option<&str> {
        self.spec.k8s_version.as_deref()
    }
    fn spec_problem(&self) -> Option<String> {
        k8s_problem(Self::KIND, self.k8s_spec(), "spec.k8sVersion")
            .or_else(|| {
                let policy = self.spec.rollout.as_ref()?;
                check_policy(policy).err().map(|e| e.at("spec.rollout"))
            })
            .or_else(|| dependency_problem(&self.spec.services))
    }
}

/// The first `dependsOn` among the template's services that can never be
/// met, with where it is written.
fn dependency_problem(services: &[TemplateService]) -> Option<String> {
    let nodes: Vec<Node<'_>> = services
        .iter()
        .map(|s| Node {
            name: &s.name,
            depends_on: &s.depends_on,
        })
        .collect();
    let (i, why) = dependency_problems(&nodes, "this template")
        .into_iter()
        .next()?;
    Some(format!("spec.services[{i}].dependsOn: {why}"))
}

/// The revision part of a ClusterTemplate's status: the same revision while
/// the services hash the same, the next one when they change, with the
/// services of each revision kept while a cluster uses it or it is recent.
pub fn next_revision(
    prev: &ClusterTemplateStatus,
    services: &[TemplateService],
    in_use: &BTreeSet<i64>,
) -> ClusterTemplateStatus {
    let hash = services_hash(services);
    let (revision, revisions) = revisions::next(
        (prev.revision, prev.services_hash.as_deref()),
        &hash,
        &prev.revisions,
        |r| r.revision,
        |revision| ServicesRevision {
            revision,
            services: services.to_vec(),
        },
        in_use,
    );
    ClusterTemplateStatus {
        revision: Some(revision),
        services_hash: Some(hash),
        revisions,
        ..Default::default()
    }
}

/// A stable hash of a template's services: a change here is a new revision.
pub fn services_hash(services: &[TemplateService]) -> String {
    let canonical = serde_json::to_vec(services).unwrap_or_default();
    hex::encode(&Sha256::digest(&canonical)[..8])
}

pub async fn reconcile<T: Template>(obj: Arc<T>, ctx: Arc<Context>) -> Result<Action> {
    let controller = match T::KIND {
        TemplateKind::Service => "servicetemplates",
        TemplateKind::Cluster => "clustertemplates",
    };
    ctx.counters
        .timed(controller, reconcile_inner(obj.as_ref(), &ctx))
        .await
}

async fn reconcile_inner<T: Template>(obj: &T, ctx: &Context) -> Result<Action> {
    let apply = async |obj: &T| apply(obj, ctx).await;
    let cleanup = async |obj: &T| cleanup(obj, ctx).await;
    finalizer::guarded(ctx, obj, None, apply, cleanup).await
}

/// A template that is not being deleted and holds our finalizer.
async fn apply<T: Template>(obj: &T, ctx: &Context) -> Result<Action> {
    let spec_problem = obj.spec_problem();
    let Checked { chart, retry_in } = match &spec_problem {
        // Invalid as the API server would have found it: nothing is fetched
        // or created for it, and what was read of its chart stays.
        Some(why) => TemplateStatus {
            valid: false,
            validation_error: Some(why.clone()),
            observed_generation: obj.meta().generation,
            ..obj.chart_status().cloned().unwrap_or_default()
        }
        .into(),
        None => {
            let mut checked = chart_status(obj, ctx).await?;
            checked.chart.source_hold = source_hold(obj, &ctx.stores);
            checked
        }
    };
    let was_valid = obj.chart_status().map(|s| s.valid);
    let next = obj.next_status(chart.clone(), &ctx.stores);
    let changed = status_if_changed(ctx, obj, obj.status(), &next)
        .await?
        .is_some();
    if changed && (was_valid != Some(chart.valid) || spec_problem.is_some()) {
        match (&chart.valid, &chart.validation_error) {
            (false, Some(why)) if spec_problem.is_some() => {
                ctx.event(obj, true, "InvalidSpec", why.clone())
            }
            (true, _) => {
                let what = format!("chart {} is ready", obj.helm().describe());
                ctx.event(obj, false, "ChartReady", what);
            }
            // Still being fetched (at start-up, say) is no failure.
            (false, Some(why)) if is_fetching(why) => {
                ctx.event(obj, false, "ChartFetching", why.clone())
            }
            (false, Some(why)) => ctx.event(obj, true, "ChartNotReady", why.clone()),
            (false, None) => {}
        }
    }
    // Until the chart is fetched, look again soon (see clusters::apply).
    let settling = !chart.valid && chart.validation_error.as_deref().is_none_or(is_fetching);
    // A chart source named by chartRef is not the engine's: no change of
    // it triggers this template, so while it is not usable, look again.
    let unwatched = !chart.valid && obj.helm().chart_ref.is_some();
    let secs = match (settling, unwatched) {
        (true, _) => 3,
        (false, true) => 30,
        (false, false) => 600,
    };
    // The default repository is not watched: a change of it reaches the
    // templates that use it when they look again.
    let every = match obj.helm().validate() {
        Ok(ChartSource::DefaultRepository) => default_repository::FOLLOW_INTERVAL,
        _ => Duration::from_secs(600),
    };
    Ok(Action::requeue(
        retry_in.unwrap_or(Duration::from_secs(secs).min(every)),
    ))
}

/// A template still in use keeps its finalizer and says who uses it.
async fn cleanup<T: Template>(obj: &T, ctx: &Context) -> Result<Action> {
    let users = obj.users(&ctx.stores);
    if users.is_empty() {
        finalizer::remove(ctx, obj).await?;
        return Ok(Action::await_change());
    }
    let mut chart = obj.chart_status().cloned().unwrap_or_default();
    let why = format!("cannot be deleted while in use by {}", users.join(", "));
    chart.validation_error = Some(why.clone());
    let next = obj.next_status(chart, &ctx.stores);
    if status_if_changed(ctx, obj, obj.status(), &next)
        .await?
        .is_some()
    {
        ctx.event(obj, true, "DeletionBlocked", why);
    }
    Ok(Action::requeue(Duration::from_secs(30)))
}

/// What a template's chart source gave, and when to look again if not the
/// usual time.
struct Checked {
    chart: TemplateStatus,
    retry_in: Option<Duration>,
}

impl From<TemplateStatus> for Checked {
    fn from(chart: TemplateStatus) -> Self {
        Self {
            chart,
            retry_in: None,
        }
    }
}

/// What is wrong with a chart source: its Ready condition when False, or
/// else a failed fetch. While the source controller tries again, Ready is
/// Unknown ("building artifact") and only FetchFailed still tells the last
/// failure, e.g. a repository that did not answer within its timeout.
fn source_problem(conditions: &[flux::FluxCondition]) -> Option<&flux::FluxCondition> {
    let ready = flux::ready(conditions);
    if ready.is_some_and(|c| c.status == "True") {
        return None;
    }
    ready.filter(|c| c.status == "False").or_else(|| {
        conditions
            .iter()
            .find(|c| c.type_ == "FetchFailed" && c.status == "True")
    })
}

/// Creates the chart source if needed and reads what it produced.
async fn chart_status<T: Template>(obj: &T, ctx: &Context) -> Result<Checked> {
    let ns = obj.namespace().unwrap_or_default();
    let name = obj.name_any();
    let helm = obj.helm();
    let prev = obj.chart_status().cloned().unwrap_or_default();
    let generation = obj.meta().generation;
    let invalid = |msg: String| TemplateStatus {
        valid: false,
        validation_error: Some(msg),
        observed_generation: generation,
        ..Default::default()
    };
    let chart_source = match helm.validate() {
        Ok(source) => source,
        Err(msg) => return Ok(invalid(msg).into()),
    };
    // Nothing of another namespace is read: not its chart source, not
    // its archive.
    if let Some(msg) = foreign_chart_ref(helm, &ns) {
        return Ok(invalid(msg).into());
    }
    let repository = match chart_source {
        ChartSource::Reference(_) => None,
        ChartSource::Repository(repo) => {
            if let Some(Err(why)) = repo.timeout.as_deref().map(source_timeout) {
                return Ok(invalid(format!("spec.helm.repository.timeout: {why}")).into());
            }
            Some(default_repository::named(repo, &ctx.options))
        }
        ChartSource::DefaultRepository => match default_repository::resolve(ctx, &ns).await? {
            Ok(copy) => Some(copy),
            Err(why) => {
                return Ok(Checked {
                    chart: invalid(why),
                    retry_in: Some(default_repository::MISSING_RETRY),
                });
            }
        },
    };
    let owner = obj.controller_owner_ref(&()).unwrap_or_default();
    let options = ctx.options.releases();
    let sources =
        repository.and_then(|repo| chart_sources(T::KIND, &name, &ns, helm, repo, owner, options));
    let (source, repo_problem, url, timeout, hold) = match sources {
        Some((mut repo, chart)) => {
            let cur_repo = get(&ctx.stores.repositories, &ns, &repo.name_any());
            let cur_chart = get(&ctx.stores.charts, &ns, &chart.name_any());
            if cur_repo.is_none() {
                // A new repository starts held back: the source gate lets
                // it be fetched when its namespace has a turn.
                repo.spec.suspend = Some(true);
            }
            // Each template applies the repository it may share under a
            // field manager of its own, so that every owner stays.
            let manager = format!("{FIELD_MANAGER}/{}", template_label(T::KIND, &name));
            let applied = match apply_if_changed_as(ctx, &repo, cur_repo.as_deref(), &manager).await
            {
                Ok(_) => apply_if_changed(ctx, &chart, cur_chart.as_deref())
                    .await
                    .map(drop),
                Err(e) => Err(e),
            };
            match applied {
                Err(Error::NameConflict(c)) => return Ok(invalid(c.to_string()).into()),
                other => other?,
            };
            let_go_of_own_repository(ctx, T::KIND, &ns, &name).await?;
            let hold = cur_repo
                .as_deref()
                .and_then(|r| held_sources::held(r, Timestamp::now()));
            if let Some(r) = &cur_repo
                && retry_asked(obj, &prev, r, hold.as_ref())
            {
                ctx.source_retries.ask(&ns, &r.name_any());
            }
            let repo_problem = cur_repo
                .and_then(|r| r.status.clone())
                .and_then(|s| source_problem(&s.conditions).map(|c| c.message.clone()));
            let url = repo.spec.url.clone();
            let timeout = repo.spec.timeout.clone();
            (
                cur_chart.and_then(|c| c.status.clone()),
                repo_problem,
                url,
                timeout,
                hold,
            )
        }
        None => {
            let r = helm.chart_ref.clone().unwrap_or_default();
            (
                referenced_source(ctx, &r.kind, &ns, &r.name).await?,
                None,
                format!("{} {}", r.kind, r.name),
                None,
                None,
            )
        }
    };
    let chart_name = helm.chart_name.clone().unwrap_or_else(|| helm.describe());
    let version = helm.chart_version.clone().unwrap_or_default();
    let words = flux::words::ChartWords {
        chart: &chart_name,
        version: &version,
        url: &url,
        timeout: timeout.as_deref(),
    };
    let status = source.unwrap_or_default();
    let problem = match &hold {
        Some(held) => Some(hold_words(held, &url, timeout.as_deref(), &ns, ctx)),
        None => source_problem(&status.conditions)
            .map(|c| words.problem(&c.message, repo_problem.as_deref()))
            .or_else(|| repo_problem.as_ref().map(|m| words.problem("", Some(m)))),
    };
    let artifact = status
        .artifact
        .filter(|a| !a.url.is_empty())
        .filter(|a| version.is_empty() || a.revision.is_empty() || a.revision == version);
    let Some(artifact) = artifact else {
        return Ok(invalid(problem.unwrap_or_else(|| words.problem("", None))).into());
    };
    // Only an archive address that names this namespace is read: one of
    // another namespace, or one that names none, could be anyone's.
    match artifact_namespace(&artifact.url) {
        Some(own) if own == ns => {}
        Some(other) => {
            return Ok(invalid(format!(
                "the chart source's archive belongs to namespace {other}; a template may only use charts in its own namespace ({ns})"
            ))
            .into());
        }
        None => {
            return Ok(invalid(format!(
                "the chart source's archive address {} names no namespace; a template may only use charts in its own namespace ({ns})",
                artifact.url
            ))
            .into());
        }
    }
    if prev.valid && prev.chart_digest.as_deref() == Some(artifact.digest.as_str()) {
        let read = k8s_field(T::KIND, &prev).cloned();
        let status = TemplateStatus {
            validation_error: problem,
            observed_generation: generation,
            ..prev
        };
        return Ok(with_k8s(obj, status, read).into());
    }
    let uid = obj.meta().uid.clone().unwrap_or_default();
    if let Some((retry_in, failed)) = ctx.failed_downloads.recent(&uid, &artifact.digest) {
        return Ok(Checked {
            chart: TemplateStatus {
                observed_generation: generation,
                ..failed
            },
            retry_in: Some(retry_in),
        });
    }
    // A bounded number of each namespace's downloads at once: one whose
    // archives hang never holds every worker.
    let Some(_turn) = ctx.download_turns.try_take(&ns) else {
        let what = [chart_name.as_str(), version.as_str()]
            .into_iter()
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let why = format!(
            "fetching soon: chart {what} waits for a turn to be read ({NAMESPACE_TURNS} charts of namespace {ns} are being read now)"
        );
        let chart = match prev.valid {
            true => TemplateStatus {
                validation_error: Some(why),
                observed_generation: generation,
                ..prev
            },
            false => invalid(why),
        };
        return Ok(Checked {
            chart,
            retry_in: Some(TURN_RETRY),
        });
    };
    match fetch_chart(&ctx.client, &artifact.url, &artifact.digest).await {
        Ok(info) => {
            ctx.failed_downloads.forget(&uid);
            let annotation = k8s_annotation(T::KIND);
            let stated = info.annotations.get(annotation).cloned();
            let whence = format!("its annotation {annotation}");
            let ignored = obj.k8s_spec().is_some_and(|v| !v.trim().is_empty());
            if let Some(why) = k8s_problem(T::KIND, stated.as_deref(), &whence).filter(|_| !ignored)
            {
                return Ok(invalid(format!("chart {chart_name} {version}: {why}")).into());
            }
            let status = TemplateStatus {
                valid: true,
                validation_error: problem,
                description: info.description,
                chart_version: Some(info.version),
                config: Some(info.values),
                chart_digest: Some(artifact.digest),
                observed_generation: generation,
                ..Default::default()
            };
            Ok(with_k8s(obj, status, stated).into())
        }
        Err(ArtifactError::InvalidChart(why)) => Ok(invalid(format!(
            "chart {chart_name} {version} from {url} is not a valid chart: {why}"
        ))
        .into()),
        Err(e) => {
            // Said in the template's status, where people look, and tried
            // again later: never a silent loop of retries.
            let why = match e {
                ArtifactError::Digest { .. } | ArtifactError::UnknownDigest { .. } => {
                    format!("chart {chart_name} {version} from {url}: {e}")
                }
                e => e.to_string(),
            };
            tracing::warn!(kind = T::kind(&()).as_ref(), namespace = %ns, object = %name, error = %why, "chart download failed");
            let chart = invalid(why);
            ctx.failed_downloads
                .remember(&uid, &artifact.digest, &chart);
            Ok(Checked {
                chart,
                retry_in: Some(DOWNLOAD_RETRY),
            })
        }
    }
}

/// Whether someone asked to fetch the template's repository again now: its
/// retry annotation names a time after the last fetch the engine asked
/// for, and after the repository was held back; or, while it is held back,
/// the template's spec changed since the engine last looked.
fn retry_asked<T: Template>(
    obj: &T,
    prev: &TemplateStatus,
    repo: &HelmRepository,
    hold: Option<&Held>,
) -> bool {
    let Some(at) = obj
        .annotations()
        .get(labels::RETRY)
        .and_then(|v| v.trim().parse::<Timestamp>().ok())
    else {
        return matches!(hold, Some(Held::Quarantined(_))) && spec_changed(obj, prev);
    };
    let fetched = repo
        .annotations()
        .get(REQUESTED_AT)
        .and_then(|v| v.parse::<Timestamp>().ok());
    let held_since = held_sources::quarantine_of(repo).map(|q| q.since);
    let asked = fetched.max(held_since).is_none_or(|last| at > last);
    asked || matches!(hold, Some(Held::Quarantined(_))) && spec_changed(obj, prev)
}

/// Whether the template's spec changed since the engine last looked.
fn spec_changed<T: Template>(obj: &T, prev: &TemplateStatus) -> bool {
    prev.observed_generation.is_some() && prev.observed_generation != obj.meta().generation
}

/// What a template says of its repository while the source gate holds it
/// back.
fn hold_words(held: &Held, url: &str, timeout: Option<&str>, ns: &str, ctx: &Context) -> String {
    match held {
        Held::Quarantined(q) => {
            let within = match (q.reason, timeout) {
                (Unreachable::NoAnswer, Some(t)) => format!(" (no answer within {t})"),
                _ => String::new(),
            };
            let tries = match q.failures {
                1 => "1 failed try".to_string(),
                n => format!("{n} failed tries in a row"),
            };
            format!(
                "chart repository {url} {}{within}; next try at {} ({tries}); to try now, press t on the template in the console or set its annotation {} to the time now",
                q.reason.words(),
                q.next_try.strftime("%H:%M:%S UTC"),
                labels::RETRY,
            )
        }
        Held::Waiting => {
            let share = match ctx.options.source_share {
                1 => "one new or failing chart repository".to_string(),
                n => format!("{n} new or failing chart repositories"),
            };
            format!(
                "fetching soon: chart repository {url} waits for a turn: namespace {ns} fetches {share} at a time"
            )
        }
    }
}

/// The hold on a template's repository, as its status tells it: found from
/// the template's chart source, `None` for a template whose chart source
/// is its author's (`chartRef`).
pub fn source_hold<T: Template>(obj: &T, stores: &Stores) -> Option<SourceHold> {
    let ns = obj.namespace()?;
    let chart = get(&stores.charts, &ns, &source_name(T::KIND, &obj.name_any()))?;
    let repo = get(&stores.repositories, &ns, &chart.spec.source_ref.name)?;
    let (reason, next_try, failures) = match held_sources::held(&repo, Timestamp::now())? {
        Held::Quarantined(q) => (
            SourceHoldReason::Quarantined,
            Some(q.next_try.to_string()),
            q.failures,
        ),
        Held::Waiting => (
            SourceHoldReason::Waiting,
            None,
            held_sources::quarantine_of(&repo).map_or(0, |q| q.failures),
        ),
    };
    Some(SourceHold {
        reason,
        next_try,
        failures,
        url: repo.spec.url.clone(),
    })
}

/// Deletes the repository source the template had to itself before
/// repositories were shared (`svctmpl-<template>`), once its chart points
/// at the shared one.
async fn let_go_of_own_repository(
    ctx: &Context,
    kind: TemplateKind,
    ns: &str,
    template: &str,
) -> Result<()> {
    let old = source_name(kind, template);
    let Some(repo) = get(&ctx.stores.repositories, ns, &old) else {
        return Ok(());
    };
    if repo.labels().get(labels::TEMPLATE) == Some(&template_label(kind, template)) {
        tracing::info!(namespace = %ns, repository = %old,
            "the template's own chart repository source gives way to the shared one");
        delete::<HelmRepository>(ctx, ns, &old).await?;
    }
    Ok(())
}

/// The chart annotation that states a kind's Kubernetes field, as hmc reads it.
fn k8s_annotation(kind: TemplateKind) -> &'static str {
    match kind {
        TemplateKind::Cluster => labels::K8S_VERSION,
        TemplateKind::Service => labels::K8S_VERSION_CONSTRAINT,
    }
}

/// Where a kind's status keeps its Kubernetes field.
fn k8s_field(kind: TemplateKind, status: &TemplateStatus) -> Option<&String> {
    match kind {
        TemplateKind::Cluster => status.k8s_version.as_ref(),
        TemplateKind::Service => status.k8s_constraint.as_ref(),
    }
}

/// What is wrong with a value of a kind's Kubernetes field (a version for a
/// ClusterTemplate, a range for a ServiceTemplate), saying where it is.
fn k8s_problem(kind: TemplateKind, value: Option<&str>, whence: &str) -> Option<String> {
    let value = value.filter(|v| !v.trim().is_empty())?;
    let checked = match kind {
        TemplateKind::Cluster => kube_version(value).map(drop),
        TemplateKind::Service => kube_constraint(value).map(drop),
    };
    checked.err().map(|e| format!("{whence}: {e}"))
}

/// The status with the kind's Kubernetes field: the spec's, else what the
/// chart states (`read`). The field is immutable, so what a status once
/// took from the spec stays right.
fn with_k8s<T: Template>(
    obj: &T,
    mut status: TemplateStatus,
    read: Option<String>,
) -> TemplateStatus {
    let value = obj
        .k8s_spec()
        .filter(|v| !v.trim().is_empty())
        .map(String::from)
        .or(read);
    match T::KIND {
        TemplateKind::Cluster => status.k8s_version = value,
        TemplateKind::Service => status.k8s_constraint = value,
    }
    status
}

/// The resource name of a Flux source kind: `HelmChart` → `helmcharts`,
/// `OCIRepository` → `ocirepositories`.
pub fn plural_of(kind: &str) -> String {
    let lower = kind.to_ascii_lowercase();
    match lower.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{lower}s"),
    }
}

/// The status of a chart source the template author manages.
async fn referenced_source(
    ctx: &Context,
    kind: &str,
    ns: &str,
    name: &str,
) -> Result<Option<SourceStatus>> {
    Ok(source_status(&ctx.client, kind, ns, name).await?)
}

/// The status of the chart source `kind` `ns/name` (HelmChart,
/// OCIRepository, …), read from the API server; `None` when it does not
/// exist.
pub async fn source_status(
    client: &kube::Client,
    kind: &str,
    ns: &str,
    name: &str,
) -> std::result::Result<Option<SourceStatus>, kube::Error> {
    let version = if kind == "OCIRepository" {
        "v1beta2"
    } else {
        "v1"
    };
    let gvk = GroupVersionKind::gvk("source.toolkit.fluxcd.io", version, kind);
    let plural = plural_of(kind);
    let ar = ApiResource::from_gvk_with_plural(&gvk, &plural);
    let api: Api<DynamicObject> = Api::namespaced_with(client.clone(), ns, &ar);
    let Some(obj) = api.get_opt(name).await? else {
        return Ok(None);
    };
    Ok(obj
        .data
        .get("status")
        .cloned()
        .and_then(|s| serde_json::from_value(s).ok()))
}

#[cfg(test)]
mod plural_tests {
    use super::plural_of;

    #[test]
    fn source_kinds_have_their_resource_names() {
        assert_eq!(plural_of("HelmChart"), "helmcharts");
        assert_eq!(plural_of("OCIRepository"), "ocirepositories");
        assert_eq!(plural_of("HelmRepository"), "helmrepositories");
    }
}

#[cfg(test)]
mod tenancy_tests {
    use super::*;
    use crate::api::Repository;
    use crate::engine::EngineOptions;

    #[test]
    fn the_engines_repositories_carry_a_timeout() {
        let helm = HelmSpec {
            chart_name: Some("x".into()),
            chart_version: Some("1.0.0".into()),
            repository: Some(Repository {
                url: "http://127.0.0.1:1".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let options = EngineOptions::default();
        assert_eq!(options.source_timeout, "20s", "short of Flux's 60s");
        let repository = default_repository::named(helm.repository.as_ref().unwrap(), &options);
        let (repo, _) = chart_sources(
            TemplateKind::Service,
            "t",
            "team-a",
            &helm,
            repository,
            Default::default(),
            options.releases(),
        )
        .unwrap();
        assert_eq!(
            serde_json::to_value(&repo).unwrap()["spec"]["timeout"],
            "20s"
        );
    }

    fn cond(type_: &str, status: &str, message: &str) -> flux::FluxCondition {
        flux::FluxCondition {
            type_: type_.into(),
            status: status.into(),
            message: message.into(),
            ..Default::default()
        }
    }

    #[test]
    fn a_failed_fetch_is_a_problem_while_the_source_tries_again() {
        let problem = |conds: &[flux::FluxCondition]| {
            source_problem(conds).map(|c| format!("{} {}", c.type_, c.message))
        };
        let retrying = [
            cond("Reconciling", "True", "building artifact"),
            cond("Ready", "Unknown", "building artifact"),
            cond("FetchFailed", "True", "context deadline exceeded"),
        ];
        assert_eq!(
            problem(&retrying).as_deref(),
            Some("FetchFailed context deadline exceeded")
        );
        let failed = [
            cond("Ready", "False", "gone"),
            cond("FetchFailed", "True", "x"),
        ];
        assert_eq!(problem(&failed).as_deref(), Some("Ready gone"));
        let ready = [cond("Ready", "True", ""), cond("FetchFailed", "True", "x")];
        assert_eq!(problem(&ready), None);
        assert_eq!(problem(&[cond("Ready", "Unknown", "building")]), None);
    }
}

#[cfg(test)]
mod dependency_tests {
    use super::*;

    #[test]
    fn an_unmeetable_dependency_makes_the_template_invalid_at_its_place() {
        let service = |name: &str, after: &[&str]| TemplateService {
            name: name.into(),
            template: name.into(),
            depends_on: after.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let ok = [
            service("cert-manager", &[]),
            service("ingress-nginx", &["cert-manager"]),
        ];
        assert_eq!(dependency_problem(&ok), None);
        let typo = [
            service("cert-manager", &[]),
            service("ingress-nginx", &["cert-manger"]),
        ];
        assert_eq!(
            dependency_problem(&typo).as_deref(),
            Some(
                "spec.services[1].dependsOn: ingress-nginx depends on cert-manger, which is not a service of this template"
            )
        );
        let cycle = [service("a", &["b"]), service("b", &["a"])];
        assert_eq!(
            dependency_problem(&cycle).as_deref(),
            Some("spec.services[0].dependsOn: a is part of a dependency cycle: a → b → a")
        );
    }
}
