//! The tutorial (docs/src/tutorial.md), step by step, in a real terminal
//! (tmux) against the local control plane: the examples of
//! `assets/examples/local/`, the console on them, `:templates`, `:clusters`,
//! a values edit of `dev-1` saved with `ctrl-s` and `y`, a template edit
//! that makes revision 2 and its TemplateRollout `demo-cluster-2`, and `a`
//! on the rollout board until the first wave's cluster is Installed at the
//! new revision.
//!
//! The test reads the tutorial as its script: every key, command and name
//! it types or looks for is written, backticked, in the tutorial's text, in
//! the order the test follows, so a change of the tutorial breaks the test
//! (and names what it no longer finds).
//!
//! `tests/harness/harness demo` applies the examples into `hmc-system` and
//! opens the console there; the harness is shared by tests running in
//! parallel, so this test applies the same examples into a namespace of its
//! own instead, provisions `dev-1` and `dev-2` on child clusters 1 and 2 the
//! way the demo does, and opens the console on that namespace with its
//! in-process engine. Its services install into `<ns>-ingress` with an
//! ingress class of their own (both are shared objects of a child cluster);
//! everything else is the examples as they are.

mod common;

use std::time::{Duration, Instant};

use common::cases::{chart_repo_url, deployment_replicas};
use common::console::*;
use common::rollouts::*;
use common::*;
use hmc_tui::api::{ManagedCluster, RolloutPhase, ServiceState, WaveState};
use kube::api::Api;
use serde_json::{Value, json};

/// How long a change may take to reach a child cluster.
const STEP: Duration = Duration::from_secs(180);

/// The chart repository URL the examples name.
const EXAMPLE_REPO: &str = "http://127.0.0.1:18080";

/// What the test follows, in the tutorial's order: backticked words are
/// keys, commands and names it types or looks for; the rest are sentences
/// whose promise it checks. The test walks these (in the same order) as it
/// goes; they are all checked first, before anything is made.
const SCRIPT: &[&str] = &[
    // 1. Start it
    "`assets/examples/local/`",
    "tests/harness/harness demo",
    // 2. A template
    "`:templates`",
    "`enter`",
    "`demo-cluster`",
    // 3. A cluster
    "`:clusters`",
    "`dev-1`",
    "`dev-2`",
    "`demo-cluster`",
    "`enter`",
    "`dev-1`",
    // 4. A values edit
    "`controller.replicaCount: 2`",
    "`e`",
    "`replicaCount`",
    "to 3",
    "`ctrl-s`",
    "`controller.replicaCount: 2 → 3`",
    "`y`",
    "the engine updates that one cluster's release",
    // 5. A rollout approved from the board
    "`:templates`",
    "`enter`",
    "`e`",
    "`ingress-nginx`",
    "`ctrl-s`",
    "`y`",
    "`TemplateRollout`",
    "`demo-cluster-2`",
    "one wave per cluster, each waiting for an approval",
    "`:rollouts`",
    "`enter`",
    "`demo-cluster-2`",
    "`a`",
    "until its services are Installed at the new revision",
    "then the next wave waits for you",
];

/// The tutorial, read in order: each step asks for the next words after the
/// ones found before.
struct Tutorial {
    text: String,
    at: usize,
    last: String,
}

impl Tutorial {
    fn read() -> Tutorial {
        let path = repo_root().join("docs/src/tutorial.md");
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        Tutorial {
            // One space for every run of white space: a sentence may wrap.
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            at: 0,
            last: "its beginning".into(),
        }
    }

    /// Every step of [`SCRIPT`] is in the tutorial, in order.
    fn check_script() {
        let mut tutorial = Tutorial::read();
        for words in SCRIPT {
            tutorial.next(words);
        }
    }

    /// `words`, literally, next in the tutorial.
    fn next(&mut self, words: &str) {
        match self.text[self.at..].find(words) {
            Some(i) => {
                self.at += i + words.len();
                self.last = words.to_string();
            }
            None => panic!(
                "docs/src/tutorial.md no longer says {words} after {}: \
                 tests/e2e_tutorial.rs follows the tutorial step by step; \
                 change the test with the tutorial",
                self.last
            ),
        }
    }

    /// `words`, backticked, next in the tutorial: the test is about to type
    /// or look for them. Returns them, without the backticks.
    fn says<'a>(&mut self, words: &'a str) -> &'a str {
        self.next(&format!("`{words}`"));
        words
    }

    /// Plain words (not backticked) next in the tutorial.
    fn mentions(&mut self, words: &str) {
        self.next(words);
    }
}

/// A key as the tutorial writes it (`enter`, `ctrl-s`, `a`), as tmux names it.
fn tmux_key(key: &str) -> String {
    match key {
        "enter" => "Enter".into(),
        "esc" => "Escape".into(),
        k if k.starts_with("ctrl-") => format!("C-{}", &k[5..]),
        k => k.into(),
    }
}

/// The documents of `assets/examples/local/`, made the test's: in `ns`, with
/// the harness's chart repository, the services installed into
/// `<ns>-ingress` with an ingress class named after `ns`. The Namespace
/// document is left out (the test's namespace stands for it).
fn examples(ns: &str) -> Vec<Value> {
    let dir = repo_root().join("assets/examples/local");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    let mut docs = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace(EXAMPLE_REPO, &chart_repo_url());
        for doc in serde_yaml::Deserializer::from_str(&text) {
            let mut doc: Value = serde::Deserialize::deserialize(doc).expect("yaml");
            if doc.is_null() || doc["kind"] == "Namespace" {
                continue;
            }
            doc["metadata"]["namespace"] = json!(ns);
            for subject in doc
                .get_mut("subjects")
                .and_then(|s| s.as_array_mut())
                .into_iter()
                .flatten()
            {
                subject["namespace"] = json!(ns);
            }
            if doc["kind"] == "ClusterTemplate" {
                for service in doc["spec"]["services"].as_array_mut().unwrap() {
                    service["namespace"] = json!(format!("{ns}-ingress"));
                    let values = service["values"].as_str().unwrap_or_default();
                    let mut values: serde_yaml::Value = serde_yaml::from_str(values).unwrap();
                    values["controller"]
                        .as_mapping_mut()
                        .expect("the example's service values set controller")
                        .insert(
                            "ingressClassResource".into(),
                            serde_yaml::from_str(&format!("name: {ns}-nginx")).unwrap(),
                        );
                    service["values"] = json!(serde_yaml::to_string(&values).unwrap());
                }
            }
            docs.push(doc);
        }
    }
    docs
}

/// The example objects of `kind`, by name.
fn names_of(docs: &[Value], kind: &str) -> Vec<String> {
    docs.iter()
        .filter(|d| d["kind"] == kind)
        .map(|d| d["metadata"]["name"].as_str().unwrap().to_string())
        .collect()
}

/// The state and revision of `service` on cluster `name`, from its status.
async fn service_at(
    mcs: &Api<ManagedCluster>,
    name: &str,
    service: &str,
) -> Option<(ServiceState, Option<i64>)> {
    let st = mcs.get_opt(name).await.ok()??.status?;
    let s = st.services.iter().find(|s| s.name == service)?;
    Some((s.state, s.revision))
}

/// On the templates screen (its rows read `cluster demo-cluster …`),
/// moves the cursor to the ClusterTemplate `name`.
async fn select_template(console: &Console, name: &str) {
    let selected = format!("▶ cluster {name} ");
    let listed = format!(" cluster {name} ");
    console
        .wait_for(&format!("{name} in the templates"), SCREEN, |s| {
            s.contains(&listed)
        })
        .await;
    for _ in 0..10 {
        if console.screen().contains(&selected) {
            return;
        }
        let before = console.screen();
        console.keys(&["j"]);
        console
            .wait_for("the cursor to move", SCREEN, |s| s != before)
            .await;
    }
    panic!("cannot select {name}\n{}", console.report());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tutorial_from_the_first_command_to_an_approved_wave() {
    let started = Instant::now();
    let lap = |what: &str| eprintln!("[{:>5.1?}] {what}", started.elapsed());
    Tutorial::check_script();
    let mut tutorial = Tutorial::read();
    let mgmt = mgmt().await;
    let ns = TestNamespace::create(&mgmt, "tutorial").await;
    let ingress = format!("{}-ingress", ns.name);

    // 1. Start it: the examples, then the console on them (the test's
    // namespace standing for hmc-system, see the top of the file).
    tutorial.says("assets/examples/local/");
    tutorial.mentions("tests/harness/harness demo");
    let docs = examples(&ns.name);
    let templates = names_of(&docs, "ClusterTemplate");
    let clusters = names_of(&docs, "ManagedCluster");
    let console = Console::start(&ns.name, "");
    console.wait_text(&["engine: in-process"], SCREEN).await;
    for doc in &docs {
        let kind = doc["kind"].as_str().unwrap();
        let api_version = doc["apiVersion"].as_str().unwrap();
        // `v1` is the core group's (the cluster installer's account).
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let plural = hmc_tui::engine::templates::plural_of(kind);
        apply_json(
            &mgmt,
            &ar(group, version, kind, &plural),
            Some(&ns.name),
            doc.clone(),
        )
        .await;
    }
    // As the demo does: each cluster provisioned on a child cluster of its
    // own once the engine has made its Cluster API objects.
    let [first, second] = [0, 1].map(|i| {
        clusters
            .get(i)
            .unwrap_or_else(|| panic!("two ManagedClusters in the examples: {clusters:?}"))
            .as_str()
    });
    futures::future::join(
        provision(&ns.name, first, 1),
        provision(&ns.name, second, 2),
    )
    .await;
    lap("the examples are applied and provisioned");

    // 2. A template: `:templates`, `enter` on `demo-cluster`: its chart, its
    // services and the service's values.
    let command = tutorial.says(":templates");
    let enter = tutorial.says("enter");
    let template = tutorial.says("demo-cluster");
    assert_eq!(templates, [template], "the examples' ClusterTemplate");
    console.type_text(command);
    console.keys(&[&tmux_key(enter)]);
    select_template(&console, template).await;
    console.keys(&[&tmux_key(enter)]);
    let service = "ingress-nginx";
    console
        .wait_text(
            &[
                "hmc-test-cluster",
                "services (1)",
                service,
                "ingress-nginx-4-11-3",
                "replicaCount",
            ],
            SCREEN,
        )
        .await;
    lap("the template's chart, services and values");

    // 3. A cluster: `:clusters` lists dev-1 and dev-2, made from the
    // template; `enter` on dev-1 shows its conditions and services.
    let command = tutorial.says(":clusters");
    assert_eq!(
        [first, second],
        [tutorial.says("dev-1"), tutorial.says("dev-2")],
        "the examples' clusters"
    );
    tutorial.says(template);
    let enter = tutorial.says("enter");
    tutorial.says(first);
    console.type_text(command);
    console.keys(&["Enter"]);
    console
        .wait_for(
            "dev-1 and dev-2, from demo-cluster, ready at revision 1",
            STEP,
            |s| {
                row_starts(s, &format!("{first} True {template} 1 1/1"))
                    && row_starts(s, &format!("{second} True {template} 1 1/1"))
            },
        )
        .await;
    console.select_row(first).await;
    console.keys(&[&tmux_key(enter)]);
    console
        .wait_for("dev-1's service Installed at revision 1", SCREEN, |s| {
            s.contains("services (1)")
                && line_with(s, &format!("▶ {service}")).is_some()
                && row_starts(s, &format!("{service} Installed 4.11.3 1"))
        })
        .await;
    let child1 = child(1).await;
    let child2 = child(2).await;
    assert_eq!(deployment_replicas(&child1, &ingress).await, Some(2));
    assert_eq!(deployment_replicas(&child2, &ingress).await, Some(1));
    lap("dev-1's detail");

    // 4. A values edit: `e` on the service, replicaCount 2 → 3, `ctrl-s`
    // shows what changes, `y` saves dev-1's own entry.
    let own = tutorial.says("controller.replicaCount: 2");
    assert_eq!(own, "controller.replicaCount: 2");
    let edit = tutorial.says("e");
    tutorial.says("replicaCount");
    tutorial.mentions("to 3");
    let save = tutorial.says("ctrl-s");
    let change = tutorial.says("controller.replicaCount: 2 → 3");
    let yes = tutorial.says("y");
    console.keys(&[edit]);
    console
        .wait_text(
            &[
                &format!("ManagedCluster {first}  services[{service}].values"),
                "1 controller:",
                "2   replicaCount: 2",
                "✓ valid values of ingress-nginx 4.11.3",
            ],
            STEP,
        )
        .await;
    // The cursor is on line 1: down to line 2, its end, 2 becomes 3.
    console.keys(&["Down", "End", "BSpace"]);
    console.type_text("3");
    console
        .wait_text(&["2   replicaCount: 3", "modified"], SCREEN)
        .await;
    console.keys(&[&tmux_key(save)]);
    console
        .wait_text(
            &[&format!("save {service}: ManagedCluster {first}"), change],
            SCREEN,
        )
        .await;
    console.keys(&[yes]);
    console
        .wait_text(
            &[&format!(
                "saved the values of {service} on ManagedCluster {first}"
            )],
            SCREEN,
        )
        .await;
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &ns.name);
    let spec = mcs.get(first).await.unwrap().spec;
    let entry = spec
        .services
        .iter()
        .find(|s| s.name == service)
        .unwrap_or_else(|| panic!("{first} has its {service} entry: {spec:?}"));
    assert_eq!(
        entry.values.as_deref(),
        Some("controller:\n  replicaCount: 3\n"),
        "{first}'s own entry saved\n{}",
        console.report()
    );
    // The engine updates that one cluster's release; nothing else changes.
    tutorial.mentions("the engine updates that one cluster's release");
    console
        .until("dev-1's controller at 3 replicas", STEP, || async {
            (deployment_replicas(&child1, &ingress).await == Some(3)).then_some(())
        })
        .await;
    assert_eq!(
        deployment_replicas(&child2, &ingress).await,
        Some(1),
        "dev-2 keeps its replicas\n{}",
        console.report()
    );
    let dev2 = mcs.get(second).await.unwrap().spec;
    assert!(
        dev2.services.is_empty(),
        "dev-2's spec is unchanged: {dev2:?}"
    );
    lap("dev-1's values saved and applied");

    // 5. A rollout: the template's service values edited the same way make
    // revision 2 and its TemplateRollout, whose board approves wave 1.
    let command = tutorial.says(":templates");
    let enter = tutorial.says("enter");
    let edit = tutorial.says("e");
    tutorial.says(service);
    let save = tutorial.says("ctrl-s");
    let yes = tutorial.says("y");
    console.type_text(command);
    console.keys(&["Enter"]);
    select_template(&console, template).await;
    console.keys(&[&tmux_key(enter)]);
    console.wait_text(&["services (1)"], SCREEN).await;
    console.keys(&[edit]);
    console
        .wait_text(
            &[
                &format!("ClusterTemplate {template}  services[{service}].values"),
                "1 controller:",
                "2   replicaCount: 1",
                "4     type: ClusterIP",
                "✓ valid values of ingress-nginx 4.11.3",
            ],
            STEP,
        )
        .await;
    // "change a value": the Service's type, which every cluster gets.
    console.keys(&["Down", "Down", "Down", "End"]);
    console.keys(&["BSpace"; 9]);
    console.type_text("NodePort");
    console
        .wait_text(&["4     type: NodePort", "modified"], SCREEN)
        .await;
    console.keys(&[&tmux_key(save)]);
    console
        .wait_text(
            &[
                &format!("save {service}: ClusterTemplate {template}"),
                "controller.service.type: ClusterIP → NodePort",
            ],
            SCREEN,
        )
        .await;
    console.keys(&[yes]);
    console
        .wait_text(
            &[&format!(
                "saved the values of {service} on ClusterTemplate {template}"
            )],
            SCREEN,
        )
        .await;
    let kind = tutorial.says("TemplateRollout");
    assert_eq!(kind, "TemplateRollout");
    let rollout = tutorial.says("demo-cluster-2");
    assert_eq!(rollout, format!("{template}-2"));
    tutorial.mentions("one wave per cluster, each waiting for an approval");
    let r = rollout_when(
        &mgmt,
        &ns.name,
        rollout,
        "revision 2's rollout, wave 1 waiting for an approval",
        STEP,
        |r| phase(r) == RolloutPhase::WaitingForApproval,
    )
    .await;
    let st = r.status.as_ref().unwrap();
    let mut waves: Vec<(String, u32)> = st
        .clusters
        .iter()
        .map(|c| (c.name.clone(), c.wave))
        .collect();
    waves.sort();
    assert_eq!(
        (st.waves.len(), waves),
        (2, vec![(first.to_string(), 1), (second.to_string(), 2)]),
        "one wave per cluster, in the order of region (eu, us)"
    );
    lap("revision 2 waits for an approval");

    let command = tutorial.says(":rollouts");
    let enter = tutorial.says("enter");
    tutorial.says(rollout);
    let approve = tutorial.says("a");
    console.type_text(command);
    console.keys(&["Enter"]);
    console
        .wait_for(&format!("{rollout} in the rollouts"), SCREEN, |s| {
            !row(s, rollout).is_empty()
        })
        .await;
    console.select_row(rollout).await;
    console.keys(&[&tmux_key(enter)]);
    console
        .wait_for(
            "the board: the change, its waves and clusters",
            SCREEN,
            |s| {
                s.contains("2 clusters")
                    && line_with(s, "wave 1").is_some_and(|l| l.contains("WaitingForApproval"))
                    && line_with(s, "wave 2").is_some()
                    && s.contains("a approves")
            },
        )
        .await;
    console.keys(&[approve]);
    tutorial.mentions("until its services are Installed at the new revision");
    console
        .until("dev-1's service Installed at revision 2", STEP, || async {
            (service_at(&mcs, first, service).await == Some((ServiceState::Installed, Some(2))))
                .then_some(())
        })
        .await;
    let r = rollout_when(
        &mgmt,
        &ns.name,
        rollout,
        "wave 1 to succeed, wave 2 to wait",
        STEP,
        |r| {
            r.status.as_ref().is_some_and(|s| {
                s.waves.first().map(|w| w.state) == Some(WaveState::Succeeded)
                    && s.waves.get(1).map(|w| w.state) == Some(WaveState::WaitingForApproval)
            })
        },
    )
    .await;
    assert_eq!(
        phase(&r),
        RolloutPhase::WaitingForApproval,
        "the next wave waits"
    );
    assert_ne!(
        service_at(&mcs, second, service)
            .await
            .and_then(|(_, rev)| rev),
        Some(2),
        "dev-2 waits for its wave\n{}",
        console.report()
    );
    tutorial.mentions("then the next wave waits for you");
    console
        .wait_for(
            "wave 1 Succeeded, wave 2 waiting, on the board",
            SCREEN,
            |s| {
                line_with(s, "wave 1").is_some_and(|l| l.contains("Succeeded"))
                    && line_with(s, "wave 2").is_some_and(|l| l.contains("WaitingForApproval"))
                    && row_starts(s, &format!("{first} Updated 1 → 2"))
            },
        )
        .await;
    lap("wave 1 approved: dev-1 Installed at revision 2");

    tear_down(&mgmt, &ns.name).await;
    console.quit().await;
    ns.cleanup().await;
    lap("done");
}
