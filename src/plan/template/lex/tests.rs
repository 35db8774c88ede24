use super::*;

fn tokens(text: &str) -> Vec<Token> {
    lex(text)
        .unwrap_or_else(|e| panic!("{text:?}: {e:?}"))
        .into_iter()
        .map(|l| l.token)
        .collect()
}

fn error(text: &str) -> (Pos, String) {
    let e = lex(text).expect_err(text);
    (Pos::of(text, e.offset), e.message)
}

fn text(s: &str) -> Token {
    Token::Text(s.into())
}

#[test]
fn text_and_a_field_chain() {
    use Token::*;
    assert_eq!(
        tokens("host: {{ .Cluster.metadata.name }}.example.com"),
        [
            text("host: "),
            Open,
            Space,
            Field("Cluster".into()),
            Field("metadata".into()),
            Field("name".into()),
            Space,
            Close,
            text(".example.com"),
        ]
    );
}

#[test]
fn trim_markers_take_the_space_beside_them_and_need_their_own() {
    use Token::*;
    assert_eq!(
        tokens("a  \n{{- .x -}}\n  b"),
        [text("a"), Open, Field("x".into()), Close, text("b")]
    );
    // `{{-3}}` is the number -3, not a trim marker.
    assert_eq!(
        tokens("a {{-3}}"),
        [text("a "), Open, Number("-3".into()), Close]
    );
}

#[test]
fn comments_fill_their_action_and_may_trim() {
    assert_eq!(tokens("a {{/* note */}} b"), [text("a "), text(" b")]);
    assert_eq!(tokens("a {{- /* note */ -}} b"), [text("a"), text("b")]);
    assert_eq!(
        error("{{/* note */ .x }}").1,
        "comment ends before closing delimiter"
    );
    assert_eq!(error("x\n{{/* note").1, "unclosed comment");
}

#[test]
fn pipelines_variables_and_literals() {
    use Token::*;
    assert_eq!(
        tokens(r#"{{ $n := .x | default "a\tb" | quote }}"#),
        [
            Open,
            Space,
            Variable("$n".into()),
            Space,
            Declare,
            Space,
            Field("x".into()),
            Space,
            Pipe,
            Space,
            Identifier("default".into()),
            Space,
            String("a\tb".into()),
            Space,
            Pipe,
            Space,
            Identifier("quote".into()),
            Space,
            Close,
        ]
    );
    assert_eq!(
        tokens("{{range $i, $e := .l}}{{end}}"),
        [
            Open,
            Keyword(super::Keyword::Range),
            Space,
            Variable("$i".into()),
            Comma,
            Space,
            Variable("$e".into()),
            Space,
            Declare,
            Space,
            Field("l".into()),
            Close,
            Open,
            Keyword(super::Keyword::End),
            Close,
        ]
    );
    assert_eq!(
        tokens("{{ (index . `k`).y true nil 'a' 1.5e3 0x1F $ . }}"),
        [
            Open,
            Space,
            OpenParen,
            Identifier("index".into()),
            Space,
            Dot,
            Space,
            String("k".into()),
            CloseParen,
            Field("y".into()),
            Space,
            Bool(true),
            Space,
            Nil,
            Space,
            Char('a' as u32),
            Space,
            Number("1.5e3".into()),
            Space,
            Number("0x1F".into()),
            Space,
            Variable("$".into()),
            Space,
            Dot,
            Space,
            Close,
        ]
    );
}

#[test]
fn an_action_may_span_lines() {
    use Token::*;
    assert_eq!(
        tokens("{{ if\n .x }}"),
        [
            Open,
            Space,
            Keyword(super::Keyword::If),
            Space,
            Field("x".into()),
            Space,
            Close
        ]
    );
}

#[test]
fn errors_say_where() {
    let at = |line, column| (line, column);
    let place = |text: &str| {
        let (pos, message) = error(text);
        (at(pos.line, pos.column), message)
    };
    assert_eq!(place("a\nb {{ .x "), (at(2, 3), "unclosed action".into()));
    assert_eq!(
        place("{{ ( .x }}"),
        (at(1, 4), "unclosed left paren".into())
    );
    assert_eq!(
        place("{{ .x ) }}"),
        (at(1, 7), "unexpected right paren".into())
    );
    assert_eq!(
        place("{{ \"abc }}"),
        (at(1, 4), "unterminated quoted string".into())
    );
    assert_eq!(
        place("{{ `abc }}"),
        (at(1, 4), "unterminated raw quoted string".into())
    );
    assert_eq!(
        place("{{ 3x }}"),
        (at(1, 4), "bad number syntax: \"3x\"".into())
    );
    assert_eq!(
        place("é {{ # }}"),
        (at(1, 6), "unrecognized character in action: '#'".into())
    );
}

#[test]
fn a_long_hostile_text_is_read_in_one_pass() {
    let text = "{{ .a }}".repeat(20_000) + "{{";
    assert_eq!(error(&text).1, "unclosed action");
    let many = "x".repeat(1 << 20);
    assert_eq!(tokens(&many), [text_token(&many)]);
}

fn text_token(s: &str) -> Token {
    Token::Text(s.to_string())
}
