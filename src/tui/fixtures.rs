//! Made-up objects for the console's tests and benchmarks: a fixed "now",
//! builders for the pieces of a status, and a fleet of any size. Not part
//! of the console.

use std::sync::Arc;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use kube::api::ObjectMeta;
use kube::runtime::reflector::store::Writer;
use kube::runtime::watcher;

use crate::api::conditions::READY;
use crate::api::{
    ClusterRolloutState, ClusterRolloutStatus, ClusterTemplate, ClusterTemplateSpec,
    ClusterTemplateStatus, HelmSpec, ManagedCluster, ManagedClusterSpec, ManagedClusterStatus,
    ManagedService, Repository, RolloutPhase, RolloutPolicy, RolloutStrategy, ServiceState,
    ServiceStatus, ServiceTemplate, ServiceTemplateSpec, TemplateRollout, TemplateRolloutSpec,
    TemplateRolloutStatus, TemplateService, TemplateStatus, WaveState, WaveStatus,
};
use crate::plan::rollout::preview_groups;
use crate::tui::Readers;
use crate::tui::app::{App, Engine, Msg, Snapshot, Target, update};
use crate::tui::theme::Theme;

/// 2025-01-01T00:00:00Z: the "now" of every test.
pub const NOW: i64 = 1_735_689_600;

pub fn now() -> Timestamp {
    Timestamp::from_second(NOW).unwrap()
}

/// `ago` seconds before [`NOW`].
pub fn time(ago: i64) -> Time {
    Time(Timestamp::from_second(NOW - ago).unwrap())
}

pub fn meta(ns: &str, name: &str, ago: i64) -> ObjectMeta {
    ObjectMeta {
        namespace: Some(ns.into()),
        name: Some(name.into()),
        creation_timestamp: Some(time(ago)),
        ..Default::default()
    }
}

pub fn cond(type_: &str, status: bool, reason: &str, message: &str, ago: i64) -> Condition {
    Condition {
        type_: type_.into(),
        status: if status { "True" } else { "False" }.into(),
        reason: reason.into(),
        message: message.into(),
        observed_generation: Some(1),
        last_transition_time: time(ago),
    }
}

/// A service's status, from the ServiceTemplate `<name>-<version>`.
pub fn service(name: &str, state: ServiceState, version: &str, message: &str) -> ServiceStatus {
    ServiceStatus {
        name: name.into(),
        namespace: Some(name.into()),
        template: Some(format!("{name}-{}", version.replace('.', "-"))),
        state,
        version: Some(version.into()),
        revision: Some(2),
        message: Some(message.into()),
    }
}

pub fn helm(chart: &str, version: &str) -> HelmSpec {
    HelmSpec {
        chart_name: Some(chart.into()),
        chart_version: Some(version.into()),
        repository: Some(Repository {
            url: "https://charts.example.com".into(),
            ..Default::default()
        }),
        chart_ref: None,
    }
}

/// All namespaces, engine in-process, writable.
pub fn target() -> Target {
    Target {
        context: "kind-hmc".into(),
        cluster: "https://127.0.0.1:6443".into(),
        namespace: None,
        engine: Engine::InProcess,
        readonly: false,
    }
}

/// A synced console over `data`, on the clusters screen, at [`NOW`].
pub fn app(data: Snapshot) -> App {
    let mut app = App::new(target(), Theme::default(), now());
    update(&mut app, Msg::Synced);
    update(&mut app, Msg::Data(data));
    app
}

// ---------------------------------------------------------------------------
// A fleet

/// The namespace of the fleet.
pub const FLEET_NAMESPACE: &str = "hmc-system";
/// The ClusterTemplate every cluster of the fleet is made from.
pub const FLEET_TEMPLATE: &str = "aws-standalone-cp";
/// The revision of [`FLEET_TEMPLATE`] the fleet's rollout takes out.
pub const FLEET_REVISION: i64 = 3;

/// Everything the stores hold for a fleet, as the API server lists it.
#[derive(Clone, Debug)]
pub struct Fleet {
    pub clusters: Vec<ManagedCluster>,
    pub cluster_templates: Vec<ClusterTemplate>,
    pub service_templates: Vec<ServiceTemplate>,
    pub rollouts: Vec<TemplateRollout>,
}

/// `dev` for the first tenth, `staging` for the next fifth, `prod` for the rest.
fn env_of(i: usize, n: usize) -> &'static str {
    if i * 10 < n {
        "dev"
    } else if i * 10 < n * 3 {
        "staging"
    } else {
        "prod"
    }
}

const SERVICES: [(&str, &str); 3] = [
    ("ingress-nginx", "4.11.3"),
    ("cert-manager", "1.16.2"),
    ("external-dns", "1.15.0"),
];

/// `n` ManagedClusters from one ClusterTemplate, each with three services:
/// nine in ten Ready, the others installing a service, failed on one, or
/// still provisioning; three ClusterTemplates, four ServiceTemplates; and
/// the rollout of revision 3 of the template to all of them in ten waves
/// (by the `env` label: dev, staging, prod), half-way through wave 5.
pub fn fleet(n: usize) -> Fleet {
    let clusters: Vec<ManagedCluster> = (0..n).map(|i| fleet_cluster(i, n)).collect();
    let cluster_templates = [
        "aws-standalone-cp",
        "azure-hosted-cp",
        "vsphere-standalone-cp",
    ]
    .into_iter()
    .enumerate()
    .map(|(i, name)| {
        let revision = if name == FLEET_TEMPLATE {
            FLEET_REVISION
        } else {
            1
        };
        ClusterTemplate {
            metadata: meta(FLEET_NAMESPACE, name, 200 * 86400 - i as i64 * 3600),
            spec: ClusterTemplateSpec {
                helm: helm(name, "0.0.3"),
                services: SERVICES
                    .iter()
                    .map(|(s, v)| TemplateService {
                        name: (*s).into(),
                        template: format!("{s}-{}", v.replace('.', "-")),
                        ..Default::default()
                    })
                    .collect(),
                rollout: Some(RolloutPolicy {
                    max_concurrent: IntOrString::String("10%".into()),
                    order: Some("env".into()),
                    ..Default::default()
                }),
            },
            status: Some(ClusterTemplateStatus {
                chart: TemplateStatus {
                    valid: true,
                    description: Some(format!("{name}: a cluster and its control plane")),
                    chart_version: Some("0.0.3".into()),
                    ..Default::default()
                },
                revision: Some(revision),
                services_summary: Some("ingress-nginx, cert-manager, external-dns".into()),
                ..Default::default()
            }),
        }
    })
    .collect();
    let service_templates = [
        (
            "ingress-nginx",
            "4.11.3",
            "Ingress controller for Kubernetes using NGINX",
        ),
        (
            "ingress-nginx",
            "4.11.4",
            "Ingress controller for Kubernetes using NGINX",
        ),
        ("cert-manager", "1.16.2", "A Helm chart for cert-manager"),
        (
            "external-dns",
            "1.15.0",
            "ExternalDNS synchronizes exposed Kubernetes Services and Ingresses with DNS providers",
        ),
    ]
    .into_iter()
    .map(|(chart, version, description)| ServiceTemplate {
        metadata: meta(
            FLEET_NAMESPACE,
            &format!("{chart}-{}", version.replace('.', "-")),
            150 * 86400,
        ),
        spec: ServiceTemplateSpec {
            helm: helm(chart, version),
            ..Default::default()
        },
        status: Some(TemplateStatus {
            valid: true,
            description: Some(description.into()),
            chart_version: Some(version.into()),
            ..Default::default()
        }),
    })
    .collect();
    let rollouts = vec![fleet_rollout(&clusters)];
    Fleet {
        clusters,
        cluster_templates,
        service_templates,
        rollouts,
    }
}

fn fleet_cluster(i: usize, n: usize) -> ManagedCluster {
    let env = env_of(i, n);
    let region = ["eu", "us", "ap"][i % 3];
    let name = format!("{env}-{region}-{i:04}");
    let ago = (i as i64 % 90) * 86400 + i as i64 * 37 + 60;
    let mut metadata = meta(FLEET_NAMESPACE, &name, ago);
    metadata.labels = Some(
        [("env", env), ("region", region)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    );
    metadata.uid = Some(format!("00000000-0000-4000-8000-{i:012}"));
    metadata.resource_version = Some((10_000 + i).to_string());
    metadata.generation = Some(1);
    // Every tenth cluster sets its own ingress-nginx values.
    let services = if i.is_multiple_of(10) {
        vec![ManagedService {
            name: "ingress-nginx".into(),
            values: Some("controller:\n  replicaCount: 3\n".into()),
            ..Default::default()
        }]
    } else {
        Vec::new()
    };
    let installed = |s: &(&str, &str)| service(s.0, ServiceState::Installed, s.1, "installed");
    let template_ready = cond(
        "TemplateReady",
        true,
        "Ready",
        &format!("cluster template {FLEET_TEMPLATE} revision 2"),
        ago - 30,
    );
    let provisioned = cond(
        "ClusterReady",
        true,
        "Provisioned",
        "control plane initialized",
        ago - 600,
    );
    let status = match i % 50 {
        // Failed on one service.
        0 => {
            let message = "install failed: timed out waiting for the condition";
            let why = format!("cert-manager: {message}");
            ManagedClusterStatus {
                conditions: vec![
                    template_ready,
                    provisioned,
                    cond("ServicesReady", false, "Failed", &why, 900),
                    cond(READY, false, "Failed", &why, 900),
                ],
                services: vec![
                    installed(&SERVICES[0]),
                    service("cert-manager", ServiceState::Failed, "1.16.2", message),
                    installed(&SERVICES[2]),
                ],
                services_ready: Some("2/3".into()),
                revision: Some(2),
                target_revision: Some(2),
                observed_generation: Some(1),
            }
        }
        // Installing a service.
        1..=3 => {
            let why = "ingress-nginx: installing chart 4.11.3";
            ManagedClusterStatus {
                conditions: vec![
                    template_ready,
                    provisioned,
                    cond("ServicesReady", false, "Installing", why, 120),
                    cond(READY, false, "Installing", why, 120),
                ],
                services: vec![
                    service(
                        "ingress-nginx",
                        ServiceState::Installing,
                        "4.11.3",
                        "installing chart 4.11.3",
                    ),
                    installed(&SERVICES[1]),
                    installed(&SERVICES[2]),
                ],
                services_ready: Some("2/3".into()),
                revision: Some(2),
                target_revision: Some(2),
                observed_generation: Some(1),
            }
        }
        // Still provisioning: its services wait.
        4 => {
            let why = "control plane not initialized yet (phase Provisioning)";
            ManagedClusterStatus {
                conditions: vec![
                    template_ready,
                    cond("ClusterReady", false, "Provisioning", why, 300),
                    cond(
                        "ServicesReady",
                        false,
                        "Pending",
                        "ingress-nginx: waiting for the cluster",
                        300,
                    ),
                    cond(READY, false, "Provisioning", why, 300),
                ],
                services: SERVICES
                    .iter()
                    .map(|(s, v)| service(s, ServiceState::Pending, v, "waiting for the cluster"))
                    .collect(),
                services_ready: Some("0/3".into()),
                revision: None,
                target_revision: Some(2),
                observed_generation: Some(1),
            }
        }
        _ => ManagedClusterStatus {
            conditions: vec![
                template_ready,
                provisioned,
                cond(
                    "ServicesReady",
                    true,
                    "Installed",
                    "3/3 services installed",
                    ago - 900,
                ),
                cond(
                    READY,
                    true,
                    "Ready",
                    "cluster provisioned, 3/3 services installed",
                    ago - 900,
                ),
            ],
            services: SERVICES.iter().map(installed).collect(),
            services_ready: Some("3/3".into()),
            revision: Some(2),
            target_revision: Some(2),
            observed_generation: Some(1),
        },
    };
    ManagedCluster {
        metadata,
        spec: ManagedClusterSpec {
            template: FLEET_TEMPLATE.into(),
            services,
            ..Default::default()
        },
        status: Some(status),
    }
}

/// The rollout of revision 3 (ingress-nginx 4.11.3 → 4.11.4) to `clusters`,
/// in ten waves by `env`: waves 1–4 done, wave 5 under way with a failed
/// cluster, waves 6–10 to come.
fn fleet_rollout(clusters: &[ManagedCluster]) -> TemplateRollout {
    let n = clusters.len();
    let label = |mc: &ManagedCluster| {
        mc.metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("env"))
            .cloned()
            .unwrap_or_default()
    };
    let rank = |env: &str| ["dev", "staging", "prod"].iter().position(|e| *e == env);
    let mut order: Vec<(&ManagedCluster, String)> =
        clusters.iter().map(|mc| (mc, label(mc))).collect();
    order.sort_by(|(a, ea), (b, eb)| {
        (rank(ea), a.metadata.name.as_deref()).cmp(&(rank(eb), b.metadata.name.as_deref()))
    });
    let per_wave = n.div_ceil(10).max(1);
    let waves_n = n.div_ceil(per_wave) as u32;
    let current = waves_n.div_ceil(2);
    let mut waves: Vec<WaveStatus> = Vec::new();
    let mut members: Vec<ClusterRolloutStatus> = Vec::new();
    let mut updated = 0;
    for (i, (mc, env)) in order.iter().enumerate() {
        let wave = (i / per_wave) as u32 + 1;
        let in_wave = i % per_wave;
        if in_wave == 0 {
            let started = 5400 - i64::from(wave) * 600;
            waves.push(WaveStatus {
                number: wave,
                state: match wave {
                    w if w < current => WaveState::Succeeded,
                    w if w == current => WaveState::Progressing,
                    _ => WaveState::Pending,
                },
                group: Some(env.clone()),
                approved_by: None,
                approved_at: None,
                started_at: (wave <= current).then(|| time(started)),
                finished_at: (wave < current).then(|| time(started - 540)),
            });
        }
        let name = mc.metadata.name.clone().unwrap_or_default();
        let (state, reason) = match wave {
            w if w < current => (ClusterRolloutState::Updated, None),
            w if w == current => match in_wave % 10 {
                0..=4 => (ClusterRolloutState::Updated, None),
                5 if in_wave == 5 => (
                    ClusterRolloutState::Failed,
                    Some(
                        "not healthy within 10m: ingress-nginx: upgrade failed: timed out waiting for the condition"
                            .to_string(),
                    ),
                ),
                _ => (
                    ClusterRolloutState::Updating,
                    Some("ingress-nginx: upgrading to 4.11.4".to_string()),
                ),
            },
            _ => (
                ClusterRolloutState::Waiting,
                Some(format!("wave {current} not yet done")),
            ),
        };
        if state == ClusterRolloutState::Updated {
            updated += 1;
        }
        members.push(ClusterRolloutStatus {
            name,
            wave,
            state,
            from_revision: Some(2),
            rollback_revision: (wave <= current).then_some(2),
            since: Some(time(if wave <= current { 300 } else { 5400 })),
            reason,
        });
    }
    let bump = "ingress-nginx 4.11.3 → 4.11.4".to_string();
    let changes: Vec<(String, Vec<String>)> = clusters
        .iter()
        .map(|mc| {
            let mut change = vec![bump.clone()];
            if !mc.spec.services.is_empty() {
                change.push("ingress-nginx: controller.replicaCount 2 → 3".into());
            }
            (mc.metadata.name.clone().unwrap_or_default(), change)
        })
        .collect();
    let preview = preview_groups(changes);
    let change_summary = preview.first().map(|g| {
        let more = preview.len() - 1;
        let mut s = format!("{} clusters: {}", g.count, g.changes.join("; "));
        if more > 0 {
            s.push_str(&format!(" (+{more} more groups)"));
        }
        s
    });
    let failed = members
        .iter()
        .filter(|c| c.state == ClusterRolloutState::Failed)
        .count();
    TemplateRollout {
        metadata: meta(
            FLEET_NAMESPACE,
            &format!("{FLEET_TEMPLATE}-{FLEET_REVISION}"),
            5400,
        ),
        spec: TemplateRolloutSpec {
            template: FLEET_TEMPLATE.into(),
            revision: FLEET_REVISION,
            policy: RolloutPolicy {
                strategy: RolloutStrategy::Automatic,
                max_concurrent: IntOrString::String("10%".into()),
                failure_budget: 5,
                order: Some("env".into()),
                ..Default::default()
            },
        },
        status: Some(TemplateRolloutStatus {
            phase: RolloutPhase::Progressing,
            message: Some(format!(
                "wave {current}/{waves_n} in progress; {updated}/{n} updated, {failed} failed"
            )),
            waves,
            clusters: members,
            preview,
            history: Vec::new(),
            paused_by: None,
            wave_summary: Some(format!("{current}/{waves_n}")),
            updated_summary: Some(format!("{updated}/{n}")),
            change_summary,
            superseded_by: None,
            started_at: Some(time(5400)),
            finished_at: None,
        }),
    }
}

impl Fleet {
    /// The stores the console reads, filled with the fleet (in the order a
    /// list returns it; the console sorts).
    pub fn readers(&self) -> Readers {
        fn store<K>(objects: &[K]) -> kube::runtime::reflector::Store<K>
        where
            K: kube::Resource + Clone + 'static,
            K::DynamicType: Default + Eq + std::hash::Hash + Clone,
        {
            let mut writer = Writer::<K>::default();
            writer.apply_watcher_event(&watcher::Event::Init);
            for object in objects {
                writer.apply_watcher_event(&watcher::Event::InitApply(object.clone()));
            }
            writer.apply_watcher_event(&watcher::Event::InitDone);
            writer.as_reader()
        }
        Readers {
            clusters: store(&self.clusters),
            cluster_templates: store(&self.cluster_templates),
            service_templates: store(&self.service_templates),
            rollouts: store(&self.rollouts),
            events: store::<Event>(&[]),
        }
    }

    /// The fleet as the console shows it.
    pub fn snapshot(&self) -> Snapshot {
        fn arcs<K: Clone>(v: &[K]) -> Vec<Arc<K>> {
            v.iter().cloned().map(Arc::new).collect()
        }
        Snapshot::new(
            arcs(&self.clusters),
            arcs(&self.cluster_templates),
            arcs(&self.service_templates),
        )
        .with_rollouts(arcs(&self.rollouts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::app::{Kind, ObjKey};

    #[test]
    fn a_fleet_of_a_thousand() {
        let fleet = fleet(1000);
        let data = fleet.readers().snapshot();
        assert_eq!(data.clusters.len(), 1000);
        assert_eq!(data.cluster_templates.len(), 3);
        assert_eq!(data.service_templates.len(), 4);
        let uses = |kind, name: &str| {
            data.usage.get(&ObjKey {
                kind,
                namespace: FLEET_NAMESPACE.into(),
                name: name.into(),
            })
        };
        assert_eq!(uses(Kind::ClusterTemplate, FLEET_TEMPLATE), Some(&1000));
        assert_eq!(
            uses(Kind::ServiceTemplate, "external-dns-1-15-0"),
            Some(&1000)
        );
        let ready = data
            .clusters
            .iter()
            .filter(|mc| crate::tui::app::cluster_ready(mc).0 == "True")
            .count();
        assert_eq!(ready, 900);

        let status = data.rollouts[0].status.as_ref().unwrap();
        assert_eq!(status.waves.len(), 10);
        assert_eq!(status.clusters.len(), 1000);
        for wave in &status.waves {
            let members = status.clusters.iter().filter(|c| c.wave == wave.number);
            assert_eq!(members.count(), 100, "wave {}", wave.number);
        }
        let groups: Vec<_> = status.waves.iter().map(|w| w.group.as_deref()).collect();
        assert_eq!(groups[0], Some("dev"));
        assert_eq!(groups[1..3], [Some("staging"); 2]);
        assert_eq!(groups[3..], [Some("prod"); 7]);
        assert_eq!(status.preview.len(), 2);
        assert_eq!(status.preview[0].count, 900);
        assert_eq!(status.updated_summary.as_deref(), Some("450/1000"));
    }
}
