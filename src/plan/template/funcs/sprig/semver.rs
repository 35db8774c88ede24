//! Versions as `Masterminds/semver` v3.3.0 reads them (the library behind
//! Sprig's `semver` and `semverCompare`): lenient versions (`v1.2` is
//! 1.2.0) with their prerelease and metadata. Constraints are read by
//! `plan::semver_constraint`, the same library's reading, which the engine
//! already uses.

use std::sync::OnceLock;

use regex::Regex;

use crate::plan::semver_constraint;

pub(super) use super::super::super::value::Version;

const VERSION: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";

/// `semver.NewVersion`'s pattern, anchored.
fn version_pattern() -> &'static Regex {
    static P: OnceLock<Regex> = OnceLock::new();
    P.get_or_init(|| Regex::new(&format!("^{VERSION}$")).expect("the version pattern is valid"))
}

impl Version {
    /// `semver.NewVersion`.
    pub fn parse(text: &str) -> Result<Version, String> {
        let m = version_pattern()
            .captures(text)
            .ok_or("Invalid Semantic Version")?;
        let group = |i: usize| m.get(i).map_or("", |g| g.as_str());
        let number = |s: &str| {
            s.trim_start_matches('.')
                .parse::<u64>()
                .map_err(|e| format!("Error parsing version segment: {e}"))
        };
        let pre = group(5).to_string();
        if pre
            .split('.')
            .any(|p| p.len() > 1 && p.starts_with('0') && p.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err("Version segment starts with 0".into());
        }
        Ok(Version {
            major: number(group(1))?,
            minor: if group(2).is_empty() {
                0
            } else {
                number(group(2))?
            },
            patch: if group(3).is_empty() {
                0
            } else {
                number(group(3))?
            },
            pre,
            metadata: group(8).to_string(),
            original: text.to_string(),
        })
    }
}

/// `semverCompare CONSTRAINT VERSION`: Masterminds semver v3's reading,
/// which Sprig calls, and which the engine already reads ServiceTemplates'
/// `k8sConstraint` with (`plan::semver_constraint`).
pub(super) fn matches(constraint: &str, version: &str) -> Result<bool, String> {
    let constraint = semver_constraint::Constraint::parse(constraint).map_err(|e| e.to_string())?;
    let version = semver_constraint::Version::parse(version).map_err(|e| e.to_string())?;
    Ok(constraint.matches(&version))
}
