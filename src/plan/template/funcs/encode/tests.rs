use crate::plan::template::{Limits, Value, render};

fn run(text: &str) -> String {
    // The run cannot take a `nil` constant yet: `.nul` is one.
    let data = Value::from(&serde_json::json!({"nul": null}));
    render(text, &data, Limits::default()).unwrap_or_else(|e| format!("ERR {e}"))
}

/// (template, Go's output), from Go 1.26, Sprig v3.3.0 and
/// sigs.k8s.io/yaml v1.6.0.
const GO: &[(&str, &str)] = &[
    (r#"{{ toYaml "hello" }}|"#, "hello|"),
    (r#"{{ toYaml "a\nb\n" }}|"#, "|\n  a\n  b|"),
    (r#"{{ toYaml "a\nb\n\n" }}|"#, "|+\n  a\n  b\n|"),
    (
        r#"{{ toYaml (dict "k" "aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt") }}"#,
        "k: aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp\n  qqqq rrrr ssss tttt",
    ),
    (
        r#"{{ toYaml (dict "k" "'aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt") }}"#,
        "k: '''aaaa bbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp\n  qqqq rrrr ssss tttt'",
    ),
    (
        r#"{{ toYaml (dict "a" (list (dict "x" 1 "y" (list 1 2)) (list 3 4) (list) (dict)) "b" (dict "c" (dict "d" "e"))) }}"#,
        "a:\n- x: 1\n  \"y\":\n  - 1\n  - 2\n- - 3\n  - 4\n- []\n- {}\nb:\n  c:\n    d: e",
    ),
    (
        r##"{{ toYaml (list "" " x" "x " "a: b" "#c" "a #c" "-" "- x" "?" "1.5" "0x1F" "true" "True" "NO" "off" "y" "Y" "~" "null" "Null" "1_000" "1:20" "+1" ".5" "1e3" "1.0e+3" ".inf" "-.Inf" ".NaN" "2001-12-14" "<<" "=" "a\tb" "é" "'q'" "\"d\"" "@x" "%x" "!x" "&x" "*x" "|" ">" "---" "..." "a,b" "[x]" "{x}" "x]" ":x" "x:" "a\n" "\na" " a\nb" "a \nb" "a\n b") }}"##,
        "- \"\"\n- ' x'\n- 'x '\n- 'a: b'\n- '#c'\n- 'a #c'\n- '-'\n- '- x'\n- '?'\n- \"1.5\"\n- \"0x1F\"\n- \"true\"\n- \"True\"\n- \"NO\"\n- \"off\"\n- \"y\"\n- \"Y\"\n- \"~\"\n- \"null\"\n- \"Null\"\n- \"1_000\"\n- \"1:20\"\n- \"+1\"\n- \".5\"\n- \"1e3\"\n- \"1.0e+3\"\n- \".inf\"\n- \"-.Inf\"\n- \".NaN\"\n- \"2001-12-14\"\n- <<\n- =\n- \"a\\tb\"\n- é\n- '''q'''\n- '\"d\"'\n- '@x'\n- '%x'\n- '!x'\n- '&x'\n- '*x'\n- '|'\n- '>'\n- '---'\n- '...'\n- a,b\n- '[x]'\n- '{x}'\n- x]\n- :x\n- 'x:'\n- |\n  a\n- |2-\n\n  a\n- |2-\n   a\n  b\n- \"a \\nb\"\n- |-\n  a\n   b",
    ),
    (
        r#"{{ toYaml (dict "" 1 "a b" 2 "a\nb" 3 "yes" 4 "1" 5 "-" 6) }}"#,
        "\"\": 1\n'-': 6\n\"1\": 5\n? |-\n  a\n  b\n: 3\na b: 2\n\"yes\": 4",
    ),
    (
        "{{ toYaml (list 0.5 1e20 1e21 1e-7 100.0 0.1 -0.0 1.5e300 123456789.0) }}",
        "- 0.5\n- 1e+20\n- 1e+21\n- 1e-07\n- 100\n- 0.1\n- 0\n- 1.5e+300\n- 123456789",
    ),
    (
        "{{ toJson (list 0.5 1e20 1e21 1e-7 100.0 0.1 -0.0 1.5e300 123456789.0 0.000001 0.0000001) }}",
        "[0.5,100000000000000000000,1e+21,1e-7,100,0.1,-0,1.5e+300,123456789,0.000001,1e-7]",
    ),
    (
        "{{ toYaml (list true false .nul) }}",
        "- true\n- false\n- null",
    ),
    ("{{ toYaml (list (list (list 1))) }}", "- - - 1"),
    (
        r#"{{ toYaml (list (dict "a" "x\ny")) }}"#,
        "- a: |-\n    x\n    y",
    ),
    (r#"{{ toYaml (dict "a" "  x\ny") }}"#, "a: |2-\n    x\n  y"),
    (r#"{{ toYaml (dict "a" "x \ny") }}"#, "a: \"x \\ny\""),
    (
        r#"{{ toYaml (dict "k" "ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé") }}"#,
        "k: ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé ééééé\n  ééééé",
    ),
    (
        r#"{{ toYaml (dict "k" "aaaa\tbbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp qqqq rrrr ssss tttt") }}"#,
        "k: \"aaaa\\tbbbb cccc dddd eeee ffff gggg hhhh iiii jjjj kkkk llll mmmm nnnn oooo pppp\n  qqqq rrrr ssss tttt\"",
    ),
    (
        r#"{{ toYaml "<a>&" }}|{{ toJson "<a>& " }}|{{ toRawJson (dict "a" "<b>") }}|{{ toPrettyJson (list) }}|{{ toPrettyJson (dict "a" (list 1 (dict)) "b" (dict "c" .nul)) }}"#,
        "<a>&|\"\\u003ca\\u003e\\u0026\\u2028\"|{\"a\":\"<b>\"}|[]|{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": {\n    \"c\": null\n  }\n}",
    ),
    (
        r#"{{ toYaml (dict "s" "a\nb" "t" "on" "n" "007" "e" "") }}"#,
        "e: \"\"\n\"n\": \"007\"\ns: |-\n  a\n  b\nt: \"on\"",
    ),
    ("{{ toJson 1e21 }} {{ toJson 0.5 }}", "1e+21 0.5"),
    (r#"{{ (fromYaml "a: 1\nb: [x]").b }}"#, "[x]"),
    (
        r#"{{ (fromJson "{\"a\":1}").a }} {{ (fromYaml "a: 1").a }}"#,
        "1 1",
    ),
];

#[test]
fn encoders_write_what_go_writes() {
    let wrong: Vec<String> = GO
        .iter()
        .filter_map(|(template, go)| {
            let ours = run(template);
            (ours != *go).then(|| format!("{template}\n  ours: {ours:?}\n  Go's: {go:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
