//! Pictures of the console for the README and the book, drawn by the real
//! views over the made-up objects of `tui::fixtures`, at a fixed size, as
//! SVG. The test fails when a committed picture is not what the console
//! draws now; it draws them again with:
//!
//! ```sh
//! UPDATE_PICTURES=1 cargo test --features fixtures --test pictures
//! ```

use std::fmt::Write as _;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use hmc_tui::tui::fixtures::rolling::rolling_app;
use hmc_tui::tui::screens;
use hmc_tui::tui::state::app::{App, Msg};
use hmc_tui::tui::update::update;

const SIZE: (u16, u16) = (112, 17);
const CELL_W: f32 = 8.4;
const CELL_H: f32 = 18.0;
const FG: &str = "#d4d4d4";
const BG: &str = "#1e1e1e";

fn keys(app: &mut App, keys: &str) {
    for c in keys.chars() {
        let code = if c == '\n' {
            KeyCode::Enter
        } else {
            KeyCode::Char(c)
        };
        update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }
}

fn draw(app: &mut App) -> Buffer {
    update(app, Msg::Resize(SIZE.0, SIZE.1));
    let mut terminal = Terminal::new(TestBackend::new(SIZE.0, SIZE.1)).expect("a test terminal");
    terminal.draw(|f| screens::draw(app, f)).expect("a frame");
    terminal.backend().buffer().clone()
}

fn colour(c: Color, default: &str) -> String {
    let named = |i: u8| {
        [
            "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc", "#11a8cd", "#e5e5e5",
            "#666666", "#f14c4c", "#23d18b", "#f5f543", "#3b8eea", "#d670d6", "#29b8db", "#ffffff",
        ][usize::from(i)]
        .to_string()
    };
    match c {
        Color::Reset => default.to_string(),
        Color::Black => named(0),
        Color::Red => named(1),
        Color::Green => named(2),
        Color::Yellow => named(3),
        Color::Blue => named(4),
        Color::Magenta => named(5),
        Color::Cyan => named(6),
        Color::Gray => named(7),
        Color::DarkGray => named(8),
        Color::LightRed => named(9),
        Color::LightGreen => named(10),
        Color::LightYellow => named(11),
        Color::LightBlue => named(12),
        Color::LightMagenta => named(13),
        Color::LightCyan => named(14),
        Color::White => named(15),
        Color::Rgb(r, g, b) => format!("#{r:02x}{g:02x}{b:02x}"),
        Color::Indexed(i) if i < 16 => named(i),
        Color::Indexed(i) if i >= 232 => {
            let v = 8 + 10 * (i - 232);
            format!("#{v:02x}{v:02x}{v:02x}")
        }
        Color::Indexed(i) => {
            let i = i - 16;
            let level = |n: u8| if n == 0 { 0 } else { 55 + 40 * n };
            format!(
                "#{:02x}{:02x}{:02x}",
                level(i / 36),
                level((i / 6) % 6),
                level(i % 6)
            )
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The buffer as an SVG: a rectangle per run of one background, a text per
/// run of one style.
fn svg(buffer: &Buffer) -> String {
    let (w, h) = (buffer.area.width, buffer.area.height);
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\" \
         font-family=\"ui-monospace, 'DejaVu Sans Mono', Menlo, Consolas, monospace\" font-size=\"14\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"{BG}\" rx=\"6\"/>\n",
        f32::from(w) * CELL_W + 16.0,
        f32::from(h) * CELL_H + 16.0
    );
    for y in 0..h {
        let mut x = 0;
        while x < w {
            let cell = &buffer[(x, y)];
            let style = (cell.fg, cell.bg, cell.modifier);
            let mut text = String::new();
            let start = x;
            while x < w {
                let c = &buffer[(x, y)];
                if (c.fg, c.bg, c.modifier) != style {
                    break;
                }
                text.push_str(c.symbol());
                x += 1;
            }
            let (mut fg, mut bg) = (colour(style.0, FG), colour(style.1, BG));
            if style.2.contains(Modifier::REVERSED) {
                std::mem::swap(&mut fg, &mut bg);
            }
            let left = 8.0 + f32::from(start) * CELL_W;
            let top = 8.0 + f32::from(y) * CELL_H;
            if bg != BG {
                let _ = writeln!(
                    out,
                    "<rect x=\"{left:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{CELL_H}\" fill=\"{bg}\"/>",
                    f32::from(x - start) * CELL_W
                );
            }
            if text.trim().is_empty() {
                continue;
            }
            let mut attrs = format!("fill=\"{fg}\"");
            if style.2.contains(Modifier::BOLD) {
                attrs.push_str(" font-weight=\"bold\"");
            }
            if style.2.contains(Modifier::DIM) {
                attrs.push_str(" opacity=\"0.6\"");
            }
            if style.2.contains(Modifier::ITALIC) {
                attrs.push_str(" font-style=\"italic\"");
            }
            if style.2.contains(Modifier::UNDERLINED) {
                attrs.push_str(" text-decoration=\"underline\"");
            }
            let _ = writeln!(
                out,
                "<text x=\"{left:.1}\" y=\"{:.1}\" {attrs} xml:space=\"preserve\" textLength=\"{:.1}\">{}</text>",
                top + 13.0,
                f32::from(x - start) * CELL_W,
                escape(&text)
            );
        }
    }
    out.push_str("</svg>\n");
    out
}

/// The pictures: file name under docs/src/images/, and what is typed
/// before the frame is drawn.
const PICTURES: [(&str, &str); 3] = [
    ("clusters", ""),
    ("cluster", "\n"),
    ("board", ":rollouts\n\n"),
];

#[test]
fn the_pictures_are_what_the_console_draws() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/images");
    let update = std::env::var_os("UPDATE_PICTURES").is_some();
    let mut stale = Vec::new();
    for (name, typed) in PICTURES {
        let mut app = rolling_app();
        keys(&mut app, typed);
        let drawn = svg(&draw(&mut app));
        let path = dir.join(format!("{name}.svg"));
        if update {
            std::fs::write(&path, &drawn).expect("write the picture");
            eprintln!("wrote {}", path.display());
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(drawn.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "these pictures are not what the console draws now: {stale:?}; draw them again with\n  UPDATE_PICTURES=1 cargo test --features fixtures --test pictures"
    );
}
