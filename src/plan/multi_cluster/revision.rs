//! The revisions of a MultiClusterService's services, kept as a
//! ClusterTemplate keeps those of its services, so that a change can roll
//! out wave by wave and a cluster can keep the revision it has meanwhile.
//! Only `serviceSpec` makes a revision: the selector is not rolled out (a
//! cluster that gains or loses a label gains or loses the services at
//! once).

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::api::{MultiClusterServiceStatus, ServiceSpec, ServiceSpecRevision};
use crate::plan::revisions;

/// A stable hash of a service spec: a change here is a new revision.
pub fn service_spec_hash(spec: &ServiceSpec) -> String {
    let canonical = serde_json::to_vec(spec).unwrap_or_default();
    hex::encode(&Sha256::digest(&canonical)[..8])
}

/// The revision part of a MultiClusterService's status: the same revision
/// while `spec` hashes the same, the next one when it changes, with the
/// spec of each revision kept while a cluster in `in_use` uses it or it is
/// among the [`KEEP_REVISIONS`](crate::plan::revisions::KEEP_REVISIONS) newest. Only `revision`, `servicesHash` and
/// `revisions` are set.
pub fn next_revision(
    prev: &MultiClusterServiceStatus,
    spec: &ServiceSpec,
    in_use: &BTreeSet<i64>,
) -> MultiClusterServiceStatus {
    let hash = service_spec_hash(spec);
    let (revision, revisions) = revisions::next(
        (prev.revision, prev.services_hash.as_deref()),
        &hash,
        &prev.revisions,
        |r| r.revision,
        |revision| ServiceSpecRevision {
            revision,
            service_spec: spec.clone(),
        },
        in_use,
    );
    MultiClusterServiceStatus {
        revision: Some(revision),
        services_hash: Some(hash),
        revisions,
        ..Default::default()
    }
}
