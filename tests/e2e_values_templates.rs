//! Values templated from the cluster, end to end against the real harness:
//! one ClusterTemplate whose service values read each cluster's name and a
//! label of its Cluster API Cluster gives three clusters three different
//! releases, each in its own child; a cluster whose Cluster lacks the label
//! says so, line and column, and installs once the label is set, while the
//! others went on.

mod common;

use common::cases::*;
use common::*;
use hmc_tui::api::{ManagedCluster, ServiceState};
use k8s_openapi::api::networking::v1::IngressClass;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::json;

/// The demo templates, with the service's values written once for every
/// cluster: the IngressClass is named after the cluster, and its controller
/// after the Cluster's `region` label.
async fn templated(mgmt: &kube::Client, ns: &str) {
    templates(mgmt, ns).await;
    let name = fullname(ns);
    let values = format!(
        "fullnameOverride: {name}\ncontroller:\n  service:\n    type: ClusterIP\n  \
         ingressClassResource:\n    name: \"{{{{ .Cluster.metadata.name }}}}-{name}\"\n    \
         controllerValue: \"k8s.io/ingress-{{{{ .Cluster.metadata.labels.region }}}}\"\n  \
         admissionWebhooks:\n    namespaceSelector:\n      matchLabels:\n        \
         kubernetes.io/metadata.name: {ns}-ingress\n"
    );
    let cts: Api<DynamicObject> = Api::namespaced_with(
        mgmt.clone(),
        ns,
        &ar(
            "hmc.mirantis.com",
            "v1alpha1",
            "ClusterTemplate",
            "clustertemplates",
        ),
    );
    let patch = json!({"spec": {"services": [{
        "name": "ingress-nginx", "template": "ingress-nginx-4-11-3",
        "namespace": format!("{ns}-ingress"), "values": values,
    }]}});
    cts.patch("demo", &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("the template's templated values");
}

/// Sets label `region` on Cluster API's Cluster `name`, once it exists.
async fn label_region(mgmt: &kube::Client, ns: &str, name: &str, region: &str) {
    let api: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), ns, &common::capi::clusters());
    let patch = json!({"metadata": {"labels": {"region": region}}});
    eventually(
        &format!("label region on Cluster {name}"),
        INSTALL,
        || async {
            api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
                .await
                .ok()
                .map(drop)
        },
    )
    .await;
}

/// The IngressClass `name` in a child, by its controller.
async fn ingress_class(child: kube::Client, name: String) -> Option<String> {
    let api: Api<IngressClass> = Api::all(child);
    api.get_opt(&name).await.ok()??.spec?.controller
}

/// The message of dev-3's service once it is Failed with a message that
/// `wanted` accepts.
async fn failed_service_message(
    clusters: &Api<ManagedCluster>,
    what: &str,
    wanted: impl Fn(&str) -> bool,
) -> String {
    eventually(what, INSTALL, || async {
        let st = status_of(clusters, "dev-3").await?;
        let service = st.services.first()?;
        (service.state == ServiceState::Failed)
            .then(|| service.message.clone())
            .flatten()
            .filter(|m| wanted(m))
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_cluster_gets_values_rendered_from_its_own_data() {
    let mgmt = mgmt().await;
    let children = [child(1).await, child(2).await, child(3).await];
    let ns = TestNamespace::create(&mgmt, "tmpl").await;
    let target = format!("{}-ingress", ns.name);
    let class = |cluster: &str| format!("{cluster}-{}", fullname(&ns.name));
    let engine = RunningEngine::start(&ns.name).await;
    templated(&mgmt, &ns.name).await;
    for (i, cluster) in ["dev-1", "dev-2", "dev-3"].into_iter().enumerate() {
        managed_cluster(&mgmt, &ns.name, cluster, json!([])).await;
        provision(&ns.name, cluster, i + 1).await;
    }
    label_region(&mgmt, &ns.name, "dev-1", "eu").await;
    label_region(&mgmt, &ns.name, "dev-2", "us").await;

    // Each child gets the values of its own cluster.
    for (i, (cluster, region)) in [("dev-1", "eu"), ("dev-2", "us")].into_iter().enumerate() {
        let controller = eventually(
            &format!("IngressClass {} on child-{}", class(cluster), i + 1),
            INSTALL,
            || ingress_class(children[i].clone(), class(cluster)),
        )
        .await;
        assert_eq!(controller, format!("k8s.io/ingress-{region}"));
    }

    // dev-3's Cluster has no region label: its service says so, where, and
    // installs nothing; the other two went on without it.
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let message =
        failed_service_message(&mcs, "dev-3's service to say what its values miss", |_| {
            true
        })
        .await;
    assert!(
        message.contains("line 7, column")
            && message.contains("region")
            && message.contains("Cluster dev-3"),
        "{message}"
    );
    assert_eq!(
        ingress_class(children[2].clone(), class("dev-3")).await,
        None
    );

    // The label set, the values render and the service installs.
    label_region(&mgmt, &ns.name, "dev-3", "ap").await;
    let controller = eventually("IngressClass of dev-3 on child-3", INSTALL, || {
        ingress_class(children[2].clone(), class("dev-3"))
    })
    .await;
    assert_eq!(controller, "k8s.io/ingress-ap");

    // A hostile template of dev-3's own is stopped at a bound and said on
    // its service; what dev-3 runs stays, and no other cluster notices.
    managed_cluster(
        &mgmt,
        &ns.name,
        "dev-3",
        json!([{"name": "ingress-nginx",
                "values": "controller:\n  x: {{ range 1000000000000 }}{{ end }}\n"}]),
    )
    .await;
    let message = failed_service_message(&mcs, "dev-3's hostile template to be stopped", |m| {
        m.contains("range iterations")
    })
    .await;
    assert!(
        message.starts_with("values of service ingress-nginx in this cluster do not render"),
        "{message}"
    );
    assert_eq!(
        ingress_class(children[2].clone(), class("dev-3"))
            .await
            .as_deref(),
        Some("k8s.io/ingress-ap"),
        "what dev-3 runs stays"
    );
    managed_cluster(&mgmt, &ns.name, "dev-3", json!([])).await;
    for cluster in ["dev-1", "dev-2", "dev-3"] {
        until_ready(&mcs, cluster, INSTALL).await;
    }
    // What the ManagedCluster says never names the machinery underneath.
    let text = serde_json::to_string(&status_of(&mcs, "dev-3").await).unwrap();
    assert!(!text.contains("HelmRelease"), "{text}");

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
    for child in &children {
        drop_child_namespace(child, &target).await;
    }
    ns.cleanup().await;
}
