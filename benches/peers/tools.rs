//! The fleet both tools serve, and how each tool is told to install,
//! upgrade and remove ingress-nginx on all of it.
//!
//! The fleet: N ManagedClusters of one ClusterTemplate, whose Cluster API
//! clusters (made by the template's chart, taken in by Cluster API, given
//! their infrastructure by the benchmark as the harness's provider) take
//! the three child clusters in turn. Each tool installs into namespaces of
//! its own, one per cluster, and names the chart's cluster-wide objects
//! after it: many clusters share one child here, where in life each has
//! its own.
//!
//! - hmc-tui: the ClusterTemplate lists the service (a new revision, which
//!   rolls out); each ManagedCluster's entry for it gives its namespace and
//!   values, and only overrides: it gives nothing while the template does
//!   not list the service. Flux installs.
//! - Sveltos: one Profile in the fleet's namespace selects its clusters,
//!   with the namespace and values templated from the cluster's name.

use std::collections::BTreeSet;
use std::time::Duration;

use futures::StreamExt;
use kube::Client;
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use serde_json::json;

use hmc_tui::api::{ClusterTemplate, ManagedCluster, TemplateRollout};

use super::common::{self, TestNamespace, ar, cases, headless::Headless};
use super::usage::Process;

/// The harness's child clusters, which the fleet's clusters take in turn.
pub const CHILDREN: usize = 3;
/// The release name both tools give the chart in each cluster.
pub const RELEASE: &str = "ingress";
/// The label value of this benchmark's namespaces (see
/// `common::TestNamespace::remove_leftovers`).
pub const MARKER: &str = "peers-bench";
/// This benchmark's engine's `/metrics` port.
const ENGINE_PORT: u16 = 17696;
const TEMPLATE: &str = "fleet";

/// The chart versions of the two phases that install.
pub const FIRST: &str = "4.11.3";
pub const SECOND: &str = "4.11.4";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tool {
    HmcTui,
    Sveltos,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::HmcTui => "hmc-tui + Flux",
            Tool::Sveltos => "Sveltos",
        }
    }

    /// The prefix of the namespaces it installs into.
    fn prefix(self) -> &'static str {
        match self {
            Tool::HmcTui => "h",
            Tool::Sveltos => "s",
        }
    }
}

/// How both tools are configured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// Each at its own defaults: hmc-tui rolls a revision out 25% of the
    /// clusters at a time, each wave once the one before is healthy, and
    /// Flux's helm-controller works 4 releases at a time and waits for
    /// them to be ready; Sveltos deploys to every cluster at once, 10
    /// reconciles and 20 workers, and does not wait.
    Defaults,
    /// The same work at once: hmc-tui's rollout takes every cluster in one
    /// wave, Sveltos works 4 at a time as helm-controller does, and waits
    /// for the chart's objects to be ready as Flux does.
    Matched,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Defaults => "defaults",
            Mode::Matched => "matched",
        }
    }
}

/// The three phases, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    Install,
    Upgrade,
    Remove,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Install, Phase::Upgrade, Phase::Remove];

    pub fn name(self) -> &'static str {
        match self {
            Phase::Install => "install 4.11.3",
            Phase::Upgrade => "upgrade to 4.11.4",
            Phase::Remove => "remove",
        }
    }

    /// The chart version every cluster's release is deployed at when the
    /// phase is done; `None`: the release is gone.
    pub fn target(self) -> Option<&'static str> {
        match self {
            Phase::Install => Some(FIRST),
            Phase::Upgrade => Some(SECOND),
            Phase::Remove => None,
        }
    }
}

pub struct Fleet {
    pub n: usize,
    pub ns: String,
    /// Part of every namespace the tools install into in the children, so
    /// that a run never meets what an earlier one left.
    suffix: String,
    test_ns: Option<TestNamespace>,
    engine: Option<Headless>,
    client: Client,
}

pub fn cluster_name(i: usize) -> String {
    format!("c{i:03}")
}

impl Fleet {
    /// The fleet of `n` clusters, provisioned, with the engine running and
    /// nothing installed in them yet.
    pub async fn make(n: usize) -> Self {
        let client = common::mgmt().await;
        let test_ns =
            TestNamespace::create_marked(&client, &format!("peers-{n}"), Some(MARKER)).await;
        let ns = test_ns.name.clone();
        let suffix = ns.rsplit('-').next().unwrap_or_default().to_string();
        templates(&client, &ns).await;
        let engine = Headless::start(
            Some(&ns),
            ENGINE_PORT,
            &common::harness_dir().join("mgmt.kubeconfig"),
            &ns,
            &[],
        );
        let fleet = Self {
            n,
            ns,
            suffix,
            test_ns: Some(test_ns),
            engine: Some(engine),
            client,
        };
        let st: Api<hmc_tui::api::ServiceTemplate> =
            Api::namespaced(fleet.client.clone(), &fleet.ns);
        common::eventually(
            "the service templates valid",
            Duration::from_secs(180),
            || async {
                for version in [FIRST, SECOND] {
                    st.get_opt(&service_template(version))
                        .await
                        .ok()??
                        .status?
                        .valid
                        .then_some(())?;
                }
                Some(())
            },
        )
        .await;
        fleet.clusters().await;
        fleet
    }

    /// Makes the ManagedClusters and plays their provider until Cluster
    /// API says every one is initialised and the engine says it is Ready.
    async fn clusters(&self) {
        let mcs = ar(
            "hmc.mirantis.com",
            "v1alpha1",
            "ManagedCluster",
            "managedclusters",
        );
        futures::stream::iter(0..self.n)
            .for_each_concurrent(16, |i| {
                let mcs = &mcs;
                let name = cluster_name(i);
                let own = self.namespace(Tool::HmcTui, &name);
                let body = json!({
                    "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
                    "metadata": {"name": name},
                    "spec": {"template": TEMPLATE, "services": [{
                        "name": RELEASE, "namespace": own,
                        "values": cases::chart_values(&own, &own),
                    }]},
                });
                async move {
                    common::apply_json(&self.client, mcs, Some(&self.ns), body).await;
                }
            })
            .await;
        let api: Api<ManagedCluster> = Api::namespaced(self.client.clone(), &self.ns);
        let mut provided = BTreeSet::new();
        let patience = Duration::from_secs(300 + 3 * self.n as u64);
        let start = std::time::Instant::now();
        loop {
            if provided.len() < self.n {
                common::capi::provide_new(&self.client, &self.ns, CHILDREN, &mut provided).await;
            }
            let ready = api
                .list(&ListParams::default())
                .await
                .map(|l| l.items.iter().filter(|mc| is_ready(mc)).count())
                .unwrap_or(0);
            if ready == self.n {
                return;
            }
            assert!(
                start.elapsed() < patience,
                "{ready} of {} clusters Ready after {patience:?}; {}",
                self.n,
                common::logs_hint()
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// The namespace (also the name of its cluster-wide objects) `tool`
    /// installs into in cluster `cluster`.
    pub fn namespace(&self, tool: Tool, cluster: &str) -> String {
        format!("{}-{}-{cluster}", tool.prefix(), self.suffix)
    }

    /// Each cluster's release of `tool`, as (child, namespace, name).
    pub fn releases(&self, tool: Tool) -> Vec<super::releases::Release> {
        (0..self.n)
            .map(|i| {
                let name = cluster_name(i);
                (
                    i % CHILDREN + 1,
                    self.namespace(tool, &name),
                    RELEASE.to_string(),
                )
            })
            .collect()
    }

    /// The processes that do `tool`'s work.
    pub fn processes(&self, tool: Tool) -> Vec<Process> {
        let base = common::port_base();
        match tool {
            Tool::HmcTui => vec![
                Process {
                    name: "hmc-tui",
                    pid: self
                        .engine
                        .as_ref()
                        .and_then(|e| e.child.id())
                        .expect("the engine runs"),
                    metrics: (ENGINE_PORT, "hmc_api_requests_total"),
                },
                Process::of_harness(
                    "source-controller",
                    (base + 201, "rest_client_requests_total"),
                ),
                Process::of_harness(
                    "helm-controller",
                    (base + 203, "rest_client_requests_total"),
                ),
            ],
            Tool::Sveltos => vec![Process::of_harness(
                "sveltos",
                (base + 241, "rest_client_requests_total"),
            )],
        }
    }

    /// Configures `tool` for `mode`.
    pub async fn configure(&self, tool: Tool, mode: Mode) {
        match tool {
            Tool::HmcTui => {
                let rollout = match mode {
                    Mode::Defaults => json!(null),
                    Mode::Matched => json!({"maxConcurrent": "100%"}),
                };
                self.patch_template(json!({"spec": {"rollout": rollout}}))
                    .await;
            }
            Tool::Sveltos => {
                let mut args = vec!["peer", "sveltos"];
                if mode == Mode::Matched {
                    args.extend(["--concurrent-reconciles=4", "--worker-number=4"]);
                }
                common::headless::harness(&args).await;
            }
        }
    }

    /// Asks `tool` for what `phase` does, in one write.
    pub async fn ask(&self, tool: Tool, mode: Mode, phase: Phase) {
        match (tool, phase.target()) {
            (Tool::HmcTui, Some(version)) => {
                let services = json!([{"name": RELEASE, "template": service_template(version),
                                       "namespace": RELEASE}]);
                self.patch_template(json!({"spec": {"services": services}}))
                    .await;
            }
            (Tool::HmcTui, None) => self.patch_template(json!({"spec": {"services": []}})).await,
            (Tool::Sveltos, Some(version)) => {
                common::apply_json(
                    &self.client,
                    &profiles(),
                    Some(&self.ns),
                    self.profile(mode, version),
                )
                .await;
            }
            (Tool::Sveltos, None) => {
                let api: Api<kube::api::DynamicObject> =
                    Api::namespaced_with(self.client.clone(), &self.ns, &profiles());
                api.delete("peers", &DeleteParams::default())
                    .await
                    .expect("delete the Profile");
            }
        }
    }

    /// Waits, outside the clock, until `tool` has finished with `phase`:
    /// hmc-tui's rollout has succeeded, Sveltos' Profile is gone.
    pub async fn settle(&self, tool: Tool, phase: Phase) {
        match tool {
            Tool::HmcTui => {
                let templates: Api<ClusterTemplate> =
                    Api::namespaced(self.client.clone(), &self.ns);
                let rollouts: Api<TemplateRollout> = Api::namespaced(self.client.clone(), &self.ns);
                common::eventually(
                    "the rollout to succeed",
                    Duration::from_secs(600),
                    || async {
                        let t = templates.get(TEMPLATE).await.ok()?;
                        let revision = t.status?.revision?;
                        let r = rollouts
                            .get_opt(&format!("{TEMPLATE}-{revision}"))
                            .await
                            .ok()??;
                        (r.status?.phase == hmc_tui::api::RolloutPhase::Succeeded).then_some(())
                    },
                )
                .await;
            }
            Tool::Sveltos if phase == Phase::Remove => {
                let api: Api<kube::api::DynamicObject> =
                    Api::namespaced_with(self.client.clone(), &self.ns, &profiles());
                common::eventually("the Profile gone", Duration::from_secs(600), || async {
                    api.get_opt("peers").await.ok()?.is_none().then_some(())
                })
                .await;
            }
            Tool::Sveltos => {}
        }
    }

    async fn patch_template(&self, patch: serde_json::Value) {
        let api: Api<ClusterTemplate> = Api::namespaced(self.client.clone(), &self.ns);
        api.patch(TEMPLATE, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .expect("patch the ClusterTemplate");
    }

    /// Sveltos' Profile of the fleet: every Cluster API cluster of the
    /// namespace (its chart labels them all), the chart at `version`.
    fn profile(&self, mode: Mode, version: &str) -> serde_json::Value {
        let own = format!(
            "{}-{}-{{{{ .Cluster.metadata.name }}}}",
            Tool::Sveltos.prefix(),
            self.suffix
        );
        json!({
            "apiVersion": "config.projectsveltos.io/v1beta1", "kind": "Profile",
            "metadata": {"name": "peers"},
            "spec": {
                "clusterSelector": {"matchLabels": {"hmc.mirantis.com/test-fixture": "true"}},
                "syncMode": "Continuous",
                "helmCharts": [{
                    "repositoryURL": cases::upstream_repo_url(),
                    "repositoryName": "upstream",
                    "chartName": "upstream/ingress-nginx",
                    "chartVersion": version,
                    "releaseName": RELEASE,
                    "releaseNamespace": own,
                    "helmChartAction": "Install",
                    "values": cases::chart_values(&own, &own),
                    "options": {"wait": mode == Mode::Matched},
                }],
            },
        })
    }

    /// Stops the engine, removes the fleet and what both tools left in the
    /// children.
    pub async fn remove(mut self) {
        if let Some(engine) = self.engine.take() {
            let (status, _) = engine.terminate().await;
            assert!(status.success(), "the engine exited with {status}");
        }
        common::let_go_of_releases(&self.client, &self.ns).await;
        if let Some(ns) = self.test_ns.take() {
            ns.cleanup_and_wait(Duration::from_secs(600)).await;
        }
        for child in 1..=CHILDREN {
            let api: Api<k8s_openapi::api::core::v1::Namespace> =
                Api::all(common::child(child).await);
            for i in (0..self.n).filter(|i| i % CHILDREN + 1 == child) {
                for tool in [Tool::HmcTui, Tool::Sveltos] {
                    let _ = api
                        .delete(
                            &self.namespace(tool, &cluster_name(i)),
                            &DeleteParams::default(),
                        )
                        .await;
                }
            }
        }
    }
}

fn is_ready(mc: &ManagedCluster) -> bool {
    mc.status.as_ref().is_some_and(|s| {
        s.conditions
            .iter()
            .any(|c| c.type_ == hmc_tui::api::conditions::READY && c.status == "True")
    })
}

fn service_template(version: &str) -> String {
    format!("nginx-{}", version.replace('.', "-"))
}

fn profiles() -> kube::api::ApiResource {
    ar("config.projectsveltos.io", "v1beta1", "Profile", "profiles")
}

/// The upstream chart at both versions, and the fleet's template: its
/// cluster chart, no services yet.
async fn templates(client: &Client, ns: &str) {
    let mut yaml = String::new();
    for version in [FIRST, SECOND] {
        yaml += &format!(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: {}\n\
             spec:\n  helm:\n    chartName: ingress-nginx\n    chartVersion: {version}\n    \
             repository:\n      url: {}\n---\n",
            service_template(version),
            cases::upstream_repo_url()
        );
    }
    yaml += &format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata:\n  name: {TEMPLATE}\n\
         spec:\n  helm:\n    chartName: hmc-test-cluster\n    chartVersion: 0.1.0\n    \
         repository:\n      url: {}\n",
        cases::chart_repo_url()
    );
    common::apply_yaml(client, ns, &yaml).await;
}
