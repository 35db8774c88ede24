//! Where a template's chart repository comes from: the one it names, or,
//! for a template that names none (as hmc's templates do), the engine's
//! default repository.
//!
//! The default repository is a chart repository (a Flux `HelmRepository`)
//! that the operator keeps in the engine's system namespace, `hmc-templates`
//! in `hmc-system` as in hmc. A chart source cannot point into another
//! namespace, so the engine never points at the default repository: it
//! copies its address into the chart source it already owns in the
//! template's own namespace, and the source controller fetches the chart
//! there. A template thus still reads nothing of another tenant's namespace;
//! the system namespace is the operator's, which is the point of a default.
//!
//! Credentials do not travel: the default's `secretRef` names a Secret in the
//! system namespace, and a Secret is never copied or pointed at across
//! namespaces. A template in the system namespace uses it; a template
//! elsewhere fetches without credentials (see [`copy_of_default`]).

use kube::Api;

use super::context::{Context, EngineOptions};
use super::error::Result;
use crate::api::{Repository, RepositoryType};
use crate::flux::{HelmRepository, HelmRepositorySpec};

/// How soon a template that waits for a missing default repository looks
/// again: it picks the repository up once an operator creates it.
pub const MISSING_RETRY: std::time::Duration = std::time::Duration::from_secs(10);

/// How soon a template that uses the default repository looks at it again:
/// a change of the default's address reaches its templates within this.
pub const FOLLOW_INTERVAL: std::time::Duration = std::time::Duration::from_secs(300);

/// The chart repository of a template that names one.
pub fn named(repo: &Repository, options: &EngineOptions) -> HelmRepositorySpec {
    HelmRepositorySpec {
        url: repo.url.clone(),
        type_: (repo.type_ == RepositoryType::Oci).then(|| "oci".to_string()),
        interval: options.source_interval.clone(),
        timeout: Some(
            repo.timeout
                .clone()
                .unwrap_or_else(|| options.source_timeout.clone()),
        ),
        secret_ref: None,
        suspend: None,
    }
}

/// The chart repository of a template in `namespace` that names none: the
/// default repository's address, type, interval and timeout (ours where it
/// sets none). Its `secretRef` only for a template in the system namespace,
/// where that Secret is; elsewhere the copy has no credentials.
pub fn copy_of_default(
    default: &HelmRepositorySpec,
    namespace: &str,
    options: &EngineOptions,
) -> HelmRepositorySpec {
    let or_ours = |v: &str, ours: &str| {
        if v.is_empty() {
            ours.to_string()
        } else {
            v.to_string()
        }
    };
    HelmRepositorySpec {
        url: default.url.clone(),
        type_: default.type_.clone().filter(|t| t == "oci"),
        interval: or_ours(&default.interval, &options.source_interval),
        timeout: Some(or_ours(
            default.timeout.as_deref().unwrap_or_default(),
            &options.source_timeout,
        )),
        secret_ref: default
            .secret_ref
            .clone()
            .filter(|_| namespace == options.system_namespace),
        suspend: None,
    }
}

/// `chart repository hmc-system/hmc-templates`, as people read it.
pub fn describe(options: &EngineOptions) -> String {
    format!(
        "chart repository {}/{}",
        options.system_namespace, options.default_repository
    )
}

/// Why a template that names no repository cannot have its chart yet.
pub fn missing(options: &EngineOptions) -> String {
    format!(
        "{} not found: a template that names no repository takes its chart from the default repository; create it, or set spec.helm.repository",
        describe(options)
    )
}

/// A default repository that exists but gives no address.
pub fn without_url(options: &EngineOptions) -> String {
    format!(
        "{} has no url: a template that names no repository takes its chart from it",
        describe(options)
    )
}

/// The chart repository a template in `namespace` that names none uses, or
/// why there is none yet, in words for its status.
pub async fn resolve(
    ctx: &Context,
    namespace: &str,
) -> Result<std::result::Result<HelmRepositorySpec, String>> {
    let options = &ctx.options;
    let api: Api<HelmRepository> = Api::namespaced(ctx.client.clone(), &options.system_namespace);
    let found = match api.get_opt(&options.default_repository).await {
        Ok(found) => found,
        Err(kube::Error::Api(e)) if e.code == 403 => {
            return Ok(Err(format!(
                "cannot read {}: the engine is not allowed to ({})",
                describe(options),
                e.message
            )));
        }
        Err(e) => return Err(e.into()),
    };
    Ok(match found {
        None => Err(missing(options)),
        Some(repo) if repo.spec.url.is_empty() => Err(without_url(options)),
        Some(repo) => Ok(copy_of_default(&repo.spec, namespace, options)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ChartSource, HelmSpec};
    use crate::flux::SecretRef;

    fn default_repo() -> HelmRepositorySpec {
        HelmRepositorySpec {
            url: "oci://ghcr.io/mirantis/hmc/charts".into(),
            type_: Some("oci".into()),
            interval: "1m".into(),
            timeout: None,
            secret_ref: Some(SecretRef {
                name: "registry-creds".into(),
            }),
            suspend: None,
        }
    }

    #[test]
    fn a_template_naming_no_repository_uses_the_default() {
        let helm = HelmSpec {
            chart_name: Some("ingress-nginx".into()),
            chart_version: Some("4.11.3".into()),
            ..Default::default()
        };
        assert_eq!(helm.validate(), Ok(ChartSource::DefaultRepository));
        let named = HelmSpec {
            repository: Some(Repository {
                url: "https://charts.example.com".into(),
                ..Default::default()
            }),
            ..helm.clone()
        };
        assert!(matches!(named.validate(), Ok(ChartSource::Repository(_))));
        let empty_url = HelmSpec {
            repository: Some(Repository::default()),
            ..helm.clone()
        };
        assert!(empty_url.validate().unwrap_err().contains("url is empty"));
        let empty_name = HelmSpec {
            chart_name: Some(String::new()),
            ..helm
        };
        assert!(empty_name.validate().is_err());
        assert!(HelmSpec::default().validate().is_err());
    }

    #[test]
    fn the_copy_keeps_address_type_and_interval() {
        let options = EngineOptions::default();
        let copy = copy_of_default(&default_repo(), "team-a", &options);
        assert_eq!(copy.url, "oci://ghcr.io/mirantis/hmc/charts");
        assert_eq!(copy.type_.as_deref(), Some("oci"));
        assert_eq!(copy.interval, "1m");
        assert_eq!(
            copy.timeout.as_deref(),
            Some("20s"),
            "ours where it sets none"
        );
    }

    #[test]
    fn credentials_stay_in_the_system_namespace() {
        let options = EngineOptions::default();
        assert_eq!(options.system_namespace, "hmc-system");
        let elsewhere = copy_of_default(&default_repo(), "team-a", &options);
        assert_eq!(elsewhere.secret_ref, None);
        let at_home = copy_of_default(&default_repo(), "hmc-system", &options);
        assert_eq!(at_home.secret_ref.unwrap().name, "registry-creds");
    }

    #[test]
    fn a_classic_default_with_no_interval_gets_ours() {
        let options = EngineOptions::default();
        let spec = HelmRepositorySpec {
            url: "https://charts.example.com".into(),
            type_: Some("default".into()),
            ..Default::default()
        };
        let copy = copy_of_default(&spec, "team-a", &options);
        assert_eq!(copy.type_, None, "a classic repository states no type");
        assert_eq!(copy.interval, options.source_interval);
    }

    #[test]
    fn a_missing_default_is_named_with_its_namespace() {
        let options = EngineOptions {
            system_namespace: "platform".into(),
            default_repository: "charts".into(),
            ..Default::default()
        };
        let why = missing(&options);
        assert!(
            why.starts_with("chart repository platform/charts not found"),
            "{why}"
        );
        assert!(!why.contains("HelmRepository"), "{why}");
    }
}
