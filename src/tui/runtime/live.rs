//! What the console watches now, and switching it: `:ns` watches another
//! namespace of the same clusters, `:ctx` another context's cluster, and
//! `:ctx +name` / `:ctx -name` open and close more contexts beside it.
//!
//! - [`Watched`]: the stores of one scope with their watches, which stop
//!   when the last holder lets go.
//! - [`Place`]: one context and namespace: the client, the stores it reads
//!   (the engine's own when they cover the namespace, else its own, of
//!   the kinds it shows only: [`Kinds::Shown`]), the
//!   feeds, and a channel of its own, so nothing from a place left behind
//!   reaches the loop.
//! - The engine keeps the scope it started with (`-n`, else all
//!   namespaces): `:ns` does not move it. `:ctx` stops it (it lets go of
//!   its lease) and starts one on the new cluster once the old one is
//!   done.
//! - Where an engine is installed, a context's engine never starts
//!   (unless `--force-engine`): the console only observes there, and
//!   reads what it shows only, as under `--no-engine`. Whether one is
//!   installed is looked up once per context, before it opens: for the
//!   first with the startup checks, for the others with their connection
//!   ([`super::engine_task`] decides).
//! - [`Opened`]: one open context: its place, its writer and its engine
//!   (each context has its own lease), with a channel for the engine's
//!   messages.
//! - [`Live`]: the open contexts (the first is the one `:ctx NAME`
//!   switches) and a connection on its way; the loop takes their messages
//!   and hands it the switching commands. A message of any context but the
//!   first comes as [`Msg::Other`], so the app knows whose it is; a
//!   context that cannot be reached says so in its own messages and never
//!   holds the others up.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::capi;
use crate::engine::leader::{Fence, LeaseOptions};
use crate::engine::read_only::Access;
use crate::engine::{self, Context, Counters, EngineOptions};
use crate::store::{Kinds, Scope, Stores};
use crate::tui::model::key::KubeContext;
use crate::tui::model::snapshot::Snapshot;
use crate::tui::runtime::connect::{Connection, Joining, connect};
use crate::tui::runtime::engine_task::{Stance, installed, spawn_engine, stop_engine};
use crate::tui::runtime::feeds::{self, EventStore, Readers};
use crate::tui::runtime::writer::{Writer, Writes};
use crate::tui::state::app::Msg;

/// How many objects of each kind shown the console reads ahead of the
/// full lists: more than a tall screen's rows.
pub const FIRST_PAGE: u32 = 500;

/// The stores of one scope, the console's Events too, with their watches;
/// dropping the last holder stops the watches.
pub struct Watched {
    pub namespace: Option<String>,
    pub stores: Stores,
    pub events: EventStore,
    watches: JoinHandle<()>,
}

impl Watched {
    /// Starts watching `kinds` in `namespace` (`None`: all), Cluster API's
    /// `Cluster`s through `capi`.
    pub fn start(
        client: &kube::Client,
        namespace: Option<String>,
        kinds: Kinds,
        capi: capi::Version,
    ) -> Arc<Watched> {
        let scope = Scope {
            namespace: namespace.clone(),
        };
        let (stores, mut watches) = Stores::watching(client, &scope, kinds, capi);
        // The first screen draws from the first pages while the full lists
        // come.
        let pages = stores.first_pages.shown(FIRST_PAGE);
        let (events, event_watches) = feeds::watch_events(client, &scope);
        watches.extend(event_watches);
        let watches = tokio::spawn(pages_first(pages, watches));
        Arc::new(Watched {
            namespace,
            stores,
            events,
            watches,
        })
    }

    /// Whether these stores hold everything of `namespace`.
    fn covers(&self, namespace: Option<&str>) -> bool {
        self.namespace.is_none() || self.namespace.as_deref() == namespace
    }
}

impl Drop for Watched {
    fn drop(&mut self) {
        self.watches.abort();
    }
}

/// How long the full lists wait for the first pages at most.
const PAGES_AHEAD: Duration = Duration::from_secs(1);

/// Drives the first pages, then the watches once the pages are in (or
/// [`PAGES_AHEAD`] on, when the API server is slow to answer). Asked
/// together, the full lists' pages (and every other context's) queue at
/// the API server beside the first pages and hold the first screen back.
async fn pages_first(pages: crate::store::Watches, watches: crate::store::Watches) {
    let pages = futures::future::join_all(pages);
    tokio::pin!(pages);
    let ahead = tokio::select! {
        _ = &mut pages => true,
        _ = tokio::time::sleep(PAGES_AHEAD) => false,
    };
    let watches = futures::future::join_all(watches);
    if ahead {
        watches.await;
    } else {
        futures::future::join(pages, watches).await;
    }
}

/// The in-process engine on one cluster, over the stores of its scope.
struct EngineRun {
    watched: Arc<Watched>,
    handle: JoinHandle<()>,
    shutdown: CancellationToken,
}

impl EngineRun {
    /// Starts the engine over `watched` once `before` (the engine of the
    /// context left behind) has stopped and let go of its lease.
    ///
    /// The engine writes through a client of its own, made from `config`
    /// and fenced by its lease as the headless engine's is: no write of its
    /// leaves the process unless the lease is surely held. `lease_client`
    /// (the console's, not fenced) takes and renews the lease; the
    /// console's own writes (a person's edits and approvals) go through it
    /// too, and are never fenced.
    fn start(
        config: kube::Config,
        lease_client: kube::Client,
        watched: Arc<Watched>,
        before: Option<EngineRun>,
        options: EngineOptions,
        tx: UnboundedSender<Msg>,
    ) -> EngineRun {
        let shutdown = CancellationToken::new();
        let counters = Arc::new(Counters::default());
        let fence = Fence::default();
        let client =
            engine::requests::fenced_client(config, counters.requests.clone(), fence.clone());
        let scope = watched.namespace.clone();
        let stores = watched.stores.clone();
        let stop = shutdown.clone();
        let handle = tokio::spawn(async move {
            if let Some(before) = before {
                stop_engine(Some(before.handle), &before.shutdown).await;
            }
            if stop.is_cancelled() {
                return;
            }
            let client = match client {
                Ok(client) => client,
                Err(error) => {
                    let why = format!("the engine's client: {error}");
                    tracing::error!(error = %why, "the engine stopped");
                    let _ = tx.send(Msg::EngineStopped(Some(why)));
                    return;
                }
            };
            let ctx = Arc::new(Context::new(client, stores, counters, options));
            let lease = LeaseOptions::for_scope(scope).fenced(fence, lease_client);
            let _ = spawn_engine(ctx, lease, stop, tx).await;
        });
        EngineRun {
            watched,
            handle,
            shutdown,
        }
    }
}

/// One context and namespace: what the console reads and hears there.
pub struct Place {
    pub client: kube::Client,
    pub context: String,
    pub cluster: String,
    pub namespace: Option<String>,
    pub readers: Readers,
    pub pending: Arc<AtomicBool>,
    /// The stores read; the engine's own when they cover the namespace.
    _watched: Arc<Watched>,
    feeds: Vec<JoinHandle<()>>,
    tx: UnboundedSender<Msg>,
    rx: UnboundedReceiver<Msg>,
}

impl Place {
    /// Reads `watched` (filtered to `namespace`) and starts its feeds and
    /// the list of the cluster's namespaces, for `:ns`.
    fn start(
        client: kube::Client,
        context: String,
        cluster: String,
        namespace: Option<String>,
        watched: Arc<Watched>,
    ) -> Place {
        let (tx, rx) = unbounded_channel();
        let pending = Arc::new(AtomicBool::new(false));
        let mut feeds = feeds::spawn(&watched.stores, &watched.events, &tx, &pending);
        feeds.push(tokio::spawn(list_namespaces(client.clone(), tx.clone())));
        let readers = Readers::new(&watched.stores, &watched.events)
            .only(namespace.clone())
            .of_context(KubeContext::from(context.as_str()));
        Place {
            client,
            context,
            cluster,
            namespace,
            readers,
            pending,
            _watched: watched,
            feeds,
            tx,
            rx,
        }
    }

    fn switched(&self) -> Msg {
        Msg::Switched {
            context: self.context.clone(),
            cluster: self.cluster.clone(),
            namespace: self.namespace.clone(),
        }
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        for task in &self.feeds {
            task.abort();
        }
    }
}

/// The namespaces of the cluster, once; nothing when the console may not
/// list them (`:ns` then offers the ones it has seen).
async fn list_namespaces(client: kube::Client, tx: UnboundedSender<Msg>) {
    let api: Api<Namespace> = Api::all(client);
    match api.list_metadata(&Default::default()).await {
        Ok(list) => {
            let names = list.items.into_iter().filter_map(|n| n.metadata.name);
            let _ = tx.send(Msg::Namespaces(names.collect()));
        }
        Err(error) => tracing::debug!(%error, "cannot list namespaces; :ns offers those seen"),
    }
}

/// A place on the engine's cluster, reading the engine's stores when
/// they cover `namespace`, else stores of its own.
fn place_at(
    engine: Option<&EngineRun>,
    client: kube::Client,
    context: String,
    cluster: String,
    namespace: Option<String>,
    capi: capi::Version,
) -> Place {
    let watched = match engine {
        Some(engine) if engine.watched.covers(namespace.as_deref()) => engine.watched.clone(),
        // Its own: only what the console shows.
        _ => Watched::start(&client, namespace.clone(), Kinds::Shown, capi),
    };
    Place::start(client, context, cluster, namespace, watched)
}

/// How the console was started, for the places it switches to.
pub struct Start {
    pub kubeconfig: Option<PathBuf>,
    /// Run the engine in-process, over this scope (`None`: all), where no
    /// engine is installed.
    pub engine: Option<Option<String>>,
    /// `--force-engine`: the engine runs even where an engine is
    /// installed (it competes for the lease).
    pub force_engine: bool,
    pub readonly: bool,
    /// Contexts the settings file makes read-only: no writes and no engine
    /// there.
    pub readonly_contexts: std::collections::BTreeSet<String>,
    /// The engine's tunables, on every context it runs on.
    pub engine_options: EngineOptions,
}

impl Start {
    /// Whether the console may not write on `context`.
    pub fn readonly_at(&self, context: &str) -> bool {
        self.readonly || self.readonly_contexts.contains(context)
    }

    /// The engine's scope on `context`, when one runs there.
    fn engine_at(&self, context: &str) -> Option<Option<String>> {
        self.engine.clone().filter(|_| !self.readonly_at(context))
    }

    /// What to look for on `context` before its engine runs.
    fn looking(&self, context: &str) -> Looking {
        Looking {
            scope: self.engine_at(context).filter(|_| !self.force_engine),
            system_namespace: self.engine_options.system_namespace.clone(),
        }
    }

    /// Whether the engine asked for on `context` may run on `client`'s
    /// cluster ([`Looking::stance`]).
    pub fn stance(
        &self,
        client: &kube::Client,
        context: &str,
    ) -> impl std::future::Future<Output = Stance> + Send + 'static {
        let (looking, client) = (self.looking(context), client.clone());
        async move { looking.stance(&client).await }
    }
}

/// Whether an engine is installed where a context's engine would run.
struct Looking {
    /// The engine's scope there; `None` when none runs there or under
    /// `--force-engine`: nothing to look for.
    scope: Option<Option<String>>,
    system_namespace: String,
}

impl Looking {
    /// [`Stance::Run`] without a look when there is nothing to look for.
    async fn stance(self, client: &kube::Client) -> Stance {
        match self.scope {
            Some(scope) => installed(client, scope.as_deref(), &self.system_namespace).await,
            None => Stance::Run,
        }
    }
}

/// One open context: the place shown there, the writer that writes there
/// and the engine that runs there.
pub struct Opened {
    pub place: Place,
    pub writer: Arc<Writer>,
    engine: Option<EngineRun>,
    /// The version of Cluster API's `Cluster` read on this context.
    capi: capi::Version,
    /// Kept so that the engine's channel stays open while the context is;
    /// its messages are tagged with the context by [`Live::next`].
    _engine_tx: UnboundedSender<Msg>,
    engine_rx: UnboundedReceiver<Msg>,
}

impl Opened {
    /// Opens `conn`'s context: its engine when `start` asks for one there
    /// and `stance` lets it run (once `before`, the engine of a context
    /// left behind, has let go of its lease), its writer, its place.
    fn open(conn: Connection, start: &Start, before: Option<EngineRun>, stance: Stance) -> Opened {
        let (engine_tx, engine_rx) = unbounded_channel();
        let scope = match (start.engine_at(&conn.context), stance) {
            (Some(_), Stance::Observe { installed, why }) => {
                let _ = engine_tx.send(Msg::EngineObserving { installed, why });
                None
            }
            (scope, _) => scope,
        };
        let engine = match scope {
            Some(scope) => {
                let watched = Watched::start(&conn.client, scope, Kinds::All, conn.capi);
                Some(EngineRun::start(
                    (*conn.config).clone(),
                    conn.client.clone(),
                    watched,
                    before,
                    start.engine_options.clone(),
                    engine_tx.clone(),
                ))
            }
            // None there (a read-only context, or an engine installed):
            // the one left behind stops and lets go of its lease all the
            // same.
            None => {
                if let Some(before) = before {
                    tokio::spawn(async move {
                        stop_engine(Some(before.handle), &before.shutdown).await;
                    });
                }
                None
            }
        };
        let writer = Arc::new(Writer::new(conn.client.clone(), conn.kubeconfig_user));
        let place = place_at(
            engine.as_ref(),
            conn.client,
            conn.context,
            conn.cluster,
            conn.namespace,
            conn.capi,
        );
        let opened = Opened {
            place,
            writer,
            engine,
            capi: conn.capi,
            _engine_tx: engine_tx,
            engine_rx,
        };
        opened.ask_identity(start);
        opened
    }

    /// Who the console is on this context, once: shown when asking to
    /// confirm.
    fn ask_identity(&self, start: &Start) {
        if !start.readonly_at(&self.place.context) {
            let (writer, tx) = (self.writer.clone(), self.place.tx.clone());
            tokio::spawn(async move {
                let user = writer.user().await;
                let _ = tx.send(Msg::Identity(user));
            });
        }
    }

    /// The same context, showing `namespace`.
    fn move_to(&mut self, namespace: Option<String>) {
        self.place = place_at(
            self.engine.as_ref(),
            self.place.client.clone(),
            self.place.context.clone(),
            self.place.cluster.clone(),
            namespace,
            self.capi,
        );
    }

    /// The context's own engine stops and lets go of its lease, in the
    /// background.
    fn close(mut self) {
        if let Some(engine) = self.engine.take() {
            engine.shutdown.cancel();
            tokio::spawn(async move {
                stop_engine(Some(engine.handle), &engine.shutdown).await;
            });
        }
    }

    /// What says the console shows this context now, for the first one or
    /// another.
    fn arrived(&self, first: bool) -> Msg {
        if first {
            self.place.switched()
        } else {
            Msg::Opened {
                context: self.place.context.clone(),
                cluster: self.place.cluster.clone(),
                namespace: self.place.namespace.clone(),
            }
        }
    }
}

/// A connection on its way: the checked client and whether its engine
/// may run there, or why there is none.
type Connecting = JoinHandle<Result<(Connection, Stance), String>>;

/// The open contexts and the connections on their way.
pub struct Live {
    /// The first is the one `:ctx NAME` switches and the header names
    /// first; never empty.
    pub open: Vec<Opened>,
    start: Start,
    connecting: Vec<(String, Joining, Connecting)>,
}

impl Live {
    /// The first context: `conn`'s context and namespace, with the engine
    /// when `start` asks for one and `stance` (from [`Start::stance`])
    /// lets it run.
    pub fn new(conn: Connection, start: Start, stance: Stance) -> Live {
        let first = Opened::open(conn, &start, None, stance);
        Live {
            open: vec![first],
            start,
            connecting: Vec::new(),
        }
    }

    /// The writer of each open context, by name.
    pub fn writers(&self) -> std::collections::BTreeMap<String, Arc<Writer>> {
        self.open
            .iter()
            .map(|o| (o.place.context.clone(), o.writer.clone()))
            .collect()
    }

    /// The console's writes, with the writer of each open context.
    pub fn writes(&self, tx: UnboundedSender<Msg>) -> Writes {
        Writes::new(self.writers(), self.open[0].writer.clone(), tx)
    }

    /// What every open context shows, as one snapshot; every place's
    /// changes are taken in.
    pub fn snapshot(&self) -> Snapshot {
        let parts = self
            .open
            .iter()
            .map(|o| {
                o.place
                    .pending
                    .store(false, std::sync::atomic::Ordering::SeqCst);
                o.place.readers.snapshot()
            })
            .collect();
        Snapshot::merge(parts)
    }

    /// The engine's scope, for the header, when it runs.
    pub fn engine_scope(&self) -> Option<Option<String>> {
        self.start.engine.clone()
    }

    /// `:ns`: every open context shows another namespace; at once. The
    /// first context's [`Msg::Switched`], then the others' [`Msg::Opened`].
    pub fn namespace(&mut self, namespace: Option<String>) -> Vec<Msg> {
        self.open
            .iter_mut()
            .enumerate()
            .map(|(i, o)| {
                o.move_to(namespace.clone());
                o.arrived(i == 0)
            })
            .collect()
    }

    /// Whether a context is still connecting (asked for, neither open nor
    /// refused yet).
    pub fn connecting(&self) -> bool {
        !self.connecting.is_empty()
    }

    /// `:ctx NAME`: connects in the background; [`Live::next`] says how it
    /// went. The first context is replaced once connected.
    pub fn context(&mut self, name: String, namespace: Option<String>) {
        self.connect(name, namespace, Joining::Switch);
    }

    /// `:ctx +NAME` and the contexts after the first of `--context a,b`:
    /// connects in the background and opens it beside the others.
    pub fn add(&mut self, name: String, namespace: Option<String>) {
        self.connect(name, namespace, Joining::Add);
    }

    fn connect(&mut self, name: String, namespace: Option<String>, joining: Joining) {
        // A newer switch replaces one on its way.
        if joining == Joining::Switch {
            self.connecting.retain(|(_, j, task)| {
                let keep = *j != Joining::Switch;
                if !keep {
                    task.abort();
                }
                keep
            });
        }
        let path = self.start.kubeconfig.clone();
        let engine = self.start.engine_at(&name).is_some();
        let access = Access::from_readonly(self.start.readonly_at(&name));
        let (looking, context) = (self.start.looking(&name), name.clone());
        let task = tokio::spawn(async move {
            let conn = connect(path, context, namespace, engine, access, joining).await?;
            let stance = looking.stance(&conn.client).await;
            Ok((conn, stance))
        });
        self.connecting.push((name, joining, task));
    }

    /// `:ctx -NAME`: closes an open context (its engine lets go of its
    /// lease). Closing the first makes the next one first. The message
    /// says so; `None` when it is not open or is the only one.
    pub fn close(&mut self, name: &str) -> Option<Msg> {
        if self.open.len() < 2 {
            return None;
        }
        let at = self.open.iter().position(|o| o.place.context == name)?;
        self.open.remove(at).close();
        Some(Msg::Closed(name.to_string()))
    }

    /// The next message of any open context (tagged with its context
    /// unless it is the first's), or how a connection went.
    pub async fn next(&mut self) -> Msg {
        /// What woke the loop: a context's message, or a connection.
        enum Woke {
            Heard(usize, Msg),
            Connected(
                usize,
                Result<Result<(Connection, Stance), String>, tokio::task::JoinError>,
            ),
        }
        let woke = {
            let Live {
                open, connecting, ..
            } = self;
            let heard = futures::future::select_all(open.iter_mut().enumerate().map(|(i, o)| {
                let Opened {
                    place, engine_rx, ..
                } = o;
                Box::pin(async move {
                    let msg = tokio::select! {
                        Some(msg) = place.rx.recv() => msg,
                        Some(msg) = engine_rx.recv() => msg,
                        // Each keeps its own senders: never.
                        else => std::future::pending::<Msg>().await,
                    };
                    (i, msg)
                })
            }));
            let connection = async {
                if connecting.is_empty() {
                    return std::future::pending().await;
                }
                let (done, at, _) =
                    futures::future::select_all(connecting.iter_mut().map(|(_, _, task)| task))
                        .await;
                (at, done)
            };
            tokio::select! {
                ((i, msg), _, _) = heard => Woke::Heard(i, msg),
                (at, done) = connection => Woke::Connected(at, done),
            }
        };
        let (at, done) = match woke {
            Woke::Heard(0, msg) => return msg,
            Woke::Heard(i, msg) => {
                return Msg::Other {
                    context: self.open[i].place.context.clone(),
                    msg: Box::new(msg),
                };
            }
            Woke::Connected(at, done) => (at, done),
        };
        let (name, joining, _) = self.connecting.remove(at);
        match (done, joining) {
            (Ok(Ok((conn, stance))), Joining::Switch) => {
                let old = self.open.remove(0);
                // Its engine lets go of its lease before the new one starts.
                let Opened { engine, .. } = old;
                let opened = Opened::open(conn, &self.start, engine, stance);
                let msg = opened.arrived(true);
                self.open.insert(0, opened);
                msg
            }
            (Ok(Ok((conn, stance))), Joining::Add) => {
                if self.open.iter().any(|o| o.place.context == conn.context) {
                    return Msg::SwitchFailed(format!("context {name} is open already"));
                }
                let opened = Opened::open(conn, &self.start, None, stance);
                let msg = opened.arrived(false);
                self.open.push(opened);
                msg
            }
            (Ok(Err(why)), Joining::Switch) => Msg::SwitchFailed(why),
            (Ok(Err(why)), Joining::Add) => Msg::OpenFailed { context: name, why },
            (Err(e), _) => Msg::SwitchFailed(format!("cannot connect to context {name}: {e}")),
        }
    }

    /// Stops every engine (at most 10 s each, together) and every watch.
    pub async fn stop(mut self) {
        for (_, _, task) in self.connecting.drain(..) {
            task.abort();
        }
        let stops = self
            .open
            .iter_mut()
            .filter_map(|o| o.engine.take())
            .map(|engine| async move {
                stop_engine(Some(engine.handle), &engine.shutdown).await;
            });
        futures::future::join_all(stops).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(engine: Option<Option<String>>, force_engine: bool) -> Start {
        Start {
            kubeconfig: None,
            engine,
            force_engine,
            readonly: false,
            readonly_contexts: ["watch".to_string()].into(),
            engine_options: EngineOptions::default(),
        }
    }

    /// A context looks for an installed engine only where its own engine
    /// would run, and never under `--force-engine`.
    #[test]
    fn a_context_looks_only_where_its_engine_would_run_unforced() {
        let team_a = Some(Some("team-a".to_string()));
        let looking = start(team_a.clone(), false).looking("prod");
        assert_eq!(looking.scope, team_a, "the engine's own scope");
        assert_eq!(
            looking.system_namespace,
            EngineOptions::default().system_namespace
        );
        assert_eq!(start(Some(None), false).looking("prod").scope, Some(None));
        assert_eq!(start(team_a.clone(), true).looking("prod").scope, None);
        assert_eq!(
            start(team_a, false).looking("watch").scope,
            None,
            "read-only"
        );
        assert_eq!(
            start(None, false).looking("prod").scope,
            None,
            "--no-engine"
        );
    }

    /// Nothing to look for: the engine runs, with no request sent (the
    /// client points nowhere).
    #[tokio::test]
    async fn nothing_to_look_for_runs_without_asking() {
        let config = kube::Config::new("http://127.0.0.1:1".parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let stance = start(Some(None), true).stance(&client, "prod").await;
        assert_eq!(stance, Stance::Run);
        // Asked, the nowhere cluster cannot be read: observe.
        let stance = start(Some(None), false).stance(&client, "prod").await;
        assert!(
            matches!(stance, Stance::Observe { installed: false, ref why } if why.starts_with("cannot tell whether an engine is installed: cannot read")),
            "{stance:?}"
        );
    }
}
