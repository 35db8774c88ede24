//! Masterminds/semver's own test tables (`constraints_test.go` and
//! `version_test.go` at commit 71f2b39), row for row, then hmc's use of
//! them: Kubernetes versions and the constraints ServiceTemplates state.

use super::*;
use proptest::prelude::*;

fn version(text: &str) -> Version {
    Version::parse(text).unwrap_or_else(|e| panic!("{text:?} is a version: {e}"))
}

fn constraint(text: &str) -> Constraint {
    Constraint::parse(text).unwrap_or_else(|e| panic!("{text:?} is a constraint: {e}"))
}

/// Masterminds' `parseConstraint`: one comparison alone, with its special
/// case of the empty text (any release).
fn comparison(text: &str) -> Result<Comparison, ConstraintError> {
    if text.is_empty() {
        return Ok(Comparison {
            op: Op::Equal,
            version: version("0.0.0"),
            dirty: true,
            minor_dirty: false,
            patch_dirty: false,
        });
    }
    let b = text.as_bytes();
    let (op, scanned) = op_and_version(b, skip_space(b, 0))
        .filter(|(_, s)| skip_space(b, s.end) == b.len())
        .ok_or_else(|| ConstraintError::Improper(text.to_string()))?;
    Comparison::new(op, text, &scanned)
}

/// Rows of (constraint, version, expected) checked with or without
/// Masterminds' `IncludePrerelease`.
fn check_rows(rows: &[(&str, &str, bool)], include_prereleases: bool) {
    for &(c, v, expected) in rows {
        assert_eq!(
            constraint(c).check(&version(v), include_prereleases),
            expected,
            "{c:?} against {v:?}"
        );
    }
}

// ---- constraints_test.go ------------------------------------------------

#[test]
fn masterminds_parse_constraint() {
    for &(text, expected) in PARSE_CONSTRAINT {
        let got = comparison(text).ok().map(|c| (c.op, c.version.to_string()));
        assert_eq!(got, expected.map(|(op, v)| (op, v.to_string())), "{text:?}");
    }
}

#[test]
fn masterminds_constraint_check() {
    for &(c, v, expected) in CONSTRAINT_CHECK {
        let c_ = comparison(c).unwrap_or_else(|e| panic!("{c:?}: {e}"));
        let include = !c_.version.pre.is_empty();
        assert_eq!(
            c_.admits(&version(v), include),
            expected,
            "{c:?} against {v:?}"
        );
    }
}

#[test]
fn masterminds_new_constraint() {
    for &(text, expected) in NEW_CONSTRAINT {
        let got = Constraint::parse(text)
            .ok()
            .map(|c| (c.alternatives.len(), c.alternatives[0].comparisons.len()));
        assert_eq!(got, expected, "{text:?}");
    }
}

#[test]
fn masterminds_constraints_check() {
    check_rows(CONSTRAINTS_CHECK, false);
}

#[test]
fn masterminds_constraints_check_include_prerelease() {
    check_rows(CONSTRAINTS_CHECK_INCLUDE_PRERELEASE, true);
}

#[test]
fn masterminds_constraints_validate() {
    check_rows(CONSTRAINTS_VALIDATE, false);
    for &(c, v) in CONSTRAINTS_VALIDATE_FAILURES {
        assert!(!constraint(c).matches(&version(v)), "{c:?} against {v:?}");
    }
    assert!(!constraint("!= 1.2.5, ^2, <= 1.1.x").matches(&version("1.2.3")));
}

#[test]
fn masterminds_constraints_validate_include_prerelease() {
    check_rows(CONSTRAINTS_VALIDATE_INCLUDE_PRERELEASE, true);
    for &(c, v) in CONSTRAINTS_VALIDATE_INCLUDE_PRERELEASE_FAILURES {
        assert!(
            !constraint(c).check(&version(v), true),
            "{c:?} against {v:?}"
        );
    }
    assert!(!constraint("!= 1.2.5, ^2, <= 1.1.x").check(&version("1.2.3"), true));
}

#[test]
fn masterminds_rewrite_range() {
    for &(text, expected) in REWRITE_RANGE {
        assert_eq!(rewrite_ranges(text), expected, "{text:?}");
    }
}

#[test]
fn masterminds_is_x() {
    for &(text, expected) in IS_X {
        assert_eq!(is_x(text), expected, "{text:?}");
    }
}

#[test]
fn masterminds_rendered_constraints_parse() {
    for &(text, rendered) in RENDERED {
        constraint(text);
        constraint(rendered);
    }
}

#[test]
fn masterminds_fuzz_seeds_do_not_panic() {
    for text in FUZZ_SEEDS {
        let _ = Constraint::parse(text);
        let _ = Version::parse(text);
    }
}

// ---- version_test.go ----------------------------------------------------

#[test]
fn masterminds_new_version() {
    for &(text, ok) in NEW_VERSION {
        assert_eq!(Version::parse(text).is_ok(), ok, "{text:?}");
    }
}

#[test]
fn masterminds_coerce_string() {
    for &(text, expected) in COERCE_STRING {
        assert_eq!(version(text).to_string(), expected, "{text:?}");
    }
}

#[test]
fn masterminds_compare() {
    for &(a, b, expected) in COMPARE {
        assert_eq!(
            version(a).precedence(&version(b)),
            expected,
            "{a:?} vs {b:?}"
        );
    }
    let by = |rows: &[(&str, &str, bool)], f: fn(Ordering) -> bool| {
        for &(a, b, expected) in rows {
            assert_eq!(
                f(version(a).precedence(&version(b))),
                expected,
                "{a:?} vs {b:?}"
            );
        }
    };
    by(LESS_THAN, Ordering::is_lt);
    by(LESS_THAN_EQUAL, Ordering::is_le);
    by(GREATER_THAN, Ordering::is_gt);
    by(GREATER_THAN_EQUAL, Ordering::is_ge);
    // TestEqual, less its nil rows.
    for (a, b, expected) in [
        ("1.2.3", "1.5.1", false),
        ("2.2.3", "1.5.1", false),
        ("3.2-beta", "3.2-beta", true),
        ("3.2-beta+foo", "3.2-beta+bar", true),
    ] {
        assert_eq!(
            version(a).precedence(&version(b)).is_eq(),
            expected,
            "{a:?} vs {b:?}"
        );
    }
}

#[test]
fn masterminds_parts() {
    let v = version("1.2.3-beta.1+build.123");
    assert_eq!((v.major(), v.minor(), v.patch()), (1, 2, 3));
    assert_eq!((v.pre(), v.metadata()), ("beta.1", "build.123"));
}

#[test]
fn masterminds_validate_prerelease_and_metadata() {
    for &(pre, ok) in VALIDATE_PRERELEASE {
        assert_eq!(
            Version::parse(&format!("1.2.3-{pre}")).is_ok(),
            ok,
            "{pre:?}"
        );
    }
    for &(meta, ok) in VALIDATE_METADATA {
        assert_eq!(
            Version::parse(&format!("1.2.3+{meta}")).is_ok(),
            ok,
            "{meta:?}"
        );
    }
}

// ---- hmc's use: Kubernetes versions and ServiceTemplate constraints ------

#[test]
fn kubernetes_versions_as_distributions_state_them() {
    let k0s = version("v1.30.2+k0s.0");
    assert_eq!(k0s.to_string(), "1.30.2+k0s.0");
    assert_eq!((k0s.pre(), k0s.metadata()), ("", "k0s.0"));
    assert_eq!(version("v1.29.3+k3s1").to_string(), "1.29.3+k3s1");
    assert_eq!(version("1.30").to_string(), "1.30.0");
    assert_eq!(version("v1").to_string(), "1.0.0");
    assert_eq!(version("1.029.03").to_string(), "1.29.3");
    assert_eq!(version("v1.31.0-rc.1").pre(), "rc.1");
    // Build metadata does not count: k0s, k3s and a bare version are equal.
    assert!(k0s.precedence(&version("1.30.2")).is_eq());
    assert!(k0s.precedence(&version("v1.30.2+k3s1")).is_eq());
    assert!(version("1.30.2-rc.0").precedence(&k0s).is_lt());
    for refused in [
        "",
        "V1.29",
        " 1.29",
        "1.29 ",
        "latest",
        "1.2.3.4",
        "1.29.x",
        "1.29.*",
        "v",
        "1.",
        "1..2",
        "1.2.3-",
        "1.2.3+",
        "1.2.3-01",
        "-1.2",
        "+1.2",
        "1.2.3_k0s",
        "１.２",
        "18446744073709551616.0.0",
    ] {
        assert!(Version::parse(refused).is_err(), "{refused:?}");
    }
    assert_eq!(
        Version::parse("18446744073709551616")
            .unwrap_err()
            .to_string(),
        "18446744073709551616 does not fit in 64 bits"
    );
    assert_eq!(version("18446744073709551615").major(), u64::MAX);
}

/// The examples the error messages give, and what they admit.
#[test]
fn constraints_as_hmc_checks_them() {
    let rows: &[(&str, &[&str], &[&str])] = &[
        (
            ">=1.30",
            &["1.30.0", "v1.30.2+k0s.0", "2.0.0"],
            &["1.29.9", "v1.31.0-rc.1"],
        ),
        (
            "1.29",
            &["1.29.0", "v1.29.3+k3s1"],
            &["1.30.0", "1.28.9", "1.29.1-rc.1"],
        ),
        (">=1.28 <1.31", &["1.28.0", "1.30.9"], &["1.31.0", "1.27.5"]),
        (
            ">=1.28, <1.31",
            &["1.28.0", "1.30.9"],
            &["1.31.0", "1.27.5"],
        ),
        ("1.28 - 1.30", &["1.28.0", "1.30.9"], &["1.31.0", "1.27.5"]),
        (
            "^1.29 || ^1.31",
            &["1.29.0", "1.35.1"],
            &["1.28.0", "2.0.0"],
        ),
        (
            "~1.29 || ~1.31",
            &["1.29.4", "1.31.0"],
            &["1.30.0", "1.32.0"],
        ),
        ("1.29.x || 1.31.x", &["1.29.4", "1.31.0"], &["1.30.0"]),
        (
            "!=1.30.1 >=1.30",
            &["1.30.0", "1.30.2"],
            &["1.30.1", "1.29.0"],
        ),
        (">1.29", &["1.30.0"], &["1.29.9"]),
        ("<=1.30", &["1.30.9"], &["1.31.0"]),
        (">= v1.28.0+k0s.0", &["1.28.0"], &["1.27.9"]),
        // Masterminds' own reading, whatever its comments say: `^*` is
        // `^0.0.0`, and a wildcard major ignores the rest.
        ("^*", &["0.0.0"], &["0.0.5", "0.5.0", "1.2.3"]),
        ("x.5", &["0.0.0", "7.1.2"], &[]),
        // No spaces around the hyphen: 1.28.x with the pre-release `1.30`.
        ("1.28-1.30", &["1.28.5", "1.28.0-2"], &["1.29.0", "1.30.0"]),
        // Pre-releases only where the alternative states one.
        (
            ">=1.28.0-0",
            &["1.31.0-rc.1", "1.29.3-gke.100", "1.29.3"],
            &["1.27.0"],
        ),
        // 1.31.0-rc.1 comes before 1.31.0, so it is below 1.31.
        (
            ">=1.28.0-0 <1.31",
            &["1.30.0-rc.1", "1.31.0-rc.1"],
            &["1.31.0", "1.27.0-rc.1"],
        ),
        (">=1.28.0-0 || >=1.30", &["1.29.0-rc.1"], &["1.27.0"]),
        (">=1.28", &["1.29.3"], &["1.29.3-gke.100"]),
    ];
    for &(c, admitted, refused) in rows {
        let c_ = constraint(c);
        for v in admitted {
            assert!(c_.matches(&version(v)), "{c:?} admits {v}");
        }
        for v in refused {
            assert!(!c_.matches(&version(v)), "{c:?} refuses {v}");
        }
    }
}

/// What constraints written under Cargo's rules (the `semver` crate) mean
/// now: (constraint, version, admitted now, admitted under Cargo's rules).
#[test]
fn constraints_written_under_cargos_rules() {
    for &(c, v, now, before) in &[
        // A bare version is no longer `^`.
        ("1.29", "1.30.0", false, true),
        ("1.29", "1.29.5", true, true),
        ("1.29.3", "1.29.4", false, true),
        ("1.29.3", "1.29.3", true, true),
        ("1", "1.31.0", true, true),
        // The same meaning.
        (">=1.28, <1.31", "1.30.9", true, true),
        (">=1.28, <1.31", "1.31.0", false, false),
        ("=1.29", "1.29.5", true, true),
        ("=1.29", "1.30.0", false, false),
        ("~1.29", "1.29.5", true, true),
        ("~1.29", "1.30.0", false, false),
        ("^1.29", "1.35.0", true, true),
        ("1.29.*", "1.29.5", true, true),
        ("1.29.*", "1.30.0", false, false),
        (">1.29", "1.29.5", false, false),
        ("<=1.30", "1.30.5", true, true),
        (">=1.30", "1.31.0-rc.1", false, false),
        (">=1.31.0-0", "1.31.0-rc.1", true, true),
        // A stated pre-release admits pre-releases of other versions too.
        (">=1.21.0-0", "1.29.0-rc.1", true, false),
        (">=1.21.0-0", "1.29.3-gke.100", true, false),
    ] {
        let _ = before;
        assert_eq!(constraint(c).matches(&version(v)), now, "{c:?} against {v}");
    }
    // Refused under Cargo's rules, read now.
    for c in [
        ">=1.28 <1.31",
        ">=1.28 || <1.20",
        "1.28 - 1.30",
        "!=1.30.1",
        "=>1.28",
        "=<1.30",
        "~>1.29",
        ">=v1.28",
        "1.x.3",
        "*.1",
        "~*",
        "*-0",
        ">=1.28,\n<1.31",
        ">=1.028",
    ] {
        constraint(c);
    }
}

#[test]
fn constraints_hmc_refuses() {
    for c in [
        "",
        " ",
        "banana",
        "1.2.3 ||| 2",
        "1.2.3 | 2",
        ">=1.28,",
        ",>=1.28",
        ">=1.28,,<1.31",
        ">=1.28 ||",
        "|| >=1.28",
        ">= 1.28 - 1.30",
        "1.2.3.4",
        "1.29x",
        ">=1.x2",
        ">= 1.2.3-01",
        "12.3.34~ 1.2.3",
        "> =1.28",
        "V1.29",
        ">=1.29\u{a0}",
        "\u{b}1.29",
        "1 ||2 - 3",
        ">=18446744073709551616",
    ] {
        assert!(Constraint::parse(c).is_err(), "{c:?}");
    }
    let e = |c: &str| Constraint::parse(c).unwrap_err().to_string();
    assert_eq!(
        e("1.2.3 ||| 2"),
        "\"|\" is not a version: expected one to three numbers such as 1.29 or v1.29.3, \
         then optionally -pre.release and +build"
    );
    assert_eq!(e(">=1.28 ||"), "an alternative (between ||) is empty");
    assert_eq!(
        e(">=1.28 banana"),
        "\">=1.28 banana\" is not comparisons (an operator and a version each) joined by spaces or commas"
    );
    assert_eq!(
        e(">= 1.2.3-01"),
        "\"1.2.3-01\" is not a version: the pre-release number 01 starts with 0"
    );
}

#[test]
fn constraints_are_bounded() {
    let long = format!(">={}", "1".repeat(MAX_CONSTRAINT_BYTES - 2));
    assert!(matches!(
        Constraint::parse(&long),
        Err(ConstraintError::Version { .. })
    ));
    let longer = format!("{long} ");
    assert_eq!(
        Constraint::parse(&longer).unwrap_err().to_string(),
        "it is 1025 bytes long, more than the 1024 read"
    );
    let alternatives = |n: usize| vec!["1"; n].join("||");
    constraint(&alternatives(MAX_ALTERNATIVES));
    assert_eq!(
        Constraint::parse(&alternatives(MAX_ALTERNATIVES + 1)).unwrap_err(),
        ConstraintError::TooManyAlternatives(MAX_ALTERNATIVES + 1)
    );
    let comparisons = |n: usize| vec![">=1"; n].join(" ");
    constraint(&comparisons(MAX_COMPARISONS));
    assert_eq!(
        Constraint::parse(&comparisons(MAX_COMPARISONS + 1)).unwrap_err(),
        ConstraintError::TooManyComparisons
    );
    // A hyphen range is two comparisons.
    let ranges = |n: usize| vec!["1 - 2"; n].join(" || ");
    constraint(&ranges(MAX_COMPARISONS / 2));
    assert_eq!(
        Constraint::parse(&format!("{} 3", ranges(MAX_COMPARISONS / 2))).unwrap_err(),
        ConstraintError::TooManyComparisons
    );
}

proptest! {
    #[test]
    fn any_text_is_read_without_panicking(text in any::<String>()) {
        let _ = Constraint::parse(&text);
        let _ = Version::parse(&text);
    }

    #[test]
    fn constraint_like_text_is_read_without_panicking(
        text in "[ ,|<>=!~^*xXv0-9.+a-z-]{0,40}",
        v in "v?[0-9]{1,3}(\\.[0-9]{1,3}){0,2}(-[a-z0-9.]{1,6})?",
    ) {
        if let (Ok(c), Ok(v)) = (Constraint::parse(&text), Version::parse(&v)) {
            let _ = c.matches(&v);
        }
    }
}

/// `TestParseConstraint`: one comparison, its operator and version (None: refused).
const PARSE_CONSTRAINT: &[(&str, Option<(Op, &str)>)] = &[
    (">= 1.2", Some((Op::GreaterEqual, "1.2.0"))),
    ("1.0", Some((Op::Equal, "1.0.0"))),
    ("foo", None),
    ("<= 1.2", Some((Op::LessEqual, "1.2.0"))),
    ("=< 1.2", Some((Op::LessEqual, "1.2.0"))),
    ("=> 1.2", Some((Op::GreaterEqual, "1.2.0"))),
    ("v1.2", Some((Op::Equal, "1.2.0"))),
    ("=1.5", Some((Op::Equal, "1.5.0"))),
    ("> 1.3", Some((Op::Greater, "1.3.0"))),
    ("< 1.4.1", Some((Op::Less, "1.4.1"))),
    ("< 40.50.10", Some((Op::Less, "40.50.10"))),
];

/// `TestConstraintCheck`: one comparison alone, pre-releases compared when it states one.
const CONSTRAINT_CHECK: &[(&str, &str, bool)] = &[
    ("=2.0.0", "1.2.3", false),
    ("=2.0.0", "2.0.0", true),
    ("=2.0", "1.2.3", false),
    ("=2.0", "2.0.0", true),
    ("=2.0", "2.0.1", true),
    ("4.1", "4.1.0", true),
    ("!=4.1.0", "4.1.0", false),
    ("!=4.1.0", "4.1.1", true),
    ("!=4.1", "4.1.0", false),
    ("!=4.1", "4.1.1", false),
    ("!=4.1", "5.1.0-alpha.1", false),
    ("!=4.1.0", "5.1.0-alpha.1", false),
    ("!=4.1-alpha", "4.1.0", true),
    ("!=4.1", "5.1.0", true),
    ("<11", "0.1.0", true),
    ("<11", "11.1.0", false),
    ("<1.1", "0.1.0", true),
    ("<1.1", "1.1.0", false),
    ("<1.1", "1.1.1", false),
    ("<=11", "1.2.3", true),
    ("<=11", "12.2.3", false),
    ("<=11", "11.2.3", true),
    ("<=1.1", "1.2.3", false),
    ("<=1.1", "0.1.0", true),
    ("<=1.1", "1.1.0", true),
    ("<=1.1", "1.1.1", true),
    (">1.1", "4.1.0", true),
    (">1.1", "1.1.0", false),
    (">0", "0", false),
    (">0", "1", true),
    (">0", "0.0.1-alpha", false),
    (">0.0", "0.0.1-alpha", false),
    (">0-0", "0.0.1-alpha", false),
    (">0.0-0", "0.0.1-alpha", false),
    (">0", "0.0.0-alpha", false),
    (">0-0", "0.0.0-alpha", false),
    (">0.0.0-0", "0.0.0-alpha", true),
    (">1.2.3-alpha.1", "1.2.3-alpha.2", true),
    (">1.2.3-alpha.1", "1.3.3-alpha.2", true),
    (">11", "11.1.0", false),
    (">11.1", "11.1.0", false),
    (">11.1", "11.1.1", false),
    (">11.1", "11.2.1", true),
    (">=11", "11.1.2", true),
    (">=11.1", "11.1.2", true),
    (">=11.1", "11.0.2", false),
    (">=1.1", "4.1.0", true),
    (">=1.1", "1.1.0", true),
    (">=1.1", "0.0.9", false),
    (">=0", "0.0.1-alpha", false),
    (">=0.0", "0.0.1-alpha", false),
    (">=0-0", "0.0.1-alpha", true),
    (">=0.0-0", "0.0.1-alpha", true),
    (">=0", "0.0.0-alpha", false),
    (">=0-0", "0.0.0-alpha", true),
    (">=0.0.0-0", "0.0.0-alpha", true),
    (">=0.0.0-0", "1.2.3", true),
    (">=0.0.0-0", "3.4.5-beta.1", true),
    ("<0", "0.0.0-alpha", false),
    ("<0-z", "0.0.0-alpha", true),
    (">=0", "0", true),
    ("=0", "1", false),
    ("*", "1", true),
    ("*", "4.5.6", true),
    ("*", "1.2.3-alpha.1", false),
    ("*-0", "1.2.3-alpha.1", true),
    ("2.*", "1", false),
    ("2.*", "3.4.5", false),
    ("2.*", "2.1.1", true),
    ("2.1.*", "2.1.1", true),
    ("2.1.*", "2.2.1", false),
    ("", "1", true),
    ("", "4.5.6", true),
    ("", "1.2.3-alpha.1", false),
    ("2", "1", false),
    ("2", "3.4.5", false),
    ("2", "2.1.1", true),
    ("2.1", "2.1.1", true),
    ("2.1", "2.2.1", false),
    ("~1.2.3", "1.2.4", true),
    ("~1.2.3", "1.3.4", false),
    ("~1.2", "1.2.4", true),
    ("~1.2", "1.3.4", false),
    ("~1", "1.2.4", true),
    ("~1", "2.3.4", false),
    ("~0.2.3", "0.2.5", true),
    ("~0.2.3", "0.3.5", false),
    ("~1.2.3-beta.2", "1.2.3-beta.4", true),
    ("~1.2.3-beta.2", "1.2.4-beta.2", true),
    ("~1.2.3-beta.2", "1.3.4-beta.2", false),
    ("^1.2.3", "1.8.9", true),
    ("^1.2.3", "2.8.9", false),
    ("^1.2.3", "1.2.1", false),
    ("^1.1.0", "2.1.0", false),
    ("^1.2.0", "2.2.1", false),
    ("^1.2.0", "1.2.1-alpha.1", false),
    ("^1.2.0-alpha.0", "1.2.1-alpha.1", true),
    ("^1.2.0-alpha.0", "1.2.1-alpha.0", true),
    ("^1.2.0-alpha.2", "1.2.0-alpha.1", false),
    ("^1.2", "1.8.9", true),
    ("^1.2", "2.8.9", false),
    ("^1", "1.8.9", true),
    ("^1", "2.8.9", false),
    ("^0.2.3", "0.2.5", true),
    ("^0.2.3", "0.5.6", false),
    ("^0.2", "0.2.5", true),
    ("^0.2", "0.5.6", false),
    ("^0.0.3", "0.0.3", true),
    ("^0.0.3", "0.0.4", false),
    ("^0.0", "0.0.3", true),
    ("^0.0", "0.1.4", false),
    ("^0.0", "1.0.4", false),
    ("^0", "0.2.3", true),
    ("^0", "1.1.4", false),
    ("^0.2.3-beta.2", "0.2.3-beta.4", true),
    ("^0.2.3-beta.2", "0.2.4-beta.2", true),
    ("^0.2.3-beta.2", "0.3.4-beta.2", false),
    ("^0.2.3-beta.2", "0.2.3-beta.2", true),
];

/// `TestNewConstraint`: alternatives, and comparisons in the first (None: refused).
const NEW_CONSTRAINT: &[(&str, Option<(usize, usize)>)] = &[
    (">= 1.1", Some((1, 1))),
    (">40.50.60, < 50.70", Some((1, 2))),
    ("2.0", Some((1, 1))),
    ("v2.3.5-20161202202307-sha.e8fc5e5", Some((1, 1))),
    ("v1.2.3-0abc", Some((1, 1))),
    ("v1.2.3-beta.01", None),
    (">= bar", None),
    ("BAR >= 1.2.3", None),
    (">= 1.2.3 < 2.0", Some((1, 2))),
    (">= 1.2.3 < 2.0 || => 3.0 < 4", Some((2, 2))),
    (">= 1.2.3, < 2.0", Some((1, 2))),
    (">= 1.2.3, < 2.0 || => 3.0, < 4", Some((2, 2))),
    ("3 - 4 || => 3.0, < 4", Some((2, 2))),
    ("12.3.4.1234", None),
    ("12.23.4.1234", None),
    ("12.3.34.1234", None),
    ("12.3.34 ~1.2.3", Some((1, 2))),
    ("12.3.34~ 1.2.3", None),
    ("1.0.0 - 2.0.0, <=2.0.0", Some((1, 3))),
];

/// `TestConstraintsCheck`.
const CONSTRAINTS_CHECK: &[(&str, &str, bool)] = &[
    ("*", "1.2.3", true),
    ("~0.0.0", "1.2.3", true),
    ("0.x.x", "1.2.3", false),
    ("0.0.x", "1.2.3", false),
    ("0.0.0", "1.2.3", false),
    ("*", "1.2.3", true),
    ("^0.0.0", "1.2.3", false),
    ("= 2.0", "1.2.3", false),
    ("= 2.0", "2.0.0", true),
    ("4.1", "4.1.0", true),
    ("4.1.x", "4.1.3", true),
    ("1.x", "1.4", true),
    ("!=4.1", "4.1.0", false),
    ("!=4.1-alpha", "4.1.0-alpha", false),
    ("!=4.1-alpha", "4.1.1-alpha", false),
    ("!=4.1-alpha", "4.1.0", true),
    ("!=4.1", "5.1.0", true),
    ("!=4.x", "5.1.0", true),
    ("!=4.x", "4.1.0", false),
    ("!=4.1.x", "4.2.0", true),
    ("!=4.2.x", "4.2.3", false),
    (">1.1", "4.1.0", true),
    (">1.1", "1.1.0", false),
    ("<1.1", "0.1.0", true),
    ("<1.1", "1.1.0", false),
    ("<1.1", "1.1.1", false),
    ("<1.x", "1.1.1", false),
    ("<1.x", "0.1.1", true),
    ("<1.x", "2.0.0", false),
    ("<1.1.x", "1.2.1", false),
    ("<1.1.x", "1.1.500", false),
    ("<1.1.x", "1.0.500", true),
    ("<1.2.x", "1.1.1", true),
    (">=1.1", "4.1.0", true),
    (">=1.1", "4.1.0-beta", false),
    (">=1.1", "1.1.0", true),
    (">=1.1", "0.0.9", false),
    ("<=1.1", "0.1.0", true),
    ("<=1.1", "0.1.0-alpha", false),
    ("<=1.1-a", "0.1.0-alpha", true),
    ("<=1.1", "1.1.0", true),
    ("<=1.x", "1.1.0", true),
    ("<=2.x", "3.0.0", false),
    ("<=1.1", "1.1.1", true),
    ("<=1.1.x", "1.2.500", false),
    ("<=4.5", "3.4.0", true),
    ("<=4.5", "3.7.0", true),
    ("<=4.5", "4.6.3", false),
    (">1.1, <2", "1.1.1", false),
    (">1.1, <2", "1.2.1", true),
    (">1.1, <3", "4.3.2", false),
    (">=1.1, <2, !=1.2.3", "1.2.3", false),
    (">1.1 <2", "1.1.1", false),
    (">1.1 <2", "1.2.1", true),
    (">1.1    <3", "4.3.2", false),
    (">=1.1    <2    !=1.2.3", "1.2.3", false),
    (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    (">=1.1 <2 !=1.2.3", "1.2.3", false),
    (">=1.1 <2 !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1 <2 !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1 <2 !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1 <2 !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1 <2 !=1.2.3 || > 3", "1.2.3", false),
    ("> 1.1, <     2", "1.1.1", false),
    (">   1.1, <2", "1.2.1", true),
    (">1.1, <  3", "4.3.2", false),
    (">= 1.1, <     2, !=1.2.3", "1.2.3", false),
    ("> 1.1 < 2", "1.1.1", false),
    (">1.1 < 2", "1.2.1", true),
    ("> 1.1    <3", "4.3.2", false),
    (">=1.1    < 2    != 1.2.3", "1.2.3", false),
    (">= 1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">= 1.1, <2, != 1.2.3 || > 3", "3.1.2", false),
    (">= 1.1, <2, != 1.2.3 || >= 3", "3.0.0", true),
    (">= 1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">= 1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    (">= 1.1 <2 != 1.2.3", "1.2.3", false),
    (">= 1.1 <2 != 1.2.3 || > 3", "4.1.2", true),
    (">= 1.1 <2 != 1.2.3 || > 3", "3.1.2", false),
    (">= 1.1 <2 != 1.2.3 || >= 3", "3.0.0", true),
    (">= 1.1 < 2 !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1 < 2 !=1.2.3 || > 3", "1.2.3", false),
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta", true),
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1", true),
    (">= 1.0.0  <= 2.0.0-beta", "3.0.0", false),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "1.0.1-beta", true),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "3.0.1-beta", false),
    (
        ">= 1.0.0  <= 2.0.0-beta != 1.0.1 || > 3",
        "1.0.1-beta",
        true,
    ),
    (
        ">= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3",
        "1.0.1-beta",
        false,
    ),
    (">= 1.0.0-0  <= 2.0.0", "1.0.1-beta", true),
    ("1.1 - 2", "1.1.1", true),
    ("1.5.0 - 4.5", "3.7.0", true),
    ("1.1-3", "4.3.2", false),
    ("^1.1", "1.1.1", true),
    ("^1.1", "4.3.2", false),
    ("^1.x", "1.1.1", true),
    ("^2.x", "1.1.1", false),
    ("^1.x", "2.1.1", false),
    ("^1.x", "1.1.1-beta1", false),
    ("^1.1.2-alpha", "1.2.1-beta1", true),
    ("^1.2.x-alpha", "1.1.1-beta1", false),
    ("^0.0.1", "0.0.1", true),
    ("^0.0.1", "0.3.1", false),
    ("~*", "2.1.1", true),
    ("~1", "2.1.1", false),
    ("~1", "1.3.5", true),
    ("~1", "1.4", true),
    ("~1.x", "2.1.1", false),
    ("~1.x", "1.3.5", true),
    ("~1.x", "1.4", true),
    ("~1.1", "1.1.1", true),
    ("~1.1", "1.1.1-alpha", false),
    ("~1.1-alpha", "1.1.1-beta", true),
    ("~1.1.1-beta", "1.1.1-alpha", false),
    ("~1.1.1-beta", "1.1.1", true),
    ("~1.2.3", "1.2.5", true),
    ("~1.2.3", "1.2.2", false),
    ("~1.2.3", "1.3.2", false),
    ("~1.1", "1.2.3", false),
    ("~1.3", "2.4.5", false),
    ("1.0.0 - 2.0.0 <=2.0.0", "1.5.0", true),
    ("1.0.0 - 2.0.0, <=2.0.0", "1.5.0", true),
];

/// `TestConstraintsCheckIncludePrerelease` (`IncludePrerelease = true`).
const CONSTRAINTS_CHECK_INCLUDE_PRERELEASE: &[(&str, &str, bool)] = &[
    (">=1.1", "4.1.0-beta", true),
    (">1.1", "4.1.0-beta", true),
    ("<=1.1", "0.1.0-alpha", true),
    ("<1.1", "0.1.0-alpha", true),
    ("^1.x", "1.1.1-beta1", true),
    ("~1.1", "1.1.1-alpha", true),
    ("*", "1.2.3-alpha", true),
    ("= 2.0", "2.0.1-beta", true),
    ("*", "1.2.3", true),
    ("~0.0.0", "1.2.3", true),
    ("0.x.x", "1.2.3", false),
    ("0.0.x", "1.2.3", false),
    ("0.0.0", "1.2.3", false),
    ("*", "1.2.3", true),
    ("^0.0.0", "1.2.3", false),
    ("= 2.0", "1.2.3", false),
    ("= 2.0", "2.0.0", true),
    ("4.1", "4.1.0", true),
    ("4.1.x", "4.1.3", true),
    ("1.x", "1.4", true),
    ("!=4.1", "4.1.0", false),
    ("!=4.1-alpha", "4.1.0-alpha", false),
    ("!=4.1-alpha", "4.1.1-alpha", false),
    ("!=4.1-alpha", "4.1.0", true),
    ("!=4.1", "5.1.0", true),
    ("!=4.x", "5.1.0", true),
    ("!=4.x", "4.1.0", false),
    ("!=4.1.x", "4.2.0", true),
    ("!=4.2.x", "4.2.3", false),
    (">1.1", "4.1.0", true),
    (">1.1", "1.1.0", false),
    ("<1.1", "0.1.0", true),
    ("<1.1", "1.1.0", false),
    ("<1.1", "1.1.1", false),
    ("<1.x", "1.1.1", false),
    ("<1.x", "0.1.1", true),
    ("<1.x", "2.0.0", false),
    ("<1.1.x", "1.2.1", false),
    ("<1.1.x", "1.1.500", false),
    ("<1.1.x", "1.0.500", true),
    ("<1.2.x", "1.1.1", true),
    (">=1.1", "4.1.0", true),
    (">=1.1", "1.1.0", true),
    (">=1.1", "0.0.9", false),
    ("<=1.1", "0.1.0", true),
    ("<=1.1-a", "0.1.0-alpha", true),
    ("<=1.1", "1.1.0", true),
    ("<=1.x", "1.1.0", true),
    ("<=2.x", "3.0.0", false),
    ("<=1.1", "1.1.1", true),
    ("<=1.1.x", "1.2.500", false),
    ("<=4.5", "3.4.0", true),
    ("<=4.5", "3.7.0", true),
    ("<=4.5", "4.6.3", false),
    (">1.1, <2", "1.1.1", false),
    (">1.1, <2", "1.2.1", true),
    (">1.1, <3", "4.3.2", false),
    (">=1.1, <2, !=1.2.3", "1.2.3", false),
    (">1.1 <2", "1.1.1", false),
    (">1.1 <2", "1.2.1", true),
    (">1.1    <3", "4.3.2", false),
    (">=1.1    <2    !=1.2.3", "1.2.3", false),
    (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    (">=1.1 <2 !=1.2.3", "1.2.3", false),
    (">=1.1 <2 !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1 <2 !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1 <2 !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1 <2 !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1 <2 !=1.2.3 || > 3", "1.2.3", false),
    ("> 1.1, <     2", "1.1.1", false),
    (">   1.1, <2", "1.2.1", true),
    (">1.1, <  3", "4.3.2", false),
    (">= 1.1, <     2, !=1.2.3", "1.2.3", false),
    ("> 1.1 < 2", "1.1.1", false),
    (">1.1 < 2", "1.2.1", true),
    ("> 1.1    <3", "4.3.2", false),
    (">=1.1    < 2    != 1.2.3", "1.2.3", false),
    (">= 1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">= 1.1, <2, != 1.2.3 || > 3", "3.1.2", false),
    (">= 1.1, <2, != 1.2.3 || >= 3", "3.0.0", true),
    (">= 1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">= 1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    (">= 1.1 <2 != 1.2.3", "1.2.3", false),
    (">= 1.1 <2 != 1.2.3 || > 3", "4.1.2", true),
    (">= 1.1 <2 != 1.2.3 || > 3", "3.1.2", false),
    (">= 1.1 <2 != 1.2.3 || >= 3", "3.0.0", true),
    (">= 1.1 < 2 !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1 < 2 !=1.2.3 || > 3", "1.2.3", false),
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1-beta", true),
    (">= 1.0.0  <= 2.0.0-beta", "1.0.1", true),
    (">= 1.0.0  <= 2.0.0-beta", "3.0.0", false),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "1.0.1-beta", true),
    (">= 1.0.0  <= 2.0.0-beta || > 3", "3.0.1-beta", false),
    (
        ">= 1.0.0  <= 2.0.0-beta != 1.0.1 || > 3",
        "1.0.1-beta",
        true,
    ),
    (
        ">= 1.0.0  <= 2.0.0-beta != 1.0.1-beta || > 3",
        "1.0.1-beta",
        false,
    ),
    (">= 1.0.0-0  <= 2.0.0", "1.0.1-beta", true),
    ("1.1 - 2", "1.1.1", true),
    ("1.5.0 - 4.5", "3.7.0", true),
    ("1.1-3", "4.3.2", false),
    ("^1.1", "1.1.1", true),
    ("^1.1", "4.3.2", false),
    ("^1.x", "1.1.1", true),
    ("^2.x", "1.1.1", false),
    ("^1.x", "2.1.1", false),
    ("^1.1.2-alpha", "1.2.1-beta1", true),
    ("^1.2.x-alpha", "1.1.1-beta1", false),
    ("^0.0.1", "0.0.1", true),
    ("^0.0.1", "0.3.1", false),
    ("~*", "2.1.1", true),
    ("~1", "2.1.1", false),
    ("~1", "1.3.5", true),
    ("~1", "1.4", true),
    ("~1.x", "2.1.1", false),
    ("~1.x", "1.3.5", true),
    ("~1.x", "1.4", true),
    ("~1.1", "1.1.1", true),
    ("~1.1-alpha", "1.1.1-beta", true),
    ("~1.1.1-beta", "1.1.1-alpha", false),
    ("~1.1.1-beta", "1.1.1", true),
    ("~1.2.3", "1.2.5", true),
    ("~1.2.3", "1.2.2", false),
    ("~1.2.3", "1.3.2", false),
    ("~1.1", "1.2.3", false),
    ("~1.3", "2.4.5", false),
    ("1.0.0 - 2.0.0 <=2.0.0", "1.5.0", true),
    ("1.0.0 - 2.0.0, <=2.0.0", "1.5.0", true),
];

/// `TestConstraintsValidate`, first table: `Validate`'s verdict, which is `Check`'s.
const CONSTRAINTS_VALIDATE: &[(&str, &str, bool)] = &[
    ("*", "1.2.3", true),
    ("~0.0.0", "1.2.3", true),
    ("= 2.0", "1.2.3", false),
    ("= 2.0", "2.0.0", true),
    ("4.1", "4.1.0", true),
    ("4.1.x", "4.1.3", true),
    ("1.x", "1.4", true),
    ("!=4.1", "4.1.0", false),
    ("!=4.1", "5.1.0", true),
    ("!=4.x", "5.1.0", true),
    ("!=4.x", "4.1.0", false),
    ("!=4.1.x", "4.2.0", true),
    ("!=4.2.x", "4.2.3", false),
    (">1.1", "4.1.0", true),
    (">1.1", "1.1.0", false),
    ("<1.1", "0.1.0", true),
    ("<1.1", "1.1.0", false),
    ("<1.1", "1.1.1", false),
    ("<1.x", "1.1.1", false),
    ("<2.x", "1.1.1", true),
    ("<1.x", "2.1.1", false),
    ("<1.1.x", "1.2.1", false),
    ("<1.1.x", "1.1.500", false),
    ("<1.2.x", "1.1.1", true),
    (">=1.1", "4.1.0", true),
    (">=1.1", "1.1.0", true),
    (">=1.1", "0.0.9", false),
    ("<=1.1", "0.1.0", true),
    ("<=1.1", "1.1.0", true),
    ("<=1.x", "1.1.0", true),
    ("<=2.x", "3.1.0", false),
    ("<=1.1", "1.1.1", true),
    ("<=1.1.x", "1.2.500", false),
    (">1.1, <2", "1.1.1", false),
    (">1.1, <2", "1.2.1", true),
    (">1.1, <3", "4.3.2", false),
    (">=1.1, <2, !=1.2.3", "1.2.3", false),
    (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    ("1.1 - 2", "1.1.1", true),
    ("1.1-3", "4.3.2", false),
    ("^1.1", "1.1.1", true),
    ("^1.1", "1.1.1-alpha", false),
    ("^1.1.1-alpha", "1.1.1-beta", true),
    ("^1.1.1-beta", "1.1.1-alpha", false),
    ("^1.1", "4.3.2", false),
    ("^1.x", "1.1.1", true),
    ("^2.x", "1.1.1", false),
    ("^1.x", "2.1.1", false),
    ("^0.0.1", "0.1.3", false),
    ("^0.0.1", "0.0.1", true),
    ("~*", "2.1.1", true),
    ("~1", "2.1.1", false),
    ("~1", "1.3.5", true),
    ("~1", "1.3.5-beta", false),
    ("~1.x", "2.1.1", false),
    ("~1.x", "1.3.5", true),
    ("~1.x", "1.3.5-beta", false),
    ("~1.3.6-alpha", "1.3.5-beta", false),
    ("~1.3.5-alpha", "1.3.5-beta", true),
    ("~1.3.5-beta", "1.3.5-alpha", false),
    ("~1.x", "1.4", true),
    ("~1.1", "1.1.1", true),
    ("~1.2.3", "1.2.5", true),
    ("~1.2.3", "1.2.2", false),
    ("~1.2.3", "1.3.2", false),
    ("~1.1", "1.2.3", false),
    ("~1.3", "2.4.5", false),
];

/// `TestConstraintsValidate`, second table: pairs that fail (Masterminds' messages are not reproduced).
const CONSTRAINTS_VALIDATE_FAILURES: &[(&str, &str)] = &[
    ("2.x", "1.2.3"),
    ("2", "1.2.3"),
    ("= 2.0", "1.2.3"),
    ("!=4.1", "4.1.0"),
    ("!=4.x", "4.1.0"),
    ("!=4.2.x", "4.2.3"),
    (">1.1", "1.1.0"),
    ("<1.1", "1.1.0"),
    ("<1.1", "1.1.1"),
    ("<1.x", "2.1.1"),
    ("<1.1.x", "1.2.1"),
    (">=1.1", "0.0.9"),
    ("<=2.x", "3.1.0"),
    ("<=1.1", "1.2.1"),
    ("<=1.1.x", "1.2.500"),
    (">1.1, <3", "4.3.2"),
    (">=1.1, <2, !=1.2.3", "1.2.3"),
    (">=1.1, <2, !=1.2.3 || > 3", "3.0.0"),
    (">=1.1, <2, !=1.2.3 || > 3", "1.2.3"),
    ("1.1 - 3", "4.3.2"),
    ("^1.1", "4.3.2"),
    ("^1.12.7", "1.6.6"),
    ("^2.x", "1.1.1"),
    ("^1.x", "2.1.1"),
    ("^0.2", "0.3.0"),
    ("^0.2", "0.1.1"),
    ("^0.0.3", "0.1.1"),
    ("^0.0.3", "0.0.4"),
    ("^0.0.3", "0.0.2"),
    ("~1", "2.1.2"),
    ("~1.x", "2.1.1"),
    ("~1.2.3", "1.2.2"),
    ("~1.2.3", "1.3.2"),
    ("~1.1", "1.2.3"),
    ("~1.3", "2.4.5"),
    ("> 1.2.3", "1.2.3-beta.1"),
];

/// `TestConstraintsValidateIncludePrerelease`, first table.
const CONSTRAINTS_VALIDATE_INCLUDE_PRERELEASE: &[(&str, &str, bool)] = &[
    ("^1.1", "1.1.1-alpha", true),
    ("~1", "1.3.5-beta", true),
    ("~1.x", "1.3.5-beta", true),
    (">=1.1", "4.1.0-beta", true),
    (">1.1", "4.1.0-beta", true),
    ("<=1.1", "0.1.0-alpha", true),
    ("<1.1", "0.1.0-alpha", true),
    ("^1.x", "1.1.1-beta1", true),
    ("~1.1", "1.1.1-alpha", true),
    ("*", "1.2.3-alpha", true),
    ("= 2.0", "2.0.1-beta", true),
    ("*", "1.2.3", true),
    ("~0.0.0", "1.2.3", true),
    ("= 2.0", "1.2.3", false),
    ("= 2.0", "2.0.0", true),
    ("4.1", "4.1.0", true),
    ("4.1.x", "4.1.3", true),
    ("1.x", "1.4", true),
    ("!=4.1", "4.1.0", false),
    ("!=4.1", "5.1.0", true),
    ("!=4.x", "5.1.0", true),
    ("!=4.x", "4.1.0", false),
    ("!=4.1.x", "4.2.0", true),
    ("!=4.2.x", "4.2.3", false),
    (">1.1", "4.1.0", true),
    (">1.1", "1.1.0", false),
    ("<1.1", "0.1.0", true),
    ("<1.1", "1.1.0", false),
    ("<1.1", "1.1.1", false),
    ("<1.x", "1.1.1", false),
    ("<2.x", "1.1.1", true),
    ("<1.x", "2.1.1", false),
    ("<1.1.x", "1.2.1", false),
    ("<1.1.x", "1.1.500", false),
    ("<1.2.x", "1.1.1", true),
    (">=1.1", "4.1.0", true),
    (">=1.1", "1.1.0", true),
    (">=1.1", "0.0.9", false),
    ("<=1.1", "0.1.0", true),
    ("<=1.1", "1.1.0", true),
    ("<=1.x", "1.1.0", true),
    ("<=2.x", "3.1.0", false),
    ("<=1.1", "1.1.1", true),
    ("<=1.1.x", "1.2.500", false),
    (">1.1, <2", "1.1.1", false),
    (">1.1, <2", "1.2.1", true),
    (">1.1, <3", "4.3.2", false),
    (">=1.1, <2, !=1.2.3", "1.2.3", false),
    (">=1.1, <2, !=1.2.3 || > 3", "3.1.2", false),
    (">=1.1, <2, !=1.2.3 || > 3", "4.1.2", true),
    (">=1.1, <2, !=1.2.3 || >= 3", "3.0.0", true),
    (">=1.1, <2, !=1.2.3 || > 3", "3.0.0", false),
    (">=1.1, <2, !=1.2.3 || > 3", "1.2.3", false),
    ("1.1 - 2", "1.1.1", true),
    ("1.1-3", "4.3.2", false),
    ("^1.1", "1.1.1", true),
    ("^1.1.1-alpha", "1.1.1-beta", true),
    ("^1.1.1-beta", "1.1.1-alpha", false),
    ("^1.1", "4.3.2", false),
    ("^1.x", "1.1.1", true),
    ("^2.x", "1.1.1", false),
    ("^1.x", "2.1.1", false),
    ("^0.0.1", "0.1.3", false),
    ("^0.0.1", "0.0.1", true),
    ("~*", "2.1.1", true),
    ("~1", "2.1.1", false),
    ("~1", "1.3.5", true),
    ("~1.x", "2.1.1", false),
    ("~1.x", "1.3.5", true),
    ("~1.3.6-alpha", "1.3.5-beta", false),
    ("~1.3.5-alpha", "1.3.5-beta", true),
    ("~1.3.5-beta", "1.3.5-alpha", false),
    ("~1.x", "1.4", true),
    ("~1.1", "1.1.1", true),
    ("~1.2.3", "1.2.5", true),
    ("~1.2.3", "1.2.2", false),
    ("~1.2.3", "1.3.2", false),
    ("~1.1", "1.2.3", false),
    ("~1.3", "2.4.5", false),
];

/// `TestConstraintsValidateIncludePrerelease`, second table: pairs that fail.
const CONSTRAINTS_VALIDATE_INCLUDE_PRERELEASE_FAILURES: &[(&str, &str)] = &[
    ("> 1.2.3", "1.2.3-beta.1"),
    ("< 1.2.3", "1.2.4-beta.1"),
    (">= 1.2.3", "1.2.3-beta.1"),
    ("<= 1.2.3", "1.2.4-beta.1"),
    ("2.x", "1.2.3"),
    ("2", "1.2.3"),
    ("= 2.0", "1.2.3"),
    ("!=4.1", "4.1.0"),
    ("!=4.x", "4.1.0"),
    ("!=4.2.x", "4.2.3"),
    (">1.1", "1.1.0"),
    ("<1.1", "1.1.0"),
    ("<1.1", "1.1.1"),
    ("<1.x", "2.1.1"),
    ("<1.1.x", "1.2.1"),
    (">=1.1", "0.0.9"),
    ("<=2.x", "3.1.0"),
    ("<=1.1", "1.2.1"),
    ("<=1.1.x", "1.2.500"),
    (">1.1, <3", "4.3.2"),
    (">=1.1, <2, !=1.2.3", "1.2.3"),
    (">=1.1, <2, !=1.2.3 || > 3", "3.0.0"),
    (">=1.1, <2, !=1.2.3 || > 3", "1.2.3"),
    ("1.1 - 3", "4.3.2"),
    ("^1.1", "4.3.2"),
    ("^1.12.7", "1.6.6"),
    ("^2.x", "1.1.1"),
    ("^1.x", "2.1.1"),
    ("^0.2", "0.3.0"),
    ("^0.2", "0.1.1"),
    ("^0.0.3", "0.1.1"),
    ("^0.0.3", "0.0.4"),
    ("^0.0.3", "0.0.2"),
    ("~1", "2.1.2"),
    ("~1.x", "2.1.1"),
    ("~1.2.3", "1.2.2"),
    ("~1.2.3", "1.3.2"),
    ("~1.1", "1.2.3"),
    ("~1.3", "2.4.5"),
];

/// `TestRewriteRange`.
const REWRITE_RANGE: &[(&str, &str)] = &[
    ("2 - 3", ">= 2, <= 3 "),
    ("2 - 3, 2 - 3", ">= 2, <= 3 ,>= 2, <= 3 "),
    ("2 - 3, 4.0.0 - 5.1", ">= 2, <= 3 ,>= 4.0.0, <= 5.1 "),
    ("2 - 3 4.0.0 - 5.1", ">= 2, <= 3 >= 4.0.0, <= 5.1 "),
    ("1.0.0 - 2.0.0 <=2.0.0", ">= 1.0.0, <= 2.0.0 <=2.0.0"),
];

/// `TestIsX`.
const IS_X: &[(&str, bool)] = &[
    ("A", false),
    ("%", false),
    ("X", true),
    ("x", true),
    ("*", true),
];

/// `TestConstraintString`, `TestTextMarshalConstraints`, `TestTextUnmarshalConstraints`: the text and Masterminds' rendering of it, both of which parse (the rendering itself is not reproduced).
const RENDERED: &[(&str, &str)] = &[
    ("*", "*"),
    (">=1.2.3", ">=1.2.3"),
    (">= 1.2.3", ">=1.2.3"),
    (
        "2.x,   >=1.2.3 || >4.5.6, < 5.7",
        "2.x >=1.2.3 || >4.5.6 <5.7",
    ),
    (
        "2.x,   >=1.2.3 || >4.5.6, < 5.7 || >40.50.60, < 50.70",
        "2.x >=1.2.3 || >4.5.6 <5.7 || >40.50.60 <50.70",
    ),
    ("1.2", "1.2"),
    ("1.2.3", "1.2.3"),
    (">=1.2.3", ">=1.2.3"),
    ("<=1.2.3", "<=1.2.3"),
    ("1 <=1.2.3", "1 <=1.2.3"),
    ("1, <=1.2.3", "1 <=1.2.3"),
    (">1, <=1.2.3", ">1 <=1.2.3"),
    ("> 1 , <=1.2.3", ">1 <=1.2.3"),
    ("1.2.3", "1.2.3"),
    (">=1.2.3", ">=1.2.3"),
    ("<=1.2.3", "<=1.2.3"),
    (">1 <=1.2.3", ">1 <=1.2.3"),
    ("> 1 <=1.2.3", ">1 <=1.2.3"),
    (">1, <=1.2.3", ">1 <=1.2.3"),
];

/// `FuzzNewConstraint`'s seeds.
const FUZZ_SEEDS: &[&str] = &[
    "v1.2.3",
    " ",
    "......",
    "1",
    "1.2.3-beta.1",
    "1.2.3+foo",
    "2.3.4-alpha.1+bar",
    "lorem ipsum",
    "*",
    "!=1.2.3",
    "^4.5",
    "1.0.0 - 2",
    "1.2.3.4.5.6",
    ">= 1",
    "~9.8.7",
    "<= 12.13.14",
    "987654321.123456789.654123789",
    "1.x",
    "2.3.x",
    "9.2-beta.0",
];

/// `TestNewVersion`, "With loose NewVersion": whether the text is a version.
const NEW_VERSION: &[(&str, bool)] = &[
    ("1.2.3", true),
    ("1.2.3-alpha.01", false),
    ("1.2.3+test.01", true),
    ("1.2.3-alpha.-1", true),
    ("v1.2.3", true),
    ("1.0", true),
    ("v1.0", true),
    ("1", true),
    ("v1", true),
    ("1.2.beta", false),
    ("v1.2.beta", false),
    ("foo", false),
    ("1.2-5", true),
    ("v1.2-5", true),
    ("1.2-beta.5", true),
    ("v1.2-beta.5", true),
    ("\n1.2", false),
    ("\nv1.2", false),
    ("1.2.0-x.Y.0+metadata", true),
    ("v1.2.0-x.Y.0+metadata", true),
    ("1.2.0-x.Y.0+metadata-width-hypen", true),
    ("v1.2.0-x.Y.0+metadata-width-hypen", true),
    ("1.2.3-rc1-with-hypen", true),
    ("v1.2.3-rc1-with-hypen", true),
    ("1.2.3-0abc123", true),
    ("1.2.3-beta.01", false),
    ("1.2.3.4", false),
    ("v1.2.3.4", false),
    ("1.2.2147483648", true),
    ("1.2147483648.3", true),
    ("2147483648.3.0", true),
    ("12.3.4.1234", false),
    ("12.23.4.1234", false),
    ("12.3.34.1234", false),
    ("20221209-update-renovatejson-v4", true),
    ("1.1.2+.123", false),
    ("1.0.0-alpha_beta", false),
    ("1.0.0-alpha..", false),
    ("1.0.0-alpha..1", false),
    ("9.8.7+meta+meta", false),
    ("1.2.31----RC-SNAPSHOT.12.09.1--.12+788", false),
    ("01.1.1", true),
    ("1.01.1", true),
    ("1.1.01", true),
];

/// `TestCoerceString`: the text and the version written out.
const COERCE_STRING: &[(&str, &str)] = &[
    ("1.2.3", "1.2.3"),
    ("v1.2.3", "1.2.3"),
    ("1.0", "1.0.0"),
    ("v1.0", "1.0.0"),
    ("1", "1.0.0"),
    ("v1", "1.0.0"),
    ("1.2-5", "1.2.0-5"),
    ("v1.2-5", "1.2.0-5"),
    ("1.2-beta.5", "1.2.0-beta.5"),
    ("v1.2-beta.5", "1.2.0-beta.5"),
    ("1.2.0-x.Y.0+metadata", "1.2.0-x.Y.0+metadata"),
    ("v1.2.0-x.Y.0+metadata", "1.2.0-x.Y.0+metadata"),
    (
        "1.2.0-x.Y.0+metadata-width-hypen",
        "1.2.0-x.Y.0+metadata-width-hypen",
    ),
    (
        "v1.2.0-x.Y.0+metadata-width-hypen",
        "1.2.0-x.Y.0+metadata-width-hypen",
    ),
    ("1.2.3-rc1-with-hypen", "1.2.3-rc1-with-hypen"),
    ("v1.2.3-rc1-with-hypen", "1.2.3-rc1-with-hypen"),
];

/// `TestCompare`.
const COMPARE: &[(&str, &str, Ordering)] = &[
    ("1.2.3", "1.5.1", Ordering::Less),
    ("2.2.3", "1.5.1", Ordering::Greater),
    ("2.2.3", "2.2.2", Ordering::Greater),
    ("3.2-beta", "3.2-beta", Ordering::Equal),
    ("1.3", "1.1.4", Ordering::Greater),
    ("4.2", "4.2-beta", Ordering::Greater),
    ("4.2-beta", "4.2", Ordering::Less),
    ("4.2-alpha", "4.2-beta", Ordering::Less),
    ("4.2-alpha", "4.2-alpha", Ordering::Equal),
    ("4.2-beta.2", "4.2-beta.1", Ordering::Greater),
    ("4.2-beta2", "4.2-beta1", Ordering::Greater),
    ("4.2-beta", "4.2-beta.2", Ordering::Less),
    ("4.2-beta", "4.2-beta.foo", Ordering::Less),
    ("4.2-beta.2", "4.2-beta", Ordering::Greater),
    ("4.2-beta.foo", "4.2-beta", Ordering::Greater),
    ("1.2+bar", "1.2+baz", Ordering::Equal),
    ("1.0.0-beta.4", "1.0.0-beta.-2", Ordering::Less),
    ("1.0.0-beta.-2", "1.0.0-beta.-3", Ordering::Less),
    ("1.0.0-beta.-3", "1.0.0-beta.5", Ordering::Greater),
];

/// `TestLessThan`.
const LESS_THAN: &[(&str, &str, bool)] = &[
    ("1.2.3", "1.5.1", true),
    ("2.2.3", "1.5.1", false),
    ("3.2-beta", "3.2-beta", false),
];

/// `TestLessThanEqual`.
const LESS_THAN_EQUAL: &[(&str, &str, bool)] = &[
    ("1.2.3", "1.5.1", true),
    ("2.2.3", "1.5.1", false),
    ("1.5.1", "1.5.1", true),
];

/// `TestGreaterThan`.
const GREATER_THAN: &[(&str, &str, bool)] = &[
    ("1.2.3", "1.5.1", false),
    ("2.2.3", "1.5.1", true),
    ("3.2-beta", "3.2-beta", false),
    ("3.2.0-beta.1", "3.2.0-beta.5", false),
    ("3.2-beta.4", "3.2-beta.2", true),
    ("7.43.0-SNAPSHOT.99", "7.43.0-SNAPSHOT.103", false),
    ("7.43.0-SNAPSHOT.FOO", "7.43.0-SNAPSHOT.103", true),
    ("7.43.0-SNAPSHOT.99", "7.43.0-SNAPSHOT.BAR", false),
];

/// `TestGreaterThanEqual`.
const GREATER_THAN_EQUAL: &[(&str, &str, bool)] = &[
    ("1.2.3", "1.5.1", false),
    ("2.2.3", "1.5.1", true),
    ("1.5.1", "1.5.1", true),
];

/// `TestValidatePrerelease`: whether `1.2.3-` and it is a version.
const VALIDATE_PRERELEASE: &[(&str, bool)] = &[
    ("foo", true),
    ("alpha.1", true),
    ("alpha.01", false),
    ("foo☃︎", false),
    ("alpha.0-1", true),
];

/// `TestValidateMetadata`: whether `1.2.3+` and it is a version.
const VALIDATE_METADATA: &[(&str, bool)] = &[
    ("foo", true),
    ("alpha.1", true),
    ("alpha.01", true),
    ("foo☃︎", false),
    ("alpha.0-1", true),
    (
        "al-pha.1Phe70CgWe050H9K1mJwRUqTNQXZRERwLOEg37wpXUb4JgzgaD5YkL52ABnoyiE",
        true,
    ),
];
