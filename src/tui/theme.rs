//! Themes are files: `themes/<name>.yaml` at the top of the repository, with
//! the three built-ins embedded so the binary works anywhere.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;

use crate::tui::model::health::Health;
use crate::tui::paths::{self, looks_like_path};

/// The built-in themes, by name.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("default", include_str!("../../themes/default.yaml")),
    ("light", include_str!("../../themes/light.yaml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.yaml"),
    ),
];

/// The colours of the console. Status colours mean the same on every screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Theme {
    pub name: String,
    /// Ready, Installed, valid.
    pub ready: Color,
    /// Provisioning, Installing.
    pub progressing: Color,
    /// Pending, not yet checked.
    pub pending: Color,
    /// Failed, invalid.
    pub failed: Color,
    /// Removing, unknown, secondary text.
    pub muted: Color,
    /// Titles, keys, the prompt.
    pub accent: Color,
    /// The header line and column names.
    pub header: Color,
    /// Background of the selected row.
    pub selection: Color,
}

/// A theme file as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    ready: String,
    progressing: String,
    pending: String,
    failed: String,
    muted: String,
    accent: String,
    header: String,
    selection: String,
}

/// What went wrong loading a theme.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error(
        "unknown theme {0:?}: use one of {names} or a path to a .yaml file",
        names = built_in_names()
    )]
    Unknown(String),
    #[error("cannot read theme file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("bad theme {origin}: {message}")]
    Invalid { origin: String, message: String },
}

fn built_in_names() -> String {
    BUILT_IN
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Default for Theme {
    fn default() -> Self {
        Theme::parse(BUILT_IN[0].1, "default").expect("the built-in default theme is valid")
    }
}

impl Theme {
    /// Loads a theme by name or path.
    ///
    /// Something that looks like a path (has a `/` or ends in `.yaml`/`.yml`)
    /// is read as a file. A name is looked up in
    /// `${XDG_CONFIG_HOME:-~/.config}/hmc-tui/themes/<name>.yaml` first, then
    /// among the built-ins (`themes/<name>.yaml` in the repository).
    pub fn load(name_or_path: &str) -> Result<Theme, ThemeError> {
        if looks_like_path(name_or_path) {
            return Self::load_file(Path::new(name_or_path));
        }
        if let Some(dir) = user_theme_dir() {
            let path = dir.join(format!("{name_or_path}.yaml"));
            if path.is_file() {
                return Self::load_file(&path);
            }
        }
        match BUILT_IN.iter().find(|(n, _)| *n == name_or_path) {
            Some((name, text)) => Theme::parse(text, name),
            None => Err(ThemeError::Unknown(name_or_path.to_string())),
        }
    }

    fn load_file(path: &Path) -> Result<Theme, ThemeError> {
        let text = std::fs::read_to_string(path).map_err(|source| ThemeError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Theme::parse(&text, &name).map_err(|e| match e {
            ThemeError::Invalid { message, .. } => ThemeError::Invalid {
                origin: path.display().to_string(),
                message,
            },
            other => other,
        })
    }

    /// Parses the text of a theme file.
    pub fn parse(text: &str, name: &str) -> Result<Theme, ThemeError> {
        let invalid = |message: String| ThemeError::Invalid {
            origin: name.to_string(),
            message,
        };
        let file: ThemeFile = serde_yaml::from_str(text).map_err(|e| invalid(e.to_string()))?;
        let colour = |key: &str, value: &str| {
            Color::from_str(value.trim()).map_err(|_| {
                invalid(format!(
                    "{key}: {value:?} is not a colour (use a name such as green or dark-gray, #rrggbb, or 0-255)"
                ))
            })
        };
        Ok(Theme {
            name: name.to_string(),
            ready: colour("ready", &file.ready)?,
            progressing: colour("progressing", &file.progressing)?,
            pending: colour("pending", &file.pending)?,
            failed: colour("failed", &file.failed)?,
            muted: colour("muted", &file.muted)?,
            accent: colour("accent", &file.accent)?,
            header: colour("header", &file.header)?,
            selection: colour("selection", &file.selection)?,
        })
    }

    /// The colour of a health, the same on every screen.
    pub fn health(&self, health: Health) -> Style {
        Style::new().fg(match health {
            Health::Ready => self.ready,
            Health::Progressing => self.progressing,
            Health::Pending => self.pending,
            Health::Failed => self.failed,
            Health::Muted => self.muted,
        })
    }

    pub fn muted(&self) -> Style {
        Style::new().fg(self.muted)
    }

    /// A key that does not apply now, in the hint bar and the help.
    pub fn dimmed(&self) -> Style {
        Style::new().fg(self.muted).add_modifier(Modifier::DIM)
    }

    pub fn accent(&self) -> Style {
        Style::new().fg(self.accent)
    }

    pub fn title(&self) -> Style {
        Style::new().fg(self.accent).add_modifier(Modifier::BOLD)
    }

    pub fn header(&self) -> Style {
        Style::new().fg(self.header).add_modifier(Modifier::BOLD)
    }

    pub fn selection(&self) -> Style {
        Style::new().bg(self.selection).add_modifier(Modifier::BOLD)
    }

    pub fn error(&self) -> Style {
        Style::new().fg(self.failed).add_modifier(Modifier::BOLD)
    }
}

fn user_theme_dir() -> Option<PathBuf> {
    Some(paths::config_dir()?.join("themes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_ins_parse() {
        for (name, _) in BUILT_IN {
            let theme = Theme::load(name).unwrap();
            assert_eq!(theme.name, *name);
        }
        assert_eq!(Theme::default().ready, Color::Green);
    }

    #[test]
    fn unknown_name_lists_the_built_ins() {
        let err = Theme::load("solarized").unwrap_err().to_string();
        assert!(err.contains("default, light, high-contrast"), "{err}");
    }

    #[test]
    fn bad_colour_names_the_key() {
        let text = BUILT_IN[0].1.replace("failed: red", "failed: reddish");
        let err = Theme::parse(&text, "mine").unwrap_err().to_string();
        assert!(err.contains("failed") && err.contains("reddish"), "{err}");
    }

    #[test]
    fn missing_and_unknown_keys_are_errors() {
        let err = Theme::parse("ready: green\n", "mine")
            .unwrap_err()
            .to_string();
        assert!(err.contains("missing field"), "{err}");
        let text = format!("{}\nbackground: black\n", BUILT_IN[0].1);
        let err = Theme::parse(&text, "mine").unwrap_err().to_string();
        assert!(err.contains("unknown field"), "{err}");
    }

    #[test]
    fn a_path_is_read_as_a_file() {
        let dir = std::env::temp_dir().join(format!("hmc-tui-theme-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("mine.yaml");
        std::fs::write(&path, BUILT_IN[1].1).unwrap();
        let theme = Theme::load(path.to_str().unwrap()).unwrap();
        assert_eq!(theme.name, "mine");
        std::fs::write(&path, "ready: [").unwrap();
        let err = Theme::load(path.to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains(path.to_str().unwrap()), "{err}");
        let missing = dir.join("nope.yaml");
        assert!(matches!(
            Theme::load(missing.to_str().unwrap()),
            Err(ThemeError::Read { .. })
        ));
        std::fs::remove_dir_all(&dir).ok();
    }
}
