//! The binary's subcommands that need no cluster: shell completions and the
//! CRDs.

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
fn crds_prints_all_four_definitions() {
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
            "servicetemplates.hmc.mirantis.com",
            "templaterollouts.hmc.mirantis.com",
        ]
    );
}
