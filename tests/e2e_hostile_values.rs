//! Hostile `values` against the real headless engine: an alias bomb and a
//! text just over the byte limit block only their own service, the engine
//! stays up and small, and a sound cluster next to them gets its service.
//! Oversize ASCII text never gets past the API server.

mod common;

use std::time::Duration;

use common::cases::*;
use common::headless::*;
use common::*;
use hmc_tui::api::{ManagedCluster, ServiceState};
use hmc_tui::plan::yaml::{Limits, MAX_VALUES_BYTES, group};
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use serde_json::json;

const PORT: u16 = 17587;
/// The engine's peak resident memory must stay below this.
const MAX_RSS_KIB: u64 = 200 * 1024;

/// About 50 KB: an anchor of 10,000 items referenced 10,000 times, 100
/// million nodes once expanded.
fn alias_bomb() -> String {
    format!(
        "a: &a [{}]\nb: [{}]\n",
        vec!["x"; 10_000].join(","),
        vec!["*a"; 10_000].join(",")
    )
}

/// Over the byte limit, within the CRD's limit in characters: a comment of
/// two-byte characters.
fn wide_text() -> String {
    format!("a: 1\n# {}\n", "é".repeat(70_000))
}

/// The engine's peak resident set (VmHWM), in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The message of a service refused for its values, once it is reported.
async fn refused(mcs: &Api<ManagedCluster>, cluster: &str) -> String {
    eventually(
        &format!("{cluster}'s values to be refused"),
        INSTALL,
        || async {
            service_state(mcs, cluster, "ingress-nginx")
                .await
                .filter(|(s, _)| *s == ServiceState::Failed)
                .map(|(_, m)| m)
        },
    )
    .await
}

/// JSON pointers (and values) of every `maxLength` in `value`.
fn max_lengths(value: &serde_json::Value, at: &str, out: &mut Vec<(String, serde_json::Value)>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(limit) = map.get("maxLength") {
                out.push((format!("{at}/maxLength"), limit.clone()));
            }
            for (key, child) in map {
                let key = key.replace('~', "~0").replace('/', "~1");
                max_lengths(child, &format!("{at}/{key}"), out);
            }
        }
        serde_json::Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                max_lengths(child, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The management cluster's CRDs carry every `maxLength` this build's CRDs
/// have. A test never changes the shared CRDs: `harness up` applies those
/// of the checkout, so an older set is a harness to bring up again.
async fn crds_carry_the_values_limit(mgmt: &kube::Client) {
    use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
    let crds: Api<CustomResourceDefinition> = Api::all(mgmt.clone());
    for crd in hmc_tui::api::all_crds() {
        let name = crd.metadata.name.clone().unwrap();
        let mut wanted = Vec::new();
        max_lengths(&serde_json::to_value(&crd).unwrap(), "", &mut wanted);
        let live = serde_json::to_value(crds.get(&name).await.unwrap()).unwrap();
        let missing: Vec<&String> = wanted
            .iter()
            .filter(|(path, limit)| live.pointer(path) != Some(limit))
            .map(|(path, _)| path)
            .collect();
        assert!(
            missing.is_empty(),
            "CRD {name} on the harness lacks {missing:?}: run tests/harness/harness up to apply this checkout's CRDs"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_values_cost_only_their_own_service() {
    let mgmt = mgmt().await;
    let child1 = child(1).await;
    let ns = TestNamespace::create(&mgmt, "hostile").await;
    let mut engine = Headless::spawn(&ns.name, PORT);
    let pid = engine.child.id().expect("the engine runs");
    templates(&mgmt, &ns.name).await;

    // Admission: ASCII text over the limit is refused by the API server.
    crds_carry_the_values_limit(&mgmt).await;
    let mc_ar = ar(
        "hmc.mirantis.com",
        "v1alpha1",
        "ManagedCluster",
        "managedclusters",
    );
    let dynamic: Api<DynamicObject> = Api::namespaced_with(mgmt.clone(), &ns.name, &mc_ar);
    let too_long = format!("a: 1\n#{}\n", "x".repeat(MAX_VALUES_BYTES));
    let too_long = json!({
        "apiVersion": "hmc.mirantis.com/v1alpha1", "kind": "ManagedCluster",
        "metadata": {"name": "too-long"},
        "spec": {"template": "demo", "services": [
            {"name": "ingress-nginx", "values": too_long},
        ]},
    });
    // A CRD patched just now takes a moment to be in force.
    let err = eventually(
        "values over maxLength to be refused at admission",
        Duration::from_secs(30),
        || async {
            let apply = PatchParams::apply("hmc-e2e").force();
            match dynamic
                .patch("too-long", &apply, &Patch::Apply(&too_long))
                .await
            {
                Ok(_) => {
                    let _ = dynamic.delete("too-long", &Default::default()).await;
                    None
                }
                Err(e) => Some(e.to_string()),
            }
        },
    )
    .await;
    assert!(
        err.contains("spec.services[0].values")
            && err.contains("Too long")
            && err.contains(&MAX_VALUES_BYTES.to_string()),
        "the refusal names the field and the length: {err}"
    );
    eventually("no ManagedCluster too-long", INSTALL, || async {
        dynamic
            .get_opt("too-long")
            .await
            .ok()?
            .is_none()
            .then_some(())
    })
    .await;

    // (a) the alias bomb, (b) just over the byte limit, (c) sound.
    let bomb = alias_bomb();
    assert!(bomb.len() > 45_000 && bomb.len() < 55_000, "{}", bomb.len());
    let wide = wide_text();
    assert!(wide.len() > Limits::VALUES.bytes);
    assert!(wide.chars().count() < MAX_VALUES_BYTES);
    for (name, values) in [("bomb", &bomb), ("wide", &wide)] {
        let services = json!([{"name": "ingress-nginx", "values": values}]);
        managed_cluster(&mgmt, &ns.name, name, services).await;
    }
    managed_cluster(&mgmt, &ns.name, "sound", json!([])).await;
    for name in ["bomb", "wide", "sound"] {
        provision(&ns.name, name, 1).await;
    }

    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    assert_eq!(
        refused(&mcs, "bomb").await,
        "values of service ingress-nginx in this cluster are too large: more than 100,000 nodes after expanding aliases"
    );
    assert_eq!(
        refused(&mcs, "wide").await,
        format!(
            "values of service ingress-nginx in this cluster are too large: {} bytes, more than the limit of 131,072",
            group(wide.len())
        )
    );

    let child_ns = format!("{}-ingress", ns.name);
    eventually("the sound cluster's service in its child", INSTALL, || {
        available_replicas(&child1, &child_ns)
    })
    .await;
    eventually(
        "the sound cluster's service to be Installed",
        INSTALL,
        || async {
            service_state(&mcs, "sound", "ingress-nginx")
                .await
                .filter(|(s, _)| *s == ServiceState::Installed)
        },
    )
    .await;

    // Each hostile cluster's values once more (a comment added, the same
    // bomb, the same excess): once the engine has taken in that change
    // (`observedGeneration`), it is still the same process, and small.
    for (name, values) in [("bomb", &bomb), ("wide", &wide)] {
        let again = format!("{values}# again\n");
        let services = json!([{"name": "ingress-nginx", "values": again}]);
        managed_cluster(&mgmt, &ns.name, name, services).await;
    }
    for name in ["bomb", "wide"] {
        eventually(
            &format!("the engine to read {name}'s new values"),
            INSTALL,
            || async {
                let mc = mcs.get_opt(name).await.ok()??;
                let seen = mc.status?.observed_generation;
                (seen.is_some() && seen == mc.metadata.generation).then_some(())
            },
        )
        .await;
    }
    assert!(
        engine.child.try_wait().unwrap().is_none(),
        "the engine is still running; its log: {}",
        engine.log_text()
    );
    let peak = peak_rss_kib(pid).expect("the engine's VmHWM");
    eprintln!("engine peak RSS: {} KiB", group(peak as usize));
    assert!(
        peak < MAX_RSS_KIB,
        "peak RSS {peak} KiB, more than {MAX_RSS_KIB}"
    );
    assert!(!engine.log_text().contains("memory allocation"));
    for cluster in ["bomb", "wide"] {
        let (state, _) = service_state(&mcs, cluster, "ingress-nginx").await.unwrap();
        assert_eq!(state, ServiceState::Failed, "{cluster} stays refused");
    }

    for name in ["bomb", "wide", "sound"] {
        mcs.delete(name, &Default::default()).await.unwrap();
    }
    for name in ["bomb", "wide", "sound"] {
        eventually("cleanup", INSTALL, || async {
            mcs.get_opt(name).await.ok()?.is_none().then_some(())
        })
        .await;
    }
    let (status, _) = engine.terminate().await;
    assert!(status.success(), "exit status {status}");
    drop_child_namespace(&child1, &child_ns).await;
    ns.cleanup().await;
}
