//! What one run of a template may cost: the run and the functions that
//! build strings and lists check the same numbers.

/// What one run may cost.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Nodes, commands and iterations together.
    pub steps: usize,
    /// Bytes of output.
    pub output: usize,
    /// How deep `template` calls may nest.
    pub calls: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            steps: 1_000_000,
            output: 1 << 20,
            calls: 32,
        }
    }
}
