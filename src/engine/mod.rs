//! The reconciliation engine: four controllers and a task over the shared
//! stores.
//!
//! - templates: chart sources, chart defaults, revisions, deletion guards;
//! - rollouts: a new revision of a template's services, wave by wave;
//! - clusters: the cluster release, service releases, status;
//! - the source gate (a task listening to the chart repositories store,
//!   `source_gate`): holding back repositories that do not answer, and
//!   giving each namespace a bounded share of first fetches.
//!
//! The reconcilers are thin: they read stores, call a planner and apply the
//! difference with one field manager. Each controller is wired (watches,
//! triggers, concurrency, shutdown) by its own builder in `controllers`.

pub mod apply;
pub mod artifact;
pub mod backoff;
pub mod chart_values;
pub mod claims;
pub mod clusters;
pub mod context;
mod controllers;
pub mod counters;
pub mod default_repository;
pub mod downloads;
pub mod drift;
pub mod echoes;
pub mod error;
pub mod finalizer;
pub mod held_sources;
pub mod leader;
pub mod metrics;
pub mod multi_cluster_services;
pub mod notifications;
pub mod read_only;
pub mod recorder;
pub mod release_state;
pub mod requests;
pub mod role;
pub mod rollouts;
pub mod source_gate;
pub mod template_reach;
pub mod templates;
pub mod throttle;
pub mod triggers;

use std::sync::Arc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use tokio_util::sync::CancellationToken;

pub use context::{Context, EngineOptions, FIELD_MANAGER};
pub use counters::Counters;
pub use error::{Error, Result};

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
        "multiclusterservices.hmc.mirantis.com",
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

/// The CRDs the engine needs that are not installed, each with how to
/// install it; `Err` when they cannot be read (see `crate::startup`).
pub async fn missing_crds(client: &kube::Client) -> std::result::Result<Vec<String>, kube::Error> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut missing = Vec::new();
    for (name, hint) in REQUIRED_CRDS {
        if api.get_opt(name).await?.is_none() {
            missing.push(format!("{name} ({hint})"));
        }
    }
    Ok(missing)
}

/// Builds every controller and returns the future that runs them until
/// `shutdown` is cancelled. The controllers trigger from and read the
/// shared stores, which the caller feeds (and scopes).
pub fn run(
    ctx: Arc<Context>,
    shutdown: CancellationToken,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let s = ctx.stores.clone();
    let service_templates = controllers::service_templates(ctx.clone(), shutdown.clone());
    let cluster_templates = controllers::cluster_templates(ctx.clone(), shutdown.clone());
    let rollouts = controllers::rollouts(ctx.clone(), shutdown.clone());
    let multi_cluster_services = controllers::multi_cluster_services(ctx.clone(), shutdown.clone());
    let multi_cluster_rollouts = controllers::multi_cluster_rollouts(ctx.clone(), shutdown.clone());
    let source_gate = source_gate::run(ctx.clone(), shutdown.clone());
    let managed_clusters = controllers::managed_clusters(ctx, shutdown);

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
            multi_cluster_services,
            multi_cluster_rollouts,
            managed_clusters,
            source_gate
        );
        tracing::info!("engine stopped");
    }
}
