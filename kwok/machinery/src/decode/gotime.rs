//! `metav1.Time` and `metav1.MicroTime` values: accepted as Go's `time.Parse` accepts them (with
//! its `parsing time ...` errors) and written back in UTC as `Time.MarshalJSON` does.

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};

pub const RFC3339: &str = "2006-01-02T15:04:05Z07:00";
pub const RFC3339_MICRO: &str = "2006-01-02T15:04:05.000000Z07:00";

/// One element of a Go layout.
#[derive(Clone, Copy, PartialEq)]
enum Elem {
    Lit(&'static str),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Frac6,
    Zone,
}

fn layout_elems(micro: bool) -> Vec<(Elem, &'static str)> {
    let mut v = vec![
        (Elem::Year, "2006"),
        (Elem::Lit("-"), "-"),
        (Elem::Month, "01"),
        (Elem::Lit("-"), "-"),
        (Elem::Day, "02"),
        (Elem::Lit("T"), "T"),
        (Elem::Hour, "15"),
        (Elem::Lit(":"), ":"),
        (Elem::Minute, "04"),
        (Elem::Lit(":"), ":"),
        (Elem::Second, "05"),
    ];
    if micro {
        v.push((Elem::Frac6, ".000000"));
    }
    v.push((Elem::Zone, "Z07:00"));
    v
}

/// Go's `quote` for ParseError (a `%q` that keeps printable runes).
fn quote(s: &str) -> String {
    crate::error::go_quote(s)
}

fn getnum(s: &str, fixed: bool) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if b.first().is_none_or(|c| !c.is_ascii_digit()) {
        return None;
    }
    if b.get(1).is_none_or(|c| !c.is_ascii_digit()) {
        if fixed {
            return None;
        }
        return Some((i64::from(b[0] - b'0'), &s[1..]));
    }
    Some((
        i64::from(b[0] - b'0') * 10 + i64::from(b[1] - b'0'),
        &s[2..],
    ))
}

fn digits_prefix(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// Parse `value` with RFC3339 (or RFC3339Micro) and return the instant re-formatted in UTC.
pub fn parse_and_normalize(value: &str, micro: bool) -> Result<String, String> {
    let layout = if micro { RFC3339_MICRO } else { RFC3339 };
    let err_elem = |value_elem: &str, layout_elem: &str| {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            quote(value),
            quote(layout),
            quote(value_elem),
            quote(layout_elem)
        )
    };
    let err_msg = |msg: &str| format!("parsing time {}{}", quote(value), msg);

    let (mut year, mut month, mut day, mut hour, mut minute, mut second) =
        (0i64, 0i64, 0i64, 0i64, 0i64, 0i64);
    let mut nanos: i64 = 0;
    let mut offset_secs: i64 = 0;
    let mut rest = value;
    let elems = layout_elems(micro);
    for (i, (elem, text)) in elems.iter().enumerate() {
        let hold = rest;
        match elem {
            Elem::Lit(lit) => {
                if !rest.starts_with(lit) {
                    return Err(err_elem(rest, lit));
                }
                rest = &rest[lit.len()..];
            }
            Elem::Year => {
                let b = rest.as_bytes();
                if b.len() < 4 || !b[..4].iter().all(u8::is_ascii_digit) {
                    return Err(err_elem(hold, text));
                }
                year = two_digits(&b[0..2]) * 100 + two_digits(&b[2..4]);
                rest = &rest[4..];
            }
            Elem::Month | Elem::Day | Elem::Hour | Elem::Minute | Elem::Second => {
                let fixed = *elem != Elem::Hour;
                let Some((n, r)) = getnum(rest, fixed) else {
                    return Err(err_elem(hold, text));
                };
                rest = r;
                let range = match elem {
                    Elem::Month if !(1..=12).contains(&n) => Some("month"),
                    Elem::Hour if !(0..24).contains(&n) => Some("hour"),
                    Elem::Minute if !(0..60).contains(&n) => Some("minute"),
                    Elem::Second if !(0..60).contains(&n) => Some("second"),
                    _ => None,
                };
                if let Some(what) = range {
                    return Err(err_msg(&format!(": {what} out of range")));
                }
                match elem {
                    Elem::Month => month = n,
                    Elem::Day => day = n,
                    Elem::Hour => hour = n,
                    Elem::Minute => minute = n,
                    _ => {
                        second = n;
                        // A fraction the layout does not name is still accepted after seconds.
                        let next_is_frac = matches!(elems.get(i + 1), Some((Elem::Frac6, _)));
                        let b = rest.as_bytes();
                        if !next_is_frac
                            && b.len() >= 2
                            && (b[0] == b'.' || b[0] == b',')
                            && b[1].is_ascii_digit()
                        {
                            let n = 1 + digits_prefix(&rest[1..]);
                            nanos = frac_nanos(&rest[1..n]);
                            rest = &rest[n..];
                        }
                    }
                }
            }
            Elem::Frac6 => {
                let b = rest.as_bytes();
                if b.len() < 7
                    || !(b[0] == b'.' || b[0] == b',')
                    || !b[1..7].iter().all(u8::is_ascii_digit)
                {
                    return Err(err_elem(hold, text));
                }
                nanos = frac_nanos(&rest[1..7]);
                rest = &rest[7..];
            }
            Elem::Zone => {
                if let Some(r) = rest.strip_prefix('Z') {
                    rest = r;
                    continue;
                }
                let b = rest.as_bytes();
                let digits = |r: &[u8]| r.iter().all(u8::is_ascii_digit);
                if b.len() < 6
                    || b[3] != b':'
                    || !(b[0] == b'+' || b[0] == b'-')
                    || !digits(&b[1..3])
                    || !digits(&b[4..6])
                {
                    return Err(err_elem(hold, text));
                }
                let (hh, mm) = (two_digits(&b[1..3]), two_digits(&b[4..6]));
                if hh > 24 {
                    return Err(err_msg(": time zone offset hour out of range"));
                }
                if mm > 60 {
                    return Err(err_msg(": time zone offset minute out of range"));
                }
                offset_secs = (hh * 3600 + mm * 60) * if b[0] == b'-' { -1 } else { 1 };
                rest = &rest[6..];
            }
        }
    }
    if !rest.is_empty() {
        return Err(err_msg(&format!(": extra text: {}", quote(rest))));
    }
    let Some(date) = NaiveDate::from_ymd_opt(year as i32, month as u32, day as u32) else {
        return Err(err_msg(": day out of range"));
    };
    let time =
        NaiveTime::from_hms_nano_opt(hour as u32, minute as u32, second as u32, nanos as u32)
            .unwrap_or(NaiveTime::MIN);
    let utc: NaiveDateTime = NaiveDateTime::new(date, time) - Duration::seconds(offset_secs);
    Ok(if micro {
        utc.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
    } else {
        utc.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    })
}

/// Two ASCII digits as a number.
fn two_digits(b: &[u8]) -> i64 {
    b.iter()
        .fold(0, |acc, d| acc * 10 + i64::from(d.saturating_sub(b'0')))
}

fn frac_nanos(digits: &str) -> i64 {
    let mut d: String = digits.chars().take(9).collect();
    while d.len() < 9 {
        d.push('0');
    }
    d.parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_to_utc() {
        assert_eq!(
            parse_and_normalize("2024-01-02T03:04:05Z", false).unwrap(),
            "2024-01-02T03:04:05Z"
        );
        assert_eq!(
            parse_and_normalize("2024-01-02T03:04:05.123+02:00", false).unwrap(),
            "2024-01-02T01:04:05Z"
        );
        assert_eq!(
            parse_and_normalize("2024-01-02T03:04:05.123456Z", true).unwrap(),
            "2024-01-02T03:04:05.123456Z"
        );
    }

    #[test]
    fn go_parse_errors() {
        assert_eq!(
            parse_and_normalize("2024-01-02", false).unwrap_err(),
            r#"parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T""#
        );
        assert_eq!(
            parse_and_normalize("yesterday", false).unwrap_err(),
            r#"parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006""#
        );
        // Multi-byte text never panics.
        assert!(parse_and_normalize("1abé-01-01", false).is_err());
        assert!(parse_and_normalize("2024-01-02T03:04:05+01:aé", false).is_err());
        assert!(parse_and_normalize("2024-01-02T03:04:05.1é3456Z", true).is_err());
        assert_eq!(
            parse_and_normalize("2024-13-02T03:04:05Z", false).unwrap_err(),
            r#"parsing time "2024-13-02T03:04:05Z": month out of range"#
        );
        assert_eq!(
            parse_and_normalize("2024-01-02T03:04:05Z", true).unwrap_err(),
            r#"parsing time "2024-01-02T03:04:05Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000""#
        );
    }
}
