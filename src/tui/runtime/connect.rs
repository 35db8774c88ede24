//! The kubeconfig's contexts, and connecting to one of them for `:ctx`:
//! a client with the same timeouts as the one the console started with,
//! checked (it reaches its API server, which has the console's kinds)
//! before the console lets go of the old one.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};

use crate::capi;
use crate::engine;
use crate::tui::model::places::ContextInfo;
use crate::tui::runtime::checks::check_crds;

/// How long connecting to a context may take before it is refused.
pub const CONNECT: Duration = Duration::from_secs(30);

/// A client for a context, checked.
pub struct Connection {
    pub client: kube::Client,
    /// The connection `client` was made from: the in-process engine makes
    /// its own, fenced client of it (see `engine_task`). Boxed: a
    /// connection waits in a message while it opens.
    pub config: Box<kube::Config>,
    pub context: String,
    /// The API server's URL, for the header.
    pub cluster: String,
    /// The context's user, for the name requests carry.
    pub kubeconfig_user: Option<String>,
    /// The namespace to show there (`None`: all).
    pub namespace: Option<String>,
    /// The version of Cluster API's `Cluster` read there, asked once as
    /// the connection opens.
    pub capi: capi::Version,
}

/// The kubeconfig the console reads: the `--kubeconfig` file, else
/// `$KUBECONFIG` or `~/.kube/config`; `None` when there is none (in a
/// cluster).
fn read(path: Option<&Path>) -> Option<Kubeconfig> {
    match path {
        Some(path) => Kubeconfig::read_from(path).ok(),
        None => Kubeconfig::read().ok(),
    }
}

/// The kubeconfig's contexts, in its order.
pub fn contexts(path: Option<&Path>) -> Vec<ContextInfo> {
    read(path)
        .map(|k| {
            k.contexts
                .into_iter()
                .map(|c| ContextInfo {
                    namespace: c.context.as_ref().and_then(|c| c.namespace.clone()),
                    name: c.name,
                })
                .collect()
        })
        .unwrap_or_default()
}

/// What a connection is for; its refusal says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Joining {
    /// `:ctx NAME`: the first context becomes this one.
    Switch,
    /// `:ctx +NAME`, `--context a,b`: one more context.
    Add,
}

impl Joining {
    /// `cannot switch to context x: why`, `cannot open context x: why`.
    pub fn refused(self, context: &str, why: &str) -> String {
        match self {
            Joining::Switch => format!("cannot switch to context {context}: {why}"),
            Joining::Add => format!("cannot open context {context}: {why}"),
        }
    }
}

/// Connects to `context` and checks the console can work there (the API
/// server answers and has the CRDs; with `engine`, what the engine needs
/// too), within [`CONNECT`]. `Err` says why in one line. A read-only
/// console's client refuses every write (`access`).
pub async fn connect(
    path: Option<PathBuf>,
    context: String,
    namespace: Option<String>,
    engine: bool,
    access: engine::read_only::Access,
    joining: Joining,
) -> Result<Connection, String> {
    let refused = |why: String| joining.refused(&context, &why);
    let kubeconfig = read(path.as_deref()).ok_or_else(|| refused("no kubeconfig".into()))?;
    let kubeconfig_user = kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone());
    let options = KubeConfigOptions {
        context: Some(context.clone()),
        ..Default::default()
    };
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| refused(e.to_string()))?;
    let cluster = config
        .cluster_url
        .to_string()
        .trim_end_matches('/')
        .to_string();
    let client = engine::requests::counted_client(
        engine::requests::with_timeouts(config.clone()),
        Default::default(),
        access,
    )
    .map_err(|e| refused(e.to_string()))?;
    let target = crate::startup::Target {
        cluster: cluster.clone(),
        context: context.clone(),
    };
    let checks = async {
        let (checked, capi) = tokio::join!(
            check_crds(&client, engine, &target),
            crate::startup::capi_version(&client, &target)
        );
        checked.map(|()| capi)
    };
    match tokio::time::timeout(CONNECT, checks).await {
        Err(_) => Err(refused(format!(
            "{cluster} did not answer within {}s",
            CONNECT.as_secs()
        ))),
        Ok(Err(e)) => Err(refused(
            format!("{e:#}").lines().next().unwrap_or_default().into(),
        )),
        Ok(Ok(capi)) => Ok(Connection {
            client,
            config: Box::new(config),
            context,
            cluster,
            kubeconfig_user,
            namespace,
            capi,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KUBECONFIG: &str = "apiVersion: v1
kind: Config
clusters:
- name: here
  cluster: {server: 'https://127.0.0.1:1'}
users:
- name: me
  user: {token: abc}
contexts:
- name: one
  context: {cluster: here, user: me, namespace: team-a}
- name: two
  context: {cluster: here, user: me}
current-context: one
";

    fn file(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hmc-tui-connect-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("kubeconfig");
        std::fs::write(&path, KUBECONFIG).unwrap();
        path
    }

    #[test]
    fn contexts_come_with_their_namespace() {
        let path = file("contexts");
        assert_eq!(
            contexts(Some(&path)),
            vec![
                ContextInfo {
                    name: "one".into(),
                    namespace: Some("team-a".into())
                },
                ContextInfo {
                    name: "two".into(),
                    namespace: None
                },
            ]
        );
        assert!(contexts(Some(Path::new("/nonexistent/kubeconfig"))).is_empty());
    }

    /// A context nobody answers for is refused in one line, which says
    /// what the connection was for.
    #[tokio::test]
    async fn an_unreachable_context_is_refused() {
        let path = file("unreachable");
        let refusal = |context: &str, joining| {
            let (path, context) = (path.clone(), context.to_string());
            async move {
                match connect(
                    Some(path),
                    context,
                    None,
                    false,
                    Default::default(),
                    joining,
                )
                .await
                {
                    Ok(_) => panic!("connected to nothing"),
                    Err(why) => why,
                }
            }
        };
        let why = refusal("two", Joining::Switch).await;
        assert!(why.starts_with("cannot switch to context two: "), "{why}");
        assert!(!why.contains('\n'), "{why}");
        let why = refusal("nosuch", Joining::Switch).await;
        assert!(
            why.starts_with("cannot switch to context nosuch: "),
            "{why}"
        );
        // One more context beside the others says it could not open it.
        let why = refusal("two", Joining::Add).await;
        assert!(why.starts_with("cannot open context two: "), "{why}");
        assert!(!why.contains('\n'), "{why}");
    }
}
