//! What `d` shows of an object, as k9s's describe does: its fields, its
//! conditions, its services with their state, the objects it relates to,
//! and the last Events about it. Plain lines, for a scrolling view.
//!
//! Every text from the object is shown with its control characters
//! written out (`\u{1b}`), so that a crafted name or message can neither
//! drive the terminal nor break a table's columns.

mod multi;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use kube::api::ObjectMeta;

use crate::api::names::kubeconfig_secret;
use crate::api::{ClusterTemplate, ManagedCluster, RolloutPolicy, TemplateRollout};
use crate::plan::rollout::Gate;
use crate::plan::safe_text::escape_control;
use crate::plan::users::{cluster_template_users, service_template_users};
use crate::tui::model::age::{age, age_of, until};
use crate::tui::model::events;
use crate::tui::model::health::{
    Health, cluster_ready, condition_health, service_health, services_ready,
};
use crate::tui::model::hold;
use crate::tui::model::key::{Kind, Obj, ObjKey};
use crate::tui::model::rollouts::{
    cluster_health, phase, phase_health, wave_health, wave_state_name,
};
use crate::tui::model::rows::TemplateRef;
use crate::tui::model::snapshot::Snapshot;

/// How many of the object's Events are shown, newest first.
pub const LAST_EVENTS: usize = 10;

/// How a line is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Muted,
    /// A section's title.
    Heading,
    Health(Health),
}

/// One line: a label (empty for a section's rows) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub label: String,
    pub text: String,
    pub tone: Tone,
}

/// `text` with its control characters written out, taken over when it
/// has none.
fn safe(text: String) -> String {
    match escape_control(&text) {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(escaped) => escaped,
    }
}

fn field(label: &str, text: impl Into<String>, tone: Tone) -> Line {
    Line {
        label: format!("{label}:"),
        text: safe(text.into()),
        tone,
    }
}

fn heading(title: impl Into<String>) -> Line {
    Line {
        label: String::new(),
        text: safe(title.into()),
        tone: Tone::Heading,
    }
}

fn blank() -> Line {
    Line {
        label: String::new(),
        text: String::new(),
        tone: Tone::Plain,
    }
}

/// A section's table: column names (muted), then each row in its tone,
/// columns padded to their widest cell; `empty` when there are no rows.
/// An object's conditions, one row each, toned by their health.
fn conditions_table(
    now: Timestamp,
    conditions: &[k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition],
) -> Vec<Line> {
    table(
        &["TYPE", "STATUS", "REASON", "AGE", "MESSAGE"],
        conditions
            .iter()
            .map(|c| {
                (
                    vec![
                        c.type_.clone(),
                        c.status.clone(),
                        c.reason.clone(),
                        age(now, Some(&c.last_transition_time)),
                        c.message.clone(),
                    ],
                    Tone::Health(condition_health(&c.status, &c.reason)),
                )
            })
            .collect(),
        "no conditions yet",
    )
}

fn table(names: &[&str], rows: Vec<(Vec<String>, Tone)>, empty: &str) -> Vec<Line> {
    let row = |text: String, tone| Line {
        label: String::new(),
        text: format!("  {text}"),
        tone,
    };
    if rows.is_empty() {
        return vec![row(empty.to_string(), Tone::Muted)];
    }
    // Written out before the columns are measured, so they stay aligned.
    let rows: Vec<(Vec<String>, Tone)> = rows
        .into_iter()
        .map(|(cells, tone)| (cells.into_iter().map(safe).collect(), tone))
        .collect();
    let header: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for (cells, _) in &rows {
        for (w, c) in widths.iter_mut().zip(cells) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let last = cells.len().saturating_sub(1);
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                if i == last {
                    c.clone()
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![row(line(&header), Tone::Muted)];
    out.extend(
        rows.into_iter()
            .map(|(cells, tone)| row(line(&cells), tone)),
    );
    out
}

/// The object's describe lines; `None` when it no longer exists.
pub fn describe(data: &Snapshot, key: &ObjKey, now: Timestamp) -> Option<Vec<Line>> {
    let mut lines = match key.kind {
        Kind::ManagedCluster => cluster(
            data,
            data.cluster(&key.context, &key.namespace, &key.name)?,
            now,
        ),
        Kind::ClusterTemplate => {
            let ct = data.cluster_template(&key.context, &key.namespace, &key.name)?;
            template(data, TemplateRef::Cluster(ct), now)
        }
        Kind::ServiceTemplate => {
            let st = data.service_template(&key.context, &key.namespace, &key.name)?;
            template(data, TemplateRef::Service(st), now)
        }
        Kind::TemplateRollout => {
            rollout(data.rollout(&key.context, &key.namespace, &key.name)?, now)
        }
        Kind::MultiClusterService => multi::multi_cluster_service(
            data.multi_cluster_service(&key.context, &key.namespace, &key.name)?,
            now,
        ),
        // An Event describes itself: its YAML says it all.
        Kind::Event => return None,
    };
    lines.push(blank());
    lines.extend(last_events(data, key, now));
    Some(lines)
}

/// Name, namespace, kind and creation.
fn identity(kind: Kind, meta: &ObjectMeta, now: Timestamp) -> Vec<Line> {
    let created = meta.creation_timestamp.as_ref().map_or_else(
        || "-".to_string(),
        |t| format!("{} ({} ago)", t.0, age(now, Some(t))),
    );
    let mut lines = vec![
        field("Name", meta.name.clone().unwrap_or_default(), Tone::Plain),
        field(
            "Namespace",
            meta.namespace.clone().unwrap_or_default(),
            Tone::Plain,
        ),
        field("Kind", kind.label(), Tone::Plain),
        field("Created", created, Tone::Muted),
    ];
    if let Some(t) = &meta.deletion_timestamp {
        lines.push(field(
            "Deleting",
            format!("since {} ({} ago)", t.0, age(now, Some(t))),
            Tone::Health(Health::Muted),
        ));
    }
    lines
}

fn cluster(data: &Snapshot, mc: &Obj<ManagedCluster>, now: Timestamp) -> Vec<Line> {
    let ns = mc.metadata.namespace.clone().unwrap_or_default();
    let name = mc.metadata.name.clone().unwrap_or_default();
    let status = mc.status.clone().unwrap_or_default();
    let mut lines = identity(Kind::ManagedCluster, &mc.metadata, now);
    let (ready, health, message) = cluster_ready(mc);
    let ready = if message.is_empty() {
        ready
    } else {
        format!("{ready}: {message}")
    };
    let (services, services_health) = services_ready(mc);
    let revision = match (status.revision, status.target_revision) {
        (Some(r), Some(t)) if r != t => format!("{r} (given {t})"),
        (Some(r), _) => r.to_string(),
        (None, Some(t)) => format!("- (given {t})"),
        (None, None) => "-".into(),
    };
    lines.extend([
        field("Template", mc.spec.template.clone(), Tone::Plain),
        field("Ready", ready, Tone::Health(health)),
        field("Services", services, Tone::Health(services_health)),
        field("Revision", revision, Tone::Plain),
    ]);
    if mc.spec.dry_run {
        lines.push(field(
            "Dry run",
            "yes: validated, nothing created",
            Tone::Health(Health::Progressing),
        ));
    }
    lines.push(blank());
    lines.push(heading("Conditions"));
    lines.extend(conditions_table(now, &status.conditions));
    lines.push(blank());
    lines.push(heading("Services"));
    lines.extend(table(
        &[
            "NAME",
            "STATE",
            "VERSION",
            "REV",
            "NAMESPACE",
            "TEMPLATE",
            "MESSAGE",
        ],
        status
            .services
            .iter()
            .map(|s| {
                let or_dash = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
                (
                    vec![
                        s.name.clone(),
                        s.state.to_string(),
                        or_dash(&s.version),
                        s.revision.map_or_else(|| "-".into(), |r| r.to_string()),
                        or_dash(&s.namespace),
                        or_dash(&s.template),
                        s.message.clone().unwrap_or_default(),
                    ],
                    Tone::Health(service_health(s.state)),
                )
            })
            .collect(),
        "no services",
    ));
    lines.push(blank());
    lines.push(heading("Related"));
    let mut related: Vec<(Vec<String>, Tone)> = Vec::new();
    let template = data.cluster_template(&mc.context, &ns, &mc.spec.template);
    related.push(match template {
        Some(ct) => {
            let (valid, health) = TemplateRef::Cluster(ct).valid();
            let revision = TemplateRef::Cluster(ct).revision();
            (
                vec![
                    "ClusterTemplate".into(),
                    format!("{ns}/{}", mc.spec.template),
                    format!("valid {valid}, revision {revision}"),
                ],
                Tone::Health(health),
            )
        }
        None => (
            vec![
                "ClusterTemplate".into(),
                format!("{ns}/{}", mc.spec.template),
                "does not exist".into(),
            ],
            Tone::Health(Health::Failed),
        ),
    });
    // The template's newest rollout: the one that moves (or last moved)
    // this cluster.
    if let Some(r) = data.rollouts.iter().find(|r| {
        r.metadata.namespace.as_deref() == Some(&ns) && r.spec.template == mc.spec.template
    }) {
        let p = phase(r);
        let here = r
            .status
            .as_ref()
            .and_then(|s| s.clusters.iter().find(|c| c.name == name))
            .map(|c| format!(", this cluster {} in wave {}", c.state, c.wave))
            .unwrap_or_default();
        related.push((
            vec![
                "TemplateRollout".into(),
                format!("{ns}/{}", r.metadata.name.clone().unwrap_or_default()),
                format!("revision {} {p}{here}", r.spec.revision),
            ],
            Tone::Health(phase_health(p)),
        ));
    }
    related.push((
        vec![
            "Secret".into(),
            format!("{ns}/{}", kubeconfig_secret(&name)),
            "the child cluster's kubeconfig, through which services install".into(),
        ],
        Tone::Plain,
    ));
    let mut child_namespaces: Vec<String> = status
        .services
        .iter()
        .filter_map(|s| s.namespace.clone())
        .collect();
    child_namespaces.sort();
    child_namespaces.dedup();
    if !child_namespaces.is_empty() {
        related.push((
            vec![
                "Namespace".into(),
                child_namespaces.join(", "),
                "in the child cluster, where the services run".into(),
            ],
            Tone::Plain,
        ));
    }
    lines.extend(table(&["KIND", "NAME", "STATE"], related, ""));
    lines
}

fn template(data: &Snapshot, t: TemplateRef<'_>, now: Timestamp) -> Vec<Line> {
    let key = t.key();
    let mut lines = identity(key.kind, t.meta(), now);
    let (valid, health) = t.valid();
    let (message, is_error) = t.message();
    lines.push(field("Chart", t.chart(), Tone::Plain));
    lines.push(field("Valid", valid, Tone::Health(health)));
    if !message.is_empty() {
        let tone = if is_error {
            Tone::Health(Health::Failed)
        } else {
            Tone::Muted
        };
        let label = if is_error { "Error" } else { "Description" };
        lines.push(field(label, message, tone));
    }
    // The engine holds the chart's repository back: the whole hold, why
    // first, in the hold's colour.
    if let Some(h) = t.hold() {
        let why = Tone::Health(hold::health(Some(h)));
        lines.extend(
            hold::details(h, now)
                .into_iter()
                .enumerate()
                .map(|(i, (label, text))| {
                    field(label, text, if i == 0 { why } else { Tone::Plain })
                }),
        );
    }
    let users = match t {
        TemplateRef::Cluster(_) => {
            cluster_template_users(&key.namespace, &key.name, &data.clusters_in(&key.context))
        }
        TemplateRef::Service(_) => service_template_users(
            &key.namespace,
            &key.name,
            &data.cluster_templates_in(&key.context),
            &data.clusters_in(&key.context),
        ),
    };
    if let TemplateRef::Cluster(ct) = t {
        lines.push(field("Revision", t.revision(), Tone::Plain));
        lines.push(blank());
        lines.push(heading("Services"));
        lines.extend(services_of(ct));
        lines.push(blank());
        lines.push(heading("Rollout policy"));
        lines.extend(policy_lines(ct.spec.rollout.as_ref(), now));
    }
    lines.push(blank());
    lines.push(heading("Related"));
    let mut related: Vec<(Vec<String>, Tone)> = users
        .iter()
        .map(|u| {
            let (kind, name) = u.split_once(' ').unwrap_or((u.as_str(), ""));
            (
                vec![
                    kind.to_string(),
                    format!("{}/{name}", key.namespace),
                    "uses it".into(),
                ],
                Tone::Plain,
            )
        })
        .collect();
    if let TemplateRef::Cluster(_) = t {
        related.extend(
            data.rollouts
                .iter()
                .filter(|r| {
                    r.metadata.namespace.as_deref() == Some(&key.namespace)
                        && r.spec.template == key.name
                })
                .map(|r| {
                    let p = phase(r);
                    (
                        vec![
                            "TemplateRollout".into(),
                            format!(
                                "{}/{}",
                                key.namespace,
                                r.metadata.name.clone().unwrap_or_default()
                            ),
                            format!("revision {} {p}", r.spec.revision),
                        ],
                        Tone::Health(phase_health(p)),
                    )
                }),
        );
    }
    lines.extend(table(
        &["KIND", "NAME", "STATE"],
        related,
        "nothing uses it: it may be deleted",
    ));
    lines
}

/// A rollout policy: how waves are made, what holds them, and its change
/// windows with the next opening.
pub(super) fn policy_lines(policy: Option<&RolloutPolicy>, now: Timestamp) -> Vec<Line> {
    let policy = policy.cloned().unwrap_or_default();
    let max = match &policy.max_concurrent {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(s) => s.clone(),
    };
    let mut lines = vec![field(
        "Waves",
        format!(
            "{:?}, {max} at once{}, health timeout {}, failure budget {}{}",
            policy.strategy,
            policy
                .canary
                .filter(|c| *c > 0)
                .map(|c| format!(", canary {c}"))
                .unwrap_or_default(),
            policy.health_timeout,
            policy.failure_budget,
            policy
                .soak
                .as_ref()
                .map(|s| format!(", soak {s}"))
                .unwrap_or_default()
        ),
        Tone::Plain,
    )];
    if policy.paused {
        lines.push(field(
            "Paused",
            "yes: no new wave starts (spec.rollout.paused)",
            Tone::Health(Health::Pending),
        ));
    }
    if policy.windows.is_empty() {
        lines.push(field("Windows", "none: waves start any time", Tone::Muted));
        return lines;
    }
    let gate = Gate::of(&policy);
    if let Some(why) = &gate.unreadable {
        lines.push(field(
            "Windows",
            format!("unreadable, no wave starts: {why}"),
            Tone::Health(Health::Failed),
        ));
        return lines;
    }
    for (i, w) in gate.schedule.describe().into_iter().enumerate() {
        lines.push(field(if i == 0 { "Windows" } else { "" }, w, Tone::Plain));
    }
    let next = if gate.schedule.open_at(now) {
        ("open now".to_string(), Tone::Health(Health::Ready))
    } else {
        match gate.schedule.next_opening(now) {
            Some(at) => (
                format!("{at:.0} (in {})", until(now, at)),
                Tone::Health(Health::Progressing),
            ),
            None => ("never".to_string(), Tone::Health(Health::Failed)),
        }
    };
    lines.push(field("Next window", next.0, next.1));
    lines
}

fn services_of(ct: &ClusterTemplate) -> Vec<Line> {
    table(
        &["NAME", "TEMPLATE", "NAMESPACE"],
        ct.spec
            .services
            .iter()
            .map(|s| {
                (
                    vec![
                        s.name.clone(),
                        s.template.clone(),
                        s.namespace.clone().unwrap_or_else(|| s.name.clone()),
                    ],
                    Tone::Plain,
                )
            })
            .collect(),
        "no services",
    )
}

fn rollout(r: &TemplateRollout, now: Timestamp) -> Vec<Line> {
    let mut lines = identity(Kind::TemplateRollout, &r.metadata, now);
    let p = phase(r);
    let status = r.status.clone().unwrap_or_default();
    lines.extend([
        field("Template", r.spec.template.clone(), Tone::Plain),
        field("Revision", r.spec.revision.to_string(), Tone::Plain),
        field("Phase", p.to_string(), Tone::Health(phase_health(p))),
    ]);
    if let Some(m) = status.message.as_ref().filter(|m| !m.is_empty()) {
        lines.push(field("Message", m.clone(), Tone::Plain));
    }
    if let Some(c) = &status.change_summary {
        lines.push(field("Change", c.clone(), Tone::Plain));
    }
    lines.push(blank());
    lines.push(heading("Waves"));
    lines.extend(table(
        &["WAVE", "STATE", "APPROVED BY", "STARTED", "NOTE"],
        status
            .waves
            .iter()
            .map(|w| {
                (
                    vec![
                        w.number.to_string(),
                        wave_state_name(w.state).to_string(),
                        w.approved_by.clone().unwrap_or_else(|| "-".into()),
                        age_of(now, w.started_at.as_ref().map(|t| t.0)),
                        match (&w.opens_at, &w.soak_until, &w.started_now_by) {
                            (Some(at), _, _) => format!("window opens {:.0}", at.0),
                            (_, Some(end), _) => format!("soaks until {:.0}", end.0),
                            (_, _, Some(by)) => format!("started now by {by}"),
                            _ => String::new(),
                        },
                    ],
                    Tone::Health(wave_health(w.state)),
                )
            })
            .collect(),
        "not planned yet",
    ));
    lines.push(blank());
    lines.push(heading("Clusters"));
    lines.extend(table(
        &["NAME", "WAVE", "STATE", "FROM", "REASON"],
        status
            .clusters
            .iter()
            .map(|c| {
                (
                    vec![
                        c.name.clone(),
                        c.wave.to_string(),
                        c.state.to_string(),
                        c.from_revision
                            .map_or_else(|| "-".into(), |r| r.to_string()),
                        c.reason.clone().unwrap_or_default(),
                    ],
                    Tone::Health(cluster_health(c.state)),
                )
            })
            .collect(),
        "no clusters",
    ));
    lines
}

/// The last Events about the object, newest first.
fn last_events(data: &Snapshot, key: &ObjKey, now: Timestamp) -> Vec<Line> {
    let all = events::rows(&data.events, Some(key), "");
    let mut lines = vec![heading(if all.len() > LAST_EVENTS {
        format!("Events (last {LAST_EVENTS} of {})", all.len())
    } else {
        "Events".to_string()
    })];
    lines.extend(table(
        &["LAST SEEN", "TYPE", "REASON", "COUNT", "MESSAGE"],
        all.iter()
            .take(LAST_EVENTS)
            .map(|e| {
                let warning = events::is_warning(e);
                (
                    vec![
                        age_of(now, events::last_seen(e)),
                        e.type_.clone().unwrap_or_default(),
                        e.reason.clone().unwrap_or_default(),
                        events::count(e).to_string(),
                        events::message(e),
                    ],
                    if warning {
                        Tone::Health(Health::Failed)
                    } else {
                        Tone::Plain
                    },
                )
            })
            .collect(),
        "no events",
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::fixtures::objects::now;
    use crate::tui::fixtures::sample::{held, sample};

    fn text(kind: Kind, ns: &str, name: &str) -> String {
        let key = ObjKey {
            context: Default::default(),
            kind,
            namespace: ns.into(),
            name: name.into(),
        };
        describe(&sample(), &key, now())
            .unwrap_or_else(|| panic!("{name} is described"))
            .iter()
            .map(|l| format!("{}{}", l.label, l.text))
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn a_cluster_shows_conditions_services_related_and_events() {
        let t = text(Kind::ManagedCluster, "hmc-system", "prod-eu-1");
        for part in [
            "Name:prod-eu-1",
            "Ready:True: 2/2 services installed",
            "\nConditions\n",
            "\nServices\n",
            "ingress-nginx  Installed",
            "cert-manager   Installed",
            "ClusterTemplate  hmc-system/aws-standalone-cp",
            "Secret           hmc-system/prod-eu-1-kubeconfig",
            "\nEvents\n",
            "ServiceApplied",
            "ingress-nginx 4.11.3 at revision 2",
        ] {
            assert!(t.contains(part), "{part:?} in\n{t}");
        }
        // Another object's Events are not shown.
        assert!(!t.contains("TemplateNotFound"), "{t}");
    }

    #[test]
    fn a_template_says_who_uses_it_and_a_rollout_its_waves() {
        let words = |t: String| {
            t.split(' ')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let t = words(text(
            Kind::ClusterTemplate,
            "hmc-system",
            "aws-standalone-cp",
        ));
        for part in [
            "ManagedCluster hmc-system/prod-eu-1 uses it",
            "TemplateRollout hmc-system/aws-standalone-cp-3 revision 3 WaitingForApproval",
        ] {
            assert!(t.contains(part), "{part:?} in\n{t}");
        }
        let t = words(text(
            Kind::ServiceTemplate,
            "hmc-system",
            "cert-manager-1-16-2",
        ));
        assert!(
            t.contains("ClusterTemplate hmc-system/aws-standalone-cp uses it"),
            "{t}"
        );
        let r = sample().rollouts[0].clone();
        let t = text(
            Kind::TemplateRollout,
            r.metadata.namespace.as_deref().unwrap(),
            r.metadata.name.as_deref().unwrap(),
        );
        assert!(t.contains("\nWaves\n") && t.contains("\nClusters\n"), "{t}");
        let gone = ObjKey {
            context: Default::default(),
            kind: Kind::ManagedCluster,
            namespace: "x".into(),
            name: "gone".into(),
        };
        assert!(describe(&sample(), &gone, now()).is_none());
    }

    /// A template whose chart repository the engine holds back says the
    /// whole hold: why, where, how many failures, and when the next try is.
    #[test]
    fn a_held_template_shows_its_hold() {
        let lines = |kind, ns: &str, name: &str| {
            let key = ObjKey {
                context: Default::default(),
                kind,
                namespace: ns.into(),
                name: name.into(),
            };
            describe(&held(), &key, now())
                .unwrap()
                .iter()
                .map(|l| format!("{}{}", l.label, l.text))
                .collect::<Vec<_>>()
        };
        let t = lines(Kind::ServiceTemplate, "hmc-system", "podinfo-6-7-1");
        for part in [
            "Held back:quarantined: it did not answer, or refused the fetch",
            "Repository:http://charts.unreachable.example",
            "Failures:3 tries failed in a row",
            "Next try:2025-01-01T00:04:00Z (in 4m)",
        ] {
            assert!(t.iter().any(|l| l == part), "{part:?} in {t:#?}");
        }
        let t = lines(Kind::ClusterTemplate, "team-a", "azure-hosted");
        assert!(
            t.iter()
                .any(|l| l.starts_with("Held back:waits for a turn")),
            "{t:#?}"
        );
        assert!(!t.iter().any(|l| l.starts_with("Next try:")), "{t:#?}");
        // Not held back: nothing of it.
        let t = lines(Kind::ServiceTemplate, "hmc-system", "cert-manager-1-16-2");
        assert!(!t.iter().any(|l| l.starts_with("Held back:")), "{t:#?}");
    }
}
