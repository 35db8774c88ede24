//! What a service's values template reads of its cluster, under the names
//! hmc and Sveltos users already write:
//!
//! - `.Cluster`: the Cluster API `Cluster` (`apiVersion`, `kind`,
//!   `metadata` with name, namespace, labels and annotations, and `spec`);
//! - `.ManagedCluster`: the ManagedCluster, the same parts;
//! - `.Template`: the name of the ClusterTemplate the cluster is made from.
//!
//! The status and the fields the API server keeps changing
//! (`resourceVersion`, `managedFields`, …) are left out on purpose: values
//! that read them would change, and so roll out, on every status update.
//! A template that reads `.Cluster.status` is told the key is missing.
//!
//! Built at most once per plan and only when a values text is a template:
//! planning ten thousand clusters whose values are plain builds nothing.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use kube::api::ObjectMeta;
use serde_json::Value as Json;

use crate::api::ManagedCluster;
use crate::capi;
use crate::plan::template::Value;
use crate::plan::template::missing::MissingKey;

/// One cluster's data for its values templates.
#[derive(Debug, Default)]
pub struct ValuesData<'a> {
    managed: Option<&'a ManagedCluster>,
    capi: Option<&'a capi::Cluster>,
    /// The root without `.ManagedCluster`'s spec, and with it: the spec
    /// (every service's values texts) is built only for a template that
    /// may read it.
    root: OnceCell<Value>,
    root_with_managed: OnceCell<Value>,
}

impl<'a> ValuesData<'a> {
    /// The data of `managed`, whose Cluster API Cluster is `capi` (`None`
    /// while Cluster API has not made it).
    pub fn of(managed: &'a ManagedCluster, capi: Option<&'a capi::Cluster>) -> Self {
        ValuesData {
            managed: Some(managed),
            capi,
            ..Default::default()
        }
    }

    /// No cluster at all: a template's values seen on their own.
    pub fn none() -> Self {
        ValuesData::default()
    }

    /// Whether there is a cluster to render for.
    pub fn has_cluster(&self) -> bool {
        self.managed.is_some()
    }

    /// Whether Cluster API's Cluster is known.
    pub fn has_capi_cluster(&self) -> bool {
        self.capi.is_some()
    }

    /// The cluster's name, for messages.
    pub fn cluster_name(&self) -> &str {
        self.managed
            .and_then(|m| m.metadata.name.as_deref())
            .unwrap_or_default()
    }

    /// The root a template's `.` is: `.Cluster`, `.ManagedCluster` and
    /// `.Template`. `.Cluster` is nil while the Cluster does not exist.
    pub fn root(&self) -> &Value {
        self.root_for(true)
    }

    /// The root, with `.ManagedCluster`'s spec only when `managed_spec`
    /// (a template that may read `.ManagedCluster`).
    pub fn root_for(&self, managed_spec: bool) -> &Value {
        let cell = if managed_spec {
            &self.root_with_managed
        } else {
            &self.root
        };
        cell.get_or_init(|| {
            let cluster = self.capi.map_or(Value::Nil, |c| {
                object(&c.api_version, &c.kind, &c.metadata, spec_of(&c.spec))
            });
            let managed = self.managed.map_or(Value::Nil, |m| {
                let spec = if managed_spec {
                    Value::from(&serde_json::to_value(&m.spec).unwrap_or(Json::Null))
                } else {
                    Value::Map(Default::default())
                };
                object(
                    "hmc.mirantis.com/v1alpha1",
                    "ManagedCluster",
                    &m.metadata,
                    spec,
                )
            });
            let template = self.managed.map_or("", |m| m.spec.template.as_str());
            Value::Map(BTreeMap::from([
                ("Cluster".to_string(), cluster),
                ("ManagedCluster".to_string(), managed),
                ("Template".to_string(), Value::String(template.to_string())),
            ]))
        })
    }
}

impl ValuesData<'_> {
    /// What a key missing at `missing.path` means for this cluster, in its
    /// own words: "label region is not set on Cluster dev-3".
    pub fn explain(&self, missing: &MissingKey) -> String {
        let key = &missing.key;
        let path: Vec<&str> = missing.path.iter().map(String::as_str).collect();
        let name = self.cluster_name();
        let (kind, rest) = match path.as_slice() {
            ["Cluster", rest @ ..] => ("Cluster", rest),
            ["ManagedCluster", rest @ ..] => ("ManagedCluster", rest),
            [] => {
                return format!(
                    ".{key} is not something a values template reads: it reads .Cluster, .ManagedCluster and .Template"
                );
            }
            _ => return format!(".{}.{key} is not set", path.join(".")),
        };
        match rest {
            ["metadata", "labels"] => format!("label {key} is not set on {kind} {name}"),
            ["metadata", "annotations"] => format!("annotation {key} is not set on {kind} {name}"),
            [] if key == "status" => {
                format!("a values template does not read the status of {kind} {name}")
            }
            _ => format!(".{}.{key} is not set on {kind} {name}", path.join(".")),
        }
    }
}

/// A Cluster's spec as the API server gave it, `paused` included.
fn spec_of(spec: &capi::ClusterSpec) -> Value {
    let mut out: BTreeMap<String, Value> = spec
        .rest
        .iter()
        .map(|(k, v)| (k.clone(), Value::from(v)))
        .collect();
    if let Some(paused) = spec.paused {
        out.insert("paused".into(), Value::Bool(paused));
    }
    Value::Map(out)
}

/// An object as a template reads it: its kind, the metadata people name
/// things by, and its spec.
fn object(api_version: &str, kind: &str, meta: &ObjectMeta, spec: Value) -> Value {
    let strings = |m: &Option<BTreeMap<String, String>>| {
        Value::Map(
            m.iter()
                .flatten()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        )
    };
    let text = |s: &Option<String>| Value::String(s.clone().unwrap_or_default());
    let metadata = BTreeMap::from([
        ("name".to_string(), text(&meta.name)),
        ("namespace".to_string(), text(&meta.namespace)),
        ("labels".to_string(), strings(&meta.labels)),
        ("annotations".to_string(), strings(&meta.annotations)),
    ]);
    Value::Map(BTreeMap::from([
        ("apiVersion".to_string(), Value::String(api_version.into())),
        ("kind".to_string(), Value::String(kind.into())),
        ("metadata".to_string(), Value::Map(metadata)),
        ("spec".to_string(), spec),
    ]))
}

#[cfg(test)]
mod tests;
