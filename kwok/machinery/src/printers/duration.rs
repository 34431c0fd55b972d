//! Durations and ages as humans read them, from `k8s.io/apimachinery/pkg/util/duration/duration.go`
//! and the `translateTimestampSince` helper of `printers.go`.

use chrono::{DateTime, Duration, Utc};

/// `duration.HumanDuration`: about 2–3 significant figures (`90s`, `3m20s`, `47h`, `5d3h`, `3y12d`).
pub fn human_duration(d: Duration) -> String {
    // Go truncates toward zero everywhere below (`int(d.Seconds())`, `d / time.Minute`).
    let seconds = d.num_seconds();
    if seconds < -1 {
        return "<invalid>".to_string();
    } else if seconds < 0 {
        return "0s".to_string();
    } else if seconds < 60 * 2 {
        return format!("{seconds}s");
    }
    let minutes = d.num_minutes();
    if minutes < 10 {
        let s = seconds % 60;
        if s == 0 {
            return format!("{minutes}m");
        }
        return format!("{minutes}m{s}s");
    } else if minutes < 60 * 3 {
        return format!("{minutes}m");
    }
    let hours = d.num_hours();
    if hours < 8 {
        let m = minutes % 60;
        if m == 0 {
            return format!("{hours}h");
        }
        format!("{hours}h{m}m")
    } else if hours < 48 {
        format!("{hours}h")
    } else if hours < 24 * 8 {
        let h = hours % 24;
        if h == 0 {
            return format!("{}d", hours / 24);
        }
        format!("{}d{h}h", hours / 24)
    } else if hours < 24 * 365 * 2 {
        format!("{}d", hours / 24)
    } else if hours < 24 * 365 * 8 {
        let dy = (hours / 24) % 365;
        if dy == 0 {
            return format!("{}y", hours / 24 / 365);
        }
        format!("{}y{dy}d", hours / 24 / 365)
    } else {
        format!("{}y", hours / 24 / 365)
    }
}

/// `translateTimestampSince`: the age of a timestamp, `<unknown>` for a zero (unset) one.
pub fn since(t: Option<DateTime<Utc>>, now: DateTime<Utc>) -> String {
    match t {
        Some(t) => human_duration(now.signed_duration_since(t)),
        None => "<unknown>".to_string(),
    }
}
