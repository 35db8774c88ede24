//! The controllers, one builder each. Every controller reads and triggers
//! from the shared stores: no controller has a watch or a store of its own,
//! so each object is listed, watched and held once, and a trigger never runs
//! ahead of the store its reconciler reads.

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;

use futures::StreamExt;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::events::v1::Event;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{Action, Config, Controller};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Resource, ResourceExt};
use serde::de::DeserializeOwned;
use tokio_util::sync::CancellationToken;

use super::context::Context;
use super::counters::Counters;
use super::error::{Error, Result};
use super::template_reach::{Reach, TemplateReach};
use super::{backoff, clusters, rollouts, templates, throttle, triggers};
use crate::api::{ClusterTemplate, ManagedCluster, MultiClusterService, ServiceTemplate, labels};
use crate::capi;
use crate::flux::{HelmChart, HelmRelease, HelmRepository};
use crate::store::announce::Announcer;
use crate::store::{Stores, get};
/// The error policy of `controller`: a failed reconcile is retried after
/// an exponential, capped, jittered delay per object (see [`backoff`]).
fn error_policy<K>(controller: &'static str) -> impl Fn(Arc<K>, &Error, Arc<Context>) -> Action
where
    K: kube::Resource<DynamicType = ()>,
{
    move |obj, error, ctx| {
        ctx.counters
            .errors
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let key = backoff::key(controller, obj.meta().namespace.as_deref(), &obj.name_any());
        let delay = ctx.backoff.failed(key);
        // `kind`, `namespace` and `object` are the console's warning columns.
        tracing::warn!(
            controller,
            kind = K::kind(&()).as_ref(),
            namespace = obj.meta().namespace.as_deref().unwrap_or_default(),
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

/// A controller's name, and the counts of where its reconciles come from
/// (`hmc_reconcile_triggers_total`).
struct Sources {
    controller: &'static str,
    counters: Arc<Counters>,
}

impl Sources {
    fn of(ctx: &Context, controller: &'static str) -> Self {
        Sources {
            controller,
            counters: ctx.counters.clone(),
        }
    }

    /// `stream`, each key it hands counted as a trigger from `source`.
    fn source<S: futures::Stream>(
        &self,
        source: &'static str,
        stream: S,
    ) -> impl futures::Stream<Item = S::Item> + use<S> {
        let (counters, controller) = (self.counters.clone(), self.controller);
        stream.inspect(move |_| counters.triggers.add(controller, source))
    }
}

/// A controller of `K`, triggered by every object its shared store applies.
fn controller<K>(on: &Sources, applied: &Announcer<K>, store: &Store<K>) -> Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    controller_where(on, applied, store, |_| true)
}

/// A controller of `K`, triggered by the objects its shared store applies
/// that `changed` accepts (counted as its source `self`).
fn controller_where<K>(
    on: &Sources,
    applied: &Announcer<K>,
    store: &Store<K>,
    changed: impl Fn(&K) -> bool + Send + Sync + 'static,
) -> Controller<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    let own = on.source("self", triggers::shared(applied, store.clone(), changed));
    Controller::for_shared_stream(own, store.clone()).with_config(Config::default().concurrency(16))
}

/// Runs `controller` with `reconcile` until `shutdown` is cancelled: a
/// namespace that a namespace-scoped engine holds is left alone, failures
/// are retried with backoff, and settled objects start their delays over,
/// all under the name `name`.
fn start<K, F, Fut>(
    controller: Controller<K>,
    name: &'static str,
    reconcile: F,
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl Future<Output = ()>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    F: Fn(Arc<K>, Arc<Context>) -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<Action>> + Send + 'static,
{
    controller
        .graceful_shutdown_on(shutdown.cancelled_owned())
        .run(unless_claimed(reconcile), error_policy(name), ctx.clone())
        .for_each(settled(name, ctx))
}

/// A template is looked at again when a chart source it owns (or shares)
/// changes.
fn on_own_sources<T>(ctx: &Context, on: &Sources, controller: Controller<T>) -> Controller<T>
where
    T: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    let s = &ctx.stores;
    controller
        .reconcile_on(on.source(
            "charts",
            triggers::from_applied(&s.applied.charts, |c: &HelmChart| triggers::owners::<T>(c)),
        ))
        .reconcile_on(on.source(
            "repositories",
            triggers::from_applied(&s.applied.repositories, |r: &HelmRepository| {
                triggers::owners::<T>(r)
            }),
        ))
}

/// A ClusterTemplate is looked at again when a cluster made from it changes
/// (the revisions its clusters still use, the users its deletion waits
/// for), at most once per look interval.
fn on_clusters_of(
    ctx: &Context,
    on: &Sources,
    controller: Controller<ClusterTemplate>,
) -> Controller<ClusterTemplate> {
    controller.reconcile_on(on.source("clusters", templates_of_clusters_throttled(&ctx.stores)))
}

/// [`templates_of_clusters`], each template at most once per look interval
/// of its size (`rollouts::look_interval`): a look at a template reads every
/// cluster made from it, so while N clusters change at once, one look per
/// interval takes them all in, instead of N looks of O(N) each.
fn templates_of_clusters_throttled(
    s: &Stores,
) -> impl futures::Stream<Item = ObjectRef<ClusterTemplate>> + Send + 'static {
    let clusters = s.managed_clusters.clone();
    throttle::throttled(
        templates_of_clusters(s),
        throttle::Throttle::per_key(Box::new(move |t: &ObjectRef<ClusterTemplate>| {
            let made_from = clusters
                .state()
                .iter()
                .filter(|c| c.spec.template == t.name && c.namespace() == t.namespace)
                .count();
            rollouts::look_interval(made_from)
        })),
    )
}

/// The ClusterTemplate of every ManagedCluster the store applies.
fn templates_of_clusters(
    s: &Stores,
) -> impl futures::Stream<Item = ObjectRef<ClusterTemplate>> + Send + 'static {
    triggers::from_applied(&s.applied.managed_clusters, |mc: &ManagedCluster| {
        Some(
            ObjectRef::<ClusterTemplate>::new(&mc.spec.template)
                .within(&mc.namespace().unwrap_or_default()),
        )
    })
}

/// ServiceTemplates: their chart sources, and deletion that waits for the
/// templates and clusters that use them.
pub(super) fn service_templates(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl Future<Output = ()> {
    let s = &ctx.stores;
    let on = Sources::of(&ctx, "servicetemplates");
    let controller = controller(&on, &s.applied.service_templates, &s.service_templates);
    let controller = on_own_sources(&ctx, &on, controller)
        // Deletion waits for users to go: re-check when they change.
        .reconcile_on(on.source(
            "cluster-templates",
            triggers::from_applied(&s.applied.cluster_templates, |ct: &ClusterTemplate| {
                let ns = ct.namespace().unwrap_or_default();
                ct.spec
                    .services
                    .iter()
                    .map(|x| ObjectRef::new(&x.template).within(&ns))
                    .collect::<Vec<_>>()
            }),
        ))
        .reconcile_on(on.source(
            "managedclusters",
            triggers::from_applied(&s.applied.managed_clusters, |mc: &ManagedCluster| {
                let ns = mc.namespace().unwrap_or_default();
                mc.spec
                    .services
                    .iter()
                    .filter_map(|x| x.template.as_ref())
                    .map(|n| ObjectRef::new(n).within(&ns))
                    .collect::<Vec<_>>()
            }),
        ));
    start(
        controller,
        on.controller,
        templates::reconcile::<ServiceTemplate>,
        ctx.clone(),
        shutdown,
    )
}

/// ClusterTemplates: their chart sources, revisions and deletion guard.
pub(super) fn cluster_templates(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl Future<Output = ()> {
    let s = &ctx.stores;
    let on = Sources::of(&ctx, "clustertemplates");
    let controller = controller(&on, &s.applied.cluster_templates, &s.cluster_templates);
    let controller = on_clusters_of(&ctx, &on, on_own_sources(&ctx, &on, controller));
    start(
        controller,
        on.controller,
        templates::reconcile::<ClusterTemplate>,
        ctx.clone(),
        shutdown,
    )
}

/// Rollouts: a new revision of a template's services, wave by wave. It
/// reconciles ClusterTemplates, whose rollouts it starts and moves on.
pub(super) fn rollouts(ctx: Arc<Context>, shutdown: CancellationToken) -> impl Future<Output = ()> {
    let s = &ctx.stores;
    let on = Sources::of(&ctx, "rollouts");
    let controller = controller(&on, &s.applied.cluster_templates, &s.cluster_templates)
        .reconcile_on(on.source("rollouts", triggers::rollout_templates(&s.applied.rollouts)))
        .reconcile_on(on.source("clusters", templates_of_clusters_throttled(s)));
    start(
        controller,
        on.controller,
        rollouts::reconcile,
        ctx.clone(),
        shutdown,
    )
}

/// MultiClusterServices: their status, from the clusters of their namespace
/// (which the ManagedClusters' controller gives their services). A
/// cluster's change looks at its namespace's MultiClusterServices again,
/// throttled per MultiClusterService as rollouts are per template: each
/// look reads every cluster of the namespace.
pub(super) fn multi_cluster_services(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl Future<Output = ()> {
    let s = &ctx.stores;
    let on = Sources::of(&ctx, "multiclusterservices");
    let controller = controller(
        &on,
        &s.applied.multi_cluster_services,
        &s.multi_cluster_services,
    )
    .reconcile_on(on.source("clusters", multi_cluster_services_of_clusters_throttled(s)));
    start(
        controller,
        on.controller,
        super::multi_cluster_services::reconcile,
        ctx.clone(),
        shutdown,
    )
}

/// Rollouts of MultiClusterServices' services: a new revision, wave by wave
/// over the clusters each selects. It reconciles MultiClusterServices, as
/// the template rollouts' controller reconciles ClusterTemplates.
pub(super) fn multi_cluster_rollouts(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl Future<Output = ()> {
    let s = &ctx.stores;
    let on = Sources::of(&ctx, "multicluster-rollouts");
    let controller = controller(
        &on,
        &s.applied.multi_cluster_services,
        &s.multi_cluster_services,
    )
    .reconcile_on(on.source(
        "rollouts",
        triggers::rollout_multi_cluster_services(&s.applied.rollouts),
    ))
    .reconcile_on(on.source("clusters", multi_cluster_services_of_clusters_throttled(s)));
    start(
        controller,
        on.controller,
        rollouts::reconcile_multi,
        ctx.clone(),
        shutdown,
    )
}

/// The MultiClusterServices of the namespace of every ManagedCluster the
/// store applies, throttled per MultiClusterService as rollouts are per
/// template: each look reads every cluster of the namespace.
fn multi_cluster_services_of_clusters_throttled(
    s: &Stores,
) -> impl futures::Stream<Item = ObjectRef<MultiClusterService>> + Send + 'static {
    let (mcss, clusters) = (s.multi_cluster_services.clone(), s.managed_clusters.clone());
    let of_clusters =
        triggers::from_applied(&s.applied.managed_clusters, move |mc: &ManagedCluster| {
            mcss.state()
                .iter()
                .filter(|m| m.namespace() == mc.namespace())
                .map(|m| ObjectRef::from_obj(m.as_ref()))
                .collect::<Vec<_>>()
        });
    throttle::throttled(
        of_clusters,
        throttle::Throttle::per_key(Box::new(move |m: &ObjectRef<MultiClusterService>| {
            let in_namespace = clusters
                .state()
                .iter()
                .filter(|c| c.namespace() == m.namespace)
                .count();
            rollouts::look_interval(in_namespace)
        })),
    )
}

/// ManagedClusters: the cluster release, the service releases, the status.
pub(super) fn managed_clusters(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl Future<Output = ()> {
    let s = &ctx.stores;
    let (a, b, d, e, f) = (s.clone(), s.clone(), s.clone(), s.clone(), s.clone());
    // What a reconcile wrote comes back through the stores: the cluster is
    // not looked at again for it (see `echoes`).
    let (own_status, own_releases) = (ctx.clone(), ctx.clone());
    let on = Sources::of(&ctx, "managedclusters");
    let controller = controller_where(
        &on,
        &s.applied.managed_clusters,
        &s.managed_clusters,
        move |mc: &ManagedCluster| {
            !own_status
                .echoes
                .is_echo(mc, || Some(ObjectRef::from_obj(mc)))
        },
    )
    // Everything a cluster depends on triggers from the stores, after
    // the store has the change: the reconcile always sees it.
    .reconcile_on(on.source(
        "releases",
        triggers::from_applied(&s.applied.releases, move |r: &HelmRelease| {
            own_releases.echoes.cluster_unless_echo(r, || {
                let cluster = r.labels().get(labels::CLUSTER)?;
                Some(ObjectRef::new(cluster).within(&r.namespace()?))
            })
        }),
    ))
    // The release controller reverted (or failed to revert) changes
    // made by hand: the cluster of that release says so.
    .reconcile_on(on.source(
        "drift",
        triggers::from_applied(&s.applied.drift_events, move |e: &Event| {
            let r = e.regarding.as_ref()?;
            let ns = r.namespace.as_deref()?;
            let release = get(&d.releases, ns, r.name.as_deref()?)?;
            let cluster = release.labels().get(labels::CLUSTER)?;
            Some(ObjectRef::new(cluster).within(ns))
        }),
    ))
    .reconcile_on(on.source(
        "capi-clusters",
        triggers::from_applied(&s.applied.capi_clusters, |c: &capi::Cluster| {
            Some(ObjectRef::new(&c.name_any()).within(&c.namespace()?))
        }),
    ))
    // A namespace's installer account came or went: its clusters' charts may
    // be installed now, or say that they cannot be.
    .reconcile_on(on.source(
        "installers",
        triggers::from_applied(
            &s.applied.installers,
            move |account: &PartialObjectMeta<ServiceAccount>| {
                clusters_where(&e, account.namespace(), |_| true)
            },
        ),
    ))
    // A new revision concerns only the clusters that have none yet; the
    // others wait for its rollout (see `template_reach`).
    .reconcile_on(on.source(
        "cluster-templates",
        triggers::from_applied(&s.applied.cluster_templates, {
            let templates = s.cluster_templates.clone();
            let reach = std::sync::Mutex::new(TemplateReach::starting_from(
                templates.state().iter().map(AsRef::as_ref),
            ));
            move |ct: &ClusterTemplate| {
                let present = templates.get(&ObjectRef::from_obj(ct)).is_some();
                let reach = reach
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .reach(ct, present);
                if reach == Reach::None {
                    return Vec::new();
                }
                let name = ct.name_any();
                clusters_where(&a, ct.namespace(), |c| {
                    c.spec.template == name
                        && reach.reaches(c.status.as_ref().and_then(|s| s.target_revision))
                })
            }
        }),
    ))
    .reconcile_on(on.source(
        "service-templates",
        triggers::from_applied(&s.applied.service_templates, move |st: &ServiceTemplate| {
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
        }),
    ))
    // A rollout reaching a cluster (or giving it back its last good
    // revision): only those clusters, once the store has it.
    .reconcile_on(on.source("rollouts", triggers::rollout_clusters(&s.applied.rollouts)))
    // A MultiClusterService came, changed or went: every cluster of its
    // namespace may gain or lose its services (it selects only there).
    .reconcile_on(on.source(
        "multiclusterservices",
        triggers::from_applied(
            &s.applied.multi_cluster_services,
            move |m: &MultiClusterService| clusters_where(&f, m.namespace(), |_| true),
        ),
    ))
    // Versions held while a write was in flight that were not its echo.
    .reconcile_on(
        on.source(
            "late-versions",
            ctx.echoes
                .late
                .listen(|c: &ObjectRef<ManagedCluster>| Some(c.clone())),
        ),
    );
    start(
        controller,
        on.controller,
        clusters::reconcile,
        ctx.clone(),
        shutdown,
    )
}
