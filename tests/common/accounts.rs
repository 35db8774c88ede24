//! Running as a ServiceAccount: a kubeconfig with its token, and the
//! refusals an engine's log shows.
#![allow(dead_code)]

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};
use serde_json::json;

use super::{apply_yaml, harness_dir, repo_root};

/// Applies the engine's ServiceAccount, RBAC and admission policies from
/// `assets/deploy/`, as `kubectl apply -k assets/deploy` would.
pub async fn apply_deploy_rbac(mgmt: &kube::Client) {
    let dir = repo_root().join("assets/deploy");
    for file in [
        "namespace.yaml",
        "serviceaccount.yaml",
        "clusterrole.yaml",
        "clusterrolebinding.yaml",
        "lease-rbac.yaml",
        "notifications-rbac.yaml",
        "kubeconfig-hold-policy.yaml",
        "releases-policy.yaml",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        // Namespaced objects name their namespace; the argument is a default.
        apply_yaml(mgmt, "hmc-system", &text).await;
    }
}

/// A kubeconfig of the engine's own ServiceAccount (`hmc-system/hmc-tui`
/// under the RBAC and admission policies of `assets/deploy/`), made once
/// per test process: what every in-process test engine runs as, so that
/// the whole suite runs with the engine's rights, not the harness admin's.
///
/// The test engines' Leases are granted one by one ([`grant_test_lease`]).
pub async fn engine_kubeconfig() -> std::path::PathBuf {
    static MADE: tokio::sync::OnceCell<std::path::PathBuf> = tokio::sync::OnceCell::const_new();
    MADE.get_or_init(|| async {
        let mgmt = super::mgmt().await;
        apply_deploy_rbac(&mgmt).await;
        let path = harness_dir().join(format!("engine-{}.kubeconfig", std::process::id()));
        service_account_kubeconfig(&mgmt, "hmc-system", "hmc-tui", &path).await;
        path
    })
    .await
    .clone()
}

/// The name of the Role and RoleBinding that [`grant_test_lease`] makes
/// for `namespace`'s test engine.
pub fn test_lease_grant(namespace: &str) -> String {
    format!("hmc-tui-test-{namespace}")
}

/// The one grant of the tests' own: the deploy's lease Role names the
/// cluster-wide engine's Lease only (a namespace-scoped release of the
/// chart has its own account and Lease), while a test engine is a
/// namespace-scoped engine under the cluster-wide account. It may read and
/// renew its own namespace's Lease, `hmc-tui-engine.<namespace>`, by name,
/// and no other: the deploy's rules stay what every other test checks
/// (`TestNamespace::cleanup` removes the grant).
pub async fn grant_test_lease(mgmt: &kube::Client, namespace: &str) {
    let name = test_lease_grant(namespace);
    let lease = hmc_tui::engine::claims::lease_name(Some(namespace));
    let docs = format!(
        r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {{name: {name}, namespace: kube-system}}
rules:
  - apiGroups: ["coordination.k8s.io"]
    resources: ["leases"]
    resourceNames: ["{lease}"]
    verbs: ["get", "patch"]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {{name: {name}, namespace: kube-system}}
roleRef: {{apiGroup: rbac.authorization.k8s.io, kind: Role, name: {name}}}
subjects:
  - {{kind: ServiceAccount, name: hmc-tui, namespace: hmc-system}}
"#
    );
    apply_yaml(mgmt, "kube-system", &docs).await;
}

/// Writes to `path` a kubeconfig for ServiceAccount `ns/name`: the
/// harness's server and CA, and a token from the TokenRequest API.
pub async fn service_account_kubeconfig(
    mgmt: &kube::Client,
    ns: &str,
    name: &str,
    path: &std::path::Path,
) {
    let sas: Api<ServiceAccount> = Api::namespaced(mgmt.clone(), ns);
    let request = TokenRequest {
        spec: TokenRequestSpec {
            audiences: vec![],
            expiration_seconds: Some(3600),
            ..Default::default()
        },
        ..Default::default()
    };
    let token = sas
        .create_token_request(name, &PostParams::default(), &request)
        .await
        .unwrap_or_else(|e| panic!("a token for ServiceAccount {ns}/{name}: {e}"))
        .status
        .expect("a token")
        .token;
    let admin: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(harness_dir().join("mgmt.kubeconfig")).unwrap(),
    )
    .unwrap();
    let config = json!({
        "apiVersion": "v1", "kind": "Config",
        "clusters": admin["clusters"],
        "users": [{"name": name, "user": {"token": token}}],
        "contexts": [{"name": "engine", "context": {"cluster": "mgmt", "user": name}}],
        "current-context": "engine",
    });
    std::fs::write(path, serde_json::to_vec_pretty(&config).unwrap()).unwrap();
}

/// The lines of an engine's log where RBAC refused it something.
pub fn refusals(log: &str) -> Vec<&str> {
    log.lines()
        // RBAC's refusals name the user (`… is forbidden: User "…" cannot
        // …`). Running cluster-wide, the engine may also meet what an
        // earlier test left in a namespace being deleted, which the API
        // server refuses as Forbidden too (NamespaceTerminating, in the
        // engine's words `… because it is being terminated`): that is not a
        // missing permission.
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("forbidden")
                && !l.contains("namespaceterminating")
                && !l.contains("because it is being terminated")
        })
        .collect()
}

/// Stops `engine` with SIGTERM and checks its log: it led, stopped cleanly
/// and was refused nothing.
pub async fn stop_refused_nothing(engine: super::headless::Headless) {
    let log_path = engine.log.clone();
    let (status, _) = engine.terminate().await;
    assert!(status.success());
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        log.contains("holding the engine lease") && log.contains("engine stopped"),
        "the engine's log is complete:\n{log}"
    );
    let forbidden = refusals(&log);
    assert!(
        forbidden.is_empty(),
        "the engine was refused something:\n{}",
        forbidden.join("\n")
    );
}
