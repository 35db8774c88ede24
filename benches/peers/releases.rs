//! One watcher of Helm's own release records in the child clusters: the
//! only place both tools' results can be read the same way. Helm keeps one
//! secret per revision (`sh.helm.release.v1.<name>.v<revision>`, label
//! `owner=helm`), whose `release` key holds the release as gzipped JSON in
//! base64: its name, namespace, revision, status and chart version.

use std::collections::BTreeMap;
use std::io::Read;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Secret;
use kube::runtime::watcher::{self, Event};
use kube::{Api, ResourceExt};

/// What one release record says.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub revision: u64,
    pub status: String,
    pub chart_version: String,
}

/// A release in a child: (child, release namespace, release name).
pub type Release = (usize, String, String);

/// A record's secret: (child, its namespace, its name).
type RecordKey = (usize, String, String);

/// Every record, with the release it is of.
type Records = BTreeMap<RecordKey, (Release, Record)>;

/// The newest record of every release the children hold, as the watchers
/// see them; a release whose records are all gone is not in it.
#[derive(Clone, Default)]
pub struct Releases {
    /// Every record, by (child, secret namespace, secret name): a release's
    /// newest is the one of the highest revision.
    records: Arc<Mutex<Records>>,
}

impl Releases {
    /// Starts one watch of Helm's records per child; they run until the
    /// process ends.
    pub async fn watch(children: usize) -> Self {
        let releases = Self::default();
        for child in 1..=children {
            let client = super::common::child(child).await;
            let api: Api<Secret> = Api::all(client);
            let records = releases.records.clone();
            let config = watcher::Config::default().labels("owner=helm");
            tokio::spawn(async move {
                let mut stream = watcher::watcher(api, config).boxed();
                let mut fresh = BTreeMap::new();
                while let Some(event) = stream.next().await {
                    let Ok(event) = event else { continue };
                    let mut records = records.lock().expect("the records");
                    match event {
                        Event::Apply(s) => {
                            if let Some(r) = read(child, &s) {
                                records.insert(key(child, &s), r);
                            }
                        }
                        Event::Delete(s) => {
                            records.remove(&key(child, &s));
                        }
                        Event::Init => fresh.clear(),
                        Event::InitApply(s) => {
                            if let Some(r) = read(child, &s) {
                                fresh.insert(key(child, &s), r);
                            }
                        }
                        Event::InitDone => {
                            records.retain(|(c, _, _), _| *c != child);
                            records.append(&mut fresh);
                        }
                    }
                }
            });
        }
        releases
    }

    /// The newest record of each release in the children.
    pub fn newest(&self) -> BTreeMap<Release, Record> {
        let records = self.records.lock().expect("the records");
        let mut newest: BTreeMap<Release, Record> = BTreeMap::new();
        for (release, record) in records.values() {
            match newest.get(release) {
                Some(have) if have.revision >= record.revision => {}
                _ => {
                    newest.insert(release.clone(), record.clone());
                }
            }
        }
        newest
    }
}

fn key(child: usize, s: &Secret) -> RecordKey {
    (child, s.namespace().unwrap_or_default(), s.name_any())
}

/// The release a record is of, and what it says; `None` for a secret that
/// is not a readable Helm record.
fn read(child: usize, s: &Secret) -> Option<(Release, Record)> {
    let stored = s.data.as_ref()?.get("release")?;
    let gzipped = base64::engine::general_purpose::STANDARD
        .decode(&stored.0)
        .ok()?;
    let mut json = Vec::new();
    flate2::read::GzDecoder::new(gzipped.as_slice())
        .take(64 << 20)
        .read_to_end(&mut json)
        .ok()?;
    let release: serde_json::Value = serde_json::from_slice(&json).ok()?;
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    Some((
        (child, text(&release["namespace"]), text(&release["name"])),
        Record {
            revision: release["version"].as_u64()?,
            status: text(&release["info"]["status"]),
            chart_version: text(&release["chart"]["metadata"]["version"]),
        },
    ))
}
