//! What a notification says, and the bodies a receiver gets.
//!
//! Two formats, chosen per receiver:
//!
//! - `json`: a versioned document ([`JSON_VERSION`]) with every field the
//!   engine knows, for receivers that route or store notifications:
//!
//!   ```json
//!   {
//!     "version": "hmc.mirantis.com/notification/v1",
//!     "id": "3f5a…",
//!     "event": "waveWaitingForApproval",
//!     "time": "2026-05-04T09:30:00Z",
//!     "namespace": "team-a",
//!     "template": "demo-cluster",
//!     "multiClusterService": "ingress",
//!     "rollout": "demo-cluster-5",
//!     "revision": 5,
//!     "wave": 2,
//!     "cluster": "edge-7",
//!     "service": "ingress-nginx",
//!     "by": "alice",
//!     "message": "wave 2 waits for approval",
//!     "text": ":hourglass: team-a/demo-cluster rollout demo-cluster-5: wave 2 waits for approval"
//!   }
//!   ```
//!
//!   `version`, `id`, `event`, `time`, `namespace`, `message` and `text`
//!   are always there; the others only when the event has them. `id` is
//!   the same for the same transition told twice (see
//!   [`Notification::id`]); `time` is RFC 3339 in UTC; `text` is the one
//!   line Slack gets, without Slack's escaping.
//! - `slack`: a Slack incoming-webhook body, `{"text": "<one line>"}`,
//!   with `&`, `<` and `>` escaped as Slack asks.
//!
//! The one line reads `<emoji> <namespace>/<template> rollout <rollout>
//! cluster <cluster> service <service>: <message> (by <user>)`, each part
//! only when the event has it.

use std::fmt;
use std::str::FromStr;

use k8s_openapi::jiff::Timestamp;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The version of the `json` format, sent as its `version` field. A change
/// that could break a receiver (a field removed or changing meaning) gets
/// a new version; new fields do not.
pub const JSON_VERSION: &str = "hmc.mirantis.com/notification/v1";

/// A message longer than this many bytes is cut (on a character boundary)
/// before it is formatted, so that no body grows past what webhooks take.
pub const MESSAGE_LIMIT: usize = 2000;

/// What happened, as named in the configuration and the `json` format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum EventKind {
    /// A new revision started rolling out.
    RolloutStarted,
    /// Someone paused a rollout.
    RolloutPaused,
    /// Someone resumed a paused rollout.
    RolloutResumed,
    /// Someone aborted a rollout.
    RolloutAborted,
    /// A rollout went back to the previous revision.
    RolloutRolledBack,
    /// Every wave of a rollout is done.
    RolloutCompleted,
    /// A rollout stopped on its own: its failure budget is spent.
    RolloutStopped,
    /// A wave is ready and waits for someone to approve it.
    WaveWaitingForApproval,
    /// A wave's clusters all have the new revision.
    WaveCompleted,
    /// A service failed on a cluster.
    ServiceFailed,
}

impl EventKind {
    /// Every kind, in the order of the documentation.
    pub const ALL: [EventKind; 10] = [
        EventKind::RolloutStarted,
        EventKind::RolloutPaused,
        EventKind::RolloutResumed,
        EventKind::RolloutAborted,
        EventKind::RolloutRolledBack,
        EventKind::RolloutCompleted,
        EventKind::RolloutStopped,
        EventKind::WaveWaitingForApproval,
        EventKind::WaveCompleted,
        EventKind::ServiceFailed,
    ];

    /// The name used in the configuration and the `json` format.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::RolloutStarted => "rolloutStarted",
            EventKind::RolloutPaused => "rolloutPaused",
            EventKind::RolloutResumed => "rolloutResumed",
            EventKind::RolloutAborted => "rolloutAborted",
            EventKind::RolloutRolledBack => "rolloutRolledBack",
            EventKind::RolloutCompleted => "rolloutCompleted",
            EventKind::RolloutStopped => "rolloutStopped",
            EventKind::WaveWaitingForApproval => "waveWaitingForApproval",
            EventKind::WaveCompleted => "waveCompleted",
            EventKind::ServiceFailed => "serviceFailed",
        }
    }

    /// The Slack emoji that starts the one-line summary.
    pub fn emoji(self) -> &'static str {
        match self {
            EventKind::RolloutStarted => ":rocket:",
            EventKind::RolloutPaused => ":double_vertical_bar:",
            EventKind::RolloutResumed => ":arrow_forward:",
            EventKind::RolloutAborted => ":no_entry:",
            EventKind::RolloutRolledBack => ":rewind:",
            EventKind::RolloutCompleted => ":white_check_mark:",
            EventKind::RolloutStopped => ":octagonal_sign:",
            EventKind::WaveWaitingForApproval => ":hourglass:",
            EventKind::WaveCompleted => ":heavy_check_mark:",
            EventKind::ServiceFailed => ":x:",
        }
    }
}

impl fmt::Display for EventKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A name that is not an event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown event {0:?}")]
pub struct UnknownEvent(pub String);

impl FromStr for EventKind {
    type Err = UnknownEvent;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        EventKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownEvent(s.to_string()))
    }
}

/// What the engine tells: one transition of a rollout, a wave or a
/// service.
#[derive(Clone, Debug, PartialEq)]
pub struct Notification {
    pub kind: EventKind,
    /// The namespace of the template, rollout or cluster.
    pub namespace: String,
    /// The ClusterTemplate; for `serviceFailed`, the cluster's template.
    pub template: Option<String>,
    pub multi_cluster_service: Option<String>,
    pub rollout: Option<String>,
    pub revision: Option<i64>,
    pub wave: Option<u32>,
    pub cluster: Option<String>,
    pub service: Option<String>,
    /// The user who acted (paused, resumed, aborted, approved).
    pub by: Option<String>,
    /// One line, in the product's words.
    pub message: String,
    pub at: Timestamp,
}

impl Notification {
    /// A notification of `kind` in `namespace` saying `message`, now, with
    /// nothing else set.
    pub fn new(kind: EventKind, namespace: impl Into<String>, message: impl Into<String>) -> Self {
        Notification {
            kind,
            namespace: namespace.into(),
            template: None,
            multi_cluster_service: None,
            rollout: None,
            revision: None,
            wave: None,
            cluster: None,
            service: None,
            by: None,
            message: message.into(),
            at: Timestamp::now(),
        }
    }

    /// Names this transition: the same for the same transition told twice
    /// (so not over `at` nor `by`), different for any other. Hex of a
    /// SHA-256.
    pub fn id(&self) -> String {
        let mut hash = Sha256::new();
        // Each field with its length (or as absent), so that no two
        // different notifications hash the same bytes.
        let mut field = |value: Option<&str>| match value {
            None => hash.update([0u8]),
            Some(v) => {
                hash.update([1u8]);
                hash.update((v.len() as u64).to_le_bytes());
                hash.update(v.as_bytes());
            }
        };
        field(Some(self.kind.as_str()));
        field(Some(&self.namespace));
        field(self.template.as_deref());
        field(self.multi_cluster_service.as_deref());
        field(self.rollout.as_deref());
        field(self.revision.map(|r| r.to_string()).as_deref());
        field(self.wave.map(|w| w.to_string()).as_deref());
        field(self.cluster.as_deref());
        field(self.service.as_deref());
        field(Some(&self.message));
        hex::encode(hash.finalize())
    }

    /// The one-line human summary, without Slack's escaping: an emoji,
    /// where it happened, then the message (cut to [`MESSAGE_LIMIT`]) and
    /// who acted.
    pub fn summary(&self) -> String {
        let mut line = format!("{} {}", self.kind.emoji(), self.namespace);
        let subject = self
            .template
            .as_deref()
            .or(self.multi_cluster_service.as_deref());
        // Without a template, the cluster is what the event is about.
        let cluster_named = subject.is_none() && self.cluster.is_some();
        if let Some(s) = subject.or(self.cluster.as_deref()) {
            line.push('/');
            line.push_str(s);
        }
        if let Some(r) = &self.rollout {
            line.push_str(" rollout ");
            line.push_str(r);
        }
        if let (Some(c), false) = (&self.cluster, cluster_named) {
            line.push_str(" cluster ");
            line.push_str(c);
        }
        if let Some(s) = &self.service {
            line.push_str(" service ");
            line.push_str(s);
        }
        line.push_str(": ");
        line.push_str(cut(&self.message, MESSAGE_LIMIT));
        if let Some(by) = &self.by {
            line.push_str(" (by ");
            line.push_str(by);
            line.push(')');
        }
        one_line(&line)
    }

    /// The `json` format's body (see the module documentation).
    pub fn json_body(&self) -> serde_json::Value {
        let body = JsonBody {
            version: JSON_VERSION,
            id: self.id(),
            event: self.kind,
            time: self.at.to_string(),
            namespace: &self.namespace,
            template: self.template.as_deref(),
            multi_cluster_service: self.multi_cluster_service.as_deref(),
            rollout: self.rollout.as_deref(),
            revision: self.revision,
            wave: self.wave,
            cluster: self.cluster.as_deref(),
            service: self.service.as_deref(),
            by: self.by.as_deref(),
            message: cut(&self.message, MESSAGE_LIMIT),
            text: self.summary(),
        };
        // Strings, numbers and options of them: serializing cannot fail.
        serde_json::to_value(body).unwrap_or_default()
    }

    /// The `slack` format's body: `{"text": ...}`, escaped for Slack.
    pub fn slack_body(&self) -> serde_json::Value {
        serde_json::json!({ "text": slack_escape(&self.summary()) })
    }
}

/// The `json` format, field by field, in the order sent.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonBody<'a> {
    version: &'static str,
    id: String,
    event: EventKind,
    time: String,
    namespace: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    template: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    multi_cluster_service: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rollout: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    revision: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wave: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    service: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<&'a str>,
    message: &'a str,
    text: String,
}

/// `text` cut to at most `limit` bytes, on a character boundary.
pub use crate::plan::safe_text::cut_to_bytes as cut;

/// Escapes the characters Slack's mrkdwn gives a meaning to (links,
/// mentions, entities), so that a name or message shows as written.
pub fn slack_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` with line breaks and other control characters made spaces: the
/// summary is one line wherever it is shown.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}
