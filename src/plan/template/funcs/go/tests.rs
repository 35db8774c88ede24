//! Go's builtins and `fmt`, against what Go 1.26's `text/template`
//! printed for the same template and data (the cases were run through Go
//! with `missingkey=error`, as Sveltos runs them). An error is its message
//! and column; Go's own prefix ("template: values:1:3: executing …") is
//! the caller's.

use serde_json::json;

use crate::plan::template::{Limits, Value, render};

fn data() -> Value {
    Value::from(&json!({
        "Cluster": {
            "apiVersion": "cluster.x-k8s.io/v1beta1",
            "kind": "Cluster",
            "metadata": {
                "name": "dev-1",
                "namespace": "tenant-a",
                "labels": {"env": "prod", "region": "eu-West"},
                "annotations": {"note": "a \"quoted\" <b>&"}
            },
            "spec": {
                "clusterNetwork": {"pods": {"cidrBlocks": ["10.0.0.0/16", "10.1.0.0/16"]}},
                "replicas": 3, "ratio": 0.5, "big": 1000000, "bigf": 1000000.0,
                "huge": 12345678901234567_i64, "paused": false, "empty": "", "zero": 0,
                "nul": null, "emptyList": [], "emptyMap": {}
            }
        },
        "ManagedCluster": {"metadata": {"name": "dev-1"}, "spec": {"template": "aws-1-0"}},
        "Template": "aws-standalone-cp-1-0-20"
    }))
}

type Expected = Result<&'static str, (usize, &'static str)>;

/// Renders each template and compares it with Go's output, or Go's error
/// message and column; every mismatch is listed, not only the first.
fn check(cases: &[(&str, Expected)]) {
    let data = data();
    let mut wrong = Vec::new();
    for (template, expected) in cases {
        let got = render(template, &data, Limits::default())
            .map_err(|e| (e.pos.column, e.message.clone()));
        let same = match (expected, &got) {
            (Ok(want), Ok(out)) => want == out,
            // Go counts columns from 0.
            (Err((column, message)), Err((c, m))) => column + 1 == *c && message == m,
            _ => false,
        };
        if !same {
            wrong.push(format!("{template}\n   go: {expected:?}\n  got: {got:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}

#[test]
fn every_case_prints_as_go_prints_it() {
    check(&[
        ("{{ printf \"%v\" 1 }}", Ok("1")),
        ("{{ printf \"%d\" -42 }}", Ok("-42")),
        ("{{ printf \"%+d\" 42 }}", Ok("+42")),
        (
            "{{ printf \"%5d|%-5d|%05d\" 42 42 42 }}",
            Ok("   42|42   |00042"),
        ),
        (
            "{{ printf \"%x %X %o %O %b\" 255 255 255 255 5 }}",
            Ok("ff FF 377 0o377 101"),
        ),
        ("{{ printf \"%#x %#o %#b\" 255 8 5 }}", Ok("0xff 010 0b101")),
        (
            "{{ printf \"%c %U %#U\" 65 9731 9731 }}",
            Ok("A U+2603 U+2603 '☃'"),
        ),
        ("{{ printf \"%q\" 65 }}", Ok("'A'")),
        (
            "{{ printf \"%q\" \"a\\\"b\\n\\t\u{1}é☃\" }}",
            Ok("\"a\\\"b\\n\\t\\x01é☃\""),
        ),
        ("{{ printf \"%+q\" \"é☃\" }}", Ok("\"\\u00e9\\u2603\"")),
        ("{{ printf \"%#q\" \"ab\" }}", Ok("`ab`")),
        ("{{ printf \"%#q\" \"a`b\" }}", Ok("\"a`b\"")),
        ("{{ printf \"%x\" \"hi\" }}", Ok("6869")),
        ("{{ printf \"% x\" \"hi\" }}", Ok("68 69")),
        ("{{ printf \"%X\" \"hi\" }}", Ok("6869")),
        ("{{ printf \"%#x\" \"hi\" }}", Ok("0x6869")),
        ("{{ printf \"% #x\" \"hi\" }}", Ok("0x68 0x69")),
        ("{{ printf \"%s\" \"str\" }}", Ok("str")),
        (
            "{{ printf \"%10s|%-10s|\" \"ab\" \"ab\" }}",
            Ok("        ab|ab        |"),
        ),
        ("{{ printf \"%.2s\" \"abcdef\" }}", Ok("ab")),
        ("{{ printf \"%.1s\" \"éa\" }}", Ok("é")),
        ("{{ printf \"%5.1s|\" \"xyz\" }}", Ok("    x|")),
        ("{{ printf \"%t\" true }}", Ok("true")),
        ("{{ printf \"%v %v\" true false }}", Ok("true false")),
        ("{{ printf \"%f\" 3.14159 }}", Ok("3.141590")),
        ("{{ printf \"%.2f\" 2.345 }}", Ok("2.35")),
        (
            "{{ printf \"%8.3f|%-8.3f|%08.3f\" 3.14159 3.14159 -3.14159 }}",
            Ok("   3.142|3.142   |-003.142"),
        ),
        ("{{ printf \"%+.1f\" 2.0 }}", Ok("+2.0")),
        ("{{ printf \"% .1f\" 2.0 }}", Ok(" 2.0")),
        (
            "{{ printf \"%e %E\" 123456.789 123456.789 }}",
            Ok("1.234568e+05 1.234568E+05"),
        ),
        ("{{ printf \"%.3e\" 0.000123 }}", Ok("1.230e-04")),
        ("{{ printf \"%g %G\" 1e21 1e-7 }}", Ok("1e+21 1E-07")),
        ("{{ printf \"%.3g\" 3.14159 }}", Ok("3.14")),
        ("{{ printf \"%g\" 100000.0 }}", Ok("100000")),
        ("{{ printf \"%g\" 1e6 }}", Ok("1e+06")),
        ("{{ printf \"%#g\" 1.0 }}", Ok("1.00000")),
        ("{{ printf \"%#.3g\" 1.0 }}", Ok("1.00")),
        ("{{ printf \"%F\" 1.5 }}", Ok("1.500000")),
        ("{{ printf \"%x\" 1.5 }}", Ok("0x1.8p+00")),
        ("{{ printf \"%b\" 1.0 }}", Ok("4503599627370496p-52")),
        ("{{ printf \"%d\" 1.5 }}", Ok("%!d(float64=1.5)")),
        ("{{ printf \"%s\" 1.5 }}", Ok("%!s(float64=1.5)")),
        ("{{ printf \"%d\" \"x\" }}", Ok("%!d(string=x)")),
        ("{{ printf \"%d\" true }}", Ok("%!d(bool=true)")),
        ("{{ printf \"%d\"  }}", Ok("%!d(MISSING)")),
        ("{{ printf \"%d %d\" 1 }}", Ok("1 %!d(MISSING)")),
        (
            "{{ printf \"%d\" 1 \"a\" true }}",
            Ok("1%!(EXTRA string=a, bool=true)"),
        ),
        ("{{ printf \"%s\" nil }}", Ok("%!s(<nil>)")),
        ("{{ printf \"%v\" nil }}", Ok("<nil>")),
        ("{{ printf \"%d\" nil }}", Ok("%!d(<nil>)")),
        ("{{ printf \"%*d\" 5 1 }}", Ok("    1")),
        ("{{ printf \"%-*d|\" 5 1 }}", Ok("1    |")),
        ("{{ printf \"%.*f\" 2 3.14159 }}", Ok("3.14")),
        ("{{ printf \"%*d\" \"x\" 1 }}", Ok("%!(BADWIDTH)1")),
        ("{{ printf \"%*d\" 10000000 1 }}", Ok("%!(BADWIDTH)1")),
        ("{{ printf \"%.*d\" -1 5 }}", Ok("%!(BADPREC)5")),
        ("{{ printf \"%*d\" -5 1 }}", Ok("1    ")),
        ("{{ printf \"%[2]d %[1]d\" 1 2 }}", Ok("2 1")),
        ("{{ printf \"%[3]d\" 1 2 }}", Ok("%!d(BADINDEX)")),
        ("{{ printf \"%[x]d\" 1 }}", Ok("%!d(BADINDEX)")),
        ("{{ printf \"%#v\" \"s\" }}", Ok("\"s\"")),
        ("{{ printf \"%#v\" 1.0 }}", Ok("1")),
        ("{{ printf \"%6.2v|\" 3.14159 }}", Ok("   3.1|")),
        ("{{ printf \"%5t|\" true }}", Ok(" true|")),
        ("{{ printf \"%05s\" \"ab\" }}", Ok("000ab")),
        ("{{ printf \"%-05d|\" 3 }}", Ok("3    |")),
        ("{{ printf \"%+s\" \"x\" }}", Ok("x")),
        ("{{ printf \"%.0f %.0f\" 0.5 1.5 }}", Ok("0 2")),
        ("{{ printf \"%v\" 1e-7 }}", Ok("1e-07")),
        ("{{ printf \"%v\" -0.0 }}", Ok("-0")),
        (
            "{{ printf \"%d\" 9223372036854775807 }}",
            Ok("9223372036854775807"),
        ),
        ("{{ printf \"%x\" -255 }}", Ok("-ff")),
        ("{{ printf \"%o\" -8 }}", Ok("-10")),
        ("{{ printf \"%c\" -1 }}", Ok("�")),
        ("{{ printf \"%c\" 1114112 }}", Ok("�")),
        ("{{ printf \"%U\" -1 }}", Ok("U+FFFFFFFFFFFFFFFF")),
        ("{{ printf \"%q\" 1114112 }}", Ok("'�'")),
        ("{{ printf \"%5c|\" 65 }}", Ok("    A|")),
        ("{{ printf \"%05q\" \"a\" }}", Ok("00\"a\"")),
        ("{{ printf \"%10q|\" \"a\" }}", Ok("       \"a\"|")),
        ("{{ printf \"%v\" \"%d\" }}", Ok("%d")),
        ("{{ printf \"%d%%\" 50 }}", Ok("50%")),
        ("{{ printf \"%%d\"  }}", Ok("%d")),
        ("{{ printf \"% d % d\" 5 -5 }}", Ok(" 5 -5")),
        ("{{ printf \"%+ d\" 5 }}", Ok("+5")),
        ("{{ printf \"%.3x\" \"abcdef\" }}", Ok("616263")),
        ("{{ printf \"%8x|\" \"ab\" }}", Ok("    6162|")),
        ("{{ printf \"%e\" 0.0 }}", Ok("0.000000e+00")),
        ("{{ printf \"%g\" 0.000012345 }}", Ok("1.2345e-05")),
        ("{{ printf \"%.0e\" 5.0 }}", Ok("5e+00")),
        ("{{ printf \"%#.0e\" 5.0 }}", Ok("5.e+00")),
        ("{{ printf \"%#.0f\" 5.0 }}", Ok("5.")),
        ("{{ printf \"%010.3f\" -1.5 }}", Ok("-00001.500")),
        ("{{ printf \"%-010.3f|\" 1.5 }}", Ok("1.500     |")),
        ("{{ printf \"%+010d\" 42 }}", Ok("+000000042")),
        ("{{ printf \"%#v\" nil }}", Ok("<nil>")),
        ("{{ printf \"%.3d\" 7 }}", Ok("007")),
        ("{{ printf \"%8.3d|\" -7 }}", Ok("    -007|")),
        ("{{ printf \"%08.3d|\" 7 }}", Ok("     007|")),
        ("{{ printf \"%.0d\" 0 }}", Ok("")),
        ("{{ printf \"%#X\" \"hi\" }}", Ok("0X6869")),
        (
            "{{ printf \"%q\" \"\u{ad}\u{200b}\u{feff}\u{a0}😀\" }}",
            Ok("\"\\u00ad\\u200b\\ufeff\\u00a0😀\""),
        ),
        ("{{ printf \"%+q\" \"😀\" }}", Ok("\"\\U0001f600\"")),
        ("{{ printf \"%q\" 'a' }}", Ok("'a'")),
        ("{{ printf \"%v\" 1e100 }}", Ok("1e+100")),
        (
            "{{ printf \"%f\" 1e100 }}",
            Ok(
                "10000000000000000159028911097599180468360808563945281389781327557747838772170381060813469985856815104.000000",
            ),
        ),
        ("{{ printf \"%.2f\" -0.001 }}", Ok("-0.00")),
        ("{{ printf \"%5.1f|\" -0.04 }}", Ok(" -0.0|")),
        ("{{ printf \"%g\" 123456789.0 }}", Ok("1.23456789e+08")),
        ("{{ printf \"%G\" 1e-10 }}", Ok("1E-10")),
        ("{{ printf \"%e\" 1e100 }}", Ok("1.000000e+100")),
        ("{{ printf .Cluster.metadata.name }}", Ok("dev-1")),
        (
            "{{ printf \"%s=%v\" \"a\" .Cluster.spec.replicas }}",
            Ok("a=3"),
        ),
        (
            "{{ printf \"%s\" .Cluster.spec.replicas }}",
            Ok("%!s(int64=3)"),
        ),
        (
            "{{ printf \"%d\" .Cluster.spec.ratio }}",
            Ok("%!d(float64=0.5)"),
        ),
        (
            "{{ printf \"%v\" .Cluster.spec.nul }}|{{ printf \"%d\" .Cluster.spec.nul }}",
            Ok("<nil>|%!d(<nil>)"),
        ),
        (
            "{{ printf \"%s\" .Cluster.metadata.labels }}|{{ printf \"%d\" .Cluster.metadata.labels }}",
            Ok(
                "map[env:prod region:eu-West]|map[%!d(string=env):%!d(string=prod) %!d(string=region):%!d(string=eu-West)]",
            ),
        ),
        (
            "{{ printf \"%5v|\" .Cluster.spec.clusterNetwork.pods.cidrBlocks }}",
            Ok("[10.0.0.0/16 10.1.0.0/16]|"),
        ),
        (
            "{{ printf \"%x\" .Cluster.spec.huge }}",
            Ok("2bdc545d6b4b87"),
        ),
        (
            "{{ printf }}",
            Err((3, "wrong number of args for printf: want at least 1 got 0")),
        ),
        ("{{ printf \"%*d\" 1.5 2 }}", Ok("%!(BADWIDTH)2")),
        (
            "{{ print 1 2 \"a\" \"b\" 3 }}|{{ println 1 2 \"a\" \"b\" 3 }}|",
            Ok("1 2ab3|1 2 a b 3\n|"),
        ),
        (
            "{{ print \"a\" 1 }}|{{ println \"a\" 1 }}|",
            Ok("a1|a 1\n|"),
        ),
        (
            "{{ print 1 \"a\" }}|{{ println 1 \"a\" }}|",
            Ok("1a|1 a\n|"),
        ),
        ("{{ print 1 2 }}|{{ println 1 2 }}|", Ok("1 2|1 2\n|")),
        (
            "{{ print 1.5 2 }}|{{ println 1.5 2 }}|",
            Ok("1.5 2|1.5 2\n|"),
        ),
        (
            "{{ print true false }}|{{ println true false }}|",
            Ok("true false|true false\n|"),
        ),
        (
            "{{ print nil nil }}|{{ println nil nil }}|",
            Ok("<nil> <nil>|<nil> <nil>\n|"),
        ),
        (
            "{{ print nil 1 }}|{{ println nil 1 }}|",
            Ok("<nil> 1|<nil> 1\n|"),
        ),
        (
            "{{ print \"a\" \"b\" }}|{{ println \"a\" \"b\" }}|",
            Ok("ab|a b\n|"),
        ),
        (
            "{{ print .Cluster.spec.nul 1 }}|{{ println .Cluster.spec.nul 1 }}|",
            Ok("<nil> 1|<nil> 1\n|"),
        ),
        (
            "{{ print .Cluster.metadata.labels 1 }}|{{ println .Cluster.metadata.labels 1 }}|",
            Ok("map[env:prod region:eu-West] 1|map[env:prod region:eu-West] 1\n|"),
        ),
        ("{{ print \"\" }}|{{ println \"\" }}|", Ok("|\n|")),
        ("{{ print  }}|{{ println  }}|", Ok("|\n|")),
        ("{{ and 1 \"x\" }}", Ok("x")),
        ("{{ or \"\" 0 }}", Ok("0")),
        ("{{ and 0 \"x\" }}", Ok("0")),
        ("{{ or 0 \"\" nil }}", Ok("<no value>")),
        (
            "{{ and }}",
            Err((3, "wrong number of args for and: want at least 1 got 0")),
        ),
        (
            "{{ or }}",
            Err((3, "wrong number of args for or: want at least 1 got 0")),
        ),
        ("{{ and nil 1 }}", Ok("<no value>")),
        ("{{ or nil }}", Ok("<no value>")),
        ("{{ 1 | and 2 }}", Ok("1")),
        ("{{ 0 | and 2 }}", Ok("0")),
        ("{{ \"\" | or 0 }}", Ok("")),
        ("{{ \"a\" | or 0 }}", Ok("a")),
        ("{{ and 1 | printf \"%v\" }}", Ok("1")),
        (
            "{{ or .Cluster.spec.zero .Cluster.spec.nul }}",
            Ok("<no value>"),
        ),
        ("{{ and .Cluster.spec.paused .nope }}", Ok("false")),
        ("{{ or 1 .nope }}", Ok("1")),
        (
            "{{ and 1 .nope }}",
            Err((9, "map has no entry for key \"nope\"")),
        ),
        ("{{ and 1 2 3 }}", Ok("3")),
        ("{{ or 0 0.0 \"\" \"z\" }}", Ok("z")),
        ("{{ and 1.0 \"a\" true }}", Ok("true")),
        ("{{ not 0 }}", Ok("true")),
        ("{{ not 1 }}", Ok("false")),
        ("{{ not \"\" }}", Ok("true")),
        ("{{ not nil }}", Ok("true")),
        ("{{ not .Cluster.spec.emptyMap }}", Ok("true")),
        (
            "{{ not 1 2 }}",
            Err((3, "wrong number of args for not: want 1 got 2")),
        ),
        (
            "{{ not }}",
            Err((3, "wrong number of args for not: want 1 got 0")),
        ),
        ("{{ len \"héllo\" }}", Ok("6")),
        ("{{ len .Cluster.metadata.labels }}", Ok("2")),
        (
            "{{ len .Cluster.spec.nul }}",
            Err((3, "error calling len: len of nil pointer")),
        ),
        (
            "{{ len 1.5 }}",
            Err((3, "error calling len: len of type float64")),
        ),
        (
            "{{ len true }}",
            Err((3, "error calling len: len of type bool")),
        ),
        (
            "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 5 }}",
            Err((3, "error calling index: index out of range: 5")),
        ),
        (
            "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks -1 }}",
            Err((3, "error calling index: index out of range: -1")),
        ),
        (
            "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 2 }}",
            Err((3, "error calling index: reflect: slice index out of range")),
        ),
        (
            "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks \"1\" }}",
            Err((
                3,
                "error calling index: cannot index slice/array with type string",
            )),
        ),
        (
            "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 1.0 }}",
            Err((
                3,
                "error calling index: cannot index slice/array with type float64",
            )),
        ),
        (
            "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks nil }}",
            Err((3, "error calling index: cannot index slice/array with nil")),
        ),
        (
            "{{ index .Cluster \"metadata\" \"labels\" \"env\" }}",
            Ok("prod"),
        ),
        (
            "{{ index .Cluster \"nope\" \"x\" }}",
            Err((3, "error calling index: index of nil pointer")),
        ),
        (
            "{{ index .Cluster nil }}",
            Err((
                3,
                "error calling index: value is nil; should be of type string",
            )),
        ),
        ("{{ index \"abc\" 1 }}", Ok("98")),
        (
            "{{ index \"abc\" 3 }}",
            Err((3, "error calling index: reflect: string index out of range")),
        ),
        (
            "{{ index nil 1 }}",
            Err((3, "error calling index: index of untyped nil")),
        ),
        (
            "{{ index .Cluster.spec.nul 1 }}",
            Err((3, "error calling index: index of untyped nil")),
        ),
        (
            "{{ index .Cluster }}",
            Ok(
                "map[apiVersion:cluster.x-k8s.io/v1beta1 kind:Cluster metadata:map[annotations:map[note:a \"quoted\" <b>&] labels:map[env:prod region:eu-West] name:dev-1 namespace:tenant-a] spec:map[big:1000000 bigf:1e+06 clusterNetwork:map[pods:map[cidrBlocks:[10.0.0.0/16 10.1.0.0/16]]] empty: emptyList:[] emptyMap:map[] huge:12345678901234567 nul:<nil> paused:false ratio:0.5 replicas:3 zero:0]]",
            ),
        ),
        (
            "{{ index }}",
            Err((3, "wrong number of args for index: want at least 1 got 0")),
        ),
        (
            "{{ index .Cluster.metadata.labels \"nope\" | printf \"%v\" }}",
            Ok("<nil>"),
        ),
        (
            "{{ index .Cluster \"metadata\" \"nope\" \"x\" }}",
            Err((3, "error calling index: index of nil pointer")),
        ),
        ("{{ index .Cluster.spec.replicas }}", Ok("3")),
        (
            "{{ index .Cluster.spec.emptyList 0 }}",
            Err((3, "error calling index: reflect: slice index out of range")),
        ),
        ("{{ eq 1 1 }}", Ok("true")),
        ("{{ eq 1 2 1 }}", Ok("true")),
        ("{{ eq \"a\" \"b\" \"a\" }}", Ok("true")),
        (
            "{{ eq 1 }}",
            Err((3, "error calling eq: missing argument for comparison")),
        ),
        (
            "{{ eq }}",
            Err((3, "wrong number of args for eq: want at least 1 got 0")),
        ),
        ("{{ eq 1.5 1.5 }}", Ok("true")),
        ("{{ eq true true }}", Ok("true")),
        ("{{ eq nil nil }}", Ok("true")),
        ("{{ eq .Cluster.spec.nul nil }}", Ok("true")),
        ("{{ eq nil 1 }}", Ok("false")),
        ("{{ eq 1 nil }}", Ok("false")),
        ("{{ eq .Cluster.spec.nul .Cluster.spec.nul }}", Ok("true")),
        ("{{ eq .Cluster.spec.nul 1 }}", Ok("false")),
        (
            "{{ eq .Cluster.metadata.labels .Cluster.metadata.labels }}",
            Err((
                3,
                "error calling eq: non-comparable type map[env:prod region:eu-West]: map[string]interface {}",
            )),
        ),
        ("{{ eq .Cluster.spec.emptyList nil }}", Ok("false")),
        ("{{ eq 1 1 \"x\" }}", Ok("true")),
        ("{{ ne 1 2 }}", Ok("true")),
        (
            "{{ ne 1 2 3 }}",
            Err((3, "wrong number of args for ne: want 2 got 3")),
        ),
        ("{{ ne nil nil }}", Ok("false")),
        ("{{ lt 1 2 }}", Ok("true")),
        ("{{ lt 2 1 }}", Ok("false")),
        ("{{ lt \"a\" \"b\" }}", Ok("true")),
        ("{{ lt 1.5 2.5 }}", Ok("true")),
        (
            "{{ lt true false }}",
            Err((3, "error calling lt: invalid type for comparison")),
        ),
        (
            "{{ lt nil 1 }}",
            Err((3, "error calling lt: invalid type for comparison")),
        ),
        (
            "{{ lt 1 nil }}",
            Err((3, "error calling lt: invalid type for comparison")),
        ),
        (
            "{{ lt 1 }}",
            Err((3, "wrong number of args for lt: want 2 got 1")),
        ),
        (
            "{{ lt 1 2 3 }}",
            Err((3, "wrong number of args for lt: want 2 got 3")),
        ),
        ("{{ le 1 1 }}", Ok("true")),
        ("{{ le 2 1 }}", Ok("false")),
        ("{{ gt 2 1 }}", Ok("true")),
        ("{{ gt 1 1 }}", Ok("false")),
        ("{{ gt \"b\" \"a\" }}", Ok("true")),
        ("{{ ge 1 1 }}", Ok("true")),
        ("{{ ge 0 1 }}", Ok("false")),
        (
            "{{ gt true true }}",
            Err((3, "error calling gt: invalid type for comparison")),
        ),
        (
            "{{ le true true }}",
            Err((3, "error calling le: invalid type for comparison")),
        ),
        (
            "{{ le nil nil }}",
            Err((3, "error calling le: invalid type for comparison")),
        ),
        ("{{ eq .Cluster.spec.replicas 3 }}", Ok("true")),
        ("{{ eq .Cluster.spec.ratio 0.5 }}", Ok("true")),
        (
            "{{ lt .Cluster.spec.replicas 3.5 }}",
            Err((
                3,
                "error calling lt: incompatible types for comparison: int64 and float64",
            )),
        ),
        (
            "{{ eq .Cluster.spec.replicas .Cluster.spec.ratio }}",
            Err((
                3,
                "error calling eq: incompatible types for comparison: int64 and float64",
            )),
        ),
        (
            "{{ eq \"a\" .Cluster.spec.replicas }}",
            Err((
                3,
                "error calling eq: incompatible types for comparison: string and int64",
            )),
        ),
        (
            "{{ lt .Cluster.metadata.labels 1 }}",
            Err((3, "error calling lt: invalid type for comparison")),
        ),
        (
            "{{ html \"<a href=\\\"x\\\">'&'</a>\u{0}\" }}",
            Ok("&lt;a href=&#34;x&#34;&gt;&#39;&amp;&#39;&lt;/a&gt;�"),
        ),
        ("{{ html 1 \"a\" 2 }}", Ok("1a2")),
        ("{{ html nil }}", Ok("&lt;no value&gt;")),
        ("{{ html }}", Ok("")),
        ("{{ html .Cluster.spec.nul }}", Ok("&lt;no value&gt;")),
        (
            "{{ js \"a'b\\\"c\\\\<>&= \\t\\n\u{1}é\u{2028}\u{ad}☃\" }}",
            Ok("a\\'b\\\"c\\\\\\u003C\\u003E\\u0026\\u003D \\u0009\\u000A\\u0001é\\u2028\\u00AD☃"),
        ),
        ("{{ js 1 2 }}", Ok("1 2")),
        (
            "{{ urlquery \"a b&c=d/é?~-_.\" }}",
            Ok("a+b%26c%3Dd%2F%C3%A9%3F~-_."),
        ),
        ("{{ urlquery 1 \"x\" }}", Ok("1x")),
        ("{{ urlquery }}", Ok("")),
        ("{{ js }}", Ok("")),
        ("{{ urlquery nil }}", Ok("%3Cno+value%3E")),
        ("{{ .Cluster.spec.replicas | eq 3 }}", Ok("true")),
        ("{{ nil }}", Err((3, "nil is not a command"))),
        (
            "{{ .Cluster.spec.nul.x.y }}",
            Err((11, "nil pointer evaluating interface {}.x")),
        ),
        ("{{ (.Cluster.metadata).labels.env }}", Ok("prod")),
        (
            "{{ $x := .Cluster.metadata }}{{ $x.nope }}",
            Err((34, "map has no entry for key \"nope\"")),
        ),
        (
            "{{ .Cluster.metadata.labels.env.x }}",
            Err((11, "can't evaluate field x in type interface {}")),
        ),
        ("{{ \"a\" | len }}", Ok("1")),
        (
            "{{ len \"a\" \"b\" }}",
            Err((3, "wrong number of args for len: want 1 got 2")),
        ),
        (
            "{{ 1 | not 2 }}",
            Err((7, "wrong number of args for not: want 1 got 2")),
        ),
    ]);
}

/// Go names an integer literal of the template (and `len`'s result) `int`,
/// and an integer of the data `int64`: so do type errors, bad verbs and
/// `%T` here.
#[test]
fn literal_integers_are_named_int() {
    check(&[
        ("{{ printf \"%t\" 1 }}", Ok("%!t(int=1)")),
        ("{{ printf \"%s\" 5 }}", Ok("%!s(int=5)")),
        ("{{ printf \"%z\" 1 }}", Ok("%!z(int=1)")),
        ("{{ printf \"%!\" 1 }}", Ok("%!!(int=1)")),
        ("{{ printf \"%\" 1 }}", Ok("%!(NOVERB)%!(EXTRA int=1)")),
        ("{{ printf \"%d\" 1 2 }}", Ok("1%!(EXTRA int=2)")),
        (
            "{{ printf \"%T %T %T\" 1 \"a\" 1.0 }}",
            Ok("int string float64"),
        ),
        (
            "{{ len 3 }}",
            Err((3, "error calling len: len of type int")),
        ),
        (
            "{{ index .Cluster 1 }}",
            Err((
                3,
                "error calling index: value has type int; should be string",
            )),
        ),
        (
            "{{ index 5 1 }}",
            Err((3, "error calling index: can't index item of type int")),
        ),
        (
            "{{ eq 1 1.0 }}",
            Err((
                3,
                "error calling eq: incompatible types for comparison: int and float64",
            )),
        ),
        (
            "{{ eq 1 \"1\" }}",
            Err((
                3,
                "error calling eq: incompatible types for comparison: int and string",
            )),
        ),
        (
            "{{ eq true 1 }}",
            Err((
                3,
                "error calling eq: incompatible types for comparison: bool and int",
            )),
        ),
        (
            "{{ eq 1 2 \"x\" }}",
            Err((
                3,
                "error calling eq: incompatible types for comparison: int and string",
            )),
        ),
        (
            "{{ ne 1 \"a\" }}",
            Err((
                3,
                "error calling ne: incompatible types for comparison: int and string",
            )),
        ),
        (
            "{{ lt 1 1.5 }}",
            Err((
                3,
                "error calling lt: incompatible types for comparison: int and float64",
            )),
        ),
        (
            "{{ le 1 \"a\" }}",
            Err((
                3,
                "error calling le: incompatible types for comparison: int and string",
            )),
        ),
        (
            "{{ ge 1 1.0 }}",
            Err((
                3,
                "error calling ge: incompatible types for comparison: int and float64",
            )),
        ),
        (
            "{{ eq .Cluster.metadata.labels 1 }}",
            Err((
                3,
                "error calling eq: incompatible types for comparison: map[string]interface {} and int",
            )),
        ),
    ]);
}

#[test]
fn edge_cases_print_as_go_prints_them() {
    check(&[
        ("{{ printf \"%-8q|\" \"é\" }}", Ok("\"é\"     |")),
        ("{{ printf \"%8s|\" \"héllo\" }}", Ok("   héllo|")),
        ("{{ printf \"%#o %#o\" 0 8 }}", Ok("0 010")),
        ("{{ printf \"%#x\" -255 }}", Ok("-0xff")),
        ("{{ printf \"%#X\" 255 }}", Ok("0XFF")),
        ("{{ printf \"%+.3e\" 12345.678 }}", Ok("+1.235e+04")),
        ("{{ printf \"%.20g\" 0.1 }}", Ok("0.10000000000000000555")),
        ("{{ printf \"%.3g\" 1234567.0 }}", Ok("1.23e+06")),
        ("{{ printf \"%.10g\" 1234567.0 }}", Ok("1234567")),
        ("{{ printf \"%g\" 1e-5 }}", Ok("1e-05")),
        ("{{ printf \"%g\" 0.0001 }}", Ok("0.0001")),
        ("{{ printf \"%08.3f\" -3.5 }}", Ok("-003.500")),
        ("{{ printf \"%+08d\" -5 }}", Ok("-0000005")),
        ("{{ printf \"% 08d\" 5 }}", Ok(" 0000005")),
        ("{{ printf \"% x\" -255 }}", Ok("-ff")),
        ("{{ printf \"%6.3v|\" \"abcdef\" }}", Ok("   abc|")),
        ("{{ printf \"%x\" \"\" }}", Ok("")),
        ("{{ printf \"%5x|\" \"\" }}", Ok("     |")),
        (
            "{{ printf \"%v %.1f %e\" 1e21 1e21 1e21 }}",
            Ok("1e+21 1000000000000000000000.0 1.000000e+21"),
        ),
        ("{{ printf \"%.0g\" 123.0 }}", Ok("1e+02")),
        ("{{ printf \"%#.0g\" 123.0 }}", Ok("1.e+02")),
        ("{{ printf \"%#g\" 123456789.0 }}", Ok("1.23456789e+08")),
        ("{{ printf \"%#e\" 1.0 }}", Ok("1.000000e+00")),
        ("{{ printf \"%#v\" 1e21 }}", Ok("1e+21")),
        ("{{ printf \"%#v\" 0.000001 }}", Ok("1e-06")),
        ("{{ printf \"%.3f\" 2.0005 }}", Ok("2.001")),
        ("{{ printf \"%.2f\" 1.005 }}", Ok("1.00")),
        ("{{ printf \"%.1f\" 0.25 }}", Ok("0.2")),
        ("{{ printf \"%.1f\" 0.35 }}", Ok("0.3")),
        ("{{ printf \"%5.2f%%\" 99.5 }}", Ok("99.50%")),
        ("{{ printf \"%x\" 3.0 }}", Ok("0x1.8p+01")),
        ("{{ printf \"%.2x\" 1.0 }}", Ok("0x1.00p+00")),
        ("{{ printf \"%X\" -0.5 }}", Ok("-0X1P-01")),
        ("{{ printf \"%b\" -2.5 }}", Ok("-5629499534213120p-51")),
        ("{{ printf \"%e\" 1e-300 }}", Ok("1.000000e-300")),
        ("{{ printf \"%g\" 5e-324 }}", Ok("5e-324")),
        (
            "{{ printf \"%v\" 1.7976931348623157e308 }}",
            Ok("1.7976931348623157e+308"),
        ),
        ("{{ printf \"%.3v\" 1e6 }}", Ok("1e+06")),
        ("{{ printf \"%3c|%-3c|\" 9731 9731 }}", Ok("  ☃|☃  |")),
        ("{{ printf \"%U\" 1114111 }}", Ok("U+10FFFF")),
        ("{{ printf \"%#U\" 10 }}", Ok("U+000A")),
        ("{{ printf \"%.6U\" 65 }}", Ok("U+000041")),
        ("{{ printf \"%q\" 10 }}", Ok("'\\n'")),
        ("{{ printf \"%+q\" 9731 }}", Ok("'\\u2603'")),
        ("{{ printf \"%#q\" 9731 }}", Ok("'☃'")),
        ("{{ printf \"%#+q\" 9731 }}", Ok("'\\u2603'")),
        ("{{ printf \"%x\" \"é\" }}", Ok("c3a9")),
        ("{{ printf \"% X\" \"ab\" }}", Ok("61 62")),
        ("{{ printf \"%s %s\" \"a\" }}", Ok("a %!s(MISSING)")),
        ("{{ printf \"%[1]s %[1]q\" \"x\" }}", Ok("x \"x\"")),
        ("{{ printf \"%[2]*[1]d|\" 5 8 }}", Ok("       5|")),
        ("{{ printf \"%[1]*d\" 1 2 }}", Ok("2")),
        ("{{ printf \"%-+5d|\" 3 }}", Ok("+3   |")),
        ("{{ printf \"%.d\" 5 }}", Ok("5")),
        ("{{ printf \"%.s|\" \"ab\" }}", Ok("|")),
        ("{{ printf \"%#s\" \"a\" }}", Ok("a")),
        ("{{ printf \"%d\" 'x' }}", Ok("120")),
        ("{{ printf \"%v\" '☃' }}", Ok("9731")),
        ("{{ printf \"%[0]d\" 1 }}", Ok("%!d(BADINDEX)")),
        ("{{ printf \"%[1]\" 1 }}", Ok("%!(NOVERB)")),
        ("{{ printf \"%[1]d %d\" 1 2 }}", Ok("1 2")),
        ("{{ printf \"%[2]d %d\" 1 2 3 }}", Ok("2 3")),
        ("{{ printf \"%d %[1]d\" 1 2 }}", Ok("1 1")),
        (
            "{{ range .Cluster.spec.clusterNetwork.pods.cidrBlocks }}{{ .x }}{{ end }}",
            Err((59, "can't evaluate field x in type interface {}")),
        ),
        (
            "{{ with .Cluster.metadata.name }}{{ .x }}{{ end }}",
            Err((36, "can't evaluate field x in type string")),
        ),
        (
            "{{ $n := .Cluster.spec.replicas }}{{ $n.x }}",
            Err((39, "can't evaluate field x in type int64")),
        ),
        (
            "{{ define \"t\" }}{{ .x }}{{ end }}{{ template \"t\" .Cluster.spec.nul }}",
            Err((19, "nil data; no entry for key \"x\"")),
        ),
        (
            "{{ .Cluster.metadata.name 1 }}",
            Err((11, "name is not a method but has arguments")),
        ),
        (
            "{{ 1 2 }}",
            Err((3, "can't give argument to non-function 1")),
        ),
        (
            "{{ \"a\" 2 }}",
            Err((3, "can't give argument to non-function \"a\"")),
        ),
        (
            "{{ . 2 }}",
            Err((3, "can't give argument to non-function .")),
        ),
        (
            "{{ $ 2 }}",
            Err((3, "can't give argument to non-function $")),
        ),
        (
            "{{ 1 | .Cluster.metadata.name }}",
            Err((15, "name is not a method but has arguments")),
        ),
        (
            "{{ $.Cluster.nope }}",
            Err((4, "map has no entry for key \"nope\"")),
        ),
        (
            "{{ $.Cluster.metadata.nope }}",
            Err((4, "map has no entry for key \"nope\"")),
        ),
        (
            "{{ range $k, $v := .Cluster.metadata.labels }}{{ $v.x }}{{ end }}",
            Err((51, "can't evaluate field x in type interface {}")),
        ),
        ("{{ range $i := 2 }}{{ $i }}{{ end }}", Ok("01")),
        (
            "{{ range $i, $v := 3 }}{{ $i }}{{ $v }}{{ end }}",
            Err((19, "can't use 3 to iterate over more than one variable")),
        ),
        (
            "{{ range \"abc\" }}{{ . }}{{ end }}",
            Err((9, "range can't iterate over abc")),
        ),
        (
            "{{ range 1.5 }}{{ . }}{{ end }}",
            Err((9, "range can't iterate over 1.5")),
        ),
        (
            "{{ range true }}{{ . }}{{ end }}",
            Err((9, "range can't iterate over true")),
        ),
        (
            "{{ print .Cluster.spec.ratio .Cluster.spec.bigf .Cluster.spec.huge }}",
            Ok("0.5 1e+06 12345678901234567"),
        ),
        ("{{ println }}", Ok("\n")),
        (
            "{{ printf \"%v\" .Cluster.spec }}",
            Ok(
                "map[big:1000000 bigf:1e+06 clusterNetwork:map[pods:map[cidrBlocks:[10.0.0.0/16 10.1.0.0/16]]] empty: emptyList:[] emptyMap:map[] huge:12345678901234567 nul:<nil> paused:false ratio:0.5 replicas:3 zero:0]",
            ),
        ),
        (
            "{{ printf \"%5.1f|%-7v|\" .Cluster.spec.ratio .Cluster.spec.paused }}",
            Ok("  0.5|false  |"),
        ),
        (
            "{{ eq .Cluster.spec.emptyMap .Cluster.spec.emptyList }}",
            Err((
                3,
                "error calling eq: non-comparable types map[]: map[string]interface {}, []interface {}: []",
            )),
        ),
        (
            "{{ eq .Cluster.spec.clusterNetwork.pods.cidrBlocks .Cluster.metadata.labels }}",
            Err((
                3,
                "error calling eq: non-comparable types [10.0.0.0/16 10.1.0.0/16]: []interface {}, map[string]interface {}: map[env:prod region:eu-West]",
            )),
        ),
        (
            "{{ eq .Cluster.spec.nul .Cluster.spec.emptyList }}",
            Ok("false"),
        ),
        ("{{ ne .Cluster.spec.nul 0 }}", Ok("true")),
        (
            "{{ index .Cluster.metadata.labels \"env\" \"x\" }}",
            Err((
                3,
                "error calling index: cannot index slice/array with type string",
            )),
        ),
        (
            "{{ index .Cluster.metadata.name 0 0 }}",
            Err((3, "error calling index: can't index item of type uint8")),
        ),
        (
            "{{ index .Cluster.spec.clusterNetwork.pods.cidrBlocks 0 1 }}",
            Ok("48"),
        ),
        ("{{ len .Cluster.metadata }}{{ len .Template }}", Ok("424")),
        (
            "{{ and .Cluster.spec.emptyMap 1 | printf \"%v\" }}",
            Ok("map[]"),
        ),
        ("{{ or 0 | printf \"%v\" }}", Ok("0")),
        ("{{ if and 1 0 }}y{{ else }}n{{ end }}", Ok("n")),
        (
            "{{ if or 0 \"\" (index .Cluster \"nope\") }}y{{ else }}n{{ end }}",
            Ok("n"),
        ),
        ("{{ html \"a\" \"b\" }}", Ok("ab")),
        ("{{ html .Cluster.spec.replicas }}", Ok("3")),
        (
            "{{ js .Cluster.metadata.labels }}",
            Ok("map[env:prod region:eu-West]"),
        ),
        ("{{ urlquery .Cluster.spec.ratio \"&\" }}", Ok("0.5%26")),
        ("{{ html \"a\" nil \"b\" }}", Ok("a&lt;no value&gt;b")),
        ("{{ js nil 1 }}", Ok("\\u003Cno value\\u003E1")),
        ("{{ print nil \"a\" }}", Ok("<nil>a")),
        ("{{ not .Cluster.spec.nul }}", Ok("true")),
        ("{{ not (index .Cluster \"x\") }}", Ok("true")),
        ("{{ .Cluster.spec.nul }}", Ok("<no value>")),
        ("{{ index .Cluster.spec \"nul\" }}", Ok("<no value>")),
        ("{{ printf \"%d\" }}", Ok("%!d(MISSING)")),
        (
            "{{ printf \"%s\" (index .Cluster \"x\") }}",
            Ok("%!s(<nil>)"),
        ),
    ]);
}

#[test]
fn more_literal_integers_are_named_int() {
    check(&[
        ("{{ printf \"%1.1.1d\" 3 }}", Ok("%!.(int=3)1d")),
        ("{{ printf \"%.\" 1 }}", Ok("%!.(int=1)")),
        (
            "{{ range $i, $v := .Cluster.spec.clusterNetwork.pods.cidrBlocks }}{{ $i.x }}{{ end }}",
            Err((71, "can't evaluate field x in type int")),
        ),
        (
            "{{ range 2 }}{{ .x }}{{ end }}",
            Err((16, "can't evaluate field x in type int")),
        ),
    ]);
}

#[test]
fn printing_is_bounded_by_the_output_limit() {
    let small = Limits {
        output: 100,
        ..Limits::default()
    };
    let data = data();
    let e = render("{{ printf \"%200d\" 1 }}", &data, small).unwrap_err();
    assert_eq!(
        e.message,
        "error calling printf: width or precision 200 is more than the output limit of 100 bytes"
    );
    let e = render("{{ printf \"%.*f\" 1000 1.5 }}", &data, small).unwrap_err();
    assert!(e.message.contains("precision 1000"), "{e}");
    let e = render("{{ printf \"%50d%60d\" 1 2 }}", &data, small).unwrap_err();
    assert_eq!(
        e.message,
        "error calling printf: output longer than 100 bytes"
    );
    let e = render("{{ print .Cluster }}", &data, small).unwrap_err();
    assert_eq!(
        e.message,
        "error calling print: output longer than 100 bytes"
    );
    let e = render("{{ .Cluster }}", &data, small).unwrap_err();
    assert_eq!(e.message, "output longer than 100 bytes");
}

#[test]
fn a_value_nested_too_deep_is_refused_not_recursed_into() {
    let mut deep = Value::Int(1);
    for _ in 0..super::fmt::MAX_DEPTH + 5 {
        deep = Value::List(vec![deep]);
    }
    let e = super::fmt::sprint(std::slice::from_ref(&deep), 1 << 20).unwrap_err();
    assert_eq!(e, "a value nested deeper than 1000");
}
