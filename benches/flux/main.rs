//! End to end with Flux running: how long until every service of a fleet is
//! Installed, with one and with two shards of the release controller.
//!
//! For each N and each shard count k: N ManagedClusters, cluster i with
//! 1 + i mod 3 services (2 on average) of the stand-in chart, each into a
//! namespace of the cluster's own in one of the harness's child clusters.
//! The chart's Deployment has no replicas and it has no Service or
//! IngressClass, so a release is Ready as soon as Helm has applied it:
//! what is measured is the release path (engine, Flux, Helm, the API
//! servers), not pods starting. The benchmark acts as the infrastructure
//! provider: each CAPI Cluster the cluster's chart creates is marked
//! provisioned and given a kubeconfig secret. The engine runs as the
//! binary, `hmc-tui --reconcile` with `HMC_SHARDS` = shard1[,shard2]; the
//! harness runs one helm-controller per shard key.
//!
//! The time runs from creating the fleet until every service of every
//! cluster is Installed. `cargo bench --bench flux` runs N = 100 and 300,
//! k = 1 and 2, three runs each (`-- --sizes 100 --shards 1,2 --runs 1` for
//! fewer). Under `cargo test` it runs once at N = 3 for each k.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::api::{Api, ListParams};
use kube::{Client, ResourceExt};
use serde_json::json;

use hmc_tui::api::{ManagedCluster, ServiceState};
use hmc_tui::flux::{HelmRelease, SHARD_LABEL};

use common::{ar, cases::chart_repo_url, headless::Headless};

/// This benchmark's engine's `/metrics` port.
const PORT: u16 = 17695;
/// The services, by (name, ServiceTemplate, chart version): cluster i gets
/// the first 1 + i mod 3.
const SERVICES: [(&str, &str, &str); 3] = [
    ("a", "flux-a", "4.11.3"),
    ("b", "flux-b", "4.11.4"),
    ("c", "flux-c", "4.11.3"),
];
/// The harness's child clusters, which the fleet's clusters take in turn.
const CHILDREN: usize = 3;
const VALUES: &str = "controller:\n  replicaCount: 0\n  service:\n    enabled: false\n  \
                      ingressClassResource:\n    enabled: false\n";

struct Options {
    sizes: Vec<usize>,
    shards: Vec<usize>,
    runs: usize,
}

fn options() -> Options {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let given = |flag: &str| args.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone());
    let smoke = !args.iter().any(|a| a == "--bench");
    let numbers = |flag: &str, smoke_default: usize, default: &[usize]| -> Vec<usize> {
        given(flag).map_or_else(
            || {
                if smoke {
                    vec![smoke_default]
                } else {
                    default.to_vec()
                }
            },
            |list| {
                list.split(',')
                    .map(|n| n.trim().parse().expect("a list of numbers: 100,300"))
                    .collect()
            },
        )
    };
    Options {
        sizes: numbers("--sizes", 3, &[100, 300]),
        shards: given("--shards").map_or(vec![1, 2], |list| {
            list.split(',')
                .map(|n| n.trim().parse().expect("--shards 1,2"))
                .collect()
        }),
        runs: numbers("--runs", 1, &[3])[0],
    }
}

fn progress(what: &str) {
    eprintln!("[flux bench +{:?}] {what}", started().elapsed());
}

fn started() -> &'static Instant {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now)
}

/// The harness's shard keys, as many as `k` (it runs two).
fn keys(k: usize) -> String {
    assert!(
        (1..=2).contains(&k),
        "the harness runs shards shard1 and shard2"
    );
    (1..=k)
        .map(|i| format!("shard{i}"))
        .collect::<Vec<_>>()
        .join(",")
}

async fn templates(client: &Client, ns: &str) {
    let mut yaml = String::new();
    for (_, name, version) in SERVICES {
        yaml += &format!(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: {name}\n\
             spec:\n  helm:\n    chartName: ingress-nginx\n    chartVersion: {version}\n    \
             repository:\n      url: {repo}\n---\n",
            repo = chart_repo_url()
        );
    }
    yaml += &format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata:\n  name: plain\n\
         spec:\n  helm:\n    chartName: hmc-test-cluster\n    chartVersion: 0.1.0\n    \
         repository:\n      url: {repo}\n",
        repo = chart_repo_url()
    );
    common::apply_yaml(client, ns, &yaml).await;
}

fn cluster_name(i: usize) -> String {
    format!("c{i:04}")
}

/// The namespace in its child where cluster `name` of `ns` gets its services.
fn child_namespace(ns: &str, name: &str) -> String {
    format!("{ns}-{name}")
}

async fn fleet(client: &Client, ns: &str, n: usize) -> usize {
    let ar = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ManagedCluster",
        "managedclusters",
    );
    let services = |i: usize| -> Vec<serde_json::Value> {
        SERVICES[..1 + i % 3]
            .iter()
            .map(|(name, template, _)| {
                json!({"name": name, "template": template, "values": VALUES,
                       "namespace": child_namespace(ns, &cluster_name(i))})
            })
            .collect()
    };
    let total = (0..n).map(|i| services(i).len()).sum();
    futures::stream::iter(0..n)
        .for_each_concurrent(32, |i| {
            let ar = &ar;
            let body = json!({
                "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
                "metadata": {"name": cluster_name(i)},
                "spec": {"template": "plain", "services": services(i)},
            });
            async move {
                common::apply_json(client, ar, Some(ns), body).await;
            }
        })
        .await;
    total
}

/// Services Installed, of all the fleet's.
async fn installed(mcs: &Api<ManagedCluster>) -> usize {
    let Ok(list) = mcs.list(&ListParams::default()).await else {
        return 0;
    };
    list.items
        .iter()
        .filter_map(|mc| mc.status.as_ref())
        .flat_map(|s| &s.services)
        .filter(|s| s.state == ServiceState::Installed)
        .count()
}

struct Run {
    n: usize,
    shards: usize,
    services: usize,
    secs: f64,
    /// Releases per shard key, as labelled.
    spread: Vec<(String, usize)>,
}

/// The label value of this benchmark's namespaces (see
/// `common::TestNamespace::remove_leftovers`).
const MARKER: &str = "flux-bench";

async fn run_once(n: usize, k: usize) -> Run {
    let client = common::mgmt().await;
    let test_ns =
        common::TestNamespace::create_marked(&client, &format!("flux-{n}-{k}"), Some(MARKER)).await;
    let ns = test_ns.name.clone();
    templates(&client, &ns).await;
    let engine = Headless::start(
        Some(&ns),
        PORT,
        &common::harness_dir().join("mgmt.kubeconfig"),
        &ns,
        &[("HMC_SHARDS", &keys(k))],
    );
    // The charts are fetched before the clock starts.
    let st: Api<hmc_tui::api::ServiceTemplate> = Api::namespaced(client.clone(), &ns);
    common::eventually("the templates valid", Duration::from_secs(180), || async {
        for (_, name, _) in SERVICES {
            st.get_opt(name).await.ok()??.status?.valid.then_some(())?;
        }
        Some(())
    })
    .await;

    progress(&format!("{ns}: {n} clusters over {k} shard(s)"));
    let start = Instant::now();
    let services = fleet(&client, &ns, n).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(client.clone(), &ns);
    let mut provisioned = BTreeSet::new();
    let patience = Duration::from_secs(300) + Duration::from_secs(6 * services as u64);
    let mut last = 0;
    loop {
        if provisioned.len() < n {
            common::capi::provide_new(&client, &ns, CHILDREN, &mut provisioned).await;
        }
        let done = installed(&mcs).await;
        if done >= services {
            break;
        }
        if done / 50 != last / 50 {
            progress(&format!("{done} of {services} services Installed"));
        }
        last = done;
        assert!(
            start.elapsed() < patience,
            "{done} of {services} services Installed after {patience:?}; {}",
            common::logs_hint()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let secs = start.elapsed().as_secs_f64();
    let releases: Api<HelmRelease> = Api::namespaced(client.clone(), &ns);
    let mut spread = std::collections::BTreeMap::<String, usize>::new();
    for r in releases.list(&ListParams::default()).await.unwrap().items {
        let key = r.labels().get(SHARD_LABEL).cloned().unwrap_or_default();
        *spread.entry(key).or_default() += 1;
    }
    progress(&format!("{n} clusters, {services} services: {secs:.1} s"));

    // Quick teardown: the releases let go of Flux's finalizer (nothing is
    // uninstalled through Flux), the namespace goes, and the children's
    // namespaces with what Helm installed there.
    let (status, _) = engine.terminate().await;
    assert!(status.success(), "the engine exited with {status}");
    common::let_go_of_releases(&client, &ns).await;
    test_ns.cleanup_and_wait(Duration::from_secs(600)).await;
    for child in 1..=CHILDREN {
        let child_client = common::child(child).await;
        let namespaces: Api<k8s_openapi::api::core::v1::Namespace> = Api::all(child_client);
        for i in (0..n).filter(|i| i % CHILDREN + 1 == child) {
            let _ = namespaces
                .delete(&child_namespace(&ns, &cluster_name(i)), &Default::default())
                .await;
        }
    }
    Run {
        n,
        shards: k,
        services,
        secs,
        spread: spread.into_iter().collect(),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let options = options();
    let _ = started();
    let client = common::mgmt().await;
    common::TestNamespace::remove_leftovers(&client, MARKER, Duration::from_secs(600)).await;
    let mut runs = Vec::new();
    for &n in &options.sizes {
        for &k in &options.shards {
            for i in 0..options.runs {
                progress(&format!(
                    "N = {n}, {k} shard(s), run {} of {}",
                    i + 1,
                    options.runs
                ));
                runs.push(run_once(n, k).await);
            }
        }
    }
    println!("| N | shards | services | time to all Installed | services/s | releases per shard |");
    println!("|---|---|---|---|---|---|");
    for r in &runs {
        let spread: Vec<String> = r.spread.iter().map(|(k, n)| format!("{k}: {n}")).collect();
        println!(
            "| {} | {} | {} | {:.1} s | {:.2} | {} |",
            r.n,
            r.shards,
            r.services,
            r.secs,
            r.services as f64 / r.secs,
            spread.join(", ")
        );
    }
    for &n in &options.sizes {
        for &k in &options.shards {
            let times: Vec<f64> = runs
                .iter()
                .filter(|r| r.n == n && r.shards == k)
                .map(|r| r.secs)
                .collect();
            println!(
                "median N = {n}, {k} shard(s): {:.1} s over {} run(s)",
                common::median(times.clone()),
                times.len()
            );
        }
    }
    // Every release carries one of the keys; past a few clusters, all keys
    // are used (three clusters all on one of two keys happen one run in four).
    for r in &runs {
        let keys = keys(r.shards);
        assert!(
            r.spread
                .iter()
                .all(|(k, _)| keys.split(',').any(|x| x == k)),
            "{:?}",
            r.spread
        );
        assert!(r.n < 20 || r.spread.len() == r.shards, "{:?}", r.spread);
    }
}
