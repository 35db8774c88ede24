//! Namespace claims cannot be forged or kept forever: a claim with a term
//! of decades keeps the cluster-wide engine out of its namespace for the
//! capped term only, and under the chart's lease policy no one but the
//! engine account named for a namespace may write its claim, and an engine
//! account may write no Lease but its own.

mod common;

use std::time::{Duration, Instant};

use common::accounts::service_account_kubeconfig;
use common::cases::*;
use common::headless::*;
use common::*;
use hmc_tui::flux::HelmRelease;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::json;

/// The term of the engine's own lease here; a claim counts 4 of them at
/// most, plus 2 s for clock skew.
const TERM: &str = "5";
const CAP: Duration = Duration::from_secs(20);

fn claim(name: &str, holder: &str, renewed: Timestamp) -> Lease {
    Lease {
        metadata: kube::api::ObjectMeta {
            name: Some(name.to_string()),
            ..Default::default()
        },
        spec: Some(LeaseSpec {
            holder_identity: Some(holder.to_string()),
            lease_duration_seconds: Some(i32::MAX),
            acquire_time: Some(MicroTime(renewed)),
            renew_time: Some(MicroTime(renewed)),
            ..Default::default()
        }),
    }
}

async fn has_release(mgmt: &kube::Client, ns: &str, name: &str) -> bool {
    let api: Api<HelmRelease> = Api::namespaced(mgmt.clone(), ns);
    matches!(api.get_opt(name).await, Ok(Some(_)))
}

/// ServiceAccount `name` of `leases`: reads everything, writes only in
/// `writes` (so that this cluster-wide engine leaves other tests alone).
async fn grant(mgmt: &kube::Client, leases: &str, name: &str, writes: &[&str]) {
    let mut yaml = format!(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {name}\n  namespace: {leases}\n\
         ---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: {name}\n\
         rules:\n  - apiGroups: [\"*\"]\n    resources: [\"*\"]\n    verbs: [get, list, watch]\n\
         ---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: {name}\n\
         roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: {name}\n\
         subjects:\n  - kind: ServiceAccount\n    name: {name}\n    namespace: {leases}\n"
    );
    for ns in writes {
        yaml.push_str(&format!(
            "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: {name}\n  namespace: {ns}\n\
             roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\n\
             subjects:\n  - kind: ServiceAccount\n    name: {name}\n    namespace: {leases}\n"
        ));
    }
    apply_yaml(mgmt, leases, &yaml).await;
}

/// The chart's lease policy, ServiceAccount and lease RBAC for release
/// `release` in `leases`, with `set`, applied as the chart renders them.
async fn apply_lease_objects(mgmt: &kube::Client, release: &str, leases: &str, set: &[&str]) {
    let lease_ns = format!("lease.namespace={leases}");
    let mut all = vec![lease_ns.as_str(), "crds.install=false"];
    all.extend_from_slice(set);
    for object in helm::template(release, leases, &all) {
        let kind = object["kind"].as_str().unwrap_or_default();
        let name = object["metadata"]["name"].as_str().unwrap_or_default();
        let wanted = match kind {
            "ValidatingAdmissionPolicy" | "ValidatingAdmissionPolicyBinding" => {
                name.ends_with("-leases")
            }
            "Role" | "RoleBinding" => name.ends_with("-lease"),
            "ServiceAccount" => true,
            _ => false,
        };
        if wanted {
            apply_yaml(mgmt, leases, &serde_yaml::to_string(&object).unwrap()).await;
        }
    }
}

/// Creates Lease `name` through `api`: the words of the refusal, or `None`
/// when it was made.
async fn create(api: &Api<Lease>, name: &str) -> Option<String> {
    refusal(
        api.create(
            &PostParams::default(),
            &claim(name, "engine", Timestamp::now()),
        )
        .await,
    )
}

/// The words of a refused request, or `None` when it was allowed.
fn refusal<T>(result: kube::Result<T>) -> Option<String> {
    match result {
        Ok(_) => None,
        Err(kube::Error::Api(e)) => Some(e.message),
        Err(e) => Some(e.to_string()),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forged_claims_lapse_and_only_the_named_engine_may_claim() {
    let mgmt = mgmt().await;
    let leases_ns = TestNamespace::create(&mgmt, "claims-leases").await;
    let x = TestNamespace::create(&mgmt, "claims-x").await;
    let y = TestNamespace::create(&mgmt, "claims-y").await;
    let leases_name = leases_ns.name.clone();
    let leases: Api<Lease> = Api::namespaced(mgmt.clone(), &leases_name);
    templates(&mgmt, &x.name).await;
    templates(&mgmt, &y.name).await;

    // Other tests' cluster-wide engines (their Lease in kube-system) leave
    // x and y alone while this test holds their claims there, renewed.
    let keep_out = {
        let kube_system: Api<Lease> = Api::namespaced(mgmt.clone(), "kube-system");
        let names: Vec<String> = [&x.name, &y.name]
            .iter()
            .map(|ns| hmc_tui::engine::claims::lease_name(Some(ns)))
            .collect();
        tokio::spawn(async move {
            loop {
                for name in &names {
                    let _ = kube_system
                        .create(
                            &PostParams::default(),
                            &claim(name, "e2e-lease-claims", Timestamp::now()),
                        )
                        .await;
                    let renew = json!({"spec": {"renewTime": MicroTime(Timestamp::now()), "leaseDurationSeconds": 30}});
                    let _ = kube_system
                        .patch(name, &PatchParams::default(), &Patch::Merge(&renew))
                        .await;
                }
                tokio::time::sleep(Duration::from_secs(5)).await;
            }
        })
    };

    // The cluster-wide engine, as an account that may write in x, y and
    // the lease namespace only.
    let cluster_release = leases_name.clone();
    let engine_account = format!("{cluster_release}-hmc-tui");
    grant(
        &mgmt,
        &leases_name,
        &engine_account,
        &[&x.name, &y.name, &leases_name],
    )
    .await;
    let engine_kubeconfig = std::env::temp_dir().join(format!("{engine_account}.kubeconfig"));
    service_account_kubeconfig(&mgmt, &leases_name, &engine_account, &engine_kubeconfig).await;
    // RBAC reaches the API server's authorizer a moment after it is
    // written: the engine starts once its account may read.
    let probe: Api<hmc_tui::api::ServiceTemplate> =
        Api::all(client_for(engine_kubeconfig.clone()).await);
    eventually(
        "the engine's account to be allowed to read",
        Duration::from_secs(30),
        || async { probe.list(&Default::default()).await.ok() },
    )
    .await;
    let engine = Headless::start(
        None,
        17551,
        &engine_kubeconfig,
        &leases_name,
        &[
            ("HMC_LEASE_DURATION", TERM),
            ("POD_NAME", "claims-engine"),
            // Says when it leaves a claimed namespace alone.
            (
                "RUST_LOG",
                "info,kube=warn,hmc_tui::engine::controllers=debug",
            ),
        ],
    );
    eventually(
        "the cluster-wide engine to lead",
        Duration::from_secs(60),
        || async { engine.is_leader().await?.then_some(()) },
    )
    .await;
    // A claim on x for decades, by someone who is no engine.
    let claim_x = hmc_tui::engine::claims::lease_name(Some(&x.name));
    let forged_at = Instant::now();
    leases
        .create(
            &PostParams::default(),
            &claim(&claim_x, "forger", Timestamp::now()),
        )
        .await
        .expect("the forged claim");

    managed_cluster(&mgmt, &x.name, "in-x", json!([])).await;
    managed_cluster(&mgmt, &y.name, "in-y", json!([])).await;

    // While the claim is young the engine serves y and leaves x alone.
    eventually(
        "the cluster in y to get its release",
        Duration::from_secs(60),
        || async { has_release(&mgmt, &y.name, "in-y").await.then_some(()) },
    )
    .await;
    let served_y = forged_at.elapsed();
    assert!(
        served_y < CAP,
        "y was served only {served_y:?} after the claim: the check below proves nothing"
    );
    assert!(
        !has_release(&mgmt, &x.name, "in-x").await,
        "x is left alone while its claim counts"
    );
    let left_alone = |log: &str| {
        log.lines()
            .any(|l| l.contains("left alone") && l.contains("\"in-x\"") && l.contains(&x.name))
    };
    assert!(
        left_alone(&engine.log_text()),
        "the engine says it leaves in-x alone:\n{}",
        engine.log_text()
    );
    // Once the capped term is over, x is the engine's again.
    eventually(
        "the cluster-wide engine to take x back",
        Duration::from_secs(90),
        || async { has_release(&mgmt, &x.name, "in-x").await.then_some(()) },
    )
    .await;
    let taken_back = forged_at.elapsed();
    eprintln!(
        "a claim of decades ignored {:.1} s after it was written",
        taken_back.as_secs_f64()
    );
    assert!(taken_back >= CAP, "{taken_back:?}");
    assert!(
        reporters(&mgmt, &x.name).await.contains("claims-engine"),
        "this engine wrote in x"
    );

    // The chart's lease policy, for this cluster-wide release (which names
    // one claimant, for x) and for x's namespace-scoped release.
    let scoped_release = x.name.clone();
    let scoped_account = format!("{scoped_release}-hmc-tui");
    let claimant = format!("lease.claimants[0].serviceAccount={leases_name}/{scoped_account}");
    let claimed = format!("lease.claimants[0].namespace={}", x.name);
    apply_lease_objects(
        &mgmt,
        &cluster_release,
        &leases_name,
        &[&claimant, &claimed],
    )
    .await;
    let watch_x = format!("watchNamespace={}", x.name);
    apply_lease_objects(&mgmt, &scoped_release, &leases_name, &[&watch_x]).await;
    let scoped_kubeconfig = std::env::temp_dir().join(format!("{scoped_account}.kubeconfig"));
    service_account_kubeconfig(&mgmt, &leases_name, &scoped_account, &scoped_kubeconfig).await;
    let as_scoped: Api<Lease> = Api::namespaced(client_for(scoped_kubeconfig).await, &leases_name);
    let as_engine: Api<Lease> = Api::namespaced(client_for(engine_kubeconfig).await, &leases_name);

    // A policy is in force a moment after it is written: the admin's
    // renewal of the forged claim is refused once it is.
    let renew = json!({"spec": {"renewTime": MicroTime(Timestamp::now())}});
    let refused = eventually(
        "the lease policy to refuse the forger",
        Duration::from_secs(30),
        || async {
            refusal(
                leases
                    .patch(&claim_x, &PatchParams::default(), &Patch::Merge(&renew))
                    .await,
            )
        },
    )
    .await;
    // Refused by a policy of the chart, not by RBAC.
    let by_policy = |refused: &str| refused.contains("-hmc-tui-leases");
    assert!(by_policy(&refused), "{refused}");

    let claim_y = hmc_tui::engine::claims::lease_name(Some(&y.name));
    let refused = create(&as_scoped, &claim_y)
        .await
        .expect("x's engine may not claim y");
    assert!(
        by_policy(&refused) && refused.contains(&claim_y),
        "{refused}"
    );
    let refused = create(&as_scoped, "hmc-tui-engine")
        .await
        .expect("x's engine may not make the cluster-wide engine's Lease");
    assert!(by_policy(&refused), "{refused}");
    let refused = create(&as_engine, &claim_y)
        .await
        .expect("the cluster-wide engine may not claim y");
    assert!(
        by_policy(&refused) && refused.contains("may write only its own Lease"),
        "{refused}"
    );
    // x's engine may claim x: an admin clears the forged claim first.
    leases
        .delete(&claim_x, &DeleteParams::default())
        .await
        .expect("an admin may delete a claim");
    assert_eq!(
        create(&as_scoped, &claim_x).await,
        None,
        "x's own engine may claim x"
    );

    // The engine takes its clusters' releases away before it stops.
    leases
        .delete(&claim_x, &DeleteParams::default())
        .await
        .expect("an admin may delete a claim");
    for ns in [&x, &y] {
        let mcs: Api<hmc_tui::api::ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
        let _ = mcs
            .delete_collection(&Default::default(), &Default::default())
            .await;
        eventually("the clusters deleted", Duration::from_secs(90), || async {
            mcs.list(&Default::default())
                .await
                .ok()?
                .items
                .is_empty()
                .then_some(())
        })
        .await;
    }
    let (status, _) = engine.terminate().await;
    keep_out.abort();
    let kube_system: Api<Lease> = Api::namespaced(mgmt.clone(), "kube-system");
    for ns in [&x.name, &y.name] {
        let _ = kube_system
            .delete(
                &hmc_tui::engine::claims::lease_name(Some(ns)),
                &DeleteParams::default(),
            )
            .await;
    }
    assert!(status.success(), "the cluster-wide engine exits cleanly");
    for name in [
        format!("{cluster_release}-hmc-tui-leases"),
        format!("{scoped_release}-hmc-tui-leases"),
    ] {
        for (kind, plural) in [
            (
                "ValidatingAdmissionPolicyBinding",
                "validatingadmissionpolicybindings",
            ),
            ("ValidatingAdmissionPolicy", "validatingadmissionpolicies"),
        ] {
            let api: Api<DynamicObject> = Api::all_with(
                mgmt.clone(),
                &ar("admissionregistration.k8s.io", "v1", kind, plural),
            );
            let _ = api.delete(&name, &DeleteParams::default()).await;
        }
    }
    let _ = Api::<ClusterRoleBinding>::all(mgmt.clone())
        .delete(&engine_account, &DeleteParams::default())
        .await;
    let _ = Api::<ClusterRole>::all(mgmt.clone())
        .delete(&engine_account, &DeleteParams::default())
        .await;
    for ns in [x, y, leases_ns] {
        ns.cleanup().await;
    }
}
