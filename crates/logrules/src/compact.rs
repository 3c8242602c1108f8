//! One pass of Kafka's log cleaner over a partition, as Kafka 3.9.1's
//! `Cleaner.doClean` makes it: the cleanable range, the offset map, the
//! segment groups, and each group cleaned into the bytes of one new
//! segment (its `.log` streamed to a writer, its indexes returned).
//!
//! This module walks the files; every decision is asked of
//! [`crate::cleaner`] (the rules and the Kafka code they follow).
//! It writes nothing to a log dir: `logwrite::repair::compact` stages what
//! a pass produces, and `stats` counts what it would reclaim.
//!
//! Invariants: the records kept, their batches and the batch headers are
//! what Kafka's cleaner keeps given the same files, configs and `now`;
//! memory is the offset map (`memory`, granted whole from the budget, as
//! Kafka allocates its dedupe buffer; its table grows with the keys, up to
//! that) plus one batch and the new segment's indexes; a damaged batch or a v0/v1 message in the range ends the pass
//! before anything is produced for its group (Kafka marks such a partition
//! uncleanable).

/// The offset map's load factor Kafka's cleaner uses
/// (`log.cleaner.io.buffer.load.factor`).
pub use crate::cleaner::DEFAULT_LOAD_FACTOR;

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;

use serde::Serialize;

use crate::cleaner::{
    BatchRetention, CleanableOffsets, CleanedTransactions, CleanerView, Marker, OffsetMap, RecordView, SegmentSizes,
    batch_retention, cleanable_offsets, group_segments_by_size, needs_delete_horizon, retain_record,
};
use crate::log::{Offsets, aborted_transactions_for_cleaner};
use crate::producer::ProducerState;
use crate::recovery::IndexBuilder;
use logfmt::batch::{BatchHeader, RecordBatch};
use logfmt::builder::BatchBuilder;
use logfmt::error::{Error, Result};
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item};
use logfmt::metadata::{
    ConfigKey, DELETE_RETENTION_MS, INDEX_INTERVAL_BYTES, MIN_COMPACTION_LAG_MS, SEGMENT_BYTES, SEGMENT_INDEX_BYTES,
};
use logfmt::partition::{LogDir, Partition, Segment};

/// `log.cleaner.dedupe.buffer.size`'s default: 128 MiB.
pub const DEFAULT_DEDUPE_BUFFER: u64 = 128 << 20;
/// `producer.id.expiration.ms`'s default (a broker config): a producer
/// idle for longer is no longer in the producer state the cleaner asks.
pub const DEFAULT_PRODUCER_ID_EXPIRATION_MS: i64 = crate::producer::DEFAULT_PRODUCER_ID_EXPIRATION_MS;

/// How a pass runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Limits and the memory budget.
    pub limits: Limits,
    /// The offset map's bytes (Kafka: `log.cleaner.dedupe.buffer.size` over
    /// `log.cleaner.threads`).
    pub map_memory: u64,
    /// `log.cleaner.io.buffer.load.factor`.
    pub load_factor: f64,
    /// The cleaner's clock, epoch ms.
    pub now_ms: i64,
    /// `producer.id.expiration.ms`.
    pub producer_id_expiration_ms: i64,
}

/// The topic configs a pass reads (from the metadata log, else Kafka's
/// defaults).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CleanerConfig {
    /// `cleanup.policy` (None: no metadata log says).
    pub cleanup_policy: Option<String>,
    /// `delete.retention.ms`.
    pub delete_retention_ms: i64,
    /// `min.compaction.lag.ms`.
    pub min_compaction_lag_ms: i64,
    /// `segment.bytes`.
    pub segment_bytes: u64,
    /// `segment.index.bytes`.
    pub segment_index_bytes: u64,
    /// `index.interval.bytes`.
    pub index_interval_bytes: u64,
}

impl CleanerConfig {
    /// The configs of `p`'s topic.
    pub fn of(p: &Partition, log_dir: &LogDir) -> CleanerConfig {
        let topic = p.name.topic.as_str();
        let text = |key: ConfigKey| log_dir.topic_config(topic, key).map(|(v, _)| v);
        let num = |key: ConfigKey| -> i64 {
            text(key).and_then(|v| v.trim().parse().ok()).or_else(|| key.default.parse().ok()).unwrap_or(0)
        };
        let unsigned = |key: ConfigKey| u64::try_from(num(key)).unwrap_or(0);
        let cleanup_policy = log_dir.cleanup_policy(topic);
        CleanerConfig {
            cleanup_policy,
            delete_retention_ms: num(DELETE_RETENTION_MS),
            min_compaction_lag_ms: num(MIN_COMPACTION_LAG_MS),
            segment_bytes: unsigned(SEGMENT_BYTES),
            segment_index_bytes: unsigned(SEGMENT_INDEX_BYTES),
            index_interval_bytes: unsigned(INDEX_INTERVAL_BYTES),
        }
    }

    /// Whether the cleaner cleans the topic (`LogConfig.compact`).
    pub fn compact(&self) -> bool {
        self.cleanup_policy.as_deref().is_some_and(|p| p.split(',').any(|x| x.trim() == "compact"))
    }
}

/// Why a pass does not clean a partition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Its `cleanup.policy` has no `compact` (or no metadata log says it has).
    NotCompacted(Option<String>),
    /// The KRaft metadata log (never cleaned: snapshots take its place).
    MetadataLog,
    /// Nothing between the cleaner checkpoint and the first uncleanable offset.
    NothingDirty(CleanableOffsets),
    /// A v0/v1 message in the range: not cleaned by logtool yet.
    Legacy(PathBuf, u64),
    /// A `.swap` or `.cleaned` file Kafka's loader has not completed or
    /// removed yet (an interrupted cleaning or split).
    InterruptedSwap(PathBuf),
}

impl Skip {
    /// In words.
    pub fn message(&self) -> String {
        match self {
            Skip::NotCompacted(Some(p)) => format!("cleanup.policy is {p}: not compacted"),
            Skip::NotCompacted(None) => "no metadata log says this topic is compacted".into(),
            Skip::MetadataLog => "the metadata log is not compacted (snapshots take its place)".into(),
            Skip::NothingDirty(c) => format!(
                "nothing to clean: no dirty offset (the cleaner checkpoint, {}, is at the first uncleanable offset, {})",
                c.first_dirty, c.first_uncleanable
            ),
            Skip::InterruptedSwap(path) => format!(
                "{} is left from an interrupted swap: Kafka completes it when it loads the partition; clean after that",
                path.display()
            ),
            Skip::Legacy(path, pos) => format!(
                "{} has a v0/v1 message at position {pos}: logtool does not clean old message formats yet",
                path.display()
            ),
        }
    }
}

/// A producer's last record as the cleaner keeps it (`LastRecord`).
#[derive(Clone, Copy, Debug)]
struct LastRecord {
    last_data_offset: Option<i64>,
    producer_epoch: i16,
}

/// A prepared pass: the range, the offset map, the groups.
#[derive(Debug)]
pub struct Pass<'p> {
    p: &'p Partition,
    opts: Options,
    /// The configs read.
    pub config: CleanerConfig,
    /// The cleanable range.
    pub range: CleanableOffsets,
    /// Where this pass ends (`offsetMap.latestOffset + 1`): the new cleaner
    /// checkpoint.
    pub end_offset: i64,
    /// The groups, as ranges of `p.segments`.
    pub groups: Vec<Range<usize>>,
    /// Keys in the map.
    pub keys_mapped: u32,
    map: OffsetMap,
    _map_grant: logfmt::budget::Grant,
    active: HashMap<i64, LastRecord>,
    txns: CleanedTransactions,
    log_start: i64,
}

/// One group cleaned into one segment.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CleanedSegment {
    /// The new segment's base offset (its first old segment's).
    pub base_offset: i64,
    /// The old segments (indexes into the partition's segments).
    #[serde(skip)]
    pub segments: Range<usize>,
    /// Bytes of the old segments' `.log` files.
    pub bytes_read: u64,
    /// Bytes of the new `.log`.
    pub bytes_written: u64,
    /// Records read.
    pub records_read: u64,
    /// Records kept.
    pub records_kept: u64,
    /// The new `.index`.
    #[serde(skip)]
    pub offset_index: Vec<u8>,
    /// The new `.timeindex`.
    #[serde(skip)]
    pub time_index: Vec<u8>,
    /// The new `.txnindex` (empty: Kafka writes none).
    #[serde(skip)]
    pub txn_index: Vec<u8>,
    /// The modification time the new files get (the last old segment's,
    /// as Kafka keeps it), epoch ms.
    pub modified_ms: i64,
}

fn malformed(seg: &Segment, pos: u64, what: &str, e: impl std::fmt::Display) -> Error {
    Error::malformed(pos, "record batch", format!("{what}: {e}")).with_path(&seg.log)
}

/// `LogSegment.largestTimestamp` of `seg`, from its batches.
fn largest_timestamp(seg: &Segment, limits: &Limits) -> Result<i64> {
    let mut r = seg.reader(limits)?;
    let mut max = None;
    while let Some(item) = r.next_item()? {
        if let Item::Entry(Entry::V2(b)) = item {
            max = max.max(Some(b.header().max_timestamp));
        }
    }
    Ok(crate::log::largest_timestamp(max, seg))
}

/// The marker type of a control batch's first record (`None`: the batch is
/// empty).
fn marker_of(b: &RecordBatch<'_>, scratch: &mut Vec<u8>, limits: &Limits) -> Result<Option<Marker>> {
    let mut records = b.records(scratch, limits)?;
    let Some(first) = records.next_record() else { return Ok(None) };
    let first = first?;
    // ControlRecordType.parse: the key's version then type
    let type_id = first.key.and_then(|k| k.get(2..4)).and_then(|t| <[u8; 2]>::try_from(t).ok()).map(i16::from_be_bytes);
    Ok(Some(match type_id {
        Some(logfmt::spec::control::ABORT) => Marker::Abort,
        Some(logfmt::spec::control::COMMIT) => Marker::Commit,
        _ => Marker::Other,
    }))
}

impl<'p> Pass<'p> {
    /// Prepare a pass over `p`: the configs, the cleanable range
    /// (`cleanableOffsets`), the offset map (`buildOffsetMap`), where the
    /// pass ends and the groups (`groupSegmentsBySize`).
    pub fn prepare(p: &'p Partition, log_dir: &LogDir, opts: &Options) -> Result<std::result::Result<Pass<'p>, Skip>> {
        let config = CleanerConfig::of(p, log_dir);
        if p.is_metadata_log() {
            return Ok(Err(Skip::MetadataLog));
        }
        if !config.compact() {
            return Ok(Err(Skip::NotCompacted(config.cleanup_policy)));
        }
        let interrupted = p.leftovers.iter().map(|(path, _)| path).find(|path| {
            let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
            name.ends_with(logfmt::spec::names::SWAP_FILE_SUFFIX)
                || name.ends_with(logfmt::spec::names::CLEANED_FILE_SUFFIX)
        });
        if let Some(path) = interrupted {
            return Ok(Err(Skip::InterruptedSwap(path.clone())));
        }
        let limits = &opts.limits;
        let offsets = Offsets::of(p, limits)?;
        let producers = ProducerState::at_with_entries(p, offsets.log_end, limits)?;
        let lso = offsets.last_stable_offset(&producers);
        let Some(active) = p.active() else { return Ok(Err(Skip::NotCompacted(config.cleanup_policy))) };
        let inactive_segments = p.segments.get(..p.segments.len().saturating_sub(1)).unwrap_or_default();
        let mut inactive = Vec::with_capacity(inactive_segments.len());
        for s in inactive_segments {
            // only asked with a compaction lag: reading each segment costs
            let ts = if config.min_compaction_lag_ms > 0 { largest_timestamp(s, limits)? } else { -1 };
            inactive.push((s.base, ts));
        }
        let view = CleanerView {
            log_start: offsets.log_start,
            log_end: offsets.log_end,
            last_stable_offset: lso,
            active_base: active.base,
            inactive: &inactive,
        };
        let range = cleanable_offsets(&view, p.checkpoints.cleaner_offset, config.min_compaction_lag_ms, opts.now_ms);
        if range.first_dirty >= range.first_uncleanable {
            return Ok(Err(Skip::NothingDirty(range)));
        }
        let mut map_grant = limits.budget.grant();
        if !map_grant.try_resize(opts.map_memory) {
            return Err(limits.budget.short("the cleaner's offset map", opts.map_memory).error(0).with_path(&p.dir));
        }
        let mut pass = Pass {
            p,
            opts: opts.clone(),
            config,
            range,
            end_offset: range.first_dirty,
            groups: Vec::new(),
            keys_mapped: 0,
            map: OffsetMap::new(opts.map_memory),
            _map_grant: map_grant,
            active: HashMap::new(),
            txns: CleanedTransactions::default(),
            log_start: offsets.log_start,
        };
        if let Some(skip) = pass.build_offset_map()? {
            return Ok(Err(skip));
        }
        pass.end_offset = pass.map.latest_offset().saturating_add(1);
        pass.keys_mapped = pass.map.size();
        let expired_before = opts.now_ms.saturating_sub(opts.producer_id_expiration_ms);
        for e in producers.snapshot_entries() {
            // ProducerStateManager.isProducerExpired
            if e.current_txn_first_offset < 0 && e.timestamp < expired_before {
                continue;
            }
            let last_data_offset = (e.last_offset >= 0).then_some(e.last_offset);
            pass.active.insert(e.producer_id, LastRecord { last_data_offset, producer_epoch: e.producer_epoch });
        }
        let cleanable: Vec<SegmentSizes> = p
            .segments
            .iter()
            .take_while(|s| s.base < pass.end_offset)
            .map(|s| SegmentSizes {
                base_offset: s.base,
                size: s.size,
                index_size: file_size(s.index.as_ref()),
                time_index_size: file_size(s.time_index.as_ref()),
            })
            .collect();
        pass.groups = group_segments_by_size(
            &cleanable,
            pass.config.segment_bytes,
            pass.config.segment_index_bytes,
            range.first_uncleanable,
        );
        Ok(Ok(pass))
    }

    fn txn_index_paths(&self) -> Vec<(i64, PathBuf)> {
        self.p
            .segments
            .iter()
            .map(|s| (s.base, s.txn_index.clone().unwrap_or_else(|| s.sibling(".txnindex"))))
            .collect()
    }

    /// `buildOffsetMap`: the dirty segments' keys, each to its latest
    /// offset, skipping aborted transactions' batches; stops once the map
    /// holds its desired size.
    fn build_offset_map(&mut self) -> Result<Option<Skip>> {
        let (start, end) = (self.range.first_dirty, self.range.first_uncleanable);
        let limits = self.opts.limits;
        // UnifiedLog.logSegments(start, end): from the segment holding start
        let first = self.p.segments.iter().rposition(|s| s.base <= start).unwrap_or(0);
        let dirty: Vec<&Segment> = self.p.segments.iter().skip(first).take_while(|s| s.base < end).collect();
        let mut txns = CleanedTransactions::default();
        let aborted = aborted_transactions_for_cleaner(&self.txn_index_paths(), self.log_start, start, end, &limits)?;
        txns.add_aborted(aborted.entries().iter().copied());
        let max_desired = self.map.max_desired(self.opts.load_factor);
        let mut scratch = Vec::new();
        for (i, seg) in dirty.iter().enumerate() {
            let next_start = dirty.get(i.saturating_add(1)).map_or(end, |n| n.base);
            let mut r = seg.reader(&limits)?;
            if i == 0 {
                // segment.offsetIndex.lookup(startOffset).position
                let pos = seg
                    .index
                    .as_ref()
                    .and_then(|ix| logfmt::index::lookup_offset(ix, seg.base, start).ok().flatten())
                    .and_then(|e| u64::try_from(e.position).ok())
                    .filter(|pos| *pos < seg.size)
                    .unwrap_or(0);
                r.seek(pos);
            }
            while let Some(item) = r.next_item()? {
                let b = match item {
                    Item::Entry(Entry::V2(b)) if b.is_valid() => b,
                    Item::Entry(Entry::Legacy(m)) => return Ok(Some(Skip::Legacy(seg.log.clone(), m.position()))),
                    Item::Entry(e) => return Err(malformed(seg, e.position(), "a batch with a bad CRC", "")),
                    Item::Damage(d) => return Err(malformed(seg, d.start, "damaged bytes", &d.error)),
                };
                let h = *b.header();
                if h.is_control() {
                    let marker = marker_of(&b, &mut scratch, &limits)?;
                    txns.on_control_batch(h.producer_id, h.last_offset(), marker);
                } else if !txns.on_data_batch(h.producer_id, h.last_offset(), h.is_transactional()) {
                    let mut records = b.records(&mut scratch, &limits)?;
                    while let Some(rec) = records.next_record() {
                        let rec = rec?;
                        if let Some(key) = rec.key
                            && rec.offset >= start
                        {
                            if self.map.size() >= max_desired {
                                return Ok(None);
                            }
                            self.map.put(key, rec.offset);
                        }
                    }
                }
                if h.last_offset() >= start {
                    self.map.update_latest_offset(h.last_offset());
                }
            }
            // in the case of offset gaps, fast forward to the segment's end
            self.map.update_latest_offset(next_start.saturating_sub(1));
        }
        Ok(None)
    }

    /// The partition.
    pub fn partition(&self) -> &Partition {
        self.p
    }

    /// `cleanSegments`: clean group `i` into one segment whose `.log`
    /// bytes go to `out` (its indexes are returned). Groups must be cleaned
    /// in order, each once (they share the transactions walked through).
    pub fn clean_group(&mut self, i: usize, out: &mut dyn Write) -> Result<CleanedSegment> {
        let range = self.groups.get(i).cloned().unwrap_or_default();
        let segs: Vec<Segment> = self.p.segments.get(range.clone()).unwrap_or_default().to_vec();
        let base = segs.first().map_or(0, |s| s.base);
        let mut cleaned = CleanedSegment {
            base_offset: base,
            segments: range,
            modified_ms: segs.last().map_or(-1, Segment::modified_ms),
            ..CleanedSegment::default()
        };
        let mut index = IndexBuilder::new(base, self.config.index_interval_bytes);
        let paths = self.txn_index_paths();
        for (k, seg) in segs.iter().enumerate() {
            let upper = segs.get(k.saturating_add(1)).map(|n| n.base).or(seg.next_base).unwrap_or(i64::MAX);
            let limits = self.opts.limits;
            let aborted = aborted_transactions_for_cleaner(&paths, self.log_start, seg.base, upper, &limits)?;
            self.txns.add_aborted(aborted.entries().iter().copied());
            // (the legacy delete horizon, from the modification time of the last
            // clean segment, only matters for v0/v1 messages, which a pass skips)
            self.clean_into(seg, &mut index, &mut cleaned, out)?;
        }
        let (offset_index, time_index) = index.finish();
        cleaned.offset_index = offset_index;
        cleaned.time_index = time_index;
        Ok(cleaned)
    }

    /// `cleanInto`: the batches of `seg`, filtered (`MemoryRecords.filterTo`).
    fn clean_into(
        &mut self,
        seg: &Segment,
        index: &mut IndexBuilder,
        cleaned: &mut CleanedSegment,
        out: &mut dyn Write,
    ) -> Result<()> {
        let limits = self.opts.limits;
        let now = self.opts.now_ms;
        let mut scratch = Vec::new();
        let mut r = seg.reader(&limits)?;
        let io = |e: std::io::Error| Error::io(e, None);
        while let Some(item) = r.next_item()? {
            let b = match item {
                Item::Entry(Entry::V2(b)) if b.is_valid() => b,
                Item::Entry(Entry::Legacy(m)) => {
                    return Err(malformed(seg, m.position(), "a v0/v1 message", "logtool does not clean them yet"));
                }
                Item::Entry(e) => return Err(malformed(seg, e.position(), "a batch with a bad CRC", "")),
                Item::Damage(d) => return Err(malformed(seg, d.start, "damaged bytes", &d.error)),
            };
            let h = *b.header();
            cleaned.bytes_read = cleaned.bytes_read.saturating_add(b.size());
            let marker = if h.is_control() { marker_of(&b, &mut scratch, &limits)? } else { None };
            let discardable = if h.is_control() {
                let d = self.txns.on_control_batch(h.producer_id, h.last_offset(), marker);
                if let Some(e) = d.index_entry {
                    cleaned.txn_index.extend(logfmt::emit::txn_index(&[e]));
                }
                d.discardable
            } else {
                self.txns.on_data_batch(h.producer_id, h.last_offset(), h.is_transactional())
            };
            let last_of_active = self.active.get(&h.producer_id).is_some_and(|l| match l.last_data_offset {
                Some(offset) => h.last_offset() == offset,
                None => h.is_control() && h.producer_epoch == l.producer_epoch,
            });
            let (retention, discard_records) = batch_retention(
                h.producer_id >= 0,
                last_of_active,
                h.is_control(),
                discardable,
                h.delete_horizon_ms(),
                now,
            );
            if retention == BatchRetention::Delete {
                cleaned.records_read = cleaned.records_read.saturating_add(u64::try_from(h.records_count).unwrap_or(0));
                continue;
            }
            let kept = self.filter_batch(&b, discard_records, discardable && h.is_control(), cleaned)?;
            let written = match kept {
                Kept::Whole => {
                    match b.in_memory() {
                        Some(bytes) => out.write_all(bytes).map_err(io)?,
                        None => copy_from_file(seg, b.position(), b.size(), out)?,
                    }
                    Some((b.size(), h.max_timestamp))
                }
                Kept::Rebuilt(builder) => {
                    let built = builder.finish();
                    built.write_to(out).map_err(io)?;
                    Some((built.len() as u64, built.header.max_timestamp))
                }
                Kept::Nothing if retention == BatchRetention::RetainEmpty => {
                    let built = BatchBuilder::empty_of(&h);
                    let built = built.finish();
                    built.write_to(out).map_err(io)?;
                    Some((built.len() as u64, built.header.max_timestamp))
                }
                Kept::Nothing => None,
            };
            if let Some((size, max_ts)) = written {
                index.add(size, h.last_offset(), max_ts);
                cleaned.bytes_written = cleaned.bytes_written.saturating_add(size);
            }
        }
        Ok(())
    }

    /// `filterBatch` and what `filterTo` writes of a batch that stays.
    /// The batch's records are built as they are read, timestamps as deltas
    /// from its delete horizon if it has one; a batch that gets its first
    /// horizon now is read and built once more, from the new horizon
    /// (record timestamps are deltas from it: `MemoryRecordsBuilder`).
    fn filter_batch(
        &self,
        b: &RecordBatch<'_>,
        discard_records: bool,
        marker_for_empty_txn: bool,
        cleaned: &mut CleanedSegment,
    ) -> Result<Kept> {
        let h = *b.header();
        let built = self.build_retained(b, discard_records, h.delete_horizon_ms())?;
        cleaned.records_read = cleaned.records_read.saturating_add(built.read);
        cleaned.records_kept = cleaned.records_kept.saturating_add(built.kept);
        if built.kept == 0 {
            return Ok(Kept::Nothing);
        }
        let set_horizon = needs_delete_horizon(h.magic, built.tombstone, marker_for_empty_txn, h.delete_horizon_ms());
        let all = built.kept == built.read;
        if all && !set_horizon {
            return Ok(Kept::Whole);
        }
        if !set_horizon {
            return Ok(Kept::Rebuilt(Box::new(built.builder)));
        }
        let horizon = self.opts.now_ms.saturating_add(self.config.delete_retention_ms);
        let again = self.build_retained(b, discard_records, Some(horizon))?;
        Ok(Kept::Rebuilt(Box::new(again.builder)))
    }

    /// The records of `b` the cleaner keeps, in a builder of `b`'s header
    /// whose delete horizon is `horizon`.
    fn build_retained(&self, b: &RecordBatch<'_>, discard_records: bool, horizon: Option<i64>) -> Result<Retained> {
        let h = *b.header();
        let now = self.opts.now_ms;
        let mut scratch = Vec::new();
        let mut records = b.records(&mut scratch, &self.opts.limits)?;
        let mut builder = rebuilt_header(&h);
        builder.delete_horizon_ms = horizon;
        let mut out = Retained { builder, read: 0, kept: 0, tombstone: false };
        while let Some(rec) = records.next_record() {
            let rec = rec?;
            out.read = out.read.saturating_add(1);
            let keep = if discard_records {
                false
            } else if h.is_control() {
                true
            } else {
                let view = RecordView {
                    offset: rec.offset,
                    has_key: rec.key.is_some(),
                    has_value: rec.value.is_some(),
                    latest_for_key: rec.key.and_then(|k| self.map.get(k)),
                };
                retain_record(&view, self.map.latest_offset(), false, false, h.delete_horizon_ms(), now)
            };
            if !keep {
                continue;
            }
            out.kept = out.kept.saturating_add(1);
            out.tombstone |= rec.value.is_none();
            let headers: Vec<(&[u8], Option<&[u8]>)> = rec.headers.iter().map(|x| (x.key, x.value)).collect();
            let delta = i32::try_from(rec.offset.saturating_sub(h.base_offset)).unwrap_or(i32::MAX);
            let value = rec.value;
            out.builder.push_at(delta, rec.timestamp, rec.key, value.map(<[u8]>::len), &headers, |slot| {
                if let Some(v) = value {
                    slot.copy_from_slice(v);
                }
            });
        }
        Ok(out)
    }
}

/// What [`Pass::build_retained`] kept of a batch.
struct Retained {
    builder: BatchBuilder,
    read: u64,
    kept: u64,
    tombstone: bool,
}

/// What `filterTo` writes for one batch.
enum Kept {
    /// The batch as it was.
    Whole,
    /// A new batch of the retained records.
    Rebuilt(Box<BatchBuilder>),
    /// No record stays.
    Nothing,
}

/// `buildRetainedRecordsInto`'s builder: the batch's magic, codec,
/// timestamp type, base offset, producer fields, flags and partition
/// leader epoch, and its last offset.
fn rebuilt_header(h: &BatchHeader) -> BatchBuilder {
    let mut b = BatchBuilder::like(h);
    b.compression = h.compression().unwrap_or(logfmt::compression::Compression::None);
    b.log_append_time = (h.timestamp_type() == logfmt::batch::TimestampType::LogAppendTime).then_some(h.max_timestamp);
    b
}

fn file_size(path: Option<&PathBuf>) -> u64 {
    path.and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len())
}

/// Copy `size` bytes at `position` of `seg`'s `.log` to `out` (a batch too
/// large to hold).
fn copy_from_file(seg: &Segment, position: u64, size: u64, out: &mut dyn Write) -> Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |e: std::io::Error| Error::io(e, Some(&seg.log));
    let mut f = std::fs::File::open(&seg.log).map_err(io)?;
    f.seek(SeekFrom::Start(position)).map_err(io)?;
    let copied = std::io::copy(&mut f.take(size), out).map_err(io)?;
    if copied != size {
        return Err(Error::malformed(position, "record batch", "the file ended inside the batch").with_path(&seg.log));
    }
    Ok(())
}

/// What one pass over a partition would do, in numbers (`compact`'s plan,
/// `stats`' "compaction would reclaim").
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Reclaim {
    /// Bytes of the segments cleaned.
    pub bytes_before: u64,
    /// Bytes of the cleaned segments.
    pub bytes_after: u64,
    /// Records read.
    pub records_before: u64,
    /// Records kept.
    pub records_after: u64,
}

/// Run a whole pass over `p`, discarding what it writes: what it would
/// reclaim (None when it would not clean `p`).
pub fn reclaim(p: &Partition, log_dir: &LogDir, opts: &Options) -> Result<Option<Reclaim>> {
    let Ok(mut pass) = Pass::prepare(p, log_dir, opts)? else { return Ok(None) };
    let mut r = Reclaim::default();
    for i in 0..pass.groups.len() {
        let c = pass.clean_group(i, &mut std::io::sink())?;
        r.bytes_before = r.bytes_before.saturating_add(c.bytes_read);
        r.bytes_after = r.bytes_after.saturating_add(c.bytes_written);
        r.records_before = r.records_before.saturating_add(c.records_read);
        r.records_after = r.records_after.saturating_add(c.records_kept);
    }
    Ok(Some(r))
}
