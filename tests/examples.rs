//! Every example in `assets/examples/` reads as our types: a field renamed
//! in the Rust types cannot silently leave the examples behind.

use std::path::Path;

use hmc_tui::api::{ClusterTemplate, ManagedCluster, ServiceTemplate};
use serde::Deserialize;

fn check(path: &Path, seen: &mut Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let value = serde_yaml::Value::deserialize(doc).unwrap();
        let kind = value["kind"].as_str().unwrap_or_default().to_string();
        let what = format!("{} in {}", kind, path.display());
        let original: serde_json::Value = serde_yaml::from_value(value.clone()).unwrap();
        let typed = match kind.as_str() {
            "ServiceTemplate" => round_trip::<ServiceTemplate>(value),
            "ClusterTemplate" => round_trip::<ClusterTemplate>(value),
            "ManagedCluster" => round_trip::<ManagedCluster>(value),
            _ => continue,
        }
        .unwrap_or_else(|e| panic!("{what}: {e}"));
        // Unknown fields would be dropped silently: every field the example
        // sets must survive the trip through the types.
        assert!(
            subset(&typed["spec"], &original["spec"]),
            "{what}: a field is not in the types\nexample: {}\ntypes: {}",
            original["spec"],
            typed["spec"]
        );
        seen.push(kind);
    }
}

/// Every field of `want` is in `have` with the same value; lists compare
/// element by element.
fn subset(have: &serde_json::Value, want: &serde_json::Value) -> bool {
    use serde_json::Value::{Array, Object};
    match (have, want) {
        (Object(h), Object(w)) => w
            .iter()
            .all(|(k, wv)| h.get(k).is_some_and(|hv| subset(hv, wv))),
        (Array(h), Array(w)) => h.len() == w.len() && h.iter().zip(w).all(|(a, b)| subset(a, b)),
        _ => have == want,
    }
}

fn round_trip<K: serde::de::DeserializeOwned + serde::Serialize>(
    value: serde_yaml::Value,
) -> Result<serde_json::Value, serde_yaml::Error> {
    let typed: K = serde_yaml::from_value(value)?;
    Ok(serde_json::to_value(typed).unwrap())
}

#[test]
fn examples_read_as_our_types() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples");
    let mut seen = Vec::new();
    for dir in [
        root.clone(),
        root.join("local"),
        root.join("capd"),
        root.join("hmc"),
    ] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "yaml") {
                check(&path, &mut seen);
            }
        }
    }
    for kind in ["ServiceTemplate", "ClusterTemplate", "ManagedCluster"] {
        assert!(
            seen.iter().filter(|k| *k == kind).count() >= 2,
            "{kind} appears in both example sets: {seen:?}"
        );
    }
}

/// The hmc set names no repository: its charts come from the default one.
#[test]
fn hmc_templates_name_no_repository() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/hmc");
    let mut templates = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let value = serde_yaml::Value::deserialize(doc).unwrap();
            if matches!(
                value["kind"].as_str(),
                Some("ServiceTemplate" | "ClusterTemplate")
            ) {
                let helm = &value["spec"]["helm"];
                assert!(helm["chartName"].is_string() && helm["chartVersion"].is_string());
                assert!(helm.get("repository").is_none() && helm.get("chartRef").is_none());
                templates += 1;
            }
        }
    }
    assert_eq!(templates, 2);
}
