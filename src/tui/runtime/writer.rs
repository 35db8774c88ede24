//! The console's one write path: [`Writes`] runs every command that
//! writes ([`Command::Request`](crate::tui::state::app::Command::Request),
//! [`Command::ApplyValues`](crate::tui::state::app::Command::ApplyValues),
//! [`Command::Annotate`](crate::tui::state::app::Command::Annotate) and
//! [`Command::Delete`](crate::tui::state::app::Command::Delete)) in a task,
//! with the [`Writer`] of the object's context, and sends the result back to
//! the app; errors come back in plain words.
//!
//! Read-only is guaranteed by the client alone: a read-only context's
//! client refuses every write before it is sent
//! ([`Access`](crate::engine::read_only::Access)). The app tells the user
//! beforehand why a write would be refused; a write refused by the client
//! still says so in the same words.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use kube::Api;
use serde::de::DeserializeOwned;
use tokio::sync::mpsc::UnboundedSender;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, TemplateRollout, labels};
use crate::engine::chart_values;
use crate::engine::read_only::WriteRefused;
use crate::plan::rollout::Request;
use crate::tui::model::chart::ChartSource;
use crate::tui::model::key::{Kind, KubeContext, Obj, ObjKey};
use crate::tui::runtime::identity::whoami;
use crate::tui::state::app::Msg;
use crate::tui::state::editor::{Base, EditKey, SaveError};

/// The field manager of the console's writes.
const FIELD_MANAGER: &str = "hmc-tui-console";

/// What the console says when its client refused a write: the context is
/// read-only, by `--readonly` or by its `readonly` in the settings file
/// (the app says which before it asks for a write; this is what shows if a
/// write got past that).
const READ_ONLY: &str =
    "this context is read-only (--readonly, or its readonly in config.yaml): nothing was sent";

/// What the console writes: requests on rollouts, values edits, requests
/// on templates as annotations, and deletes.
pub struct Writer {
    client: kube::Client,
    /// Who asks, found once (see [`whoami`]).
    user: tokio::sync::OnceCell<String>,
    kubeconfig_user: Option<String>,
}

impl Writer {
    pub fn new(client: kube::Client, kubeconfig_user: Option<String>) -> Writer {
        Writer {
            client,
            user: tokio::sync::OnceCell::new(),
            kubeconfig_user,
        }
    }

    /// The client it writes with, for the console's other reads.
    pub fn client(&self) -> &kube::Client {
        &self.client
    }

    /// The name requests carry, found on first use.
    pub async fn user(&self) -> String {
        self.user
            .get_or_init(|| whoami(self.client.clone(), self.kubeconfig_user.clone()))
            .await
            .clone()
    }

    /// Sets the request annotations on a rollout.
    pub async fn request(
        &self,
        namespace: &str,
        name: &str,
        request: &Request,
    ) -> Result<(), String> {
        let user = self.user().await;
        let api: Api<TemplateRollout> = Api::namespaced(self.client.clone(), namespace);
        let params = kube::api::PatchParams {
            field_manager: Some(FIELD_MANAGER.into()),
            ..Default::default()
        };
        let patch = request_patch(request, &user);
        match api
            .patch(name, &params, &kube::api::Patch::Merge(&patch))
            .await
        {
            Ok(_) => {
                tracing::info!(%namespace, %name, request = %request.to_annotation(), %user, "asked the rollout");
                Ok(())
            }
            Err(error) => {
                // The status line says so: the user's own answer, not one of
                // the engine's warnings.
                tracing::info!(%namespace, %name, request = %request.to_annotation(), %error, "cannot ask the rollout");
                Err(plain_error(&error, "TemplateRollout", name))
            }
        }
    }

    /// Sends a values edit. On a conflict the object is read again, so the
    /// editor can reload it.
    pub async fn apply_values(
        &self,
        key: &EditKey,
        patch: &serde_json::Value,
    ) -> Result<(), SaveError> {
        let object = &key.object;
        let (ns, name) = (object.namespace.as_str(), object.name.as_str());
        let client = self.client.clone();
        let (sent, current) = match object.kind {
            Kind::ManagedCluster => {
                let api = Api::namespaced(client, ns);
                patch_values(api, &object.context, name, patch, Base::Cluster).await
            }
            Kind::ClusterTemplate => {
                let api = Api::namespaced(client, ns);
                patch_values(api, &object.context, name, patch, Base::Template).await
            }
            other => {
                return Err(SaveError::Failed(format!(
                    "the console does not edit values of {}",
                    other.label()
                )));
            }
        };
        let kind = object.kind.label();
        let service = &key.service;
        match (sent, current) {
            (Ok(()), _) => {
                tracing::info!(kind, namespace = ns, name, service, "saved values");
                Ok(())
            }
            (Err(error), Some(current)) => {
                tracing::info!(kind, namespace = ns, name, service, %error, "values not saved: the object changed meanwhile");
                Err(SaveError::Conflict { current })
            }
            (Err(error), None) => {
                tracing::info!(kind, namespace = ns, name, service, %error, "values not saved");
                Err(SaveError::Failed(plain_error(&error, kind, name)))
            }
        }
    }
}

impl Writer {
    /// Deletes a cluster (the engine uninstalls its services first) or a
    /// template.
    pub async fn delete(&self, key: &ObjKey) -> Result<(), String> {
        let (ns, name) = (key.namespace.as_str(), key.name.as_str());
        let client = self.client.clone();
        let params = kube::api::DeleteParams::default();
        let sent = match key.kind {
            Kind::ManagedCluster => Api::<ManagedCluster>::namespaced(client, ns)
                .delete(name, &params)
                .await
                .map(|_| ()),
            Kind::ClusterTemplate => Api::<ClusterTemplate>::namespaced(client, ns)
                .delete(name, &params)
                .await
                .map(|_| ()),
            Kind::ServiceTemplate => Api::<ServiceTemplate>::namespaced(client, ns)
                .delete(name, &params)
                .await
                .map(|_| ()),
            other => {
                return Err(format!("the console does not delete a {}", other.label()));
            }
        };
        let kind = key.kind.label();
        match sent {
            Ok(()) => {
                tracing::info!(kind, namespace = ns, name, "asked to delete");
                Ok(())
            }
            Err(error) => {
                tracing::warn!(kind, namespace = ns, name, %error, "cannot delete");
                Err(delete_error(&error, kind, name))
            }
        }
    }
}

impl Writer {
    /// Sets annotations on a cluster or a template: a JSON merge patch of
    /// `metadata.annotations` that leaves the others be; the engine reads
    /// them as requests (the retry annotation of a template).
    pub async fn annotate(
        &self,
        key: &ObjKey,
        annotations: &BTreeMap<String, String>,
    ) -> Result<(), String> {
        let (ns, name) = (key.namespace.as_str(), key.name.as_str());
        let client = self.client.clone();
        let params = kube::api::PatchParams {
            field_manager: Some(FIELD_MANAGER.into()),
            ..Default::default()
        };
        let patch = annotations_patch(annotations);
        let patch = kube::api::Patch::Merge(&patch);
        let sent = match key.kind {
            Kind::ManagedCluster => Api::<ManagedCluster>::namespaced(client, ns)
                .patch(name, &params, &patch)
                .await
                .map(|_| ()),
            Kind::ClusterTemplate => Api::<ClusterTemplate>::namespaced(client, ns)
                .patch(name, &params, &patch)
                .await
                .map(|_| ()),
            Kind::ServiceTemplate => Api::<ServiceTemplate>::namespaced(client, ns)
                .patch(name, &params, &patch)
                .await
                .map(|_| ()),
            other => {
                return Err(format!("the console does not annotate a {}", other.label()));
            }
        };
        let kind = key.kind.label();
        let names: Vec<&str> = annotations.keys().map(String::as_str).collect();
        match sent {
            Ok(()) => {
                tracing::info!(kind, namespace = ns, name, annotations = ?names, "annotated");
                Ok(())
            }
            Err(error) => {
                // The status line says so: the user's own answer.
                tracing::info!(kind, namespace = ns, name, annotations = ?names, %error, "cannot annotate");
                Err(plain_error(&error, kind, name))
            }
        }
    }
}

/// Runs the commands that write, each in a task, with the writer of the
/// object's own context; the result comes back to the loop as a message.
pub struct Writes {
    /// The writer of each open context.
    pub writers: BTreeMap<String, Arc<Writer>>,
    /// The first context's: for what names no context.
    pub first: Arc<Writer>,
    pub tx: UnboundedSender<Msg>,
}

impl Writes {
    /// Writes with `writers`, one per open context, and `first` where a
    /// command names no context.
    pub fn new(
        writers: BTreeMap<String, Arc<Writer>>,
        first: Arc<Writer>,
        tx: UnboundedSender<Msg>,
    ) -> Writes {
        Writes { writers, first, tx }
    }

    /// The writer of `context`; the first context's when it names none.
    /// A context closed meanwhile has none: the write is not sent.
    fn writer(&self, context: &str) -> Option<Arc<Writer>> {
        if context.is_empty() {
            return Some(self.first.clone());
        }
        self.writers.get(context).cloned()
    }

    /// Says the write was not sent: its context was closed.
    fn closed(&self, context: &str) -> String {
        format!("context {context} is no longer open")
    }

    /// Asks a rollout for `request`; the result comes back as
    /// [`Msg::Requested`].
    pub fn request(&self, context: String, namespace: String, name: String, request: Request) {
        let Some(writer) = self.writer(&context) else {
            let result = Err(self.closed(&context));
            let _ = self.tx.send(Msg::Requested {
                context,
                name,
                request,
                result,
            });
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = writer.request(&namespace, &name, &request).await;
            let _ = tx.send(Msg::Requested {
                context,
                name,
                request,
                result,
            });
        });
    }

    /// Sends a values edit; the result comes back as
    /// [`Msg::ValuesApplied`].
    pub fn apply_values(&self, key: EditKey, patch: serde_json::Value) {
        let Some(writer) = self.writer(&key.object.context) else {
            let why = self.closed(&key.object.context);
            let _ = self.tx.send(Msg::ValuesApplied {
                key,
                result: Err(SaveError::Failed(why)),
            });
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = writer.apply_values(&key, &patch).await;
            let _ = tx.send(Msg::ValuesApplied { key, result });
        });
    }

    /// Sets annotations on an object; the result comes back as
    /// [`Msg::Annotated`].
    pub fn annotate(&self, key: ObjKey, annotations: BTreeMap<String, String>, asks: String) {
        let Some(writer) = self.writer(&key.context) else {
            let result = Err(self.closed(&key.context));
            let _ = self.tx.send(Msg::Annotated { asks, result });
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = writer.annotate(&key, &annotations).await;
            let _ = tx.send(Msg::Annotated { asks, result });
        });
    }

    /// Deletes a cluster or a template; the result comes back as
    /// [`Msg::Deleted`].
    pub fn delete(&self, key: ObjKey) {
        let Some(writer) = self.writer(&key.context) else {
            let result = Err(self.closed(&key.context));
            let _ = self.tx.send(Msg::Deleted { key, result });
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = writer.delete(&key).await;
            let _ = tx.send(Msg::Deleted { key, result });
        });
    }

    /// Fetches a chart's values for the editor; the result comes back as
    /// [`Msg::Chart`].
    pub fn fetch_chart(&self, source: ChartSource) {
        let context = source.context.clone();
        let Some(writer) = self.writer(&context) else {
            let result = Err(self.closed(&context));
            let _ = self.tx.send(Msg::Chart {
                context,
                id: source.chart.id,
                result,
            });
            return;
        };
        let (client, tx) = (writer.client().clone(), self.tx.clone());
        tokio::spawn(async move {
            let result = chart_values::fetch(&client, &source.chart)
                .await
                .map(Arc::new);
            let _ = tx.send(Msg::Chart {
                context,
                id: source.chart.id,
                result,
            });
        });
    }
}

/// The JSON merge patch that sets `annotations` and leaves the object's
/// other annotations be.
fn annotations_patch(annotations: &BTreeMap<String, String>) -> serde_json::Value {
    serde_json::json!({"metadata": {"annotations": annotations}})
}

/// A refused delete in plain words: as [`plain_error`], but a missing
/// permission names the verb that is missing.
fn delete_error(error: &kube::Error, kind: &str, name: &str) -> String {
    match error {
        kube::Error::Api(e) if e.code == 403 => format!(
            "not allowed to delete {kind} {name} ({}); ask for delete on {}s",
            e.message,
            kind.to_lowercase()
        ),
        _ => plain_error(error, kind, name),
    }
}

/// Sends a values patch of `name`: on a conflict, also the object as it is
/// now (`None` inside when it is gone), for the editor to reload.
async fn patch_values<K>(
    api: Api<K>,
    context: &KubeContext,
    name: &str,
    patch: &serde_json::Value,
    base: fn(Obj<K>) -> Base,
) -> (Result<(), kube::Error>, Option<Option<Base>>)
where
    K: Clone + DeserializeOwned + Debug,
{
    let params = kube::api::PatchParams {
        field_manager: Some(FIELD_MANAGER.into()),
        ..Default::default()
    };
    match api
        .patch(name, &params, &kube::api::Patch::Merge(patch))
        .await
    {
        Ok(_) => (Ok(()), None),
        Err(e) if is_conflict(&e) => {
            let now = api.get_opt(name).await.ok().flatten();
            (
                Err(e),
                Some(now.map(|o| base(Obj::new(context, Arc::new(o))))),
            )
        }
        Err(e) => (Err(e), None),
    }
}

/// Whether the console's own read-only client refused the write before it
/// was sent.
fn refused_by_client(error: &kube::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if e.is::<WriteRefused>() {
            return true;
        }
        source = e.source();
    }
    false
}

/// Whether the API server refused a write because the object changed.
fn is_conflict(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(e) if e.code == 409)
}

/// The JSON merge patch that asks a rollout for `request` on behalf of `user`.
fn request_patch(request: &Request, user: &str) -> serde_json::Value {
    serde_json::json!({
        "metadata": {
            "annotations": {
                labels::REQUEST: request.to_annotation(),
                labels::REQUESTED_BY: user,
            }
        }
    })
}

/// An API error on a write to `kind` `name`, in plain words.
fn plain_error(error: &kube::Error, kind: &str, name: &str) -> String {
    if refused_by_client(error) {
        return READ_ONLY.to_string();
    }
    match error {
        kube::Error::Api(e) => match e.code {
            401 => "the cluster did not accept the console's credentials".into(),
            403 => format!(
                "not allowed to change {kind} {name} ({}); ask for patch on {}s",
                e.message,
                kind.to_lowercase()
            ),
            404 => format!("{kind} {name} no longer exists"),
            409 => format!("{kind} {name} changed meanwhile; try again"),
            _ if e.message.is_empty() => format!("the API server said {} ({})", e.reason, e.code),
            _ => e.message.clone(),
        },
        kube::Error::HyperError(_) | kube::Error::Service(_) => {
            format!("cannot reach the API server: {error}")
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_is_a_merge_patch_of_two_annotations() {
        let patch = request_patch(&Request::Approve(Some(2)), "alice@example.com");
        assert_eq!(
            patch,
            serde_json::json!({
                "metadata": {"annotations": {
                    "hmc.mirantis.com/request": "approve 2",
                    "hmc.mirantis.com/requested-by": "alice@example.com",
                }}
            })
        );
        let patch = request_patch(&Request::Skip("prod-eu-1".into()), "bob");
        assert_eq!(
            patch["metadata"]["annotations"]["hmc.mirantis.com/request"],
            "skip prod-eu-1"
        );
    }

    #[test]
    fn a_write_the_read_only_client_refused_says_so() {
        let refused = kube::Error::Service(Box::new(WriteRefused {
            method: http::Method::DELETE,
            path: "/apis/hmc.mirantis.com/v1alpha1/namespaces/a/managedclusters/b".into(),
        }));
        assert_eq!(plain_error(&refused, "ManagedCluster", "b"), READ_ONLY);
        assert_eq!(delete_error(&refused, "ManagedCluster", "b"), READ_ONLY);
    }

    #[test]
    fn an_annotation_is_a_merge_patch_of_it_alone() {
        let annotations = BTreeMap::from([(
            labels::RETRY.to_string(),
            "2025-01-01T00:00:00Z".to_string(),
        )]);
        assert_eq!(
            annotations_patch(&annotations),
            serde_json::json!({
                "metadata": {"annotations": {
                    "hmc.mirantis.com/retry": "2025-01-01T00:00:00Z",
                }}
            })
        );
    }

    #[test]
    fn api_errors_in_plain_words() {
        let api = |code: u16, reason: &str, message: &str| {
            kube::Error::Api(
                kube::core::Status::failure(message, reason)
                    .with_code(code)
                    .boxed(),
            )
        };
        let forbidden = plain_error(
            &api(403, "Forbidden", "user \"bob\" cannot patch resource"),
            "TemplateRollout",
            "web-3",
        );
        assert!(
            forbidden.starts_with("not allowed to change TemplateRollout web-3"),
            "{forbidden}"
        );
        assert!(
            forbidden.ends_with("ask for patch on templaterollouts"),
            "{forbidden}"
        );
        assert_eq!(
            plain_error(
                &api(404, "NotFound", "not found"),
                "TemplateRollout",
                "web-3"
            ),
            "TemplateRollout web-3 no longer exists"
        );
        assert_eq!(
            plain_error(
                &api(422, "Invalid", "bad annotation"),
                "TemplateRollout",
                "web-3"
            ),
            "bad annotation"
        );
        assert!(is_conflict(&api(
            409,
            "Conflict",
            "the object has been modified"
        )));
        assert!(!is_conflict(&api(422, "Invalid", "bad")));
        let refused = delete_error(
            &api(403, "Forbidden", "user \"bob\" cannot delete"),
            "ManagedCluster",
            "dev-1",
        );
        assert!(
            refused.starts_with("not allowed to delete ManagedCluster dev-1")
                && refused.ends_with("ask for delete on managedclusters"),
            "{refused}"
        );
        assert_eq!(
            delete_error(&api(404, "NotFound", "x"), "ManagedCluster", "dev-1"),
            "ManagedCluster dev-1 no longer exists"
        );
    }
}
