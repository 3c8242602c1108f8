//! Checking one segment (`.log` with its `.index`, `.timeindex`, `.txnindex`)
//! in a single streaming pass.
//!
//! The log is read entry by entry by a reader that checks each header
//! against the segment's bounds and the batch before it (`logfmt::sanity`):
//! what it does not trust comes as damage, named by the field at fault. The
//! three index files are read alongside it as sorted streams and merged with
//! the batches as they go by, so memory does not grow with the segment; an
//! index entry out of order with the entries around it is reported as such
//! and left out of the merge, so it cannot make the correct ones look wrong.
//! State that spans segments (the last offset seen, producer sequences and
//! transactions, the leader-epoch lineage) lives in [`PartitionState`];
//! what Kafka writes into a `.txnindex` comes from
//! [`logrules::producer`].

use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use super::{Findings, Kind, Options, Stats};
use logfmt::batch::{RecordBatch, TimestampType};
use logfmt::control::{self, ControlRecord};
use logfmt::error::{Error, ErrorKind};
use logfmt::index::{IndexEntry, IndexKind, IndexReader, IndexTail, TxnIndexEntry};
use logfmt::legacy::LegacyMessage;
use logfmt::limits::Limits;
use logfmt::log::{Damage, Entry, Slab, SlabItem};
use logfmt::partition::{Partition, Segment};
use logfmt::sanity::{Bounds, HeaderField};
use logrules::log::Compaction;
use logrules::producer::{Continuity, Marker, ProducerState, SequenceTracker};
use rayon::prelude::*;

/// Producers tracked for sequence continuity; beyond this, new ones are not.
const MAX_TRACKED_PRODUCERS: usize = 100_000;

/// Where the batches' leader epoch rose.
#[derive(Clone, Debug)]
pub(crate) struct Lineage {
    pub epoch: i32,
    /// The first offset of the first batch with it.
    pub offset: i64,
    /// That batch: its segment and byte range.
    pub log: PathBuf,
    pub position: u64,
    pub end: u64,
    /// The last batch with it so far: its base offset, segment and bytes.
    pub last: (i64, PathBuf, u64, u64),
}

/// What carries over from one segment to the next.
pub(crate) struct PartitionState {
    /// The largest offset seen so far.
    pub last_offset: Option<i64>,
    /// Whether offsets may have gaps from compaction.
    compaction: Compaction,
    /// Batches with gaps are expected (the log cleaner has run on this partition).
    compacted: bool,
    /// Sequence continuity of idempotent producers.
    sequences: SequenceTracker,
    /// Whether Kafka checks sequences here (`rules::producer::checks_sequences`).
    sequences_checked: bool,
    /// Open transactions, as Kafka's producer state keeps them.
    transactions: ProducerState,
    /// Each time the batches' leader epoch rose.
    pub lineage: Vec<Lineage>,
}

impl PartitionState {
    fn with(compaction: Compaction, transactions: ProducerState, topic: Option<&str>) -> PartitionState {
        PartitionState {
            last_offset: None,
            compaction,
            compacted: compaction == Compaction::Compacted,
            sequences: SequenceTracker::new(MAX_TRACKED_PRODUCERS),
            sequences_checked: topic.is_none_or(logrules::producer::checks_sequences),
            transactions,
            lineage: Vec::new(),
        }
    }

    /// State for checking `p` from its first segment: its producers'
    /// transactions as of there (a producer snapshot, or the log's start).
    pub fn new(p: &Partition, compaction: Compaction, opts: &Options) -> PartitionState {
        let at = p.first_base().unwrap_or(0);
        let transactions = ProducerState::at(p, at, &opts.limits).unwrap_or_else(|_| ProducerState::incomplete());
        PartitionState::with(compaction, transactions, Some(&p.name.topic))
    }

    /// State for checking segment `seg` of `p` alone.
    pub fn at_segment(p: &Partition, seg: &Segment, compaction: Compaction, opts: &Options) -> PartitionState {
        let transactions = ProducerState::at(p, seg.base, &opts.limits).unwrap_or_else(|_| ProducerState::incomplete());
        PartitionState::with(compaction, transactions, Some(&p.name.topic))
    }

    /// State for a segment outside any partition.
    pub fn standalone(_opts: &Options) -> PartitionState {
        PartitionState::with(Compaction::Unknown, ProducerState::incomplete(), None)
    }

    /// Whether the log cleaner has run on the partition.
    pub fn compacted(&self) -> bool {
        self.compacted
    }
}

/// What a segment turned out to hold.
#[derive(Default)]
pub(crate) struct SegmentSummary {
    pub first_offset: Option<i64>,
    pub last_offset: Option<i64>,
    pub size: u64,
    pub batches: u64,
    /// The `.log` could not be read (to its end): what follows from the
    /// log end cannot be judged.
    pub unreadable: bool,
}

/// Whether index entry `b` may follow `a`.
fn in_order(a: &IndexEntry, b: &IndexEntry) -> bool {
    match (a, b) {
        (IndexEntry::Offset(a), IndexEntry::Offset(b)) => b.offset > a.offset && b.position > a.position,
        // the roll entry may repeat the last entry's offset, never go back
        (IndexEntry::Time(a), IndexEntry::Time(b)) => b.timestamp > a.timestamp && b.offset >= a.offset,
        (IndexEntry::Txn(a), IndexEntry::Txn(b)) => b.last_offset > a.last_offset,
        _ => false,
    }
}

fn describe(e: &IndexEntry) -> String {
    match e {
        IndexEntry::Offset(e) => format!("(offset {}, position {})", e.offset, e.position),
        IndexEntry::Time(e) => format!("(timestamp {}, offset {})", logfmt::report::time_text(e.timestamp), e.offset),
        IndexEntry::Txn(e) => format!(
            "(producer {}, offsets {})",
            e.producer_id,
            logfmt::report::offset_range(e.first_offset, e.last_offset)
        ),
    }
}

fn slot_position(e: &IndexEntry) -> u64 {
    match e {
        IndexEntry::Offset(e) => e.slot.saturating_mul(8),
        IndexEntry::Time(e) => e.slot.saturating_mul(12),
        IndexEntry::Txn(_) => 0,
    }
}

/// An index file read as a stream of the entries that are in order: an
/// entry out of order with the entries around it is reported and skipped.
struct Stream {
    path: PathBuf,
    reader: IndexReader,
    /// Entries read from the file, not yet classified.
    ahead: VecDeque<IndexEntry>,
    /// The next in-order entry.
    peeked: Option<IndexEntry>,
    /// The last in-order entry passed.
    prev: Option<IndexEntry>,
    /// The log's size (to say when an entry points past it).
    log_size: u64,
    ended: bool,
}

impl Stream {
    fn open(path: &Option<PathBuf>, kind: IndexKind, base: i64, log_size: u64, out: &mut Findings) -> Option<Stream> {
        let path = path.as_ref()?;
        match IndexReader::open(path, kind, base) {
            Ok(reader) => Some(Stream {
                path: path.clone(),
                reader,
                ahead: VecDeque::new(),
                peeked: None,
                prev: None,
                log_size,
                ended: false,
            }),
            Err(e) => {
                out.error(path, &e, Kind::IoError);
                None
            }
        }
    }

    /// The `n`-th entry of the file not yet classified (0 = the next).
    fn raw(&mut self, n: usize, out: &mut Findings) -> Option<IndexEntry> {
        while self.ahead.len() <= n && !self.ended {
            match self.reader.next() {
                Some(Ok(e)) => self.ahead.push_back(e),
                Some(Err(e)) => {
                    out.error(&self.path, &e, Kind::IndexEntryInvalid);
                    self.ended = true;
                }
                None => self.ended = true,
            }
        }
        self.ahead.get(n).copied()
    }

    /// The next in-order entry. An entry is out of place when it does not
    /// follow the last in-order one, or when it and the entry after it
    /// conflict and it is the one out of line: the entry after that agrees
    /// with its neighbour but not with it, or it stands between the last
    /// in-order entry and one that fits right after it. Otherwise the later
    /// of the two is taken as out of place (it fails the first rule next).
    fn peek(&mut self, out: &mut Findings) -> Option<IndexEntry> {
        while self.peeked.is_none() {
            let cur = self.raw(0, out)?;
            let next = self.raw(1, out);
            let next2 = self.raw(2, out);
            let out_of_place = if self.prev.is_some_and(|p| !in_order(&p, &cur)) {
                true
            } else if let Some(n) = next.filter(|n| !in_order(&cur, n)) {
                match next2 {
                    Some(n2) if in_order(&n, &n2) != in_order(&cur, &n2) => !in_order(&cur, &n2),
                    Some(_) => false,
                    None => self.prev.is_some_and(|p| in_order(&p, &n)),
                }
            } else {
                false
            };
            self.ahead.pop_front();
            if out_of_place {
                let past = match cur {
                    IndexEntry::Offset(e) if u64::try_from(e.position).unwrap_or(u64::MAX) >= self.log_size => {
                        "; it also points past the end of the log"
                    }
                    _ => "",
                };
                let around = match (self.prev, next) {
                    (Some(p), Some(n)) => format!(" between {} and {}", describe(&p), describe(&n)),
                    (Some(p), None) => format!(" after {}", describe(&p)),
                    (None, Some(n)) => format!(" before {}", describe(&n)),
                    (None, None) => String::new(),
                };
                let (offset, slot) = (entry_offset(&cur), slot_position(&cur));
                out.push(
                    &self.path,
                    Some(slot),
                    None,
                    Some(offset),
                    Kind::IndexNotMonotonic,
                    format!("entry {} is out of order{around}{past}", describe(&cur)),
                );
                continue;
            }
            self.peeked = Some(cur);
        }
        self.peeked
    }

    fn advance(&mut self) {
        if let Some(e) = self.peeked.take() {
            self.prev = Some(e);
        }
    }

    /// After the last entry: how the file ends.
    fn tail(&self) -> Option<IndexTail> {
        self.reader.tail().copied()
    }
}

fn entry_offset(e: &IndexEntry) -> i64 {
    match e {
        IndexEntry::Offset(e) => e.offset,
        IndexEntry::Time(e) => e.offset,
        IndexEntry::Txn(e) => e.last_offset,
    }
}

/// The finding of a damaged range: its kind and message.
pub(crate) fn damage_finding(d: &Damage, is_active: bool, file_end: u64) -> (Kind, String) {
    if let Some(f) = d.field {
        let kind = match f {
            HeaderField::BaseOffset => Kind::BaseOffsetInvalid,
            HeaderField::BatchLength => Kind::BatchLengthInvalid,
            HeaderField::PartitionLeaderEpoch => Kind::PartitionLeaderEpochInvalid,
            HeaderField::Magic => Kind::MagicInvalid,
        };
        return (kind, d.error.message());
    }
    let (kind, note) = damage_kind(d, is_active, file_end);
    (kind, format!("{note}: {}", d.error.message()))
}

/// The kind of a damaged range that is not a wrong header field, and what it means.
fn damage_kind(d: &Damage, is_active: bool, file_end: u64) -> (Kind, &'static str) {
    let at_end = d.end == file_end;
    if is_active && at_end && d.zeroed {
        (
            Kind::ZeroedTail,
            "zero-filled bytes at the end of the active segment (after a crash); Kafka's recovery truncates them",
        )
    } else if is_active && d.truncated_tail {
        (
            Kind::TruncatedTail,
            "a torn write at the end of the active segment (normal after a crash); Kafka's recovery truncates it",
        )
    } else if d.truncated_tail {
        (Kind::TruncatedSegment, "a rolled segment ends in the middle of a batch")
    } else if d.zeroed {
        (Kind::ZeroedRegion, "zero-filled bytes in the middle of the segment")
    } else {
        (Kind::Corrupt, "unreadable bytes; reading resumed at the next valid batch")
    }
}

/// A finding made while checking an entry's contents, pushed in file order.
struct Pending {
    position: Option<u64>,
    end: Option<u64>,
    offset: Option<i64>,
    kind: Kind,
    message: String,
}

/// What checking one entry's contents found. Computed independently for each
/// entry (in parallel), consumed in file order.
#[derive(Default)]
struct Content {
    findings: Vec<Pending>,
    records: u64,
    /// Legacy entries: the first inner offset (known only after decompression).
    first_offset: Option<i64>,
    /// An end-transaction marker.
    marker: Option<logfmt::control::EndTxnMarker>,
    /// The checksum matches.
    crc_ok: bool,
    /// Checked by CRC and header only, records not read (without
    /// [`Options::deep`]).
    header_only: bool,
}

impl Content {
    fn push(&mut self, pos: u64, end: u64, offset: Option<i64>, kind: Kind, message: String) {
        self.findings.push(Pending { position: Some(pos), end: Some(end), offset, kind, message });
    }
}

fn decode_kind(e: &Error) -> Kind {
    match e.kind() {
        ErrorKind::MemoryBudget { .. } => Kind::MemoryBudget,
        ErrorKind::Decompress { .. } | ErrorKind::DecompressedTooLarge { .. } => Kind::DecompressionFailed,
        _ => Kind::RecordInvalid,
    }
}

/// Check an entry on its own: checksum, records, control records.
fn content(entry: &Entry<'_>, scratch: &mut Vec<u8>, limits: &Limits, deep: bool) -> Content {
    match entry {
        Entry::V2(b) => content_v2(b, scratch, limits, deep),
        Entry::Legacy(m) => content_legacy(m, scratch, limits),
    }
}

fn content_v2(b: &RecordBatch<'_>, scratch: &mut Vec<u8>, limits: &Limits, deep: bool) -> Content {
    let h = *b.header();
    let pos = b.position();
    let end = pos.saturating_add(b.size());
    let mut c = Content { crc_ok: b.is_valid(), ..Content::default() };
    if !c.crc_ok {
        c.push(
            pos,
            end,
            Some(h.base_offset),
            Kind::CrcMismatch,
            format!("stored CRC-32C {} but the batch's bytes give {}", h.crc, b.compute_crc()),
        );
    }
    if h.is_control() {
        // control records are few and must be parsed (a first read; the
        // summary below reports a decoding error)
        if let Ok(mut records) = b.records(scratch, limits) {
            while let Some(Ok(rec)) = records.next_record() {
                match control::parse(&rec, pos) {
                    Ok(ControlRecord::EndTxn(m)) if h.is_transactional() => c.marker = Some(m),
                    Ok(_) => {}
                    Err(e) => c.push(pos, end, Some(rec.offset), Kind::ControlRecordInvalid, e.message()),
                }
            }
        }
    }
    if !deep && c.crc_ok && !h.is_control() && h.compression().is_some() {
        // Kafka's shallow iteration (`LogSegment.recover`): the CRC covers
        // every record byte, compressed or not. A batch whose CRC fails is
        // walked below, to say where in it the damage is; so is one whose
        // codec id does not exist (a header field: reading its records
        // reports it)
        c.records = u64::try_from(h.records_count).unwrap_or(0);
        c.header_only = true;
        return c;
    }
    let summary = b.records(scratch, limits).and_then(|records| records.summarize());
    let sum = match summary {
        Ok(sum) => sum,
        Err(e) => {
            c.findings.push(Pending {
                // a range [at, end) inside the batch; an error past its last byte (a
                // missing record) is the batch's
                position: Some(e.position().filter(|&at| at >= pos && at < end).unwrap_or(pos)),
                end: Some(end),
                offset: Some(h.base_offset),
                kind: decode_kind(&e),
                message: e.message(),
            });
            return c;
        }
    };
    c.records = u64::try_from(sum.count).unwrap_or(0);
    if let Some((delta, prev)) = sum.bad_offset_delta {
        c.push(
            pos,
            end,
            Some(h.base_offset.wrapping_add(delta.into())),
            Kind::RecordOffsetInvalid,
            format!(
                "record offset delta {delta} (after {prev:?}) outside 0 to {} or not increasing",
                h.last_offset_delta
            ),
        );
    }
    // transaction markers are alone in their batch (KRaft control batches
    // are not: the metadata log starts with KRaftVersion + KRaftVoters)
    if h.is_control() && h.is_transactional() && h.records_count != 1 {
        c.push(
            pos,
            end,
            Some(h.base_offset),
            Kind::ControlRecordInvalid,
            format!("a transaction marker batch holds {} records, Kafka writes exactly one", h.records_count),
        );
    }
    if h.timestamp_type() == TimestampType::CreateTime {
        if let Some(max_ts) = sum.max_timestamp.filter(|&m| m != h.max_timestamp) {
            c.push(
                pos,
                end,
                Some(h.base_offset),
                Kind::MaxTimestampMismatch,
                format!("maxTimestamp is {} but the largest record timestamp is {max_ts}", h.max_timestamp),
            );
        }
        // Kafka sets baseTimestamp to the first record's timestamp (later
        // records may be older: producers' clocks); the cleaner replaces it
        // with the delete horizon.
        if let Some(d) = sum.first_timestamp_delta.filter(|&d| d != 0 && !h.has_delete_horizon()) {
            c.push(
                pos,
                end,
                Some(h.base_offset),
                Kind::BaseTimestampMismatch,
                format!("the first record's timestamp delta is {d}, not 0"),
            );
        }
    }
    c
}

fn content_legacy(m: &LegacyMessage<'_>, scratch: &mut Vec<u8>, limits: &Limits) -> Content {
    let pos = m.position();
    let end = pos.saturating_add(m.size_in_bytes());
    let mut c = Content { crc_ok: m.is_valid(), ..Content::default() };
    if !c.crc_ok {
        c.push(
            pos,
            end,
            Some(m.offset),
            Kind::CrcMismatch,
            format!("stored CRC-32 {} but the message gives {}", m.crc, m.compute_crc()),
        );
    }
    let mut records = match m.records(scratch, limits) {
        Ok(r) => r,
        Err(e) => {
            c.push(pos, end, Some(m.offset), decode_kind(&e), e.message());
            return c;
        }
    };
    c.first_offset = Some(records.base_offset());
    let mut prev: Option<i64> = None;
    while let Some(r) = records.next_record() {
        match r {
            Ok(r) => {
                c.records = c.records.saturating_add(1);
                if !r.message.is_valid() {
                    c.push(
                        pos,
                        end,
                        Some(r.offset),
                        Kind::CrcMismatch,
                        format!("inner message at offset {} has a bad CRC-32", r.offset),
                    );
                }
                if prev.is_some_and(|p| r.offset <= p) {
                    c.push(
                        pos,
                        end,
                        Some(r.offset),
                        Kind::RecordOffsetInvalid,
                        "inner message offsets do not increase".into(),
                    );
                }
                prev = Some(r.offset);
            }
            Err(e) => {
                c.push(pos, end, Some(m.offset), Kind::RecordInvalid, e.message());
                break;
            }
        }
    }
    if prev.is_some_and(|p| p != m.offset) {
        c.push(
            pos,
            end,
            Some(m.offset),
            Kind::RecordOffsetInvalid,
            format!("wrapper offset {} is not its last inner offset {:?}", m.offset, prev),
        );
    }
    c
}

pub(crate) struct SegmentChecker<'a> {
    opts: &'a Options,
    out: &'a mut Findings,
    stats: &'a mut Stats,
    st: &'a mut PartitionState,
    seg: &'a Segment,
    /// The offsets the batches must lie in.
    bounds: Bounds,
    summary: SegmentSummary,
    scratch: Vec<u8>,
    index: Option<Stream>,
    time_index: Option<Stream>,
    txn_index: Option<Stream>,
    /// The segment's running maximum batch timestamp, as Kafka keeps it.
    running_max: i64,
    /// Damage since the last batch: index entries of the damaged batches are
    /// not judged.
    after_damage: bool,
}

impl<'a> SegmentChecker<'a> {
    pub fn new(
        seg: &'a Segment,
        st: &'a mut PartitionState,
        out: &'a mut Findings,
        stats: &'a mut Stats,
        opts: &'a Options,
    ) -> SegmentChecker<'a> {
        let index = Stream::open(&seg.index, IndexKind::Offset, seg.base, seg.size, out);
        let time_index = Stream::open(&seg.time_index, IndexKind::Time, seg.base, seg.size, out);
        let txn_index = Stream::open(&seg.txn_index, IndexKind::Txn, seg.base, seg.size, out);
        SegmentChecker {
            opts,
            out,
            stats,
            st,
            seg,
            bounds: seg.bounds(),
            summary: SegmentSummary::default(),
            scratch: Vec::new(),
            index,
            time_index,
            txn_index,
            running_max: -1,
            after_damage: false,
        }
    }

    /// Check the batches against no segment bounds (a `.log` whose name
    /// gives no base offset).
    pub fn unbounded(mut self) -> SegmentChecker<'a> {
        self.bounds = Bounds::default();
        self
    }

    /// Read the segment; `progress` gets the bytes done. With
    /// `Options::read_ahead`, a segment larger than a slab is read ahead on its
    /// own thread while the slab before is checked, its entries' contents in
    /// parallel.
    pub fn run(mut self, progress: &dyn Fn(u64)) -> SegmentSummary {
        let mut reader = match logfmt::log::LogReader::open(&self.seg.log, self.opts.limits) {
            Ok(r) => r,
            Err(e) => {
                self.out.error(&self.seg.log, &e, Kind::IoError);
                self.summary.unreadable = true;
                return self.summary;
            }
        };
        reader.set_bounds(self.bounds);
        let slab = crate::schedule::slab_size(&self.opts.limits);
        let size = reader.end();
        self.summary.size = size;
        self.stats.files = self.stats.files.saturating_add(1);
        let read_ahead = self.opts.read_ahead && size > slab as u64;
        let walked = crate::schedule::slabs(&mut reader, slab, read_ahead, |slab| {
            self.slab(slab, read_ahead, size);
            progress(slab.span());
            true
        });
        if let Err(e) = walked {
            self.out.error(&self.seg.log, &e, Kind::IoError);
            self.summary.unreadable = true;
        }
        self.stats.bytes = self.stats.bytes.saturating_add(size);
        self.finish_indexes(size);
        self.summary
    }

    /// Check the items of a slab: contents first (in parallel if asked),
    /// then everything that depends on order.
    fn slab(&mut self, slab: &Slab, parallel: bool, size: u64) {
        let (limits, deep) = (self.opts.limits, self.opts.deep);
        let check =
            |scratch: &mut Vec<u8>, item: &SlabItem| slab.entry(item).map(|e| content(&e, scratch, &limits, deep));
        let contents: Vec<Option<Content>> = if parallel {
            slab.items.par_iter().map_init(Vec::new, check).collect()
        } else {
            let mut scratch = std::mem::take(&mut self.scratch);
            let c = slab.items.iter().map(|i| check(&mut scratch, i)).collect();
            self.scratch = scratch;
            c
        };
        for (item, content) in slab.items.iter().zip(contents) {
            match (item, slab.entry(item), content) {
                (SlabItem::Damage(d), _, _) => self.damage(d, size),
                (_, Some(entry), Some(content)) => self.entry(&entry, content),
                _ => {}
            }
        }
    }

    fn damage(&mut self, d: &Damage, end: u64) {
        let (kind, message) = damage_finding(d, self.seg.is_active(), end);
        self.out.push(&self.seg.log, Some(d.start), Some(d.end), None, kind, message);
        // index entries pointing into the damage cannot be judged
        if let Some(mut s) = self.index.take() {
            while let Some(IndexEntry::Offset(e)) = s.peek(self.out) {
                if u64::try_from(e.position).unwrap_or(u64::MAX) >= d.end {
                    break;
                }
                s.advance();
            }
            self.index = Some(s);
        }
        self.after_damage = true;
    }

    fn entry(&mut self, entry: &Entry<'_>, content: Content) {
        self.stats.batches = self.stats.batches.saturating_add(1);
        self.stats.records = self.stats.records.saturating_add(content.records);
        if content.header_only {
            self.stats.batches_header_only = self.stats.batches_header_only.saturating_add(1);
        }
        self.summary.batches = self.summary.batches.saturating_add(1);
        let seg = self.seg;
        for p in content.findings {
            self.out.push(&seg.log, p.position, p.end, p.offset, p.kind, p.message);
        }
        let (first, last, max_ts) = match entry {
            Entry::V2(b) => {
                self.batch(b);
                let h = b.header();
                (Some(h.base_offset), h.last_offset(), h.max_timestamp)
            }
            Entry::Legacy(m) => (content.first_offset, m.offset, m.timestamp),
        };
        let after_damage = std::mem::take(&mut self.after_damage);
        if after_damage {
            // entries of the time and transaction indexes for the damaged batches
            self.skip_time_and_txn_entries_below(first.unwrap_or(last));
        }
        let pos = entry.position();
        // a log that cannot have been compacted has consecutive offsets, and
        // a segment starts with the batch it is named after
        let expected = self.summary.last_offset.map_or(seg.base, |prev| prev.wrapping_add(1));
        // (v2 only: a v0/v1 compressed wrapper carries its last offset, and a
        // follower names a segment after it)
        let start = match entry {
            Entry::V2(_) => first,
            Entry::Legacy(_) => None,
        };
        if let Some(start) = start
            && self.st.compaction == Compaction::Never
            && !after_damage
            && start != expected
            && self.bounds.base_offset.is_some()
        {
            let before = match self.summary.last_offset {
                Some(prev) => format!("the batch before it ends at {prev}"),
                None => format!("the segment is named after offset {}", seg.base),
            };
            self.out.push(
                &seg.log,
                Some(pos),
                Some(pos.saturating_add(entry.size())),
                Some(start),
                Kind::OffsetGap,
                format!("the batch starts at offset {start} but {before}, in a partition whose topic is not compacted"),
            );
        }
        if let Some(first) = first
            && self.summary.first_offset.is_none()
        {
            self.summary.first_offset = Some(first);
        }
        self.summary.last_offset = Some(self.summary.last_offset.map_or(last, |l| l.max(last)));
        self.st.last_offset = Some(self.st.last_offset.map_or(last, |l| l.max(last)));
        self.offset_index(pos, first.unwrap_or(last), last);
        let raised = max_ts > self.running_max;
        if raised {
            self.running_max = max_ts;
        }
        self.time_index(last, max_ts, raised);
        if let Entry::V2(b) = entry
            && content.crc_ok
            && let Some(marker) = self.st.transactions.apply(b.header(), content.marker.as_ref())
        {
            self.txn_marker(b, marker);
        }
    }

    fn skip_time_and_txn_entries_below(&mut self, offset: i64) {
        for s in [&mut self.time_index, &mut self.txn_index].into_iter().flatten() {
            while let Some(e) = s.peek(self.out) {
                if entry_offset(&e) >= offset {
                    break;
                }
                s.advance();
            }
        }
    }

    /// Header checks of a v2 batch that depend on what came before.
    fn batch(&mut self, b: &RecordBatch<'_>) {
        let h = *b.header();
        let pos = b.position();
        let end = pos.saturating_add(b.size());
        let seg = self.seg;
        let log = &seg.log;
        if h.last_offset_delta < 0 {
            self.out.push(
                log,
                Some(pos),
                Some(end),
                Some(h.base_offset),
                Kind::RecordCountMismatch,
                format!("lastOffsetDelta is {}", h.last_offset_delta),
            );
        } else if i64::from(h.records_count) > i64::from(h.last_offset_delta).saturating_add(1) {
            self.out.push(
                log,
                Some(pos),
                Some(end),
                Some(h.base_offset),
                Kind::RecordCountMismatch,
                format!(
                    "{} records cannot fit offsets {}",
                    h.records_count,
                    logfmt::report::offset_range(h.base_offset, h.last_offset())
                ),
            );
        } else if i64::from(h.records_count) < i64::from(h.last_offset_delta).saturating_add(1)
            && !self.st.compacted
            && !h.is_control()
        {
            self.out.push(
                log,
                Some(pos),
                Some(end),
                Some(h.base_offset),
                Kind::OffsetGapInBatch,
                format!(
                    "{} records for offsets {} in a partition the log cleaner has not compacted",
                    h.records_count,
                    logfmt::report::offset_range(h.base_offset, h.last_offset())
                ),
            );
        }
        // leader-epoch lineage (within a segment the reader keeps epochs in
        // order; a later segment can still go back)
        if h.partition_leader_epoch >= 0 {
            match self.st.lineage.last_mut() {
                Some(l) if h.partition_leader_epoch < l.epoch => {
                    let e = l.epoch;
                    self.out.push(
                        log,
                        Some(pos),
                        Some(end),
                        Some(h.base_offset),
                        Kind::LeaderEpochRegression,
                        format!("leader epoch {} after a batch of epoch {e}", h.partition_leader_epoch),
                    );
                }
                Some(l) if h.partition_leader_epoch == l.epoch => l.last = (h.base_offset, log.clone(), pos, end),
                _ => self.st.lineage.push(Lineage {
                    epoch: h.partition_leader_epoch,
                    offset: h.base_offset,
                    log: log.clone(),
                    position: pos,
                    end,
                    last: (h.base_offset, log.clone(), pos, end),
                }),
            }
        }
        self.sequence(&h, pos, end);
    }

    fn sequence(&mut self, h: &logfmt::batch::BatchHeader, pos: u64, end: u64) {
        let log = &self.seg.log;
        let (kind, message) = match self.st.sequences.observe(h) {
            // the coordinator's own appends: Kafka checks no sequence there
            Continuity::Gap(_) if !self.st.sequences_checked => return,
            Continuity::Gap(p) => (
                if self.st.compacted { Kind::SequenceGapCompacted } else { Kind::SequenceGap },
                format!(
                    "producer {} epoch {}: sequence {} follows {} (at offset {})",
                    h.producer_id, h.producer_epoch, h.base_sequence, p.last_sequence, p.last_offset
                ),
            ),
            Continuity::EpochRegression(p) => (
                Kind::ProducerEpochRegression,
                format!("producer {} writes with epoch {} after epoch {}", h.producer_id, h.producer_epoch, p.epoch),
            ),
            Continuity::CapReached => {
                self.out.push(
                    log,
                    Some(pos),
                    None,
                    None,
                    Kind::Note,
                    format!(
                        "more than {MAX_TRACKED_PRODUCERS} producers: sequences of further producers are not checked"
                    ),
                );
                return;
            }
            Continuity::NoSequence | Continuity::First | Continuity::InSequence | Continuity::NewEpoch => return,
        };
        self.out.push(log, Some(pos), Some(end), Some(h.base_offset), kind, message);
    }

    /// Merge the offset index with the batch at `pos`.
    fn offset_index(&mut self, pos: u64, first: i64, last: i64) {
        let Some(mut s) = self.index.take() else { return };
        while let Some(IndexEntry::Offset(e)) = s.peek(self.out) {
            let epos = u64::try_from(e.position).unwrap_or(u64::MAX);
            if epos > pos {
                break;
            }
            if epos < pos {
                self.out.push(
                    &s.path,
                    Some(e.slot.saturating_mul(8)),
                    None,
                    Some(e.offset),
                    Kind::IndexEntryMismatch,
                    format!(
                        "entry (offset {}, position {}) does not point at the start of a batch",
                        e.offset, e.position
                    ),
                );
            } else if e.offset < first {
                self.out.push(
                    &s.path,
                    Some(e.slot.saturating_mul(8)),
                    None,
                    Some(e.offset),
                    Kind::IndexEntryMismatch,
                    format!(
                        "entry (offset {}, position {}) points at a batch starting at offset {first}: lookups of offset {} would miss it",
                        e.offset, e.position, e.offset
                    ),
                );
            } else if e.offset != last {
                self.out.push(
                    &s.path,
                    Some(e.slot.saturating_mul(8)),
                    None,
                    Some(e.offset),
                    Kind::IndexEntryNotBatchEnd,
                    format!(
                        "entry offset {} is not the last offset {last} of the batch at position {} (brokers before 3.9.1 index multi-batch appends this way)",
                        e.offset, e.position
                    ),
                );
            }
            s.advance();
        }
        self.index = Some(s);
    }

    /// Merge the time index with the batch ending at `last`, whose maximum
    /// timestamp is `max_ts`; `raised` when it raised the segment's running
    /// maximum (Kafka's entries name the batch that first reached a maximum).
    fn time_index(&mut self, last: i64, max_ts: i64, raised: bool) {
        let Some(mut s) = self.time_index.take() else { return };
        while let Some(IndexEntry::Time(e)) = s.peek(self.out) {
            if e.offset > last {
                break;
            }
            if e.offset < last {
                self.out.push(
                    &s.path,
                    Some(e.slot.saturating_mul(12)),
                    None,
                    Some(e.offset),
                    Kind::TimeIndexMismatch,
                    format!(
                        "entry (timestamp {}, offset {}) names no batch's last offset",
                        logfmt::report::time_text(e.timestamp),
                        e.offset
                    ),
                );
            } else if e.timestamp != max_ts {
                self.out.push(
                    &s.path,
                    Some(e.slot.saturating_mul(12)),
                    None,
                    Some(e.offset),
                    Kind::TimeIndexMismatch,
                    format!(
                        "entry timestamp {} but the batch ending at offset {last} has maxTimestamp {}",
                        logfmt::report::time_text(e.timestamp),
                        logfmt::report::time_text(max_ts)
                    ),
                );
            } else if !raised {
                self.out.push(
                    &s.path,
                    Some(e.slot.saturating_mul(12)),
                    None,
                    Some(e.offset),
                    Kind::TimeIndexMismatch,
                    format!(
                        "entry (timestamp {}, offset {}) but an earlier batch already had a timestamp at least as large",
                        logfmt::report::time_text(e.timestamp),
                        e.offset
                    ),
                );
            }
            s.advance();
        }
        self.time_index = Some(s);
    }

    /// Merge the transaction index with an end-transaction marker and what it
    /// did to the producer state.
    fn txn_marker(&mut self, b: &RecordBatch<'_>, marker: Marker) {
        let h = b.header();
        let at = h.base_offset;
        let seg = self.seg;
        let log = &seg.log;
        // what the marker must have: Some(entry) for an aborted transaction
        // that wrote here; None when it must have none; skip when unknown
        let expected = match marker {
            Marker::Completed(c) => c.txn_index_entry(),
            Marker::Empty => None,
            Marker::Unknown { .. } => {
                // either is what some Kafka wrote: take an entry if there is one
                if let Some(mut s) = self.txn_index.take() {
                    self.txn_extras_before(&mut s, at);
                    if let Some(IndexEntry::Txn(e)) = s.peek(self.out)
                        && e.last_offset == at
                    {
                        s.advance();
                    }
                    self.txn_index = Some(s);
                }
                return;
            }
        };
        let Some(mut s) = self.txn_index.take() else {
            if let Some(want) = expected {
                self.out.push(
                    log,
                    Some(b.position()),
                    None,
                    Some(at),
                    Kind::TxnIndexMissingEntry,
                    format!(
                        "ABORT marker of producer {} at offset {at} (transaction from offset {}) but the segment has no .txnindex: read_committed consumers would see the aborted records",
                        want.producer_id, want.first_offset
                    ),
                );
            }
            return;
        };
        self.txn_extras_before(&mut s, at);
        let found = match s.peek(self.out) {
            Some(IndexEntry::Txn(e)) if e.last_offset == at => {
                s.advance();
                Some(e)
            }
            _ => None,
        };
        match (expected, found) {
            (Some(want), Some(e)) => {
                let first_known = self.st.transactions.is_complete();
                // the cleaner removes an aborted transaction's first batches
                // before its marker: the entry keeps the first offset it had
                let cleaned_away = self.st.compacted() && e.first_offset < want.first_offset;
                if e.producer_id != want.producer_id
                    || (first_known && e.first_offset != want.first_offset && !cleaned_away)
                {
                    self.out.push(
                        &s.path,
                        None,
                        None,
                        Some(at),
                        Kind::TxnIndexMismatch,
                        format!(
                            "entry for the marker at offset {at} names producer {} from offset {}; the aborted transaction is producer {}'s from offset {}",
                            e.producer_id, e.first_offset, want.producer_id, want.first_offset
                        ),
                    );
                }
            }
            (Some(want), None) => self.out.push(
                &s.path,
                None,
                None,
                Some(at),
                Kind::TxnIndexMissingEntry,
                format!(
                    "no entry for the ABORT marker of producer {} at offset {at} (transaction from offset {}): read_committed consumers would see the aborted records",
                    want.producer_id, want.first_offset
                ),
            ),
            // the cleaner keeps an aborted transaction's marker, and its
            // entry in the cleaned segment's .txnindex, in the pass that
            // removes the transaction's batches (CleanedTransactionMetadata)
            (None, Some(e)) if self.st.compacted() && e.producer_id == h.producer_id => {}
            (None, Some(e)) => self.txn_extra(&s, &e),
            (None, None) => {}
        }
        self.txn_index = Some(s);
    }

    /// Entries before offset `at` matched no marker.
    fn txn_extras_before(&mut self, s: &mut Stream, at: i64) {
        while let Some(IndexEntry::Txn(e)) = s.peek(self.out) {
            if e.last_offset >= at {
                break;
            }
            self.txn_extra(s, &e);
            s.advance();
        }
    }

    fn txn_extra(&mut self, s: &Stream, e: &TxnIndexEntry) {
        self.out.push(
            &s.path,
            None,
            None,
            Some(e.last_offset),
            Kind::TxnIndexExtraEntry,
            format!(
                "entry for producer {} at offset {} matches no aborted transaction in the segment",
                e.producer_id, e.last_offset
            ),
        );
    }

    /// Entries left after the log: stale (beyond the log end).
    fn finish_indexes(&mut self, log_end: u64) {
        for (stream, what) in [(self.index.take(), "offset"), (self.time_index.take(), "time")] {
            let Some(mut s) = stream else { continue };
            let mut stale = 0u64;
            let mut first: Option<IndexEntry> = None;
            while let Some(e) = s.peek(self.out) {
                first.get_or_insert(e);
                stale = stale.saturating_add(1);
                s.advance();
            }
            if let Some(e) = first {
                self.out.push(
                    &s.path,
                    Some(slot_position(&e)),
                    None,
                    Some(entry_offset(&e)),
                    Kind::IndexBeyondLogEnd,
                    format!(
                        "{stale} {what} index entr{} beyond the log's {log_end} bytes / last batch, from {} (a stale index)",
                        if stale == 1 { "y" } else { "ies" },
                        describe(&e)
                    ),
                );
            }
            let tail = s.tail();
            self.tail(&s.path, tail, what);
        }
        if let Some(mut s) = self.txn_index.take() {
            while let Some(IndexEntry::Txn(e)) = s.peek(self.out) {
                self.txn_extra(&s, &e);
                s.advance();
            }
            if let Some(t) = s.tail().filter(|t| t.partial_bytes > 0) {
                self.out.push(
                    &s.path,
                    Some(t.position),
                    None,
                    None,
                    Kind::IndexPartialEntry,
                    format!("{} byte(s) after the last whole entry", t.partial_bytes),
                );
            }
        }
    }

    fn tail(&mut self, path: &Path, tail: Option<IndexTail>, what: &str) {
        let Some(t) = tail else { return };
        if t.slots > 0 {
            if !t.zeroed {
                self.out.push(
                    path,
                    Some(t.position),
                    None,
                    None,
                    Kind::IndexGarbageTail,
                    format!("{} unused {what} index slot(s) hold non-zero bytes", t.slots),
                );
            } else if self.seg.is_active() {
                self.out.push(
                    path,
                    Some(t.position),
                    None,
                    None,
                    Kind::IndexPreallocated,
                    format!(
                        "{} preallocated, zero-filled slot(s) of the active segment's {what} index ({})",
                        t.slots,
                        why_open(path)
                    ),
                );
            } else {
                self.out.push(
                    path,
                    Some(t.position),
                    None,
                    None,
                    Kind::IndexNotTrimmed,
                    format!(
                        "{} zero-filled slot(s) in a rolled segment's {what} index, which Kafka trims at roll",
                        t.slots
                    ),
                );
            }
        }
        if t.partial_bytes > 0 {
            // (the partial bytes end the file)
            let at = std::fs::metadata(path).ok().map(|m| m.len().saturating_sub(t.partial_bytes));
            self.out.push(
                path,
                at,
                None,
                None,
                Kind::IndexPartialEntry,
                format!("{} byte(s) after the last whole {what} index entry", t.partial_bytes),
            );
        }
    }
}

/// Report a read error as a finding.
impl Findings {
    pub(crate) fn error(&mut self, path: &Path, e: &Error, kind: Kind) {
        let kind = match e.class() {
            logfmt::error::ErrorClass::Io => Kind::IoError,
            logfmt::error::ErrorClass::Memory => Kind::MemoryBudget,
            _ => kind,
        };
        let message = if kind == Kind::IoError { e.to_string() } else { e.message() };
        self.push(path, e.position(), None, None, kind, message);
    }
}

/// Why the active segment's index at `path` is still preallocated: its log
/// dir has no clean-shutdown marker, or (with one) the index was not closed
/// at the shutdown, as Kafka 4.4.0 leaves its metadata log's.
fn why_open(path: &Path) -> &'static str {
    let log_dir = path.parent().and_then(Path::parent);
    if log_dir.is_some_and(|d| d.join(logfmt::spec::names::CLEAN_SHUTDOWN).exists()) {
        "not trimmed at the clean shutdown, as Kafka 4.4.0 leaves its metadata log's"
    } else {
        "the broker was not shut down cleanly"
    }
}
