//! What the planners share: a partition's files, its log end, what a cut
//! loses, producer state at a segment, and lowering the log dir's offset
//! checkpoints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Changes, Loss, Note, write_if_changed};
use crate::checkpoint::{self, EpochEntry, OffsetCheckpointEntry};
use crate::error::Result;
use crate::limits::Limits;
use crate::log::{Entry, Item, LogReader};
use crate::logdir;
use crate::naming::{self, FileKind, PartitionDir};
use crate::rebuild::{TxnState, replay_txn_state};
use crate::spec::names as n;

/// One segment's files (paths exist only if the file does, except `log`).
#[derive(Clone, Debug)]
pub struct Segment {
    /// Base offset.
    pub base: i64,
    /// The `.log`.
    pub log: PathBuf,
    /// Its size.
    pub size: u64,
}

impl Segment {
    /// The `.log`'s modification time in epoch ms (-1 if unknown): what Kafka
    /// uses as a segment's largest timestamp when its batches have none.
    pub fn modified_ms(&self) -> i64 {
        std::fs::metadata(&self.log)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(-1, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
    }

    /// The sibling file with `suffix` (whether or not it exists).
    pub fn sibling(&self, suffix: &str) -> PathBuf {
        self.log.with_file_name(naming::segment_file_name(self.base, suffix))
    }

    /// The existing files of the segment.
    pub fn files(&self) -> Vec<PathBuf> {
        [n::LOG_FILE_SUFFIX, n::INDEX_FILE_SUFFIX, n::TIME_INDEX_FILE_SUFFIX, n::TXN_INDEX_FILE_SUFFIX]
            .iter()
            .map(|s| self.sibling(s))
            .filter(|p| p.exists())
            .collect()
    }
}

/// A partition directory, sorted out.
#[derive(Clone, Debug)]
pub struct Partition {
    /// The directory.
    pub dir: PathBuf,
    /// Topic and partition.
    pub name: PartitionDir,
    /// Live segments by base offset.
    pub segments: Vec<Segment>,
    /// Producer snapshots by offset.
    pub snapshots: Vec<(i64, PathBuf)>,
}

impl Partition {
    /// Read a partition directory's listing.
    pub fn load(dir: &Path) -> Result<Partition> {
        let dname = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let name = naming::parse_partition_dir(&dname).unwrap_or(PartitionDir {
            topic: dname.clone(),
            partition: 0,
            state: naming::DirState::Live,
        });
        let mut segments = Vec::new();
        let mut snapshots = Vec::new();
        for f in logdir::partition_files(dir)? {
            let fname = naming::classify(&f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default());
            match (fname.kind, fname.offset, fname.suffix) {
                (FileKind::Log, Some(base), None) => {
                    let size = std::fs::metadata(&f).map(|m| m.len()).unwrap_or(0);
                    segments.push(Segment { base, log: f, size });
                }
                (FileKind::ProducerSnapshot, Some(o), None) => snapshots.push((o, f)),
                _ => {}
            }
        }
        segments.sort_by_key(|s| s.base);
        snapshots.sort_by_key(|s| s.0);
        Ok(Partition { dir: dir.to_path_buf(), name, segments, snapshots })
    }

    /// `leader-epoch-checkpoint`.
    pub fn epochs_path(&self) -> PathBuf {
        self.dir.join(n::LEADER_EPOCH_CHECKPOINT)
    }

    /// The checkpointed leader epochs (empty when missing or unreadable).
    pub fn epochs(&self, limits: &Limits) -> Vec<EpochEntry> {
        checkpoint::read_epochs(&self.epochs_path(), limits)
            .map(|c| c.entries.into_iter().map(|(_, e)| e).collect())
            .unwrap_or_default()
    }

    /// Is this the KRaft metadata log?
    pub fn is_metadata_log(&self) -> bool {
        self.name.topic == n::CLUSTER_METADATA_TOPIC
    }

    /// The log end offset: after the last valid batch of the last segment
    /// with one, or the last segment's base offset.
    pub fn log_end(&self, limits: &Limits) -> Result<i64> {
        for seg in self.segments.iter().rev() {
            let mut end = None;
            scan(&seg.log, limits, |e| {
                end = Some(e.last_offset.wrapping_add(1));
            })?;
            if let Some(end) = end {
                let next = self.segments.iter().find(|s| s.base > seg.base).map(|s| s.base);
                return Ok(next.map_or(end, |n| end.max(n)));
            }
        }
        Ok(self.segments.last().map_or(0, |s| s.base))
    }

    /// Producer state just before offset `at`: the latest valid producer
    /// snapshot at or below it, then the log replayed up to `at`.
    pub fn txn_state_at(&self, at: i64, limits: &Limits) -> Result<TxnState> {
        let mut from = self.segments.first().map_or(0, |s| s.base);
        let mut state = TxnState::default();
        for (off, path) in self.snapshots.iter().rev() {
            if *off > at {
                continue;
            }
            if let Ok(s) = crate::snapshot::read(path, limits)
                && s.crc_valid()
            {
                state = TxnState::from_snapshot(&s);
                from = *off;
                break;
            }
        }
        for seg in &self.segments {
            let next = self.segments.iter().find(|s| s.base > seg.base).map_or(i64::MAX, |s| s.base);
            if seg.base >= at || next <= from {
                continue;
            }
            replay_txn_state(&seg.log, from, at, &mut state, limits)?;
        }
        Ok(state)
    }
}

/// What a batch contributes to a loss.
#[derive(Clone, Copy, Debug)]
pub struct BatchInfo {
    /// Position in the file.
    pub position: u64,
    /// Size.
    pub size: u64,
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// Records.
    pub records: u64,
    /// Leader epoch (-1 for legacy).
    pub epoch: i32,
    /// Earliest timestamp (-1 if none).
    pub first_timestamp: i64,
    /// Latest timestamp (-1 if none).
    pub max_timestamp: i64,
}

/// Call `f` for every readable batch of `log` (stops at damage).
pub fn scan(log: &Path, limits: &Limits, mut f: impl FnMut(&BatchInfo)) -> Result<()> {
    let mut r = LogReader::open(log, *limits)?;
    let mut scratch = Vec::new();
    while let Some(item) = r.next_item()? {
        let Item::Entry(e) = item else { break };
        let info = match &e {
            Entry::V2(b) => {
                let h = b.header();
                let first_ts =
                    if h.has_delete_horizon() { h.max_timestamp } else { h.base_timestamp.min(h.max_timestamp) };
                BatchInfo {
                    position: b.position(),
                    size: b.bytes().len() as u64,
                    base_offset: h.base_offset,
                    last_offset: h.last_offset(),
                    records: u64::try_from(h.records_count).unwrap_or(0),
                    epoch: h.partition_leader_epoch,
                    first_timestamp: first_ts,
                    max_timestamp: h.max_timestamp,
                }
            }
            Entry::Legacy(m) => {
                let (base, count) = m
                    .records(&mut scratch, limits)
                    .map_or((m.offset, 1), |r| (r.base_offset(), u64::from(r.record_count())));
                BatchInfo {
                    position: m.position(),
                    size: m.size_in_bytes(),
                    base_offset: base,
                    last_offset: m.offset,
                    records: count,
                    epoch: -1,
                    first_timestamp: m.timestamp,
                    max_timestamp: m.timestamp,
                }
            }
        };
        f(&info);
    }
    Ok(())
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

/// New log-dir checkpoint values, by (topic, partition).
#[derive(Clone, Debug, Default)]
pub struct CheckpointLimits {
    /// Partitions whose log now ends at this offset: every checkpoint value
    /// above it is lowered to it.
    pub log_end: BTreeMap<(String, i32), i64>,
    /// New log start offsets (written as is; removed when equal to the first
    /// segment's base, as Kafka writes the file).
    pub log_start: BTreeMap<(String, i32), Option<i64>>,
}

/// Rewrite the log dir's offset checkpoints for `limits` (only the lines that
/// change; the rest as they are).
pub fn adjust_checkpoints(
    log_dir: &Path,
    lim: &CheckpointLimits,
    limits: &Limits,
    changes: &mut dyn Changes,
) -> Result<()> {
    for name in [
        n::REPLICATION_OFFSET_CHECKPOINT,
        n::RECOVERY_POINT_OFFSET_CHECKPOINT,
        n::LOG_START_OFFSET_CHECKPOINT,
        n::CLEANER_OFFSET_CHECKPOINT,
    ] {
        let path = log_dir.join(name);
        if !path.exists() {
            continue;
        }
        let Ok(c) = checkpoint::read_offsets(&path, limits) else {
            changes.note(Note::Warning { path: path.clone(), message: "unreadable checkpoint left as it is".into() });
            continue;
        };
        let before: Vec<OffsetCheckpointEntry> = c.entries.into_iter().map(|(_, e)| e).collect();
        let mut entries = before.clone();
        for e in &mut entries {
            if let Some(end) = lim.log_end.get(&(e.topic.clone(), e.partition)) {
                e.offset = e.offset.min(*end);
            }
        }
        if name == n::LOG_START_OFFSET_CHECKPOINT {
            for (key, start) in &lim.log_start {
                entries.retain(|e| (e.topic.as_str(), e.partition) != (key.0.as_str(), key.1));
                if let Some(start) = start {
                    entries.push(OffsetCheckpointEntry { topic: key.0.clone(), partition: key.1, offset: *start });
                }
            }
        }
        if entries != before {
            let why = if name == n::LOG_START_OFFSET_CHECKPOINT {
                "log start offsets updated"
            } else {
                "values above the new log end lowered to it"
            };
            write_if_changed(changes, &path, &checkpoint::format_offsets(&entries), why)?;
        }
    }
    Ok(())
}
