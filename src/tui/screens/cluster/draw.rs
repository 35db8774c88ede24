//! One cluster: its conditions, its services and the selected service's
//! merged values.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::layout;
use crate::tui::model::age::age;
use crate::tui::model::health::Health;
use crate::tui::model::health::{condition_health, service_health, services_ready};
use crate::tui::model::key::ObjKey;
use crate::tui::model::rows::service_rows;
use crate::tui::model::view::View;
use crate::tui::screens::chrome::{body_block, empty_note, section};
use crate::tui::screens::values::draw as values;
use crate::tui::state::app::App;
use crate::tui::views::columns::{Text, col, flex};
use crate::tui::views::safe::paragraph;
use crate::tui::views::table::table;

pub fn draw(app: &App, key: &ObjKey, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let view = app.view();
    let Some(mc) = app.data.cluster(&key.context, &key.namespace, &key.name) else {
        crate::tui::screens::chrome::gone(app, key, frame, area);
        return;
    };
    frame.render_widget(body_block(app, Vec::new()), area);
    let status = mc.status.clone().unwrap_or_default();
    let listed = service_rows(mc, &view.filter);
    let parts = layout::detail(area, status.conditions.len(), listed.len());

    // The summary line.
    let label = |s: &'static str| Span::styled(s, t.muted());
    let (services, services_health) = services_ready(mc);
    let revision = match app.data.pending.get(key) {
        // A rollout is to give it, or is giving it, a revision.
        Some(p) => Span::styled(p.label(), t.health(p.health())),
        None => Span::raw(
            status
                .revision
                .map_or_else(|| "-".to_string(), |r| r.to_string()),
        ),
    };
    let mut info = vec![
        label("template "),
        Span::raw(mc.spec.template.clone()),
        label("  revision "),
        revision,
        label("  services "),
        Span::styled(services, t.health(services_health)),
        label("  age "),
        Span::raw(age(app.now, mc.metadata.creation_timestamp.as_ref())),
    ];
    if mc.spec.dry_run {
        info.push(Span::styled("  dry run", t.health(Health::Progressing)));
    }
    if mc.metadata.deletion_timestamp.is_some() {
        info.push(Span::styled("  deleting", t.muted()));
    }
    if let Some(p) = app.data.pending.get(key) {
        // The rollout, with its phase when there is room (`o` opens it).
        let used: usize = info.iter().map(Span::width).sum();
        let room = usize::from(parts.info.width).saturating_sub(used + "  rollout ".len());
        let long = format!("{} {}", p.rollout, p.phase);
        let shown = [long, p.rollout.clone()]
            .into_iter()
            .find(|s| s.chars().count() <= room);
        if let Some(text) = shown {
            info.push(label("  rollout "));
            info.push(Span::raw(text));
        }
    }
    frame.render_widget(paragraph(Line::from(info)), parts.info);

    // Conditions.
    let section = |title: String| section(app, title);
    frame.render_widget(section(" conditions ".into()), parts.conditions);
    let cond_area = Rect {
        y: parts.conditions.y + 1,
        height: parts.conditions.height.saturating_sub(1),
        ..parts.conditions
    };
    // Narrow, the columns give way in this order: AGE, REASON, MESSAGE,
    // STATUS; TYPE stays.
    let cols = [
        col("TYPE", 5, 14),
        col("STATUS", 6, 7).drop(1),
        col("REASON", 6, 20).drop(3),
        flex("MESSAGE", 10).drop(2),
        col("AGE", 3, 5).drop(4),
    ];
    let rows: Vec<Vec<Text>> = status
        .conditions
        .iter()
        .map(|c| {
            let health = condition_health(&c.status, &c.reason);
            vec![
                (c.type_.clone(), Style::new()),
                (c.status.clone(), t.health(health)),
                (c.reason.clone(), t.muted()),
                (
                    c.message.clone(),
                    if health == Health::Failed {
                        t.health(Health::Failed)
                    } else {
                        Style::new()
                    },
                ),
                (age(app.now, Some(&c.last_transition_time)), t.muted()),
            ]
        })
        .collect();
    let empty = rows.is_empty();
    table(
        &app.theme,
        frame,
        cond_area,
        &cols,
        rows,
        &View::new(view.screen.clone()),
        false,
    );
    if empty {
        empty_note(app, frame, cond_area, "no conditions yet".into());
    }

    // Services.
    let total = status.services.len();
    let title = if listed.len() == total {
        format!(" services ({total}) ")
    } else {
        format!(" services ({}/{total}) ", listed.len())
    };
    frame.render_widget(section(title), parts.services);
    let svc_area = Rect {
        y: parts.services.y + 1,
        height: parts.services.height.saturating_sub(1),
        ..parts.services
    };
    // Narrow, the columns give way in this order: REV, MESSAGE, VERSION,
    // STATE; NAME stays.
    let cols = [
        col("NAME", 6, 24),
        col("STATE", 5, 10).drop(1),
        col("VERSION", 7, 16).drop(2),
        col("REV", 3, 5).drop(4),
        flex("MESSAGE", 10).drop(3),
    ];
    let rows: Vec<Vec<Text>> = listed
        .iter()
        .map(|s| {
            let health = service_health(s.state);
            vec![
                (s.name.clone(), Style::new()),
                (s.state.to_string(), t.health(health)),
                (
                    s.version.clone().unwrap_or_else(|| "-".into()),
                    Style::new(),
                ),
                (
                    s.revision
                        .map_or_else(|| "-".to_string(), |r| r.to_string()),
                    Style::new(),
                ),
                (
                    s.message.clone().unwrap_or_default(),
                    if health == Health::Failed {
                        t.health(Health::Failed)
                    } else {
                        Style::new()
                    },
                ),
            ]
        })
        .collect();
    let empty = rows.is_empty();
    table(&app.theme, frame, svc_area, &cols, rows, view, true);
    if empty {
        let text = if total == 0 {
            "no services".to_string()
        } else {
            format!("no service matches /{}", view.filter)
        };
        empty_note(app, frame, svc_area, text);
    }
    values::pane(app, frame, parts.values);
}
