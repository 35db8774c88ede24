//! Knowing when a fleet has converged, without polling: watches on the
//! releases and the ManagedClusters of one namespace keep, per object,
//! whether it is as wanted, and note the moment every wanted object is.
//!
//! The watches have listed before the clock starts, so the measured time
//! holds only the work of whoever writes (the engine or the baseline).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::runtime::watcher::{self, Event};
use kube::{Api, Client, ResourceExt};
use tokio::sync::watch;

use hmc_tui::api::{ManagedCluster, labels};
use hmc_tui::flux::HelmRelease;

use crate::engine::{SHARD, SHARD_LABEL};
use crate::fleet::{SERVICES, service_values};

/// What a converged fleet looks like: at `revision`, `clusters` of them.
#[derive(Clone, Copy, Debug)]
pub struct Goal {
    pub clusters: usize,
    pub revision: i64,
    /// Whether every ManagedCluster must have written its status for it
    /// (the template revision only waits for the releases).
    pub statuses: bool,
}

impl Goal {
    /// Whether `r` is as wanted: on the bench's shard, a cluster release,
    /// or a service release with the values of the goal's revision,
    /// installing into the cluster through its kubeconfig secret.
    fn release_ok(&self, r: &HelmRelease) -> bool {
        let Some(cluster) = r.labels().get(labels::CLUSTER) else {
            return false;
        };
        if r.labels().get(SHARD_LABEL).map(String::as_str) != Some(SHARD) {
            return false;
        }
        match r.labels().get(labels::SERVICE) {
            None => self.statuses && r.name_any() == *cluster,
            Some(service) => {
                let spec = &r.spec;
                let revision = r.annotations().get(labels::REVISION);
                revision == Some(&self.revision.to_string())
                    && spec
                        .values
                        .as_ref()
                        .and_then(|v| v.to_value().get("bench").cloned())
                        .as_ref()
                        == service_values(service, self.revision).get("bench")
                    && spec.target_namespace.as_deref() == Some(&format!("bench-{service}"))
                    && spec.kube_config.as_ref().is_some_and(|k| {
                        k.secret_ref.name == format!("{cluster}-kubeconfig")
                            && k.secret_ref.key.as_deref() == Some("value")
                    })
            }
        }
    }

    /// Whether the cluster's status describes its current spec at the
    /// goal's revision, with every service in it.
    fn cluster_ok(&self, mc: &ManagedCluster) -> bool {
        let Some(st) = &mc.status else { return false };
        st.observed_generation == mc.metadata.generation
            && st.target_revision == Some(self.revision)
            && st.services.len() == SERVICES.len()
    }

    fn releases_wanted(&self) -> usize {
        self.clusters * (SERVICES.len() + usize::from(self.statuses))
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Progress {
    releases: usize,
    clusters: usize,
    listed: u8,
}

/// Watches one namespace against a goal.
pub struct Tracker {
    progress: watch::Receiver<Progress>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    goal: Goal,
}

impl Tracker {
    /// Starts watching `ns` and returns once both watches have listed.
    pub async fn start(client: &Client, ns: &str, goal: Goal) -> Self {
        let (tx, progress) = watch::channel(Progress::default());
        let tx = Arc::new(tx);
        let releases = tokio::spawn(follow(
            Api::<HelmRelease>::namespaced(client.clone(), ns),
            move |r| goal.release_ok(r),
            tx.clone(),
            |p, n| p.releases = n,
        ));
        let clusters = tokio::spawn(follow(
            Api::<ManagedCluster>::namespaced(client.clone(), ns),
            move |mc| goal.cluster_ok(mc),
            tx,
            |p, n| p.clusters = n,
        ));
        let mut tracker = Self {
            progress,
            tasks: vec![releases, clusters],
            goal,
        };
        tracker
            .progress
            .wait_for(|p| p.listed == 2)
            .await
            .expect("the fleet's watches");
        tracker
    }

    /// Waits until the goal is met and returns the time since `start`, or
    /// `Err` with how far it got after `timeout`.
    pub async fn wait(mut self, start: Instant, timeout: Duration) -> Result<Duration, String> {
        let goal = self.goal;
        let wanted = goal.releases_wanted();
        let done =
            |p: &Progress| p.releases >= wanted && (!goal.statuses || p.clusters >= goal.clusters);
        let met = tokio::time::timeout(timeout, self.progress.wait_for(done))
            .await
            .is_ok_and(|r| r.is_ok());
        let elapsed = start.elapsed();
        let last = *self.progress.borrow();
        for t in &self.tasks {
            t.abort();
        }
        if met {
            Ok(elapsed)
        } else {
            Err(format!(
                "after {timeout:?}: {}/{wanted} releases and {}/{} cluster statuses as wanted",
                last.releases, last.clusters, goal.clusters
            ))
        }
    }
}

/// Follows one kind's watch, keeping which objects are as wanted and
/// publishing their count.
async fn follow<K>(
    api: Api<K>,
    ok: impl Fn(&K) -> bool,
    tx: Arc<watch::Sender<Progress>>,
    set: fn(&mut Progress, usize),
) where
    K: kube::Resource<DynamicType = ()>
        + Clone
        + std::fmt::Debug
        + serde::de::DeserializeOwned
        + Send
        + 'static,
{
    // Counted as it changes: a recount per event would cost the machine as
    // much as the work being measured.
    let mut state: HashMap<String, bool> = HashMap::new();
    let mut listing: HashMap<String, bool> = HashMap::new();
    let mut n = 0usize;
    let mut stream = watcher::watcher(api, watcher::Config::default()).boxed();
    while let Some(event) = stream.next().await {
        match event {
            Ok(Event::Apply(obj)) => {
                let now = ok(&obj);
                let before = state.insert(obj.name_any(), now).unwrap_or(false);
                n = n + usize::from(now) - usize::from(before);
            }
            Ok(Event::Delete(obj)) => {
                n -= usize::from(state.remove(&obj.name_any()).unwrap_or(false));
            }
            Ok(Event::Init) => listing.clear(),
            Ok(Event::InitApply(obj)) => {
                listing.insert(obj.name_any(), ok(&obj));
            }
            Ok(Event::InitDone) => {
                state = std::mem::take(&mut listing);
                n = state.values().filter(|ok| **ok).count();
                tx.send_modify(|p| p.listed = p.listed.saturating_add(1).min(2));
            }
            Err(error) => {
                tracing::warn!(%error, "bench watch");
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
        }
        tx.send_modify(|p| set(p, n));
    }
}
