//! The engine end to end: names that cannot collide, ownership before every
//! apply, and names at their limits.

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::cases::*;
use common::*;
use hmc_tui::api::names::service_release_name;
use hmc_tui::api::names::{CLUSTER_NAME_CHARACTERS, CLUSTER_NAME_LENGTH, MAX_CLUSTER_NAME};
use hmc_tui::api::{ManagedCluster, ServiceState, labels};
use hmc_tui::flux::HelmRelease;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::{Client, ResourceExt};
use serde_json::json;

/// A ClusterTemplate with the test cluster chart and no services of its own.
async fn bare_template(mgmt: &Client, ns: &str) {
    apply_yaml(
        mgmt,
        ns,
        &format!(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata:\n  name: bare\n\
             spec:\n  helm:\n    chartName: hmc-test-cluster\n    chartVersion: 0.1.0\n    \
             repository:\n      url: {}\n",
            chart_repo_url()
        ),
    )
    .await;
}

/// A per-cluster service `name` from the ingress-nginx template, installed
/// into `namespace` of the child, its cluster-wide objects and ingress
/// class named after that namespace.
fn service(name: &str, namespace: &str) -> serde_json::Value {
    json!({
        "name": name, "template": "ingress-nginx-4-11-3", "namespace": namespace,
        "values": chart_values(namespace, namespace),
    })
}

/// Every release in `ns`, by name, with its generation.
async fn generations(releases: &Api<HelmRelease>) -> BTreeMap<String, i64> {
    releases
        .list(&Default::default())
        .await
        .expect("list releases")
        .items
        .iter()
        .map(|r| (r.name_any(), r.metadata.generation.unwrap_or_default()))
        .collect()
}

/// A condition of a cluster: status, reason and message.
async fn condition_of(
    mcs: &Api<ManagedCluster>,
    cluster: &str,
    type_: &str,
) -> Option<(String, String, String)> {
    let st = status_of(mcs, cluster).await?;
    let c = st.conditions.into_iter().find(|c| c.type_ == type_)?;
    Some((c.status, c.reason, c.message))
}

/// Waits until `cluster` is Ready with its service `service` Installed.
async fn ready_with(mcs: &Api<ManagedCluster>, cluster: &str, service: &str) {
    eventually(&format!("{cluster} Ready"), INSTALL, || async {
        let (status, _, _) = condition_of(mcs, cluster, "Ready").await?;
        let (state, _) = service_state(mcs, cluster, service).await?;
        (status == "True" && state == ServiceState::Installed).then_some(())
    })
    .await;
}

async fn delete_and_wait(mcs: &Api<ManagedCluster>, names: &[&str]) {
    for name in names {
        let _ = mcs.delete(name, &Default::default()).await;
    }
    for name in names {
        eventually(&format!("{name} deleted"), INSTALL, || async {
            mcs.get_opt(name).await.ok()?.is_none().then_some(())
        })
        .await;
    }
}

/// Cluster `x` with service `ingress`, and cluster `x-ingress`: under the
/// old names both wanted the release `x-ingress` and two writers fought.
/// Both get their cluster release and their service, and then nothing is
/// written any more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_named_like_another_clusters_service_gets_releases_of_its_own() {
    let mgmt = mgmt().await;
    let (child1, child2) = (child(1).await, child(2).await);
    let ns = TestNamespace::create(&mgmt, "names").await;
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    bare_template(&mgmt, &ns.name).await;
    let (in_x, in_xi) = (format!("{}-x", ns.name), format!("{}-xi", ns.name));
    managed_cluster_from(
        &mgmt,
        &ns.name,
        "x",
        "bare",
        json!([service("ingress", &in_x)]),
    )
    .await;
    managed_cluster_from(
        &mgmt,
        &ns.name,
        "x-ingress",
        "bare",
        json!([service("ingress", &in_xi)]),
    )
    .await;
    provision(&ns.name, "x", 1).await;
    provision(&ns.name, "x-ingress", 2).await;

    eventually("ingress on child-1", INSTALL, || {
        available_release(&child1, &in_x, "ingress")
    })
    .await;
    eventually("ingress on child-2", INSTALL, || {
        available_release(&child2, &in_xi, "ingress")
    })
    .await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    ready_with(&mcs, "x", "ingress").await;
    ready_with(&mcs, "x-ingress", "ingress").await;

    // Four releases, each with the labels of its own cluster.
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let first = generations(&releases).await;
    let names: Vec<&str> = first.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["x", "x-ingress", "x-ingress.ingress", "x.ingress"],
        "one release per cluster and per service"
    );
    let owner = |r: &HelmRelease| {
        let l = r.labels();
        (
            l.get(labels::CLUSTER).cloned().unwrap_or_default(),
            l.get(labels::ROLE).cloned().unwrap_or_default(),
        )
    };
    let get = |n: &'static str| {
        let releases = releases.clone();
        async move { releases.get(n).await.unwrap() }
    };
    assert_eq!(
        owner(&get("x-ingress").await),
        ("x-ingress".into(), "cluster".into())
    );
    assert_eq!(
        owner(&get("x.ingress").await),
        ("x".into(), "service".into())
    );
    assert_eq!(
        owner(&get("x-ingress.ingress").await),
        ("x-ingress".into(), "service".into())
    );

    // No writer fights over anything: the engine looks at both clusters
    // again, and 30 s after that began every release has the generation it
    // had.
    let writes = engine.counters.writes();
    let window = Instant::now();
    engine.look_again(&ns.name, &["x", "x-ingress"]).await;
    let looked = window.elapsed();
    tokio::time::sleep(Duration::from_secs(30).saturating_sub(looked)).await;
    let second = generations(&releases).await;
    assert_eq!(first, second, "no release is written again");
    eprintln!(
        "generations {first:?}; the engine looked again in {looked:?} and wrote {} times in the 30 s",
        engine.counters.writes() - writes
    );
    for name in ["x", "x-ingress"] {
        let (status, _, message) = condition_of(&mcs, name, "Ready").await.unwrap();
        assert_eq!(status, "True", "{name}: {message}");
    }

    delete_and_wait(&mcs, &["x", "x-ingress"]).await;
    engine.stop().await;
    drop_child_namespace(&child1, &in_x).await;
    drop_child_namespace(&child2, &in_xi).await;
    ns.cleanup().await;
}

/// A release the test writes itself, suspended so that nothing installs it.
async fn suspended_release(mgmt: &Client, ns: &str, name: &str, labels: serde_json::Value) {
    apply_json(
        mgmt,
        &helm_release(),
        Some(ns),
        json!({
            "apiVersion": "helm.toolkit.fluxcd.io/v2", "kind": "HelmRelease",
            "metadata": {"name": name, "labels": labels},
            "spec": {
                "suspend": true, "interval": "10m", "releaseName": "ingress",
                "chartRef": {"kind": "HelmChart", "name": "svctmpl-ingress-nginx-4-11-3"},
            },
        }),
    )
    .await;
}

/// Managers that wrote a release.
fn managers(r: &HelmRelease) -> Vec<String> {
    r.managed_fields()
        .iter()
        .filter_map(|m| m.manager.clone())
        .collect()
}

/// Ownership before every apply: a release that is not ours is never
/// written, and the cluster says why. A service installed under the old
/// name keeps that release.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_is_not_ours_is_left_alone_and_old_installs_keep_their_release() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "owner").await;
    templates(&mgmt, &ns.name).await;
    bare_template(&mgmt, &ns.name).await;
    // Someone's own release with the name cluster y-ingress needs.
    suspended_release(&mgmt, &ns.name, "y-ingress", json!({"team": "a"})).await;
    // What an engine of the old naming made for service ingress of cluster old.
    suspended_release(
        &mgmt,
        &ns.name,
        "old-ingress",
        json!({
            labels::MANAGED_BY: labels::MANAGED_BY_VALUE, labels::CLUSTER: "old",
            labels::ROLE: "service", labels::SERVICE: "ingress",
        }),
    )
    .await;
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);
    let foreign_before = releases.get("y-ingress").await.unwrap();

    let engine = RunningEngine::start(&ns.name).await;
    let in_old = format!("{}-old", ns.name);
    managed_cluster_from(&mgmt, &ns.name, "y-ingress", "bare", json!([])).await;
    managed_cluster_from(
        &mgmt,
        &ns.name,
        "old",
        "bare",
        json!([service("ingress", &in_old)]),
    )
    .await;
    provision(&ns.name, "old", 3).await;

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let (_, reason, message) =
        eventually("y-ingress to report the name conflict", INSTALL, || async {
            condition_of(&mcs, "y-ingress", "ClusterReady")
                .await
                .filter(|(_, reason, _)| reason == "NameConflict")
        })
        .await;
    assert_eq!(reason, "NameConflict");
    assert_eq!(
        message,
        "release y-ingress already exists and is not managed by hmc-tui; \
         it is left alone: rename one of them or remove it"
    );
    let (ready, ready_reason, _) = condition_of(&mcs, "y-ingress", "Ready").await.unwrap();
    assert_eq!(
        (ready.as_str(), ready_reason.as_str()),
        ("False", "NameConflict")
    );

    // The old install gets the engine's spec under its old name; no second
    // release is made for the same service.
    let legacy = eventually("the old release to be taken over", INSTALL, || async {
        let r = releases.get_opt("old-ingress").await.ok()??;
        let secret = r.spec.kube_config.as_ref()?.secret_ref.name.clone();
        (secret == "old-kubeconfig").then_some(r)
    })
    .await;
    assert_eq!(
        legacy.spec.target_namespace.as_deref(),
        Some(in_old.as_str())
    );
    engine.look_again(&ns.name, &["old", "y-ingress"]).await;
    assert!(
        releases
            .get_opt(&service_release_name("old", "ingress"))
            .await
            .unwrap()
            .is_none(),
        "no release under the new name for a service installed under the old one"
    );

    // The foreign release is as it was: not one write of ours (its
    // controller may have written its status and finalizer meanwhile).
    let foreign = releases.get("y-ingress").await.unwrap();
    assert_eq!(
        foreign.metadata.generation,
        foreign_before.metadata.generation
    );
    assert_eq!(foreign.labels(), foreign_before.labels());
    assert!(
        !managers(&foreign).contains(&"hmc-tui".to_string()),
        "{:?}",
        managers(&foreign)
    );

    delete_and_wait(&mcs, &["y-ingress", "old"]).await;
    engine.stop().await;
    let _ = releases.delete("y-ingress", &Default::default()).await;
    ns.cleanup().await;
}

/// Creates a ManagedCluster `name` from `bare`: the API server's answer.
async fn create_cluster(mcs: &Api<ManagedCluster>, name: &str) -> Result<(), kube::Error> {
    let mc: ManagedCluster = serde_json::from_value(json!({
        "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
        "metadata": {"name": name}, "spec": {"template": "bare"},
    }))
    .unwrap();
    mcs.create(&PostParams::default(), &mc).await.map(|_| ())
}

/// Names at their limits: 63 and 70 characters, or a dot, are refused at
/// admission with the rule's message or, where the API server still has a
/// CRD without the rule, given a condition that says why; either way
/// nothing is made for them. A name of exactly the maximum works end to end,
/// and its long service gets a release under the short form of its name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_at_their_limits_work_or_are_refused_with_a_reason() {
    let mgmt = mgmt().await;
    let child3 = child(3).await;
    let ns = TestNamespace::create(&mgmt, "limits").await;
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    bare_template(&mgmt, &ns.name).await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let releases: Api<HelmRelease> = Api::namespaced(mgmt.clone(), &ns.name);

    let long = |n: usize| format!("l{}", "o".repeat(n - 2)) + "g";
    let refused = [
        (long(63), CLUSTER_NAME_LENGTH),
        (long(70), CLUSTER_NAME_LENGTH),
        ("dotted.name".to_string(), CLUSTER_NAME_CHARACTERS),
    ];
    let mut accepted = Vec::new();
    for (name, why) in &refused {
        match create_cluster(&mcs, name).await {
            Err(kube::Error::Api(s)) => {
                assert_eq!(s.code, 422, "{name}: {s:?}");
                assert!(s.message.contains(why), "{name}: {}", s.message);
                eprintln!("{} characters refused: {}", name.len(), s.message);
            }
            Err(e) => panic!("{name}: {e}"),
            Ok(()) => accepted.push((name.clone(), *why)),
        }
    }
    // Stored anyway (a CRD without the rule): a condition, and nothing else.
    for (name, why) in &accepted {
        let (status, _, message) = eventually(
            &format!("{name} to say its name cannot be used"),
            Duration::from_secs(60),
            || async {
                condition_of(&mcs, name, "ClusterReady")
                    .await
                    .filter(|(_, reason, _)| reason == "InvalidName")
            },
        )
        .await;
        assert_eq!(status, "False");
        assert!(message.contains(why), "{message}");
        eprintln!("{} characters stored; condition: {message}", name.len());
    }

    // Exactly the maximum: its cluster release, then its service under the
    // short form of `<cluster>.<service>`.
    let max = format!("m{}", "a".repeat(MAX_CLUSTER_NAME - 2)) + "x";
    assert_eq!(max.len(), MAX_CLUSTER_NAME);
    let svc = "ingress-with-a-long-name";
    let in_child = format!("{}-max", ns.name);
    managed_cluster_from(
        &mgmt,
        &ns.name,
        &max,
        "bare",
        json!([service(svc, &in_child)]),
    )
    .await;
    eventually(
        "the cluster release of the longest name",
        INSTALL,
        || async { releases.get_opt(&max).await.ok()?.map(|_| ()) },
    )
    .await;
    provision(&ns.name, &max, 3).await;
    eventually("the long service on child-3", INSTALL, || {
        available_release(&child3, &in_child, svc)
    })
    .await;
    ready_with(&mcs, &max, svc).await;
    let rel_name = service_release_name(&max, svc);
    assert!(rel_name.len() <= 63 && rel_name.matches('.').count() == 2);
    let rel = releases.get(&rel_name).await.unwrap();
    assert_eq!(rel.labels().get(labels::CLUSTER), Some(&max));
    assert_eq!(rel.spec.release_name.as_deref(), Some(svc));

    // Nothing was half-applied for the names that cannot be used.
    let all = releases.list(&Default::default()).await.unwrap().items;
    for (name, _) in &refused {
        assert!(
            !all.iter()
                .any(|r| r.name_any() == *name || r.labels().get(labels::CLUSTER) == Some(name)),
            "a release for {name}"
        );
        if let Some(mc) = mcs.get_opt(name).await.unwrap() {
            assert!(mc.finalizers().is_empty(), "{name}: {:?}", mc.finalizers());
        }
    }

    let names: Vec<&str> = std::iter::once(max.as_str())
        .chain(accepted.iter().map(|(n, _)| n.as_str()))
        .collect();
    delete_and_wait(&mcs, &names).await;
    engine.stop().await;
    drop_child_namespace(&child3, &in_child).await;
    ns.cleanup().await;
}

/// The name rules of the ManagedCluster CRD, as the API server runs them,
/// whatever version of the CRD the control plane has: the same schema under
/// a throwaway group. Objects stored before the rules existed (63
/// characters, a dot) still take updates; new ones are refused with the
/// rule's message; 53 characters are taken.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_name_rules_hold_at_admission() {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "rules").await;
    let group = format!("{}.names.hmc-tui.test", ns.name);
    let mut crd = hmc_tui::api::all_crds()
        .into_iter()
        .find(|c| c.spec.names.kind == "ManagedCluster")
        .unwrap();
    crd.metadata.name = Some(format!("managedclusters.{group}"));
    crd.spec.group = group.clone();
    crd.spec.names.short_names = None;
    crd.spec.names.categories = None;
    let crd_name = crd.metadata.name.clone().unwrap();
    // First without the name rules, as a CRD of before.
    let mut before = crd.clone();
    for v in &mut before.spec.versions {
        if let Some(root) = v
            .schema
            .as_mut()
            .and_then(|s| s.open_api_v3_schema.as_mut())
        {
            root.x_kubernetes_validations = None;
        }
    }
    let crds: Api<CustomResourceDefinition> = Api::all(mgmt.clone());
    let apply = PatchParams::apply("hmc-e2e").force();
    crds.patch(&crd_name, &apply, &Patch::Apply(&before))
        .await
        .expect("the CRD without the rules");
    eventually("the CRD Established", Duration::from_secs(60), || async {
        let c = crds.get(&crd_name).await.ok()?;
        c.status?
            .conditions?
            .iter()
            .any(|c| c.type_ == "Established" && c.status == "True")
            .then_some(())
    })
    .await;
    let api: Api<DynamicObject> = Api::namespaced_with(
        mgmt.clone(),
        &ns.name,
        &ar(&group, "v1alpha1", "ManagedCluster", "managedclusters"),
    );
    let create = |name: String| {
        let api = api.clone();
        let group = group.clone();
        async move {
            let obj: DynamicObject = serde_json::from_value(json!({
                "apiVersion": format!("{group}/v1alpha1"), "kind": "ManagedCluster",
                "metadata": {"name": name}, "spec": {"template": "bare"},
            }))
            .unwrap();
            // Right after Established the API server may not serve the
            // kind yet: a 404 is asked again.
            for _ in 0..40 {
                match api.create(&PostParams::default(), &obj).await {
                    Err(kube::Error::Api(s)) if s.code == 404 => {
                        tokio::time::sleep(Duration::from_millis(250)).await
                    }
                    other => return other,
                }
            }
            api.create(&PostParams::default(), &obj).await
        }
    };
    let (old_long, old_dotted) = ("o".repeat(63), "old.dotted".to_string());
    create(old_long.clone())
        .await
        .expect("63 characters, before the rules");
    create(old_dotted.clone())
        .await
        .expect("a dot, before the rules");

    // Now with the rules. The API server takes the CEL (its cost, its
    // optionalOldSelf) or this fails.
    crds.patch(&crd_name, &apply, &Patch::Apply(&crd))
        .await
        .expect("the API server takes the CRD and its name rules");
    let refused = |r: Result<DynamicObject, kube::Error>, why: &str| match r {
        Err(kube::Error::Api(s)) if s.code == 422 && s.message.contains(why) => Ok(s.message),
        other => Err(format!(
            "expected a refusal that says {why:?}, got {other:?}"
        )),
    };
    let mut attempt = 0;
    let message = eventually("the rules in force", Duration::from_secs(30), || {
        attempt += 1;
        let name = format!("n{attempt}{}", "a".repeat(53));
        let create = &create;
        async move { refused(create(name).await, CLUSTER_NAME_LENGTH).ok() }
    })
    .await;
    eprintln!("54 characters and more: {message}");
    for (name, why) in [
        ("b".repeat(54), CLUSTER_NAME_LENGTH),
        ("c".repeat(63), CLUSTER_NAME_LENGTH),
        ("a.b".to_string(), CLUSTER_NAME_CHARACTERS),
    ] {
        let message =
            refused(create(name.clone()).await, why).unwrap_or_else(|e| panic!("{name}: {e}"));
        eprintln!("{name}: {message}");
    }
    create("a".repeat(53))
        .await
        .expect("53 characters are taken");
    // Objects stored before the rules take updates: the rules hold on
    // creation only, so an engine can still write their status and lift
    // their finalizer.
    for name in [&old_long, &old_dotted] {
        api.patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"touched": "yes"}}})),
        )
        .await
        .unwrap_or_else(|e| panic!("an update of {name}, stored before the rules: {e}"));
        api.patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"servicesReady": "0/0"}})),
        )
        .await
        .unwrap_or_else(|e| panic!("a status write of {name}: {e}"));
    }

    crds.delete(&crd_name, &Default::default()).await.unwrap();
    ns.cleanup().await;
}
