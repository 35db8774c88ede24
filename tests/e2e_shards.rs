//! The engine end to end with shards of the release controller: the
//! harness runs the main release controller (releases without a shard
//! label) and two shards, `shard1` and `shard2`. An engine given both keys
//! spreads the clusters over them, a cluster's releases together, and each
//! shard installs its own. Given `shard1` alone, the clusters of `shard2`
//! move to it and no other does; given none, the main controller takes
//! them all back. Nothing is installed again by a move, and every service
//! stays Installed throughout.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::cases::*;
use common::*;
use hmc_tui::api::names::service_release_name;
use hmc_tui::api::{ManagedCluster, ServiceState};
use hmc_tui::engine::EngineOptions;
use hmc_tui::flux::{HelmRelease, SHARD_LABEL};
use hmc_tui::plan::shard::shard_of;
use kube::ResourceExt;
use kube::api::Api;
use serde_json::json;

const SERVICE: &str = "web";
/// How long a move to another shard may take on a loaded machine.
const MOVE: Duration = Duration::from_secs(120);

/// One cluster of the test: its name, the child it runs on, its shard
/// among `shard1,shard2`.
struct Cluster {
    name: String,
    child: usize,
    shard: String,
}

impl Cluster {
    /// Its two releases: its own chart's and its service's.
    fn releases(&self) -> [String; 2] {
        [self.name.clone(), service_release_name(&self.name, SERVICE)]
    }
}

fn keys(keys: &[&str]) -> Vec<String> {
    keys.iter().map(|k| k.to_string()).collect()
}

/// Six clusters, three on each shard (names picked so, since the
/// namespace is new on every run), two on each child cluster.
fn fleet(ns: &str) -> Vec<Cluster> {
    let both = keys(&["shard1", "shard2"]);
    let mut picked: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for i in 1.. {
        let name = format!("c{i}");
        let shard = shard_of(&both, ns, &name).unwrap();
        let on = picked.entry(shard).or_default();
        if on.len() < 3 {
            on.push(name);
        }
        if picked.values().map(Vec::len).sum::<usize>() == 6 {
            break;
        }
    }
    picked
        .into_iter()
        .flat_map(|(shard, names)| names.into_iter().map(move |n| (shard, n)))
        .enumerate()
        .map(|(i, (shard, name))| Cluster {
            name,
            child: i % 3 + 1,
            shard: shard.to_string(),
        })
        .collect()
}

/// The stand-in chart as a ServiceTemplate, and a ClusterTemplate with no
/// services of its own: each cluster names its service, into a namespace
/// of its own in its child.
async fn templates(mgmt: &kube::Client, ns: &str) {
    let yaml = format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: web-1\n\
         spec:\n  helm:\n    chartName: ingress-nginx\n    chartVersion: 4.11.3\n    \
         repository:\n      url: {repo}\n---\n\
         apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata:\n  name: plain\n\
         spec:\n  helm:\n    chartName: hmc-test-cluster\n    chartVersion: 0.1.0\n    \
         repository:\n      url: {repo}\n",
        repo = chart_repo_url()
    );
    apply_yaml(mgmt, ns, &yaml).await;
}

fn service_namespace(ns: &str, cluster: &str) -> String {
    format!("{ns}-{cluster}")
}

/// The shard label of every release in the namespace, by name.
async fn shards(releases: &Api<HelmRelease>) -> BTreeMap<String, Option<String>> {
    releases
        .list(&Default::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .map(|r| (r.name_any(), r.labels().get(SHARD_LABEL).cloned()))
        .collect()
}

/// Whether every cluster's service is Installed.
async fn all_installed(mcs: &Api<ManagedCluster>, fleet: &[Cluster]) -> bool {
    for c in fleet {
        match service_state(mcs, &c.name, SERVICE).await {
            Some((ServiceState::Installed, _)) => {}
            _ => return false,
        }
    }
    true
}

/// The lines of a release controller's log (`helm-controller`, or
/// `helm-controller-<shard>`) about release `name` of namespace `ns`.
fn log_lines(controller: &str, ns: &str, name: &str) -> Vec<String> {
    let path = harness_dir().join("logs").join(format!("{controller}.log"));
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let needle = format!(r#""HelmRelease": {{"name":"{name}","namespace":"{ns}"}}"#);
    text.lines()
        .filter(|l| l.contains(&needle))
        .map(String::from)
        .collect()
}

fn controller_of(shard: Option<&str>) -> String {
    match shard {
        Some(s) => format!("helm-controller-{s}"),
        None => "helm-controller".into(),
    }
}

const CONTROLLERS: [Option<&str>; 3] = [None, Some("shard1"), Some("shard2")];

/// A Helm install or upgrade the controller ran for the release.
fn helm_actions(lines: &[String]) -> Vec<&String> {
    lines
        .iter()
        .filter(|l| l.contains("running 'install'") || l.contains("running 'upgrade'"))
        .collect()
}

/// The engine's last applied change of a release: when, and what.
async fn applied_by_engine(releases: &Api<HelmRelease>, name: &str) -> Option<String> {
    let r = releases.get_opt(name).await.ok()??;
    r.managed_fields()
        .iter()
        .find(|f| f.manager.as_deref() == Some(hmc_tui::engine::FIELD_MANAGER))
        .map(|f| format!("{:?} {:?}", f.time, f.fields_v1))
}

/// Restarts the engine with `shards` and waits until every release
/// carries the shard `expect` gives its cluster, and the controller of
/// that shard has looked at it; no service stops being Installed
/// meanwhile, and nothing is installed again.
async fn move_to(
    ns: &str,
    engine: RunningEngine,
    shards_now: &[&str],
    fleet: &[Cluster],
    mcs: &Api<ManagedCluster>,
    releases: &Api<HelmRelease>,
) -> RunningEngine {
    let before = shards(releases).await;
    engine.stop().await;
    let options = EngineOptions {
        shards: keys(shards_now),
        ..Default::default()
    };
    let expect = options.shards.clone();
    let engine = RunningEngine::start_with(ns, options).await;
    let what = format!("releases on {shards_now:?}, picked up by their controllers");
    eventually(&what, MOVE, || async {
        assert!(
            all_installed(mcs, fleet).await,
            "a service stopped being Installed during the move to {shards_now:?}"
        );
        let now = shards(releases).await;
        for c in fleet {
            let want = shard_of(&expect, ns, &c.name).map(String::from);
            for r in c.releases() {
                if now.get(&r)? != &want {
                    return None;
                }
                let moved = before.get(&r) != Some(&want);
                let seen = log_lines(&controller_of(want.as_deref()), ns, &r);
                if moved && seen.is_empty() {
                    return None;
                }
            }
        }
        Some(())
    })
    .await;
    engine
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn releases_spread_over_shards_and_move_when_a_shard_goes() {
    let started = std::time::Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "shards").await;
    let fleet = fleet(&ns.name);
    let engine = RunningEngine::start_with(
        &ns.name,
        EngineOptions {
            shards: keys(&["shard1", "shard2"]),
            ..Default::default()
        },
    )
    .await;
    templates(&mgmt, &ns.name).await;
    for c in &fleet {
        let services = json!([{
            "name": SERVICE, "template": "web-1",
            "namespace": service_namespace(&ns.name, &c.name),
            "values": "controller:\n  ingressClassResource:\n    enabled: false\n  \
                       service:\n    type: ClusterIP\n",
        }]);
        managed_cluster_from(&mgmt, &ns.name, &c.name, "plain", services).await;
    }
    futures::future::join_all(fleet.iter().map(|c| provision(&ns.name, &c.name, c.child))).await;

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually("every service Installed", INSTALL, || async {
        all_installed(&mcs, &fleet).await.then_some(())
    })
    .await;
    eprintln!("installed over two shards after {:?}", started.elapsed());

    // Each cluster's releases carry its shard; both shards are used.
    let labelled = shards(&releases).await;
    for c in &fleet {
        for r in c.releases() {
            assert_eq!(labelled[&r].as_deref(), Some(c.shard.as_str()), "{r}");
        }
    }
    let used: std::collections::BTreeSet<_> = labelled.values().flatten().collect();
    assert_eq!(used.len(), 2, "{labelled:?}");
    // Each was installed by its shard's controller, and no other looked
    // at it.
    for c in &fleet {
        for r in c.releases() {
            for controller in CONTROLLERS {
                let lines = log_lines(&controller_of(controller), &ns.name, &r);
                if controller == Some(c.shard.as_str()) {
                    assert!(
                        lines.iter().any(|l| l.contains("running 'install'")),
                        "{r}: no install in the log of {}:\n{}",
                        c.shard,
                        lines.join("\n")
                    );
                } else {
                    assert!(lines.is_empty(), "{r} seen by {controller:?}: {lines:?}");
                }
            }
        }
    }

    // shard2 goes: its clusters move to shard1, the others are not written.
    let stay: Vec<&Cluster> = fleet.iter().filter(|c| c.shard == "shard1").collect();
    let mut kept = BTreeMap::new();
    for r in stay.iter().flat_map(|c| c.releases()) {
        let applied = applied_by_engine(&releases, &r).await;
        assert!(applied.is_some(), "{r} has no change of the engine's");
        kept.insert(r.clone(), applied);
    }
    let engine = move_to(&ns.name, engine, &["shard1"], &fleet, &mcs, &releases).await;
    for (r, applied) in &kept {
        assert_eq!(
            &applied_by_engine(&releases, r).await,
            applied,
            "{r} was written"
        );
    }
    for c in fleet.iter().filter(|c| c.shard == "shard2") {
        for r in c.releases() {
            let lines = log_lines("helm-controller-shard1", &ns.name, &r);
            assert!(
                helm_actions(&lines).is_empty(),
                "{r} installed again: {lines:?}"
            );
        }
    }
    eprintln!("moved to one shard after {:?}", started.elapsed());

    // No shards at all: the label goes, and the main controller takes all.
    let engine = move_to(&ns.name, engine, &[], &fleet, &mcs, &releases).await;
    for c in &fleet {
        for r in c.releases() {
            let lines = log_lines("helm-controller", &ns.name, &r);
            assert!(
                helm_actions(&lines).is_empty(),
                "{r} installed again: {lines:?}"
            );
        }
    }
    assert!(all_installed(&mcs, &fleet).await);
    eprintln!("back on the main controller after {:?}", started.elapsed());

    for c in &fleet {
        let _ = mcs.delete(&c.name, &Default::default()).await;
    }
    eventually("the clusters to be deleted", INSTALL, || async {
        let left = mcs.list_metadata(&Default::default()).await.ok()?;
        left.items.is_empty().then_some(())
    })
    .await;
    engine.stop().await;
    for c in &fleet {
        let child = child(c.child).await;
        drop_child_namespace(&child, &service_namespace(&ns.name, &c.name)).await;
    }
    ns.cleanup().await;
    eprintln!("done after {:?}", started.elapsed());
}
