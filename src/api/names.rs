//! The rules for the names people give, and the names the engine derives
//! from them. The CRDs refuse a bad name at admission with the same words
//! the engine uses for one stored before the rule existed.
//!
//! - A ManagedCluster name is a DNS label (lower-case letters, digits and
//!   `-`, no dots) of at most [`MAX_CLUSTER_NAME`] characters: it is the
//!   Helm release name of the cluster's chart (Helm allows 53), the name of
//!   its Cluster API objects and a label value (63 at most).
//! - A service name is a DNS label of at most [`MAX_SERVICE_NAME`]
//!   characters: it is the Helm release name in the cluster and, unless set,
//!   its namespace there.
//! - A name the engine derives is shortened by [`shorten`] when it would
//!   be longer than its limit: the first characters, then a hash of the
//!   whole name, so two long names still differ.

use sha2::{Digest, Sha256};

/// Longest ManagedCluster name: Helm's limit on release names.
pub const MAX_CLUSTER_NAME: usize = 53;
/// Longest service name: Helm's limit on release names.
pub const MAX_SERVICE_NAME: usize = 53;
/// Services a ClusterTemplate or a ManagedCluster lists: far beyond what a
/// cluster runs, and it keeps ordering them cheap whatever is written.
pub const MAX_SERVICES: usize = 256;
/// Names one service's `dependsOn` lists.
pub const MAX_DEPENDS_ON: usize = 32;
/// Longest label value, and longest name of an object whose name becomes a
/// label value (a release's objects are labelled with the release's name).
pub const MAX_LABEL_VALUE: usize = 63;
/// Longest name of most objects (a DNS subdomain).
pub const MAX_OBJECT_NAME: usize = 253;
/// Hex characters of the hash that [`shorten`] appends.
pub const HASH_LEN: usize = 10;

/// The ServiceAccount, in a ManagedCluster's own namespace, that installs the
/// cluster's chart: its release in the management cluster acts as this
/// account, never as the release controller's own identity, so a cluster
/// chart can do no more than a platform admin granted that account there.
/// The engine's admission policy (assets/deploy/releases-policy.yaml) lets
/// the engine name no other account.
pub const CLUSTER_INSTALLER: &str = "hmc-cluster-installer";

/// The pattern of a DNS label (RFC 1123), as the CRDs write it.
pub const DNS_LABEL_PATTERN: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

/// Why a cluster name is too long, in the CRD rule and in conditions.
pub const CLUSTER_NAME_LENGTH: &str = "a ManagedCluster name has at most 53 characters: it is the release name of the cluster's chart";
/// Why a cluster name has characters it may not, in the CRD rule and in
/// conditions.
pub const CLUSTER_NAME_CHARACTERS: &str = "a ManagedCluster name has only lower-case letters, digits and '-' (no dots), and starts and ends with a letter or digit";

/// The CEL rule on a ManagedCluster name's length. Like
/// [`cluster_name_characters_rule`] it holds on creation only
/// (`optionalOldSelf`): a name cannot change, and an object stored before
/// the rules existed must still take status writes and lose its finalizer.
pub fn cluster_name_length_rule() -> kube::core::Rule {
    creation_rule(
        format!("self.metadata.name.size() <= {MAX_CLUSTER_NAME}"),
        CLUSTER_NAME_LENGTH,
    )
}

/// The CEL rule on the characters of a ManagedCluster name.
pub fn cluster_name_characters_rule() -> kube::core::Rule {
    creation_rule(
        format!("self.metadata.name.matches('{DNS_LABEL_PATTERN}')"),
        CLUSTER_NAME_CHARACTERS,
    )
}

fn creation_rule(cond: String, message: &str) -> kube::core::Rule {
    kube::core::Rule::new(format!("oldSelf.hasValue() || {cond}"))
        .message(message)
        .optional_old_self(true)
}

/// True for a DNS label (RFC 1123) of any length.
pub fn is_dns_label(s: &str) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    match (b.first(), b.last()) {
        (Some(first), Some(last)) => {
            inner(first) && inner(last) && b.iter().all(|c| inner(c) || *c == b'-')
        }
        _ => false,
    }
}

/// Why a ManagedCluster name cannot be used, if it cannot.
pub fn cluster_name_problem(name: &str) -> Option<&'static str> {
    if !is_dns_label(name) {
        Some(CLUSTER_NAME_CHARACTERS)
    } else if name.len() > MAX_CLUSTER_NAME {
        Some(CLUSTER_NAME_LENGTH)
    } else {
        None
    }
}

/// Why a service name cannot be used, if it cannot.
pub fn service_name_problem(name: &str) -> Option<String> {
    if !is_dns_label(name) {
        Some(format!(
            "service name {name:?} cannot be used: a service name has only lower-case letters, \
             digits and '-' (no dots), and starts and ends with a letter or digit; rename it"
        ))
    } else if name.len() > MAX_SERVICE_NAME {
        Some(format!(
            "service name {name} has {} characters: a service name has at most \
             {MAX_SERVICE_NAME} (it is the release name in the cluster); rename it",
            name.len()
        ))
    } else {
        None
    }
}

/// The first [`HASH_LEN`] hex characters of the SHA-256 of `s`.
pub fn short_hash(s: &str) -> String {
    let mut h = hex::encode(Sha256::digest(s.as_bytes()));
    h.truncate(HASH_LEN);
    h
}

/// Cuts `s` to at most `len` characters and drops what may not end a
/// name part (`-`, `.`). `s` is ASCII (a Kubernetes name).
pub fn cut(s: &str, len: usize) -> &str {
    let end = s.len().min(len);
    s.get(..end)
        .unwrap_or(s)
        .trim_end_matches(|c: char| !c.is_ascii_alphanumeric())
}

/// `name` itself when it has at most `max` characters; otherwise its first
/// characters, `-` and the hash of the whole name, `max` at most. Two
/// different names stay different unless their hashes collide (40 bits).
/// For derived object names and label values.
pub fn shorten(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let keep = max.saturating_sub(HASH_LEN + 1);
    let head = cut(name, keep);
    if head.is_empty() {
        short_hash(name)
    } else {
        format!("{head}-{}", short_hash(name))
    }
}

/// The `reportingController` of the engine's Events: the console lists
/// the Events of this reporter.
pub const REPORTER: &str = "hmc-tui";

/// Which kind of template a chart source belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemplateKind {
    Service,
    Cluster,
}

impl TemplateKind {
    fn prefix(self) -> &'static str {
        match self {
            TemplateKind::Service => "svctmpl",
            TemplateKind::Cluster => "clustertmpl",
        }
    }
    pub fn kind(self) -> &'static str {
        match self {
            TemplateKind::Service => "ServiceTemplate",
            TemplateKind::Cluster => "ClusterTemplate",
        }
    }
}

/// Name of the chart source made for a template: `svctmpl-<template>` or
/// `clustertmpl-<template>`, shortened with a hash past 253 characters.
/// The prefixes tell the kinds apart; the rest is the template's own name.
pub fn source_name(kind: TemplateKind, template: &str) -> String {
    shorten(&format!("{}-{template}", kind.prefix()), MAX_OBJECT_NAME)
}

/// The template label of a chart source: `svctmpl.<template>`, shortened
/// with a hash past the 63 characters of a label value.
pub fn template_label(kind: TemplateKind, template: &str) -> String {
    shorten(&format!("{}.{template}", kind.prefix()), MAX_LABEL_VALUE)
}

/// Name of the release of one service of one cluster: `<cluster>.<service>`.
///
/// Cluster and service names are DNS labels (no dots), so the dot tells
/// where the cluster ends: no two (cluster, service) pairs share a name, and
/// none is the name of a cluster's own release (which has no dot).
///
/// A release's name is also a label value on everything it installs, so
/// it has at most 63 characters. Past that it is
/// `<start of cluster>.<start of service>.<hash>`: both names cut so that
/// the whole is 63 at most, and the first 10 hex characters of the SHA-256
/// of `<cluster>.<service>`. Its two dots keep it apart from every name of
/// the first form.
pub fn service_release_name(cluster: &str, service: &str) -> String {
    let full = format!("{cluster}.{service}");
    if full.len() <= MAX_LABEL_VALUE {
        return full;
    }
    let hash = short_hash(&full);
    // Room for both names: 63 less two dots and the hash. The cluster keeps
    // at least half of it, more when the service needs less.
    let room = MAX_LABEL_VALUE - 2 - hash.len();
    let cluster_room = cluster
        .len()
        .min((room / 2).max(room.saturating_sub(service.len())));
    let service_room = room - cluster_room;
    format!(
        "{}.{}.{hash}",
        cut(cluster, cluster_room),
        cut(service, service_room)
    )
}

/// The name service releases had before names could not collide:
/// `<cluster>-<service>`. A release of that name keeps being used (see
/// `plan::releases::choose_service_release_name`).
pub fn legacy_service_release_name(cluster: &str, service: &str) -> String {
    format!("{cluster}-{service}")
}

/// The secret Cluster API writes with the cluster's kubeconfig.
pub fn kubeconfig_secret(cluster: &str) -> String {
    format!("{cluster}-kubeconfig")
}

#[cfg(test)]
mod tests;
