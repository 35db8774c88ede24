//! Under whose identity a cluster's chart is installed. A tenant who may
//! write hmc objects in its own namespace only names a cluster chart that
//! binds cluster-admin: the chart is installed as the namespace's
//! `hmc-cluster-installer` (Flux locked down by the harness), the binding
//! never appears and the cluster says why. A namespace without that
//! account gets nothing installed until it has one. And the engine's own
//! token, stolen, can write no release but the two shapes the engine makes
//! (`assets/deploy/releases-policy.yaml`).

mod common;

use std::time::Duration;

use common::accounts::{apply_deploy_rbac, service_account_kubeconfig, stop_refused_nothing};
use common::cases::*;
use common::headless::*;
use common::*;
use hmc_tui::api::ManagedCluster;
use hmc_tui::api::names::CLUSTER_INSTALLER;
use hmc_tui::flux::HelmRelease;
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::ClusterRoleBinding;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;

const WITHIN: Duration = Duration::from_secs(180);

/// A tenant: ServiceAccount `tenant` in `ns`, allowed every verb on hmc's
/// objects there and nothing else; a client acting as it.
async fn tenant(mgmt: &kube::Client, ns: &str) -> (kube::Client, std::path::PathBuf) {
    apply_yaml(
        mgmt,
        ns,
        &format!(
            r#"
apiVersion: v1
kind: ServiceAccount
metadata: {{name: tenant, namespace: {ns}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: hmc-author, namespace: {ns}}}
rules:
  - apiGroups: [hmc.mirantis.com]
    resources: [servicetemplates, clustertemplates, managedclusters]
    verbs: [get, list, watch, create, update, patch, delete]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: hmc-author, namespace: {ns}}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: hmc-author}}
subjects: [{{kind: ServiceAccount, name: tenant, namespace: {ns}}}]
"#
        ),
    )
    .await;
    let path = std::env::temp_dir().join(format!("hmc-tui-{ns}-tenant.kubeconfig"));
    service_account_kubeconfig(mgmt, ns, "tenant", &path).await;
    (client_for(path.clone()).await, path)
}

/// A ClusterTemplate named `name` whose cluster chart is `chart` 0.1.0 from
/// the harness's repository, with no services.
async fn cluster_template(client: &kube::Client, ns: &str, name: &str, chart: &str) {
    apply_yaml(
        client,
        ns,
        &format!(
            r#"
apiVersion: hmc.mirantis.com/v1alpha1
kind: ClusterTemplate
metadata: {{name: {name}}}
spec:
  helm:
    chartName: {chart}
    chartVersion: 0.1.0
    repository: {{url: "{repo}"}}
"#,
            repo = chart_repo_url()
        ),
    )
    .await;
}

/// The ClusterReady condition's reason and message.
async fn cluster_ready(api: &Api<ManagedCluster>, name: &str) -> Option<(String, String)> {
    let st = status_of(api, name).await?;
    let c = st.conditions.iter().find(|c| c.type_ == "ClusterReady")?;
    Some((c.reason.clone(), c.message.clone()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_chart_acts_as_its_namespace_installer_only() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "tenant").await;
    let bare = TestNamespace::create(&mgmt, "no-installer").await;
    apply_deploy_rbac(&mgmt).await;
    let kubeconfig = std::env::temp_dir().join(format!("hmc-tui-{}.kubeconfig", ns.name));
    service_account_kubeconfig(&mgmt, "hmc-system", "hmc-tui", &kubeconfig).await;
    let engine = Headless::start(None, 17533, &kubeconfig, "kube-system", &[]);
    eventually("the engine to lead", Duration::from_secs(90), || async {
        engine.is_leader().await?.then_some(())
    })
    .await;

    // The tenant writes a template whose cluster chart binds cluster-admin
    // to the tenant's account, and a cluster from it, as itself.
    let (as_tenant, tenant_kubeconfig) = tenant(&mgmt, &ns.name).await;
    cluster_template(&as_tenant, &ns.name, "evil", "hmc-test-escalating-cluster").await;
    managed_cluster_from(&as_tenant, &ns.name, "evil-1", "evil", json!([])).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let (reason, message) =
        eventually("evil-1 to say its cluster chart failed", WITHIN, || async {
            let (reason, message) = cluster_ready(&mcs, "evil-1").await?;
            (reason == "ClusterChartFailed").then_some((reason, message))
        })
        .await;
    eprintln!("evil-1: {reason}: {message}");
    assert!(
        message.to_ascii_lowercase().contains("clusterrolebinding"),
        "the cluster says the binding was refused: {message}"
    );
    let bindings: Api<ClusterRoleBinding> = Api::all(mgmt.clone());
    let binding = format!("{}-tenant-cluster-admin", ns.name);
    assert!(
        bindings.get_opt(&binding).await.unwrap().is_none(),
        "the tenant's chart bound cluster-admin"
    );
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let release = releases.get("evil-1").await.unwrap();
    assert_eq!(
        release.spec.service_account_name.as_deref(),
        Some(CLUSTER_INSTALLER)
    );

    // A namespace without the installer account: nothing is installed, and
    // the cluster says why; once the account is there, the chart is.
    let accounts: Api<ServiceAccount> = Api::namespaced(mgmt.clone(), &bare.name);
    accounts
        .delete(CLUSTER_INSTALLER, &Default::default())
        .await
        .unwrap();
    cluster_template(&mgmt, &bare.name, "demo", "hmc-test-cluster").await;
    managed_cluster_from(&mgmt, &bare.name, "dev-1", "demo", json!([])).await;
    let bare_mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &bare.name);
    let (_, missing) = eventually("dev-1 to say the account is missing", WITHIN, || async {
        let (reason, message) = cluster_ready(&bare_mcs, "dev-1").await?;
        (reason == "InstallerAccountMissing").then_some((reason, message))
    })
    .await;
    assert!(missing.contains(CLUSTER_INSTALLER), "{missing}");
    assert!(!missing.contains("HelmRelease"), "{missing}");
    let bare_releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &bare.name);
    assert!(
        bare_releases.get_opt("dev-1").await.unwrap().is_none(),
        "a cluster chart was written without its installer account"
    );
    add_cluster_installer(&mgmt, &bare.name).await;
    eventually(
        "dev-1's chart written once the account is there",
        WITHIN,
        || async {
            let r = bare_releases.get_opt("dev-1").await.ok()??;
            (r.spec.service_account_name.as_deref() == Some(CLUSTER_INSTALLER)).then_some(())
        },
    )
    .await;

    stolen_engine_token_writes_no_other_release(&kubeconfig, &ns.name).await;

    stop_refused_nothing(engine).await;
    let _ = std::fs::remove_file(&kubeconfig);
    let _ = std::fs::remove_file(&tenant_kubeconfig);
    ns.cleanup().await;
    bare.cleanup().await;
}

/// With the engine's own token, every release shape but the engine's two is
/// refused; the engine's own shape is accepted (so the refusals are the
/// policy's, not a token that can do nothing).
async fn stolen_engine_token_writes_no_other_release(kubeconfig: &std::path::Path, ns: &str) {
    let as_engine = client_for(kubeconfig.to_path_buf()).await;
    let releases: Api<DynamicObject> = Api::namespaced_with(
        as_engine,
        ns,
        &ar(
            "helm.toolkit.fluxcd.io",
            "v2",
            "HelmRelease",
            "helmreleases",
        ),
    );
    let release = |name: &str, spec: serde_json::Value, labelled: bool| {
        let labels = if labelled {
            json!({"app.kubernetes.io/managed-by": "hmc-tui",
                   "hmc.mirantis.com/managed-cluster": "dev-9"})
        } else {
            json!({})
        };
        let mut spec = spec;
        spec["interval"] = json!("10m");
        spec["suspend"] = json!(true);
        spec["chartRef"] = json!({"kind": "HelmChart", "name": "clustertmpl-evil"});
        serde_json::from_value::<DynamicObject>(json!({
            "apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {
                "name": name, "labels": labels,
                "ownerReferences": [{
                    "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
                    "name": "dev-9", "uid": "00000000-0000-0000-0000-000000000009",
                }],
            },
            "spec": spec,
        }))
        .unwrap()
    };
    let refused = [
        (
            "unlabelled",
            release(
                "stolen-1",
                json!({"serviceAccountName": CLUSTER_INSTALLER}),
                false,
            ),
            "labelled as its own",
        ),
        (
            "as the release controller itself",
            release("stolen-2", json!({}), true),
            "installs as hmc-cluster-installer",
        ),
        (
            "as another account",
            release("stolen-3", json!({"serviceAccountName": "default"}), true),
            "installs as hmc-cluster-installer",
        ),
        (
            "into another namespace",
            release(
                "stolen-4",
                json!({"serviceAccountName": CLUSTER_INSTALLER, "targetNamespace": "kube-system"}),
                true,
            ),
            "into its own namespace",
        ),
        (
            "through another cluster's kubeconfig",
            release(
                "stolen-5",
                json!({"kubeConfig": {"secretRef": {"name": "dev-1-kubeconfig"}}}),
                true,
            ),
            "kubeconfig secret of its own cluster",
        ),
    ];
    // A policy just written takes a moment to be in force: the refusal of
    // the first shape is the marker (one let through meanwhile is removed).
    eventually(
        "the releases policy to be in force",
        Duration::from_secs(30),
        || async {
            match releases.create(&PostParams::default(), &refused[0].1).await {
                Ok(_) => {
                    let _ = releases.delete("stolen-1", &Default::default()).await;
                    None
                }
                Err(_) => Some(()),
            }
        },
    )
    .await;
    for (what, obj, says) in refused {
        match releases.create(&PostParams::default(), &obj).await {
            Err(kube::Error::Api(e)) => assert!(
                e.code == 403 && e.message.contains(says),
                "a release {what}: refused for another reason: {e:?}"
            ),
            other => panic!("a release {what} was not refused: {other:?}"),
        }
    }
    let allowed = release(
        "allowed",
        json!({"serviceAccountName": CLUSTER_INSTALLER}),
        true,
    );
    releases
        .create(&PostParams::default(), &allowed)
        .await
        .expect("the engine's own shape of release is accepted");
    // Its owner does not exist: the garbage collector may have removed it
    // already.
    match releases.delete("allowed", &Default::default()).await {
        Ok(_) => {}
        Err(kube::Error::Api(e)) if e.code == 404 => {}
        Err(e) => panic!("the accepted release deleted: {e}"),
    }
}
