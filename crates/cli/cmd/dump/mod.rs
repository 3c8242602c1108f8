//! `logtool dump`: print what files, partition dirs and log dirs hold.
//!
//! Paths are expanded (log dir → partition dirs → files, in the order
//! `logfmt::logdir` documents), then each file is dumped by kind. Damage is
//! reported as `error` lines with byte positions and the dump goes on: inside
//! a `.log` the reader resynchronises at the next valid batch, and every other
//! file is independent. Only the output failing stops the run.
//!
//! `--offsets` skips whole segments outside the range and seeks inside a
//! segment with its offset index (never scanning from the start when the index
//! is sound; when the index points at something that is not the batch it
//! claims, a note says so and the segment is read from its start).

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use base64::Engine;
use logfmt::batch::RecordBatch;
use logfmt::control::{self, ControlRecord};
use logfmt::dump::{Aborted, Selection, Work, is_segment_file, plan};
use logfmt::index::{self, IndexEntry, IndexKind, IndexReader};
use logfmt::internal::Decoder;
use logfmt::legacy::LegacyMessage;
use logfmt::log::{Entry, Item, LogReader};
use logfmt::logdir::{self, Target};
use logfmt::naming::{self, FileKind, FileName};
use logfmt::report::WithFile;
use logfmt::sanity::Bounds;
use logfmt::{Error, ErrorClass, Limits};

use clap::Args;

use crate::args::{Decode, FilterArgs, GlobalOpts, LimitArgs, OffsetRange, Payload, parse_offset_range, parse_size};
use crate::exit::Status;
use crate::output::{Field, NoteLine, Output};

mod lines;
use crate::progress::Progress;
use lines::*;

pub fn run(global: &GlobalOpts, args: &DumpArgs) -> anyhow::Result<Status> {
    let limits = args.limits.limits();
    if args.follow {
        return follow(global, args, &limits);
    }
    let mut work = Vec::new();
    let selection = Selection {
        offsets: args.offsets,
        since: args.filter.since,
        until: args.filter.until,
        aborted: args.filter.aborted,
    };
    for p in &args.paths {
        if (args.filter.since.is_some() || args.filter.until.is_some())
            && matches!(logdir::resolve(p), Ok(Target::File(_)))
        {
            anyhow::bail!(
                "{}: --since and --until take partition dirs or log dirs (they use the time indexes)",
                p.display()
            );
        }
        plan(p, &selection, &limits, &mut work);
    }
    let total: u64 = work.iter().map(|w| if let Work::File { size, .. } = w { *size } else { 0 }).sum();
    let progress = Progress::new(total, global.quiet);
    let out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut d = Dumper {
        out: Output::new(out, global.format),
        args,
        limits,
        scratch: Vec::new(),
        status: Status::Clean,
        summary: SummaryLine::default(),
        progress: &progress,
        decoder: None,
        range: None,
        aborted: None,
        redact: crate::redact::Redactor::from_args(&args.redact)?,
    };
    for w in work {
        match w {
            Work::File { path, size, explicit, next_base, range, aborted } => {
                d.range = range;
                d.aborted = aborted;
                d.file(&path, size, explicit, next_base)?
            }
            Work::Foreign(path) => {
                let file = path.display().to_string();
                let message =
                    "a directory that is not a partition (Kafka 3.9 refuses to start on a log dir holding one)".into();
                d.out.emit(&Line::Note(NoteLine { file: &file, message }))?;
            }
            Work::Failed { path, error } => {
                let file = path.display().to_string();
                d.error(&file, &error, None)?;
                // a path that could not be read at all: said where errors go too
                eprintln!("logtool: error: {error}");
            }
            Work::NoneInRange { dir, message } => {
                let file = dir.display().to_string();
                d.out.emit(&Line::Note(NoteLine { file: &file, message }))?;
            }
        }
    }
    progress.finish();
    let summary = d.summary;
    d.out.emit(&Line::Summary(summary))?;
    d.out.finish()?;
    Ok(d.status)
}

/// The decoder `--decode` asks for, for the segment or snapshot at `path`.
fn decoder_for(decode: Decode, path: &Path, name: &FileName) -> Option<Decoder> {
    match decode {
        Decode::None => None,
        Decode::ConsumerOffsets => Some(Decoder::ConsumerOffsets),
        Decode::TransactionState => Some(Decoder::TransactionState),
        Decode::ShareGroupState => Some(Decoder::ShareGroupState),
        Decode::ClusterMetadata => Some(Decoder::ClusterMetadata),
        Decode::Auto if name.kind == FileKind::KraftSnapshot => Some(Decoder::ClusterMetadata),
        Decode::Auto => {
            let dir = path.parent()?.file_name()?.to_str()?;
            Decoder::for_topic(&naming::parse_partition_dir(dir)?.topic)
        }
    }
}

fn encode<'a>(payload: Payload, redact: Option<&crate::redact::Redactor>, bytes: Option<&'a [u8]>) -> Field<'a> {
    match (payload, bytes) {
        (Payload::None, _) => Field::Absent,
        (_, Some(b)) if let Some(r) = redact => Field::Text(Cow::Owned(r.token(b))),
        (_, None) => Field::Null,
        // valid UTF-8 (the usual case) checked by the fast validator first
        (Payload::Utf8, Some(b)) => {
            Field::Text(std::str::from_utf8(b).map_or_else(|_| String::from_utf8_lossy(b), Cow::Borrowed))
        }
        (Payload::Hex, Some(b)) => Field::Text(Cow::Owned(hex(b))),
        (Payload::Base64, Some(b)) => Field::Text(Cow::Owned(base64::engine::general_purpose::STANDARD.encode(b))),
    }
}

fn hex(b: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(DIGITS[usize::from(x >> 4)] as char);
        s.push(DIGITS[usize::from(x & 0xf)] as char);
    }
    s
}

/// Control records as JSON (docs/json.md).
/// Whether a record of `b` satisfies `wanted` (records too large for
/// `--memory` are passed over; reading stops at the first match or error).
fn any_record(
    b: &RecordBatch<'_>,
    scratch: &mut Vec<u8>,
    limits: &logfmt::Limits,
    mut wanted: impl FnMut(&logfmt::batch::Record<'_>) -> bool,
) -> bool {
    let Ok(mut records) = b.records(scratch, limits) else { return false };
    while let Some(r) = records.next_record() {
        if r.is_ok_and(|r| wanted(&r)) {
            return true;
        }
    }
    false
}

fn control_json(c: &ControlRecord) -> serde_json::Value {
    use serde_json::json;
    match c {
        ControlRecord::EndTxn(m) => json!({
            "type": if m.commit { "commit" } else { "abort" },
            "version": m.version,
            "coordinator_epoch": m.coordinator_epoch,
        }),
        ControlRecord::LeaderChange(l) => json!({
            "type": "leader_change",
            "version": l.version,
            "leader_id": l.leader_id,
            "voters": l.voters,
            "granting_voters": l.granting_voters,
        }),
        ControlRecord::SnapshotHeader(h) => json!({
            "type": "snapshot_header",
            "version": h.version,
            "last_contained_log_timestamp": h.last_contained_log_timestamp,
        }),
        ControlRecord::SnapshotFooter(f) => json!({ "type": "snapshot_footer", "version": f.version }),
        ControlRecord::KRaftVersion(k) => json!({
            "type": "kraft_version",
            "version": k.version,
            "kraft_version": k.kraft_version,
        }),
        ControlRecord::KRaftVoters(v) => json!({
            "type": "kraft_voters",
            "version": v.version,
            "voters": v.voters.iter().map(|voter| json!({
                "voter_id": voter.voter_id,
                "voter_directory_id": logfmt::uuid::Uuid(voter.voter_directory_id).to_string(),
                "endpoints": voter.endpoints.iter().map(|e| json!({"name": e.name, "host": e.host, "port": e.port})).collect::<Vec<_>>(),
                "kraft_version_feature": {
                    "min_supported_version": voter.min_supported_version,
                    "max_supported_version": voter.max_supported_version,
                },
            })).collect::<Vec<_>>(),
        }),
        ControlRecord::Unknown { type_id } => json!({ "type": "unknown", "type_id": type_id }),
    }
}

struct Dumper<'a, W: Write> {
    out: Output<W>,
    args: &'a DumpArgs,
    limits: Limits,
    scratch: Vec<u8>,
    status: Status,
    summary: SummaryLine,
    progress: &'a Progress,
    /// The internal-topic decoder of the file being dumped.
    decoder: Option<Decoder>,
    /// The offsets to print in the file being dumped.
    range: Option<OffsetRange>,
    /// With `--aborted`: its partition's aborted transactions.
    aborted: Option<Aborted>,
    /// With `--redact`: payloads become tokens.
    redact: Option<crate::redact::Redactor>,
}

impl<W: Write> Dumper<'_, W> {
    /// Report an error: I/O errors (and what `--memory` could not hold) make
    /// the exit status 2, damage 1.
    fn error(&mut self, file: &str, e: &Error, end: Option<u64>) -> io::Result<()> {
        let class = e.class();
        let not_judged = matches!(class, ErrorClass::Io | ErrorClass::Memory);
        self.status = self.status.merge(if not_judged { Status::Error } else { Status::Problems });
        self.summary.problems += 1;
        let message = if class == ErrorClass::Io { e.to_string() } else { e.message() };
        self.out.emit(&Line::Error(ErrorLine {
            file,
            position: e.position(),
            end_position: end,
            kind: class.name(),
            field: None,
            message,
        }))
    }

    /// Report a damaged byte range `[start, end)` (the same range `verify`
    /// reports for the same bytes).
    fn damage(&mut self, file: &str, start: u64, end: u64, e: &Error) -> io::Result<()> {
        self.status = self.status.merge(Status::Problems);
        self.summary.problems += 1;
        self.out.emit(&Line::Error(ErrorLine {
            file,
            position: Some(start),
            end_position: Some(end),
            kind: e.class().name(),
            field: e.header_field().map(|f| f.kafka_name()),
            message: e.message(),
        }))
    }

    fn note(&mut self, file: &str, message: String) -> io::Result<()> {
        self.out.emit(&Line::Note(NoteLine { file, message }))
    }

    fn file(&mut self, path: &Path, size: u64, explicit: bool, next_base: Option<i64>) -> io::Result<()> {
        let file = path.display().to_string();
        let fname = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut name = naming::classify(&fname);
        // a segment under a name that is not Kafka's: read it as one
        let renamed_segment = name.kind == FileKind::Unknown && fname.ends_with(logfmt::spec::names::LOG_FILE_SUFFIX);
        if renamed_segment {
            name.kind = FileKind::Log;
        }
        if self.args.filter.active() && !matches!(name.kind, FileKind::Log | FileKind::KraftSnapshot) {
            // filters select records: only files that hold records are read
            self.progress.inc(size);
            return Ok(());
        }
        let base_offset = if is_segment_file(&name) { name.offset } else { None };
        self.out.emit(&Line::File(FileLine {
            file: &file,
            kind: name.kind.name(),
            size,
            base_offset,
            suffix: name.suffix.map(|s| s.name()),
        }))?;
        self.summary.files += 1;
        if renamed_segment {
            self.note(
                &file,
                "not a Kafka segment name (20 digits): read as a segment; its base offset is its first batch's".into(),
            )?;
        }
        match name.kind {
            FileKind::Log | FileKind::KraftSnapshot => self.log(path, &file, &name, next_base)?,
            FileKind::OffsetIndex => self.index(path, &file, IndexKind::Offset, name.offset.unwrap_or(0))?,
            FileKind::TimeIndex => self.index(path, &file, IndexKind::Time, name.offset.unwrap_or(0))?,
            FileKind::TxnIndex => self.index(path, &file, IndexKind::Txn, name.offset.unwrap_or(0))?,
            FileKind::ProducerSnapshot => self.snapshot(path, &file)?,
            k if k.is_offset_checkpoint() => self.offset_checkpoint(path, &file)?,
            FileKind::LeaderEpochCheckpoint => self.epochs(path, &file)?,
            FileKind::PartitionMetadata => self.partition_metadata(path, &file)?,
            FileKind::MetaProperties => self.meta_properties(path, &file)?,
            FileKind::QuorumState | FileKind::CleanShutdown => self.json_file(path, &file, name.kind)?,
            FileKind::Unknown if explicit => {
                // named on the command line: say it is not what was meant
                self.status = self.status.merge(Status::Error);
                self.summary.problems += 1;
                self.out.emit(&Line::Error(ErrorLine {
                    file: &file,
                    position: None,
                    end_position: None,
                    kind: "not_kafka",
                    field: None,
                    message: "not a file of a Kafka log dir (segment, index, snapshot, checkpoint, properties)".into(),
                }))?;
            }
            _ => {}
        }
        if !matches!(name.kind, FileKind::Log | FileKind::KraftSnapshot) {
            self.progress.inc(size);
        }
        Ok(())
    }

    fn log(&mut self, path: &Path, file: &str, name: &FileName, next_base: Option<i64>) -> io::Result<()> {
        self.decoder = decoder_for(self.args.decode, path, name);
        let mut reader = match LogReader::open(path, self.limits) {
            Ok(r) => r,
            Err(e) => return self.error(file, &e, None),
        };
        if name.kind == FileKind::Log && name.suffix.is_none() {
            // the offsets a live segment's batches must lie in
            reader.set_bounds(Bounds { base_offset: name.offset, next_base_offset: next_base });
        }
        let size = reader.end();
        if let Some(n) = self.args.max_bytes {
            reader.set_end(n);
        }
        let limited = reader.end() < size;
        let range = self.range;
        // Seek with the offset index: `expect` is the offset of the index entry used.
        let mut expect: Option<i64> = None;
        if let (Some(r), FileKind::Log, Some(base), None) = (range, name.kind, name.offset, name.suffix) {
            let idx = path.with_file_name(naming::segment_file_name(base, logfmt::spec::names::INDEX_FILE_SUFFIX));
            if idx.exists() {
                match index::lookup_offset(&idx, base, r.start) {
                    Ok(Some(e)) if e.position > 0 && (e.position as u64) < reader.end() => {
                        reader.seek(e.position as u64);
                        expect = Some(e.offset);
                    }
                    Ok(_) => {}
                    Err(e) => self.note(file, format!("offset index not usable ({e}); reading from the start"))?,
                }
            }
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut done_to = reader.position();
        loop {
            let mut restart = false;
            let mut stop = false;
            match reader.next_item() {
                Err(e) => {
                    self.error(file, &e, None)?;
                    break;
                }
                Ok(None) => break,
                Ok(Some(Item::Entry(entry))) => {
                    if let Some(expected) = expect.take()
                        && entry.last_offset() > expected
                    {
                        restart = true;
                    }
                    if !restart {
                        stop = self.entry(file, &entry, range, &mut scratch)?;
                    }
                }
                Ok(Some(Item::Damage(d))) => {
                    if expect.take().is_some() {
                        restart = true;
                    } else if d.truncated_tail && limited {
                        // --max-bytes cut a batch: not damage, as with kafka-dump-log
                        break;
                    } else {
                        self.damage(file, d.start, d.end, &d.error)?;
                        if d.truncated_tail {
                            self.note(
                                file,
                                format!(
                                    "{} byte(s) at the end of the file do not hold a whole batch: a torn write",
                                    d.end - d.start
                                ),
                            )?;
                        }
                    }
                }
            }
            if restart {
                self.note(
                    file,
                    "the offset index points at a batch that does not match it; reading from the start".into(),
                )?;
                reader.seek(0);
            }
            let pos = reader.position();
            self.progress.inc(pos.saturating_sub(done_to));
            self.summary.bytes_read += pos.saturating_sub(done_to);
            done_to = pos;
            if stop {
                break;
            }
        }
        self.progress.inc(size.saturating_sub(done_to));
        self.scratch = scratch;
        let grown = reader.grown_by();
        if grown > 0 && !limited {
            self.note(
                file,
                format!(
                    "the file grew by {grown} byte(s) while it was read (a live broker appending): read up to its size when opened, {size}"
                ),
            )?;
        }
        if limited {
            self.note(
                file,
                format!(
                    "--max-bytes: only the first {} of {size} byte(s) were read (and a batch is printed only when it lies whole in them)",
                    reader.end()
                ),
            )?;
        }
        Ok(())
    }

    /// Print one entry; returns true when the offset range is exhausted.
    fn entry(
        &mut self,
        file: &str,
        entry: &Entry<'_>,
        range: Option<OffsetRange>,
        scratch: &mut Vec<u8>,
    ) -> io::Result<bool> {
        match entry {
            Entry::V2(b) => self.batch(file, b, range, scratch),
            Entry::Legacy(m) => self.legacy(file, m, range, scratch),
        }
    }

    fn batch(
        &mut self,
        file: &str,
        b: &RecordBatch<'_>,
        range: Option<OffsetRange>,
        scratch: &mut Vec<u8>,
    ) -> io::Result<bool> {
        let h = *b.header();
        if let Some(r) = range {
            if h.base_offset >= r.end {
                return Ok(true);
            }
            if h.last_offset() < r.start {
                return Ok(false);
            }
        }
        let filter = &self.args.filter;
        if !filter.batch(h.producer_id, h.is_transactional()) {
            return Ok(false);
        }
        // --aborted: a data batch of a transaction; a record of it in an aborted range
        let aborted = self.aborted.clone();
        if filter.aborted && (aborted.is_none() || !h.is_transactional() || h.is_control()) {
            // (a file outside a partition dir has no aborted transactions)
            return Ok(false);
        }
        let filtering = filter.on_records() || aborted.is_some();
        // whether a record is printed (with a record filter)
        let wanted = |filter: &crate::args::FilterArgs, r: &logfmt::batch::Record<'_>| {
            range.is_none_or(|g| g.contains(r.offset))
                && aborted.as_ref().is_none_or(|a| a.contains(h.producer_id, r.offset))
                && filter.record(r.key, r.value, r.headers.iter().map(|hd| (hd.key, hd.value)))
        };
        // with a record filter, the batch is printed when one of its records
        // matches (a first read, which stops at the first match)
        if filtering && !any_record(b, scratch, &self.limits, |r| wanted(filter, r)) {
            return Ok(false);
        }
        let crc_valid = b.is_valid();
        self.summary.batches += 1;
        self.summary.bytes += b.size();
        self.out.emit(&Line::Batch(batch_line(file, b, crc_valid)))?;
        let batch_end = b.position() + b.size();
        if !crc_valid {
            let e = Error::at(
                b.position(),
                logfmt::ErrorKind::CrcMismatch { what: "record batch", stored: h.crc, computed: b.compute_crc() },
            );
            self.damage(file, b.position(), batch_end, &e)?;
        }
        let needs_records = self.args.deep || self.args.follow || filtering || h.compression().is_none();
        if !needs_records {
            self.summary.records += header_count(&h, range);
            return Ok(false);
        }
        let mut records = match b.records(scratch, &self.limits) {
            Ok(r) => r,
            Err(e) => {
                self.error(file, &e, Some(batch_end))?;
                return Ok(false);
            }
        };
        let payload = self.args.payload;
        while let Some(r) = records.next_record() {
            let rec = match r {
                Ok(rec) => rec,
                Err(e) => {
                    self.error(file, &e, Some(batch_end))?;
                    // (a record too large for --memory is skipped: the next follows)
                    continue;
                }
            };
            if range.is_some_and(|r| !r.contains(rec.offset)) || (filtering && !wanted(&self.args.filter, &rec)) {
                continue;
            }
            self.summary.records += 1;
            self.record(file, &h, b.position(), &rec, payload)?;
        }
        Ok(false)
    }

    /// A v2 record's line (its batch's header `h`, at `position`).
    fn record(
        &mut self,
        file: &str,
        h: &logfmt::batch::BatchHeader,
        position: u64,
        rec: &logfmt::batch::Record<'_>,
        payload: Payload,
    ) -> io::Result<()> {
        let control = if h.is_control() {
            match control::parse(rec, position) {
                Ok(c) => Some(control_json(&c)),
                Err(e) => {
                    self.error(file, &e, None)?;
                    None
                }
            }
        } else {
            None
        };
        let headers = rec
            .headers
            .iter()
            .map(|hd| HeaderOut {
                key: String::from_utf8_lossy(hd.key),
                value: encode(payload, self.redact.as_ref(), hd.value),
            })
            .collect();
        self.out.emit(&Line::Record(RecordLine {
            file,
            offset: rec.offset,
            timestamp: rec.timestamp,
            key_size: rec.key_size(),
            value_size: rec.value_size(),
            sequence: rec.sequence,
            key: encode(payload, self.redact.as_ref(), rec.key),
            value: encode(payload, self.redact.as_ref(), rec.value),
            headers,
            decoded: (!h.is_control() && self.redact.is_none())
                .then_some(self.decoder)
                .flatten()
                .map(|d| d.decode(rec.key, rec.value)),
            control,
            crc: None,
            crc_valid: None,
        }))?;
        Ok(())
    }

    fn legacy(
        &mut self,
        file: &str,
        m: &LegacyMessage<'_>,
        range: Option<OffsetRange>,
        scratch: &mut Vec<u8>,
    ) -> io::Result<bool> {
        let filter = &self.args.filter;
        if !filter.batch(-1, false) || filter.aborted {
            return Ok(false);
        }
        let filtering = filter.on_records();
        let wanted = |filter: &crate::args::FilterArgs, r: &logfmt::legacy::LegacyRecord<'_>| {
            range.is_none_or(|g| g.contains(r.offset))
                && filter.record(r.message.key, r.message.value, std::iter::empty())
        };
        if filtering {
            let mut any = false;
            if let Ok(mut records) = m.records(scratch, &self.limits) {
                while let Some(Ok(r)) = records.next_record() {
                    if wanted(filter, &r) {
                        any = true;
                        break;
                    }
                }
            }
            if !any {
                return Ok(false);
            }
        }
        let records = m.records(scratch, &self.limits);
        let (base_offset, count) = match &records {
            Ok(r) => (Some(r.base_offset()), Some(i64::from(r.record_count()))),
            Err(_) => (None, None),
        };
        if let Some(r) = range {
            if base_offset.unwrap_or(m.offset) >= r.end {
                return Ok(true);
            }
            if m.offset < r.start {
                return Ok(false);
            }
        }
        let crc_valid = m.is_valid();
        self.summary.batches += 1;
        self.summary.bytes += m.size_in_bytes();
        self.out.emit(&Line::Batch(legacy_line(file, m, base_offset, count, crc_valid)))?;
        if !crc_valid {
            let e = Error::at(
                m.position(),
                logfmt::ErrorKind::CrcMismatch { what: "message", stored: m.crc, computed: m.compute_crc() },
            );
            self.damage(file, m.position(), m.position() + m.size_in_bytes(), &e)?;
        }
        let records = match records {
            Ok(r) => r,
            Err(e) => {
                self.error(file, &e, None)?;
                return Ok(false);
            }
        };
        if !self.args.deep && !filtering {
            return Ok(false);
        }
        let mut records = records;
        let payload = self.args.payload;
        while let Some(r) = records.next_record() {
            let rec = match r {
                Ok(rec) => rec,
                Err(e) => {
                    self.error(file, &e, None)?;
                    break;
                }
            };
            if range.is_some_and(|r| !r.contains(rec.offset)) || (filtering && !wanted(&self.args.filter, &rec)) {
                continue;
            }
            self.summary.records += 1;
            let msg = rec.message;
            let valid = msg.is_valid();
            if !valid {
                let e = Error::malformed(
                    m.position(),
                    "message",
                    format!(
                        "inner message at offset {} has a bad CRC (stored {}, computed {})",
                        rec.offset,
                        msg.crc,
                        msg.compute_crc()
                    ),
                );
                self.error(file, &e, None)?;
            }
            self.out.emit(&Line::Record(RecordLine {
                file,
                offset: rec.offset,
                timestamp: rec.timestamp,
                key_size: msg.key_size(),
                value_size: msg.value_size(),
                sequence: -1,
                key: encode(payload, self.redact.as_ref(), msg.key),
                value: encode(payload, self.redact.as_ref(), msg.value),
                headers: Vec::new(),
                control: None,
                decoded: None,
                crc: Some(msg.crc),
                crc_valid: Some(valid),
            }))?;
        }
        Ok(false)
    }

    fn index(&mut self, path: &Path, file: &str, kind: IndexKind, base: i64) -> io::Result<()> {
        let mut r = match IndexReader::open(path, kind, base) {
            Ok(r) => r,
            Err(e) => return self.error(file, &e, None),
        };
        let range = self.range;
        let keep = |first: i64, last: i64| range.is_none_or(|r| r.overlaps(first, last));
        for e in r.by_ref() {
            match e {
                Ok(IndexEntry::Offset(e)) if keep(e.offset, e.offset) => {
                    self.out.emit(&Line::IndexEntry(WithFile { file, item: e }))?
                }
                Ok(IndexEntry::Time(e)) if keep(e.offset, e.offset) => {
                    self.out.emit(&Line::TimeIndexEntry(WithFile { file, item: e }))?
                }
                Ok(IndexEntry::Txn(e)) if keep(e.first_offset, e.last_offset) => {
                    self.out.emit(&Line::TxnIndexEntry(WithFile { file, item: e }))?
                }
                Ok(_) => {}
                Err(e) => self.error(file, &e, None)?,
            }
        }
        if let Some(t) = r.tail().copied() {
            if t.slots > 0 || t.partial_bytes > 0 {
                self.out.emit(&Line::IndexTail(WithFile { file, item: t }))?;
            }
            if !t.zeroed {
                let e =
                    Error::malformed(t.position, "index", format!("{} unused slot(s) hold non-zero bytes", t.slots));
                self.error(file, &e, None)?;
            }
            if t.partial_bytes > 0 {
                let at = t.position + t.slots * kind.entry_size() as u64;
                let e = Error::at(
                    at,
                    logfmt::ErrorKind::TrailingBytes { what: "last whole index entry", bytes: t.partial_bytes },
                );
                self.error(file, &e, None)?;
            }
        }
        Ok(())
    }

    fn snapshot(&mut self, path: &Path, file: &str) -> io::Result<()> {
        let s = match logfmt::snapshot::read(path, &self.limits) {
            Ok(s) => s,
            Err(e) => return self.error(file, &e, None),
        };
        for p in &s.entries {
            self.out.emit(&Line::ProducerState(ProducerStateLine {
                file,
                producer_id: p.producer_id,
                producer_epoch: p.producer_epoch,
                coordinator_epoch: p.coordinator_epoch,
                current_txn_first_offset: p.open_transaction(),
                first_sequence: p.first_sequence(),
                last_sequence: p.last_sequence,
                last_offset: p.last_offset,
                offset_delta: p.offset_delta,
                last_timestamp: p.timestamp,
            }))?;
        }
        if !s.crc_valid() {
            let e = Error::at(
                logfmt::spec::snapshot::CRC_OFFSET as u64,
                logfmt::ErrorKind::CrcMismatch { what: "producer snapshot", stored: s.crc, computed: s.computed_crc },
            );
            self.error(file, &e, None)?;
        }
        if s.trailing_bytes > 0 {
            self.note(
                file,
                format!("{} byte(s) after the last producer entry (Kafka ignores them)", s.trailing_bytes),
            )?;
        }
        Ok(())
    }

    fn offset_checkpoint(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::checkpoint::read_offsets(path, &self.limits) {
            Ok(c) => {
                for (_, e) in &c.entries {
                    self.out.emit(&Line::CheckpointEntry(WithFile { file, item: e }))?;
                }
                Ok(())
            }
            Err(e) => self.error(file, &e, None),
        }
    }

    fn epochs(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::checkpoint::read_epochs(path, &self.limits) {
            Ok(c) => {
                for (_, e) in &c.entries {
                    self.out.emit(&Line::LeaderEpochEntry(WithFile { file, item: *e }))?;
                }
                Ok(())
            }
            Err(e) => self.error(file, &e, None),
        }
    }

    fn partition_metadata(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::properties::read_partition_metadata(path, &self.limits) {
            Ok(m) => self.out.emit(&Line::PartitionMetadata(PartitionMetadataLine {
                file,
                version: m.version,
                topic_id: m.topic_id.to_string(),
            })),
            Err(e) => self.error(file, &e, None),
        }
    }

    fn meta_properties(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::properties::read_meta_properties(path, &self.limits) {
            Ok(props) => {
                let properties = props.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect();
                self.out.emit(&Line::MetaProperties(PropertiesLine { file, properties }))
            }
            Err(e) => self.error(file, &e, None),
        }
    }

    fn json_file(&mut self, path: &Path, file: &str, kind: FileKind) -> io::Result<()> {
        let bytes = match logfmt::read_bounded(path, self.limits.max_text_file_size, "JSON state file") {
            Ok(b) => b,
            Err(e) => return self.error(file, &e, None),
        };
        match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(content) => {
                let line = JsonFileLine { file, content };
                self.out.emit(&if kind == FileKind::QuorumState {
                    Line::QuorumState(line)
                } else {
                    Line::CleanShutdown(line)
                })
            }
            Err(err) => {
                let e = Error::malformed(0, "JSON state file", err.to_string());
                self.error(file, &e, None)
            }
        }
    }
}

/// `dump --follow PARTITION`: the records appended from now on (or from
/// `--offsets`' start), across segment rolls, until interrupted. A batch
/// still being written (a torn tail at the end of the active segment) is
/// waited for, not reported.
fn follow(global: &GlobalOpts, args: &DumpArgs, limits: &Limits) -> anyhow::Result<Status> {
    let [dir] = args.paths.as_slice() else { anyhow::bail!("--follow takes one partition dir") };
    if !matches!(logdir::resolve(dir)?, Target::PartitionDir(_)) {
        anyhow::bail!("{}: --follow takes a partition dir", dir.display());
    }
    // the live segments by base offset (a directory listing: polled often)
    let segments = |dir: &Path| -> anyhow::Result<Vec<(i64, PathBuf)>> {
        let mut segs: Vec<(i64, PathBuf)> = logdir::partition_files(dir)?
            .into_iter()
            .filter_map(|f| {
                let name = naming::classify(f.file_name()?.to_str()?);
                let base = name.offset.filter(|_| name.kind == FileKind::Log && name.suffix.is_none())?;
                Some((base, f))
            })
            .collect();
        segs.sort_by_key(|(base, _)| *base);
        Ok(segs)
    };
    let poll = std::time::Duration::from_millis(args.poll_ms.max(1));
    let progress = Progress::new(0, true);
    let out = BufWriter::with_capacity(1 << 16, io::stdout().lock());
    let mut d = Dumper {
        out: Output::new(out, global.format),
        args,
        limits: *limits,
        scratch: Vec::new(),
        status: Status::Clean,
        summary: SummaryLine::default(),
        progress: &progress,
        decoder: None,
        range: args.offsets,
        aborted: None,
        redact: crate::redact::Redactor::from_args(&args.redact)?,
    };
    // where to start: the segment holding --offsets' start, or the log end
    let mut segs = segments(dir)?;
    let start = args.offsets.map(|r| r.start);
    let first = match start {
        Some(o) => segs.iter().rposition(|(base, _)| *base <= o).unwrap_or(0),
        None => segs.len().saturating_sub(1),
    };
    let Some((mut base, mut path)) = segs.get(first).cloned() else {
        anyhow::bail!("{}: no segment to follow", dir.display())
    };
    let mut reader = LogReader::open_segment(&path, *limits, None)?;
    let mut scratch = Vec::new();
    if start.is_none() {
        // from the log end: past every whole batch there now
        loop {
            match reader.next_item()? {
                Some(Item::Entry(_)) => {}
                Some(Item::Damage(dm)) if dm.truncated_tail => {
                    reader.seek(dm.start);
                    break;
                }
                Some(Item::Damage(_)) => {}
                None => break,
            }
        }
        d.note(&path.display().to_string(), format!("following from byte {}", reader.position()))?;
    }
    d.out.finish()?;
    let mut stalled = 0u32;
    loop {
        let file = path.display().to_string();
        match reader.next_item()? {
            Some(Item::Entry(e)) => {
                d.entry(&file, &e, d.range, &mut scratch)?;
                continue;
            }
            Some(Item::Damage(dm)) if dm.truncated_tail => {
                // being written: wait for the rest
                reader.seek(dm.start);
            }
            Some(Item::Damage(dm)) => {
                d.damage(&file, dm.start, dm.end, &dm.error)?;
                continue;
            }
            None => {}
        }
        d.out.finish()?;
        // at the end of what is there: more in this segment, or a roll
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        if len > reader.end() {
            reader.grow_end(len);
            continue;
        }
        segs = segments(dir)?;
        if let Some((next_base, next)) = segs.iter().find(|(b, _)| *b > base).cloned() {
            // rolled: this segment is complete once nothing more came (a
            // batch left unfinished for ten polls is damage)
            stalled = if reader.position() < len { stalled.saturating_add(1) } else { 0 };
            if stalled > 10 {
                let e = Error::truncated(reader.position(), "record batch", 0);
                d.damage(&file, reader.position(), len, &e)?;
                stalled = 0;
                reader.seek(len);
            }
            if reader.position() >= len {
                d.note(&next.display().to_string(), format!("rolled: following segment {next_base}"))?;
                base = next_base;
                path = next;
                reader = LogReader::open_segment(&path, *limits, None)?;
                continue;
            }
        }
        std::thread::sleep(poll);
    }
}

#[derive(Args, Debug)]
pub struct DumpArgs {
    /// Files or directories to dump.
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Also print every record of every batch.
    #[arg(long)]
    pub deep: bool,
    /// Follow one partition dir like `tail -f`: print the records a broker appends
    /// from now on (implies --deep), across segment rolls, until interrupted.
    /// With --offsets, from its start instead of the log end.
    #[arg(long, conflicts_with = "max_bytes")]
    pub follow: bool,
    /// With --follow: how often to look for new data, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 200, requires = "follow", hide_short_help = true)]
    pub poll_ms: u64,
    /// How to print keys, values and header values (utf8 is lossy: invalid bytes become U+FFFD).
    #[arg(long, value_enum, default_value_t = Payload::Utf8)]
    pub payload: Payload,
    /// Decode the records of Kafka's internal topics (auto: by topic name; KRaft .checkpoint
    /// files are cluster metadata). The decoded record is a `decoded` object in JSON.
    #[arg(long, value_enum, default_value_t = Decode::Auto)]
    pub decode: Decode,
    /// Only offsets in this range: FIRST-LAST (both included, as ranges are
    /// printed), A..B (B excluded), A.., ..B, or one offset A.
    /// Segments outside it are skipped and the offset index is used to seek.
    #[arg(long, value_name = "RANGE", value_parser = parse_offset_range)]
    pub offsets: Option<OffsetRange>,
    /// Only read batches lying entirely within the first N bytes of each .log
    /// (like kafka-dump-log's --max-bytes). Suffixes K, M, G (powers of 1024).
    #[arg(long, value_name = "N", value_parser = parse_size)]
    pub max_bytes: Option<u64>,
    #[command(flatten)]
    pub filter: FilterArgs,
    #[command(flatten)]
    pub redact: crate::redact::RedactArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// A v2 batch's line.
fn batch_line<'a>(file: &'a str, b: &RecordBatch<'_>, crc_valid: bool) -> BatchLine<'a> {
    let h = *b.header();
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

/// Records of a batch counted from its header (within `range`, its offsets
/// there, at most its count): when the records are not read.
fn header_count(h: &logfmt::batch::BatchHeader, range: Option<OffsetRange>) -> u64 {
    let count = u64::try_from(h.records_count).unwrap_or(0);
    match range {
        None => count,
        Some(r) => {
            let from = r.start.max(h.base_offset);
            let to = r.end.saturating_sub(1).min(h.last_offset());
            u64::try_from(to.saturating_sub(from).saturating_add(1)).unwrap_or(0).min(count)
        }
    }
}

/// A v0/v1 message's line (a wrapper's `base_offset` and `count` when its
/// inner messages were read).
fn legacy_line<'a>(
    file: &'a str,
    m: &LegacyMessage<'_>,
    base_offset: Option<i64>,
    count: Option<i64>,
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
