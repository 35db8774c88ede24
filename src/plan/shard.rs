//! Which shard of the release controller looks after a cluster's releases.
//!
//! The operator names the shards (`--shards shard1,shard2`); each cluster
//! gets one of them by rendezvous (highest-random-weight) hashing: every
//! key is scored against `<namespace>/<cluster>` with a stable hash (the
//! first 8 bytes of a SHA-256), and the highest score wins. So a cluster's
//! shard is the same on every run and every machine, the clusters spread
//! evenly, and adding or removing a key moves only the clusters that go to,
//! or came from, that key. Pure: no I/O.

use sha2::{Digest, Sha256};

use crate::api::names::MAX_LABEL_VALUE;

/// The shard of cluster `name` in `namespace` among `keys`: `None` when
/// there are no keys (the releases then carry no shard at all). The order
/// of `keys` does not matter, nor does a key given twice.
pub fn shard_of<'k>(keys: &'k [String], namespace: &str, name: &str) -> Option<&'k str> {
    let cluster = format!("{namespace}/{name}");
    keys.iter()
        .map(|key| (score(key, &cluster), key.as_str()))
        // Equal scores (practically never) go to the greater key, so the
        // answer still does not depend on the order of `keys`.
        .max()
        .map(|(_, key)| key)
}

/// The weight of `key` for `cluster`: stable across runs and builds.
fn score(key: &str, cluster: &str) -> u64 {
    let mut hash = Sha256::new();
    hash.update(key.as_bytes());
    // A byte no key or name holds keeps `a`+`b/c` apart from `ab`+`/c`.
    hash.update([0]);
    hash.update(cluster.as_bytes());
    let digest = hash.finalize();
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

/// One shard key as written in `--shards`: a label value that is not empty,
/// of at most 63 characters, letters, digits, `-`, `_` and `.`, beginning
/// and ending with a letter or digit. The error says what is wrong.
pub fn key(text: &str) -> Result<String, String> {
    let key = text.trim();
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    if key.is_empty() {
        Err("a shard key is empty: write keys such as shard1,shard2".into())
    } else if key.len() > MAX_LABEL_VALUE {
        Err(format!(
            "shard key {key:?} is too long: a label value has at most {MAX_LABEL_VALUE} characters"
        ))
    } else if !key
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        || !edge(key.chars().next())
        || !edge(key.chars().last())
    {
        Err(format!(
            "shard key {key:?} is not a label value: use letters, digits, '-', '_' and '.', \
             beginning and ending with a letter or digit"
        ))
    } else {
        Ok(key.to_string())
    }
}

/// Shard keys, as [`keys`] reads them. A name of its own so that a
/// command-line parser takes the whole list as one value.
pub type Keys = Vec<String>;

/// A list of keys as written in `HMC_SHARDS` (`shard1,shard2`); empty text
/// is no keys. Keys given twice are kept once.
pub fn keys(text: &str) -> Result<Keys, String> {
    let mut keys = Vec::new();
    for part in text.split(',').filter(|p| !p.trim().is_empty()) {
        let k = key(part)?;
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn named(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("shard{i}")).collect()
    }

    fn clusters(n: usize) -> Vec<(String, String)> {
        (0..n)
            .map(|i| (format!("team-{}", i % 7), format!("cluster-{i}")))
            .collect()
    }

    fn assign(keys: &[String], clusters: &[(String, String)]) -> Vec<String> {
        clusters
            .iter()
            .map(|(ns, name)| shard_of(keys, ns, name).unwrap().to_string())
            .collect()
    }

    #[test]
    fn no_keys_no_shard() {
        assert_eq!(shard_of(&[], "ns", "a"), None);
        assert_eq!(shard_of(&named(1), "ns", "a"), Some("shard1"));
    }

    #[test]
    fn a_cluster_keeps_its_shard_whatever_the_order_of_keys() {
        let keys = named(5);
        let mut reversed = keys.clone();
        reversed.reverse();
        for (ns, name) in clusters(200) {
            let a = shard_of(&keys, &ns, &name);
            assert_eq!(a, shard_of(&keys, &ns, &name));
            assert_eq!(a, shard_of(&reversed, &ns, &name));
        }
        // Pinned: the same on every machine and every build.
        assert_eq!(shard_of(&named(2), "default", "dev-1"), Some("shard1"));
        assert_eq!(shard_of(&named(2), "default", "dev-3"), Some("shard2"));
        // The namespace counts: the same name elsewhere is another cluster.
        let two = named(2);
        let spread: std::collections::BTreeSet<_> = (0..20)
            .filter_map(|i| shard_of(&two, &format!("ns-{i}"), "dev-1"))
            .collect();
        assert_eq!(spread.len(), 2);
    }

    #[test]
    fn clusters_spread_evenly() {
        let all = clusters(10_000);
        for k in 2..=5 {
            let keys = named(k);
            let mut count = BTreeMap::<String, usize>::new();
            for key in assign(&keys, &all) {
                *count.entry(key).or_default() += 1;
            }
            assert_eq!(count.len(), k);
            let fair = all.len() as f64 / k as f64;
            for (key, n) in count {
                let off = (n as f64 - fair).abs() / fair;
                assert!(off < 0.05, "{key}: {n} of {} over {k} keys", all.len());
            }
        }
    }

    #[test]
    fn adding_a_key_moves_only_clusters_onto_it() {
        let all = clusters(10_000);
        for k in 1..=4 {
            let before = assign(&named(k), &all);
            let after = assign(&named(k + 1), &all);
            let new = format!("shard{}", k + 1);
            let moved: Vec<_> = before.iter().zip(&after).filter(|(b, a)| b != a).collect();
            assert!(moved.iter().all(|(_, a)| **a == new), "{k} to {}", k + 1);
            let share = moved.len() as f64 / all.len() as f64;
            let fair = 1.0 / (k + 1) as f64;
            assert!((share - fair).abs() < 0.02, "{k} to {}: {share}", k + 1);
        }
    }

    #[test]
    fn removing_a_key_moves_only_its_clusters() {
        let all = clusters(10_000);
        let keys = named(4);
        let before = assign(&keys, &all);
        for gone in &keys {
            let rest: Vec<String> = keys.iter().filter(|k| *k != gone).cloned().collect();
            let after = assign(&rest, &all);
            for (b, a) in before.iter().zip(&after) {
                if b == gone {
                    assert_ne!(a, gone);
                } else {
                    assert_eq!(a, b, "a cluster of {b} moved when {gone} went");
                }
            }
        }
    }

    #[test]
    fn keys_are_label_values() {
        assert_eq!(keys("").unwrap(), Vec::<String>::new());
        assert_eq!(keys(" , ").unwrap(), Vec::<String>::new());
        assert_eq!(keys("shard1, shard2,shard1").unwrap(), named(2));
        assert_eq!(keys("a.b_c-1").unwrap(), vec!["a.b_c-1".to_string()]);
        assert!(key(&"s".repeat(63)).is_ok());
        for bad in ["-a", "a-", "a b", "a/b", "ä", "a=b", &"s".repeat(64), ""] {
            let err = key(bad).unwrap_err();
            assert!(!err.contains('\n'), "{err}");
        }
        assert!(keys("shard1,bad key").is_err());
    }
}
