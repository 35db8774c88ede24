//! What this engine last did to each cluster's kubeconfig secret (see
//! `clusters::access`): so that a hold or a release is sent once, not at
//! every reconcile.

use std::collections::HashMap;
use std::sync::Mutex;

/// By (namespace, cluster). Forgotten when the engine restarts, which then
/// sends each once again (both are idempotent).
#[derive(Default)]
pub struct Holds(Mutex<HashMap<(String, String), Hold>>);

/// The last thing done to a cluster's kubeconfig secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hold {
    Held,
    Released,
}

impl Holds {
    pub fn get(&self, ns: &str, cluster: &str) -> Option<Hold> {
        let map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.get(&(ns.to_string(), cluster.to_string())).copied()
    }

    pub fn set(&self, ns: &str, cluster: &str, hold: Hold) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.insert((ns.to_string(), cluster.to_string()), hold);
    }

    /// Forgets a cluster that is gone, so that the map holds the clusters
    /// there are, not every cluster the engine ever saw.
    pub fn forget(&self, ns: &str, cluster: &str) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&(ns.to_string(), cluster.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_remember_the_last_thing_done() {
        let holds = Holds::default();
        assert_eq!(holds.get("ns", "a"), None);
        holds.set("ns", "a", Hold::Held);
        holds.set("ns", "a", Hold::Released);
        assert_eq!(holds.get("ns", "a"), Some(Hold::Released));
        assert_eq!(holds.get("other", "a"), None);
        holds.forget("ns", "a");
        assert_eq!(holds.get("ns", "a"), None);
    }
}
