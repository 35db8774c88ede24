//! The one loop that owns the app: it takes messages, runs the commands
//! [`update`] returns, and redraws when something changed, at most every
//! [`FRAME`].

use std::collections::VecDeque;
use std::io::Stdout;
use std::time::Duration;

use color_eyre::eyre::Result;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use crate::tui::model::key::Kind;
use crate::tui::runtime::live::Live;
use crate::tui::runtime::writer::Writes;
use crate::tui::screens;
use crate::tui::state::app::{App, Command, Engine, Msg};
use crate::tui::state::contexts;
use crate::tui::state::flash::FlashLevel;
use crate::tui::update::update;

/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);

/// When the first frame with rows was drawn (from the first pages), when
/// the stores synced and when the first full frame was drawn.
#[derive(Default)]
pub struct FirstFrame {
    /// Quit once the first full frame is drawn.
    exit: bool,
    /// The first frame drawn with the clusters' first page (or their
    /// whole list), and how many clusters it had of how many.
    rows: Option<(std::time::Instant, usize, Option<usize>)>,
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

    /// A frame was drawn of `app`; true when the console is to quit now.
    /// While a context asked for is `connecting`, the frame shows only the
    /// others: it counts for nothing yet.
    fn drawn(&mut self, app: &App, connecting: bool) -> bool {
        if connecting {
            return false;
        }
        let now = std::time::Instant::now();
        // The first screen lists the clusters: their first page, or their
        // whole list, is there.
        let loading = app.data.loading_of(Kind::ManagedCluster);
        let synced = contexts::all_synced(app);
        let clusters_arrived =
            synced || (app.data.arrived && loading.is_none_or(|l| l.total.is_some()));
        if self.rows.is_none() && clusters_arrived {
            let clusters = app.data.clusters.len();
            let total = loading.map_or(Some(clusters), |l| l.total);
            self.rows = Some((now, clusters, total));
        }
        if synced && self.drawn.is_none() {
            self.drawn = Some(now);
            return self.exit;
        }
        false
    }

    /// Two lines: `first rows 240 ms after start (500 of 10000 clusters)`
    /// and `stores synced 812 ms after start; first full frame 14.0 ms
    /// later (826 ms after start)`.
    pub fn report(&self, started: std::time::Instant) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1000.0;
        let rows = match self.rows {
            Some((at, clusters, total)) => format!(
                "first rows {:.0} ms after start ({clusters} of {} clusters)\n",
                ms(at - started),
                total.map_or_else(|| "?".to_string(), |t| t.to_string())
            ),
            None => String::new(),
        };
        match (self.synced, self.drawn) {
            (Some(synced), Some(drawn)) => format!(
                "{rows}stores synced {:.0} ms after start; first full frame {:.1} ms later ({:.0} ms after start)",
                ms(synced - started),
                ms(drawn - synced),
                ms(drawn - started)
            ),
            _ => format!("{rows}quit before the first full frame"),
        }
    }
}

/// How much of a core the console may spend taking store changes in, as
/// a divisor: after a refresh that took `t` (the snapshot, the update and
/// the frame that draws it), the next change waits until
/// `t × REFRESH_SHARE` later. A busy fleet of 10,000 clusters, whose
/// refresh takes about 100 ms, is then shown every two to three seconds
/// at under 1/25 of a core; a small one at every frame.
const REFRESH_SHARE: u32 = 25;
/// The longest a change waits to be shown.
const REFRESH_AT_MOST: Duration = Duration::from_secs(3);
/// For this long after a context opens, its changes are not paced: its
/// first pages come then, and the pace of the refresh before them (the
/// first context's page) would hold the first screen of every context
/// back by 25 times that refresh. Bounded, so that a context that never
/// lists does not leave the others unpaced.
const FIRST_PAGES_WITHIN: Duration = Duration::from_secs(2);

/// When the loop takes the stores' changes in: a snapshot of every store
/// and the update that follows cost time in proportion to the fleet, so
/// changes that come close together are taken in together, paced by what
/// the last refresh cost. What asks for fresh data for another reason
/// (the first full list, another namespace) goes at the next frame.
#[derive(Debug, Default)]
struct Refreshes {
    /// A refresh was asked for and not done yet.
    asked: bool,
    /// It goes at the next frame.
    urgent: bool,
    /// No change of the stores is taken in before this.
    not_before: Option<Instant>,
    /// Until this, changes are not paced: a context's first pages come.
    unpaced_until: Option<Instant>,
}

impl Refreshes {
    fn ask(&mut self, urgent: bool) {
        self.asked = true;
        self.urgent |= urgent;
    }

    /// A context opened at `at`: its first pages are not paced.
    fn opened(&mut self, at: Instant) {
        self.unpaced_until = Some(at + FIRST_PAGES_WITHIN);
    }

    /// When the refresh asked for is due, given when the next frame may be
    /// drawn; `None` when none was asked for.
    fn due(&self, next_frame: Instant) -> Option<Instant> {
        if !self.asked {
            return None;
        }
        let paced = !self.urgent && self.unpaced_until.is_none_or(|u| next_frame >= u);
        Some(match self.not_before {
            Some(at) if paced => at.max(next_frame),
            _ => next_frame,
        })
    }

    /// A refresh started at `at` and took `cost`.
    fn done(&mut self, at: Instant, cost: Duration) {
        self.asked = false;
        self.urgent = false;
        self.not_before = Some(at + (cost * REFRESH_SHARE).min(REFRESH_AT_MOST));
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
    let mut refreshes = Refreshes::default();
    refreshes.opened(Instant::now());
    let mut last_frame = Instant::now() - FRAME;
    loop {
        // Take messages until a frame or a refresh is due; then draw. No
        // frame is drawn while nothing changed.
        let frame_due = dirty.then_some(last_frame + FRAME);
        let due = match (frame_due, refreshes.due(last_frame + FRAME)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let msg = match due {
            Some(due) if Instant::now() >= due => None,
            Some(due) => tokio::select! {
                m = rx.recv() => Some(m),
                m = live.next() => Some(Some(m)),
                _ = tokio::time::sleep_until(due) => None,
            },
            None => tokio::select! {
                m = rx.recv() => Some(m),
                m = live.next() => Some(Some(m)),
            },
        };
        match msg {
            Some(None) => return Ok(()),
            Some(Some(msg)) => {
                // A context opened, closed or switched: each writes with
                // its own client.
                if matches!(
                    msg,
                    Msg::Switched { .. } | Msg::Opened { .. } | Msg::Closed(_)
                ) {
                    *writes = live.writes(writes.tx.clone());
                }
                // A context (or a namespace) whose first pages come next.
                if matches!(msg, Msg::Switched { .. } | Msg::Opened { .. }) {
                    refreshes.opened(Instant::now());
                }
                // A change of the stores waits its turn; anything else
                // that asks for fresh data (the first full list, another
                // place) is taken in at the next frame.
                let store_change = match &msg {
                    Msg::Changed(_) => true,
                    Msg::Other { msg, .. } => matches!(**msg, Msg::Changed(_)),
                    _ => false,
                };
                let mut commands: VecDeque<Command> = update(app, msg).into();
                while let Some(command) = commands.pop_front() {
                    match command {
                        Command::Quit => {
                            if matches!(app.target.engine, Engine::InProcess | Engine::Standby) {
                                app.flash(FlashLevel::Info, "stopping the engine…");
                                terminal.draw(|f| screens::draw(app, f))?;
                            }
                            return Ok(());
                        }
                        Command::Refresh => refreshes.ask(!store_change),
                        Command::Request {
                            context,
                            namespace,
                            name,
                            request,
                        } => writes.request(context, namespace, name, request),
                        Command::ApplyValues { key, patch } => writes.apply_values(key, patch),
                        Command::Annotate {
                            key,
                            annotations,
                            asks,
                        } => writes.annotate(key, annotations, asks),
                        Command::Delete { key } => writes.delete(key),
                        Command::Namespace(namespace) => {
                            for msg in live.namespace(namespace) {
                                commands.extend(update(app, msg));
                            }
                        }
                        Command::Context { name, namespace } => live.context(name, namespace),
                        Command::AddContext { name, namespace } => live.add(name, namespace),
                        Command::CloseContext(name) => {
                            if let Some(msg) = live.close(&name) {
                                *writes = live.writes(writes.tx.clone());
                                commands.extend(update(app, msg));
                            }
                        }
                        Command::SaveFavourites {
                            context,
                            namespaces,
                        } => save_favourites(context, namespaces),
                        Command::FetchChart(source) => writes.fetch_chart(source),
                    }
                }
                // A store change shows once it is taken in.
                dirty |= !store_change;
                // Every open context has its first full lists: the figure
                // the first-frame report gives.
                if first.synced.is_none() && contexts::all_synced(app) && !live.connecting() {
                    first.synced = Some(std::time::Instant::now());
                }
            }
            None => {
                let now = Instant::now();
                let refresh = refreshes
                    .due(last_frame + FRAME)
                    .is_some_and(|due| now >= due);
                if refresh {
                    update(app, Msg::data(live.snapshot()));
                }
                terminal.draw(|f| screens::draw(app, f))?;
                // What taking the change in cost: the snapshot, the update
                // and the frame, whose lists are worked out again from it.
                if refresh {
                    refreshes.done(now, now.elapsed());
                }
                last_frame = Instant::now();
                dirty = false;
                if first.drawn(app, live.connecting()) {
                    return Ok(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Store changes are paced by what the last refresh cost; anything else
    /// goes at the next frame.
    #[test]
    fn refreshes_are_paced_by_their_cost() {
        let start = Instant::now();
        let frame = start + FRAME;
        let mut r = Refreshes::default();
        assert_eq!(r.due(frame), None, "nothing asked");
        // The first change goes at the next frame.
        r.ask(false);
        assert_eq!(r.due(frame), Some(frame));
        // It took 40 ms: the next change waits a second.
        r.done(start, Duration::from_millis(40));
        assert_eq!(r.due(frame), None);
        r.ask(false);
        assert_eq!(r.due(frame), Some(start + Duration::from_secs(1)));
        // The stores synced meanwhile: at the next frame.
        r.ask(true);
        assert_eq!(r.due(frame), Some(frame));
        r.done(start, Duration::from_millis(1));
        // A cheap refresh: the next change at the next frame, or 25 ms on.
        r.ask(false);
        assert_eq!(r.due(frame), Some(start + Duration::from_millis(25)));
        // Never more than three seconds, however long it took.
        r.done(start, Duration::from_secs(1));
        r.ask(false);
        assert_eq!(r.due(frame), Some(start + REFRESH_AT_MOST));
    }

    /// A context's first pages, right after it opened, go at the next
    /// frame; later changes are paced again.
    #[test]
    fn the_first_pages_of_a_context_are_not_paced() {
        let start = Instant::now();
        let frame = start + FRAME;
        let mut r = Refreshes::default();
        r.opened(start);
        // The first context's page took 12 ms to take in: the next
        // context's page still goes at the next frame.
        r.done(start, Duration::from_millis(12));
        r.ask(false);
        assert_eq!(r.due(frame), Some(frame));
        // Two seconds on, changes wait their turn again.
        let later = start + FIRST_PAGES_WITHIN;
        r.done(later, Duration::from_millis(12));
        r.ask(false);
        assert_eq!(
            r.due(later + FRAME),
            Some(later + Duration::from_millis(300))
        );
    }

    /// A frame drawn while a context asked for is still connecting shows
    /// the others only: neither the first rows nor the full frame yet.
    #[test]
    fn no_first_frame_while_a_context_connects() {
        let mut app = crate::tui::fixtures::sample::app();
        let mut first = FirstFrame::new(true);
        assert!(!first.drawn(&app, true));
        assert!(first.rows.is_none() && first.drawn.is_none());
        app.synced = true;
        assert!(first.drawn(&app, false), "every context open and listed");
        assert!(first.rows.is_some() && first.drawn.is_some());
    }

    #[test]
    fn the_report_says_when_rows_came_and_when_the_stores_synced() {
        let start = std::time::Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let first = FirstFrame {
            exit: true,
            rows: Some((at(412), 500, Some(10_000))),
            synced: Some(at(1630)),
            drawn: Some(at(1644)),
        };
        assert_eq!(
            first.report(start),
            "first rows 412 ms after start (500 of 10000 clusters)\n\
             stores synced 1630 ms after start; first full frame 14.0 ms later (1644 ms after start)"
        );
        let early = FirstFrame {
            exit: true,
            ..Default::default()
        };
        assert_eq!(early.report(start), "quit before the first full frame");
    }
}
