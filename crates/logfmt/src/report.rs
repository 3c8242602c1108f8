//! How a report type shows itself: the one small trait that lets a command
//! print a library type without mirroring it field by field.
//!
//! A [`Report`] is serialisable (its JSON Lines object is its serde form
//! with `"type": TYPE` first; docs/json.md documents each type) and shows
//! in a table as a row under its columns or as a sentence ([`Shown`]). The binary's `Output`
//! (`crates/cli/output.rs`) writes either form; nothing else in the command
//! needs to know the fields.

use serde::Serialize;

/// A line of a command's report.
pub trait Report: Serialize {
    /// The JSON `type` of the line.
    const TYPE: &'static str;
    /// How the line shows in a table.
    fn show(&self) -> Shown;
}

/// A line in a table: a row under its columns (rows with the same columns
/// make one table), or a sentence of its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shown {
    /// Column headings and the row's cells, one per column.
    Row(&'static [&'static str], Vec<String>),
    /// Text shown as it is.
    Text(String),
}

/// An epoch-ms time as `2026-11-21T09:14:03.123Z` (UTC), `-` when negative.
pub fn iso_time(ms: i64) -> String {
    if ms < 0 {
        return "-".into();
    }
    let (y, mo, d, h, mi, s) = civil(ms.div_euclid(1000));
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{:03}Z", ms.rem_euclid(1000))
}

/// An epoch-ms time as `2026-11-21 09:14:03Z` (UTC, to the second).
pub fn utc(ms: i64) -> String {
    let (y, mo, d, h, mi, s) = civil(ms.div_euclid(1000));
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}Z")
}

/// Year, month, day, hour, minute, second of epoch seconds (Howard
/// Hinnant's civil-from-days).
// every intermediate is bounded (days of an i64 of seconds fit many times over)
#[allow(clippy::arithmetic_side_effects)]
fn civil(secs: i64) -> (i64, i64, i64, i64, i64, i64) {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe.saturating_add(era.saturating_mul(400));
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = if m <= 2 { y.saturating_add(1) } else { y };
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// A count in a table cell: grouped by thousands (`1,234,567`).
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len().saturating_add(digits.len() / 3));
    let len = digits.len();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && len.saturating_sub(i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A byte count in a table cell: `512 B`, `1.5 KiB`, `3.2 GiB`.
pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64 / 1024.0;
    let mut unit = "KiB";
    for u in UNITS.iter().skip(1) {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

/// Offsets `first` to `last`, both included, as tables and messages write
/// them: `95-101`, or `95` alone. (Only the `--offsets A..B` argument uses
/// `..`, with B excluded; GUIDE.md says so once, in "Conventions".)
pub fn offset_range(first: i64, last: i64) -> String {
    if first == last { first.to_string() } else { format!("{first}-{last}") }
}

/// A library value as a line about one file: `file` first, then the
/// value's own fields (its `Serialize` form), so a command does not copy
/// a library type field by field to say where it came from.
#[derive(Serialize)]
pub struct WithFile<'a, T> {
    /// The file it is about.
    pub file: &'a str,
    /// The value.
    #[serde(flatten)]
    pub item: T,
}

/// A note: something worth knowing, in words.
#[derive(Serialize)]
pub struct NoteLine<'a> {
    /// The file or directory it is about.
    pub file: &'a str,
    /// What is worth knowing.
    pub message: String,
}

impl Report for NoteLine<'_> {
    const TYPE: &'static str = "note";

    fn show(&self) -> Shown {
        Shown::Text(format!("  note: {}: {}", self.file, self.message))
    }
}

/// A JSON object's fields in words, in its order: `name=text` (clipped),
/// `name=[3]` for a list (its length), `name={…}` for an object, else
/// `name=value`; nothing for what is not an object.
pub fn json_words(v: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    let Value::Object(o) = v else { return Vec::new() };
    o.iter()
        .map(|(k, v)| match v {
            Value::String(s) => format!("{k}={}", clip(s)),
            Value::Array(a) => format!("{k}=[{}]", a.len()),
            Value::Object(_) => format!("{k}={{…}}"),
            other => format!("{k}={other}"),
        })
        .collect()
}

/// A text in a table cell: at most 60 characters (then `…`), control
/// characters shown as `.`.
pub fn clip(s: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 60;
    let long = s.chars().nth(MAX).is_some();
    if !long && !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut t: String = s.chars().take(MAX).map(|c| if c.is_control() { '.' } else { c }).collect();
    if long {
        t.push('…');
    }
    std::borrow::Cow::Owned(t)
}

/// Epoch milliseconds as an RFC 3339 UTC time in a table cell
/// (`2026-11-25T19:14:19.000Z`); `-` for a negative one (no timestamp).
pub fn time_text(ms: i64) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(t) if ms >= 0 => t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        _ => "-".into(),
    }
}

/// A duration in a table cell, to the two largest units that matter:
/// `850 ms`, `12.5 s`, `15 min`, `2h 5min`, `1d 14h`. Negative: `-` and the
/// same form.
pub fn human_duration(ms: i64) -> String {
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    const S: u64 = 1000;
    const MIN: u64 = 60 * S;
    const H: u64 = 60 * MIN;
    const D: u64 = 24 * H;
    let text = if ms < S {
        format!("{ms} ms")
    } else if ms < MIN {
        let tenths = ms / 100;
        if tenths.is_multiple_of(10) {
            format!("{} s", tenths / 10)
        } else {
            format!("{}.{} s", tenths / 10, tenths % 10)
        }
    } else if ms < H {
        let (m, s) = (ms / MIN, ms % MIN / S);
        if s == 0 { format!("{m} min") } else { format!("{m} min {s} s") }
    } else if ms < D {
        let (h, m) = (ms / H, ms % H / MIN);
        if m == 0 { format!("{h}h") } else { format!("{h}h {m}min") }
    } else {
        let (d, h) = (ms / D, ms % D / H);
        if h == 0 { format!("{d}d") } else { format!("{d}d {h}h") }
    };
    format!("{sign}{text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_and_durations() {
        assert_eq!(offset_range(95, 101), "95-101");
        assert_eq!(offset_range(7, 7), "7");
        assert_eq!(human_duration(900), "900 ms");
        assert_eq!(human_duration(12_500), "12.5 s");
        assert_eq!(human_duration(900_000), "15 min");
        assert_eq!(human_duration(65_000), "1 min 5 s");
        assert_eq!(human_duration(7_500_000), "2h 5min");
        assert_eq!(human_duration(139_775_000), "1d 14h");
        assert_eq!(human_duration(-2_000), "-2 s");
        assert_eq!(human_duration(i64::MIN).chars().next(), Some('-'));
    }

    #[test]
    fn cells() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
        assert_eq!(iso_time(1_763_716_443_123), "2025-11-21T09:14:03.123Z");
        assert_eq!(iso_time(-1), "-");
        assert_eq!(utc(0), "1970-01-01 00:00:00Z");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00Z");
    }
}
