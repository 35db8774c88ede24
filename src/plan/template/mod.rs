//! Values templated from the cluster: Go's `text/template` language, as
//! Sveltos and k0rdent users write it in a service's values, read and run
//! by the engine itself, bounded.
//!
//! Work in progress: the lexer, the parser and the values with Go's
//! printing; evaluation, the functions
//! and the bounds of a run come next.

pub mod lex;
pub mod parse;
pub mod value;
