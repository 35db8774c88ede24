//! The binary's subcommands that need no cluster: shell completions, the
//! CRDs and the keymap.

use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_hmc-tui"))
        .args(args)
        // No cluster is read: a kubeconfig that does not exist proves it.
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .output()
        .unwrap_or_else(|e| panic!("running hmc-tui {args:?}: {e}"));
    assert!(
        out.status.success(),
        "hmc-tui {args:?} failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

#[test]
fn bash_completions_know_the_flags_and_subcommands() {
    let script = run(&["completions", "bash"]);
    assert!(script.contains("--reconcile"), "{script}");
    assert!(script.contains("crds"), "{script}");
    assert!(script.contains("completions"), "{script}");
    assert!(
        script.contains("complete -F"),
        "not a bash script: {script}"
    );
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = run(&["completions", shell]);
        assert!(script.contains("reconcile"), "{shell}: {script}");
    }
}

#[test]
fn crds_prints_every_definition() {
    let yaml = run(&["crds"]);
    let mut names = Vec::new();
    for doc in serde_yaml::Deserializer::from_str(&yaml) {
        let value: serde_yaml::Value = serde::Deserialize::deserialize(doc).unwrap();
        assert_eq!(value["kind"].as_str(), Some("CustomResourceDefinition"));
        names.push(value["metadata"]["name"].as_str().unwrap().to_string());
    }
    names.sort();
    assert_eq!(
        names,
        [
            "clustertemplates.hmc.mirantis.com",
            "managedclusters.hmc.mirantis.com",
            "multiclusterservices.hmc.mirantis.com",
            "servicetemplates.hmc.mirantis.com",
            "templaterollouts.hmc.mirantis.com",
        ]
    );
}

/// `hmc-tui keys` with a settings file of this text (in a folder of its own).
fn keys_with(name: &str, settings: &str) -> std::process::Output {
    let dir = std::env::temp_dir().join(format!("hmc-tui-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("hmc-tui")).unwrap();
    std::fs::write(dir.join("hmc-tui/config.yaml"), settings).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hmc-tui"))
        .arg("keys")
        .env("XDG_CONFIG_HOME", &dir)
        .env("KUBECONFIG", "/nonexistent/kubeconfig")
        .output()
        .expect("running hmc-tui keys");
    std::fs::remove_dir_all(&dir).ok();
    out
}

#[test]
fn keys_prints_the_effective_map_with_the_remapping() {
    let out = keys_with("keys-ok", "keys:\n  board:\n    approve: [A, ctrl-a]\n");
    assert!(out.status.success(), "{out:?}");
    let map = String::from_utf8(out.stdout).unwrap();
    for table in [
        "global:", "board:", "filter:", "prompt:", "confirm:", "editor:",
    ] {
        assert!(map.contains(table), "{table} missing:\n{map}");
    }
    let approve = map
        .lines()
        .find(|l| l.trim_start().starts_with("approve "))
        .unwrap_or_else(|| panic!("no approve line:\n{map}"));
    assert!(approve.contains("A ctrl-a"), "{approve}");
}

#[test]
fn a_clashing_binding_is_refused_with_the_file_and_line() {
    let out = keys_with(
        "keys-bad",
        "theme: light\nkeys:\n  board:\n    approve: x\n",
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("config.yaml, line 4: board.approve: `x` would do both `approve` and `abort`"),
        "{err}"
    );
    assert!(
        !err.contains("Location"),
        "a plain message, not a crash report: {err}"
    );
}

/// A release interval or a deletion timeout that is not a duration is
/// refused at start, from the flag or from the environment, before any
/// cluster is read.
#[test]
fn a_nonsense_duration_is_refused_at_start() {
    for (flag, var) in [
        ("--release-interval", "HMC_RELEASE_INTERVAL"),
        ("--deletion-timeout", "HMC_DELETION_TIMEOUT"),
    ] {
        let refused = |args: &[&str], env: Option<&str>| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_hmc-tui"));
            cmd.args(args).env("KUBECONFIG", "/nonexistent/kubeconfig");
            match env {
                Some(v) => cmd.env(var, v),
                None => cmd.env_remove(var),
            };
            let out = cmd.output().expect("running hmc-tui");
            assert!(!out.status.success(), "{args:?} {env:?} was accepted");
            String::from_utf8_lossy(&out.stderr).into_owned()
        };
        let err = refused(&["--reconcile", flag, "ten minutes"], None);
        assert!(err.contains(flag), "{err}");
        assert!(err.contains("not a duration"), "{err}");
        assert!(err.contains("30s, 10m or 1h30m"), "{err}");
        let err = refused(&["--reconcile"], Some("100ms"));
        assert!(err.contains("too short"), "{err}");
    }
}

/// A shard key that is not a label value stops the engine before any
/// cluster is read, in one line that names the key; an empty list is none.
#[test]
fn a_bad_shard_key_is_refused_at_start() {
    let start = |args: &[&str], env: Option<&str>| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hmc-tui"));
        cmd.args(args).env("KUBECONFIG", "/nonexistent/kubeconfig");
        match env {
            Some(v) => cmd.env("HMC_SHARDS", v),
            None => cmd.env_remove("HMC_SHARDS"),
        };
        let out = cmd.output().expect("running hmc-tui");
        assert!(
            !out.status.success(),
            "{args:?} {env:?}: no cluster, yet it ran"
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    for (args, env) in [
        (&["--reconcile", "--shards", "shard1,bad key"][..], None),
        (&["--reconcile"][..], Some("shard1,-bad")),
        (&["--reconcile", "--shards", &"s".repeat(64)][..], None),
    ] {
        let err = start(args, env);
        assert!(err.contains("--shards"), "{err}");
        assert!(err.contains("shard key"), "{err}");
        assert_eq!(
            err.lines().next().map(|l| l.contains("shard key")),
            Some(true),
            "{err}"
        );
    }
    // Empty is no shards: the engine goes on to read the kubeconfig.
    for (args, env) in [
        (&["--reconcile", "--shards", ""][..], None),
        (&["--reconcile"][..], Some("")),
    ] {
        let err = start(args, env);
        assert!(err.contains("kubeconfig"), "{err}");
    }
}

/// A kubeconfig with contexts `alpha` (current) and `beta`, both pointing
/// at `server`, in a folder of its own that also holds the console's
/// settings and log.
fn kubeconfig_at(name: &str, server: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("hmc-tui-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: alpha\n\
             clusters:\n- name: c\n  cluster:\n    server: {server}\n\
             users:\n- name: u\n  user:\n    token: t\n\
             contexts:\n- name: alpha\n  context: {{cluster: c, user: u}}\n\
             - name: beta\n  context: {{cluster: c, user: u}}\n"
        ),
    )
    .unwrap();
    path
}

/// Runs the binary on a kubeconfig with a backtrace asked for, and expects
/// exit 1 with one plain paragraph: no crash report, no backtrace.
fn refused_plainly(kubeconfig: &std::path::Path, args: &[&str]) -> String {
    let dir = kubeconfig.parent().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_hmc-tui"))
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .env("XDG_STATE_HOME", dir.join("state"))
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .env_remove("KUBECONFIG")
        .output()
        .expect("running hmc-tui");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    for crash in [
        "Location",
        "Backtrace",
        "backtrace",
        "src/main.rs",
        "Status {",
    ] {
        assert!(!err.contains(crash), "{args:?}: a crash report: {err}");
    }
    assert_eq!(err.trim().lines().count(), 1, "one paragraph: {err}");
    assert!(err.starts_with("hmc-tui: "), "{err}");
    err
}

#[test]
fn a_context_that_does_not_exist_lists_the_ones_that_do() {
    let kubeconfig = kubeconfig_at("context", "https://127.0.0.1:1");
    for args in [
        &["--context", "nosuch", "--no-engine"][..],
        &["--context", "nosuch", "--reconcile"][..],
    ] {
        let err = refused_plainly(&kubeconfig, args);
        assert!(err.contains("no context \"nosuch\""), "{err}");
        assert!(err.contains("alpha (current), beta"), "{err}");
        assert!(err.contains("--context"), "{err}");
    }
    std::fs::remove_dir_all(kubeconfig.parent().unwrap()).ok();
}

#[test]
fn a_server_that_does_not_answer_is_said_plainly() {
    // A port nobody listens on: taken, then given back.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = format!("http://127.0.0.1:{port}");
    let kubeconfig = kubeconfig_at("unreachable", &server);
    for args in [
        &["--no-engine"][..],
        &["--context", "beta"][..],
        &["--reconcile", "--metrics-addr", "127.0.0.1:0"][..],
    ] {
        let err = refused_plainly(&kubeconfig, args);
        assert!(
            err.contains(&format!("cannot reach the API server at {server}")),
            "{args:?}: {err}"
        );
        assert!(err.contains("connection refused"), "{args:?}: {err}");
        assert!(err.contains("kubectl --context"), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(kubeconfig.parent().unwrap()).ok();
}
