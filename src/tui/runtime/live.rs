//! What the console watches now, and switching it: `:ns` watches another
//! namespace of the same cluster, `:ctx` another context's cluster.
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
//! - [`Live`]: the place, the engine and a connection on its way; the
//!   loop takes its messages and hands it the switching commands.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use k8s_openapi::api::core::v1::Namespace;
use kube::Api;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::engine::read_only::Access;
use crate::engine::{Context, Counters, EngineOptions};
use crate::store::{Kinds, Scope, Stores};
use crate::tui::runtime::connect::{Connection, connect};
use crate::tui::runtime::engine_task::{spawn_engine, stop_engine};
use crate::tui::runtime::feeds::{self, EventStore, Readers};
use crate::tui::runtime::writer::Writer;
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
    /// Starts watching `kinds` in `namespace` (`None`: all).
    pub fn start(client: &kube::Client, namespace: Option<String>, kinds: Kinds) -> Arc<Watched> {
        let scope = Scope {
            namespace: namespace.clone(),
        };
        let (stores, mut watches) = Stores::watching(client, &scope, kinds);
        // The first screen draws from the first pages while the full lists
        // come.
        watches.extend(stores.first_pages.shown(FIRST_PAGE));
        let (events, event_watches) = feeds::watch_events(client, &scope);
        watches.extend(event_watches);
        let watches = tokio::spawn(async move {
            futures::future::join_all(watches).await;
        });
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

/// The in-process engine on one cluster, over the stores of its scope.
struct EngineRun {
    watched: Arc<Watched>,
    handle: JoinHandle<()>,
    shutdown: CancellationToken,
}

impl EngineRun {
    /// Starts the engine over `watched` once `before` (the engine of the
    /// context left behind) has stopped and let go of its lease.
    fn start(
        client: kube::Client,
        watched: Arc<Watched>,
        before: Option<EngineRun>,
        options: EngineOptions,
        tx: UnboundedSender<Msg>,
    ) -> EngineRun {
        let shutdown = CancellationToken::new();
        let ctx = Arc::new(Context::new(
            client,
            watched.stores.clone(),
            Arc::new(Counters::default()),
            options,
        ));
        let scope = watched.namespace.clone();
        let stop = shutdown.clone();
        let handle = tokio::spawn(async move {
            if let Some(before) = before {
                stop_engine(Some(before.handle), &before.shutdown).await;
            }
            if stop.is_cancelled() {
                return;
            }
            let _ = spawn_engine(ctx, scope, stop, tx).await;
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
        let readers = Readers::new(&watched.stores, &watched.events).only(namespace.clone());
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
) -> Place {
    let watched = match engine {
        Some(engine) if engine.watched.covers(namespace.as_deref()) => engine.watched.clone(),
        // Its own: only what the console shows.
        _ => Watched::start(&client, namespace.clone(), Kinds::Shown),
    };
    Place::start(client, context, cluster, namespace, watched)
}

/// How the console was started, for the places it switches to.
pub struct Start {
    pub kubeconfig: Option<PathBuf>,
    /// Run the engine in-process, over this scope (`None`: all).
    pub engine: Option<Option<String>>,
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
}

/// The place shown, the engine, and a context being connected to.
pub struct Live {
    pub place: Place,
    /// The current context's writer.
    pub writer: Arc<Writer>,
    /// The loop's own channel, for the engine's messages.
    tx: UnboundedSender<Msg>,
    start: Start,
    engine: Option<EngineRun>,
    connecting: Option<JoinHandle<Result<Connection, String>>>,
}

impl Live {
    /// The first place: `conn`'s context and namespace, with the engine
    /// when `start` asks for one. `tx` is the loop's own channel, for the
    /// engine's and the writes' messages.
    pub fn new(conn: Connection, start: Start, tx: UnboundedSender<Msg>) -> Live {
        let writer = Arc::new(Writer::new(
            conn.client.clone(),
            start.readonly_at(&conn.context),
            conn.kubeconfig_user.clone(),
        ));
        let engine = start.engine_at(&conn.context).map(|scope| {
            let watched = Watched::start(&conn.client, scope, Kinds::All);
            EngineRun::start(
                conn.client.clone(),
                watched,
                None,
                start.engine_options.clone(),
                tx.clone(),
            )
        });
        let place = place_at(
            engine.as_ref(),
            conn.client,
            conn.context,
            conn.cluster,
            conn.namespace,
        );
        let live = Live {
            place,
            writer,
            tx,
            start,
            engine,
            connecting: None,
        };
        live.ask_identity();
        live
    }

    /// Who the console is on the current context, once: shown when asking
    /// to confirm.
    fn ask_identity(&self) {
        if !self.start.readonly_at(&self.place.context) {
            let (writer, tx) = (self.writer.clone(), self.place.tx.clone());
            tokio::spawn(async move {
                let user = writer.user().await;
                let _ = tx.send(Msg::Identity(user));
            });
        }
    }

    /// Moves to a new context: its engine (once the old one stopped), its
    /// writer, its place. Returns the message that says where the console
    /// is now.
    fn arrive(&mut self, conn: Connection) -> Msg {
        let before = self.engine.take();
        if let Some(before) = &before {
            before.shutdown.cancel();
        }
        match self.start.engine_at(&conn.context) {
            Some(scope) => {
                let watched = Watched::start(&conn.client, scope, Kinds::All);
                self.engine = Some(EngineRun::start(
                    conn.client.clone(),
                    watched,
                    before,
                    self.start.engine_options.clone(),
                    self.tx.clone(),
                ));
            }
            // None there (a read-only context): the one left behind stops
            // and lets go of its lease all the same.
            None => {
                if let Some(before) = before {
                    tokio::spawn(async move {
                        stop_engine(Some(before.handle), &before.shutdown).await;
                    });
                }
            }
        }
        self.writer = Arc::new(Writer::new(
            conn.client.clone(),
            self.start.readonly_at(&conn.context),
            conn.kubeconfig_user,
        ));
        self.place = place_at(
            self.engine.as_ref(),
            conn.client,
            conn.context,
            conn.cluster,
            conn.namespace,
        );
        self.ask_identity();
        self.place.switched()
    }

    /// The engine's scope, for the header, when it runs.
    pub fn engine_scope(&self) -> Option<Option<String>> {
        self.start.engine.clone()
    }

    /// `:ns`: the same context, another namespace; at once.
    pub fn namespace(&mut self, namespace: Option<String>) -> Msg {
        let place = place_at(
            self.engine.as_ref(),
            self.place.client.clone(),
            self.place.context.clone(),
            self.place.cluster.clone(),
            namespace,
        );
        self.place = place;
        self.place.switched()
    }

    /// `:ctx`: connects in the background; [`Live::next`] says how it went.
    pub fn context(&mut self, name: String, namespace: Option<String>) {
        if let Some(old) = self.connecting.take() {
            old.abort();
        }
        let path = self.start.kubeconfig.clone();
        let engine = self.start.engine_at(&name).is_some();
        let access = Access::from_readonly(self.start.readonly_at(&name));
        self.connecting = Some(tokio::spawn(connect(path, name, namespace, engine, access)));
    }

    /// The next message of the place, or how a connection went.
    pub async fn next(&mut self) -> Msg {
        let done = {
            let Live {
                place, connecting, ..
            } = self;
            let connection = async {
                match connecting.as_mut() {
                    Some(task) => task.await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                msg = place.rx.recv() => match msg {
                    Some(msg) => return msg,
                    // The place keeps a sender: never.
                    None => return std::future::pending::<Msg>().await,
                },
                done = connection => done,
            }
        };
        self.connecting = None;
        match done {
            Ok(Ok(conn)) => self.arrive(conn),
            Ok(Err(why)) => Msg::SwitchFailed(why),
            Err(e) => Msg::SwitchFailed(format!("cannot switch context: {e}")),
        }
    }

    /// Stops the engine (at most 10 s) and every watch.
    pub async fn stop(mut self) {
        if let Some(connecting) = self.connecting.take() {
            connecting.abort();
        }
        if let Some(engine) = self.engine.take() {
            stop_engine(Some(engine.handle), &engine.shutdown).await;
        }
    }
}
