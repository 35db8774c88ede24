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
//! Built only when a values text is a template, and then only with what
//! the template may read ([`Parts`]): planning ten thousand clusters whose
//! values are plain builds nothing, and a template that reads a label
//! builds neither the Cluster's spec nor the ManagedCluster (every
//! service's values texts). What a template does not read it cannot miss:
//! its output and its errors are those over the whole data.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use kube::api::ObjectMeta;
use serde_json::Value as Json;

use crate::api::ManagedCluster;
use crate::capi;
use crate::plan::template::missing::MissingKey;
use crate::plan::template::{Template, Value};

/// One cluster's data for its values templates.
#[derive(Debug, Default)]
pub struct ValuesData<'a> {
    managed: Option<&'a ManagedCluster>,
    capi: Option<&'a capi::Cluster>,
    /// The roots built so far, each with the parts a template read: a
    /// cluster's plans before and after a change render the same reads,
    /// and build the root once.
    roots: RefCell<Vec<(Parts, Rc<Value>)>>,
}

/// Which parts of the root a template may read, as
/// [`Template::may_read`] tells: the root is built with these alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    cluster: ObjectParts,
    managed: ObjectParts,
    template: bool,
}

/// Of `.Cluster` or `.ManagedCluster`: whether it is read at all, and its
/// `metadata` and its `spec` (its `apiVersion` and `kind` cost nothing
/// and come with it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ObjectParts {
    read: bool,
    metadata: bool,
    spec: bool,
}

impl ObjectParts {
    const ALL: ObjectParts = ObjectParts {
        read: true,
        metadata: true,
        spec: true,
    };

    fn read_by(template: &Template, key: &str) -> ObjectParts {
        ObjectParts {
            read: template.may_read(key),
            metadata: template.may_read_under(key, "metadata"),
            spec: template.may_read_under(key, "spec"),
        }
    }

    /// Whether an object built with `self` has all `other` reads.
    fn covers(self, other: ObjectParts) -> bool {
        (self.read || !other.read)
            && (self.metadata || !other.metadata)
            && (self.spec || !other.spec)
    }
}

impl Parts {
    /// The whole root.
    pub const ALL: Parts = Parts {
        cluster: ObjectParts::ALL,
        managed: ObjectParts::ALL,
        template: true,
    };

    /// What `template` may read.
    pub fn read_by(template: &Template) -> Parts {
        Parts {
            cluster: ObjectParts::read_by(template, "Cluster"),
            managed: ObjectParts::read_by(template, "ManagedCluster"),
            template: template.may_read("Template"),
        }
    }

    /// Whether a root built with `self` has all `other` reads.
    fn covers(self, other: Parts) -> bool {
        self.cluster.covers(other.cluster)
            && self.managed.covers(other.managed)
            && (self.template || !other.template)
    }
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
    pub fn root(&self) -> Rc<Value> {
        self.root_for(Parts::ALL)
    }

    /// The root with at least `parts` of it, for a template that reads
    /// those alone: a key it does not read is left out, and so are the
    /// `metadata` or the `spec` of an object it does not read them of.
    pub fn root_for(&self, parts: Parts) -> Rc<Value> {
        let mut roots = self.roots.borrow_mut();
        if let Some((_, root)) = roots.iter().find(|(built, _)| built.covers(parts)) {
            return Rc::clone(root);
        }
        let root = Rc::new(self.build(parts));
        roots.push((parts, Rc::clone(&root)));
        root
    }

    fn build(&self, parts: Parts) -> Value {
        let mut root = BTreeMap::new();
        if parts.cluster.read {
            let cluster = self.capi.map_or(Value::Nil, |c| {
                object(&c.api_version, &c.kind, &c.metadata, parts.cluster, || {
                    spec_of(&c.spec)
                })
            });
            root.insert("Cluster".to_string(), cluster);
        }
        if parts.managed.read {
            let managed = self.managed.map_or(Value::Nil, |m| {
                object(
                    "hmc.mirantis.com/v1alpha1",
                    "ManagedCluster",
                    &m.metadata,
                    parts.managed,
                    || Value::from(&serde_json::to_value(&m.spec).unwrap_or(Json::Null)),
                )
            });
            root.insert("ManagedCluster".to_string(), managed);
        }
        if parts.template {
            let template = self.managed.map_or("", |m| m.spec.template.as_str());
            root.insert("Template".to_string(), Value::String(template.to_string()));
        }
        Value::Map(root)
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
/// things by, and its spec, each of the two only when `parts` has it.
fn object(
    api_version: &str,
    kind: &str,
    meta: &ObjectMeta,
    parts: ObjectParts,
    spec: impl FnOnce() -> Value,
) -> Value {
    let mut out = BTreeMap::from([
        ("apiVersion".to_string(), Value::String(api_version.into())),
        ("kind".to_string(), Value::String(kind.into())),
    ]);
    if parts.metadata {
        out.insert("metadata".to_string(), metadata(meta));
    }
    if parts.spec {
        out.insert("spec".to_string(), spec());
    }
    Value::Map(out)
}

/// The metadata people name things by: name, namespace, labels and
/// annotations (empty maps when the object has none).
fn metadata(meta: &ObjectMeta) -> Value {
    let strings = |m: &Option<BTreeMap<String, String>>| {
        Value::Map(
            m.iter()
                .flatten()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        )
    };
    let text = |s: &Option<String>| Value::String(s.clone().unwrap_or_default());
    Value::Map(BTreeMap::from([
        ("name".to_string(), text(&meta.name)),
        ("namespace".to_string(), text(&meta.namespace)),
        ("labels".to_string(), strings(&meta.labels)),
        ("annotations".to_string(), strings(&meta.annotations)),
    ]))
}

#[cfg(test)]
mod tests;
