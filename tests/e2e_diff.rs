//! `hmc-tui diff` end to end: the binary plans manifests against the live
//! management cluster, with the chart read from Flux's own artifact for its
//! `values.schema.json`, and writes nothing.
//!
//! Six clusters of one ClusterTemplate whose rollout is Manual, two at a
//! time: two set their own value for every key the change touches, one is
//! a DaemonSet, for which the chart's schema (an `if`/`then`) refuses the
//! new `hostPort.enabled: true`, and three take the change. (A cluster left
//! out by `k8sConstraint` is planned by the same planner; its case is a
//! unit test of `plan::impact`, since the Kubernetes version is the
//! template's, the same for all six.)
//!
//! Then the same change is made in the console, in a real terminal: its
//! review shows the groups `diff` printed, and the rollout the engine plans
//! for the save has the changes and waves both predicted.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::cases::*;
use common::console::*;
use common::rollouts::rollout_when;
use common::*;
use hmc_tui::api::{ClusterTemplate, ManagedCluster, ServiceTemplate};
use kube::api::{Api, Patch, PatchParams};
use serde_json::{Value, json};

const CLUSTERS: [&str; 6] = ["c1", "c2", "c3", "c4", "c5", "c6"];

fn template(values: &str) -> String {
    format!(
        r#"apiVersion: hmc.mirantis.com/v1alpha1
kind: ClusterTemplate
metadata:
  name: prod
spec:
  helm:
    chartName: hmc-test-cluster
    chartVersion: 0.1.0
    repository:
      url: {repo}
  services:
    - name: ingress
      template: checked
      values: "{values}"
  rollout:
    strategy: Manual
    maxConcurrent: 2
"#,
        repo = chart_repo_url()
    )
}

/// Runs the binary's `diff` against the harness; its exit status, standard
/// output and error.
fn diff(ns: &str, args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hmc-tui"))
        .env("KUBECONFIG", harness_dir().join("mgmt.kubeconfig"))
        .env("NO_COLOR", "1")
        .args(["diff", "-n", ns])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("hmc-tui diff");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Waits until ServiceTemplate `name` is valid: the engine has read its
/// chart from the archive Flux fetched.
async fn chart_read(mgmt: &kube::Client, ns: &str, name: &str) {
    let sts: Api<ServiceTemplate> = Api::namespaced(mgmt.clone(), ns);
    eventually(
        "the service template's chart to be read",
        INSTALL,
        || async {
            let status = sts.get_opt(name).await.ok()??.status?;
            status.valid.then_some(())
        },
    )
    .await;
}

/// A ServiceTemplate `name` of the harness's chart with a values schema
/// (`ingress-nginx-checked` 0.1.0), as a YAML document and its separator.
fn checked_service_template(name: &str) -> String {
    format!(
        "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ServiceTemplate\nmetadata:\n  name: {name}\n\
         spec:\n  helm:\n    chartName: ingress-nginx-checked\n    chartVersion: 0.1.0\n    \
         repository:\n      url: {}\n---\n",
        chart_repo_url()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn diff_and_the_console_predict_each_clusters_outcome_and_the_rollout_does_it() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "diff").await;
    let engine = RunningEngine::start(&ns.name).await;
    let service_template = checked_service_template("checked");
    let live = template("controller: {replicaCount: 2}");
    apply_yaml(&mgmt, &ns.name, &format!("{service_template}{live}")).await;
    for name in CLUSTERS {
        let own = match name {
            "c1" | "c2" => json!([{"name": "ingress",
                "values": "controller: {replicaCount: 5, hostPort: {enabled: false}}"}]),
            "c5" => json!([{"name": "ingress", "values": "controller: {kind: DaemonSet}"}]),
            _ => json!([]),
        };
        managed_cluster_from(&mgmt, &ns.name, name, "prod", own).await;
    }

    // The chart is read from the archive Flux fetched for the template.
    chart_read(&mgmt, &ns.name, "checked").await;
    let cts: Api<ClusterTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let revision = eventually("the template's first revision", INSTALL, || async {
        cts.get_opt("prod").await.ok()??.status?.revision
    })
    .await;
    // The clusters stand as a fleet that runs revision 1: each given it
    // (what the engine writes once a cluster's services can reach it).
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually(
        "every cluster to be given the revision",
        INSTALL,
        || async {
            for name in CLUSTERS {
                let given = mcs
                    .get_opt(name)
                    .await
                    .ok()??
                    .status
                    .and_then(|s| s.target_revision);
                if given != Some(revision) {
                    let patch = json!({"status": {"targetRevision": revision}});
                    mcs.patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
                        .await
                        .ok()?;
                    return None;
                }
            }
            Some(())
        },
    )
    .await;

    let dir = std::env::temp_dir().join(format!("hmc-tui-e2e-diff-{}", ns.name));
    std::fs::create_dir_all(&dir).unwrap();
    let proposed = dir.join("prod.yaml");
    let proposal = format!(
        "{}---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unrelated\n",
        template("controller: {replicaCount: 3, hostPort: {enabled: true}}")
    );
    std::fs::write(&proposed, &proposal).unwrap();
    let file = proposed.to_string_lossy().into_owned();

    let (code, out, err) = diff(&ns.name, &["-f", &file, "-o", "json"], None);
    assert_eq!(code, 1, "changes exit 1\n{out}\n{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["apiVersion"], "hmc-tui.diff/v1");
    assert_eq!(report["clusters"], 6);
    assert_eq!(
        report["counts"],
        json!({"changes": 3, "overridden": 2, "installed": 0, "removed": 0, "blocked": 1}),
        "{out}"
    );
    let outcome = |cluster: &str| {
        report["services"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["cluster"] == cluster)
            .cloned()
            .unwrap_or_else(|| panic!("no {cluster} in {out}"))
    };
    for c in ["c3", "c4", "c6"] {
        assert_eq!(outcome(c)["outcome"], "changes", "{c}: {out}");
        let found = outcome(c);
        let paths: Vec<&str> = found["changes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["path"].as_str())
            .collect();
        assert_eq!(
            paths,
            ["controller.hostPort.enabled", "controller.replicaCount"]
        );
    }
    for c in ["c1", "c2"] {
        assert_eq!(outcome(c)["outcome"], "overridden", "{c}: {out}");
    }
    let why = outcome("c5")["why"].as_str().unwrap().to_string();
    assert!(
        why.starts_with("the chart's schema: ") && why.contains("hostPort"),
        "{why}"
    );
    // Manual, two at a time: three waves, each after an approval.
    let waves: Vec<(String, Value)> = CLUSTERS
        .iter()
        .map(|c| (c.to_string(), outcome(c)["wave"].clone()))
        .collect();
    for (i, (c, wave)) in waves.iter().enumerate() {
        assert_eq!(
            *wave,
            json!({"number": i / 2 + 1, "of": 3, "approval": true}),
            "{c}"
        );
    }
    assert!(
        report["notes"][0]
            .as_str()
            .unwrap()
            .ends_with("document 2: v1/ConfigMap is not one of ours; not planned"),
        "{out}"
    );

    // The same from standard input, as text, and as Markdown.
    let (code, text, _) = diff(&ns.name, &["-f", "-"], Some(&proposal));
    assert_eq!(code, 1);
    assert!(text.starts_with("6 clusters: "), "{text}");
    assert!(text.contains("ingress: keep their own value: controller.hostPort.enabled, controller.replicaCount (2 clusters)"), "{text}");
    assert!(
        text.contains(&format!(
            "    {}/c1  wave 1 of 3, after an approval",
            ns.name
        )),
        "{text}"
    );
    let (code, md, _) = diff(&ns.name, &["-f", &file, "-o", "markdown"], None);
    assert_eq!(code, 1);
    assert!(md.starts_with("### Fleet impact"), "{md}");
    assert_eq!(md.matches("<details>").count(), 3, "{md}");
    assert!(
        md.contains("| ⛔ | `ingress` | `blocked: the chart's schema: "),
        "{md}"
    );

    // The template as it is changes nothing; a document that apply would
    // refuse exits 2 and names its place.
    let (code, text, _) = diff(&ns.name, &["-f", "-"], Some(&live));
    assert_eq!((code, text.as_str()), (0, "no cluster changes\n"));
    let bad = "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ManagedCluster\nmetadata:\n  name: Not_A_Name\nspec:\n  template: prod\n";
    let (code, text, _) = diff(&ns.name, &["-f", "-"], Some(bad));
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("error: -, document 1: metadata.name \"Not_A_Name\""),
        "{text}"
    );
    // A ServiceTemplate is immutable: a manifest that changes the live one
    // would be refused, in the API server's words.
    let changed = format!(
        "{}  values: 'controller: {{replicaCount: 4}}'\n",
        service_template.trim_end_matches("---\n")
    );
    let (code, text, _) = diff(&ns.name, &["-f", "-"], Some(&changed));
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains(&format!(
            "error: -, document 1: ServiceTemplate {}/checked: a ServiceTemplate is immutable",
            ns.name
        )),
        "{text}"
    );
    // A new ServiceTemplate is planned; its chart is read only once it is
    // applied, which a note says.
    let new_template = service_template.replace("name: checked", "name: checked-2");
    let (code, out, _) = diff(&ns.name, &["-f", "-", "-o", "json"], Some(&new_template));
    assert_eq!(code, 0, "{out}");
    let noted: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(
        noted["notes"],
        json!([format!(
            "service template {}/checked-2 is new: a chart is read only once it is applied; \
             its values are not checked against the chart's schema",
            ns.name
        )]),
        "{out}"
    );
    let (code, _, err) = diff(&ns.name, &["-f", "/nonexistent/dir/x.yaml"], None);
    assert_eq!(code, 2, "{err}");

    // Nothing was written: the template is as it was, and no rollout began.
    let ct = cts.get("prod").await.unwrap();
    assert_eq!(
        ct.spec.services[0].values.as_deref(),
        Some("controller: {replicaCount: 2}")
    );
    assert_eq!(ct.status.and_then(|s| s.revision), Some(revision));

    std::fs::remove_dir_all(&dir).unwrap();

    // The same change made in the console: its review predicts what `diff`
    // did, and the rollout of the save does what both predicted.
    let predicted: Vec<(String, Value)> = report["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["cluster"].as_str().unwrap().to_string(), s.clone()))
        .collect();
    console_review_then_rollout(&mgmt, &ns.name, &predicted).await;

    engine.stop().await;
    ns.cleanup().await;
}

/// `e` on the template's service in a real terminal, the new values, then
/// `ctrl-s`: the review's groups and a cluster's change are the ones `diff`
/// printed; the save needs a second `y` for the blocked cluster. The
/// rollout the engine plans for the new revision then has the predicted
/// changes and waves.
async fn console_review_then_rollout(mgmt: &kube::Client, ns: &str, predicted: &[(String, Value)]) {
    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    // The test's engine leads; this console only looks and writes.
    let console = Console::start_with(ns, "", &kubeconfig, &format!("-n {ns} --no-engine"));
    console.wait_text(&["clusters (6)"], SCREEN).await;
    console.type_text(":templates");
    console.keys(&["Enter"]);
    console
        .wait_for("the template prod", SCREEN, |s| {
            line_with(s, "▶ cluster prod ").is_some()
        })
        .await;
    console.keys(&["Enter"]);
    console
        .wait_for("prod's service ingress, selected", SCREEN, |s| {
            line_with(s, "▶ ingress").is_some()
        })
        .await;
    console.keys(&["e"]);
    console
        .wait_text(
            &[
                "ClusterTemplate prod  services[ingress].values",
                "1 controller: {replicaCount: 2}",
                "✓ valid values of ingress-nginx-checked 0.1.0",
            ],
            SCREEN,
        )
        .await;
    console.keys(&["End", "C-u"]);
    console.type_text("controller: {replicaCount: 3, hostPort: {enabled: true}}");
    console.wait_text(&["modified"], SCREEN).await;
    console.keys(&["C-s"]);
    let review = console
        .wait_text(&["It reaches 6 clusters; 1 would be blocked:"], SCREEN)
        .await;
    // One wording for the editor's diff, the fleet's groups and the
    // rollout's preview.
    let changes = [
        "+ controller.hostPort.enabled: true",
        "controller.replicaCount: 2 → 3",
    ];
    for group in [
        format!("3 clusters · ingress: {}", changes.join(", ")),
        "2 clusters · ingress: keep their own value: controller.hostPort.enabled, controller.replicaCount".to_string(),
        "1 cluster · ingress: blocked: the chart's schema: controller.hostPort".to_string(),
    ] {
        assert!(
            review.contains(&group),
            "the review's group `{group}`\n{review}"
        );
    }
    // The first group's clusters, then the first one's change and wave, as
    // `diff` gave them.
    console.keys(&["Enter"]);
    let first = format!("{ns}/c3");
    console
        .wait_text(&[&first, &format!("{ns}/c6")], SCREEN)
        .await;
    console.keys(&["Enter"]);
    let c3 = &predicted.iter().find(|(c, _)| c == "c3").unwrap().1;
    let wave = format!(
        "wave {} of {}, after an approval",
        c3["wave"]["number"], c3["wave"]["of"]
    );
    console
        .wait_text(&["controller.replicaCount: 2 → 3", &wave], SCREEN)
        .await;
    console.keys(&["BSpace", "BSpace"]);
    console
        .wait_text(&["It reaches 6 clusters; 1 would be blocked:"], SCREEN)
        .await;
    console.keys(&["y"]);
    console
        .wait_text(
            &["This save leaves 1 cluster with a blocked service. Save anyway?"],
            SCREEN,
        )
        .await;
    console.keys(&["y"]);
    console
        .wait_text(
            &["saved the values of ingress on ClusterTemplate prod"],
            SCREEN,
        )
        .await;

    // The engine's rollout of revision 2: every predicted change is the
    // rollout's, the clusters that keep their own values have none, and
    // each cluster is in the wave the review named.
    let rollout = rollout_when(
        mgmt,
        ns,
        "prod-2",
        "the rollout of revision 2",
        INSTALL,
        |r| {
            r.status
                .as_ref()
                .is_some_and(|s| s.clusters.len() == 6 && !s.preview.is_empty())
        },
    )
    .await;
    let status = rollout.status.unwrap();
    let actual = |cluster: &str| -> Vec<String> {
        status
            .preview
            .iter()
            .find(|g| g.clusters.iter().any(|c| c == cluster))
            .map(|g| g.changes.clone())
            .unwrap_or_else(|| panic!("{cluster} in the rollout's preview: {:?}", status.preview))
    };
    for (cluster, outcome) in predicted {
        let want: Vec<String> = match outcome["outcome"].as_str().unwrap() {
            "changes" | "blocked" => changes.iter().map(|c| format!("ingress: {c}")).collect(),
            "overridden" => Vec::new(),
            other => panic!("{cluster}: {other}"),
        };
        assert_eq!(actual(cluster), want, "{cluster}'s change");
        let wave = status
            .clusters
            .iter()
            .find(|c| c.name == *cluster)
            .map(|c| c.wave);
        assert_eq!(
            wave.map(|w| json!(w)),
            Some(outcome["wave"]["number"].clone()),
            "{cluster}'s wave"
        );
    }
    assert_eq!(status.waves.len(), 3, "{:?}", status.waves);
    console.quit().await;
}

/// Sets the terminal's title and clears the screen: what a tenant puts in
/// a name or a message to attack whoever reads it.
const ATTACK: &str = "\u{1b}]0;owned\u{7}\u{1b}[2J";
/// [`ATTACK`] as a reader must see it.
const ATTACK_SHOWN: &str = "\\u{1b}]0;owned\\u{7}\\u{1b}[2J";

/// Whether `text` holds anything a terminal interprets.
fn raw_control(text: &str) -> bool {
    text.chars().any(|c| c.is_control() && c != '\n')
}

/// What anyone who may write a template or a cluster can put in front of
/// a reviewer: an escape sequence in a template's name (a manifest carries
/// any name before the API server sees it, and the API server takes any
/// name in a reference) and so in the engine's condition message about
/// it, and a password in values. `diff` shows the escape sequence written
/// out in all three formats and the password masked, still saying that it
/// changed; the console shows the crafted name and condition message
/// written out, in the list, a cluster's conditions and describe.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crafted_names_and_messages_show_escaped_and_passwords_masked() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "diff-hostile").await;
    let engine = RunningEngine::start(&ns.name).await;
    let service_template = checked_service_template("db");
    let cluster_template = |values: &str, extra: &str| {
        format!(
            "apiVersion: hmc.mirantis.com/v1alpha1\nkind: ClusterTemplate\nmetadata:\n  name: shop\n\
             spec:\n  helm:\n    chartName: hmc-test-cluster\n    chartVersion: 0.1.0\n    \
             repository:\n      url: {}\n  services:\n    - name: db\n      template: db\n      \
             values: \"{values}\"\n{extra}",
            chart_repo_url()
        )
    };
    let live = cluster_template("auth: {password: hunter2}", "");
    apply_yaml(&mgmt, &ns.name, &format!("{service_template}{live}")).await;
    managed_cluster_from(&mgmt, &ns.name, "web", "shop", json!([])).await;
    // A cluster whose template's name is the attack: the engine's
    // condition message names it.
    managed_cluster_from(&mgmt, &ns.name, "evil", &format!("shop{ATTACK}"), json!([])).await;
    chart_read(&mgmt, &ns.name, "db").await;

    // The password changes, and a new service names a template whose name
    // carries the escape sequence.
    let proposal = cluster_template(
        "auth: {password: hunter3}",
        &format!(
            "    - name: cache\n      template: \"cache{}x\"\n",
            "\\x1b]0;owned\\x07\\x1b[2J"
        ),
    );
    let missing = format!("service template cache{ATTACK_SHOWN}x does not exist");

    let (code, text, err) = diff(&ns.name, &["-f", "-"], Some(&proposal));
    assert_eq!(code, 1, "{text}\n{err}");
    assert!(!raw_control(&text), "{text:?}");
    for part in [
        missing.as_str(),
        "db: auth.password: ++++++++ → ++++++++ (changed)",
    ] {
        assert!(text.contains(part), "{part} in\n{text}");
    }
    assert!(!text.contains("hunter"), "{text}");

    let (code, md, _) = diff(&ns.name, &["-f", "-", "-o", "markdown"], Some(&proposal));
    assert_eq!(code, 1, "{md}");
    assert!(!raw_control(&md), "{md:?}");
    assert!(!md.contains("hunter"), "{md}");
    assert!(md.contains(&format!("`blocked: {missing}")), "{md}");

    let (code, out, _) = diff(&ns.name, &["-f", "-", "-o", "json"], Some(&proposal));
    assert_eq!(code, 1, "{out}");
    assert!(!raw_control(&out), "{out:?}");
    assert!(!out.contains("hunter"), "{out}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let service = |name: &str| {
        report["services"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["service"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no {name} in {out}"))
    };
    // JSON keeps the text itself, escaped by JSON's rules.
    let why = service("cache")["why"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(why.contains(&format!("cache{ATTACK}x")), "{why:?}");
    assert_eq!(
        service("db")["changes"],
        json!([{"path": "auth.password", "old": "++++++++", "new": "++++++++ (changed)"}]),
        "{out}"
    );

    // The console: the list, the cluster's conditions, describe.
    let kubeconfig = harness_dir().join("mgmt.kubeconfig");
    let console = Console::start_with(
        &ns.name,
        "",
        &kubeconfig,
        &format!("-n {} --no-engine", ns.name),
    );
    let named = format!("cluster template shop{ATTACK_SHOWN} does not exist");
    let list = console
        .wait_text(&["clusters (2)", "shop\\u{1b}"], SCREEN)
        .await;
    assert!(!raw_control(&list), "{list:?}");
    // The list shows the message too: the cluster's own screen is known by
    // its title.
    console.keys(&["Enter"]);
    let title = format!("clusters › {}/evil", ns.name);
    let detail = console.wait_text(&[&title, &named], SCREEN).await;
    assert!(!raw_control(&detail), "{detail:?}");
    console.keys(&["Escape"]);
    console
        .wait_for("the list again", SCREEN, |s| {
            s.contains("clusters (2)") && !s.contains(&title)
        })
        .await;
    console.keys(&["d"]);
    let described = console.wait_text(&["Conditions", &named], SCREEN).await;
    assert!(!raw_control(&described), "{described:?}");
    console.quit().await;

    engine.stop().await;
    ns.cleanup().await;
}

/// A password in a template's values changes: the rollout the engine plans
/// for the new revision says that it changes, and never what it was or
/// becomes, in its `status.preview` (which anyone who may read the
/// rollout reads).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_in_a_rollouts_preview_is_masked() {
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "diff-masked").await;
    let engine = RunningEngine::start(&ns.name).await;
    let service_template = checked_service_template("checked");
    apply_yaml(
        &mgmt,
        &ns.name,
        &format!(
            "{service_template}{}",
            template("controller: {auth: {password: hunter2}}")
        ),
    )
    .await;
    managed_cluster_from(&mgmt, &ns.name, "c1", "prod", json!([])).await;
    // Revision 2's preview reads the chart: it comes once the chart is read.
    chart_read(&mgmt, &ns.name, "checked").await;
    let cts: Api<ClusterTemplate> = Api::namespaced(mgmt.clone(), &ns.name);
    let revision = eventually("the template's first revision", INSTALL, || async {
        cts.get_opt("prod").await.ok()??.status?.revision
    })
    .await;
    // The cluster runs revision 1, as in the test above.
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    eventually("the cluster to be given the revision", INSTALL, || async {
        let given = mcs
            .get_opt("c1")
            .await
            .ok()??
            .status
            .and_then(|s| s.target_revision);
        if given == Some(revision) {
            return Some(());
        }
        let patch = json!({"status": {"targetRevision": revision}});
        mcs.patch_status("c1", &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .ok()?;
        None
    })
    .await;
    apply_yaml(
        &mgmt,
        &ns.name,
        &template("controller: {auth: {password: hunter3}}"),
    )
    .await;
    let rollout = rollout_when(
        &mgmt,
        &ns.name,
        "prod-2",
        "the rollout of revision 2, with its preview",
        INSTALL,
        |r| r.status.as_ref().is_some_and(|s| !s.preview.is_empty()),
    )
    .await;
    let preview = rollout.status.map(|s| s.preview).unwrap_or_default();
    let changes: Vec<&String> = preview.iter().flat_map(|g| &g.changes).collect();
    assert_eq!(
        changes,
        ["ingress: controller.auth.password: ++++++++ → ++++++++ (changed)"],
        "{preview:?}"
    );
    engine.stop().await;
    ns.cleanup().await;
}
