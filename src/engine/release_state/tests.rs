use super::*;
use crate::api::names::service_release_name;
use crate::flux::LocalRef;
use crate::plan::releases::tests::{mc, svc};
use crate::plan::releases::{ReleaseOptions, carry_installs_as, service_release};
use crate::plan::services::DesiredService;
use serde_json::json;

#[test]
fn observe_reads_flux_status_in_our_words() {
    let mut rel = service_release(
        "dev-1.ingress-nginx".into(),
        &mc(),
        &svc(),
        LocalRef::default(),
        Some(1),
        ReleaseOptions::DEFAULT,
    );
    rel.metadata.generation = Some(2);
    let set = |rel: &mut HelmRelease, s: serde_json::Value| {
        rel.status = Some(serde_json::from_value(s).unwrap())
    };
    set(
        &mut rel,
        json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "True"}],
                          "history": [{"chartVersion": "4.11.3", "status": "deployed"}]}),
    );
    let o = observe(&rel, false);
    assert_eq!(
        (o.state, o.version.as_deref(), o.revision),
        (ServiceState::Installed, Some("4.11.3"), Some(1))
    );
    assert_eq!(observe(&rel, true).state, ServiceState::Installing);
    set(
        &mut rel,
        json!({"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True"}]}),
    );
    assert_eq!(
        observe(&rel, false).state,
        ServiceState::Installing,
        "an old generation is not installed"
    );
    // Until Flux picks a changed release up, the reconcile that wrote it
    // and every later one say the same: a status that flips wording is
    // a write for nothing.
    assert_eq!(observe(&rel, false), observe(&rel, true));
    assert_eq!(
        observe(&rel, false).message.as_deref(),
        Some("applying the new configuration")
    );
    let mut fresh = rel.clone();
    fresh.status = None;
    assert_eq!(observe(&fresh, false), observe(&fresh, true));
    assert_eq!(
        observe(&fresh, false).message.as_deref(),
        Some("installing")
    );
    set(
        &mut rel,
        json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "False",
        "reason": "InstallFailed",
        "message": "Helm install failed for release ingress/ingress-nginx with chart ingress-nginx@4.11.3: boom"}]}),
    );
    let o = observe(&rel, false);
    assert_eq!(o.state, ServiceState::Failed);
    assert_eq!(
        o.message.as_deref(),
        Some("install of ingress-nginx 4.11.3 failed: boom")
    );
    // Changes made by hand being reverted: installed all along.
    set(
        &mut rel,
        json!({"observedGeneration": 2, "conditions": [{"type": "Ready", "status": "Unknown",
        "reason": "Progressing", "message": "correcting cluster drift"}],
        "history": [{"chartVersion": "4.11.3", "status": "deployed"}]}),
    );
    let o = observe(&rel, false);
    assert_eq!(o.state, ServiceState::Installed);
    assert_eq!(o.message.as_deref(), Some(flux::words::REVERTING));
}

#[test]
fn a_change_of_settings_alone_installs_the_same() {
    let build = |interval: &str, values: serde_json::Value| {
        let options = ReleaseOptions {
            release_interval: interval,
            ..ReleaseOptions::DEFAULT
        };
        let d = DesiredService { values, ..svc() };
        service_release("r".into(), &mc(), &d, LocalRef::default(), Some(1), options)
    };
    let values = json!({"controller": {"replicaCount": 2}});
    // Installed by an engine without drift correction, at generation 4.
    let mut old = build("10m", values.clone());
    old.spec.drift_detection = None;
    old.metadata.generation = Some(4);
    old.status = Some(
        serde_json::from_value(json!({"observedGeneration": 4,
            "conditions": [{"type": "Ready", "status": "True"}]}))
        .unwrap(),
    );
    let mut new = build("30s", values.clone());
    assert!(carry_installs_as(&mut new, Some(&old)));
    assert_eq!(new.annotations()[INSTALLS_AS_GENERATION], "4");
    // Once written (generation 5) and not yet looked at by the release
    // controller, its status of generation 4 still holds.
    let mut written = new.clone();
    written.metadata.generation = Some(5);
    written.status = old.status.clone();
    assert_eq!(observe(&written, false).state, ServiceState::Installed);
    // The next reconcile keeps the mark, so writes nothing.
    let mut again = build("30s", values.clone());
    assert!(carry_installs_as(&mut again, Some(&written)));
    assert_eq!(again.annotations()[INSTALLS_AS_GENERATION], "4");
    // Nothing changed at all: no mark.
    let mut same = build("10m", values.clone());
    same.spec.drift_detection = None;
    assert!(!carry_installs_as(&mut same, Some(&old)));
    // Other values, another revision or a new release: installed anew.
    let mut other = build("30s", json!({"controller": {"replicaCount": 3}}));
    assert!(!carry_installs_as(&mut other, Some(&written)));
    assert!(!other.annotations().contains_key(INSTALLS_AS_GENERATION));
    let mut next_revision = service_release(
        "r".into(),
        &mc(),
        &DesiredService {
            values: values.clone(),
            ..svc()
        },
        LocalRef::default(),
        Some(2),
        ReleaseOptions::DEFAULT,
    );
    assert!(!carry_installs_as(&mut next_revision, Some(&old)));
    assert!(!carry_installs_as(&mut build("30s", values), None));
    // Without the mark, a status of an older generation does not hold.
    let mut unmarked = written.clone();
    unmarked.annotations_mut().remove(INSTALLS_AS_GENERATION);
    assert_eq!(observe(&unmarked, false).state, ServiceState::Installing);
}

/// A release of the cluster `dev-1` for `service`, installed by Helm
/// as `service` into namespace `ns`.
fn sibling(service: &str, ns: &str) -> std::sync::Arc<HelmRelease> {
    let d = DesiredService {
        name: service.into(),
        namespace: ns.into(),
        ..svc()
    };
    let name = service_release_name("dev-1", service);
    let mut r = service_release(
        name,
        &mc(),
        &d,
        LocalRef::default(),
        None,
        ReleaseOptions::DEFAULT,
    );
    r.metadata.generation = Some(1);
    std::sync::Arc::new(r)
}

fn with_status(r: &HelmRelease, status: serde_json::Value) -> HelmRelease {
    let mut r = r.clone();
    r.status = Some(serde_json::from_value(status).unwrap());
    r
}

#[test]
fn a_refused_object_is_named_and_another_services_is_a_conflict() {
    let a = sibling("ingress-a", "team-a");
    let b = sibling("ingress-b", "team-b");
    let all = [a.clone(), b.clone()];
    let refused = |holder: &str| {
        format!(
            "Helm install failed for release team-b/ingress-b with chart ingress-nginx@4.11.3: \
             Unable to continue with install: IngressClass \"nginx\" in namespace \"\" exists \
             and cannot be imported into the current release: invalid ownership metadata; \
             {holder}"
        )
    };
    let of_a = refused(
        "annotation validation error: key \"meta.helm.sh/release-name\" must equal \
         \"ingress-b\": current value is \"ingress-a\"; annotation validation error: key \
         \"meta.helm.sh/release-namespace\" must equal \"team-b\": current value is \"team-a\"",
    );
    let failed = |message: &str| {
        with_status(
            &b,
            json!({"observedGeneration": -1, "conditions": [
                {"type": "Ready", "status": "False", "reason": "InstallFailed",
                 "message": message, "observedGeneration": 1},
                {"type": "Released", "status": "False", "reason": "InstallFailed",
                 "message": message, "observedGeneration": 1}]}),
        )
    };
    let rel = failed(&of_a);
    let o = with_ownership(observe(&rel, false), &rel, &all, false, false);
    assert_eq!(o.state, ServiceState::Failed);
    assert_eq!(
        o.message.as_deref(),
        Some(
            "conflicts with service ingress-a: both install IngressClass nginx, which \
             ingress-a installed first; change the values of one of them"
        )
    );
    // Taking over is for objects of nobody's: the words stay, whatever
    // the cluster allows (the release asked not to take it over then).
    assert_eq!(
        with_ownership(observe(&rel, false), &rel, &all, true, false),
        o
    );
    // A release that is not a service of this cluster is named as such.
    let o = with_ownership(
        observe(&rel, false),
        &rel,
        std::slice::from_ref(&b),
        false,
        false,
    );
    assert_eq!(
        o.message.as_deref(),
        Some(
            "IngressClass nginx already exists in the cluster and belongs to Helm release \
             ingress-a in namespace team-a, not to a service of this cluster; remove it, or \
             set takeOwnership: true on the service to take it over"
        )
    );
    // While the next attempt runs, the service keeps saying why.
    let retrying = with_status(
        &b,
        json!({"observedGeneration": -1, "conditions": [
            {"type": "Ready", "status": "Unknown", "reason": "Progressing",
             "message": "Running 'install' action with timeout of 5m0s", "observedGeneration": 1},
            {"type": "Released", "status": "False", "reason": "InstallFailed",
             "message": of_a, "observedGeneration": 1}]}),
    );
    let plain = observe(&retrying, false);
    assert_eq!(plain.state, ServiceState::Installing);
    assert_eq!(
        with_ownership(plain.clone(), &retrying, &all, false, false),
        o_with(&rel, &all)
    );
    // ... but not once the engine changed the release since.
    assert_eq!(
        with_ownership(plain.clone(), &retrying, &all, false, true),
        plain
    );
    // Any other failure is left as it is.
    let other = failed("Helm install failed for release team-b/ingress-b with chart x@1: boom");
    let o = observe(&other, false);
    assert_eq!(with_ownership(o.clone(), &other, &all, false, false), o);
}

fn o_with(rel: &HelmRelease, all: &[std::sync::Arc<HelmRelease>]) -> Observed {
    with_ownership(observe(rel, false), rel, all, false, false)
}

#[test]
fn a_release_there_before_the_service_is_said_taken_over() {
    let mut rel = (*sibling("web", "team-web")).clone();
    rel.metadata.creation_timestamp = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
        "2026-12-04T16:07:00Z".parse().unwrap(),
    ));
    // As the release controller leaves it after upgrading a release it
    // did not install.
    let upgraded = |first: &str| {
        with_status(
            &rel,
            json!({"observedGeneration": 1, "conditions": [
                {"type": "Ready", "status": "True", "reason": "UpgradeSucceeded",
                 "message": "Helm upgrade succeeded for release team-web/web.v2 with chart ingress-nginx@4.11.3"}],
                "history": [{"name": "web", "namespace": "team-web", "version": 2,
                             "chartName": "ingress-nginx", "chartVersion": "4.11.3",
                             "status": "deployed", "firstDeployed": first,
                             "lastDeployed": "2026-12-04T16:07:02Z"}]}),
        )
    };
    let before = upgraded("2026-12-04T16:06:46Z");
    let o = with_ownership(observe(&before, false), &before, &[], false, false);
    assert_eq!(o.state, ServiceState::Failed);
    assert_eq!(
        o.message.as_deref(),
        Some(
            "release web was already in namespace team-web of the cluster (installed \
             2026-12-04 16:06:46 UTC, before this service) and the service took it over \
             (now revision 2): removing the service uninstalls it; set takeOwnership: true \
             on the service to accept that"
        )
    );
    assert_eq!(o.version.as_deref(), Some("4.11.3"));
    // The cluster accepts it: installed, as the release says.
    let accepted = with_ownership(observe(&before, false), &before, &[], true, false);
    assert_eq!(accepted, observe(&before, false));
    assert_eq!(accepted.state, ServiceState::Installed);
    // Installed by the service's own release, or within the clocks'
    // difference of its creation: its own.
    for first in ["2026-12-04T16:07:01Z", "2026-12-04T16:06:55Z", "not a time"] {
        let own = upgraded(first);
        assert_eq!(
            with_ownership(observe(&own, false), &own, &[], false, false),
            observe(&own, false),
            "{first}"
        );
    }
    // Being removed: it says so.
    let mut removing = before.clone();
    removing.metadata.deletion_timestamp = rel.metadata.creation_timestamp.clone();
    let o = with_ownership(observe(&removing, false), &removing, &[], false, false);
    assert_eq!(o.state, ServiceState::Removing);
}
