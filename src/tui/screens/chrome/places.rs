//! The header's namespace favourites and the engine's scope, and the `:`
//! prompt's candidates: what [`crate::tui::state::places`] knows, drawn.

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use crate::tui::state::app::{App, Engine};
use crate::tui::state::places;

/// `0 all  1 team-b  2 team-a`: the digits that switch, after the
/// namespace, once there are favourites; the one shown is bold.
pub fn favourites(app: &App) -> Vec<Span<'static>> {
    if app.places.favourites_of(&app.target.context).is_empty() {
        return Vec::new();
    }
    let t = &app.theme;
    let key = Style::new().fg(t.accent).add_modifier(Modifier::BOLD);
    let names = std::iter::once(None).chain(
        app.places
            .favourites_of(&app.target.context)
            .iter()
            .map(Some),
    );
    let mut spans = vec![Span::raw(" ")];
    for (i, name) in names.enumerate() {
        let current = name.map(String::as_str) == app.target.namespace.as_deref();
        let style = if current {
            Style::new().fg(t.header).add_modifier(Modifier::BOLD)
        } else {
            t.muted()
        };
        spans.push(Span::raw(" "));
        spans.push(Span::styled(i.to_string(), key));
        spans.push(Span::styled(
            format!(" {}", name.map_or(places::ALL, String::as_str)),
            style,
        ));
    }
    spans
}

/// ` (for team-a)` after the engine when it works on another namespace
/// than the one shown.
pub fn engine_scope(app: &App) -> Option<String> {
    if !matches!(app.target.engine, Engine::InProcess | Engine::Standby) {
        return None;
    }
    let scope = app.engine_scope.as_ref()?;
    (*scope != app.target.namespace).then(|| match scope {
        None => " (all namespaces)".to_string(),
        Some(ns) => format!(" (ns {ns})"),
    })
}

/// The `:` prompt's candidates, or what to say when there are none.
pub fn candidates(app: &App, text: &str) -> Result<String, &'static str> {
    let (names, none) = places::prompt_candidates(app, text);
    if names.is_empty() {
        Err(none)
    } else {
        Ok(names.join("  "))
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use crate::tui::fixtures::sample::app;
    use crate::tui::state::app::{App, Msg};
    use crate::tui::update::update;

    fn lines(app: &mut App, w: u16, h: u16) -> Vec<String> {
        update(app, Msg::Resize(w, h));
        let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
        terminal
            .draw(|f| crate::tui::screens::draw(app, f))
            .unwrap();
        let buffer = terminal.backend().buffer().clone();
        (0..h)
            .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect::<String>())
            .collect()
    }

    #[test]
    fn the_header_lists_the_favourites_when_there_are_some() {
        let mut app = app();
        let header = lines(&mut app, 120, 40)[0].clone();
        assert!(!header.contains("0 all"), "{header}");
        app.places.favourites.insert(
            "kind-hmc".into(),
            vec!["team-a".into(), "hmc-system".into()],
        );
        app.target.namespace = Some("team-a".into());
        let header = lines(&mut app, 120, 40)[0].clone();
        assert!(
            header.contains("ns: team-a  0 all 1 team-a 2 hmc-system"),
            "{header}"
        );
        // The engine works on all namespaces: the header says so.
        app.engine_scope = Some(None);
        let header = lines(&mut app, 120, 40)[0].clone();
        assert!(
            header.contains("engine: in-process (all namespaces)  ns: team-a"),
            "{header}"
        );
        // Short of room, the favourites go before the namespace does.
        let header = lines(&mut app, 80, 24)[0].clone();
        assert!(header.contains("ns: team-a"), "{header}");
        assert!(!header.contains("0 all"), "{header}");
    }

    #[test]
    fn the_prompt_offers_namespaces() {
        let mut app = app();
        update(
            &mut app,
            Msg::Namespaces(vec!["team-a".into(), "team-b".into()]),
        );
        crate::tui::fixtures::console::type_str(&mut app, ":ns team");
        let status = lines(&mut app, 80, 24)[22].clone();
        assert!(status.starts_with(":ns team  team-a  team-b"), "{status}");
        crate::tui::fixtures::console::type_str(&mut app, "zz");
        let status = lines(&mut app, 80, 24)[22].clone();
        assert!(status.contains("no such namespace known"), "{status}");
    }
}
