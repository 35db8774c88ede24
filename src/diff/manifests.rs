//! Manifests read as `kubectl apply -f` reads them: files, directories (their
//! `.yaml`, `.yml` and `.json` files, sorted; `-R` goes down into folders),
//! `-` for standard input, several YAML documents per file and `kind: List`.
//! Each document becomes a proposed object of ours, a note (another kind:
//! not planned), or an error that names its file and document, never a
//! crash.
//!
//! Reading files is the only I/O here; [`documents`] and [`classify`] are
//! pure.

use std::path::{Path, PathBuf};

use kube::ResourceExt;
use serde_json::Value;

use crate::api::names::{MAX_OBJECT_NAME, cluster_name_problem, service_name_problem};
use crate::api::{ClusterTemplate, GROUP, ManagedCluster, MultiClusterService, ServiceTemplate};
use crate::plan::impact::Fleet;
use crate::plan::rollout::check_policy;
use crate::plan::yaml::{self, Limits};

/// One manifest file's bytes bound: about what the API server accepts in a
/// few objects, and far more than any real template.
const MAX_FILE_BYTES: usize = 8 * 1024 * 1024;

/// A document's bounds: the API server's own request limit is near 3 MiB,
/// so a larger object could not be applied anyway.
const DOCUMENT: Limits = Limits {
    bytes: 3 * 1024 * 1024,
    nodes: 200_000,
    depth: 64,
    text: 8 * 1024 * 1024,
};

/// Where a document came from: its file (`-` for standard input) and its
/// 1-based place in it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Origin {
    pub file: String,
    pub document: usize,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, document {}", self.file, self.document)
    }
}

/// A document that would be refused on apply, or could not be read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DocError {
    #[serde(flatten)]
    pub origin: Origin,
    pub message: String,
}

/// An object: `(kind, namespace, name)`.
pub type Id = (&'static str, String, String);

/// What the manifests propose.
#[derive(Debug, Default)]
pub struct Proposal {
    pub objects: Fleet,
    /// Where each proposed object came from.
    pub origins: Vec<(Id, Origin)>,
    /// Documents of other kinds, which the fleet's impact does not cover.
    pub skipped: Vec<(Origin, String)>,
    pub errors: Vec<DocError>,
}

/// The files `paths` name, in order: a file itself, a directory's manifest
/// files sorted by name (and its folders' with `recursive`), `-` as is.
pub fn files(paths: &[String], recursive: bool) -> Result<Vec<String>, DocError> {
    let mut out = Vec::new();
    for p in paths {
        if p == "-" {
            out.push(p.clone());
            continue;
        }
        let path = Path::new(p);
        if path.is_dir() {
            walk(path, recursive, &mut out).map_err(|e| DocError {
                origin: Origin {
                    file: p.clone(),
                    document: 0,
                },
                message: format!("cannot read the directory: {e}"),
            })?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, recursive: bool, out: &mut Vec<String>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if recursive {
                walk(&path, recursive, out)?;
            }
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        ) {
            out.push(path.to_string_lossy().into_owned());
        }
    }
    Ok(())
}

/// Reads `file` (standard input for `-`), bounded.
pub fn read(file: &str, stdin: &mut dyn std::io::Read) -> Result<String, DocError> {
    let error = |message: String| DocError {
        origin: Origin {
            file: file.to_string(),
            document: 0,
        },
        message,
    };
    let mut bytes = Vec::new();
    let limit = MAX_FILE_BYTES as u64 + 1;
    let read = if file == "-" {
        std::io::Read::read_to_end(&mut std::io::Read::take(stdin, limit), &mut bytes)
    } else {
        std::fs::File::open(file).and_then(|f| {
            std::io::Read::read_to_end(&mut std::io::Read::take(f, limit), &mut bytes)
        })
    };
    read.map_err(|e| error(format!("cannot read it: {e}")))?;
    if bytes.len() > MAX_FILE_BYTES {
        return Err(error(format!(
            "more than {} bytes; split it",
            yaml::group(MAX_FILE_BYTES)
        )));
    }
    String::from_utf8(bytes).map_err(|_| error("not UTF-8 text".into()))
}

/// The YAML documents of one file's text, each parsed within bounds, with
/// its 1-based index; empty documents are left out.
pub fn documents(file: &str, text: &str) -> Vec<(Origin, Result<Value, String>)> {
    let mut docs: Vec<String> = vec![String::new()];
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare.starts_with("--- ") || bare == "..." {
            docs.push(String::new());
        } else if let Some(last) = docs.last_mut() {
            last.push_str(line);
        }
    }
    docs.into_iter()
        .enumerate()
        .filter(|(_, d)| {
            d.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        })
        .enumerate()
        .map(|(n, (_, d))| {
            let origin = Origin {
                file: file.to_string(),
                document: n + 1,
            };
            (
                origin,
                yaml::from_str::<Value>(&d, &DOCUMENT).map_err(|e| e.to_string()),
            )
        })
        .collect()
}

/// What one document proposes.
#[derive(Debug)]
pub enum Proposed {
    /// Boxed: a template (with its rollout policy) is by far the largest.
    ClusterTemplate(Box<ClusterTemplate>),
    ServiceTemplate(ServiceTemplate),
    ManagedCluster(ManagedCluster),
    MultiClusterService(MultiClusterService),
    /// Another kind, named: `v1/ConfigMap`.
    Other(String),
}

/// Reads one document as the API server and the engine would: ours, with
/// a usable name and a spec they accept, in `namespace` unless it names
/// its own. `Err` says what would be refused.
pub fn classify(doc: &Value, namespace: &str) -> Result<Vec<Proposed>, String> {
    let api_version = doc.get("apiVersion").and_then(Value::as_str).unwrap_or("");
    let kind = doc.get("kind").and_then(Value::as_str).unwrap_or("");
    if api_version.is_empty() || kind.is_empty() {
        return Err("apiVersion and kind are required".into());
    }
    if kind == "List" {
        let items = doc.get("items").and_then(Value::as_array);
        let mut out = Vec::new();
        for (i, item) in items.into_iter().flatten().enumerate() {
            out.extend(classify(item, namespace).map_err(|e| format!("items[{i}]: {e}"))?);
        }
        return Ok(out);
    }
    let ours = api_version == format!("{GROUP}/v1alpha1");
    let proposed = match (ours, kind) {
        (true, "ClusterTemplate") => {
            Proposed::ClusterTemplate(Box::new(typed(doc, kind, namespace)?))
        }
        (true, "ServiceTemplate") => Proposed::ServiceTemplate(typed(doc, kind, namespace)?),
        (true, "ManagedCluster") => Proposed::ManagedCluster(typed(doc, kind, namespace)?),
        (true, "MultiClusterService") => {
            Proposed::MultiClusterService(typed(doc, kind, namespace)?)
        }
        _ => return Ok(vec![Proposed::Other(format!("{api_version}/{kind}"))]),
    };
    check(&proposed)?;
    Ok(vec![proposed])
}

fn typed<K>(doc: &Value, kind: &str, namespace: &str) -> Result<K, String>
where
    K: serde::de::DeserializeOwned + ResourceExt,
{
    let mut obj: K =
        serde_json::from_value(doc.clone()).map_err(|e| format!("not a valid {kind}: {e}"))?;
    let name = obj.meta().name.clone().unwrap_or_default();
    if name.is_empty() {
        return Err("metadata.name is required".into());
    }
    if obj.namespace().is_none_or(|n| n.is_empty()) {
        obj.meta_mut().namespace = Some(namespace.to_string());
    }
    Ok(obj)
}

/// What the CRDs' rules and the engine's checks refuse, in their words.
fn check(proposed: &Proposed) -> Result<(), String> {
    let object_name = |name: String| {
        let subdomain =
            name.len() <= MAX_OBJECT_NAME && name.split('.').all(crate::api::names::is_dns_label);
        if subdomain {
            Ok(())
        } else {
            Err(format!(
                "metadata.name {name:?} is not a valid name: lower-case letters, digits, '-' \
                 and '.', at most {MAX_OBJECT_NAME} characters"
            ))
        }
    };
    match proposed {
        Proposed::ManagedCluster(mc) => {
            if let Some(problem) = cluster_name_problem(&mc.name_any()) {
                return Err(format!("metadata.name {:?}: {problem}", mc.name_any()));
            }
            if mc.spec.template.is_empty() {
                return Err("spec.template is required".into());
            }
            for s in &mc.spec.services {
                if let Some(problem) = service_name_problem(&s.name) {
                    return Err(problem);
                }
            }
            Ok(())
        }
        Proposed::ClusterTemplate(ct) => {
            object_name(ct.name_any())?;
            for s in &ct.spec.services {
                if let Some(problem) = service_name_problem(&s.name) {
                    return Err(problem);
                }
            }
            if let Some(policy) = &ct.spec.rollout {
                check_policy(policy).map_err(|e| e.at("spec.rollout"))?;
            }
            Ok(())
        }
        Proposed::ServiceTemplate(st) => {
            object_name(st.name_any())?;
            st.spec.helm.validate().map(|_| ())
        }
        Proposed::MultiClusterService(m) => {
            object_name(m.name_any())?;
            crate::plan::multi_cluster::Selector::parse(&m.spec.cluster_selector)
                .map(drop)
                .map_err(|e| format!("spec.clusterSelector: {e}"))
        }
        Proposed::Other(_) => Ok(()),
    }
}

/// Every document of `texts` (`(file, text)`), read into one proposal. A
/// later document of the same object replaces an earlier one, as a second
/// apply would.
pub fn proposal(texts: &[(String, String)], namespace: &str) -> Proposal {
    let mut out = Proposal::default();
    for (file, text) in texts {
        for (origin, doc) in documents(file, text) {
            let read = doc.and_then(|d| classify(&d, namespace));
            match read {
                Err(message) => out.errors.push(DocError { origin, message }),
                Ok(objects) => {
                    for object in objects {
                        add(&mut out, object, origin.clone());
                    }
                }
            }
        }
    }
    out
}

fn add(out: &mut Proposal, object: Proposed, origin: Origin) {
    fn put<K: ResourceExt>(list: &mut Vec<K>, kind: &'static str, obj: K) -> Id {
        let id = (kind, obj.namespace().unwrap_or_default(), obj.name_any());
        list.retain(|o| {
            (o.namespace().unwrap_or_default(), o.name_any()) != (id.1.clone(), id.2.clone())
        });
        list.push(obj);
        id
    }
    let objects = &mut out.objects;
    let id = match object {
        Proposed::ClusterTemplate(o) => put(&mut objects.cluster_templates, "ClusterTemplate", *o),
        Proposed::ServiceTemplate(o) => put(&mut objects.service_templates, "ServiceTemplate", o),
        Proposed::ManagedCluster(o) => put(&mut objects.clusters, "ManagedCluster", o),
        Proposed::MultiClusterService(o) => put(
            &mut objects.multi_cluster_services,
            "MultiClusterService",
            o,
        ),
        Proposed::Other(kind) => {
            out.skipped.push((origin, kind));
            return;
        }
    };
    out.origins.retain(|(k, _)| *k != id);
    out.origins.push((id, origin));
}

#[cfg(test)]
mod tests;
