//! The snapshot and the health of what it holds.

use kube::ResourceExt;

use crate::api::ServiceState;
use crate::tui::fixtures::sample::sample;
use crate::tui::model::health::{Health, cluster_ready, service_health, services_ready};
use crate::tui::model::key::{Kind, ObjKey};

#[test]
fn snapshot_sorts_and_counts_usage() {
    let s = sample();
    let names: Vec<String> = s.clusters.iter().map(|c| c.name_any()).collect();
    assert_eq!(names, ["prod-eu-1", "staging-1", "dev-broken"]);
    let use_of = |kind, ns: &str, name: &str| {
        s.usage
            .get(&ObjKey {
                context: Default::default(),
                kind,
                namespace: ns.into(),
                name: name.into(),
            })
            .copied()
            .unwrap_or(0)
    };
    assert_eq!(
        use_of(Kind::ClusterTemplate, "hmc-system", "aws-standalone-cp"),
        2
    );
    assert_eq!(
        use_of(Kind::ServiceTemplate, "hmc-system", "ingress-nginx-4-11-3"),
        2
    );
    // staging-1 disables cert-manager.
    assert_eq!(
        use_of(Kind::ServiceTemplate, "hmc-system", "cert-manager-1-16-2"),
        1
    );
}

#[test]
fn health_of_clusters_and_services() {
    let s = sample();
    let h: Vec<Health> = s.clusters.iter().map(|c| cluster_ready(c).1).collect();
    assert_eq!(h, [Health::Ready, Health::Progressing, Health::Failed]);
    let sv: Vec<(String, Health)> = s.clusters.iter().map(|c| services_ready(c)).collect();
    assert_eq!(sv[0], ("2/2".into(), Health::Ready));
    assert_eq!(sv[1], ("0/1".into(), Health::Progressing));
    assert_eq!(sv[2], ("-".into(), Health::Muted));
    assert_eq!(service_health(ServiceState::Pending), Health::Pending);
    assert_eq!(service_health(ServiceState::Removing), Health::Muted);
}
