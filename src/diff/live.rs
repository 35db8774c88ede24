//! The fleet as the management cluster has it, read once and only read: the
//! objects of the namespaces a proposal touches, and the charts their
//! services install (for their `values.schema.json`), fetched the way the
//! values editor fetches them.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use futures::StreamExt;
use kube::api::{Api, ListParams};
use kube::{Client, ResourceExt};

use crate::api::{ClusterTemplate, ManagedCluster, MultiClusterService, ServiceTemplate};
use crate::capi;
use crate::engine::chart_values::fetch;
use crate::plan::chart::ChartValues;
use crate::plan::impact::Fleet;
use crate::plan::service_chart::template_chart;

/// Charts fetched at once: the engine's own share of downloads per
/// namespace.
const FETCHES_AT_ONCE: usize = 4;

/// The objects of `namespaces` that decide their clusters' services.
pub async fn fleet(client: &Client, namespaces: &BTreeSet<String>) -> kube::Result<Fleet> {
    let mut fleet = Fleet::default();
    // Which version of Cluster API the server serves: asked once.
    let version = capi::discover(client).await?;
    for ns in namespaces {
        let lp = ListParams::default();
        fleet.cluster_templates.extend(
            Api::<ClusterTemplate>::namespaced(client.clone(), ns)
                .list(&lp)
                .await?
                .items,
        );
        fleet.service_templates.extend(
            Api::<ServiceTemplate>::namespaced(client.clone(), ns)
                .list(&lp)
                .await?
                .items,
        );
        fleet.clusters.extend(
            Api::<ManagedCluster>::namespaced(client.clone(), ns)
                .list(&lp)
                .await?
                .items,
        );
        fleet
            .capi_clusters
            .extend(capi_clusters(client, ns, &version).await?);
        fleet.multi_cluster_services.extend(
            Api::<MultiClusterService>::namespaced(client.clone(), ns)
                .list(&lp)
                .await?
                .items,
        );
    }
    Ok(fleet)
}

/// Cluster API's Clusters of `ns`, which values templates read; none where
/// Cluster API is not installed or the user may not list them (a template
/// that reads one then says it waits for its Cluster).
async fn capi_clusters(
    client: &Client,
    ns: &str,
    version: &capi::Version,
) -> kube::Result<Vec<capi::Cluster>> {
    let api = Api::<capi::Cluster>::all_with(client.clone(), version).constrain(ns);
    match api.list(&ListParams::default()).await {
        Ok(list) => Ok(list.items),
        Err(kube::Error::Api(status)) if matches!(status.code, 403 | 404) => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

/// The ServiceTemplates whose charts the proposal's clusters can install,
/// by (namespace, name): those its ClusterTemplates name, those its
/// ServiceTemplates are, and those its clusters name or get from their
/// templates. Only their charts are downloaded, not every chart of the
/// namespace.
fn used_templates(live: &Fleet, proposal: &Fleet) -> BTreeSet<(String, String)> {
    let key = |ns: Option<String>, name: &str| (ns.unwrap_or_default(), name.to_string());
    let mut used: BTreeSet<(String, String)> = BTreeSet::new();
    for ct in &proposal.cluster_templates {
        used.extend(
            ct.spec
                .services
                .iter()
                .map(|s| key(ct.namespace(), &s.template)),
        );
    }
    for st in &proposal.service_templates {
        used.insert(key(st.namespace(), &st.name_any()));
    }
    for mc in &proposal.clusters {
        let own = mc
            .spec
            .services
            .iter()
            .filter_map(|s| s.template.as_deref());
        used.extend(own.map(|t| key(mc.namespace(), t)));
        let template = proposal
            .cluster_templates
            .iter()
            .chain(&live.cluster_templates)
            .find(|t| t.namespace() == mc.namespace() && t.name_any() == mc.spec.template);
        for s in template.iter().flat_map(|t| &t.spec.services) {
            used.insert(key(mc.namespace(), &s.template));
        }
    }
    used
}

/// The charts of the live ServiceTemplates the proposal's clusters can
/// install, keyed by (namespace, template); and, for each chart that could
/// not be read, a note saying so. A proposed ServiceTemplate is either the
/// live one unchanged or a new one (a change of a live one is refused
/// before, see [`super::immutable`]); a new one's chart is fetched only
/// once it is applied, which a note says.
pub async fn charts(
    client: &Client,
    live: &Fleet,
    proposal: &Fleet,
) -> (BTreeMap<(String, String), Arc<ChartValues>>, Vec<String>) {
    let key = |st: &ServiceTemplate| (st.namespace().unwrap_or_default(), st.name_any());
    let live_keys: BTreeSet<(String, String)> = live.service_templates.iter().map(key).collect();
    let mut notes: Vec<String> = proposal
        .service_templates
        .iter()
        .map(key)
        .filter(|k| !live_keys.contains(k))
        .map(|(ns, name)| {
            format!(
                "service template {ns}/{name} is new: a chart is read only once it is applied; \
                 its values are not checked against the chart's schema"
            )
        })
        .collect();
    let used = used_templates(live, proposal);
    let wanted: Vec<&ServiceTemplate> = live
        .service_templates
        .iter()
        .filter(|st| used.contains(&key(st)))
        .collect();
    let fetched: Vec<_> = futures::stream::iter(wanted)
        .map(|st| async move {
            let key = (st.namespace().unwrap_or_default(), st.name_any());
            let chart = match template_chart(st) {
                Ok(source) => fetch(client, &source).await,
                Err(why) => Err(why),
            };
            (key, chart)
        })
        .buffer_unordered(FETCHES_AT_ONCE)
        .collect()
        .await;
    let mut charts = BTreeMap::new();
    for ((ns, name), chart) in fetched {
        match chart {
            Ok(chart) => {
                charts.insert((ns, name), Arc::new(chart));
            }
            Err(why) => notes.push(format!(
                "service template {ns}/{name}: its chart cannot be read ({why}); its values \
                 are not checked against the chart's schema"
            )),
        }
    }
    notes.sort();
    (charts, notes)
}
