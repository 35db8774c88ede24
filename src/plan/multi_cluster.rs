//! Which source gives each service of a cluster: the cluster's own (its
//! ClusterTemplate's services and its own entries, at the cluster's
//! `servicesPriority`) or a MultiClusterService that selects it (at the
//! MultiClusterService's priority).
//!
//! - A MultiClusterService reaches only the ManagedClusters of its own
//!   namespace, by their labels ([`selector`]); one of another namespace
//!   is never a source, whatever it selects.
//! - A service is known by its name, as everywhere in the planner: the
//!   release name derives from it. Where several sources name it, the
//!   highest priority gives it and the others are recorded as losers with
//!   why; equal top priorities are a conflict and no source gives it.
//! - A MultiClusterService's entry stands alone: it is planned with its own
//!   values over its ServiceTemplate's, as a ClusterTemplate's entry is.
//!   The cluster's entry of the same name counts only where the cluster's
//!   own source wins.
//! - A MultiClusterService with `stopOnConflict` that does not win every
//!   one of its services on a cluster gives that cluster none of them;
//!   the others' shares are then decided again without it.
//!
//! Everything here is ordered by what is written, never by a map's order:
//! the same objects always give the same answer.

mod decide;
pub mod report;
pub mod revision;
pub mod selector;

pub use decide::{
    Contender, Decision, MultiOnCluster, Outcome, Selected, Source, Stopped, services_for,
};
pub use report::{ClusterView, MultiReport, multi_report};
pub use revision::{next_revision, service_spec_hash};
pub use selector::{Selector, SelectorError, selects};

#[cfg(test)]
mod tests;
