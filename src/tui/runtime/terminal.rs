//! The terminal: raw mode, the alternate screen and mouse capture, put back
//! on the way out and before a panic's report; and its input, as messages.

use std::io::{Stdout, stdout};
use std::sync::Arc;

use color_eyre::eyre::{Result, WrapErr};
use crossterm::event::{
    DisableMouseCapture, EnableMouseCapture, Event, EventStream, KeyEventKind, MouseButton,
    MouseEventKind,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use tokio::sync::mpsc::UnboundedSender;

use crate::tui::state::app::Msg;

/// Raw mode, the alternate screen and mouse capture, undone on drop.
pub struct TerminalGuard;

impl TerminalGuard {
    pub fn enter() -> Result<(TerminalGuard, Terminal<CrosstermBackend<Stdout>>)> {
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

pub type PanicHook = Arc<dyn Fn(&std::panic::PanicHookInfo<'_>) + Send + Sync + 'static>;

/// A panic on the console's thread restores the terminal before the report
/// (color-eyre's hook) prints. A panic elsewhere (a task; tokio catches it)
/// goes to the log, so the screen stays intact.
pub fn install_panic_hook() -> PanicHook {
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

pub fn restore_panic_hook(original: PanicHook) {
    let _ = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| original(info)));
}

/// Keys, clicks, the wheel and resizes.
pub async fn read_terminal(tx: UnboundedSender<Msg>) {
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
