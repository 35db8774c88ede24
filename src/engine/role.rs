//! Whether this process's engine leads: told by `leader` to the console's
//! header and to `/readyz`; imports nothing from the engine.

/// Whether this process's engine reconciles right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Not yet known: the lease is being asked for.
    Starting,
    /// This engine holds the lease and reconciles.
    Leader,
    /// Another engine holds the lease; this one only watches.
    Standby,
}
