use serde_json::json;

use super::*;

fn data() -> Value {
    Value::from(&json!({"Cluster": {"metadata": {"name": "dev-1", "labels": {}}}}))
}

#[test]
fn a_text_without_an_action_is_returned_as_it_is() {
    let text = "controller:\n  ingressClass: nginx # {not a template}\n";
    assert_eq!(render(text, &data(), Limits::default()).unwrap(), text);
}

#[test]
fn errors_say_the_line_and_column_and_whether_the_text_or_the_data_failed() {
    let parse = render("a: 1\nb: {{ if }}", &data(), Limits::default()).unwrap_err();
    assert_eq!((parse.kind, parse.pos.line), (ErrorKind::Parse, 2));

    let exec = render(
        "a: 1\nregion: {{ .Cluster.metadata.labels.region }}",
        &data(),
        Limits::default(),
    )
    .unwrap_err();
    assert_eq!(exec.kind, ErrorKind::Exec);
    // Go places a field chain's error at its second field (`.metadata`).
    assert_eq!((exec.pos.line, exec.pos.column), (2, 20));
    assert_eq!(
        exec.to_string(),
        "line 2, column 20: map has no entry for key \"region\""
    );
}

#[test]
fn a_function_nobody_defined_is_refused_before_the_data_is_read() {
    let e = render(
        "{{ if false }}{{ env \"HOME\" }}{{ end }}",
        &data(),
        Limits::default(),
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::Parse);
    assert_eq!(e.message, "function \"env\" not defined");
    assert_eq!(e.pos.column, 18);
}

#[test]
fn a_text_past_the_source_limit_is_refused_unread() {
    let text = format!("{{{{ .x }}}}{}", " ".repeat(MAX_SOURCE));
    let e = render(&text, &data(), Limits::default()).unwrap_err();
    assert!(e.message.contains("longer than the 65536"), "{e}");
}

#[test]
fn a_template_says_which_of_the_roots_keys_it_may_read() {
    let reads = |text: &str| {
        let t = Template::parse(text).unwrap();
        ["Cluster", "ManagedCluster", "Template"]
            .into_iter()
            .filter(|k| t.may_read(k))
            .collect::<Vec<_>>()
    };
    assert_eq!(reads("{{ .Cluster.metadata.name }}"), ["Cluster"]);
    assert_eq!(
        reads("{{ with .Template }}{{ .ManagedCluster }}{{ end }}{{ $.ManagedCluster.spec }}"),
        ["ManagedCluster", "Template"]
    );
    assert_eq!(
        reads("{{ define \"t\" }}{{ .x }}{{ end }}{{ template \"t\" .Cluster }}"),
        ["Cluster"]
    );
    // The root handed on whole may be read through anything.
    for text in [
        "{{ $r := . }}",
        "{{ toYaml . }}",
        "{{ get $ \"ManagedCluster\" }}",
        "{{ range . }}{{ end }}",
    ] {
        assert_eq!(
            reads(text),
            ["Cluster", "ManagedCluster", "Template"],
            "{text}"
        );
    }
}

#[test]
fn a_template_says_which_keys_under_a_roots_key_it_may_read() {
    let under = |text: &str| {
        let t = Template::parse(text).unwrap();
        ["metadata", "spec"]
            .into_iter()
            .filter(|k| t.may_read_under("Cluster", k))
            .collect::<Vec<_>>()
    };
    assert_eq!(under("{{ .Cluster.metadata.labels.region }}"), ["metadata"]);
    assert_eq!(under("{{ $.Cluster.spec.paused }}"), ["spec"]);
    assert_eq!(under("{{ .ManagedCluster.spec }}"), Vec::<&str>::new());
    assert_eq!(under("{{ .Cluster.kind }}"), Vec::<&str>::new());
    // The key handed on whole, before or after a key under it is named.
    for text in [
        "{{ .Cluster.metadata.name }}{{ with .Cluster }}{{ end }}",
        "{{ $c := .Cluster }}{{ .Cluster.metadata.name }}",
        "{{ (.Cluster).spec }}",
        "{{ toYaml . }}",
    ] {
        assert_eq!(under(text), ["metadata", "spec"], "{text}");
    }
}

#[test]
fn a_message_the_template_wrote_is_cut_to_a_bound() {
    let e = render(
        "{{ fail (repeat 100000 \"é\") }}",
        &data(),
        Limits::default(),
    )
    .unwrap_err();
    assert!(
        e.message.len() <= MAX_MESSAGE + "… (cut)".len(),
        "{}",
        e.message.len()
    );
    assert!(e.message.ends_with("… (cut)"));
    assert!(e.message.starts_with("error calling fail: éé"));
}

/// The data is read in place, not copied for `$`: a map of it that a
/// template changes (`set`) reads changed for the rest of that run alone.
#[test]
fn a_change_to_the_data_through_dollar_is_the_runs_own() {
    let data = data();
    let text = "{{ $_ := set $.Cluster.metadata.labels \"region\" \"eu\" }}{{ $.Cluster.metadata.labels.region }}";
    assert_eq!(render(text, &data, Limits::default()).unwrap(), "eu");
    assert_eq!(data, self::data());
    let e = render(
        "{{ $.Cluster.metadata.labels.region }}",
        &data,
        Limits::default(),
    );
    assert!(e.is_err(), "{e:?}");
}
