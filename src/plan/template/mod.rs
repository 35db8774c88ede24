//! Values templated from the cluster: Go's `text/template` language, as
//! Sveltos and k0rdent users write it in a service's values, read and run
//! by the engine itself, bounded.
//!
//! Work in progress: the lexer, the parser, the values with Go's printing
//! and a bounded run with `missingkey=error`; the functions (Go's own and
//! Sprig's), errors with line and column, and the Go oracle come next.

pub mod exec;
pub mod lex;
pub mod parse;
pub mod value;
