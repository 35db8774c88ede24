use serde_json::json;

use super::*;
use crate::plan::template::funcs::{Call, Function};
use crate::plan::template::parse::parse;

fn lower(_: &Call, args: &[Value]) -> Result<Value, String> {
    match args {
        [Value::String(s)] => Ok(Value::String(s.to_lowercase())),
        _ => Err("expected one string".into()),
    }
}

fn render(text: &str, data: serde_json::Value) -> Result<String, String> {
    let functions: BTreeMap<&'static str, Function> =
        BTreeMap::from([("lower", lower as Function)]);
    let parsed = parse(text).map_err(|e| e.message)?;
    run(&parsed, &Value::from(&data), &functions, Limits::default()).map_err(|e| e.message)
}

fn cluster() -> serde_json::Value {
    json!({"Cluster": {"metadata": {"name": "Dev-1", "labels": {"region": "eu"}},
                       "spec": {"replicas": 3, "ratio": 0.5, "big": 1e6, "cidrs": ["10.0.0.0/16", "10.1.0.0/16"]}},
           "Template": "aws-standalone-cp-1-0-20"})
}

#[test]
fn fields_pipes_and_numbers_print_as_go_does() {
    let out = render(
        "host: {{ .Cluster.metadata.name | lower }}.example.com {{ .Template }} \
         {{ .Cluster.spec.replicas }} {{ .Cluster.spec.ratio }} {{ .Cluster.spec.big }} \
         {{ 1e6 }} {{ 1.0 }} {{ 0x1F }} {{ 'a' }}",
        cluster(),
    );
    assert_eq!(
        out.unwrap(),
        "host: dev-1.example.com aws-standalone-cp-1-0-20 3 0.5 1e+06 1e+06 1 31 97"
    );
}

#[test]
fn control_flow_and_variables() {
    let out = render(
        "{{ range $i, $c := .Cluster.spec.cidrs }}{{ if $i }},{{ end }}{{ $c }}{{ end }};\
         {{ with .Cluster.metadata.labels }}{{ .region }}{{ end }};\
         {{ $n := .Template }}{{ $n }};\
         {{ range .Cluster.spec.cidrs }}{{ break }}{{ else }}none{{ end }}x;\
         {{ range 3 }}{{ . }}{{ end }};\
         {{ define \"t\" }}[{{ . }}]{{ end }}{{ template \"t\" .Cluster.spec.replicas }}",
        cluster(),
    );
    assert_eq!(
        out.unwrap(),
        "10.0.0.0/16,10.1.0.0/16;eu;aws-standalone-cp-1-0-20;x;012;[3]"
    );
}

#[test]
fn a_missing_key_is_an_error_that_names_it() {
    assert_eq!(
        render("{{ .Cluster.metadata.labels.tier }}", cluster()).unwrap_err(),
        "map has no entry for key \"tier\""
    );
    assert_eq!(
        render("{{ .Cluster.metadata.name.x }}", cluster()).unwrap_err(),
        "can't evaluate field x in type interface {}"
    );
    assert_eq!(
        render("{{ nope 1 }}", cluster()).unwrap_err(),
        "function \"nope\" not defined"
    );
}

#[test]
fn every_limit_stops_the_run() {
    let parsed = parse("{{ range 1000000 }}x{{ end }}").unwrap();
    let functions = BTreeMap::new();
    let small = Limits {
        steps: 10_000,
        ..Limits::default()
    };
    let e = run(&parsed, &Value::Nil, &functions, small).unwrap_err();
    assert_eq!(e.message, "more than 10000 steps");
    let big_output = Limits {
        output: 100,
        ..Limits::default()
    };
    let e = run(&parsed, &Value::Nil, &functions, big_output).unwrap_err();
    assert_eq!(e.message, "output longer than 100 bytes");
    let recursive =
        parse(r#"{{ define "a" }}{{ template "a" . }}{{ end }}{{ template "a" . }}"#).unwrap();
    let e = run(&recursive, &Value::Nil, &functions, Limits::default()).unwrap_err();
    assert_eq!(e.message, "templates called deeper than 32");
}

#[test]
fn range_iterations_and_time_are_limited() {
    let functions = BTreeMap::new();
    // A huge count is iterated lazily, and stops at the range limit.
    let parsed = parse("{{ range 1000000000000000 }}{{ end }}").unwrap();
    let e = run(&parsed, &Value::Nil, &functions, Limits::default()).unwrap_err();
    assert_eq!(e.message, "more than 100000 range iterations");
    // Every range of the run counts against the one limit.
    let nested = parse("{{ range 400 }}{{ range 400 }}{{ end }}{{ end }}").unwrap();
    let e = run(&nested, &Value::Nil, &functions, Limits::default()).unwrap_err();
    assert_eq!(e.message, "more than 100000 range iterations");
    let no_time = Limits {
        time: std::time::Duration::ZERO,
        ..Limits::default()
    };
    let e = run(&nested, &Value::Nil, &functions, no_time).unwrap_err();
    assert_eq!(e.message, "ran longer than 0 ms");
}

#[test]
fn and_or_return_the_deciding_value_and_stop_there() {
    let cases = [
        ("{{ and 1 \"x\" }}", "x"),
        ("{{ or \"\" 0 }}", "0"),
        ("{{ and 0 .nope }}", "0"),
        ("{{ or 1 .nope }}", "1"),
        ("{{ 1 | and 2 }}", "1"),
        ("{{ \"\" | or 0 }}", ""),
        ("{{ or 0 nil }}", "<no value>"),
    ];
    for (text, want) in cases {
        assert_eq!(render(text, cluster()).unwrap(), want, "{text}");
    }
    assert_eq!(
        render("{{ and }}", cluster()).unwrap_err(),
        "wrong number of args for and: want at least 1 got 0"
    );
}

#[test]
fn a_field_error_names_go_s_type_and_a_method_call_on_a_map_is_refused() {
    let cases = [
        (
            "{{ range .Cluster.spec.cidrs }}{{ .x }}{{ end }}",
            "can't evaluate field x in type interface {}",
        ),
        (
            "{{ with .Cluster.metadata.name }}{{ .x }}{{ end }}",
            "can't evaluate field x in type string",
        ),
        (
            "{{ $n := .Cluster.spec.replicas }}{{ $n.x }}",
            "can't evaluate field x in type int64",
        ),
        (
            "{{ define \"t\" }}{{ .x }}{{ end }}{{ template \"t\" .nil }}",
            "nil data; no entry for key \"x\"",
        ),
        (
            "{{ .Cluster.metadata.name 1 }}",
            "name is not a method but has arguments",
        ),
        ("{{ 1 2 }}", "can't give argument to non-function 1"),
    ];
    let data = json!({"Cluster": cluster()["Cluster"], "nil": null});
    for (text, want) in cases {
        assert_eq!(render(text, data.clone()).unwrap_err(), want, "{text}");
    }
}
