//! MultiClusterServices end to end against the real harness: one selects
//! two of three clusters by a label of theirs and gives them a service on
//! top of their template's; a new chart version for it rolls out wave by
//! wave, each wave approved; moving the label from one cluster to the third
//! uninstalls it from the first and installs it, at the newest revision, on
//! the third. (That one in
//! another namespace is never a source is the planner's rule, unit-tested
//! in `plan::multi_cluster`: the engine here is scoped to the test's
//! namespace and could not see another's.)

mod common;

use common::cases::*;
use common::rollouts::{STEP, in_phase, phase, request, rollout_when, service_templates};
use common::*;
use hmc_tui::api::{ManagedCluster, MultiClusterService, RolloutPhase};
use kube::api::{Api, Patch, PatchParams};
use serde_json::json;

fn mcs_resource() -> kube::api::ApiResource {
    ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "MultiClusterService",
        "multiclusterservices",
    )
}

/// A MultiClusterService `edge` in `ns` selecting `env: prod`, giving the
/// upstream ingress-nginx from ServiceTemplate `template` as service `edge`
/// into `<ns>-edge`; its changes roll out one cluster per wave, each wave
/// approved.
async fn multi_cluster_service(mgmt: &kube::Client, ns: &str, template: &str) {
    let target = format!("{ns}-edge");
    apply_json(
        mgmt,
        &mcs_resource(),
        Some(ns),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "MultiClusterService",
            "metadata": {"name": "edge"},
            "spec": {
                "clusterSelector": {"matchLabels": {"env": "prod"}},
                "serviceSpec": {"services": [{
                    "name": "edge", "template": template, "namespace": target,
                    "values": chart_values(&target, &target),
                }]},
                "rollout": {"strategy": "Manual", "maxConcurrent": 1},
            },
        }),
    )
    .await;
}

/// Sets (or with `None` removes) label `env` on ManagedCluster `name`.
async fn label_env(mgmt: &kube::Client, ns: &str, name: &str, env: Option<&str>) {
    let api: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), ns);
    let patch = json!({"metadata": {"labels": {"env": env}}});
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("the label");
}

async fn edge_available(child: kube::Client, ns: String) -> Option<i32> {
    available_release(&child, &ns, "edge").await
}

/// The chart (`ingress-nginx-4.11.4`) of service `edge` in a child, from
/// its controller Deployment in namespace `edge`.
async fn edge_chart(child: &kube::Client, edge: &str) -> Option<String> {
    let d = controller(child, edge, "edge").await?;
    d.metadata.labels?.get("helm.sh/chart").cloned()
}

/// [`edge_chart`] in each child, in order.
async fn edge_charts(children: &[kube::Client], edge: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for child in children {
        out.push(edge_chart(child, edge).await);
    }
    out
}

/// The revision of MultiClusterService `edge` each cluster is given
/// (`status.multiClusterServices[edge].targetRevision`), in order.
async fn edge_targets(clusters: &Api<ManagedCluster>, names: &[&str]) -> Vec<Option<i64>> {
    let mut out = Vec::new();
    for name in names {
        let st = clusters.get(name).await.ok().and_then(|m| m.status);
        out.push(
            st.as_ref()
                .and_then(|s| s.multi_cluster_service("edge"))
                .and_then(|g| g.target_revision),
        );
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_label_gives_a_cluster_the_services_of_the_multi_cluster_services_that_select_it() {
    let mgmt = mgmt().await;
    let children = [child(1).await, child(2).await, child(3).await];
    let ns = TestNamespace::create(&mgmt, "mcs").await;
    let edge = format!("{}-edge", ns.name);
    let engine = RunningEngine::start(&ns.name).await;
    templates(&mgmt, &ns.name).await;
    service_templates(&mgmt, &ns.name).await;
    multi_cluster_service(&mgmt, &ns.name, "ingress-nginx-4-11-3").await;
    for (i, cluster) in ["dev-1", "dev-2", "dev-3"].into_iter().enumerate() {
        managed_cluster(&mgmt, &ns.name, cluster, json!([])).await;
        provision(&ns.name, cluster, i + 1).await;
    }
    label_env(&mgmt, &ns.name, "dev-1", Some("prod")).await;
    label_env(&mgmt, &ns.name, "dev-2", Some("prod")).await;

    for i in [0, 1] {
        eventually(&format!("edge on child-{}", i + 1), INSTALL, || {
            edge_available(children[i].clone(), edge.clone())
        })
        .await;
    }
    // dev-3 has its template's service, and not the one it is not selected
    // for.
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    until_ready(&mcs, "dev-3", INSTALL).await;
    let st = status_of(&mcs, "dev-3").await.unwrap();
    let names: Vec<&str> = st.services.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ingress-nginx"]);
    assert_eq!(
        edge_available(children[2].clone(), edge.clone()).await,
        None
    );

    // A new chart version for it is its revision 2: a rollout over the two
    // clusters it selects, one per wave, each waiting for an approval.
    let mcs_rollout = "mcs-edge-2";
    multi_cluster_service(&mgmt, &ns.name, "ingress-nginx-4-11-4").await;
    let r = in_phase(
        &mgmt,
        &ns.name,
        mcs_rollout,
        RolloutPhase::WaitingForApproval,
    )
    .await;
    assert_eq!(r.spec.multi_cluster_service.as_deref(), Some("edge"));
    let st = r.status.unwrap();
    let waves: Vec<(u32, &str)> = st
        .clusters
        .iter()
        .map(|c| (c.wave, c.name.as_str()))
        .collect();
    assert_eq!(waves, [(1, "dev-1"), (2, "dev-2")], "dev-3 is not selected");
    assert_eq!(
        st.change_summary.as_deref(),
        Some("2 clusters: edge 4.11.3 → 4.11.4")
    );
    let names = ["dev-1", "dev-2", "dev-3"];
    assert_eq!(
        edge_targets(&mcs, &names).await,
        [Some(1), Some(1), None],
        "no cluster is given revision 2 before wave 1 is approved"
    );
    let old = Some("ingress-nginx-4.11.3".to_string());
    let new = Some("ingress-nginx-4.11.4".to_string());
    assert_eq!(
        edge_charts(&children, &edge).await,
        [old.clone(), old.clone(), None]
    );

    request(&mgmt, &ns.name, mcs_rollout, "approve", "alice").await;
    eventually("edge 4.11.4 on child-1", STEP, || async {
        (edge_chart(&children[0], &edge).await == new).then_some(())
    })
    .await;
    rollout_when(
        &mgmt,
        &ns.name,
        mcs_rollout,
        "wave 2 to wait for approval",
        STEP,
        |r| {
            phase(r) == RolloutPhase::WaitingForApproval
                && r.status.as_ref().and_then(|s| s.wave_summary.as_deref()) == Some("2/2")
        },
    )
    .await;
    assert_eq!(
        edge_targets(&mcs, &names).await,
        [Some(2), Some(1), None],
        "wave 2 waits for its approval"
    );
    assert_eq!(edge_chart(&children[1], &edge).await, old);

    request(&mgmt, &ns.name, mcs_rollout, "approve", "bob").await;
    let done = in_phase(&mgmt, &ns.name, mcs_rollout, RolloutPhase::Succeeded).await;
    let approved_by: Vec<Option<&str>> = done
        .status
        .as_ref()
        .unwrap()
        .waves
        .iter()
        .map(|w| w.approved_by.as_deref())
        .collect();
    assert_eq!(approved_by, [Some("alice"), Some("bob")]);
    assert_eq!(edge_chart(&children[1], &edge).await, new);

    // The label moves from dev-2 to dev-3: the service follows it, and
    // dev-3 gets the newest revision at once.
    label_env(&mgmt, &ns.name, "dev-2", None).await;
    label_env(&mgmt, &ns.name, "dev-3", Some("prod")).await;
    eventually("edge 4.11.4 on child-3", INSTALL, || async {
        (edge_chart(&children[2], &edge).await == new).then_some(())
    })
    .await;
    eventually("edge gone from child-2", INSTALL, || async {
        controller(&children[1], &edge, "edge")
            .await
            .is_none()
            .then_some(())
    })
    .await;
    for cluster in ["dev-1", "dev-2", "dev-3"] {
        until_ready(&mcs, cluster, INSTALL).await;
    }
    let st = status_of(&mcs, "dev-2").await.unwrap();
    let names: Vec<&str> = st.services.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ingress-nginx"]);

    // The MultiClusterService says which clusters it selects, and that its
    // service is deployed on each.
    let multis: Api<MultiClusterService> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually(
        "edge to list dev-1 and dev-3, deployed",
        INSTALL,
        || async {
            let st = multis.get("edge").await.ok()?.status?;
            let matching: Vec<(&str, bool)> = st
                .matching_clusters
                .iter()
                .map(|c| (c.name.as_str(), c.deployed))
                .collect();
            (st.matching_count == Some(2) && matching == [("dev-1", true), ("dev-3", true)])
                .then_some(())
        },
    )
    .await;

    // Another one names the template's service at the same priority as the
    // clusters' own: a conflict, said on the clusters and on it; what is
    // installed stays.
    apply_json(
        &mgmt,
        &mcs_resource(),
        Some(&ns.name),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "MultiClusterService",
            "metadata": {"name": "clash"},
            "spec": {
                "clusterSelector": {"matchLabels": {"env": "prod"}},
                "serviceSpec": {"services": [{"name": "ingress-nginx", "template": "ingress-nginx-4-11-3"}]},
            },
        }),
    )
    .await;
    let (_, why) = eventually("dev-1 to say its conflict", INSTALL, || async {
        condition(&mcs, "dev-1", "Conflict")
            .await
            .filter(|(status, _)| status == "True")
    })
    .await;
    assert!(
        why.contains(
            "ingress-nginx is in conflict: this cluster's own and MultiClusterService clash"
        ),
        "{why}"
    );
    eventually("clash to say its conflict", INSTALL, || async {
        let st = multis.get("clash").await.ok()?.status?;
        st.conditions
            .iter()
            .any(|c| c.type_ == "Conflict" && c.status == "True" && c.message.contains("dev-1"))
            .then_some(())
    })
    .await;
    assert!(
        available_replicas(&children[0], &format!("{}-ingress", ns.name))
            .await
            .is_some(),
        "a service in conflict keeps what it runs"
    );
    multis.delete("clash", &Default::default()).await.unwrap();
    eventually("dev-1's conflict to end", INSTALL, || async {
        condition(&mcs, "dev-1", "Conflict")
            .await
            .filter(|(status, _)| status == "False")
    })
    .await;

    for cluster in ["dev-1", "dev-2", "dev-3"] {
        mcs.delete(cluster, &Default::default()).await.unwrap();
    }
    for cluster in ["dev-1", "dev-2", "dev-3"] {
        eventually(&format!("{cluster} gone"), INSTALL, || async {
            mcs.get_opt(cluster).await.ok()?.is_none().then_some(())
        })
        .await;
    }
    engine.stop().await;
    let ingress = format!("{}-ingress", ns.name);
    for child in &children {
        drop_child_namespace(child, &edge).await;
        drop_child_namespace(child, &ingress).await;
    }
    ns.cleanup().await;
}
