//! Kafka's `ListOffsets` answered from the files of a partition.
//!
//! Mirrors what a Kafka 3.9 broker does for a read_uncommitted client
//! (`Partition.fetchOffsetForTimestamp`, `UnifiedLog.fetchOffsetByTimestamp`,
//! `LogSegment.findOffsetByTimestamp`, `FileRecords.searchForTimestamp`,
//! `ReplicaManager.fetchOffset`):
//!
//! * **earliest** (-2): the log start offset, the larger of
//!   `log-start-offset-checkpoint` and the first segment's base offset; its
//!   epoch is the first leader-epoch entry if that starts at or below it.
//! * **latest** (-1): the high watermark, from `replication-offset-checkpoint`
//!   (kept within the log start and end, as the broker does on load), or the
//!   log end offset when none is checkpointed; after
//!   [`PartitionOffsets::after_start`], the one a broker started on the dir
//!   has once the partition leads (the log end when the ISR is this node
//!   alone, `rules::start`); epoch: the latest in the
//!   leader-epoch cache (a live broker reports the partition's current leader
//!   epoch, which is higher after elections without writes).
//! * **a timestamp** T: the first segment whose largest timestamp is at least
//!   T (the time index's last entry; the `.log`'s modification time when the
//!   segment has no timestamp, as Kafka does); in it, the time index's last
//!   entry at or below T gives an offset, the offset index the position of
//!   that offset (or of the log start, if higher); from there the first
//!   record with a timestamp at least T and an offset at or after the log
//!   start. Control records count; LogAppendTime records carry their batch's
//!   timestamp. Only that segment is searched.
//! * **earliest-local** (-4): with no remote storage, what earliest answers
//!   (`UnifiedLog.fetchOffsetByTimestamp` takes one branch for both); with
//!   remote storage (tiered storage, `rules::log::remote_log_enabled`) the
//!   local log start offset, with the epoch covering it.
//! * **latest-tiered** (-5): with no remote storage, offset -1 and leader
//!   epoch -1 (none, as clients read it); with remote storage, the highest
//!   offset in remote storage from `__remote_log_metadata`
//!   (`rules::remote`), with the epoch covering it, or none when nothing is
//!   uploaded. When the log dir does not hold the metadata partition, no
//!   answer, and the detail says why.
//! * With remote storage, **earliest** is the checkpointed log start offset
//!   (it may lie in remote storage), and **a timestamp** whose first record
//!   lies in a remote segment below the local log start
//!   (`RemoteLogManager.findOffsetByTimestamp` finds it there) has no answer
//!   here: the detail names that remote segment (logtool reads no remote
//!   data). Otherwise the local search answers, from the local log start.
//! * **max-timestamp** (-3): the segment with the largest time-index maximum
//!   (the first such), the first batch from its offset-index position whose
//!   `maxTimestamp` is that maximum, and in it the first record with that
//!   timestamp.
//! * An answer at or above the high watermark is no answer, as for a live
//!   broker.
//!
//! Reads are positioned: index lookups are binary searches over the files,
//! and the log is read from the position they give, so an answer costs a few
//! index reads and at most one index interval of a segment (plus, for the log
//! end, the tail of the last segment after its last offset-index entry).

/// The transaction markers the coordinator writes once a broker starts on
/// the log dir (`rules::start::pending_markers`).
pub use crate::start::pending_markers;

use std::path::PathBuf;

use crate::epochs::EpochCache;
use crate::log as rules;
use crate::remote::{RemoteSegment, TimeIn};
use crate::start::{self, HighWatermarkRule};
use logfmt::checkpoint::EpochEntry;
use logfmt::error::Result;
use logfmt::index::{last_time_entry, lookup_offset, lookup_timestamp};
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item};
use logfmt::partition::{self, LogDir, Partition};

/// What `__remote_log_metadata` says of a log dir's tiered partitions
/// ([`read_remote_log`]).
pub use crate::remote::RemoteLog;

/// The remote log metadata of the log dir `log_dir` (its
/// `__remote_log_metadata` partitions), if it holds any.
pub fn read_remote_log(log_dir: &LogDir, limits: &Limits) -> Result<Option<RemoteLog>> {
    let count = log_dir.metadata.as_ref().and_then(|m| m.partition_count(kmsg::remote::REMOTE_LOG_METADATA_TOPIC));
    RemoteLog::read(&log_dir.path, count, limits)
}

/// What is known of a partition's remote segments.
#[derive(Clone, Debug, Default)]
pub enum Remote {
    /// Not tiered: everything is local.
    #[default]
    NotTiered,
    /// Tiered, but its remote log metadata was not read (the log dir does
    /// not hold its `__remote_log_metadata` partition).
    Unknown,
    /// Tiered: its readable remote segments, by start offset.
    Known(Vec<RemoteSegment>),
}
use logfmt::spec::names as n;

/// What is asked, as `ListOffsets` spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spec {
    /// `-2`: the log start offset.
    Earliest,
    /// `-1`: the high watermark.
    Latest,
    /// `-3`: the record with the largest timestamp.
    MaxTimestamp,
    /// `-4`: the local log start offset.
    EarliestLocal,
    /// `-5`: the highest offset in remote storage.
    LatestTiered,
    /// The first record with a timestamp at least this (epoch ms).
    Timestamp(i64),
}

impl Spec {
    /// The value a `ListOffsets` request carries.
    pub fn kafka_value(self) -> i64 {
        match self {
            Spec::Earliest => -2,
            Spec::Latest => -1,
            Spec::MaxTimestamp => -3,
            Spec::EarliestLocal => -4,
            Spec::LatestTiered => -5,
            Spec::Timestamp(t) => t,
        }
    }
}

/// The answer to one [`Spec`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Answer {
    /// The offset; `None` when Kafka would answer with none (-1).
    pub offset: Option<i64>,
    /// The record's timestamp (none for earliest and latest, as in Kafka).
    pub timestamp: Option<i64>,
    /// The leader epoch Kafka reports with it.
    pub leader_epoch: Option<i32>,
    /// The segment (`.log`) holding that offset's batch.
    pub segment: Option<PathBuf>,
    /// Byte position of that batch in the segment.
    pub position: Option<u64>,
    /// Where the answer came from, or why there is none.
    pub detail: Option<String>,
}

#[derive(Clone, Debug)]
struct Segment {
    seg: partition::Segment,
    /// The time index's last entry (Kafka's `maxTimestampSoFar` and its
    /// offset): `(-1, base)` when it has none.
    max: (i64, i64),
}

impl Segment {
    fn sibling(&self, suffix: &str) -> PathBuf {
        self.seg.sibling(suffix)
    }

    /// `LogSegment.largestTimestamp`.
    fn largest_timestamp(&self) -> i64 {
        if self.max.0 >= 0 { self.max.0 } else { self.seg.modified_ms() }
    }

    /// `OffsetIndex.lookup(target).position`: 0 without an entry (or index).
    fn position_for(&self, target: i64) -> u64 {
        lookup_offset(&self.sibling(n::INDEX_FILE_SUFFIX), self.seg.base, target)
            .ok()
            .flatten()
            .and_then(|e| u64::try_from(e.position).ok())
            .unwrap_or(0)
    }
}

/// One batch as the searches see it.
struct Found {
    offset: i64,
    timestamp: i64,
    epoch: i32,
    position: u64,
}

/// A partition's files, ready to answer [`Spec`]s.
#[derive(Clone, Debug)]
pub struct PartitionOffsets {
    /// The partition dir.
    pub dir: PathBuf,
    /// Topic.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// The log start offset used.
    pub log_start_offset: i64,
    /// The local log start offset (the log start without remote storage).
    pub local_log_start_offset: i64,
    /// Its remote segments ([`PartitionOffsets::set_remote`]).
    pub remote: Remote,
    /// The log end offset.
    pub log_end_offset: i64,
    /// The high watermark from the checkpoint (clamped), if any; after
    /// [`PartitionOffsets::after_start`], the one a started broker has.
    pub high_watermark: Option<i64>,
    /// Which rule gave the high watermark.
    pub high_watermark_rule: HighWatermarkRule,
    /// Transactional ids whose marker a started broker appends (and counts
    /// in the high watermark).
    pub markers_on_start: Vec<String>,
    segments: Vec<Segment>,
    epochs: Vec<EpochEntry>,
    limits: Limits,
}

impl PartitionOffsets {
    /// Read what the answers need from a partition (with its log dir's
    /// checkpoints): each time index's last entry, the leader epochs, the log
    /// start and end, the high watermark.
    pub fn open(p: &Partition, limits: &Limits) -> Result<PartitionOffsets> {
        let epochs = p.epochs(limits);
        let log_start_offset = rules::log_start_offset(p);
        let local_log_start_offset = rules::local_log_start_offset(p);
        let log_end_offset = rules::log_end_offset(p, limits)?;
        let high_watermark = rules::high_watermark(p, log_start_offset, log_end_offset);
        let segments: Vec<Segment> = p
            .segments
            .iter()
            .map(|seg| {
                let max = match last_time_entry(&seg.sibling(n::TIME_INDEX_FILE_SUFFIX), seg.base) {
                    Ok(Some(e)) => (e.timestamp, e.offset),
                    _ => (-1, seg.base),
                };
                Segment { seg: seg.clone(), max }
            })
            .collect();
        Ok(PartitionOffsets {
            dir: p.dir.clone(),
            topic: p.name.topic.clone(),
            partition: p.name.partition,
            log_start_offset,
            local_log_start_offset,
            remote: if rules::remote_log_enabled(p) { Remote::Unknown } else { Remote::NotTiered },
            log_end_offset,
            high_watermark,
            high_watermark_rule: match high_watermark {
                Some(_) => HighWatermarkRule::Checkpoint,
                None => HighWatermarkRule::NoCheckpoint,
            },
            markers_on_start: Vec::new(),
            segments,
            epochs,
            limits: *limits,
        })
    }

    /// Answer as a broker started on the dir does once the partition has a
    /// leader ([`start::high_watermark_on_start`]): when the metadata in
    /// `log_dir` says the ISR is this node alone, `latest` is the log end,
    /// after the transaction markers the coordinator writes then (`markers`:
    /// the transactional ids of [`start::markers_on_start`]).
    pub fn after_start(&mut self, p: &Partition, log_dir: &LogDir, markers: &[&str], limits: &Limits) {
        let Some(meta) = &log_dir.metadata else { return };
        let topic_id = p.topic_id(limits);
        let state = start::partition_state(meta, topic_id, &self.topic, self.partition);
        let node = log_dir.node_id.as_deref().and_then(|n| n.parse::<i32>().ok());
        let (hw, rule) =
            start::high_watermark_on_start(state, node, self.high_watermark, self.log_end_offset, markers.len());
        self.high_watermark = Some(hw);
        self.high_watermark_rule = rule;
        if rule == HighWatermarkRule::IsrIsThisNode {
            self.markers_on_start = markers.iter().map(|s| s.to_string()).collect();
        }
    }

    /// For a tiered partition: its remote segments from `remote` (the log
    /// dir's [`RemoteLog`]), when that holds its metadata partition.
    pub fn set_remote(&mut self, p: &Partition, remote: Option<&RemoteLog>, limits: &Limits) {
        if matches!(self.remote, Remote::NotTiered) {
            return;
        }
        let topic_id = p.topic_id(limits);
        self.remote = match (remote, topic_id) {
            (Some(r), Some(id)) if r.covers(id, self.partition) => {
                Remote::Known(r.readable(id, self.partition).into_iter().cloned().collect())
            }
            _ => Remote::Unknown,
        };
    }

    fn epoch_for_offset(&self, offset: i64) -> Option<i32> {
        EpochCache::load(self.epochs.iter().copied()).epoch_for_offset(offset)
    }

    /// Call `f` on each entry of `seg` from `position` until it returns true
    /// or the segment ends or is damaged.
    fn scan(&self, seg: &partition::Segment, position: u64, mut f: impl FnMut(&Entry<'_>) -> bool) -> Result<()> {
        let mut r = seg.reader(&self.limits)?;
        r.seek(position);
        while let Some(item) = r.next_item()? {
            match item {
                Item::Entry(e) => {
                    if f(&e) {
                        break;
                    }
                }
                Item::Damage(_) => break,
            }
        }
        Ok(())
    }

    /// The last segment's largest timestamp and its offset as a live broker
    /// holds them in memory (`LogSegment.maxTimestampSoFar`): a segment being
    /// written has no time index on disk yet.
    pub fn set_active_max(&mut self, max: (i64, i64)) {
        if let Some(last) = self.segments.last_mut() {
            last.max = max;
        }
    }

    /// The offset a fetch can reach: the high watermark, else the log end.
    pub fn last_fetchable(&self) -> i64 {
        rules::high_watermark_or_end(self.high_watermark, self.log_end_offset)
    }

    /// Answer one query.
    pub fn answer(&self, spec: Spec) -> Result<Answer> {
        let tiered = !matches!(self.remote, Remote::NotTiered);
        let mut a = match spec {
            Spec::EarliestLocal if tiered => {
                let offset = self.local_log_start_offset;
                let (segment, position) = self.locate(offset)?;
                return Ok(Answer {
                    offset: Some(offset),
                    timestamp: None,
                    leader_epoch: self.epoch_for_offset(offset),
                    segment,
                    position,
                    detail: Some(
                        "the local log start offset (tiered: remote storage holds the offsets below it)".into(),
                    ),
                });
            }
            Spec::LatestTiered if tiered => return Ok(self.latest_tiered()),
            Spec::Earliest | Spec::EarliestLocal => {
                let epoch = self.epochs.first().filter(|e| e.start_offset <= self.log_start_offset).map(|e| e.epoch);
                let (segment, position) = self.locate(self.log_start_offset)?;
                return Ok(Answer {
                    offset: Some(self.log_start_offset),
                    timestamp: None,
                    leader_epoch: epoch,
                    segment,
                    position,
                    detail: Some(
                        if tiered && self.log_start_offset < self.local_log_start_offset {
                            "the log start offset (tiered: it lies in remote storage)"
                        } else if spec == Spec::Earliest {
                            "the log start offset"
                        } else {
                            "the local log start offset: the log start offset, with no remote storage"
                        }
                        .into(),
                    ),
                });
            }
            Spec::LatestTiered => {
                return Ok(Answer {
                    offset: None,
                    timestamp: None,
                    // (-1 on the wire: no epoch)
                    leader_epoch: None,
                    segment: None,
                    position: None,
                    detail: Some("no remote storage: Kafka answers -1 (a topic with remote.storage.enable is answered from __remote_log_metadata, which logtool does not read yet)".into()),
                });
            }
            Spec::Latest => {
                return Ok(Answer {
                    offset: Some(self.last_fetchable()),
                    timestamp: None,
                    leader_epoch: self.epochs.last().map(|e| e.epoch),
                    segment: None,
                    position: None,
                    detail: Some(match self.markers_on_start.as_slice() {
                        [] => self.high_watermark_rule.describe().into(),
                        ids => format!(
                            "{}, {}",
                            self.high_watermark_rule.describe(),
                            start::written_on_start(&self.topic, ids)
                        ),
                    }),
                });
            }
            Spec::MaxTimestamp => self.max_timestamp()?,
            // (from the local data's start: the log start, raised by a
            // caller such as logtool broker after DeleteRecords, or a tiered
            // partition's local log start)
            Spec::Timestamp(t) => match self.remote_answer(t) {
                Some(a) => a,
                None => self.by_timestamp(t, self.log_start_offset.max(self.local_log_start_offset))?,
            },
        };
        if let Some(o) = a.offset
            && o >= self.last_fetchable()
        {
            a = Answer {
                detail: Some(format!("offset {o} is at or above the high watermark {}", self.last_fetchable())),
                ..Answer::default()
            };
        }
        Ok(a)
    }

    /// `latest-tiered` of a tiered partition.
    fn latest_tiered(&self) -> Answer {
        match &self.remote {
            Remote::Known(segments) => match segments.iter().map(|s| s.end_offset).max() {
                Some(h) => Answer {
                    offset: Some(h),
                    leader_epoch: self.epoch_for_offset(h),
                    detail: Some("the highest offset in remote storage (__remote_log_metadata)".into()),
                    ..Answer::default()
                },
                None => Answer {
                    detail: Some("nothing of it is in remote storage (__remote_log_metadata): Kafka answers -1".into()),
                    ..Answer::default()
                },
            },
            _ => Answer { detail: Some(UNKNOWN_REMOTE.into()), ..Answer::default() },
        }
    }

    /// A time's answer when it lies in remote storage only (`Some`: no
    /// offset, the detail says where); `None` when the local search answers.
    fn remote_answer(&self, t: i64) -> Option<Answer> {
        self.in_remote_storage(t).map(|why| Answer { detail: Some(why), ..Answer::default() })
    }

    /// Why the first record at or after time `t` lies in remote storage
    /// only, or may (its remote log metadata unknown), for a tiered
    /// partition; `None` when the local records answer.
    pub fn in_remote_storage(&self, t: i64) -> Option<String> {
        let remote_only = self.log_start_offset < self.local_log_start_offset;
        match &self.remote {
            Remote::NotTiered => None,
            Remote::Unknown => remote_only.then(|| {
                format!(
                    "tiered: offsets {}-{} are in remote storage only and {UNKNOWN_REMOTE}",
                    self.log_start_offset,
                    self.local_log_start_offset.saturating_sub(1)
                )
            }),
            Remote::Known(segments) => {
                let refs: Vec<&RemoteSegment> = segments.iter().collect();
                match crate::remote::time_in(&refs, t, self.log_start_offset, self.local_log_start_offset) {
                    TimeIn::Local => None,
                    TimeIn::Remote(s) => Some(format!(
                        "in remote storage: remote segment {} (offsets {}-{}, largest timestamp {}) holds the \
                         first record at or after it; logtool reads no remote data",
                        s.id, s.start_offset, s.end_offset, s.max_timestamp_ms
                    )),
                }
            }
        }
    }

    fn by_timestamp(&self, t: i64, start: i64) -> Result<Answer> {
        let Some(seg) = self.segments.iter().find(|s| s.largest_timestamp() >= t) else {
            return Ok(Answer { detail: Some("no record has a timestamp at or after it".into()), ..Answer::default() });
        };
        let from_offset = lookup_timestamp(&seg.sibling(n::TIME_INDEX_FILE_SUFFIX), seg.seg.base, t)
            .ok()
            .flatten()
            .map_or(seg.seg.base, |e| e.offset);
        let position = seg.position_for(from_offset.max(start));
        let found = self.search(seg, position, false, |max| max >= t, |ts, offset| ts >= t && offset >= start)?;
        Ok(self.found(seg, found, "no record of the segment holding it is at or after it and the log start"))
    }

    fn max_timestamp(&self) -> Result<Answer> {
        let mut best: Option<&Segment> = None;
        for s in &self.segments {
            if best.is_none_or(|b| s.max.0 > b.max.0) {
                best = Some(s);
            }
        }
        let Some(seg) = best else {
            return Ok(Answer { detail: Some("the partition has no segment".into()), ..Answer::default() });
        };
        let (max, at) = seg.max;
        let position = seg.position_for(at);
        // the first batch whose maxTimestamp is the maximum; its first record
        // with that timestamp (none for magic 0)
        let found = self.search(seg, position, true, |batch_max| batch_max == max, |ts, _| ts == max)?;
        let mut a = self.found(seg, found, "no batch holds the time index's largest timestamp");
        if a.offset.is_some() {
            a.timestamp = Some(max);
        }
        Ok(a)
    }

    /// From `position` in `seg`: the batches for which `batch_ok(its
    /// maxTimestamp)` holds, and in them the first record for which
    /// `record_ok(timestamp, offset)` holds. With `first_only`, only the first
    /// such batch is searched (Kafka's `find(...).flatMap(...)`); otherwise
    /// the search goes on with the next (`searchForTimestamp`). Magic 0
    /// batches have no record timestamps and never match.
    fn search(
        &self,
        seg: &Segment,
        position: u64,
        first_only: bool,
        batch_ok: impl Fn(i64) -> bool,
        record_ok: impl Fn(i64, i64) -> bool,
    ) -> Result<Option<Found>> {
        let mut found = None;
        let mut scratch = Vec::new();
        let limits = self.limits;
        let mut err = None;
        self.scan(&seg.seg, position, |e| {
            let (max, epoch) = match e {
                Entry::V2(b) => (b.header().max_timestamp, b.header().partition_leader_epoch),
                Entry::Legacy(m) => (m.timestamp, -1),
            };
            if !batch_ok(max) {
                return false;
            }
            let mut visit = |ts: i64, offset: i64| {
                let hit = record_ok(ts, offset);
                if hit {
                    found = Some(Found { offset, timestamp: ts, epoch, position: e.position() });
                }
                hit
            };
            let done = (|| -> Result<bool> {
                match e {
                    Entry::V2(b) => {
                        let mut records = b.records(&mut scratch, &limits)?;
                        while let Some(r) = records.next_record() {
                            let r = r?;
                            if visit(r.timestamp, r.offset) {
                                return Ok(true);
                            }
                        }
                    }
                    Entry::Legacy(m) if m.magic == 0 => {}
                    Entry::Legacy(m) => {
                        let mut records = m.records(&mut scratch, &limits)?;
                        while let Some(r) = records.next_record() {
                            let r = r?;
                            if visit(r.timestamp, r.offset) {
                                return Ok(true);
                            }
                        }
                    }
                }
                Ok(false)
            })();
            match done {
                Ok(hit) => hit || first_only,
                Err(x) => {
                    err = Some(x);
                    true
                }
            }
        })?;
        match err {
            Some(e) => Err(e.with_path(&seg.seg.log)),
            None => Ok(found),
        }
    }

    fn found(&self, seg: &Segment, found: Option<Found>, none: &str) -> Answer {
        match found {
            Some(f) => Answer {
                offset: Some(f.offset),
                timestamp: Some(f.timestamp),
                leader_epoch: (f.epoch >= 0).then_some(f.epoch),
                segment: Some(seg.seg.log.clone()),
                position: Some(f.position),
                detail: None,
            },
            None => Answer { detail: Some(none.into()), ..Answer::default() },
        }
    }

    /// The segment and batch position holding `offset`, if any.
    fn locate(&self, offset: i64) -> Result<(Option<PathBuf>, Option<u64>)> {
        let Some(seg) = self.segments.iter().rev().find(|s| s.seg.base <= offset) else { return Ok((None, None)) };
        let mut at = None;
        self.scan(&seg.seg, seg.position_for(offset), |e| {
            if e.last_offset() >= offset {
                at = Some(e.position());
                true
            } else {
                false
            }
        })?;
        Ok((at.map(|_| seg.seg.log.clone()), at))
    }
}

/// Why a tiered partition's remote answers are unknown.
const UNKNOWN_REMOTE: &str = "its remote log metadata is not in this log dir (__remote_log_metadata: the \
                              broker that holds its metadata partition has it)";

#[cfg(test)]
mod tests {
    use super::*;

    /// A log start a caller raises after opening (logtool broker does, after
    /// DeleteRecords) bounds the answers to times: none below it.
    #[test]
    fn a_raised_log_start_bounds_the_answers_to_times() {
        let limits = Limits::default();
        let p = Partition::open(&test_support::fixtures().join("timestamps/logs/ts-plain-0"), &limits).unwrap();
        let mut o = PartitionOffsets::open(&p, &limits).unwrap();
        let first = o.answer(Spec::Timestamp(0)).unwrap().offset.unwrap();
        o.log_start_offset = first + 40;
        assert_eq!(o.answer(Spec::Timestamp(0)).unwrap().offset, Some(first + 40));
    }
}
