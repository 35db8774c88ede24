//! The manifests in `assets/deploy/` read as Kubernetes types with no field
//! lost, the kustomization lists every one of them, the engine's pods are
//! locked down, and its RBAC grants exactly what the engine uses. They are
//! the Helm chart `assets/chart/hmc-tui` rendered with its defaults, and
//! its values reach the engine. No cluster needed; `helm` is the harness's
//! (tests/harness/harness build).

mod common;

use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Container, Namespace, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde::Deserialize;
use serde::de::DeserializeOwned;

fn deploy_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/deploy")
}

/// Every object of every manifest, typed.
#[derive(Default)]
struct Objects {
    namespaces: Vec<Namespace>,
    service_accounts: Vec<ServiceAccount>,
    cluster_roles: Vec<ClusterRole>,
    cluster_role_bindings: Vec<ClusterRoleBinding>,
    roles: Vec<Role>,
    role_bindings: Vec<RoleBinding>,
    deployments: Vec<Deployment>,
    pdbs: Vec<PodDisruptionBudget>,
    services: Vec<Service>,
    network_policies: Vec<NetworkPolicy>,
    admission_policies: Vec<ValidatingAdmissionPolicy>,
    admission_bindings: Vec<ValidatingAdmissionPolicyBinding>,
}

/// Every field of `want` is in `have` with the same value.
fn subset(have: &serde_json::Value, want: &serde_json::Value) -> bool {
    use serde_json::Value::{Array, Object};
    match (have, want) {
        (Object(h), Object(w)) => w
            .iter()
            .all(|(k, wv)| h.get(k).is_some_and(|hv| subset(hv, wv))),
        (Array(h), Array(w)) => h.len() == w.len() && h.iter().zip(w).all(|(a, b)| subset(a, b)),
        _ => have == want,
    }
}

/// Parses one document as `K`; a field the type does not know (a typo, a
/// wrong indentation) would be dropped, so the typed object must keep all.
fn typed<K: DeserializeOwned + serde::Serialize>(value: serde_yaml::Value, what: &str) -> K {
    let original: serde_json::Value = serde_yaml::from_value(value.clone()).unwrap();
    let obj: K = serde_yaml::from_value(value).unwrap_or_else(|e| panic!("{what}: {e}"));
    let back = serde_json::to_value(&obj).unwrap();
    assert!(
        subset(&back, &original),
        "{what}: a field is not in the Kubernetes type\nmanifest: {original}\ntyped: {back}"
    );
    obj
}

fn yaml_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(deploy_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    files.sort();
    files
}

fn load() -> Objects {
    let mut o = Objects::default();
    for path in yaml_files() {
        if path.file_name().is_some_and(|n| n == "kustomization.yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let value = serde_yaml::Value::deserialize(doc).unwrap();
            if value.is_null() {
                continue;
            }
            let kind = value["kind"].as_str().unwrap_or_default().to_string();
            let what = format!("{kind} in {}", path.display());
            match kind.as_str() {
                "Namespace" => o.namespaces.push(typed(value, &what)),
                "ServiceAccount" => o.service_accounts.push(typed(value, &what)),
                "ClusterRole" => o.cluster_roles.push(typed(value, &what)),
                "ClusterRoleBinding" => o.cluster_role_bindings.push(typed(value, &what)),
                "Role" => o.roles.push(typed(value, &what)),
                "RoleBinding" => o.role_bindings.push(typed(value, &what)),
                "Deployment" => o.deployments.push(typed(value, &what)),
                "PodDisruptionBudget" => o.pdbs.push(typed(value, &what)),
                "Service" => o.services.push(typed(value, &what)),
                "NetworkPolicy" => o.network_policies.push(typed(value, &what)),
                "ValidatingAdmissionPolicy" => o.admission_policies.push(typed(value, &what)),
                "ValidatingAdmissionPolicyBinding" => {
                    o.admission_bindings.push(typed(value, &what))
                }
                other => panic!("{}: unexpected kind {other:?}", path.display()),
            }
        }
    }
    o
}

fn engine(o: &Objects) -> (&Deployment, &Container) {
    assert_eq!(o.deployments.len(), 1, "one Deployment");
    let d = &o.deployments[0];
    let pod = d.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    assert_eq!(pod.containers.len(), 1, "one container");
    (d, &pod.containers[0])
}

#[test]
fn kustomization_lists_every_manifest_and_the_crds() {
    let text = std::fs::read_to_string(deploy_dir().join("kustomization.yaml")).unwrap();
    let k: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
    assert_eq!(k["kind"].as_str(), Some("Kustomization"));
    // No namespace override: the Lease's Role lives in kube-system and the
    // network policy in flux-system.
    assert!(k.get("namespace").is_none());
    let listed: BTreeSet<String> = k["resources"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    let files: BTreeSet<String> = yaml_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "kustomization.yaml")
        .chain(["../crds".to_string()])
        .collect();
    assert_eq!(listed, files);
    // kustomize loads another directory only through its kustomization.
    let crds = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/crds");
    let ck: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(crds.join("kustomization.yaml")).unwrap())
            .unwrap();
    assert_eq!(
        ck["resources"][0].as_str(),
        Some("hmc.mirantis.com.yaml"),
        "assets/crds/kustomization.yaml lists the CRDs"
    );
}

#[test]
fn every_manifest_reads_as_kubernetes_types() {
    let o = load();
    assert_eq!(o.namespaces.len(), 1);
    assert_eq!(o.service_accounts.len(), 1);
    assert_eq!(o.cluster_roles.len(), 1);
    assert_eq!(o.cluster_role_bindings.len(), 1);
    // The Lease's, and the notifications Secret's.
    assert_eq!(o.roles.len(), 2);
    assert_eq!(o.role_bindings.len(), 2);
    assert_eq!(o.pdbs.len(), 1);
    assert_eq!(o.services.len(), 1);
    // The engine pods' own policy, and the one admitting them to Flux's
    // source-controller.
    assert_eq!(o.network_policies.len(), 2);
}

#[test]
fn the_engine_runs_two_locked_down_replicas() {
    let o = load();
    let (d, c) = engine(&o);
    let spec = d.spec.as_ref().unwrap();
    assert_eq!(spec.replicas, Some(2));
    let pod = spec.template.spec.as_ref().unwrap();
    assert_eq!(pod.termination_grace_period_seconds, Some(30));
    assert_eq!(pod.service_account_name.as_deref(), Some("hmc-tui"));
    let psc = pod.security_context.as_ref().expect("pod securityContext");
    assert_eq!(psc.run_as_non_root, Some(true));
    assert_eq!(
        psc.seccomp_profile.as_ref().map(|s| s.type_.as_str()),
        Some("RuntimeDefault")
    );

    let args = c.args.clone().unwrap_or_default();
    assert!(args.iter().any(|a| a == "--reconcile"), "{args:?}");
    // The image the release workflow publishes, at the engine's version.
    assert_eq!(
        c.image.as_deref(),
        Some(concat!(
            "ghcr.io/hmc-tui/hmc-tui:",
            env!("CARGO_PKG_VERSION")
        ))
    );

    let sc = c
        .security_context
        .as_ref()
        .expect("container securityContext");
    assert_eq!(sc.run_as_non_root, Some(true));
    assert_eq!(sc.read_only_root_filesystem, Some(true));
    assert_eq!(sc.allow_privilege_escalation, Some(false));
    assert_eq!(sc.privileged, None);
    let caps = sc.capabilities.as_ref().expect("capabilities");
    assert_eq!(caps.drop.as_deref(), Some(&["ALL".to_string()][..]));
    assert!(caps.add.as_ref().is_none_or(|a| a.is_empty()));
    assert_eq!(
        sc.seccomp_profile.as_ref().map(|s| s.type_.as_str()),
        Some("RuntimeDefault")
    );

    let res = c.resources.as_ref().expect("resources");
    for key in ["cpu", "memory"] {
        assert!(
            res.requests.as_ref().unwrap().contains_key(key),
            "request {key}"
        );
        assert!(
            res.limits.as_ref().unwrap().contains_key(key),
            "limit {key}"
        );
    }

    let env: BTreeMap<&str, _> = c
        .env
        .iter()
        .flatten()
        .map(|e| (e.name.as_str(), e))
        .collect();
    let pod_name = env["POD_NAME"]
        .value_from
        .as_ref()
        .and_then(|v| v.field_ref.as_ref())
        .expect("POD_NAME from the downward API");
    assert_eq!(pod_name.field_path, "metadata.name");
}

#[test]
fn probes_and_metrics_use_the_named_port() {
    let o = load();
    let (d, c) = engine(&o);
    let port = c
        .ports
        .iter()
        .flatten()
        .find(|p| p.name.as_deref() == Some("http-metrics"))
        .expect("port http-metrics");
    assert_eq!(port.container_port, 8080);
    let named = IntOrString::String("http-metrics".into());
    for (probe, path) in [
        (c.liveness_probe.as_ref(), "/healthz"),
        (c.readiness_probe.as_ref(), "/readyz"),
    ] {
        let get = probe
            .and_then(|p| p.http_get.as_ref())
            .unwrap_or_else(|| panic!("{path} probe"));
        assert_eq!(get.path.as_deref(), Some(path));
        assert_eq!(get.port, named);
    }

    let pod_labels = d
        .spec
        .as_ref()
        .unwrap()
        .template
        .metadata
        .as_ref()
        .unwrap()
        .labels
        .clone()
        .unwrap();
    let selects_pods = |sel: &BTreeMap<String, String>| {
        !sel.is_empty() && sel.iter().all(|(k, v)| pod_labels.get(k) == Some(v))
    };

    let svc = &o.services[0];
    let ann = svc.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(ann["prometheus.io/scrape"], "true");
    assert_eq!(ann["prometheus.io/port"], "8080");
    assert_eq!(ann["prometheus.io/path"], "/metrics");
    let spec = svc.spec.as_ref().unwrap();
    assert!(selects_pods(spec.selector.as_ref().unwrap()));
    let sp = &spec.ports.as_ref().unwrap()[0];
    assert_eq!(sp.name.as_deref(), Some("http-metrics"));
    assert_eq!(sp.target_port, Some(named.clone()));

    // One engine at a time may go: never a budget that allows no eviction.
    let pdb = o.pdbs[0].spec.as_ref().unwrap();
    assert_eq!(pdb.max_unavailable, Some(IntOrString::Int(1)));
    assert_eq!(pdb.min_available, None);
    assert_eq!(
        pdb.unhealthy_pod_eviction_policy.as_deref(),
        Some("AlwaysAllow")
    );
    let sel = pdb.selector.as_ref().unwrap().match_labels.clone().unwrap();
    assert!(selects_pods(&sel));

    // The engine's own network policy admits the metrics and probe port,
    // and nothing else.
    let np = o
        .network_policies
        .iter()
        .find(|p| p.metadata.namespace.as_deref() == Some("hmc-system"))
        .expect("the engine's NetworkPolicy");
    let spec = np.spec.as_ref().unwrap();
    assert!(selects_pods(
        spec.pod_selector
            .as_ref()
            .and_then(|s| s.match_labels.as_ref())
            .unwrap()
    ));
    let types = spec.policy_types.clone().unwrap_or_default();
    assert_eq!(types, ["Ingress", "Egress"]);
    let ingress = spec.ingress.as_deref().unwrap();
    assert_eq!(ingress.len(), 1);
    let ports: Vec<_> = ingress[0]
        .ports
        .iter()
        .flatten()
        .map(|p| p.port.clone())
        .collect();
    assert_eq!(ports, [Some(named.clone())]);
    assert!(!spec.egress.as_deref().unwrap_or_default().is_empty());
}

/// (apiGroup, resource, resourceNames?, verbs) of one granted permission.
type Grant = (String, String, bool, BTreeSet<String>);

fn grants(rules: &[PolicyRule]) -> BTreeSet<Grant> {
    let mut out = BTreeSet::new();
    for r in rules {
        let verbs: BTreeSet<String> = r.verbs.iter().cloned().collect();
        let named = r.resource_names.as_ref().is_some_and(|n| !n.is_empty());
        assert!(r.non_resource_urls.is_none(), "no non-resource URLs");
        for g in r.api_groups.iter().flatten() {
            for res in r.resources.iter().flatten() {
                out.insert((g.clone(), res.clone(), named, verbs.clone()));
            }
        }
    }
    out
}

fn g(group: &str, resource: &str, named: bool, verbs: &[&str]) -> Grant {
    (
        group.into(),
        resource.into(),
        named,
        verbs.iter().map(|v| v.to_string()).collect(),
    )
}

#[test]
fn the_cluster_role_grants_exactly_what_the_engine_uses() {
    let o = load();
    let role = &o.cluster_roles[0];
    let rules = role.rules.as_deref().unwrap();
    for r in rules {
        for field in [
            &r.verbs,
            r.resources.as_ref().unwrap(),
            r.api_groups.as_ref().unwrap(),
        ] {
            assert!(!field.iter().any(|x| x.contains('*')), "a wildcard: {r:?}");
        }
        for v in [
            "escalate",
            "bind",
            "impersonate",
            "update",
            "deletecollection",
        ] {
            assert!(!r.verbs.iter().any(|x| x == v), "{v}: {r:?}");
        }
    }
    // Secrets: no verb at all (the kubeconfig hold is an admission
    // policy's, not the engine's), nor any wildcard that would reach them.
    for r in rules {
        let resources: Vec<&str> = r.resources.iter().flatten().map(String::as_str).collect();
        assert!(
            !resources
                .iter()
                .any(|x| x.starts_with("secrets") || *x == "*"),
            "{r:?}"
        );
    }
    let hmc = "hmc.mirantis.com";
    let want = BTreeSet::from([
        g(hmc, "servicetemplates", false, &["list", "watch", "patch"]),
        g(hmc, "clustertemplates", false, &["list", "watch", "patch"]),
        g(hmc, "managedclusters", false, &["list", "watch", "patch"]),
        g(hmc, "multiclusterservices", false, &["list", "watch"]),
        g(
            hmc,
            "templaterollouts",
            false,
            &["get", "list", "watch", "create", "patch"],
        ),
        g(hmc, "servicetemplates/status", false, &["patch"]),
        g(hmc, "clustertemplates/status", false, &["patch"]),
        g(hmc, "managedclusters/status", false, &["patch"]),
        g(hmc, "templaterollouts/status", false, &["patch"]),
        g(hmc, "multiclusterservices/status", false, &["patch"]),
        g(
            "source.toolkit.fluxcd.io",
            "helmrepositories",
            false,
            &["get", "list", "watch", "create", "patch"],
        ),
        g(
            "source.toolkit.fluxcd.io",
            "helmcharts",
            false,
            &["get", "list", "watch", "create", "patch"],
        ),
        g(
            "source.toolkit.fluxcd.io",
            "ocirepositories",
            false,
            &["get"],
        ),
        g(
            "helm.toolkit.fluxcd.io",
            "helmreleases",
            false,
            &["get", "list", "watch", "create", "patch", "delete"],
        ),
        g("cluster.x-k8s.io", "clusters", false, &["list", "watch"]),
        // The installer accounts, by their one name.
        g("", "serviceaccounts", true, &["list", "watch"]),
        g(
            "events.k8s.io",
            "events",
            false,
            &["create", "patch", "list", "watch"],
        ),
        g(
            "apiextensions.k8s.io",
            "customresourcedefinitions",
            true,
            &["get"],
        ),
    ]);
    assert_eq!(grants(rules), want);

    // The CRDs it may read are the ones the engine checks, by name.
    let crd_rule = rules
        .iter()
        .find(|r| r.api_groups.as_deref() == Some(&["apiextensions.k8s.io".to_string()][..]))
        .unwrap();
    let names = crd_rule.resource_names.clone().unwrap();
    assert_eq!(names.len(), 9, "{names:?}");
    for n in [
        "servicetemplates.hmc.mirantis.com",
        "multiclusterservices.hmc.mirantis.com",
        "clustertemplates.hmc.mirantis.com",
        "managedclusters.hmc.mirantis.com",
        "templaterollouts.hmc.mirantis.com",
        "clusters.cluster.x-k8s.io",
    ] {
        assert!(names.iter().any(|x| x == n), "{n}");
    }

    let crb = &o.cluster_role_bindings[0];
    assert_eq!(crb.role_ref.kind, "ClusterRole");
    assert_eq!(Some(crb.role_ref.name.clone()), role.metadata.name);
    let sa = &o.service_accounts[0];
    let subject = &crb.subjects.as_ref().unwrap()[0];
    assert_eq!(subject.kind, "ServiceAccount");
    assert_eq!(Some(subject.name.clone()), sa.metadata.name);
    assert_eq!(subject.namespace, sa.metadata.namespace);
}

#[test]
fn the_lease_is_granted_in_its_namespace_only() {
    let o = load();
    let (_, c) = engine(&o);
    let lease_ns = c
        .env
        .iter()
        .flatten()
        .find(|e| e.name == "HMC_LEASE_NAMESPACE")
        .and_then(|e| e.value.clone())
        .unwrap_or_else(|| "kube-system".into());
    let role = named(&o.roles, "hmc-tui-lease");
    assert_eq!(role.metadata.namespace.as_deref(), Some(lease_ns.as_str()));
    let rules = role.rules.as_deref().unwrap();
    assert_eq!(
        grants(rules),
        BTreeSet::from([
            g("coordination.k8s.io", "leases", false, &["create"]),
            g("coordination.k8s.io", "leases", true, &["get", "patch"]),
            g("coordination.k8s.io", "leases", false, &["list", "watch"]),
        ])
    );
    for r in rules.iter().filter(|r| r.resource_names.is_some()) {
        assert_eq!(
            r.resource_names.as_deref(),
            Some(&["hmc-tui-engine".to_string()][..])
        );
    }
    // No ClusterRole rule mentions leases.
    assert!(
        o.cluster_roles[0].rules.iter().flatten().all(|r| !r
            .resources
            .iter()
            .flatten()
            .any(|x| x == "leases"))
    );
    let rb = named(&o.role_bindings, "hmc-tui-lease");
    assert_eq!(rb.metadata.namespace.as_deref(), Some(lease_ns.as_str()));
    assert_eq!(rb.role_ref.kind, "Role");
    assert_eq!(Some(rb.role_ref.name.clone()), role.metadata.name);
    let subject = &rb.subjects.as_ref().unwrap()[0];
    assert_eq!(subject.name, "hmc-tui");
    assert_eq!(subject.namespace.as_deref(), Some("hmc-system"));
}

/// The admission policy named `name` and its binding's spec.
fn admission_policy<'a>(
    o: &'a Objects,
    name: &str,
) -> (
    &'a ValidatingAdmissionPolicy,
    &'a k8s_openapi::api::admissionregistration::v1::ValidatingAdmissionPolicyBindingSpec,
) {
    let policy = o
        .admission_policies
        .iter()
        .find(|p| p.metadata.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("policy {name}"));
    let binding = o
        .admission_bindings
        .iter()
        .filter_map(|b| b.spec.as_ref())
        .find(|b| b.policy_name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("a binding of {name}"));
    (policy, binding)
}

#[test]
fn rollout_requests_name_their_requester() {
    let o = load();
    assert_eq!(o.admission_policies.len(), 4);
    assert_eq!(o.admission_bindings.len(), 4);
    let (policy, binding) = admission_policy(&o, "hmc-tui-rollout-requests");
    assert_eq!(binding.validation_actions, Some(vec!["Deny".to_string()]));
    let rules = &policy.spec.as_ref().unwrap().validations.as_ref().unwrap()[0];
    assert!(rules.expression.contains("request.userInfo.username"));
}

/// RBAC lets the engine write any release; the policy judges the engine's
/// own account's writes only, and denies (the harness checks what it
/// refuses: tests/e2e_tenant_identity.rs).
#[test]
fn the_engines_releases_are_judged_by_their_shape() {
    use hmc_tui::api::names::CLUSTER_INSTALLER;
    let o = load();
    let (policy, binding) = admission_policy(&o, "hmc-tui-releases");
    assert_eq!(binding.validation_actions, Some(vec!["Deny".to_string()]));
    let spec = policy.spec.as_ref().unwrap();
    assert_eq!(spec.failure_policy.as_deref(), Some("Fail"));
    let only_the_engine = &spec.match_conditions.as_ref().unwrap()[0].expression;
    assert!(
        only_the_engine.contains("'system:serviceaccount:hmc-system:hmc-tui'"),
        "{only_the_engine}"
    );
    let rules: Vec<&str> = spec
        .validations
        .as_ref()
        .unwrap()
        .iter()
        .map(|v| v.expression.as_str())
        .collect();
    assert!(
        rules
            .iter()
            .any(|r| r.contains(&format!("serviceAccountName == '{CLUSTER_INSTALLER}'"))),
        "{rules:?}"
    );
    assert!(
        rules.iter().any(|r| r.contains("+ '-kubeconfig'")),
        "{rules:?}"
    );
}

/// A cluster's kubeconfig secret may not be deleted, by anyone, while a
/// ManagedCluster of its name exists in its namespace: every ManagedCluster
/// of the request's namespace is a parameter, none means allowed, and the
/// name is read from the stored object (a collection delete has no request
/// name). What it refuses on the harness: tests/e2e_secret_access.rs.
#[test]
fn a_kubeconfig_secret_is_held_while_its_managed_cluster_exists() {
    let o = load();
    let (policy, binding) = admission_policy(&o, "hmc-tui-kubeconfig-hold");
    assert_eq!(binding.validation_actions, Some(vec!["Deny".to_string()]));
    assert!(binding.match_resources.is_none(), "every namespace");
    let param = binding.param_ref.as_ref().expect("a paramRef");
    assert!(
        param.name.is_none() && param.namespace.is_none(),
        "{param:?}"
    );
    assert_eq!(
        param
            .selector
            .as_ref()
            .map(|s| s.match_labels.is_none() && s.match_expressions.is_none()),
        Some(true),
        "every ManagedCluster: {param:?}"
    );
    assert_eq!(param.parameter_not_found_action.as_deref(), Some("Allow"));
    let spec = policy.spec.as_ref().unwrap();
    assert_eq!(spec.failure_policy.as_deref(), Some("Fail"));
    let kind = spec.param_kind.as_ref().unwrap();
    assert_eq!(
        kind.api_version.as_deref(),
        Some("hmc.mirantis.com/v1alpha1")
    );
    assert_eq!(kind.kind.as_deref(), Some("ManagedCluster"));
    let rules = spec
        .match_constraints
        .as_ref()
        .unwrap()
        .resource_rules
        .as_deref()
        .unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].api_groups, Some(vec![String::new()]));
    assert_eq!(rules[0].resources, Some(vec!["secrets".to_string()]));
    assert_eq!(rules[0].operations, Some(vec!["DELETE".to_string()]));
    let conditions: String = spec
        .match_conditions
        .iter()
        .flatten()
        .map(|c| c.expression.as_str())
        .collect();
    assert!(
        conditions.contains("'cluster.x-k8s.io/secret'"),
        "{conditions}"
    );
    assert!(!conditions.contains("request.name"), "{conditions}");
    let validations: String = spec
        .validations
        .iter()
        .flatten()
        .map(|v| v.expression.as_str())
        .collect();
    assert!(!validations.contains("request.name"), "{validations}");
    assert!(
        validations.contains("params.metadata.name + '-kubeconfig'"),
        "{validations}"
    );
}

// ------------------------------------------------------------- the chart

use common::helm;
use serde_json::Value;

/// (kind, namespace, name) of an object.
type Key = (String, String, String);

fn key(o: &Value) -> Key {
    let s = |v: &Value| v.as_str().unwrap_or_default().to_string();
    (
        s(&o["kind"]),
        s(&o["metadata"]["namespace"]),
        s(&o["metadata"]["name"]),
    )
}

fn keyed(objects: Vec<Value>) -> BTreeMap<Key, Value> {
    let mut out = BTreeMap::new();
    for o in objects {
        let k = key(&o);
        assert!(out.insert(k.clone(), o).is_none(), "twice: {k:?}");
    }
    out
}

/// Every object of the files of `assets/deploy/` that the chart renders:
/// all but the kustomization and namespace.yaml (a chart does not own its
/// release's namespace).
fn deploy_objects() -> BTreeMap<Key, Value> {
    let mut all = Vec::new();
    for path in yaml_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "kustomization.yaml" || name == "namespace.yaml" {
            continue;
        }
        all.extend(helm::documents(&std::fs::read_to_string(&path).unwrap()));
    }
    keyed(all)
}

/// Where two sets of objects differ, one line per object.
fn differences(have: &BTreeMap<Key, Value>, want: &BTreeMap<Key, Value>) -> Vec<String> {
    let keys: BTreeSet<&Key> = have.keys().chain(want.keys()).collect();
    keys.into_iter()
        .filter(|k| have.get(*k) != want.get(*k))
        .map(|k| {
            format!(
                "{k:?}\n  chart:  {}\n  assets: {}",
                have.get(k).map_or("(none)".into(), Value::to_string),
                want.get(k).map_or("(none)".into(), Value::to_string)
            )
        })
        .collect()
}

#[test]
fn assets_deploy_is_the_chart_rendered_with_its_defaults() {
    let (crds, rest): (Vec<Value>, Vec<Value>) = helm::template("hmc-tui", "hmc-system", &[])
        .into_iter()
        .partition(|o| o["kind"] == "CustomResourceDefinition");
    let diff = differences(&keyed(rest), &deploy_objects());
    assert!(
        diff.is_empty(),
        "assets/deploy/ is not what the chart renders; run assets/chart/render-deploy\n{}",
        diff.join("\n")
    );

    // The CRDs are those of assets/crds, which kustomize takes, kept on
    // uninstall.
    let crds: Vec<Value> = crds
        .into_iter()
        .map(|mut crd| {
            let annotations = crd["metadata"]["annotations"].as_object_mut().unwrap();
            assert_eq!(
                annotations.remove("helm.sh/resource-policy").unwrap(),
                "keep"
            );
            if annotations.is_empty() {
                crd["metadata"]
                    .as_object_mut()
                    .unwrap()
                    .remove("annotations");
            }
            crd
        })
        .collect();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/crds/hmc.mirantis.com.yaml"),
    )
    .unwrap();
    let want = keyed(helm::documents(&text));
    assert_eq!(want.len(), 5);
    let diff = differences(&keyed(crds), &want);
    assert!(diff.is_empty(), "CRDs:\n{}", diff.join("\n"));
}

#[test]
fn the_chart_lints_and_matches_the_engine_version() {
    let chart = helm::chart_dir();
    helm::helm(&["lint", "--strict", chart.to_str().unwrap()]);
    let meta: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(chart.join("Chart.yaml")).unwrap()).unwrap();
    let app = meta["appVersion"].as_str().unwrap();
    assert_eq!(app, env!("CARGO_PKG_VERSION"), "Chart.yaml appVersion");
    let k: serde_yaml::Value = serde_yaml::from_str(
        &std::fs::read_to_string(deploy_dir().join("kustomization.yaml")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        k["images"][0]["newTag"].as_str(),
        Some(app),
        "kustomize's tag"
    );
    // kustomize finds the image by the name the chart gives it.
    assert_eq!(
        k["images"][0]["name"].as_str(),
        Some("ghcr.io/hmc-tui/hmc-tui"),
        "kustomize's image name"
    );
}

/// The one object of `kind` among `objects`.
fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    let found: Vec<&Value> = objects.iter().filter(|o| o["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "one {kind}");
    found[0]
}

#[test]
fn the_chart_values_reach_the_engine() {
    let objects = helm::template(
        "edge",
        "ops",
        &[
            "replicas=3",
            "shards={shard1,shard2}",
            "image.repository=registry.example.com/hmc-tui",
            "image.tag=9.9.9",
            "resources.limits.memory=1Gi",
            "defaultRepository.namespace=kcm-system",
            "defaultRepository.name=kcm-templates",
            "lease.namespace=ops",
            "watchNamespace=team-a",
            "crds.install=false",
            "admissionPolicy.namespaceSelector.matchLabels.team=a",
        ],
    );
    assert!(
        objects
            .iter()
            .all(|o| o["kind"] != "CustomResourceDefinition")
    );
    let d: Deployment = serde_json::from_value(one(&objects, "Deployment").clone()).unwrap();
    let spec = d.spec.unwrap();
    assert_eq!(spec.replicas, Some(3));
    let pod = spec.template.spec.unwrap();
    assert_eq!(pod.service_account_name.as_deref(), Some("edge-hmc-tui"));
    let c = &pod.containers[0];
    assert_eq!(
        c.image.as_deref(),
        Some("registry.example.com/hmc-tui:9.9.9")
    );
    let args = c.args.clone().unwrap();
    assert!(
        args.contains(&"--shards=shard1,shard2".to_string()),
        "{args:?}"
    );
    assert!(args.contains(&"--namespace=team-a".to_string()), "{args:?}");
    let env: BTreeMap<String, String> = c
        .env
        .iter()
        .flatten()
        .filter_map(|e| Some((e.name.clone(), e.value.clone()?)))
        .collect();
    assert_eq!(env["HMC_SYSTEM_NAMESPACE"], "kcm-system");
    assert_eq!(env["HMC_DEFAULT_REPOSITORY"], "kcm-templates");
    assert_eq!(env["HMC_LEASE_NAMESPACE"], "ops");
    let limits = c.resources.as_ref().unwrap().limits.clone().unwrap();
    assert_eq!(limits["memory"].0, "1Gi");

    // Cluster-wide objects take the release's name; the lease is granted
    // in its namespace, by the name a namespace-scoped engine competes for.
    for (kind, name) in [
        ("ClusterRole", "edge-hmc-tui"),
        ("ClusterRoleBinding", "edge-hmc-tui"),
    ] {
        assert_eq!(one(&objects, kind)["metadata"]["name"], name, "{kind}");
    }
    for kind in [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ] {
        let names: BTreeSet<&str> = objects
            .iter()
            .filter(|o| o["kind"] == kind)
            .filter_map(|o| o["metadata"]["name"].as_str())
            .collect();
        assert_eq!(
            names,
            BTreeSet::from([
                "edge-hmc-tui-kubeconfig-hold",
                "edge-hmc-tui-leases",
                "edge-hmc-tui-releases",
                "edge-hmc-tui-rollout-requests",
            ]),
            "{kind}"
        );
    }
    // The engine's releases policy judges the engine's account of this
    // release.
    let policy = objects
        .iter()
        .find(|o| {
            o["kind"] == "ValidatingAdmissionPolicy"
                && o["metadata"]["name"] == "edge-hmc-tui-releases"
        })
        .expect("the releases policy");
    assert_eq!(
        policy["spec"]["matchConditions"][0]["expression"],
        "request.userInfo.username == 'system:serviceaccount:ops:edge-hmc-tui'",
    );
    let crb = one(&objects, "ClusterRoleBinding");
    assert_eq!(crb["subjects"][0]["namespace"], "ops");
    let role = objects
        .iter()
        .find(|o| o["kind"] == "Role" && o["metadata"]["name"] == "edge-hmc-tui-lease")
        .expect("the lease Role");
    assert_eq!(role["metadata"]["namespace"], "ops");
    assert_eq!(
        role["rules"][1]["resourceNames"],
        serde_json::json!(["hmc-tui-engine.team-a"])
    );
    // It reads the cluster-wide engine's Lease, and only reads it.
    assert_eq!(
        role["rules"][2]["resourceNames"],
        serde_json::json!(["hmc-tui-engine"])
    );
    assert_eq!(role["rules"][2]["verbs"], serde_json::json!(["get"]));
    // It never lists or watches Leases: only the cluster-wide engine does.
    assert_eq!(role["rules"].as_array().unwrap().len(), 3);
    let binding = objects
        .iter()
        .find(|o| {
            o["kind"] == "ValidatingAdmissionPolicyBinding"
                && o["metadata"]["name"] == "edge-hmc-tui-rollout-requests"
        })
        .unwrap();
    assert_eq!(
        binding["spec"]["matchResources"]["namespaceSelector"]["matchLabels"]["team"],
        "a"
    );
    let np = objects
        .iter()
        .find(|o| o["kind"] == "NetworkPolicy" && o["metadata"]["namespace"] == "flux-system")
        .expect("the NetworkPolicy in Flux's namespace");
    assert_eq!(np["metadata"]["name"], "allow-edge-hmc-tui-artifacts");
    assert_eq!(np["metadata"]["namespace"], "flux-system");
    assert_eq!(
        np["spec"]["ingress"][0]["from"][0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"],
        "ops"
    );
    // Namespaced objects are in the release's namespace, the lease's or
    // Flux's, and the engine's grants in the namespace it watches and the
    // default repository's.
    for o in &objects {
        let ns = o["metadata"]["namespace"].as_str().unwrap_or("ops");
        let grant = ["Role", "RoleBinding"].contains(&o["kind"].as_str().unwrap_or_default());
        assert!(
            ["ops", "flux-system"].contains(&ns)
                || (grant && ["team-a", "kcm-system"].contains(&ns)),
            "{:?}",
            key(o)
        );
    }
}

/// Typed `kind` objects of a rendering.
fn of_kind<K: DeserializeOwned>(objects: &[Value], kind: &str) -> Vec<K> {
    objects
        .iter()
        .filter(|o| o["kind"] == kind)
        .map(|o| serde_json::from_value(o.clone()).unwrap())
        .collect()
}

/// With watchNamespace the engine is granted its rules in that namespace
/// only: its ClusterRole reads the CRDs by name and nothing else, a Role
/// there holds what the cluster-wide engine's ClusterRole holds, and the
/// default chart repository is read by name in its own namespace.
#[test]
fn a_namespace_scoped_engine_is_granted_its_namespace_only() {
    let wide = helm::template("hmc-tui", "hmc-system", &[]);
    let scoped = helm::template(
        "hmc-tui",
        "hmc-system",
        &[
            "watchNamespace=team-a",
            "defaultRepository.namespace=kcm-system",
        ],
    );
    let wide_role: Vec<ClusterRole> = of_kind(&wide, "ClusterRole");
    let wide_rules = grants(wide_role[0].rules.as_deref().unwrap());
    let cluster_roles: Vec<ClusterRole> = of_kind(&scoped, "ClusterRole");
    assert_eq!(cluster_roles.len(), 1);
    let crd = g(
        "apiextensions.k8s.io",
        "customresourcedefinitions",
        true,
        &["get"],
    );
    assert_eq!(
        grants(cluster_roles[0].rules.as_deref().unwrap()),
        BTreeSet::from([crd.clone()])
    );
    let roles: Vec<Role> = of_kind(&scoped, "Role");
    let role = |ns: &str, name: &str| {
        roles
            .iter()
            .find(|r| {
                r.metadata.namespace.as_deref() == Some(ns)
                    && r.metadata.name.as_deref() == Some(name)
            })
            .unwrap_or_else(|| panic!("Role {ns}/{name}"))
    };
    let mut want = wide_rules.clone();
    want.remove(&crd);
    assert_eq!(
        grants(role("team-a", "hmc-tui").rules.as_deref().unwrap()),
        want
    );
    assert_eq!(
        grants(
            role("kcm-system", "hmc-tui-default-repository")
                .rules
                .as_deref()
                .unwrap()
        ),
        BTreeSet::from([g(
            "source.toolkit.fluxcd.io",
            "helmrepositories",
            true,
            &["get"]
        )])
    );
    let bindings: Vec<RoleBinding> = of_kind(&scoped, "RoleBinding");
    for (ns, name) in [
        ("team-a", "hmc-tui"),
        ("kcm-system", "hmc-tui-default-repository"),
    ] {
        let b = bindings
            .iter()
            .find(|b| b.metadata.namespace.as_deref() == Some(ns) && b.role_ref.name == name)
            .unwrap_or_else(|| panic!("RoleBinding {ns}/{name}"));
        assert_eq!(b.role_ref.kind, "Role");
        let subject = &b.subjects.as_ref().unwrap()[0];
        assert_eq!(subject.name, "hmc-tui");
        assert_eq!(subject.namespace.as_deref(), Some("hmc-system"));
    }
    // The default repository in the watched namespace needs no Role of
    // its own.
    let same = helm::template("hmc-tui", "hmc-system", &["watchNamespace=hmc-system"]);
    let roles: Vec<Role> = of_kind(&same, "Role");
    assert!(
        roles
            .iter()
            .all(|r| r.metadata.name.as_deref() != Some("hmc-tui-default-repository"))
    );
}

#[test]
fn the_chart_refuses_a_bad_shard_key() {
    for bad in ["shards={Bad_Key!}", "shards={-a}", "replicas=-1"] {
        let out = helm::helm_output(&helm::template_args("hmc-tui", "hmc-system", &[bad]));
        assert!(!out.status.success(), "{bad} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("values don't meet the specifications of the schema"),
            "{bad}: {err}"
        );
    }
}

fn named<'a, K: kube::ResourceExt>(objects: &'a [K], name: &str) -> &'a K {
    objects
        .iter()
        .find(|o| o.name_any() == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn the_engine_reads_one_secret_by_name_in_its_own_namespace() {
    let o = load();
    let (d, c) = engine(&o);
    let env = |name: &str| {
        c.env
            .iter()
            .flatten()
            .find(|e| e.name == name)
            .and_then(|e| e.value.clone())
    };
    let secret = env("HMC_NOTIFICATIONS_SECRET").expect("the notifications Secret");
    assert_eq!(secret, "hmc-notifications");
    let own = d.metadata.namespace.clone();
    assert_eq!(env("HMC_NOTIFICATIONS_NAMESPACE"), own);
    let role = named(&o.roles, "hmc-tui-notifications");
    assert_eq!(role.metadata.namespace, own);
    let rules = role.rules.as_deref().unwrap();
    assert_eq!(
        grants(rules),
        BTreeSet::from([g("", "secrets", true, &["get"])])
    );
    assert_eq!(
        rules[0].resource_names.as_deref(),
        Some(&[secret.clone()][..]),
        "that one Secret, by name"
    );
    // Nothing else anywhere grants anything on secrets.
    let on_secrets = |r: &k8s_openapi::api::rbac::v1::PolicyRule| {
        r.resources
            .iter()
            .flatten()
            .any(|x| x == "secrets" || x == "*")
    };
    assert!(
        o.cluster_roles
            .iter()
            .flat_map(|r| r.rules.iter().flatten())
            .all(|r| !on_secrets(r))
    );
    assert_eq!(
        o.roles
            .iter()
            .flat_map(|r| r.rules.iter().flatten())
            .filter(|r| on_secrets(r))
            .count(),
        1
    );
    let rb = named(&o.role_bindings, "hmc-tui-notifications");
    assert_eq!(rb.metadata.namespace, own);
    assert_eq!(Some(rb.role_ref.name.clone()), role.metadata.name);
    assert_eq!(rb.subjects.as_ref().unwrap()[0].name, "hmc-tui");
}
