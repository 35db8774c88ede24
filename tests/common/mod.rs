//! Support for the end-to-end tests: they run against the real control plane
//! that `tests/harness/harness up` starts (etcd, kube-apiservers, Flux, kwok).
#![allow(dead_code)]

pub mod accounts;
pub mod capi;
pub mod cases;
pub mod console;
pub mod headless;
pub mod helm;
pub mod rollouts;

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, GroupVersionKind, Patch, PatchParams, PostParams,
};
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use tokio_util::sync::CancellationToken;

use hmc_tui::engine::{self, Context, Counters, EngineOptions};
use hmc_tui::store::{Scope, Stores};

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A binary the harness build caches (`helm`, `actionlint`, …): where
/// build.py builds it, or `HMC_<NAME>_BIN`. Fails when it is not there.
pub fn harness_binary(name: &str) -> PathBuf {
    let out = std::process::Command::new("python3")
        .arg(repo_root().join("tests/harness/build.py"))
        .args(["--path", name])
        .output()
        .expect("run tests/harness/build.py");
    assert!(out.status.success(), "build.py --path {name} failed");
    let path = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert!(
        path.exists(),
        "no {name} at {}: run tests/harness/harness build",
        path.display()
    );
    path
}

/// Where the harness keeps its state (same default as tests/harness/harness.py).
pub fn harness_dir() -> PathBuf {
    std::env::var_os("HMC_HARNESS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(format!("/tmp/hmc-tui-harness-{}", unsafe_uid())))
}

fn unsafe_uid() -> u32 {
    // The harness names its folder after the uid; read it without libc.
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("Uid:")).map(String::from))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|u| u.parse().ok()))
        .unwrap_or(0)
}

/// The middle value of a benchmark's runs (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// A benchmark's quick teardown: the releases of `ns` let go of Flux's
/// finalizer, so that the namespace goes without Flux uninstalling
/// anything; what Helm installed in the children goes with their
/// namespaces.
pub async fn let_go_of_releases(client: &Client, ns: &str) {
    let releases: Api<hmc_tui::flux::HelmRelease> = Api::namespaced(client.clone(), ns);
    let Ok(list) = releases
        .list_metadata(&kube::api::ListParams::default())
        .await
    else {
        return;
    };
    futures::StreamExt::for_each_concurrent(futures::stream::iter(list.items), 32, |r| {
        let releases = &releases;
        async move {
            let patch = serde_json::json!({"metadata": {"finalizers": null}});
            let _ = releases
                .patch(
                    &kube::ResourceExt::name_any(&r),
                    &PatchParams::default(),
                    &Patch::Merge(&patch),
                )
                .await;
        }
    })
    .await;
}

/// The first of the harness's ports (same default as tests/harness/harness.py).
pub fn port_base() -> u16 {
    std::env::var("HMC_HARNESS_PORT_BASE")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(17000)
}

pub fn logs_hint() -> String {
    format!("harness logs: {}", harness_dir().join("logs").display())
}

/// The client configuration of one of the harness's kubeconfigs.
pub async fn config_for(kubeconfig: &std::path::Path) -> Config {
    let kc = Kubeconfig::read_from(kubeconfig).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}\nstart the harness first: tests/harness/harness up\n{}",
            kubeconfig.display(),
            logs_hint()
        )
    });
    Config::from_custom_kubeconfig(kc, &KubeConfigOptions::default())
        .await
        .expect("kubeconfig")
}

/// A client of `kubeconfig` (plain, or built by `build` from its
/// configuration), checked to reach its API server.
async fn answering_client(kubeconfig: PathBuf, build: impl FnOnce(Config) -> Client) -> Client {
    let client = build(config_for(&kubeconfig).await);
    let version = client.apiserver_version().await;
    assert!(
        version.is_ok(),
        "the harness API server at {} does not answer ({:?}); run tests/harness/harness up\n{}",
        kubeconfig.display(),
        version.err(),
        logs_hint()
    );
    client
}

pub async fn client_for(kubeconfig: PathBuf) -> Client {
    answering_client(kubeconfig, |c| Client::try_from(c).expect("client")).await
}

pub async fn mgmt() -> Client {
    client_for(harness_dir().join("mgmt.kubeconfig")).await
}

pub async fn child(i: usize) -> Client {
    client_for(harness_dir().join(format!("child-{i}.kubeconfig"))).await
}

/// A kubeconfig at `path` of the harness's admin under several contexts,
/// each `(name, namespace)`, the first current: one API server seen as
/// several management clusters.
pub fn admin_contexts(path: &std::path::Path, contexts: &[(&str, &str)]) {
    let admin = harness_dir().join("mgmt.kubeconfig");
    let text = std::fs::read_to_string(&admin).expect("the harness's kubeconfig");
    let mut kc: serde_json::Value = serde_yaml::from_str(&text).expect("a kubeconfig");
    let context = kc["contexts"][0]["context"].clone();
    let named: Vec<serde_json::Value> = contexts
        .iter()
        .map(|(name, ns)| {
            let mut c = context.clone();
            c["namespace"] = serde_json::json!(ns);
            serde_json::json!({"name": name, "context": c})
        })
        .collect();
    kc["current-context"] = named[0]["name"].clone();
    kc["contexts"] = serde_json::Value::Array(named);
    std::fs::create_dir_all(path.parent().expect("a folder")).expect("the kubeconfig's folder");
    std::fs::write(path, serde_json::to_vec_pretty(&kc).expect("json"))
        .expect("write the kubeconfig");
}

pub fn child_kubeconfig_text(i: usize) -> String {
    std::fs::read_to_string(harness_dir().join(format!("child-{i}.kubeconfig")))
        .expect("child kubeconfig")
}

/// How often [`eventually`] asks again.
pub const POLL: Duration = Duration::from_millis(500);

/// Polls `check` until it returns `Some`, or panics with `what` and the logs.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    poll_until(what, timeout, POLL, check, logs_hint).await
}

/// Polls `check` every `every` until it returns `Some`, or panics with
/// `what` and what `report` says then (the logs, a console's screen).
pub async fn poll_until<T, F, Fut>(
    what: &str,
    timeout: Duration,
    every: Duration,
    mut check: F,
    report: impl FnOnce() -> String,
) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() > timeout {
            panic!(
                "timed out after {timeout:?} waiting for {what}\n{}",
                report()
            );
        }
        tokio::time::sleep(every).await;
    }
}

/// A namespace for one test, deleted by `cleanup`.
pub struct TestNamespace {
    pub name: String,
    client: Client,
}

/// The label on a benchmark's namespaces: the benchmark's name. A run
/// that was killed leaves its namespaces (thousands of clusters) behind,
/// and the next run removes them first.
pub const LEFT_BY: &str = "hmc-tui.test/left-by";

/// The annotation [`RunningEngine::look_again`] writes: the engine reads
/// nothing of it.
pub const LOOK_AGAIN: &str = "hmc-tui.test/look-again";

impl TestNamespace {
    pub async fn create(client: &Client, prefix: &str) -> Self {
        Self::create_marked(client, prefix, None).await
    }

    /// As [`create`](Self::create), labelled with [`LEFT_BY`]` = marker`.
    pub async fn create_marked(client: &Client, prefix: &str, marker: Option<&str>) -> Self {
        let suffix = format!(
            "{:x}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_micros()
                & 0xffffff
        );
        let name = format!("{prefix}-{suffix}");
        let api: Api<Namespace> = Api::all(client.clone());
        let labels: std::collections::BTreeMap<&str, &str> =
            marker.map(|m| (LEFT_BY, m)).into_iter().collect();
        let ns: Namespace = serde_json::from_value(
            serde_json::json!({"metadata": {"name": name, "labels": labels}}),
        )
        .unwrap();
        api.create(&PostParams::default(), &ns)
            .await
            .expect("create namespace");
        add_cluster_installer(client, &name).await;
        Self {
            name,
            client: client.clone(),
        }
    }

    /// Deletes the namespace. The engine has stopped by now, so nothing
    /// would remove our finalizers: templates and clusters let go first, or
    /// the namespace would stay Terminating.
    pub async fn cleanup(self) {
        self.let_go().await;
        let api: Api<Namespace> = Api::all(self.client.clone());
        let _ = api.delete(&self.name, &DeleteParams::default()).await;
        // The Lease an in-process engine held for this namespace stays,
        // released, in kube-system; the test's run leaves none behind.
        let leases: Api<k8s_openapi::api::coordination::v1::Lease> =
            Api::namespaced(self.client.clone(), "kube-system");
        let lease = engine::claims::lease_name(Some(&self.name));
        let _ = leases.delete(&lease, &DeleteParams::default()).await;
        // And the grant of that Lease to the engine's account, if a test
        // engine ran here.
        let grant = accounts::test_lease_grant(&self.name);
        let roles: Api<k8s_openapi::api::rbac::v1::Role> =
            Api::namespaced(self.client.clone(), "kube-system");
        let bindings: Api<k8s_openapi::api::rbac::v1::RoleBinding> =
            Api::namespaced(self.client.clone(), "kube-system");
        let _ = bindings.delete(&grant, &DeleteParams::default()).await;
        let _ = roles.delete(&grant, &DeleteParams::default()).await;
    }

    /// Removes the namespaces labelled [`LEFT_BY`]` = marker`, as
    /// [`cleanup_and_wait`](Self::cleanup_and_wait) does: what a killed run
    /// of that benchmark left.
    pub async fn remove_leftovers(client: &Client, marker: &str, timeout: Duration) {
        let api: Api<Namespace> = Api::all(client.clone());
        let selector = format!("{LEFT_BY}={marker}");
        let list = api
            .list_metadata(&kube::api::ListParams::default().labels(&selector))
            .await
            .expect("list namespaces");
        for ns in list.items {
            let name = ns.metadata.name.unwrap_or_default();
            eprintln!("removing {name}, left by an earlier run of {marker}");
            let left = Self {
                name,
                client: client.clone(),
            };
            left.cleanup_and_wait(timeout).await;
        }
    }

    /// As [`cleanup`](Self::cleanup), and waits until the namespace is gone
    /// (a benchmark's next run must not share the machine with its deletion).
    pub async fn cleanup_and_wait(self, timeout: Duration) {
        let (client, name) = (self.client.clone(), self.name.clone());
        self.cleanup().await;
        let api: Api<Namespace> = Api::all(client);
        eventually(&format!("namespace {name} deleted"), timeout, || async {
            api.get_opt(&name).await.ok()?.is_none().then_some(())
        })
        .await;
    }

    /// Removes our finalizer from every object of ours that holds it, a few
    /// dozen requests at a time (a benchmark's namespace holds thousands).
    async fn let_go(&self) {
        use futures::StreamExt;
        for (kind, plural) in [
            ("ManagedCluster", "managedclusters"),
            ("ClusterTemplate", "clustertemplates"),
            ("ServiceTemplate", "servicetemplates"),
        ] {
            let api: Api<DynamicObject> = Api::namespaced_with(
                self.client.clone(),
                &self.name,
                &ar("hmc.mirantis.com", "v1alpha1", kind, plural),
            );
            let Ok(list) = api.list_metadata(&Default::default()).await else {
                continue;
            };
            let holding = list.items.into_iter().filter(|o| holds_ours(&o.metadata));
            futures::stream::iter(holding)
                .for_each_concurrent(32, |obj| {
                    let api = &api;
                    async move {
                        let patch = serde_json::json!({"metadata": {"finalizers": null}});
                        let name = obj.metadata.name.unwrap_or_default();
                        let _ = api
                            .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                            .await;
                    }
                })
                .await;
        }
    }
}

/// Whether an object holds the engine's finalizer.
fn holds_ours(meta: &kube::api::ObjectMeta) -> bool {
    meta.finalizers
        .iter()
        .flatten()
        .any(|f| f == hmc_tui::api::labels::FINALIZER)
}

pub fn ar(group: &str, version: &str, kind: &str, plural: &str) -> ApiResource {
    ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural)
}

/// Flux's chart repository sources, for objects a test writes as JSON.
pub fn helm_repository() -> ApiResource {
    ar(
        "source.toolkit.fluxcd.io",
        "v1",
        "HelmRepository",
        "helmrepositories",
    )
}

/// Flux's releases, for objects a test writes or reads as JSON.
pub fn helm_release() -> ApiResource {
    ar(
        "helm.toolkit.fluxcd.io",
        "v2",
        "HelmRelease",
        "helmreleases",
    )
}

/// Flux's chart sources, for objects a test writes as JSON.
pub fn helm_chart() -> ApiResource {
    ar("source.toolkit.fluxcd.io", "v1", "HelmChart", "helmcharts")
}

/// Applies any object given as JSON, server-side, as the test's own manager.
pub async fn apply_json(
    client: &Client,
    ar: &ApiResource,
    ns: Option<&str>,
    obj: serde_json::Value,
) -> DynamicObject {
    let name = obj["metadata"]["name"].as_str().expect("name").to_string();
    let api: Api<DynamicObject> = match ns {
        Some(ns) => Api::namespaced_with(client.clone(), ns, ar),
        None => Api::all_with(client.clone(), ar),
    };
    api.patch(
        &name,
        &PatchParams::apply("hmc-e2e").force(),
        &Patch::Apply(&obj),
    )
    .await
    .unwrap_or_else(|e| panic!("apply {name}: {e}"))
}

/// Applies every document of a YAML stream: into `ns` unless a document
/// names its namespace or its kind is cluster-scoped.
pub async fn apply_yaml(client: &Client, ns: &str, yaml: &str) {
    for doc in serde_yaml::Deserializer::from_str(yaml) {
        let value: serde_json::Value = serde::Deserialize::deserialize(doc).expect("yaml");
        if value.is_null() {
            continue;
        }
        let kind = value["kind"].as_str().unwrap().to_string();
        let (group, version) = value["apiVersion"]
            .as_str()
            .unwrap()
            .split_once('/')
            .unwrap_or(("", "v1"));
        let plural = engine::templates::plural_of(&kind);
        let cluster_scoped = matches!(
            kind.as_str(),
            "Namespace"
                | "ClusterRole"
                | "ClusterRoleBinding"
                | "CustomResourceDefinition"
                | "ValidatingAdmissionPolicy"
                | "ValidatingAdmissionPolicyBinding"
        );
        let namespace = value["metadata"]["namespace"]
            .as_str()
            .unwrap_or(ns)
            .to_string();
        let scope = (!cluster_scoped).then_some(namespace.as_str());
        apply_json(
            client,
            &ar(group, version, &kind, &plural),
            scope,
            value.clone(),
        )
        .await;
    }
}

/// The cluster installer of `assets/examples/local/` (the account a cluster's
/// chart is installed as, its Role and RoleBinding), made `ns`'s.
pub fn cluster_installer_docs(ns: &str) -> Vec<serde_json::Value> {
    let path = repo_root().join("assets/examples/local/05-cluster-installer.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| {
            let mut doc: serde_json::Value = serde::Deserialize::deserialize(doc).expect("yaml");
            doc["metadata"]["namespace"] = serde_json::json!(ns);
            for subject in doc
                .get_mut("subjects")
                .and_then(|s| s.as_array_mut())
                .into_iter()
                .flatten()
            {
                subject["namespace"] = serde_json::json!(ns);
            }
            doc
        })
        .filter(|doc| !doc.is_null())
        .collect()
}

/// Gives `ns` its cluster installer, as a platform admin does for every
/// namespace whose clusters' charts are installed.
pub async fn add_cluster_installer(client: &Client, ns: &str) {
    for doc in cluster_installer_docs(ns) {
        apply_yaml(client, ns, &serde_json::to_string(&doc).unwrap()).await;
    }
}

/// Acts as the infrastructure provider: marks the CAPI Cluster provisioned
/// and writes its kubeconfig secret pointing at child cluster `child`.
pub async fn provision(ns: &str, cluster: &str, child: usize) {
    headless::harness(&[
        "provision",
        &format!("{ns}/{cluster}"),
        "--child",
        &child.to_string(),
    ])
    .await;
}

/// An engine running in this process, scoped to one namespace, on a
/// runtime of its own.
pub struct RunningEngine {
    pub counters: Arc<Counters>,
    shutdown: CancellationToken,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// Everything the engine spawns runs here (its controllers, which the
    /// lease holder spawns apart, and its client's connections): shut down,
    /// all of it stops at once.
    runtime: Option<tokio::runtime::Runtime>,
}

impl RunningEngine {
    pub async fn start(namespace: &str) -> Self {
        Self::start_with(namespace, EngineOptions::default()).await
    }

    pub async fn start_with(namespace: &str, options: EngineOptions) -> Self {
        let counters = Arc::new(Counters::default());
        // It runs as the engine's own ServiceAccount, under the deploy's
        // RBAC and admission policies: what it may not do fails the test.
        accounts::grant_test_lease(&mgmt().await, namespace).await;
        let kubeconfig = accounts::engine_kubeconfig().await;
        // RUST_LOG=hmc_tui=debug shows what the engine does, per test.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("test-engine")
            .enable_all()
            .build()
            .expect("a runtime for the engine");
        let shutdown = CancellationToken::new();
        let engine = Self::spawn(
            namespace.to_string(),
            kubeconfig,
            options,
            counters.clone(),
            shutdown.clone(),
        );
        let tasks = runtime.spawn(engine).await.expect("the engine starts");
        Self {
            counters,
            shutdown,
            tasks,
            runtime: Some(runtime),
        }
    }

    /// Builds the engine and spawns it on the current runtime: the feed of
    /// its watches, and the engine under its namespace's lease.
    async fn spawn(
        namespace: String,
        kubeconfig: PathBuf,
        options: EngineOptions,
        counters: Arc<Counters>,
        stop: CancellationToken,
    ) -> Vec<tokio::task::JoinHandle<()>> {
        // The engine gets a client of its own, as it has in the binary: its
        // watches and writes never queue behind the test's requests, and
        // the binary's timeouts and deadlines apply.
        let requests = counters.requests.clone();
        let client = &answering_client(kubeconfig, |c| {
            engine::requests::counted_client(c, requests, Default::default())
                .expect("the engine's client")
        })
        .await;
        // As the binary does: Cluster API's clusters through the version
        // the API server serves (v1beta2: Cluster API runs in the harness).
        let capi = hmc_tui::capi::discover(client)
            .await
            .expect("the versions of Cluster API served");
        let (stores, watches) = Stores::new(
            client,
            &Scope {
                namespace: Some(namespace.clone()),
            },
            capi,
        );
        let ctx = Arc::new(Context::new(client.clone(), stores, counters, options));
        // It holds its namespace's lease, as a `-n` engine does, so that a
        // cluster-wide engine running meanwhile leaves the namespace alone.
        // The identity is the namespace's: an engine started again after a
        // kill takes its lease back at once, as a restarted pod would.
        let mut lease = engine::leader::LeaseOptions::for_scope(Some(namespace.clone()));
        lease.identity = format!("hmc-tui-test-{namespace}");
        let (role, _) = tokio::sync::watch::channel(engine::leader::Role::Starting);
        // The controllers subscribe before the watches start.
        let run = tokio::spawn(async move {
            if let Err(error) = engine::leader::run_with_lease(ctx, lease, role, stop).await {
                panic!("the test engine's lease failed: {error}");
            }
        });
        let feed = tokio::spawn(async move {
            futures::future::join_all(watches).await;
        });
        vec![feed, run]
    }

    /// The cluster controller's finished reconciles, and those running now.
    fn cluster_reconciles(&self) -> (u64, u64) {
        let stats = self.counters.controllers.snapshot();
        let c = stats.get("managedclusters").cloned().unwrap_or_default();
        (c.reconciles, c.in_flight.max(0) as u64)
    }

    /// Has the engine look at `clusters` of `ns` again, and waits until it
    /// has: the positive marker before a test trusts that nothing happened.
    /// Each cluster gets an annotation that no reconcile reads (a user's
    /// change, so a trigger, not an echo of the engine's own write); the
    /// wait ends once the cluster controller's store has handed it every
    /// touched cluster and it has finished one reconcile per cluster more
    /// than it had finished or was running when they were touched.
    pub async fn look_again(&self, ns: &str, clusters: &[&str]) {
        let key = ("managedclusters", "self");
        let handed = || self.counters.triggers.snapshot().get(&key).copied();
        let before = handed().unwrap_or_default();
        let (done, running) = self.cluster_reconciles();
        let api: Api<hmc_tui::api::ManagedCluster> = Api::namespaced(mgmt().await, ns);
        let mark = format!("{:?}", std::time::SystemTime::now());
        let patch = serde_json::json!({"metadata": {"annotations": {LOOK_AGAIN: mark}}});
        for cluster in clusters {
            api.patch(cluster, &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .unwrap_or_else(|e| panic!("annotate {cluster}: {e}"));
        }
        let n = clusters.len() as u64;
        let what = format!("the engine to look at {clusters:?} again");
        eventually(&what, Duration::from_secs(60), || async {
            let (finished, _) = self.cluster_reconciles();
            (handed()? >= before + n && finished >= done + running + n).then_some(())
        })
        .await;
    }

    /// Stops the engine abruptly, as a crash would: no graceful shutdown,
    /// whatever was in flight is dropped, its runtime and every task on it
    /// gone at once.
    pub fn kill(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }

    /// Stops the engine as SIGTERM would, and at most 20 s later as a
    /// crash would: an engine still running after that would put our
    /// finalizers back on what the test's cleanup lets go of, and leave its
    /// namespace Terminating.
    pub async fn stop(mut self) {
        self.shutdown.cancel();
        let run = self.tasks.pop().expect("the engine's task");
        if tokio::time::timeout(Duration::from_secs(20), run)
            .await
            .is_err()
        {
            eprintln!(
                "the test engine did not stop within 20 s of its shutdown; its runtime is shut down"
            );
        }
        // What is left stops with the runtime (see `Drop`).
    }
}

/// Whatever of the engine still runs stops with its runtime: after
/// [`RunningEngine::stop`], and when a test fails without stopping it.
impl Drop for RunningEngine {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}
