//! The console's first full frame over a large fleet, against the harness's
//! API server: the console bench's made-up fleet (`tui::fixtures::fleet`:
//! N ManagedClusters with their statuses, the templates and the rollout of
//! a new revision to all of them) created in a namespace of its own, then
//! `hmc-tui --readonly --exit-after-first-frame -n <ns>` three times in a
//! 120×40 tmux pane, each printing when the stores synced and when the
//! first full frame was drawn. No engine runs: the statuses are the
//! fleet's.
//!
//! Ignored (a measurement, and it writes 2N objects); N is 10,000, or
//! `HMC_CONSOLE_FLEET`:
//!
//! ```sh
//! cargo test --release --features fixtures --test e2e_console_scale -- --ignored --nocapture
//! ```

mod common;

use std::time::{Duration, Instant};

use futures::{StreamExt, TryStreamExt};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Client, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;

use common::console::Console;
use common::{TestNamespace, harness_dir};
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

/// `stores synced 812 ms after start; first full frame 14.0 ms later (826 ms after start)`:
/// (synced, frame after it, frame after start), in ms.
fn parse(screen: &str) -> Option<(f64, f64, f64)> {
    let line = screen.lines().find(|l| l.contains("stores synced"))?;
    let number =
        |after: &str| -> Option<f64> { line.split(after).nth(1)?.split(' ').next()?.parse().ok() };
    Some((
        number("stores synced ")?,
        number("first full frame ")?,
        number("(")?,
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
    let mut figures = Vec::new();
    for run in 0..RUNS {
        let console = Console::start_with(
            &ns.name,
            "",
            &kubeconfig,
            &format!("--readonly --exit-after-first-frame -n {}", ns.name),
        );
        let screen = console
            .wait_text(&["[console exited: 0]"], Duration::from_secs(120))
            .await;
        let figure = parse(&screen).unwrap_or_else(|| panic!("no first frame: {screen}"));
        eprintln!(
            "run {}: stores synced {:.0} ms after start; first full frame {:.1} ms later ({:.0} ms after start)",
            run + 1,
            figure.0,
            figure.1,
            figure.2
        );
        figures.push(figure);
    }
    let median = |f: fn(&(f64, f64, f64)) -> f64| {
        let mut v: Vec<f64> = figures.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    eprintln!(
        "medians of {RUNS}: stores synced {:.0} ms; first full frame {:.1} ms later; {:.0} ms after start",
        median(|f| f.0),
        median(|f| f.1),
        median(|f| f.2)
    );
    ns.cleanup_and_wait(Duration::from_secs(600)).await;
}

/// Whether the API server (or etcd behind it) refused an object for its size.
fn too_large(e: &kube::Error) -> bool {
    let text = e.to_string().to_lowercase();
    text.contains("too large") || text.contains("413")
}
