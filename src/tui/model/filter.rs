//! The one filter rule of every list, and the search of the yaml and values
//! views: `/text` keeps what contains `text`, ignoring case; `/!text` keeps
//! what does not. A list row is kept when one of its columns matches (none,
//! negated); a line of text is a match when it contains the text (does not,
//! negated).

use std::ops::Range;

/// A parsed `/` filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filter {
    /// The text sought, lower-cased one character at a time.
    needle: Vec<char>,
    /// `!`: keep what does not contain the text.
    negate: bool,
}

/// One character, lower-cased, for comparing without case.
fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

impl Filter {
    /// `text` as typed after `/`: a leading `!` negates.
    pub fn parse(text: &str) -> Filter {
        let (negate, rest) = match text.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        Filter {
            needle: rest.chars().map(fold).collect(),
            negate,
        }
    }

    /// Nothing to seek: everything is kept (`/` and `/!` alone too).
    pub fn is_empty(&self) -> bool {
        self.needle.is_empty()
    }

    /// Whether `text` contains the text sought, ignoring case. Makes
    /// nothing: a long list asks it of every column of every row.
    fn contains(&self, text: &str) -> bool {
        let Some(first) = self.needle.first() else {
            return false;
        };
        text.char_indices().any(|(i, c)| {
            fold(c) == *first && {
                let mut rest = text[i..].chars().skip(1);
                self.needle[1..]
                    .iter()
                    .all(|n| rest.next().is_some_and(|c| fold(c) == *n))
            }
        })
    }

    /// Whether a row with these column texts is kept.
    pub fn keeps(&self, fields: &[&str]) -> bool {
        self.is_empty() || fields.iter().any(|f| self.contains(f)) != self.negate
    }

    /// Where `text` contains the text sought, as byte ranges, to highlight;
    /// none for a negated filter (what matches there is what is absent).
    pub fn hits(&self, text: &str) -> Vec<Range<usize>> {
        if self.negate || self.is_empty() {
            return Vec::new();
        }
        self.find(text, usize::MAX)
    }

    /// Up to `most` places where `text` contains the needle, not
    /// overlapping, as byte ranges.
    fn find(&self, text: &str, most: usize) -> Vec<Range<usize>> {
        let n = self.needle.len();
        let chars: Vec<(usize, char)> = text.char_indices().collect();
        let mut out = Vec::new();
        if n == 0 {
            return out;
        }
        let mut i = 0;
        while i + n <= chars.len() && out.len() < most {
            if (0..n).all(|k| fold(chars[i + k].1) == self.needle[k]) {
                let end = chars.get(i + n).map_or(text.len(), |(b, _)| *b);
                out.push(chars[i].0..end);
                i += n;
            } else {
                i += 1;
            }
        }
        out
    }

    /// The lines of `lines` that match, in order.
    pub fn matching_lines<S: AsRef<str>>(&self, lines: &[S]) -> Vec<usize> {
        if self.is_empty() {
            return Vec::new();
        }
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| self.contains(l.as_ref()) != self.negate)
            .map(|(i, _)| i)
            .collect()
    }
}

/// Whether a row with the column texts `fields` is kept by `filter`.
pub fn matches(filter: &str, fields: &[&str]) -> bool {
    Filter::parse(filter).keeps(fields)
}

#[cfg(test)]
// Byte ranges, one match: not a range meant as a list.
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_kept_when_one_column_contains_the_text() {
        assert!(matches("", &["a"]));
        assert!(matches("SYS", &["prod", "hmc-system"]));
        assert!(!matches("zzz", &["prod", "hmc-system"]));
        assert!(matches("true", &["True"]));
    }

    #[test]
    fn a_bang_keeps_the_rows_that_do_not_match() {
        assert!(!matches("!sys", &["prod", "hmc-system"]));
        assert!(matches("!zzz", &["prod", "hmc-system"]));
        // `!` alone seeks nothing: everything stays.
        assert!(matches("!", &["prod"]));
        assert!(Filter::parse("!").is_empty());
    }

    #[test]
    fn contains_ignores_case_and_finds_every_place() {
        let f = Filter::parse("Ab");
        assert!(f.contains("xxaB"));
        assert!(f.contains("aab"));
        assert!(!f.contains("a"));
        assert!(!f.contains(""));
        assert!(Filter::parse("→a").contains("x→A"));
        assert!(!Filter::parse("").contains("ab"));
    }

    #[test]
    fn hits_are_byte_ranges_of_the_original_text() {
        let f = Filter::parse("ab");
        assert_eq!(f.hits("xAbyaBab"), vec![1..3, 4..6, 6..8]);
        // Characters wider than a byte before the match.
        assert_eq!(f.hits("é→ab"), vec![5..7]);
        assert_eq!(Filter::parse("→A").hits("x→a"), vec![1..5]);
        assert!(Filter::parse("!ab").hits("ab").is_empty());
        assert!(Filter::parse("").hits("ab").is_empty());
        // Matches do not overlap.
        assert_eq!(Filter::parse("aa").hits("aaa"), vec![0..2]);
    }

    #[test]
    fn matching_lines_follow_negation() {
        let lines = ["kind: X", "spec:", "  kind: y"];
        assert_eq!(Filter::parse("KIND").matching_lines(&lines), vec![0, 2]);
        assert_eq!(Filter::parse("!kind").matching_lines(&lines), vec![1]);
        assert!(Filter::parse("").matching_lines(&lines).is_empty());
    }
}
