//! A fleet of three clusters, one per child cluster, made from one template,
//! for the rollout tests.
#![allow(dead_code)]

use std::time::Duration;

use hmc_tui::api::{ManagedCluster, RolloutPhase, TemplateRollout};
use kube::Client;
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};

use super::cases::{
    INSTALL, chart_repo_url, chart_values, fullname, managed_cluster_from, upstream_repo_url,
};
use super::*;

/// The clusters and the child cluster each runs on.
pub const FLEET: [(&str, usize); 3] = [("c1", 1), ("c2", 2), ("c3", 3)];

/// Every ServiceTemplate the rollout tests use: the upstream chart's two
/// versions and one whose version the repository does not have.
pub async fn service_templates(mgmt: &Client, ns: &str) {
    let repo = upstream_repo_url();
    let yaml = ["4.11.3", "4.11.4", "9.9.9"]
        .iter()
        .map(|v| {
            format!(
                r#"apiVersion: hmc.mirantis.com/v1alpha1
kind: ServiceTemplate
metadata:
  name: ingress-nginx-{name}
spec:
  helm:
    chartName: ingress-nginx
    chartVersion: {v}
    repository:
      url: {repo}
"#,
                name = v.replace('.', "-")
            )
        })
        .collect::<Vec<_>>()
        .join("---\n");
    apply_yaml(mgmt, ns, &yaml).await;
}

/// The `fleet` ClusterTemplate: ingress-nginx from `service_template`, into
/// `<ns>-ingress`, rolled out by `policy`.
pub async fn fleet_template(mgmt: &Client, ns: &str, service_template: &str, policy: Value) {
    fleet_template_with(mgmt, ns, service_template, "", policy).await
}

/// As [`fleet_template`], with more YAML appended under `controller:`.
pub async fn fleet_template_with(
    mgmt: &Client,
    ns: &str,
    service_template: &str,
    controller_extra: &str,
    policy: Value,
) {
    let ar = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ClusterTemplate",
        "clustertemplates",
    );
    let values = chart_values(&fullname(ns), &format!("{ns}-ingress")) + controller_extra;
    apply_json(
        mgmt,
        &ar,
        Some(ns),
        json!({
            "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ClusterTemplate",
            "metadata": {"name": "fleet"},
            "spec": {
                "helm": {
                    "chartName": "hmc-test-cluster", "chartVersion": "0.1.0",
                    "repository": {"url": chart_repo_url()},
                },
                "services": [{
                    "name": "ingress-nginx", "template": service_template,
                    "namespace": format!("{ns}-ingress"), "values": values,
                }],
                "rollout": policy,
            },
        }),
    )
    .await;
}

/// The whole fleet at ingress-nginx 4.11.3, revision 1, in every child.
pub async fn fleet_at_4_11_3(mgmt: &Client, ns: &str, policy: Value) {
    fleet_at_4_11_3_of(mgmt, ns, policy, &FLEET).await
}

/// `clusters` (a part of [`FLEET`]) at ingress-nginx 4.11.3, revision 1.
pub async fn fleet_at_4_11_3_of(
    mgmt: &Client,
    ns: &str,
    policy: Value,
    clusters: &[(&str, usize)],
) {
    service_templates(mgmt, ns).await;
    fleet_template(mgmt, ns, "ingress-nginx-4-11-3", policy).await;
    for &(name, child_index) in clusters {
        managed_cluster_from(mgmt, ns, name, "fleet", json!([])).await;
        provision(ns, name, child_index).await;
    }
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), ns);
    for &(name, child_index) in clusters {
        let child = child(child_index).await;
        eventually(&format!("{name} at 4.11.3"), INSTALL, || {
            chart_is(&child, ns, "ingress-nginx-4.11.3")
        })
        .await;
        eventually(&format!("{name} good at revision 1"), INSTALL, || async {
            let st = mcs.get_opt(name).await.ok()??.status?;
            (st.revision == Some(1) && st.target_revision == Some(1)).then_some(())
        })
        .await;
    }
}

/// How long one step of a rollout (a wave, a phase) may take.
pub const STEP: Duration = Duration::from_secs(180);

/// The policy of the Manual fleet: every wave, one cluster each, waits for
/// an approval.
pub fn manual_policy() -> Value {
    json!({"strategy": "Manual", "maxConcurrent": 1})
}

/// The Manual fleet with revision 2 waiting: the fleet at 4.11.3 under
/// [`manual_policy`], then ingress-nginx 4.11.4 as revision 2, whose
/// rollout `fleet-2` is returned once wave 1 waits for approval.
pub async fn manual_fleet_waiting(mgmt: &Client, ns: &str) -> TemplateRollout {
    fleet_at_4_11_3(mgmt, ns, manual_policy()).await;
    fleet_template(mgmt, ns, "ingress-nginx-4-11-4", manual_policy()).await;
    rollout_when(
        mgmt,
        ns,
        "fleet-2",
        "wave 1 to wait for approval",
        STEP,
        |r| phase(r) == RolloutPhase::WaitingForApproval,
    )
    .await
}

/// The revisions (`status.targetRevision`) of the fleet's clusters, in
/// fleet order.
pub async fn targets(mgmt: &Client, ns: &str) -> Vec<Option<i64>> {
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), ns);
    let mut out = Vec::new();
    for (name, _) in FLEET {
        let st = mcs.get(name).await.ok().and_then(|m| m.status);
        out.push(st.and_then(|s| s.target_revision));
    }
    out
}

/// Has `engine` look at every cluster of [`FLEET`] again (see
/// [`RunningEngine::look_again`]).
pub async fn look_at_fleet(engine: &RunningEngine, ns: &str) {
    let names: Vec<&str> = FLEET.iter().map(|(name, _)| *name).collect();
    engine.look_again(ns, &names).await;
}

/// The chart (`ingress-nginx-4.11.4`) of the controller Deployment in a child.
pub async fn chart_in(child: &Client, ns: &str) -> Option<String> {
    chart_of(child, &format!("{ns}-ingress")).await
}

/// The chart of the ingress-nginx controller Deployment in namespace
/// `namespace` of a child.
pub async fn chart_of(child: &Client, namespace: &str) -> Option<String> {
    let d = super::cases::controller(child, namespace, "ingress-nginx").await?;
    d.metadata.labels?.get("helm.sh/chart").cloned()
}

pub async fn chart_is(child: &Client, ns: &str, chart: &str) -> Option<()> {
    (chart_in(child, ns).await.as_deref() == Some(chart)).then_some(())
}

/// The chart in every child, in fleet order.
pub async fn charts(ns: &str) -> Vec<Option<String>> {
    let mut out = Vec::new();
    for (_, i) in FLEET {
        out.push(chart_in(&child(i).await, ns).await);
    }
    out
}

pub fn some(charts: &[&str]) -> Vec<Option<String>> {
    charts.iter().map(|c| Some(c.to_string())).collect()
}

/// Waits until the rollout `name` is in `phase` (and `extra` holds).
pub async fn rollout_when(
    mgmt: &Client,
    ns: &str,
    name: &str,
    what: &str,
    timeout: Duration,
    check: impl Fn(&TemplateRollout) -> bool,
) -> TemplateRollout {
    let api: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), ns);
    eventually(what, timeout, || {
        let api = api.clone();
        let check = &check;
        async move {
            let r = api.get_opt(name).await.ok()??;
            check(&r).then_some(r)
        }
    })
    .await
}

/// Waits until the rollout `name` is in phase `want`.
pub async fn in_phase(
    mgmt: &Client,
    ns: &str,
    rollout: &str,
    want: RolloutPhase,
) -> TemplateRollout {
    let what = format!("{rollout} to be {want}");
    rollout_when(mgmt, ns, rollout, &what, STEP, |r| phase(r) == want).await
}

pub fn phase(r: &TemplateRollout) -> RolloutPhase {
    r.status.as_ref().map(|s| s.phase).unwrap_or_default()
}

/// Asks for `request` the way the book's `kubectl annotate` does (docs/src/concepts/rollouts.md).
pub async fn request(mgmt: &Client, ns: &str, rollout: &str, request: &str, by: &str) {
    let api: Api<TemplateRollout> = Api::namespaced(mgmt.clone(), ns);
    let patch = json!({"metadata": {"annotations": {
        "hmc.mirantis.com/request": request,
        "hmc.mirantis.com/requested-by": by,
    }}});
    api.patch(rollout, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("annotate the rollout");
}

/// Reasons of the Events recorded on an object.
pub async fn event_notes(mgmt: &Client, ns: &str, object: &str) -> Vec<String> {
    let api: Api<k8s_openapi::api::events::v1::Event> = Api::namespaced(mgmt.clone(), ns);
    api.list(&Default::default())
        .await
        .map(|l| l.items)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(object))
        .map(|e| {
            format!(
                "{}: {}",
                e.reason.unwrap_or_default(),
                e.note.unwrap_or_default()
            )
        })
        .collect()
}

/// Removes what the fleet put into the child clusters.
pub async fn drop_fleet_namespaces(ns: &str) {
    for (_, i) in FLEET {
        let child = child(i).await;
        super::cases::drop_child_namespace(&child, &format!("{ns}-ingress")).await;
        super::cases::drop_child_namespace(&child, &format!("{ns}-late")).await;
    }
}

/// Deletes the fleet's clusters while the engine runs, so their services
/// leave the child clusters, then removes the namespaces in the children.
pub async fn teardown_fleet(mgmt: &Client, ns: &str) {
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), ns);
    let _ = mcs
        .delete_collection(&Default::default(), &Default::default())
        .await;
    eventually("the fleet to be deleted", INSTALL, || async {
        let left = mcs.list(&Default::default()).await.ok()?.items.len();
        (left == 0).then_some(())
    })
    .await;
    drop_fleet_namespaces(ns).await;
}
