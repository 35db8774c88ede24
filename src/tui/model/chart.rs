//! What the console knows of a service's chart, for the values editor: which
//! chart and version a service's ServiceTemplate installs, where its archive
//! is, and, once the runtime fetched it, its `values.yaml` and
//! `values.schema.json`, parsed once per chart version.
//!
//! Pure: the runtime downloads the archive and hands the files over;
//! [`ChartValues::parse`] reads them.

use std::sync::Arc;

pub use crate::plan::chart::{ChartId, ChartValues};
use crate::plan::service_chart::{ServiceChart, template_chart};
use crate::plan::services::enabled_services;
use crate::tui::model::key::{Kind, KubeContext, ObjKey};
use crate::tui::model::snapshot::Snapshot;
use crate::tui::model::values::services_given;

/// Where the runtime finds a chart's archive: the chart of a
/// ServiceTemplate, in the context the template was read from (two
/// management clusters may serve different archives under one name and
/// version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChartSource {
    pub context: KubeContext,
    pub chart: ServiceChart,
}

/// What the console has of a chart.
#[derive(Clone, Debug, PartialEq)]
pub enum ChartStatus {
    /// No chart to check against, and why.
    Unknown(String),
    /// Being fetched.
    Fetching(ChartId),
    /// Could not be fetched, and why.
    Failed(ChartId, String),
    Ready(Arc<ChartValues>),
}

impl ChartStatus {
    pub fn values(&self) -> Option<&ChartValues> {
        match self {
            ChartStatus::Ready(v) => Some(v),
            _ => None,
        }
    }

    /// Why only the syntax is checked, in one line; `None` once the chart
    /// is there.
    pub fn syntax_only(&self) -> Option<String> {
        match self {
            ChartStatus::Ready(_) => None,
            ChartStatus::Unknown(why) => Some(format!("syntax only: {why}")),
            ChartStatus::Fetching(id) => Some(format!("syntax only: fetching {id}…")),
            ChartStatus::Failed(id, why) => Some(format!("syntax only: cannot fetch {id}: {why}")),
        }
    }
}

/// The chart whose values `service` of `object` (a ManagedCluster or a
/// ClusterTemplate) sets: its ServiceTemplate's, by the same rule the
/// engine uses to pick it. `Err` says why there is none.
pub fn chart_source(
    data: &Snapshot,
    object: &ObjKey,
    service: &str,
) -> Result<ChartSource, String> {
    let (ctx, ns) = (&object.context, &object.namespace);
    let template = match object.kind {
        Kind::ManagedCluster => {
            let mc = data
                .cluster(ctx, ns, &object.name)
                .ok_or_else(|| format!("cluster {} no longer exists", object.name))?;
            let spec = data
                .cluster_template(ctx, ns, &mc.spec.template)
                .map(|ct| services_given(ct, mc).1)
                .unwrap_or_default();
            let enabled = enabled_services(&spec.services, &mc.spec.services);
            enabled
                .iter()
                .find(|s| s.name == service)
                .and_then(|s| s.template())
                .map(str::to_string)
        }
        Kind::ClusterTemplate => data
            .cluster_template(ctx, ns, &object.name)
            .and_then(|ct| ct.spec.services.iter().find(|s| s.name == service))
            .map(|s| s.template.clone()),
        _ => None,
    };
    let template = template
        .filter(|t| !t.is_empty())
        .ok_or_else(|| format!("{service} names no service template here"))?;
    let st = data
        .service_template(ctx, ns, &template)
        .ok_or_else(|| format!("service template {template} does not exist"))?;
    template_chart(st).map(|chart| ChartSource {
        context: st.context.clone(),
        chart,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::tui::fixtures::sample::valued;

    #[test]
    fn a_service_finds_the_chart_of_its_template() {
        let data = valued();
        let object = |kind, name: &str| ObjKey {
            context: Default::default(),
            kind,
            namespace: "hmc-system".into(),
            name: name.into(),
        };
        let source = chart_source(
            &data,
            &object(Kind::ManagedCluster, "prod-eu-1"),
            "ingress-nginx",
        )
        .unwrap();
        assert_eq!(source.chart.template, "ingress-nginx-4-11-3");
        assert_eq!(source.chart.id.name, "ingress-nginx");
        assert_eq!(source.chart.chart_ref, None);
        let source = chart_source(
            &data,
            &object(Kind::ClusterTemplate, "aws-standalone-cp"),
            "ingress-nginx",
        )
        .unwrap();
        assert_eq!(source.chart.template, "ingress-nginx-4-11-3");
        let none = chart_source(&data, &object(Kind::ManagedCluster, "prod-eu-1"), "nope");
        assert_eq!(none.unwrap_err(), "nope names no service template here");
    }
}
