//! hmc-shaped objects end to end against the real harness: the set in
//! `assets/examples/hmc/` (templates that name no repository, a
//! ManagedCluster written for hmc 0.0.4) applies unchanged and its service
//! is Installed in the child cluster, with charts from the default
//! repository.
//!
//! The shared harness's real `hmc-system` is left alone: the test's engine
//! gets a system namespace of the test's own, where the default repository
//! goes, and the templates and the cluster go into another namespace, so
//! that the default repository serves a template across namespaces.

mod common;

use std::time::Duration;

use common::cases::*;
use common::*;
use hmc_tui::api::{ManagedCluster, ServiceState, ServiceTemplate};
use hmc_tui::engine::EngineOptions;
use hmc_tui::flux::{HelmChart, HelmRepository};
use kube::api::{Api, DynamicObject, ListParams};
use serde_json::{Value, json};

/// The URL the examples use for the harness's chart repository.
const EXAMPLE_REPO: &str = "http://127.0.0.1:18080";

/// The documents of one file of `assets/examples/hmc/`, with the harness's
/// chart repository URL in place of the examples' one.
fn example(file: &str) -> Vec<Value> {
    let path = repo_root().join("assets/examples/hmc").join(file);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .replace(EXAMPLE_REPO, &chart_repo_url());
    serde_yaml::Deserializer::from_str(&text)
        .map(|doc| serde::Deserialize::deserialize(doc).expect("yaml"))
        .filter(|v: &Value| !v.is_null())
        .collect()
}

/// Applies `doc` into `ns`, whatever namespace it names.
async fn apply_into(mgmt: &kube::Client, ns: &str, mut doc: Value) -> Value {
    doc["metadata"]["namespace"] = json!(ns);
    let kind = doc["kind"].as_str().unwrap().to_string();
    let (group, version) = doc["apiVersion"].as_str().unwrap().split_once('/').unwrap();
    let plural = hmc_tui::engine::templates::plural_of(&kind);
    apply_json(
        mgmt,
        &ar(group, version, &kind, &plural),
        Some(ns),
        doc.clone(),
    )
    .await;
    doc
}

/// The service entries of `doc` install into `target` (the child cluster is
/// shared by every test), and the cluster's entry names its own ingress
/// class (a cluster-wide object in the child).
fn own_child_namespace(doc: &mut Value, target: &str, class: &str) {
    let cluster = doc["kind"] == "ManagedCluster";
    for service in doc["spec"]["services"].as_array_mut().into_iter().flatten() {
        service["namespace"] = json!(target);
        if !cluster {
            continue;
        }
        let text = service["values"].as_str().unwrap_or_default();
        let mut values: serde_yaml::Value = serde_yaml::from_str(text).unwrap();
        let controller = values
            .as_mapping_mut()
            .unwrap()
            .entry("controller".into())
            .or_insert_with(|| serde_yaml::Mapping::new().into());
        controller.as_mapping_mut().unwrap().insert(
            "ingressClassResource".into(),
            serde_yaml::from_str(&format!("name: {class}")).unwrap(),
        );
        service["values"] = json!(serde_yaml::to_string(&values).unwrap());
    }
}

/// Every field of `want` is in `have` with the same value.
fn kept(have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => w
            .iter()
            .all(|(k, wv)| h.get(k).is_some_and(|hv| kept(hv, wv))),
        (Value::Array(h), Value::Array(w)) => {
            h.len() == w.len() && h.iter().zip(w).all(|(a, b)| kept(a, b))
        }
        _ => have == want,
    }
}

async fn template_status(api: &Api<ServiceTemplate>, name: &str) -> Option<(bool, String)> {
    let st = api.get_opt(name).await.ok().flatten()?.status?;
    Some((st.valid, st.validation_error.unwrap_or_default()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hmc_objects_install_through_the_default_repository() {
    let mgmt = mgmt().await;
    let child1 = child(1).await;
    let system = TestNamespace::create(&mgmt, "hmcsys").await;
    let ns = TestNamespace::create(&mgmt, "hmcobj").await;
    let target = format!("{}-ingress", ns.name);
    let engine = RunningEngine::start_with(
        &ns.name,
        EngineOptions {
            system_namespace: system.name.clone(),
            ..EngineOptions::default()
        },
    )
    .await;

    // A ServiceTemplate naming no repository, before the default repository
    // exists: its status names what it looks for, in our words.
    let [service_template] =
        <[Value; 1]>::try_from(example("10-servicetemplate-ingress-nginx.yaml")).unwrap();
    assert!(service_template["spec"]["helm"].get("repository").is_none());
    apply_into(&mgmt, &ns.name, service_template).await;
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let looked_for = format!("chart repository {}/hmc-templates not found", system.name);
    let why = eventually(
        "the template to say the default repository is missing",
        Duration::from_secs(120),
        || async {
            let (valid, why) = template_status(&sts, "ingress-nginx-4-11-3").await?;
            (!valid && why.contains(&looked_for)).then_some(why)
        },
    )
    .await;
    assert!(!why.contains("HelmRepository"), "{why}");

    // The default repository appears: the template picks it up by itself.
    let [repository] = <[Value; 1]>::try_from(example("00-default-repository.yaml")).unwrap();
    assert_eq!(repository["metadata"]["namespace"], "hmc-system");
    assert_eq!(repository["metadata"]["name"], "hmc-templates");
    apply_into(&mgmt, &system.name, repository).await;
    eventually(
        "the template to take its chart from the default repository",
        INSTALL,
        || async {
            let (valid, _) = template_status(&sts, "ingress-nginx-4-11-3").await?;
            valid.then_some(())
        },
    )
    .await;

    // The chart source the engine owns is in the template's namespace, with
    // the default's address and no credentials; nothing is written to the
    // system namespace.
    let charts: Api<HelmChart> = Api::namespaced(mgmt.clone(), &ns.name);
    let chart = charts
        .get("svctmpl-ingress-nginx-4-11-3")
        .await
        .expect("the template's own chart source");
    let repos: Api<HelmRepository> = Api::namespaced(mgmt.clone(), &ns.name);
    let own = repos
        .get(&chart.spec.source_ref.name)
        .await
        .expect("the repository source of the template's chart");
    assert_eq!(own.spec.url, chart_repo_url());
    assert_eq!(own.spec.secret_ref, None);
    let in_system: Api<HelmRepository> = Api::namespaced(mgmt.clone(), &system.name);
    let ours = in_system
        .list(&ListParams::default().labels("app.kubernetes.io/managed-by=hmc-tui"))
        .await
        .unwrap();
    assert!(ours.items.is_empty(), "the engine writes nothing there");

    // The ClusterTemplate and the ManagedCluster as hmc users write them.
    let class = format!("{}-nginx", ns.name);
    let [mut cluster_template] =
        <[Value; 1]>::try_from(example("20-clustertemplate.yaml")).unwrap();
    own_child_namespace(&mut cluster_template, &target, &class);
    apply_into(&mgmt, &ns.name, cluster_template).await;
    let [mut managed] = <[Value; 1]>::try_from(example("30-managedcluster.yaml")).unwrap();
    own_child_namespace(&mut managed, &target, &class);
    let applied = apply_into(&mgmt, &ns.name, managed).await;
    let name = applied["metadata"]["name"].as_str().unwrap().to_string();
    provision(&ns.name, &name, 1).await;

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually("ingress-nginx Installed", INSTALL, || async {
        let (state, _) = service_state(&mcs, &name, "ingress-nginx").await?;
        (state == ServiceState::Installed).then_some(())
    })
    .await;
    let replicas = eventually("ingress-nginx Available on child-1", INSTALL, || {
        available_replicas(&child1, &target)
    })
    .await;
    assert_eq!(replicas, 2, "the ManagedCluster's values reach the child");
    let st = status_of(&mcs, &name).await.unwrap();
    assert_eq!(st.services[0].version.as_deref(), Some("4.11.3"));

    // Every field the user wrote survives the API server: nothing pruned.
    let dynamic: Api<DynamicObject> = Api::namespaced_with(
        mgmt.clone(),
        &ns.name,
        &ar(
            "hmc.mirantis.com",
            "v1alpha1",
            "ManagedCluster",
            "managedclusters",
        ),
    );
    let stored = serde_json::to_value(dynamic.get(&name).await.unwrap()).unwrap();
    assert!(
        kept(&stored["spec"], &applied["spec"]),
        "applied: {}\nstored: {}",
        applied["spec"],
        stored["spec"]
    );
    for field in [
        "credential",
        "servicesPriority",
        "stopOnConflict",
        "dryRun",
        "config",
    ] {
        assert!(stored["spec"].get(field).is_some(), "{field} kept");
    }

    // hmc's template fields the engine does not act on are kept too.
    let hmc_fields = json!({
        "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ClusterTemplate",
        "metadata": {"name": "hmc-fields"},
        "spec": {
            "helm": {"chartName": "hmc-test-cluster", "chartVersion": "0.1.0"},
            "k8sVersion": "1.30.0",
            "providers": ["bootstrap-k0smotron", "infrastructure-aws"],
            "providerContracts": {"infrastructure-aws": "v1beta2"},
        },
    });
    let applied_ct = apply_into(&mgmt, &ns.name, hmc_fields).await;
    let cts: Api<DynamicObject> = Api::namespaced_with(
        mgmt.clone(),
        &ns.name,
        &ar(
            "hmc.mirantis.com",
            "v1alpha1",
            "ClusterTemplate",
            "clustertemplates",
        ),
    );
    let stored_ct = serde_json::to_value(cts.get("hmc-fields").await.unwrap()).unwrap();
    assert!(
        kept(&stored_ct["spec"], &applied_ct["spec"]),
        "applied: {}\nstored: {}",
        applied_ct["spec"],
        stored_ct["spec"]
    );

    // Deleting the cluster uninstalls its service from the child.
    mcs.delete(&name, &Default::default()).await.unwrap();
    eventually("the cluster to be deleted", INSTALL, || async {
        mcs.get_opt(&name).await.ok()?.is_none().then_some(())
    })
    .await;
    assert_eq!(
        deployment_replicas(&child1, &target).await,
        None,
        "nothing of the service is left in the child"
    );
    engine.stop().await;
    drop_child_namespace(&child1, &target).await;
    ns.cleanup().await;
    system.cleanup().await;
}
