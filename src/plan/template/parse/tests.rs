use super::*;

fn parsed(text: &str) -> Parsed {
    parse(text).unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
}

fn error(text: &str) -> String {
    parse(text).expect_err(text).message
}

#[test]
fn an_action_of_fields_and_a_pipe() {
    let p = parsed("host: {{ .Cluster.metadata.name | lower }}.example.com");
    let [
        Node::Text(before),
        Node::Action(pipeline),
        Node::Text(after),
    ] = &p.main[..]
    else {
        panic!("{p:?}");
    };
    assert_eq!(
        (before.as_str(), after.as_str()),
        ("host: ", ".example.com")
    );
    assert_eq!(pipeline.commands.len(), 2);
    assert!(matches!(
        &pipeline.commands[0].args[..],
        [Arg::Field(f, _)] if f == &["Cluster", "metadata", "name"]
    ));
    assert!(matches!(&pipeline.commands[1].args[..], [Arg::Function(f, _)] if f == "lower"));
}

#[test]
fn a_space_tells_two_arguments_from_a_field_of_a_variable() {
    let p = parsed("{{ $m := .x }}{{ index $m .k }}{{ $m.k }}");
    let [
        Node::Action(declare),
        Node::Action(index),
        Node::Action(field),
    ] = &p.main[..]
    else {
        panic!("{p:?}");
    };
    assert!(declare.declares && declare.variables == ["$m"]);
    assert!(matches!(
        &index.commands[0].args[..],
        [Arg::Function(..), Arg::Variable(v, f, _), Arg::Field(k, _)]
            if v == "$m" && f.is_empty() && k == &["k"]
    ));
    assert!(matches!(
        &field.commands[0].args[..],
        [Arg::Variable(v, f, _)] if v == "$m" && f == &["k"]
    ));
}

#[test]
fn control_structures_nest_and_chain() {
    let p = parsed(
        "{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}\
         {{ range $i, $e := .l }}{{ if $e }}{{ break }}{{ end }}{{ else }}none{{ end }}\
         {{ with .w }}{{ . }}{{ else with .v }}v{{ end }}",
    );
    let [Node::If(i), Node::Range(r), Node::With(w)] = &p.main[..] else {
        panic!("{p:?}");
    };
    let [Node::If(inner)] = &i.otherwise[..] else {
        panic!("{i:?}");
    };
    assert_eq!(inner.then, [Node::Text("B".into())]);
    assert_eq!(inner.otherwise, [Node::Text("C".into())]);
    assert_eq!(r.pipeline.variables, ["$i", "$e"]);
    assert_eq!(r.otherwise, [Node::Text("none".into())]);
    assert!(matches!(&w.otherwise[..], [Node::With(_)]));
}

#[test]
fn define_block_and_template() {
    let p = parsed(r#"{{ define "a" }}x{{ end }}{{ block "b" . }}y{{ end }}{{ template "a" }}"#);
    assert_eq!(p.defined["a"], [Node::Text("x".into())]);
    assert_eq!(p.defined["b"], [Node::Text("y".into())]);
    assert!(matches!(
        &p.main[..],
        [Node::Template { name: b, pipeline: Some(_), .. }, Node::Template { name: a, pipeline: None, .. }]
            if b == "b" && a == "a"
    ));
}

#[test]
fn what_is_not_a_template_is_said() {
    assert_eq!(error("{{ if .a }}x"), "unexpected EOF");
    assert_eq!(error("{{ end }}"), "unexpected {{end}}");
    assert_eq!(error("{{ break }}"), "{{break}} outside {{range}}");
    assert_eq!(error("{{ }}"), "missing value for command");
    assert_eq!(error("{{ template .x }}"), "template needs a quoted name");
    assert_eq!(
        error(r#"{{ define "a" }}{{ end }}{{ define "a" }}{{ end }}"#),
        "template: multiple definition of template \"a\""
    );
}

#[test]
fn nesting_is_bounded() {
    let deep = "{{ if . }}".repeat(MAX_DEPTH + 2) + &"{{ end }}".repeat(MAX_DEPTH + 2);
    assert!(error(&deep).contains("nested deeper than"));
    let parens = format!(
        "{{{{ {}1{} }}}}",
        "(".repeat(MAX_DEPTH + 2),
        ")".repeat(MAX_DEPTH + 2)
    );
    assert!(error(&parens).contains("nested deeper than"));
}
