use thiserror::Error;

/// What can go wrong while reconciling. People never read these directly:
/// they read status conditions, which say what to do.
#[derive(Error, Debug)]
pub enum Error {
    #[error("Kubernetes API: {0}")]
    Kube(#[from] kube::Error),

    #[error("finalizer: {0}")]
    Finalizer(#[source] Box<kube::runtime::finalizer::Error<Error>>),

    #[error("chart archive: {0}")]
    Artifact(#[from] super::artifact::ArtifactError),

    #[error("serialization: {0}")]
    Serde(#[from] serde_json::Error),

    #[error("object has no {0}")]
    MissingField(&'static str),

    /// An object of the name the engine wants belongs to something else.
    #[error("{0}")]
    NameConflict(super::apply::Conflict),
}

impl Error {
    /// A short, bounded label for metrics.
    pub fn metric_label(&self) -> &'static str {
        match self {
            Error::Kube(_) => "kube",
            Error::Finalizer(_) => "finalizer",
            Error::Artifact(_) => "artifact",
            Error::Serde(_) => "serde",
            Error::MissingField(_) => "missing_field",
            Error::NameConflict(_) => "name_conflict",
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
