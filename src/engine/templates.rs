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

use super::apply::{apply_if_changed, status_if_changed};
use super::artifact::{ArtifactError, fetch_chart};
use super::context::Context;
use super::error::{Error, Result};
use super::finalizer;
use super::releases::{TemplateKind, chart_sources};
use crate::api::{
    ClusterTemplate, ClusterTemplateStatus, HelmSpec, ServiceTemplate, ServicesRevision,
    TemplateService, TemplateStatus,
};
use crate::flux::{self, SourceStatus};
use crate::store::{Stores, get};

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
    fn users(&self, stores: &Stores) -> Vec<String> {
        let (ns, name) = (self.namespace().unwrap_or_default(), self.name_any());
        let mut users: Vec<String> = stores
            .cluster_templates
            .state()
            .iter()
            .filter(|t| {
                t.namespace().as_deref() == Some(&ns)
                    && t.spec.services.iter().any(|s| s.template == name)
            })
            .map(|t| format!("ClusterTemplate {}", t.name_any()))
            .collect();
        users.extend(
            stores
                .managed_clusters
                .state()
                .iter()
                .filter(|c| {
                    c.namespace().as_deref() == Some(&ns)
                        && c.spec
                            .services
                            .iter()
                            .any(|s| s.template.as_deref() == Some(&name))
                })
                .map(|c| format!("ManagedCluster {}", c.name_any())),
        );
        users.sort();
        users
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
        let (ns, name) = (self.namespace().unwrap_or_default(), self.name_any());
        let mut users: Vec<String> = stores
            .managed_clusters
            .state()
            .iter()
            .filter(|c| c.namespace().as_deref() == Some(&ns) && c.spec.template == name)
            .map(|c| format!("ManagedCluster {}", c.name_any()))
            .collect();
        users.sort();
        users
    }
}

/// Revisions a template remembers beyond those its clusters still use.
const KEEP_REVISIONS: usize = 10;

/// The revision part of a ClusterTemplate's status: the same revision while
/// the services hash the same, the next one when they change, with the
/// services of each revision kept while a cluster uses it or it is recent.
pub fn next_revision(
    prev: &ClusterTemplateStatus,
    services: &[TemplateService],
    in_use: &BTreeSet<i64>,
) -> ClusterTemplateStatus {
    let hash = services_hash(services);
    let revision = match (prev.revision, prev.services_hash.as_deref()) {
        (Some(r), Some(h)) if h == hash => r,
        (Some(r), _) => r + 1,
        (None, _) => 1,
    };
    let mut revisions = prev.revisions.clone();
    if !revisions.iter().any(|r| r.revision == revision) {
        revisions.push(ServicesRevision {
            revision,
            services: services.to_vec(),
        });
    }
    revisions.sort_by_key(|r| r.revision);
    let recent_from = revisions.len().saturating_sub(KEEP_REVISIONS);
    let mut index = 0;
    revisions.retain(|r| {
        index += 1;
        index > recent_from || in_use.contains(&r.revision)
    });
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
    if obj.meta().deletion_timestamp.is_some() {
        return cleanup(obj, ctx).await;
    }
    if !finalizer::has(obj) {
        finalizer::add(ctx, obj).await?;
        return Ok(Action::await_change());
    }
    let chart = chart_status(obj, ctx).await?;
    let was_valid = obj.chart_status().map(|s| s.valid);
    let next = obj.next_status(chart.clone(), &ctx.stores);
    if status_if_changed(ctx, obj, obj.status(), &next).await? && was_valid != Some(chart.valid) {
        match (&chart.valid, &chart.validation_error) {
            (true, _) => {
                let what = format!("chart {} is ready", obj.helm().describe());
                ctx.event(obj, false, "ChartReady", what).await;
            }
            (false, Some(why)) => ctx.event(obj, true, "ChartNotReady", why.clone()).await,
            (false, None) => {}
        }
    }
    // Until the chart is fetched, look again soon (see clusters::apply).
    let settling = !chart.valid
        && chart
            .validation_error
            .as_deref()
            .is_none_or(|m| m.starts_with("fetching"));
    let secs = if settling { 3 } else { 600 };
    Ok(Action::requeue(Duration::from_secs(secs)))
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
    if status_if_changed(ctx, obj, obj.status(), &next).await? {
        ctx.event(obj, true, "DeletionBlocked", why).await;
    }
    Ok(Action::requeue(Duration::from_secs(30)))
}

/// Creates the chart source if needed and reads what it produced.
async fn chart_status<T: Template>(obj: &T, ctx: &Context) -> Result<TemplateStatus> {
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
    if let Err(msg) = helm.validate() {
        return Ok(invalid(msg));
    }
    let owner = obj.controller_owner_ref(&()).unwrap_or_default();
    let (source, repo_problem, url) =
        match chart_sources(T::KIND, &name, &ns, helm, owner, &ctx.options) {
            Some((repo, chart)) => {
                let cur_repo = get(&ctx.stores.repositories, &ns, &repo.name_any());
                let cur_chart = get(&ctx.stores.charts, &ns, &chart.name_any());
                let applied = match apply_if_changed(ctx, &repo, cur_repo.as_deref()).await {
                    Ok(_) => apply_if_changed(ctx, &chart, cur_chart.as_deref()).await,
                    Err(e) => Err(e),
                };
                match applied {
                    Err(Error::NameConflict(c)) => return Ok(invalid(c.to_string())),
                    other => other?,
                };
                let repo_problem = cur_repo.and_then(|r| r.status.clone()).and_then(|s| {
                    flux::ready(&s.conditions)
                        .filter(|c| c.status == "False")
                        .map(|c| c.message.clone())
                });
                let url = repo.spec.url.clone();
                (cur_chart.and_then(|c| c.status.clone()), repo_problem, url)
            }
            None => {
                let r = helm.chart_ref.clone().unwrap_or_default();
                let source_ns = r.namespace.clone().unwrap_or_else(|| ns.clone());
                (
                    referenced_source(ctx, &r.kind, &source_ns, &r.name).await?,
                    None,
                    format!("{} {}", r.kind, r.name),
                )
            }
        };
    let chart_name = helm.chart_name.clone().unwrap_or_else(|| helm.describe());
    let version = helm.chart_version.clone().unwrap_or_default();
    let status = source.unwrap_or_default();
    let ready = flux::ready(&status.conditions);
    let problem = ready
        .filter(|c| c.status == "False")
        .map(|c| {
            flux::words::chart_problem(
                &chart_name,
                &version,
                &url,
                &c.message,
                repo_problem.as_deref(),
            )
        })
        .or_else(|| {
            repo_problem
                .as_ref()
                .map(|m| flux::words::chart_problem(&chart_name, &version, &url, "", Some(m)))
        });
    let artifact = status
        .artifact
        .filter(|a| !a.url.is_empty())
        .filter(|a| version.is_empty() || a.revision.is_empty() || a.revision == version);
    let Some(artifact) = artifact else {
        return Ok(invalid(problem.unwrap_or_else(|| {
            flux::words::chart_problem(&chart_name, &version, &url, "", None)
        })));
    };
    if prev.valid && prev.chart_digest.as_deref() == Some(artifact.digest.as_str()) {
        return Ok(TemplateStatus {
            validation_error: problem,
            observed_generation: generation,
            ..prev
        });
    }
    match fetch_chart(&ctx.client, &artifact.url, &artifact.digest).await {
        Ok(info) => Ok(TemplateStatus {
            valid: true,
            validation_error: problem,
            description: info.description,
            chart_version: Some(info.version),
            config: Some(info.values),
            chart_digest: Some(artifact.digest),
            observed_generation: generation,
        }),
        Err(ArtifactError::InvalidChart(why)) => Ok(invalid(format!(
            "chart {chart_name} {version} from {url} is not a valid chart: {why}"
        ))),
        Err(e) => Err(e.into()),
    }
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
    let version = if kind == "OCIRepository" {
        "v1beta2"
    } else {
        "v1"
    };
    let gvk = GroupVersionKind::gvk("source.toolkit.fluxcd.io", version, kind);
    let plural = plural_of(kind);
    let ar = ApiResource::from_gvk_with_plural(&gvk, &plural);
    let api: Api<DynamicObject> = Api::namespaced_with(ctx.client.clone(), ns, &ar);
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
