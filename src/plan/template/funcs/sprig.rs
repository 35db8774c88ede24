//! (being written)

use super::Functions;

/// Adds this module's functions.
pub fn add(_functions: &mut Functions) {}
