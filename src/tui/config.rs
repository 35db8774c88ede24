//! The console's settings file, `${XDG_CONFIG_HOME:-~/.config}/hmc-tui/config.yaml`:
//!
//! ```yaml
//! theme: light          # a built-in name, a name in themes/, or a path
//! keys:                 # remapping, table by table (`hmc-tui keys` lists them)
//!   board:
//!     approve: A
//! favourites:           # namespaces last used, by context (the console keeps it)
//!   kind-hmc: [team-b, team-a]
//! contexts:             # settings of one kubeconfig context
//!   prod-eu:
//!     readonly: true    # as --readonly there: no writes, no engine
//! ```
//!
//! A command-line flag (or its environment variable) wins over the file,
//! and the file over the built-in default.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::tui::keys::keymap::Keymap;
use crate::tui::keys::remap;
use crate::tui::paths;

/// What the settings file says.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// A theme name or a path; a relative path is relative to the file.
    pub theme: Option<String>,
    /// Key remapping as written: table → action → key or keys.
    #[serde(default)]
    pub keys: remap::Section,
    /// The namespace favourites of each context, the newest first: `:ns`
    /// adds to them, and the digits switch to them.
    #[serde(default)]
    pub favourites: BTreeMap<String, Vec<String>>,
    /// Settings of one kubeconfig context, by its name.
    #[serde(default)]
    pub contexts: BTreeMap<String, ContextSettings>,
    /// The keymap with that remapping applied.
    #[serde(skip)]
    pub keymap: Keymap,
}

/// What the settings file says about one context.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct ContextSettings {
    /// As `--readonly` while the console is on this context: it writes
    /// nothing and runs no engine there. For a production management
    /// cluster that a team only looks at from this console.
    #[serde(default)]
    pub readonly: bool,
}

/// What went wrong reading the settings file.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("bad settings file {path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("bad key binding in {path}, line {line}: {reason}")]
    Keys {
        path: PathBuf,
        line: usize,
        reason: String,
    },
}

/// The settings file, from the environment.
pub fn config_path() -> Option<PathBuf> {
    paths::config_dir().map(|d| d.join("config.yaml"))
}

/// Reads a settings file; `None` when there is none.
pub fn load(path: &Path) -> Result<Option<Config>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#')
    }) {
        return Ok(Some(Config::default()));
    }
    let mut config: Config = serde_yaml::from_str(&text).map_err(|e| ConfigError::Invalid {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    // A relative theme path is relative to the file, not to where the
    // console was started.
    if let (Some(t), Some(dir)) = (&config.theme, path.parent())
        && paths::looks_like_path(t)
        && Path::new(t).is_relative()
    {
        config.theme = Some(dir.join(t).to_string_lossy().into_owned());
    }
    config.keymap = remap::apply(&config.keys, &text).map_err(|e| ConfigError::Keys {
        path: path.to_path_buf(),
        line: e.line,
        reason: e.reason,
    })?;
    Ok(Some(config))
}

/// The favourites of a settings file.
pub fn favourites(config: Option<&Config>) -> BTreeMap<String, Vec<String>> {
    config.map(|c| c.favourites.clone()).unwrap_or_default()
}

/// The contexts a settings file makes read-only.
pub fn readonly_contexts(config: Option<&Config>) -> std::collections::BTreeSet<String> {
    config
        .map(|c| {
            c.contexts
                .iter()
                .filter(|(_, s)| s.readonly)
                .map(|(name, _)| name.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Keeps a context's namespace favourites in the settings file, creating
/// it if need be. Only the file's `favourites:` block is rewritten; the
/// rest, comments too, stays as written.
pub fn save_favourites(
    path: &Path,
    context: &str,
    namespaces: &[String],
) -> Result<(), ConfigError> {
    // Each save reads the file and writes it back: two at once (`:ns`
    // moves every open context) would keep only one context's change.
    static SAVING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = SAVING.lock().unwrap_or_else(|e| e.into_inner());
    let read = |source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(read(e)),
    };
    let mut all: BTreeMap<String, Vec<String>> = serde_yaml::from_str::<Favourites>(&text)
        .map(|f| f.favourites)
        .unwrap_or_default();
    all.insert(context.to_string(), namespaces.to_vec());
    let block = serde_yaml::to_string(&Favourites { favourites: all }).map_err(|e| {
        ConfigError::Invalid {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    })?;
    let text = replace_block(&text, "favourites", &block);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(read)?;
    }
    std::fs::write(path, text).map_err(read)
}

/// Only the `favourites:` of a settings file.
#[derive(serde::Serialize, Deserialize, Default)]
struct Favourites {
    #[serde(default)]
    favourites: BTreeMap<String, Vec<String>>,
}

/// `text` with its top-level `key:` block (the line and the indented,
/// blank or comment lines under it) replaced by `block`, or `block` added
/// at the end when there is none.
fn replace_block(text: &str, key: &str, block: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| {
        l.strip_prefix(key)
            .is_some_and(|r| r.trim_start().starts_with(':'))
    });
    let Some(start) = start else {
        let mut out = text.to_string();
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(block);
        return out;
    };
    let end = lines[start + 1..]
        .iter()
        .position(|l| !(l.is_empty() || l.starts_with([' ', '\t', '#', '-'])))
        .map_or(lines.len(), |i| start + 1 + i);
    let mut out: Vec<String> = lines[..start].iter().map(|l| l.to_string()).collect();
    out.extend(block.lines().map(String::from));
    out.extend(lines[end..].iter().map(|l| l.to_string()));
    let mut out = out.join("\n");
    out.push('\n');
    out
}

/// The keymap of a settings file, or the defaults when there is none.
pub fn keymap(config: Option<&Config>) -> Keymap {
    config.map(|c| c.keymap.clone()).unwrap_or_default()
}

/// The theme to load: the flag's (`--theme` or `HMC_TUI_THEME`), else the
/// settings file's, else `default`.
pub fn choose_theme(flag: Option<&str>, config: Option<&Config>) -> String {
    flag.filter(|f| !f.is_empty())
        .map(str::to_string)
        .or_else(|| config.and_then(|c| c.theme.clone()))
        .unwrap_or_else(|| "default".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::theme;

    fn tmp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hmc-tui-config-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_flag_wins_then_the_file_then_the_default() {
        let file = Config {
            theme: Some("light".into()),
            ..Config::default()
        };
        assert_eq!(
            choose_theme(Some("high-contrast"), Some(&file)),
            "high-contrast"
        );
        assert_eq!(choose_theme(None, Some(&file)), "light");
        assert_eq!(choose_theme(None, Some(&Config::default())), "default");
        assert_eq!(choose_theme(None, None), "default");
        assert_eq!(choose_theme(Some(""), Some(&file)), "light");
    }

    #[test]
    fn a_context_can_be_read_only_and_a_misspelt_setting_is_refused() {
        let dir = tmp("contexts");
        let path = dir.join("config.yaml");
        std::fs::write(
            &path,
            "contexts:\n  prod-eu:\n    readonly: true\n  staging: {}\n",
        )
        .unwrap();
        let config = load(&path).unwrap().unwrap();
        assert_eq!(
            readonly_contexts(Some(&config)),
            ["prod-eu".to_string()].into()
        );
        assert!(readonly_contexts(None).is_empty());
        std::fs::write(&path, "contexts:\n  prod-eu:\n    read-only: true\n").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(err.contains("unknown field `read-only`"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_file_remaps_keys_or_says_where_it_is_wrong() {
        use crate::tui::keys::{Action, Mode, ScreenKind};
        use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
        let dir = tmp("keys");
        let path = dir.join("config.yaml");
        std::fs::write(&path, "theme: light\nkeys:\n  board:\n    approve: A\n").unwrap();
        let config = load(&path).unwrap().unwrap();
        let board = Mode::Screen(ScreenKind::RolloutBoard);
        let press = KeyEvent::new(KeyCode::Char('A'), KeyModifiers::SHIFT);
        assert_eq!(
            keymap(Some(&config)).action(board, &press),
            Some(Action::Approve)
        );
        assert_eq!(keymap(None).action(board, &press), None);
        std::fs::write(&path, "keys:\n  board:\n\n    approve: x\n").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(
            err.contains("config.yaml, line 4: board.approve: `x` would do both"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_file_names_a_theme_or_a_path_beside_it() {
        let dir = tmp("load");
        let path = dir.join("config.yaml");
        assert_eq!(load(&path).unwrap(), None, "no file, no settings");
        std::fs::write(&path, "theme: light\n").unwrap();
        assert_eq!(
            load(&path).unwrap().unwrap().theme.as_deref(),
            Some("light")
        );
        std::fs::write(&path, "theme: themes/mine.yaml\n").unwrap();
        let theme = load(&path).unwrap().unwrap().theme.unwrap();
        assert_eq!(PathBuf::from(theme), dir.join("themes/mine.yaml"));
        std::fs::write(&path, "theme: /etc/hmc/dark.yaml\n").unwrap();
        assert_eq!(
            load(&path).unwrap().unwrap().theme.as_deref(),
            Some("/etc/hmc/dark.yaml")
        );
        std::fs::write(&path, "# nothing yet\n").unwrap();
        assert_eq!(load(&path).unwrap(), Some(Config::default()));
        std::fs::write(&path, "them: light\n").unwrap();
        let err = load(&path).unwrap_err().to_string();
        assert!(
            err.contains("config.yaml") && err.contains("unknown field"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The favourites are read back, and saving them rewrites only their
    /// block: comments, the theme and the keys stay as written.
    #[test]
    fn favourites_are_kept_beside_the_rest() {
        let dir = tmp("favourites");
        let path = dir.join("hmc-tui/config.yaml");
        let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        save_favourites(&path, "kind-hmc", &names(&["b", "a"])).unwrap();
        let config = load(&path).unwrap().unwrap();
        assert_eq!(favourites(Some(&config))["kind-hmc"], names(&["b", "a"]));
        let written = "# mine\ntheme: light\nfavourites:\n  old: [x]\n  # a note\nkeys:\n  board:\n    approve: A\n";
        std::fs::write(&path, written).unwrap();
        save_favourites(&path, "kind-hmc", &names(&["c"])).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("# mine\ntheme: light\nfavourites:\n"),
            "{text}"
        );
        assert!(
            text.ends_with("keys:\n  board:\n    approve: A\n"),
            "{text}"
        );
        let config = load(&path).unwrap().unwrap();
        assert_eq!(config.favourites["old"], names(&["x"]));
        assert_eq!(config.favourites["kind-hmc"], names(&["c"]));
        assert_eq!(config.theme.as_deref(), Some("light"));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The file's theme is loaded like the flag's: a path beside the file
    /// works from anywhere.
    #[test]
    fn a_theme_file_beside_the_settings_loads() {
        let dir = tmp("theme");
        std::fs::write(dir.join("mine.yaml"), theme::BUILT_IN[1].1).unwrap();
        let path = dir.join("config.yaml");
        std::fs::write(&path, "theme: ./mine.yaml\n").unwrap();
        let name = choose_theme(None, load(&path).unwrap().as_ref());
        let loaded = theme::Theme::load(&name).unwrap();
        assert_eq!(loaded.name, "mine");
        assert_eq!(loaded.ready, theme::Theme::load("light").unwrap().ready);
        std::fs::remove_dir_all(&dir).ok();
    }
}
