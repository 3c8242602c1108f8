//! Text checkpoint files: the per-log-dir offset checkpoints
//! (`replication-offset-checkpoint`, `recovery-point-offset-checkpoint`,
//! `log-start-offset-checkpoint`, `cleaner-offset-checkpoint`) and the
//! per-partition `leader-epoch-checkpoint`.
//!
//! Mirrors `CheckpointFile.CheckpointReadBuffer` (server-common): a version
//! line, a count line, then one entry per line, parsed as strictly as Kafka
//! does (a broker that cannot parse one of these takes the whole log dir
//! offline, so a malformed line matters). Entry lines are split like Java's
//! `"\\s+"` pattern: leading whitespace makes an empty first field (and so a
//! malformed line), trailing whitespace is ignored. An empty file is an empty
//! checkpoint; so is a file with only a version line.
//!
//! Errors give the byte position of the offending line.

use std::path::Path;

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;

/// The only checkpoint version Kafka writes for these files.
pub const CHECKPOINT_VERSION: i32 = 0;

/// A line of an offset checkpoint: `<topic> <partition> <offset>`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct OffsetCheckpointEntry {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// The offset (HW, recovery point, log start or cleaner position).
    pub offset: i64,
}

/// A line of `leader-epoch-checkpoint`: `<epoch> <start offset>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct EpochEntry {
    /// Leader epoch.
    pub epoch: i32,
    /// First offset written in that epoch.
    pub start_offset: i64,
}

/// A parsed checkpoint file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Checkpoint<T> {
    /// The version line (`None` for an empty file).
    pub version: Option<i32>,
    /// Entries in file order, with the byte position of their line.
    pub entries: Vec<(u64, T)>,
}

/// Read an offset checkpoint file.
pub fn read_offsets(path: &Path, limits: &Limits) -> Result<Checkpoint<OffsetCheckpointEntry>> {
    let bytes = crate::read_bounded(path, limits.max_text_file_size, "checkpoint file")?;
    parse_offsets(&bytes).map_err(|e| e.with_path(path))
}

/// Read a `leader-epoch-checkpoint` file.
pub fn read_epochs(path: &Path, limits: &Limits) -> Result<Checkpoint<EpochEntry>> {
    let bytes = crate::read_bounded(path, limits.max_text_file_size, "checkpoint file")?;
    parse_epochs(&bytes).map_err(|e| e.with_path(path))
}

/// Parse offset checkpoint text.
pub fn parse_offsets(text: &[u8]) -> Result<Checkpoint<OffsetCheckpointEntry>> {
    parse(text, |f| match f {
        [topic, partition, offset] => Some(OffsetCheckpointEntry {
            topic: (*topic).to_string(),
            partition: partition.parse().ok()?,
            offset: offset.parse().ok()?,
        }),
        _ => None,
    })
}

/// Parse leader-epoch checkpoint text.
pub fn parse_epochs(text: &[u8]) -> Result<Checkpoint<EpochEntry>> {
    parse(text, |f| match f {
        [epoch, start] => Some(EpochEntry { epoch: epoch.parse().ok()?, start_offset: start.parse().ok()? }),
        _ => None,
    })
}

/// Java `BufferedReader.readLine` lines (`\n`, `\r` or `\r\n` end a line),
/// with the byte position of each.
pub(crate) fn lines(text: &[u8]) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut i = 0usize;
    while let Some(&b) = text.get(i) {
        if b == b'\n' || b == b'\r' {
            let line = text.get(start..i).unwrap_or_default();
            out.push((start as u64, String::from_utf8_lossy(line).into_owned()));
            i = i.saturating_add(1);
            if b == b'\r' && text.get(i) == Some(&b'\n') {
                i = i.saturating_add(1);
            }
            start = i;
        } else {
            i = i.saturating_add(1);
        }
    }
    if start < text.len() {
        out.push((start as u64, String::from_utf8_lossy(text.get(start..).unwrap_or_default()).into_owned()));
    }
    out
}

/// Java's `Pattern.compile("\\s+").split(line)`.
fn split_whitespace_java(line: &str) -> Vec<&str> {
    let is_ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r');
    let mut parts: Vec<&str> = line.split(is_ws).collect();
    // runs of whitespace produce empty pieces between them: drop those, keep a
    // leading empty piece (Java keeps it), drop trailing empties (Java does)
    let leading_empty = parts.first().is_some_and(|p| p.is_empty()) && !line.is_empty();
    parts.retain(|p| !p.is_empty());
    if leading_empty {
        parts.insert(0, "");
    }
    parts
}

fn parse<T>(text: &[u8], entry: impl Fn(&[&str]) -> Option<T>) -> Result<Checkpoint<T>> {
    let lines = lines(text);
    let mut it = lines.iter();
    let Some((pos, line)) = it.next() else {
        return Ok(Checkpoint { version: None, entries: Vec::new() });
    };
    let version: i32 = line
        .parse()
        .map_err(|_| Error::malformed(*pos, "checkpoint file", format!("version line {line:?} is not a number")))?;
    if version != CHECKPOINT_VERSION {
        return Err(Error::at(*pos, ErrorKind::BadVersion { what: "checkpoint file", version: version.into() }));
    }
    let Some((pos, line)) = it.next() else {
        return Ok(Checkpoint { version: Some(version), entries: Vec::new() });
    };
    let count: i32 = line
        .parse()
        .map_err(|_| Error::malformed(*pos, "checkpoint file", format!("count line {line:?} is not a number")))?;
    let mut entries = Vec::new();
    for (pos, line) in it {
        let fields = split_whitespace_java(line);
        let e = entry(&fields)
            .ok_or_else(|| Error::malformed(*pos, "checkpoint file", format!("malformed line {line:?}")))?;
        entries.push((*pos, e));
    }
    if i64::from(count) != entries.len() as i64 {
        return Err(Error::malformed(
            text.len() as u64,
            "checkpoint file",
            format!("expected {count} entries but found {}", entries.len()),
        ));
    }
    Ok(Checkpoint { version: Some(version), entries })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_files() {
        let c = parse_offsets(b"0\n2\nt1 1 94753\nt1 0 94782\n").unwrap();
        assert_eq!(c.entries.len(), 2);
        assert_eq!(c.entries[1], (15, OffsetCheckpointEntry { topic: "t1".into(), partition: 0, offset: 94782 }));
        let e = parse_epochs(b"0\n2\n0 0\n2 5\n").unwrap();
        assert_eq!(e.entries[1].1, EpochEntry { epoch: 2, start_offset: 5 });
        assert_eq!(parse_offsets(b"").unwrap().entries.len(), 0);
        assert_eq!(parse_offsets(b"0\n").unwrap().entries.len(), 0);
    }

    #[test]
    fn kafka_whitespace_rules() {
        assert!(parse_offsets(b"0\n1\nt 0 5   \n").is_ok());
        assert!(parse_offsets(b"0\n1\nt \t 0  5\r\n").is_ok());
        assert!(parse_offsets(b"0\n1\n t 0 5\n").is_err());
        assert!(parse_offsets(b"0\n1\nt 0 5 6\n").is_err());
    }

    #[test]
    fn malformed_files_name_the_line() {
        let e = parse_offsets(b"0\n2\nt 0 5\nt x 5\n").unwrap_err();
        assert_eq!(e.position(), Some(10));
        assert!(parse_offsets(b"1\n0\n").is_err());
        assert!(parse_offsets(b"0\n3\nt 0 5\n").is_err());
        assert!(parse_offsets(b"0\n1\nt 0 5\n\n").is_err());
    }
}
