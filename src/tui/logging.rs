//! In console mode the log goes to a file, never to the terminal, and its
//! warnings and errors also show on the status line.

use std::fs::OpenOptions;
use std::path::PathBuf;
use std::sync::Mutex;

use tokio::sync::mpsc::UnboundedSender;
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};

use crate::plan::safe_text::escape_control;
use crate::tui::model::warnings::Warning;
use crate::tui::state::app::Msg;

/// `${XDG_STATE_HOME:-~/.local/state}/hmc-tui/hmc-tui.log`.
pub fn log_path() -> PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("hmc-tui").join("hmc-tui.log")
}

/// Sends the log to `log_path()` (level from `RUST_LOG`, default info) and
/// its warnings and errors to the console. Returns the file's path.
pub fn init(tx: UnboundedSender<Msg>) -> std::io::Result<PathBuf> {
    let path = log_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let file = OpenOptions::new().create(true).append(true).open(&path)?;
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,kube=warn,hyper=warn,tower=warn"));
    let to_file = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .fmt_fields(escaped_fields())
        .with_writer(Mutex::new(file));
    // A subscriber may already be set (a second console in one process); the
    // first one stays.
    let _ = tracing_subscriber::registry()
        .with(filter)
        .with(to_file)
        .with(ToConsole { tx })
        .try_init();
    Ok(path)
}

/// The log file's fields, each value with its control characters written
/// out (`plan::safe_text::escape_control`): a name or message from the API
/// that holds a line break or an escape sequence cannot forge a line of the
/// log or reach the terminal of whoever reads it. The subscriber's own
/// escaping leaves line breaks, tabs and most of C0 as they are.
fn escaped_fields() -> impl for<'w> tracing_subscriber::fmt::FormatFields<'w> + 'static {
    use tracing_subscriber::field::MakeExt;
    tracing_subscriber::fmt::format::debug_fn(|writer, field, value| {
        let raw = format!("{value:?}");
        let text = escape_control(&raw);
        if field.name() == "message" {
            write!(writer, "{text}")
        } else {
            write!(writer, "{field}={text}")
        }
    })
    .delimited(" ")
}

/// Forwards warnings and errors to the console as [`Msg::Log`]: the
/// header counts them and the warnings screen lists them.
struct ToConsole {
    tx: UnboundedSender<Msg>,
}

impl<S: Subscriber> Layer<S> for ToConsole {
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        // Watch failures show as the banner, from the stores' health.
        if *event.metadata().level() > Level::WARN
            || event.metadata().target() == crate::store::WATCH_LOG_TARGET
        {
            return;
        }
        let mut visitor = Fields::default();
        event.record(&mut visitor);
        let warning = Warning::from_log(
            &visitor.message,
            &visitor.rest,
            k8s_openapi::jiff::Timestamp::now(),
        );
        let _ = self.tx.send(Msg::Log(warning));
    }
}

#[derive(Default)]
struct Fields {
    message: String,
    rest: Vec<(String, String)>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message = value.to_string();
        } else {
            self.rest
                .push((field.name().to_string(), value.to_string()));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.message = format!("{value:?}");
        } else {
            self.rest
                .push((field.name().to_string(), format!("{value:?}")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one event writes to the log file.
    fn logged(event: impl FnOnce()) -> String {
        let out = std::sync::Arc::new(Mutex::new(Vec::<u8>::new()));
        let sink = out.clone();
        let layer = tracing_subscriber::fmt::layer()
            .with_ansi(false)
            .without_time()
            .fmt_fields(escaped_fields())
            .with_writer(move || SharedBuf(sink.clone()));
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, event);
        let bytes = out.lock().unwrap_or_else(|e| e.into_inner()).clone();
        String::from_utf8(bytes).expect("utf-8")
    }

    struct SharedBuf(std::sync::Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for SharedBuf {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_crafted_name_cannot_forge_a_log_line_or_reach_the_terminal() {
        let name = "dev-1\n2026-12-06T00:00:00Z  INFO forged\u{1b}[2J";
        let line = logged(|| tracing::warn!(cluster = %name, "applied {name}\tnow"));
        assert_eq!(line.matches('\n').count(), 1, "one line: {line:?}");
        assert!(!line.contains('\u{1b}') && !line.contains('\t'), "{line:?}");
        assert!(line.contains(r"dev-1\n2026"), "{line:?}");
        assert!(line.contains(r"cluster=dev-1\n"), "{line:?}");
    }
}
