//! The one loop that owns the app: it takes messages, runs the commands
//! [`update`] returns, and redraws when something changed, at most every
//! [`FRAME`].

use std::collections::{BTreeMap, VecDeque};
use std::io::Stdout;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use color_eyre::eyre::Result;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::time::Instant;

use crate::plan::rollout::Request;
use crate::tui::model::chart::ChartSource;
use crate::tui::model::key::ObjKey;
use crate::tui::runtime::charts;
use crate::tui::runtime::live::Live;
use crate::tui::runtime::writer::Writer;
use crate::tui::state::app::{App, Command, Engine, Msg};
use crate::tui::state::editor::EditKey;
use crate::tui::state::flash::FlashLevel;
use crate::tui::state::update;
use crate::tui::views;

/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);

/// When the stores synced and when the first full frame was drawn.
#[derive(Default)]
pub struct FirstFrame {
    /// Quit once it is drawn.
    exit: bool,
    synced: Option<std::time::Instant>,
    drawn: Option<std::time::Instant>,
}

impl FirstFrame {
    /// `exit`: quit once the first full frame is drawn.
    pub fn new(exit: bool) -> FirstFrame {
        FirstFrame {
            exit,
            ..Default::default()
        }
    }

    /// `stores synced 812 ms after start; first full frame 14 ms later (826 ms after start)`.
    pub fn report(&self, started: std::time::Instant) -> String {
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

/// Runs the commands that write, each in a task; the result comes back to
/// the loop as a message.
pub struct Writes {
    pub writer: Arc<Writer>,
    pub tx: UnboundedSender<Msg>,
}

impl Writes {
    /// Asks a rollout for `request`; the result comes back as
    /// [`Msg::Requested`].
    fn request(&self, namespace: String, name: String, request: Request) {
        let (writer, tx) = (self.writer.clone(), self.tx.clone());
        tokio::spawn(async move {
            let result = writer.request(&namespace, &name, &request).await;
            let _ = tx.send(Msg::Requested {
                name,
                request,
                result,
            });
        });
    }

    /// Sends a values edit; the result comes back as
    /// [`Msg::ValuesApplied`].
    fn apply_values(&self, key: EditKey, patch: serde_json::Value) {
        let (writer, tx) = (self.writer.clone(), self.tx.clone());
        tokio::spawn(async move {
            let result = writer.apply_values(&key, &patch).await;
            let _ = tx.send(Msg::ValuesApplied { key, result });
        });
    }

    /// Sets annotations on an object; the result comes back as
    /// [`Msg::Annotated`].
    fn annotate(&self, key: ObjKey, annotations: BTreeMap<String, String>, asks: String) {
        let (writer, tx) = (self.writer.clone(), self.tx.clone());
        tokio::spawn(async move {
            let result = writer.annotate(&key, &annotations).await;
            let _ = tx.send(Msg::Annotated { asks, result });
        });
    }

    /// Deletes a cluster or a template; the result comes back as
    /// [`Msg::Deleted`].
    fn delete(&self, key: ObjKey) {
        let (writer, tx) = (self.writer.clone(), self.tx.clone());
        tokio::spawn(async move {
            let result = writer.delete(&key).await;
            let _ = tx.send(Msg::Deleted { key, result });
        });
    }

    /// Fetches a chart's values for the editor; the result comes back as
    /// [`Msg::Chart`].
    fn fetch_chart(&self, source: ChartSource) {
        let (client, tx) = (self.writer.client().clone(), self.tx.clone());
        tokio::spawn(async move {
            let result = charts::fetch(&client, &source).await.map(Arc::new);
            let _ = tx.send(Msg::Chart {
                id: source.id,
                result,
            });
        });
    }
}

/// Keeps a context's namespace favourites in the settings file; a
/// failure is one of the warnings the header counts.
fn save_favourites(context: String, namespaces: Vec<String>) {
    let Some(path) = crate::tui::config::config_path() else {
        return;
    };
    tokio::task::spawn_blocking(move || {
        if let Err(e) = crate::tui::config::save_favourites(&path, &context, &namespaces) {
            tracing::warn!(error = %e, "cannot keep the namespace favourites");
        }
    });
}

/// The one loop that owns the app. It hears the terminal and the writes on
/// `rx`, and the place shown (its stores, watches and engine) from `live`,
/// which it hands the switching commands; `writes` follows its context.
pub async fn event_loop(
    app: &mut App,
    mut terminal: Terminal<CrosstermBackend<Stdout>>,
    rx: &mut UnboundedReceiver<Msg>,
    live: &mut Live,
    writes: &mut Writes,
    first: &mut FirstFrame,
) -> Result<()> {
    let size = terminal.size()?;
    update(app, Msg::Resize(size.width, size.height));
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
                    m = live.next() => Some(Some(m)),
                    _ = tokio::time::sleep_until(due) => None,
                }
            }
        } else {
            tokio::select! {
                m = rx.recv() => Some(m),
                m = live.next() => Some(Some(m)),
            }
        };
        match msg {
            Some(None) => return Ok(()),
            Some(Some(msg)) => {
                // A new context writes with its own client.
                if matches!(msg, Msg::Switched { .. }) {
                    writes.writer = live.writer.clone();
                }
                if matches!(msg, Msg::Synced) && first.synced.is_none() {
                    first.synced = Some(std::time::Instant::now());
                }
                let mut commands: VecDeque<Command> = update(app, msg).into();
                while let Some(command) = commands.pop_front() {
                    match command {
                        Command::Quit => {
                            if matches!(app.target.engine, Engine::InProcess | Engine::Standby) {
                                app.flash(FlashLevel::Info, "stopping the engine…");
                                terminal.draw(|f| views::draw(app, f))?;
                            }
                            return Ok(());
                        }
                        Command::Refresh => refresh = true,
                        Command::Request {
                            namespace,
                            name,
                            request,
                        } => writes.request(namespace, name, request),
                        Command::ApplyValues { key, patch } => writes.apply_values(key, patch),
                        Command::Annotate {
                            key,
                            annotations,
                            asks,
                        } => writes.annotate(key, annotations, asks),
                        Command::Delete { key } => writes.delete(key),
                        Command::Namespace(namespace) => {
                            commands.extend(update(app, live.namespace(namespace)));
                        }
                        Command::Context { name, namespace } => live.context(name, namespace),
                        Command::SaveFavourites {
                            context,
                            namespaces,
                        } => save_favourites(context, namespaces),
                        Command::FetchChart(source) => writes.fetch_chart(source),
                    }
                }
                dirty = true;
            }
            None => {
                if refresh {
                    refresh = false;
                    live.place.pending.store(false, Ordering::SeqCst);
                    update(app, Msg::Data(live.place.readers.snapshot()));
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
