use crate::plan::template::{Limits, Value, render};

fn run(text: &str) -> String {
    // The run cannot take a `nil` constant yet: `.nul` is one.
    let data = Value::from(&serde_json::json!({"nul": null}));
    render(text, &data, Limits::default()).unwrap_or_else(|e| format!("ERR {e}"))
}

/// (template, Go's output), from Go 1.26 and Sprig v3.3.0.
const GO: &[(&str, &str)] = &[
    (
        "{{ quote \"a\" 1 .nul \"b\" 2.5 true }}|{{ squote \"it's\" 3 }}|{{ quote \"tab\\thereé\" }}",
        "\"a\" \"1\" \"b\" \"2.5\" \"true\"|'it's' '3'|\"tab\\thereé\"",
    ),
    (
        "{{ upper \"héllo\" }}|{{ lower \"ABC\" }}|{{ title \"hello wOrld-foo_bar x.y\" }}|{{ untitle \"Hello World\" }}|{{ trim \"  a b  \" }}|{{ nospace \" a b\\tc \" }}",
        "HÉLLO|abc|Hello WOrld-Foo_bar X.Y|hello world|a b|abc",
    ),
    (
        "{{ trimAll \"-=\" \"=-a-b=-\" }}|{{ trimPrefix \"v\" \"v1\" }}|{{ trimSuffix \".x\" \"a.x\" }}|{{ contains \"b\" \"abc\" }}|{{ hasPrefix \"a\" \"abc\" }}|{{ hasSuffix \"c\" \"abc\" }}",
        "a-b|1|a|true|true|true",
    ),
    (
        "{{ trunc 3 \"abcdef\" }}|{{ trunc -2 \"abcdef\" }}|{{ trunc 10 \"abc\" }}|{{ trunc -10 \"abc\" }}|{{ trunc 0 \"abc\" }}",
        "abc|ef|abc|abc|",
    ),
    (
        "{{ abbrev 5 \"hello world\" }}|{{ abbrev 3 \"hello\" }}|{{ abbrev 20 \"hello\" }}",
        "he...|hello|hello",
    ),
    (
        "{{ substr 1 3 \"abcdef\" }}|{{ substr -1 2 \"abcdef\" }}|{{ substr 2 -1 \"abcdef\" }}|{{ substr 2 99 \"abcdef\" }}",
        "bc|ab|cdef|cdef",
    ),
    (
        "{{ replace \"a\" \"xy\" \"banana\" }}|{{ replace \"\" \"-\" \"abc\" }}|{{ repeat 3 \"ab\" }}|{{ repeat 0 \"x\" }}",
        "bxynxynxy|-a-b-c-|ababab|",
    ),
    ("{{ cat \"a\" 1 .nul (list 1 2) \"b\" }}", "a 1 [1 2] b"),
    (
        "{{ indent 2 \"a\\nb\" }}|{{ nindent 3 \"x\\n\" }}|{{ indent 0 \"q\" }}",
        "  a\n  b|\n   x\n   |q",
    ),
    (
        "{{ split \",\" \"a,b,,c\" }}|{{ splitList \"\" \"abc\" }}|{{ splitList \",\" \"\" }}|{{ join \"+\" (list 1 .nul \"a\" 2.5) }}|{{ join \",\" \"str\" }}",
        "map[_0:a _1:b _2: _3:c]|[a b c]|[]|1+a+2.5|str",
    ),
    (
        "{{ toStrings (list 1 \"a\" .nul true) }}|{{ toString (list 1 2) }}|{{ toString (dict \"a\" 1) }}|{{ toString 1e6 }}",
        "[1 a true]|[1 2]|map[a:1]|1e+06",
    ),
    (
        "{{ regexMatch \"^[a-z]+$\" \"abc\" }}|{{ regexMatch \"(\" \"x\" }}|{{ regexFind \"[0-9]+\" \"ab12cd34\" }}|{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"${1}W\" }}|{{ regexReplaceAll \"a(x*)b\" \"-ab-axxb-\" \"$1W\" }}",
        "true|false|12|-W-xxW-|---",
    ),
    (
        "{{ b64enc \"hello!?\" }}|{{ b64dec \"aGVsbG8hPw==\" }}|{{ b64dec \"@@\" }}|{{ sha1sum \"abc\" }}|{{ sha256sum \"\" }}",
        "aGVsbG8hPw==|hello!?|illegal base64 data at input byte 0|a9993e364706816aba3e25717850c26c9cd0d89d|e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    ),
    (
        "{{ list 1 \"a\" .nul }}|{{ append (list 1) 2 }}|{{ prepend (list 1) 0 }}|{{ concat (list 1) (list 2 3) (list) }}|{{ first (list) }}|{{ last (list 1 2) }}|{{ rest (list 1 2 3) }}|{{ initial (list 1 2 3) }}|{{ rest (list) }}",
        "[1 a <nil>]|[1 2]|[0 1]|[1 2 3]|<no value>|2|[2 3]|[1 2]|[]",
    ),
    (
        "{{ reverse (list 1 2 3) }}|{{ uniq (list 1 \"1\" 1 (list 1) (list 1)) }}|{{ without (list 1 2 3 2) 2 3 }}|{{ has \"a\" (list \"a\") }}|{{ has 1 .nul }}|{{ compact (list 0 1 \"\" .nul false (list) \"x\") }}|{{ sortAlpha (list \"b\" \"a\" 10 2) }}",
        "[3 2 1]|[1 1 [1]]|[1]|true|false|[1 x]|[10 2 a b]",
    ),
    (
        "{{ slice (list 1 2 3 4) 1 3 }}|{{ slice (list 1 2 3) 1 }}|{{ slice (list 1 2 3) }}|{{ slice (list) }}",
        "[2 3]|[2 3]|[1 2 3]|<no value>",
    ),
    (
        "{{ $d := dict \"b\" 2 \"a\" 1 }}{{ get $d \"a\" }}|{{ get $d \"z\" }}|{{ hasKey $d \"b\" }}|{{ keys $d | sortAlpha }}|{{ pick $d \"a\" \"q\" }}|{{ omit $d \"a\" }}|{{ set $d \"c\" 3 }}",
        "1||true|[a b]|map[a:1]|map[b:2]|map[a:1 b:2 c:3]",
    ),
    (
        "{{ pluck \"a\" (dict \"a\" 1) (dict \"b\" 2) (dict \"a\" 3) }}|{{ dig \"a\" \"b\" \"def\" (dict \"a\" (dict \"b\" 7)) }}|{{ dig \"a\" \"x\" \"def\" (dict \"a\" (dict \"b\" 7)) }}|{{ dict 1 2 }}|{{ deepCopy (dict \"a\" (list 1)) }}",
        "[1 3]|7|def|map[1:2]|map[a:[1]]",
    ),
    (
        "{{ merge (dict \"a\" 1 \"e\" \"\" \"m\" (dict \"x\" 1)) (dict \"a\" 2 \"b\" 3 \"e\" \"f\" \"m\" (dict \"x\" 2 \"y\" 3)) }}|{{ mergeOverwrite (dict \"a\" 1 \"e\" \"\" \"m\" (dict \"x\" 1) \"z\" 5) (dict \"a\" 2 \"b\" 3 \"e\" \"f\" \"m\" (dict \"x\" 2 \"y\" 3) \"z\" \"\") }}",
        "map[a:1 b:3 e:f m:map[x:1 y:3]]|map[a:2 b:3 e:f m:map[x:2 y:3] z:]",
    ),
    (
        "{{ add 1 2 3 }}|{{ add \"3\" 2.9 true }}|{{ add1 \"0x10\" }}|{{ sub 5 7 }}|{{ mul 2 3 4 }}|{{ div 7 2 }}|{{ div -7 2 }}|{{ mod -7 3 }}|{{ max 1 9 3 }}|{{ min 4 2 8 }}|{{ int \"010\" }}|{{ int \"42.0\" }}|{{ int64 \"1e3\" }}|{{ atoi \"12\" }}|{{ atoi \"0x1\" }}",
        "6|6|17|-2|24|3|-3|-1|9|2|8|42|0|12|0",
    ),
    (
        "{{ floor 2.7 }}|{{ ceil 2.1 }}|{{ round 3.14159 2 }}|{{ round 2.5 0 }}|{{ float64 \"1.5\" }}|{{ float64 3 }}|{{ addf 0.1 0.2 }}|{{ subf 1 0.9 }}|{{ mulf 1.1 3 }}|{{ divf 2 3 }}|{{ divf 1 3 }}|{{ divf 10 4 }}|{{ addf }}",
        "2|3|3.14|3|1.5|3|0.3|0.1|3.3|0.6666666666666667|0.3333333333333333|2.5|0",
    ),
    (
        "{{ until 3 }}|{{ until -2 }}|{{ untilStep 0 10 3 }}|{{ untilStep 5 0 -2 }}|{{ seq 3 }}|{{ seq 2 5 }}|{{ seq 5 2 }}|{{ seq 0 2 6 }}|{{ seq 0 }}",
        "[0 1 2]|[0 -1]|[0 3 6 9]|[5 3 1]|1 2 3|2 3 4 5|5 4 3 2|0 2 4 6|1 0",
    ),
    (
        "{{ semverCompare \"^1.2.0\" \"1.3.4\" }}|{{ semverCompare \"~1.2.0\" \"1.3.0\" }}|{{ semverCompare \">= 1.2, < 2\" \"1.9.9\" }}|{{ semverCompare \"1.x\" \"1.4.0\" }}|{{ semverCompare \">=1.0.0\" \"1.1.0-rc1\" }}|{{ semverCompare \">=1.0.0-0\" \"1.1.0-rc1\" }}|{{ semverCompare \"1.2 - 1.4\" \"1.4.5\" }}|{{ semverCompare \"<1 || >=3\" \"3.1.0\" }}|{{ (semver \"v1.2.3-rc.1+b5\").Major }}|{{ (semver \"v1.2.3-rc.1+b5\").Prerelease }}",
        "true|false|true|true|false|true|true|true|1|rc.1",
    ),
    (
        "{{ typeOf \"a\" }}|{{ typeOf 1.5 }}|{{ typeOf .nul }}|{{ kindOf (list) }}|{{ kindOf (dict) }}|{{ kindOf .nul }}|{{ kindIs \"string\" \"a\" }}|{{ typeOf (list) }}|{{ typeOf (dict) }}",
        "string|float64|<nil>|slice|map|invalid|true|[]interface {}|map[string]interface {}",
    ),
    (
        "{{ ternary 1 2 true }}|{{ empty \"\" }}|{{ empty (dict \"a\" 1) }}|{{ coalesce 0 \"\" \"x\" }}|{{ coalesce 0 }}",
        "1|true|false|x|<no value>",
    ),
    (
        "{{ fromJson \"{\\\"a\\\": [1, 2.5, 1000000]}\" }}|{{ fromJson \"[1]\" }}|{{ fromJsonArray \"[1, \\\"a\\\"]\" }}|{{ fromJsonArray \"{}\" }}|{{ fromJson \"\" }}|{{ fromJson \"null\" }}",
        "map[a:[1 2.5 1e+06]]|map[Error:json: cannot unmarshal array into Go value of type map[string]interface {}]|[1 a]|[json: cannot unmarshal object into Go value of type []interface {}]|map[Error:unexpected end of JSON input]|map[]",
    ),
    (
        "{{ fromYaml \"a: [1, x]\\nb:\\n  c: true\" }}|{{ fromYaml \"- 1\" }}|{{ fromYamlArray \"- 1\\n- b\" }}|{{ fromYamlArray \"a: 1\" }}|{{ fromYaml \"\" }}",
        "map[a:[1 x] b:map[c:true]]|map[Error:error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}]|[1 b]|[error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go value of type []interface {}]|map[]",
    ),
];

#[test]
fn sprig_functions_answer_as_go_does() {
    let wrong: Vec<String> = GO
        .iter()
        .filter_map(|(template, go)| {
            let ours = run(template);
            (ours != *go).then(|| format!("{template}\n  ours: {ours:?}\n  Go's: {go:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn what_would_outgrow_a_limit_fails_naming_it_before_it_is_built() {
    let small = Limits {
        output: 1000,
        ..Limits::default()
    };
    let data = Value::from(&serde_json::json!({}));
    for template in [
        r#"{{ repeat 1000000000000 "ab" }}"#,
        r#"{{ indent 100000 "a\nb" }}"#,
        r#"{{ list 1 2 3 | join (repeat 600 "x") }}"#,
        r#"{{ replace "a" (repeat 400 "y") "aaa" }}"#,
        r#"{{ regexReplaceAll "" (repeat 900 "z") (repeat 900 "w") }}"#,
        r#"{{ toYaml (list (repeat 900 "v") (repeat 900 "v")) }}"#,
        r#"{{ toJson (list (repeat 900 "v") (repeat 900 "v")) }}"#,
    ] {
        let e = render(template, &data, small).unwrap_err();
        assert!(e.message.contains("limit of 1000 bytes"), "{template}: {e}");
    }
    for template in [
        "{{ until 100000000 }}",
        "{{ untilStep 0 1000000000 1 }}",
        "{{ seq 1000000 }}",
    ] {
        let e = render(template, &data, Limits::default()).unwrap_err();
        assert!(e.message.contains("limit of 10000"), "{template}: {e}");
    }
}

#[test]
fn bad_input_is_an_error_never_a_panic() {
    for template in [
        "{{ div 1 0 }}",
        "{{ mod 1 0 }}",
        "{{ divf 1 0 }}",
        r#"{{ trunc 2 "héllo" }}"#,
        r#"{{ substr 5 2 "abc" }}"#,
        r#"{{ regexFind "(" "x" }}"#,
        r#"{{ regexFind "a{1000}{1000}" "x" }}"#,
        r#"{{ first "abc" }}"#,
        r#"{{ slice (list 1 2) 2 9 }}"#,
        r#"{{ dig "a" "b" "d" (dict "a" 1) }}"#,
        r#"{{ upper 3 }}"#,
        r#"{{ semverCompare ">=1" "x" }}"#,
        "{{ fail \"stop\" }}",
    ] {
        assert!(
            run(template).starts_with("ERR"),
            "{template}: {}",
            run(template)
        );
    }
}

#[test]
fn what_reads_the_world_is_not_there() {
    for name in [
        "env",
        "expandenv",
        "getHostByName",
        "now",
        "date",
        "randAlpha",
        "uuidv4",
        "genCA",
        "derivePassword",
        "htpasswd",
        "encryptAES",
        "toToml",
        "fromToml",
    ] {
        let e = render(&format!("{{{{ {name} }}}}"), &Value::Nil, Limits::default()).unwrap_err();
        assert!(e.message.contains("not defined"), "{name}: {e}");
    }
}
