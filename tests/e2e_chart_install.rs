//! hmc-tui installed from its own Helm chart through Flux: a HelmRelease of
//! the chart (packaged from `assets/chart/hmc-tui`, served on loopback)
//! installs the engine's ServiceAccount, RBAC, Deployment and the rest into
//! a namespace of the test's own. The management cluster has no nodes, so
//! the Deployment's pods never run: the engine runs as a process instead,
//! with the Deployment's arguments and environment and the ServiceAccount's
//! token, and a cluster gets its service with nothing refused. The chart's
//! RBAC is enough.

mod common;

use std::time::Duration;

use common::accounts::{service_account_kubeconfig, stop_refused_nothing};
use common::cases::*;
use common::headless::*;
use common::helm::ChartRepo;
use common::*;
use hmc_tui::api::{ManagedCluster, ServiceState};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, DynamicObject};
use serde_json::json;

const PORT: u16 = 17563;

fn helm_release() -> kube::api::ApiResource {
    ar(
        "helm.toolkit.fluxcd.io",
        "v2",
        "HelmRelease",
        "helmreleases",
    )
}

/// Whether a Flux object's Ready condition is True; its message otherwise.
fn ready(obj: &DynamicObject) -> Result<(), String> {
    let conds = obj.data["status"]["conditions"].as_array().cloned();
    let ready = conds
        .iter()
        .flatten()
        .find(|c| c["type"] == "Ready")
        .cloned()
        .unwrap_or_default();
    if ready["status"] == "True" {
        Ok(())
    } else {
        Err(ready["message"].as_str().unwrap_or("no Ready yet").into())
    }
}

/// The chart's arguments and environment of the installed Deployment, for
/// a process: the listening address is the test's, the pod name made up.
fn engine_command(d: &Deployment) -> (Vec<String>, Vec<(String, String)>) {
    let pod = d.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    let c = &pod.containers[0];
    let args = c
        .args
        .iter()
        .flatten()
        .filter(|a| !a.starts_with("--metrics-addr"))
        .cloned()
        .collect();
    let env = c
        .env
        .iter()
        .flatten()
        .map(|e| {
            let value = e.value.clone().unwrap_or_else(|| "chart-test-pod".into());
            (e.name.clone(), value)
        })
        .collect();
    (args, env)
}

/// An account in `ns` bound to cluster-admin, named after `ns` (its
/// binding is cluster-wide and is deleted with the test's other
/// cluster-wide objects): what a platform admin installs hmc-tui as.
async fn platform_admin(mgmt: &kube::Client, ns: &str) -> String {
    let name = "platform-admin".to_string();
    apply_yaml(
        mgmt,
        ns,
        &format!(
            "apiVersion: v1\nkind: ServiceAccount\nmetadata: {{name: {name}, namespace: {ns}}}\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n\
             metadata: {{name: {ns}-platform-admin}}\n\
             roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}}\n\
             subjects: [{{kind: ServiceAccount, name: {name}, namespace: {ns}}}]\n"
        ),
    )
    .await;
    name
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chart_installs_through_flux_and_its_rbac_is_enough() {
    let started = std::time::Instant::now();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "chart").await;
    let target = format!("{}-ingress", ns.name);
    // The release's name is the namespace's: its cluster-wide objects
    // (ClusterRole, ClusterRoleBinding, admission policy) are named after
    // it and clash with no other install.
    let release = ns.name.clone();
    let fullname = format!("{release}-hmc-tui");

    // With its defaults the chart lets the engine read hmc's default
    // repository in hmc-system (a Role there), which a management cluster
    // with hmc has. A fresh harness may not have it yet: another test makes
    // it, in whatever order they run.
    apply_json(
        &mgmt,
        &ar("", "v1", "Namespace", "namespaces"),
        None,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "hmc-system"}}),
    )
    .await;
    let dir = std::env::temp_dir().join(format!("hmc-tui-chart-{}", ns.name));
    let repo = ChartRepo::serve_chart(dir.clone()).await;
    apply_json(
        &mgmt,
        &ar(
            "source.toolkit.fluxcd.io",
            "v1",
            "HelmRepository",
            "helmrepositories",
        ),
        Some(&ns.name),
        json!({
            "apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmRepository",
            "metadata": {"name": "hmc-tui"},
            "spec": {"url": repo.url(), "interval": "10m"},
        }),
    )
    .await;
    // Under Flux's lockdown a release installs as the account it names:
    // the platform admin's own, which may install cluster-wide objects.
    let installer = platform_admin(&mgmt, &ns.name).await;
    // The harness holds the CRDs already (crds.install=false); the engine
    // reconciles this namespace only, and the admission policy judges it
    // only. No wait for the Deployment: no node will ever run its pods.
    apply_json(
        &mgmt,
        &helm_release(),
        Some(&ns.name),
        json!({
            "apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": "hmc-tui"},
            "spec": {
                "interval": "10m",
                "releaseName": release,
                "serviceAccountName": installer,
                "chart": {"spec": {
                    "chart": "hmc-tui", "version": "0.1.0",
                    "sourceRef": {"kind": "HelmRepository", "name": "hmc-tui"},
                }},
                "install": {"disableWait": true},
                "upgrade": {"disableWait": true},
                "values": {
                    "crds": {"install": false},
                    "replicas": 1,
                    "watchNamespace": ns.name,
                    "admissionPolicy": {"namespaceSelector": {"matchLabels": {
                        "kubernetes.io/metadata.name": ns.name,
                    }}},
                },
            },
        }),
    )
    .await;
    let releases: Api<DynamicObject> =
        Api::namespaced_with(mgmt.clone(), &ns.name, &helm_release());
    // Waits for Ready, and says what Flux says if it never comes.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    loop {
        let state = releases.get("hmc-tui").await.map(|hr| ready(&hr));
        if matches!(state, Ok(Ok(()))) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the chart did not install within 120 s: {state:?}\n{}",
            logs_hint()
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let deployments: Api<Deployment> = Api::namespaced(mgmt.clone(), &ns.name);
    let d = deployments
        .get(&fullname)
        .await
        .expect("the chart's Deployment");
    let pod = d.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    assert_eq!(pod.service_account_name.as_deref(), Some(fullname.as_str()));
    let cluster_roles: Api<ClusterRole> = Api::all(mgmt.clone());
    assert!(cluster_roles.get_opt(&fullname).await.unwrap().is_some());
    eprintln!("chart installed after {:?}", started.elapsed());

    // The engine as the Deployment would run it, as its ServiceAccount.
    let kubeconfig = std::env::temp_dir().join(format!("hmc-tui-{}.kubeconfig", ns.name));
    service_account_kubeconfig(&mgmt, &ns.name, &fullname, &kubeconfig).await;
    let (args, env) = engine_command(&d);
    assert!(
        args.contains(&format!("--namespace={}", ns.name)),
        "{args:?}"
    );
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let engine = Headless::start_args(&ns.name, args, PORT, &kubeconfig, &env);
    eventually("the engine to lead", Duration::from_secs(60), || async {
        engine.is_leader().await?.then_some(())
    })
    .await;

    templates(&mgmt, &ns.name).await;
    managed_cluster(&mgmt, &ns.name, "dev-1", json!([])).await;
    provision(&ns.name, "dev-1", 2).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    until_ready(&mcs, "dev-1", INSTALL).await;
    eventually("ingress-nginx Installed on dev-1", INSTALL, || async {
        let (state, _) = service_state(&mcs, "dev-1", "ingress-nginx").await?;
        (state == ServiceState::Installed).then_some(())
    })
    .await;
    eprintln!(
        "dev-1 Ready, its service Installed after {:?}",
        started.elapsed()
    );

    // Deleting the cluster uninstalls its service, under the same RBAC.
    mcs.delete("dev-1", &Default::default()).await.unwrap();
    eventually("dev-1 deleted", INSTALL, || async {
        mcs.get_opt("dev-1").await.ok()?.is_none().then_some(())
    })
    .await;
    stop_refused_nothing(engine).await;

    // Uninstalling the release takes its cluster-wide objects with it.
    releases
        .delete("hmc-tui", &Default::default())
        .await
        .unwrap();
    eventually(
        "the release uninstalled",
        Duration::from_secs(120),
        || async {
            let gone = releases.get_opt("hmc-tui").await.ok()?.is_none()
                && cluster_roles.get_opt(&fullname).await.ok()?.is_none();
            gone.then_some(())
        },
    )
    .await;
    let bindings: Api<ClusterRoleBinding> = Api::all(mgmt.clone());
    let _ = bindings
        .delete(&format!("{}-platform-admin", ns.name), &Default::default())
        .await;
    eprintln!("done after {:?}", started.elapsed());
    drop(repo);
    drop_child_namespace(&child(2).await, &target).await;
    let _ = std::fs::remove_file(&kubeconfig);
    let _ = std::fs::remove_dir_all(&dir);
    ns.cleanup().await;
}
