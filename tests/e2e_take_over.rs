//! The engine end to end: a service never takes over what it did not
//! create, unless its cluster says it may (`services[].takeOwnership`).
//!
//! - An object made by hand under a name the chart renders stops the
//!   install; the service names it, and the object is left as it was.
//! - Two services of one cluster that render the same object: the second
//!   is refused, and says it conflicts with the first, naming the object.
//! - A release of the service's name installed by hand before the service:
//!   the release controller (helm-controller v1.4.3) upgrades such a
//!   release as its own and has no setting to refuse it, so the service
//!   says that it took it over, and is Failed until the cluster accepts it.
//!
//! Each test runs against the harness's real control plane and child
//! clusters, with the stand-in ingress-nginx chart
//! (`tests/fixtures/charts/ingress-nginx`): a Deployment and a Service
//! named `<release>-controller`, and an IngressClass named by its values.

mod common;

use std::time::{Duration, Instant};

use common::cases::*;
use common::rollouts::event_notes;
use common::*;
use hmc_tui::api::names::service_release_name;
use hmc_tui::api::{ManagedCluster, ServiceState};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::networking::v1::IngressClass;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;

/// The stand-in chart as ServiceTemplate `web-4-11-3`, and ClusterTemplate
/// `demo` with `services` (YAML list items).
async fn templates_with(mgmt: &Client, ns: &str, services: &str) {
    let yaml = format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  \
         name: web-4-11-3\nspec:\n  helm:\n    chartName: ingress-nginx\n    \
         chartVersion: 4.11.3\n    repository:\n      url: {repo}\n---\n\
         apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata:\n  \
         name: demo\nspec:\n  helm:\n    chartName: hmc-test-cluster\n    \
         chartVersion: 0.1.0\n    repository:\n      url: {repo}\n  services:\n{services}",
        repo = chart_repo_url(),
    );
    apply_yaml(mgmt, ns, &yaml).await;
}

/// A service entry of ClusterTemplate `demo`: the stand-in chart as
/// release `name` in `namespace`, its IngressClass named `class`.
fn service(name: &str, namespace: &str, class: &str, extra: &str) -> String {
    format!(
        "    - name: {name}\n      template: web-4-11-3\n      namespace: {namespace}\n{extra}      \
         values: |\n        controller:\n          service:\n            type: ClusterIP\n          \
         ingressClassResource:\n            name: {class}\n"
    )
}

/// The service's state and message once `done` holds for them.
async fn service_until(
    mcs: &Api<ManagedCluster>,
    service: &str,
    what: &str,
    done: impl Fn(ServiceState, &str) -> bool,
) -> (ServiceState, String) {
    eventually(what, INSTALL, || async {
        let (state, msg) = service_state(mcs, "dev-1", service).await?;
        done(state, &msg).then_some((state, msg))
    })
    .await
}

/// Lets service `service` of `dev-1` take over what exists (or not).
async fn take_ownership(mgmt: &Client, ns: &str, service: &str, take: bool) {
    managed_cluster(
        mgmt,
        ns,
        "dev-1",
        json!([{"name": service, "takeOwnership": take}]),
    )
    .await;
}

/// Deletes `dev-1` and waits until it is gone (its services uninstalled).
async fn delete_cluster(mcs: &Api<ManagedCluster>) {
    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("the cluster to be deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;
}

/// The release controller reconciles the releases of `services` of
/// `dev-1` again, then the engine looks at the cluster again: what both
/// say after that is what they say for good.
async fn looked_again(mgmt: &Client, engine: &RunningEngine, ns: &str, services: &[&str]) {
    for service in services {
        release_reconciled(mgmt, ns, &service_release_name("dev-1", service)).await;
    }
    engine.look_again(ns, &["dev-1"]).await;
}

/// What Helm or the release controller puts on an object it owns.
fn marks_of_a_release(meta: &kube::api::ObjectMeta) -> Vec<String> {
    let labels = meta.labels.iter().flatten().map(|(k, _)| k);
    let annotations = meta.annotations.iter().flatten().map(|(k, _)| k);
    labels
        .chain(annotations)
        .filter(|k| {
            k.starts_with("meta.helm.sh/")
                || k.starts_with("helm.toolkit.fluxcd.io/")
                || k.as_str() == "app.kubernetes.io/managed-by"
        })
        .cloned()
        .collect()
}

/// A Deployment made by hand in the child under the name the chart gives
/// its controller, and nothing of it taken over; once the cluster lets the
/// service take it over, it becomes the service's (the same object).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_made_by_hand_is_named_and_left_alone() {
    let mgmt = mgmt().await;
    let child = child(1).await;
    let ns = TestNamespace::create(&mgmt, "tko-obj").await;
    let target = format!("{}-web", ns.name);

    // By hand, in the child: the namespace and a Deployment `web-controller`
    // (the selector the chart's has, so that taking it over later works).
    let namespaces: Api<Namespace> = Api::all(child.clone());
    let namespace: Namespace =
        serde_json::from_value(json!({"metadata": {"name": target}})).unwrap();
    namespaces
        .create(&PostParams::default(), &namespace)
        .await
        .unwrap();
    let selector = json!({"app.kubernetes.io/name": "ingress-nginx",
                          "app.kubernetes.io/instance": "web",
                          "app.kubernetes.io/component": "controller"});
    let by_hand: Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web-controller", "labels": {"made-by": "hand"},
                     "annotations": {"note": "made by hand"}},
        "spec": {"replicas": 1, "selector": {"matchLabels": selector},
                 "template": {"metadata": {"labels": selector},
                              "spec": {"tolerations": [{"key": "kwok.x-k8s.io/node",
                                                        "operator": "Exists",
                                                        "effect": "NoSchedule"}],
                                       "containers": [{"name": "web", "image": "example.com/web:1"}]}}}
    }))
    .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(child.clone(), &target);
    let made = deployments
        .create(&PostParams::default(), &by_hand)
        .await
        .unwrap();

    let engine = RunningEngine::start(&ns.name).await;
    templates_with(
        &mgmt,
        &ns.name,
        &service("web", &target, &format!("{}-web", ns.name), ""),
    )
    .await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 1).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);

    let want = format!(
        "Deployment {target}/web-controller already exists in the cluster and was not \
         installed by hmc-tui; remove it, or set takeOwnership: true on the service to take it \
         over"
    );
    let (state, _) = service_until(&mcs, "web", "the refusal", |_, m| m == want).await;
    assert_eq!(state, ServiceState::Failed);
    let (ready, message) = condition(&mcs, "dev-1", "ServicesReady").await.unwrap();
    assert_eq!((ready.as_str(), message), ("False", format!("web: {want}")));
    // The next attempts say the same: each time the release controller has
    // tried the install again (its count of failures grew), and the engine
    // has looked at the cluster since.
    let release = service_release_name("dev-1", "web");
    let mut failures = release_failures(&mgmt, &ns.name, &release).await;
    for _ in 0..2 {
        failures = eventually("the release controller to try again", INSTALL, || async {
            let now = release_failures(&mgmt, &ns.name, &release).await;
            (now > failures).then_some(now)
        })
        .await;
        engine.look_again(&ns.name, &["dev-1"]).await;
        let (state, msg) = service_state(&mcs, "dev-1", "web").await.unwrap();
        assert_eq!((state, msg.as_str()), (ServiceState::Failed, want.as_str()));
    }

    // Left as it was: the same object, its spec, labels and annotations,
    // nothing of a release on it, and no release recorded in the child.
    let now = deployments.get("web-controller").await.unwrap();
    assert_eq!(now.uid(), made.uid());
    assert_eq!(now.metadata.generation, made.metadata.generation);
    assert_eq!(now.labels(), made.labels());
    // (the Deployment controller notes its rollout revision on it)
    let mut annotations = now.annotations().clone();
    annotations.remove("deployment.kubernetes.io/revision");
    assert_eq!(&annotations, made.annotations());
    assert_eq!(now.spec, made.spec);
    assert!(marks_of_a_release(&now.metadata).is_empty());
    assert!(release_records(&child, &target).await.is_empty());
    let services: Api<k8s_openapi::api::core::v1::Service> =
        Api::namespaced(child.clone(), &target);
    assert!(
        services.get_opt("web-controller").await.unwrap().is_none(),
        "nothing of the chart installed"
    );

    // Someone asks the release controller to try once more, as
    // `flux reconcile helmrelease` does: the request it leaves on the
    // release is not the engine's, and does not keep the engine from
    // writing the release again.
    release_reconciled(&mgmt, &ns.name, &release).await;
    // The cluster lets the service take it over: installed, and the same
    // Deployment is now the service's.
    take_ownership(&mgmt, &ns.name, "web", true).await;
    let (_, message) = service_until(&mcs, "web", "web installed", |s, _| {
        s == ServiceState::Installed
    })
    .await;
    assert_eq!(message, "");
    let taken = deployments.get("web-controller").await.unwrap();
    assert_eq!(taken.uid(), made.uid());
    assert_eq!(taken.annotations()["meta.helm.sh/release-name"], "web");
    assert_eq!(
        taken.annotations()["meta.helm.sh/release-namespace"],
        target
    );

    delete_cluster(&mcs).await;
    engine.stop().await;
    drop_child_namespace(&child, &target).await;
    ns.cleanup().await;
}

/// Two services of one cluster whose charts render the same cluster-wide
/// object (an IngressClass): the second is refused and names the first and
/// the object; the first keeps it, untouched, and nobody says it was
/// changed by hand, however often the release controller reconciles them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_services_rendering_one_object_conflict() {
    let mgmt = mgmt().await;
    let child = child(2).await;
    let ns = TestNamespace::create(&mgmt, "tko-two").await;
    let (ns_a, ns_b) = (format!("{}-a", ns.name), format!("{}-b", ns.name));
    let class = format!("{}-class", ns.name);
    // Short intervals: a release that put back what the other changed
    // would do so within seconds.
    let engine = RunningEngine::start_with(
        &ns.name,
        hmc_tui::engine::EngineOptions {
            release_interval: "5s".into(),
            ..Default::default()
        },
    )
    .await;
    // b comes second: it depends on a.
    let services = format!(
        "{}{}",
        service("a", &ns_a, &class, ""),
        service("b", &ns_b, &class, "      dependsOn: [a]\n")
    );
    templates_with(&mgmt, &ns.name, &services).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 2).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);

    let want = format!(
        "conflicts with service a: both install IngressClass {class}, which a installed \
         first; change the values of one of them"
    );
    let (state, _) = service_until(&mcs, "b", "b's conflict", |_, m| m == want).await;
    assert_eq!(state, ServiceState::Failed);
    let (a_state, a_message) = service_state(&mcs, "dev-1", "a").await.unwrap();
    assert_eq!((a_state, a_message.as_str()), (ServiceState::Installed, ""));
    let (_, message) = condition(&mcs, "dev-1", "ServicesReady").await.unwrap();
    assert_eq!(message, format!("b: {want}"));

    // a has the IngressClass; b installed nothing.
    let classes: Api<IngressClass> = Api::all(child.clone());
    let held = classes.get(&class).await.unwrap();
    assert_eq!(held.annotations()["meta.helm.sh/release-name"], "a");
    assert_eq!(held.annotations()["meta.helm.sh/release-namespace"], ns_a);
    assert_eq!(release_records(&child, &ns_a).await.len(), 1);
    assert!(release_records(&child, &ns_b).await.is_empty());

    // Over several reconciles of both releases, each followed by a look of
    // the engine: nothing changes hands, and nothing is said to be changed
    // by hand.
    for _ in 0..3 {
        looked_again(&mgmt, &engine, &ns.name, &["a", "b"]).await;
        let st = status_of(&mcs, "dev-1").await.unwrap();
        for s in &st.services {
            let msg = s.message.as_deref().unwrap_or_default();
            assert!(!msg.contains("by hand"), "{}: {msg}", s.name);
        }
        let b = st.services.iter().find(|s| s.name == "b").unwrap();
        assert_eq!(
            (b.state, b.message.as_deref()),
            (ServiceState::Failed, Some(want.as_str()))
        );
        let a = st.services.iter().find(|s| s.name == "a").unwrap();
        assert_eq!(a.state, ServiceState::Installed);
    }
    let now = classes.get(&class).await.unwrap();
    assert_eq!(now.uid(), held.uid());
    assert_eq!(now.resource_version(), held.resource_version(), "untouched");
    assert_eq!(now.annotations(), held.annotations());
    let notes = event_notes(&mgmt, &ns.name, "dev-1").await;
    assert!(
        !notes.iter().any(|n| n.contains("by hand")),
        "no correction told: {notes:?}"
    );

    delete_cluster(&mcs).await;
    engine.stop().await;
    drop_child_namespace(&child, &ns_a).await;
    drop_child_namespace(&child, &ns_b).await;
    ns.cleanup().await;
}

/// Helm's `info` of release `release` in namespace `ns` of a child.
fn helm_status(kubeconfig: &str, release: &str, ns: &str) -> serde_json::Value {
    let out = common::helm::helm(&[
        "status",
        release,
        "-n",
        ns,
        "--kubeconfig",
        kubeconfig,
        "-o",
        "json",
    ]);
    serde_json::from_str(&out).unwrap()
}

/// A release installed by hand (`helm install`) under the name and in the
/// namespace a service then uses. The release controller upgrades it as
/// its own (helm-controller v1.4.3 has no setting that refuses a release it
/// did not install): the service says so, with when the release was
/// installed, and is Failed until the cluster accepts it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_installed_by_hand_is_reported_as_taken_over() {
    let mgmt = mgmt().await;
    let child = child(2).await;
    let ns = TestNamespace::create(&mgmt, "tko-rel").await;
    let target = format!("{}-web", ns.name);
    let class = format!("{}-web", ns.name);
    let kubeconfig = harness_dir().join("child-2.kubeconfig");
    let kubeconfig = kubeconfig.to_string_lossy().into_owned();

    // By hand: the same chart, as release `web`.
    let class_value = format!("controller.ingressClassResource.name={class}");
    common::helm::helm(&[
        "install",
        "web",
        "ingress-nginx",
        "--repo",
        &chart_repo_url(),
        "--version",
        "4.11.3",
        "-n",
        &target,
        "--create-namespace",
        "--kubeconfig",
        &kubeconfig,
        "--set",
        "controller.service.type=ClusterIP",
        "--set",
        &class_value,
    ]);
    let installed_by_hand = Instant::now();
    let by_hand = helm_status(&kubeconfig, "web", &target);
    assert_eq!(by_hand["version"], 1);
    let first: k8s_openapi::jiff::Timestamp = by_hand["info"]["first_deployed"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let deployments: Api<Deployment> = Api::namespaced(child.clone(), &target);
    let made = deployments.get("web-controller").await.unwrap();

    let engine = RunningEngine::start(&ns.name).await;
    templates_with(&mgmt, &ns.name, &service("web", &target, &class, "")).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    // The engine counts a release as there before the service when it was
    // installed more than 10 s before the service's release was created
    // (the two times come from two clocks).
    let wait = Duration::from_secs(12).saturating_sub(installed_by_hand.elapsed());
    tokio::time::sleep(wait).await;
    provision(&ns.name, "dev-1", 2).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);

    let want = format!(
        "release web was already in namespace {target} of the cluster (installed {}, before \
         this service) and the service took it over (now revision 2): removing the service \
         uninstalls it; set takeOwnership: true on the service to accept that",
        first.strftime("%Y-%m-%d %H:%M:%S UTC")
    );
    let (state, _) = service_until(&mcs, "web", "the release taken over", |_, m| m == want).await;
    assert_eq!(state, ServiceState::Failed);
    let (ready, _) = condition(&mcs, "dev-1", "Ready").await.unwrap();
    assert_eq!(ready, "False");

    // What the release controller did: one upgrade over the release made by
    // hand, with the same chart and values, so the same objects. This is
    // what no setting of helm-controller v1.4.3 prevents; the service
    // reports it and waits for the cluster to accept it.
    let now = helm_status(&kubeconfig, "web", &target);
    assert_eq!(now["version"], 2);
    assert_eq!(
        now["info"]["first_deployed"],
        by_hand["info"]["first_deployed"]
    );
    let mut records = release_records(&child, &target).await;
    records.sort();
    assert_eq!(
        records,
        ["sh.helm.release.v1.web.v1", "sh.helm.release.v1.web.v2"]
    );
    let deployment = deployments.get("web-controller").await.unwrap();
    assert_eq!(deployment.uid(), made.uid());
    // Still Failed once the release controller has reconciled the release
    // again and the engine has looked since: no further upgrade.
    looked_again(&mgmt, &engine, &ns.name, &["web"]).await;
    let (state, msg) = service_state(&mcs, "dev-1", "web").await.unwrap();
    assert_eq!((state, msg.as_str()), (ServiceState::Failed, want.as_str()));
    assert_eq!(helm_status(&kubeconfig, "web", &target)["version"], 2);

    // The cluster accepts it: installed, nothing said.
    take_ownership(&mgmt, &ns.name, "web", true).await;
    let (_, message) = service_until(&mcs, "web", "web accepted", |s, _| {
        s == ServiceState::Installed
    })
    .await;
    assert_eq!(message, "");

    delete_cluster(&mcs).await;
    engine.stop().await;
    drop_child_namespace(&child, &target).await;
    ns.cleanup().await;
}
