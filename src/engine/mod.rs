//! The reconciliation engine: four controllers over the shared stores.
//!
//! - templates: chart sources, chart defaults, revisions, deletion guards;
//! - rollouts: a new revision of a template's services, wave by wave;
//! - clusters: the cluster release, service releases, status.
//!
//! The reconcilers are thin: they read stores, call a planner and apply the
//! difference with one field manager.

pub mod apply;
pub mod artifact;
pub mod backoff;
pub mod claims;
pub mod clusters;
pub mod context;
pub mod error;
pub mod finalizer;
pub mod leader;
pub mod metrics;
pub mod releases;
pub mod requests;
pub mod rollouts;
pub mod templates;
pub mod triggers;

use std::sync::Arc;

use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::reflector::ObjectRef;
use kube::{Api, ResourceExt};
use tokio_util::sync::CancellationToken;

pub use context::{Context, Counters, EngineOptions, FIELD_MANAGER};
pub use error::{Error, Result};

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, labels};
use crate::capi;
use crate::flux::{HelmChart, HelmRelease, HelmRepository};
use crate::store::Stores;
use k8s_openapi::api::core::v1::Secret;
use kube::core::PartialObjectMeta;

/// The CRDs the engine cannot work without, with what installs each.
const REQUIRED_CRDS: &[(&str, &str)] = &[
    (
        "servicetemplates.hmc.mirantis.com",
        "hmc-tui crds | kubectl apply -f -",
    ),
    (
        "clustertemplates.hmc.mirantis.com",
        "hmc-tui crds | kubectl apply -f -",
    ),
    (
        "managedclusters.hmc.mirantis.com",
        "hmc-tui crds | kubectl apply -f -",
    ),
    (
        "templaterollouts.hmc.mirantis.com",
        "hmc-tui crds | kubectl apply -f -",
    ),
    (
        "helmreleases.helm.toolkit.fluxcd.io",
        "install Flux's helm-controller",
    ),
    (
        "helmcharts.source.toolkit.fluxcd.io",
        "install Flux's source-controller",
    ),
    (
        "helmrepositories.source.toolkit.fluxcd.io",
        "install Flux's source-controller",
    ),
    ("clusters.cluster.x-k8s.io", "install Cluster API"),
];

/// Checks that every CRD the engine needs is installed; the error says how
/// to install what is missing.
pub async fn check_crds(client: &kube::Client) -> std::result::Result<(), String> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut missing = Vec::new();
    for (name, hint) in REQUIRED_CRDS {
        match api.get_opt(name).await {
            Ok(Some(_)) => {}
            Ok(None) => missing.push(format!("{name} ({hint})")),
            Err(e) => return Err(format!("cannot read CustomResourceDefinitions: {e}")),
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(format!("missing CRDs: {}", missing.join("; ")))
    }
}

/// The error policy of `controller`: a failed reconcile is retried after
/// an exponential, capped, jittered delay per object (see [`backoff`]).
fn error_policy<K>(controller: &'static str) -> impl Fn(Arc<K>, &Error, Arc<Context>) -> Action
where
    K: kube::Resource,
{
    move |obj, error, ctx| {
        ctx.counters
            .errors
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let key = backoff::key(controller, obj.meta().namespace.as_deref(), &obj.name_any());
        let delay = ctx.backoff.failed(key);
        tracing::warn!(
            controller,
            object = %obj.name_any(),
            error = %error,
            label = error.metric_label(),
            retry_in_ms = delay.as_millis() as u64,
            "reconcile failed; retrying"
        );
        Action::requeue(delay)
    }
}

/// What a controller's run yields for each reconcile.
type Outcome<K, QueueErr> =
    std::result::Result<(ObjectRef<K>, Action), kube::runtime::controller::Error<Error, QueueErr>>;

/// What `controller` does with each outcome: an object that reconciled, or
/// that is gone, starts its retry delays over.
fn settled<K, QueueErr>(
    controller: &'static str,
    ctx: Arc<Context>,
) -> impl FnMut(Outcome<K, QueueErr>) -> futures::future::Ready<()>
where
    K: kube::Resource,
{
    use kube::runtime::controller::Error as RunError;
    move |outcome| {
        let done = match &outcome {
            Ok((obj, _)) => Some((obj.namespace.as_deref(), obj.name.as_str())),
            Err(RunError::ObjectNotFound(obj)) => {
                Some((obj.namespace.as_deref(), obj.name.as_str()))
            }
            Err(_) => None,
        };
        if let Some((ns, name)) = done {
            ctx.backoff.forget(&backoff::key(controller, ns, name));
        }
        futures::future::ready(())
    }
}

/// Wraps a reconciler so that it leaves alone a namespace that a
/// namespace-scoped engine holds (see [`claims`]); the object is looked at
/// again after one default lease duration, by which time a claim whose
/// holder went away has expired.
fn unless_claimed<K, F, Fut>(
    reconcile: F,
) -> impl Fn(Arc<K>, Arc<Context>) -> futures::future::BoxFuture<'static, Result<Action>>
where
    K: kube::Resource + Send + Sync + 'static,
    F: Fn(Arc<K>, Arc<Context>) -> Fut + Copy + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Action>> + Send + 'static,
{
    use futures::FutureExt;
    move |obj, ctx| {
        let claimed_by = obj.namespace().and_then(|ns| ctx.claims.holder(&ns));
        match claimed_by {
            Some(holder) => {
                tracing::debug!(object = %obj.name_any(), namespace = ?obj.namespace(), %holder, "namespace held by a namespace-scoped engine: left alone");
                futures::future::ready(Ok(Action::requeue(std::time::Duration::from_secs(15))))
                    .boxed()
            }
            None => reconcile(obj, ctx).boxed(),
        }
    }
}

/// Maps an object to the ManagedClusters in its namespace that `pick` selects.
fn clusters_where(
    stores: &Stores,
    ns: Option<String>,
    pick: impl Fn(&ManagedCluster) -> bool,
) -> Vec<ObjectRef<ManagedCluster>> {
    stores
        .managed_clusters
        .state()
        .iter()
        .filter(|c| c.namespace() == ns && pick(c))
        .map(|c| ObjectRef::from_obj(c.as_ref()))
        .collect()
}

/// Builds every controller and returns the future that runs them until
/// `shutdown` is cancelled. The controllers trigger from and read the
/// shared stores, which the caller feeds (and scopes).
pub fn run(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let s = ctx.stores.clone();
    let cfg = kube::runtime::controller::Config::default().concurrency(16);

    // Every controller reads and triggers from the shared stores: no
    // controller has a watch or a store of its own, so each object is
    // listed, watched and held once, and a trigger never runs ahead of
    // the store its reconciler reads.
    let service_templates = Controller::for_shared_stream(
        triggers::shared(
            s.applied.service_templates.subscribe(),
            s.service_templates.clone(),
        ),
        s.service_templates.clone(),
    )
    .with_config(cfg.clone())
    .reconcile_on(triggers::from_applied(
        s.applied.charts.subscribe(),
        |c: &HelmChart| triggers::owner::<ServiceTemplate>(c),
        triggers::all(s.service_templates.clone()),
    ))
    .reconcile_on(triggers::from_applied(
        s.applied.repositories.subscribe(),
        |r: &HelmRepository| triggers::owner::<ServiceTemplate>(r),
        triggers::all(s.service_templates.clone()),
    ))
    // Deletion waits for users to go: re-check when they change.
    .reconcile_on(triggers::from_applied(
        s.applied.cluster_templates.subscribe(),
        |ct: &ClusterTemplate| {
            let ns = ct.namespace().unwrap_or_default();
            ct.spec
                .services
                .iter()
                .map(|x| ObjectRef::new(&x.template).within(&ns))
                .collect::<Vec<_>>()
        },
        triggers::all(s.service_templates.clone()),
    ))
    .reconcile_on(triggers::from_applied(
        s.applied.managed_clusters.subscribe(),
        |mc: &ManagedCluster| {
            let ns = mc.namespace().unwrap_or_default();
            mc.spec
                .services
                .iter()
                .filter_map(|x| x.template.as_ref())
                .map(|n| ObjectRef::new(n).within(&ns))
                .collect::<Vec<_>>()
        },
        triggers::all(s.service_templates.clone()),
    ))
    .graceful_shutdown_on(shutdown.clone().cancelled_owned())
    .run(
        unless_claimed(templates::reconcile::<ServiceTemplate>),
        error_policy("servicetemplates"),
        ctx.clone(),
    )
    .for_each(settled("servicetemplates", ctx.clone()));

    let template_of = |mc: &ManagedCluster| {
        Some(
            ObjectRef::<ClusterTemplate>::new(&mc.spec.template)
                .within(&mc.namespace().unwrap_or_default()),
        )
    };
    let cluster_templates = Controller::for_shared_stream(
        triggers::shared(
            s.applied.cluster_templates.subscribe(),
            s.cluster_templates.clone(),
        ),
        s.cluster_templates.clone(),
    )
    .with_config(cfg.clone())
    .reconcile_on(triggers::from_applied(
        s.applied.charts.subscribe(),
        |c: &HelmChart| triggers::owner::<ClusterTemplate>(c),
        triggers::all(s.cluster_templates.clone()),
    ))
    .reconcile_on(triggers::from_applied(
        s.applied.repositories.subscribe(),
        |r: &HelmRepository| triggers::owner::<ClusterTemplate>(r),
        triggers::all(s.cluster_templates.clone()),
    ))
    .reconcile_on(triggers::from_applied(
        s.applied.managed_clusters.subscribe(),
        template_of,
        triggers::all(s.cluster_templates.clone()),
    ))
    .graceful_shutdown_on(shutdown.clone().cancelled_owned())
    .run(
        unless_claimed(templates::reconcile::<ClusterTemplate>),
        error_policy("clustertemplates"),
        ctx.clone(),
    )
    .for_each(settled("clustertemplates", ctx.clone()));

    let rollouts = Controller::for_shared_stream(
        triggers::shared(
            s.applied.cluster_templates.subscribe(),
            s.cluster_templates.clone(),
        ),
        s.cluster_templates.clone(),
    )
    .with_config(cfg.clone())
    .reconcile_on(triggers::rollout_templates(
        s.applied.rollouts.subscribe(),
        s.rollouts.clone(),
    ))
    .reconcile_on(triggers::from_applied(
        s.applied.managed_clusters.subscribe(),
        template_of,
        triggers::all(s.cluster_templates.clone()),
    ))
    .graceful_shutdown_on(shutdown.clone().cancelled_owned())
    .run(
        unless_claimed(rollouts::reconcile),
        error_policy("rollouts"),
        ctx.clone(),
    )
    .for_each(settled("rollouts", ctx.clone()));

    let managed_clusters = {
        let (a, b) = (s.clone(), s.clone());
        Controller::for_shared_stream(
            triggers::shared(
                s.applied.managed_clusters.subscribe(),
                s.managed_clusters.clone(),
            ),
            s.managed_clusters.clone(),
        )
        .with_config(cfg)
        // Everything a cluster depends on triggers from the stores, after
        // the store has the change: the reconcile always sees it.
        .reconcile_on(triggers::from_applied(
            s.applied.releases.subscribe(),
            |r: &HelmRelease| {
                let cluster = r.labels().get(labels::CLUSTER)?;
                Some(ObjectRef::new(cluster).within(&r.namespace()?))
            },
            triggers::all(s.managed_clusters.clone()),
        ))
        .reconcile_on(triggers::from_applied(
            s.applied.capi_clusters.subscribe(),
            |c: &capi::Cluster| Some(ObjectRef::new(&c.name_any()).within(&c.namespace()?)),
            triggers::all(s.managed_clusters.clone()),
        ))
        .reconcile_on(triggers::from_applied(
            s.applied.kubeconfigs.subscribe(),
            |sec: &PartialObjectMeta<Secret>| {
                let cluster = sec
                    .labels()
                    .get("cluster.x-k8s.io/cluster-name")
                    .cloned()
                    .or_else(|| sec.name_any().strip_suffix("-kubeconfig").map(String::from))?;
                Some(ObjectRef::new(&cluster).within(&sec.namespace()?))
            },
            triggers::all(s.managed_clusters.clone()),
        ))
        .reconcile_on(triggers::from_applied(
            s.applied.cluster_templates.subscribe(),
            move |ct: &ClusterTemplate| {
                let name = ct.name_any();
                clusters_where(&a, ct.namespace(), |c| c.spec.template == name)
            },
            triggers::all(s.managed_clusters.clone()),
        ))
        .reconcile_on(triggers::from_applied(
            s.applied.service_templates.subscribe(),
            move |st: &ServiceTemplate| {
                let name = st.name_any();
                let ns = st.namespace();
                let templates: Vec<String> = b
                    .cluster_templates
                    .state()
                    .iter()
                    .filter(|t| {
                        t.namespace() == ns && t.spec.services.iter().any(|x| x.template == name)
                    })
                    .map(|t| t.name_any())
                    .collect();
                clusters_where(&b, ns, |c| {
                    templates.contains(&c.spec.template)
                        || c.spec
                            .services
                            .iter()
                            .any(|x| x.template.as_deref() == Some(&name))
                })
            },
            triggers::all(s.managed_clusters.clone()),
        ))
        // A rollout reaching a cluster (or giving it back its last good
        // revision): only those clusters, once the store has it.
        .reconcile_on(triggers::rollout_clusters(
            s.applied.rollouts.subscribe(),
            s.managed_clusters.clone(),
        ))
        .graceful_shutdown_on(shutdown.clone().cancelled_owned())
        .run(
            unless_claimed(clusters::reconcile),
            error_policy("managedclusters"),
            ctx.clone(),
        )
        .for_each(settled("managedclusters", ctx.clone()))
    };

    async move {
        // Cross-kind lookups need complete stores: before the first full
        // list a missing release would look like one to create. Waited for
        // once here, not in every reconcile.
        if s.wait_until_ready().await.is_err() {
            tracing::error!(
                "a store's watch ended before its first list; the engine does not start"
            );
            return;
        }
        tokio::join!(
            service_templates,
            cluster_templates,
            rollouts,
            managed_clusters
        );
        tracing::info!("engine stopped");
    }
}
