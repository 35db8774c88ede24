//! The engine in the console's process: whether it may run on a cluster at
//! all, and a task that reconciles while it holds the lease, telling the
//! loop when it leads and when it stops.
//!
//! A console never takes the fleet from an installed engine. Before its
//! engine competes for the lease of a context, the console reads the
//! engines' Leases and the installed engine's Deployment there
//! ([`look`]); [`stance`] decides ([`installed`] does both). It only
//! observes (its engine never starts, so it never writes the Lease, and
//! the console reads what it shows only, as under `--no-engine`) when:
//!
//! - a Deployment of the engine (labels [`ENGINE_DEPLOYMENT_LABELS`], as
//!   the chart `assets/chart/hmc-tui` sets them) is in the system
//!   namespace;
//! - a Lease of its scope has a holder that is not a console whose term
//!   has not run out, or that renewed it within [`RECENT`] (10 minutes:
//!   an engine killed, cut off or being restarted is back well within it,
//!   and an engine that left longer ago keeps no console out);
//! - either read fails (forbidden, or no answer): not knowing is treated
//!   as "an engine may be installed".
//!
//! The Leases of its scope: the cluster-wide engine's `hmc-tui-engine`,
//! and for a console of one namespace (`-n team-a`) that namespace's
//! `hmc-tui-engine.team-a`; for a console of every namespace, every
//! namespace's as well. `--force-engine` skips the check: the engine then
//! competes for the lease as any engine does, and leads once the other
//! lets go of it or its term runs out. Each open context decides alone.
//!
//! A Lease that its holder let go of (an engine stopped with SIGTERM, a
//! console that quit) keeps no holder, and the lease library writes it
//! under a field manager of its own making, which names nobody: who held
//! it cannot be told, so it does not count. An engine rolled out that
//! way is seen by its Deployment.
//!
//! A console's engine says it is one in the Lease: its holder identity
//! begins with [`CONSOLE_HOLDER`], so that consoles tell each other from
//! an installed engine.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::Api;
use kube::api::ListParams;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::engine::claims::{self, CLUSTER_LEASE};
use crate::engine::error::kube_words;
use crate::engine::leader::LeaseOptions;
use crate::engine::{self, Context};
use crate::tui::state::app::Msg;

/// How long quitting waits for the engine to stop.
const ENGINE_STOP: Duration = Duration::from_secs(10);

/// The start of a console's engine's holder identity in the Lease
/// (`console/laptop-4242`). An installed engine's identity is its host
/// name and process id, and a host name holds no `/`.
pub const CONSOLE_HOLDER: &str = "console/";

/// How long after an installed engine last renewed (or let go of) its
/// Lease the console still takes it to be there.
pub const RECENT: Duration = Duration::from_secs(600);

/// The labels of the installed engine's Deployment: the chart's
/// `app.kubernetes.io/part-of` (fixed, whatever the release's name) and
/// its engine component.
pub const ENGINE_DEPLOYMENT_LABELS: &str =
    "app.kubernetes.io/part-of=hmc-tui,app.kubernetes.io/component=engine";

/// The holder identity of a console's engine, from the one an engine
/// would take (`laptop-4242`).
pub fn console_identity(engine_identity: &str) -> String {
    format!("{CONSOLE_HOLDER}{engine_identity}")
}

/// Whether a Lease's holder identity is a console's engine.
pub fn is_console(identity: &str) -> bool {
    identity.starts_with(CONSOLE_HOLDER)
}

/// What the console read of a cluster to decide whether its engine may
/// run there.
#[derive(Clone, Debug)]
pub struct Looked {
    /// Where the engines' Leases are (`HMC_LEASE_NAMESPACE`).
    pub lease_namespace: String,
    /// Where the installed engine's Deployment would be.
    pub system_namespace: String,
    /// The Leases of the lease namespace, or why they could not be read.
    pub leases: Result<Vec<Lease>, String>,
    /// The names of the engine's Deployments in the system namespace, or
    /// why they could not be read.
    pub deployments: Result<Vec<String>, String>,
}

/// Whether the console's engine runs on a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stance {
    /// No engine is installed: it competes for the lease.
    Run,
    /// It only observes; why, in words. `installed`: an engine was seen
    /// (else the reads failed, and not knowing counts as one).
    Observe { installed: bool, why: String },
}

/// The pure decision: whether a console's engine of `scope` (`None`:
/// every namespace) runs, from what was read at `now`.
pub fn stance(looked: &Looked, scope: Option<&str>, now: Timestamp) -> Stance {
    let seen = |why: String| Stance::Observe {
        installed: true,
        why,
    };
    if let Ok(names) = &looked.deployments
        && let Some(name) = names.first()
    {
        return seen(format!(
            "the engine is installed (Deployment {}/{name})",
            looked.system_namespace
        ));
    }
    if let Ok(leases) = &looked.leases {
        let mine = leases.iter().filter(|l| of_scope(l, scope));
        if let Some(why) = mine
            .filter_map(|l| engine_of(l, &looked.lease_namespace, now))
            .next()
        {
            return seen(why);
        }
    }
    match (&looked.deployments, &looked.leases) {
        (Err(why), _) | (_, Err(why)) => Stance::Observe {
            installed: false,
            why: format!("cannot tell whether an engine is installed: {why}"),
        },
        _ => Stance::Run,
    }
}

/// Whether an engine holding `lease` reconciles some of `scope`: the
/// cluster-wide engine always; a namespace's engine that namespace, which
/// a console of every namespace covers too.
fn of_scope(lease: &Lease, scope: Option<&str>) -> bool {
    let name = lease.metadata.name.as_deref().unwrap_or_default();
    name == CLUSTER_LEASE
        || match scope {
            None => name.starts_with(&format!("{CLUSTER_LEASE}.")),
            Some(ns) => name == claims::lease_name(Some(ns)),
        }
}

/// Who, not a console, holds `lease` or held it within [`RECENT`] of
/// `now`, in words; `None` when nobody but consoles did.
fn engine_of(lease: &Lease, namespace: &str, now: Timestamp) -> Option<String> {
    let name = lease.metadata.name.as_deref().unwrap_or_default();
    let window = SignedDuration::from_secs(i64::try_from(RECENT.as_secs()).unwrap_or(i64::MAX));
    let recent = |at: Timestamp| now.duration_since(at) < window;
    let spec = lease.spec.as_ref();
    let holder = spec
        .and_then(|s| s.holder_identity.as_deref())
        .filter(|h| !h.is_empty() && !is_console(h))?;
    let renewed = spec.and_then(|s| s.renew_time.as_ref()).map(|t| t.0);
    // A holder without a renewal time: when it took the lease cannot be
    // told, so it may hold it still.
    if claims::is_held(lease, now, Duration::ZERO) || renewed.is_none() {
        return Some(format!("{holder} holds the Lease {namespace}/{name}"));
    }
    renewed.filter(|at| recent(*at)).map(|at| {
        format!(
            "{holder} held the Lease {namespace}/{name} {} ago",
            ago(now, at)
        )
    })
}

/// `12s`, `3m`: how long before `now` `at` was.
fn ago(now: Timestamp, at: Timestamp) -> String {
    let seconds = now.duration_since(at).as_secs().max(0);
    if seconds < 120 {
        format!("{seconds}s")
    } else {
        format!("{}m", seconds / 60)
    }
}

/// Reads what [`stance`] decides from: the Leases of `lease_namespace`
/// and the engine's Deployments in `system_namespace`, at once. A console
/// of one namespace reads only the two Leases that concern it, by name:
/// someone granted one namespace is seldom granted a list of every
/// engine's Lease (the chart grants that to the cluster-wide engine only).
pub async fn look(
    client: &kube::Client,
    scope: Option<&str>,
    lease_namespace: &str,
    system_namespace: &str,
) -> Looked {
    let leases: Api<Lease> = Api::namespaced(client.clone(), lease_namespace);
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), system_namespace);
    let engines = ListParams::default().labels(ENGINE_DEPLOYMENT_LABELS);
    let leases = async {
        let Some(ns) = scope else {
            return leases.list(&ListParams::default()).await.map(|l| l.items);
        };
        let own = claims::lease_name(Some(ns));
        let (cluster, own) = tokio::try_join!(leases.get_opt(CLUSTER_LEASE), leases.get_opt(&own))?;
        Ok(cluster.into_iter().chain(own).collect())
    };
    let (leases, deployments) = tokio::join!(leases, deployments.list_metadata(&engines));
    Looked {
        lease_namespace: lease_namespace.to_string(),
        system_namespace: system_namespace.to_string(),
        leases: leases.map_err(|e| {
            format!(
                "cannot read the Leases in {lease_namespace}: {}",
                kube_words(&e)
            )
        }),
        deployments: deployments
            .map(|l| {
                l.items
                    .into_iter()
                    .filter_map(|d| d.metadata.name)
                    .collect()
            })
            .map_err(|e| {
                format!(
                    "cannot read the Deployments in {system_namespace}: {}",
                    kube_words(&e)
                )
            }),
    }
}

/// Whether a console's engine of `scope` (`None`: every namespace) may run
/// on `client`'s cluster: [`look`]s, then [`stance`]; the log says why it
/// only observes.
pub async fn installed(
    client: &kube::Client,
    scope: Option<&str>,
    system_namespace: &str,
) -> Stance {
    let lease = LeaseOptions::for_scope(scope.map(String::from));
    let looked = look(client, scope, &lease.namespace, system_namespace).await;
    let decided = stance(&looked, scope, Timestamp::now());
    if let Stance::Observe { why, .. } = &decided {
        tracing::info!(%why, "the console's engine only observes here (--force-engine runs it)");
    }
    decided
}

/// The engine in a task, reconciling while it holds `lease` as a console
/// ([`console_identity`]); messages when it takes or loses the lease, and
/// when it stops without being asked to.
pub fn spawn_engine(
    ctx: Arc<Context>,
    mut lease: LeaseOptions,
    shutdown: CancellationToken,
    tx: UnboundedSender<Msg>,
) -> JoinHandle<()> {
    lease.identity = console_identity(&lease.identity);
    let (role_tx, mut role_rx) = tokio::sync::watch::channel(engine::leader::Role::Starting);
    let roles = tx.clone();
    tokio::spawn(async move {
        while role_rx.changed().await.is_ok() {
            let leading = *role_rx.borrow_and_update() == engine::leader::Role::Leader;
            if roles.send(Msg::EngineLeading(leading)).is_err() {
                break;
            }
        }
    });
    let handle = tokio::spawn(engine::leader::run_standing_down(
        ctx,
        lease,
        role_tx,
        shutdown.clone(),
    ));
    tokio::spawn(async move {
        let result = handle.await;
        if !shutdown.is_cancelled() {
            let why = match result {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(format!("the engine lease failed: {e}")),
                Err(e) if e.is_panic() => Some("it panicked; see the log file".to_string()),
                Err(e) => Some(e.to_string()),
            };
            // The log's error reaches the warnings screen; the header says
            // the engine stopped.
            tracing::error!(
                error = why.as_deref().unwrap_or("it returned"),
                "the engine stopped"
            );
            let _ = tx.send(Msg::EngineStopped(why));
        }
    })
}

/// Asks the engine to stop and waits for it, at most `ENGINE_STOP` (10 s).
pub async fn stop_engine(engine: Option<JoinHandle<()>>, shutdown: &CancellationToken) {
    if let Some(engine) = engine {
        shutdown.cancel();
        if tokio::time::timeout(ENGINE_STOP, engine).await.is_err() {
            tracing::warn!("the engine did not stop within {ENGINE_STOP:?}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::coordination::v1::LeaseSpec;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, MicroTime, Time};

    fn t0() -> Timestamp {
        "2026-12-06T15:00:00Z".parse().unwrap()
    }

    fn at(seconds: i64) -> Timestamp {
        t0().checked_add(SignedDuration::from_secs(seconds))
            .unwrap()
    }

    /// A Lease named `name`, held by `holder`, renewed `renewed` seconds
    /// after [`t0`], for 15 s.
    fn lease(name: &str, holder: Option<&str>, renewed: Option<i64>) -> Lease {
        let mut l = Lease {
            spec: Some(LeaseSpec {
                holder_identity: holder.map(String::from),
                renew_time: renewed.map(|s| MicroTime(at(s))),
                lease_duration_seconds: Some(15),
                ..Default::default()
            }),
            ..Default::default()
        };
        l.metadata.name = Some(name.into());
        l
    }

    /// `l` as an engine leaves it once let go of: no holder, no times,
    /// written `written` seconds after [`t0`] under a field manager that
    /// names no holder.
    fn let_go(mut l: Lease, written: i64) -> Lease {
        l.spec = Some(LeaseSpec {
            lease_transitions: Some(3),
            ..Default::default()
        });
        l.metadata.managed_fields = Some(vec![ManagedFieldsEntry {
            manager: Some("lease-q0e3lX89NEZDDYNGZlUKESHOmtOk55rW".into()),
            time: Some(Time(at(written))),
            ..Default::default()
        }]);
        l
    }

    fn looked(leases: Vec<Lease>) -> Looked {
        Looked {
            lease_namespace: "kube-system".into(),
            system_namespace: "hmc-system".into(),
            leases: Ok(leases),
            deployments: Ok(Vec::new()),
        }
    }

    fn why(stance: Stance) -> String {
        match stance {
            Stance::Observe {
                installed: true,
                why,
            } => why,
            other => panic!("expected an installed engine, got {other:?}"),
        }
    }

    #[test]
    fn a_console_says_it_is_one_and_an_engine_does_not() {
        let identity = console_identity("laptop-4242");
        assert_eq!(identity, "console/laptop-4242");
        assert!(is_console(&identity));
        // An engine's identity is its host name and pid: no `/` in either.
        assert!(!is_console("hmc-tui-7d9f8c5b6-x2x4q-1"));
    }

    #[test]
    fn nothing_installed_and_everything_read_runs() {
        let now = at(0);
        assert_eq!(stance(&looked(vec![]), None, now), Stance::Run);
        assert_eq!(stance(&looked(vec![]), Some("team-a"), now), Stance::Run);
        // Only consoles held it: consoles compete as before.
        let consoles = vec![lease("hmc-tui-engine", Some("console/laptop-1"), Some(-1))];
        assert_eq!(stance(&looked(consoles), None, now), Stance::Run);
        // Let go of a second ago (a console quit, or `:ctx` moved it):
        // who held it cannot be told, and it does not count.
        let released = let_go(lease("hmc-tui-engine", None, None), -1);
        assert_eq!(stance(&looked(vec![released]), None, now), Stance::Run);
    }

    #[test]
    fn an_engine_holding_the_lease_keeps_the_console_observing() {
        let held = lease("hmc-tui-engine", Some("hmc-tui-7d9f-1"), Some(-3));
        let why = why(stance(&looked(vec![held.clone()]), None, at(0)));
        assert_eq!(
            why,
            "hmc-tui-7d9f-1 holds the Lease kube-system/hmc-tui-engine"
        );
        // The cluster-wide engine covers every namespace.
        assert!(matches!(
            stance(&looked(vec![held]), Some("team-a"), at(0)),
            Stance::Observe {
                installed: true,
                ..
            }
        ));
    }

    #[test]
    fn an_engine_that_renewed_within_ten_minutes_still_counts() {
        // Term over (15 s), renewed 9 minutes ago: restarting, rolling out.
        let l = lease("hmc-tui-engine", Some("hmc-tui-7d9f-1"), Some(-540));
        assert_eq!(
            why(stance(&looked(vec![l.clone()]), None, at(0))),
            "hmc-tui-7d9f-1 held the Lease kube-system/hmc-tui-engine 9m ago"
        );
        // Eleven minutes: that engine is gone.
        assert_eq!(stance(&looked(vec![l]), None, at(120)), Stance::Run);
    }

    #[test]
    fn a_holder_with_no_renewal_time_may_hold_it_still() {
        let l = lease("hmc-tui-engine", Some("hmc-tui-7d9f-1"), None);
        assert!(why(stance(&looked(vec![l]), None, at(0))).contains("holds the Lease"));
    }

    #[test]
    fn a_namespace_engine_counts_for_its_namespace_and_for_every_namespace() {
        let team_a = lease("hmc-tui-engine.team-a", Some("hmc-tui-a-1"), Some(-1));
        let leases = looked(vec![team_a]);
        assert!(matches!(
            stance(&leases, Some("team-a"), at(0)),
            Stance::Observe { .. }
        ));
        // A console of all namespaces would reconcile beside it.
        assert!(matches!(
            stance(&leases, None, at(0)),
            Stance::Observe { .. }
        ));
        // Another namespace's console is not in its way.
        assert_eq!(stance(&leases, Some("team-b"), at(0)), Stance::Run);
        // Leases that are no engine's are nobody's business here.
        let other = lease("kube-scheduler", Some("node-1"), Some(-1));
        assert_eq!(stance(&looked(vec![other]), None, at(0)), Stance::Run);
    }

    #[test]
    fn the_engine_deployment_counts_whatever_the_leases_say() {
        let mut seen = looked(vec![]);
        seen.deployments = Ok(vec!["hmc-tui".into()]);
        seen.leases = Err("cannot read the Leases in kube-system: forbidden".into());
        assert_eq!(
            why(stance(&seen, None, at(0))),
            "the engine is installed (Deployment hmc-system/hmc-tui)"
        );
    }

    #[test]
    fn what_cannot_be_read_counts_as_an_engine_that_may_be_there() {
        let mut seen = looked(vec![]);
        seen.deployments = Err("cannot read the Deployments in hmc-system: forbidden".into());
        assert_eq!(
            stance(&seen, None, at(0)),
            Stance::Observe {
                installed: false,
                why: "cannot tell whether an engine is installed: cannot read the Deployments in hmc-system: forbidden".into()
            }
        );
        let mut seen = looked(vec![]);
        seen.leases = Err("cannot read the Leases in kube-system: forbidden".into());
        assert!(matches!(
            stance(&seen, Some("team-a"), at(0)),
            Stance::Observe {
                installed: false,
                ..
            }
        ));
        // An engine seen wins over a read that failed: it is said as seen.
        seen.leases = Ok(vec![lease("hmc-tui-engine", Some("hmc-tui-1"), Some(0))]);
        seen.deployments = Err("forbidden".into());
        assert!(why(stance(&seen, None, at(0))).starts_with("hmc-tui-1 holds"));
    }
}
