//! Namespaces and contexts as a k9s user switches them, end to end: the
//! real console in tmux, started in namespace A of a kubeconfig with three
//! contexts (two reach the harness's management cluster, each with its own
//! default namespace; one reaches nothing). `:ns B` shows only B's
//! clusters, the digits switch between the namespaces used (kept in the
//! settings file), `:ctx` refuses the context that does not answer and
//! stays, then switches to the other one, whose namespace it shows, with
//! its engine running again; a context the settings file makes read-only
//! runs no engine and refuses writes.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::cases::managed_cluster_from;
use common::console::*;
use common::*;
use hmc_tui::api::ManagedCluster;
use kube::api::Api;
use serde_json::json;

/// A kubeconfig beside the console: the harness's, with contexts `one`
/// (namespace `a`), `two` (namespace `b`) and `nowhere` (a server that
/// does not answer).
fn kubeconfig(path: &Path, a: &str, b: &str) {
    let mgmt = harness_dir().join("mgmt.kubeconfig");
    let text = std::fs::read_to_string(&mgmt).expect("the harness's kubeconfig");
    let mut kc: serde_yaml::Value = serde_yaml::from_str(&text).expect("a kubeconfig");
    let cluster = kc["contexts"][0]["context"]["cluster"].clone();
    let user = kc["contexts"][0]["context"]["user"].clone();
    let clusters = kc["clusters"].as_sequence_mut().expect("clusters");
    clusters.push(
        serde_yaml::to_value(json!({
            "name": "nowhere",
            "cluster": {"server": "https://127.0.0.1:1"}
        }))
        .unwrap(),
    );
    let context = |name: &str, cluster: &serde_yaml::Value, ns: Option<&str>| {
        let mut c = json!({"name": name, "context": {"cluster": cluster, "user": user}});
        if let Some(ns) = ns {
            c["context"]["namespace"] = json!(ns);
        }
        serde_yaml::to_value(c).unwrap()
    };
    let nowhere = serde_yaml::Value::String("nowhere".into());
    kc["contexts"] = serde_yaml::Value::Sequence(vec![
        context("one", &cluster, Some(a)),
        context("two", &cluster, Some(b)),
        context("watch", &cluster, Some(b)),
        context("nowhere", &nowhere, None),
    ]);
    kc["current-context"] = "one".into();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, serde_yaml::to_string(&kc).unwrap()).expect("write the kubeconfig");
}

/// The header line.
fn header(screen: &str) -> &str {
    screen.lines().next().unwrap_or_default()
}

/// Whether the clusters screen lists `name` (in its first cell, or its
/// second after the namespace).
fn lists(screen: &str, name: &str) -> bool {
    rows(screen)
        .iter()
        .any(|r| r.split(' ').take(2).any(|cell| cell == name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ns_and_ctx_switch_live() {
    let started = Instant::now();
    let mgmt = mgmt().await;
    let a = TestNamespace::create(&mgmt, "places-a").await;
    let b = TestNamespace::create(&mgmt, "places-b").await;
    managed_cluster_from(&mgmt, &a.name, "only-in-a", "no-template", json!([])).await;
    managed_cluster_from(&mgmt, &b.name, "only-in-b", "no-template", json!([])).await;
    let path = Console::dir_of(&a.name).join("kubeconfig");
    kubeconfig(&path, &a.name, &b.name);

    // 1. Namespace A of context one, with the console's engine (over A).
    // Context `watch` is read-only by the settings file.
    let settings = "contexts:\n  watch:\n    readonly: true\n";
    let console = Console::start_with(&a.name, settings, &path, &format!("-n {}", a.name));
    let screen = console
        .wait_for("only A's cluster, engine in-process", SCREEN, |s| {
            lists(s, "only-in-a")
                && header(s).contains("engine: in-process")
                && header(s).contains(&format!("ns: {}", a.name))
        })
        .await;
    assert!(!lists(&screen, "only-in-b"), "{}", console.report());
    assert!(header(&screen).contains("context: one"), "{screen}");

    // 2. `:ns` offers the namespaces as it is typed; tab completes.
    console.type_text(":ns places-");
    console.wait_text(&[&a.name, &b.name], SCREEN).await;
    console.keys(&["Escape"]);
    let prefix = &b.name[..b.name.len() - 2];
    console.type_text(&format!(":ns {prefix}"));
    console.keys(&["Tab"]);
    console
        .wait_text(&[&format!(":ns {}", b.name)], SCREEN)
        .await;
    console.keys(&["Enter"]);
    let screen = console
        .wait_for("only B's cluster", SCREEN, |s| {
            lists(s, "only-in-b")
                && !lists(s, "only-in-a")
                && header(s).contains(&format!("ns: {}", b.name))
        })
        .await;
    // The engine stays on A; the header says so, and B is a favourite.
    assert!(
        header(&screen).contains(&format!("in-process (ns {})", a.name)),
        "{screen}"
    );
    assert!(
        header(&screen).contains(&format!("0 all 1 {}", b.name)),
        "{screen}"
    );
    eprintln!("[{:>5.1?}] :ns switched to B", started.elapsed());

    // 3. `:ns A`, then the digits: 2 is B (the newest first; known ones
    // keep their digit), 0 all namespaces.
    console.type_text(&format!(":ns {}", a.name));
    console.keys(&["Enter"]);
    console
        .wait_for("A again", SCREEN, |s| {
            lists(s, "only-in-a") && !lists(s, "only-in-b")
        })
        .await;
    console.keys(&["2"]);
    console
        .wait_for("B again, from its digit", SCREEN, |s| {
            lists(s, "only-in-b")
                && !lists(s, "only-in-a")
                && header(s).contains(&format!("ns: {}", b.name))
        })
        .await;
    console.keys(&["0"]);
    console
        .wait_for("all namespaces", SCREEN, |s| {
            lists(s, "only-in-a") && lists(s, "only-in-b") && header(s).contains("ns: all")
        })
        .await;
    let settings = std::fs::read_to_string(console.settings_path()).unwrap_or_default();
    let kept: serde_yaml::Value = serde_yaml::from_str(&settings).unwrap_or_default();
    assert_eq!(
        kept["favourites"]["one"],
        serde_yaml::to_value([&a.name, &b.name]).unwrap(),
        "the favourites are kept in the settings file:\n{settings}"
    );
    eprintln!("[{:>5.1?}] favourites work", started.elapsed());

    // 4. A context that does not answer is refused; the console stays.
    console.type_text(":ctx now");
    console.keys(&["Tab", "Enter"]);
    console
        .wait_text(
            &["cannot switch to context nowhere"],
            Duration::from_secs(90),
        )
        .await;
    let screen = console.screen();
    assert!(header(&screen).contains("context: one"), "{screen}");
    assert!(lists(&screen, "only-in-a"), "{}", console.report());

    // 5. Context two: its own namespace (B), a new client, a new engine.
    console.type_text(":ctx two");
    console.keys(&["Enter"]);
    console
        .wait_for(
            "context two, namespace B, its engine running",
            Duration::from_secs(90),
            |s| {
                header(s).contains("context: two")
                    && header(s).contains(&format!("ns: {}", b.name))
                    && header(s).contains("engine: in-process")
                    && lists(s, "only-in-b")
                    && !lists(s, "only-in-a")
            },
        )
        .await;
    eprintln!("[{:>5.1?}] :ctx switched to two", started.elapsed());

    // A's cluster goes while the engine (over A) runs, then q quits.
    let mcs: Api<ManagedCluster> = Api::namespaced(mgmt.clone(), &a.name);
    let _ = mcs.delete("only-in-a", &Default::default()).await;
    console
        .until(
            "A's cluster to be deleted",
            Duration::from_secs(180),
            || {
                let mcs = mcs.clone();
                async move { mcs.get_opt("only-in-a").await.ok()?.is_none().then_some(()) }
            },
        )
        .await;

    // 6. Context `watch`, read-only by the settings: its engine stops, no
    // other starts, and a delete is refused, naming why.
    console.type_text(":ctx watch");
    console.keys(&["Enter"]);
    console
        .wait_for(
            "context watch, read-only, no engine",
            Duration::from_secs(90),
            |s| {
                header(s).contains("context: watch")
                    && header(s).contains("engine: off")
                    && header(s).contains("readonly")
                    && lists(s, "only-in-b")
            },
        )
        .await;
    console.keys(&["C-d"]);
    console
        .wait_text(
            &["context watch is read-only (its readonly in config.yaml): cannot delete"],
            SCREEN,
        )
        .await;
    console.quit().await;
    a.cleanup().await;
    b.cleanup().await;
    eprintln!("[{:>5.1?}] done", started.elapsed());
}
