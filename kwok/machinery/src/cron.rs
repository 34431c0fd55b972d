//! Cron schedules as Kubernetes reads them: `cron.ParseStandard` and `SpecSchedule.Next` of
//! robfig/cron v3.0.1 (`parser.go`, `spec.go`, `constantdelay.go`), which the API server uses to
//! validate `spec.schedule` and the CronJob controller to find run times.
//!
//! Written here rather than taken from a cron crate because learners see the parser's errors
//! verbatim (`kubectl create cronjob` prints them), and because robfig's rules differ from the
//! crates': five fields only, `?` as `*`, day-of-week 0-6, and day-of-month and day-of-week
//! combined by AND when either is a star, by OR otherwise.

use std::time::Duration;

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeDelta, TimeZone, Timelike, Utc};
use chrono_tz::Tz;

/// Set on a field written as a star (`*`, `?`, `*/1`, or a descriptor's full range).
const STAR_BIT: u64 = 1 << 63;

/// A parsed schedule: the bits of each field (`SpecSchedule`), or a constant delay (`@every`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Schedule {
    Spec {
        minute: u64,
        hour: u64,
        dom: u64,
        month: u64,
        dow: u64,
        /// The `TZ=`/`CRON_TZ=` prefix's zone; `None` is the process's local zone.
        location: Option<Tz>,
    },
    Every(Duration),
}

struct Bounds {
    min: u32,
    max: u32,
    names: &'static [(&'static str, u32)],
}

const MINUTES: Bounds = Bounds {
    min: 0,
    max: 59,
    names: &[],
};
const HOURS: Bounds = Bounds {
    min: 0,
    max: 23,
    names: &[],
};
const DOM: Bounds = Bounds {
    min: 1,
    max: 31,
    names: &[],
};
const MONTHS: Bounds = Bounds {
    min: 1,
    max: 12,
    names: &[
        ("jan", 1),
        ("feb", 2),
        ("mar", 3),
        ("apr", 4),
        ("may", 5),
        ("jun", 6),
        ("jul", 7),
        ("aug", 8),
        ("sep", 9),
        ("oct", 10),
        ("nov", 11),
        ("dec", 12),
    ],
};
const DOW: Bounds = Bounds {
    min: 0,
    max: 6,
    names: &[
        ("sun", 0),
        ("mon", 1),
        ("tue", 2),
        ("wed", 3),
        ("thu", 4),
        ("fri", 5),
        ("sat", 6),
    ],
};

/// `ParseStandard`: five fields or a descriptor, after an optional `TZ=` / `CRON_TZ=` prefix.
pub fn parse_standard(spec: &str) -> Result<Schedule, String> {
    if spec.is_empty() {
        return Err("empty spec string".into());
    }
    let mut spec = spec;
    let mut location = None;
    if spec.starts_with("TZ=") || spec.starts_with("CRON_TZ=") {
        let eq = spec.find('=').unwrap_or(0);
        // Upstream slices up to the first space and panics without one; refuse it instead.
        let Some(space) = spec.find(' ') else {
            return Err(format!(
                "provided bad location {}: unknown time zone {}",
                &spec[eq + 1..],
                &spec[eq + 1..]
            ));
        };
        let name = &spec[eq + 1..space];
        location =
            Some(load_location(name).map_err(|e| format!("provided bad location {name}: {e}"))?);
        spec = spec[space..].trim();
    }
    if spec.starts_with('@') {
        return descriptor(spec, location);
    }
    let fields: Vec<&str> = spec.split_whitespace().collect();
    if fields.len() != 5 {
        return Err(format!(
            "expected exactly 5 fields, found {}: [{}]",
            fields.len(),
            fields.join(" ")
        ));
    }
    Ok(Schedule::Spec {
        minute: field(fields[0], &MINUTES)?,
        hour: field(fields[1], &HOURS)?,
        dom: field(fields[2], &DOM)?,
        month: field(fields[3], &MONTHS)?,
        dow: field(fields[4], &DOW)?,
        location,
    })
}

/// `time.LoadLocation`: an IANA name or `UTC`; Go's message for any other.
pub fn load_location(name: &str) -> Result<Tz, String> {
    if name.is_empty() || name == "UTC" {
        return Ok(Tz::UTC);
    }
    name.parse::<Tz>()
        .map_err(|_| format!("unknown time zone {name}"))
}

fn all(b: &Bounds) -> u64 {
    bits(b.min, b.max, 1) | STAR_BIT
}

/// `parseDescriptor`.
fn descriptor(spec: &str, location: Option<Tz>) -> Result<Schedule, String> {
    let every = |minute: u64, hour: u64, dom: u64, month: u64, dow: u64| Schedule::Spec {
        minute,
        hour,
        dom,
        month,
        dow,
        location,
    };
    let first = |b: &Bounds| 1u64 << b.min;
    Ok(match spec {
        "@yearly" | "@annually" => every(1, 1, first(&DOM), first(&MONTHS), all(&DOW)),
        "@monthly" => every(1, 1, first(&DOM), all(&MONTHS), all(&DOW)),
        "@weekly" => every(1, 1, all(&DOM), all(&MONTHS), first(&DOW)),
        "@daily" | "@midnight" => every(1, 1, all(&DOM), all(&MONTHS), all(&DOW)),
        "@hourly" => every(1, all(&HOURS), all(&DOM), all(&MONTHS), all(&DOW)),
        _ => {
            if let Some(text) = spec.strip_prefix("@every ") {
                let d = go_duration(text)
                    .map_err(|e| format!("failed to parse duration {spec}: {e}"))?;
                // `Every`: below a second is a second; sub-second precision is dropped.
                let secs = d.as_secs().max(1);
                return Ok(Schedule::Every(Duration::from_secs(secs)));
            }
            return Err(format!("unrecognized descriptor: {spec}"));
        }
    })
}

/// `time.ParseDuration` for the units a schedule uses (h, m, s, ms, us, ns), with Go's errors.
fn go_duration(text: &str) -> Result<Duration, String> {
    let quoted = crate::error::go_quote(text);
    let invalid = || format!("time: invalid duration {quoted}");
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    if text.is_empty() || text.starts_with('-') {
        return Err(invalid());
    }
    let mut rest = text.strip_prefix('+').unwrap_or(text);
    let mut total = 0f64;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            return Err(invalid());
        }
        let number: f64 = rest[..digits].parse().map_err(|_| invalid())?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let seconds = match &rest[..unit_len] {
            "h" => 3600.0,
            "m" => 60.0,
            "s" => 1.0,
            "ms" => 1e-3,
            "us" | "µs" | "μs" => 1e-6,
            "ns" => 1e-9,
            "" => return Err(format!("time: missing unit in duration {quoted}")),
            unit => {
                return Err(format!(
                    "time: unknown unit {} in duration {quoted}",
                    crate::error::go_quote(unit)
                ))
            }
        };
        total += number * seconds;
        rest = &rest[unit_len..];
    }
    Ok(Duration::from_secs_f64(total))
}

/// `getField`: a comma-separated list of ranges.
fn field(text: &str, b: &Bounds) -> Result<u64, String> {
    let mut out = 0;
    for expr in text.split(',').filter(|s| !s.is_empty()) {
        out |= range(expr, b)?;
    }
    Ok(out)
}

/// `getRange`: `*`, `?`, `n`, `n-m`, each with an optional `/step`.
fn range(expr: &str, b: &Bounds) -> Result<u64, String> {
    let range_and_step: Vec<&str> = expr.split('/').collect();
    let low_and_high: Vec<&str> = range_and_step[0].split('-').collect();
    let single = low_and_high.len() == 1;
    let (start, mut end, mut extra);
    if low_and_high[0] == "*" || low_and_high[0] == "?" {
        (start, end, extra) = (i64::from(b.min), i64::from(b.max), STAR_BIT);
    } else {
        start = int_or_name(low_and_high[0], b.names)?;
        end = match low_and_high.len() {
            1 => start,
            2 => int_or_name(low_and_high[1], b.names)?,
            _ => return Err(format!("too many hyphens: {expr}")),
        };
        extra = 0;
    }
    let step = match range_and_step.len() {
        1 => 1,
        2 => {
            let step = must_int(range_and_step[1])?;
            // "N/step" means N-max/step.
            if single {
                end = i64::from(b.max);
            }
            if step > 1 {
                extra = 0;
            }
            step
        }
        _ => return Err(format!("too many slashes: {expr}")),
    };
    if start < i64::from(b.min) {
        return Err(format!(
            "beginning of range ({start}) below minimum ({}): {expr}",
            b.min
        ));
    }
    if end > i64::from(b.max) {
        return Err(format!(
            "end of range ({end}) above maximum ({}): {expr}",
            b.max
        ));
    }
    if start > end {
        return Err(format!(
            "beginning of range ({start}) beyond end of range ({end}): {expr}"
        ));
    }
    if step == 0 {
        return Err(format!("step of range should be a positive number: {expr}"));
    }
    // In bounds now, so the narrowing cannot fail.
    let narrow = |n: i64| u32::try_from(n).unwrap_or(0);
    Ok(bits(narrow(start), narrow(end), narrow(step.min(64))) | extra)
}

/// `parseIntOrName`: a name of the field (case-insensitive), else a number.
fn int_or_name(expr: &str, names: &[(&str, u32)]) -> Result<i64, String> {
    let lower = expr.to_ascii_lowercase();
    if let Some((_, n)) = names.iter().find(|(name, _)| *name == lower) {
        return Ok(i64::from(*n));
    }
    must_int(expr)
}

/// `mustParseInt`, with `strconv.Atoi`'s error texts.
fn must_int(expr: &str) -> Result<i64, String> {
    let digits = expr.strip_prefix(['+', '-']).unwrap_or(expr);
    let atoi = |why: &str| {
        format!(
            "failed to parse int from {expr}: strconv.Atoi: parsing {}: {why}",
            crate::error::go_quote(expr)
        )
    };
    if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err(atoi("invalid syntax"));
    }
    let num: i64 = expr.parse().map_err(|_| atoi("value out of range"))?;
    if num < 0 {
        return Err(format!("negative number ({num}) not allowed: {expr}"));
    }
    Ok(num)
}

/// `getBits`.
fn bits(min: u32, max: u32, step: u32) -> u64 {
    if step == 1 {
        return (!(u64::MAX << (max + 1))) & (u64::MAX << min);
    }
    (min..=max)
        .step_by(step as usize)
        .fold(0, |acc, i| acc | (1 << i))
}

fn has(set: u64, value: u32) -> bool {
    set & (1 << value) != 0
}

impl Schedule {
    /// `Next`: the first run strictly after `t`, read in the schedule's `TZ=` zone or else in
    /// `zone`; `None` when nothing matches within five years (an impossible date such as 30 Feb).
    pub fn next(&self, t: DateTime<Utc>, zone: Tz) -> Option<DateTime<Utc>> {
        let (minute, hour, dom, month, dow, location) = match self {
            Schedule::Every(delay) => {
                let nanos = TimeDelta::nanoseconds(i64::from(t.timestamp_subsec_nanos()));
                return Some(t + TimeDelta::from_std(*delay).ok()? - nanos);
            }
            Schedule::Spec {
                minute,
                hour,
                dom,
                month,
                dow,
                location,
            } => (*minute, *hour, *dom, *month, *dow, location.unwrap_or(zone)),
        };
        let day_matches = |t: &DateTime<Tz>| {
            let dom_match = has(dom, t.day());
            let dow_match = has(dow, t.weekday().num_days_from_sunday());
            if dom & STAR_BIT != 0 || dow & STAR_BIT != 0 {
                dom_match && dow_match
            } else {
                dom_match || dow_match
            }
        };
        let start = t.with_timezone(&location);
        let mut t = start.with_nanosecond(0)? + TimeDelta::seconds(1);
        let mut added = false;
        let year_limit = t.year() + 5;
        'wrap: loop {
            if t.year() > year_limit {
                return None;
            }
            while !has(month, t.month()) {
                if !added {
                    added = true;
                    t = local(&location, t.year(), t.month(), 1, 0)?;
                }
                t = add_months(&location, &t)?;
                if t.month() == 1 {
                    continue 'wrap;
                }
            }
            while !day_matches(&t) {
                if !added {
                    added = true;
                    t = local(&location, t.year(), t.month(), t.day(), 0)?;
                }
                let next = t.date_naive().succ_opt()?;
                t = local(&location, next.year(), next.month(), next.day(), t.hour())?;
                // Midnight may not exist on a DST day: back to the day's first hour.
                if t.hour() != 0 {
                    t = if t.hour() > 12 {
                        t + TimeDelta::hours(i64::from(24 - t.hour()))
                    } else {
                        t - TimeDelta::hours(i64::from(t.hour()))
                    };
                }
                if t.day() == 1 {
                    continue 'wrap;
                }
            }
            while !has(hour, t.hour()) {
                if !added {
                    added = true;
                    t = local(&location, t.year(), t.month(), t.day(), t.hour())?;
                }
                t += TimeDelta::hours(1);
                if t.hour() == 0 {
                    continue 'wrap;
                }
            }
            while !has(minute, t.minute()) {
                if !added {
                    added = true;
                    t = t.with_second(0)?;
                }
                t += TimeDelta::minutes(1);
                if t.minute() == 0 {
                    continue 'wrap;
                }
            }
            // The seconds field is always "0".
            while t.second() != 0 {
                if !added {
                    added = true;
                }
                t += TimeDelta::seconds(1);
                if t.second() == 0 {
                    continue 'wrap;
                }
            }
            return Some(t.with_timezone(&Utc));
        }
    }
}

/// `time.Date(y, m, d, h, 0, 0, 0, loc)`: a wall-clock time in `loc`; an hour a DST change skips
/// moves forward, a repeated one takes its first instant.
fn local(loc: &Tz, y: i32, m: u32, d: u32, h: u32) -> Option<DateTime<Tz>> {
    let naive: NaiveDateTime = NaiveDate::from_ymd_opt(y, m, d)?.and_hms_opt(h, 0, 0)?;
    loc.from_local_datetime(&naive).earliest().or_else(|| {
        loc.from_local_datetime(&(naive + TimeDelta::hours(1)))
            .earliest()
    })
}

/// `t.AddDate(0, 1, 0)` from the first of a month at midnight.
fn add_months(loc: &Tz, t: &DateTime<Tz>) -> Option<DateTime<Tz>> {
    let (y, m) = if t.month() == 12 {
        (t.year() + 1, 1)
    } else {
        (t.year(), t.month() + 1)
    };
    local(loc, y, m, t.day(), t.hour())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s)
            .expect("test time")
            .with_timezone(&Utc)
    }

    fn next(spec: &str, after: &str) -> Option<String> {
        let schedule = parse_standard(spec).expect("schedule parses");
        schedule
            .next(at(after), Tz::UTC)
            .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
    }

    #[test]
    fn errors_are_robfigs_words() {
        let err = |s: &str| parse_standard(s).expect_err(s);
        assert_eq!(err("* * *"), "expected exactly 5 fields, found 3: [* * *]");
        assert_eq!(
            err("0 0 * * * *"),
            "expected exactly 5 fields, found 6: [0 0 * * * *]"
        );
        assert_eq!(
            err("61 * * * *"),
            "end of range (61) above maximum (59): 61"
        );
        assert_eq!(
            err("* * 0 * *"),
            "beginning of range (0) below minimum (1): 0"
        );
        assert_eq!(
            err("5-1 * * * *"),
            "beginning of range (5) beyond end of range (1): 5-1"
        );
        assert_eq!(
            err("*/0 * * * *"),
            "step of range should be a positive number: */0"
        );
        assert_eq!(err("* * * * 7"), "end of range (7) above maximum (6): 7");
        assert_eq!(
            err("H * * * *"),
            r#"failed to parse int from H: strconv.Atoi: parsing "H": invalid syntax"#
        );
        assert_eq!(err("1/2/3 * * * *"), "too many slashes: 1/2/3");
        assert_eq!(err("1-2-3 * * * *"), "too many hyphens: 1-2-3");
        assert_eq!(err("@reboot"), "unrecognized descriptor: @reboot");
        assert_eq!(
            err("TZ=Mars/Olympus * * * * *"),
            "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"
        );
    }

    #[test]
    fn fields_accept_names_steps_and_question_marks() {
        assert!(parse_standard("0/15 9-17 ? JAN-mar Mon-FRI").is_ok());
        assert!(parse_standard("@hourly").is_ok());
        assert!(parse_standard("@every 1h30m").is_ok());
        assert!(parse_standard("CRON_TZ=Asia/Seoul 0 9 * * *").is_ok());
    }

    #[test]
    fn next_finds_the_following_run() {
        assert_eq!(
            next("*/5 * * * *", "2025-01-01T10:02:30Z").as_deref(),
            Some("2025-01-01T10:05:00Z")
        );
        assert_eq!(
            next("* * * * *", "2025-01-01T10:05:00Z").as_deref(),
            Some("2025-01-01T10:06:00Z")
        );
        assert_eq!(
            next("0 0 1 1 *", "2025-06-01T00:00:00Z").as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
        assert_eq!(
            next("@weekly", "2025-01-01T00:00:00Z").as_deref(),
            Some("2025-01-05T00:00:00Z")
        );
        assert_eq!(
            next("0 0 30 2 *", "2025-01-01T00:00:00Z"),
            None,
            "30 February never comes"
        );
    }

    #[test]
    fn day_of_month_and_weekday_combine_as_robfig_does() {
        // Both restricted: either matches (1 March 2025 is a Saturday; 3 March a Monday).
        assert_eq!(
            next("0 0 1 * 1", "2025-02-27T00:00:00Z").as_deref(),
            Some("2025-03-01T00:00:00Z")
        );
        assert_eq!(
            next("0 0 1 * 1", "2025-03-01T00:00:00Z").as_deref(),
            Some("2025-03-03T00:00:00Z")
        );
        // A star in one of them: both must match (any 1st; with */1, any Monday).
        assert_eq!(
            next("0 0 1 * *", "2025-03-01T00:00:00Z").as_deref(),
            Some("2025-04-01T00:00:00Z")
        );
        assert_eq!(
            next("0 0 */1 * 1", "2025-03-01T00:00:00Z").as_deref(),
            Some("2025-03-03T00:00:00Z")
        );
    }

    #[test]
    fn a_time_zone_moves_the_wall_clock() {
        let schedule = parse_standard("0 9 * * *").expect("parses");
        let seoul: Tz = "Asia/Seoul".parse().expect("zone");
        let t = schedule.next(at("2025-01-01T00:30:00Z"), seoul);
        assert_eq!(
            t,
            Some(at("2025-01-02T00:00:00Z")),
            "09:00 in Seoul is 00:00 UTC"
        );
        let prefixed = parse_standard("TZ=Asia/Seoul 0 9 * * *").expect("parses");
        assert_eq!(prefixed.next(at("2025-01-01T00:30:00Z"), Tz::UTC), t);
    }

    #[test]
    fn every_runs_a_constant_delay_after() {
        let schedule = parse_standard("@every 90s").expect("parses");
        assert_eq!(
            schedule.next(at("2025-01-01T00:00:00Z"), Tz::UTC),
            Some(at("2025-01-01T00:01:30Z"))
        );
        assert_eq!(
            parse_standard("@every soon").expect_err("bad"),
            r#"failed to parse duration @every soon: time: invalid duration "soon""#
        );
    }
}
