//! What one run of a template may cost: the run and the functions that
//! build strings and lists check the same numbers.

use std::time::Duration;

/// What one run may cost.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Nodes, commands and iterations together.
    pub steps: usize,
    /// Bytes of output.
    pub output: usize,
    /// How deep `template` calls may nest.
    pub calls: usize,
    /// `range` iterations, all `range`s of the run together.
    pub ranges: usize,
    /// Wall-clock time of the run: a backstop, as the step budget stops a
    /// template long before on any machine.
    pub time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            steps: 1_000_000,
            output: 1 << 20,
            calls: 32,
            ranges: 100_000,
            time: Duration::from_millis(200),
        }
    }
}
