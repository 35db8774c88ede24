//! The console's first full frame over a large fleet, against the harness's
//! API server: the console bench's made-up fleet (`tui::fixtures::fleet`:
//! N ManagedClusters with their statuses, the templates and the rollout of
//! a new revision to all of them) created in a namespace of its own, then
//! `hmc-tui --readonly --exit-after-first-frame -n <ns>` three times in a
//! 120×40 tmux pane, each printing when the stores synced and when the
//! first full frame was drawn. No engine runs: the statuses are the
//! fleet's.
//!
//! Next to each cluster it also writes what the engine and Cluster API
//! would have made for it (see [`made_for`]): its cluster release and three
//! service releases (labelled for a shard no release controller watches,
//! so nothing acts on them), a provisioned CAPI Cluster and its kubeconfig
//! secret. A console that lists kinds it does not show pays for them here.
//! `HMC_CONSOLE_BARE=1` leaves them out.
//!
//! `HMC_CONSOLE_KEEP=1` leaves the fleet in place afterwards (for
//! measuring the console over it by hand; delete the namespace after).
//!
//! `HMC_CONSOLE_COMPARE=<path of another hmc-tui build>` runs that build
//! too, taking turns with this one over the same fleet, and gives the
//! medians of each.
//!
//! Then this build opens the fleet under three kubeconfig contexts at once
//! (`--context one,two,three`, each the same namespace of the harness's
//! API server): three contexts of N clusters, 3N rows.
//!
//! Then each build runs once more over the fleet, left alone: its share of
//! a core while nothing changes, and while 10 clusters a second change.
//!
//! Ignored (a measurement, and it writes 9N objects); N is 10,000, or
//! `HMC_CONSOLE_FLEET`:
//!
//! ```sh
//! cargo test --release --features fixtures --test e2e_console_scale -- --ignored --nocapture
//! ```

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use common::console::Console;
use common::{TestNamespace, harness_dir};
use hmc_tui::api::labels;
use hmc_tui::flux::SHARD_LABEL;
use hmc_tui::tui::fixtures::fleet::fleet;

/// Requests in flight while creating the fleet.
const IN_FLIGHT: usize = 64;
const RUNS: usize = 3;

/// Creates `objects` in `ns` (as the API server would have them: no uid,
/// no resourceVersion), then writes each one's status.
async fn create_all<K>(
    client: &Client,
    ns: &str,
    objects: Vec<K>,
    status: impl Fn(&K) -> serde_json::Value,
) -> kube::Result<()>
where
    K: Resource<Scope = kube::core::NamespaceResourceScope>
        + Clone
        + Serialize
        + DeserializeOwned
        + std::fmt::Debug,
    K::DynamicType: Default,
{
    let api: Api<K> = Api::namespaced(client.clone(), ns);
    futures::stream::iter(objects)
        .map(|mut object| {
            let api = &api;
            let status = status(&object);
            async move {
                let meta = object.meta_mut();
                meta.namespace = Some(ns.to_string());
                meta.uid = None;
                meta.resource_version = None;
                meta.creation_timestamp = None;
                meta.managed_fields = None;
                let name = meta.name.clone().unwrap_or_default();
                api.create(&PostParams::default(), &object).await?;
                api.patch_status(
                    &name,
                    &PatchParams::default(),
                    &Patch::Merge(json!({ "status": status })),
                )
                .await
                .map(drop)
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .try_collect::<Vec<()>>()
        .await
        .map(drop)
}

/// `first rows 240 ms after start (500 of 10000 clusters)` and `stores
/// synced 812 ms after start; first full frame 14.0 ms later (826 ms after
/// start)`: (synced, frame after it, frame after start, first rows after
/// start), in ms. A console that says nothing of its first rows drew them
/// with the full frame.
fn parse(screen: &str) -> Option<(f64, f64, f64, f64)> {
    let number = |line: &str, after: &str| -> Option<f64> {
        line.split(after).nth(1)?.split(' ').next()?.parse().ok()
    };
    let line = screen.lines().find(|l| l.contains("stores synced"))?;
    let full = number(line, "(")?;
    let rows = match screen.lines().find(|l| l.contains("first rows ")) {
        Some(rows) => number(rows, "first rows ")?,
        None => full,
    };
    Some((
        number(line, "stores synced ")?,
        number(line, "first full frame ")?,
        full,
        rows,
    ))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: creates 10,000 clusters (HMC_CONSOLE_FLEET) in the harness"]
async fn first_frame_over_a_large_fleet() {
    let n: usize = std::env::var("HMC_CONSOLE_FLEET")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let client = common::mgmt().await;
    let ns = TestNamespace::create(&client, "console-scale").await;
    let fleet = fleet(n);
    let made = Instant::now();
    let created = async {
        create_all(&client, &ns.name, fleet.service_templates.clone(), |o| {
            json!(o.status)
        })
        .await?;
        create_all(&client, &ns.name, fleet.cluster_templates.clone(), |o| {
            json!(o.status)
        })
        .await?;
        create_all(&client, &ns.name, fleet.clusters.clone(), |o| {
            json!(o.status)
        })
        .await
    }
    .await;
    if let Err(e) = created {
        ns.cleanup_and_wait(Duration::from_secs(600)).await;
        panic!("create the fleet: {e}");
    }
    if std::env::var("HMC_CONSOLE_BARE").is_err() {
        let names = fleet
            .clusters
            .iter()
            .filter_map(|c| c.metadata.name.clone());
        if let Err(e) = made_for(&client, &ns.name, names.collect()).await {
            ns.cleanup_and_wait(Duration::from_secs(600)).await;
            panic!("create what the engine makes: {e}");
        }
    }
    // The rollout's status lists every cluster: at 10,000 it may be more
    // than the API server takes in one object. The console then shows the
    // rollout without one.
    let rollout = create_all(&client, &ns.name, fleet.rollouts.clone(), |o| {
        json!(o.status)
    })
    .await;
    // Only a refusal for its size is expected; anything else (e.g. an engine
    // that made the rollout first) means the measurement is not of the fleet.
    if let Err(e) = &rollout
        && !too_large(e)
    {
        ns.cleanup_and_wait(Duration::from_secs(600)).await;
        panic!("create the rollout: {e}");
    }
    eprintln!(
        "created {n} clusters, their templates and rollout in {} in {:.1} s{}",
        ns.name,
        made.elapsed().as_secs_f64(),
        match &rollout {
            Ok(()) => String::new(),
            Err(e) => format!(" (the rollout's status was refused: {e})"),
        }
    );

    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    let log = Console::dir_of(&ns.name).join("state/hmc-tui/hmc-tui.log");
    // This build, and the one to compare with, taking turns on one fleet.
    let mut binaries = vec![(
        "this build".to_string(),
        PathBuf::from(env!("CARGO_BIN_EXE_hmc-tui")),
    )];
    if let Some(other) = std::env::var_os("HMC_CONSOLE_COMPARE") {
        let other = PathBuf::from(other);
        binaries.push((other.display().to_string(), other));
    }
    let mut figures = vec![Vec::new(); binaries.len()];
    for run in 0..RUNS {
        for ((label, bin), figures) in binaries.iter().zip(&mut figures) {
            let figure = first_frame(bin, &ns.name, &kubeconfig, &log).await;
            eprintln!(
                "run {} ({label}): first rows {:.0} ms after start; stores synced {:.0} ms after start; first full frame {:.1} ms later ({:.0} ms after start)",
                run + 1,
                figure.3,
                figure.0,
                figure.1,
                figure.2
            );
            figures.push(figure);
        }
    }
    for ((label, _), figures) in binaries.iter().zip(&figures) {
        let median = |f: fn(&(f64, f64, f64, f64)) -> f64| {
            let mut v: Vec<f64> = figures.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        eprintln!(
            "medians of {RUNS} ({label}): first rows {:.0} ms after start; stores synced {:.0} ms; first full frame {:.1} ms later; {:.0} ms after start",
            median(|f| f.3),
            median(|f| f.0),
            median(|f| f.1),
            median(|f| f.2)
        );
    }
    // Three contexts of the fleet, this build only (the one before shows
    // one context at a time).
    // Beside the console's folder, which each console starts afresh.
    let three = std::env::temp_dir().join(format!("hmc-tui-three-{}.kubeconfig", ns.name));
    common::admin_contexts(
        &three,
        &[("one", &ns.name), ("two", &ns.name), ("three", &ns.name)],
    );
    let mut thrice = Vec::new();
    for run in 0..RUNS {
        let figure = first_frame_with(
            Path::new(env!("CARGO_BIN_EXE_hmc-tui")),
            &ns.name,
            &three,
            &log,
            "--readonly --exit-after-first-frame --context one,two,three",
        )
        .await;
        eprintln!(
            "run {} (three contexts): first rows {:.0} ms after start; all three synced {:.0} ms after start; first full frame {:.1} ms later ({:.0} ms after start)",
            run + 1,
            figure.3,
            figure.0,
            figure.1,
            figure.2
        );
        thrice.push(figure);
    }
    let median = |f: fn(&(f64, f64, f64, f64)) -> f64| {
        let mut v: Vec<f64> = thrice.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    eprintln!(
        "medians of {RUNS} (three contexts of {n}): first rows {:.0} ms after start; all synced {:.0} ms; first full frame {:.0} ms after start",
        median(|f| f.3),
        median(|f| f.0),
        median(|f| f.2)
    );
    // Then each build left running over the fleet: its CPU time while
    // nothing changes, and while 10 clusters a second do.
    for (label, bin) in &binaries {
        let (quiet, busy) = idle_cpu(bin, &client, &ns.name, &kubeconfig, n).await;
        eprintln!(
            "idle ({label}): {quiet:.1}% of a core over {QUIET_SECS} s with nothing changing; \
             {busy:.1}% over {BUSY_SECS} s with {CHANGES_PER_SEC} cluster changes a second"
        );
    }
    if std::env::var_os("HMC_CONSOLE_KEEP").is_some() {
        eprintln!("kept the fleet in {} (HMC_CONSOLE_KEEP)", ns.name);
        return;
    }
    ns.cleanup_and_wait(Duration::from_secs(600)).await;
}

/// One read-only console of `bin` over `ns` until its first full frame:
/// (stores synced, first full frame after it, after start, first rows
/// after start) in ms. Prints when each store had its first list, from the
/// console's `log`.
async fn first_frame(bin: &Path, ns: &str, kubeconfig: &Path, log: &Path) -> (f64, f64, f64, f64) {
    let args = format!("--readonly --exit-after-first-frame -n {ns}");
    first_frame_with(bin, ns, kubeconfig, log, &args).await
}

/// [`first_frame`] with the console's arguments `args`.
async fn first_frame_with(
    bin: &Path,
    ns: &str,
    kubeconfig: &Path,
    log: &Path,
    args: &str,
) -> (f64, f64, f64, f64) {
    let console = Console::start_binary(bin, ns, "", kubeconfig, args);
    let screen = console
        .wait_text(&["[console exited: 0]"], Duration::from_secs(120))
        .await;
    let figure = parse(&screen).unwrap_or_else(|| panic!("no first frame: {screen}"));
    let text = std::fs::read_to_string(log).unwrap_or_default();
    for line in text.lines() {
        if let Some(i) = line.find("first list") {
            eprintln!("  {}", &line[i..]);
        }
    }
    figure
}

const QUIET_SECS: u64 = 30;
const BUSY_SECS: u64 = 60;
const CHANGES_PER_SEC: u64 = 10;

/// A read-only console of `bin` over the fleet of `n` clusters in `ns`,
/// once its stores synced: the share of one core it uses (user and system
/// time from `/proc/<pid>/stat`) over [`QUIET_SECS`] with nothing changing,
/// then over [`BUSY_SECS`] while [`CHANGES_PER_SEC`] clusters a second
/// change (an annotation each, so a new resourceVersion and a watch event).
async fn idle_cpu(
    bin: &Path,
    client: &Client,
    ns: &str,
    kubeconfig: &Path,
    n: usize,
) -> (f64, f64) {
    let console = Console::start_binary(bin, ns, "", kubeconfig, &format!("--readonly -n {ns}"));
    console
        .wait_for("every cluster", Duration::from_secs(120), |s| {
            s.contains(&format!("({n})")) && !s.contains("loading")
        })
        .await;
    let pane = console.tmux(&["display-message", "-p", "-t", "console", "#{pane_pid}"]);
    let shell = String::from_utf8_lossy(&pane.stdout).trim().to_string();
    let pid = child_of(&shell).unwrap_or_else(|| panic!("the console under {shell}"));
    // Let the start settle.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let ticks = || cpu_ticks(&pid);
    let before = ticks();
    tokio::time::sleep(Duration::from_secs(QUIET_SECS)).await;
    let quiet = share(ticks() - before, QUIET_SECS);
    let api: Api<hmc_tui::api::ManagedCluster> = Api::namespaced(client.clone(), ns);
    let names: Vec<String> = fleet(n)
        .clusters
        .iter()
        .filter_map(|c| c.metadata.name.clone())
        .collect();
    // A value no run wrote before: the same value again changes nothing.
    let run = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let before = ticks();
    let mut every = tokio::time::interval(Duration::from_millis(1000 / CHANGES_PER_SEC));
    for i in 0..(BUSY_SECS * CHANGES_PER_SEC) as usize {
        every.tick().await;
        let patch = json!({"metadata": {"annotations": {"bench/tick": format!("{run}-{i}")}}});
        api.patch(
            &names[(i * 7919) % names.len()],
            &PatchParams::default(),
            &Patch::Merge(patch),
        )
        .await
        .expect("change a cluster");
    }
    let busy = share(ticks() - before, BUSY_SECS);
    console.quit().await;
    (quiet, busy)
}

/// The process whose parent is `parent` (the pane's shell runs the console).
fn child_of(parent: &str) -> Option<String> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid = e.file_name().to_string_lossy().into_owned();
        let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
        let after = stat.rsplit_once(") ")?.1;
        (after.split(' ').nth(1)? == parent && stat.contains("(hmc-tui")).then_some(pid)
    })
}

/// User and system time of a process, in clock ticks.
fn cpu_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the console's stat");
    // After the command's name: state is field 3, utime 14 and stime 15.
    let fields: Vec<&str> = stat.rsplit_once(") ").expect("stat").1.split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

/// Ticks over `secs` as a percentage of one core.
fn share(ticks: u64, secs: u64) -> f64 {
    let hz = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(100.0);
    ticks as f64 / hz / secs as f64 * 100.0
}

/// The label no release controller watches (see the harness's shards).
const UNWATCHED: &str = "unwatched";
const SERVICES: [&str; 3] = ["ingress-nginx", "cert-manager", "external-dns"];

/// What the engine and Cluster API make for each of `clusters`: the
/// cluster's release and one per service (as the engine writes them, for a
/// shard nobody watches, without a status), a provisioned CAPI Cluster and
/// its kubeconfig secret.
async fn made_for(client: &Client, ns: &str, clusters: Vec<String>) -> kube::Result<()> {
    let releases: Api<DynamicObject> = Api::namespaced_with(
        client.clone(),
        ns,
        &common::ar(
            "helm.toolkit.fluxcd.io",
            "v2",
            "HelmRelease",
            "helmreleases",
        ),
    );
    let secrets: Api<Secret> = Api::namespaced(client.clone(), ns);
    let kubeconfig = common::child_kubeconfig_text(1);
    futures::stream::iter(clusters)
        .map(|name| {
            let (releases, secrets, kubeconfig) = (&releases, &secrets, &kubeconfig);
            async move {
                let cluster_release = release(&name, &name, None);
                releases
                    .create(&PostParams::default(), &cluster_release)
                    .await?;
                for service in SERVICES {
                    let r = release(&format!("{name}-{service}"), &name, Some(service));
                    releases.create(&PostParams::default(), &r).await?;
                }
                common::capi::provision(client, ns, &name, 1).await?;
                common::capi::kubeconfig_secret(secrets, &name, kubeconfig).await
            }
        })
        .buffer_unordered(IN_FLIGHT)
        .try_collect::<Vec<()>>()
        .await
        .map(drop)
}

/// A release as the engine writes one for `cluster` (its own chart when
/// `service` is `None`), with a few values.
fn release(name: &str, cluster: &str, service: Option<&str>) -> DynamicObject {
    let mut labels = json!({
        (labels::MANAGED_BY): labels::MANAGED_BY_VALUE,
        (labels::CLUSTER): cluster,
        (labels::ROLE): if service.is_some() { "service" } else { "cluster" },
        (SHARD_LABEL): UNWATCHED,
    });
    if let Some(service) = service {
        labels[labels::SERVICE] = json!(service);
    }
    let chart = service.unwrap_or("aws-standalone-cp");
    let mut spec = json!({
        "interval": "10m",
        "releaseName": service.unwrap_or(cluster),
        "chart": {"spec": {
            "chart": chart, "version": "1.0.0",
            "sourceRef": {"kind": "HelmRepository", "name": format!("{chart}-1-0-0")},
        }},
        "install": {"remediation": {"retries": 3}},
        "upgrade": {"remediation": {"retries": 3}},
        "values": {"cluster": {"name": cluster, "region": "eu-west-1",
                               "controlPlane": {"replicas": 3}, "workers": {"replicas": 5}}},
    });
    if let Some(service) = service {
        spec["targetNamespace"] = json!(service);
        spec["kubeConfig"] = json!({"secretRef": {"name": format!("{cluster}-kubeconfig")}});
    }
    serde_json::from_value(json!({
        "apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
    }))
    .expect("a release")
}

/// Whether the API server (or etcd behind it) refused an object for its size.
fn too_large(e: &kube::Error) -> bool {
    let text = e.to_string().to_lowercase();
    text.contains("too large") || text.contains("413")
}
