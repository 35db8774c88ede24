//! Writes only what differs, and only over what is ours. A resync of an
//! unchanged world sends nothing; an object of the same name that belongs to
//! something else is never written.

use std::fmt::Debug;

use std::collections::BTreeMap;
use std::sync::Arc;

use kube::api::{Patch, PatchParams};
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::Store;
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::context::{Context, FIELD_MANAGER, hash_of};
pub use super::error::Conflict;
use super::error::{Error, Result};
use crate::api::{TemplateRollout, labels};
use crate::flux::{HelmChart, HelmRelease, HelmRepository};
use crate::store::{Stores, WatchHealth, WatchState, get};

/// A kind the engine writes: where its store is, and what people call it.
pub trait Written: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
where
    Self: Clone + Serialize + DeserializeOwned + Debug + 'static,
{
    /// The kind in the product's words (`release`, `chart source`).
    const NOUN: &'static str;
    /// Labels the engine writes on some objects of this kind and not on
    /// others: one left off the desired object must be gone from the
    /// stored one too (the apply then removes it).
    const OPTIONAL_LABELS: &'static [&'static str] = &[];
    /// Whether objects of this kind are shared: several objects of ours
    /// own one (each applies it under a field manager of its own), and
    /// others annotate it (the source gate). An apply then compares only the
    /// owner and the annotations it brings, and leaves the others'.
    const SHARED: bool = false;
    fn store(stores: &Stores) -> &Store<Self>;
    /// The names and labels of the objects of this kind in scope that are
    /// not the engine's, and the health of their watch; `None` when
    /// [`store`](Self::store) holds every object of the kind.
    fn others(stores: &Stores) -> Option<Others<'_, Self>>;
}

/// A store of the names of others' objects, and its watch's health.
pub type Others<'a, K> = (&'a Store<PartialObjectMeta<K>>, &'a WatchState);

impl Written for HelmRelease {
    const NOUN: &'static str = "release";
    const OPTIONAL_LABELS: &'static [&'static str] = &[crate::flux::SHARD_LABEL];
    fn store(stores: &Stores) -> &Store<Self> {
        &stores.releases
    }
    fn others(stores: &Stores) -> Option<Others<'_, Self>> {
        Some((&stores.other_releases, &stores.health.other_releases))
    }
}

impl Written for HelmChart {
    const NOUN: &'static str = "chart source";
    fn store(stores: &Stores) -> &Store<Self> {
        &stores.charts
    }
    fn others(stores: &Stores) -> Option<Others<'_, Self>> {
        Some((&stores.other_charts, &stores.health.other_charts))
    }
}

impl Written for HelmRepository {
    const NOUN: &'static str = "chart repository source";
    const SHARED: bool = true;
    fn store(stores: &Stores) -> &Store<Self> {
        &stores.repositories
    }
    fn others(stores: &Stores) -> Option<Others<'_, Self>> {
        Some((
            &stores.other_repositories,
            &stores.health.other_repositories,
        ))
    }
}

impl Written for TemplateRollout {
    const NOUN: &'static str = "rollout";
    fn store(stores: &Stores) -> &Store<Self> {
        &stores.rollouts
    }
    fn others(_: &Stores) -> Option<Others<'_, Self>> {
        None
    }
}

/// Who holds a name that the engine's own store does not hold, as the
/// stores know it.
#[derive(Debug, PartialEq)]
pub enum Holder {
    /// Someone else's object: its labels.
    Other(BTreeMap<String, String>),
    /// Nobody: the stores know every name of the kind in scope.
    Nobody,
    /// The stores cannot tell (no store of others' names, or its watch is
    /// failing, so it may miss a name): the API must be asked.
    Unknown,
}

/// Who holds `namespace/name` among others' objects, from `others` (as
/// [`Written::others`] gives it).
pub fn other_holder<K>(others: Option<Others<'_, K>>, namespace: &str, name: &str) -> Holder
where
    K: Resource<DynamicType = ()> + Clone + 'static,
{
    let Some((store, watch)) = others else {
        return Holder::Unknown;
    };
    if *watch.health.borrow() != WatchHealth::Ok {
        return Holder::Unknown;
    }
    match get(store, namespace, name) {
        Some(o) => Holder::Other(o.metadata.labels.clone().unwrap_or_default()),
        None => Holder::Nobody,
    }
}

/// Who an object of ours belongs to, from its labels.
fn holder(labels: &std::collections::BTreeMap<String, String>) -> String {
    let get = |k: &str| labels.get(k).map(String::as_str);
    match (
        get(labels::CLUSTER),
        get(labels::SERVICE),
        get(labels::CLUSTER_TEMPLATE),
        get(labels::TEMPLATE),
    ) {
        (Some(c), Some(s), _, _) => format!("cluster {c} (service {s})"),
        (Some(c), None, _, _) => format!("cluster {c}"),
        (None, _, Some(t), _) => format!("cluster template {t}"),
        (None, _, None, Some(t)) => match t.split_once('.') {
            Some(("svctmpl", name)) => format!("service template {name}"),
            Some(("clustertmpl", name)) => format!("cluster template {name}"),
            _ => format!("template {t}"),
        },
        (None, _, None, None) => "another object".to_string(),
    }
}

/// Whether `occupant`, which has the name of `desired`, belongs to
/// something else: it is not labelled as the engine's, or its identity
/// labels name another cluster, service, role or template.
pub fn conflict<K: Resource>(noun: &'static str, desired: &K, occupant: &K) -> Option<Conflict> {
    conflict_with(noun, desired, occupant.labels())
}

/// [`conflict`] with an occupant of `desired`'s name labelled `have`.
fn conflict_with<K: Resource>(
    noun: &'static str,
    desired: &K,
    have: &BTreeMap<String, String>,
) -> Option<Conflict> {
    let holder = match labels::made_for(have, desired.labels()) {
        Some(true) => return None,
        Some(false) => Some(holder(have)),
        None => None,
    };
    Some(Conflict {
        noun,
        name: desired.name_any(),
        holder,
    })
}

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
/// Each of `K`'s optional labels that `obj` leaves off is there as `null`,
/// which [`contains`] reads as "absent". For a [shared](Written::SHARED)
/// kind, owners and annotations are left out: see [`shared_fields_held`].
fn owned_fields<K: Written>(obj: &K) -> Result<Value> {
    let v = serde_json::to_value(obj)?;
    let meta = &v["metadata"];
    let mut labels = meta.get("labels").cloned().unwrap_or(Value::Null);
    if let Value::Object(labels) = &mut labels {
        for label in K::OPTIONAL_LABELS {
            labels.entry(*label).or_insert(Value::Null);
        }
    }
    let mut owned = json!({
        "metadata": {
            "labels": labels,
            "annotations": meta.get("annotations").cloned().unwrap_or(Value::Null),
            "ownerReferences": meta.get("ownerReferences").cloned().unwrap_or(Value::Null),
        },
        "spec": v.get("spec").cloned().unwrap_or(Value::Null),
    });
    if K::SHARED {
        owned["metadata"] = json!({"labels": owned["metadata"]["labels"].take()});
    }
    Ok(owned)
}

/// Whether `current`, of a shared kind, has each owner and annotation that
/// `desired` brings (others may have added theirs).
fn shared_fields_held<K: Resource>(current: &K, desired: &K) -> bool {
    let owners = current.owner_references();
    let annotations = current.annotations();
    desired
        .owner_references()
        .iter()
        .all(|o| owners.iter().any(|c| c == o))
        && desired
            .annotations()
            .iter()
            .all(|(k, v)| annotations.get(k) == Some(v))
}

/// Server-side applies `desired` unless `current` (or what the store holds
/// under its name) already has all of it. Returns whether a write was sent.
///
/// Ownership first: when an object of that name belongs to something else
/// (see [`conflict`]) nothing is written and the answer is
/// [`Error::NameConflict`], for the caller to tell. Objects of ours are in
/// their store, the names and labels of everyone else's in another (see
/// [`Written::others`]); only when that one cannot tell is the name read
/// from the API first.
///
/// Returns the object as written, when a write was sent.
pub async fn apply_if_changed<K: Written>(
    ctx: &Context,
    desired: &K,
    current: Option<&K>,
) -> Result<Option<K>> {
    apply_if_changed_as(ctx, desired, current, FIELD_MANAGER).await
}

/// [`apply_if_changed`] under field manager `manager`: each owner of a
/// [shared](Written::SHARED) object applies it under its own, so that the
/// owner references of all of them stay.
pub async fn apply_if_changed_as<K: Written>(
    ctx: &Context,
    desired: &K,
    current: Option<&K>,
    manager: &str,
) -> Result<Option<K>> {
    let ns = desired
        .namespace()
        .ok_or(Error::MissingField("metadata.namespace"))?;
    let name = desired.name_any();
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &ns);
    // The store holds only what is labelled as ours: an object of the name
    // made by someone else is found among others' names, or, when those
    // cannot tell, read once before it is created.
    let occupant = match (current, get(K::store(&ctx.stores), &ns, &name)) {
        (_, Some(stored)) => Some(stored),
        (Some(current), None) => Some(Arc::new(current.clone())),
        (None, None) => match other_holder(K::others(&ctx.stores), &ns, &name) {
            Holder::Other(labels) => match conflict_with(K::NOUN, desired, &labels) {
                Some(c) => return Err(Error::NameConflict(c)),
                // Labelled as ours since, and not yet in our store: read it.
                None => api.get_opt(&name).await?.map(Arc::new),
            },
            Holder::Nobody => None,
            Holder::Unknown => api.get_opt(&name).await?.map(Arc::new),
        },
    };
    if let Some(c) = occupant
        .as_deref()
        .and_then(|occupant| conflict(K::NOUN, desired, occupant))
    {
        return Err(Error::NameConflict(c));
    }
    if let Some(current) = current.or(occupant.as_deref())
        && contains(&serde_json::to_value(current)?, &owned_fields(desired)?)
        && (!K::SHARED || shared_fields_held(current, desired))
    {
        return Ok(None);
    }
    ctx.wrote();
    let written = api
        .patch(
            &name,
            &PatchParams::apply(manager).force(),
            &Patch::Apply(desired),
        )
        .await?;
    Ok(Some(written))
}

/// Server-side applies `status` unless it equals `current`, or this engine
/// already wrote it over exactly this version of `obj`. Returns the object
/// as written, when a write was sent.
pub async fn status_if_changed<K, S>(
    ctx: &Context,
    obj: &K,
    current: Option<&S>,
    status: &S,
) -> Result<Option<K>>
where
    K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
    S: Serialize + PartialEq,
{
    if current == Some(status) {
        return Ok(None);
    }
    let hash = hash_of(status)?;
    if ctx.written.is_known(obj, hash) {
        return Ok(None);
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
    let written = api
        .patch_status(
            &obj.name_any(),
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(&body),
        )
        .await?;
    ctx.written.remember(obj, hash);
    Ok(Some(written))
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
    ctx.echoes.forget::<K>(namespace, name);
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

    fn labelled(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm.metadata.labels = Some(
            labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        cm
    }

    const OURS: (&str, &str) = (labels::MANAGED_BY, labels::MANAGED_BY_VALUE);

    #[test]
    fn a_shared_object_holds_each_owner_it_brings_among_others() {
        use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
        let owner = |uid: &str| OwnerReference {
            uid: uid.into(),
            name: uid.into(),
            ..Default::default()
        };
        let mut current = labelled("r", &[OURS]);
        current.metadata.owner_references = Some(vec![owner("a"), owner("b")]);
        current
            .annotations_mut()
            .insert("gate".into(), "held".into());
        let mut mine = labelled("r", &[OURS]);
        mine.metadata.owner_references = Some(vec![owner("b")]);
        assert!(shared_fields_held(&current, &mine));
        mine.metadata.owner_references = Some(vec![owner("c")]);
        assert!(
            !shared_fields_held(&current, &mine),
            "a new owner is applied"
        );
        mine.metadata.owner_references = Some(vec![owner("a")]);
        mine.annotations_mut().insert("gate".into(), "other".into());
        assert!(!shared_fields_held(&current, &mine));
    }

    #[test]
    fn an_object_of_ours_for_the_same_owner_is_ours_to_write() {
        let service = [
            OURS,
            (labels::CLUSTER, "x"),
            (labels::ROLE, "service"),
            (labels::SERVICE, "ingress"),
        ];
        let want = labelled("x.ingress", &service);
        assert_eq!(conflict("release", &want, &want.clone()), None);
        // Other labels (someone's own) do not matter.
        let mut extra = service.to_vec();
        extra.push(("team", "a"));
        assert_eq!(
            conflict("release", &want, &labelled("x.ingress", &extra)),
            None
        );
    }

    #[test]
    fn an_object_that_belongs_elsewhere_is_a_conflict_that_says_whose() {
        // Cluster x-ingress wants its release; service ingress of x has it.
        let want = labelled(
            "x-ingress",
            &[
                OURS,
                (labels::CLUSTER, "x-ingress"),
                (labels::ROLE, "cluster"),
            ],
        );
        let held = labelled(
            "x-ingress",
            &[
                OURS,
                (labels::CLUSTER, "x"),
                (labels::ROLE, "service"),
                (labels::SERVICE, "ingress"),
            ],
        );
        let c = conflict("release", &want, &held).unwrap();
        assert_eq!(
            c.to_string(),
            "release x-ingress belongs to cluster x (service ingress); rename one of them"
        );
        // And the other way round.
        let c = conflict("release", &held, &want).unwrap();
        assert_eq!(
            c.to_string(),
            "release x-ingress belongs to cluster x-ingress; rename one of them"
        );
        // Another service of the same cluster, or another role.
        let mut other = held.clone();
        other
            .labels_mut()
            .insert(labels::SERVICE.into(), "other".into());
        assert!(conflict("release", &held, &other).is_some());
        // Not ours at all: never written, whatever its labels say.
        let foreign = labelled(
            "x-ingress",
            &[(labels::CLUSTER, "x-ingress"), (labels::ROLE, "cluster")],
        );
        let c = conflict("release", &want, &foreign).unwrap();
        assert_eq!(c.holder, None);
        assert!(c.to_string().contains("not managed by hmc-tui"), "{c}");
        assert!(conflict("release", &want, &labelled("x-ingress", &[])).is_some());
    }

    #[test]
    fn conflicts_of_sources_and_rollouts_name_their_templates() {
        let source = |t: &str| labelled("svctmpl-a", &[OURS, (labels::TEMPLATE, t)]);
        let c = conflict(
            "chart source",
            &source("svctmpl.a"),
            &source("clustertmpl.b"),
        )
        .unwrap();
        assert_eq!(
            c.to_string(),
            "chart source svctmpl-a belongs to cluster template b; rename one of them"
        );
        let rollout = |t: &str| labelled("a-1-2", &[OURS, (labels::CLUSTER_TEMPLATE, t)]);
        assert_eq!(conflict("rollout", &rollout("a-1"), &rollout("a-1")), None);
        let c = conflict("rollout", &rollout("a-1"), &rollout("a")).unwrap();
        assert_eq!(
            c.to_string(),
            "rollout a-1-2 belongs to cluster template a; rename one of them"
        );
        let text = c.to_string();
        assert!(!text.contains("HelmRelease") && !text.contains("Flux"));
    }

    /// A store of others' names holding `objects` (stripped as the engine
    /// strips them), and a watch whose health is `health`.
    fn others(
        objects: Vec<PartialObjectMeta<HelmRelease>>,
        health: WatchHealth,
    ) -> (Store<PartialObjectMeta<HelmRelease>>, WatchState) {
        let (store, mut writer) = kube::runtime::reflector::store();
        for mut o in objects {
            crate::store::names_only(&mut o);
            writer.apply_watcher_event(&kube::runtime::watcher::Event::Apply(o));
        }
        let (_, rx) = tokio::sync::watch::channel(health);
        let state = WatchState {
            resource: "helmreleases".into(),
            health: rx,
        };
        (store, state)
    }

    fn foreign(name: &str, labels: &[(&str, &str)]) -> PartialObjectMeta<HelmRelease> {
        let mut o: PartialObjectMeta<HelmRelease> =
            kube::core::PartialObjectMetaExt::into_response_partial(kube::api::ObjectMeta {
                name: Some(name.into()),
                namespace: Some("ns".into()),
                labels: Some(
                    labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                ),
                annotations: Some([("a".to_string(), "b".to_string())].into()),
                ..Default::default()
            });
        o.metadata.uid = Some("u".into());
        o
    }

    #[test]
    fn others_names_tell_who_holds_a_name_without_a_read() {
        let team = [("team", "a"), (labels::CLUSTER, "x")];
        let (store, ok) = others(vec![foreign("x", &team)], WatchHealth::Ok);
        let held = other_holder(Some((&store, &ok)), "ns", "x");
        assert_eq!(
            held,
            Holder::Other(
                team.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
            )
        );
        // What it holds is enough to refuse the name, as a read would.
        let want = labelled(
            "x",
            &[OURS, (labels::CLUSTER, "x"), (labels::ROLE, "cluster")],
        );
        let Holder::Other(have) = held else {
            unreachable!()
        };
        let c = conflict_with("release", &want, &have).unwrap();
        assert_eq!(c.holder, None);
        assert!(c.to_string().contains("not managed by hmc-tui"), "{c}");
        // A name nobody holds is free, in another namespace too.
        assert_eq!(other_holder(Some((&store, &ok)), "ns", "y"), Holder::Nobody);
        assert_eq!(
            other_holder(Some((&store, &ok)), "other", "x"),
            Holder::Nobody
        );
    }

    #[test]
    fn without_a_working_store_of_others_names_the_api_is_asked() {
        assert_eq!(
            other_holder::<HelmRelease>(None, "ns", "x"),
            Holder::Unknown
        );
        let failing = WatchHealth::Failing {
            failure: crate::store::WatchFailure::Forbidden,
            attempts: 1,
        };
        let (store, state) = others(vec![], failing);
        assert_eq!(
            other_holder(Some((&store, &state)), "ns", "x"),
            Holder::Unknown
        );
    }

    #[test]
    fn a_shard_label_left_off_must_be_gone() {
        let release = |shard: Option<&str>| {
            let mut r = HelmRelease::new("r", Default::default());
            let mut l = std::collections::BTreeMap::from([(OURS.0.into(), OURS.1.into())]);
            if let Some(s) = shard {
                l.insert(crate::flux::SHARD_LABEL.into(), s.into());
            }
            r.metadata.labels = Some(l);
            r
        };
        let has = |current: &HelmRelease, desired: &HelmRelease| {
            contains(
                &serde_json::to_value(current).unwrap(),
                &owned_fields(desired).unwrap(),
            )
        };
        let (none, one, two) = (release(None), release(Some("a")), release(Some("b")));
        assert!(has(&none, &none) && has(&one, &one));
        // Another shard, a new one, or none any more: written.
        assert!(!has(&one, &two) && !has(&none, &one) && !has(&one, &none));
        // Kinds that never carry it keep reading labels as a subset.
        let chart = |extra: Option<&str>| {
            let mut c = HelmChart::new("c", Default::default());
            c.labels_mut().insert(OURS.0.into(), OURS.1.into());
            if let Some(s) = extra {
                c.labels_mut()
                    .insert(crate::flux::SHARD_LABEL.into(), s.into());
            }
            c
        };
        assert!(contains(
            &serde_json::to_value(chart(Some("a"))).unwrap(),
            &owned_fields(&chart(None)).unwrap()
        ));
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
