use thiserror::Error;

/// What can go wrong while reconciling. People never read these directly:
/// they read status conditions, which say what to do.
#[derive(Error, Debug)]
pub enum Error {
    /// Said in words: the API server's message, never its Debug dump.
    #[error("{}", kube_words(.0))]
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

/// A client error in words: the API server's own message
/// (`namespaces "bomb-4977" not found`), or why it could not be reached
/// (`cannot reach the API server: connection refused`).
pub fn kube_words(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) if status.message.is_empty() => {
            format!("the API server said {} ({})", status.reason, status.code)
        }
        kube::Error::Api(status) => status.message.clone(),
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
            format!(
                "cannot reach the API server: {}",
                crate::store::cause(error)
            )
        }
        other => other.to_string(),
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn api(code: u16, reason: &str, message: &str) -> kube::Error {
        kube::Error::Api(
            kube::core::Status::failure(message, reason)
                .with_code(code)
                .boxed(),
        )
    }

    #[test]
    fn api_errors_read_as_the_servers_words() {
        let e = Error::Kube(api(404, "NotFound", "namespaces \"bomb-4977\" not found"));
        assert_eq!(e.to_string(), "namespaces \"bomb-4977\" not found");
        let e = Error::Kube(api(500, "InternalError", ""));
        assert_eq!(e.to_string(), "the API server said InternalError (500)");
        for text in [
            Error::Kube(api(409, "Conflict", "the object has been modified")).to_string(),
            Error::Finalizer(Box::new(kube::runtime::finalizer::Error::ApplyFailed(
                Error::Kube(api(403, "Forbidden", "forbidden: cannot patch")),
            )))
            .to_string(),
        ] {
            assert!(!text.contains("Status {"), "{text}");
            assert!(!text.contains("ApiError"), "{text}");
        }
    }
}
