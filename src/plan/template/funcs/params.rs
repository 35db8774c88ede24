//! The parameter types of the functions whose Go signature has typed ones
//! (`trunc(c int, s string)`): Go's `text/template` evaluates and checks
//! each argument against its parameter before it calls the function, and
//! refuses a wrong one at the argument, not at the function. A function
//! not listed takes `interface {}` only and checks its arguments itself.

/// A parameter's Go type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Param {
    Any,
    String,
    Int,
    Float64,
    Bool,
    Map,
    /// Go's builtins take `reflect.Value`: anything.
    Reflect,
}

impl Param {
    /// The type as Go's messages name it.
    pub fn go_name(self) -> &'static str {
        match self {
            Param::Any => "interface {}",
            Param::String => "string",
            Param::Int => "int",
            Param::Float64 => "float64",
            Param::Bool => "bool",
            Param::Map => "map[string]interface {}",
            Param::Reflect => "reflect.Value",
        }
    }
}

/// A function's parameters: the fixed ones, and the type of the variadic
/// rest if it has one.
pub type Signature = (&'static [Param], Option<Param>);

/// The signature of `name` (Sprig v3.3.0's, Sveltos', Helm's `required`,
/// Go's builtins), or `None` for a function of `interface {}` parameters.
pub fn signature(name: &str) -> Option<Signature> {
    use Param::*;
    Some(match name {
        "fail" | "atoi" | "b64enc" | "b64dec" | "sha256sum" | "sha1sum" | "semver" | "upper"
        | "lower" | "title" | "untitle" | "trim" | "nospace" | "fromYaml" | "fromYamlArray"
        | "fromJson" | "fromJsonArray" => (&[String], None),
        "trimAll" | "trimPrefix" | "trimSuffix" | "contains" | "hasPrefix" | "hasSuffix"
        | "split" | "splitList" | "regexMatch" | "regexFind" | "semverCompare" => {
            (&[String, String], None)
        }
        "replace" | "regexReplaceAll" => (&[String, String, String], None),
        "trunc" | "abbrev" | "repeat" | "indent" | "nindent" => (&[Int, String], None),
        "substr" => (&[Int, Int, String], None),
        "join" | "kindIs" | "required" => (&[String, Any], None),
        "ternary" => (&[Any, Any, Bool], None),
        "get" | "unset" | "hasKey" => (&[Map, String], None),
        "set" => (&[Map, String, Any], None),
        "keys" => (&[], Some(Map)),
        "values" => (&[Map], None),
        "pluck" => (&[String], Some(Map)),
        "pick" | "omit" => (&[Map], Some(String)),
        "merge" | "mergeOverwrite" => (&[Map], Some(Map)),
        "round" => (&[Any, Int], Some(Float64)),
        "until" => (&[Int], None),
        "untilStep" => (&[Int, Int, Int], None),
        "seq" => (&[], Some(Int)),
        "printf" => (&[String], Some(Any)),
        "not" | "len" => (&[Reflect], None),
        "index" | "eq" => (&[Reflect], Some(Reflect)),
        "lt" | "le" | "gt" | "ge" | "ne" => (&[Reflect, Reflect], None),
        _ => return None,
    })
}
