//! How a report type shows itself: the one small trait that lets a command
//! print a library type without mirroring it field by field.
//!
//! A [`Report`] is serialisable (its JSON Lines object is its serde form
//! with `"type": TYPE` first; docs/json.md documents each type) and renders
//! as one table row under [`Report::COLUMNS`]. The binary's `Output`
//! (`crates/cli/output.rs`) writes either form; nothing else in the command
//! needs to know the fields.

use serde::Serialize;

/// A line of a command's report.
pub trait Report: Serialize {
    /// The JSON `type` of the line.
    const TYPE: &'static str;
    /// Table column headings.
    const COLUMNS: &'static [&'static str];
    /// The row's cells, one per column.
    fn cells(&self) -> Vec<String>;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(1234567), "1,234,567");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 30), "3.0 GiB");
    }
}
