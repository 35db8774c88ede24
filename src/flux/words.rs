//! Flux's messages, said in the product's words. People who run clusters
//! read these; they should learn what is wrong with their chart, repository
//! or cluster, not which Flux object complained.

/// Flux kinds and the word a platform engineer would use for each.
const KINDS: &[(&str, &str)] = &[
    ("HelmRelease", "service"),
    ("HelmChart", "chart"),
    ("HelmRepository", "chart repository"),
    ("OCIRepository", "chart registry"),
    ("ExternalArtifact", "chart"),
];

/// A template's chart, to say what went wrong with it.
#[derive(Clone, Copy, Debug)]
pub struct ChartWords<'a> {
    pub chart: &'a str,
    pub version: &'a str,
    /// The repository's address, or the chart source the template names.
    pub url: &'a str,
    /// How long the repository is given to answer (`60s`), when known.
    pub timeout: Option<&'a str>,
}

impl ChartWords<'_> {
    /// Why the chart could not be fetched, given the chart source's message
    /// and, when the repository itself failed, the repository's message.
    pub fn problem(&self, chart_msg: &str, repo_msg: Option<&str>) -> String {
        let Self {
            chart,
            version,
            url,
            ..
        } = *self;
        if let Some(repo) = repo_msg.filter(|m| !m.is_empty()) {
            if is_timeout(repo) {
                return format!("chart repository {url} did not answer {}", self.within());
            }
            return format!(
                "chart repository {url} cannot be read: {}",
                root_cause(&scrub(repo))
            );
        }
        if chart_msg.contains("chart with version matching")
            || chart_msg.contains("no chart version found")
        {
            return format!("chart {chart} {version} not found in repository {url}");
        }
        if chart_msg.contains("no chart name found")
            || chart_msg.contains("no '") && chart_msg.contains("' chart")
        {
            return format!("chart {chart} not found in repository {url}");
        }
        if chart_msg.is_empty() {
            return format!("fetching chart {chart} {version} from {url}");
        }
        if is_timeout(chart_msg) {
            return format!(
                "chart {chart} {version} could not be downloaded from {url} {}",
                self.within()
            );
        }
        format!("chart {chart} {version} from {url}: {}", scrub(chart_msg))
    }

    fn within(&self) -> String {
        match self.timeout {
            Some(t) => format!("within {t}"),
            None => "in time".to_string(),
        }
    }
}

/// Whether a Go error says that something did not answer in time.
pub fn is_timeout(message: &str) -> bool {
    [
        "context deadline exceeded",
        "Client.Timeout exceeded",
        "i/o timeout",
        "timeout awaiting response headers",
        "TLS handshake timeout",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

/// What a service says while objects changed by hand in its cluster are
/// being put back.
pub const REVERTING: &str = "reverting changes made by hand in the cluster";

/// How a service's message begins once changes made by hand were reverted.
pub const REVERTED: &str = "changes made by hand in the cluster were reverted";

/// How many objects a message names before it says how many more.
const NAMED_OBJECTS: usize = 3;

/// The release controller's note of a correction, in our words:
/// `changes made by hand in the cluster were reverted (Deployment
/// ingress/ingress-nginx-controller; ConfigMap ingress/x recreated)`.
///
/// The note reads `Cluster state of release <ns>/<name>.v<n> has been
/// corrected:` and then one line per object, `<Kind>/<ns>/<name> configured`
/// (patched back) or `... created` (it had been deleted).
pub fn drift_corrected(note: &str) -> String {
    let objects: Vec<String> = note
        .lines()
        .skip(1)
        .filter_map(|line| {
            let (object, action) = line.trim().rsplit_once(' ')?;
            let object = object_name(object);
            Some(match action {
                "created" => format!("{object} recreated"),
                _ => object,
            })
        })
        .collect();
    match listed(&objects, "; ") {
        Some(list) => format!("{REVERTED} ({list})"),
        None => REVERTED.to_string(),
    }
}

/// The release controller's note of a correction that failed, in our
/// words: `changes made by hand in the cluster could not be reverted:
/// Deployment ingress/x: <why>`.
///
/// The note reads `Failed to [partially ]correct cluster state of release
/// <ns>/<name>.v<n>:`, one line per failure (`<Kind>/<ns>/<name> patch
/// failure: <why>`), and after a blank line the corrections that worked.
pub fn drift_not_corrected(note: &str) -> String {
    let failures: Vec<String> = note
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .map(|line| {
            let line = line.trim();
            match line.split_once(' ') {
                Some((object, rest)) if object.contains('/') => {
                    let why = rest.split_once(": ").map_or(rest, |(_, why)| why);
                    format!("{}: {}", object_name(object), scrub(why))
                }
                _ => scrub(line),
            }
        })
        .collect();
    let base = "changes made by hand in the cluster could not be reverted";
    match listed(&failures, "; ") {
        Some(list) => format!("{base}: {list}"),
        None => base.to_string(),
    }
}

/// `Kind/namespace/name` (or `Kind/name`) as `Kind namespace/name`.
fn object_name(object: &str) -> String {
    match object.split_once('/') {
        Some((kind, rest)) => format!("{kind} {rest}"),
        None => object.to_string(),
    }
}

/// The first few items joined, and how many more there are.
fn listed(items: &[String], separator: &str) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let shown = items[..items.len().min(NAMED_OBJECTS)].join(separator);
    Some(match items.len().checked_sub(NAMED_OBJECTS) {
        Some(more) if more > 0 => format!("{shown} and {more} more"),
        _ => shown,
    })
}

/// A release failure, e.g. "install of ingress-nginx 4.11.3 failed: …".
pub fn release_problem(message: &str) -> String {
    if message.is_empty() {
        return String::new();
    }
    if message == crate::flux::CORRECTING_DRIFT {
        return REVERTING.to_string();
    }
    // "Running 'upgrade' action with timeout of 5m0s": work in progress.
    if let Some(rest) = message.strip_prefix("Running '")
        && let Some((action, tail)) = rest.split_once("' action")
    {
        let verb = match action {
            "install" => "installing",
            "upgrade" => "upgrading",
            "uninstall" => "uninstalling",
            "rollback" => "rolling back",
            "test" => "testing",
            other => other,
        };
        return match tail.split_once("timeout of ") {
            Some((_, t)) => format!("{verb} (timeout {})", t.trim()),
            None => verb.to_string(),
        };
    }
    if let Some(words) = kube_version_problem(message) {
        return words;
    }
    if let Some(words) = unreachable_cluster(message) {
        return words;
    }
    let lower = message.to_ascii_lowercase();
    for (needle, verb) in [
        ("install failed", "install"),
        ("upgrade failed", "upgrade"),
        ("uninstall failed", "uninstall"),
    ] {
        if let Some(pos) = lower.find(needle) {
            // "Helm install failed for release ns/name with chart x@1.2.3: cause"
            let chart = message[pos..].split_once("with chart ").map(|(_, rest)| {
                rest.split([':', ' '])
                    .next()
                    .unwrap_or("")
                    .replace('@', " ")
            });
            let cause = message[pos..]
                .split_once(": ")
                .map(|(_, c)| c)
                .unwrap_or("");
            return match chart {
                Some(c) if !c.is_empty() => format!("{verb} of {c} failed: {}", scrub(cause)),
                _ => format!("{verb} failed: {}", scrub(cause)),
            };
        }
    }
    scrub(message)
}

/// Helm's "Kubernetes cluster unreachable" (the child cluster's API server
/// does not answer), whatever it was doing then, as "the cluster at
/// https://10.0.0.7:6443 does not answer (connection refused)". `None` for
/// any other message.
fn unreachable_cluster(message: &str) -> Option<String> {
    let (_, rest) = message.split_once("Kubernetes cluster unreachable")?;
    // `: Get "https://10.0.0.7:6443/version?timeout=32s": dial tcp …: connection refused`
    let at = rest
        .split_once('"')
        .and_then(|(_, r)| r.split_once('"'))
        .and_then(|(url, _)| {
            let (scheme, after) = url.split_once("://")?;
            let host = after.split(['/', '?']).next()?;
            Some(format!(" at {scheme}://{host}"))
        })
        .unwrap_or_default();
    let why = rest
        .rsplit(": ")
        .next()
        .map(str::trim)
        .filter(|w| !w.is_empty() && !w.contains('"'))
        .map(|w| format!(" ({w})"))
        .unwrap_or_default();
    Some(format!("the cluster{at} does not answer{why}"))
}

/// Helm's refusal of a chart whose `kubeVersion` does not admit the
/// cluster's version, said as the engine says it for a ServiceTemplate's
/// `k8sConstraint`: "ingress-nginx 4.11.3 needs Kubernetes >=1.30.0-0,
/// cluster runs 1.29.0". `None` for any other message.
fn kube_version_problem(message: &str) -> Option<String> {
    // Helm: "chart requires kubeVersion: %s which is incompatible with Kubernetes %s"
    let (_, rest) = message.split_once("chart requires kubeVersion: ")?;
    let (wanted, runs) = rest.split_once(" which is incompatible with Kubernetes ")?;
    let runs = runs.split_whitespace().next().unwrap_or("");
    let runs = runs.strip_prefix('v').unwrap_or(runs);
    // "… with chart ingress-nginx@4.11.3: …" (or "… @4.11.3 failed: …")
    let chart = message
        .split_once("with chart ")
        .and_then(|(_, c)| c.split([':', ' ']).next())
        .filter(|c| !c.is_empty())
        .map_or_else(|| "the chart".to_string(), |c| c.replace('@', " "));
    Some(format!(
        "{chart} needs Kubernetes {}, cluster runs {runs}",
        wanted.trim()
    ))
}

/// Replaces Flux kinds and their `'namespace/name'` references.
pub fn scrub(message: &str) -> String {
    let mut out = message.to_string();
    for (kind, word) in KINDS {
        // `HelmChart 'ns/name'` -> `chart`
        while let Some(start) = out.find(&format!("{kind} '")) {
            let after = start + kind.len() + 2;
            match out[after..].find('\'') {
                Some(end) => out.replace_range(start..after + end + 1, word),
                None => break,
            }
        }
        out = out.replace(kind, word);
    }
    out
}

/// The last, most specific part of a wrapped Go error.
fn root_cause(message: &str) -> String {
    let parts: Vec<&str> = message.split(": ").collect();
    let n = parts.len();
    if n >= 2 {
        format!("{}: {}", parts[n - 2], parts[n - 1])
    } else {
        message.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_in_progress_read_as_verbs() {
        assert_eq!(
            release_problem("Running 'upgrade' action with timeout of 5m0s"),
            "upgrading (timeout 5m0s)"
        );
        assert_eq!(
            release_problem("Running 'install' action with timeout of 10m0s"),
            "installing (timeout 10m0s)"
        );
    }

    #[test]
    fn an_unreachable_cluster_is_said_whatever_the_action() {
        let install = "Helm install failed for release ns/c-ingress-nginx with chart \
                       ingress-nginx@4.11.3: Kubernetes cluster unreachable: Get \
                       \"https://127.0.0.1:17130/version?timeout=30s\": dial tcp \
                       127.0.0.1:17130: connect: connection refused";
        assert_eq!(
            release_problem(install),
            "the cluster at https://127.0.0.1:17130 does not answer (connection refused)"
        );
        assert_eq!(
            release_problem("Kubernetes cluster unreachable"),
            "the cluster does not answer"
        );
        let timeout = "uninstall failed: Kubernetes cluster unreachable: Get \
                       \"https://10.0.0.7:6443/version\": net/http: TLS handshake timeout";
        assert_eq!(
            release_problem(timeout),
            "the cluster at https://10.0.0.7:6443 does not answer (TLS handshake timeout)"
        );
    }

    const URL: &str = "http://127.0.0.1:18080";

    fn chart_problem(
        chart: &str,
        version: &str,
        url: &str,
        chart_msg: &str,
        repo_msg: Option<&str>,
    ) -> String {
        let words = ChartWords {
            chart,
            version,
            url,
            timeout: Some("60s"),
        };
        words.problem(chart_msg, repo_msg)
    }

    #[test]
    fn unknown_version_names_chart_version_and_repository() {
        let msg = "invalid chart reference: failed to get chart version for remote reference: \
                   no 'ingress-nginx' chart with version matching '4.11.9' found";
        assert_eq!(
            chart_problem("ingress-nginx", "4.11.9", URL, msg, None),
            "chart ingress-nginx 4.11.9 not found in repository http://127.0.0.1:18080"
        );
    }

    #[test]
    fn unreachable_repository_keeps_the_cause() {
        let repo = "failed to fetch Helm repository index: failed to cache index to temporary file: \
                    Get \"http://127.0.0.1:1/index.yaml\": dial tcp 127.0.0.1:1: connect: connection refused";
        let got = chart_problem(
            "x",
            "1.0.0",
            "http://127.0.0.1:1",
            "HelmRepository 'ns/svctmpl-x' is not ready",
            Some(repo),
        );
        assert!(
            got.starts_with("chart repository http://127.0.0.1:1 cannot be read: "),
            "{got}"
        );
        assert!(got.contains("connection refused"), "{got}");
        assert!(!got.contains("HelmRepository"), "{got}");
    }

    #[test]
    fn a_repository_that_does_not_answer_is_a_timeout_in_our_words() {
        let url = "http://127.0.0.1:40123";
        let repo = "failed to fetch Helm repository index: failed to cache index to temporary file: \
                    Get \"http://127.0.0.1:40123/index.yaml\": context deadline exceeded \
                    (Client.Timeout exceeded while awaiting headers)";
        assert_eq!(
            chart_problem(
                "x",
                "1.0.0",
                url,
                "HelmRepository 'ns/svctmpl-x' is not ready",
                Some(repo)
            ),
            "chart repository http://127.0.0.1:40123 did not answer within 60s"
        );
        let words = ChartWords {
            chart: "x",
            version: "1.0.0",
            url: "HelmChart x",
            timeout: None,
        };
        assert_eq!(
            words.problem(
                "failed to download chart: Get \"http://h/x.tgz\": net/http: TLS handshake timeout",
                None
            ),
            "chart x 1.0.0 could not be downloaded from HelmChart x in time"
        );
        assert!(!is_timeout(
            "dial tcp 127.0.0.1:1: connect: connection refused"
        ));
    }

    #[test]
    fn release_failures_read_as_installs() {
        let msg = "Helm install failed for release ingress-nginx/dev-1-ingress-nginx with chart ingress-nginx@4.11.3: \
                   context deadline exceeded";
        assert_eq!(
            release_problem(msg),
            "install of ingress-nginx 4.11.3 failed: context deadline exceeded"
        );
    }

    #[test]
    fn corrected_drift_names_what_was_put_back() {
        let note = "Cluster state of release ingress/ingress-nginx.v1 has been corrected:\n\
                    Deployment/ingress/ingress-nginx-controller configured";
        assert_eq!(
            drift_corrected(note),
            "changes made by hand in the cluster were reverted \
             (Deployment ingress/ingress-nginx-controller)"
        );
        let note = "Cluster state of release ingress/ingress-nginx.v2 has been corrected:\n\
                    ConfigMap/ingress/ingress-nginx-controller created\n\
                    ClusterRole/ingress-nginx created\n\
                    Deployment/ingress/ingress-nginx-controller configured\n\
                    Service/ingress/ingress-nginx-controller configured";
        assert_eq!(
            drift_corrected(note),
            "changes made by hand in the cluster were reverted \
             (ConfigMap ingress/ingress-nginx-controller recreated; ClusterRole ingress-nginx \
             recreated; Deployment ingress/ingress-nginx-controller and 1 more)"
        );
        assert_eq!(
            drift_corrected("Cluster state of release a/b.v1 has been corrected:"),
            "changes made by hand in the cluster were reverted"
        );
    }

    #[test]
    fn failed_corrections_say_what_stayed_and_why() {
        let note = "Failed to partially correct cluster state of release ingress/ingress-nginx.v1:\n\
                    Deployment/ingress/ingress-nginx-controller patch failure: admission webhook \
                    denied the request\n\
                    \n\
                    Successful corrections:\n\
                    ConfigMap/ingress/ingress-nginx-controller created";
        assert_eq!(
            drift_not_corrected(note),
            "changes made by hand in the cluster could not be reverted: \
             Deployment ingress/ingress-nginx-controller: admission webhook denied the request"
        );
        assert_eq!(
            drift_not_corrected("Failed to correct cluster state of release a/b.v1:\nboom"),
            "changes made by hand in the cluster could not be reverted: boom"
        );
        assert_eq!(release_problem("correcting cluster drift"), REVERTING);
    }

    #[test]
    fn scrub_removes_every_flux_kind() {
        let got = scrub(
            "HelmChart 'hmc/svctmpl-a' is not ready; HelmRelease failed; OCIRepository 'x/y' missing",
        );
        assert_eq!(
            got,
            "chart is not ready; service failed; chart registry missing"
        );
        for (kind, _) in KINDS {
            assert!(!got.contains(kind));
        }
    }

    #[test]
    fn helms_kube_version_refusal_reads_like_a_constraint() {
        // helm-controller v1.4's message around Helm's own words (helm
        // pkg/action: "chart requires kubeVersion: %s which is incompatible
        // with Kubernetes %s").
        let msg = "Helm install failed for release ingress-nginx/dev-1-ingress-nginx with chart ingress-nginx@4.11.3: \
                   chart requires kubeVersion: >=1.30.0-0 which is incompatible with Kubernetes v1.29.0";
        assert_eq!(
            release_problem(msg),
            "ingress-nginx 4.11.3 needs Kubernetes >=1.30.0-0, cluster runs 1.29.0"
        );
        // Later helm-controllers, an upgrade, Helm's logs after it.
        let msg = "Install of release web/dev-1-web with chart web@1.0.0 failed: \
                   chart requires kubeVersion: >= 1.31.0 which is incompatible with Kubernetes v1.30.2+k3s1\n\nLast Helm logs:\n\nx";
        assert_eq!(
            release_problem(msg),
            "web 1.0.0 needs Kubernetes >= 1.31.0, cluster runs 1.30.2+k3s1"
        );
        assert_eq!(
            release_problem(
                "chart requires kubeVersion: ~1.29 which is incompatible with Kubernetes v1.34.4"
            ),
            "the chart needs Kubernetes ~1.29, cluster runs 1.34.4"
        );
    }
}
