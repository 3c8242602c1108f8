//! A partition's offsets as `UnifiedLog` keeps them: log start, log end,
//! high watermark, and what moving either end does to the rest.
//!
//! * **Log start** (`LogLoader.load`, `UnifiedLog.logStartOffset`): the
//!   checkpointed log start offset, at least the first segment's base offset;
//!   with remote storage (tiered storage) the checkpointed one, and the
//!   **local log start** is where the local segments begin.
//!   DeleteRecords and retention raise it (`maybeIncrementLogStartOffset`);
//!   records below it may stay in the first segment but no reader gets them.
//! * **Log end** (`LogSegment.readNextOffset` of the active segment): after
//!   the active segment's last batch, or its base offset when it has none.
//! * **High watermark on load** (`UnifiedLog.updateHighWatermark` from the
//!   checkpoint): kept within the log start and the log end.
//! * **Truncating the end** (`UnifiedLog.truncateTo`): the leader-epoch cache
//!   loses entries starting at or after the new end (`truncateFromEnd`), or
//!   everything when the whole log goes (`truncateFullyAndStartAt`); producer
//!   snapshots past the new end are deleted
//!   (`ProducerStateManager.truncateAndReload`); the high watermark, recovery
//!   point and cleaner offset are lowered to the new end.
//! * **Moving the start** (`maybeIncrementLogStartOffset`): the leader-epoch
//!   cache is truncated from the start (`truncateFromStart`).
//! * **Rolling and flushing** (`UnifiedLog.roll`, `LocalLog.roll`,
//!   `flushUptoOffsetExclusive`): a new, empty segment starts at the log
//!   end (`.log`, `.index`, `.timeindex`; the old one keeps its final time
//!   index entry), a producer snapshot is taken at that offset, and once the
//!   old segments are flushed the recovery point moves to the new base. A
//!   broker loading after an unclean shutdown recovers from the segment
//!   holding the recovery point (`LogLoader.recoverLog`,
//!   `LogSegments.values(recoveryPoint, ...)`), so after a roll and flush it
//!   recovers only the empty new segment.
//! * **Compaction** (`LogCleanerManager`): a partition the cleaner has run
//!   on has an entry in `cleaner-offset-checkpoint` (kept when the policy
//!   later changes); `cleanup.policy=compact` topics and Kafka's compacted
//!   internal topics may have been compacted by another replica. Only a
//!   log that cannot have been compacted has consecutive offsets throughout.

use std::path::{Path, PathBuf};

use logfmt::batch::{BatchHeader, Record};
use logfmt::error::Result;
use logfmt::index::lookup_offset;
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item};
use logfmt::metadata::CLEANUP_POLICY;
use logfmt::partition::{BatchInfo, LogDir, Partition, Segment};

use super::epochs::EpochCache;

/// Whether a partition's offsets may have gaps from compaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compaction {
    /// The cleaner ran on it, or its topic is compacted.
    Compacted,
    /// Its topic's `cleanup.policy` is `delete` and no cleaner ran on it:
    /// its offsets are consecutive.
    Never,
    /// No metadata log says what its topic is.
    Unknown,
}

/// Kafka's internal topics, which are compacted.
const COMPACTED_INTERNAL_TOPICS: [&str; 3] = ["__consumer_offsets", "__transaction_state", "__share_group_state"];

/// Whether `p` (in `log_dir`) may have been compacted.
pub fn compaction(p: &Partition, log_dir: &LogDir) -> Compaction {
    if p.checkpoints.cleaner_offset.is_some() || COMPACTED_INTERNAL_TOPICS.contains(&p.name.topic.as_str()) {
        return Compaction::Compacted;
    }
    if p.is_metadata_log() {
        return Compaction::Never;
    }
    match log_dir.topic_config(&p.name.topic, CLEANUP_POLICY) {
        Some((policy, _)) if policy.contains("compact") => Compaction::Compacted,
        Some(_) => Compaction::Never,
        None => Compaction::Unknown,
    }
}

/// `LogSegment.largestTimestamp`: the largest batch maxTimestamp of `seg`
/// (`max_batch_timestamp`), else, with none at or above 0, the `.log`'s
/// modification time (what retention by time and the cleaner's
/// `min.compaction.lag.ms` compare).
pub fn largest_timestamp(max_batch_timestamp: Option<i64>, seg: &Segment) -> i64 {
    match max_batch_timestamp {
        Some(ts) if ts >= 0 => ts,
        _ => seg.modified_ms(),
    }
}

/// Whether Kafka keeps `p` with remote storage (tiered storage,
/// `UnifiedLog.isRemoteLogEnabled`): its topic's `remote.storage.enable`,
/// not an internal topic, the metadata log or `__remote_log_metadata` (nor
/// compacted: Kafka refuses `cleanup.policy=compact` with it). The broker's
/// `remote.log.storage.system.enable` is not in a log dir; a topic cannot
/// have `remote.storage.enable=true` where it was off
/// (`LogConfig.validateRemoteStorageOnlyIfSystemEnabled`), so it is taken
/// as on.
pub fn remote_log_enabled(p: &Partition) -> bool {
    p.remote_storage_enable == Some(true)
        && !COMPACTED_INTERNAL_TOPICS.contains(&p.name.topic.as_str())
        && !p.is_metadata_log()
        && p.name.topic != kmsg::remote::REMOTE_LOG_METADATA_TOPIC
}

/// The log start offset Kafka loads for `p` (`LogLoader.load`): the
/// checkpointed one, at least the first segment's base offset; with remote
/// storage ([`remote_log_enabled`]) the checkpointed one alone (0 without
/// one), which lies below the first local segment once local retention
/// has deleted uploaded segments.
pub fn log_start_offset(p: &Partition) -> i64 {
    if remote_log_enabled(p) {
        return p.checkpoints.log_start_offset.unwrap_or(0);
    }
    let first = p.first_base().unwrap_or(0);
    p.checkpoints.log_start_offset.unwrap_or(first).max(first)
}

/// The local log start offset (`UnifiedLog`, on load: the log start, at
/// least the first local segment's base offset): where `p`'s local data
/// begins. The log start offset itself without remote storage.
pub fn local_log_start_offset(p: &Partition) -> i64 {
    log_start_offset(p).max(p.first_base().unwrap_or(0))
}

/// Every record a reader of `p` gets, in file order, with its batch's header
/// and position: v2 batches with a valid checksum, records from the log
/// start on (control records included). Segments wholly below the log start
/// are not read; `done` is told each segment's size once it is read. Returns
/// how many batches had records that did not decode (the rest of such a
/// batch is skipped, as a reader cannot go on inside it).
pub fn for_each_record(
    p: &Partition,
    limits: &Limits,
    done: &mut dyn FnMut(u64),
    visit: &mut dyn FnMut(&BatchHeader, u64, &Record<'_>) -> Result<()>,
) -> Result<u64> {
    let start = log_start_offset(p);
    let mut scratch = Vec::new();
    let mut undecoded = 0u64;
    for seg in &p.segments {
        if seg.next_base.is_some_and(|n| n <= start) {
            continue;
        }
        let mut r = seg.reader(limits)?;
        while let Some(item) = r.next_item()? {
            let Item::Entry(Entry::V2(b)) = item else { continue };
            let h = *b.header();
            if h.last_offset() < start || !b.is_valid() {
                continue;
            }
            let Ok(mut records) = b.records(&mut scratch, limits) else {
                undecoded = undecoded.saturating_add(1);
                continue;
            };
            while let Some(rec) = records.next_record() {
                let Ok(rec) = rec else {
                    undecoded = undecoded.saturating_add(1);
                    break;
                };
                if rec.offset >= start {
                    visit(&h, b.position(), &rec)?;
                }
            }
        }
        done(seg.size);
    }
    Ok(undecoded)
}

/// The log end offset from the last batch seen (`last_offset`) and the active
/// segment's base ([`segment_end`]; 0 for a log without segments).
pub fn log_end_from(last_offset: Option<i64>, active_base: Option<i64>) -> i64 {
    let next = last_offset.map(|last| last.wrapping_add(1));
    match active_base {
        Some(base) => segment_end(next, base),
        None => next.unwrap_or(0),
    }
}

/// Where a segment ends that is read (or recovered) up to `next_offset`,
/// the offset after its last valid batch (`LogSegment.readNextOffset`): the
/// segment's base offset when it holds no batch, and never below it.
pub fn segment_end(next_offset: Option<i64>, base: i64) -> i64 {
    next_offset.map_or(base, |n| n.max(base))
}

/// The log end offset of `p`: the active segment is read from its last
/// offset-index entry on (from its start when the index points where no
/// batch starts), up to its first damage.
pub fn log_end_offset(p: &Partition, limits: &Limits) -> Result<i64> {
    let Some(active) = p.active() else { return Ok(0) };
    let from = active
        .index
        .as_ref()
        .and_then(|i| lookup_offset(i, active.base, i64::MAX).ok().flatten())
        .and_then(|e| u64::try_from(e.position).ok())
        .filter(|&pos| pos < active.size)
        .unwrap_or(0);
    let last = match last_offset_from(active, from, limits)? {
        Some(last) => Some(last),
        None if from > 0 => last_offset_from(active, 0, limits)?,
        None => None,
    };
    Ok(log_end_from(last, Some(active.base)))
}

/// The last offset of the trusted batches of `seg` from `position` on, up to
/// the first damage; `None` when the first item is damage or there is none.
fn last_offset_from(seg: &Segment, position: u64, limits: &Limits) -> Result<Option<i64>> {
    let mut r = seg.reader(limits)?;
    r.seek(position);
    let mut last = None;
    while let Some(item) = r.next_item()? {
        match item {
            Item::Entry(e) => last = Some(e.last_offset()),
            Item::Damage(_) => break,
        }
    }
    Ok(last)
}

/// The high watermark a broker loads: the checkpointed one, within the log
/// start and end.
pub fn high_watermark(p: &Partition, log_start: i64, log_end: i64) -> Option<i64> {
    p.checkpoints.high_watermark.map(|hw| hw.max(log_start).min(log_end))
}

/// The offset readers are bounded by: the checkpointed high watermark, or
/// the log end when none is checkpointed (a partition this broker was the
/// only replica of; `ListOffsets` latest then answers the log end).
pub fn high_watermark_or_end(checkpointed: Option<i64>, log_end: i64) -> i64 {
    checkpointed.unwrap_or(log_end)
}

/// A partition's log start, high watermark and log end as a broker loads
/// them ([`log_start_offset`], [`high_watermark`] or the log end by
/// [`high_watermark_or_end`], [`log_end_offset`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offsets {
    /// `UnifiedLog.logStartOffset`.
    pub log_start: i64,
    /// The high watermark (the log end when none is checkpointed).
    pub high_watermark: i64,
    /// `UnifiedLog.logEndOffset`.
    pub log_end: i64,
}

impl Offsets {
    /// Read them from `p`'s files and its log dir's checkpoints.
    pub fn of(p: &Partition, limits: &Limits) -> Result<Offsets> {
        let log_end = log_end_offset(p, limits)?;
        let log_start = log_start_offset(p);
        let high_watermark = high_watermark_or_end(high_watermark(p, log_start, log_end), log_end);
        Ok(Offsets { log_start, high_watermark, log_end })
    }

    /// `UnifiedLog.lastStableOffset`: the first offset of an open
    /// transaction (else the log end), capped by the high watermark.
    pub fn last_stable_offset(&self, producers: &super::producer::ProducerState) -> i64 {
        producers.last_stable_offset(self.log_end).min(self.high_watermark)
    }
}

/// The active segment as `LogSegment.shouldRoll` looks at it.
#[derive(Clone, Copy, Debug)]
pub struct ActiveSegment {
    /// Its base offset.
    pub base: i64,
    /// Its size in bytes.
    pub size: u64,
    /// The max timestamp of its first batch (`rollingBasedTimestamp`; none,
    /// or a negative one, and the segment never rolls by time).
    pub rolling_based_timestamp: Option<i64>,
    /// Entries in its offset index and its time index.
    pub index_entries: (usize, usize),
}

/// The topic configs a roll obeys: `segment.bytes`, `segment.ms`, and the
/// entries the indexes of `segment.index.bytes` hold (`AbstractIndex.maxEntries`).
#[derive(Clone, Copy, Debug)]
pub struct RollConfig {
    /// `segment.bytes`.
    pub segment_bytes: u64,
    /// `segment.ms`.
    pub segment_ms: i64,
    /// Entries the offset index and the time index hold.
    pub max_index_entries: (usize, usize),
}

/// Whether a batch of `size` bytes, max timestamp `max_timestamp` and last
/// offset `last_offset` goes into a new segment (`LogSegment.shouldRoll`,
/// without roll jitter): the segment would pass `segment.bytes`, it has
/// waited `segment.ms` since its first batch, an index is full, or the
/// offset is too far from the base for a relative offset.
pub fn should_roll(seg: &ActiveSegment, cfg: &RollConfig, size: u64, max_timestamp: i64, last_offset: i64) -> bool {
    let reached_roll_ms = seg
        .rolling_based_timestamp
        .filter(|t| *t >= 0)
        .is_some_and(|first| max_timestamp.saturating_sub(first) > cfg.segment_ms);
    seg.size > cfg.segment_bytes.saturating_sub(size)
        || (seg.size > 0 && reached_roll_ms)
        || seg.index_entries.0 >= cfg.max_index_entries.0
        || seg.index_entries.1 >= cfg.max_index_entries.1
        || !(0..=i64::from(i32::MAX)).contains(&last_offset.saturating_sub(seg.base))
}

/// An offset checkpoint's value once the log ends at `log_end`: lowered to
/// it when above (`UnifiedLog.truncateTo` lowers the high watermark and the
/// recovery point, `LogCleanerManager` the cleaner offset).
pub fn checkpoint_after_truncation(value: i64, log_end: i64) -> i64 {
    value.min(log_end)
}

/// A partition's line in `log-start-offset-checkpoint`: its log start, when
/// above the first segment's base offset (Kafka writes no line otherwise).
pub fn log_start_checkpoint(log_start: i64, first_base: i64) -> Option<i64> {
    (log_start > first_base).then_some(log_start)
}

/// Where `truncate-to-hw` cuts `p`: the given offset, else the checkpointed
/// high watermark. None when neither is known: Kafka would take 0 (a
/// missing entry of `replication-offset-checkpoint` loads as 0 and a
/// follower truncates to it), which would remove the whole log, so the
/// partition is left alone and said.
pub fn truncation_point(p: &Partition, given: Option<i64>) -> Option<i64> {
    given.or(p.checkpoints.high_watermark)
}

/// Aborted transactions, held within the memory budget
/// ([`aborted_transactions`]).
#[derive(Debug)]
pub struct AbortedTransactions {
    entries: Vec<logfmt::index::TxnIndexEntry>,
    /// The budget's bytes the entries hold.
    grant: logfmt::budget::Grant,
}

impl AbortedTransactions {
    /// The entries, in file order.
    pub fn entries(&self) -> &[logfmt::index::TxnIndexEntry] {
        &self.entries
    }

    /// Whether `producer_id`'s record at `offset` is in an aborted
    /// transaction (`first_offset <= offset <= last_offset`).
    pub fn contains(&self, producer_id: i64, offset: i64) -> bool {
        self.entries.iter().any(|t| t.producer_id == producer_id && t.first_offset <= offset && offset <= t.last_offset)
    }
}

/// The aborted transactions a read of `[from, upper)` is told of
/// (`LocalLog.collectAbortedTransactions`): the entries of the `.txnindex`
/// files of the segment holding `from` and every later one that overlap the
/// range. `segments` are every segment's base offset and `.txnindex` path
/// (a missing file: no aborted transaction ended in it); `extra` are a
/// segment's entries not yet in a file (a writer's active segment: its base
/// and entries). The entries are held within the memory budget of
/// `limits`; a file that cannot be read, or entries the budget cannot
/// hold, are an error.
pub fn aborted_transactions(
    segments: &[(i64, PathBuf)],
    extra: Option<(i64, &[logfmt::index::TxnIndexEntry])>,
    from: i64,
    upper: i64,
    limits: &Limits,
) -> Result<AbortedTransactions> {
    collect_aborted(segments, extra, (from, from), upper, false, limits)
}

/// The aborted transactions the log cleaner is told of for the segments
/// from the one holding `base` up to `upper` (`UnifiedLog.collectAbortedTransactions`
/// as `Cleaner.cleanSegments` and `buildOffsetMap` call it): the entries
/// that end at or after the *log start* and begin before `upper`, from the
/// floor segment of `base` on, the search ending after the first entry
/// whose last stable offset reaches `upper` (`TxnIndexSearchResult.isComplete`).
pub fn aborted_transactions_for_cleaner(
    segments: &[(i64, PathBuf)],
    log_start: i64,
    base: i64,
    upper: i64,
    limits: &Limits,
) -> Result<AbortedTransactions> {
    collect_aborted(segments, None, (base, log_start), upper, true, limits)
}

fn collect_aborted(
    segments: &[(i64, PathBuf)],
    extra: Option<(i64, &[logfmt::index::TxnIndexEntry])>,
    (floor_of, from): (i64, i64),
    upper: i64,
    stop_when_complete: bool,
    limits: &Limits,
) -> Result<AbortedTransactions> {
    use logfmt::index::{IndexEntry, IndexKind, IndexReader, TxnIndexEntry};
    let bases = segments.iter().map(|(b, _)| *b).chain(extra.map(|(b, _)| b));
    let first = bases.clone().filter(|b| *b <= floor_of).max().or_else(|| bases.min()).unwrap_or(0);
    let each = u64::try_from(std::mem::size_of::<TxnIndexEntry>()).unwrap_or(u64::MAX);
    let mut out = AbortedTransactions { entries: Vec::new(), grant: limits.budget.grant() };
    let mut keep = |e: TxnIndexEntry, path: Option<&std::path::Path>, slot: u64| -> Result<()> {
        if e.last_offset >= from && e.first_offset < upper {
            let want = out.grant.bytes().saturating_add(each);
            if !out.grant.try_resize(want) {
                let at = slot.saturating_mul(logfmt::spec::index::TXN_INDEX_ENTRY_SIZE as u64);
                let err = limits.budget.short("aborted transactions", want).error(at);
                return Err(match path {
                    Some(p) => err.with_path(p),
                    None => err,
                });
            }
            out.entries.push(e);
        }
        Ok(())
    };
    for (base, path) in segments.iter().filter(|(b, _)| *b >= first) {
        let reader = match IndexReader::open(path, IndexKind::Txn, *base) {
            Ok(r) => r,
            // no .txnindex: no aborted transaction ended in that segment
            Err(e) if matches!(e.kind(), logfmt::ErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound) => {
                continue;
            }
            Err(e) => return Err(e),
        };
        for (slot, entry) in (0u64..).zip(reader) {
            if let IndexEntry::Txn(e) = entry? {
                keep(e, Some(path), slot)?;
                if stop_when_complete && e.last_stable_offset >= upper {
                    return Ok(out);
                }
            }
        }
    }
    if let Some((_, entries)) = extra.filter(|(b, _)| *b >= first) {
        for (slot, e) in (0u64..).zip(entries) {
            keep(*e, None, slot)?;
        }
    }
    Ok(out)
}

/// What cutting `p` at `new_end` does besides the segments.
#[derive(Clone, Debug)]
pub struct Truncation {
    /// The leader-epoch cache afterwards.
    pub epochs: EpochCache,
    /// Producer snapshots that go.
    pub snapshots_removed: Vec<PathBuf>,
}

/// The effects of `UnifiedLog.truncateTo(new_end)` on the epoch cache and
/// producer snapshots (see the module docs).
pub fn truncate_to(p: &Partition, new_end: i64, limits: &Limits) -> Truncation {
    let mut epochs = EpochCache::load(p.epochs(limits));
    if p.first_base().is_some_and(|b| b > new_end) {
        epochs = EpochCache::default();
    } else {
        epochs.truncate_from_end(new_end);
    }
    Truncation { epochs, snapshots_removed: snapshots_past(p, new_end) }
}

/// The producer snapshots a log ending at `end` no longer keeps
/// (`ProducerStateManager.truncateAndReload`: those past the log end).
pub fn snapshots_past(p: &Partition, end: i64) -> Vec<PathBuf> {
    p.snapshots.iter().filter(|(o, _)| *o > end).map(|(_, f)| f.clone()).collect()
}

/// The files `UnifiedLog.roll` creates for a new segment at `base` in
/// `dir` (all empty: the indexes are resized when the segment is loaded),
/// and the producer snapshot it takes there.
pub fn roll_files(dir: &std::path::Path, base: i64) -> (Vec<PathBuf>, PathBuf) {
    use logfmt::naming::segment_file_name;
    use logfmt::spec::names as n;
    let files = [n::LOG_FILE_SUFFIX, n::INDEX_FILE_SUFFIX, n::TIME_INDEX_FILE_SUFFIX]
        .iter()
        .map(|s| dir.join(segment_file_name(base, s)))
        .collect();
    (files, dir.join(segment_file_name(base, n::PRODUCER_SNAPSHOT_FILE_SUFFIX)))
}

/// The leader-epoch cache after the log start moves to `new_start`.
pub fn move_log_start(p: &Partition, new_start: i64, limits: &Limits) -> EpochCache {
    let mut epochs = EpochCache::load(p.epochs(limits));
    epochs.truncate_from_start(new_start);
    epochs
}

/// What a truncation loses, for the operator to judge before executing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Loss {
    /// The partition directory.
    pub partition: PathBuf,
    /// First offset lost.
    pub from_offset: i64,
    /// Offset after the last one lost (the old log end).
    pub to_offset: i64,
    /// Records lost.
    pub records: u64,
    /// Batches lost.
    pub batches: u64,
    /// Bytes lost.
    pub bytes: u64,
    /// Leader epochs of the lost batches.
    pub epochs: Vec<i32>,
    /// Earliest timestamp among the lost batches (-1 if none).
    pub first_timestamp: i64,
    /// Latest timestamp among the lost batches (-1 if none).
    pub last_timestamp: i64,
    /// The lost batches include ones written in the partition's latest
    /// leader epoch: they may have been acknowledged (KIP-101).
    pub latest_epoch_lost: bool,
}

impl Loss {
    /// Account a lost batch.
    pub fn add(&mut self, b: &BatchInfo) {
        if self.batches == 0 || b.base_offset < self.from_offset {
            self.from_offset = b.base_offset;
        }
        self.to_offset = self.to_offset.max(b.last_offset.wrapping_add(1));
        self.records = self.records.saturating_add(b.records);
        self.batches = self.batches.saturating_add(1);
        self.bytes = self.bytes.saturating_add(b.size);
        if b.epoch >= 0 && !self.epochs.contains(&b.epoch) {
            self.epochs.push(b.epoch);
            self.epochs.sort_unstable();
        }
        if b.first_timestamp >= 0 && (self.first_timestamp < 0 || b.first_timestamp < self.first_timestamp) {
            self.first_timestamp = b.first_timestamp;
        }
        self.last_timestamp = self.last_timestamp.max(b.max_timestamp);
    }

    /// An empty loss for `partition`.
    pub fn new(partition: &Path) -> Loss {
        Loss { partition: partition.to_path_buf(), first_timestamp: -1, last_timestamp: -1, ..Loss::default() }
    }
}

impl serde::Serialize for Loss {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Loss", 10)?;
        st.serialize_field("partition", &self.partition.display().to_string())?;
        st.serialize_field("from_offset", &self.from_offset)?;
        st.serialize_field("to_offset", &self.to_offset)?;
        st.serialize_field("records", &self.records)?;
        st.serialize_field("batches", &self.batches)?;
        st.serialize_field("bytes", &self.bytes)?;
        st.serialize_field("epochs", &self.epochs)?;
        st.serialize_field("first_timestamp", &self.first_timestamp)?;
        st.serialize_field("last_timestamp", &self.last_timestamp)?;
        st.serialize_field("latest_epoch_lost", &self.latest_epoch_lost)?;
        st.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_roll_by_size_time_index_and_relative_offset() {
        let cfg = RollConfig { segment_bytes: 100, segment_ms: 1000, max_index_entries: (2, 2) };
        let seg = ActiveSegment { base: 0, size: 60, rolling_based_timestamp: Some(5000), index_entries: (0, 0) };
        assert!(!should_roll(&seg, &cfg, 40, 5000, 1));
        assert!(should_roll(&seg, &cfg, 41, 5000, 1), "past segment.bytes");
        assert!(should_roll(&seg, &cfg, 1, 6001, 1), "segment.ms since the first batch");
        let untimed = ActiveSegment { rolling_based_timestamp: Some(-1), ..seg };
        assert!(!should_roll(&untimed, &cfg, 1, 9999, 1), "no time to roll by");
        assert!(should_roll(&ActiveSegment { index_entries: (2, 0), ..seg }, &cfg, 1, 5000, 1), "a full index");
        assert!(should_roll(&seg, &cfg, 1, 5000, 1 << 31), "an offset too far for a relative offset");
        assert_eq!((checkpoint_after_truncation(50, 40), checkpoint_after_truncation(30, 40)), (40, 30));
        assert_eq!((log_start_checkpoint(10, 0), log_start_checkpoint(0, 0)), (Some(10), None));
    }
}
