//! Names of the objects the console shows: their kind and namespace/name.

use std::sync::Arc;

/// The kinds the console shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    ManagedCluster,
    ClusterTemplate,
    ServiceTemplate,
    TemplateRollout,
    MultiClusterService,
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
            Kind::MultiClusterService => "MultiClusterService",
            Kind::Event => "Event",
        }
    }
}

/// The kubeconfig context an object lives in: the console can show
/// several management clusters at once, and the same namespace and name
/// can live in two of them. Cheap to clone.
pub type KubeContext = Arc<str>;

/// Names one object: its context, kind, namespace and name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjKey {
    pub context: KubeContext,
    pub kind: Kind,
    pub namespace: String,
    pub name: String,
}

impl ObjKey {
    /// The key of an object of the snapshot.
    pub fn of<K: kube::Resource>(kind: Kind, obj: &Obj<K>) -> ObjKey {
        ObjKey::at(&obj.context, kind, &obj.meta().namespace, &obj.meta().name)
    }

    fn at(
        context: &KubeContext,
        kind: Kind,
        namespace: &Option<String>,
        name: &Option<String>,
    ) -> ObjKey {
        ObjKey {
            context: context.clone(),
            kind,
            namespace: namespace.clone().unwrap_or_default(),
            name: name.clone().unwrap_or_default(),
        }
    }

    /// A key in `context` of `kind`, named `namespace/name`.
    pub fn new(context: &KubeContext, kind: Kind, namespace: &str, name: &str) -> ObjKey {
        ObjKey {
            context: context.clone(),
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }

    /// Whether `obj` is the object this key names (its kind aside).
    pub fn names<K: kube::Resource>(&self, obj: &Obj<K>) -> bool {
        obj.context == self.context
            && obj.meta().namespace.as_deref().unwrap_or_default() == self.namespace
            && obj.meta().name.as_deref() == Some(self.name.as_str())
    }
}

/// An object of the snapshot with the context it was read from; it reads
/// as the object itself.
#[derive(Debug)]
pub struct Obj<K> {
    pub context: KubeContext,
    pub object: Arc<K>,
}

impl<K> Obj<K> {
    pub fn new(context: &KubeContext, object: Arc<K>) -> Obj<K> {
        Obj {
            context: context.clone(),
            object,
        }
    }
}

impl<K> Clone for Obj<K> {
    fn clone(&self) -> Self {
        Obj {
            context: self.context.clone(),
            object: self.object.clone(),
        }
    }
}

impl<K> AsRef<K> for Obj<K> {
    fn as_ref(&self) -> &K {
        &self.object
    }
}

impl<K> std::ops::Deref for Obj<K> {
    type Target = K;
    fn deref(&self) -> &K {
        &self.object
    }
}
