//! The Helm chart's options, each on and off: `helm template` renders the
//! objects an option asks for, with the right content, and nothing when it
//! is off; `helm lint --strict` passes with every option on; the values
//! schema refuses a key it does not know; and the alerts and the Grafana
//! dashboard read only metrics the engine publishes. No cluster needed;
//! `helm` is the harness's (tests/harness/harness build).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::helm;
use serde_json::Value;

const RELEASE: &str = "edge";
const NS: &str = "ops";

/// Every object the chart renders for release `edge` in namespace `ops`.
fn render(set: &[&str]) -> Vec<Value> {
    helm::template(RELEASE, NS, set)
}

/// The objects of `kind`.
fn all<'a>(objects: &'a [Value], kind: &str) -> Vec<&'a Value> {
    objects.iter().filter(|o| o["kind"] == kind).collect()
}

/// The one object of `kind`.
fn one<'a>(objects: &'a [Value], kind: &str) -> &'a Value {
    let found = all(objects, kind);
    assert_eq!(found.len(), 1, "one {kind}");
    found[0]
}

/// The object of `kind` named `name`.
fn named<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
    objects
        .iter()
        .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name}"))
}

/// A string map of a JSON object (labels, selectors).
fn strings(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_string()))
        .collect()
}

/// Every option of the chart switched on, with a value for each setting.
const EVERY_OPTION: &[&str] = &[
    "replicas=3",
    "image.digest=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "imagePullSecrets[0].name=regcred",
    "watchNamespace=team-a",
    "shards={a,b}",
    "metrics.serviceMonitor.create=true",
    "metrics.serviceMonitor.interval=15s",
    "metrics.serviceMonitor.scrapeTimeout=5s",
    "metrics.serviceMonitor.labels.release=kube-prometheus-stack",
    "metrics.prometheusRule.create=true",
    "metrics.prometheusRule.labels.release=kube-prometheus-stack",
    "metrics.dashboard.create=true",
    "metrics.dashboard.namespace=monitoring",
    "metrics.dashboard.annotations.grafana_folder=hmc",
    "networkPolicy.engine.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring",
    "networkPolicy.engine.apiServer.cidrs={10.0.0.1/32}",
    "networkPolicy.engine.chartSources.cidrs={0.0.0.0/0}",
    "networkPolicy.engine.extraEgress[0].ports[0].port=5000",
    "admissionPolicy.namespaceSelector.matchLabels.team=a",
    "nodeSelector.kubernetes\\.io/os=linux",
    "podAnnotations.example\\.com/note=x",
];

#[test]
fn the_chart_lints_strictly_with_every_option_on() {
    let chart = helm::chart_dir();
    let mut args: Vec<String> = vec!["lint".into(), "--strict".into()];
    args.push(chart.to_string_lossy().into_owned());
    for s in EVERY_OPTION {
        args.extend(["--set".to_string(), s.to_string()]);
    }
    helm::helm(&args);
    // And it renders: every object once, in the namespaces asked for.
    let objects = render(EVERY_OPTION);
    for kind in [
        "ServiceMonitor",
        "PrometheusRule",
        "ConfigMap",
        "PodDisruptionBudget",
    ] {
        one(&objects, kind);
    }
    assert_eq!(all(&objects, "NetworkPolicy").len(), 2);
    for o in &objects {
        let ns = o["metadata"]["namespace"].as_str().unwrap_or(NS);
        // The engine's grants: in the namespace it watches, and the
        // default repository's read in its own.
        let grant = ["Role", "RoleBinding"].contains(&o["kind"].as_str().unwrap_or_default());
        assert!(
            [NS, "flux-system", "kube-system", "monitoring"].contains(&ns)
                || (grant && ["team-a", "hmc-system"].contains(&ns)),
            "{} in {ns}",
            o["kind"]
        );
    }
}

// ------------------------------------------------------------ the image

fn image(set: &[&str]) -> String {
    let objects = render(set);
    let d = one(&objects, "Deployment");
    d["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn the_image_is_the_published_one_and_a_digest_wins_over_the_tag() {
    let meta: serde_yaml::Value = serde_yaml::from_str(
        &std::fs::read_to_string(helm::chart_dir().join("Chart.yaml")).unwrap(),
    )
    .unwrap();
    let app = meta["appVersion"].as_str().unwrap();
    assert_eq!(image(&[]), format!("ghcr.io/hmc-tui/hmc-tui:{app}"));
    assert_eq!(image(&["image.tag=1.2.3"]), "ghcr.io/hmc-tui/hmc-tui:1.2.3");
    let digest = format!("sha256:{}", "ab".repeat(32));
    for set in [
        vec![format!("image.digest={digest}")],
        vec![format!("image.digest={digest}"), "image.tag=1.2.3".into()],
    ] {
        let set: Vec<&str> = set.iter().map(String::as_str).collect();
        assert_eq!(image(&set), format!("ghcr.io/hmc-tui/hmc-tui@{digest}"));
    }
    assert_eq!(
        image(&[
            "image.repository=registry.example.com/hmc-tui",
            &format!("image.digest={digest}"),
        ]),
        format!("registry.example.com/hmc-tui@{digest}")
    );
}

// ------------------------------------------------------------ the schema

/// `helm template` with `set`: it fails, and says so on stderr.
fn refused(set: &[&str]) -> String {
    let out = helm::helm_output(&helm::template_args(RELEASE, NS, set));
    assert!(!out.status.success(), "{set:?} was accepted");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn the_schema_refuses_a_misspelt_key_and_names_it() {
    for (set, key) in [
        ("imagee.tag=x", "imagee"),
        ("image.tagg=x", "tagg"),
        ("metrics.serviceMonitor.intervall=1m", "intervall"),
        ("metrics.prometheusRule.enabled=true", "enabled"),
        ("networkPolicy.engine.apiServer.port=6443", "port"),
        ("podDisruptionBudget.minAvailable=1", "minAvailable"),
        ("lease.name=x", "name"),
        (
            "admissionPolicy.namespaceSelector.matchLabel.a=b",
            "matchLabel",
        ),
    ] {
        let err = refused(&[set]);
        assert!(
            err.contains("values don't meet the specifications of the schema"),
            "{set}: {err}"
        );
        assert!(err.contains(&format!("'{key}'")), "{set}: {err}");
        assert!(err.contains("not allowed"), "{set}: {err}");
    }
    // Values that are checked for their form, not only their name.
    for set in [
        "image.digest=sha256:abc",
        "image.digest=latest",
        "metrics.serviceMonitor.interval=30",
        "networkPolicy.engine.apiServer.ports={70000}",
        "networkPolicy.engine.apiServer.cidrs={10.0.0.1}",
        "metrics.prometheusRule.selector={job=\"x\"}",
    ] {
        let err = refused(&[set]);
        assert!(
            err.contains("values don't meet the specifications of the schema"),
            "{set}: {err}"
        );
    }
    // Free maps take any key.
    render(&[
        "nodeSelector.anything=x",
        "resources.requests.ephemeral-storage=1Gi",
        "affinity.nodeAffinity.x=y",
        "metrics.dashboard.labels.any=x",
    ]);
}

// ------------------------------------------------ PodDisruptionBudget

#[test]
fn the_disruption_budget_never_blocks_a_drain_at_one_replica() {
    for replicas in ["0", "1"] {
        let objects = render(&[&format!("replicas={replicas}")]);
        assert!(
            all(&objects, "PodDisruptionBudget").is_empty(),
            "replicas={replicas}"
        );
    }
    for replicas in ["2", "5"] {
        let objects = render(&[&format!("replicas={replicas}")]);
        let pdb = one(&objects, "PodDisruptionBudget");
        // One may always go: never a budget that allows no eviction.
        assert_eq!(pdb["spec"]["maxUnavailable"], 1, "replicas={replicas}");
        assert!(pdb["spec"].get("minAvailable").is_none());
        assert_eq!(pdb["spec"]["unhealthyPodEvictionPolicy"], "AlwaysAllow");
        let pods = strings(&one(&objects, "Deployment")["spec"]["template"]["metadata"]["labels"]);
        let sel = strings(&pdb["spec"]["selector"]["matchLabels"]);
        assert!(!sel.is_empty() && sel.iter().all(|(k, v)| pods.get(k) == Some(v)));
    }
    let objects = render(&["podDisruptionBudget.create=false"]);
    assert!(all(&objects, "PodDisruptionBudget").is_empty());
}

// ------------------------------------------------------- ServiceMonitor

#[test]
fn the_service_monitor_scrapes_the_metrics_service() {
    let objects = render(&[]);
    assert!(all(&objects, "ServiceMonitor").is_empty(), "off by default");

    let objects = render(&[
        "metrics.serviceMonitor.create=true",
        "metrics.serviceMonitor.interval=15s",
        "metrics.serviceMonitor.scrapeTimeout=5s",
        "metrics.serviceMonitor.labels.release=prom",
    ]);
    let sm = one(&objects, "ServiceMonitor");
    assert_eq!(sm["apiVersion"], "monitoring.coreos.com/v1");
    assert_eq!(sm["metadata"]["namespace"], NS);
    assert_eq!(sm["metadata"]["labels"]["release"], "prom");
    let svc = named(&objects, "Service", "edge-hmc-tui-metrics");
    // It selects the metrics Service by its labels, and only that Service.
    let sel = strings(&sm["spec"]["selector"]["matchLabels"]);
    assert!(!sel.is_empty());
    for s in all(&objects, "Service") {
        let labels = strings(&s["metadata"]["labels"]);
        let selected = sel.iter().all(|(k, v)| labels.get(k) == Some(v));
        assert_eq!(selected, s == svc, "{}", s["metadata"]["name"]);
    }
    assert_eq!(
        sm["spec"]["namespaceSelector"]["matchNames"],
        serde_json::json!([NS])
    );
    let endpoints = sm["spec"]["endpoints"].as_array().unwrap();
    assert_eq!(endpoints.len(), 1);
    let port_names: Vec<&Value> = svc["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["name"])
        .collect();
    assert!(
        port_names.contains(&&endpoints[0]["port"]),
        "{port_names:?}"
    );
    assert_eq!(endpoints[0]["path"], "/metrics");
    assert_eq!(endpoints[0]["interval"], "15s");
    assert_eq!(endpoints[0]["scrapeTimeout"], "5s");

    // Without the Service there is nothing to scrape: refused, saying why.
    let err = refused(&[
        "metrics.serviceMonitor.create=true",
        "metrics.service.create=false",
    ]);
    assert!(err.contains("needs metrics.service.create"), "{err}");
}

// ----------------------------------------------- the engine's metrics

/// Every series name the engine's `/metrics` can hold: the exposition of
/// an engine with nothing in its stores (src/engine/metrics.rs `render`),
/// whose `# TYPE` lines name every family; a counter's samples are
/// `<name>_total`, a histogram's `_bucket`, `_sum` and `_count`.
async fn engine_series() -> BTreeSet<String> {
    use hmc_tui::engine::Counters;
    use hmc_tui::engine::leader::Role;
    use hmc_tui::store::{Scope, Stores};
    // Never contacted: the stores are only set up, never driven.
    let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
    let client = kube::Client::try_from(config).unwrap();
    let (stores, _watches) = Stores::new(
        &client,
        &Scope { namespace: None },
        hmc_tui::capi::Version::default(),
    );
    let text = hmc_tui::engine::metrics::render(&Counters::default(), &stores, Role::Standby);
    let mut names = BTreeSet::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# TYPE ") else {
            continue;
        };
        let (name, kind) = rest.split_once(' ').unwrap();
        match kind {
            "counter" => {
                names.insert(format!("{name}_total"));
            }
            "histogram" => {
                for suffix in ["_bucket", "_sum", "_count"] {
                    names.insert(format!("{name}{suffix}"));
                }
            }
            _ => {
                names.insert(name.to_string());
            }
        }
    }
    assert!(names.contains("hmc_engine_leader"), "{text}");
    names
}

/// The metric names a PromQL expression reads: its identifiers that are
/// not functions, aggregations, keywords, grouping labels or Grafana
/// variables, once strings, label matchers and ranges are taken out.
fn promql_metrics(expr: &str) -> BTreeSet<String> {
    let mut plain = String::new();
    let (mut braces, mut brackets, mut quote) = (0, 0, None);
    for c in expr.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '{' => braces += 1,
            '[' => brackets += 1,
            '}' | ']' => {
                if c == '}' {
                    braces -= 1;
                } else {
                    brackets -= 1;
                }
                plain.push(' ');
            }
            _ if braces == 0 && brackets == 0 => plain.push(c),
            _ => {}
        }
    }
    const GROUPING: [&str; 6] = [
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
    ];
    // Aggregations may come before their grouping: `sum by (x) (...)`.
    const KEYWORDS: [&str; 21] = [
        "and",
        "or",
        "unless",
        "bool",
        "offset",
        "inf",
        "nan",
        "sum",
        "min",
        "max",
        "avg",
        "group",
        "stddev",
        "stdvar",
        "count",
        "count_values",
        "bottomk",
        "topk",
        "quantile",
        "limitk",
        "limit_ratio",
    ];
    let chars: Vec<char> = plain.chars().collect();
    let mut names = BTreeSet::new();
    let mut i = 0;
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':';
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() || c == '.' || c == '$' {
            // A number (0.1, 1e3) or a variable ($__rate_interval).
            i += 1;
            while i < chars.len() && (word(chars[i]) || chars[i] == '.') {
                i += 1;
            }
            continue;
        }
        if !word(c) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && word(chars[i]) {
            i += 1;
        }
        let ident: String = chars[start..i].iter().collect();
        let mut next = i;
        while next < chars.len() && chars[next].is_whitespace() {
            next += 1;
        }
        let call = chars.get(next) == Some(&'(');
        if GROUPING.contains(&ident.to_ascii_lowercase().as_str()) {
            if call {
                // Skip the label list.
                i = next;
                while i < chars.len() && chars[i] != ')' {
                    i += 1;
                }
            }
            continue;
        }
        if call || KEYWORDS.contains(&ident.to_ascii_lowercase().as_str()) {
            continue;
        }
        names.insert(ident);
    }
    names
}

#[test]
fn promql_metrics_finds_the_metrics_only() {
    let got = promql_metrics(
        r#"(sum by (controller) (rate(a_total{x="y",z=~"w|{"}[5m])) / on() group_left(controller) b) > 0.1 or vector(0) and max without (pod) (c{d="e"}) > bool 1e3"#,
    );
    assert_eq!(
        got,
        BTreeSet::from(["a_total".into(), "b".into(), "c".into()])
    );
    assert_eq!(
        promql_metrics("histogram_quantile(0.99, sum by (le) (rate(h_bucket[$__rate_interval])))"),
        BTreeSet::from(["h_bucket".into()])
    );
}

/// Asserts that every metric `expr` reads is one the engine publishes, and
/// that it reads at least one.
fn reads_engine_metrics(expr: &str, series: &BTreeSet<String>, what: &str) -> BTreeSet<String> {
    let used = promql_metrics(expr);
    assert!(!used.is_empty(), "{what} reads no metric: {expr}");
    for m in &used {
        assert!(
            series.contains(m),
            "{what} reads {m}, which the engine does not publish (it publishes {series:?}): {expr}"
        );
    }
    used
}

// ------------------------------------------------------ PrometheusRule

#[tokio::test]
async fn the_alerts_read_only_the_engines_metrics() {
    let objects = render(&[]);
    assert!(all(&objects, "PrometheusRule").is_empty(), "off by default");

    let series = engine_series().await;
    let objects = render(&[
        "metrics.prometheusRule.create=true",
        "metrics.prometheusRule.labels.release=prom",
        "lease.namespace=leases",
    ]);
    let rule = one(&objects, "PrometheusRule");
    assert_eq!(rule["apiVersion"], "monitoring.coreos.com/v1");
    assert_eq!(rule["metadata"]["namespace"], NS);
    assert_eq!(rule["metadata"]["labels"]["release"], "prom");
    let rules: Vec<&Value> = rule["spec"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap())
        .collect();
    let mut alerts = BTreeMap::new();
    for r in &rules {
        let alert = r["alert"].as_str().expect("only alerts");
        let expr = r["expr"].as_str().unwrap();
        let used = reads_engine_metrics(expr, &series, alert);
        // Every metric is picked by this release's namespace and Service.
        assert_eq!(
            expr.matches(r#"namespace="ops",service="edge-hmc-tui-metrics""#)
                .count(),
            expr.matches("hmc_").count(),
            "{alert}: {expr}"
        );
        assert!(
            ["critical", "warning"].contains(&r["labels"]["severity"].as_str().unwrap()),
            "{alert}"
        );
        let f = r["for"].as_str().unwrap();
        assert!(f.ends_with('m') && f != "0m", "{alert}: for {f}");
        for key in ["summary", "description"] {
            let text = r["annotations"][key].as_str().unwrap();
            assert!(text.len() > 20, "{alert} {key}: {text}");
            assert!(
                !text.to_ascii_lowercase().contains("helmrelease"),
                "{alert} {key} speaks of HelmReleases: {text}"
            );
            // Prometheus templates, not Helm's, survived the rendering.
            assert!(!text.contains("{{`"), "{alert} {key}: {text}");
        }
        alerts.insert(alert.to_string(), (expr.to_string(), used));
    }
    let want = [
        ("HmcTuiNoLeader", "hmc_engine_leader"),
        ("HmcTuiReconcileErrors", "hmc_reconcile_errors_total"),
        ("HmcTuiServicesFailed", "hmc_services"),
        ("HmcTuiRolloutStopped", "hmc_rollouts"),
    ];
    let names: BTreeSet<&str> = alerts.keys().map(String::as_str).collect();
    assert_eq!(names, want.iter().map(|(a, _)| *a).collect());
    for (alert, metric) in want {
        assert!(
            alerts[alert].1.contains(metric),
            "{alert}: {:?}",
            alerts[alert]
        );
    }
    assert!(
        alerts["HmcTuiServicesFailed"]
            .0
            .contains(r#"state="Failed""#)
    );
    assert!(
        alerts["HmcTuiRolloutStopped"]
            .0
            .contains(r#"phase="Failed""#)
    );
    // No engine scraped at all is no engine leading, too.
    assert!(alerts["HmcTuiNoLeader"].0.contains("vector(0)"));
    // The lease it speaks of is the one the engines compete for.
    let no_leader = rules
        .iter()
        .find(|r| r["alert"] == "HmcTuiNoLeader")
        .unwrap();
    let text = no_leader["annotations"]["description"].as_str().unwrap();
    assert!(text.contains("kubectl -n leases get lease"), "{text}");
    let errors = rules
        .iter()
        .find(|r| r["alert"] == "HmcTuiReconcileErrors")
        .unwrap();
    assert!(
        errors["annotations"]["summary"]
            .as_str()
            .unwrap()
            .contains("{{ $labels.controller }}")
    );

    // Another selector, for a Prometheus that labels the engines otherwise.
    let objects = render(&[
        "metrics.prometheusRule.create=true",
        r#"metrics.prometheusRule.selector=job="hmc""#,
    ]);
    let rule = one(&objects, "PrometheusRule");
    let text = serde_json::to_string(&rule["spec"]).unwrap();
    assert!(text.contains(r#"hmc_engine_leader{job=\"hmc\"}"#), "{text}");
    assert!(!text.contains("edge-hmc-tui-metrics"), "{text}");
}

// ------------------------------------------------------------- Grafana

#[tokio::test]
async fn the_dashboard_is_the_chart_file_and_reads_the_engines_metrics() {
    let objects = render(&[]);
    assert!(all(&objects, "ConfigMap").is_empty(), "off by default");

    let series = engine_series().await;
    let objects = render(&["metrics.dashboard.create=true"]);
    let cm = one(&objects, "ConfigMap");
    assert_eq!(cm["metadata"]["namespace"], NS);
    assert_eq!(cm["metadata"]["labels"]["grafana_dashboard"], "1");
    let text = cm["data"]["hmc-tui.json"].as_str().unwrap();
    let file = std::fs::read_to_string(helm::chart_dir().join("dashboards/hmc-tui.json")).unwrap();
    assert_eq!(text.trim(), file.trim(), "the file, as it is");
    let dashboard: Value = serde_json::from_str(text).unwrap();
    assert_eq!(dashboard["uid"], "hmc-tui");

    let mut used = BTreeSet::new();
    let mut panels: Vec<&Value> = dashboard["panels"].as_array().unwrap().iter().collect();
    while let Some(p) = panels.pop() {
        panels.extend(p["panels"].as_array().into_iter().flatten());
        for t in p["targets"].as_array().into_iter().flatten() {
            let expr = t["expr"].as_str().unwrap();
            let what = format!("panel {}", p["title"]);
            used.extend(reads_engine_metrics(expr, &series, &what));
            assert!(
                expr.matches(r#"namespace="$namespace",service="$service""#)
                    .count()
                    == expr.matches("hmc_").count(),
                "{what}: {expr}"
            );
        }
    }
    // The variables' queries: label_values(<metric>{...}, <label>).
    for v in dashboard["templating"]["list"].as_array().unwrap() {
        let Some(q) = v["query"]["query"].as_str() else {
            continue;
        };
        let inner = q.strip_prefix("label_values(").unwrap();
        let metric = inner.split(['{', ',']).next().unwrap().trim();
        assert!(series.contains(metric), "variable {}: {q}", v["name"]);
    }
    // The dashboard shows every family the engine publishes.
    let families: BTreeSet<&str> = series
        .iter()
        .map(|s| s.strip_suffix("_bucket").unwrap_or(s))
        .filter(|s| !s.ends_with("_sum") && !s.ends_with("_count"))
        .collect();
    for f in families {
        assert!(
            used.contains(f) || used.contains(&format!("{f}_bucket")),
            "{f} not shown"
        );
    }

    let objects = render(&[
        "metrics.dashboard.create=true",
        "metrics.dashboard.namespace=monitoring",
        "metrics.dashboard.labels.grafana_dashboard=null",
        "metrics.dashboard.labels.dashboards=hmc",
        "metrics.dashboard.annotations.grafana_folder=Fleet",
    ]);
    let cm = one(&objects, "ConfigMap");
    assert_eq!(cm["metadata"]["namespace"], "monitoring");
    assert_eq!(cm["metadata"]["labels"]["dashboards"], "hmc");
    assert!(cm["metadata"]["labels"].get("grafana_dashboard").is_none());
    assert_eq!(cm["metadata"]["annotations"]["grafana_folder"], "Fleet");
}

// ------------------------------------------------------- NetworkPolicy

/// (protocol, port) of a policy rule's ports.
fn ports(rule: &Value) -> BTreeSet<(String, String)> {
    rule["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| {
            let port = match &p["port"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (p["protocol"].as_str().unwrap_or("TCP").to_string(), port)
        })
        .collect()
}

fn tcp(ports: &[&str]) -> BTreeSet<(String, String)> {
    ports
        .iter()
        .map(|p| ("TCP".to_string(), p.to_string()))
        .collect()
}

#[test]
fn the_engine_network_policy_opens_only_what_the_engine_uses() {
    let objects = render(&[]);
    let np = named(&objects, "NetworkPolicy", "edge-hmc-tui");
    assert_eq!(np["metadata"]["namespace"], NS);
    let pods = strings(&one(&objects, "Deployment")["spec"]["template"]["metadata"]["labels"]);
    let sel = strings(&np["spec"]["podSelector"]["matchLabels"]);
    assert!(!sel.is_empty() && sel.iter().all(|(k, v)| pods.get(k) == Some(v)));
    assert_eq!(
        np["spec"]["policyTypes"],
        serde_json::json!(["Ingress", "Egress"])
    );
    // In: the metrics and probe port only, from anyone by default.
    let ingress = np["spec"]["ingress"].as_array().unwrap();
    assert_eq!(ingress.len(), 1);
    assert_eq!(ports(&ingress[0]), tcp(&["http-metrics"]));
    assert!(ingress[0].get("from").is_none());
    // Out: the API server, DNS, source-controller and chart sources.
    let egress = np["spec"]["egress"].as_array().unwrap();
    let by_ports: BTreeMap<_, _> = egress.iter().map(|r| (ports(r), r)).collect();
    assert_eq!(by_ports.len(), 4, "{egress:?}");
    let api = by_ports[&tcp(&["443", "6443"])];
    assert!(api.get("to").is_none(), "any address by default");
    let dns: BTreeSet<_> = [("UDP", "53"), ("TCP", "53")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert!(by_ports[&dns].get("to").is_none());
    let source = by_ports[&tcp(&["http"])];
    assert_eq!(
        source["to"][0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"],
        "flux-system"
    );
    assert_eq!(
        source["to"][0]["podSelector"]["matchLabels"]["app"],
        "source-controller"
    );
    let charts = by_ports[&tcp(&["80", "443"])];
    assert!(charts.get("to").is_none(), "any address by default");

    // Settings.
    let objects = render(&[
        "networkPolicy.engine.metricsFrom[0].namespaceSelector.matchLabels.name=monitoring",
        "networkPolicy.engine.apiServer.cidrs={10.0.0.1/32,10.0.0.2/32}",
        "networkPolicy.engine.apiServer.ports={8443}",
        "networkPolicy.engine.chartSources.ports={443}",
        "networkPolicy.engine.chartSources.cidrs={203.0.113.0/24}",
        "networkPolicy.engine.extraEgress[0].ports[0].port=5000",
        "networkPolicy.fluxNamespace=flux",
    ]);
    let np = named(&objects, "NetworkPolicy", "edge-hmc-tui");
    assert_eq!(
        np["spec"]["ingress"][0]["from"][0]["namespaceSelector"]["matchLabels"]["name"],
        "monitoring"
    );
    let egress = np["spec"]["egress"].as_array().unwrap();
    let by_ports: BTreeMap<_, _> = egress.iter().map(|r| (ports(r), r)).collect();
    assert_eq!(
        by_ports[&tcp(&["8443"])]["to"],
        serde_json::json!([{"ipBlock": {"cidr": "10.0.0.1/32"}}, {"ipBlock": {"cidr": "10.0.0.2/32"}}])
    );
    assert_eq!(
        by_ports[&tcp(&["443"])]["to"],
        serde_json::json!([{"ipBlock": {"cidr": "203.0.113.0/24"}}])
    );
    assert!(by_ports.contains_key(&tcp(&["5000"])));
    assert_eq!(
        by_ports[&tcp(&["http"])]["to"][0]["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"],
        "flux"
    );

    // No chart source ports: no rule for them.
    let objects = render(&["networkPolicy.engine.chartSources.ports=null"]);
    let np = named(&objects, "NetworkPolicy", "edge-hmc-tui");
    assert_eq!(np["spec"]["egress"].as_array().unwrap().len(), 3);

    // Off: the engine's policy goes, Flux's stays; all off: none.
    let objects = render(&["networkPolicy.engine.create=false"]);
    let left = all(&objects, "NetworkPolicy");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["metadata"]["name"], "allow-edge-hmc-tui-artifacts");
    let objects = render(&["networkPolicy.create=false"]);
    assert!(all(&objects, "NetworkPolicy").is_empty());
}

// --------------------------------------------------------------- Lease

#[test]
fn a_namespace_scoped_engine_is_not_granted_to_list_leases() {
    let objects = render(&["watchNamespace=team-a"]);
    let role = named(&objects, "Role", "edge-hmc-tui-lease");
    let rules = role["rules"].as_array().unwrap();
    for r in rules {
        let verbs: Vec<&str> = r["verbs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(!verbs.contains(&"list") && !verbs.contains(&"watch"), "{r}");
        // Every verb but create is limited to a name.
        if verbs != ["create"] {
            assert!(
                r["resourceNames"].as_array().is_some_and(|n| !n.is_empty()),
                "{r}"
            );
        }
    }
}

// --------------------------------------------------------------- NOTES

#[test]
fn the_notes_say_how_to_check_the_lease_open_the_console_and_find_metrics() {
    let notes = helm::notes(RELEASE, NS, &[]);
    for want in [
        "Deployment edge-hmc-tui, 2 replica(s) of ghcr.io/hmc-tui/hmc-tui:",
        "kubectl -n kube-system get lease hmc-tui-engine -o jsonpath='{.spec.holderIdentity}",
        "hmc-tui --no-engine --kubeconfig ~/.kube/config --context <context> -A",
        "kubectl -n ops port-forward svc/edge-hmc-tui-metrics 8080",
        "localhost:8080/metrics",
        "NetworkPolicy edge-hmc-tui:",
        "PodDisruptionBudget edge-hmc-tui",
    ] {
        assert!(notes.contains(want), "{want:?} not in\n{notes}");
    }
    assert!(!notes.contains("ServiceMonitor"), "{notes}");

    // What the options install is listed; a scoped engine's lease and
    // namespace are the ones shown.
    let notes = helm::notes(
        RELEASE,
        NS,
        &[
            "replicas=1",
            "watchNamespace=team-a",
            "lease.namespace=leases",
            "metrics.serviceMonitor.create=true",
            "metrics.prometheusRule.create=true",
            "metrics.dashboard.create=true",
        ],
    );
    for want in [
        "kubectl -n leases get lease hmc-tui-engine.team-a",
        "reconciles\n  namespace team-a",
        "-n team-a",
        "ServiceMonitor edge-hmc-tui",
        "PrometheusRule edge-hmc-tui",
        "ConfigMap edge-hmc-tui-dashboard",
    ] {
        assert!(notes.contains(want), "{want:?} not in\n{notes}");
    }
    assert!(!notes.contains("PodDisruptionBudget"), "{notes}");
}
