//! The places the console can show: the kubeconfig's contexts, the
//! cluster's namespaces, and each context's namespace favourites (k9s'
//! recently used namespaces: the newest first, at most [`MAX_FAVOURITES`];
//! one already there keeps its place, so its digit does not move).

use std::collections::BTreeMap;

/// Digits `1`–`9`: at most this many favourites per context.
pub const MAX_FAVOURITES: usize = 9;

/// What `:ns` and `:ctx` say for all namespaces.
pub const ALL: &str = "all";

/// A context of the kubeconfig.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContextInfo {
    pub name: String,
    /// The namespace the kubeconfig gives it, if any: `:ctx` moves there.
    pub namespace: Option<String>,
}

/// The places the console knows of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Places {
    /// The kubeconfig's contexts; empty in a cluster (no kubeconfig).
    pub contexts: Vec<ContextInfo>,
    /// The namespaces the API server listed, when it let the console.
    pub namespaces: Option<Vec<String>>,
    /// The favourites of each context, the newest first.
    pub favourites: BTreeMap<String, Vec<String>>,
    /// A context the runtime is connecting to.
    pub connecting: Option<String>,
    /// `--readonly`: every context is read-only.
    pub readonly_everywhere: bool,
    /// The contexts the settings file makes read-only.
    pub readonly_contexts: std::collections::BTreeSet<String>,
}

impl Places {
    /// Whether the console may not write on `context`.
    pub fn readonly_at(&self, context: &str) -> bool {
        self.readonly_everywhere || self.readonly_contexts.contains(context)
    }

    /// The current context's favourites.
    pub fn favourites_of(&self, context: &str) -> &[String] {
        self.favourites.get(context).map_or(&[], Vec::as_slice)
    }

    /// Makes `namespace` a favourite of `context`: its favourites when
    /// that changed them (to be saved), else `None`.
    pub fn keep_favourite(&mut self, context: &str, namespace: &str) -> Option<Vec<String>> {
        let list = self.favourites.entry(context.to_string()).or_default();
        let before = list.clone();
        remember(list, namespace);
        (*list != before).then(|| list.clone())
    }
}

/// Adds a namespace to a favourites list: first when new, in place when
/// already there; at most [`MAX_FAVOURITES`].
pub fn remember(list: &mut Vec<String>, namespace: &str) {
    if list.iter().any(|n| n == namespace) {
        return;
    }
    list.insert(0, namespace.to_string());
    list.truncate(MAX_FAVOURITES);
}
