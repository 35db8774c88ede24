//! Names of the objects the console shows: their kind and namespace/name.

use kube::api::ObjectMeta;

/// The kinds the console shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    ManagedCluster,
    ClusterTemplate,
    ServiceTemplate,
    TemplateRollout,
    /// The engine's Events (`events.k8s.io/v1`).
    Event,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::ManagedCluster => "ManagedCluster",
            Kind::ClusterTemplate => "ClusterTemplate",
            Kind::ServiceTemplate => "ServiceTemplate",
            Kind::TemplateRollout => "TemplateRollout",
            Kind::Event => "Event",
        }
    }
}

/// Names one object.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjKey {
    pub kind: Kind,
    pub namespace: String,
    pub name: String,
}

impl ObjKey {
    pub fn of(kind: Kind, meta: &ObjectMeta) -> ObjKey {
        ObjKey {
            kind,
            namespace: meta.namespace.clone().unwrap_or_default(),
            name: meta.name.clone().unwrap_or_default(),
        }
    }
}
