//! Where the console's own files are, and whether a name given for one is a
//! path. Read by [`config`](crate::tui::config) and
//! [`theme`](crate::tui::theme) alike, so neither needs the other.

use std::ffi::OsString;
use std::path::PathBuf;

/// `$XDG_CONFIG_HOME/hmc-tui`, else `$HOME/.config/hmc-tui`.
pub fn config_dir_from(
    xdg_config_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let base = xdg_config_home
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            home.filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("hmc-tui"))
}

/// The console's configuration directory, from the environment.
pub fn config_dir() -> Option<PathBuf> {
    config_dir_from(
        std::env::var_os("XDG_CONFIG_HOME"),
        std::env::var_os("HOME"),
    )
}

/// Whether a theme is given as a file rather than a name: it has a `/` or
/// ends in `.yaml`/`.yml`.
pub fn looks_like_path(name_or_path: &str) -> bool {
    name_or_path.contains(std::path::MAIN_SEPARATOR)
        || name_or_path.contains('/')
        || name_or_path.ends_with(".yaml")
        || name_or_path.ends_with(".yml")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_directory_follows_xdg_then_home() {
        let some = |s: &str| Some(OsString::from(s));
        assert_eq!(
            config_dir_from(some("/x/conf"), some("/home/a")),
            Some(PathBuf::from("/x/conf/hmc-tui"))
        );
        assert_eq!(
            config_dir_from(some(""), some("/home/a")),
            Some(PathBuf::from("/home/a/.config/hmc-tui"))
        );
        assert_eq!(config_dir_from(None, None), None);
    }
}
