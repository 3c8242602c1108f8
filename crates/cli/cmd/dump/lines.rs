//! `dump`'s lines: one per file, batch, record, index entry and every other
//! file's content, with their JSON form (serde's; a record line written
//! directly, the same bytes) and their table form.

use std::borrow::Cow;
use std::io;

use logfmt::checkpoint::{EpochEntry, OffsetCheckpointEntry};
use logfmt::index::{IndexTail, OffsetIndexEntry, TimeIndexEntry, TxnIndexEntry};
use logfmt::report::WithFile;
use serde::Serialize;

use crate::output::{Emit, Field, JsonName, NoteLine, Skip, TableSink, clip, fmt_time, json_field, json_int, json_str};

/// A JSON `file` line: what follows concerns this file.
#[derive(Serialize)]
pub struct FileLine<'a> {
    pub file: &'a str,
    pub kind: &'a str,
    pub size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_offset: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suffix: Option<&'a str>,
}

#[derive(Serialize)]
pub struct BatchLine<'a> {
    pub file: &'a str,
    pub position: u64,
    pub base_offset: Option<i64>,
    pub last_offset: i64,
    pub count: Option<i64>,
    pub size: u64,
    pub magic: i8,
    pub crc: u32,
    pub crc_valid: bool,
    pub compression: Option<&'static str>,
    pub timestamp_type: &'static str,
    pub base_timestamp: i64,
    pub max_timestamp: i64,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub base_sequence: i32,
    pub last_sequence: i32,
    pub partition_leader_epoch: i32,
    pub is_transactional: bool,
    pub is_control: bool,
    pub delete_horizon_ms: Option<i64>,
    pub attributes: i16,
}

#[derive(Serialize)]
pub struct HeaderOut<'a> {
    pub key: Cow<'a, str>,
    #[serde(skip_serializing_if = "Skip::skip")]
    pub value: Field<'a>,
}

#[derive(Serialize)]
pub struct RecordLine<'a> {
    pub file: &'a str,
    pub offset: i64,
    pub timestamp: i64,
    pub key_size: i64,
    pub value_size: i64,
    pub sequence: i32,
    #[serde(skip_serializing_if = "Skip::skip")]
    pub key: Field<'a>,
    #[serde(skip_serializing_if = "Skip::skip")]
    pub value: Field<'a>,
    pub headers: Vec<HeaderOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub control: Option<serde_json::Value>,
    /// An internal topic's record, decoded (`dump --decode`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decoded: Option<serde_json::Value>,
    /// Legacy (v0/v1) records carry their own CRC.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crc: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crc_valid: Option<bool>,
}

#[derive(Serialize)]
pub struct ProducerStateLine<'a> {
    pub file: &'a str,
    pub producer_id: i64,
    pub producer_epoch: i16,
    pub coordinator_epoch: i32,
    pub current_txn_first_offset: Option<i64>,
    pub first_sequence: Option<i32>,
    pub last_sequence: i32,
    pub last_offset: i64,
    pub offset_delta: i32,
    pub last_timestamp: i64,
}

#[derive(Serialize)]
pub struct PartitionMetadataLine<'a> {
    pub file: &'a str,
    pub version: i32,
    pub topic_id: String,
}

#[derive(Serialize)]
pub struct PropertiesLine<'a> {
    pub file: &'a str,
    pub properties: serde_json::Map<String, serde_json::Value>,
}

#[derive(Serialize)]
pub struct JsonFileLine<'a> {
    pub file: &'a str,
    pub content: serde_json::Value,
}

#[derive(Serialize)]
pub struct ErrorLine<'a> {
    pub file: &'a str,
    pub position: Option<u64>,
    pub end_position: Option<u64>,
    pub kind: &'static str,
    /// The header field outside the CRC found wrong (Kafka's name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<&'static str>,
    pub message: String,
}

#[derive(Serialize, Default, Clone, Copy)]
pub struct SummaryLine {
    pub files: u64,
    pub batches: u64,
    pub records: u64,
    pub bytes: u64,
    /// Bytes of segments read (a seek skips what it passes).
    pub bytes_read: u64,
    pub problems: u64,
}

/// One reported fact.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line<'a> {
    File(FileLine<'a>),
    Batch(BatchLine<'a>),
    Record(RecordLine<'a>),
    IndexEntry(WithFile<'a, OffsetIndexEntry>),
    TimeIndexEntry(WithFile<'a, TimeIndexEntry>),
    TxnIndexEntry(WithFile<'a, TxnIndexEntry>),
    IndexTail(WithFile<'a, IndexTail>),
    ProducerState(ProducerStateLine<'a>),
    CheckpointEntry(WithFile<'a, &'a OffsetCheckpointEntry>),
    LeaderEpochEntry(WithFile<'a, EpochEntry>),
    PartitionMetadata(PartitionMetadataLine<'a>),
    MetaProperties(PropertiesLine<'a>),
    QuorumState(JsonFileLine<'a>),
    CleanShutdown(JsonFileLine<'a>),
    Error(ErrorLine<'a>),
    Note(NoteLine<'a>),
    Summary(SummaryLine),
}

/// A record line as serde writes `Line::Record` (the `type` tag, then the
/// fields in order, skipped ones left out), and its newline.
fn record_json(out: &mut Vec<u8>, names: &mut JsonName, r: &RecordLine<'_>) -> io::Result<()> {
    out.extend_from_slice(b"{\"type\":\"record\",\"file\":");
    names.write(out, r.file);
    json_int(out, "offset", r.offset);
    json_int(out, "timestamp", r.timestamp);
    json_int(out, "key_size", r.key_size);
    json_int(out, "value_size", r.value_size);
    json_int(out, "sequence", r.sequence);
    json_field(out, "key", &r.key);
    json_field(out, "value", &r.value);
    out.extend_from_slice(b",\"headers\":[");
    for (i, h) in r.headers.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"key\":");
        json_str(out, &h.key);
        json_field(out, "value", &h.value);
        out.push(b'}');
    }
    out.push(b']');
    for (name, v) in [("control", &r.control), ("decoded", &r.decoded)] {
        if let Some(v) = v {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            serde_json::to_writer(&mut *out, v).map_err(io::Error::from)?;
        }
    }
    if let Some(crc) = r.crc {
        json_int(out, "crc", crc);
    }
    if let Some(valid) = r.crc_valid {
        out.extend_from_slice(if valid { b",\"crc_valid\":true" } else { b",\"crc_valid\":false" });
    }
    out.extend_from_slice(b"}\n");
    Ok(())
}

/// The columns of a segment's batches and records.
// (a batch row's FLAGS; a record row's key, value and headers there, and
// its key and value sizes under SIZE: `k6 v41`)
const LOG: &[&str] =
    &["POSITION", "OFFSETS", "COUNT", "SIZE", "EPOCH", "CODEC", "TIME", "PRODUCER", "CRC", "FLAGS / RECORD"];

/// A batch's row.
fn batch_row(b: &BatchLine<'_>) -> Vec<String> {
    let offsets = match b.base_offset {
        Some(base) => logfmt::report::offset_range(base, b.last_offset),
        None => format!("?-{}", b.last_offset),
    };
    let producer = match (b.producer_id, b.base_sequence) {
        (id, _) if id < 0 => "-".to_string(),
        (id, seq) if seq < 0 => format!("{id} e{}", b.producer_epoch),
        (id, seq) => format!("{id} e{} seq {seq}-{}", b.producer_epoch, b.last_sequence),
    };
    let mut flags = Vec::new();
    if b.magic != 2 {
        flags.push(format!("v{}", b.magic));
    }
    if b.is_transactional {
        flags.push("txn".into());
    }
    if b.is_control {
        flags.push("control".into());
    }
    if b.timestamp_type == "log_append_time" {
        flags.push("log-append-time".into());
    }
    if let Some(h) = b.delete_horizon_ms {
        flags.push(format!("delete-horizon {}", fmt_time(h)));
    }
    vec![
        b.position.to_string(),
        offsets,
        b.count.map_or("?".into(), |c| c.to_string()),
        b.size.to_string(),
        if b.partition_leader_epoch >= 0 { b.partition_leader_epoch.to_string() } else { "-".into() },
        b.compression.unwrap_or("?").to_string(),
        fmt_time(b.max_timestamp),
        producer,
        if b.crc_valid { "ok".into() } else { format!("BAD ({})", b.crc) },
        flags.join(" "),
    ]
}

/// A record's row (under its batch's columns).
fn record_row(r: &RecordLine<'_>) -> Vec<String> {
    let mut detail = Vec::new();
    if let Some(c) = &r.control {
        detail.push(control_text(c));
    } else if let Some(d) = &r.decoded {
        detail.push(decoded_text(d));
    } else {
        if let Field::Text(k) = &r.key {
            detail.push(format!("key={}", clip(k)));
        } else if let Field::Null = r.key {
            detail.push("key=null".into());
        }
        if let Field::Text(v) = &r.value {
            detail.push(format!("value={}", clip(v)));
        } else if let Field::Null = r.value {
            detail.push("value=null".into());
        }
    }
    for h in &r.headers {
        match &h.value {
            Field::Text(v) => detail.push(format!("{}:{}", clip(&h.key), clip(v))),
            _ => detail.push(format!("{}:null", clip(&h.key))),
        }
    }
    if r.crc_valid == Some(false) {
        detail.push("BAD CRC".into());
    }
    vec![
        String::new(),
        format!("  {}", r.offset),
        String::new(),
        format!("k{} v{}", r.key_size, r.value_size),
        String::new(),
        String::new(),
        fmt_time(r.timestamp),
        if r.sequence >= 0 { format!("seq {}", r.sequence) } else { String::new() },
        String::new(),
        detail.join(" "),
    ]
}

impl Emit for Line<'_> {
    fn fast_json(&self, out: &mut Vec<u8>, names: &mut JsonName) -> Option<io::Result<()>> {
        match self {
            Line::Record(r) => Some(record_json(out, names, r)),
            _ => None,
        }
    }

    fn table(&self, sink: &mut dyn TableSink) -> io::Result<()> {
        match self {
            Line::File(f) => {
                let mut s =
                    format!("\n{} ({}, {}", f.file, f.kind.replace('_', " "), logfmt::report::human_bytes(f.size));
                if let Some(sfx) = f.suffix {
                    s.push_str(&format!(", .{sfx}"));
                }
                s.push(')');
                sink.text(&s)
            }
            Line::Batch(b) => sink.row(LOG, batch_row(b)),
            Line::Record(r) => sink.row(LOG, record_row(r)),
            Line::IndexEntry(WithFile { item: e, .. }) => {
                sink.row(&["OFFSET", "POSITION"], vec![e.offset.to_string(), e.position.to_string()])
            }
            Line::TimeIndexEntry(WithFile { item: e, .. }) => sink.row(
                &["TIMESTAMP", "TIME", "OFFSET"],
                vec![e.timestamp.to_string(), fmt_time(e.timestamp), e.offset.to_string()],
            ),
            Line::TxnIndexEntry(WithFile { item: e, .. }) => sink.row(
                &["PRODUCER", "FIRST OFFSET", "LAST OFFSET", "LAST STABLE OFFSET"],
                vec![
                    e.producer_id.to_string(),
                    e.first_offset.to_string(),
                    e.last_offset.to_string(),
                    e.last_stable_offset.to_string(),
                ],
            ),
            Line::IndexTail(WithFile { item: t, .. }) => {
                let what = if t.zeroed { "zero-filled (preallocated)" } else { "NOT zero: stale or garbage bytes" };
                let mut s = format!("  {} unused slot(s) from byte {}: {what}", t.slots, t.position);
                if t.partial_bytes > 0 {
                    s.push_str(&format!("; {} byte(s) after the last whole slot", t.partial_bytes));
                }
                sink.text(&s)
            }
            Line::ProducerState(p) => sink.row(
                &["PRODUCER", "EPOCH", "COORD EPOCH", "OPEN TXN FROM", "SEQUENCES", "LAST OFFSET", "LAST TIMESTAMP"],
                vec![
                    p.producer_id.to_string(),
                    p.producer_epoch.to_string(),
                    p.coordinator_epoch.to_string(),
                    p.current_txn_first_offset.map_or("-".into(), |o| o.to_string()),
                    match p.first_sequence {
                        Some(f) => format!("{f}-{}", p.last_sequence),
                        None => "-".into(),
                    },
                    p.last_offset.to_string(),
                    fmt_time(p.last_timestamp),
                ],
            ),
            Line::CheckpointEntry(WithFile { item: c, .. }) => sink.row(
                &["TOPIC", "PARTITION", "OFFSET"],
                vec![c.topic.to_string(), c.partition.to_string(), c.offset.to_string()],
            ),
            Line::LeaderEpochEntry(WithFile { item: e, .. }) => {
                sink.row(&["EPOCH", "START OFFSET"], vec![e.epoch.to_string(), e.start_offset.to_string()])
            }
            Line::PartitionMetadata(m) => {
                sink.row(&["KEY", "VALUE"], vec!["version".into(), m.version.to_string()])?;
                sink.row(&["KEY", "VALUE"], vec!["topic_id".into(), m.topic_id.clone()])
            }
            Line::MetaProperties(p) => {
                for (k, v) in &p.properties {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    sink.row(&["KEY", "VALUE"], vec![k.clone(), v])?;
                }
                Ok(())
            }
            Line::QuorumState(j) | Line::CleanShutdown(j) => sink.text(&format!("  {}", j.content)),
            Line::Error(e) => {
                let at = match (e.position, e.end_position) {
                    (Some(p), Some(end)) => format!(" at bytes {p}..{end}"),
                    (Some(p), None) => format!(" at byte {p}"),
                    _ => String::new(),
                };
                sink.text(&format!("  !! {}{at}: {}", e.kind, e.message))
            }
            Line::Note(n) => sink.text(&format!("  note: {}: {}", n.file, n.message)),
            Line::Summary(s) => sink.text(&format!(
                "\n{} file(s), {} batch(es), {} record(s), {}; {} problem(s)",
                s.files,
                s.batches,
                s.records,
                logfmt::report::human_bytes(s.bytes),
                s.problems
            )),
        }
    }
}

/// A decoded internal record in one line: its type, its key's fields, then
/// its value's (nested lists as counts), e.g.
/// `OffsetCommit group=g topic=t partition=0 -> offset=68 leaderEpoch=-1 ...`.
fn decoded_text(d: &serde_json::Value) -> String {
    use serde_json::Value;
    fn fields(v: &Value, out: &mut Vec<String>) {
        if let Value::Object(o) = v {
            for (k, v) in o {
                out.push(match v {
                    Value::String(s) => format!("{k}={}", clip(s)),
                    Value::Array(a) => format!("{k}=[{}]", a.len()),
                    Value::Object(_) => format!("{k}={{…}}"),
                    other => format!("{k}={other}"),
                });
            }
        }
    }
    let mut out = Vec::new();
    let kind = d.get("record").or_else(|| d.get("type")).map(|t| t.as_str().map_or(t.to_string(), str::to_string));
    out.extend(kind);
    if let Some(data) = d.get("data") {
        // a metadata record
        fields(data, &mut out);
    } else {
        fields(d.get("key").unwrap_or(&Value::Null), &mut out);
        match d.get("value") {
            Some(Value::Null) => out.push("-> <tombstone>".into()),
            Some(v) => {
                out.push("->".into());
                fields(v, &mut out);
            }
            None => {}
        }
    }
    if let Some(e) = d.get("error").and_then(Value::as_str) {
        out.push(format!("(not decoded: {e})"));
    }
    out.join(" ")
}

/// A control record in words: `control commit coordinator_epoch=3`
/// (its JSON object's `type`, then its other fields).
fn control_text(c: &serde_json::Value) -> String {
    let mut out = vec!["control".to_string()];
    match c {
        serde_json::Value::Object(o) => {
            if let Some(t) = o.get("type") {
                out.push(t.as_str().map_or_else(|| t.to_string(), str::to_string));
            }
            for (k, v) in o.iter().filter(|(k, _)| *k != "type") {
                out.push(match v {
                    serde_json::Value::String(s) => format!("{k}={}", clip(s)),
                    serde_json::Value::Array(a) => format!("{k}=[{}]", a.len()),
                    serde_json::Value::Object(_) => format!("{k}={{…}}"),
                    other => format!("{k}={other}"),
                });
            }
        }
        other => out.push(other.to_string()),
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record lines written directly are the bytes serde writes.
    #[test]
    fn record_lines_are_what_serde_writes() {
        let mut every: String = (0u8..0x80).map(char::from).collect();
        every.push_str("é€😀 \u{7f}/");
        let texts =
            ["", "plain", "a\"b\\c", "x".repeat(40).as_str(), every.as_str(), &every.repeat(3)].map(|t| t.to_string());
        let fields = |i: usize| match i % 3 {
            0 => Field::Absent,
            1 => Field::Null,
            _ => Field::Text(Cow::Owned(texts[i % texts.len()].clone())),
        };
        for i in 0..24 {
            let r = RecordLine {
                file: &texts[(i + 2) % texts.len()],
                offset: i as i64 * 1_000_000_007 - 5,
                timestamp: -1,
                key_size: -1,
                value_size: i as i64,
                sequence: i32::MIN + i as i32,
                key: fields(i),
                value: fields(i + 1),
                headers: (0..i % 3)
                    .map(|h| HeaderOut { key: Cow::Owned(texts[(i + h) % texts.len()].clone()), value: fields(i + h) })
                    .collect(),
                control: (i % 4 == 1).then(|| serde_json::json!({"type": "commit", "coordinator_epoch": 3})),
                decoded: (i % 5 == 2).then(|| serde_json::json!({"key": {"group": "g\n"}, "value": null})),
                crc: (i % 2 == 0).then_some(u32::MAX - i as u32),
                crc_valid: (i % 2 == 0).then_some(i % 4 == 0),
            };
            let mut ours = Vec::new();
            record_json(&mut ours, &mut JsonName::default(), &r).unwrap();
            let mut theirs = serde_json::to_vec(&Line::Record(r)).unwrap();
            theirs.push(b'\n');
            assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
        }
    }
}
