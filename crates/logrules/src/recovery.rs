//! Log recovery and index building, as a Kafka 3.9 broker does them.
//!
//! * **Two recoveries, kept apart** ([`SegmentRecovery`], [`segment_recovery`]).
//!   Kafka's log loading has two, and only the second moves the log end:
//!   - *the segment's own* (`LogLoader.loadSegmentFiles` -> `recoverSegment`):
//!     a segment whose `.index` is missing (`LogSegment.sanityCheck` throws
//!     `NoSuchFileException`) is recovered alone, at any position, after a
//!     clean shutdown too: its indexes and txn index are rebuilt from its own
//!     batches, and a cut stays inside it (the later segments are kept).
//!     The log end, high watermark, producer snapshots and leader epochs are
//!     what they were, unless it is the last segment and was cut.
//!   - *the log's* (`LogLoader.recoverLog`): after an unclean shutdown (no
//!     `.kafka_cleanshutdown`) every segment from the one holding the
//!     partition's recovery point to the last; after a clean one none; the
//!     KRaft metadata log is always read from offset 0. A cut ends it: every
//!     later segment is deleted, and the log end is where it stopped.
//! * **The log end after a clean shutdown** is read on from the last
//!   segment's `.index` last entry (`LogSegment.readNextOffset`); a garbage
//!   one makes Kafka hide the segment's records ([`hidden_log_end`]), where
//!   `recover` departs from Kafka and rebuilds the index.
//! * **A lost `.timeindex` beside its `.index`** is only created empty
//!   (`LogSegment.sanityCheck`: `timeIndex().resize(0)`), not rebuilt:
//!   [`time_index_created_empty`].
//! * **A `.txnindex` entry's version** is read as the release reads it
//!   ([`super::release::TxnIndexVersionRead`]): 3.9 to 4.3 load an entry of
//!   version 1 as it is, 4.4 does not start on it ([`load_check`]). The
//!   rules below are 3.9.1's and every later release's unless they say.
//! * **One segment** (`LogSegment.recover`): read the batches from position
//!   0; stop at the first one Kafka rejects; the log is cut there.
//! * **Index spacing** ([`IndexBuilder`], `LogSegment.recover` and
//!   `LogSegment.append`): at a batch that starts more than
//!   `index.interval.bytes` after the last index point, an offset index entry
//!   (the batch's *last* offset, its position) and a time index entry for the
//!   running maximum timestamp if it grew; a closed segment's time index ends
//!   with an entry for its maximum (the "roll" entry).
//! * Leader epochs rising in the batches are assigned to the epoch cache, and
//!   aborted transactions produce `.txnindex` entries ([`super::producer`]).
//!
//! Where logtool stops is stricter than Kafka, by design: a batch is trusted
//! only when its CRC *and* its header fit ([`logfmt::sanity`]). Kafka keeps a
//! batch with a valid CRC and a wrong `baseOffset`, then fails on it
//! (`LogSegmentOffsetOverflowException`) or serves a garbage log end; logtool
//! cuts before it ([`Stop::Invalid`] names the field). A batch larger than
//! logtool's own limit is not something Kafka would reject ([`Stop::OverLimit`]).

use logfmt::error::{Error, ErrorKind, Result};
use logfmt::index::TxnIndexEntry;
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item};
use logfmt::partition::{Partition, Segment};
use logfmt::sanity::HeaderField;
use logfmt::spec::index as layout;

use super::config::Version;
use super::epochs::EpochCache;
use super::producer::{Marker, ProducerState, end_txn_marker};

/// Kafka's offset and time index spacing, batch by batch.
#[derive(Clone, Debug)]
pub struct IndexBuilder {
    base_offset: i64,
    interval: u64,
    /// Bytes of the segment so far.
    valid_bytes: u64,
    /// Bytes at the last index point.
    last_index_entry: u64,
    /// (timestamp, offset): the running maximum, Kafka's `maxTimestampAndOffsetSoFar`.
    max_ts: (i64, i64),
    /// The last time index entry's timestamp.
    time_last: i64,
    offset_index: Vec<u8>,
    time_index: Vec<u8>,
}

impl IndexBuilder {
    /// Indexes of the segment at `base_offset`, every `interval` bytes.
    pub fn new(base_offset: i64, interval: u64) -> IndexBuilder {
        IndexBuilder {
            base_offset,
            interval,
            valid_bytes: 0,
            last_index_entry: 0,
            max_ts: (-1, base_offset),
            time_last: -1,
            offset_index: Vec::new(),
            time_index: Vec::new(),
        }
    }

    fn relative(&self, offset: i64) -> i32 {
        i32::try_from(offset.wrapping_sub(self.base_offset)).unwrap_or(i32::MAX)
    }

    fn time_append(&mut self) {
        let (ts, offset) = self.max_ts;
        if ts > self.time_last {
            let rel = self.relative(offset);
            logfmt::emit::time_index_entry(&mut self.time_index, ts, rel);
            self.time_last = ts;
        }
    }

    /// Account the next batch (at the segment's end): its size, last offset
    /// and maximum timestamp.
    pub fn add(&mut self, size: u64, last_offset: i64, max_timestamp: i64) {
        if max_timestamp > self.max_ts.0 {
            self.max_ts = (max_timestamp, last_offset);
        }
        if self.valid_bytes.saturating_sub(self.last_index_entry) > self.interval {
            let rel = self.relative(last_offset);
            let position = i32::try_from(self.valid_bytes).unwrap_or(i32::MAX);
            logfmt::emit::offset_index_entry(&mut self.offset_index, rel, position);
            self.time_append();
            self.last_index_entry = self.valid_bytes;
        }
        self.valid_bytes = self.valid_bytes.saturating_add(size);
    }

    /// `OffsetIndex.lookup` on the entries so far: the last entry whose
    /// offset is at most `target`, as (offset, position), or `None`.
    pub fn lookup(&self, target: i64) -> Option<(i64, u64)> {
        let entry = layout::OFFSET_INDEX_ENTRY_SIZE;
        let count = self.offset_index.len().checked_div(entry)?;
        let read = |slot: usize| -> Option<(i64, u64)> {
            let at = slot.checked_mul(entry)?;
            let bytes = self.offset_index.get(at..at.checked_add(entry)?)?;
            let rel = i32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
            let pos = u32::from_be_bytes(bytes.get(4..8)?.try_into().ok()?);
            Some((self.base_offset.saturating_add(i64::from(rel)), u64::from(pos)))
        };
        // the entries are in offset order: the first slot past target, minus one
        let (mut lo, mut hi) = (0usize, count);
        while lo < hi {
            let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
            if read(mid)?.0 <= target { lo = mid.saturating_add(1) } else { hi = mid }
        }
        lo.checked_sub(1).and_then(read)
    }

    /// The largest timestamp so far and its offset (Kafka's
    /// `maxTimestampAndOffsetSoFar`; `(-1, base)` before any batch).
    pub fn max_timestamp(&self) -> (i64, i64) {
        self.max_ts
    }

    /// Bytes accounted so far.
    pub fn valid_bytes(&self) -> u64 {
        self.valid_bytes
    }

    /// Entries so far: (offset index, time index).
    pub fn entries(&self) -> (usize, usize) {
        (
            self.offset_index.len() / layout::OFFSET_INDEX_ENTRY_SIZE,
            self.time_index.len() / layout::TIME_INDEX_ENTRY_SIZE,
        )
    }

    /// The `.index` and `.timeindex` of a closed segment (with its roll entry).
    pub fn finish(mut self) -> (Vec<u8>, Vec<u8>) {
        self.time_append();
        (self.offset_index, self.time_index)
    }

    /// The entries of a segment still being appended to (no roll entry).
    pub fn unfinished(self) -> (Vec<u8>, Vec<u8>) {
        (self.offset_index, self.time_index)
    }
}

/// Why recovery stopped before the end of the segment.
#[derive(Debug)]
pub enum Stop {
    /// A batch Kafka rejects, a batch whose header does not fit, or
    /// unreadable bytes: the log is cut here.
    Invalid {
        /// Where.
        position: u64,
        /// What is wrong.
        error: Error,
        /// Whether the rest of the file is a torn final write.
        torn_tail: bool,
        /// The header field at fault, when it is one outside the CRC (Kafka
        /// itself keeps such a batch).
        field: Option<HeaderField>,
    },
    /// A batch larger than `Limits::max_batch_size` (whole in the file): not
    /// an error to Kafka, but more than logtool may hold to check it.
    OverLimit {
        /// Where.
        position: u64,
        /// What is wrong.
        error: Error,
        /// The batch's size in bytes: the limit it needs.
        size: u64,
    },
}

/// What recovering one segment produced.
#[derive(Debug)]
pub struct Rebuilt {
    /// Bytes of the log kept (the file is cut here).
    pub valid_bytes: u64,
    /// The file's size.
    pub size: u64,
    /// Why it stopped early, if it did.
    pub stop: Option<Stop>,
    /// The new `.index` file.
    pub offset_index: Vec<u8>,
    /// The new `.timeindex` file.
    pub time_index: Vec<u8>,
    /// Aborted transactions of the segment, in order (`.txnindex` entries).
    pub txn_index: Vec<TxnIndexEntry>,
    /// (epoch, base offset) where a higher leader epoch first appears.
    pub epochs: Vec<(i32, i64)>,
    /// Offset after the last valid batch, if any.
    pub next_offset: Option<i64>,
    /// Batches kept.
    pub batches: u64,
}

impl Rebuilt {
    /// The `.txnindex` bytes.
    pub fn txn_index_bytes(&self) -> Vec<u8> {
        logfmt::emit::txn_index(&self.txn_index)
    }
}

/// Recover one segment (see the module docs). `state` is the producer state
/// at the segment's start and is advanced through it; `latest_epoch` is the
/// epoch cache's latest epoch before the segment.
pub fn recover_segment(
    seg: &Segment,
    index_interval_bytes: u64,
    state: &mut ProducerState,
    latest_epoch: Option<i32>,
    limits: &Limits,
) -> Result<Rebuilt> {
    let (mut out, idx) = recover_active_segment(seg, index_interval_bytes, state, latest_epoch, limits)?;
    (out.offset_index, out.time_index) = idx.finish();
    Ok(out)
}

/// [`recover_segment`] of the segment a writer goes on appending to: the
/// indexes stay an [`IndexBuilder`] (no roll entry; `offset_index` and
/// `time_index` of the result are empty).
pub fn recover_active_segment(
    seg: &Segment,
    index_interval_bytes: u64,
    state: &mut ProducerState,
    latest_epoch: Option<i32>,
    limits: &Limits,
) -> Result<(Rebuilt, IndexBuilder)> {
    let mut r = seg.reader(limits)?;
    let size = r.end();
    let mut out = Rebuilt {
        valid_bytes: 0,
        size,
        stop: None,
        offset_index: Vec::new(),
        time_index: Vec::new(),
        txn_index: Vec::new(),
        epochs: Vec::new(),
        next_offset: None,
        batches: 0,
    };
    let mut idx = IndexBuilder::new(seg.base, index_interval_bytes);
    let mut epoch = latest_epoch;
    let mut scratch = Vec::new();
    while let Some(item) = r.next_item()? {
        let entry = match item {
            Item::Entry(e) => e,
            Item::Damage(d) => {
                let over = match d.error.kind() {
                    ErrorKind::BadLength { what, value, .. } if what.contains("max-batch-size") => {
                        Some(u64::try_from(*value).unwrap_or(0).saturating_add(logfmt::spec::log::LOG_OVERHEAD as u64))
                    }
                    _ => None,
                };
                out.stop = Some(match over {
                    Some(size) => Stop::OverLimit { position: d.start, error: d.error, size },
                    None => {
                        Stop::Invalid { position: d.start, error: d.error, torn_tail: d.truncated_tail, field: d.field }
                    }
                });
                break;
            }
        };
        let pos = entry.position();
        if !entry.is_valid() {
            let e = Error::malformed(pos, "record batch", "CRC mismatch: Kafka's recovery stops here");
            out.stop = Some(Stop::Invalid { position: pos, error: e, torn_tail: false, field: None });
            break;
        }
        let last = entry.last_offset();
        let batch_max_ts = match &entry {
            Entry::V2(b) => b.header().max_timestamp,
            Entry::Legacy(m) => m.timestamp,
        };
        idx.add(entry.size(), last, batch_max_ts);
        out.batches = out.batches.saturating_add(1);
        out.next_offset = Some(last.wrapping_add(1));
        if let Entry::V2(b) = &entry {
            let h = *b.header();
            if EpochCache::starts_entry(epoch, h.partition_leader_epoch) {
                epoch = Some(h.partition_leader_epoch);
                out.epochs.push((h.partition_leader_epoch, h.base_offset));
            }
            let m = if h.is_control() { end_txn_marker(b, &mut scratch, limits) } else { None };
            if let Some(Marker::Completed(c)) = state.apply(&h, m.as_ref())
                && let Some(e) = c.txn_index_entry()
            {
                out.txn_index.push(e);
            }
        }
    }
    out.valid_bytes = idx.valid_bytes();
    Ok((out, idx))
}

/// What Kafka's own recovery (`LogSegment.recover`: size and CRC only) does
/// with a batch whose header field `field`, outside the CRC, is wrong.
pub fn what_kafka_does(field: HeaderField) -> &'static str {
    match field {
        HeaderField::BaseOffset => {
            "Kafka's recovery keeps it (the CRC does not cover baseOffset), then refuses to load the log (LogSegmentOffsetOverflowException) or serves offsets and a log end from the wrong base"
        }
        HeaderField::PartitionLeaderEpoch => {
            "Kafka's recovery keeps it (the CRC does not cover partitionLeaderEpoch) and puts the wrong epoch into its leader-epoch cache, which replicas then truncate by"
        }
        HeaderField::Magic => {
            "Kafka's recovery cuts here when the magic reads as 0 or 1 (the legacy CRC fails); above 2 it reads the batch as v2 and keeps it"
        }
        HeaderField::BatchLength => {
            "Kafka's recovery cuts here too (the CRC over the bytes the length spans fails), and so loses every batch after it"
        }
    }
}

/// The first segment Kafka recovers when it loads `p` (`LogLoader.recoverLog`):
/// `None` after a clean shutdown (segments without an index are recovered
/// regardless, see [`segment_recovery`]); with `all`, the first.
pub fn first_to_recover(p: &Partition, clean_shutdown: bool, all: bool) -> Option<usize> {
    if all || p.is_metadata_log() {
        return Some(0);
    }
    if clean_shutdown {
        return None;
    }
    // the floor segment of the recovery point (a partition missing from the
    // checkpoint recovers from 0, as in Kafka)
    let rp = p.checkpoints.recovery_point.unwrap_or(0);
    Some(p.segments.iter().rposition(|s| s.base <= rp).unwrap_or(0))
}

/// Which of Kafka's two recoveries a segment gets when its log is loaded
/// (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentRecovery {
    /// None: the segment is loaded as it is.
    None,
    /// Its own (`LogLoader.loadSegmentFiles` -> `recoverSegment`, for a
    /// missing `.index`): its indexes rebuilt, a cut kept inside it, the
    /// log end and everything past the segment untouched.
    Segment,
    /// The log's (`LogLoader.recoverLog`, from the recovery point to the
    /// end): a cut deletes every later segment and sets the log end.
    Log,
}

/// Which recovery Kafka `version` gives segment `i` of `p`, `first` being
/// [`first_to_recover`]'s answer. A segment both above the recovery point
/// and recovered alone is recovered twice by Kafka, with the same result:
/// [`SegmentRecovery::Log`] says what follows from it. A segment whose
/// `.txnindex` the release refuses ([`LoadCheck::TxnIndexVersionRefused`])
/// gets none: the broker stops there.
pub fn segment_recovery(p: &Partition, i: usize, first: Option<usize>, version: Version) -> SegmentRecovery {
    if first.is_some_and(|f| i >= f) {
        return SegmentRecovery::Log;
    }
    p.segments.get(i).map_or(SegmentRecovery::None, |s| recovery_of(load_check(s, version), i, first))
}

/// [`segment_recovery`] of segment `i` whose [`load_check`] is `check`
/// (for a caller that needs the check too, so that it is read once).
pub fn recovery_of(check: LoadCheck, i: usize, first: Option<usize>) -> SegmentRecovery {
    if first.is_some_and(|f| i >= f) {
        return SegmentRecovery::Log;
    }
    match check {
        LoadCheck::Fine | LoadCheck::TxnIndexVersionRefused { .. } => SegmentRecovery::None,
        LoadCheck::IndexMissing | LoadCheck::TxnIndexCorrupt { .. } => SegmentRecovery::Segment,
    }
}

/// What `LogSegment.sanityCheck` finds when Kafka loads a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadCheck {
    /// Nothing: the segment is loaded as it is.
    Fine,
    /// No `.index` (`NoSuchFileException`): recovered alone.
    IndexMissing,
    /// A `.txnindex` entry ending below the segment's base
    /// (`TransactionIndex.sanityCheck`: `CorruptIndexException`): recovered alone.
    TxnIndexCorrupt {
        /// The entry's byte position.
        position: u64,
        /// Its last offset.
        last_offset: i64,
    },
    /// A `.txnindex` entry of a version the release refuses
    /// ([`TxnIndexVersionRead`](super::release::TxnIndexVersionRead)):
    /// `KafkaException` ("Unexpected aborted transaction version"), which
    /// stops the broker ([`super::start::txn_index_version_refusal`]).
    TxnIndexVersionRefused {
        /// The entry's byte position.
        position: u64,
        /// Its version as the release reads it.
        version: i16,
    },
}

/// [`LoadCheck`] of `seg` by Kafka `version`: its `.index` exists, and
/// every whole entry of its `.txnindex` passes `TransactionIndex.sanityCheck`
/// in file order (an unreadable `.txnindex` is left to the readers that
/// report it): first the entry's version as the release reads it (3.9 to
/// 4.3 read only its first byte, so an entry of version 1 passes as 0 and is
/// kept, as Kafka 3.9.1 did in the start matrix; 4.4 refuses it), then its
/// last offset against the segment's base.
pub fn load_check(seg: &Segment, version: Version) -> LoadCheck {
    use std::io::Read;
    if !seg.sibling(logfmt::spec::names::INDEX_FILE_SUFFIX).exists() {
        return LoadCheck::IndexMissing;
    }
    let Ok(f) = std::fs::File::open(seg.sibling(logfmt::spec::names::TXN_INDEX_FILE_SUFFIX)) else {
        return LoadCheck::Fine;
    };
    let read = version.release().txn_index_version;
    let mut r = std::io::BufReader::new(f);
    let mut entry = [0u8; layout::TXN_INDEX_ENTRY_SIZE];
    let mut position = 0u64;
    while r.read_exact(&mut entry).is_ok() {
        let v = read.read([entry[0], entry[1]]);
        if read.refuses(v) {
            return LoadCheck::TxnIndexVersionRefused { position, version: v };
        }
        let last_offset = i64::from_be_bytes(entry[18..26].try_into().unwrap_or_default());
        if last_offset < seg.base {
            return LoadCheck::TxnIndexCorrupt { position, last_offset };
        }
        position = position.saturating_add(layout::TXN_INDEX_ENTRY_SIZE as u64);
    }
    LoadCheck::Fine
}

/// The log end Kafka's load takes after a clean shutdown when the last
/// segment's `.index` hides records ([`hidden_log_end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HiddenLogEnd {
    /// The offset of the `.index`'s last entry.
    pub entry_offset: i64,
    /// The log end Kafka takes: the segment's base offset.
    pub kafka: i64,
    /// The log end its batches give.
    pub actual: i64,
}

/// After a clean shutdown Kafka's load recovers nothing and takes the log
/// end from the last segment (`LogLoader.recoverLog` ->
/// `LogSegment.readNextOffset`): it looks up the `.index`'s last entry and
/// reads on from its position for a batch reaching its offset. An entry
/// past every batch (its offset past the last one, or its position past
/// the `.log`; a garbage `.index`) finds none, and the log end becomes the
/// segment's base offset: the records above it are hidden, the producer
/// snapshots past it deleted, and the next appends reuse their offsets
/// (Kafka 3.9.1 and 4.3.1 in the start matrix, row index_garbage_active).
/// `actual`: the log end the batches give ([`super::log::log_end_offset`]).
/// `None` when the index finds the end (an empty `.index` reads from the
/// segment's start, which is right) or the segment has no batch.
pub fn hidden_log_end(p: &Partition, actual: i64) -> Option<HiddenLogEnd> {
    let active = p.active()?;
    let index = active.index.as_ref()?;
    let entry = logfmt::index::lookup_offset(index, active.base, i64::MAX).ok()??;
    let past_the_log = u64::try_from(entry.position).map_or(true, |pos| pos >= active.size);
    (actual > active.base && (entry.offset >= actual || past_the_log)).then_some(HiddenLogEnd {
        entry_offset: entry.offset,
        kafka: active.base,
        actual,
    })
}

/// Whether Kafka recovers segment `i` of `p` when it loads it, by either
/// recovery.
pub fn needs_recovery(p: &Partition, i: usize, first: Option<usize>, version: Version) -> bool {
    segment_recovery(p, i, first, version) != SegmentRecovery::None
}

/// Whether Kafka's load creates segment `i`'s `.timeindex` empty: it is
/// missing beside an existing `.index` and no recovery rebuilds it
/// (`LogSegment.sanityCheck(timeIndexFileNewlyCreated)`).
pub fn time_index_created_empty(p: &Partition, i: usize, first: Option<usize>, version: Version) -> bool {
    use logfmt::spec::names as n;
    p.segments.get(i).is_some_and(|s| !s.sibling(n::TIME_INDEX_FILE_SUFFIX).exists())
        && segment_recovery(p, i, first, version) == SegmentRecovery::None
}

/// What Kafka's load does with a partition's files of a temporary suffix
/// (`LogLoader.removeTempFilesAndCollectSwapFiles`, then the swaps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leftover {
    /// `.deleted`: deleted (a deletion Kafka had scheduled).
    Deleted,
    /// `.cleaned`: deleted (the output of a cleaning that did not finish).
    Cleaned,
    /// `.swap` at or above the lowest `.cleaned` offset: deleted (part of a
    /// split that did not finish).
    SwapInvalid,
    /// Any other `.swap`: swapped in (`completeSwapOperations`; its index
    /// swaps are deleted, its segment recovered and renamed `.log`).
    Swap,
}

/// [`Leftover`] of each of `p`'s files with a temporary suffix that Kafka's
/// load handles (`.part` and `.tmp` files are not the log loader's).
pub fn leftovers_on_load(p: &Partition) -> Vec<(std::path::PathBuf, Leftover)> {
    use logfmt::naming::TempSuffix;
    let min_cleaned = p
        .leftovers
        .iter()
        .filter(|(_, n)| n.suffix == Some(TempSuffix::Cleaned))
        .filter_map(|(_, n)| n.offset)
        .min()
        .unwrap_or(i64::MAX);
    p.leftovers
        .iter()
        .filter_map(|(f, n)| {
            let what = match n.suffix? {
                TempSuffix::Deleted => Leftover::Deleted,
                TempSuffix::Cleaned => Leftover::Cleaned,
                TempSuffix::Swap if n.offset.is_some_and(|o| o >= min_cleaned) => Leftover::SwapInvalid,
                TempSuffix::Swap => Leftover::Swap,
                TempSuffix::Partial => return None,
            };
            Some((f.clone(), what))
        })
        .collect()
}

/// What Kafka's load does to complete interrupted swaps
/// (`LogLoader.load`'s first three passes): the segments the `.log.swap`
/// files replace - every file named by an offset from the lowest swap's
/// base to the highest swap's next offset, snapshots too - deleted, then
/// every valid `.swap` file renamed without its suffix.
#[derive(Debug, Default)]
pub struct SwapsOnLoad {
    /// Files deleted.
    pub removed: Vec<std::path::PathBuf>,
    /// Swap files renamed: (from, to).
    pub renamed: Vec<(std::path::PathBuf, std::path::PathBuf)>,
}

/// [`SwapsOnLoad`] of `p` (nothing when it holds no valid `.swap` file).
pub fn swaps_on_load(p: &Partition, limits: &Limits) -> Result<SwapsOnLoad> {
    let swaps: Vec<std::path::PathBuf> =
        leftovers_on_load(p).into_iter().filter(|(_, l)| *l == Leftover::Swap).map(|(f, _)| f).collect();
    let mut out = SwapsOnLoad::default();
    if swaps.is_empty() {
        return Ok(out);
    }
    let (mut min, mut max) = (i64::MAX, i64::MIN);
    for f in &swaps {
        let name = f.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let Some(stem) = name.strip_suffix(".log.swap") else { continue };
        let Ok(base) = stem.parse::<i64>() else { continue };
        // `readNextOffset`: after the last batch, the base when there is none
        let mut r = logfmt::log::LogReader::open(f, *limits)?;
        let mut next = base;
        while let Some(Item::Entry(e)) = r.next_item()? {
            next = e.last_offset().saturating_add(1);
        }
        min = min.min(base);
        max = max.max(next);
    }
    let rd = std::fs::read_dir(&p.dir).map_err(|e| Error::io(e, Some(&p.dir)))?;
    for entry in rd {
        let path = entry.map_err(|e| Error::io(e, Some(&p.dir)))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !path.is_file() || name.ends_with(".swap") {
            continue;
        }
        // `offsetFromFile`: the name up to its first '.'
        let offset = name.split('.').next().and_then(|o| o.parse::<i64>().ok());
        if offset.is_some_and(|o| o >= min && o < max) {
            out.removed.push(path);
        }
    }
    out.removed.sort();
    for f in swaps {
        let to = f.with_extension("");
        out.renamed.push((f, to));
    }
    Ok(out)
}

/// The leader-epoch cache `p`'s batches give: an entry where a batch first
/// carries a higher epoch (`LogSegment.recover` assigning each recovered
/// batch's epoch), none below the log start (`truncateFromStart`). What
/// Kafka's cache holds of a log whose epochs are all in its batches; an
/// epoch that wrote nothing before the log end is not (and Kafka's load
/// drops one at the end: `truncateFromEnd`).
pub fn epochs_from_batches(p: &Partition, limits: &Limits) -> Result<EpochCache> {
    let mut cache = EpochCache::load(Vec::new());
    for seg in &p.segments {
        logfmt::partition::scan(seg, limits, |b| {
            if b.epoch >= 0 && EpochCache::starts_entry(cache.latest_epoch(), b.epoch) {
                cache.assign(b.epoch, b.base_offset);
            }
        })?;
    }
    cache.truncate_from_start(super::log::log_start_offset(p));
    Ok(cache)
}

/// One segment recovery of a log's load, in the order Kafka runs them.
#[derive(Clone, Copy, Debug)]
pub struct Recovered {
    /// The segment's index in the partition.
    pub index: usize,
    /// Which recovery (a segment's own runs while the segments are being
    /// loaded, so it sees only those before it; the log's sees them all).
    pub how: SegmentRecovery,
    /// The offset after its last batch once recovered (its base when it
    /// holds none).
    pub end: i64,
    /// The bytes the recovery found valid (from the segment's start): a
    /// replay of them need not check their batches' checksums again.
    pub valid_bytes: u64,
}

/// What Kafka's load does to a partition's producer snapshots
/// ([`snapshots_on_load`]).
#[derive(Debug, Default)]
pub struct SnapshotsOnLoad {
    /// Snapshot files it deletes because of what the recoveries found or
    /// did (the rest of the plan depends on their going).
    pub removed: Vec<std::path::PathBuf>,
    /// Stray snapshot files it deletes on any load, damaged or not
    /// (`removeStraySnapshots`: at no segment base, below the last one),
    /// whatever else deletes them first: housekeeping that changes no
    /// state, which a repair may leave to Kafka.
    pub strays: Vec<std::path::PathBuf>,
    /// Snapshots it writes (new, or in place of a file it deleted first),
    /// by offset, with the producer state each holds.
    pub written: Vec<(i64, ProducerState)>,
}

/// A snapshot in the simulation: a file as it is, or one Kafka writes.
#[derive(Clone)]
enum Snap {
    Disk(std::path::PathBuf),
    Made(ProducerState),
}

/// The producer snapshots as `ProducerStateManager` handles them during a
/// load: files deleted and written, and where a manager's map stands.
struct SnapshotSim<'a> {
    p: &'a Partition,
    limits: &'a Limits,
    /// The wall clock of the load, in ms: producers expire from what it reads.
    now_ms: i64,
    log_start: i64,
    snaps: std::collections::BTreeMap<i64, Snap>,
    /// A recovered segment's end and valid bytes by its base: what
    /// recovery left of it is all a later scan reads.
    ends: std::collections::BTreeMap<i64, (i64, u64)>,
}

/// One `ProducerStateManager` (`lastSnapOffset`, `lastMapOffset`, its state).
struct Manager {
    last_snap: i64,
    map_end: i64,
    state: ProducerState,
}

impl SnapshotSim<'_> {
    /// `truncateAndReload(logStartOffset, logEndOffset)`: snapshots out of
    /// range deleted, then the latest loadable one loaded (a corrupt one is
    /// deleted and the next tried: `loadFromSnapshot`).
    fn truncate_and_reload(&mut self, m: &mut Manager, end: i64) {
        let log_start = self.log_start;
        self.snaps.retain(|&o, _| o <= end && o > log_start);
        if end == m.map_end {
            return;
        }
        loop {
            let Some((&o, snap)) = self.snaps.iter().next_back() else {
                *m = Manager { last_snap: log_start, map_end: log_start, state: ProducerState::with_entries() };
                return;
            };
            let loaded = match snap {
                Snap::Made(state) => Some(state.clone()),
                Snap::Disk(path) => logfmt::snapshot::read(path, self.limits)
                    .ok()
                    .filter(|s| s.crc_valid())
                    .map(|s| ProducerState::from_snapshot_with_entries(&s)),
            };
            match loaded {
                Some(mut state) => {
                    state.expire(self.now_ms, super::producer::DEFAULT_PRODUCER_ID_EXPIRATION_MS);
                    *m = Manager { last_snap: o, map_end: o, state };
                    return;
                }
                None => {
                    self.snaps.remove(&o);
                }
            }
        }
    }

    /// `takeSnapshot`: a snapshot at the map's end, unless it is not past the last one.
    fn take(&mut self, m: &mut Manager) {
        if m.map_end > m.last_snap {
            self.snaps.insert(m.map_end, Snap::Made(m.state.clone()));
            m.last_snap = m.map_end;
        }
    }

    /// `UnifiedLog.rebuildProducerState(manager, segments, logStart, end,
    /// reloadFromCleanShutdown)`, `bases` being the bases of the segments
    /// loaded so far.
    fn rebuild(&mut self, m: &mut Manager, bases: &[i64], end: i64, clean: bool) -> Result<()> {
        let last = bases.last().copied();
        let lower = bases.len().checked_sub(2).and_then(|i| bases.get(i)).copied();
        let to_snapshot = [lower, last, Some(end)];
        if clean && self.snaps.is_empty() {
            // no snapshot after a clean shutdown: empty ones, nothing scanned
            for o in to_snapshot.into_iter().flatten() {
                m.map_end = o;
                self.take(m);
            }
            return Ok(());
        }
        let empty_before = m.state.snapshot_entries().is_empty() && m.map_end >= end;
        self.truncate_and_reload(m, end);
        if !empty_before && m.map_end < end {
            for seg in &self.p.segments {
                if !bases.contains(&seg.base) || seg.base >= end || seg.next_base.is_some_and(|n| n <= m.map_end) {
                    continue;
                }
                let start = m.map_end.max(seg.base).max(self.log_start);
                m.map_end = start;
                if to_snapshot.contains(&Some(seg.base)) {
                    self.take(m);
                }
                let (until, checked) = self.ends.get(&seg.base).map_or((end, 0), |&(e, v)| (e.min(end), v));
                m.state.replay(seg, start, until, checked, self.limits)?;
            }
        }
        m.map_end = end;
        self.take(m);
        Ok(())
    }
}

/// The snapshots `removeStraySnapshots` deletes among `offsets`, `bases`
/// being the segments': those at no base, but the latest of them when it
/// is past the last base.
fn stray_snapshots(offsets: impl Iterator<Item = i64>, bases: &[i64]) -> Vec<i64> {
    let strays: Vec<i64> = offsets.filter(|o| !bases.contains(o)).collect();
    let mut out = Vec::new();
    if let Some((&latest, rest)) = strays.split_last() {
        out.extend_from_slice(rest);
        if bases.last().is_some_and(|&max| latest < max) {
            out.push(latest);
        }
    }
    out
}

/// What Kafka's load does to `p`'s producer snapshots, given the segment
/// recoveries it runs (`steps`, in order), the segments left after them
/// (`kept`: a cut in the log's recovery deletes the later ones) and the log
/// end. It follows the code, not a summary of it:
///
/// * each recovery (`LogLoader.recoverSegment`) makes a new
///   `ProducerStateManager` and rebuilds it up to the segment's base
///   (`UnifiedLog.rebuildProducerState`): `truncateAndReload` **deletes every
///   snapshot above that base** (and at or below the log start), loads the
///   latest one left, scans the segments loaded so far (a snapshot at each
///   of the last two segments' bases) and takes one at the base; the
///   segment is recovered and a snapshot taken at its end;
/// * then the log's own manager: `removeStraySnapshots` (a snapshot at no
///   segment base is deleted, but the latest one when it is past the last
///   base), and `rebuildProducerState` up to the log end: snapshots past it
///   deleted, the latest loaded (a corrupt one deleted, the next tried),
///   the segments scanned from it (snapshots at the last two bases), one
///   taken at the log end; after a clean shutdown with no snapshot at all,
///   empty snapshots at the last two bases and the log end instead.
///
/// So a lost index costs no snapshot that the scan does not write again,
/// with the state the log's batches give (a compacted log's may be
/// smaller). A snapshot read loses the producers expired at `now_ms`
/// (`isProducerExpired`: no open transaction, last batch
/// `producer.id.expiration.ms` ago; Kafka's default, as a broker's own
/// setting is not in the log dir).
pub fn snapshots_on_load(
    p: &Partition,
    steps: &[Recovered],
    kept: usize,
    log_end: i64,
    clean: bool,
    now_ms: i64,
    limits: &Limits,
) -> Result<SnapshotsOnLoad> {
    let log_start = p.checkpoints.log_start_offset.unwrap_or(0);
    let disk: std::collections::BTreeMap<i64, Snap> =
        p.snapshots.iter().map(|(o, f)| (*o, Snap::Disk(f.clone()))).collect();
    let ends = steps.iter().filter_map(|s| Some((p.segments.get(s.index)?.base, (s.end, s.valid_bytes)))).collect();
    let mut sim = SnapshotSim { p, limits, now_ms, log_start, snaps: disk.clone(), ends };
    // the log's recovery sees every segment (it deletes those after a cut
    // once it is done); the log's manager those kept
    let every: Vec<i64> = p.segments.iter().map(|s| s.base).collect();
    let all: Vec<i64> = every.iter().take(kept).copied().collect();
    for step in steps {
        let Some(seg) = p.segments.get(step.index) else { continue };
        let loaded = match step.how {
            SegmentRecovery::Segment => every.get(..step.index).unwrap_or(&every),
            _ => &every[..],
        };
        let mut m = Manager { last_snap: 0, map_end: 0, state: ProducerState::with_entries() };
        sim.rebuild(&mut m, loaded, seg.base, false)?;
        m.state.replay(seg, seg.base, step.end, step.valid_bytes, limits)?;
        m.map_end = m.map_end.max(step.end);
        sim.take(&mut m);
    }
    // the log's own manager
    for o in stray_snapshots(sim.snaps.keys().copied(), &all) {
        sim.snaps.remove(&o);
    }
    // what a load of the dir as it is would delete all the same
    let housekeeping = stray_snapshots(disk.keys().copied(), &all);
    // (the log start LogLoader loads: with remote storage, the checkpointed
    // one, below the local segments)
    let new_start =
        if super::log::remote_log_enabled(p) { log_start } else { log_start.max(all.first().copied().unwrap_or(0)) };
    sim.log_start = new_start;
    let mut m = Manager { last_snap: 0, map_end: 0, state: ProducerState::with_entries() };
    sim.rebuild(&mut m, &all, log_end, clean)?;
    let mut out = SnapshotsOnLoad::default();
    for (o, snap) in &disk {
        if !sim.snaps.contains_key(o)
            && let Snap::Disk(f) = snap
        {
            if housekeeping.contains(o) { out.strays.push(f.clone()) } else { out.removed.push(f.clone()) }
        }
    }
    for (o, snap) in sim.snaps {
        if let Snap::Made(state) = snap {
            out.written.push((o, state));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logfmt::partition::LogDirCheckpoints;

    use test_support::committed_fixtures as fixtures;

    /// A segment the broker rolled and closed was indexed on append; rebuilt
    /// by recovery it must give the same files when nothing made the broker's
    /// byte counter restart (no restart, truncation or multi-batch append) in
    /// it: the first segments of partitions written in one go.
    #[test]
    fn rebuilt_indexes_equal_the_brokers_for_segments_written_in_one_go() {
        for (dir, interval) in
            [("clean/logs/plain-0", 1024), ("clean/logs/txn-0", 512), ("sigkill/logs/kill-plain-0", 1024)]
        {
            let p = Partition::open_with(&fixtures().join(dir), &LogDirCheckpoints::default()).unwrap();
            let seg = &p.segments[0];
            let mut state = ProducerState::default();
            let r = recover_segment(seg, interval, &mut state, None, &Limits::default()).unwrap();
            assert!(r.stop.is_none(), "{dir}: {:?}", r.stop);
            assert_eq!(r.valid_bytes, r.size);
            let base = seg.log.with_extension("");
            assert_eq!(r.offset_index, std::fs::read(base.with_extension("index")).unwrap(), "{dir} .index");
            assert_eq!(r.time_index, std::fs::read(base.with_extension("timeindex")).unwrap(), "{dir} .timeindex");
            if let Ok(txn) = std::fs::read(base.with_extension("txnindex")) {
                assert_eq!(r.txn_index_bytes(), txn, "{dir} .txnindex");
            }
        }
    }

    /// A replay told how many bytes a recovery found valid skips their
    /// checksums and gives the state a replay checking every one gives: on
    /// a transactional segment as written, and with a batch damaged, where
    /// the recovery stops and the replay checks everything after it.
    #[test]
    fn a_replay_trusting_what_recovery_checked_gives_the_same_state() {
        let src = fixtures().join("clean/logs/txn-0");
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("txn-0");
        std::fs::create_dir(&dir).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
        let limits = Limits::default();
        let replayed = |p: &Partition, checked: u64| {
            let mut state = ProducerState::with_entries();
            state.replay(&p.segments[1], 0, i64::MAX, checked, &limits).unwrap();
            state.snapshot_entries()
        };
        for damage in [false, true] {
            if damage {
                // the maxTimestamp of producer 6's batch at byte 1293 (offsets
                // 62-66): its checksum fails
                let log = dir.join("00000000000000000036.log");
                let mut bytes = std::fs::read(&log).unwrap();
                bytes[1293 + 42] ^= 0xff;
                std::fs::write(&log, bytes).unwrap();
            }
            let p = Partition::open_with(&dir, &LogDirCheckpoints::default()).unwrap();
            let r = recover_segment(&p.segments[1], 512, &mut ProducerState::default(), None, &limits).unwrap();
            assert_eq!(r.stop.is_some(), damage, "{:?}", r.stop);
            let every = replayed(&p, 0);
            assert!(!every.is_empty());
            assert_eq!(replayed(&p, r.valid_bytes), every, "damaged: {damage}");
            // (trusting the damaged batch too would count it)
            assert_eq!(replayed(&p, u64::MAX) == every, !damage);
        }
    }
}
