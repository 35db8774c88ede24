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
    let s = (now.as_second() - then.as_second()).max(0);
    match s {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 48 * 3600 => format!("{}h", s / 3600),
        s if s < 2 * 365 * 86400 => format!("{}d", s / 86400),
        s => format!("{}y", s / (365 * 86400)),
    }
}
