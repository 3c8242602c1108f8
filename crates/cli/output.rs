//! Output: every command reports [`Line`]s; the [`Output`] renders them as
//! JSON Lines (one object per line, `type` first; schema in docs/json.md) or as
//! tables for people.
//!
//! Memory stays bounded for any input: JSON lines are written as they come,
//! and tables are rendered in chunks of [`TABLE_CHUNK`] rows.

use std::borrow::Cow;
use std::io::{self, Write};

use logfmt::report::{Report, Shown};
use serde::Serialize;
use tabled::builder::Builder;
use tabled::settings::object::Columns;
use tabled::settings::{Modify, Style, Width};

use crate::args::Format;

/// Rows per rendered table chunk.
pub const TABLE_CHUNK: usize = 1000;

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

/// A payload field: absent (`--payload none`), null, or a string.
pub enum Field<'a> {
    Absent,
    Null,
    Text(Cow<'a, str>),
}

pub trait Skip {
    fn skip(&self) -> bool;
}

impl Skip for Field<'_> {
    fn skip(&self) -> bool {
        matches!(self, Field::Absent)
    }
}

impl Serialize for Field<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Absent | Field::Null => s.serialize_none(),
            Field::Text(t) => s.serialize_str(t),
        }
    }
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
pub struct IndexEntryLine<'a> {
    pub file: &'a str,
    pub offset: i64,
    pub position: i32,
}

#[derive(Serialize)]
pub struct TimeIndexEntryLine<'a> {
    pub file: &'a str,
    pub timestamp: i64,
    pub offset: i64,
}

#[derive(Serialize)]
pub struct TxnIndexEntryLine<'a> {
    pub file: &'a str,
    pub version: i16,
    pub producer_id: i64,
    pub first_offset: i64,
    pub last_offset: i64,
    pub last_stable_offset: i64,
}

#[derive(Serialize)]
pub struct IndexTailLine<'a> {
    pub file: &'a str,
    pub position: u64,
    pub slots: u64,
    pub zeroed: bool,
    pub partial_bytes: u64,
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
pub struct CheckpointEntryLine<'a> {
    pub file: &'a str,
    pub topic: &'a str,
    pub partition: i32,
    pub offset: i64,
}

#[derive(Serialize)]
pub struct LeaderEpochEntryLine<'a> {
    pub file: &'a str,
    pub epoch: i32,
    pub start_offset: i64,
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

#[derive(Serialize)]
pub struct NoteLine<'a> {
    pub file: &'a str,
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

#[derive(Serialize)]
pub struct ChangeLine {
    pub op: &'static str,
    pub file: String,
    pub size_before: Option<u64>,
    pub size_after: Option<u64>,
    pub why: String,
}

/// One reported fact.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line<'a> {
    File(FileLine<'a>),
    Batch(BatchLine<'a>),
    Record(RecordLine<'a>),
    IndexEntry(IndexEntryLine<'a>),
    TimeIndexEntry(TimeIndexEntryLine<'a>),
    TxnIndexEntry(TxnIndexEntryLine<'a>),
    IndexTail(IndexTailLine<'a>),
    ProducerState(ProducerStateLine<'a>),
    CheckpointEntry(CheckpointEntryLine<'a>),
    LeaderEpochEntry(LeaderEpochEntryLine<'a>),
    PartitionMetadata(PartitionMetadataLine<'a>),
    MetaProperties(PropertiesLine<'a>),
    QuorumState(JsonFileLine<'a>),
    CleanShutdown(JsonFileLine<'a>),
    Error(ErrorLine<'a>),
    Note(NoteLine<'a>),
    Change(ChangeLine),
    Warning(NoteLine<'a>),
    Summary(SummaryLine),
}

/// Whether serde_json escapes `b` in a string (`"`, `\`, controls).
#[inline(always)]
fn json_escaped(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Whether any of the 8 bytes of `x` is one [`json_escaped`] names (SWAR:
/// a byte below 0x20, or equal to `"` or `\`; exact, no false positives).
#[inline(always)]
fn any_escaped(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = x.wrapping_sub(ONES.wrapping_mul(0x20)) & !x & HIGH;
    (below_space | has_zero(x ^ ONES.wrapping_mul(u64::from(b'"'))) | has_zero(x ^ ONES.wrapping_mul(u64::from(b'\\'))))
        != 0
}

/// `s` as a JSON string, escaped exactly as serde_json escapes it (its
/// `ESCAPE` table: the short escapes, else `\u00xx`); clean 8-byte runs are
/// copied whole.
fn json_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let b = s.as_bytes();
    out.push(b'"');
    let (mut run, mut i) = (0usize, 0usize);
    while i < b.len() {
        if let Some(chunk) = b.get(i..i.saturating_add(8))
            && !any_escaped(u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])))
        {
            i = i.saturating_add(8);
            continue;
        }
        let c = b.get(i).copied().unwrap_or(0);
        if json_escaped(c) {
            out.extend_from_slice(b.get(run..i).unwrap_or_default());
            match c {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                0x08 => out.extend_from_slice(b"\\b"),
                0x0c => out.extend_from_slice(b"\\f"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                _ => out.extend_from_slice(&[
                    b'\\',
                    b'u',
                    b'0',
                    b'0',
                    HEX[usize::from(c >> 4)],
                    HEX[usize::from(c & 0xf)],
                ]),
            }
            run = i.saturating_add(1);
        }
        i = i.saturating_add(1);
    }
    out.extend_from_slice(b.get(run..).unwrap_or_default());
    out.push(b'"');
}

fn json_field(out: &mut Vec<u8>, name: &str, f: &Field<'_>) {
    match f {
        Field::Absent => {}
        Field::Null => {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":null");
        }
        Field::Text(t) => {
            out.extend_from_slice(b",\"");
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b"\":");
            json_str(out, t);
        }
    }
}

fn json_int(out: &mut Vec<u8>, name: &str, v: impl itoa::Integer) {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// A record line as serde writes `Line::Record` (the `type` tag, then the
/// fields in order, skipped ones left out), and its newline.
/// `file` as a JSON string, escaped once for all the records of a file.
#[derive(Default)]
struct FileName {
    name: Option<String>,
    json: Vec<u8>,
}

fn record_json(out: &mut Vec<u8>, file: &mut FileName, r: &RecordLine<'_>) -> io::Result<()> {
    out.extend_from_slice(b"{\"type\":\"record\",\"file\":");
    if file.name.as_deref() != Some(r.file) {
        file.name = Some(r.file.to_string());
        file.json.clear();
        json_str(&mut file.json, r.file);
    }
    out.extend_from_slice(&file.json);
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

impl<W: Write> Drop for Output<W> {
    fn drop(&mut self) {
        let _ = self.flush_json();
    }
}

/// Record lines are written out in chunks of about this many bytes.
const JSON_CHUNK: usize = 256 << 10;

/// Where lines go.
pub struct Output<W: Write> {
    out: W,
    format: Format,
    table: TableState,
    /// Record lines not written yet (at most about [`JSON_CHUNK`]).
    json: Vec<u8>,
    json_file: FileName,
}

#[derive(Default)]
struct TableState {
    header: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl<W: Write> Output<W> {
    pub fn new(out: W, format: Format) -> Output<W> {
        Output { out, format, table: TableState::default(), json: Vec::new(), json_file: FileName::default() }
    }

    pub fn emit(&mut self, line: &Line<'_>) -> io::Result<()> {
        match self.format {
            Format::Json => {
                if let Line::Record(r) = line {
                    // the hot line: written directly (the same bytes serde
                    // writes), many at a time
                    record_json(&mut self.json, &mut self.json_file, r)?;
                    if self.json.len() >= JSON_CHUNK {
                        self.flush_json()?;
                    }
                    return Ok(());
                }
                self.flush_json()?;
                self.write_out(|out| {
                    serde_json::to_writer(&mut *out, line).map_err(io::Error::from)?;
                    out.write_all(b"\n")
                })
            }
            Format::Table => self.table_line(line),
        }
    }

    /// A line that renders itself ([`logfmt::report::Report`]): its serde
    /// form with `type` first, or a row under its columns.
    pub fn report<R: Report>(&mut self, r: &R) -> io::Result<()> {
        match self.format {
            Format::Json => {
                self.flush_json()?;
                let body = serde_json::to_vec(r).map_err(io::Error::from)?;
                self.write_out(|out| {
                    write!(out, "{{\"type\":\"{}\"", R::TYPE)?;
                    match body.strip_prefix(b"{") {
                        Some(rest) if rest != b"}" => {
                            out.write_all(b",")?;
                            out.write_all(rest)?;
                        }
                        _ => out.write_all(b"}")?,
                    }
                    out.write_all(b"\n")
                })
            }
            Format::Table => match r.show() {
                Shown::Text(t) => self.text(&t),
                Shown::Row(columns, mut cells) => {
                    // severities in colour (when asked)
                    if let Some(i) = columns.iter().position(|c| *c == "SEVERITY")
                        && let Some(cell) = cells.get_mut(i)
                    {
                        *cell = severity(cell);
                    }
                    self.row(columns, cells)
                }
            },
        }
    }

    /// Free text between tables (charts in the terminal); nothing in JSON.
    pub fn prose(&mut self, s: &str) -> io::Result<()> {
        match self.format {
            Format::Json => Ok(()),
            Format::Table => self.text(s),
        }
    }

    /// Record lines held back go out now (also on drop).
    fn flush_json(&mut self) -> io::Result<()> {
        let json = std::mem::take(&mut self.json);
        let r = self.write_out(|out| out.write_all(&json));
        self.json = json;
        self.json.clear();
        r
    }

    /// Write to the output; with a progress bar on the screen, around it
    /// (cleared, written, flushed, drawn again).
    fn write_out(&mut self, f: impl FnOnce(&mut W) -> io::Result<()>) -> io::Result<()> {
        let out = &mut self.out;
        crate::progress::suspend(|bar| {
            f(out)?;
            if bar { out.flush() } else { Ok(()) }
        })
    }

    pub fn finish(&mut self) -> io::Result<()> {
        self.flush_json()?;
        self.flush_table()?;
        self.out.flush()
    }

    fn flush_table(&mut self) -> io::Result<()> {
        if self.table.rows.is_empty() {
            return Ok(());
        }
        let mut b = Builder::default();
        b.push_record(self.table.header.iter().map(|s| s.to_string()));
        for row in self.table.rows.drain(..) {
            b.push_record(row);
        }
        let mut t = b.build();
        t.with(Style::sharp());
        if self.table.header.last() == Some(&"MESSAGE") {
            let last = self.table.header.len() - 1;
            t.with(Modify::new(Columns::one(last)).with(Width::wrap(70).keep_words(true)));
            t.with(Modify::new(Columns::one(2)).with(Width::wrap(50)));
        }
        self.write_out(|out| writeln!(out, "{t}"))
    }

    fn row(&mut self, header: &[&'static str], row: Vec<String>) -> io::Result<()> {
        if self.table.header != header {
            self.flush_table()?;
            self.table.header = header.to_vec();
        }
        self.table.rows.push(row);
        if self.table.rows.len() >= TABLE_CHUNK {
            self.flush_table()?;
        }
        Ok(())
    }

    fn text(&mut self, s: &str) -> io::Result<()> {
        self.flush_table()?;
        self.write_out(|out| writeln!(out, "{s}"))
    }

    fn table_line(&mut self, line: &Line<'_>) -> io::Result<()> {
        const LOG: &[&str] =
            &["POSITION", "OFFSETS", "COUNT", "SIZE", "EPOCH", "CODEC", "TIME", "PRODUCER", "CRC", "FLAGS"];
        match line {
            Line::File(f) => {
                let mut s = format!("\n{} ({}, {} bytes", f.file, f.kind.replace('_', " "), f.size);
                if let Some(sfx) = f.suffix {
                    s.push_str(&format!(", .{sfx}"));
                }
                s.push(')');
                self.text(&s)
            }
            Line::Batch(b) => {
                let offsets = match b.base_offset {
                    Some(base) if base != b.last_offset => format!("{base}..{}", b.last_offset),
                    Some(base) => base.to_string(),
                    None => format!("?..{}", b.last_offset),
                };
                let producer = match (b.producer_id, b.base_sequence) {
                    (id, _) if id < 0 => "-".to_string(),
                    (id, seq) if seq < 0 => format!("{id} e{}", b.producer_epoch),
                    (id, seq) => format!("{id} e{} seq {seq}..{}", b.producer_epoch, b.last_sequence),
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
                let row = vec![
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
                ];
                self.row(LOG, row)
            }
            Line::Record(r) => {
                let mut detail = Vec::new();
                if let Some(c) = &r.control {
                    detail.push(format!("control {c}"));
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
                let row = vec![
                    String::new(),
                    format!("  {}", r.offset),
                    String::new(),
                    format!("{}/{}", r.key_size, r.value_size),
                    String::new(),
                    String::new(),
                    fmt_time(r.timestamp),
                    if r.sequence >= 0 { format!("seq {}", r.sequence) } else { String::new() },
                    String::new(),
                    detail.join(" "),
                ];
                self.row(LOG, row)
            }
            Line::IndexEntry(e) => {
                self.row(&["OFFSET", "POSITION"], vec![e.offset.to_string(), e.position.to_string()])
            }
            Line::TimeIndexEntry(e) => self.row(
                &["TIMESTAMP", "TIME", "OFFSET"],
                vec![e.timestamp.to_string(), fmt_time(e.timestamp), e.offset.to_string()],
            ),
            Line::TxnIndexEntry(e) => self.row(
                &["PRODUCER", "FIRST OFFSET", "LAST OFFSET", "LAST STABLE OFFSET"],
                vec![
                    e.producer_id.to_string(),
                    e.first_offset.to_string(),
                    e.last_offset.to_string(),
                    e.last_stable_offset.to_string(),
                ],
            ),
            Line::IndexTail(t) => {
                let what = if t.zeroed { "zero-filled (preallocated)" } else { "NOT zero: stale or garbage bytes" };
                let mut s = format!("  {} unused slot(s) from byte {}: {what}", t.slots, t.position);
                if t.partial_bytes > 0 {
                    s.push_str(&format!("; {} byte(s) after the last whole slot", t.partial_bytes));
                }
                self.text(&s)
            }
            Line::ProducerState(p) => self.row(
                &["PRODUCER", "EPOCH", "COORD EPOCH", "OPEN TXN FROM", "SEQUENCES", "LAST OFFSET", "LAST TIMESTAMP"],
                vec![
                    p.producer_id.to_string(),
                    p.producer_epoch.to_string(),
                    p.coordinator_epoch.to_string(),
                    p.current_txn_first_offset.map_or("-".into(), |o| o.to_string()),
                    match p.first_sequence {
                        Some(f) => format!("{f}..{}", p.last_sequence),
                        None => "-".into(),
                    },
                    p.last_offset.to_string(),
                    fmt_time(p.last_timestamp),
                ],
            ),
            Line::CheckpointEntry(c) => self.row(
                &["TOPIC", "PARTITION", "OFFSET"],
                vec![c.topic.to_string(), c.partition.to_string(), c.offset.to_string()],
            ),
            Line::LeaderEpochEntry(e) => {
                self.row(&["EPOCH", "START OFFSET"], vec![e.epoch.to_string(), e.start_offset.to_string()])
            }
            Line::PartitionMetadata(m) => {
                self.row(&["KEY", "VALUE"], vec!["version".into(), m.version.to_string()])?;
                self.row(&["KEY", "VALUE"], vec!["topic_id".into(), m.topic_id.clone()])
            }
            Line::MetaProperties(p) => {
                for (k, v) in &p.properties {
                    let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                    self.row(&["KEY", "VALUE"], vec![k.clone(), v])?;
                }
                Ok(())
            }
            Line::QuorumState(j) | Line::CleanShutdown(j) => self.text(&format!("  {}", j.content)),
            Line::Error(e) => {
                let at = match (e.position, e.end_position) {
                    (Some(p), Some(end)) => format!(" at bytes {p}..{end}"),
                    (Some(p), None) => format!(" at byte {p}"),
                    _ => String::new(),
                };
                self.text(&format!("  !! {}{at}: {}", e.kind, e.message))
            }
            Line::Note(n) => self.text(&format!("  note: {}: {}", n.file, n.message)),
            Line::Warning(n) => self.text(&format!("  WARNING: {}: {}", n.file, n.message)),
            Line::Change(c) => self.row(
                &["CHANGE", "FILE", "BYTES BEFORE", "BYTES AFTER", "WHY"],
                vec![
                    c.op.to_string(),
                    c.file.clone(),
                    c.size_before.map_or("-".into(), |n| n.to_string()),
                    c.size_after.map_or("-".into(), |n| n.to_string()),
                    c.why.clone(),
                ],
            ),
            Line::Summary(s) => self.text(&format!(
                "\n{} file(s), {} batch(es), {} record(s), {} byte(s); {} problem(s)",
                s.files, s.batches, s.records, s.bytes, s.problems
            )),
        }
    }
}

/// Whether tables are coloured (`--color`, set once at start).
static COLOR: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

pub fn set_color(on: bool) {
    COLOR.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// A severity, coloured when colour is on: error red, warning yellow.
fn severity(s: &str) -> String {
    if !COLOR.load(std::sync::atomic::Ordering::Relaxed) {
        return s.to_string();
    }
    match s {
        "error" => format!("\x1b[1;31m{s}\x1b[0m"),
        "warning" => format!("\x1b[33m{s}\x1b[0m"),
        _ => s.to_string(),
    }
}

/// Shorten long payloads in tables, and show control characters (which could
/// drive the terminal) as `.`, as hex dumps do.
/// A decoded internal record in one line: its type, its key's fields, then
/// its value's (nested lists as counts), e.g.
/// `OffsetCommit group=g topic=t partition=0 -> offset=68 leaderEpoch=-1 ...`.
pub fn decoded_text(d: &serde_json::Value) -> String {
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

pub fn clip(s: &str) -> Cow<'_, str> {
    const MAX: usize = 60;
    let long = s.chars().nth(MAX).is_some();
    if !long && !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut t: String = s.chars().take(MAX).map(|c| if c.is_control() { '.' } else { c }).collect();
    if long {
        t.push('…');
    }
    Cow::Owned(t)
}

/// Epoch milliseconds as an RFC 3339 UTC time; `-` for negative (no timestamp).
pub fn fmt_time(ms: i64) -> String {
    match jiff::Timestamp::from_millisecond(ms) {
        Ok(t) if ms >= 0 => t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string(),
        _ => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping() {
        assert_eq!(clip("short"), "short");
        assert_eq!(clip("a\nb\x1b[2J"), "a.b.[2J");
        assert_eq!(clip(&"x".repeat(70)).chars().count(), 61);
    }

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
            record_json(&mut ours, &mut FileName::default(), &r).unwrap();
            let mut theirs = serde_json::to_vec(&Line::Record(r)).unwrap();
            theirs.push(b'\n');
            assert_eq!(String::from_utf8(ours).unwrap(), String::from_utf8(theirs).unwrap());
        }
    }

    #[test]
    fn times() {
        assert_eq!(fmt_time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(fmt_time(1_795_319_478_692), "2026-11-22T03:51:18.692Z");
        assert_eq!(fmt_time(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(fmt_time(-1), "-");
    }
}
