//! Chart sources that belong to someone else, or that never answer: the
//! template says so in its status, within the stated deadline, and the
//! other templates carry on.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::cases::*;
use common::*;
use hmc_tui::api::{
    ClusterTemplate, ManagedCluster, ServiceTemplate, SourceHoldReason, TemplateStatus,
};
use hmc_tui::flux::HelmRelease;
use kube::Client;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::json;
use tokio::net::TcpListener;

/// The deadline the engine states for its own chart download.
const DEADLINE: Duration = Duration::from_secs(60);
/// The timeout the engine writes on a chart repository.
const REPOSITORY_TIMEOUT: Duration = Duration::from_secs(20);
/// What the report may take beyond the deadline: the source controller's
/// and the engine's turns, on a busy machine.
const MARGIN: Duration = Duration::from_secs(30);

/// A chart source the test makes itself, as a template author would: a
/// repository and a chart of it, both named `name`.
async fn chart_source(mgmt: &Client, ns: &str, name: &str, chart: &str, version: &str) {
    apply_json(
        mgmt,
        &helm_repository(),
        Some(ns),
        json!({
            "apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
            "metadata": {"name": name},
            "spec": {"url": chart_repo_url(), "interval": "10m"},
        }),
    )
    .await;
    apply_json(
        mgmt,
        &helm_chart(),
        Some(ns),
        json!({
            "apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart",
            "metadata": {"name": name},
            "spec": {"chart": chart, "version": version, "interval": "10m",
                     "sourceRef": {"kind": "HelmRepository", "name": name}},
        }),
    )
    .await;
}

/// The digest of the archive a chart source made, once it made one.
async fn artifact_digest(mgmt: &Client, ns: &str, name: &str) -> String {
    let api: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), ns, &helm_chart());
    eventually(
        &format!("chart source {ns}/{name} to be ready"),
        INSTALL,
        || async {
            let obj = api.get_opt(name).await.ok().flatten()?;
            let digest = obj.data["status"]["artifact"]["digest"].as_str()?;
            Some(digest.to_string())
        },
    )
    .await
}

/// A template of `kind` whose chart is the chart source `chart_ref`.
async fn chart_ref_template(
    mgmt: &Client,
    ns: &str,
    kind: &str,
    name: &str,
    chart_ref: serde_json::Value,
) {
    let plural = format!("{}s", kind.to_ascii_lowercase());
    apply_json(
        mgmt,
        &ar("hmc.mirantis.com", "v1alpha1", kind, &plural),
        Some(ns),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": kind,
            "metadata": {"name": name},
            "spec": {"helm": {"chartRef": chart_ref}},
        }),
    )
    .await;
}

async fn service_template_status(api: &Api<ServiceTemplate>, name: &str) -> Option<TemplateStatus> {
    api.get_opt(name).await.ok().flatten()?.status
}

async fn cluster_template_status(api: &Api<ClusterTemplate>, name: &str) -> Option<TemplateStatus> {
    Some(api.get_opt(name).await.ok().flatten()?.status?.chart)
}

/// The status of the template of `kind` that names tenant B's chart.
async fn borrowed_status(
    sts: &Api<ServiceTemplate>,
    cts: &Api<ClusterTemplate>,
    kind: &str,
) -> Option<TemplateStatus> {
    match kind {
        "ServiceTemplate" => service_template_status(sts, "borrowed").await,
        _ => cluster_template_status(cts, "borrowed-cluster").await,
    }
}

/// Nothing the engine read from a chart is in `st`.
fn holds_nothing_of_a_chart(st: &TemplateStatus) {
    assert!(!st.valid);
    assert_eq!(st.description, None);
    assert_eq!(st.config, None);
    assert_eq!(st.chart_version, None);
    assert_eq!(st.chart_digest, None);
}

/// Case 4: a template of namespace A names a chart source of namespace B.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chart_ref_to_another_namespace_is_refused() {
    let mgmt = mgmt().await;
    let a = TestNamespace::create(&mgmt, "tenant-a").await;
    let b = TestNamespace::create(&mgmt, "tenant-b").await;
    // Tenant B's chart sources, ready, with archives a leak would read.
    chart_source(&mgmt, &b.name, "shared", "ingress-nginx", "4.11.3").await;
    chart_source(
        &mgmt,
        &b.name,
        "shared-cluster",
        "hmc-test-cluster",
        "0.1.0",
    )
    .await;
    // Tenant A's own, the same charts: these it may use.
    chart_source(&mgmt, &a.name, "own", "ingress-nginx", "4.11.3").await;
    chart_source(&mgmt, &a.name, "own-cluster", "hmc-test-cluster", "0.1.0").await;
    let b_digests = [
        artifact_digest(&mgmt, &b.name, "shared").await,
        artifact_digest(&mgmt, &b.name, "shared-cluster").await,
    ];
    let engine = RunningEngine::start(&a.name).await;

    let to_b = |name: &str| json!({"kind": "HelmChart", "name": name, "namespace": b.name});
    for (kind, name, chart_ref) in [
        ("ServiceTemplate", "borrowed", to_b("shared")),
        (
            "ClusterTemplate",
            "borrowed-cluster",
            to_b("shared-cluster"),
        ),
        (
            "ServiceTemplate",
            "own",
            json!({"kind": "HelmChart", "name": "own"}),
        ),
        // Naming one's own namespace is fine.
        (
            "ClusterTemplate",
            "own-cluster",
            json!({"kind": "HelmChart", "name": "own-cluster", "namespace": a.name}),
        ),
    ] {
        chart_ref_template(&mgmt, &a.name, kind, name, chart_ref).await;
    }
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &a.name);
    let cts: Api<ClusterTemplate> = Api::namespaced(mgmt.clone(), &a.name);

    let expected = format!(
        "chartRef points to namespace {}; a template may only use charts in its own namespace ({})",
        b.name, a.name
    );
    for kind in ["ServiceTemplate", "ClusterTemplate"] {
        let refused = eventually(&format!("the {kind} to be refused"), INSTALL, || async {
            borrowed_status(&sts, &cts, kind)
                .await
                .filter(|s| s.validation_error.is_some())
        })
        .await;
        assert_eq!(refused.validation_error.as_deref(), Some(expected.as_str()));
        holds_nothing_of_a_chart(&refused);
    }

    // The same charts from A's own sources are read: a refusal of the
    // reference, not of chartRef or of these charts.
    let own = eventually(
        "the template of A's own chart to be valid",
        INSTALL,
        || async {
            service_template_status(&sts, "own")
                .await
                .filter(|s| s.valid)
        },
    )
    .await;
    assert_eq!(own.chart_version.as_deref(), Some("4.11.3"));
    assert!(own.description.is_some() && own.config.is_some(), "{own:?}");
    eventually("A's own cluster template to be valid", INSTALL, || async {
        cluster_template_status(&cts, "own-cluster")
            .await
            .filter(|s| s.valid)
    })
    .await;

    // A cluster of each: the sound one gets its release, pointed at A; the
    // other none, and says why.
    managed_cluster_from(&mgmt, &a.name, "mine", "own-cluster", json!([])).await;
    managed_cluster_from(&mgmt, &a.name, "theirs", "borrowed-cluster", json!([])).await;
    let hrs: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &a.name);
    let mine = eventually("the release of the sound cluster", INSTALL, || async {
        hrs.get_opt("mine").await.ok().flatten()
    })
    .await;
    assert_eq!(
        mine.spec.chart_ref.namespace.as_deref(),
        Some(a.name.as_str())
    );
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &a.name);
    let (ready, msg) = eventually("the refused template to be reported", INSTALL, || async {
        condition(&mcs, "theirs", "TemplateReady")
            .await
            .filter(|(s, _)| s == "False")
    })
    .await;
    assert_eq!(ready, "False");
    assert!(msg.contains(&expected), "{msg}");
    // Settled: nothing of B was read a while later either.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let releases = hrs.list(&Default::default()).await.unwrap();
    assert!(
        releases
            .items
            .iter()
            .all(|r| r.spec.chart_ref.namespace.as_deref() == Some(a.name.as_str())),
        "a release points outside {}",
        a.name
    );
    assert!(hrs.get_opt("theirs").await.unwrap().is_none());
    for kind in ["ServiceTemplate", "ClusterTemplate"] {
        let st = borrowed_status(&sts, &cts, kind).await.unwrap();
        holds_nothing_of_a_chart(&st);
        let text = serde_json::to_string(&st).unwrap();
        for digest in &b_digests {
            assert!(!text.contains(digest.as_str()), "{text}");
        }
    }

    for name in ["mine", "theirs"] {
        mcs.delete(name, &Default::default()).await.unwrap();
    }
    for name in ["mine", "theirs"] {
        eventually("cleanup", INSTALL, || async {
            mcs.get_opt(name).await.ok()?.is_none().then_some(())
        })
        .await;
    }
    engine.stop().await;
    a.cleanup().await;
    b.cleanup().await;
}

/// A loopback server that accepts every connection and never answers: a
/// chart repository, or an archive's address, that hangs. It counts the
/// connections it took.
struct Hanging {
    port: u16,
    accepted: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Hanging {
    async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                held.push(socket);
            }
        });
        Self {
            port,
            accepted,
            task,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Hanging {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Waits for template `name` to report a problem with `needle` in it, which
/// must be `expected` and come at the deadline, not before and not much
/// later; and nothing of a chart is in the status.
async fn reported_at_the_deadline(
    sts: &Api<ServiceTemplate>,
    name: &str,
    needle: &str,
    expected: &str,
    started: Instant,
    deadline: Duration,
) {
    let why = eventually(
        &format!("{name} to report: {expected}"),
        deadline + MARGIN,
        || async {
            service_template_status(sts, name)
                .await?
                .validation_error
                .filter(|m| m.contains(needle))
        },
    )
    .await;
    let took = started.elapsed();
    eprintln!("{name}: {why:?} after {took:?}");
    assert!(why.starts_with(expected), "{why}");
    assert!(
        took >= deadline - Duration::from_secs(1) && took <= deadline + MARGIN,
        "reported after {took:?}"
    );
    holds_nothing_of_a_chart(&service_template_status(sts, name).await.unwrap());
}

/// The sound template of the namespace, valid by now and still.
async fn stays_valid(sts: &Api<ServiceTemplate>) {
    let st = eventually("the sound template to be valid", INSTALL, || async {
        service_template_status(sts, "ingress-nginx-4-11-3")
            .await
            .filter(|s| s.valid)
    })
    .await;
    assert_eq!(st.validation_error, None);
}

/// A chart source `name` the source controller leaves alone, whose status
/// says its archive is on the hanging server; the archive's address.
async fn stalled_chart(mgmt: &Client, ns: &str, name: &str, hanging: &Hanging) -> String {
    apply_json(
        mgmt,
        &helm_chart(),
        Some(ns),
        json!({
            "apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart",
            "metadata": {"name": name},
            "spec": {"chart": "x", "version": "*", "interval": "10m", "suspend": true,
                     "sourceRef": {"kind": "HelmRepository", "name": "nowhere"}},
        }),
    )
    .await;
    let path = format!("helmchart/{ns}/{name}/x-1.0.0.tgz");
    let archive = format!("{}/{path}", hanging.url());
    let now = "2026-01-01T00:00:00Z";
    let charts: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), ns, &helm_chart());
    charts
        .patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {
                "observedGeneration": 1,
                "conditions": [{"type": "Ready", "status": "True", "reason": "Succeeded",
                                "message": "packaged 'x' chart with version '1.0.0'",
                                "lastTransitionTime": now}],
                "artifact": {"path": path, "url": archive, "revision": "1.0.0",
                             "digest": format!("sha256:{}", "0".repeat(64)),
                             "lastUpdateTime": now},
            }})),
        )
        .await
        .unwrap();
    archive
}

/// The engine's own downloads: one namespace whose archives all hang holds
/// at most 4 of them at once; its other templates say they wait for a turn,
/// and get one when a download ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespace_whose_archives_hang_holds_a_bounded_number_of_downloads() {
    const TEMPLATES: usize = 6;
    const TURNS: usize = 4;
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "hang-turns").await;
    let hanging = Hanging::start().await;
    for i in 0..TEMPLATES {
        stalled_chart(&mgmt, &ns.name, &format!("stalled-{i}"), &hanging).await;
    }
    let engine = RunningEngine::start(&ns.name).await;
    for i in 0..TEMPLATES {
        let chart = json!({"kind": "HelmChart", "name": format!("stalled-{i}")});
        chart_ref_template(
            &mgmt,
            &ns.name,
            "ServiceTemplate",
            &format!("stalled-{i}"),
            chart,
        )
        .await;
    }
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let waiting = format!(
        "waits for a turn to be read ({TURNS} charts of namespace {} are being read now)",
        ns.name
    );
    let said = eventually(
        "the templates past the turns to say they wait",
        MARGIN,
        || async {
            let mut waits = 0;
            for i in 0..TEMPLATES {
                // Those being read say nothing yet.
                let why = service_template_status(&sts, &format!("stalled-{i}"))
                    .await
                    .and_then(|s| s.validation_error)
                    .unwrap_or_default();
                waits +=
                    usize::from(why.starts_with("fetching soon: chart") && why.ends_with(&waiting));
            }
            (waits == TEMPLATES - TURNS).then_some(waits)
        },
    )
    .await;
    assert_eq!(said, TEMPLATES - TURNS);
    assert_eq!(
        hanging.accepted.load(Ordering::SeqCst),
        TURNS,
        "downloads under way at once"
    );
    // Each download ends at its deadline; the waiting templates then get
    // their turns, and every template tells its own failure.
    eventually(
        "every template to report its download",
        2 * DEADLINE + MARGIN,
        || async {
            for i in 0..TEMPLATES {
                let why = service_template_status(&sts, &format!("stalled-{i}"))
                    .await?
                    .validation_error?;
                why.contains("did not finish within 60s").then_some(())?;
            }
            Some(())
        },
    )
    .await;
    assert_eq!(hanging.accepted.load(Ordering::SeqCst), TEMPLATES);

    engine.stop().await;
    ns.cleanup().await;
}

/// Case 5: a chart repository that accepts the connection and never answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repository_that_never_answers_is_reported_within_the_deadline() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "hang-repo").await;
    let hanging = Hanging::start().await;
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    let started = Instant::now();
    apply_yaml(
        &mgmt,
        &ns.name,
        &format!(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: hangs\nspec:\n  helm:\n    chartName: x\n    chartVersion: 1.0.0\n    repository:\n      url: {}\n",
            hanging.url()
        ),
    )
    .await;
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    stays_valid(&sts).await;
    // Held back after its first try, until the next one.
    let expected = format!(
        "chart repository {} does not answer (no answer within 20s); next try at ",
        hanging.url()
    );
    reported_at_the_deadline(
        &sts,
        "hangs",
        "does not answer",
        &expected,
        started,
        REPOSITORY_TIMEOUT,
    )
    .await;
    let hold = service_template_status(&sts, "hangs")
        .await
        .and_then(|s| s.source_hold)
        .expect("the template says its repository is held back");
    assert_eq!(hold.reason, SourceHoldReason::Quarantined);
    assert_eq!(
        (hold.failures, hold.url.as_str()),
        (1, hanging.url().as_str())
    );
    assert!(
        hanging.accepted.load(Ordering::SeqCst) > 0,
        "the chart repository was asked"
    );
    stays_valid(&sts).await;

    // Held back, nothing asks it; the retry annotation (what `t` in the
    // console writes) asks again at once, long before the next try.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let asked = hanging.accepted.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(hanging.accepted.load(Ordering::SeqCst), asked, "held back");
    let now = k8s_openapi::jiff::Timestamp::now().to_string();
    sts.patch(
        "hangs",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"annotations": {"hmc.mirantis.com/retry": now}}})),
    )
    .await
    .unwrap();
    eventually(
        "the retry to ask the repository again",
        Duration::from_secs(15),
        || async { (hanging.accepted.load(Ordering::SeqCst) > asked).then_some(()) },
    )
    .await;
    eventually(
        "the second failure to be counted",
        REPOSITORY_TIMEOUT + MARGIN,
        || async {
            let hold = service_template_status(&sts, "hangs").await?.source_hold?;
            (hold.reason == SourceHoldReason::Quarantined && hold.failures == 2).then_some(())
        },
    )
    .await;

    engine.stop().await;
    ns.cleanup().await;
}

/// The engine's own download: a chart source whose archive address hangs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chart_archive_that_never_arrives_is_reported_within_the_deadline() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "hang-archive").await;
    let hanging = Hanging::start().await;
    let archive = stalled_chart(&mgmt, &ns.name, "stalled", &hanging).await;

    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    let started = Instant::now();
    let stalled = json!({"kind": "HelmChart", "name": "stalled"});
    chart_ref_template(&mgmt, &ns.name, "ServiceTemplate", "stalled", stalled).await;
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    stays_valid(&sts).await;
    let why = format!("chart download from {archive} did not finish within 60s");
    reported_at_the_deadline(&sts, "stalled", "did not finish", &why, started, DEADLINE).await;
    // One attempt, not a loop: the status write and every other trigger
    // until the retry time leave the hanging address alone.
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(hanging.accepted.load(Ordering::SeqCst), 1);
    let st = service_template_status(&sts, "stalled").await.unwrap();
    assert_eq!(st.validation_error.as_deref(), Some(why.as_str()));
    holds_nothing_of_a_chart(&st);
    stays_valid(&sts).await;

    engine.stop().await;
    ns.cleanup().await;
}
