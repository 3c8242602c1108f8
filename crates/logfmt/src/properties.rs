//! `meta.properties` (per log dir) and `partition.metadata` (per partition).
//!
//! `meta.properties` is Java `Properties` text (`MetaProperties.java`):
//! `key=value` lines, `#`/`!` comments, backslash escapes and continuations.
//! Version 0 (ZooKeeper era) has `broker.id`; version 1 (KRaft) `node.id`;
//! both may carry `cluster.id` and `directory.id`.
//!
//! `partition.metadata` (`PartitionMetadataFile.java`) is exactly two lines,
//! `version: 0` and `topic_id: <base64url uuid>`, each split on `:\s+`.

use std::path::Path;

use crate::checkpoint::lines;
use crate::error::{Error, Result};
use crate::limits::Limits;
use crate::uuid::Uuid;

/// Read `meta.properties` into (key, value) pairs in file order.
pub fn read_meta_properties(path: &Path, limits: &Limits) -> Result<Vec<(String, String)>> {
    let bytes = crate::read_bounded(path, limits.max_text_file_size, "meta.properties")?;
    Ok(parse_java_properties(&String::from_utf8_lossy(&bytes)))
}

/// Parse Java `Properties.load` text.
pub fn parse_java_properties(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut logical = String::new();
    let mut continuing = false;
    for raw in text.split(['\n', '\r']) {
        let line = raw.trim_start_matches([' ', '\t', '\u{0c}']);
        if !continuing {
            if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
                continue;
            }
            logical.clear();
        }
        // an odd number of trailing backslashes continues the line
        let trailing = line.chars().rev().take_while(|&c| c == '\\').count();
        if trailing % 2 == 1 {
            logical.push_str(line.get(..line.len().saturating_sub(1)).unwrap_or_default());
            continuing = true;
            continue;
        }
        logical.push_str(line);
        continuing = false;
        out.push(split_property(&logical));
    }
    if continuing {
        out.push(split_property(&logical));
    }
    out
}

fn split_property(line: &str) -> (String, String) {
    let mut key = String::new();
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(n) = chars.next() {
                    key.push(unescape(n, &mut chars));
                }
            }
            '=' | ':' => break,
            ' ' | '\t' | '\u{0c}' => {
                while chars.peek().is_some_and(|c| matches!(c, ' ' | '\t' | '\u{0c}')) {
                    chars.next();
                }
                if chars.peek().is_some_and(|c| matches!(c, '=' | ':')) {
                    chars.next();
                }
                break;
            }
            c => key.push(c),
        }
    }
    while chars.peek().is_some_and(|c| matches!(c, ' ' | '\t' | '\u{0c}')) {
        chars.next();
    }
    let mut value = String::new();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(n) = chars.next() {
                value.push(unescape(n, &mut chars));
            }
        } else {
            value.push(c);
        }
    }
    (key, value)
}

fn unescape(c: char, rest: &mut std::iter::Peekable<std::str::Chars<'_>>) -> char {
    match c {
        't' => '\t',
        'n' => '\n',
        'r' => '\r',
        'f' => '\u{0c}',
        'u' => {
            let hex: String = (0..4).filter_map(|_| rest.next()).collect();
            u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('\u{fffd}')
        }
        other => other,
    }
}

/// `partition.metadata`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionMetadata {
    /// File version (0).
    pub version: i32,
    /// The topic's id.
    pub topic_id: Uuid,
}

/// Read `partition.metadata`.
pub fn read_partition_metadata(path: &Path, limits: &Limits) -> Result<PartitionMetadata> {
    let bytes = crate::read_bounded(path, limits.max_text_file_size, "partition.metadata")?;
    parse_partition_metadata(&bytes).map_err(|e| e.with_path(path))
}

/// Split like Java's `":\\s+"` pattern (a `:` followed by whitespace
/// separates; trailing empty parts are dropped) and return the second part
/// when there are exactly two.
fn field(line: &str) -> Option<&str> {
    let is_ws = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{0b}' | '\u{0c}' | '\r');
    let mut parts = Vec::new();
    let mut start = 0usize;
    let mut search = 0usize;
    while let Some(i) = line.get(search..).and_then(|r| r.find(':')).map(|i| i.saturating_add(search)) {
        let after = line.get(i.saturating_add(1)..).unwrap_or_default();
        let rest = after.trim_start_matches(is_ws);
        if rest.len() < after.len() {
            parts.push(line.get(start..i).unwrap_or_default());
            start = line.len().saturating_sub(rest.len());
        }
        search = i.saturating_add(1).max(start);
    }
    parts.push(line.get(start..).unwrap_or_default());
    while parts.last().is_some_and(|p| p.is_empty()) {
        parts.pop();
    }
    match parts.as_slice() {
        [_, value] => Some(value),
        _ => None,
    }
}

/// Parse `partition.metadata` text.
pub fn parse_partition_metadata(text: &[u8]) -> Result<PartitionMetadata> {
    let lines = lines(text);
    let mut it = lines.iter();
    let (pos, line) = it.next().ok_or_else(|| Error::malformed(0, "partition.metadata", "empty file"))?;
    let version: i32 = field(line)
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| Error::malformed(*pos, "partition.metadata", format!("malformed version line {line:?}")))?;
    if version < 0 {
        return Err(Error::malformed(*pos, "partition.metadata", format!("unrecognised version {version}")));
    }
    let (pos, line) = it.next().ok_or_else(|| Error::truncated(text.len() as u64, "partition.metadata", 1))?;
    let id = field(line)
        .ok_or_else(|| Error::malformed(*pos, "partition.metadata", format!("malformed topic id line {line:?}")))?;
    let topic_id = Uuid::parse(id)
        .ok_or_else(|| Error::malformed(*pos, "partition.metadata", format!("invalid topic id {id:?}")))?;
    if topic_id.is_zero() {
        return Err(Error::malformed(*pos, "partition.metadata", "the topic id is the zero UUID"));
    }
    Ok(PartitionMetadata { version, topic_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_properties_from_a_real_file() {
        let p = parse_java_properties(
            "#\n#Sun Nov 22 03:50:59 UTC 2026\nnode.id=1\ndirectory.id=FqKEUvAjTxm0AEqDxZSpeA\nversion=1\ncluster.id=xP8EF7daScmmQ7J4UwA4Kg\n",
        );
        assert_eq!(p[0], ("node.id".into(), "1".into()));
        assert_eq!(p.len(), 4);
    }

    #[test]
    fn java_properties_escapes() {
        let p = parse_java_properties("a\\ b : c\\\n   d\nk v\n! comment\nx:\\u0041");
        assert_eq!(p, vec![("a b".into(), "cd".into()), ("k".into(), "v".into()), ("x".into(), "A".into())]);
    }

    #[test]
    fn partition_metadata_from_a_real_file() {
        let m = parse_partition_metadata(b"version: 0\ntopic_id: 2FMizQX7S52N6LQVqTCn9Q").unwrap();
        assert_eq!(m.version, 0);
        assert_eq!(m.topic_id.to_string(), "2FMizQX7S52N6LQVqTCn9Q");
        assert!(parse_partition_metadata(b"version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA").is_err());
        assert!(parse_partition_metadata(b"version:0\ntopic_id: 2FMizQX7S52N6LQVqTCn9Q").is_err());
        assert!(parse_partition_metadata(b"version: 0\n").is_err());
    }
}
