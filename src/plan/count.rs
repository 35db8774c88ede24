//! A number with its noun, singular for one: `1 cluster`, `3 clusters`,
//! `0 waves`. Pure.

/// `n` and `noun` (singular), with an `s` unless `n` is 1.
pub fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn one_is_singular_and_every_other_number_plural() {
        assert_eq!(count(1, "cluster"), "1 cluster");
        assert_eq!(count(0, "cluster"), "0 clusters");
        assert_eq!(count(2, "wave"), "2 waves");
        assert_eq!(count(10_000, "group"), "10000 groups");
    }
}
