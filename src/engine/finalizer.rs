//! Our finalizer: added before the engine creates anything for an object,
//! removed once everything it created is gone.

use std::fmt::Debug;

use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::json;

use super::context::Context;
use super::error::{Error, Result};
use crate::api::labels::FINALIZER;

pub fn has<K: Resource>(obj: &K) -> bool {
    obj.finalizers().iter().any(|f| f == FINALIZER)
}

/// Sets the finalizer list, guarded by the resourceVersion we read, so a
/// concurrent change of the list is never lost. Returns the object as the
/// API server now has it (`None` if it is gone).
async fn set<K>(ctx: &Context, obj: &K, finalizers: Vec<String>) -> Result<Option<K>>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
{
    let ns = obj
        .namespace()
        .ok_or(Error::MissingField("metadata.namespace"))?;
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &ns);
    let patch =
        json!({"metadata": {"finalizers": finalizers, "resourceVersion": obj.resource_version()}});
    ctx.wrote();
    match api
        .patch(
            &obj.name_any(),
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
    {
        Ok(updated) => Ok(Some(updated)),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Adds our finalizer; returns the updated object (`None` if it is gone).
pub async fn add<K>(ctx: &Context, obj: &K) -> Result<Option<K>>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
{
    let mut list = obj.finalizers().to_vec();
    list.push(FINALIZER.to_string());
    set(ctx, obj, list).await
}

pub async fn remove<K>(ctx: &Context, obj: &K) -> Result<()>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
{
    if !has(obj) {
        return Ok(());
    }
    let list = obj
        .finalizers()
        .iter()
        .filter(|f| *f != FINALIZER)
        .cloned()
        .collect();
    set(ctx, obj, list).await.map(drop)
}
