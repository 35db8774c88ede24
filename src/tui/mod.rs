//! The terminal console.
//!
//! One task owns the [`App`]. Keys, mouse, store changes, ticks and log
//! warnings arrive as one [`Msg`] enum over a channel; [`app::update`] turns
//! them into state and [`Command`]s; the screen is redrawn only when
//! something changed, at most every [`FRAME`].
//!
//! The console reads the same reflector stores as the engine, which it runs
//! in-process unless told not to. Nothing polls the API server. It writes
//! two things, both refused when read-only: operators' requests on rollouts
//! ([`Command::Request`], a merge patch of two annotations) and values edits
//! ([`Command::ApplyValues`], a merge patch of `spec.services` guarded by
//! the resourceVersion the editor opened).

pub mod app;
pub mod config;
#[cfg(any(test, feature = "fixtures"))]
#[doc(hidden)]
pub mod fixtures;
pub mod keys;
pub mod layout;
pub mod logging;
pub mod model;
pub mod state;
pub mod theme;
pub mod views;
// The old paths, while the loop below still names them.
pub use model::events;
pub use state::editor;

use std::io::{Stdout, stdout};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use color_eyre::eyre::{Result, WrapErr, eyre};
use crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEventKind, MouseButton,
    MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::jiff::Timestamp;
use kube::Api;
use kube::runtime::reflector::Store;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::api::{ClusterTemplate, ManagedCluster, ServiceTemplate, TemplateRollout, labels};
use crate::engine::{self, Context, Counters, EngineOptions};
use crate::plan::rollout::Request;
use crate::store::{Scope, Stores};
use crate::tui::editor::{Base, EditKey, SaveError};

pub use app::{App, Command, Msg, Snapshot};
pub use theme::Theme;

/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// How long quitting waits for the engine to stop.
const ENGINE_STOP: Duration = Duration::from_secs(10);

/// How to start the console.
pub struct TuiOptions {
    pub client: kube::Client,
    /// The kubeconfig context, for the header.
    pub context: String,
    /// The API server URL, for the header.
    pub cluster: String,
    /// `None` for all namespaces.
    pub namespace: Option<String>,
    /// Run the engine in-process (`false` for `--no-engine`; ignored when
    /// `readonly`).
    pub engine: bool,
    pub theme: Theme,
    /// Never write to the cluster.
    pub readonly: bool,
    /// The kubeconfig context's user, for the name requests carry when the
    /// API server cannot say who the console is.
    pub kubeconfig_user: Option<String>,
    /// Quit right after the first full frame (drawn once the stores
    /// synced) and print how long it took from this instant, the start of
    /// the process.
    pub exit_after_first_frame: Option<std::time::Instant>,
}

/// When the stores synced and when the first full frame was drawn.
#[derive(Default)]
struct FirstFrame {
    /// Quit once it is drawn.
    exit: bool,
    synced: Option<std::time::Instant>,
    drawn: Option<std::time::Instant>,
}

impl FirstFrame {
    /// `stores synced 812 ms after start; first full frame 14 ms later (826 ms after start)`.
    fn report(&self, started: std::time::Instant) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        match (self.synced, self.drawn) {
            (Some(synced), Some(drawn)) => format!(
                "stores synced {:.0} ms after start; first full frame {:.1} ms later ({:.0} ms after start)",
                ms(synced - started),
                ms(drawn - synced),
                ms(drawn - started)
            ),
            _ => "quit before the first full frame".to_string(),
        }
    }
}

/// The stores the console reads; it keeps no subscription it does not read.
#[doc(hidden)]
pub struct Readers {
    clusters: Store<ManagedCluster>,
    cluster_templates: Store<ClusterTemplate>,
    service_templates: Store<ServiceTemplate>,
    rollouts: Store<TemplateRollout>,
    /// The console's own: the engine does not watch Events.
    events: Store<k8s_openapi::api::events::v1::Event>,
}

impl Readers {
    /// What the console shows, read from the stores: what it does each
    /// time they change.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::new(
            self.clusters.state(),
            self.cluster_templates.state(),
            self.service_templates.state(),
        )
        .with_rollouts(self.rollouts.state())
        .with_events(self.events.state())
    }
}

/// What the loop needs to write: requests on rollouts and values edits.
struct Writer {
    client: kube::Client,
    readonly: bool,
    /// Who asks, found once (see [`whoami`]).
    user: Arc<tokio::sync::OnceCell<String>>,
    kubeconfig_user: Option<String>,
    tx: UnboundedSender<Msg>,
}

/// The field manager of the console's writes.
const FIELD_MANAGER: &str = "hmc-tui-console";

impl Writer {
    /// The name requests carry, found on first use.
    async fn user(&self) -> String {
        self.user
            .get_or_init(|| whoami(self.client.clone(), self.kubeconfig_user.clone()))
            .await
            .clone()
    }

    /// Sets the request annotations on a rollout, in a task; the result
    /// comes back as [`Msg::Requested`].
    fn request(self: &Arc<Self>, namespace: String, name: String, request: Request) {
        let writer = self.clone();
        tokio::spawn(async move {
            let result = if writer.readonly {
                Err("the console is read-only (--readonly)".to_string())
            } else {
                let user = writer.user().await;
                let api: Api<TemplateRollout> = Api::namespaced(writer.client.clone(), &namespace);
                let params = kube::api::PatchParams {
                    field_manager: Some(FIELD_MANAGER.into()),
                    ..Default::default()
                };
                let patch = request_patch(&request, &user);
                match api
                    .patch(&name, &params, &kube::api::Patch::Merge(&patch))
                    .await
                {
                    Ok(_) => {
                        tracing::info!(%namespace, %name, request = %request.to_annotation(), %user, "asked the rollout");
                        Ok(())
                    }
                    Err(error) => {
                        tracing::warn!(%namespace, %name, request = %request.to_annotation(), %error, "cannot ask the rollout");
                        Err(plain_error(&error, "TemplateRollout", &name))
                    }
                }
            };
            let _ = writer.tx.send(Msg::Requested {
                name,
                request,
                result,
            });
        });
    }
}

impl Writer {
    /// Sends a values edit, in a task; the result comes back as
    /// [`Msg::ValuesApplied`]. On a conflict the object is read again, so
    /// the editor can reload it.
    fn apply_values(self: &Arc<Self>, key: EditKey, patch: serde_json::Value) {
        let writer = self.clone();
        tokio::spawn(async move {
            let result = if writer.readonly {
                Err(SaveError::Failed(
                    "the console is read-only (--readonly)".into(),
                ))
            } else {
                writer.send_values(&key, &patch).await
            };
            let _ = writer.tx.send(Msg::ValuesApplied { key, result });
        });
    }

    async fn send_values(&self, key: &EditKey, patch: &serde_json::Value) -> Result<(), SaveError> {
        let object = &key.object;
        let (ns, name) = (object.namespace.as_str(), object.name.as_str());
        let params = kube::api::PatchParams {
            field_manager: Some(FIELD_MANAGER.into()),
            ..Default::default()
        };
        let body = kube::api::Patch::Merge(patch);
        let client = self.client.clone();
        let (sent, current) = match object.kind {
            app::Kind::ManagedCluster => {
                let api: Api<ManagedCluster> = Api::namespaced(client, ns);
                match api.patch(name, &params, &body).await {
                    Ok(_) => (Ok(()), None),
                    Err(e) if is_conflict(&e) => {
                        let now = api.get_opt(name).await.ok().flatten();
                        (Err(e), Some(now.map(|o| Base::Cluster(Arc::new(o)))))
                    }
                    Err(e) => (Err(e), None),
                }
            }
            app::Kind::ClusterTemplate => {
                let api: Api<ClusterTemplate> = Api::namespaced(client, ns);
                match api.patch(name, &params, &body).await {
                    Ok(_) => (Ok(()), None),
                    Err(e) if is_conflict(&e) => {
                        let now = api.get_opt(name).await.ok().flatten();
                        (Err(e), Some(now.map(|o| Base::Template(Arc::new(o)))))
                    }
                    Err(e) => (Err(e), None),
                }
            }
            other => {
                return Err(SaveError::Failed(format!(
                    "the console does not edit values of {}",
                    other.label()
                )));
            }
        };
        let kind = object.kind.label();
        let service = &key.service;
        match (sent, current) {
            (Ok(()), _) => {
                tracing::info!(kind, namespace = ns, name, service, "saved values");
                Ok(())
            }
            (Err(error), Some(current)) => {
                tracing::warn!(kind, namespace = ns, name, service, %error, "values not saved: the object changed meanwhile");
                Err(SaveError::Conflict { current })
            }
            (Err(error), None) => {
                tracing::warn!(kind, namespace = ns, name, service, %error, "values not saved");
                Err(SaveError::Failed(plain_error(&error, kind, name)))
            }
        }
    }
}

/// Whether the API server refused a write because the object changed.
fn is_conflict(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(e) if e.code == 409)
}

/// The JSON merge patch that asks a rollout for `request` on behalf of `user`.
fn request_patch(request: &Request, user: &str) -> serde_json::Value {
    serde_json::json!({
        "metadata": {
            "annotations": {
                labels::REQUEST: request.to_annotation(),
                labels::REQUESTED_BY: user,
            }
        }
    })
}

/// An API error on a write to `kind` `name`, in plain words.
fn plain_error(error: &kube::Error, kind: &str, name: &str) -> String {
    match error {
        kube::Error::Api(e) => match e.code {
            401 => "the cluster did not accept the console's credentials".into(),
            403 => format!(
                "not allowed to change {kind} {name} ({}); ask for patch on {}s",
                e.message,
                kind.to_lowercase()
            ),
            404 => format!("{kind} {name} no longer exists"),
            409 => format!("{kind} {name} changed meanwhile; try again"),
            _ if e.message.is_empty() => format!("the API server said {} ({})", e.reason, e.code),
            _ => e.message.clone(),
        },
        kube::Error::HyperError(_) | kube::Error::Service(_) => {
            format!("cannot reach the API server: {error}")
        }
        other => other.to_string(),
    }
}

/// Who the console acts as: the API server's answer (a SelfSubjectReview),
/// else the kubeconfig context's user, else `$USER`.
async fn whoami(client: kube::Client, kubeconfig_user: Option<String>) -> String {
    use k8s_openapi::api::authentication::v1::SelfSubjectReview;
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

/// Runs the console until the user quits.
pub async fn run(opts: TuiOptions) -> Result<()> {
    // A read-only console writes nothing, so it runs no engine either.
    let run_engine = opts.engine && !opts.readonly;
    let (tx, mut rx) = unbounded_channel::<Msg>();
    let log = logging::init(tx.clone());
    if let Ok(path) = &log {
        tracing::info!(path = %path.display(), context = %opts.context, cluster = %opts.cluster, "console starting");
    }
    check_crds(&opts.client, run_engine)
        .await
        .wrap_err_with(|| format!("cluster {} (context {})", opts.cluster, opts.context))?;

    let scope = Scope {
        namespace: opts.namespace.clone(),
    };
    let (stores, mut watches) = Stores::new(&opts.client, &scope);
    let (event_store, event_watches) = events::watch(&opts.client, &scope);
    watches.extend(event_watches);
    let watches = tokio::spawn(futures::future::join_all(watches));
    let shutdown = CancellationToken::new();
    let engine = run_engine.then(|| {
        let ctx = Arc::new(Context::new(
            opts.client.clone(),
            stores.clone(),
            Arc::new(Counters::default()),
            EngineOptions::default(),
        ));
        spawn_engine(ctx, opts.namespace.clone(), shutdown.clone(), tx.clone())
    });
    let readers = Readers {
        clusters: stores.managed_clusters.clone(),
        cluster_templates: stores.cluster_templates.clone(),
        service_templates: stores.service_templates.clone(),
        rollouts: stores.rollouts.clone(),
        events: event_store.store.clone(),
    };

    let pending = Arc::new(AtomicBool::new(false));
    let mut tasks: Vec<JoinHandle<()>> = vec![
        follow(
            app::Kind::ManagedCluster,
            stores.changes.managed_clusters.clone(),
            tx.clone(),
            pending.clone(),
        ),
        follow(
            app::Kind::ClusterTemplate,
            stores.changes.cluster_templates.clone(),
            tx.clone(),
            pending.clone(),
        ),
        follow(
            app::Kind::ServiceTemplate,
            stores.changes.service_templates.clone(),
            tx.clone(),
            pending.clone(),
        ),
        follow(
            app::Kind::TemplateRollout,
            stores.changes.rollouts.clone(),
            tx.clone(),
            pending.clone(),
        ),
        // Events do not hold up the first screen: a console not allowed to
        // list them still shows the rest.
        follow(
            app::Kind::Event,
            event_store.changes.clone(),
            tx.clone(),
            pending.clone(),
        ),
    ];
    // Every watch's health, the engine's kinds too: the banner says which
    // the console cannot list, or that it cannot reach the API server.
    for state in stores
        .health
        .all()
        .into_iter()
        .chain([event_store.health.clone()])
    {
        tasks.push(follow_health(state, tx.clone()));
    }
    tasks.push(tokio::spawn({
        let tx = tx.clone();
        let (a, b, c, d) = (
            stores.listed.managed_clusters.clone(),
            stores.listed.cluster_templates.clone(),
            stores.listed.service_templates.clone(),
            stores.listed.rollouts.clone(),
        );
        async move {
            let ready = crate::store::listed(a).await.is_ok()
                && crate::store::listed(b).await.is_ok()
                && crate::store::listed(c).await.is_ok()
                && crate::store::listed(d).await.is_ok();
            if ready {
                let _ = tx.send(Msg::Synced);
            }
        }
    }));
    tasks.push(tokio::spawn({
        let tx = tx.clone();
        async move {
            let mut every = tokio::time::interval(Duration::from_secs(1));
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            loop {
                every.tick().await;
                if tx.send(Msg::Tick(Timestamp::now())).is_err() {
                    break;
                }
            }
        }
    }));
    tasks.push(tokio::spawn(read_terminal(tx.clone())));
    let writer = Arc::new(Writer {
        client: opts.client.clone(),
        readonly: opts.readonly,
        user: Arc::new(tokio::sync::OnceCell::new()),
        kubeconfig_user: opts.kubeconfig_user.clone(),
        tx: tx.clone(),
    });
    // Who the console is, once, at the start: shown when asking to confirm.
    if !opts.readonly {
        tasks.push(tokio::spawn({
            let writer = writer.clone();
            async move {
                let user = writer.user().await;
                let _ = writer.tx.send(Msg::Identity(user));
            }
        }));
    }

    let target = app::Target {
        context: opts.context.clone(),
        cluster: opts.cluster.clone(),
        namespace: opts.namespace.clone(),
        engine: if run_engine {
            app::Engine::InProcess
        } else {
            app::Engine::Off
        },
        readonly: opts.readonly,
    };
    let mut app = App::new(target, opts.theme.clone(), Timestamp::now());
    if let Err(e) = &log {
        app::update(
            &mut app,
            Msg::Log(format!(
                "cannot write the log file {}: {e}",
                logging::log_path().display()
            )),
        );
    }

    let original_hook = install_panic_hook();
    let mut engine = engine;
    let mut first = FirstFrame {
        exit: opts.exit_after_first_frame.is_some(),
        ..Default::default()
    };
    let result = match TerminalGuard::enter() {
        Ok((guard, terminal)) => {
            let r = event_loop(
                &mut app, terminal, &mut rx, &readers, &writer, &pending, &mut first,
            )
            .await;
            // The last frame says so while the engine stops.
            stop_engine(engine.take(), &shutdown).await;
            drop(guard);
            r
        }
        Err(e) => Err(e),
    };
    restore_panic_hook(original_hook);
    stop_engine(engine, &shutdown).await;
    for task in tasks {
        task.abort();
    }
    watches.abort();
    if let Some(started) = opts.exit_after_first_frame {
        let report = first.report(started);
        tracing::info!(%report, "first frame");
        eprintln!("{report}");
    }
    tracing::info!("console stopped");
    result
}

/// The one loop that owns the app.
async fn event_loop(
    app: &mut App,
    mut terminal: Terminal<CrosstermBackend<Stdout>>,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    readers: &Readers,
    writer: &Arc<Writer>,
    pending: &AtomicBool,
    first: &mut FirstFrame,
) -> Result<()> {
    let size = terminal.size()?;
    app::update(app, Msg::Resize(size.width, size.height));
    let mut dirty = true;
    let mut refresh = false;
    let mut last_frame = Instant::now() - FRAME;
    loop {
        // Take messages until a frame is due; then draw.
        let msg = if dirty {
            let due = last_frame + FRAME;
            if Instant::now() >= due {
                None
            } else {
                tokio::select! {
                    m = rx.recv() => Some(m),
                    _ = tokio::time::sleep_until(due) => None,
                }
            }
        } else {
            Some(rx.recv().await)
        };
        match msg {
            Some(None) => return Ok(()),
            Some(Some(msg)) => {
                if matches!(msg, Msg::Synced) && first.synced.is_none() {
                    first.synced = Some(std::time::Instant::now());
                }
                for command in app::update(app, msg) {
                    match command {
                        Command::Quit => {
                            if matches!(
                                app.target.engine,
                                app::Engine::InProcess | app::Engine::Standby
                            ) {
                                app.flash(app::FlashLevel::Info, "stopping the engine…");
                                terminal.draw(|f| views::draw(app, f))?;
                            }
                            return Ok(());
                        }
                        Command::Refresh => refresh = true,
                        Command::Request {
                            namespace,
                            name,
                            request,
                        } => writer.request(namespace, name, request),
                        Command::ApplyValues { key, patch } => writer.apply_values(key, patch),
                    }
                }
                dirty = true;
            }
            None => {
                if refresh {
                    refresh = false;
                    pending.store(false, Ordering::SeqCst);
                    app::update(app, Msg::Data(readers.snapshot()));
                }
                terminal.draw(|f| views::draw(app, f))?;
                last_frame = Instant::now();
                dirty = false;
                if app.synced && first.drawn.is_none() {
                    first.drawn = Some(std::time::Instant::now());
                    if first.exit {
                        return Ok(());
                    }
                }
            }
        }
    }
}

async fn stop_engine(engine: Option<JoinHandle<()>>, shutdown: &CancellationToken) {
    if let Some(engine) = engine {
        shutdown.cancel();
        if tokio::time::timeout(ENGINE_STOP, engine).await.is_err() {
            tracing::warn!("the engine did not stop within {ENGINE_STOP:?}");
        }
    }
}

/// Tells the loop when a kind changed; changes that come while the loop has
/// not yet refreshed are coalesced into one message.
fn follow(
    kind: app::Kind,
    mut changes: tokio::sync::watch::Receiver<u64>,
    tx: UnboundedSender<Msg>,
    pending: Arc<AtomicBool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        while changes.changed().await.is_ok() {
            if !pending.swap(true, Ordering::SeqCst) {
                if tx.send(Msg::Changed(kind)).is_err() {
                    break;
                }
            } else if tx.is_closed() {
                break;
            }
        }
    })
}

/// Tells the loop each time a watch fails, and when it delivers again.
fn follow_health(mut state: crate::store::WatchState, tx: UnboundedSender<Msg>) -> JoinHandle<()> {
    tokio::spawn(async move {
        while state.health.changed().await.is_ok() {
            let health = state.health.borrow_and_update().clone();
            let msg = Msg::Watch {
                resource: state.resource.clone(),
                health,
            };
            if tx.send(msg).is_err() {
                break;
            }
        }
    })
}

/// The engine in a task, reconciling while it holds the lease; messages
/// when it takes or loses the lease, and when it stops without being asked to.
fn spawn_engine(
    ctx: Arc<Context>,
    scope: Option<String>,
    shutdown: CancellationToken,
    tx: UnboundedSender<Msg>,
) -> JoinHandle<()> {
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
    let lease = engine::leader::LeaseOptions::for_scope(scope);
    let handle = tokio::spawn(engine::leader::run_with_lease(
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
            tracing::error!(?why, "the engine stopped");
            let _ = tx.send(Msg::EngineStopped(why));
        }
    })
}

/// Keys, clicks, the wheel and resizes.
async fn read_terminal(tx: UnboundedSender<Msg>) {
    let mut events = EventStream::new();
    while let Some(event) = events.next().await {
        let msg = match event {
            Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => Msg::Key(key),
            Ok(Event::Mouse(m))
                if matches!(
                    m.kind,
                    MouseEventKind::ScrollUp
                        | MouseEventKind::ScrollDown
                        | MouseEventKind::Down(MouseButton::Left)
                ) =>
            {
                Msg::Mouse(m)
            }
            Ok(Event::Resize(w, h)) => Msg::Resize(w, h),
            Ok(_) => continue,
            Err(error) => {
                tracing::error!(%error, "cannot read the terminal");
                break;
            }
        };
        if tx.send(msg).is_err() {
            break;
        }
    }
}

/// Fails early, with what to install, when the CRDs are missing.
async fn check_crds(client: &kube::Client, engine: bool) -> Result<()> {
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

/// Raw mode, the alternate screen and mouse capture, undone on drop.
struct TerminalGuard;

impl TerminalGuard {
    fn enter() -> Result<(TerminalGuard, Terminal<CrosstermBackend<Stdout>>)> {
        enable_raw_mode().wrap_err("cannot put the terminal in raw mode")?;
        let guard = TerminalGuard;
        execute!(stdout(), EnterAlternateScreen, EnableMouseCapture)?;
        let mut terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
        terminal.clear()?;
        Ok((guard, terminal))
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

fn restore_terminal() {
    let _ = disable_raw_mode();
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
}

type PanicHook = Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync + 'static>;

/// A panic on the console's thread restores the terminal before the report
/// (color-eyre's hook) prints. A panic elsewhere (a task; tokio catches it)
/// goes to the log, so the screen stays intact.
fn install_panic_hook() -> PanicHook {
    let original: PanicHook = Arc::from(std::panic::take_hook());
    let ui = std::thread::current().id();
    let next = original.clone();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() == ui {
            restore_terminal();
            next(info);
        } else {
            tracing::error!(panic = %info, "a task panicked");
        }
    }));
    original
}

fn restore_panic_hook(original: PanicHook) {
    let _ = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| original(info)));
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn next(rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>, secs: f64) -> Option<Msg> {
        tokio::time::timeout(Duration::from_secs_f64(secs), rx.recv())
            .await
            .ok()
            .flatten()
    }

    /// Every change of a kind reaches the loop; changes before the loop has
    /// refreshed are coalesced into one message.
    #[test]
    fn a_request_is_a_merge_patch_of_two_annotations() {
        let patch = request_patch(&Request::Approve(Some(2)), "alice@example.com");
        assert_eq!(
            patch,
            serde_json::json!({
                "metadata": {"annotations": {
                    "hmc.mirantis.com/request": "approve 2",
                    "hmc.mirantis.com/requested-by": "alice@example.com",
                }}
            })
        );
        let patch = request_patch(&Request::Skip("prod-eu-1".into()), "bob");
        assert_eq!(
            patch["metadata"]["annotations"]["hmc.mirantis.com/request"],
            "skip prod-eu-1"
        );
    }

    #[test]
    fn api_errors_in_plain_words() {
        let api = |code: u16, reason: &str, message: &str| {
            kube::Error::Api(
                kube::core::Status::failure(message, reason)
                    .with_code(code)
                    .boxed(),
            )
        };
        let forbidden = plain_error(
            &api(403, "Forbidden", "user \"bob\" cannot patch resource"),
            "TemplateRollout",
            "web-3",
        );
        assert!(
            forbidden.starts_with("not allowed to change TemplateRollout web-3"),
            "{forbidden}"
        );
        assert!(
            forbidden.ends_with("ask for patch on templaterollouts"),
            "{forbidden}"
        );
        assert_eq!(
            plain_error(
                &api(404, "NotFound", "not found"),
                "TemplateRollout",
                "web-3"
            ),
            "TemplateRollout web-3 no longer exists"
        );
        assert_eq!(
            plain_error(
                &api(422, "Invalid", "bad annotation"),
                "TemplateRollout",
                "web-3"
            ),
            "bad annotation"
        );
        assert!(is_conflict(&api(
            409,
            "Conflict",
            "the object has been modified"
        )));
        assert!(!is_conflict(&api(422, "Invalid", "bad")));
    }

    #[tokio::test]
    async fn follow_health_reports_each_failure_and_the_recovery() {
        use crate::store::{WatchFailure, WatchHealth, WatchState};
        let (health, rx_health) = tokio::sync::watch::channel(WatchHealth::Ok);
        let (tx, mut rx) = unbounded_channel();
        let task = follow_health(
            WatchState {
                resource: "managedclusters".into(),
                health: rx_health,
            },
            tx,
        );
        for attempts in 1..=2 {
            health.send_replace(WatchHealth::Failing {
                failure: WatchFailure::Forbidden,
                attempts,
            });
            let Some(Msg::Watch { resource, health }) = next(&mut rx, 5.0).await else {
                panic!("no message");
            };
            assert_eq!(resource, "managedclusters");
            assert!(matches!(health, WatchHealth::Failing { .. }));
        }
        health.send_replace(WatchHealth::Ok);
        assert!(matches!(
            next(&mut rx, 5.0).await,
            Some(Msg::Watch {
                health: WatchHealth::Ok,
                ..
            })
        ));
        task.abort();
    }

    #[tokio::test]
    async fn follow_reports_changes_once_until_refreshed() {
        let (counter, changes) = tokio::sync::watch::channel(0u64);
        let (tx, mut rx) = unbounded_channel();
        let pending = Arc::new(AtomicBool::new(false));
        let task = follow(app::Kind::ManagedCluster, changes, tx, pending.clone());
        counter.send_modify(|n| *n += 1);
        assert!(matches!(next(&mut rx, 5.0).await, Some(Msg::Changed(_))));
        counter.send_modify(|n| *n += 1);
        assert!(
            next(&mut rx, 0.5).await.is_none(),
            "coalesced until the loop refreshed"
        );
        pending.store(false, Ordering::SeqCst);
        counter.send_modify(|n| *n += 1);
        assert!(matches!(next(&mut rx, 5.0).await, Some(Msg::Changed(_))));
        task.abort();
    }
}
