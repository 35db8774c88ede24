//! The vendored upstream ingress-nginx charts (no cluster): byte for byte
//! what `tests/fixtures/charts/upstream/NOTICE.md` says they are, and, where
//! the shared folder `../shared/charts/` exists beside the repository, the
//! same bytes as there.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Each archive with its SHA-256, as NOTICE.md lists them.
const CHARTS: [(&str, &str); 2] = [
    (
        "ingress-nginx-4.11.3.tgz",
        "c0833e28b98224443b22ee7e3e5e3e044ea84d640e623725b866d9a4249aa807",
    ),
    (
        "ingress-nginx-4.11.4.tgz",
        "f15dcdadffa293ba9968f3246165fb24e02200dbdab5f5bdd7bda0ca1900c51a",
    ),
];

fn vendored() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/charts/upstream")
}

fn sha256_of(path: &Path) -> String {
    let bytes =
        std::fs::read(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    hex::encode(Sha256::digest(&bytes))
}

#[test]
fn the_vendored_charts_are_the_ones_the_notice_names() {
    let notice = std::fs::read_to_string(vendored().join("NOTICE.md")).expect("NOTICE.md");
    for (file, digest) in CHARTS {
        assert_eq!(sha256_of(&vendored().join(file)), digest, "{file}");
        assert!(
            notice.contains(file) && notice.contains(digest),
            "NOTICE.md lists {file} with its digest"
        );
    }
    assert!(notice.contains("Apache License 2.0"));
}

#[test]
fn the_vendored_charts_match_the_shared_folder_where_it_exists() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/charts");
    if !shared.is_dir() {
        // A clean clone (CI): the vendored copies are all there is.
        return;
    }
    for (file, _) in CHARTS {
        let theirs = shared.join(file);
        if !theirs.exists() {
            continue;
        }
        assert_eq!(
            sha256_of(&vendored().join(file)),
            sha256_of(&theirs),
            "tests/fixtures/charts/upstream/{file} differs from {}",
            theirs.display()
        );
    }
}

/// The Chart.yaml inside each archive: the upstream chart, its name and
/// version, and the `kubeVersion` constraint the stand-in lacks.
#[test]
fn the_vendored_charts_are_upstream_ingress_nginx() {
    for (file, _) in CHARTS {
        let archive = std::fs::File::open(vendored().join(file)).expect("archive");
        let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(archive));
        let mut chart_yaml = None;
        let mut templates = 0;
        for entry in tar.entries().expect("a tar archive") {
            let mut entry = entry.expect("an entry");
            let path = entry.path().expect("a path").to_string_lossy().into_owned();
            if path == "ingress-nginx/Chart.yaml" {
                let mut text = String::new();
                entry.read_to_string(&mut text).expect("Chart.yaml");
                chart_yaml = Some(text);
            } else if path.starts_with("ingress-nginx/templates/") && path.ends_with(".yaml") {
                templates += 1;
            }
        }
        let meta: serde_yaml::Value =
            serde_yaml::from_str(&chart_yaml.expect("ingress-nginx/Chart.yaml")).unwrap();
        let version = file
            .trim_start_matches("ingress-nginx-")
            .trim_end_matches(".tgz");
        assert_eq!(meta["name"].as_str(), Some("ingress-nginx"), "{file}");
        assert_eq!(meta["version"].as_str(), Some(version), "{file}");
        assert_eq!(meta["kubeVersion"].as_str(), Some(">=1.21.0-0"), "{file}");
        assert!(
            meta["annotations"]["hmc.mirantis.com/test-fixture"].is_null(),
            "{file} is not the stand-in"
        );
        assert!(templates > 30, "{file}: {templates} templates");
    }
}
