//! The kubeconfig, read once for the commands that connect, and what the
//! binary takes from it: the connection (as `kube::Config::infer` would make
//! it, in its words when it cannot), the context's name and its user.

use color_eyre::eyre::Result;

use hmc_tui::engine;
use hmc_tui::startup;

use crate::cli::Cli;

/// The kubeconfig, read once for the commands that connect: `--kubeconfig`,
/// else `$KUBECONFIG` or `~/.kube/config`. The connection, the context's
/// name and its user all come from this one reading.
pub struct Kubeconfig(std::result::Result<kube::config::Kubeconfig, kube::config::KubeconfigError>);

impl Kubeconfig {
    pub fn read(cli: &Cli) -> Self {
        Self(match &cli.kubeconfig {
            Some(path) => kube::config::Kubeconfig::read_from(path),
            None => kube::config::Kubeconfig::read(),
        })
    }

    /// The file, when it could be read.
    fn file(&self) -> Option<&kube::config::Kubeconfig> {
        self.0.as_ref().ok()
    }
}

/// The user of the kubeconfig context in use: the name the console's
/// requests carry when the API server cannot say who it is.
pub fn kubeconfig_user(cli: &Cli, kubeconfig: &Kubeconfig) -> Option<String> {
    let kubeconfig = kubeconfig.file()?;
    let context = cli
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())?;
    kubeconfig
        .contexts
        .iter()
        .find(|c| c.name == context)
        .and_then(|c| c.context.as_ref())
        .and_then(|c| c.user.clone())
}

/// The kubeconfig context in use, for the console's header.
pub fn context_name(cli: &Cli, kubeconfig: &Kubeconfig) -> String {
    if let Some(context) = &cli.context {
        return context.clone();
    }
    kubeconfig
        .file()
        .and_then(|k| k.current_context.clone())
        .unwrap_or_else(|| "in-cluster".into())
}

pub async fn config(cli: &Cli, kubeconfig: &Kubeconfig) -> Result<kube::Config> {
    let options = kube::config::KubeConfigOptions {
        context: cli.context.clone(),
        ..Default::default()
    };
    let config = match (&kubeconfig.0, &cli.kubeconfig) {
        (Err(e), Some(path)) => {
            return Err(startup::bad_kubeconfig(&format!(
                "cannot read {}: {}",
                path.display(),
                words(e)
            ))
            .into());
        }
        (Err(e), None) if cli.context.is_some() => {
            return Err(startup::bad_kubeconfig(&words(e)).into());
        }
        (Ok(kc), _) if cli.kubeconfig.is_some() || cli.context.is_some() => {
            let contexts: Vec<String> = kc.contexts.iter().map(|c| c.name.clone()).collect();
            let current = kc.current_context.clone();
            kube::Config::from_custom_kubeconfig(kc.clone(), &options)
                .await
                .map_err(|e| match (&e, &cli.context) {
                    (kube::config::KubeconfigError::LoadContext(_), Some(wanted))
                        if !contexts.contains(wanted) =>
                    {
                        startup::unknown_context(wanted, &contexts, current.as_deref())
                    }
                    _ => startup::bad_kubeconfig(&words(&e)),
                })?
        }
        (read, _) => inferred(read).await.map_err(|why| {
            startup::bad_kubeconfig(&format!(
                "no kubeconfig found ($KUBECONFIG, ~/.kube/config) and not running in a cluster ({why})"
            ))
        })?,
    };
    // Connect and read timeouts; `counted_client` adds a deadline to each
    // request that is not a watch.
    Ok(engine::requests::with_timeouts(config))
}

/// What `kube::Config::infer` makes, from the kubeconfig already read: its
/// current context, else the pod's service account; `Err` says why
/// neither, in `infer`'s words.
async fn inferred(
    read: &std::result::Result<kube::config::Kubeconfig, kube::config::KubeconfigError>,
) -> std::result::Result<kube::Config, String> {
    let failed;
    let kubeconfig_error = match read {
        Ok(kc) => match kube::Config::from_custom_kubeconfig(kc.clone(), &Default::default()).await
        {
            Ok(mut config) => {
                config.apply_debug_overrides();
                return Ok(config);
            }
            Err(e) => {
                failed = e;
                &failed
            }
        },
        Err(e) => e,
    };
    match kube::Config::incluster() {
        Ok(mut config) => {
            config.apply_debug_overrides();
            Ok(config)
        }
        Err(in_cluster) => Err(words_from(
            format!(
                "failed to infer config: in-cluster: ({in_cluster}), kubeconfig: ({kubeconfig_error})"
            ),
            Some(kubeconfig_error),
        )),
    }
}

/// An error and its causes on one line, each said once.
fn words(error: &dyn std::error::Error) -> String {
    words_from(error.to_string(), error.source())
}

/// `text`, then each cause from `source` on that it does not say yet.
fn words_from(mut text: String, mut source: Option<&dyn std::error::Error>) -> String {
    while let Some(e) = source {
        let more = e.to_string();
        if !text.contains(&more) {
            text = format!("{text}: {more}");
        }
        source = e.source();
    }
    text
}
