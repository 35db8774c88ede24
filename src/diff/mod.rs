//! `hmc-tui diff`: what applying some manifests would do to the fleet,
//! cluster by cluster, before anything is applied. It reads the manifests
//! as `kubectl apply -f` does ([`manifests`]), the live objects of the
//! namespaces they touch and their charts ([`live`]), runs the same
//! planner as the console's review ([`crate::plan::impact`]) and prints
//! the answer ([`report`]). It only reads: no write, no engine.

pub mod immutable;
pub mod live;
pub mod manifests;
pub mod report;

use std::collections::BTreeSet;

use kube::{Client, ResourceExt};

use crate::plan::chart_check::first_schema_error;
use crate::plan::impact::impact_checked;
use crate::plan::safe_text::escape_control;
use report::Report;

/// What to read.
#[derive(Clone, Debug)]
pub struct Request {
    /// Files, directories and `-`.
    pub paths: Vec<String>,
    pub recursive: bool,
    /// For documents that name none: the kubeconfig context's namespace or
    /// `--namespace`.
    pub namespace: String,
}

/// Why nothing could be planned at all. Its words name files and objects
/// from the manifests, and quote the API server: their control characters
/// are written out.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("{}: {}", escape_control(.0), escape_control(.1))]
    Read(String, String),
    #[error(
        "cannot read the fleet from the management cluster: {}",
        escape_control(&.0.to_string())
    )]
    Live(#[from] kube::Error),
}

/// Reads, plans and reports. Documents that would be refused are in the
/// report's errors; the others are planned all the same.
pub async fn run(
    client: &Client,
    request: &Request,
    stdin: &mut dyn std::io::Read,
) -> Result<Report, DiffError> {
    let files = manifests::files(&request.paths, request.recursive)
        .map_err(|e| DiffError::Read(e.origin.file, e.message))?;
    let mut texts = Vec::new();
    let mut errors = Vec::new();
    for file in files {
        match manifests::read(&file, stdin) {
            Ok(text) => texts.push((file, text)),
            Err(e) => errors.push(e),
        }
    }
    let mut proposal = manifests::proposal(&texts, &request.namespace);
    errors.append(&mut proposal.errors);
    let proposed = &proposal.objects;
    let namespaces: BTreeSet<String> = proposed
        .cluster_templates
        .iter()
        .map(|o| o.namespace())
        .chain(proposed.service_templates.iter().map(|o| o.namespace()))
        .chain(proposed.clusters.iter().map(|o| o.namespace()))
        .flatten()
        .collect();
    let fleet = live::fleet(client, &namespaces).await?;
    // What apply would refuse is an error at its document, and not planned.
    let refused = immutable::refused(&fleet, &proposal.objects);
    for (id, why) in &refused {
        let origin = proposal.origins.iter().find(|(i, _)| i == id);
        errors.extend(origin.map(|(_, origin)| manifests::DocError {
            origin: origin.clone(),
            message: format!("{} {}/{}: {why}", id.0, id.1, id.2),
        }));
    }
    let ids: Vec<manifests::Id> = refused.into_iter().map(|(id, _)| id).collect();
    immutable::without(&mut proposal.objects, &ids);
    let objects = &proposal.objects;
    let (charts, mut notes) = live::charts(client, &fleet, objects).await;
    let check = |ns: &str, template: &str, values: &serde_json::Value| {
        let chart = charts.get(&(ns.to_string(), template.to_string()))?;
        // Under a secret-looking key the schema's words quote no value
        // (`chart_check::Violation`).
        first_schema_error(chart, values)
    };
    let impacts = impact_checked(&fleet, objects, &check);
    notes.extend(
        proposal
            .skipped
            .iter()
            .map(|(origin, kind)| format!("{origin}: {kind} is not one of ours; not planned")),
    );
    Ok(Report {
        impacts,
        notes,
        errors,
    })
}

#[cfg(test)]
mod tests {
    use super::DiffError;

    #[test]
    fn an_error_writes_out_the_control_characters_it_quotes() {
        let e = DiffError::Read("f\u{1b}[2J.yaml".into(), "bad \u{9b}31m".into());
        assert_eq!(e.to_string(), "f\\u{1b}[2J.yaml: bad \\u{9b}31m");
    }
}
