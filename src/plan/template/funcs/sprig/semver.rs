//! Versions and constraints as `Masterminds/semver` v3.3.0 reads them
//! (the library behind Sprig's `semver` and `semverCompare`): lenient
//! versions (`v1.2` is 1.2.0), constraints with `||`, `,`, ranges
//! `1 - 2`, wildcards, `~` and `^`, and prereleases matched only by a
//! constraint that names one. Its regular expressions are the library's.

use std::cmp::Ordering;
use std::sync::OnceLock;

use regex::Regex;

pub(super) use super::super::super::value::Version;

const VERSION: &str = r"v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const CONSTRAINT_VERSION: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";
const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";

struct Patterns {
    version: Regex,
    constraint: Regex,
    range: Regex,
    find: Regex,
    valid: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| {
        let cv = CONSTRAINT_VERSION;
        let re = |p: String| Regex::new(&p).expect("the semver patterns are valid");
        Patterns {
            version: re(format!("^{VERSION}$")),
            constraint: re(format!(r"^\s*({OPS})\s*({cv})\s*$")),
            range: re(format!(r"\s*({cv})\s+-\s+({cv})\s*")),
            find: re(format!(r"({OPS})\s*({cv})")),
            valid: re(format!(
                r"^(\s*({OPS})\s*({cv})\s*)((?:\s+|,\s*)({OPS})\s*({cv})\s*)*$"
            )),
        }
    })
}

impl Version {
    /// `semver.NewVersion`.
    pub fn parse(text: &str) -> Result<Version, String> {
        let m = patterns()
            .version
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

    fn compare(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch)
            .cmp(&(other.major, other.minor, other.patch))
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.pre, &other.pre),
            })
    }
}

fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (
            a.get(i).copied().unwrap_or(""),
            b.get(i).copied().unwrap_or(""),
        );
        let order = compare_pre_part(x, y);
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

fn compare_pre_part(x: &str, y: &str) -> Ordering {
    if x == y {
        return Ordering::Equal;
    }
    if x.is_empty() {
        return Ordering::Less;
    }
    if y.is_empty() {
        return Ordering::Greater;
    }
    match (x.parse::<u64>(), y.parse::<u64>()) {
        (Err(_), Err(_)) => x.cmp(y),
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(a), Ok(b)) => {
            if a > b {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

/// One operator and version of a constraint.
struct Constraint {
    op: String,
    version: Version,
    dirty: bool,
    minor_dirty: bool,
    patch_dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "X" | "*")
}

impl Constraint {
    fn parse(text: &str) -> Result<Constraint, String> {
        let m = patterns()
            .constraint
            .captures(text)
            .ok_or_else(|| format!("improper constraint: {text}"))?;
        let group = |i: usize| m.get(i).map_or("", |g| g.as_str());
        let (major, minor, patch, pre) = (group(3), group(4), group(5), group(6));
        let (text, dirty, minor_dirty, patch_dirty) = if is_x(major) || major.is_empty() {
            (format!("0.0.0{pre}"), true, false, false)
        } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
            (format!("{major}.0.0{pre}"), true, true, false)
        } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
            (format!("{major}{minor}.0{pre}"), true, false, true)
        } else {
            (group(2).to_string(), false, false, false)
        };
        let version = Version::parse(&text).map_err(|_| "constraint Parser Error".to_string())?;
        Ok(Constraint {
            op: group(1).to_string(),
            version,
            dirty,
            minor_dirty,
            patch_dirty,
        })
    }

    fn check(&self, v: &Version) -> bool {
        let c = &self.version;
        if !v.pre.is_empty() && c.pre.is_empty() {
            return false;
        }
        match self.op.as_str() {
            "" | "=" => {
                if self.dirty {
                    self.tilde(v)
                } else {
                    v.compare(c) == Ordering::Equal
                }
            }
            "!=" => self.not_equal(v),
            ">" => {
                if !self.dirty {
                    return v.compare(c) == Ordering::Greater;
                }
                match v.major.cmp(&c.major) {
                    Ordering::Greater => true,
                    Ordering::Less => false,
                    Ordering::Equal if self.minor_dirty => false,
                    Ordering::Equal if self.patch_dirty => v.minor > c.minor,
                    Ordering::Equal => v.compare(c) == Ordering::Greater,
                }
            }
            "<" => v.compare(c) == Ordering::Less,
            ">=" | "=>" => v.compare(c) != Ordering::Less,
            "<=" | "=<" => {
                if !self.dirty {
                    return v.compare(c) != Ordering::Greater;
                }
                !(v.major > c.major
                    || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
            }
            "~" | "~>" => self.tilde(v),
            "^" => self.caret(v),
            _ => false,
        }
    }

    fn not_equal(&self, v: &Version) -> bool {
        let c = &self.version;
        if self.dirty {
            if c.major != v.major {
                return true;
            }
            if c.minor != v.minor && !self.minor_dirty {
                return true;
            }
            if self.minor_dirty {
                return false;
            }
            if c.patch != v.patch && !self.patch_dirty {
                return true;
            }
            if self.patch_dirty {
                return (!v.pre.is_empty() || !c.pre.is_empty())
                    && compare_prerelease(&v.pre, &c.pre) != Ordering::Equal;
            }
        }
        v.compare(c) != Ordering::Equal
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.compare(c) == Ordering::Less {
            return false;
        }
        if c.major == 0 && c.minor == 0 && c.patch == 0 && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        v.major == c.major && (v.minor == c.minor || self.minor_dirty)
    }

    fn caret(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.compare(c) == Ordering::Less {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if v.major > 0 {
            return false;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.minor == c.minor;
        }
        if v.minor > 0 {
            return false;
        }
        c.patch == v.patch
    }
}

/// `semverCompare CONSTRAINT VERSION`.
pub(super) fn matches(constraint: &str, version: &str) -> Result<bool, String> {
    let p = patterns();
    let mut rewritten = constraint.to_string();
    for m in p.range.captures_iter(constraint) {
        let group = |i: usize| m.get(i).map_or("", |g| g.as_str());
        let whole = group(0);
        rewritten = rewritten.replacen(whole, &format!(">= {}, <= {} ", group(1), group(11)), 1);
    }
    let mut alternatives = Vec::new();
    for alternative in rewritten.split("||") {
        if !p.valid.is_match(alternative) {
            return Err(format!("improper constraint: {alternative}"));
        }
        let found: Vec<&str> = p.find.find_iter(alternative).map(|m| m.as_str()).collect();
        let parts = if found.is_empty() {
            vec![alternative]
        } else {
            found
        };
        let all: Vec<Constraint> = parts
            .into_iter()
            .map(Constraint::parse)
            .collect::<Result<_, _>>()?;
        alternatives.push(all);
    }
    let version = Version::parse(version)?;
    Ok(alternatives
        .iter()
        .any(|all| all.iter().all(|c| c.check(&version))))
}
