//! Counts every request a client sends to the API server, by verb and
//! resource: what `/metrics` reports as `hmc_api_requests_total` and what
//! the engine benchmark divides by the number of clusters.
//!
//! The count is taken by a tower layer around the whole client, so it sees
//! every request: the stores' lists and watches, reconcilers' reads and
//! writes, Events and lease renewals alike.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use http::{Method, Request};

/// Requests sent, keyed by (verb, resource).
#[derive(Debug, Default)]
pub struct ApiRequests(Mutex<BTreeMap<(&'static str, String), u64>>);

impl ApiRequests {
    /// Counts one request.
    pub fn count<B>(&self, req: &Request<B>) {
        let (verb, resource) = classify(req.method(), req.uri().path(), req.uri().query());
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *map.entry((verb, resource)).or_default() += 1;
    }

    pub fn snapshot(&self) -> BTreeMap<(&'static str, String), u64> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Whether a verb reads (get, list, watch) rather than writes.
pub fn is_read(verb: &str) -> bool {
    matches!(verb, "get" | "list" | "watch")
}

/// The Kubernetes verb and the resource (with `/subresource`) of a request
/// path such as `/apis/group/v1/namespaces/ns/kind/name/status`.
pub fn classify(method: &Method, path: &str, query: Option<&str>) -> (&'static str, String) {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    // `/api/v1/...` or `/apis/<group>/<version>/...`; anything else (discovery,
    // /version) is counted under its first segment.
    let rest: &[&str] = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        other => other,
    };
    // Namespaced paths: `namespaces/<ns>/<resource>...`; a bare
    // `namespaces[/<name>]` is the Namespace resource itself.
    let rest = match rest {
        ["namespaces", _ns, tail @ ..] if !tail.is_empty() => tail,
        other => other,
    };
    let resource = match rest {
        [] => String::new(),
        [kind] | [kind, _] => (*kind).to_string(),
        [kind, _name, sub, ..] => format!("{kind}/{sub}"),
    };
    let named = rest.len() >= 2;
    let watching =
        query.is_some_and(|q| q.split('&').any(|kv| kv == "watch=true" || kv == "watch=1"));
    let verb = match *method {
        Method::GET if watching => "watch",
        Method::GET if named => "get",
        Method::GET => "list",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if named => "delete",
        Method::DELETE => "deletecollection",
        _ => "other",
    };
    (verb, resource)
}

/// A kube client for `config` whose every request is counted in `requests`.
pub fn counted_client(
    config: kube::Config,
    requests: Arc<ApiRequests>,
) -> Result<kube::Client, kube::Error> {
    let layer = tower::util::MapRequestLayer::new(move |req: Request<kube::client::Body>| {
        requests.count(&req);
        req
    });
    Ok(kube::client::ClientBuilder::try_from(config)?
        .with_layer(&layer)
        .build())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verb_of(method: Method, path: &str, query: Option<&str>) -> (&'static str, String) {
        classify(&method, path, query)
    }

    #[test]
    fn classifies_kubernetes_paths() {
        let cases = [
            (
                Method::GET,
                "/apis/hmc.mirantis.com/v1alpha1/namespaces/a/managedclusters",
                None,
                ("list", "managedclusters"),
            ),
            (
                Method::GET,
                "/apis/hmc.mirantis.com/v1alpha1/managedclusters",
                Some("watch=true&resourceVersion=1"),
                ("watch", "managedclusters"),
            ),
            (
                Method::GET,
                "/apis/hmc.mirantis.com/v1alpha1/namespaces/a/templaterollouts/t-2",
                None,
                ("get", "templaterollouts"),
            ),
            (
                Method::PATCH,
                "/apis/helm.toolkit.fluxcd.io/v2/namespaces/a/helmreleases/c1-ingress",
                Some("fieldManager=hmc-tui&force=true"),
                ("patch", "helmreleases"),
            ),
            (
                Method::PATCH,
                "/apis/hmc.mirantis.com/v1alpha1/namespaces/a/managedclusters/c1/status",
                None,
                ("patch", "managedclusters/status"),
            ),
            (
                Method::POST,
                "/apis/events.k8s.io/v1/namespaces/a/events",
                None,
                ("create", "events"),
            ),
            (
                Method::PUT,
                "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/hmc-tui-engine",
                None,
                ("update", "leases"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/a",
                None,
                ("get", "namespaces"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces",
                None,
                ("list", "namespaces"),
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/a/secrets/s",
                None,
                ("delete", "secrets"),
            ),
            (Method::GET, "/version", None, ("list", "version")),
        ];
        for (method, path, query, (verb, resource)) in cases {
            assert_eq!(
                verb_of(method, path, query),
                (verb, resource.to_string()),
                "{path}"
            );
        }
    }

    #[test]
    fn counts_by_verb_and_resource() {
        let requests = ApiRequests::default();
        for _ in 0..3 {
            requests.count(
                &Request::patch("/api/v1/namespaces/a/secrets/s")
                    .body(())
                    .unwrap(),
            );
        }
        requests.count(
            &Request::get("/api/v1/namespaces/a/secrets")
                .body(())
                .unwrap(),
        );
        let snapshot = requests.snapshot();
        assert_eq!(snapshot[&("patch", "secrets".to_string())], 3);
        assert_eq!(snapshot[&("list", "secrets".to_string())], 1);
        assert!(is_read("watch") && !is_read("patch"));
    }
}
