//! Reading a Cluster through each version of the API.

use serde_json::{Value, json};

use super::examples::{AT, Point, served};
use super::*;

fn types(conditions: &[CapiCondition]) -> Vec<&str> {
    conditions.iter().map(|c| c.type_.as_str()).collect()
}

#[test]
fn both_versions_of_a_cluster_read_the_same() {
    for point in Point::ALL {
        let (new, old) = (
            served(Version::V1Beta2, point),
            served(Version::V1Beta1, point),
        );
        assert_eq!(new.read_as(), Version::V1Beta2);
        assert_eq!(old.read_as(), Version::V1Beta1);
        for c in [&new, &old] {
            let version = c.read_as();
            assert_eq!(
                c.control_plane_initialized(),
                point.initialized(),
                "{point:?} {version}"
            );
            assert_eq!(c.phase(), point.phase(), "{point:?} {version}");
            assert_eq!(
                c.deleting(),
                matches!(point, Point::Deleting),
                "{point:?} {version}"
            );
            assert_eq!(c.helm_release(), (Some("dev-1"), Some("team-a")));
            assert_eq!(c.spec.paused, Some(false));
        }
        // Each version's conditions where that version keeps them.
        assert_eq!(types(new.conditions()), types(old.conditions()));
        assert_eq!(types(new.conditions())[0], "Available");
        assert_eq!(
            types(new.v1beta1_conditions()),
            types(old.v1beta1_conditions())
        );
        assert_eq!(types(old.v1beta1_conditions())[0], "Ready");
    }
}

#[test]
fn a_cluster_without_status_is_pending_and_not_initialized() {
    for version in [Version::V1Beta1, Version::V1Beta2] {
        let c = Cluster::new("dev-1", version);
        assert_eq!(c.read_as(), version);
        assert_eq!(c.phase(), "Pending");
        assert!(!c.control_plane_initialized());
        assert!(!c.deleting());
        assert!(c.conditions().is_empty() && c.v1beta1_conditions().is_empty());
        // As the API server sends it: with its apiVersion and kind.
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["apiVersion"], version.api_version());
        assert_eq!(json["kind"], "Cluster");
    }
    // A Cluster that names no version it knows reads as the current one.
    let unnamed: Cluster = serde_json::from_value(json!({"metadata": {"name": "x"}})).unwrap();
    assert_eq!(unnamed.read_as(), Version::V1Beta2);
}

fn with_status(version: Version, status: Value) -> Cluster {
    let mut c = Cluster::new("c", version);
    c.status = Some(serde_json::from_value(status).unwrap());
    c
}

#[test]
fn each_version_is_read_by_its_own_fields() {
    let initialized = |version, status| with_status(version, status).control_plane_initialized();
    // Each version's field.
    assert!(initialized(
        Version::V1Beta2,
        json!({"initialization": {"controlPlaneInitialized": true}})
    ));
    assert!(initialized(
        Version::V1Beta1,
        json!({"controlPlaneReady": true})
    ));
    // The other version's field means nothing there.
    assert!(!initialized(
        Version::V1Beta2,
        json!({"controlPlaneReady": true})
    ));
    assert!(!initialized(
        Version::V1Beta1,
        json!({"initialization": {"controlPlaneInitialized": true}})
    ));
    // The condition, in each version's own conditions or the other's.
    let condition = |status| json!([{"type": "ControlPlaneInitialized", "status": status}]);
    for version in [Version::V1Beta1, Version::V1Beta2] {
        assert!(initialized(
            version,
            json!({"conditions": condition("True")})
        ));
        assert!(!initialized(
            version,
            json!({"conditions": condition("False")})
        ));
    }
    assert!(initialized(
        Version::V1Beta1,
        json!({"v1beta2": {"conditions": condition("True")}})
    ));
    assert!(initialized(
        Version::V1Beta2,
        json!({"deprecated": {"v1beta1": {"conditions": condition("True")}}})
    ));
    // A deletion timestamp alone says it is being deleted.
    let mut c = Cluster::new("c", Version::V1Beta2);
    c.metadata.deletion_timestamp = Some(serde_json::from_value(json!(AT)).unwrap());
    assert!(c.deleting());
}

#[test]
fn the_helm_release_is_read_from_helms_annotations() {
    let mut c = Cluster::new("c", Version::default());
    assert_eq!(c.helm_release(), (None, None));
    c.metadata.annotations = Some(
        [
            (HELM_RELEASE_NAME.to_string(), "c".to_string()),
            ("other".to_string(), "x".to_string()),
        ]
        .into(),
    );
    assert_eq!(c.helm_release(), (Some("c"), None));
    c.metadata
        .annotations
        .as_mut()
        .unwrap()
        .insert(HELM_RELEASE_NAMESPACE.into(), "team-a".into());
    assert_eq!(c.helm_release(), (Some("c"), Some("team-a")));
}

/// The Api of each version asks for that version's path.
#[test]
fn the_api_reads_the_version_it_is_given() {
    use kube::Resource;
    assert_eq!(
        Cluster::url_path(&Version::V1Beta2, Some("team-a")),
        "/apis/cluster.x-k8s.io/v1beta2/namespaces/team-a/clusters"
    );
    assert_eq!(
        Cluster::url_path(&Version::V1Beta1, None),
        "/apis/cluster.x-k8s.io/v1beta1/clusters"
    );
    assert_eq!(Cluster::kind(&Version::V1Beta1), "Cluster");
}
