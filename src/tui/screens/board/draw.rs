//! One rollout, live: where it stands, what it changes, and each wave with
//! its clusters. The cursor walks the clusters; the requests act on the
//! rollout and on the cluster under the cursor.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::api::{
    ClusterRolloutStatus, RolloutStrategy, TemplateRollout, TemplateRolloutStatus, WaveState,
};
use crate::tui::keys::{Action, Mode, ScreenKind};
use crate::tui::layout;
use crate::tui::model::age::{age, until};
use crate::tui::model::health::Health;
use crate::tui::model::key::ObjKey;
use crate::tui::model::rollouts::{
    Approval, BoardRow, approval, cluster_health, cluster_revision, phase_health, wave_health,
    wave_state_name,
};
use crate::tui::model::view::Screen;
use crate::tui::screens::board::requests;
use crate::tui::screens::chrome::{body_block, empty_note, section};
use crate::tui::state::app::App;
use crate::tui::views::columns::ellipsize;
use crate::tui::views::columns::{Col, Text, col, flex, widths};
use crate::tui::views::safe::paragraph;

const SYMBOL: &str = "▶ ";
/// Clusters sit under their wave's heading.
const INDENT: &str = "  ";

pub fn draw(app: &App, key: &ObjKey, frame: &mut Frame, area: Rect) {
    let Some(rollout) = app.data.rollout(&key.context, &key.namespace, &key.name) else {
        crate::tui::screens::chrome::gone(app, key, frame, area);
        return;
    };
    let block = body_block(app, Vec::new());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(status) = rollout.status.as_ref() else {
        empty_note(
            app,
            frame,
            inner,
            "not planned yet: waiting for the engine".into(),
        );
        return;
    };
    let parts = layout::board(area, status.preview.len());
    summary(app, rollout, frame, parts.summary);
    preview(app, rollout, frame, parts.preview);
    waves(app, rollout, frame, parts.waves);
}

/// The phase line and the message.
fn summary(app: &App, r: &TemplateRollout, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    // Borrowed: the status lists every cluster of the rollout.
    let none = TemplateRolloutStatus::default();
    let status = r.status.as_ref().unwrap_or(&none);
    let health = phase_health(status.phase);
    let label = |s: &'static str| Span::styled(s, t.muted());
    let policy = &r.spec.policy;
    let strategy = match policy.strategy {
        RolloutStrategy::Automatic => "Automatic",
        RolloutStrategy::Manual => "Manual",
    };
    let at_once = match &policy.max_concurrent {
        IntOrString::Int(n) => n.to_string(),
        IntOrString::String(s) => s.clone(),
    };
    // Segments by importance: the least important give way when narrow.
    let mut segments: Vec<(u8, Vec<Span>)> = vec![
        (
            0,
            vec![Span::styled(
                status.phase.to_string(),
                t.health(health).add_modifier(Modifier::BOLD),
            )],
        ),
        (
            1,
            vec![label("  revision "), Span::raw(r.spec.revision.to_string())],
        ),
        (
            0,
            vec![
                label("  wave "),
                Span::raw(status.wave_summary.clone().unwrap_or_else(|| "-".into())),
            ],
        ),
        (
            0,
            vec![
                label("  updated "),
                Span::raw(status.updated_summary.clone().unwrap_or_else(|| "-".into())),
            ],
        ),
        (1, vec![label("  "), Span::raw(strategy)]),
        (3, vec![label(", "), Span::raw(at_once), label(" at once")]),
    ];
    if let Some(canary) = policy.canary.filter(|c| *c > 0) {
        segments.push((4, vec![label(", canary "), Span::raw(canary.to_string())]));
    }
    segments.extend([
        (
            3,
            vec![
                label(", budget "),
                Span::raw(policy.failure_budget.to_string()),
            ],
        ),
        (
            2,
            vec![
                label("  age "),
                Span::raw(age(app.now, r.metadata.creation_timestamp.as_ref())),
            ],
        ),
    ]);
    let seg_width = |s: &Vec<Span>| s.iter().map(|s| s.width()).sum::<usize>();
    let mut keep = 4;
    while keep > 0
        && segments
            .iter()
            .filter(|(p, _)| *p <= keep)
            .map(|(_, s)| seg_width(s))
            .sum::<usize>()
            > usize::from(area.width)
    {
        keep -= 1;
    }
    let first: Vec<Span> = segments
        .into_iter()
        .filter(|(p, _)| *p <= keep)
        .flat_map(|(_, s)| s)
        .collect();
    let message = status.message.clone().unwrap_or_default();
    let message_style = match health {
        Health::Failed => t.health(Health::Failed),
        _ => Style::new(),
    };
    let lines = vec![
        Line::from(first),
        Line::from(Span::styled(ellipsize(&message, area.width), message_style)),
    ];
    frame.render_widget(paragraph(lines), area);
}

/// The changes, one line per group of clusters that get the same change.
fn preview(app: &App, r: &TemplateRollout, frame: &mut Frame, area: Rect) {
    if area.height == 0 {
        return;
    }
    let t = &app.theme;
    let groups = r.status.as_ref().map_or(&[][..], |s| &s.preview[..]);
    let total: u32 = groups.iter().map(|g| g.count).sum();
    frame.render_widget(section(app, format!(" changes ({total} clusters) ")), area);
    let room = usize::from(area.height.saturating_sub(1));
    // When not every group fits, the last line says how many are left.
    let shown = if groups.len() > room {
        room.saturating_sub(1)
    } else {
        groups.len()
    };
    let mut lines: Vec<Line> = groups[..shown]
        .iter()
        .map(|g| {
            let head = format!(
                "{} {}: ",
                g.count,
                if g.count == 1 { "cluster" } else { "clusters" }
            );
            let change = if g.changes.is_empty() {
                "no change".to_string()
            } else {
                g.changes.join("; ")
            };
            let mut names = g.clusters.join(", ");
            if (g.count as usize) > g.clusters.len() {
                names.push_str(", …");
            }
            let head_w = crate::tui::views::columns::width(&head);
            let change = ellipsize(&change, area.width.saturating_sub(head_w));
            let rest = area
                .width
                .saturating_sub(head_w + crate::tui::views::columns::width(&change) + 2);
            let mut spans = vec![Span::styled(head, t.title()), Span::raw(change)];
            if rest >= 8 && !names.is_empty() {
                spans.push(Span::styled(
                    format!("  {}", ellipsize(&names, rest)),
                    t.muted(),
                ));
            }
            Line::from(spans)
        })
        .collect();
    if shown < groups.len() {
        let rest = &groups[shown..];
        let clusters: u32 = rest.iter().map(|g| g.count).sum();
        lines.push(Line::from(Span::styled(
            format!(
                "… {} more changes, {clusters} clusters (y shows the whole rollout)",
                rest.len()
            ),
            t.muted(),
        )));
    }
    let below = Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    };
    frame.render_widget(paragraph(lines), below);
}

/// The waves' columns. Narrow, they give way in this order: SINCE,
/// REASON, REVISION, STATE; CLUSTER stays.
const COLS: [Col; 5] = [
    col("CLUSTER", 10, 28),
    col("STATE", 5, 10).drop(1),
    col("REVISION", 8, 9).drop(2),
    col("SINCE", 5, 5).drop(4),
    flex("REASON", 10).drop(3),
];

/// The cells of a cluster's row.
fn cluster_cells(app: &App, r: &TemplateRollout, c: &ClusterRolloutStatus) -> Vec<Text> {
    let t = &app.theme;
    let health = cluster_health(c.state);
    let reason_style = match health {
        Health::Failed => t.health(Health::Failed),
        _ => t.muted(),
    };
    vec![
        (c.name.clone(), Style::new()),
        (c.state.to_string(), t.health(health)),
        (cluster_revision(r.spec.revision, c), Style::new()),
        (age(app.now, c.since.as_ref()), t.muted()),
        (c.reason.clone().unwrap_or_default(), reason_style),
    ]
}

/// The waves, each with its clusters, scrolled so the cursor shows. Only
/// the lines on screen are made.
fn waves(app: &App, r: &TemplateRollout, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let view = app.view();
    let Some(status) = r.status.as_ref() else {
        return;
    };
    let Screen::Rollout(key) = &view.screen else {
        return;
    };
    let listing = app.board_listing(view, key).unwrap_or_default();
    let clusters = status.clusters.len();
    let title = format!(" waves ({}) · clusters ({clusters}) ", status.waves.len());
    frame.render_widget(section(app, title), area);
    if area.height < 2 {
        return;
    }
    let lead =
        crate::tui::views::columns::width(SYMBOL) + crate::tui::views::columns::width(INDENT);
    let most = &listing.widest;
    let widest = [
        most.name,
        most.state,
        most.revision,
        listing.since.widest(app.now),
        most.reason,
    ];
    let w = widths(&COLS, &widest, area.width.saturating_sub(lead), 1);
    let line = |cells: Vec<Text>| -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        for (((text, style), w), c) in cells.into_iter().zip(&w).zip(&COLS) {
            let Some(w) = *w else { continue };
            if !spans.is_empty() {
                spans.push(Span::raw(" "));
            }
            spans.push(Span::styled(
                format!("{:<width$}", c.cut(&text, w), width = usize::from(w)),
                style,
            ));
        }
        spans
    };
    let header_area = Rect {
        y: area.y + 1,
        height: 1,
        ..area
    };
    let mut header = vec![Span::raw(" ".repeat(usize::from(lead)))];
    header.extend(line(
        COLS.iter()
            .map(|c| (c.title.to_string(), t.header()))
            .collect(),
    ));
    frame.render_widget(paragraph(Line::from(header)), header_area);

    let body = Rect {
        y: area.y + 2,
        height: area.height.saturating_sub(2),
        ..area
    };
    if listing.lines.is_empty() {
        let text = if view.filter.is_empty() {
            "no clusters in this rollout".to_string()
        } else {
            format!("no cluster matches /{}", view.filter)
        };
        empty_note(app, frame, body, text);
        return;
    }
    let selected = listing.clusters.get(view.selected).copied();
    let shown = listing
        .lines
        .iter()
        .enumerate()
        .skip(view.offset)
        .take(usize::from(body.height));
    for (y, (i, l)) in shown.enumerate() {
        let Some(row) = l.row(status) else {
            continue;
        };
        let at = Rect {
            y: body.y + y as u16,
            height: 1,
            ..body
        };
        let is_selected = selected == Some(i);
        let spans = match row {
            BoardRow::Wave {
                wave,
                updated,
                total,
            } => {
                let mut spans = vec![
                    Span::raw(" ".repeat(SYMBOL.chars().count())),
                    Span::styled(format!("wave {}", wave.number), t.title()),
                ];
                if let Some(group) = &wave.group {
                    spans.push(Span::styled(format!(" ({group})"), t.accent()));
                }
                spans.extend([
                    Span::raw("  "),
                    Span::styled(
                        wave_state_name(wave.state),
                        t.health(wave_health(wave.state)),
                    ),
                    Span::styled(format!("  {updated}/{total} updated"), t.muted()),
                ]);
                let board = Mode::Screen(ScreenKind::RolloutBoard);
                let note = match approval(status, wave) {
                    Approval::By(w) => Some((
                        format!(
                            "  approved by {} {}",
                            w.approved_by.as_deref().unwrap_or_default(),
                            age(app.now, w.approved_at.as_ref())
                        ),
                        t.muted(),
                    )),
                    // Read-only, the key is not offered.
                    Approval::Awaited if requests::refusal(app, Action::Approve).is_some() => {
                        Some(("  waits for approval".to_string(), t.accent()))
                    }
                    Approval::Awaited => Some((
                        format!(
                            "  waits for approval: {} approves",
                            app.keys.label(board, Action::Approve)
                        ),
                        t.accent().add_modifier(Modifier::BOLD),
                    )),
                    Approval::AfterResume => Some((
                        format!(
                            "  paused: {} resumes, then {} approves",
                            app.keys.label(board, Action::Resume),
                            app.keys.label(board, Action::Approve)
                        ),
                        t.muted(),
                    )),
                    Approval::Stopped(phase) => {
                        Some((format!("  not approved: the rollout is {phase}"), t.muted()))
                    }
                    Approval::None => None,
                };
                if let Some((text, style)) = note {
                    spans.push(Span::styled(text, style));
                }
                let soak_until = wave.soak_until.as_ref();
                if let Some(end) = soak_until.filter(|_| wave.state == WaveState::Soaking) {
                    let when = match until(app.now, end.0) {
                        now if now == "now" => now,
                        later => format!("in {later}"),
                    };
                    spans.push(Span::styled(
                        format!("  soaking, next wave {when}"),
                        t.accent(),
                    ));
                }
                if wave.state == WaveState::WaitingForWindow {
                    let when = match wave.opens_at.as_ref().map(|at| until(app.now, at.0)) {
                        Some(now) if now == "now" => "opens now".to_string(),
                        Some(later) => format!("opens in {later}"),
                        None => "none opens: see the policy's windows".to_string(),
                    };
                    let key = match requests::refusal(app, Action::StartNow) {
                        Some(_) => String::new(),
                        None => format!(
                            " ({} starts it now)",
                            app.keys.label(board, Action::StartNow)
                        ),
                    };
                    spans.push(Span::styled(
                        format!("  waits for a change window, {when}{key}"),
                        t.accent(),
                    ));
                }
                if let Some(by) = &wave.started_now_by {
                    spans.push(Span::styled(format!("  started now by {by}"), t.muted()));
                }
                spans
            }
            BoardRow::Cluster(c) => {
                let cells = cluster_cells(app, r, c);
                let mut spans = vec![if is_selected {
                    Span::styled(SYMBOL, t.accent())
                } else {
                    Span::raw(" ".repeat(SYMBOL.chars().count()))
                }];
                spans.push(Span::raw(INDENT));
                spans.extend(line(cells));
                spans
            }
        };
        let mut row = paragraph(Line::from(spans));
        if is_selected {
            row = row.style(t.selection());
        }
        frame.render_widget(row, at);
    }
}
