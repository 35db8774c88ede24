//! Noisy neighbours: one tenant's chart repositories that never answer
//! never delay another tenant. The engine holds such a repository back
//! (its source suspended, tried again later) and lets each namespace fetch
//! one new repository at a time, so no namespace takes more than one of the
//! source controller's two workers; templates of one namespace that name
//! the same repository share one source.
//!
//! One engine serves both tenants, as a cluster-wide engine does. The
//! harness is shared with other tests, so that engine is kept to the
//! tenants' namespaces (see [`TenantsEngine`]).

mod common;

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::accounts::service_account_kubeconfig;
use common::cases::*;
use common::*;
use futures::StreamExt;
use hmc_tui::api::labels::{MANAGED_BY, MANAGED_BY_VALUE};
use hmc_tui::api::names::{TemplateKind, source_name};
use hmc_tui::api::{
    ClusterTemplate, ManagedCluster, ServiceState, ServiceTemplate, SourceHoldReason,
    TemplateStatus,
};
use hmc_tui::engine::leader::{LeaseOptions, Role};
use hmc_tui::engine::{self, Context, Counters, EngineOptions};
use hmc_tui::store::{Scope, Stores};
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use serde_json::json;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// How many chart repositories of tenant A hang (`HMC_NOISY_HANGING`).
fn hanging_count() -> usize {
    std::env::var("HMC_NOISY_HANGING")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20)
}

/// How long tenant B's service may take to be installed, from the moment
/// B's objects are created (`HMC_NOISY_BOUND_SECS`, in seconds).
fn bound() -> Duration {
    let secs = std::env::var("HMC_NOISY_BOUND_SECS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(120);
    Duration::from_secs(secs)
}

/// The child cluster tenant B's cluster runs on.
const CHILD: usize = 3;
/// The identity of the Leases this test holds on behalf of engines that do
/// not run: the fences of [`TenantsEngine`] and the tenants' claims.
const FENCE: &str = "hmc-tui-test-noisy-neighbours";

fn capi_cluster() -> kube::api::ApiResource {
    common::capi::clusters()
}

/// Selects the objects the engine made.
fn ours() -> ListParams {
    ListParams::default().labels(&format!("{MANAGED_BY}={MANAGED_BY_VALUE}"))
}

/// Loopback chart repositories that accept every connection and never
/// answer, each on a port of its own. They count the connections they took.
struct HangingRepositories {
    urls: Vec<String>,
    accepted: Arc<AtomicUsize>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl HangingRepositories {
    async fn start(n: usize) -> Self {
        let accepted = Arc::new(AtomicUsize::new(0));
        let mut urls = Vec::new();
        let mut tasks = Vec::new();
        for _ in 0..n {
            let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
            urls.push(format!(
                "http://127.0.0.1:{}",
                listener.local_addr().unwrap().port()
            ));
            let count = accepted.clone();
            tasks.push(tokio::spawn(async move {
                let mut held = Vec::new();
                while let Ok((socket, _)) = listener.accept().await {
                    count.fetch_add(1, Ordering::SeqCst);
                    held.push(socket);
                }
            }));
        }
        Self {
            urls,
            accepted,
            tasks,
        }
    }
}

impl Drop for HangingRepositories {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// A Lease held by [`FENCE`], and renewed by it every few seconds until it
/// goes or another holds it: to the engines, the namespace's engine is
/// running (a claim counts only while it is renewed). An existing one is
/// left as it is.
async fn hold_lease(mgmt: &Client, lease_namespace: &str, name: &str) -> kube::Result<()> {
    let now = MicroTime(Timestamp::now());
    let lease = Lease {
        metadata: kube::api::ObjectMeta {
            name: Some(name.to_string()),
            ..Default::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(FENCE.into()),
            lease_duration_seconds: Some(86_400),
            acquire_time: Some(now.clone()),
            renew_time: Some(now),
            ..Default::default()
        }),
    };
    let api: Api<Lease> = Api::namespaced(mgmt.clone(), lease_namespace);
    match api.create(&PostParams::default(), &lease).await {
        Ok(_) => {}
        Err(kube::Error::Api(e)) if e.code == 409 => {}
        Err(e) => return Err(e),
    }
    tokio::spawn(renew_while_held(api, name.to_string()));
    Ok(())
}

/// Renews Lease `name` every 3 s while [`FENCE`] holds it: each renewal
/// tests the holder in the same JSON patch, so a Lease another holder took
/// is never touched, and the renewing ends with it (or with the test).
async fn renew_while_held(api: Api<Lease>, name: String) {
    loop {
        tokio::time::sleep(Duration::from_secs(3)).await;
        let now = serde_json::to_value(MicroTime(Timestamp::now())).expect("a time");
        let patch: json_patch::Patch = serde_json::from_value(json!([
            {"op": "test", "path": "/spec/holderIdentity", "value": FENCE},
            {"op": "replace", "path": "/spec/renewTime", "value": now},
        ]))
        .expect("a JSON patch");
        let renewed = api
            .patch(&name, &PatchParams::default(), &Patch::Json::<()>(patch))
            .await;
        match renewed {
            Ok(_) => {}
            // Gone, or no longer the fence's (a failed test answers 422).
            Err(kube::Error::Api(e)) if e.code == 404 || e.code == 422 => return,
            Err(e) => eprintln!("renewing the claim {name}: {e}"),
        }
    }
}

/// One engine for the tenants' namespaces only, as a cluster-wide engine
/// serves them: one process, one set of stores over every namespace, one
/// set of controllers and workers.
///
/// The harness is shared with other tests, each with a namespace-scoped
/// engine holding its namespace's Lease in `kube-system`, and a store of
/// the engine is either one namespace or all of them (`store::Scope`): the
/// engine takes no list of namespaces and no selector. So this engine runs
/// cluster-wide and is kept out of every other namespace twice over:
///
/// - it keeps its Leases in a namespace of the test's own, where the test
///   holds, for every namespace but the tenants', the Lease a
///   namespace-scoped engine of that namespace would hold (and for each
///   namespace created later, as it appears): the engine's rule for
///   namespaces that another engine holds leaves them alone. Its own Lease
///   there is no other engine's business: a namespace-scoped engine that
///   starts meanwhile does not wait for it;
/// - it runs as a ServiceAccount that may read everything but write only
///   in the tenants' namespaces and its Lease namespace: were a namespace
///   to slip past the fence (created and filled before the test saw it),
///   its writes there are refused.
///
/// And the test claims the tenants' namespaces in `kube-system`, as their
/// namespace-scoped engines would, so that a cluster-wide engine another
/// test runs leaves them alone.
struct TenantsEngine {
    counters: Arc<Counters>,
    shutdown: CancellationToken,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    fence: tokio::task::JoinHandle<()>,
    leases: TestNamespace,
    rbac: String,
    kubeconfig: PathBuf,
    mgmt: Client,
}

impl TenantsEngine {
    async fn start(mgmt: &Client, tenants: &[&str], options: EngineOptions) -> Self {
        let leases = TestNamespace::create(mgmt, "noisy-leases").await;
        let rbac = format!("hmc-tui-test-{}", leases.name);
        Self::grant(mgmt, &leases.name, &rbac, tenants).await;
        let kubeconfig = std::env::temp_dir().join(format!("{rbac}.kubeconfig"));
        service_account_kubeconfig(mgmt, &leases.name, "engine", &kubeconfig).await;
        for t in tenants {
            let lease = engine::claims::lease_name(Some(t));
            hold_lease(mgmt, "kube-system", &lease)
                .await
                .unwrap_or_else(|e| panic!("claim {t} in kube-system: {e}"));
        }
        let fence = Self::fence(mgmt, &leases.name, tenants).await;

        // As `RunningEngine` starts one, cluster-wide and as the account.
        let counters = Arc::new(Counters::default());
        let config = config_for(&kubeconfig).await;
        let client =
            engine::requests::counted_client(config, counters.requests.clone(), Default::default())
                .expect("the engine's client");
        // RBAC reaches the API server's authorizer a moment after it is
        // written: the engine starts once its account may read.
        let probe: Api<ServiceTemplate> = Api::all(client.clone());
        eventually(
            "the engine's account to be allowed to read",
            Duration::from_secs(30),
            || async { probe.list(&ListParams::default().limit(1)).await.ok() },
        )
        .await;
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
        let capi = hmc_tui::capi::discover(&client)
            .await
            .expect("the versions of Cluster API served");
        let (stores, watches) = Stores::new(&client, &Scope { namespace: None }, capi);
        let ctx = Arc::new(Context::new(client, stores, counters.clone(), options));
        let shutdown = CancellationToken::new();
        let mut lease = LeaseOptions::for_scope(None);
        lease.namespace = leases.name.clone();
        lease.identity = format!("hmc-tui-test-{}", leases.name);
        let (role, mut leading) = tokio::sync::watch::channel(Role::Starting);
        let stop = shutdown.clone();
        let run = tokio::spawn(async move {
            if let Err(error) = engine::leader::run_with_lease(ctx, lease, role, stop).await {
                panic!("the tenants' engine's lease failed: {error}");
            }
        });
        let feed = tokio::spawn(async move {
            futures::future::join_all(watches).await;
        });
        tokio::time::timeout(
            Duration::from_secs(60),
            leading.wait_for(|r| *r == Role::Leader),
        )
        .await
        .expect("the tenants' engine to lead within 60 s")
        .expect("the tenants' engine's role");
        Self {
            counters,
            shutdown,
            tasks: vec![feed, run],
            fence,
            leases,
            rbac,
            kubeconfig,
            mgmt: mgmt.clone(),
        }
    }

    /// ServiceAccount `engine` of `leases`: reads everything, writes only
    /// in the tenants' namespaces and in `leases`.
    async fn grant(mgmt: &Client, leases: &str, rbac: &str, tenants: &[&str]) {
        let mut yaml = format!(
            "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: engine\n  namespace: {leases}\n\
             ---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {rbac}\n\
             rules:\n  - apiGroups: [\"*\"]\n    resources: [\"*\"]\n    verbs: [get, list, watch]\n\
             ---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: {rbac}\n\
             roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: {rbac}\n\
             subjects:\n  - kind: ServiceAccount\n    name: engine\n    namespace: {leases}\n"
        );
        for ns in tenants.iter().copied().chain([leases]) {
            yaml.push_str(&format!(
                "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: {rbac}\n  namespace: {ns}\n\
                 roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\n\
                 subjects:\n  - kind: ServiceAccount\n    name: engine\n    namespace: {leases}\n"
            ));
        }
        apply_yaml(mgmt, leases, &yaml).await;
    }

    /// Holds, in `leases`, the Lease of every namespace but the tenants':
    /// those there are before this returns, and those created later, as
    /// they appear.
    async fn fence(mgmt: &Client, leases: &str, tenants: &[&str]) -> tokio::task::JoinHandle<()> {
        let namespaces: Api<Namespace> = Api::all(mgmt.clone());
        let (mgmt, leases) = (mgmt.clone(), leases.to_string());
        let tenants: HashSet<String> = tenants.iter().map(|t| t.to_string()).collect();
        let (listed, ready) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(async move {
            let mut listed = Some(listed);
            let mut fenced = HashSet::new();
            let events = watcher(namespaces, watcher::Config::default()).default_backoff();
            futures::pin_mut!(events);
            while let Some(event) = events.next().await {
                match event {
                    Ok(watcher::Event::InitApply(ns) | watcher::Event::Apply(ns)) => {
                        let name = ns.name_any();
                        if !tenants.contains(&name) && fenced.insert(name.clone()) {
                            let lease = engine::claims::lease_name(Some(&name));
                            // Not fenced, the namespace is still out of the
                            // engine's reach for writes (its RBAC).
                            if let Err(e) = hold_lease(&mgmt, &leases, &lease).await {
                                eprintln!("cannot fence namespace {name}: {e}");
                            }
                        }
                    }
                    Ok(watcher::Event::InitDone) => {
                        if let Some(tx) = listed.take() {
                            let _ = tx.send(fenced.len());
                        }
                    }
                    Ok(_) => {}
                    Err(error) => eprintln!("watching namespaces for the fence: {error}"),
                }
            }
        });
        let n = tokio::time::timeout(Duration::from_secs(60), ready)
            .await
            .expect("every namespace fenced within 60 s")
            .expect("the fence's watch");
        eprintln!("the tenants' engine is fenced out of {n} other namespaces");
        task
    }

    async fn stop(self) {
        self.shutdown.cancel();
        let mut tasks = self.tasks;
        let run = tasks.pop().unwrap();
        let _ = tokio::time::timeout(Duration::from_secs(20), run).await;
        for t in tasks {
            t.abort();
        }
        self.fence.abort();
        let roles: Api<k8s_openapi::api::rbac::v1::ClusterRole> = Api::all(self.mgmt.clone());
        let bindings: Api<k8s_openapi::api::rbac::v1::ClusterRoleBinding> =
            Api::all(self.mgmt.clone());
        let _ = bindings.delete(&self.rbac, &DeleteParams::default()).await;
        let _ = roles.delete(&self.rbac, &DeleteParams::default()).await;
        let _ = std::fs::remove_file(&self.kubeconfig);
        // Its own Lease and the fences go with the namespace.
        self.leases.cleanup().await;
    }
}

async fn service_template_status(api: &Api<ServiceTemplate>, name: &str) -> Option<TemplateStatus> {
    api.get_opt(name).await.ok().flatten()?.status
}

async fn cluster_template_status(api: &Api<ClusterTemplate>, name: &str) -> Option<TemplateStatus> {
    Some(api.get_opt(name).await.ok().flatten()?.status?.chart)
}

/// A template's status in a few words, for the log.
fn told(st: Option<&TemplateStatus>) -> String {
    let Some(st) = st else {
        return "no status".into();
    };
    let mut words = if st.valid {
        "valid".to_string()
    } else {
        st.validation_error
            .clone()
            .unwrap_or_else(|| "not valid yet".into())
    };
    if let Some(hold) = &st.source_hold {
        words.push_str(&format!(
            " [held: {:?}, failures {}, next try {}]",
            hold.reason,
            hold.failures,
            hold.next_try.as_deref().unwrap_or("-")
        ));
    }
    words
}

/// What tenant B's objects say, in one line.
async fn tenant_b_says(
    sts: &Api<ServiceTemplate>,
    cts: &Api<ClusterTemplate>,
    mcs: &Api<ManagedCluster>,
) -> String {
    let st = service_template_status(sts, "web-4-11-3").await;
    let ct = cluster_template_status(cts, "plain").await;
    let cluster = match service_state(mcs, "b-1", "web").await {
        Some((state, message)) => format!("service {state:?} {message}"),
        None => match condition(mcs, "b-1", "Ready").await {
            Some((status, message)) => format!("Ready={status} {message}"),
            None => "no status".into(),
        },
    };
    format!(
        "service template: {}; cluster template: {}; cluster: {}",
        told(st.as_ref()),
        told(ct.as_ref()),
        cluster.trim()
    )
}

/// How many of the engine's chart repositories in `ns` the source
/// controller may be fetching now: neither suspended nor ready.
async fn repositories_in_flight(mgmt: &Client, ns: &str) -> Option<usize> {
    let api: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), ns, &helm_repository());
    let list = api.list(&ours()).await.ok()?;
    let in_flight = list
        .items
        .iter()
        .filter(|r| r.data["spec"]["suspend"].as_bool() != Some(true))
        .filter(|r| {
            let ready = r.data["status"]["conditions"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|c| c["type"] == "Ready" && c["status"] == "True");
            !ready
        })
        .count();
    Some(in_flight)
}

/// Tenant B: the stand-in ingress-nginx as a ServiceTemplate, a
/// ClusterTemplate that installs it as service `web` into `<ns>-web`, both
/// from the harness's chart repository, and a cluster made from it.
async fn tenant_b_objects(mgmt: &Client, ns: &str) {
    let repo = chart_repo_url();
    let st = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ServiceTemplate",
        "servicetemplates",
    );
    let ct = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ClusterTemplate",
        "clustertemplates",
    );
    apply_json(
        mgmt,
        &st,
        Some(ns),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ServiceTemplate",
            "metadata": {"name": "web-4-11-3"},
            "spec": {"helm": {"chartName": "ingress-nginx", "chartVersion": "4.11.3",
                              "repository": {"url": repo}}},
        }),
    )
    .await;
    apply_json(
        mgmt,
        &ct,
        Some(ns),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ClusterTemplate",
            "metadata": {"name": "plain"},
            "spec": {
                "helm": {"chartName": "hmc-test-cluster", "chartVersion": "0.1.0",
                         "repository": {"url": repo}},
                "services": [{
                    "name": "web", "template": "web-4-11-3", "namespace": format!("{ns}-web"),
                    // The child cluster is shared: no cluster-wide class;
                    // and no load balancer, which kwok never provides.
                    "values": "controller:\n  ingressClassResource:\n    enabled: false\n  \
                               service:\n    type: ClusterIP\n",
                }],
            },
        }),
    )
    .await;
    managed_cluster_from(mgmt, ns, "b-1", "plain", json!([])).await;
}

/// Tenant A's templates, each on a repository that never answers, made
/// all at once.
async fn tenant_a_objects(mgmt: &Client, ns: &str, urls: &[String]) {
    let st = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ServiceTemplate",
        "servicetemplates",
    );
    futures::future::join_all(urls.iter().enumerate().map(|(i, url)| {
        apply_json(
            mgmt,
            &st,
            Some(ns),
            json!({
                "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ServiceTemplate",
                "metadata": {"name": format!("hangs-{i}")},
                "spec": {"helm": {"chartName": "x", "chartVersion": "1.0.0",
                                  "repository": {"url": url}}},
            }),
        )
    }))
    .await;
}

/// The test proper: tenant A's hanging repositories, then tenant B's
/// cluster, timed; then what A's templates say.
async fn tenants(mgmt: Client, a: String, b: String, hanging: Arc<HangingRepositories>) {
    let n = hanging.urls.len();
    tenant_a_objects(&mgmt, &a, &hanging.urls).await;
    eprintln!("tenant A: {n} templates on repositories that never answer");
    // Tenant B comes once tenant A holds one of the source controller's
    // workers: it has connected to one of A's repositories.
    eventually(
        "the source controller to ask one of tenant A's repositories",
        Duration::from_secs(60),
        || async { (hanging.accepted.load(Ordering::SeqCst) > 0).then_some(()) },
    )
    .await;

    let child = child(CHILD).await;
    let b_sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &b);
    let b_cts: Api<ClusterTemplate> = Api::namespaced(mgmt.clone(), &b);
    let b_mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &b);
    let capi: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), &b, &capi_cluster());
    let target = format!("{b}-web");
    let bound = bound();
    let t0 = Instant::now();
    tenant_b_objects(&mgmt, &b).await;
    // Until B's service runs in its child: what B's objects say whenever it
    // changes, and how many of A's repositories are being fetched at once.
    let (mut said, mut provisioned, mut most_in_flight) = (String::new(), false, 0);
    let took = loop {
        let now = tenant_b_says(&b_sts, &b_cts, &b_mcs).await;
        if now != said {
            eprintln!("[{:6.1} s] tenant B: {now}", t0.elapsed().as_secs_f64());
            said = now;
        }
        if let Some(k) = repositories_in_flight(&mgmt, &a).await {
            most_in_flight = most_in_flight.max(k);
        }
        if !provisioned && capi.get_opt("b-1").await.ok().flatten().is_some() {
            eprintln!(
                "[{:6.1} s] tenant B: the cluster's objects exist; provisioning it on child-{CHILD}",
                t0.elapsed().as_secs_f64()
            );
            provision(&b, "b-1", CHILD).await;
            provisioned = true;
        }
        // Installed: Helm's install finished (the engine says so) and the
        // controller runs in the child.
        let installed = matches!(
            service_state(&b_mcs, "b-1", "web").await,
            Some((ServiceState::Installed, _))
        );
        if installed && available_release(&child, &target, "web").await.is_some() {
            break t0.elapsed();
        }
        assert!(
            t0.elapsed() <= bound,
            "tenant B's service is not installed after {bound:?}; B's objects say: {said}; \
             tenant A's repositories being fetched at once, at most: {most_in_flight}\n{}",
            logs_hint()
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
    };
    eprintln!(
        "tenant B's service installed after {:.1} s (with {n} hanging repositories in tenant A)",
        took.as_secs_f64()
    );
    eprintln!(
        "tenant A's repositories being fetched at once, at most: {most_in_flight}; \
         connections the hanging repositories took: {}",
        hanging.accepted.load(Ordering::SeqCst)
    );

    // Tenant A's templates say why they cannot be used: the ones tried say
    // that their repository does not answer and are held back until a
    // later try; the others wait for their turn.
    let a_sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &a);
    let quarantined_later = |st: &TemplateStatus| {
        let hold = st.source_hold.as_ref()?;
        let next: Timestamp = hold.next_try.as_deref()?.parse().ok()?;
        (hold.reason == SourceHoldReason::Quarantined && next > Timestamp::now()).then_some(())
    };
    eventually(
        "a template of tenant A to say its repository does not answer, held back until later",
        Duration::from_secs(120),
        || async {
            let list = a_sts.list(&Default::default()).await.ok()?;
            list.items.iter().find_map(|t| {
                let st = t.status.as_ref()?;
                let says = st
                    .validation_error
                    .as_deref()
                    .is_some_and(|e| e.contains("does not answer"));
                says.then(|| quarantined_later(st)).flatten()
            })
        },
    )
    .await;
    let list = a_sts.list(&Default::default()).await.unwrap();
    assert_eq!(list.items.len(), n);
    let mut tally: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &list.items {
        let st = t.status.clone().unwrap_or_default();
        assert!(!st.valid, "{} is valid: {st:?}", t.name_any());
        let says = st
            .validation_error
            .as_deref()
            .is_some_and(|e| e.contains("does not answer"));
        let kind = match st.source_hold.as_ref().map(|h| h.reason) {
            Some(SourceHoldReason::Quarantined) => {
                assert!(
                    says,
                    "{} is held back but does not say why: {st:?}",
                    t.name_any()
                );
                let hold = st.source_hold.as_ref().unwrap();
                assert!(hold.failures >= 1, "{hold:?}");
                assert!(
                    hold.next_try
                        .as_deref()
                        .is_some_and(|n| n.parse::<Timestamp>().is_ok()),
                    "{hold:?}"
                );
                "held back after not answering"
            }
            Some(SourceHoldReason::Waiting) => "waiting for a turn",
            None if says => "does not answer",
            None => "being fetched",
        };
        *tally.entry(kind).or_default() += 1;
    }
    eprintln!("tenant A's templates: {tally:?}");
}

/// Deletes a tenant's namespace, as [`TestNamespace::cleanup`] does, and
/// claims it in `kube-system` until it is gone: `cleanup` releases the
/// claim at once, and a cluster-wide engine that another test runs
/// meanwhile would take the namespace while it terminates, put its
/// finalizers back on what is left in it and keep it from going.
async fn release(mgmt: &Client, ns: TestNamespace) {
    let name = ns.name.clone();
    let lease = engine::claims::lease_name(Some(&name));
    ns.cleanup().await;
    if let Err(e) = hold_lease(mgmt, "kube-system", &lease).await {
        eprintln!("cannot claim {name} again while it terminates: {e}");
    }
    let namespaces: Api<Namespace> = Api::all(mgmt.clone());
    let gone = tokio::time::timeout(Duration::from_secs(180), async {
        while !matches!(namespaces.get_opt(&name).await, Ok(None)) {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    })
    .await;
    if gone.is_err() {
        eprintln!("namespace {name} is still there after 180 s");
    }
    let leases: Api<Lease> = Api::namespaced(mgmt.clone(), "kube-system");
    let _ = leases.delete(&lease, &DeleteParams::default()).await;
}

/// Tenant A has many chart repositories that never answer, all made at
/// once; tenant B, once the source controller is fetching one of them, a
/// cluster whose template and service
/// come from a sound repository. B's service is installed in its child
/// cluster within the bound, with the harness's Flux at its defaults (two
/// workers in the source controller).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_tenants_hanging_repositories_never_delay_another_tenant() {
    let mgmt = mgmt().await;
    let a = TestNamespace::create(&mgmt, "noisy-a").await;
    let b = TestNamespace::create(&mgmt, "noisy-b").await;
    let engine = TenantsEngine::start(&mgmt, &[&a.name, &b.name], EngineOptions::default()).await;
    let hanging = Arc::new(HangingRepositories::start(hanging_count()).await);

    // Run apart, so that whatever it leaves (a cluster-wide grant, a
    // service in a child cluster) is removed even when it fails.
    let outcome = tokio::spawn(tenants(
        mgmt.clone(),
        a.name.clone(),
        b.name.clone(),
        hanging.clone(),
    ))
    .await;

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &b.name);
    let _ = mcs.delete("b-1", &Default::default()).await;
    let gone = tokio::time::timeout(INSTALL, async {
        while mcs.get_opt("b-1").await.ok().flatten().is_some() {
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    })
    .await;
    if gone.is_err() {
        eprintln!("cluster b-1 was not deleted within {INSTALL:?}; cleaning up anyway");
    }
    eprintln!(
        "the tenants' engine: {} reconciles, {} writes",
        engine.counters.reconciles(),
        engine.counters.writes()
    );
    engine.stop().await;
    drop(hanging);
    drop_child_namespace(&child(CHILD).await, &format!("{}-web", b.name)).await;
    futures::future::join(release(&mgmt, a), release(&mgmt, b)).await;
    if let Err(e) = outcome {
        std::panic::resume_unwind(e.into_panic());
    }
}

/// The chart repository a template's chart source names.
async fn source_of(charts: &Api<DynamicObject>, template: &str) -> Option<String> {
    let chart = charts
        .get_opt(&source_name(TemplateKind::Service, template))
        .await
        .ok()??;
    let source = &chart.data["spec"]["sourceRef"];
    (source["kind"] == "HelmRepository").then(|| source["name"].as_str().map(String::from))?
}

/// The names of the ServiceTemplates that own repository `name`, and the
/// repository; `None` when it is not there.
async fn owners_of(
    repos: &Api<DynamicObject>,
    name: &str,
) -> Option<(BTreeSet<String>, DynamicObject)> {
    let repo = repos.get_opt(name).await.ok()??;
    let owners = repo
        .owner_references()
        .iter()
        .filter(|o| o.kind == "ServiceTemplate")
        .map(|o| o.name.clone())
        .collect();
    Some((owners, repo))
}

/// Three ServiceTemplates of one namespace on the same repository, with
/// the same settings, share one chart repository source; each keeps its own
/// chart source. The repository goes once no template uses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn templates_of_one_repository_share_one_source() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "share-repo").await;
    let engine = RunningEngine::start(&ns.name).await;
    let repo = chart_repo_url();
    let specs = [
        ("web-4-11-3", "ingress-nginx", "4.11.3"),
        ("web-4-11-4", "ingress-nginx", "4.11.4"),
        ("cluster-0-1-0", "hmc-test-cluster", "0.1.0"),
    ];
    let st = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ServiceTemplate",
        "servicetemplates",
    );
    for (name, chart, version) in specs {
        apply_json(
            &mgmt,
            &st,
            Some(&ns.name),
            json!({
                "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ServiceTemplate",
                "metadata": {"name": name},
                "spec": {"helm": {"chartName": chart, "chartVersion": version,
                                  "repository": {"url": repo}}},
            }),
        )
        .await;
    }
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let charts: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), &ns.name, &helm_chart());
    let repos: Api<DynamicObject> =
        Api::namespaced_with(mgmt.clone(), &ns.name, &helm_repository());
    for (name, _, version) in specs {
        let valid = eventually(&format!("{name} to be valid"), INSTALL, || async {
            service_template_status(&sts, name)
                .await
                .filter(|s| s.valid)
        })
        .await;
        assert_eq!(valid.chart_version.as_deref(), Some(version));
    }

    // One repository, named by every template's chart source and owned by
    // every template.
    let all: BTreeSet<String> = specs.iter().map(|t| t.0.to_string()).collect();
    let shared = eventually(
        "the three chart sources to name one repository that the three templates own",
        Duration::from_secs(60),
        || async {
            let mut names = BTreeSet::new();
            for (t, _, _) in specs {
                names.insert(source_of(&charts, t).await?);
            }
            let [name] = <[String; 1]>::try_from(names.into_iter().collect::<Vec<_>>()).ok()?;
            let (owners, _) = owners_of(&repos, &name).await?;
            (owners == all).then_some(name)
        },
    )
    .await;
    eprintln!("the templates share HelmRepository {shared}");
    assert!(shared.starts_with("repo-"), "{shared}");
    let (_, repository) = owners_of(&repos, &shared).await.unwrap();
    assert_eq!(
        repository.labels().get(MANAGED_BY).map(String::as_str),
        Some(MANAGED_BY_VALUE)
    );
    for owner in repository.owner_references() {
        assert_ne!(owner.controller, Some(true), "{owner:?}");
        let template = sts.get(&owner.name).await.unwrap();
        assert_eq!(Some(&owner.uid), template.metadata.uid.as_ref());
        assert_eq!(owner.api_version, "hmc.mirantis.com/v1alpha1");
    }
    let ours_here = repos.list(&ours()).await.unwrap();
    let names: Vec<String> = ours_here.items.iter().map(|r| r.name_any()).collect();
    assert_eq!(names, vec![shared.clone()], "one repository source");

    // One template goes: its reference goes, the repository stays, and the
    // others stay valid on it.
    sts.delete("web-4-11-4", &Default::default()).await.unwrap();
    eventually("web-4-11-4 to be deleted", INSTALL, || async {
        sts.get_opt("web-4-11-4")
            .await
            .ok()?
            .is_none()
            .then_some(())
    })
    .await;
    let rest: BTreeSet<String> = ["web-4-11-3", "cluster-0-1-0"].map(String::from).into();
    eventually(
        "the deleted template's reference to leave the repository",
        Duration::from_secs(120),
        || async {
            let (owners, _) = owners_of(&repos, &shared).await?;
            (owners == rest).then_some(())
        },
    )
    .await;
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert!(
        owners_of(&repos, &shared).await.is_some(),
        "the repository stays"
    );
    for t in &rest {
        let st = service_template_status(&sts, t).await.unwrap();
        assert!(st.valid, "{t}: {st:?}");
        assert_eq!(
            source_of(&charts, t).await.as_deref(),
            Some(shared.as_str())
        );
    }

    // The rest go: so does the repository.
    for t in &rest {
        sts.delete(t, &Default::default()).await.unwrap();
    }
    eventually(
        "the repository to be gone once no template uses it",
        Duration::from_secs(180),
        || async { repos.get_opt(&shared).await.ok()?.is_none().then_some(()) },
    )
    .await;

    engine.stop().await;
    ns.cleanup().await;
}
