use super::*;
use proptest::prelude::*;
use serde_json::json;

// ---- merge ------------------------------------------------------------

#[test]
fn merge_table() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "deep maps merge",
            json!({"controller": {"replicaCount": 1, "image": {"tag": "v1", "pullPolicy": "IfNotPresent"}}}),
            json!({"controller": {"image": {"tag": "v2"}}}),
            json!({"controller": {"replicaCount": 1, "image": {"tag": "v2", "pullPolicy": "IfNotPresent"}}}),
        ),
        (
            "lists replace, never concatenate",
            json!({"controller": {"extraArgs": ["--a", "--b"]}}),
            json!({"controller": {"extraArgs": ["--c"]}}),
            json!({"controller": {"extraArgs": ["--c"]}}),
        ),
        (
            "empty list replaces too",
            json!({"tolerations": [{"key": "x"}]}),
            json!({"tolerations": []}),
            json!({"tolerations": []}),
        ),
        (
            "null removes a key",
            json!({"controller": {"replicaCount": 2, "nodeSelector": {"os": "linux"}}}),
            json!({"controller": {"nodeSelector": null}}),
            json!({"controller": {"replicaCount": 2}}),
        ),
        (
            "null for a missing key is a no-op",
            json!({"a": 1}),
            json!({"b": null}),
            json!({"a": 1}),
        ),
        (
            "nulls inside a new map are dropped",
            json!({}),
            json!({"a": {"b": null, "c": 1}}),
            json!({"a": {"c": 1}}),
        ),
        (
            "nulls inside lists are items, kept",
            json!({}),
            json!({"a": [null, 1]}),
            json!({"a": [null, 1]}),
        ),
        (
            "scalar replaces map",
            json!({"service": {"type": "LoadBalancer"}}),
            json!({"service": "none"}),
            json!({"service": "none"}),
        ),
        (
            "map replaces scalar, nulls dropped",
            json!({"service": "none"}),
            json!({"service": {"type": "NodePort", "x": null}}),
            json!({"service": {"type": "NodePort"}}),
        ),
        (
            "map replaces list",
            json!({"a": [1, 2]}),
            json!({"a": {"b": 1}}),
            json!({"a": {"b": 1}}),
        ),
        (
            "empty overlay is identity",
            json!({"a": {"b": [1]}, "c": true}),
            json!({}),
            json!({"a": {"b": [1]}, "c": true}),
        ),
        (
            "empty map overlay keeps base map",
            json!({"a": {"b": 1}}),
            json!({"a": {}}),
            json!({"a": {"b": 1}}),
        ),
        (
            "top-level null overlay leaves base",
            json!({"a": 1}),
            Value::Null,
            json!({"a": 1}),
        ),
        (
            "top-level scalar overlay wins",
            json!({"a": 1}),
            json!(5),
            json!(5),
        ),
        (
            "scalar types replace each other",
            json!({"a": 1, "b": "x", "c": true}),
            json!({"a": "1", "b": 2.5, "c": false}),
            json!({"a": "1", "b": 2.5, "c": false}),
        ),
    ];
    for (name, base, overlay, want) in cases {
        assert_eq!(merge(&base, &overlay), want, "case {name}");
    }
}

#[test]
fn merge_layers_table() {
    let cases: Vec<(&str, Vec<Value>, Value)> = vec![
        ("no layers", vec![], json!({})),
        ("one layer", vec![json!({"a": 1})], json!({"a": 1})),
        (
            "one layer with nulls",
            vec![json!({"a": 1, "b": null, "c": {"d": null}})],
            json!({"a": 1, "c": {}}),
        ),
        (
            "null deletes, later layer re-adds",
            vec![
                json!({"a": {"x": 1, "y": 2}}),
                json!({"a": null}),
                json!({"a": {"x": 3}}),
            ],
            json!({"a": {"x": 3}}),
        ),
        (
            "null layer is skipped",
            vec![json!({"a": 1}), Value::Null, json!({"b": 2})],
            json!({"a": 1, "b": 2}),
        ),
    ];
    for (name, layers, want) in cases {
        assert_eq!(merge_layers(&layers), want, "case {name}");
    }
}

#[test]
fn merge_overrides_table() {
    let cases: Vec<(&str, Vec<Value>, Value)> = vec![
        ("no layers", vec![], json!({})),
        (
            "null kept",
            vec![json!({"a": 1, "b": {"c": 2}}), json!({"b": null})],
            json!({"a": 1, "b": null}),
        ),
        (
            "null for a key no layer has is kept",
            vec![json!({"a": 1}), json!({"x": {"y": null}})],
            json!({"a": 1, "x": {"y": null}}),
        ),
        (
            "null replaced by a later value",
            vec![json!({"a": null}), json!({"a": 5})],
            json!({"a": 5}),
        ),
        (
            "map over null replaces the null",
            vec![json!({"a": null}), json!({"a": {"x": 1, "y": null}})],
            json!({"a": {"x": 1, "y": null}}),
        ),
        (
            "deep merge and list replace as in merge",
            vec![
                json!({"c": {"args": [1, 2], "k": {"x": 1}}}),
                json!({"c": {"args": [3], "k": {"y": 2}}}),
            ],
            json!({"c": {"args": [3], "k": {"x": 1, "y": 2}}}),
        ),
    ];
    for (name, layers, want) in cases {
        assert_eq!(merge_overrides(&layers), want, "case {name}");
    }
}

/// The example from the product: ingress-nginx with four layers.
#[test]
fn four_layer_precedence_ingress_nginx() {
    let chart = json!({
        "controller": {
            "replicaCount": 1,
            "service": {"type": "LoadBalancer", "annotations": {}},
            "extraArgs": {},
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "tolerations": [{"key": "a"}],
            "metrics": {"enabled": false},
        },
        "defaultBackend": {"enabled": false},
    });
    let service_template = json!({
        "controller": {
            "replicaCount": 2,
            "metrics": {"enabled": true},
            "tolerations": [{"key": "b"}, {"key": "c"}],
        },
    });
    let cluster_template = json!({
        "controller": {
            "replicaCount": 3,
            "service": {"type": "NodePort"},
            "nodeSelector": null,
        },
    });
    let managed_cluster = json!({
        "controller": {"replicaCount": 5, "tolerations": []},
        "defaultBackend": {"enabled": true},
    });
    let user = [&service_template, &cluster_template, &managed_cluster];

    let effective = merge_layers([
        &chart,
        &service_template,
        &cluster_template,
        &managed_cluster,
    ]);
    assert_eq!(
        effective,
        json!({
            "controller": {
                "replicaCount": 5,
                "service": {"type": "NodePort", "annotations": {}},
                "extraArgs": {},
                "tolerations": [],
                "metrics": {"enabled": true},
            },
            "defaultBackend": {"enabled": true},
        })
    );
    assert_eq!(effective["controller"]["replicaCount"], json!(5));
    assert_eq!(
        effective["controller"]["service"]["type"],
        json!("NodePort")
    );

    let overrides = merge_overrides(user);
    assert_eq!(
        overrides,
        json!({
            "controller": {
                "replicaCount": 5,
                "service": {"type": "NodePort"},
                "nodeSelector": null,
                "tolerations": [],
                "metrics": {"enabled": true},
            },
            "defaultBackend": {"enabled": true},
        })
    );
    // Helm puts the chart defaults under the overrides: same result.
    assert_eq!(merge(&chart, &overrides), effective);
    // Lower layers lose one by one as higher ones are removed.
    assert_eq!(
        merge_layers([&chart, &service_template])["controller"]["replicaCount"],
        json!(2)
    );
    assert_eq!(
        merge_layers([&chart, &service_template, &cluster_template])["controller"]["replicaCount"],
        json!(3)
    );
}

/// The documented caveat of `merge_overrides`: a map over a lower
/// layer's null does not hide the chart's default map from Helm.
#[test]
fn overrides_cannot_reset_a_default_map() {
    let chart = json!({"k": {"x": 0, "y": 2}});
    let lower = json!({"k": null});
    let higher = json!({"k": {"x": 1}});
    assert_eq!(
        merge_layers([&chart, &lower, &higher]),
        json!({"k": {"x": 1}})
    );
    let overrides = merge_overrides([&lower, &higher]);
    assert_eq!(overrides, json!({"k": {"x": 1}}));
    assert_eq!(merge(&chart, &overrides), json!({"k": {"x": 1, "y": 2}}));
}

// ---- parse ------------------------------------------------------------

#[test]
fn parse_empty_inputs_give_empty_object() {
    for text in [
        "",
        "   ",
        "\n\n",
        "  \n\t\n",
        "# just a comment\n",
        "# a\n  # b\n",
        "\t# tabbed comment\r\n",
        "---\n",
        "~",
        "null\n",
    ] {
        assert_eq!(parse_values(text), Ok(json!({})), "input {text:?}");
    }
}

#[test]
fn parse_mapping() {
    let text = "controller:\n  replicaCount: 2\n  service:\n    type: NodePort\n  extraArgs: [\"--v=2\"]\n  nodeSelector: null\n";
    assert_eq!(
        parse_values(text),
        Ok(json!({"controller": {
            "replicaCount": 2,
            "service": {"type": "NodePort"},
            "extraArgs": ["--v=2"],
            "nodeSelector": null,
        }}))
    );
}

#[test]
fn parse_anchors_and_merge_keys() {
    let text = "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\n";
    assert_eq!(
        parse_values(text),
        Ok(json!({"base": {"x": 1, "y": 2}, "d": {"x": 1, "y": 3}}))
    );
}

#[test]
fn parse_scalar_keys_become_strings() {
    assert_eq!(
        parse_values("1: a\ntrue: b\n1.5: c\n"),
        Ok(json!({"1": "a", "true": "b", "1.5": "c"}))
    );
}

#[test]
fn parse_refuses_what_json_cannot_hold() {
    let cases = [
        ("a: .nan\n", "a", ".nan cannot be represented in JSON"),
        (
            "a:\n  list: [1, .inf]\n",
            "a.list[1]",
            ".inf cannot be represented in JSON",
        ),
        ("~: x\n", "", "a null map key is not supported"),
        (
            "a:\n  [1]: x\n",
            "a",
            "a list as a map key is not supported",
        ),
        ("a: !foo 1\n", "a", "unsupported YAML tag !foo"),
        (
            "a.b:\n  - x: [1, .nan]\n",
            "a\\.b[0].x[1]",
            ".nan cannot be represented in JSON",
        ),
        (
            "x:\n  1: a\n  \"1\": b\n",
            "x.1",
            "duplicate key \"1\" once keys are converted to strings",
        ),
    ];
    for (text, path, message) in cases {
        assert_eq!(
            parse_values(text),
            Err(ValuesError::Invalid {
                path: path.into(),
                message: message.into()
            }),
            "input {text:?}"
        );
    }
}

#[test]
fn parse_unclosed_flow_list_reports_position() {
    let err = parse_values("a: 1\nb: [1, 2\n").unwrap_err();
    let ValuesError::Syntax {
        line,
        column,
        message,
    } = &err
    else {
        panic!("want Syntax, got {err:?}");
    };
    assert_eq!((*line, *column), (3, 1));
    assert!(!message.is_empty());
    assert_eq!(
        message,
        "did not find expected ',' or ']', while parsing a flow sequence at line 2 column 4"
    );
    assert_eq!(
        err.to_string(),
        "line 3, column 1: did not find expected ',' or ']', while parsing a flow sequence at line 2 column 4"
    );
}

#[test]
fn parse_bad_indentation_reports_position() {
    // Dedented by one: the parser expects another key of `a`'s map.
    let err = parse_values("a:\n  b: 1\n c: 2\n").unwrap_err();
    assert_eq!(
        err,
        ValuesError::Syntax {
            line: 3,
            column: 2,
            message: "did not find expected key, while parsing a block mapping".into(),
        }
    );
    assert_eq!(
        err.to_string(),
        "line 3, column 2: did not find expected key, while parsing a block mapping"
    );

    // Indented by one more: `c: 2` continues the scalar `1`.
    let err = parse_values("a:\n  b: 1\n   c: 2\n").unwrap_err();
    assert_eq!(
        err,
        ValuesError::Syntax {
            line: 3,
            column: 5,
            message: "mapping values are not allowed in this context".into(),
        }
    );
    assert_eq!(
        err.to_string(),
        "line 3, column 5: mapping values are not allowed in this context"
    );
}

#[test]
fn parse_other_syntax_errors_have_positions() {
    let cases = [
        ("a: 'open\n", 2, 1),
        ("\tfoo: 1\n", 1, 1),
        ("a: b: c\n", 1, 5),
        ("key: *nope\n", 1, 6),
        ("x:\n  a: 1\n  a: 2\n", 2, 3),
    ];
    for (text, want_line, want_column) in cases {
        match parse_values(text) {
            Err(ValuesError::Syntax {
                line,
                column,
                message,
            }) => {
                assert_eq!((line, column), (want_line, want_column), "input {text:?}");
                assert!(!message.is_empty(), "input {text:?}");
                assert!(!message.contains(&format!(" at line {line} column {column}")));
            }
            other => panic!("input {text:?}: want Syntax, got {other:?}"),
        }
    }
}

#[test]
fn parse_duplicate_key_is_an_error() {
    let err = parse_values("x:\n  a: 1\n  a: 2\n").unwrap_err();
    assert_eq!(
        err.to_string(),
        "line 2, column 3: x: duplicate entry with key \"a\""
    );
}

#[test]
fn parse_top_level_must_be_a_mapping() {
    let cases = [
        ("- 1\n- 2\n", "a list"),
        ("[a, b]", "a list"),
        ("hello", "a string"),
        ("42", "a number"),
        ("true", "a boolean"),
    ];
    for (text, found) in cases {
        let err = parse_values(text).unwrap_err();
        assert_eq!(err, ValuesError::NotAMapping { found }, "input {text:?}");
    }
    assert_eq!(
        parse_values("- a\n").unwrap_err().to_string(),
        "values must be a YAML mapping, got a list"
    );
}

#[test]
fn parse_several_documents_is_an_error() {
    let err = parse_values("a: 1\n---\nb: 2\n").unwrap_err();
    assert!(
        matches!(&err, ValuesError::Invalid { path, .. } if path.is_empty()),
        "{err:?}"
    );
    assert!(!err.to_string().is_empty());
}

// ---- limits -----------------------------------------------------------

fn bomb(anchor: usize, refs: usize) -> String {
    format!(
        "a: &a [{}]\nb: [{}]\n",
        vec!["x"; anchor].join(","),
        vec!["*a"; refs].join(",")
    )
}

#[test]
fn parse_refuses_each_limit_with_its_message() {
    let max = Limits::VALUES.bytes;
    let cases: Vec<(String, &str)> = vec![
        (
            bomb(10_000, 10_000),
            "more than 100,000 nodes after expanding aliases",
        ),
        (
            format!("a: 1\n#{}\n", "x".repeat(max)),
            "131,079 bytes, more than the limit of 131,072",
        ),
        // Blank text is measured too, before anything else.
        (
            " ".repeat(max + 1),
            "131,073 bytes, more than the limit of 131,072",
        ),
        (
            format!("a: {}1{}\n", "[".repeat(64), "]".repeat(64)),
            "nested more than 64 levels deep",
        ),
        (
            format!(
                "a: &s {}\nb: [{}]\n",
                "x".repeat(60_000),
                vec!["*s"; 20].join(",")
            ),
            "more than 1,048,576 bytes of keys and strings after expanding aliases",
        ),
    ];
    for (text, want) in cases {
        let err = parse_values(&text).unwrap_err();
        assert!(err.is_limit(), "{err:?}");
        assert_eq!(err.to_string(), want);
    }
}

#[test]
fn parse_accepts_what_stays_within_the_limits() {
    // The largest text, in bytes, with multi-byte characters.
    let max = Limits::VALUES.bytes;
    let mut text = String::from("a: 1\n#");
    while text.len() + 3 <= max {
        text.push('é');
    }
    text.push_str(&"x".repeat(max - 1 - text.len()));
    text.push('\n');
    assert_eq!(text.len(), max);
    assert_eq!(parse_values(&text), Ok(json!({"a": 1})));
    // 63 levels under the top-level map.
    let deep = format!("a: {}1{}\n", "[".repeat(63), "]".repeat(63));
    assert!(parse_values(&deep).is_ok());
    // Aliases that expand within the limits, merge keys included.
    let shared = bomb(300, 300);
    let value = parse_values(&shared).unwrap();
    assert_eq!(value["b"].as_array().map(Vec::len), Some(300));
    assert_eq!(value["b"][299].as_array().map(Vec::len), Some(300));
}

#[test]
fn chart_limits_are_larger() {
    let text = format!("a: 1\n#{}\n", "x".repeat(Limits::VALUES.bytes));
    assert_eq!(
        parse_values_within(&text, &Limits::CHART),
        Ok(json!({"a": 1}))
    );
    assert!(parse_values_within(&bomb(400, 400), &Limits::CHART).is_ok());
    assert_eq!(
        parse_values_within(&bomb(500, 500), &Limits::CHART)
            .unwrap_err()
            .to_string(),
        "more than 200,000 nodes after expanding aliases"
    );
}

// ---- diff -------------------------------------------------------------

fn ch(path: &str, old: Option<Value>, new: Option<Value>) -> Change {
    Change {
        path: path.into(),
        old,
        new,
    }
}

#[test]
fn diff_table() {
    let cases: Vec<(&str, Value, Value, Vec<Change>)> = vec![
        (
            "equal",
            json!({"a": {"b": 1}}),
            json!({"a": {"b": 1}}),
            vec![],
        ),
        (
            "changed leaf",
            json!({"controller": {"replicaCount": 2}}),
            json!({"controller": {"replicaCount": 3}}),
            vec![ch(
                "controller.replicaCount",
                Some(json!(2)),
                Some(json!(3)),
            )],
        ),
        (
            "added and removed leaves, sorted",
            json!({"controller": {"bar": 1, "keep": true}}),
            json!({"controller": {"foo": "bar", "keep": true}}),
            vec![
                ch("controller.bar", Some(json!(1)), None),
                ch("controller.foo", None, Some(json!("bar"))),
            ],
        ),
        (
            "lists compare whole",
            json!({"args": [1, 2, 3]}),
            json!({"args": [1, 2, 4]}),
            vec![ch("args", Some(json!([1, 2, 3])), Some(json!([1, 2, 4])))],
        ),
        (
            "removed subtree shows its leaves",
            json!({"a": {"b": 1, "c": {"d": 2}}}),
            json!({}),
            vec![
                ch("a.b", Some(json!(1)), None),
                ch("a.c.d", Some(json!(2)), None),
            ],
        ),
        (
            "empty map is a leaf",
            json!({}),
            json!({"a": {}}),
            vec![ch("a", None, Some(json!({})))],
        ),
        (
            "map to scalar is one change",
            json!({"s": {"type": "LB"}}),
            json!({"s": "none"}),
            vec![ch("s", Some(json!({"type": "LB"})), Some(json!("none")))],
        ),
        (
            "null is a value",
            json!({"a": null}),
            json!({"a": 1}),
            vec![ch("a", Some(Value::Null), Some(json!(1)))],
        ),
        (
            "dotted key is escaped",
            json!({"podAnnotations": {"prometheus.io/scrape": "true"}}),
            json!({"podAnnotations": {}}),
            vec![ch(
                "podAnnotations.prometheus\\.io/scrape",
                Some(json!("true")),
                None,
            )],
        ),
        (
            "root scalars",
            json!(1),
            json!(2),
            vec![ch("", Some(json!(1)), Some(json!(2)))],
        ),
        (
            "sorted by path string",
            json!({}),
            json!({"b": 1, "a": {"z": 1}, "a-b": 2}),
            vec![
                ch("a-b", None, Some(json!(2))),
                ch("a.z", None, Some(json!(1))),
                ch("b", None, Some(json!(1))),
            ],
        ),
    ];
    for (name, old, new, want) in cases {
        assert_eq!(diff(&old, &new), want, "case {name}");
    }
}

#[test]
fn change_display() {
    let cases = [
        (
            ch("controller.replicaCount", Some(json!(2)), Some(json!(3))),
            "controller.replicaCount: 2 → 3",
        ),
        (
            ch("controller.foo", None, Some(json!("bar"))),
            "+ controller.foo: bar",
        ),
        (
            ch("controller.bar", Some(json!(1)), None),
            "- controller.bar: 1",
        ),
        (
            ch("a", Some(json!([1, "x"])), Some(json!({"k": true}))),
            r#"a: [1,"x"] → {"k":true}"#,
        ),
        (
            ch("a", Some(Value::Null), Some(json!(false))),
            "a: null → false",
        ),
        (
            ch("a", Some(json!("")), Some(json!("two\nlines"))),
            r#"a: "" → "two\nlines""#,
        ),
        (ch("", Some(json!(1)), Some(json!(2))), "(root): 1 → 2"),
    ];
    for (change, want) in cases {
        assert_eq!(change.to_string(), want);
    }
}

// ---- to_yaml ----------------------------------------------------------

#[test]
fn to_yaml_table() {
    assert_eq!(to_yaml(&json!({})), "{}\n");
    assert_eq!(
        // Keys already sorted: serde_json may or may not keep insertion
        // order depending on crate features.
        to_yaml(&json!({"controller": {"args": ["a", "b"], "replicaCount": 2}})),
        "controller:\n  args:\n  - a\n  - b\n  replicaCount: 2\n"
    );
    assert_eq!(
        to_yaml(&json!({"s": "123", "t": "true"})),
        "s: '123'\nt: 'true'\n"
    );
}

// ---- properties -------------------------------------------------------

fn key() -> impl Strategy<Value = String> {
    // Few keys so that layers collide often; one with a dot to exercise
    // path escaping.
    prop::sample::select(vec!["a", "b", "c", "a.b"]).prop_map(String::from)
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{0,3}",
        1 => prop::sample::select(vec!["yes", "null", "~", "1.5", "0x10", "a: b", "- x", "#c", "two\nlines", "true"])
            .prop_map(String::from),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-3i64..4).prop_map(Value::from),
        text().prop_map(Value::String),
        any::<bool>().prop_map(Value::Bool),
    ]
}

fn object(entries: std::collections::BTreeMap<String, Value>) -> Value {
    Value::Object(entries.into_iter().collect())
}

/// Values with no null anywhere: what merge_layers produces.
fn plain() -> BoxedStrategy<Value> {
    leaf()
        .prop_recursive(4, 32, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map(key(), inner, 0..4).prop_map(object),
            ]
        })
        .boxed()
}

fn plain_object() -> BoxedStrategy<Value> {
    prop::collection::btree_map(key(), plain(), 0..4)
        .prop_map(object)
        .boxed()
}

/// Overlay values: nulls may appear as map values (deletions); lists
/// are null-free.
fn overlay() -> BoxedStrategy<Value> {
    prop_oneof![
        3 => leaf(),
        1 => prop::collection::vec(plain(), 0..3).prop_map(Value::Array),
        1 => Just(Value::Null),
    ]
    .prop_recursive(4, 32, 4, |inner| {
        prop::collection::btree_map(key(), inner, 0..4).prop_map(object)
    })
    .boxed()
}

fn overlay_object() -> BoxedStrategy<Value> {
    prop::collection::btree_map(key(), overlay(), 0..4)
        .prop_map(object)
        .boxed()
}

fn contains_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(contains_null),
        Value::Object(map) => map.values().any(contains_null),
        _ => false,
    }
}

/// Every non-null overlay leaf is in the result, every null overlay key
/// is absent, and every overlay map is a map in the result.
fn overlay_wins(result: &Value, overlay: &Value) -> bool {
    let (Value::Object(r), Value::Object(o)) = (result, overlay) else {
        return false;
    };
    o.iter().all(|(k, v)| match v {
        Value::Null => !r.contains_key(k),
        Value::Object(_) => r.get(k).is_some_and(|rv| overlay_wins(rv, v)),
        leaf => r.get(k) == Some(leaf),
    })
}

/// True when somewhere `lower` has a non-map (scalar, list or null) and
/// `higher` has a map: the case `merge_overrides` cannot express.
fn has_reset(lower: &Value, higher: &Value) -> bool {
    match (lower, higher) {
        (Value::Object(l), Value::Object(h)) => h
            .iter()
            .any(|(k, hv)| l.get(k).is_some_and(|lv| has_reset(lv, hv))),
        (_, Value::Object(_)) => true,
        _ => false,
    }
}

/// Nodes (keys included) and depth of a value.
fn size_of(value: &Value) -> (usize, usize) {
    let below = |items: &mut dyn Iterator<Item = (usize, usize)>| {
        items.fold((1, 1), |(n, d), (cn, cd)| (n + cn, d.max(cd + 1)))
    };
    match value {
        Value::Array(items) => below(&mut items.iter().map(size_of)),
        Value::Object(map) => below(&mut map.values().map(|v| {
            let (n, d) = size_of(v);
            (n + 1, d)
        })),
        _ => (1, 0),
    }
}

/// Values text with anchors, aliases of aliases, merge keys, long
/// strings and deep nesting, sized around the limits.
fn hostile_values() -> impl Strategy<Value = String> {
    (
        0..400usize,
        0..400usize,
        0..40usize,
        0..80usize,
        0..20_000usize,
        0..100usize,
        any::<bool>(),
    )
        .prop_map(|(items, refs, again, deep, long, copies, merge)| {
            let mut text = format!(
                "a: &a [{}]\nb: &b [{}]\nc: [{}]\ns: &s '{}'\nt: [{}]\nd: {}1{}\n",
                vec!["x"; items].join(","),
                vec!["*a"; refs].join(","),
                vec!["*b"; again].join(","),
                "y".repeat(long),
                vec!["*s"; copies].join(","),
                "[".repeat(deep),
                "]".repeat(deep),
            );
            if merge {
                text.push_str("m: &m {k: *b}\nn: {<<: *m, j: *a}\n");
            }
            text
        })
}

proptest! {
    // Each case parses up to 128 KiB and expands up to the limits.
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn prop_parse_stays_within_limits(text in hostile_values()) {
        match parse_values(&text) {
            Ok(value) => {
                let (nodes, depth) = size_of(&value);
                prop_assert!(nodes <= Limits::VALUES.nodes, "{nodes} nodes");
                prop_assert!(depth <= Limits::VALUES.depth, "{depth} deep");
            }
            // The generator writes only valid YAML: a refusal is a limit.
            Err(e) => prop_assert!(e.is_limit(), "{e}"),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn prop_empty_overlay_is_identity(a in plain_object()) {
        prop_assert_eq!(merge(&a, &json!({})), a.clone());
        prop_assert_eq!(merge(&json!({}), &a), a.clone());
        prop_assert_eq!(merge_layers([&a]), a);
    }

    #[test]
    fn prop_merge_is_idempotent(a in plain_object(), b in overlay_object()) {
        let once = merge(&a, &b);
        prop_assert_eq!(merge(&once, &b), once);
    }

    #[test]
    fn prop_overlay_wins(a in plain_object(), b in overlay_object()) {
        let merged = merge(&a, &b);
        prop_assert!(overlay_wins(&merged, &b), "merged = {}", merged);
    }

    #[test]
    fn prop_merge_layers_has_no_null(
        layers in prop::collection::vec(overlay_object(), 0..5)
    ) {
        let merged = merge_layers(&layers);
        prop_assert!(merged.is_object());
        prop_assert!(!contains_null(&merged), "merged = {}", merged);
    }

    #[test]
    fn prop_overrides_without_defaults_equal_layers(
        layers in prop::collection::vec(overlay_object(), 0..5)
    ) {
        prop_assert_eq!(merge(&json!({}), &merge_overrides(&layers)), merge_layers(&layers));
    }

    #[test]
    fn prop_overrides_associate_without_resets(
        a in plain_object(), b in overlay_object(), c in overlay_object()
    ) {
        if !has_reset(&b, &c) {
            prop_assert_eq!(
                merge(&merge(&a, &b), &c),
                merge(&a, &merge_overrides([&b, &c]))
            );
            prop_assert_eq!(
                merge_layers([&a, &b, &c]),
                merge(&a, &merge_overrides([&b, &c]))
            );
        }
    }

    #[test]
    fn prop_null_free_layers_associate(
        a in plain_object(), b in plain_object(), c in plain_object()
    ) {
        // Even without nulls a scalar-then-map pair is a reset.
        if !has_reset(&b, &c) {
            prop_assert_eq!(merge(&merge(&a, &b), &c), merge(&a, &merge(&b, &c)));
        }
    }

    #[test]
    fn prop_diff_empty_iff_equal(a in plain(), b in plain()) {
        prop_assert_eq!(diff(&a, &b).is_empty(), a == b);
        prop_assert!(diff(&a, &a).is_empty());
    }

    #[test]
    fn prop_diff_sorted_unique_and_real(a in overlay_object(), b in overlay_object()) {
        let changes = diff(&a, &b);
        prop_assert_eq!(changes.is_empty(), a == b);
        for pair in changes.windows(2) {
            prop_assert!(pair[0].path < pair[1].path, "{:?}", changes);
        }
        for change in &changes {
            prop_assert!(change.old != change.new);
        }
    }

    #[test]
    fn prop_parse_never_panics(text in any::<String>()) {
        let _ = parse_values(&text);
    }

    #[test]
    fn prop_to_yaml_round_trips(a in plain_object()) {
        let text = to_yaml(&a);
        prop_assert_eq!(parse_values(&text), Ok(a), "yaml = {}", text);
    }
}
