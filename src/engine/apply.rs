//! Writes only what differs. A resync of an unchanged world sends nothing.

use std::fmt::Debug;

use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::context::{Context, FIELD_MANAGER};
use super::error::{Error, Result};

/// True when every field of `want` is present with the same value in `have`.
/// Objects compare key by key, everything else by equality.
pub fn contains(have: &Value, want: &Value) -> bool {
    match (have, want) {
        (Value::Object(h), Value::Object(w)) => w.iter().all(|(k, wv)| match h.get(k) {
            Some(hv) => contains(hv, wv),
            None => wv.is_null(),
        }),
        _ => have == want,
    }
}

/// The part of an object the engine owns: labels, annotations, owners, spec.
fn owned_fields<K: Serialize>(obj: &K) -> Result<Value> {
    let v = serde_json::to_value(obj)?;
    let meta = &v["metadata"];
    Ok(json!({
        "metadata": {
            "labels": meta.get("labels").cloned().unwrap_or(Value::Null),
            "annotations": meta.get("annotations").cloned().unwrap_or(Value::Null),
            "ownerReferences": meta.get("ownerReferences").cloned().unwrap_or(Value::Null),
        },
        "spec": v.get("spec").cloned().unwrap_or(Value::Null),
    }))
}

/// Server-side applies `desired` unless `current` already has all of it.
/// Returns whether a write was sent.
pub async fn apply_if_changed<K>(ctx: &Context, desired: &K, current: Option<&K>) -> Result<bool>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + Serialize
        + DeserializeOwned
        + Debug,
{
    if let Some(current) = current
        && contains(&serde_json::to_value(current)?, &owned_fields(desired)?)
    {
        return Ok(false);
    }
    let ns = desired
        .namespace()
        .ok_or(Error::MissingField("metadata.namespace"))?;
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &ns);
    ctx.wrote();
    api.patch(
        &desired.name_any(),
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(desired),
    )
    .await?;
    Ok(true)
}

/// The last status the engine wrote for each object (by uid): the
/// resourceVersion of the object the write replaced, and a hash of the
/// status written.
///
/// A reconcile may be handed an object from a store that has not yet seen
/// the engine's own last status write. Comparing with that object would
/// write the same status again; comparing with what was written does not.
/// Only the exact version that write replaced is recognised, so a status
/// someone else changed since is always compared as it is.
#[derive(Debug, Default)]
pub struct WrittenStatuses(std::sync::Mutex<std::collections::HashMap<String, (String, u64)>>);

impl WrittenStatuses {
    fn key<K: Resource>(obj: &K) -> Option<(String, String)> {
        Some((obj.meta().uid.clone()?, obj.resource_version()?))
    }

    fn is_known<K: Resource>(&self, obj: &K, hash: u64) -> bool {
        let Some((uid, version)) = Self::key(obj) else {
            return false;
        };
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&uid) == Some(&(version, hash))
    }

    fn remember<K: Resource>(&self, obj: &K, hash: u64) {
        if let Some((uid, version)) = Self::key(obj) {
            let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
            map.insert(uid, (version, hash));
        }
    }

    /// Forgets an object that is gone.
    pub fn forget<K: Resource>(&self, obj: &K) {
        if let Some(uid) = &obj.meta().uid {
            let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
            map.remove(uid);
        }
    }
}

fn hash_of<S: Serialize>(status: &S) -> Result<u64> {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    serde_json::to_string(status)?.hash(&mut h);
    Ok(h.finish())
}

/// Server-side applies `status` unless it equals `current`, or this engine
/// already wrote it over exactly this version of `obj`.
pub async fn status_if_changed<K, S>(
    ctx: &Context,
    obj: &K,
    current: Option<&S>,
    status: &S,
) -> Result<bool>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
    S: Serialize + PartialEq,
{
    if current == Some(status) {
        return Ok(false);
    }
    let hash = hash_of(status)?;
    if ctx.written.is_known(obj, hash) {
        return Ok(false);
    }
    let ns = obj
        .namespace()
        .ok_or(Error::MissingField("metadata.namespace"))?;
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &ns);
    let body = json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    });
    ctx.wrote();
    api.patch_status(
        &obj.name_any(),
        &PatchParams::apply(FIELD_MANAGER).force(),
        &Patch::Apply(&body),
    )
    .await?;
    ctx.written.remember(obj, hash);
    Ok(true)
}

/// Deletes an object; a missing object is not an error.
pub async fn delete<K>(ctx: &Context, namespace: &str, name: &str) -> Result<()>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
{
    let api: Api<K> = Api::namespaced(ctx.client.clone(), namespace);
    ctx.wrote();
    match api.delete(name, &Default::default()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Clears the finalizers of an object we own, so a stuck deletion can finish.
pub async fn drop_finalizers<K>(ctx: &Context, namespace: &str, name: &str) -> Result<()>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
{
    let api: Api<K> = Api::namespaced(ctx.client.clone(), namespace);
    ctx.wrote();
    let patch = json!({"metadata": {"finalizers": null}});
    match api
        .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
    {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;

    fn at(uid: &str, version: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.uid = Some(uid.into());
        cm.metadata.resource_version = Some(version.into());
        cm
    }

    #[test]
    fn a_written_status_is_known_only_over_the_version_it_replaced() {
        let written = WrittenStatuses::default();
        let hash = hash_of(&json!({"ready": true})).unwrap();
        written.remember(&at("u1", "7"), hash);
        // The store still hands out version 7: the write is already made.
        assert!(written.is_known(&at("u1", "7"), hash));
        // Another status, another version or another object: compare as usual.
        assert!(!written.is_known(&at("u1", "7"), hash_of(&json!({"ready": false})).unwrap()));
        assert!(!written.is_known(&at("u1", "9"), hash));
        assert!(!written.is_known(&at("u2", "7"), hash));
        // An object without identity is never known.
        assert!(!written.is_known(&ConfigMap::default(), hash));
        written.forget(&at("u1", "7"));
        assert!(!written.is_known(&at("u1", "7"), hash));
    }

    #[test]
    fn contains_compares_objects_as_subsets() {
        let have = json!({"a": {"b": 1, "c": [1, 2]}, "d": "x"});
        assert!(contains(&have, &json!({"a": {"b": 1}})));
        assert!(contains(&have, &json!({"a": {"c": [1, 2]}, "e": null})));
        assert!(!contains(&have, &json!({"a": {"c": [1]}})));
        assert!(!contains(&have, &json!({"a": {"b": 2}})));
        assert!(!contains(&have, &json!({"z": 1})));
    }
}
