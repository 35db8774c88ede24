//! The console with 1,000 ManagedClusters × 3 services: what it does when
//! the stores change, a frame of the clusters screen and of the rollout
//! board, the first frame once the stores synced, and a key press up to
//! the frame that shows it. Frames are drawn on a `TestBackend`.
//!
//! `cargo bench --features fixtures --bench console`; under `cargo test
//! --features fixtures` each runs once.

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use hmc_tui::tui::fixtures::console::{app, target};
use hmc_tui::tui::fixtures::fleet::{Fleet, fleet};
use hmc_tui::tui::fixtures::objects::now;
use hmc_tui::tui::state::app::{App, Msg};
use hmc_tui::tui::state::update;
use hmc_tui::tui::views;

const CLUSTERS: usize = 1_000;

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
    terminal.draw(|f| views::draw(app, f)).unwrap();
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
    assert_eq!(app.row_count(), CLUSTERS, "the board lists every cluster");
    app
}

fn benches(c: &mut Criterion) {
    let fleet = fleet(CLUSTERS);
    let readers = fleet.readers();

    // What the console does each time a store changes: read the stores into
    // a snapshot and give it to the app, which keeps every selection on its
    // row.
    c.bench_function("stores changed: snapshot + update", |b| {
        let mut app = app(fleet.snapshot());
        update(&mut app, Msg::Resize(120, 40));
        b.iter(|| update(&mut app, Msg::Data(black_box(readers.snapshot()))));
    });

    // From the stores synced to the first full frame: the snapshot, the
    // update and a frame on a blank terminal.
    c.bench_function("synced to first frame (120x40)", |b| {
        b.iter_batched(
            || {
                let mut app = App::new(target(), hmc_tui::tui::Theme::default(), now());
                let terminal = sized(&mut app, (120, 40));
                (app, terminal)
            },
            |(mut app, mut terminal)| {
                update(&mut app, Msg::Synced);
                update(&mut app, Msg::Data(readers.snapshot()));
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
        c.bench_function(&format!("clusters frame ({}x{})", size.0, size.1), |b| {
            b.iter(|| frame(black_box(&app), &mut terminal));
        });
    }

    for size in [(120, 40), (200, 60)] {
        let mut app = board(&fleet);
        let mut terminal = sized(&mut app, size);
        frame(&app, &mut terminal);
        c.bench_function(
            &format!("rollout board frame ({}x{})", size.0, size.1),
            |b| b.iter(|| frame(black_box(&app), &mut terminal)),
        );
    }

    // A key press up to the frame that shows it: `j` moves the cursor down
    // a row (from the bottom, `g` goes back to the top).
    let mut app = app(fleet.snapshot());
    let mut terminal = sized(&mut app, (120, 40));
    frame(&app, &mut terminal);
    c.bench_function("key j + frame, clusters (120x40)", |b| {
        b.iter(|| {
            let key = if app.view().selected + 1 >= CLUSTERS {
                'g'
            } else {
                'j'
            };
            press(&mut app, KeyCode::Char(key));
            frame(&app, &mut terminal);
        });
    });
    let mut app = board(&fleet);
    let mut terminal = sized(&mut app, (120, 40));
    frame(&app, &mut terminal);
    c.bench_function("key j + frame, rollout board (120x40)", |b| {
        b.iter(|| {
            let key = if app.view().selected + 1 >= CLUSTERS {
                'g'
            } else {
                'j'
            };
            press(&mut app, KeyCode::Char(key));
            frame(&app, &mut terminal);
        });
    });
}

criterion_group! {
    name = console;
    config = Criterion::default().sample_size(50);
    targets = benches
}
criterion_main!(console);
