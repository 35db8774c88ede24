//! The chart a ServiceTemplate installs and where its archive is: what
//! the values editor and `hmc-tui diff` fetch to check values against the
//! chart's schema.
//!
//! Pure: it reads the ServiceTemplate and nothing else.

use kube::ResourceExt;

use crate::api::ServiceTemplate;
use crate::plan::chart::ChartId;

/// A ServiceTemplate's chart: its name and version, and the chart source
/// its archive comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServiceChart {
    pub id: ChartId,
    pub namespace: String,
    /// The ServiceTemplate; its chart source is named after it.
    pub template: String,
    /// `(kind, name)` of the chart source the template names itself
    /// (`chartRef`), instead of the one made for it.
    pub chart_ref: Option<(String, String)>,
}

/// The chart `st` installs: the version its status read, else the one it
/// asks for. `Err` says why there is none.
pub fn template_chart(st: &ServiceTemplate) -> Result<ServiceChart, String> {
    let template = st.name_any();
    let helm = &st.spec.helm;
    let status = st.status.as_ref();
    let version = status
        .and_then(|s| s.chart_version.clone())
        .or_else(|| helm.chart_version.clone())
        .unwrap_or_default();
    let chart_ref = helm
        .chart_ref
        .as_ref()
        .map(|r| (r.kind.clone(), r.name.clone()));
    let name = match (&helm.chart_name, &chart_ref) {
        (Some(name), None) => name.clone(),
        (_, Some((_, name))) => name.clone(),
        (None, None) => return Err(format!("service template {template} names no chart")),
    };
    Ok(ServiceChart {
        id: ChartId { name, version },
        namespace: st.namespace().unwrap_or_default(),
        template,
        chart_ref,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ChartRef, HelmSpec, ServiceTemplateSpec, TemplateStatus};

    fn template(helm: HelmSpec, read: Option<&str>) -> ServiceTemplate {
        let mut st = ServiceTemplate::new(
            "ingress",
            ServiceTemplateSpec {
                helm,
                ..Default::default()
            },
        );
        st.metadata.namespace = Some("team-a".into());
        st.status = read.map(|v| TemplateStatus {
            chart_version: Some(v.into()),
            ..Default::default()
        });
        st
    }

    #[test]
    fn the_chart_is_the_version_read_else_the_one_asked_for() {
        let helm = HelmSpec {
            chart_name: Some("ingress-nginx".into()),
            chart_version: Some("4.11.x".into()),
            ..Default::default()
        };
        let asked = template_chart(&template(helm.clone(), None)).unwrap();
        assert_eq!(asked.id.version, "4.11.x");
        assert_eq!(
            (asked.namespace.as_str(), asked.template.as_str()),
            ("team-a", "ingress")
        );
        assert_eq!(asked.chart_ref, None);
        let read = template_chart(&template(helm, Some("4.11.4"))).unwrap();
        assert_eq!(read.id.version, "4.11.4");
    }

    #[test]
    fn a_chart_reference_names_the_chart_and_no_chart_is_said() {
        let by_ref = HelmSpec {
            chart_ref: Some(ChartRef {
                kind: "OCIRepository".into(),
                name: "nginx".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let chart = template_chart(&template(by_ref, None)).unwrap();
        assert_eq!(chart.id.name, "nginx");
        assert_eq!(
            chart.chart_ref,
            Some(("OCIRepository".into(), "nginx".into()))
        );
        let none = template_chart(&template(HelmSpec::default(), None));
        assert_eq!(none.unwrap_err(), "service template ingress names no chart");
    }
}
