//! Ages, as the lists show them.

use k8s_openapi::jiff::Timestamp;

/// `5s`, `3m`, `4h`, `12d`, `2y`: how long ago `then` was.
pub fn age(
    now: Timestamp,
    then: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>,
) -> String {
    age_of(now, then.map(|t| t.0))
}

/// [`age`] of a timestamp.
pub fn age_of(now: Timestamp, then: Option<Timestamp>) -> String {
    let Some(then) = then else {
        return "-".into();
    };
    span((now.as_second() - then.as_second()).max(0))
}

/// `4m`, `30s`, or `now` once `then` has come: how long until `then` (a
/// time the engine will act at), in [`age_of`]'s units.
pub fn until(now: Timestamp, then: Timestamp) -> String {
    match then.as_second() - now.as_second() {
        s if s <= 0 => "now".into(),
        s => span(s),
    }
}

/// `5s`, `3m`, `4h`, `12d`, `2y`: a number of seconds, rounded down.
fn span(s: i64) -> String {
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s if s < 2 * 365 * 86400 => format!("{}d", s / 86400),
        s => format!("{}y", s / (365 * 86400)),
    }
}

/// How many columns [`age_of`] takes, without making the text: the long
/// lists' AGE columns are as wide as their widest age.
pub fn age_width(now: Timestamp, then: Option<Timestamp>) -> u16 {
    let Some(then) = then else {
        return 1;
    };
    let digits = |n: i64| n.max(1).ilog10() as u16 + 1;
    let s = (now.as_second() - then.as_second()).max(0);
    1 + match s {
        s if s < 60 => digits(s),
        s if s < 3600 => digits(s / 60),
        s if s < 48 * 3600 => digits(s / 3600),
        s if s < 2 * 365 * 86400 => digits(s / 86400),
        s => digits(s / (365 * 86400)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_width_is_that_of_the_text() {
        let now: Timestamp = "2026-06-01T00:00:00Z".parse().unwrap();
        for ago in [
            0,
            5,
            59,
            60,
            599,
            3599,
            3600,
            36_000,
            172_799,
            172_800,
            864_000,
            8_640_000,
            63_071_999,
            63_072_000,
            10_000_000_000,
        ] {
            let then = Timestamp::from_second(now.as_second() - ago).unwrap();
            let text = age_of(now, Some(then));
            assert_eq!(
                usize::from(age_width(now, Some(then))),
                text.chars().count(),
                "{ago}s ago: {text}"
            );
        }
        assert_eq!(age_width(now, None), 1);
    }

    #[test]
    fn until_counts_down_to_now() {
        let now: Timestamp = "2026-06-01T00:00:00Z".parse().unwrap();
        let at = |s: i64| Timestamp::from_second(now.as_second() + s).unwrap();
        assert_eq!(until(now, at(4 * 60 + 59)), "4m");
        assert_eq!(until(now, at(30)), "30s");
        assert_eq!(until(now, at(3 * 3600)), "3h");
        assert_eq!(until(now, at(0)), "now");
        assert_eq!(until(now, at(-90)), "now", "past: due now");
    }
}
