//! Kubernetes versions and version constraints as hmc reads them.
//!
//! hmc checks a ClusterTemplate's `status.k8sVersion` against each
//! ServiceTemplate's `status.k8sConstraint` with Masterminds/semver v3
//! (`semver.NewVersion` for the version, `semver.NewConstraint` and
//! `Constraints.Check` for the constraint; `internal/webhook/
//! clusterdeployment_webhook.go` in Mirantis/hmc, `internal/util/validation/
//! cluster_template.go` in its successor k0rdent/kcm; both templates' status
//! fields are filled only when the same calls parse them). This module is
//! that reading, written from Masterminds/semver's `version.go` and
//! `constraints.go` at commit 71f2b39 (v3.4.0 and six commits, April 2026),
//! with its test tables ported in `semver_constraint/tests.rs`:
//!
//! - A version is `NewVersion`'s loose form: an optional lowercase `v`, one
//!   to three numbers (a missing minor or patch is 0, leading zeros are
//!   read away), an optional `-pre.release` and `+build`; no spaces. Build
//!   metadata never counts in a comparison, so `v1.30.2+k0s.0` (k0s),
//!   `v1.29.3+k3s1` (k3s) and `1.30.2` compare as the same version, and
//!   `1.30` is 1.30.0.
//! - A constraint is alternatives joined by `||`, each a list of
//!   comparisons joined by spaces or commas (all must hold):
//!   `=`, `!=`, `>`, `<`, `>=` (`=>`), `<=` (`=<`), `~` (`~>`), `^`, or no
//!   operator, each followed by a version that may be partial (`1`, `1.2`)
//!   or have wildcards (`x`, `X`, `*`). `1.2 - 1.4.5` is `>= 1.2, <= 1.4.5`.
//!   A partial version is a range: `1.29` and `=1.29` are 1.29.x, `>1.29`
//!   is 1.30.0 and above, `<=1.29` takes in all of 1.29.x, `~1.29` is
//!   1.29.x, `^1.29` is 1.x from 1.29.0, `^0.2` is 0.2.x. Without spaces
//!   around the hyphen, `1.28-1.30` is no range but 1.28.x with the
//!   pre-release `1.30`, in hmc as here.
//! - A pre-release version (`1.31.0-rc.1`, and cloud builds such as
//!   `1.29.3-gke.100`) is admitted only by an alternative one of whose
//!   comparisons states a pre-release itself (`>=1.28.0-0`), and then
//!   compared by precedence like any other version.
//!
//! # What changed for constraints written under the old reading
//!
//! Before, `k8sConstraint` was read with Cargo's rules (the `semver`
//! crate). Constraints hmc and the old reading agree on keep their meaning:
//! `>=1.30`, `>1.29`, `<1.31`, `<=1.30`, `>=1.28, <1.31`, `~1.29`,
//! `~1.29.3`, `^1.29`, `^0.2.3`, `=1.29`, `=1.29.3`, `1.29.*`, `1.x`, `*`.
//! These changed:
//!
//! - A bare version is no longer `^`: `1.29` used to mean
//!   `>=1.29.0, <2.0.0` and now means 1.29.x; `1.29.3` used to mean
//!   `>=1.29.3, <2.0.0` and now means exactly 1.29.3; `1` is still 1.x.
//! - Pre-releases: an alternative that states a pre-release now admits
//!   every pre-release within its range, not only those of the same
//!   major.minor.patch: `>=1.28.0-0` now admits `1.31.0-rc.1` and
//!   `1.29.3-gke.100`, which it used to refuse.
//! - Newly accepted: `||`, comparisons joined by spaces (`>=1.28 <1.31`),
//!   hyphen ranges (`1.28 - 1.30`), `!=`, `=>`, `=<`, `~>`, a leading `v`
//!   (`>=v1.28`), leading zeros (`>=1.028`), wildcards with an operator or
//!   before numbers (`~*`, `*.1`, `1.x.3` is 1.x), tabs and newlines
//!   between comparisons.
//! - Newly refused: nothing. Of about 94,000 generated constraints, none
//!   that Cargo's rules accept is refused by hmc's; only text past the
//!   bounds below is refused here and not by hmc.
//!
//! A ClusterTemplate's `k8sVersion` changed less: a missing minor or patch
//! was already 0 and a leading `v` already dropped, but an uppercase `V`
//! (`V1.29`) or spaces around the version, which hmc refuses, are now
//! refused too, and leading zeros (`1.029`), which hmc reads, are read.
//!
//! # Bounds
//!
//! The text is user input: a constraint longer than
//! [`MAX_CONSTRAINT_BYTES`], or with more than [`MAX_ALTERNATIVES`]
//! alternatives or [`MAX_COMPARISONS`] comparisons in all, is refused
//! (hmc has no such bounds; real constraints have a handful). Parsing
//! is linear-ish in the text (at worst quadratic in 1 KiB) and never
//! panics.
//!
//! # Not matched
//!
//! Masterminds/semver's `IncludePrerelease` switch (hmc never sets it) is
//! here only for the ported tests; its `Validate` messages and `String`
//! rendering are not reproduced. Versions up to v3.3.1, which the last
//! Mirantis/hmc pins, differ in three corners: a pre-release version was
//! checked comparison by comparison (each had to state a pre-release), a
//! `!=` with a full version admitted pre-releases, and leading zeros
//! (`1.029`) were refused; this module follows v3.4 and later (k0rdent/kcm
//! pins v3.5.0).
//!
//! Pure: no I/O.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Range;

/// The longest constraint read, in bytes.
pub const MAX_CONSTRAINT_BYTES: usize = 1024;
/// The most alternatives (`||`) a constraint may have.
pub const MAX_ALTERNATIVES: usize = 32;
/// The most comparisons a constraint may have in all its alternatives; a
/// hyphen range counts as two.
pub const MAX_COMPARISONS: usize = 64;

/// A version as Masterminds/semver's `NewVersion` reads it. `==` compares
/// every part, build metadata included; [`Version::precedence`] is the
/// comparison hmc makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    metadata: String,
}

/// Why a text is not a version.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum VersionError {
    #[error(
        "expected one to three numbers such as 1.29 or v1.29.3, then optionally -pre.release and +build"
    )]
    Malformed,
    #[error("{0} does not fit in 64 bits")]
    TooLarge(String),
    #[error("the pre-release number {0} starts with 0")]
    LeadingZero(String),
}

impl Version {
    /// Reads `text` as `NewVersion` does (Masterminds' default, coercing
    /// form): `1`, `1.2`, `v1.2.3`, `01.2.3`, `1.2-rc.1`, `1.30.2+k0s.0`.
    pub fn parse(text: &str) -> Result<Version, VersionError> {
        let b = text.as_bytes();
        let found = scan_version(b, 0, |c| c.is_ascii_digit())
            .filter(|v| v.end == b.len())
            .ok_or(VersionError::Malformed)?;
        let number = |r: Range<usize>| {
            let digits = &text[r];
            digits
                .parse::<u64>()
                .map_err(|_| VersionError::TooLarge(digits.to_string()))
        };
        let major = number(found.major)?;
        let minor = found.minor.map_or(Ok(0), number)?;
        let patch = found.patch.map_or(Ok(0), number)?;
        let pre = found.pre.map_or("", |r| &text[r]);
        if let Some(zero) = pre
            .split('.')
            .find(|p| p.len() > 1 && p.starts_with('0') && p.bytes().all(|c| c.is_ascii_digit()))
        {
            return Err(VersionError::LeadingZero(zero.to_string()));
        }
        Ok(Version {
            major,
            minor,
            patch,
            pre: pre.to_string(),
            metadata: found.metadata.map_or("", |r| &text[r]).to_string(),
        })
    }

    pub fn major(&self) -> u64 {
        self.major
    }

    pub fn minor(&self) -> u64 {
        self.minor
    }

    pub fn patch(&self) -> u64 {
        self.patch
    }

    /// The pre-release, without its `-`; empty for a release.
    pub fn pre(&self) -> &str {
        &self.pre
    }

    /// The build metadata, without its `+`; never part of a comparison.
    pub fn metadata(&self) -> &str {
        &self.metadata
    }

    /// Precedence as Masterminds' `Compare`: numbers, then a release above
    /// its pre-releases, then the pre-release identifiers; build metadata
    /// ignored.
    pub fn precedence(&self, other: &Version) -> Ordering {
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

impl fmt::Display for Version {
    /// As Masterminds' `String`: no `v`, all three numbers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre)?;
        }
        if !self.metadata.is_empty() {
            write!(f, "+{}", self.metadata)?;
        }
        Ok(())
    }
}

/// Pre-releases compared identifier by identifier, as `comparePrerelease`:
/// numbers (that fit in 64 bits) below words, numbers by value, words by
/// bytes, and fewer identifiers below more.
fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let mut a = a.split('.');
    let mut b = b.split('.');
    loop {
        let (x, y) = match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (x, y) => (x.unwrap_or(""), y.unwrap_or("")),
        };
        let order = compare_pre_part(x, y);
        if order != Ordering::Equal {
            return order;
        }
    }
}

fn compare_pre_part(a: &str, b: &str) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    if a.is_empty() {
        return Ordering::Less;
    }
    if b.is_empty() {
        return Ordering::Greater;
    }
    let number = |s: &str| {
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    match (number(a), number(b)) {
        (None, None) => a.cmp(b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        // Different texts of the same number ("1" and "01") cannot both be
        // valid; Masterminds calls the first the smaller, and so does this.
        (Some(x), Some(y)) if x > y => Ordering::Greater,
        (Some(_), Some(_)) => Ordering::Less,
    }
}

/// A constraint as Masterminds/semver's `NewConstraint` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constraint {
    text: String,
    alternatives: Vec<Alternative>,
}

/// Comparisons that must all hold.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Alternative {
    comparisons: Vec<Comparison>,
    /// Some comparison states a pre-release, so pre-release versions are
    /// compared rather than refused.
    admits_prereleases: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    /// No operator or `=`: equal, or within the range of a partial version.
    Equal,
    NotEqual,
    Greater,
    Less,
    GreaterEqual,
    LessEqual,
    Tilde,
    Caret,
}

/// The operators in the order Masterminds' regular expression tries them.
const OPS: [(&str, Op); 12] = [
    ("=", Op::Equal),
    ("", Op::Equal),
    ("!=", Op::NotEqual),
    (">", Op::Greater),
    ("<", Op::Less),
    (">=", Op::GreaterEqual),
    ("=>", Op::GreaterEqual),
    ("<=", Op::LessEqual),
    ("=<", Op::LessEqual),
    ("~", Op::Tilde),
    ("~>", Op::Tilde),
    ("^", Op::Caret),
];

/// One comparison: an operator and a version that may be partial.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Comparison {
    op: Op,
    /// The version with what is missing or a wildcard as 0 (`1.x` is 1.0.0).
    version: Version,
    /// A wildcard or missing number somewhere.
    dirty: bool,
    /// The minor number is a wildcard or missing (`1`, `1.x`).
    minor_dirty: bool,
    /// The patch number is a wildcard or missing (`1.2`, `1.2.x`).
    patch_dirty: bool,
}

/// Why a text is not a constraint.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConstraintError {
    #[error("it is {0} bytes long, more than the {max} read", max = MAX_CONSTRAINT_BYTES)]
    TooLong(usize),
    #[error("it has {0} alternatives (||), more than the {max} read", max = MAX_ALTERNATIVES)]
    TooManyAlternatives(usize),
    #[error("it has more than {max} comparisons", max = MAX_COMPARISONS)]
    TooManyComparisons,
    #[error("an alternative (between ||) is empty")]
    EmptyAlternative,
    #[error("{0:?} is not comparisons (an operator and a version each) joined by spaces or commas")]
    Improper(String),
    #[error("{text:?} is not a version: {reason}")]
    Version { text: String, reason: VersionError },
}

impl Constraint {
    /// Reads `text` as `NewConstraint` does, within the bounds.
    pub fn parse(text: &str) -> Result<Constraint, ConstraintError> {
        if text.len() > MAX_CONSTRAINT_BYTES {
            return Err(ConstraintError::TooLong(text.len()));
        }
        let rewritten = rewrite_ranges(text);
        let segments: Vec<&str> = rewritten.split("||").collect();
        if segments.len() > MAX_ALTERNATIVES {
            return Err(ConstraintError::TooManyAlternatives(segments.len()));
        }
        let mut budget = MAX_COMPARISONS;
        let alternatives = segments
            .into_iter()
            .map(|segment| parse_alternative(segment, &mut budget))
            .collect::<Result<_, _>>()?;
        Ok(Constraint {
            text: text.to_string(),
            alternatives,
        })
    }

    /// Whether `version` satisfies the constraint, as `Constraints.Check`.
    pub fn matches(&self, version: &Version) -> bool {
        self.check(version, false)
    }

    /// The text it was read from.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `Check`, with Masterminds' `IncludePrerelease` switch.
    fn check(&self, version: &Version, include_prereleases: bool) -> bool {
        self.alternatives.iter().any(|alt| {
            let include = include_prereleases || alt.admits_prereleases;
            alt.comparisons.iter().all(|c| c.admits(version, include))
        })
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One `||` alternative: validated as a whole first (Masterminds'
/// `validConstraintRegex`), then each comparison read.
fn parse_alternative(segment: &str, budget: &mut usize) -> Result<Alternative, ConstraintError> {
    let b = segment.as_bytes();
    if b.iter().copied().all(is_space) {
        return Err(ConstraintError::EmptyAlternative);
    }
    let improper = || {
        let shown = segment.trim_matches(|c: char| c.is_ascii() && is_space(c as u8));
        ConstraintError::Improper(shown.to_string())
    };
    let mut found = Vec::new();
    let mut i = skip_space(b, 0);
    loop {
        let (op, scanned) = op_and_version(b, i).ok_or_else(improper)?;
        if *budget == 0 {
            return Err(ConstraintError::TooManyComparisons);
        }
        *budget -= 1;
        i = scanned.end;
        found.push((op, scanned));
        let after = skip_space(b, i);
        let spaced = after > i;
        i = after;
        match b.get(i) {
            None => break,
            Some(b',') => i = skip_space(b, i + 1),
            Some(_) if spaced => {}
            Some(_) => return Err(improper()),
        }
    }
    let comparisons = found
        .into_iter()
        .map(|(op, scanned)| Comparison::new(op, segment, &scanned))
        .collect::<Result<Vec<_>, _>>()?;
    let admits_prereleases = comparisons.iter().any(|c| !c.version.pre.is_empty());
    Ok(Alternative {
        comparisons,
        admits_prereleases,
    })
}

/// The operator at `i` and the version after it (spaces between allowed),
/// the operator tried in Masterminds' order.
fn op_and_version(b: &[u8], i: usize) -> Option<(Op, Scanned)> {
    let rest = b.get(i..)?;
    OPS.iter().find_map(|&(lit, op)| {
        if !rest.starts_with(lit.as_bytes()) {
            return None;
        }
        let at = skip_space(b, i + lit.len());
        scan_version(b, at, is_wild_number).map(|v| (op, v))
    })
}

impl Comparison {
    /// As `parseConstraint`: a wildcard or missing number makes the
    /// comparison "dirty" and is read as 0, dropping build metadata.
    fn new(op: Op, text: &str, found: &Scanned) -> Result<Comparison, ConstraintError> {
        let whole = &text[found.start..found.end];
        let major = &text[found.major.clone()];
        let minor = found.minor.clone().map(|r| &text[r]);
        let patch = found.patch.clone().map(|r| &text[r]);
        let pre = found
            .pre
            .clone()
            .map_or(String::new(), |r| format!("-{}", &text[r]));
        let minor = minor.filter(|m| !is_x(m));
        let patch = patch.filter(|p| !is_x(p));
        let (coerced, minor_dirty, patch_dirty) = match (is_x(major), minor, patch) {
            (true, _, _) => (format!("0.0.0{pre}"), false, false),
            (false, None, _) => (format!("{major}.0.0{pre}"), true, false),
            (false, Some(minor), None) => (format!("{major}.{minor}.0{pre}"), false, true),
            (false, Some(_), Some(_)) => (whole.to_string(), false, false),
        };
        let dirty = is_x(major) || minor_dirty || patch_dirty;
        let version = Version::parse(&coerced).map_err(|reason| ConstraintError::Version {
            text: whole.to_string(),
            reason,
        })?;
        Ok(Comparison {
            op,
            version,
            dirty,
            minor_dirty,
            patch_dirty,
        })
    }

    /// Whether `v` satisfies this comparison; a pre-release `v` only when
    /// `include_pre`, as every Masterminds comparison function begins.
    fn admits(&self, v: &Version, include_pre: bool) -> bool {
        if !v.pre.is_empty() && !include_pre {
            return false;
        }
        let c = &self.version;
        match self.op {
            Op::Equal if self.dirty => self.tilde(v),
            Op::Equal => v.precedence(c).is_eq(),
            Op::NotEqual => self.not_equal(v),
            Op::Greater => self.greater(v),
            Op::Less => v.precedence(c).is_lt(),
            Op::GreaterEqual => v.precedence(c).is_ge(),
            Op::LessEqual => self.less_equal(v),
            Op::Tilde => self.tilde(v),
            Op::Caret => self.caret(v),
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
            } else if self.minor_dirty {
                return false;
            } else if c.patch != v.patch && !self.patch_dirty {
                return true;
            } else if self.patch_dirty {
                if !v.pre.is_empty() || !c.pre.is_empty() {
                    return compare_prerelease(&v.pre, &c.pre).is_ne();
                }
                return false;
            }
        }
        v.precedence(c).is_ne()
    }

    fn greater(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.precedence(c).is_gt();
        }
        if v.major != c.major {
            v.major > c.major
        } else if self.minor_dirty {
            // `>11` wants 12 or more; 11.1.0 is not above it.
            false
        } else if self.patch_dirty {
            // `>11.1` wants 11.2 or more.
            v.minor > c.minor
        } else {
            v.precedence(c).is_gt()
        }
    }

    fn less_equal(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.precedence(c).is_le();
        }
        !(v.major > c.major || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
    }

    /// `~1.2.3` is >=1.2.3 <1.3.0, `~1.2` 1.2.x, `~1` 1.x, `~0.0.0` any.
    fn tilde(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.precedence(c).is_lt() {
            return false;
        }
        if (c.major, c.minor, c.patch) == (0, 0, 0) && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        v.major == c.major && (v.minor == c.minor || self.minor_dirty)
    }

    /// `^1.2.3` is >=1.2.3 <2.0.0, `^0.2.3` >=0.2.3 <0.3.0, `^0.0.3` only
    /// 0.0.3, `^0.0` 0.0.x, `^0` 0.x.
    fn caret(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.precedence(c).is_lt() {
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

fn is_x(text: &str) -> bool {
    matches!(text, "x" | "X" | "*")
}

/// What Masterminds' `\s` matches: ASCII space, tab, newline, carriage
/// return and form feed (not vertical tab, not Unicode spaces).
fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

/// A character of a number in a constraint's version: digits, wildcards,
/// and `|`, which Masterminds' character class `[0-9|x|X|\*]` lets in (and
/// its version parser then refuses).
fn is_wild_number(c: u8) -> bool {
    c.is_ascii_digit() || matches!(c, b'x' | b'X' | b'*' | b'|')
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-'
}

fn skip_space(b: &[u8], mut i: usize) -> usize {
    while b.get(i).copied().is_some_and(is_space) {
        i += 1;
    }
    i
}

fn skip_while(b: &[u8], mut i: usize, class: impl Fn(u8) -> bool) -> usize {
    while b.get(i).copied().is_some_and(&class) {
        i += 1;
    }
    i
}

/// Where the parts of a version-like text are (byte ranges, without their
/// `.`, `-`, `+`).
#[derive(Clone, Debug)]
struct Scanned {
    start: usize,
    end: usize,
    major: Range<usize>,
    minor: Option<Range<usize>>,
    patch: Option<Range<usize>>,
    pre: Option<Range<usize>>,
    metadata: Option<Range<usize>>,
}

/// The longest version-like text at `at`, as Masterminds' expressions
/// `v?(N+)(\.N+)?(\.N+)?(-I(\.I)*)?(\+I(\.I)*)?` (with `N` a `number`
/// character and `I` a run of `[0-9A-Za-z-]`) match it. Every part is
/// introduced by its own character, so the greedy match is the only one.
fn scan_version(b: &[u8], at: usize, number: fn(u8) -> bool) -> Option<Scanned> {
    let mut i = at;
    if b.get(i) == Some(&b'v') && b.get(i + 1).copied().is_some_and(number) {
        i += 1;
    }
    let major_start = i;
    i = skip_while(b, i, number);
    if i == major_start {
        return None;
    }
    let major = major_start..i;
    let dotted = |i: &mut usize| {
        (b.get(*i) == Some(&b'.') && b.get(*i + 1).copied().is_some_and(number)).then(|| {
            let start = *i + 1;
            *i = skip_while(b, start, number);
            start..*i
        })
    };
    let minor = dotted(&mut i);
    let patch = if minor.is_some() {
        dotted(&mut i)
    } else {
        None
    };
    let pre = identifiers(b, &mut i, b'-');
    let metadata = identifiers(b, &mut i, b'+');
    Some(Scanned {
        start: at,
        end: i,
        major,
        minor,
        patch,
        pre,
        metadata,
    })
}

/// `mark` followed by dot-separated runs of `[0-9A-Za-z-]`, at `*i`.
fn identifiers(b: &[u8], i: &mut usize, mark: u8) -> Option<Range<usize>> {
    if b.get(*i) != Some(&mark) || !b.get(*i + 1).copied().is_some_and(is_ident) {
        return None;
    }
    let start = *i + 1;
    let mut j = skip_while(b, start, is_ident);
    while b.get(j) == Some(&b'.') && b.get(j + 1).copied().is_some_and(is_ident) {
        j = skip_while(b, j + 1, is_ident);
    }
    *i = j;
    Some(start..j)
}

/// Masterminds' `rewriteRange`: every `A - B` (spaces around the hyphen
/// required) becomes `>= A, <= B `, found left to right as its expression
/// `\s*(V)\s+-\s+(V)\s*` finds them, each replacing the first occurrence of
/// its text, as `strings.Replace(o, match, rewrite, 1)` does.
fn rewrite_ranges(text: &str) -> String {
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some((start, end, low, high)) =
        (pos..b.len()).find_map(|p| range_at(b, p).map(|(e, l, h)| (p, e, l, h)))
    {
        found.push((start..end, low, high));
        pos = end;
    }
    let mut out = text.to_string();
    for (whole, low, high) in found {
        let rewrite = format!(">= {}, <= {} ", &text[low], &text[high]);
        out = out.replacen(&text[whole], &rewrite, 1);
    }
    out
}

/// A hyphen range starting exactly at `p`: its end and its two versions.
fn range_at(b: &[u8], p: usize) -> Option<(usize, Range<usize>, Range<usize>)> {
    let low = scan_version(b, skip_space(b, p), is_wild_number)?;
    let dash = skip_space(b, low.end);
    if dash == low.end || b.get(dash) != Some(&b'-') {
        return None;
    }
    let high_at = skip_space(b, dash + 1);
    if high_at == dash + 1 {
        return None;
    }
    let high = scan_version(b, high_at, is_wild_number)?;
    Some((
        skip_space(b, high.end),
        low.start..low.end,
        high.start..high.end,
    ))
}

#[cfg(test)]
mod tests;
