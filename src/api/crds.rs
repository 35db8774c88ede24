//! The CRDs, generated from the Rust types. `assets/crds/` holds the same
//! YAML; a test fails when they drift.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;
use serde_json::json;

use super::cluster_template::ClusterTemplate;
use super::managed_cluster::ManagedCluster;
use super::multi_cluster_service::{
    HMC_OR_K0RDENT_MESSAGE, HMC_OR_K0RDENT_RULE, MultiClusterService,
};
use super::rollout::{ONE_SUBJECT_MESSAGE, ONE_SUBJECT_RULE, TemplateRollout};
use super::service_template::ServiceTemplate;

/// What the API server answers to a change of a ServiceTemplate's spec.
pub const SERVICE_TEMPLATE_IMMUTABLE: &str =
    "a ServiceTemplate is immutable: create a new one for a new chart version";
/// … of a ClusterTemplate's `spec.helm`.
pub const CLUSTER_CHART_IMMUTABLE: &str =
    "spec.helm is immutable: create a new ClusterTemplate for another cluster chart";
/// … of a ClusterTemplate's `spec.k8sVersion` (set, changed or removed).
pub const K8S_VERSION_IMMUTABLE: &str = "spec.k8sVersion is immutable: it is the Kubernetes version of the cluster chart; create a new ClusterTemplate for another";

/// Every CRD of ours, with the CEL rules the derive cannot express.
pub fn all_crds() -> Vec<CustomResourceDefinition> {
    let mut service = ServiceTemplate::crd();
    immutable(&mut service, &[], SERVICE_TEMPLATE_IMMUTABLE);
    let mut cluster = ClusterTemplate::crd();
    immutable(&mut cluster, &["helm"], CLUSTER_CHART_IMMUTABLE);
    // Set, changed or removed alike: the status keeps what the spec said.
    rule_at(&mut cluster, &[], K8S_VERSION_RULE, K8S_VERSION_IMMUTABLE);
    unchecked_status_copies(&mut cluster, TEMPLATE_REVISION_SERVICES);
    kept_hmc_fields(&mut service, &[PROVIDERS]);
    kept_hmc_fields(&mut cluster, &[K8S_VERSION, PROVIDERS, PROVIDER_CONTRACTS]);
    let mut rollout = TemplateRollout::crd();
    immutable(
        &mut rollout,
        &[],
        "a TemplateRollout's spec is set by the engine; steer it with the hmc.mirantis.com/request annotation",
    );
    rule_at(&mut rollout, &[], ONE_SUBJECT_RULE, ONE_SUBJECT_MESSAGE);
    let mut multi = MultiClusterService::crd();
    rule_at(&mut multi, &[], HMC_OR_K0RDENT_RULE, HMC_OR_K0RDENT_MESSAGE);
    unchecked_status_copies(&mut multi, MULTI_REVISION_SERVICES);
    vec![service, cluster, ManagedCluster::crd(), rollout, multi]
}

/// Where a ClusterTemplate's status keeps the services of past revisions.
const TEMPLATE_REVISION_SERVICES: &str = "/schema/openAPIV3Schema/properties/status/properties/revisions/items\
     /properties/services/items/properties";
/// Where a MultiClusterService's status keeps them.
const MULTI_REVISION_SERVICES: &str = "/schema/openAPIV3Schema/properties/status/properties/revisions/items\
     /properties/serviceSpec/properties/services/items/properties";

/// All CRDs as one multi-document YAML stream.
pub fn crds_yaml() -> String {
    all_crds()
        .iter()
        .map(|crd| serde_yaml::to_string(crd).expect("a CRD always serializes"))
        .collect::<Vec<_>>()
        .join("---\n")
}

/// The services of past revisions in a status (at `at`) are copies
/// the engine keeps of what the spec held. A service stored before a rule
/// existed (a name rule, the `maxLength` of `values`) must not stop the
/// engine from writing the status (which would also stop the revision that
/// mends it), so the copy carries no admission rule of its own.
fn unchecked_status_copies(crd: &mut CustomResourceDefinition, at: &str) {
    let mut value = serde_json::to_value(&*crd).expect("a CRD always serializes");
    let versions = value["spec"]["versions"].as_array_mut();
    for version in versions.into_iter().flatten() {
        let fields = version.pointer_mut(at);
        for field in fields
            .and_then(|f| f.as_object_mut())
            .into_iter()
            .flat_map(|f| f.values_mut())
            .filter_map(|f| f.as_object_mut())
        {
            for rule in [
                "pattern",
                "minLength",
                "maxLength",
                "x-kubernetes-validations",
            ] {
                field.remove(rule);
            }
        }
    }
    *crd = serde_json::from_value(value).expect("a CRD stays a CRD");
}

/// A field of hmc's spec that the engine does not act on: its name, type and
/// description.
type HmcField = (&'static str, fn() -> serde_json::Value);

const K8S_VERSION: HmcField = (
    "k8sVersion",
    || json!({"type": "string", "description": "hmc: the Kubernetes version of the clusters the chart makes. Accepted and kept; not acted on."}),
);
const PROVIDERS: HmcField = (
    "providers",
    || json!({"type": "array", "items": {"type": "string"}, "description": "hmc: the Cluster API providers the chart needs. Accepted and kept; not acted on."}),
);
const PROVIDER_CONTRACTS: HmcField = (
    "providerContracts",
    || json!({"type": "object", "additionalProperties": {"type": "string"}, "description": "hmc: the Cluster API contract version of each provider. Accepted and kept; not acted on."}),
);

/// hmc's template fields that the engine does not act on are in the schema,
/// so that an hmc template applies unchanged and the API server keeps them
/// (never prunes them). They are in the schema only, not in the Rust types:
/// the engine never writes a template's spec, so nothing drops them.
fn kept_hmc_fields(crd: &mut CustomResourceDefinition, fields: &[HmcField]) {
    let mut value = serde_json::to_value(&*crd).expect("a CRD always serializes");
    for version in value["spec"]["versions"]
        .as_array_mut()
        .into_iter()
        .flatten()
    {
        let spec = version.pointer_mut("/schema/openAPIV3Schema/properties/spec/properties");
        let Some(spec) = spec.and_then(|p| p.as_object_mut()) else {
            continue;
        };
        for (name, schema) in fields {
            spec.entry(*name).or_insert_with(schema);
        }
    }
    *crd = serde_json::from_value(value).expect("a CRD stays a CRD");
}

/// A ClusterTemplate's `k8sVersion` is neither added, changed nor removed.
const K8S_VERSION_RULE: &str = "(has(self.k8sVersion) ? self.k8sVersion : '') == (has(oldSelf.k8sVersion) ? oldSelf.k8sVersion : '')";

/// Adds `self == oldSelf` under `spec.<path>` (or on `spec` itself).
fn immutable(crd: &mut CustomResourceDefinition, path: &[&str], message: &str) {
    rule_at(crd, path, "self == oldSelf", message);
}

/// Adds a CEL rule under `spec.<path>` (or on `spec` itself).
fn rule_at(crd: &mut CustomResourceDefinition, path: &[&str], rule: &str, message: &str) {
    for version in &mut crd.spec.versions {
        let Some(schema) = version
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
        else {
            continue;
        };
        let Some(mut node) = schema.properties.as_mut().and_then(|p| p.get_mut("spec")) else {
            continue;
        };
        for key in path {
            let Some(next) = node.properties.as_mut().and_then(|p| p.get_mut(*key)) else {
                return;
            };
            node = next;
        }
        let rule = serde_json::from_value(json!({"rule": rule, "message": message}))
            .expect("a validation rule is well formed");
        node.x_kubernetes_validations
            .get_or_insert_with(Vec::new)
            .push(rule);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `assets/crds/` must match what the types generate; regenerate with
    /// `cargo run -- crds > assets/crds/hmc.mirantis.com.yaml`.
    #[test]
    fn checked_in_crds_match_the_types() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/crds/hmc.mirantis.com.yaml"
        );
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            on_disk == crds_yaml(),
            "{path} is out of date: run `cargo run -- crds > assets/crds/hmc.mirantis.com.yaml`"
        );
    }

    #[test]
    fn service_names_and_values_are_checked_in_the_spec_only() {
        let crd = serde_json::to_value(&all_crds()[1]).unwrap();
        let root = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
        let spec_name = &root["spec"]["properties"]["services"]["items"]["properties"]["name"];
        assert_eq!(spec_name["maxLength"], 53);
        assert!(spec_name["pattern"].is_string());
        let status_name = &root["status"]["properties"]["revisions"]["items"]["properties"]["services"]
            ["items"]["properties"]["name"];
        assert_eq!(status_name["type"], "string");
        assert!(status_name.get("pattern").is_none() && status_name.get("maxLength").is_none());
        let spec_values = &root["spec"]["properties"]["services"]["items"]["properties"]["values"];
        assert_eq!(spec_values["maxLength"], 131072);
        let status_values = &root["status"]["properties"]["revisions"]["items"]["properties"]["services"]
            ["items"]["properties"]["values"];
        assert!(status_values.get("maxLength").is_none());
    }

    #[test]
    fn hmc_template_fields_are_kept() {
        let crds = serde_json::to_value(all_crds()).unwrap();
        let spec = |i: usize| {
            crds[i]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
                ["properties"]
                .clone()
        };
        assert_eq!(spec(0)["providers"]["items"]["type"], "string");
        assert_eq!(spec(1)["k8sVersion"]["type"], "string");
        assert_eq!(spec(1)["providers"]["type"], "array");
        assert_eq!(
            spec(1)["providerContracts"]["additionalProperties"]["type"],
            "string"
        );
    }

    #[test]
    fn immutability_rules_are_in_place() {
        let yaml = crds_yaml();
        assert_eq!(yaml.matches("self == oldSelf").count(), 3, "{yaml}");
        let cluster = serde_json::to_value(&all_crds()[1]).unwrap();
        let spec =
            &cluster["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(
            spec["x-kubernetes-validations"][0]["rule"],
            K8S_VERSION_RULE
        );
    }

    #[test]
    fn a_multi_cluster_service_is_namespaced_and_reads_k0rdent_and_hmc_yaml() {
        let crd = all_crds().pop().unwrap();
        assert_eq!(crd.spec.names.kind, "MultiClusterService");
        assert_eq!(crd.spec.scope, "Namespaced");
        assert_eq!(crd.spec.names.short_names, Some(vec!["mcs".to_string()]));
        let crd = serde_json::to_value(&crd).unwrap();
        let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
        assert_eq!(
            spec["x-kubernetes-validations"][0]["rule"],
            HMC_OR_K0RDENT_RULE
        );
        assert_eq!(
            spec["properties"]["serviceSpec"]["properties"]["priority"]["maximum"],
            2147483646.0
        );
        let k0rdent: MultiClusterService = serde_yaml::from_str(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: MultiClusterService\nmetadata: {name: m, namespace: a}\n\
             spec:\n  clusterSelector: {matchLabels: {env: prod}}\n  serviceSpec:\n    priority: 200\n    \
             services: [{name: cert-manager, template: cert-manager-1, namespace: cm, values: 'x: 1'}]\n",
        )
        .unwrap();
        assert_eq!((k0rdent.priority(), k0rdent.services().len()), (200, 1));
        let hmc: MultiClusterService = serde_yaml::from_str(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: MultiClusterService\nmetadata: {name: m, namespace: a}\n\
             spec:\n  clusterSelector: {matchLabels: {env: prod}}\n  servicesPriority: 300\n  \
             services: [{name: cert-manager, template: cert-manager-1}]\n",
        )
        .unwrap();
        assert_eq!((hmc.priority(), hmc.services().len()), (300, 1));
        assert_eq!(hmc.service_spec().priority, Some(300));
    }
}
