use serde_json::json;

use super::*;
use crate::plan::chart::ChartId;
use crate::plan::chart::tests::upstream;
use crate::plan::values::parse_values;

fn findings(chart: &ChartValues, text: &str) -> Vec<(Level, String)> {
    let values = parse_values(text).unwrap();
    check(chart, &values, text)
        .into_iter()
        .map(|f| (f.level, f.text()))
        .collect()
}

fn errors(chart: &ChartValues, text: &str) -> Vec<String> {
    findings(chart, text)
        .into_iter()
        .filter(|(l, _)| *l == Level::Error)
        .map(|(_, t)| t)
        .collect()
}

fn chart_with(defaults: Value, schema: Value) -> ChartValues {
    let id = ChartId {
        name: "web".into(),
        version: "1.0.0".into(),
    };
    ChartValues::new(id, defaults, Some(schema), vec!["redis".into()])
}

fn schema_chart(schema: Value) -> ChartValues {
    chart_with(json!({"image": {"tag": "v1"}, "port": 80}), schema)
}

#[test]
fn ingress_nginx_flags_unknown_keys_and_wrong_types() {
    let chart = upstream("4.11.3");
    assert_eq!(
        findings(&chart, "controller: {replicaCount: three, nosuchkey: 1}\n"),
        [
            (
                Level::Error,
                "line 1, column 28: controller.replicaCount is a number in ingress-nginx 4.11.3, not \"three\"".to_string()
            ),
            (
                Level::Warning,
                "line 1, column 35: controller.nosuchkey is not a value of ingress-nginx 4.11.3".to_string()
            ),
        ]
    );
    let values = parse_values("controller: {replicaCount: three, nosuchkey: 1}").unwrap();
    let notes: Vec<String> = check(
        &chart,
        &values,
        "controller: {replicaCount: three, nosuchkey: 1}",
    )
    .into_iter()
    .map(|f| f.note)
    .collect();
    assert_eq!(
        notes,
        [
            "replicaCount: a number in the chart, not \"three\"",
            "nosuchkey: not a value of the chart"
        ]
    );
    // Block style, and the top level.
    assert_eq!(
        findings(
            &chart,
            "replicaCount: 2\ncontroller:\n  service:\n    type: [LoadBalancer]\n"
        ),
        [
            (
                Level::Warning,
                "line 1, column 1: replicaCount is not a value of ingress-nginx 4.11.3".to_string()
            ),
            (
                Level::Error,
                "line 4, column 11: controller.service.type is a string in ingress-nginx 4.11.3, not a list".to_string()
            ),
        ]
    );
}

#[test]
fn what_the_chart_allows_passes() {
    let chart = upstream("4.11.3");
    let fine = "\
controller:
  replicaCount: \"3\"          # a number in quotes
  podAnnotations: {a: b}      # the chart leaves it empty: free
  service: {type: ClusterIP, annotations: {x: y}}
  metrics: {enabled: \"true\"}
  extraArgs: {v: 2}
  nodeSelector: null          # removes the default
global: {image: {registry: r.example}}
";
    assert_eq!(findings(&chart, fine), []);
    // 4.11.4 reads the same for these keys.
    assert_eq!(findings(&upstream("4.11.4"), fine), []);
}

#[test]
fn a_schema_states_types_enums_and_closed_maps() {
    let chart = schema_chart(json!({
        "type": "object",
        "properties": {
            "port": {"$ref": "#/definitions/port"},
            "mode": {"enum": ["a", "b"]},
            "image": {"type": "object", "additionalProperties": false,
                      "properties": {"tag": {"type": "string"}}},
            "extra": {"type": "array", "items": {"type": "object",
                      "properties": {"name": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "definitions": {"port": {"type": "integer"}},
    }));
    assert_eq!(
        findings(
            &chart,
            "port: 80.5\nmode: c\nimage: {tag: v2, digest: x}\nextra:\n- name: 1\nlabels: {a: 1}\nredis: {any: thing}\nnew: 1\n"
        ),
        [
            (Level::Error, "line 1, column 7: port must be an integer by the schema of web 1.0.0, not 80.5".to_string()),
            (Level::Error, "line 2, column 7: mode must be one of \"a\", \"b\" by the schema of web 1.0.0, not \"c\"".to_string()),
            (Level::Error, "line 3, column 18: image.digest is not allowed by the schema of web 1.0.0".to_string()),
            (Level::Error, "line 5, column 9: extra[0].name must be a string by the schema of web 1.0.0, not 1".to_string()),
            (Level::Error, "line 6, column 13: labels.a must be a string by the schema of web 1.0.0, not 1".to_string()),
            (Level::Warning, "line 8, column 1: new is not a value of web 1.0.0".to_string()),
        ]
    );
    assert_eq!(
        findings(&chart, "port: 8080\nmode: b\nextra: [{name: x}]\n"),
        []
    );
}

#[test]
fn all_of_and_minimum_apply_together() {
    let chart = schema_chart(json!({
        "allOf": [
            {"properties": {"port": {"type": "integer"}}},
            {"properties": {"port": {"minimum": 1, "maximum": 65535}}},
        ],
    }));
    assert_eq!(
        errors(&chart, "port: 0\n"),
        ["line 1, column 7: port must be at least 1 by the schema of web 1.0.0, not 0"]
    );
    assert_eq!(
        errors(&chart, "port: 70000\n"),
        ["line 1, column 7: port must be at most 65535 by the schema of web 1.0.0, not 70000"]
    );
    assert_eq!(
        errors(&chart, "port: \"80\"\n"),
        ["line 1, column 7: port must be an integer by the schema of web 1.0.0, not \"80\""]
    );
    assert_eq!(findings(&chart, "port: 443\n"), []);
}

#[test]
fn any_of_and_one_of_say_which_forms_fit() {
    let chart = chart_with(
        json!({"size": 1, "mode": {"a": 1}}),
        json!({
            "properties": {
                "size": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+Gi$"}]},
                "mode": {"oneOf": [
                    {"required": ["a"]},
                    {"required": ["b"]},
                ]},
            },
        }),
    );
    assert_eq!(
        errors(&chart, "size: [1]\n"),
        [
            "line 1, column 7: size must be an integer or a string by the schema of web 1.0.0, not a list"
        ]
    );
    assert_eq!(
        errors(&chart, "size: big\n"),
        ["line 1, column 7: size must match one of its anyOf forms by the schema of web 1.0.0"]
    );
    assert_eq!(findings(&chart, "size: 10Gi\nmode: {a: 2}\n"), []);
    // The default's `a` and the user's `b`: both forms fit.
    assert_eq!(
        errors(&chart, "mode: {b: 2}\n"),
        [
            "line 1, column 7: mode must match exactly one of its oneOf forms by the schema of web 1.0.0, not several"
        ]
    );
    assert_eq!(
        errors(&chart, "mode: {a: null}\n"),
        ["line 1, column 7: mode must match one of its oneOf forms by the schema of web 1.0.0"]
    );
}

#[test]
fn pattern_properties_match_keys_and_closed_maps_refuse_the_rest() {
    let chart = chart_with(
        json!({"env": {}, "ports": {}}),
        json!({
            "properties": {
                "ports": {
                    "type": "object",
                    "patternProperties": {"^[a-z]+$": {"type": "integer"}},
                    "additionalProperties": false,
                },
            },
        }),
    );
    assert_eq!(
        findings(&chart, "ports: {http: x, HTTP: 80, https: 443}\n"),
        [
            (
                Level::Error,
                "line 1, column 15: ports.http must be an integer by the schema of web 1.0.0, not \"x\"".to_string()
            ),
            (
                Level::Error,
                "line 1, column 18: ports.HTTP is not allowed by the schema of web 1.0.0".to_string()
            ),
        ]
    );
}

#[test]
fn if_then_asks_for_more_when_a_switch_is_on() {
    let chart = chart_with(
        json!({"tls": {"enabled": false, "secretName": ""}}),
        json!({
            "properties": {
                "tls": {
                    "type": "object",
                    "if": {"properties": {"enabled": {"const": true}}},
                    "then": {"properties": {"secretName": {"minLength": 1}}},
                },
            },
        }),
    );
    assert_eq!(findings(&chart, "tls: {enabled: false}\n"), []);
    assert_eq!(
        errors(&chart, "tls:\n  enabled: true\n"),
        // The empty default is what breaks it: placed at the nearest key
        // the text sets.
        [
            "line 1, column 1: tls.secretName must be at least 1 character long by the schema of web 1.0.0, not \"\""
        ]
    );
    assert_eq!(
        findings(&chart, "tls: {enabled: true, secretName: web-tls}\n"),
        []
    );
}

#[test]
fn a_required_key_is_placed_at_the_nearest_key_the_text_sets() {
    let chart = chart_with(
        json!({"auth": {"enabled": false}}),
        json!({
            "required": ["license"],
            "properties": {
                "license": {"type": "string"},
                "auth": {
                    "if": {"properties": {"enabled": {"const": true}}, "required": ["enabled"]},
                    "then": {"required": ["password"]},
                },
            },
        }),
    );
    let values = parse_values("license: abc\nauth:\n  enabled: true\n").unwrap();
    let found = check(&chart, &values, "license: abc\nauth:\n  enabled: true\n");
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].path,
        [Seg::Key("auth".into()), Seg::Key("password".into())]
    );
    assert_eq!(found[0].at, Some((1, 0)));
    assert_eq!(
        found[0].message,
        "auth.password is required by the schema of web 1.0.0"
    );
    // Missing at the top, where the text sets nothing: not placed.
    assert_eq!(
        findings(&chart, "auth: {enabled: false}\n"),
        [(
            Level::Error,
            "license is required by the schema of web 1.0.0".to_string()
        )]
    );
}

#[test]
fn local_refs_to_definitions_and_defs_are_followed() {
    for (draft, defs) in [
        ("http://json-schema.org/draft-07/schema#", "definitions"),
        ("https://json-schema.org/draft/2020-12/schema", "$defs"),
    ] {
        let chart = chart_with(
            json!({"image": {"tag": "v1"}}),
            json!({
                "$schema": draft,
                "properties": {"image": {"$ref": format!("#/{defs}/image")}},
                defs: {
                    "image": {
                        "type": "object",
                        "properties": {"tag": {"type": "string"}, "digest": {"$ref": format!("#/{defs}/digest")}},
                    },
                    "digest": {"type": "string", "pattern": "^sha256:"},
                },
            }),
        );
        assert_eq!(
            errors(&chart, "image: {tag: 2, digest: md5}\n"),
            [
                "line 1, column 14: image.tag must be a string by the schema of web 1.0.0, not 2",
                "line 1, column 25: image.digest must match the pattern ^sha256: by the schema of web 1.0.0, not \"md5\"",
            ],
            "{draft}"
        );
        // Declared through the $ref only: known, no warning.
        assert_eq!(
            findings(&chart, "image: {digest: \"sha256:1\"}\n"),
            [],
            "{draft}"
        );
    }
}

#[test]
fn null_removes_a_default_and_the_schema_sees_it_gone() {
    let chart = chart_with(
        json!({"name": "web", "port": 80}),
        json!({"required": ["name"], "properties": {"port": {"type": "integer"}}}),
    );
    assert_eq!(findings(&chart, "port: null\n"), []);
    assert_eq!(
        errors(&chart, "name: null\n"),
        ["line 1, column 1: name is required by the schema of web 1.0.0"]
    );
    assert_eq!(
        schema_errors(&chart, &json!({"name": null})),
        [SchemaError {
            path: "name".into(),
            message: "name is required".into()
        }]
    );
}

#[test]
fn an_unusable_schema_is_one_warning_and_the_other_checks_go_on() {
    for (schema, why) in [
        (
            json!({"properties": {"name": {"type": "string", "pattern": "(unclosed"}}}),
            "properties.name.pattern: \"(unclosed\" is not a usable regular expression",
        ),
        (
            json!({"properties": {"name": {"$ref": "https://example.com/schemas/name.json"}}}),
            "it refers to https://example.com/schemas/name.json, outside the chart (only references within the file are followed)",
        ),
        (
            json!({"properties": {"name": {"$ref": "#/definitions/name"}}}),
            "it refers to #/definitions/name, which the file does not have",
        ),
        (
            json!({"properties": {"name": {"type": 3}}}),
            "properties.name.type: 3 is not valid under any of the schemas listed in the 'anyOf' keyword",
        ),
        // Lookarounds: Helm's regular expressions (Go's, RE2) have none.
        (
            json!({"properties": {"name": {"pattern": "^(?=lookahead)"}}}),
            "properties.name.pattern: \"^(?=lookahead)\" is not a usable regular expression",
        ),
    ] {
        let chart = schema_chart(schema.clone());
        let found = findings(&chart, "port: eighty\nnew: 1\n");
        assert_eq!(found.len(), 3, "{schema}: {found:?}");
        assert_eq!(
            found[0],
            (
                Level::Error,
                "line 1, column 7: port is a number in web 1.0.0, not \"eighty\"".to_string()
            )
        );
        assert_eq!(
            found[1],
            (
                Level::Warning,
                "line 2, column 1: new is not a value of web 1.0.0".to_string()
            )
        );
        assert_eq!(
            found[2],
            (
                Level::Warning,
                format!("the chart's values.schema.json cannot be used: {why}")
            )
        );
        assert_eq!(schema_errors(&chart, &json!({"port": "eighty"})), []);
    }
}

#[test]
fn hostile_schemas_neither_hang_nor_flood() {
    // A self-reference and a pattern that backtracks for ever elsewhere.
    let chart = chart_with(
        json!({"items": []}),
        json!({
            "$ref": "#",
            "properties": {
                "items": {"type": "array", "items": {"type": "string", "pattern": "^(a+)+$"}},
                "deep": {"$ref": "#/properties/deep"},
            },
            "additionalProperties": false,
        }),
    );
    let long = format!("{}b", "a".repeat(5000));
    let items: Vec<Value> = (0..100).map(|_| json!(long)).collect();
    let started = std::time::Instant::now();
    let errors = schema_errors(&chart, &json!({"items": items}));
    assert_eq!(errors.len(), MAX_SCHEMA_ERRORS);
    assert_eq!(errors[0].path, "items[0]");
    assert!(
        errors[0]
            .message
            .starts_with("items[0] must match the pattern ^(a+)+$, not \"aaa"),
        "{errors:?}"
    );
    let many: serde_json::Map<String, Value> =
        (0..500).map(|i| (format!("k{i}"), json!(i))).collect();
    assert_eq!(
        schema_errors(&chart, &Value::Object(many)).len(),
        MAX_SCHEMA_ERRORS
    );
    let _ = findings(&chart, "deep: {deep: {deep: 1}}\n");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[test]
fn the_draft_is_the_one_named_or_2020_12() {
    // Draft 4's boolean exclusiveMinimum, and 2020-12's $ref beside
    // siblings (draft 7 ignores the siblings).
    let draft4 = chart_with(
        json!({}),
        json!({
            "$schema": "http://json-schema.org/draft-04/schema#",
            "properties": {"n": {"minimum": 1, "exclusiveMinimum": true}},
        }),
    );
    assert_eq!(
        schema_errors(&draft4, &json!({"n": 1})),
        [SchemaError {
            path: "n".into(),
            message: "n must be more than 1, not 1".into()
        }]
    );
    let sibling = |schema_uri: Option<&str>| {
        let mut schema = json!({
            "properties": {"n": {"$ref": "#/$defs/int", "minimum": 5}},
            "$defs": {"int": {"type": "integer"}},
        });
        if let Some(uri) = schema_uri {
            schema["$schema"] = json!(uri);
        }
        schema_errors(&chart_with(json!({}), schema), &json!({"n": 1})).len()
    };
    assert_eq!(sibling(None), 1);
    assert_eq!(sibling(Some("https://example.com/my-own-meta")), 1);
    assert_eq!(sibling(Some("http://json-schema.org/draft-07/schema#")), 0);
}

#[test]
fn schema_errors_follow_helm() {
    // No schema: nothing to say.
    let chart = upstream("4.11.3");
    assert_eq!(
        schema_errors(&chart, &json!({"controller": {"replicaCount": "three"}})),
        []
    );
    let chart = chart_with(
        json!({"controller": {"replicaCount": 1, "image": {"tag": "v1"}}}),
        json!({
            "properties": {
                "controller": {
                    "properties": {
                        "replicaCount": {"type": "integer", "minimum": 1},
                        "image": {"required": ["tag"]},
                    },
                },
                "tolerations": {"items": {"required": ["key"]}},
            },
        }),
    );
    assert_eq!(schema_errors(&chart, &json!({})), []);
    assert_eq!(
        schema_errors(
            &chart,
            &json!({
                "controller": {"replicaCount": "three", "image": {"tag": null}},
                "tolerations": [{"key": "a"}, {"effect": "NoSchedule"}],
            })
        ),
        [
            SchemaError {
                path: "controller.image.tag".into(),
                message: "controller.image.tag is required".into()
            },
            SchemaError {
                path: "controller.replicaCount".into(),
                message: "controller.replicaCount must be an integer, not \"three\"".into()
            },
            SchemaError {
                path: "tolerations[1].key".into(),
                message: "tolerations[1].key is required".into()
            },
        ]
    );
    // Clones share the compiled schema, and compare equal whatever was
    // compiled.
    let twin = chart.clone();
    assert_eq!(twin, chart);
    assert!(std::ptr::eq(
        twin.validator().unwrap().unwrap(),
        chart.validator().unwrap().unwrap()
    ));
}

/// `cargo test --release --lib -- --ignored schema_errors_are_fast`
#[test]
#[ignore = "a timing, meaningful in release builds only"]
fn schema_errors_are_fast() {
    // A schema of ingress-nginx's size: every default's type.
    fn typed(v: &Value) -> Value {
        match v {
            Value::Object(m) => json!({
                "type": "object",
                "properties": m.iter().map(|(k, v)| (k.clone(), typed(v))).collect::<serde_json::Map<_, _>>(),
            }),
            Value::Array(_) => json!({"type": "array"}),
            Value::String(_) => json!({"type": "string"}),
            Value::Bool(_) => json!({"type": "boolean"}),
            Value::Number(_) => json!({"type": "number"}),
            Value::Null => json!({}),
        }
    }
    let nginx = upstream("4.11.3");
    let chart = ChartValues::new(
        nginx.id.clone(),
        nginx.defaults.clone(),
        Some(typed(&nginx.defaults)),
        Vec::new(),
    );
    let sets: Vec<Value> = (0..10_000)
        .map(|i| {
            json!({"controller": {
                "replicaCount": if i % 100 == 0 { json!("three") } else { json!(i % 5 + 1) },
                "service": {"annotations": {"cluster": format!("c{i}")}},
            }})
        })
        .collect();
    assert!(chart.validator().unwrap().is_ok());
    let started = std::time::Instant::now();
    let failing = sets
        .iter()
        .filter(|v| !schema_errors(&chart, v).is_empty())
        .count();
    let took = started.elapsed();
    assert_eq!(failing, 100);
    eprintln!("10,000 value sets in {took:?}");
    assert!(took < std::time::Duration::from_millis(200), "{took:?}");
}

#[test]
fn a_violation_under_a_secret_key_does_not_quote_the_value() {
    let chart = schema_chart(json!({
        "type": "object",
        "properties": {
            "auth": {"type": "object", "properties": {"password": {"type": "integer"}}},
            "port": {"type": "integer"},
        },
    }));
    assert_eq!(
        findings(&chart, "auth: {password: hunter2}\nport: eighty\n"),
        [
            (Level::Error, "line 1, column 18: auth.password must be an integer by the schema of web 1.0.0".to_string()),
            (Level::Error, "line 2, column 7: port must be an integer by the schema of web 1.0.0, not \"eighty\"".to_string()),
        ]
    );
}
