//! What the console checks before it starts.

use color_eyre::eyre::{Result, WrapErr, eyre};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;

use crate::engine;

/// Fails early, with what to install, when the CRDs are missing.
pub async fn check_crds(client: &kube::Client, engine: bool) -> Result<()> {
    if engine {
        engine::check_crds(client)
            .await
            .map_err(|e| eyre!("{e}\n(or run with --no-engine to only look at the cluster)"))?;
    }
    // The console's own kinds: a store whose kind is missing never lists.
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut missing = Vec::new();
    for name in [
        "managedclusters.hmc.mirantis.com",
        "clustertemplates.hmc.mirantis.com",
        "servicetemplates.hmc.mirantis.com",
        "templaterollouts.hmc.mirantis.com",
    ] {
        if api
            .get_opt(name)
            .await
            .wrap_err("cannot read CustomResourceDefinitions")?
            .is_none()
        {
            missing.push(name);
        }
    }
    if missing.is_empty() {
        Ok(())
    } else {
        Err(eyre!(
            "missing CRDs: {}; install them with `hmc-tui crds | kubectl apply -f -`",
            missing.join(", ")
        ))
    }
}
