//! Start-up failures the user can fix: a context that does not exist, a
//! server that does not answer, missing CRDs, missing permission. Each is
//! a [`UserError`]: one plain paragraph with what to do, which the binary
//! prints and exits 1 on, without a crash report or a backtrace (those
//! stay for real bugs).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;

use crate::capi;
use crate::engine::error::kube_words;

/// What to run to install our CRDs.
pub const INSTALL_CRDS: &str = "apply assets/crds/ (`kubectl apply -f assets/crds/`) or run `hmc-tui crds | kubectl apply -f -`";

/// A start-up failure of the user's setup, in words, with what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UserError(pub String);

/// Where the console or the engine points, for the messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub cluster: String,
    pub context: String,
}

/// `--context` names a context the kubeconfig does not have.
pub fn unknown_context(wanted: &str, contexts: &[String], current: Option<&str>) -> UserError {
    let known = if contexts.is_empty() {
        "it has no contexts at all".to_string()
    } else {
        let list: Vec<String> = contexts
            .iter()
            .map(|c| {
                if Some(c.as_str()) == current {
                    format!("{c} (current)")
                } else {
                    c.clone()
                }
            })
            .collect();
        format!("its contexts are: {}", list.join(", "))
    };
    UserError(format!(
        "the kubeconfig has no context \"{wanted}\"; {known}. \
         Pass one of them with --context, or leave --context out to use the current one."
    ))
}

/// The kubeconfig could not be read or used.
pub fn bad_kubeconfig(what: &str) -> UserError {
    UserError(format!(
        "cannot use the kubeconfig: {what}. Pass one with --kubeconfig PATH or set KUBECONFIG, \
         and check it with `kubectl config view`."
    ))
}

/// The first request failed: the server is unreachable, refuses the
/// credentials or the permission; anything else in the server's words.
pub fn request_failed(error: &kube::Error, target: &Target) -> UserError {
    let Target { cluster, context } = target;
    let check = format!("`kubectl --context {context} get crds`");
    UserError(match error {
        kube::Error::HyperError(_) | kube::Error::Service(_) | kube::Error::ReadEvents(_) => {
            format!(
                "cannot reach the API server at {cluster} (context {context}): {}. \
                 Check that the cluster runs and that the context points to it \
                 (`kubectl --context {context} cluster-info`).",
                crate::store::cause(error)
            )
        }
        kube::Error::Api(s) if s.code == 401 => format!(
            "the API server at {cluster} does not accept the credentials of context {context}: \
             {}. Log in again, or choose another context with --context.",
            kube_words(error)
        ),
        kube::Error::Api(s) if s.code == 403 => format!(
            "not allowed to read CustomResourceDefinitions on {cluster} (context {context}): {}. \
             Ask for get on customresourcedefinitions.apiextensions.k8s.io and on the \
             hmc.mirantis.com kinds, or use a context that has it; {check} shows what you may read.",
            kube_words(error)
        ),
        _ => format!(
            "cannot read CustomResourceDefinitions on {cluster} (context {context}): {}. \
             {check} shows whether the cluster answers.",
            kube_words(error)
        ),
    })
}

/// CRDs that are not installed, each as `name (how to install it)`.
pub fn missing_crds(missing: &[String], target: &Target) -> UserError {
    UserError(format!(
        "CRDs missing on {} (context {}): {}. To install ours, {INSTALL_CRDS}.",
        target.cluster,
        target.context,
        missing.join("; ")
    ))
}

/// The console's own kinds: a store whose kind is missing never lists.
const CONSOLE_CRDS: &[&str] = &[
    "managedclusters.hmc.mirantis.com",
    "clustertemplates.hmc.mirantis.com",
    "servicetemplates.hmc.mirantis.com",
    "templaterollouts.hmc.mirantis.com",
    "multiclusterservices.hmc.mirantis.com",
];

/// Fails early, with what to install or fix, when the CRDs are missing or
/// cannot be read: the engine's (when it runs) or the console's own.
/// `also` follows the list of missing CRDs (another way out).
pub async fn check_crds(
    client: &kube::Client,
    engine: bool,
    target: &Target,
    also: Option<&str>,
) -> Result<(), UserError> {
    let missing = if engine {
        crate::engine::missing_crds(client)
            .await
            .map_err(|e| request_failed(&e, target))?
    } else {
        // At once, and only their metadata: the schemas are most of a
        // CRD, and nothing here reads them.
        let api: Api<CustomResourceDefinition> = Api::all(client.clone());
        let found = futures::future::try_join_all(
            CONSOLE_CRDS.iter().map(|name| api.get_metadata_opt(name)),
        )
        .await
        .map_err(|e| request_failed(&e, target))?;
        CONSOLE_CRDS
            .iter()
            .zip(found)
            .filter(|(_, crd)| crd.is_none())
            .map(|(name, _)| name.to_string())
            .collect()
    };
    if missing.is_empty() {
        return Ok(());
    }
    let mut error = missing_crds(&missing, target);
    if let Some(also) = also {
        error.0.push(' ');
        error.0.push_str(also);
    }
    Err(error)
}

/// Which version of Cluster API's `Cluster` to read on `client`'s cluster,
/// asked once per connection ([`capi::discover`]). When the API server
/// cannot be asked, `v1beta1`, as before discovery, which Cluster API
/// still serves; a warning says why.
pub async fn capi_version(client: &kube::Client, target: &Target) -> capi::Version {
    match capi::discover(client).await {
        Ok(version) => {
            tracing::info!(context = %target.context, %version, "reading Cluster API clusters");
            version
        }
        Err(error) => {
            let version = capi::Version::choose([]);
            tracing::warn!(
                context = %target.context,
                %version,
                error = %kube_words(&error),
                "cannot ask which versions of Cluster API are served; reading the older one"
            );
            version
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target() -> Target {
        Target {
            cluster: "https://127.0.0.1:6443".into(),
            context: "kind-mgmt".into(),
        }
    }

    #[test]
    fn an_unknown_context_lists_the_ones_there_are() {
        let e = unknown_context(
            "nosuch",
            &["kind-mgmt".into(), "prod".into()],
            Some("kind-mgmt"),
        );
        assert_eq!(
            e.to_string(),
            "the kubeconfig has no context \"nosuch\"; its contexts are: kind-mgmt (current), prod. \
             Pass one of them with --context, or leave --context out to use the current one."
        );
        assert!(
            unknown_context("x", &[], None)
                .0
                .contains("it has no contexts at all")
        );
    }

    #[test]
    fn refused_requests_say_what_to_do_in_words() {
        let api = |code: u16, reason: &str, message: &str| {
            kube::Error::Api(
                kube::core::Status::failure(message, reason)
                    .with_code(code)
                    .boxed(),
            )
        };
        let forbidden = request_failed(
            &api(403, "Forbidden", "user \"bob\" cannot get resource"),
            &target(),
        )
        .0;
        assert!(
            forbidden.starts_with(
                "not allowed to read CustomResourceDefinitions on https://127.0.0.1:6443 (context kind-mgmt): user \"bob\" cannot get resource."
            ),
            "{forbidden}"
        );
        let unauthorized = request_failed(&api(401, "Unauthorized", "Unauthorized"), &target()).0;
        assert!(unauthorized.contains("Log in again"), "{unauthorized}");
        for text in [forbidden, unauthorized] {
            assert!(!text.contains("Status {"), "{text}");
            assert!(!text.contains('\n'), "one paragraph: {text}");
        }
    }

    #[test]
    fn missing_crds_say_how_to_install_them() {
        let e = missing_crds(&["managedclusters.hmc.mirantis.com".into()], &target());
        assert!(e.0.contains("kubectl apply -f assets/crds/"), "{e}");
        assert!(e.0.contains("hmc-tui crds | kubectl apply -f -"), "{e}");
    }
}
