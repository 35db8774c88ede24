//! The functions a values template may call: Go's own (`go`), the Sprig
//! functions people use in values (`sprig`) and Sveltos' YAML and JSON
//! ones (`encode`). Nothing here reads a file, the environment, the clock
//! or the network: a template's output depends on its data alone.
//!
//! `and` and `or` are not here: they stop at the first value that decides
//! them, so the run evaluates their arguments itself (`exec`).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::limits::Limits;
use super::value::Value;

pub mod encode;
pub mod go;
pub mod params;
pub mod sprig;

/// What a function may know of the run that calls it: the limits, which a
/// function that builds a string or a list checks before it allocates.
pub struct Call<'a> {
    pub limits: &'a Limits,
}

/// A function a template may call: its arguments' values in, a value out,
/// or why not (Go's text: "error calling NAME: " and this).
pub type Function = fn(&Call, &[Value]) -> Result<Value, String>;

/// The functions by name.
pub type Functions = BTreeMap<&'static str, Function>;

/// Every function a values template may call.
pub fn all() -> &'static Functions {
    static ALL: OnceLock<Functions> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut functions = Functions::new();
        go::add(&mut functions);
        sprig::add(&mut functions);
        encode::add(&mut functions);
        functions
    })
}
