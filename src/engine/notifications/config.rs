//! Where notifications go: the receivers, read from one Secret.
//!
//! The engine reads the Secret named by its options ([`DEFAULT_SECRET`]
//! unless told otherwise) in its own namespace, key [`CONFIG_KEY`]. A URL
//! of a webhook is a credential (Slack's is), so it lives in a Secret and
//! is never logged. The engine only ever `get`s that one Secret by name.
//!
//! ```yaml
//! receivers:
//!   - name: ops-slack        # required, unique: a-z, 0-9 and -, at most 63
//!     url: https://hooks.slack.com/services/T000/B000/XXXX
//!                            # required: http or https, at most 2048 bytes
//!     format: slack          # slack or json; json when left out
//!     events:                # when left out: every event
//!       - waveWaitingForApproval
//!       - rolloutStopped
//!       - serviceFailed
//!     namespaces: [team-a]   # when left out: every namespace
//!     templates: [prod-aws]  # ClusterTemplate or MultiClusterService names;
//!                            # when left out: all
//!   - name: audit
//!     url: http://audit.tools.svc:8080/hmc
//! ```
//!
//! The events are `rolloutStarted`, `rolloutPaused`, `rolloutResumed`,
//! `rolloutAborted`, `rolloutRolledBack`, `rolloutCompleted`,
//! `rolloutStopped` (the failure budget is spent), `waveWaitingForApproval`,
//! `waveCompleted` and `serviceFailed`. A receiver gets a notification
//! when each of its lists that is there names the notification's event,
//! namespace and template (or MultiClusterService); a `serviceFailed`
//! matches `templates` on the cluster's template.
//!
//! Limits, because anyone who can write the Secret can write anything in
//! it: [`MAX_CONFIG_BYTES`] of YAML, [`MAX_RECEIVERS`] receivers,
//! [`MAX_LIST`] entries in each list. Unknown fields and unknown event
//! names are refused rather than ignored, so a typo does not silently
//! send nothing. An empty list is refused too (it would match nothing):
//! leave the field out to match everything. A refused configuration is a
//! [`ConfigError`], which says which receiver and field to fix; the
//! engine logs it and keeps the configuration it had.

use std::collections::BTreeSet;
use std::fmt;

use k8s_openapi::api::core::v1::Secret;
use serde::Deserialize;

use super::message::{EventKind, Notification};
use crate::plan::yaml::{self, Limits};

/// The Secret read when the engine is not told another name.
pub const DEFAULT_SECRET: &str = "hmc-notifications";
/// The key of the Secret holding the YAML.
pub const CONFIG_KEY: &str = "config.yaml";
/// The largest YAML read; a bigger one is refused without being parsed.
pub const MAX_CONFIG_BYTES: usize = 64 * 1024;
/// The most receivers in one configuration.
pub const MAX_RECEIVERS: usize = 32;
/// The most entries in one receiver's `events`, `namespaces` or
/// `templates`.
pub const MAX_LIST: usize = 256;
/// The longest receiver name (a Kubernetes label value's limit).
pub const MAX_NAME: usize = 63;
/// The longest URL.
pub const MAX_URL: usize = 2048;

/// What one configuration may hold once aliases are expanded: every
/// receiver at its limits is some 800 nodes and 300 KiB of text.
const CONFIG_YAML: Limits = Limits {
    bytes: MAX_CONFIG_BYTES,
    nodes: MAX_RECEIVERS * (3 * MAX_LIST + 16),
    depth: 8,
    text: MAX_RECEIVERS * (3 * MAX_LIST * 256 + MAX_URL + 1024),
};

/// What makes a configuration unusable, said so that a person can fix it.
/// Never holds a URL: a URL may be a credential.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("the Secret has no {CONFIG_KEY} key")]
    MissingKey,
    #[error("{CONFIG_KEY} is {size} bytes; at most {MAX_CONFIG_BYTES} are read")]
    TooBig { size: usize },
    #[error("{CONFIG_KEY} is not UTF-8 text")]
    NotText,
    /// Not YAML, or not the shape above (unknown field, wrong type).
    #[error("{CONFIG_KEY}: {0}")]
    Syntax(String),
    #[error("{count} receivers; at most {MAX_RECEIVERS} are allowed")]
    TooManyReceivers { count: usize },
    /// Receivers are told apart by index here, as the name is the problem.
    #[error("receivers[{index}]: name: must be 1 to {MAX_NAME} characters of a-z, 0-9 and -")]
    BadName { index: usize },
    #[error("receiver {name:?}: name: used by another receiver too")]
    DuplicateName { name: String },
    #[error("receiver {receiver:?}: url: {problem}")]
    BadUrl {
        receiver: String,
        problem: UrlProblem,
    },
    #[error(
        "receiver {receiver:?}: events: unknown event {value:?}; the events are {}",
        known_events()
    )]
    UnknownEvent { receiver: String, value: String },
    #[error("receiver {receiver:?}: {field}: {count} entries; at most {MAX_LIST} are allowed")]
    TooManyEntries {
        receiver: String,
        field: &'static str,
        count: usize,
    },
    #[error(
        "receiver {receiver:?}: {field}: an empty list matches nothing; leave {field} out to match all"
    )]
    EmptyList {
        receiver: String,
        field: &'static str,
    },
}

/// What is wrong with a receiver's URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UrlProblem {
    #[error("longer than {MAX_URL} bytes")]
    TooLong,
    #[error("not a URL")]
    NotUrl,
    #[error("only http and https are allowed")]
    Scheme,
    #[error("no host")]
    NoHost,
}

fn known_events() -> String {
    EventKind::ALL.map(EventKind::as_str).join(", ")
}

/// How a receiver wants its body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Format {
    /// Slack's incoming webhook: `{"text": ...}`.
    Slack,
    /// The versioned document of [`super::message`].
    #[default]
    Json,
}

/// The receivers, checked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub receivers: Vec<Receiver>,
}

/// One webhook and what it wants to hear of. A list left out (`None`)
/// matches everything.
#[derive(Clone, PartialEq, Eq)]
pub struct Receiver {
    pub name: String,
    /// A credential for some receivers: never logged, nor shown by `Debug`.
    pub url: http::Uri,
    pub format: Format,
    pub events: Option<BTreeSet<EventKind>>,
    pub namespaces: Option<BTreeSet<String>>,
    /// ClusterTemplate or MultiClusterService names.
    pub templates: Option<BTreeSet<String>>,
}

impl fmt::Debug for Receiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Receiver")
            .field("name", &self.name)
            .field("url", &"<redacted>")
            .field("format", &self.format)
            .field("events", &self.events)
            .field("namespaces", &self.namespaces)
            .field("templates", &self.templates)
            .finish()
    }
}

impl Receiver {
    /// Whether this receiver wants to hear of `n`.
    pub fn matches(&self, n: &Notification) -> bool {
        let wants_event = self.events.as_ref().is_none_or(|e| e.contains(&n.kind));
        let wants_namespace = self
            .namespaces
            .as_ref()
            .is_none_or(|ns| ns.contains(&n.namespace));
        let wants_template = self.templates.as_ref().is_none_or(|ts| {
            [&n.template, &n.multi_cluster_service]
                .into_iter()
                .flatten()
                .any(|t| ts.contains(t))
        });
        wants_event && wants_namespace && wants_template
    }
}

/// The YAML as written, before it is checked.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    receivers: Option<Vec<RawReceiver>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawReceiver {
    name: String,
    url: String,
    #[serde(default)]
    format: Format,
    // Strings rather than `EventKind`, to name the receiver and the bad
    // value when one is not an event.
    #[serde(default)]
    events: Option<Vec<String>>,
    #[serde(default)]
    namespaces: Option<Vec<String>>,
    #[serde(default)]
    templates: Option<Vec<String>>,
}

impl Config {
    /// The configuration in `secret`'s `data` (the API server turns
    /// `stringData` into `data`, so that is the only place to look).
    pub fn from_secret(secret: &Secret) -> Result<Config, ConfigError> {
        let value = secret
            .data
            .as_ref()
            .and_then(|d| d.get(CONFIG_KEY))
            .ok_or(ConfigError::MissingKey)?;
        Config::parse(&value.0)
    }

    /// Parses and checks the YAML of [`CONFIG_KEY`]. Empty text is a
    /// configuration without receivers.
    pub fn parse(yaml: &[u8]) -> Result<Config, ConfigError> {
        if yaml.len() > MAX_CONFIG_BYTES {
            return Err(ConfigError::TooBig { size: yaml.len() });
        }
        let text = std::str::from_utf8(yaml).map_err(|_| ConfigError::NotText)?;
        if text.trim().is_empty() {
            return Ok(Config::default());
        }
        // Aliases could make the lists far longer than the text before the
        // list limits below are checked: the project's bounded reader
        // counts nodes and text as aliases expand.
        let raw: RawConfig =
            yaml::from_str(text, &CONFIG_YAML).map_err(|e| ConfigError::Syntax(e.to_string()))?;
        let raw_receivers = raw.receivers.unwrap_or_default();
        if raw_receivers.len() > MAX_RECEIVERS {
            return Err(ConfigError::TooManyReceivers {
                count: raw_receivers.len(),
            });
        }
        let mut names = BTreeSet::new();
        let mut receivers = Vec::with_capacity(raw_receivers.len());
        for (index, raw) in raw_receivers.into_iter().enumerate() {
            let receiver = check(index, raw)?;
            if !names.insert(receiver.name.clone()) {
                return Err(ConfigError::DuplicateName {
                    name: receiver.name,
                });
            }
            receivers.push(receiver);
        }
        Ok(Config { receivers })
    }
}

fn check(index: usize, raw: RawReceiver) -> Result<Receiver, ConfigError> {
    let name_ok = !raw.name.is_empty()
        && raw.name.len() <= MAX_NAME
        && raw
            .name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-');
    if !name_ok {
        return Err(ConfigError::BadName { index });
    }
    let name = raw.name;
    let url = check_url(&raw.url).map_err(|problem| ConfigError::BadUrl {
        receiver: name.clone(),
        problem,
    })?;
    let events = list(&name, "events", raw.events)?
        .map(|values| {
            values
                .into_iter()
                .map(|value| {
                    value
                        .parse::<EventKind>()
                        .map_err(|_| ConfigError::UnknownEvent {
                            receiver: name.clone(),
                            // The whole value could be 64 KiB; a log line needs
                            // enough to find it.
                            value: super::message::cut(&value, 100).to_string(),
                        })
                })
                .collect::<Result<BTreeSet<_>, _>>()
        })
        .transpose()?;
    let namespaces = list(&name, "namespaces", raw.namespaces)?.map(BTreeSet::from_iter);
    let templates = list(&name, "templates", raw.templates)?.map(BTreeSet::from_iter);
    Ok(Receiver {
        name,
        url,
        format: raw.format,
        events,
        namespaces,
        templates,
    })
}

/// A list within [`MAX_LIST`] entries, and not empty.
fn list(
    receiver: &str,
    field: &'static str,
    values: Option<Vec<String>>,
) -> Result<Option<Vec<String>>, ConfigError> {
    match values {
        Some(v) if v.is_empty() => Err(ConfigError::EmptyList {
            receiver: receiver.to_string(),
            field,
        }),
        Some(v) if v.len() > MAX_LIST => Err(ConfigError::TooManyEntries {
            receiver: receiver.to_string(),
            field,
            count: v.len(),
        }),
        other => Ok(other),
    }
}

fn check_url(url: &str) -> Result<http::Uri, UrlProblem> {
    if url.len() > MAX_URL {
        return Err(UrlProblem::TooLong);
    }
    let url = url.trim();
    // The scheme first, as written: a URL the parser refuses (`file:///x`)
    // or one without a scheme is told what is expected.
    let scheme = url.split_once("://").map(|(scheme, _)| scheme);
    if !scheme.is_some_and(|s| s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https")) {
        return Err(UrlProblem::Scheme);
    }
    let uri: http::Uri = url.parse().map_err(|_| UrlProblem::NotUrl)?;
    if uri.host().is_none_or(str::is_empty) {
        return Err(UrlProblem::NoHost);
    }
    Ok(uri)
}
