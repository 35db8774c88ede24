//! The revisions of a set of services, kept alike for a ClusterTemplate's
//! services and a MultiClusterService's: the same revision while what they
//! hash to stays the same, the next one when it changes, and the specs of
//! the recent revisions and of those a cluster still uses remembered, so
//! that a rollout can move clusters from one to the next.

use std::collections::BTreeSet;

/// Revisions remembered beyond those still in use.
pub const KEEP_REVISIONS: usize = 10;

/// The revision after `(revision, hash)` for services hashing to `hash`,
/// and the remembered revisions: `kept` (of which `revision_of` says the
/// number) with `new`'s made for the revision when it is new, in revision
/// order, the [`KEEP_REVISIONS`] newest and those in `in_use`.
pub fn next<R>(
    (revision, hash): (Option<i64>, Option<&str>),
    new_hash: &str,
    kept: &[R],
    revision_of: impl Fn(&R) -> i64,
    new: impl FnOnce(i64) -> R,
    in_use: &BTreeSet<i64>,
) -> (i64, Vec<R>)
where
    R: Clone,
{
    let next = match (revision, hash) {
        (Some(r), Some(h)) if h == new_hash => r,
        (Some(r), _) => r.saturating_add(1),
        (None, _) => 1,
    };
    let mut revisions = kept.to_vec();
    if !revisions.iter().any(|r| revision_of(r) == next) {
        revisions.push(new(next));
    }
    revisions.sort_by_key(&revision_of);
    let recent_from = revisions.len().saturating_sub(KEEP_REVISIONS);
    let mut index = 0;
    revisions.retain(|r| {
        index += 1;
        index > recent_from || in_use.contains(&revision_of(r))
    });
    (next, revisions)
}
