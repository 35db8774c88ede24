//! Which kinds a set of stores watches, and the wiring of one watch per
//! kind into the stores.

use kube::Client;
use kube::runtime::watcher;

use crate::capi;

use super::index;
use super::reflect::{
    Scope, Watches, cluster_of, installer_accounts, is_drift_event, names_only, others_names, ours,
    reflected_where, reflected_with_applied, release_events, without_managed_fields,
};
use super::stores::{Applied, Changes, FirstPages, Health, Listed, Stores};

/// Which kinds a set of stores watches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kinds {
    /// Every kind: what the engine reads.
    All,
    /// Only the kinds the console shows: the templates, the clusters and
    /// the rollouts. The other stores stay empty and never list (their
    /// `listed` flags end unset), so a console that does not share the
    /// engine's stores lists and decodes nothing it does not show.
    Shown,
}

impl Stores {
    /// Sets up one watch per kind, Cluster API's `Cluster`s read through
    /// `capi` (what [`capi::discover`] found the API server serves).
    /// Nothing is read until the returned watches are driven.
    pub fn new(client: &Client, scope: &Scope, capi: capi::Version) -> (Stores, Watches) {
        Stores::watching(client, scope, Kinds::All, capi)
    }

    /// Sets up the watches of `kinds`; the stores of the other kinds stay
    /// empty. Nothing is read until the returned watches are driven.
    pub fn watching(
        client: &Client,
        scope: &Scope,
        kinds: Kinds,
        capi: capi::Version,
    ) -> (Stores, Watches) {
        let mut shown = Watches::new();
        // The watches of the kinds the console does not show.
        let mut w = Watches::new();
        let service_templates =
            reflected_with_applied(scope.api(client), watcher::Config::default(), &mut shown);
        let cluster_templates =
            reflected_with_applied(scope.api(client), watcher::Config::default(), &mut shown);
        let managed_clusters =
            reflected_with_applied(scope.api(client), watcher::Config::default(), &mut shown);
        let rollouts =
            reflected_with_applied(scope.api(client), watcher::Config::default(), &mut shown);
        let multi_cluster_services =
            reflected_with_applied(scope.api(client), watcher::Config::default(), &mut shown);
        let releases_by_cluster = index::Index::new(cluster_of);
        let releases = reflected_where(
            scope.api(client),
            ours(),
            |_| true,
            without_managed_fields,
            Some(releases_by_cluster.clone()),
            &mut w,
        );
        let charts = reflected_with_applied(scope.api(client), ours(), &mut w);
        let repositories = reflected_with_applied(scope.api(client), ours(), &mut w);
        // Shown too: the console renders values templates, which read
        // them.
        let capi_clusters = reflected_with_applied(
            scope.api_with(client, &capi),
            watcher::Config::default(),
            &mut shown,
        );
        // Quiet: after an outage it counts as healthy again only after a
        // spell without failures (see `QUIET_RECOVERY`).
        let drift_events = reflected_where(
            scope.api(client),
            release_events(),
            is_drift_event,
            without_managed_fields,
            None,
            &mut w,
        );
        let other_releases = others_names(scope.api(client), &mut w);
        let other_charts = others_names(scope.api(client), &mut w);
        let other_repositories = others_names(scope.api(client), &mut w);
        let installers = reflected_where(
            scope.api(client),
            installer_accounts(),
            |_| true,
            names_only,
            None,
            &mut w,
        );
        let stores = Stores {
            service_templates: service_templates.0,
            cluster_templates: cluster_templates.0,
            managed_clusters: managed_clusters.0,
            rollouts: rollouts.0,
            multi_cluster_services: multi_cluster_services.0,
            releases: releases.0,
            charts: charts.0,
            repositories: repositories.0,
            capi_clusters: capi_clusters.0,
            drift_events: drift_events.0,
            other_releases: other_releases.0,
            other_charts: other_charts.0,
            other_repositories: other_repositories.0,
            installers: installers.0,
            releases_by_cluster,
            first_pages: FirstPages {
                service_templates: service_templates.5,
                cluster_templates: cluster_templates.5,
                managed_clusters: managed_clusters.5,
                rollouts: rollouts.5,
                multi_cluster_services: multi_cluster_services.5,
                releases: releases.5,
                charts: charts.5,
                repositories: repositories.5,
                capi_clusters: capi_clusters.5,
                drift_events: drift_events.5,
                other_releases: other_releases.5,
                other_charts: other_charts.5,
                other_repositories: other_repositories.5,
                installers: installers.5,
            },
            listed: Listed {
                service_templates: service_templates.2,
                cluster_templates: cluster_templates.2,
                managed_clusters: managed_clusters.2,
                rollouts: rollouts.2,
                multi_cluster_services: multi_cluster_services.2,
                releases: releases.2,
                charts: charts.2,
                repositories: repositories.2,
                capi_clusters: capi_clusters.2,
                drift_events: drift_events.2,
                other_releases: other_releases.2,
                other_charts: other_charts.2,
                other_repositories: other_repositories.2,
                installers: installers.2,
            },
            health: Health {
                service_templates: service_templates.3,
                cluster_templates: cluster_templates.3,
                managed_clusters: managed_clusters.3,
                rollouts: rollouts.3,
                multi_cluster_services: multi_cluster_services.3,
                releases: releases.3,
                charts: charts.3,
                repositories: repositories.3,
                capi_clusters: capi_clusters.3,
                drift_events: drift_events.3,
                other_releases: other_releases.3,
                other_charts: other_charts.3,
                other_repositories: other_repositories.3,
                installers: installers.3,
            },
            applied: Applied {
                service_templates: service_templates.4,
                cluster_templates: cluster_templates.4,
                managed_clusters: managed_clusters.4,
                rollouts: rollouts.4,
                multi_cluster_services: multi_cluster_services.4,
                releases: releases.4,
                charts: charts.4,
                repositories: repositories.4,
                capi_clusters: capi_clusters.4,
                drift_events: drift_events.4,
                other_releases: other_releases.4,
                other_charts: other_charts.4,
                other_repositories: other_repositories.4,
                installers: installers.4,
            },
            changes: Changes {
                service_templates: service_templates.1,
                cluster_templates: cluster_templates.1,
                managed_clusters: managed_clusters.1,
                rollouts: rollouts.1,
                multi_cluster_services: multi_cluster_services.1,
                releases: releases.1,
                charts: charts.1,
                repositories: repositories.1,
                capi_clusters: capi_clusters.1,
                drift_events: drift_events.1,
                other_releases: other_releases.1,
                other_charts: other_charts.1,
                other_repositories: other_repositories.1,
                installers: installers.1,
            },
        };
        // Unread, the other kinds' watches are dropped before they list.
        if kinds == Kinds::All {
            shown.extend(w);
        }
        (stores, shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::health::listed;

    /// Stores of the kinds the console shows watch only those; the
    /// engine's watch every kind. The others never list, and whoever waits
    /// for them learns so instead of waiting for ever.
    #[tokio::test]
    async fn only_the_kinds_asked_for_are_watched() {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = Client::try_from(config).unwrap();
        let scope = Scope::default();
        let capi = capi::Version::default();
        let (all, every) = Stores::watching(&client, &scope, Kinds::All, capi);
        assert_eq!(every.len(), all.health.all().len());
        let (shown, watches) = Stores::watching(&client, &scope, Kinds::Shown, capi);
        assert_eq!(watches.len(), 6);
        for unread in [
            shown.listed.releases.clone(),
            shown.listed.other_releases.clone(),
        ] {
            assert!(listed(unread).await.is_err());
        }
        assert!(!shown.is_ready());
        // The shown kinds list once their watches are driven: their flags
        // still have a sender.
        assert!(shown.listed.managed_clusters.has_changed().is_ok());
        drop(watches);
        assert!(shown.listed.managed_clusters.has_changed().is_err());
    }
}
