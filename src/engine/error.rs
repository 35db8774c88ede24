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
    NameConflict(Conflict),
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

/// An object that has the name the engine wants to write, and belongs to
/// something else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    /// The kind, in the product's words.
    pub noun: &'static str,
    pub name: String,
    /// Whose it is: `cluster x (service ingress)`, or `None` when it is not
    /// the engine's at all.
    pub holder: Option<String>,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Conflict { noun, name, .. } = self;
        match &self.holder {
            Some(h) => write!(f, "{noun} {name} belongs to {h}; rename one of them"),
            None => write!(
                f,
                "{noun} {name} already exists and is not managed by hmc-tui; \
                 it is left alone: rename one of them or remove it"
            ),
        }
    }
}
