//! The one filter rule of every list: `/text` keeps the rows one of whose
//! fields contains it, ignoring case.

/// Whether `filter` is empty or one of `fields` contains it, ignoring case.
pub fn matches(filter: &str, fields: &[&str]) -> bool {
    if filter.is_empty() {
        return true;
    }
    let f = filter.to_lowercase();
    fields.iter().any(|s| s.to_lowercase().contains(&f))
}
