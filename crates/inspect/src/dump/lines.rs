//! What a dump reports: one [`Item`] per file, batch, index entry and every
//! other file's content, and a [`RecordItem`] per record (its payload as
//! bytes: how to print them - UTF-8, hex, base64, redacted - is the
//! caller's). Each item's JSON is its serde form (the enum's `type` tag
//! first; docs/json.md) and [`Item::shown`] is its table form.

use serde::Serialize;

use logfmt::batch::{BatchHeader, Headers, RecordBatch};
use logfmt::checkpoint::{EpochEntry, OffsetCheckpointEntry};
use logfmt::control::ControlRecord;
use logfmt::index::{IndexTail, OffsetIndexEntry, TimeIndexEntry, TxnIndexEntry};
use logfmt::legacy::LegacyMessage;
use logfmt::report::{NoteLine, Shown, WithFile, clip, human_bytes, json_words, offset_range, time_text};

/// A JSON `file` line: what follows concerns this file.
#[derive(Serialize)]
pub struct FileLine<'a> {
    /// The file.
    pub file: &'a str,
    /// Its kind (`FileKind::name`).
    pub kind: &'a str,
    /// Its size in bytes.
    pub size: u64,
    /// A segment file's base offset (from its name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_offset: Option<i64>,
    /// `.deleted`, `.cleaned`, `.swap`... when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suffix: Option<&'a str>,
}

/// A batch (v2) or a legacy message (v0/v1, a wrapper or a plain one).
#[derive(Serialize)]
#[allow(missing_docs)] // the header's fields, named as Kafka names them
pub struct BatchLine<'a> {
    pub file: &'a str,
    pub position: u64,
    /// A legacy wrapper's first inner offset; `None` when its inner
    /// messages could not be read.
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

impl<'a> BatchLine<'a> {
    /// A v2 batch's line.
    pub fn of_batch(file: &'a str, b: &RecordBatch<'_>, crc_valid: bool) -> BatchLine<'a> {
        let h: BatchHeader = *b.header();
        BatchLine {
            file,
            position: b.position(),
            base_offset: Some(h.base_offset),
            last_offset: h.last_offset(),
            count: Some(h.records_count.into()),
            size: b.size(),
            magic: h.magic,
            crc: h.crc,
            crc_valid,
            compression: h.compression().map(|c| c.name()),
            timestamp_type: h.timestamp_type().name(),
            base_timestamp: h.base_timestamp,
            max_timestamp: h.max_timestamp,
            producer_id: h.producer_id,
            producer_epoch: h.producer_epoch,
            base_sequence: h.base_sequence,
            last_sequence: h.last_sequence(),
            partition_leader_epoch: h.partition_leader_epoch,
            is_transactional: h.is_transactional(),
            is_control: h.is_control(),
            delete_horizon_ms: h.delete_horizon_ms(),
            attributes: h.attributes,
        }
    }

    /// A v0/v1 message's line (a wrapper's `base_offset` and `count` when
    /// its inner messages were read).
    pub fn of_legacy(
        file: &'a str,
        m: &LegacyMessage<'_>,
        (base_offset, count): (Option<i64>, Option<i64>),
        crc_valid: bool,
    ) -> BatchLine<'a> {
        BatchLine {
            file,
            position: m.position(),
            base_offset,
            last_offset: m.offset,
            count,
            size: m.size_in_bytes(),
            magic: m.magic,
            crc: m.crc,
            crc_valid,
            compression: m.compression().map(|c| c.name()),
            timestamp_type: m.timestamp_type().name(),
            base_timestamp: m.timestamp,
            max_timestamp: m.timestamp,
            producer_id: -1,
            producer_epoch: -1,
            base_sequence: -1,
            last_sequence: -1,
            partition_leader_epoch: -1,
            is_transactional: false,
            is_control: false,
            delete_horizon_ms: None,
            attributes: i16::from(m.attributes),
        }
    }
}

/// A record (v2, or a legacy message's inner one), its payload as bytes.
pub struct RecordItem<'a> {
    /// The file.
    pub file: &'a str,
    /// Its offset.
    pub offset: i64,
    /// Its timestamp.
    pub timestamp: i64,
    /// Key length, -1 for a null key.
    pub key_size: i64,
    /// Value length, -1 for a null value.
    pub value_size: i64,
    /// Its sequence, -1 without one.
    pub sequence: i32,
    /// The key (`None`: null).
    pub key: Option<&'a [u8]>,
    /// The value (`None`: null).
    pub value: Option<&'a [u8]>,
    /// Its headers (none for a legacy message).
    pub headers: Headers<'a>,
    /// A control batch's record, decoded.
    pub control: Option<ControlRecord>,
    /// An internal topic's record, decoded (`--decode`).
    pub decoded: Option<serde_json::Value>,
    /// A legacy record's own CRC.
    pub crc: Option<u32>,
    /// Whether that CRC is right.
    pub crc_valid: Option<bool>,
}

/// A producer snapshot's entry.
#[derive(Serialize)]
#[allow(missing_docs)] // `ProducerStateEntry`'s fields as Kafka names them
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

/// `partition.metadata`.
#[derive(Serialize)]
pub struct PartitionMetadataLine<'a> {
    /// The file.
    pub file: &'a str,
    /// Its `version`.
    pub version: i32,
    /// Its `topic_id`.
    pub topic_id: String,
}

/// `meta.properties`.
#[derive(Serialize)]
pub struct PropertiesLine<'a> {
    /// The file.
    pub file: &'a str,
    /// Its keys and values.
    pub properties: serde_json::Map<String, serde_json::Value>,
}

/// A JSON file of the log dir (`quorum-state`, `.kafka_cleanshutdown`).
#[derive(Serialize)]
pub struct JsonFileLine<'a> {
    /// The file.
    pub file: &'a str,
    /// What it holds.
    pub content: serde_json::Value,
}

/// Damage, or a file that could not be read.
#[derive(Serialize)]
pub struct ErrorLine<'a> {
    /// The file.
    pub file: &'a str,
    /// The first byte concerned.
    pub position: Option<u64>,
    /// Past the last byte concerned (a damaged range).
    pub end_position: Option<u64>,
    /// The error's class (`ErrorClass::name`), or `not_kafka`.
    pub kind: &'static str,
    /// The header field outside the CRC found wrong (Kafka's name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<&'static str>,
    /// What is wrong.
    pub message: String,
}

/// The last line: what was read.
#[derive(Serialize, Default, Clone, Copy)]
pub struct SummaryLine {
    /// Files dumped.
    pub files: u64,
    /// Batches printed.
    pub batches: u64,
    /// Records printed (or counted from batch headers).
    pub records: u64,
    /// Bytes of the batches printed.
    pub bytes: u64,
    /// Bytes of segments read (a seek skips what it passes).
    pub bytes_read: u64,
    /// Errors reported.
    pub problems: u64,
}

/// One reported fact but a record.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[allow(missing_docs)] // each is its line type (docs/json.md)
pub enum Item<'a> {
    File(FileLine<'a>),
    Batch(BatchLine<'a>),
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

/// The columns of a segment's batches and records.
// (a batch row's FLAGS; a record row's key, value and headers there, and
// its key and value sizes under SIZE: `k6 v41`)
pub const LOG_COLUMNS: &[&str] =
    &["POSITION", "OFFSETS", "COUNT", "SIZE", "EPOCH", "CODEC", "TIME", "PRODUCER", "CRC", "FLAGS / RECORD"];

impl Item<'_> {
    /// The item in a table: rows under their columns, or text.
    pub fn shown(&self) -> Vec<Shown> {
        let row = |columns: &'static [&'static str], cells: Vec<String>| vec![Shown::Row(columns, cells)];
        match self {
            Item::File(f) => {
                let mut s = format!("\n{} ({}, {}", f.file, f.kind.replace('_', " "), human_bytes(f.size));
                if let Some(sfx) = f.suffix {
                    s.push_str(&format!(", .{sfx}"));
                }
                s.push(')');
                vec![Shown::Text(s)]
            }
            Item::Batch(b) => row(LOG_COLUMNS, batch_row(b)),
            Item::IndexEntry(WithFile { item: e, .. }) => {
                row(&["OFFSET", "POSITION"], vec![e.offset.to_string(), e.position.to_string()])
            }
            Item::TimeIndexEntry(WithFile { item: e, .. }) => row(
                &["TIMESTAMP", "TIME", "OFFSET"],
                vec![e.timestamp.to_string(), time_text(e.timestamp), e.offset.to_string()],
            ),
            Item::TxnIndexEntry(WithFile { item: e, .. }) => row(
                &["PRODUCER", "FIRST OFFSET", "LAST OFFSET", "LAST STABLE OFFSET"],
                vec![
                    e.producer_id.to_string(),
                    e.first_offset.to_string(),
                    e.last_offset.to_string(),
                    e.last_stable_offset.to_string(),
                ],
            ),
            Item::IndexTail(WithFile { item: t, .. }) => {
                let what = if t.zeroed { "zero-filled (preallocated)" } else { "NOT zero: stale or garbage bytes" };
                let mut s = format!("  {} unused slot(s) from byte {}: {what}", t.slots, t.position);
                if t.partial_bytes > 0 {
                    s.push_str(&format!("; {} byte(s) after the last whole slot", t.partial_bytes));
                }
                vec![Shown::Text(s)]
            }
            Item::ProducerState(p) => row(
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
                    time_text(p.last_timestamp),
                ],
            ),
            Item::CheckpointEntry(WithFile { item: c, .. }) => row(
                &["TOPIC", "PARTITION", "OFFSET"],
                vec![c.topic.to_string(), c.partition.to_string(), c.offset.to_string()],
            ),
            Item::LeaderEpochEntry(WithFile { item: e, .. }) => {
                row(&["EPOCH", "START OFFSET"], vec![e.epoch.to_string(), e.start_offset.to_string()])
            }
            Item::PartitionMetadata(m) => vec![
                Shown::Row(&["KEY", "VALUE"], vec!["version".into(), m.version.to_string()]),
                Shown::Row(&["KEY", "VALUE"], vec!["topic_id".into(), m.topic_id.clone()]),
            ],
            Item::MetaProperties(p) => p
                .properties
                .iter()
                .map(|(k, v)| {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    Shown::Row(&["KEY", "VALUE"], vec![k.clone(), v])
                })
                .collect(),
            Item::QuorumState(j) | Item::CleanShutdown(j) => vec![Shown::Text(format!("  {}", j.content))],
            Item::Error(e) => {
                let at = match (e.position, e.end_position) {
                    // first-last, both included: the one range notation
                    (Some(p), Some(end)) if end > p.saturating_add(1) => {
                        format!(" at bytes {p}-{}", end.saturating_sub(1))
                    }
                    (Some(p), Some(_)) => format!(" at byte {p}"),
                    (Some(p), None) => format!(" at byte {p}"),
                    _ => String::new(),
                };
                vec![Shown::Text(format!("  !! {}{at}: {}", e.kind, e.message))]
            }
            Item::Note(n) => vec![Shown::Text(format!("  note: {}: {}", n.file, n.message))],
            Item::Summary(s) => vec![Shown::Text(format!(
                "\n{} file(s), {} batch(es), {} record(s), {}; {} problem(s)",
                s.files,
                s.batches,
                s.records,
                human_bytes(s.bytes),
                s.problems
            ))],
        }
    }
}

/// A batch's row.
fn batch_row(b: &BatchLine<'_>) -> Vec<String> {
    let offsets = match b.base_offset {
        Some(base) => offset_range(base, b.last_offset),
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
        flags.push(format!("delete-horizon {}", time_text(h)));
    }
    vec![
        b.position.to_string(),
        offsets,
        b.count.map_or("?".into(), |c| c.to_string()),
        b.size.to_string(),
        if b.partition_leader_epoch >= 0 { b.partition_leader_epoch.to_string() } else { "-".into() },
        b.compression.unwrap_or("?").to_string(),
        time_text(b.max_timestamp),
        producer,
        if b.crc_valid { "ok".into() } else { format!("BAD ({})", b.crc) },
        flags.join(" "),
    ]
}

/// A decoded internal record in one line: its type, its key's fields, then
/// its value's (nested lists as counts), e.g.
/// `OffsetCommit group=g topic=t partition=0 -> offset=68 leaderEpoch=-1 ...`.
pub fn decoded_text(d: &serde_json::Value) -> String {
    use serde_json::Value;
    let mut out = Vec::new();
    let kind = d.get("record").or_else(|| d.get("type")).map(|t| t.as_str().map_or(t.to_string(), str::to_string));
    out.extend(kind);
    if let Some(data) = d.get("data") {
        // a metadata record
        out.extend(json_words(data));
    } else {
        out.extend(json_words(d.get("key").unwrap_or(&Value::Null)));
        match d.get("value") {
            Some(Value::Null) => out.push("-> <tombstone>".into()),
            Some(v) => {
                out.push("->".into());
                out.extend(json_words(v));
            }
            None => {}
        }
    }
    if let Some(e) = d.get("error").and_then(Value::as_str) {
        out.push(format!("(not decoded: {e})"));
    }
    out.join(" ")
}

/// A record's row under its batch's columns ([`LOG_COLUMNS`]), its key,
/// value and headers as the caller prints them (`None`: not printed,
/// `Some(None)`: null; a header's `None`: null or not printed).
pub fn record_row<'t>(
    r: &RecordItem<'_>,
    key: Option<Option<&str>>,
    value: Option<Option<&str>>,
    headers: impl Iterator<Item = (&'t str, Option<&'t str>)>,
) -> Shown {
    let detail = record_detail(r, key, value, headers);
    Shown::Row(
        LOG_COLUMNS,
        vec![
            String::new(),
            format!("  {}", r.offset),
            String::new(),
            format!("k{} v{}", r.key_size, r.value_size),
            String::new(),
            String::new(),
            time_text(r.timestamp),
            if r.sequence >= 0 { format!("seq {}", r.sequence) } else { String::new() },
            String::new(),
            detail,
        ],
    )
}

/// A record's detail: its control record or decoded record in words, else
/// its key and value; then its headers, and a bad CRC.
fn record_detail<'t>(
    r: &RecordItem<'_>,
    key: Option<Option<&str>>,
    value: Option<Option<&str>>,
    headers: impl Iterator<Item = (&'t str, Option<&'t str>)>,
) -> String {
    let mut detail = Vec::new();
    if let Some(c) = &r.control {
        detail.push(c.words());
    } else if let Some(d) = &r.decoded {
        detail.push(decoded_text(d));
    } else {
        for (name, f) in [("key", key), ("value", value)] {
            match f {
                Some(Some(t)) => detail.push(format!("{name}={}", clip(t))),
                Some(None) => detail.push(format!("{name}=null")),
                None => {}
            }
        }
    }
    for (k, v) in headers {
        match v {
            Some(v) => detail.push(format!("{}:{}", clip(k), clip(v))),
            None => detail.push(format!("{}:null", clip(k))),
        }
    }
    if r.crc_valid == Some(false) {
        detail.push("BAD CRC".into());
    }
    detail.join(" ")
}
