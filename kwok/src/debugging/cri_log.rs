//! A container's log file read as the kubelet reads it (`k8s.io/cri-client/pkg/logs` v0.33.0, the
//! reader kwok v0.7.0 serves logs with): CRI or Docker JSON lines, `tailLines` counted back from
//! the end of the file, `sinceSeconds`/`sinceTime`, `timestamps` and `limitBytes`.

use chrono::{DateTime, FixedOffset, NaiveDate, TimeDelta, Utc};
use serde::Deserialize;

use super::logs::PodLogOptions;

/// `LogOptions`, made by `NewLogOptions`.
#[derive(Debug, Clone)]
pub struct LogOptions {
    /// Lines to start from the end, or -1 for all.
    pub tail: i64,
    /// Bytes to write at most, or -1 for all.
    pub bytes: i64,
    /// Lines stamped before this are left out.
    pub since: Option<DateTime<FixedOffset>>,
    pub follow: bool,
    pub timestamps: bool,
}

impl LogOptions {
    pub fn new(opts: &PodLogOptions, now: DateTime<Utc>) -> LogOptions {
        // `now.Add(-time.Duration(s) * time.Second)`: Go's int64 arithmetic wraps.
        let mut since = opts.since_seconds.and_then(|s| {
            let nanos = s.wrapping_mul(1_000_000_000).wrapping_neg();
            now.checked_add_signed(TimeDelta::nanoseconds(nanos))
                .map(|t| t.fixed_offset())
        });
        if let Some(Some(time)) = opts.since_time {
            if since.is_none_or(|s| time > s) {
                since = Some(time);
            }
        }
        LogOptions {
            tail: opts.tail_lines.unwrap_or(-1),
            bytes: opts.limit_bytes.unwrap_or(-1),
            since,
            follow: opts.follow,
            timestamps: opts.timestamps,
        }
    }
}

/// `findTailLineStartIndex`: where the last `n` lines begin (every newline counts, so an
/// unfinished last line is one of them).
pub fn tail_start(data: &[u8], n: i64) -> usize {
    let Ok(n) = usize::try_from(n) else {
        return 0;
    };
    let newlines: Vec<usize> = data
        .iter()
        .enumerate()
        .filter(|(_, b)| **b == b'\n')
        .map(|(i, _)| i)
        .collect();
    if newlines.len() <= n {
        return 0;
    }
    newlines[newlines.len() - n - 1] + 1
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    Cri,
    DockerJson,
}

struct Message {
    timestamp: DateTime<FixedOffset>,
    /// Docker JSON names the stream freely; the writer refuses any but these two.
    stream: String,
    log: Vec<u8>,
}

/// `parseCRILog`: `<RFC3339Nano> <stdout|stderr> <P|F>[:tags] <content>`; a partial line (`P`)
/// loses its newline.
fn parse_cri(line: &[u8]) -> Option<Message> {
    let mut rest = line;
    let mut field = || {
        let at = rest.iter().position(|b| *b == b' ')?;
        let (word, tail) = (&rest[..at], &rest[at + 1..]);
        rest = tail;
        Some(word)
    };
    let timestamp = go_rfc3339(std::str::from_utf8(field()?).ok()?)?;
    let stream = field()?;
    if stream != b"stdout" && stream != b"stderr" {
        return None;
    }
    let stream = String::from_utf8_lossy(stream).into_owned();
    let tag = field()?;
    let partial = tag.split(|b| *b == b':').next() == Some(b"P");
    let mut log = rest.to_vec();
    if partial && log.last() == Some(&b'\n') {
        log.pop();
    }
    Some(Message {
        timestamp,
        stream,
        log,
    })
}

#[derive(Deserialize)]
struct DockerLine {
    #[serde(default)]
    log: String,
    #[serde(default)]
    stream: String,
    #[serde(default)]
    time: Option<String>,
}

/// `parseDockerJSONLog`: `{"log": ..., "stream": ..., "time": ...}`; no time is Go's zero time.
fn parse_docker(line: &[u8]) -> Option<Message> {
    let parsed: DockerLine = serde_json::from_slice(line).ok()?;
    let timestamp = match parsed.time {
        Some(t) => go_rfc3339(&t)?,
        None => zero_time(),
    };
    Some(Message {
        timestamp,
        stream: parsed.stream,
        log: parsed.log.into_bytes(),
    })
}

/// `time.Parse(RFC3339NanoLenient, s)`: a `T` between date and time, an upper-case `Z` or an
/// offset, no leap second (chrono also takes a space, lower case and second 60).
fn go_rfc3339(s: &str) -> Option<DateTime<FixedOffset>> {
    let bytes = s.as_bytes();
    if bytes.get(10) != Some(&b'T') || s.contains('z') || s.get(17..19) == Some("60") {
        return None;
    }
    DateTime::parse_from_rfc3339(s).ok()
}

fn zero_time() -> DateTime<FixedOffset> {
    NaiveDate::from_ymd_opt(1, 1, 1)
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().fixed_offset())
        .unwrap_or_default()
}

fn parse(format: Format, line: &[u8]) -> Option<Message> {
    match format {
        Format::Cri => parse_cri(line),
        Format::DockerJson => parse_docker(line),
    }
}

/// `RFC3339NanoFixed` as Go formats it: nine fraction digits, `Z` for a zero offset.
fn format_timestamp(t: &DateTime<FixedOffset>) -> String {
    let base = t.format("%Y-%m-%dT%H:%M:%S%.9f");
    let offset = t.offset().local_minus_utc();
    if offset == 0 {
        return format!("{base}Z");
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let minutes = offset.unsigned_abs() / 60;
    format!("{base}{sign}{:02}:{:02}", minutes / 60, minutes % 60)
}

/// The reading loop of `ReadLogs` with its `logWriter`, fed the file as it grows.
pub struct Reader {
    opts: LogOptions,
    /// Bytes still allowed (`logWriter.remain`).
    remain: i64,
    /// A tail without follow stops after that many lines, counting those `since` leaves out.
    limited: Option<i64>,
    /// The last line written ended a line, so the next gets a timestamp.
    is_new_line: bool,
    format: Option<Format>,
    done: bool,
}

impl Reader {
    pub fn new(opts: LogOptions) -> Reader {
        Reader {
            remain: if opts.bytes >= 0 {
                opts.bytes
            } else {
                i64::MAX
            },
            limited: (opts.tail >= 0 && !opts.follow).then_some(opts.tail),
            is_new_line: true,
            format: None,
            done: false,
            opts,
        }
    }

    /// Nothing more is to be written: the tail, the byte limit or (not following) the file's
    /// end was reached.
    pub fn done(&self) -> bool {
        self.done
    }

    /// Reads `data` from the reading position on, writing what the options let through to `out`,
    /// and returns how many bytes it read: every complete line and, unless following (which
    /// waits for the rest), an unfinished last one. An error is `ReadLogs`' own.
    pub fn read(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<usize, String> {
        let mut pos = 0;
        loop {
            if self.done || self.limited == Some(0) {
                self.done = true;
                return Ok(pos);
            }
            let line = match data[pos..].iter().position(|b| *b == b'\n') {
                Some(end) => {
                    let line = &data[pos..=pos + end];
                    pos += end + 1;
                    line
                }
                None if self.opts.follow => return Ok(pos),
                None => {
                    self.done = true;
                    let rest = &data[pos..];
                    pos = data.len();
                    if rest.is_empty() {
                        return Ok(pos);
                    }
                    rest
                }
            };
            // The first line fixes the format (`getParseFunc`); a later line that does not
            // parse is skipped, as the kubelet logs and skips it.
            let parsed = match self.format {
                Some(format) => parse(format, line),
                None => {
                    let (format, message) = [Format::Cri, Format::DockerJson]
                        .into_iter()
                        .find_map(|f| parse(f, line).map(|m| (f, m)))
                        .ok_or_else(|| {
                            format!(
                                "failed to get parse function: unsupported log format: {}",
                                crate::error::go_quote(&String::from_utf8_lossy(line))
                            )
                        })?;
                    self.format = Some(format);
                    Some(message)
                }
            };
            let Some(message) = parsed else {
                continue;
            };
            if self.write(&message, out)? {
                self.done = true;
                return Ok(pos);
            }
            if let Some(left) = &mut self.limited {
                *left -= 1;
            }
            self.is_new_line = message.log.last().is_none_or(|b| *b == b'\n');
        }
    }

    /// `logWriter.write`; true once the byte limit is reached.
    fn write(&mut self, message: &Message, out: &mut Vec<u8>) -> Result<bool, String> {
        if self
            .opts
            .since
            .is_some_and(|since| message.timestamp < since)
        {
            return Ok(false);
        }
        let mut line = Vec::with_capacity(message.log.len() + 32);
        if self.opts.timestamps && self.is_new_line {
            line.extend_from_slice(format_timestamp(&message.timestamp).as_bytes());
            line.push(b' ');
        }
        line.extend_from_slice(&message.log);
        if let Ok(remain) = usize::try_from(self.remain) {
            line.truncate(remain);
        }
        if message.stream != "stdout" && message.stream != "stderr" {
            return Err(format!(
                "unexpected stream type {}",
                crate::error::go_quote(&message.stream)
            ));
        }
        out.extend_from_slice(&line);
        self.remain -= line.len() as i64;
        Ok(self.remain <= 0)
    }
}

#[cfg(test)]
mod tests;
