//! The configuration and the bodies. Delivery has its own tests
//! (`delivery/tests.rs`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::jiff::Timestamp;
use serde_json::json;

use super::config::{MAX_CONFIG_BYTES, MAX_LIST, MAX_RECEIVERS, UrlProblem};
use super::message::{MESSAGE_LIMIT, cut, slack_escape};
use super::*;

const GOOD: &str = r#"
receivers:
  - name: ops-slack
    url: https://hooks.slack.com/services/T000/B000/XXXX
    format: slack
    events: [waveWaitingForApproval, rolloutStopped, serviceFailed]
    namespaces: [team-a]
    templates: [prod-aws]
  - name: audit
    url: http://audit.tools.svc:8080/hmc
"#;

fn at() -> Timestamp {
    "2026-05-04T09:30:00Z".parse().unwrap()
}

/// The wave-approval notification of the documentation.
fn waiting() -> Notification {
    Notification {
        kind: EventKind::WaveWaitingForApproval,
        namespace: "team-a".into(),
        template: Some("demo-cluster".into()),
        multi_cluster_service: None,
        rollout: Some("demo-cluster-5".into()),
        revision: Some(5),
        wave: Some(2),
        cluster: None,
        service: None,
        by: None,
        message: "wave 2 waits for approval".into(),
        at: at(),
    }
}

fn service_failed() -> Notification {
    Notification {
        template: Some("prod-aws".into()),
        cluster: Some("edge-7".into()),
        service: Some("ingress-nginx".into()),
        ..Notification::new(EventKind::ServiceFailed, "team-a", "install failed")
    }
}

fn parse(yaml: &str) -> Result<Config, ConfigError> {
    Config::parse(yaml.as_bytes())
}

fn error(yaml: &str) -> String {
    parse(yaml).unwrap_err().to_string()
}

fn set(items: &[&str]) -> Option<BTreeSet<String>> {
    Some(items.iter().map(|s| s.to_string()).collect())
}

#[test]
fn a_good_config_is_read_with_its_defaults() {
    let config = parse(GOOD).unwrap();
    let [slack, audit] = &config.receivers[..] else {
        panic!("two receivers: {config:?}");
    };
    assert_eq!(slack.name, "ops-slack");
    assert_eq!(
        slack.url.to_string(),
        "https://hooks.slack.com/services/T000/B000/XXXX"
    );
    assert_eq!(slack.format, Format::Slack);
    assert_eq!(
        slack.events,
        Some(BTreeSet::from([
            EventKind::WaveWaitingForApproval,
            EventKind::RolloutStopped,
            EventKind::ServiceFailed,
        ]))
    );
    assert_eq!(slack.namespaces, set(&["team-a"]));
    assert_eq!(slack.templates, set(&["prod-aws"]));

    assert_eq!(audit.name, "audit");
    assert_eq!(audit.format, Format::Json);
    assert_eq!(audit.events, None);
    assert_eq!(audit.namespaces, None);
    assert_eq!(audit.templates, None);
}

#[test]
fn the_url_is_not_shown_by_debug() {
    let config = parse(GOOD).unwrap();
    let shown = format!("{config:?}");
    assert!(!shown.contains("hooks.slack.com"), "{shown}");
    assert!(shown.contains("ops-slack"), "{shown}");
}

#[test]
fn nothing_is_no_receivers() {
    assert_eq!(parse("").unwrap(), Config::default());
    assert_eq!(parse("  \n# none yet\n").unwrap(), Config::default());
    assert_eq!(parse("receivers: []").unwrap(), Config::default());
    assert_eq!(parse("receivers:").unwrap(), Config::default());
}

#[test]
fn the_config_is_read_from_the_secrets_data() {
    let secret = Secret {
        data: Some(BTreeMap::from([(
            CONFIG_KEY.to_string(),
            ByteString(GOOD.as_bytes().to_vec()),
        )])),
        ..Secret::default()
    };
    assert_eq!(Config::from_secret(&secret).unwrap(), parse(GOOD).unwrap());
    assert_eq!(
        Config::from_secret(&Secret::default()),
        Err(ConfigError::MissingKey)
    );
    assert_eq!(
        ConfigError::MissingKey.to_string(),
        "the Secret has no config.yaml key"
    );
}

#[test]
fn a_config_too_big_is_refused_unparsed() {
    // Not YAML at all: the size is refused before anything is parsed.
    let big = vec![b'['; MAX_CONFIG_BYTES + 1];
    assert_eq!(
        Config::parse(&big),
        Err(ConfigError::TooBig {
            size: MAX_CONFIG_BYTES + 1
        })
    );
    assert_eq!(
        Config::parse(&big).unwrap_err().to_string(),
        "config.yaml is 65537 bytes; at most 65536 are read"
    );
}

#[test]
fn too_many_receivers_are_refused() {
    let mut yaml = String::from("receivers:\n");
    for i in 0..=MAX_RECEIVERS {
        yaml.push_str(&format!("  - name: r{i}\n    url: http://x.example/{i}\n"));
    }
    assert_eq!(error(&yaml), "33 receivers; at most 32 are allowed");
}

#[test]
fn too_long_a_list_is_refused() {
    let namespaces: Vec<String> = (0..=MAX_LIST).map(|i| format!("ns-{i}")).collect();
    let yaml = format!(
        "receivers:\n  - name: ops\n    url: http://x.example\n    namespaces: [{}]\n",
        namespaces.join(", ")
    );
    assert_eq!(
        error(&yaml),
        r#"receiver "ops": namespaces: 257 entries; at most 256 are allowed"#
    );
}

#[test]
fn an_empty_list_is_refused() {
    let yaml = "receivers:\n  - name: ops\n    url: http://x.example\n    events: []\n";
    assert_eq!(
        error(yaml),
        r#"receiver "ops": events: an empty list matches nothing; leave events out to match all"#
    );
}

#[test]
fn unknown_fields_are_refused() {
    let in_receiver = "receivers:\n  - name: ops\n    url: http://x.example\n    channel: '#ops'\n";
    let e = error(in_receiver);
    assert!(e.starts_with("config.yaml: "), "{e}");
    assert!(e.contains("unknown field `channel`"), "{e}");

    let at_the_top = "receiver:\n  - name: ops\n";
    assert!(
        error(at_the_top).contains("unknown field `receiver`"),
        "{}",
        error(at_the_top)
    );
}

#[test]
fn an_unknown_format_is_refused() {
    let yaml = "receivers:\n  - name: ops\n    url: http://x.example\n    format: teams\n";
    assert!(
        error(yaml).contains("unknown variant `teams`"),
        "{}",
        error(yaml)
    );
}

#[test]
fn an_unknown_event_is_refused_naming_the_receiver_and_the_value() {
    let yaml = "receivers:\n  - name: ops\n    url: http://x.example\n    events: [rolloutStarted, waveApproved]\n";
    assert_eq!(
        parse(yaml),
        Err(ConfigError::UnknownEvent {
            receiver: "ops".into(),
            value: "waveApproved".into()
        })
    );
    assert_eq!(
        error(yaml),
        "receiver \"ops\": events: unknown event \"waveApproved\"; the events are \
         rolloutStarted, rolloutPaused, rolloutResumed, rolloutAborted, rolloutRolledBack, \
         rolloutCompleted, rolloutStopped, waveWaitingForApproval, waveCompleted, serviceFailed"
    );
}

#[test]
fn a_duplicate_name_is_refused() {
    let yaml = "receivers:\n  - name: ops\n    url: http://a.example\n  - name: ops\n    url: http://b.example\n";
    assert_eq!(
        error(yaml),
        r#"receiver "ops": name: used by another receiver too"#
    );
}

#[test]
fn a_bad_name_is_refused_by_index() {
    for name in ["Ops", "ops_slack", "''", &"a".repeat(64)] {
        let yaml = format!(
            "receivers:\n  - name: fine\n    url: http://a.example\n  - name: {name}\n    url: http://b.example\n"
        );
        assert_eq!(
            error(&yaml),
            "receivers[1]: name: must be 1 to 63 characters of a-z, 0-9 and -",
            "{name}"
        );
    }
    let longest = format!(
        "receivers:\n  - name: {}\n    url: http://a.example\n",
        "a".repeat(63)
    );
    assert!(parse(&longest).is_ok());
}

#[test]
fn only_http_and_https_urls_are_taken() {
    let with_url = |url: &str| parse(&format!("receivers:\n  - name: ops\n    url: '{url}'\n"));
    let problem = |url: &str| match with_url(url) {
        Err(ConfigError::BadUrl { receiver, problem }) => {
            assert_eq!(receiver, "ops");
            problem
        }
        other => panic!("{url}: {other:?}"),
    };
    assert_eq!(
        with_url("ftp://files.example/hook")
            .unwrap_err()
            .to_string(),
        r#"receiver "ops": url: only http and https are allowed"#
    );
    assert_eq!(problem("file:///etc/passwd"), UrlProblem::Scheme);
    assert_eq!(problem("hooks.slack.com/services/x"), UrlProblem::Scheme);
    assert_eq!(problem("https://"), UrlProblem::NotUrl);
    assert_eq!(problem("https://exa mple.com/"), UrlProblem::NotUrl);
    assert_eq!(problem("not a url"), UrlProblem::Scheme);
    let long = format!("https://x.example/{}", "a".repeat(2048));
    assert_eq!(problem(&long), UrlProblem::TooLong);
    // The URL itself is never in the message: it may be a credential.
    assert!(
        !with_url("ftp://secret.example/token")
            .unwrap_err()
            .to_string()
            .contains("secret")
    );

    assert!(with_url("http://127.0.0.1:8080/hook").is_ok());
    assert!(with_url("HTTPS://x.example/").is_ok());
    assert!(with_url("https://hooks.slack.com/services/T/B/X").is_ok());
}

#[test]
fn receivers_match_on_events_namespaces_and_templates() {
    let config = parse(GOOD).unwrap();
    let (slack, audit) = (&config.receivers[0], &config.receivers[1]);

    let prod = Notification {
        template: Some("prod-aws".into()),
        ..waiting()
    };
    assert!(slack.matches(&prod));
    assert!(audit.matches(&prod));

    // Another template, another namespace, another event: not for Slack.
    assert!(!slack.matches(&waiting()));
    let elsewhere = Notification {
        namespace: "team-b".into(),
        ..prod.clone()
    };
    assert!(!slack.matches(&elsewhere));
    let started = Notification {
        kind: EventKind::RolloutStarted,
        ..prod.clone()
    };
    assert!(!slack.matches(&started));
    assert!(audit.matches(&started));

    // A MultiClusterService is named in `templates` too.
    let by_service = Notification {
        template: None,
        multi_cluster_service: Some("prod-aws".into()),
        ..prod.clone()
    };
    assert!(slack.matches(&by_service));

    // A service failing matches on its cluster's template.
    assert!(slack.matches(&service_failed()));
    let other_template = Notification {
        template: Some("dev".into()),
        ..service_failed()
    };
    assert!(!slack.matches(&other_template));

    // Neither template nor MultiClusterService: no match for a filter on them.
    let no_subject = Notification {
        template: None,
        ..service_failed()
    };
    assert!(!slack.matches(&no_subject));
    assert!(audit.matches(&no_subject));
}

#[test]
fn the_json_body_is_pinned() {
    let n = waiting();
    assert_eq!(
        n.json_body(),
        json!({
            "version": "hmc.mirantis.com/notification/v1",
            "id": n.id(),
            "event": "waveWaitingForApproval",
            "time": "2026-05-04T09:30:00Z",
            "namespace": "team-a",
            "template": "demo-cluster",
            "rollout": "demo-cluster-5",
            "revision": 5,
            "wave": 2,
            "message": "wave 2 waits for approval",
            "text": ":hourglass: team-a/demo-cluster rollout demo-cluster-5: wave 2 waits for approval",
        })
    );
}

#[test]
fn the_json_body_has_every_field_when_set() {
    let n = Notification {
        kind: EventKind::RolloutPaused,
        namespace: "team-a".into(),
        template: Some("demo-cluster".into()),
        multi_cluster_service: Some("ingress".into()),
        rollout: Some("demo-cluster-5".into()),
        revision: Some(5),
        wave: Some(0),
        cluster: Some("edge-7".into()),
        service: Some("ingress-nginx".into()),
        by: Some("alice".into()),
        message: "paused".into(),
        at: "2026-05-04T09:30:00.25Z".parse().unwrap(),
    };
    assert_eq!(
        n.json_body(),
        json!({
            "version": JSON_VERSION,
            "id": n.id(),
            "event": "rolloutPaused",
            "time": "2026-05-04T09:30:00.25Z",
            "namespace": "team-a",
            "template": "demo-cluster",
            "multiClusterService": "ingress",
            "rollout": "demo-cluster-5",
            "revision": 5,
            "wave": 0,
            "cluster": "edge-7",
            "service": "ingress-nginx",
            "by": "alice",
            "message": "paused",
            "text": ":double_vertical_bar: team-a/demo-cluster rollout demo-cluster-5 cluster edge-7 service ingress-nginx: paused (by alice)",
        })
    );
}

#[test]
fn the_slack_body_is_pinned() {
    assert_eq!(
        waiting().slack_body(),
        json!({"text": ":hourglass: team-a/demo-cluster rollout demo-cluster-5: wave 2 waits for approval"})
    );
    assert_eq!(
        service_failed().slack_body(),
        json!({"text": ":x: team-a/prod-aws cluster edge-7 service ingress-nginx: install failed"})
    );
    // Without a template, the cluster is the subject.
    let bare = Notification {
        template: None,
        service: None,
        ..service_failed()
    };
    assert_eq!(
        bare.slack_body(),
        json!({"text": ":x: team-a/edge-7: install failed"})
    );
    let stopped = Notification {
        multi_cluster_service: Some("ingress".into()),
        rollout: Some("ingress-3".into()),
        ..Notification::new(
            EventKind::RolloutStopped,
            "team-a",
            "stopped: 3 clusters failed, the budget is 2",
        )
    };
    assert_eq!(
        stopped.slack_body(),
        json!({"text": ":octagonal_sign: team-a/ingress rollout ingress-3: stopped: 3 clusters failed, the budget is 2"})
    );
}

#[test]
fn slack_escapes_what_mrkdwn_would_take() {
    assert_eq!(
        slack_escape("a <@U123> & <https://x|y> > b"),
        "a &lt;@U123&gt; &amp; &lt;https://x|y&gt; &gt; b"
    );
    let n = Notification {
        message: "values <broken> & \"quoted\"".into(),
        ..waiting()
    };
    assert_eq!(
        n.slack_body(),
        json!({"text": ":hourglass: team-a/demo-cluster rollout demo-cluster-5: values &lt;broken&gt; &amp; \"quoted\""})
    );
    // The json format's text is the same line, unescaped.
    assert_eq!(
        n.json_body()["text"],
        ":hourglass: team-a/demo-cluster rollout demo-cluster-5: values <broken> & \"quoted\""
    );
}

#[test]
fn the_summary_is_one_line() {
    let n = Notification {
        message: "first\nsecond\r\tthird".into(),
        ..waiting()
    };
    assert_eq!(
        n.summary(),
        ":hourglass: team-a/demo-cluster rollout demo-cluster-5: first second  third"
    );
}

#[test]
fn every_kind_has_its_name_and_emoji() {
    for kind in EventKind::ALL {
        assert_eq!(kind.as_str().parse::<EventKind>(), Ok(kind));
        assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.as_str()));
        assert!(kind.emoji().starts_with(':') && kind.emoji().ends_with(':'));
    }
    assert_eq!(
        serde_json::to_value(EventKind::RolloutRolledBack).unwrap(),
        json!("rolloutRolledBack")
    );
}

#[test]
fn no_text_speaks_of_helm_releases() {
    let e = ConfigError::UnknownEvent {
        receiver: "ops".into(),
        value: "x".into(),
    };
    for text in [
        waiting().summary(),
        service_failed().summary(),
        e.to_string(),
    ] {
        assert!(!text.to_lowercase().contains("helmrelease"), "{text}");
    }
}

#[test]
fn the_id_is_stable() {
    let n = waiting();
    // Pinned: a receiver may keep ids across engine versions.
    assert_eq!(
        n.id(),
        "80b00ae2f82360474ce0e113bc48bcbcca620eec517c7725880b152e3658f4e5"
    );
    // Not over the time nor who acted: a transition told again later is
    // the same transition.
    let later = Notification {
        at: "2026-05-04T10:00:00Z".parse().unwrap(),
        by: Some("bob".into()),
        ..n.clone()
    };
    assert_eq!(later.id(), n.id());

    // Every other field makes another id.
    let others = [
        Notification {
            kind: EventKind::WaveCompleted,
            ..n.clone()
        },
        Notification {
            namespace: "team-b".into(),
            ..n.clone()
        },
        Notification {
            template: None,
            ..n.clone()
        },
        Notification {
            multi_cluster_service: Some("demo-cluster".into()),
            ..n.clone()
        },
        Notification {
            rollout: Some("demo-cluster-6".into()),
            ..n.clone()
        },
        Notification {
            revision: Some(6),
            ..n.clone()
        },
        Notification {
            wave: Some(3),
            ..n.clone()
        },
        Notification {
            cluster: Some("edge-7".into()),
            ..n.clone()
        },
        Notification {
            service: Some("ingress".into()),
            ..n.clone()
        },
        Notification {
            message: "wave 2 waits for approval.".into(),
            ..n.clone()
        },
    ];
    let mut ids: BTreeSet<String> = others.iter().map(Notification::id).collect();
    ids.insert(n.id());
    assert_eq!(ids.len(), others.len() + 1);
    // The same value in another field is another notification.
    let moved = Notification {
        template: None,
        multi_cluster_service: Some("demo-cluster".into()),
        ..n.clone()
    };
    assert_ne!(moved.id(), n.id());
}

#[test]
fn a_long_message_is_cut_on_a_character_boundary() {
    assert_eq!(cut("héllo", 2), "h");
    assert_eq!(cut("héllo", 3), "hé");
    assert_eq!(cut("short", 100), "short");

    // 'é' is two bytes: 1,500 of them are 3,000 bytes, and 2,000 is a
    // boundary; one byte more first makes it fall in the middle of one.
    let long = format!("x{}", "é".repeat(1500));
    let n = Notification {
        message: long.clone(),
        ..waiting()
    };
    let body = n.json_body();
    let message = body["message"].as_str().unwrap();
    assert_eq!(message.len(), MESSAGE_LIMIT - 1);
    assert!(long.starts_with(message));
    let text = n.slack_body()["text"].as_str().unwrap().to_string();
    assert!(text.ends_with(message), "{text}");
    assert!(text.len() < MESSAGE_LIMIT + 100);
}

#[test]
fn aliases_that_expand_past_the_limits_are_refused_before_the_lists_are_read() {
    // A few hundred bytes: one anchor of 200 namespaces, referenced in
    // a nest of lists that expands to millions of nodes.
    let names: Vec<String> = (0..200).map(|i| format!("n{i}")).collect();
    let mut yaml = format!("a: &a [{}]\n", names.join(", "));
    yaml.push_str("b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n");
    yaml.push_str("c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
    yaml.push_str("receivers:\n  - name: x\n    url: http://example.com\n    namespaces: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n");
    assert!(yaml.len() < MAX_CONFIG_BYTES);
    let e = error(&yaml);
    assert!(e.contains("limit") || e.contains("alias"), "{e}");
}
