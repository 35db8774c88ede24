//! The console with 1,000 and 10,000 ManagedClusters × 3 services: what it
//! does when the stores change, a frame of the clusters screen and of the
//! rollout board, the first frame once the stores synced, and a key press
//! up to the frame that shows it. Frames are drawn on a `TestBackend`.
//!
//! `cargo bench --features fixtures --bench console`; under `cargo test
//! --features fixtures` each runs once. Each benchmark is named
//! `<clusters>/<what>`, so `-- 10000/` runs one size.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use hmc_tui::tui::fixtures::console::{app, target};
use hmc_tui::tui::fixtures::fleet::{Fleet, fleet};
use hmc_tui::tui::fixtures::objects::now;
use hmc_tui::tui::screens;
use hmc_tui::tui::state::app::{App, Msg};
use hmc_tui::tui::update::update;

/// The fleet sizes measured.
const SIZES: [usize; 2] = [1_000, 10_000];

fn press(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn sized(app: &mut App, (w, h): (u16, u16)) -> Terminal<TestBackend> {
    update(app, Msg::Resize(w, h));
    Terminal::new(TestBackend::new(w, h)).unwrap()
}

/// One frame: drawn into the buffer, compared with the last one, and the
/// difference written to the backend.
fn frame(app: &App, terminal: &mut Terminal<TestBackend>) {
    terminal.draw(|f| screens::draw(app, f)).unwrap();
}

/// The console on the rollout board of the fleet's rollout.
fn board(fleet: &Fleet) -> App {
    let mut app = app(fleet.snapshot());
    press(&mut app, KeyCode::Char(':'));
    for c in "rollouts".chars() {
        press(&mut app, KeyCode::Char(c));
    }
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        app.row_count(),
        fleet.clusters.len(),
        "the board lists every cluster"
    );
    app
}

/// `j` and the frame that shows it; from the last row, `g` goes back to
/// the top.
fn key_and_frame(app: &mut App, terminal: &mut Terminal<TestBackend>, rows: usize) {
    let key = if app.view().selected + 1 >= rows {
        'g'
    } else {
        'j'
    };
    press(app, KeyCode::Char(key));
    frame(app, terminal);
}

fn benches_of(c: &mut Criterion, n: usize) {
    let fleet = fleet(n);
    let readers = fleet.readers();
    let name = |what: &str| format!("{n}/{what}");

    // What the console does each time a store changes: read the stores into
    // a snapshot and give it to the app, which keeps every selection on its
    // row.
    c.bench_function(&name("stores changed: snapshot + update"), |b| {
        let mut app = app(fleet.snapshot());
        update(&mut app, Msg::Resize(120, 40));
        b.iter(|| update(&mut app, Msg::data(black_box(readers.snapshot()))));
    });

    // From the stores synced to the first full frame: the snapshot, the
    // update and a frame on a blank terminal.
    c.bench_function(&name("synced to first frame (120x40)"), |b| {
        b.iter_batched(
            || {
                let mut app = App::new(target(), hmc_tui::tui::Theme::default(), now());
                let terminal = sized(&mut app, (120, 40));
                (app, terminal)
            },
            |(mut app, mut terminal)| {
                update(&mut app, Msg::Synced);
                update(&mut app, Msg::data(readers.snapshot()));
                frame(&app, &mut terminal);
                (app, terminal)
            },
            BatchSize::SmallInput,
        );
    });

    for size in [(120, 40), (200, 60)] {
        let mut app = app(fleet.snapshot());
        let mut terminal = sized(&mut app, size);
        frame(&app, &mut terminal);
        c.bench_function(
            &name(&format!("clusters frame ({}x{})", size.0, size.1)),
            |b| {
                b.iter(|| frame(black_box(&app), &mut terminal));
            },
        );
    }

    for size in [(120, 40), (200, 60)] {
        let mut app = board(&fleet);
        let mut terminal = sized(&mut app, size);
        frame(&app, &mut terminal);
        c.bench_function(
            &name(&format!("rollout board frame ({}x{})", size.0, size.1)),
            |b| b.iter(|| frame(black_box(&app), &mut terminal)),
        );
    }

    // A key press up to the frame that shows it.
    let mut app = app(fleet.snapshot());
    let mut terminal = sized(&mut app, (120, 40));
    frame(&app, &mut terminal);
    c.bench_function(&name("key j + frame, clusters (120x40)"), |b| {
        b.iter(|| key_and_frame(&mut app, &mut terminal, n));
    });
    let mut app = board(&fleet);
    let mut terminal = sized(&mut app, (120, 40));
    frame(&app, &mut terminal);
    c.bench_function(&name("key j + frame, rollout board (120x40)"), |b| {
        b.iter(|| key_and_frame(&mut app, &mut terminal, n));
    });
}

fn benches(c: &mut Criterion) {
    for n in SIZES {
        benches_of(c, n);
    }
}

criterion_group! {
    name = console;
    config = Criterion::default().sample_size(50);
    targets = benches
}
criterion_main!(console);
