//! The walk of a dump: each planned [`Work`] read by its file's kind and
//! told to a [`Visit`] as typed items, through the caller's filter.
//!
//! Damage is an `error` item with byte positions and the walk goes on:
//! inside a `.log` the reader resynchronises at the next valid batch, and
//! every other file is independent. Only the visitor failing (its output
//! closed) stops it. A range of offsets seeks inside a segment with its
//! offset index (never scanning from the start when the index is sound;
//! when the index points at something that is not the batch it claims, a
//! note says so and the segment is read from its start).
//!
//! A visitor that can tell lines on other threads ([`Visit::part`]) gets a
//! segment's whole uncompressed batches told by parts on every core, each
//! a contiguous share of a slab, and their lines written in file order:
//! the same lines as one thread tells.
//!
//! Invariants: records are borrowed from the reader (nothing is copied to
//! tell a record); memory is the reader's, one batch's decompression
//! scratch (both under [`Limits`]) and, told in parts, the lines of one run
//! of batches (at most [`PARTS_OUTPUT`] by a bound on what they can print).

use std::io;
use std::path::Path;

use super::lines::{
    BatchLine, ErrorLine, FileLine, Item, JsonFileLine, PartitionMetadataLine, ProducerStateLine, PropertiesLine,
    RecordItem, SummaryLine,
};
use super::{Aborted, OffsetRange, Work, is_segment_file};
use logfmt::batch::{BatchHeader, Headers, Record, RecordBatch};
use logfmt::compression::Compression;
use logfmt::control;
use logfmt::error::{Error, ErrorClass, ErrorKind};
use logfmt::index::{self, IndexEntry, IndexKind, IndexReader};
use logfmt::legacy::{LegacyMessage, LegacyRecord};
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item as LogItem, LogReader, Slab, SlabItem};
use logfmt::naming::{self, FileKind, FileName};
use logfmt::report::{NoteLine, WithFile};
use logfmt::sanity::Bounds;
use logrules::internal::Decoder;

/// Which internal-topic decoder reads records (`--decode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Decode {
    /// None.
    None,
    /// By the partition's topic; KRaft `.checkpoint` files are cluster metadata.
    #[default]
    Auto,
    /// `__consumer_offsets`' records.
    ConsumerOffsets,
    /// `__transaction_state`'s records.
    TransactionState,
    /// `__share_group_state`'s records.
    ShareGroupState,
    /// `__cluster_metadata`'s records.
    ClusterMetadata,
    /// `__remote_log_metadata`'s records (tiered storage).
    RemoteLogMetadata,
}

impl Decode {
    /// The decoder for the segment or snapshot at `path` named `name`.
    fn decoder(self, path: &Path, name: &FileName) -> Option<Decoder> {
        match self {
            Decode::None => None,
            Decode::ConsumerOffsets => Some(Decoder::ConsumerOffsets),
            Decode::TransactionState => Some(Decoder::TransactionState),
            Decode::ShareGroupState => Some(Decoder::ShareGroupState),
            Decode::ClusterMetadata => Some(Decoder::ClusterMetadata),
            Decode::RemoteLogMetadata => Some(Decoder::RemoteLogMetadata),
            Decode::Auto if name.kind == FileKind::KraftSnapshot => Some(Decoder::ClusterMetadata),
            Decode::Auto => {
                let dir = path.parent()?.file_name()?.to_str()?;
                Decoder::for_topic(&naming::parse_partition_dir(dir)?.topic)
            }
        }
    }
}

/// What the walk is asked to do.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// The memory limits reading obeys.
    pub limits: Limits,
    /// Every record of every batch is told (`--deep`, `--follow`); without
    /// it, only the records of uncompressed batches and of filtered ones.
    pub deep: bool,
    /// Only batches lying whole within the first N bytes of each `.log`.
    pub max_bytes: Option<u64>,
    /// The internal-topic decoder.
    pub decode: Decode,
    /// Some filter is given: only files that hold records are read.
    pub records_only: bool,
    /// `--aborted`: only data records of aborted transactions.
    pub aborted_only: bool,
}

/// What selects batches and records (all must hold).
pub trait RecordFilter: Sync {
    /// Whether a filter on records (not only on batches) is given.
    fn on_records(&self) -> bool;
    /// Whether a batch with this producer id and transactional flag may
    /// hold what is asked (legacy messages: -1, not transactional).
    fn batch(&self, producer_id: i64, transactional: bool) -> bool;
    /// Whether a record matches.
    fn record<'h>(
        &self,
        key: Option<&[u8]>,
        value: Option<&[u8]>,
        headers: &mut dyn Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
    ) -> bool;
}

/// No filter.
pub struct NoFilter;

impl RecordFilter for NoFilter {
    fn on_records(&self) -> bool {
        false
    }
    fn batch(&self, _: i64, _: bool) -> bool {
        true
    }
    fn record<'h>(
        &self,
        _: Option<&[u8]>,
        _: Option<&[u8]>,
        _: &mut dyn Iterator<Item = (&'h [u8], Option<&'h [u8]>)>,
    ) -> bool {
        true
    }
}

/// Where the walk's items go.
pub trait Visit {
    /// An item (everything but records).
    fn item(&mut self, item: &Item<'_>) -> io::Result<()>;
    /// A record.
    fn record(&mut self, record: &RecordItem<'_>) -> io::Result<()>;
    /// `bytes` more of the planned files' bytes are done.
    fn progress(&mut self, _bytes: u64) {}
    /// A path given could not be read at all (after its `error` item).
    fn unreadable(&mut self, _error: &Error) {}
    /// The walk waits (`follow`): what was told should be seen now.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
    /// A visitor of this one's kind to tell lines on another thread, their
    /// bytes written later with [`Visit::append`]; `None` (the default):
    /// this visitor is told everything itself, in order.
    fn part(&self) -> Option<Box<dyn Part + '_>> {
        None
    }
    /// Write what a [`Visit::part`] was told ([`Part::into_bytes`]), in
    /// file order (the buffer may be kept for a later part).
    fn append(&mut self, _bytes: Vec<u8>) -> io::Result<()> {
        Ok(())
    }
}

/// A [`Visit`] told on another thread, whose lines are written later.
pub trait Part: Visit + Send {
    /// What it was told, as its visitor writes it.
    fn into_bytes(self: Box<Self>) -> Vec<u8>;
}

impl Visit for Box<dyn Part + '_> {
    fn item(&mut self, item: &Item<'_>) -> io::Result<()> {
        (**self).item(item)
    }
    fn record(&mut self, record: &RecordItem<'_>) -> io::Result<()> {
        (**self).record(record)
    }
}

/// The most a run of batches told in parts can print, by its bound: 32
/// bytes for every byte of the batches (a byte escaped is six, `\u00XX`; a
/// header of two bytes, an empty key and value, prints as 25, or 48 with
/// its value redacted), each record 256 bytes besides and its file name
/// (the record line's fields). What the parts hold before it is written.
const PARTS_OUTPUT: u64 = 16 << 20;

/// Bytes of output a byte of a batch told in parts prints at most (see
/// [`PARTS_OUTPUT`]).
const PARTS_PER_BYTE: u64 = 32;

/// Larger batches are told by the walk's own thread (a run of them would
/// be a few batches).
const PARTS_MAX_BATCH: u64 = 1 << 20;

/// What the items told amount to (the exit status's basis).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Outcome {
    /// Nothing wrong.
    #[default]
    Clean,
    /// Damage found.
    Problems,
    /// Something could not be judged: unreadable, over the memory budget,
    /// or not a Kafka file.
    NotJudged,
}

/// A dump in progress: [`Walk::work`] each planned item, then [`Walk::finish`].
pub struct Walk<'a, F: RecordFilter + ?Sized, V: Visit> {
    pub(super) opts: Options,
    filter: &'a F,
    pub(super) sink: V,
    scratch: Vec<u8>,
    outcome: Outcome,
    summary: SummaryLine,
    /// The internal-topic decoder of the file being dumped.
    decoder: Option<Decoder>,
    /// The offsets to tell of the file being dumped.
    range: Option<OffsetRange>,
    /// With `--aborted`: its partition's aborted transactions.
    aborted: Option<Aborted>,
}

impl<'a, F: RecordFilter + ?Sized, V: Visit> Walk<'a, F, V> {
    /// A walk telling `sink`.
    pub fn new(opts: Options, filter: &'a F, sink: V) -> Self {
        Walk {
            opts,
            filter,
            sink,
            scratch: Vec::new(),
            outcome: Outcome::Clean,
            summary: SummaryLine::default(),
            decoder: None,
            range: None,
            aborted: None,
        }
    }

    /// Dump one planned item.
    pub fn work(&mut self, w: Work) -> io::Result<()> {
        match w {
            Work::File { path, size, explicit, next_base, range, aborted } => {
                self.range = range;
                self.aborted = aborted;
                self.file(&path, size, explicit, next_base)
            }
            Work::Foreign(path) => {
                let message =
                    "a directory that is not a partition (Kafka 3.9 refuses to start on a log dir holding one)".into();
                self.note(&path.display().to_string(), message)
            }
            Work::Failed { path, error } => {
                self.error(&path.display().to_string(), &error, None)?;
                self.sink.unreadable(&error);
                Ok(())
            }
            Work::Note { dir, message } => self.note(&dir.display().to_string(), message),
        }
    }

    /// Tell the summary; what the walk amounts to, and the visitor.
    pub fn finish(mut self) -> io::Result<(Outcome, V)> {
        let summary = self.summary;
        self.sink.item(&Item::Summary(summary))?;
        Ok((self.outcome, self.sink))
    }

    fn judged(&mut self, o: Outcome) {
        self.outcome = self.outcome.max(o);
        self.summary.problems = self.summary.problems.saturating_add(1);
    }

    /// Report an error: I/O errors (and what `--memory` could not hold) are
    /// not judged, damage is a problem.
    fn error(&mut self, file: &str, e: &Error, end: Option<u64>) -> io::Result<()> {
        let class = e.class();
        let not_judged = matches!(class, ErrorClass::Io | ErrorClass::Memory);
        self.judged(if not_judged { Outcome::NotJudged } else { Outcome::Problems });
        let message = if class == ErrorClass::Io { e.to_string() } else { e.message() };
        self.sink.item(&Item::Error(ErrorLine {
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
    pub(super) fn damage(&mut self, file: &str, start: u64, end: u64, e: &Error) -> io::Result<()> {
        self.judged(Outcome::Problems);
        self.sink.item(&Item::Error(ErrorLine {
            file,
            position: Some(start),
            end_position: Some(end),
            kind: e.class().name(),
            field: e.header_field().map(|f| f.kafka_name()),
            message: e.message(),
        }))
    }

    pub(super) fn note(&mut self, file: &str, message: String) -> io::Result<()> {
        self.sink.item(&Item::Note(NoteLine { file, message }))
    }

    fn file(&mut self, path: &Path, size: u64, explicit: bool, next_base: Option<i64>) -> io::Result<()> {
        let file = path.display().to_string();
        let fname = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let mut name = naming::classify(&fname);
        // a tiered storage file (a remote store's copy, the remote index
        // cache's): read as the file it is a copy of, its offset from its name
        let remote = if name.kind == FileKind::Unknown { naming::classify_remote(&fname) } else { None };
        if let Some(r) = &remote {
            name = FileName { kind: r.kind, offset: Some(r.offset), epoch: None, suffix: None };
        }
        // a segment under a name that is not Kafka's: read it as one
        let renamed_segment = name.kind == FileKind::Unknown && fname.ends_with(logfmt::spec::names::LOG_FILE_SUFFIX);
        if renamed_segment {
            name.kind = FileKind::Log;
        }
        let holds_records = matches!(name.kind, FileKind::Log | FileKind::KraftSnapshot);
        if self.opts.records_only && !holds_records {
            // filters select records: only files that hold records are read
            self.sink.progress(size);
            return Ok(());
        }
        let base_offset = if is_segment_file(&name) { name.offset } else { None };
        self.sink.item(&Item::File(FileLine {
            file: &file,
            kind: name.kind.name(),
            size,
            base_offset,
            suffix: name.suffix.map(|s| s.name()),
        }))?;
        self.summary.files = self.summary.files.saturating_add(1);
        if renamed_segment {
            self.note(
                &file,
                "not a Kafka segment name (20 digits): read as a segment; its base offset is its first batch's".into(),
            )?;
        }
        if let Some(r) = &remote {
            let whose = if r.cache { "the broker's remote index cache" } else { "a remote store" };
            self.note(
                &file,
                format!(
                    "tiered storage: {whose}'s copy of remote segment {} (start offset {}), read as a {}",
                    r.segment_id,
                    r.offset,
                    name.kind.name().replace('_', " ")
                ),
            )?;
        }
        self.by_kind(path, &file, &name, explicit, next_base)?;
        if !holds_records {
            self.sink.progress(size);
        }
        Ok(())
    }

    fn by_kind(
        &mut self,
        path: &Path,
        file: &str,
        name: &FileName,
        explicit: bool,
        next_base: Option<i64>,
    ) -> io::Result<()> {
        let base = name.offset.unwrap_or(0);
        match name.kind {
            FileKind::Log | FileKind::KraftSnapshot => self.log(path, file, name, next_base),
            FileKind::OffsetIndex => self.index(path, file, IndexKind::Offset, base),
            FileKind::TimeIndex => self.index(path, file, IndexKind::Time, base),
            FileKind::TxnIndex => self.index(path, file, IndexKind::Txn, base),
            FileKind::ProducerSnapshot => self.snapshot(path, file),
            k if k.is_offset_checkpoint() => self.offset_checkpoint(path, file),
            FileKind::LeaderEpochCheckpoint => self.epochs(path, file),
            FileKind::PartitionMetadata => self.partition_metadata(path, file),
            FileKind::MetaProperties => self.meta_properties(path, file),
            FileKind::QuorumState | FileKind::CleanShutdown => self.json_file(path, file, name.kind),
            FileKind::Unknown if explicit => {
                // named on the command line: say it is not what was meant
                self.judged(Outcome::NotJudged);
                self.sink.item(&Item::Error(ErrorLine {
                    file,
                    position: None,
                    end_position: None,
                    kind: "not_kafka",
                    field: None,
                    message: "not a file of a Kafka log dir (segment, index, snapshot, checkpoint, properties)".into(),
                }))
            }
            _ => Ok(()),
        }
    }

    /// With a range: seek in the segment with its offset index; the offset
    /// of the index entry used.
    fn seek(&mut self, reader: &mut LogReader, path: &Path, file: &str, name: &FileName) -> io::Result<Option<i64>> {
        let (Some(r), FileKind::Log, Some(base), None) = (self.range, name.kind, name.offset, name.suffix) else {
            return Ok(None);
        };
        let idx = path.with_file_name(naming::segment_file_name(base, logfmt::spec::names::INDEX_FILE_SUFFIX));
        if !idx.exists() {
            return Ok(None);
        }
        match index::lookup_offset(&idx, base, r.start) {
            Ok(Some(e)) if e.position > 0 && u64::from(e.position.unsigned_abs()) < reader.end() => {
                reader.seek(u64::from(e.position.unsigned_abs()));
                Ok(Some(e.offset))
            }
            Ok(_) => Ok(None),
            Err(e) => {
                self.note(file, format!("offset index not usable ({e}); reading from the start"))?;
                Ok(None)
            }
        }
    }

    fn log(&mut self, path: &Path, file: &str, name: &FileName, next_base: Option<i64>) -> io::Result<()> {
        self.decoder = self.opts.decode.decoder(path, name);
        let mut reader = match LogReader::open(path, self.opts.limits) {
            Ok(r) => r,
            Err(e) => return self.error(file, &e, None),
        };
        if name.kind == FileKind::Log && name.suffix.is_none() {
            // the offsets a live segment's batches must lie in
            reader.set_bounds(Bounds { base_offset: name.offset, next_base_offset: next_base });
        }
        let size = reader.end();
        if let Some(n) = self.opts.max_bytes {
            reader.set_end(n);
        }
        let limited = reader.end() < size;
        let expect = self.seek(&mut reader, path, file, name)?;
        let done_to = self.read_segment(&mut reader, file, expect, limited)?;
        self.sink.progress(size.saturating_sub(done_to));
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

    /// Read a segment's entries from where `reader` is; `expect`: the
    /// offset of the index entry it was sought to. Returns how far it read.
    fn read_segment(
        &mut self,
        reader: &mut LogReader,
        file: &str,
        expect: Option<i64>,
        limited: bool,
    ) -> io::Result<u64> {
        // (an internal topic's decoded records have no bound on their size
        // this side of decoding: told here)
        let whole = self.range.is_none() && self.aborted.is_none() && !self.opts.aborted_only && self.decoder.is_none();
        if whole
            && expect.is_none()
            && !self.filter.on_records()
            && self.sink.part().is_some()
            && rayon::current_num_threads() > 1
        {
            return self.read_segment_in_parts(reader, file, limited);
        }
        self.read_entries(reader, file, expect, limited)
    }

    /// [`Walk::read_segment`] entry by entry, on this thread.
    fn read_entries(
        &mut self,
        reader: &mut LogReader,
        file: &str,
        mut expect: Option<i64>,
        limited: bool,
    ) -> io::Result<u64> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut done_to = reader.position();
        let range = self.range;
        loop {
            let mut restart = false;
            let mut stop = false;
            match reader.next_item() {
                Err(e) => {
                    self.error(file, &e, None)?;
                    break;
                }
                Ok(None) => break,
                Ok(Some(LogItem::Entry(entry))) => {
                    if let Some(expected) = expect.take()
                        && entry.last_offset() > expected
                    {
                        restart = true;
                    }
                    if !restart {
                        stop = self.entry(file, &entry, range, &mut scratch)?;
                    }
                }
                Ok(Some(LogItem::Damage(d))) => {
                    if expect.take().is_some() {
                        restart = true;
                    } else if d.truncated_tail && limited {
                        // --max-bytes cut a batch: not damage, as with kafka-dump-log
                        break;
                    } else {
                        self.tell_damage(file, &d)?;
                    }
                }
            }
            if restart {
                let m = "the offset index points at a batch that does not match it; reading from the start";
                self.note(file, m.into())?;
                reader.seek(0);
            }
            let pos = reader.position();
            self.sink.progress(pos.saturating_sub(done_to));
            self.summary.bytes_read = self.summary.bytes_read.saturating_add(pos.saturating_sub(done_to));
            done_to = pos;
            if stop {
                break;
            }
        }
        self.scratch = scratch;
        Ok(done_to)
    }

    /// [`Walk::read_segment`] of a whole segment (no range, no filter on
    /// records) for a visitor with parts: slabs read whole, each run of
    /// small uncompressed batches told by parts on every core, the rest
    /// (damage, compressed or large batches) here, all in file order.
    fn read_segment_in_parts(&mut self, reader: &mut LogReader, file: &str, limited: bool) -> io::Result<u64> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut done_to = reader.position();
        let size = crate::schedule::slab_size(&self.opts.limits);
        // batch lines only: reading is most of the work, the next slab is
        // read ahead on a thread of its own (1 GiB: ~110 -> ~90 ms); with
        // every record, the parts keep both cores busy and a reading thread
        // only competes (32 MiB: 29 -> 33 ms)
        let read_ahead = !self.opts.deep && reader.end().saturating_sub(done_to) > size as u64;
        let mut told: io::Result<bool> = Ok(false);
        let walked = crate::schedule::slabs(reader, size, read_ahead, |slab| {
            told = self.tell_slab(file, slab, limited, &mut scratch).map(|stop| {
                // (up to where a cut batch starts, when `--max-bytes` cut one)
                let pos = stop.unwrap_or_else(|| slab.start().saturating_add(slab.span()));
                self.sink.progress(pos.saturating_sub(done_to));
                self.summary.bytes_read = self.summary.bytes_read.saturating_add(pos.saturating_sub(done_to));
                done_to = pos;
                stop.is_some()
            });
            matches!(told, Ok(false))
        });
        self.scratch = scratch;
        told?;
        if walked.is_err() {
            // a read failed: entry by entry from the first slab not told,
            // as far as they can be read, and the error where it is
            if reader.position() != done_to {
                reader.seek(done_to);
            }
            return self.read_entries(reader, file, None, limited);
        }
        Ok(done_to)
    }

    /// Tell a damaged range the reader found (a torn tail says so).
    fn tell_damage(&mut self, file: &str, d: &logfmt::log::Damage) -> io::Result<()> {
        self.damage(file, d.start, d.end, &d.error)?;
        if d.truncated_tail {
            let n = d.end.saturating_sub(d.start);
            self.note(file, format!("{n} byte(s) at the end of the file do not hold a whole batch: a torn write"))?;
        }
        Ok(())
    }

    /// Tell a slab's items in order; `Some(where it starts)` at a batch
    /// `--max-bytes` cut (the walk ends there).
    fn tell_slab(&mut self, file: &str, slab: &Slab, limited: bool, scratch: &mut Vec<u8>) -> io::Result<Option<u64>> {
        let mut i = 0usize;
        while let Some(item) = slab.items.get(i) {
            if let SlabItem::Damage(d) = item {
                if d.truncated_tail && limited {
                    return Ok(Some(d.start));
                }
                self.tell_damage(file, d)?;
                i = i.saturating_add(1);
                continue;
            }
            let end = run_in_parts(slab, i, file.len(), self.opts.deep);
            if end > i.saturating_add(1)
                && let Some(run) = slab.items.get(i..end)
                && self.tell_in_parts(file, slab, run)?
            {
                i = end;
                continue;
            }
            if let Some(entry) = slab.entry(item) {
                self.entry(file, &entry, None, scratch)?;
            }
            i = i.saturating_add(1);
        }
        Ok(None)
    }

    /// Tell `run` (whole uncompressed batches of `slab`) by parts of the
    /// visitor on every core, each a contiguous share, and write their lines
    /// in order. False when the visitor has no parts (nothing was told).
    fn tell_in_parts(&mut self, file: &str, slab: &Slab, run: &[SlabItem]) -> io::Result<bool> {
        use rayon::prelude::*;
        let shares = rayon::current_num_threads().saturating_mul(2).max(1);
        let per = run.len().div_ceil(shares).max(1);
        let mut parts = Vec::new();
        for share in run.chunks(per) {
            let Some(part) = self.sink.part() else { return Ok(false) };
            parts.push((share, part));
        }
        let (opts, filter, decoder) = (self.opts, self.filter, self.decoder);
        let told: Vec<io::Result<(Vec<u8>, Outcome, SummaryLine)>> = parts
            .into_par_iter()
            .map(|(share, part)| {
                let mut w = Walk::new(opts, filter, part);
                w.decoder = decoder;
                let mut scratch = Vec::new();
                for item in share {
                    if let Some(entry) = slab.entry(item) {
                        w.entry(file, &entry, None, &mut scratch)?;
                    }
                }
                Ok((w.sink.into_bytes(), w.outcome, w.summary))
            })
            .collect();
        for t in told {
            let (bytes, outcome, summary) = t?;
            self.sink.append(bytes)?;
            self.outcome = self.outcome.max(outcome);
            let s = &mut self.summary;
            s.batches = s.batches.saturating_add(summary.batches);
            s.records = s.records.saturating_add(summary.records);
            s.bytes = s.bytes.saturating_add(summary.bytes);
            s.problems = s.problems.saturating_add(summary.problems);
        }
        Ok(true)
    }

    /// Tell one entry; returns true when the offset range is exhausted.
    pub(super) fn entry(
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

    /// Whether a record of a batch of producer `producer_id` is told.
    fn wanted(&self, range: Option<OffsetRange>, producer_id: i64, r: &Record<'_>) -> bool {
        range.is_none_or(|g| g.contains(r.offset))
            && self.aborted.as_ref().is_none_or(|a| a.contains(producer_id, r.offset))
            && self.filter.record(r.key, r.value, &mut r.headers.iter().map(|hd| (hd.key, hd.value)))
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
        if !self.filter.batch(h.producer_id, h.is_transactional()) {
            return Ok(false);
        }
        // --aborted: a data batch of a transaction; a record of it in an aborted range
        if self.opts.aborted_only && (self.aborted.is_none() || !h.is_transactional() || h.is_control()) {
            // (a file outside a partition dir has no aborted transactions)
            return Ok(false);
        }
        let filtering = self.filter.on_records() || self.aborted.is_some();
        // with a record filter, the batch is told when one of its records
        // matches (a first read, which stops at the first match)
        if filtering && !self.any_record(b, scratch, |r| self.wanted(range, h.producer_id, r)) {
            return Ok(false);
        }
        let crc_valid = b.is_valid();
        self.summary.batches = self.summary.batches.saturating_add(1);
        self.summary.bytes = self.summary.bytes.saturating_add(b.size());
        self.sink.item(&Item::Batch(BatchLine::of_batch(file, b, crc_valid)))?;
        let batch_end = b.position().saturating_add(b.size());
        if !crc_valid {
            let kind = ErrorKind::CrcMismatch { what: "record batch", stored: h.crc, computed: b.compute_crc() };
            self.damage(file, b.position(), batch_end, &Error::at(b.position(), kind))?;
        }
        if !(self.opts.deep || filtering || h.compression().is_none()) {
            self.summary.records = self.summary.records.saturating_add(header_count(&h, range));
            return Ok(false);
        }
        let mut records = match b.records(scratch, &self.opts.limits) {
            Ok(r) => r,
            Err(e) => {
                self.error(file, &e, Some(batch_end))?;
                return Ok(false);
            }
        };
        while let Some(r) = records.next_record() {
            let rec = match r {
                Ok(rec) => rec,
                Err(e) => {
                    self.error(file, &e, Some(batch_end))?;
                    // (a record too large for --memory is skipped: the next follows)
                    continue;
                }
            };
            if range.is_some_and(|r| !r.contains(rec.offset)) || (filtering && !self.wanted(range, h.producer_id, &rec))
            {
                continue;
            }
            self.summary.records = self.summary.records.saturating_add(1);
            self.record(file, &h, b.position(), &rec)?;
        }
        Ok(false)
    }

    /// Whether a record of `b` satisfies `wanted` (records too large for
    /// `--memory` are passed over; reading stops at the first match or error).
    fn any_record(&self, b: &RecordBatch<'_>, scratch: &mut Vec<u8>, wanted: impl Fn(&Record<'_>) -> bool) -> bool {
        let Ok(mut records) = b.records(scratch, &self.opts.limits) else { return false };
        while let Some(r) = records.next_record() {
            if r.is_ok_and(|r| wanted(&r)) {
                return true;
            }
        }
        false
    }

    /// A v2 record (its batch's header `h`, at `position`).
    fn record(&mut self, file: &str, h: &BatchHeader, position: u64, rec: &Record<'_>) -> io::Result<()> {
        let control = if h.is_control() {
            match control::parse(rec, position) {
                Ok(c) => Some(c),
                Err(e) => {
                    self.error(file, &e, None)?;
                    None
                }
            }
        } else {
            None
        };
        let decoded = self.decoder.filter(|_| !h.is_control()).map(|d| d.decode(rec.key, rec.value));
        self.sink.record(&RecordItem {
            file,
            offset: rec.offset,
            timestamp: rec.timestamp,
            key_size: rec.key_size(),
            value_size: rec.value_size(),
            sequence: rec.sequence,
            key: rec.key,
            value: rec.value,
            headers: rec.headers,
            control,
            decoded,
            crc: None,
            crc_valid: None,
        })
    }

    fn legacy(
        &mut self,
        file: &str,
        m: &LegacyMessage<'_>,
        range: Option<OffsetRange>,
        scratch: &mut Vec<u8>,
    ) -> io::Result<bool> {
        if !self.filter.batch(-1, false) || self.opts.aborted_only {
            return Ok(false);
        }
        let filtering = self.filter.on_records();
        let filter = self.filter;
        let wanted = |r: &LegacyRecord<'_>| {
            range.is_none_or(|g| g.contains(r.offset))
                && filter.record(r.message.key, r.message.value, &mut std::iter::empty())
        };
        if filtering {
            let mut any = false;
            if let Ok(mut records) = m.records(scratch, &self.opts.limits) {
                while let Some(Ok(r)) = records.next_record() {
                    if wanted(&r) {
                        any = true;
                        break;
                    }
                }
            }
            if !any {
                return Ok(false);
            }
        }
        let records = m.records(scratch, &self.opts.limits);
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
        self.summary.batches = self.summary.batches.saturating_add(1);
        self.summary.bytes = self.summary.bytes.saturating_add(m.size_in_bytes());
        self.sink.item(&Item::Batch(BatchLine::of_legacy(file, m, (base_offset, count), crc_valid)))?;
        if !crc_valid {
            let kind = ErrorKind::CrcMismatch { what: "message", stored: m.crc, computed: m.compute_crc() };
            let end = m.position().saturating_add(m.size_in_bytes());
            self.damage(file, m.position(), end, &Error::at(m.position(), kind))?;
        }
        let mut records = match records {
            Ok(r) => r,
            Err(e) => {
                self.error(file, &e, None)?;
                return Ok(false);
            }
        };
        if !self.opts.deep && !filtering {
            return Ok(false);
        }
        while let Some(r) = records.next_record() {
            let rec = match r {
                Ok(rec) => rec,
                Err(e) => {
                    self.error(file, &e, None)?;
                    break;
                }
            };
            if range.is_some_and(|r| !r.contains(rec.offset)) || (filtering && !wanted(&rec)) {
                continue;
            }
            self.summary.records = self.summary.records.saturating_add(1);
            let msg = rec.message;
            let valid = msg.is_valid();
            if !valid {
                let detail = format!(
                    "inner message at offset {} has a bad CRC: stored {} but its bytes give {}",
                    rec.offset,
                    msg.crc,
                    msg.compute_crc()
                );
                self.error(file, &Error::malformed(m.position(), "message", detail), None)?;
            }
            self.sink.record(&RecordItem {
                file,
                offset: rec.offset,
                timestamp: rec.timestamp,
                key_size: msg.key_size(),
                value_size: msg.value_size(),
                sequence: -1,
                key: msg.key,
                value: msg.value,
                headers: Headers::default(),
                control: None,
                decoded: None,
                crc: Some(msg.crc),
                crc_valid: Some(valid),
            })?;
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
                    self.sink.item(&Item::IndexEntry(WithFile { file, item: e }))?
                }
                Ok(IndexEntry::Time(e)) if keep(e.offset, e.offset) => {
                    self.sink.item(&Item::TimeIndexEntry(WithFile { file, item: e }))?
                }
                Ok(IndexEntry::Txn(e)) if keep(e.first_offset, e.last_offset) => {
                    self.sink.item(&Item::TxnIndexEntry(WithFile { file, item: e }))?
                }
                Ok(_) => {}
                Err(e) => self.error(file, &e, None)?,
            }
        }
        if let Some(t) = r.tail().copied() {
            if t.slots > 0 || t.partial_bytes > 0 {
                self.sink.item(&Item::IndexTail(WithFile { file, item: t }))?;
            }
            if !t.zeroed {
                let e =
                    Error::malformed(t.position, "index", format!("{} unused slot(s) hold non-zero bytes", t.slots));
                self.error(file, &e, None)?;
            }
            if t.partial_bytes > 0 {
                let slots = t.slots.saturating_mul(kind.entry_size() as u64);
                let kind = ErrorKind::TrailingBytes { what: "last whole index entry", bytes: t.partial_bytes };
                self.error(file, &Error::at(t.position.saturating_add(slots), kind), None)?;
            }
        }
        Ok(())
    }

    fn snapshot(&mut self, path: &Path, file: &str) -> io::Result<()> {
        let s = match logfmt::snapshot::read(path, &self.opts.limits) {
            Ok(s) => s,
            Err(e) => return self.error(file, &e, None),
        };
        for p in &s.entries {
            self.sink.item(&Item::ProducerState(ProducerStateLine {
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
            let kind = ErrorKind::CrcMismatch { what: "producer snapshot", stored: s.crc, computed: s.computed_crc };
            self.error(file, &Error::at(logfmt::spec::snapshot::CRC_OFFSET as u64, kind), None)?;
        }
        if s.trailing_bytes > 0 {
            let m = format!("{} byte(s) after the last producer entry (Kafka ignores them)", s.trailing_bytes);
            self.note(file, m)?;
        }
        Ok(())
    }

    fn offset_checkpoint(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::checkpoint::read_offsets(path, &self.opts.limits) {
            Ok(c) => {
                for (_, e) in &c.entries {
                    self.sink.item(&Item::CheckpointEntry(WithFile { file, item: e }))?;
                }
                Ok(())
            }
            Err(e) => self.error(file, &e, None),
        }
    }

    fn epochs(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::checkpoint::read_epochs(path, &self.opts.limits) {
            Ok(c) => {
                for (_, e) in &c.entries {
                    self.sink.item(&Item::LeaderEpochEntry(WithFile { file, item: *e }))?;
                }
                Ok(())
            }
            Err(e) => self.error(file, &e, None),
        }
    }

    fn partition_metadata(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::properties::read_partition_metadata(path, &self.opts.limits) {
            Ok(m) => self.sink.item(&Item::PartitionMetadata(PartitionMetadataLine {
                file,
                version: m.version,
                topic_id: m.topic_id.to_string(),
            })),
            Err(e) => self.error(file, &e, None),
        }
    }

    fn meta_properties(&mut self, path: &Path, file: &str) -> io::Result<()> {
        match logfmt::properties::read_meta_properties(path, &self.opts.limits) {
            Ok(props) => {
                let properties = props.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect();
                self.sink.item(&Item::MetaProperties(PropertiesLine { file, properties }))
            }
            Err(e) => self.error(file, &e, None),
        }
    }

    fn json_file(&mut self, path: &Path, file: &str, kind: FileKind) -> io::Result<()> {
        let bytes = match logfmt::read_bounded(path, self.opts.limits.max_text_file_size, "JSON state file") {
            Ok(b) => b,
            Err(e) => return self.error(file, &e, None),
        };
        match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(content) => {
                let line = JsonFileLine { file, content };
                self.sink.item(&if kind == FileKind::QuorumState {
                    Item::QuorumState(line)
                } else {
                    Item::CleanShutdown(line)
                })
            }
            Err(err) => self.error(file, &Error::malformed(0, "JSON state file", err.to_string()), None),
        }
    }
}

/// Records of a batch counted from its header (within `range`, its offsets
/// there, at most its count): when the records are not read.
fn header_count(h: &BatchHeader, range: Option<OffsetRange>) -> u64 {
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

/// Where the run of batches told in parts that starts at `slab.items[from]`
/// ends: whole uncompressed v2 batches of at most [`PARTS_MAX_BATCH`],
/// together within [`PARTS_OUTPUT`] of what they can print (`name_len`: the
/// file name's length, on every line; `deep`: their records are told, else
/// only their batch lines, at most 1 KiB besides the name).
fn run_in_parts(slab: &Slab, from: usize, name_len: usize, deep: bool) -> usize {
    let per_record = 256u64.saturating_add(name_len as u64);
    let per_batch = 1024u64.saturating_add(name_len as u64);
    let mut bound = 0u64;
    let mut end = from;
    while let Some(item) = slab.items.get(end) {
        let Some(Entry::V2(b)) = slab.entry(item) else { break };
        let h = b.header();
        if h.compression() != Some(Compression::None) || b.size() > PARTS_MAX_BATCH {
            break;
        }
        let records = u64::try_from(h.records_count).unwrap_or(0).saturating_add(1);
        bound = bound.saturating_add(match deep {
            true => b.size().saturating_mul(PARTS_PER_BYTE).saturating_add(records.saturating_mul(per_record)),
            false => per_batch,
        });
        if bound > PARTS_OUTPUT && end > from {
            break;
        }
        end = end.saturating_add(1);
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dump::{Selection, plan};

    /// Counts what a walk tells.
    #[derive(Default)]
    struct Count {
        records: u64,
        controls: u64,
        decoded: u64,
        errors: u64,
        summary: Option<SummaryLine>,
    }

    impl Visit for Count {
        fn item(&mut self, item: &Item<'_>) -> io::Result<()> {
            match item {
                Item::Error(_) => self.errors += 1,
                Item::Summary(s) => self.summary = Some(*s),
                _ => {}
            }
            Ok(())
        }
        fn record(&mut self, r: &RecordItem<'_>) -> io::Result<()> {
            self.records += 1;
            self.controls += u64::from(r.control.is_some());
            self.decoded += u64::from(r.decoded.is_some());
            Ok(())
        }
    }

    /// A healthy log dir walked as a library: every record told once (the
    /// summary counts what was told), control and internal records decoded,
    /// nothing wrong.
    #[test]
    fn a_healthy_log_dir_is_told_record_by_record() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kafka-3.9.1/clean/logs");
        let limits = Limits::default();
        let mut work = Vec::new();
        plan(&dir, &Selection::default(), &limits, &mut work);
        let opts = Options { limits, deep: true, ..Options::default() };
        let mut walk = Walk::new(opts, &NoFilter, Count::default());
        for w in work {
            walk.work(w).unwrap();
        }
        let (outcome, count) = walk.finish().unwrap();
        assert_eq!(outcome, Outcome::Clean);
        assert_eq!(count.errors, 0);
        let summary = count.summary.unwrap();
        assert_eq!(summary.records, count.records);
        assert!(count.records > 1000 && count.controls > 0 && count.decoded > 0, "{}", count.records);
    }

    /// Writes what it is told as lines of text; with `parts`, lends parts.
    #[derive(Default)]
    struct Lines {
        text: Vec<u8>,
        parts: bool,
        lent: std::cell::Cell<usize>,
    }

    fn line(out: &mut Vec<u8>, item: Option<&Item<'_>>, record: Option<&RecordItem<'_>>) {
        use std::io::Write;
        let _ = match (item, record) {
            (Some(Item::Batch(b)), _) => writeln!(out, "batch {:?} {:?}", b.position, b.base_offset),
            (Some(Item::Error(e)), _) => writeln!(out, "error {:?} {:?} {}", e.position, e.end_position, e.message),
            (Some(Item::Summary(s)), _) => {
                writeln!(
                    out,
                    "summary {} {} {} {} {} {}",
                    s.files, s.batches, s.records, s.bytes, s.bytes_read, s.problems
                )
            }
            (Some(_), _) => writeln!(out, "item"),
            (None, Some(r)) => writeln!(out, "record {} {:?} {:?}", r.offset, r.value, r.decoded),
            (None, None) => Ok(()),
        };
    }

    impl Visit for Lines {
        fn item(&mut self, item: &Item<'_>) -> io::Result<()> {
            line(&mut self.text, Some(item), None);
            Ok(())
        }
        fn record(&mut self, r: &RecordItem<'_>) -> io::Result<()> {
            line(&mut self.text, None, Some(r));
            Ok(())
        }
        fn part(&self) -> Option<Box<dyn Part + '_>> {
            self.lent.set(self.lent.get() + 1);
            self.parts.then(|| Box::new(LinesPart(Vec::new())) as Box<dyn Part>)
        }
        fn append(&mut self, bytes: Vec<u8>) -> io::Result<()> {
            self.text.extend_from_slice(&bytes);
            Ok(())
        }
    }

    struct LinesPart(Vec<u8>);

    impl Visit for LinesPart {
        fn item(&mut self, item: &Item<'_>) -> io::Result<()> {
            line(&mut self.0, Some(item), None);
            Ok(())
        }
        fn record(&mut self, r: &RecordItem<'_>) -> io::Result<()> {
            line(&mut self.0, None, Some(r));
            Ok(())
        }
    }

    impl Part for LinesPart {
        fn into_bytes(self: Box<Self>) -> Vec<u8> {
            self.0
        }
    }

    /// Told in parts on four threads, a log dir (damaged, cut by
    /// `--max-bytes` or not) gives the lines and outcome one visitor told
    /// alone gives, in the same order.
    #[test]
    fn parts_tell_what_one_visitor_tells() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/kafka-3.9.1/clean/logs");
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("logs");
        test_support::copy_dir(&src, &dir);
        test_support::damage_three_ways(&dir.join("codec-none-0/00000000000000000000.log"));
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        for (deep, max_bytes) in [(true, None), (false, None), (true, Some(5000))] {
            let limits = Limits::default();
            let walk = |parts: bool| {
                let mut work = Vec::new();
                plan(&dir, &Selection::default(), &limits, &mut work);
                let opts = Options { limits, deep, max_bytes, ..Options::default() };
                let mut walk = Walk::new(opts, &NoFilter, Lines { parts, ..Lines::default() });
                for w in work {
                    walk.work(w).unwrap();
                }
                walk.finish().unwrap()
            };
            let (alone_outcome, alone) = walk(false);
            let (outcome, parts) = pool.install(|| walk(true));
            assert!(parts.lent.get() > 10, "parts were not used: {}", parts.lent.get());
            assert_eq!(outcome, alone_outcome);
            assert_eq!(String::from_utf8_lossy(&parts.text), String::from_utf8_lossy(&alone.text), "deep {deep}");
            // the damage was told (before the cut, none of it)
            let errors = alone.text.windows(6).filter(|w| w == b"error ").count();
            assert!(errors >= 2 || max_bytes.is_some(), "{errors} errors");
        }
    }
}
