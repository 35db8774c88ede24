use serde_json::json;

use super::*;

#[test]
fn escape_control_writes_out_every_control_character() {
    assert_eq!(escape_control("web-1"), "web-1");
    assert!(matches!(escape_control("web-1"), Cow::Borrowed(_)));
    assert_eq!(
        escape_control("a\u{1b}[31mred\u{1b}]0;title\u{7}"),
        "a\\u{1b}[31mred\\u{1b}]0;title\\u{7}"
    );
    assert_eq!(escape_control("a\nb\rc\td"), "a\\nb\\rc\\td");
    assert_eq!(escape_control("nul\u{0}del\u{7f}"), "nul\\u{0}del\\u{7f}");
    // C1: a single-byte CSI and OSC in some terminals.
    assert_eq!(escape_control("x\u{9b}2Jy\u{9d}"), "x\\u{9b}2Jy\\u{9d}");
    // Text that reorders or hides itself.
    assert_eq!(
        escape_control("admin\u{202e}gpj.exe\u{200b}"),
        "admin\\u{202e}gpj.exe\\u{200b}"
    );
    // Printable text beyond ASCII stays.
    assert_eq!(escape_control("wave 1 → 2, café"), "wave 1 → 2, café");
}

#[test]
fn escaped_text_has_nothing_a_terminal_interprets() {
    let all: String = (0u32..0x300).filter_map(char::from_u32).collect();
    let escaped = escape_control(&all);
    assert!(!escaped.chars().any(is_unsafe), "{escaped:?}");
    assert!(!escaped.chars().any(char::is_control));
}

#[test]
fn markdown_code_cannot_be_left() {
    assert_eq!(markdown_code("web-1", Place::Text), "`web-1`");
    assert_eq!(markdown_code("a`b", Place::Text), "``a`b``");
    assert_eq!(markdown_code("`x`", Place::Text), "`` `x` ``");
    assert_eq!(markdown_code("", Place::Text), "`  `");
    assert_eq!(markdown_code("a\nb", Place::Text), "`a\\nb`");
    // In a table cell a pipe is escaped, and a backslash before it cannot
    // escape that escape.
    assert_eq!(markdown_code("a|b", Place::TableCell), "`a\\|b`");
    assert_eq!(markdown_code("a\\|b", Place::TableCell), "`a\\\\\\|b`");
    assert_eq!(markdown_code("a|b", Place::Text), "`a|b`");
    // Backslashes elsewhere stay as they are (values paths use them).
    assert_eq!(
        markdown_code("prometheus\\.io", Place::TableCell),
        "`prometheus\\.io`"
    );
}

/// A table cell's parts as GitHub's table parser splits them: at every
/// `|` that is not the second half of a backslash pair.
fn cells(row: &str) -> usize {
    let mut count = 1;
    let mut chars = row.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '|' => count += 1,
            _ => {}
        }
    }
    count
}

#[test]
fn a_crafted_name_stays_in_its_table_cell() {
    for name in ["a|b", "a\\|b", "a\\\\|b", "x\\", "|", "\\|\\|"] {
        let cell = markdown_code(name, Place::TableCell);
        assert_eq!(cells(&cell), 1, "{name:?} became {cell:?}");
    }
}

#[test]
fn html_text_escapes_markup_and_mentions() {
    assert_eq!(
        html_text("<img src=x onerror=alert(1)> & \"q\" 'q'"),
        "&lt;img src=x onerror=alert(1)&gt; &amp; &quot;q&quot; &#39;q&#39;"
    );
    assert_eq!(html_text("@org/admins #12"), "&#64;org/admins &#35;12");
    assert_eq!(html_text("a\u{1b}b"), "a\\u{1b}b");
}

#[test]
fn secret_keys_are_named_by_their_ending() {
    for key in [
        "password",
        "adminPassword",
        "DB_PASSWORD",
        "passwd",
        "token",
        "accessToken",
        "secret",
        "clientSecret",
        "credentials",
        "awsCredentials",
        "apiKey",
        "api_key",
        "API-KEY",
        "privateKey",
        "tls.key",
        "secretKey",
        ".dockerconfigjson",
        "kubeconfig",
    ] {
        assert!(is_secret_key(key), "{key} should be masked");
    }
    for key in [
        "key",
        "monkey",
        "topologyKey",
        "secretName",
        "passwordFile",
        "tokenTTL",
        "replicaCount",
        "image",
    ] {
        assert!(!is_secret_key(key), "{key} should be shown");
    }
}

#[test]
fn mask_value_masks_every_depth_and_keeps_the_rest() {
    let values = json!({
        "replicaCount": 2,
        "auth": {"username": "admin", "password": "hunter2"},
        "tls": {"crt": "PUBLIC", "key": "PRIVATE"},
        "monkey": "banana",
        "users": [{"name": "a", "apiKey": "k1"}],
        "credentials": {"user": "u", "pass": "p"},
    });
    assert_eq!(
        mask_value(&values),
        json!({
            "replicaCount": 2,
            "auth": {"username": "admin", "password": MASK},
            "tls": {"crt": "PUBLIC", "key": MASK},
            "monkey": "banana",
            "users": [{"name": "a", "apiKey": MASK}],
            "credentials": MASK,
        })
    );
}

fn change(path: &str, old: Option<Value>, new: Option<Value>) -> Change {
    Change {
        path: path.into(),
        old,
        new,
    }
}

#[test]
fn a_masked_change_still_says_that_it_changed() {
    let masked = mask_change(&change(
        "db.password",
        Some(json!("hunter2")),
        Some(json!("hunter3")),
    ));
    assert_eq!(
        masked.to_string(),
        "db.password: ++++++++ → ++++++++ (changed)"
    );
    let added = mask_change(&change("auth.token", None, Some(json!("abc"))));
    assert_eq!(added.to_string(), "+ auth.token: ++++++++");
    let removed = mask_change(&change("auth.token", Some(json!("abc")), None));
    assert_eq!(removed.to_string(), "- auth.token: ++++++++");
    // Under a secret key, at any depth of the path.
    let nested = mask_change(&change(
        "credentials.aws.id",
        Some(json!("A")),
        Some(json!("B")),
    ));
    assert!(!nested.to_string().contains('A') && !nested.to_string().contains('B'));
    // A path that is no secret keeps its values.
    let plain = change("controller.replicaCount", Some(json!(2)), Some(json!(3)));
    assert_eq!(mask_change(&plain), plain);
    // An escaped dot is part of a key: `tls\.key` is one key.
    let dotted = mask_change(&change(
        "certs.tls\\.key",
        Some(json!("x")),
        Some(json!("y")),
    ));
    assert_eq!(dotted.old, Some(json!(MASK)));
}

#[test]
fn a_masked_entry_inside_a_changed_list_says_whether_it_changed() {
    let masked = mask_change(&change(
        "users",
        Some(json!([{"name": "a", "password": "p1"}, {"name": "b", "password": "p2"}])),
        Some(json!([{"name": "a", "password": "p1"}, {"name": "c", "password": "p3"}])),
    ));
    assert_eq!(
        masked.old,
        Some(json!([{"name": "a", "password": MASK}, {"name": "b", "password": MASK}]))
    );
    assert_eq!(
        masked.new,
        Some(json!([
            {"name": "a", "password": MASK_UNCHANGED},
            {"name": "c", "password": MASK_CHANGED}
        ]))
    );
    let text = masked.to_string();
    for secret in ["p1", "p2", "p3"] {
        assert!(!text.contains(secret), "{text}");
    }
}

#[test]
fn escape_json_text_keeps_the_document_and_escapes_what_json_leaves_raw() {
    let value = json!({"name": "a\u{1b}[2J\u{9b}b\u{202e}c", "n": 1});
    let pretty = serde_json::to_string_pretty(&value).unwrap_or_default();
    let escaped = escape_json_text(&pretty);
    assert!(
        !escaped.chars().any(|c| c != '\n' && is_unsafe(c)),
        "{escaped}"
    );
    assert!(escaped.contains("\\u001b[2J\\u009bb\\u202ec"), "{escaped}");
    let back: Value = serde_json::from_str(&escaped).unwrap_or_default();
    assert_eq!(back, value);
    assert!(matches!(
        escape_json_text("{\n  \"a\": 1\n}"),
        Cow::Borrowed(_)
    ));
}

#[test]
fn escaped_len_is_the_length_of_the_escaped_text() {
    for text in [
        "",
        "web-1",
        "a\u{1b}[2Jb",
        "x\n\ty\u{9b}\u{202e}→",
        "\u{0}\u{7f}",
    ] {
        assert_eq!(
            escaped_len(text),
            escape_control(text).chars().count(),
            "{text:?}"
        );
    }
}
