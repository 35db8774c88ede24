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
            return format!("{FETCHING} chart {chart} {version} from {url}");
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

/// How a template's validation error begins while its chart is still being
/// fetched (see [`is_fetching`]).
const FETCHING: &str = "fetching";

/// Whether a template's validation error only says its chart is still
/// being fetched: it waits, nothing failed.
pub fn is_fetching(why: &str) -> bool {
    why.starts_with(FETCHING)
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
    if let Some(words) = missing_kubeconfig(message) {
        return words;
    }
    if let Some(refusal) = Refusal::parse(message) {
        return refusal.fact();
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
            let cause = forbidden(cause).unwrap_or_else(|| scrub(cause));
            return match chart {
                Some(c) if !c.is_empty() => format!("{verb} of {c} failed: {cause}"),
                _ => format!("{verb} failed: {cause}"),
            };
        }
    }
    scrub(message)
}

/// An object Helm did not take into a release because it exists already
/// and its labels and annotations do not say it belongs to that release
/// (the release asks not to take objects over). Helm names the first such
/// object: `Unable to continue with install: Deployment "x" in namespace
/// "y" exists and cannot be imported into the current release: invalid
/// ownership metadata; label validation error: missing key
/// "app.kubernetes.io/managed-by": must be set to "Helm"; annotation
/// validation error: ...` (`... with update: ...` for an upgrade;
/// Helm before 3.17 starts it with `rendered manifests contain a resource
/// that already exists.`). A cluster-wide object is `in namespace ""`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: String,
    /// Empty for a cluster-wide object.
    pub namespace: String,
    pub name: String,
    pub holder: Holder,
}

/// Who an existing object belongs to, as its annotations say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holder {
    /// No release: made by hand or by another tool.
    Nobody,
    /// Another Helm release: its name (`None`: the same name as the
    /// refused release's) and namespace (`None`: the same). Both `None`:
    /// annotated with what does not read as a name.
    Release {
        name: Option<String>,
        namespace: Option<String>,
    },
}

/// What an object's annotation says, as Helm's refusal tells it.
enum Said {
    /// The annotation is not there.
    Missing,
    /// It names the refused release's own (Helm has nothing to say of it).
    Same,
    /// It names another; `None` when that does not read as a name.
    Other(Option<String>),
}

impl Said {
    fn value(self) -> Option<String> {
        match self {
            Said::Other(v) => v,
            Said::Missing | Said::Same => None,
        }
    }
}

/// Helm's words between the object and why it was refused.
const CANNOT_IMPORT: &str = " exists and cannot be imported into the current release";
/// Helm's annotations naming the release an object belongs to.
const RELEASE_NAME: &str = "meta.helm.sh/release-name";
const RELEASE_NAMESPACE: &str = "meta.helm.sh/release-namespace";
/// The longest name read from a message (an object name's limit).
const MAX_NAME: usize = 253;

impl Refusal {
    /// The refusal in a release's message, if it is one. Anything odd (a
    /// name with spaces, a kind that is not a word, no quotes) is `None`.
    pub fn parse(message: &str) -> Option<Self> {
        let (head, why) = message.split_once(CANNOT_IMPORT)?;
        // `... Deployment "x" in namespace "y"`
        let head = head.strip_suffix('"')?;
        let (head, namespace) = head.rsplit_once(" in namespace \"")?;
        let head = head.strip_suffix('"')?;
        let (head, name) = head.rsplit_once('"')?;
        let kind = head.trim_end().rsplit([' ', ':']).next()?;
        let word = |s: &str, empty_ok: bool| {
            (empty_ok || !s.is_empty())
                && s.len() <= MAX_NAME
                && !s.contains(|c: char| c.is_whitespace() || c == '"')
        };
        let kind_ok =
            !kind.is_empty() && kind.len() <= 63 && kind.chars().all(|c| c.is_ascii_alphanumeric());
        if !(kind_ok && word(name, false) && word(namespace, true)) {
            return None;
        }
        // The first object refused is the one named; what follows is why.
        let why = why.split(CANNOT_IMPORT).next().unwrap_or_default();
        let owner = |key: &str| -> Said {
            if why.contains(&format!("missing key \"{key}\"")) {
                return Said::Missing;
            }
            let value = why
                .split_once(&format!("key \"{key}\" must equal \""))
                .and_then(|(_, rest)| rest.split_once(": current value is \""))
                .and_then(|(_, rest)| rest.split_once('"'))
                .map(|(value, _)| value);
            match value {
                Some(v) if word(v, false) => Said::Other(Some(v.to_string())),
                Some(_) => Said::Other(None),
                None => Said::Same,
            }
        };
        let holder = match (owner(RELEASE_NAME), owner(RELEASE_NAMESPACE)) {
            // No release named at all, or only the label is off.
            (Said::Missing, _) | (Said::Same, Said::Same) => Holder::Nobody,
            // Annotated, with what does not read as a name.
            (Said::Other(None), _) | (_, Said::Other(None)) => Holder::Release {
                name: None,
                namespace: None,
            },
            (name, namespace) => Holder::Release {
                name: name.value(),
                namespace: namespace.value(),
            },
        };
        Some(Self {
            kind: kind.to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
            holder,
        })
    }

    /// `Deployment ingress/x`, or `IngressClass nginx` for a cluster-wide one.
    pub fn object(&self) -> String {
        match self.namespace.as_str() {
            "" => format!("{} {}", self.kind, self.name),
            ns => format!("{} {ns}/{}", self.kind, self.name),
        }
    }

    /// Who has the object, after "already exists".
    fn whose(&self) -> String {
        match &self.holder {
            Holder::Nobody => "was not installed by hmc-tui".to_string(),
            Holder::Release {
                name: Some(name),
                namespace: Some(ns),
            } => format!("belongs to Helm release {name} in namespace {ns}"),
            Holder::Release {
                name: Some(name),
                namespace: None,
            } => format!("belongs to Helm release {name}"),
            Holder::Release {
                name: None,
                namespace: Some(ns),
            } => format!("belongs to a Helm release of the same name in namespace {ns}"),
            Holder::Release {
                name: None,
                namespace: None,
            } => "belongs to another Helm release".to_string(),
        }
    }

    /// The refusal, wherever the release installs: `Deployment ingress/x
    /// already exists and was not installed by hmc-tui`.
    pub fn fact(&self) -> String {
        format!("{} already exists and {}", self.object(), self.whose())
    }

    /// The refusal as a service of a cluster says it. `other` is the
    /// service of the same cluster the object belongs to, if it does: two
    /// services install the same object.
    pub fn for_service(&self, other: Option<&str>) -> String {
        match other {
            Some(other) => format!(
                "conflicts with service {other}: both install {}, which {other} installed first; \
                 change the values of one of them",
                self.object()
            ),
            None => {
                let whose = match &self.holder {
                    Holder::Nobody => self.whose(),
                    Holder::Release { .. } => {
                        format!("{}, not to a service of this cluster", self.whose())
                    }
                };
                format!(
                    "{} already exists in the cluster and {whose}; remove it, or set \
                     takeOwnership: true on the service to take it over",
                    self.object()
                )
            }
        }
    }
}

/// A release of the service's name that was in the cluster before the
/// service, and that the release controller upgraded and so took over.
pub fn taken_over(
    release: &str,
    namespace: &str,
    installed: Option<&str>,
    revision: Option<i64>,
) -> String {
    let installed = installed
        .map(|at| format!(" (installed {at}, before this service)"))
        .unwrap_or_else(|| " before this service".to_string());
    let now = revision
        .map(|r| format!(" (now revision {r})"))
        .unwrap_or_default();
    format!(
        "release {release} was already in namespace {namespace} of the cluster{installed} and \
         the service took it over{now}: removing the service uninstalls it; set \
         takeOwnership: true on the service to accept that"
    )
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

/// helm-controller's answer when the kubeconfig secret a release names is
/// not there (`could not get KubeConfig secret 'ns/dev-1-kubeconfig':
/// secrets "dev-1-kubeconfig" not found`), as "kubeconfig secret
/// dev-1-kubeconfig not found; …". The engine never reads secrets, so this
/// is how a cluster says its provider has not written it yet. `None` for
/// any other message.
fn missing_kubeconfig(message: &str) -> Option<String> {
    let (_, rest) = message.split_once("could not get KubeConfig secret '")?;
    let (reference, tail) = rest.split_once('\'')?;
    if !tail.contains("not found") {
        return None;
    }
    let name = reference.rsplit('/').next().unwrap_or(reference);
    Some(format!(
        "kubeconfig secret {name} not found; the cluster's provider writes it once the \
         control plane is up"
    ))
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

/// An install step that RBAC refused, in words: which account may not do
/// what, where. The API server says `clusterrolebindings.rbac.authorization.k8s.io
/// "x" is forbidden: User "system:serviceaccount:ns:name" cannot create
/// resource "clusterrolebindings" in API group "rbac.authorization.k8s.io"
/// at the cluster scope` (`in the namespace "y"` for a namespaced one).
/// `None` for anything else.
pub fn forbidden(message: &str) -> Option<String> {
    let (_, rest) = message.split_once(" is forbidden: User \"")?;
    let (user, rest) = rest.split_once("\" cannot ")?;
    let (verb, rest) = rest.split_once(" resource \"")?;
    let (resource, rest) = rest.split_once('"')?;
    let quoted_after = |marker: &str| {
        rest.split_once(marker)
            .and_then(|(_, r)| r.split_once('"'))
            .map(|(v, _)| v)
    };
    let group = quoted_after("in API group \"").unwrap_or("");
    let place = match quoted_after("in the namespace \"") {
        Some(ns) => format!(" in namespace {ns}"),
        None if rest.contains("at the cluster scope") => " cluster-wide".to_string(),
        None => String::new(),
    };
    let who = match user
        .strip_prefix("system:serviceaccount:")
        .and_then(|s| s.split_once(':'))
    {
        Some((ns, name)) => format!("account {name} of namespace {ns}"),
        None => format!("user {user}"),
    };
    let what = match group {
        "" => resource.to_string(),
        g => format!("{resource}.{g}"),
    };
    Some(format!("refused: {who} may not {verb} {what}{place}"))
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

    #[test]
    fn a_missing_kubeconfig_secret_is_said_as_not_written_yet() {
        let missing = "could not get KubeConfig secret 'team-a/dev-1-kubeconfig': \
                       secrets \"dev-1-kubeconfig\" not found";
        assert_eq!(
            release_problem(missing),
            "kubeconfig secret dev-1-kubeconfig not found; the cluster's provider writes it \
             once the control plane is up"
        );
        // Another failure to read it is not said as missing.
        let refused = "could not get KubeConfig secret 'team-a/dev-1-kubeconfig': \
                       secrets \"dev-1-kubeconfig\" is forbidden";
        assert!(!release_problem(refused).contains("not found"));
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
    fn an_install_refused_by_rbac_names_the_account_and_what_it_may_not_do() {
        let msg = "Helm install failed for release t/evil-1 with chart hmc-test-escalating-cluster@0.1.0: \
                   clusterrolebindings.rbac.authorization.k8s.io \"t-tenant-cluster-admin\" is forbidden: \
                   User \"system:serviceaccount:t:hmc-cluster-installer\" cannot get resource \
                   \"clusterrolebindings\" in API group \"rbac.authorization.k8s.io\" at the cluster scope";
        assert_eq!(
            release_problem(msg),
            "install of hmc-test-escalating-cluster 0.1.0 failed: refused: account \
             hmc-cluster-installer of namespace t may not get \
             clusterrolebindings.rbac.authorization.k8s.io cluster-wide"
        );
        let namespaced = "secrets \"x\" is forbidden: User \"alice\" cannot create resource \
                          \"secrets\" in API group \"\" in the namespace \"team-a\"";
        assert_eq!(
            forbidden(namespaced).as_deref(),
            Some("refused: user alice may not create secrets in namespace team-a")
        );
        assert_eq!(forbidden("connection refused"), None);
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

    /// helm-controller v1.4.3's words around Helm 3.19's, as the release's
    /// Ready condition carried them in the harness.
    const HAND_MADE: &str = "Helm install failed for release tko-exp/handmade with chart \
        ingress-nginx@4.11.3: Unable to continue with install: Deployment \"handmade-controller\" \
        in namespace \"tko-exp\" exists and cannot be imported into the current release: invalid \
        ownership metadata; label validation error: missing key \"app.kubernetes.io/managed-by\": \
        must be set to \"Helm\"; annotation validation error: missing key \
        \"meta.helm.sh/release-name\": must be set to \"handmade\"; annotation validation error: \
        missing key \"meta.helm.sh/release-namespace\": must be set to \"tko-exp\"";
    const OTHER_RELEASE: &str = "Helm install failed for release tko-exp/probe2 with chart \
        ingress-nginx@4.11.3: Unable to continue with install: IngressClass \"tko-exp\" in \
        namespace \"\" exists and cannot be imported into the current release: invalid ownership \
        metadata; annotation validation error: key \"meta.helm.sh/release-name\" must equal \
        \"probe2\": current value is \"probe\"";

    #[test]
    fn an_object_made_by_hand_is_named_and_not_taken() {
        let r = Refusal::parse(HAND_MADE).unwrap();
        assert_eq!(
            r,
            Refusal {
                kind: "Deployment".into(),
                namespace: "tko-exp".into(),
                name: "handmade-controller".into(),
                holder: Holder::Nobody,
            }
        );
        assert_eq!(
            release_problem(HAND_MADE),
            "Deployment tko-exp/handmade-controller already exists and was not installed by hmc-tui"
        );
        assert_eq!(
            r.for_service(None),
            "Deployment tko-exp/handmade-controller already exists in the cluster and was not \
             installed by hmc-tui; remove it, or set takeOwnership: true on the service to take \
             it over"
        );
    }

    #[test]
    fn an_object_of_another_release_names_that_release() {
        let r = Refusal::parse(OTHER_RELEASE).unwrap();
        assert_eq!(r.object(), "IngressClass tko-exp");
        assert_eq!(
            r.holder,
            Holder::Release {
                name: Some("probe".into()),
                namespace: None
            }
        );
        assert_eq!(
            release_problem(OTHER_RELEASE),
            "IngressClass tko-exp already exists and belongs to Helm release probe"
        );
        assert_eq!(
            r.for_service(Some("ingress-a")),
            "conflicts with service ingress-a: both install IngressClass tko-exp, which \
             ingress-a installed first; change the values of one of them"
        );
        assert_eq!(
            r.for_service(None),
            "IngressClass tko-exp already exists in the cluster and belongs to Helm release \
             probe, not to a service of this cluster; remove it, or set takeOwnership: true on \
             the service to take it over"
        );
        // Another namespace too, on an upgrade, as older Helm words it, and
        // with Helm's logs after it.
        let msg = "Helm upgrade failed for release b/b with chart x@1.0.0: rendered manifests \
                   contain a resource that already exists. Unable to continue with update: \
                   ClusterRole \"shared\" in namespace \"\" exists and cannot be imported into \
                   the current release: invalid ownership metadata; annotation validation error: \
                   key \"meta.helm.sh/release-name\" must equal \"b\": current value is \"a\"; \
                   annotation validation error: key \"meta.helm.sh/release-namespace\" must \
                   equal \"b\": current value is \"a-ns\"\n\nLast Helm logs:\n\nx";
        let r = Refusal::parse(msg).unwrap();
        assert_eq!(
            r.holder,
            Holder::Release {
                name: Some("a".into()),
                namespace: Some("a-ns".into())
            }
        );
        assert_eq!(
            r.fact(),
            "ClusterRole shared already exists and belongs to Helm release a in namespace a-ns"
        );
        // The same name in another namespace.
        let msg = "Unable to continue with install: ConfigMap \"c\" in namespace \"n\" exists and \
                   cannot be imported into the current release: invalid ownership metadata; \
                   annotation validation error: key \"meta.helm.sh/release-namespace\" must equal \
                   \"n\": current value is \"m\"";
        assert_eq!(
            Refusal::parse(msg).unwrap().fact(),
            "ConfigMap n/c already exists and belongs to a Helm release of the same name in \
             namespace m"
        );
    }

    #[test]
    fn odd_refusals_are_left_as_they_are() {
        for odd in [
            "",
            CANNOT_IMPORT,
            "Deployment x exists and cannot be imported into the current release",
            "Deployment \"a b\" in namespace \"n\" exists and cannot be imported into the current release",
            "\"x\" in namespace \"n\" exists and cannot be imported into the current release",
            "Deploy-ment \"x\" in namespace \"n\" exists and cannot be imported into the current release",
            "Deployment \"x\" in namespace \"n exists and cannot be imported into the current release",
            "\" exists and cannot be imported into the current release",
            "in namespace \"\" exists and cannot be imported into the current release",
        ] {
            assert_eq!(Refusal::parse(odd), None, "{odd:?}");
            let _ = release_problem(odd);
        }
        // A name past any object's limit is not read.
        let long = format!(
            "Deployment \"{}\" in namespace \"n\"{CANNOT_IMPORT}",
            "x".repeat(300)
        );
        assert_eq!(Refusal::parse(&long), None);
        // An owner that does not read as a name is not named.
        let msg = "Secret \"s\" in namespace \"n\" exists and cannot be imported into the current \
                   release: invalid ownership metadata; annotation validation error: key \
                   \"meta.helm.sh/release-name\" must equal \"r\": current value is \"a b\"";
        assert_eq!(
            Refusal::parse(msg).unwrap().fact(),
            "Secret n/s already exists and belongs to another Helm release"
        );
    }

    #[test]
    fn a_release_taken_over_says_what_happened_and_what_to_do() {
        assert_eq!(
            taken_over("web", "team-web", Some("2026-12-04 16:06:46 UTC"), Some(2)),
            "release web was already in namespace team-web of the cluster (installed \
             2026-12-04 16:06:46 UTC, before this service) and the service took it over (now \
             revision 2): removing the service uninstalls it; set takeOwnership: true on the \
             service to accept that"
        );
        assert!(taken_over("web", "n", None, None).contains(" cluster before this service and"));
    }

    mod odd_text {
        use super::super::{Refusal, release_problem};
        use proptest::prelude::*;

        /// Pieces of Helm's refusal, to be put together in any order.
        fn piece() -> impl Strategy<Value = String> {
            prop_oneof![
                Just(super::super::CANNOT_IMPORT.to_string()),
                Just(" in namespace \"".to_string()),
                Just("\"".to_string()),
                Just(": current value is \"".to_string()),
                Just("key \"meta.helm.sh/release-name\" must equal \"".to_string()),
                Just("missing key \"meta.helm.sh/release-namespace\"".to_string()),
                Just("Deployment ".to_string()),
                "\\PC{0,12}",
            ]
        }

        proptest! {
            #[test]
            fn any_text_reads_without_a_panic(pieces in proptest::collection::vec(piece(), 0..24)) {
                let text = pieces.concat();
                if let Some(r) = Refusal::parse(&text) {
                    prop_assert!(!r.name.is_empty() && r.name.len() <= 253);
                    prop_assert!(!r.kind.is_empty() && !r.name.contains('"'));
                    let _ = (r.fact(), r.for_service(None), r.for_service(Some("x")));
                }
                let _ = release_problem(&text);
            }
        }
    }
}
