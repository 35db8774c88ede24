//! Our finalizer: added before the engine creates anything for an object,
//! removed once everything it created is gone.
//!
//! Every controller that holds objects by our finalizer goes through
//! [`guarded`]: an object being deleted goes to its cleanup (which drops
//! the finalizer when everything it made is gone); one without the
//! finalizer gets it, and the reconcile goes on at once with the object as
//! the API server returned it. Going on saves a trip through the watch and
//! the queue (a new cluster gets its releases in this reconcile). The patch
//! is ours rather than `kube::runtime::finalizer`'s, whose JSON patch with
//! test operations ends the reconcile after adding: ours is a merge patch
//! guarded by the resourceVersion we read (a concurrent change of the list
//! is never lost), counted as one write (`Context::wrote`), and told to the
//! cluster controller's echoes, so that its coming back triggers nothing.

use std::fmt::Debug;

use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use serde_json::json;

use kube::runtime::controller::Action;

use super::context::Context;
use super::echoes::Echoes;
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

/// One reconcile of an object held by our finalizer: `cleanup` when it is
/// being deleted, else `apply`, after adding the finalizer when it has none
/// (with the object as that write left it; nothing when it is gone).
/// `echoes`, when the controller has them, hear of the finalizer's write.
pub async fn guarded<K>(
    ctx: &Context,
    obj: &K,
    echoes: Option<&Echoes>,
    apply: impl AsyncFnOnce(&K) -> Result<Action>,
    cleanup: impl AsyncFnOnce(&K) -> Result<Action>,
) -> Result<Action>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
{
    if obj.meta().deletion_timestamp.is_some() {
        return cleanup(obj).await;
    }
    if has(obj) {
        return apply(obj).await;
    }
    let writing = echoes.map(|e| e.writing(obj));
    match add(ctx, obj).await? {
        Some(updated) => {
            if let Some(writing) = writing {
                writing.wrote(&updated);
            }
            apply(&updated).await
        }
        None => Ok(Action::await_change()),
    }
}
