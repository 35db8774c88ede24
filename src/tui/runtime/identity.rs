//! Who the console acts as: the name its requests on rollouts carry.

use std::time::Duration;

use k8s_openapi::api::authentication::v1::SelfSubjectReview;
use kube::Api;

/// Who the console acts as: the API server's answer (a SelfSubjectReview),
/// else the kubeconfig context's user, else `$USER`.
pub async fn whoami(client: kube::Client, kubeconfig_user: Option<String>) -> String {
    let api: Api<SelfSubjectReview> = Api::all(client);
    let review = tokio::time::timeout(
        Duration::from_secs(5),
        api.create(
            &kube::api::PostParams::default(),
            &SelfSubjectReview::default(),
        ),
    )
    .await;
    let from_server = match review {
        Ok(Ok(r)) => r
            .status
            .and_then(|s| s.user_info)
            .and_then(|u| u.username)
            .filter(|u| !u.is_empty()),
        Ok(Err(error)) => {
            tracing::info!(%error, "cannot ask the API server who the console is");
            None
        }
        Err(_) => {
            tracing::info!("the API server did not say who the console is in time");
            None
        }
    };
    from_server
        .or(kubeconfig_user.filter(|u| !u.is_empty()))
        .or_else(|| std::env::var("USER").ok().filter(|u| !u.is_empty()))
        .unwrap_or_else(|| "unknown".into())
}
