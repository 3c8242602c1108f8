//! A partition dir written as a Kafka 3.9 broker leading it writes it
//! (`UnifiedLog.append`, `LocalLog.roll`, `LogSegment.append`).
//!
//! [`PartitionWriter`] appends one batch at a time:
//!
//! * **Offsets and epoch**: the batch gets `baseOffset` = the log end and the
//!   current leader epoch (`LogValidator.assignOffsets...`,
//!   `partitionLeaderEpoch`); with `message.timestamp.type=LogAppendTime`
//!   its maxTimestamp becomes the append time. Kafka validates one v2 batch
//!   in place, so the CRC is computed once over the final header.
//! * **Rolls** (`LogSegment.shouldRoll`): before an append, when the batch
//!   would take the segment past `segment.bytes`, when its maxTimestamp is
//!   more than `segment.ms` after the segment's first batch's, when an index
//!   is full (`segment.index.bytes`), or when its last offset no longer fits
//!   a relative offset. The new segment starts at the batch's base offset.
//!   The closed segment's time index gets its final entry and both indexes
//!   are trimmed (`onBecomeInactiveSegment`); a producer snapshot is taken at
//!   the new base (`ProducerStateManager.takeSnapshot`, only past the last
//!   one).
//! * **Indexes**: [`IndexBuilder`], the rule `LogSegment.append` and
//!   `LogSegment.recover` share, so the indexes written equal the ones Kafka
//!   rebuilds.
//! * **Transactions**: [`ProducerState`]; an ABORT that completes a
//!   transaction adds a `.txnindex` entry to the segment holding the marker
//!   (`LogSegment.updateTxnIndex`). A segment without one has no `.txnindex`
//!   (Kafka creates the file on its first entry).
//! * **Leader epochs**: the cache gets epoch 0 at offset 0 when the
//!   partition is created (`Partition.makeLeader`) and each new epoch at the
//!   log end ([`PartitionWriter::become_leader`]).
//! * **Log start** ([`PartitionWriter::delete_records`]): DeleteRecords moves
//!   the log start and truncates the epoch cache from the start
//!   (`UnifiedLog.maybeIncrementLogStartOffset`); segments stay until
//!   retention would delete them.
//!
//! [`PartitionWriter::close`] ends as a clean shutdown does (`LogSegment.close`
//! appends the active segment's final time index entry; `UnifiedLog.close`
//! takes a producer snapshot at the log end); [`PartitionWriter::crash`] as
//! a SIGKILL leaves it: the active segment's indexes still preallocated to
//! `segment.index.bytes`, no final time index entry, no snapshot at the log
//! end.
//!
//! Every file goes through [`super::file`]; segments stream through a
//! buffered writer, so memory stays bounded by one batch plus the indexes of
//! one segment (at most `segment.index.bytes` each).
//!
//! A writer made by [`PartitionWriter::create_in_place`] (the broker's)
//! appends to each segment's `.log` in place instead, as Kafka does: every
//! batch is in the file (and readable) when `append` returns, a SIGKILL
//! leaves what Kafka's recovery expects, and [`PartitionWriter::locate`]
//! finds where to read an offset from; only the active segment's indexes
//! wait in memory for its roll or the close. [`PartitionWriter::append_raw`]
//! appends a producer's batch as it came, setting only what Kafka sets.

use std::path::{Path, PathBuf};

use logfmt::checkpoint::EpochEntry;
use logfmt::control::EndTxnMarker;
use logfmt::error::{Error, Result};
use logfmt::index::TxnIndexEntry;
use logfmt::metadata::{self, ConfigKey};
use logfmt::naming::segment_file_name;
use logfmt::spec::{batch as layout, index as index_layout, names as n};
use logfmt::uuid::Uuid;
use logrules::epochs::EpochCache;
use logrules::log::AbortedTransactions;
use logrules::producer::{Marker, ProducerState};
use logrules::recovery::IndexBuilder;

use super::file::{AtomicFile, write_atomic};
use logfmt::builder::BatchBuilder;
use logfmt::emit;

/// The topic configs the writer obeys, with Kafka 3.9's defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogConfig {
    /// `segment.bytes`.
    pub segment_bytes: u64,
    /// `segment.ms`.
    pub segment_ms: i64,
    /// `segment.index.bytes`.
    pub segment_index_bytes: u64,
    /// `index.interval.bytes`.
    pub index_interval_bytes: u64,
    /// `message.timestamp.type=LogAppendTime`.
    pub log_append_time: bool,
}

impl Default for LogConfig {
    fn default() -> LogConfig {
        LogConfig {
            segment_bytes: 1 << 30,
            segment_ms: 7 * 24 * 3600 * 1000,
            segment_index_bytes: 10 << 20,
            index_interval_bytes: 4096,
            log_append_time: false,
        }
    }
}

impl LogConfig {
    /// The configs from topic-level values (`get(name)`), Kafka's defaults
    /// for the rest. A value Kafka would reject is an error naming it.
    pub fn from_topic(get: impl Fn(&str) -> Option<String>) -> std::result::Result<LogConfig, String> {
        fn num<T: std::str::FromStr>(
            get: &impl Fn(&str) -> Option<String>,
            key: ConfigKey,
            min: i64,
        ) -> std::result::Result<T, String> {
            let v = get(key.topic).unwrap_or_else(|| key.default.to_string());
            match v.trim().parse::<i64>() {
                Ok(x) if x >= min => v.trim().parse::<T>().map_err(|_| format!("{} = {v}: out of range", key.topic)),
                _ => Err(format!("{} = {v}: must be an integer of at least {min}", key.topic)),
            }
        }
        let ts = get(metadata::MESSAGE_TIMESTAMP_TYPE.topic).unwrap_or_else(|| "CreateTime".into());
        let log_append_time = match ts.as_str() {
            "CreateTime" => false,
            "LogAppendTime" => true,
            other => return Err(format!("message.timestamp.type = {other}: CreateTime or LogAppendTime")),
        };
        Ok(LogConfig {
            // Kafka 3.9's minimum segment.bytes is 14 (LegacyRecord.RECORD_OVERHEAD_V0)
            segment_bytes: num::<u32>(&get, metadata::SEGMENT_BYTES, 14).map(u64::from)?,
            segment_ms: num(&get, metadata::SEGMENT_MS, 1)?,
            segment_index_bytes: num::<u32>(&get, metadata::SEGMENT_INDEX_BYTES, 4).map(u64::from)?,
            index_interval_bytes: num::<u32>(&get, metadata::INDEX_INTERVAL_BYTES, 0).map(u64::from)?,
            log_append_time,
        })
    }

    /// Entries an offset index holds (`AbstractIndex.maxEntries`).
    fn max_offset_entries(&self) -> usize {
        usize::try_from(self.segment_index_bytes.checked_div(index_layout::OFFSET_INDEX_ENTRY_SIZE as u64).unwrap_or(0))
            .unwrap_or(usize::MAX)
    }

    /// Entries a time index holds.
    fn max_time_entries(&self) -> usize {
        usize::try_from(self.segment_index_bytes.checked_div(index_layout::TIME_INDEX_ENTRY_SIZE as u64).unwrap_or(0))
            .unwrap_or(usize::MAX)
    }
}

/// Where an appended batch went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Appended {
    /// Its base offset.
    pub base_offset: i64,
    /// Its last offset.
    pub last_offset: i64,
    /// The segment holding it.
    pub segment: i64,
    /// Its byte position there.
    pub position: u64,
    /// Its size in bytes.
    pub size: u64,
    /// Its maxTimestamp as written.
    pub max_timestamp: i64,
}

/// A segment's `.log` being written: under a temporary name until its
/// commit, or in place.
enum SegmentLog {
    Atomic(AtomicFile),
    InPlace { path: PathBuf, file: std::fs::File },
}

impl SegmentLog {
    fn path(&self) -> &Path {
        match self {
            SegmentLog::Atomic(f) => f.path(),
            SegmentLog::InPlace { path, .. } => path,
        }
    }

    /// Committed (renamed into place), or fsynced in place.
    fn commit(self) -> Result<()> {
        match self {
            SegmentLog::Atomic(f) => f.commit(),
            SegmentLog::InPlace { path, file } => super::file::sync_file(&file, &path),
        }
    }
}

impl SegmentLog {
    /// Cut what a failed append left after `position` (a full disk writes
    /// part of a batch). In place only: a segment under a temporary name is
    /// never published after an error.
    fn truncate_to(&mut self, position: u64) -> std::io::Result<()> {
        match self {
            SegmentLog::Atomic(_) => Err(std::io::Error::other("a segment being written whole cannot be cut back")),
            // (opened to append: the next write goes to the new end)
            SegmentLog::InPlace { file, .. } => file.set_len(position),
        }
    }
}

impl std::io::Write for SegmentLog {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        match self {
            SegmentLog::Atomic(f) => f.write(bytes),
            SegmentLog::InPlace { file, .. } => file.write(bytes),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            SegmentLog::Atomic(f) => f.flush(),
            SegmentLog::InPlace { file, .. } => file.flush(),
        }
    }
}

/// The segment being appended to.
struct Active {
    base: i64,
    log: SegmentLog,
    size: u64,
    index: IndexBuilder,
    /// maxTimestamp of its first batch (`rollingBasedTimestamp`).
    first_batch_timestamp: Option<i64>,
    txn_index: Vec<TxnIndexEntry>,
}

/// What a closed partition left, for its log dir's checkpoints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosedPartition {
    /// The partition dir.
    pub dir: PathBuf,
    /// The log end offset.
    pub log_end_offset: i64,
    /// The log start offset.
    pub log_start_offset: i64,
    /// The first segment's base offset.
    pub first_base: i64,
    /// The active segment's base offset.
    pub active_base: i64,
    /// The latest leader epoch.
    pub leader_epoch: i32,
    /// The segments' base offsets, in order.
    pub segments: Vec<i64>,
}

/// Appends batches to one partition dir (see the module docs).
pub struct PartitionWriter {
    dir: PathBuf,
    config: LogConfig,
    next_offset: i64,
    log_start_offset: i64,
    epochs: EpochCache,
    producers: ProducerState,
    /// Always `Some` until the writer is closed.
    active: Option<Active>,
    segments: Vec<i64>,
    /// Offset of the latest producer snapshot (`lastSnapOffset`).
    last_snapshot: i64,
    /// Base offset of the last batch appended.
    last_batch_base: Option<i64>,
    /// Segments are appended to in place (see the module docs).
    in_place: bool,
    /// Why the partition takes no more appends: an append failed and what it
    /// wrote could not be cut back, or a roll failed part way (Kafka takes
    /// the log dir offline on such an `IOException`); a restart recovers.
    offline: Option<String>,
}

fn io(e: std::io::Error, path: &Path) -> Error {
    Error::io(e, Some(path))
}

/// Overwrite `bytes` at `at` in `batch`.
fn put(batch: &mut [u8], at: usize, bytes: &[u8]) -> Result<()> {
    let end = at.saturating_add(bytes.len());
    batch.get_mut(at..end).ok_or_else(|| Error::refused("a batch shorter than its header"))?.copy_from_slice(bytes);
    Ok(())
}

impl PartitionWriter {
    /// The configs appends from now on obey (a topic's configs altered:
    /// the next roll, index entry and timestamp follow them; the active
    /// segment keeps the index files it has).
    pub fn set_config(&mut self, config: LogConfig) {
        self.config = config;
    }

    /// Create the partition dir `dir` (which must not exist, or be empty) of
    /// the topic `topic_id`: `partition.metadata`, an empty segment at 0 and
    /// the epoch cache with epoch 0 at 0.
    pub fn create(dir: &Path, topic_id: &Uuid, config: LogConfig) -> Result<PartitionWriter> {
        Self::create_with(dir, topic_id, config, false)
    }

    /// [`PartitionWriter::create`], its segments written in place (see the
    /// module docs).
    pub fn create_in_place(dir: &Path, topic_id: &Uuid, config: LogConfig) -> Result<PartitionWriter> {
        Self::create_with(dir, topic_id, config, true)
    }

    /// A new partition in `dir` (made, or there and empty). A failure
    /// leaves `dir` as it was: what was made in it is removed, and the dir
    /// itself when it was made here.
    fn create_with(dir: &Path, topic_id: &Uuid, config: LogConfig, in_place: bool) -> Result<PartitionWriter> {
        let existed = dir.exists();
        std::fs::create_dir_all(dir).map_err(|e| io(e, dir))?;
        if std::fs::read_dir(dir).map_err(|e| io(e, dir))?.next().is_some() {
            return Err(Error::io(
                std::io::Error::new(std::io::ErrorKind::AlreadyExists, "the partition dir is not empty"),
                Some(dir),
            ));
        }
        let made = write_atomic(&dir.join(n::PARTITION_METADATA), &emit::partition_metadata(topic_id))
            .and_then(|()| Self::open_segment(dir, 0, &config, in_place));
        let active = match made {
            Ok(active) => active,
            Err(e) => {
                // everything in it is what this call made
                if existed {
                    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                        let _ = std::fs::remove_file(entry.path());
                    }
                } else {
                    let _ = std::fs::remove_dir_all(dir);
                }
                return Err(e);
            }
        };
        let mut epochs = EpochCache::default();
        epochs.assign(0, 0);
        Ok(PartitionWriter {
            dir: dir.to_path_buf(),
            config,
            next_offset: 0,
            log_start_offset: 0,
            epochs,
            producers: ProducerState::with_entries(),
            active: Some(active),
            segments: vec![0],
            last_snapshot: 0,
            last_batch_base: None,
            in_place,
            offline: None,
        })
    }

    /// Reopen the partition dir `dir` that Kafka or this writer left, to
    /// append to it in place, as a broker loads a log it will lead
    /// (`LogLoader.load` after a clean shutdown): the segments as they are,
    /// the log start from the log dir's checkpoint, the epoch cache from
    /// `leader-epoch-checkpoint`, producer state from the latest snapshot at
    /// or below the active segment's base and then the active segment
    /// replayed (`rules::recovery::recover_active_segment`), which also
    /// gives its indexes and aborted transactions. A log that needs
    /// recovery (an active segment that does not end with a whole valid
    /// batch) is refused: recover it first (`repair::recover`).
    pub fn open_in_place(
        dir: &Path,
        config: LogConfig,
        checkpoints: &logfmt::partition::LogDirCheckpoints,
        limits: &logfmt::Limits,
    ) -> Result<PartitionWriter> {
        let p = logfmt::partition::Partition::open_with(dir, checkpoints)?;
        let Some(seg) = p.segments.last() else {
            return Err(Error::refused(format!("{}: no segment to append to", dir.display())));
        };
        let mut producers = ProducerState::at_with_entries(&p, seg.base, limits)?;
        let mut epochs = EpochCache::load(p.epochs(limits));
        let (rebuilt, index) = logrules::recovery::recover_active_segment(
            seg,
            config.index_interval_bytes,
            &mut producers,
            epochs.latest_epoch(),
            limits,
        )?;
        if rebuilt.stop.is_some() || rebuilt.valid_bytes != rebuilt.size {
            return Err(Error::refused(format!(
                "{}: the active segment needs recovery (valid to byte {} of {}): run `logtool recover --execute` first",
                seg.log.display(),
                rebuilt.valid_bytes,
                rebuilt.size
            )));
        }
        for &(e, o) in &rebuilt.epochs {
            epochs.assign(e, o);
        }
        // `rollingBasedTimestamp`: the first batch's maxTimestamp
        let mut first_batch_timestamp = None;
        let mut r = seg.reader(limits)?;
        if let Some(logfmt::log::Item::Entry(e)) = r.next_item()? {
            first_batch_timestamp = Some(match &e {
                logfmt::log::Entry::V2(b) => b.header().max_timestamp,
                logfmt::log::Entry::Legacy(m) => m.timestamp,
            });
        }
        let file = std::fs::OpenOptions::new().append(true).open(&seg.log).map_err(|e| io(e, &seg.log))?;
        let next_offset = rebuilt.next_offset.map_or(seg.base, |n| n.max(seg.base));
        let log_start_offset = logrules::log::log_start_offset(&p);
        Ok(PartitionWriter {
            dir: dir.to_path_buf(),
            config,
            next_offset,
            log_start_offset,
            epochs,
            producers,
            active: Some(Active {
                base: seg.base,
                log: SegmentLog::InPlace { path: seg.log.clone(), file },
                size: rebuilt.size,
                index,
                first_batch_timestamp,
                txn_index: rebuilt.txn_index,
            }),
            segments: p.segments.iter().map(|s| s.base).collect(),
            last_snapshot: p.snapshots.iter().map(|(o, _)| *o).max().unwrap_or(0),
            last_batch_base: None,
            in_place: true,
            offline: None,
        })
    }

    fn open_segment(dir: &Path, base: i64, config: &LogConfig, in_place: bool) -> Result<Active> {
        let path = dir.join(segment_file_name(base, n::LOG_FILE_SUFFIX));
        let log = if in_place {
            let file =
                std::fs::OpenOptions::new().create_new(true).append(true).open(&path).map_err(|e| io(e, &path))?;
            super::file::fsync_dir(dir)?;
            SegmentLog::InPlace { path, file }
        } else {
            SegmentLog::Atomic(AtomicFile::create_streaming(&path)?)
        };
        Ok(Active {
            base,
            log,
            size: 0,
            index: IndexBuilder::new(base, config.index_interval_bytes),
            first_batch_timestamp: None,
            txn_index: Vec::new(),
        })
    }

    /// Why the partition takes no more appends, if it went offline (see
    /// the field): its log may end in a partial batch, so a clean shutdown
    /// must not be claimed for it.
    pub fn offline(&self) -> Option<&str> {
        self.offline.as_deref()
    }

    /// The partition dir.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The log end offset: the next batch's base offset.
    pub fn log_end_offset(&self) -> i64 {
        self.next_offset
    }

    /// The log start offset.
    pub fn log_start_offset(&self) -> i64 {
        self.log_start_offset
    }

    /// Base offset of the last batch appended.
    pub fn last_batch_base(&self) -> Option<i64> {
        self.last_batch_base
    }

    /// The current leader epoch.
    pub fn leader_epoch(&self) -> i32 {
        self.epochs.latest_epoch().unwrap_or(0)
    }

    /// The producers' state (open transactions, entries).
    pub fn producers(&self) -> &ProducerState {
        &self.producers
    }

    /// The leader epoch cache.
    pub fn epochs(&self) -> &[EpochEntry] {
        self.epochs.entries()
    }

    /// This broker becomes leader again with `epoch` (above the current
    /// one): the cache gets (epoch, log end).
    pub fn become_leader(&mut self, epoch: i32) -> Result<()> {
        if epoch <= self.leader_epoch() {
            return Err(Error::refused(format!(
                "{}: leader epoch {epoch} is not above the current {}",
                self.dir.display(),
                self.leader_epoch()
            )));
        }
        self.epochs.assign(epoch, self.next_offset);
        if self.in_place {
            // a leader's cache is flushed as it changes (`LeaderEpochFileCache.assign`)
            self.write_epochs()?;
        }
        Ok(())
    }

    /// DeleteRecords: the log start moves to `offset` (at most the log end).
    pub fn delete_records(&mut self, offset: i64) -> Result<()> {
        if offset > self.next_offset || offset < self.log_start_offset {
            return Err(Error::refused(format!(
                "{}: log start {offset} is outside [{}, {}]",
                self.dir.display(),
                self.log_start_offset,
                self.next_offset
            )));
        }
        self.log_start_offset = offset;
        self.epochs.truncate_from_start(offset);
        Ok(())
    }

    /// `rules::log::should_roll`.
    fn should_roll(&self, a: &Active, size: u64, max_timestamp: i64, last_offset: i64) -> bool {
        let seg = logrules::log::ActiveSegment {
            base: a.base,
            size: a.size,
            rolling_based_timestamp: a.first_batch_timestamp,
            index_entries: a.index.entries(),
        };
        let cfg = logrules::log::RollConfig {
            segment_bytes: self.config.segment_bytes,
            segment_ms: self.config.segment_ms,
            max_index_entries: (self.config.max_offset_entries(), self.config.max_time_entries()),
        };
        logrules::log::should_roll(&seg, &cfg, size, max_timestamp, last_offset)
    }

    /// Append one batch: it gets the next offsets and the current leader
    /// epoch; `append_time` is the broker's clock (used for LogAppendTime).
    /// An end-transaction marker batch needs `marker`.
    pub fn append(
        &mut self,
        batch: &mut BatchBuilder,
        append_time: i64,
        marker: Option<&EndTxnMarker>,
    ) -> Result<Appended> {
        if batch.is_empty() {
            return Err(Error::refused(format!("{}: an empty batch", self.dir.display())));
        }
        batch.base_offset = self.next_offset;
        batch.partition_leader_epoch = self.leader_epoch();
        batch.log_append_time = (self.config.log_append_time && !batch.control).then_some(append_time);
        let built = batch.finish();
        self.place(built.header, built.len() as u64, |log| built.write_to(log), marker)
    }

    /// Append a producer's v2 batch as it came (`batch`, its whole bytes,
    /// checked by the caller): only what Kafka sets changes
    /// (`LogValidator.validateMessagesAndAssignOffsetsCompressed` /
    /// `...Uncompressed` for v2 in place): `baseOffset` and
    /// `partitionLeaderEpoch` (outside the CRC), and for a LogAppendTime
    /// topic the timestamp type and `maxTimestamp` (then the CRC).
    pub fn append_raw(&mut self, batch: &mut [u8], append_time: i64) -> Result<Appended> {
        let header = logfmt::batch::RecordBatch::parse(batch, 0)?.header().to_owned();
        put(batch, layout::BASE_OFFSET_OFFSET, &self.next_offset.to_be_bytes())?;
        put(batch, layout::PARTITION_LEADER_EPOCH_OFFSET, &self.leader_epoch().to_be_bytes())?;
        let control = header.is_control();
        if self.config.log_append_time && !control {
            let attributes = header.attributes | i16::from(layout::TIMESTAMP_TYPE_MASK);
            put(batch, layout::ATTRIBUTES_OFFSET, &attributes.to_be_bytes())?;
            put(batch, layout::MAX_TIMESTAMP_OFFSET, &append_time.to_be_bytes())?;
            let crc = logfmt::crc::crc32c(batch.get(layout::ATTRIBUTES_OFFSET..).unwrap_or_default());
            put(batch, layout::CRC_OFFSET, &crc.to_be_bytes())?;
        }
        let header = logfmt::batch::RecordBatch::parse(batch, 0)?.header().to_owned();
        let marker = if control {
            let rb = logfmt::batch::RecordBatch::parse(batch, 0)?;
            let mut scratch = Vec::new();
            let mut records = rb.records(&mut scratch, &logfmt::Limits::default())?;
            let rec = records.next_record().transpose()?;
            match rec.map(|r| logfmt::control::parse(&r, 0)).transpose()? {
                Some(logfmt::control::ControlRecord::EndTxn(m)) => Some(m),
                _ => None,
            }
        } else {
            None
        };
        self.place(header, batch.len() as u64, |log| std::io::Write::write_all(log, batch), marker.as_ref())
    }

    /// Write a batch whose header is final at the log end: roll first if
    /// needed, then the indexes, producer state and epoch cache.
    fn place(
        &mut self,
        header: logfmt::batch::BatchHeader,
        size: u64,
        write: impl FnOnce(&mut SegmentLog) -> std::io::Result<()>,
        marker: Option<&EndTxnMarker>,
    ) -> Result<Appended> {
        let last_offset = header.last_offset();
        if let Some(why) = &self.offline {
            return Err(Error::refused(format!("{}: offline: {why}", self.dir.display())));
        }
        let mut a = self.active.take().ok_or_else(|| Error::refused("the partition writer is closed"))?;
        if a.size > 0 && self.should_roll(&a, size, header.max_timestamp, last_offset) {
            a = match self.roll(a, self.next_offset) {
                Ok(next) => next,
                Err(e) => {
                    // part of a roll done: nothing more is appended here
                    self.offline = Some(format!("a segment roll failed: {e}"));
                    return Err(e);
                }
            };
        }
        let position = a.size;
        if let Err(e) = write(&mut a.log) {
            // `UnifiedLog.append` writes nothing after bytes it failed to
            // write: the partial batch is cut off (the indexes, producer
            // state and epochs were not touched), or the partition goes
            // offline when even that fails
            let err = io(e, a.log.path());
            if let Err(cut) = a.log.truncate_to(position) {
                self.offline = Some(format!(
                    "an append failed ({err}) and its partial batch at byte {position} of {} could not be cut off ({cut})",
                    a.log.path().display()
                ));
            }
            self.active = Some(a);
            return Err(err);
        }
        a.index.add(size, last_offset, header.max_timestamp);
        a.size = a.size.saturating_add(size);
        a.first_batch_timestamp.get_or_insert(header.max_timestamp);
        if let Some(Marker::Completed(c)) = self.producers.apply(&header, marker)
            && let Some(entry) = c.txn_index_entry()
        {
            a.txn_index.push(entry);
        }
        let segment = a.base;
        self.active = Some(a);
        self.epochs.observe(header.partition_leader_epoch, header.base_offset);
        self.next_offset = last_offset.saturating_add(1);
        self.last_batch_base = Some(header.base_offset);
        Ok(Appended {
            base_offset: header.base_offset,
            last_offset,
            segment,
            position,
            size,
            max_timestamp: header.max_timestamp,
        })
    }

    /// The segments' base offsets, in order (the last is the active one).
    pub fn segments(&self) -> &[i64] {
        &self.segments
    }

    /// The `.log` of the segment at `base`.
    pub fn segment_log(&self, base: i64) -> PathBuf {
        self.segment_path(base, n::LOG_FILE_SUFFIX)
    }

    /// Where to start reading for `offset`: the segment that holds it (the
    /// last whose base is at most `offset`) and a batch position at or
    /// before the batch holding it (`OffsetIndex.lookup`), as Kafka's
    /// `LogSegment.translateOffset` starts. `None` past the log end or below
    /// the first segment.
    pub fn locate(&self, offset: i64) -> Result<Option<(i64, u64)>> {
        if offset >= self.next_offset {
            return Ok(None);
        }
        let Some(&base) = self.segments.iter().rev().find(|b| **b <= offset) else { return Ok(None) };
        let active = self.active.as_ref().filter(|a| a.base == base);
        let position = match active {
            Some(a) => a.index.lookup(offset).map_or(0, |(_, p)| p),
            None => logfmt::index::lookup_offset(&self.segment_path(base, n::INDEX_FILE_SUFFIX), base, offset)?
                .map_or(0, |e| u64::try_from(e.position).unwrap_or(0)),
        };
        Ok(Some((base, position)))
    }

    /// The last stable offset: the first offset of the earliest open
    /// transaction, else the log end (`UnifiedLog.lastStableOffset`).
    pub fn last_stable_offset(&self) -> i64 {
        self.producers.last_stable_offset(self.next_offset)
    }

    /// The aborted transactions a read of `[from, upper)` must be told of
    /// (`LocalLog.collectAbortedTransactions`): the `.txnindex` entries, of
    /// the segment holding `from` and every later one, that overlap the
    /// range.
    pub fn aborted_transactions(&self, from: i64, upper: i64) -> Result<AbortedTransactions> {
        let active = self.active.as_ref();
        let files: Vec<(i64, PathBuf)> = self
            .segments
            .iter()
            .filter(|b| active.is_none_or(|a| a.base != **b))
            .map(|&b| (b, self.segment_path(b, n::TXN_INDEX_FILE_SUFFIX)))
            .collect();
        let extra = active.map(|a| (a.base, a.txn_index.as_slice()));
        logrules::log::aborted_transactions(&files, extra, from, upper, &logfmt::Limits::default())
    }

    /// The active segment's largest timestamp so far and its offset.
    pub fn active_max_timestamp(&self) -> Option<(i64, i64)> {
        self.active.as_ref().map(|a| a.index.max_timestamp())
    }

    /// The bytes in the active segment so far.
    pub fn active_size(&self) -> u64 {
        self.active.as_ref().map_or(0, |a| a.size)
    }

    fn segment_path(&self, base: i64, suffix: &str) -> PathBuf {
        self.dir.join(segment_file_name(base, suffix))
    }

    /// Close the active segment for good: log, trimmed indexes with the
    /// final time index entry, `.txnindex` if it has entries.
    fn seal(&self, a: Active) -> Result<()> {
        let Active { base, log, index, txn_index, .. } = a;
        log.commit()?;
        let (offset_index, time_index) = index.finish();
        write_atomic(&self.segment_path(base, n::INDEX_FILE_SUFFIX), &offset_index)?;
        write_atomic(&self.segment_path(base, n::TIME_INDEX_FILE_SUFFIX), &time_index)?;
        if !txn_index.is_empty() {
            write_atomic(&self.segment_path(base, n::TXN_INDEX_FILE_SUFFIX), &emit::txn_index(&txn_index))?;
        }
        Ok(())
    }

    /// Seal `old` and start the segment at `new_base`.
    fn roll(&mut self, old: Active, new_base: i64) -> Result<Active> {
        self.seal(old)?;
        let next = Self::open_segment(&self.dir, new_base, &self.config, self.in_place)?;
        self.segments.push(new_base);
        self.take_snapshot(new_base)?;
        Ok(next)
    }

    fn take_snapshot(&mut self, at: i64) -> Result<()> {
        if at > self.last_snapshot {
            let path = self.segment_path(at, n::PRODUCER_SNAPSHOT_FILE_SUFFIX);
            write_atomic(&path, &emit::producer_snapshot(&self.producers.snapshot_entries()))?;
            self.last_snapshot = at;
        }
        Ok(())
    }

    fn write_epochs(&self) -> Result<()> {
        write_atomic(&self.dir.join(n::LEADER_EPOCH_CHECKPOINT), &emit::epoch_checkpoint(self.epochs.entries()))
    }

    fn closed(&self, active_base: i64) -> ClosedPartition {
        ClosedPartition {
            dir: self.dir.clone(),
            log_end_offset: self.next_offset,
            log_start_offset: self.log_start_offset,
            first_base: self.segments.first().copied().unwrap_or(0),
            active_base,
            leader_epoch: self.leader_epoch(),
            segments: self.segments.clone(),
        }
    }

    /// Close as a clean shutdown does (see the module docs).
    pub fn close(mut self) -> Result<ClosedPartition> {
        let active = self.active.take().ok_or_else(|| Error::refused("the partition writer is closed"))?;
        let closed = self.closed(active.base);
        self.seal(active)?;
        self.take_snapshot(self.next_offset)?;
        self.write_epochs()?;
        Ok(closed)
    }

    /// Stop as a SIGKILL leaves the partition (see the module docs): every
    /// byte appended is on disk, the active segment's indexes are still
    /// preallocated and hold no final time index entry.
    pub fn crash(mut self) -> Result<ClosedPartition> {
        let active = self.active.take().ok_or_else(|| Error::refused("the partition writer is closed"))?;
        let closed = self.closed(active.base);
        let Active { base, log, index, txn_index, .. } = active;
        log.commit()?;
        let (mut offset_index, mut time_index) = index.unfinished();
        // `AbstractIndex` preallocates (maxIndexSize rounded down to whole entries)
        let round = |entry: usize| {
            let bytes = usize::try_from(self.config.segment_index_bytes).unwrap_or(usize::MAX);
            bytes.checked_div(entry).unwrap_or(0).saturating_mul(entry)
        };
        for (bytes, suffix, entry) in [
            (&mut offset_index, n::INDEX_FILE_SUFFIX, index_layout::OFFSET_INDEX_ENTRY_SIZE),
            (&mut time_index, n::TIME_INDEX_FILE_SUFFIX, index_layout::TIME_INDEX_ENTRY_SIZE),
        ] {
            let path = self.segment_path(base, suffix);
            write_atomic(&path, bytes)?;
            let len = round(entry).max(bytes.len());
            let f = std::fs::OpenOptions::new().write(true).open(&path).map_err(|e| io(e, &path))?;
            f.set_len(len as u64).map_err(|e| io(e, &path))?;
            super::file::sync_file(&f, &path)?;
        }
        if !txn_index.is_empty() {
            write_atomic(&self.segment_path(base, n::TXN_INDEX_FILE_SUFFIX), &emit::txn_index(&txn_index))?;
        }
        self.write_epochs()?;
        Ok(closed)
    }
}

/// The NO_TIMESTAMP constant, for callers building batches.
pub const NO_TIMESTAMP: i64 = layout::NO_TIMESTAMP;

#[cfg(test)]
mod tests {
    use super::*;
    use logfmt::builder::NewRecord;
    use logfmt::partition::Partition;
    use logrules::producer::AppendCheck;
    use logrules::recovery::recover_segment;

    fn batch(n: usize, ts: i64, value: usize) -> BatchBuilder {
        let mut b = BatchBuilder::new(0);
        let v = vec![b'v'; value];
        for i in 0..n {
            b.push(&NewRecord { timestamp: ts + i as i64, key: None, value: Some(&v), headers: &[] });
        }
        b
    }

    fn topic() -> Uuid {
        Uuid([7; 16])
    }

    /// Every segment's indexes equal what Kafka's recovery rebuilds.
    fn indexes_as_recovery_builds(dir: &Path, interval: u64) {
        let limits = logfmt::Limits::default();
        let p = Partition::open(dir, &limits).unwrap();
        let mut state = ProducerState::default();
        for seg in &p.segments {
            let r = recover_segment(seg, interval, &mut state, None, &limits).unwrap();
            assert!(r.stop.is_none());
            assert_eq!(std::fs::read(seg.sibling(".index")).unwrap(), r.offset_index, "{}", seg.log.display());
            assert_eq!(std::fs::read(seg.sibling(".timeindex")).unwrap(), r.time_index, "{}", seg.log.display());
            let txn = std::fs::read(seg.sibling(".txnindex")).unwrap_or_default();
            assert_eq!(txn, r.txn_index_bytes());
        }
    }

    #[test]
    fn rolls_by_size_time_and_index_entries() {
        let tmp = tempfile::tempdir().unwrap();
        // by size: 10 batches of ~1.1 KiB into 4 KiB segments
        let cfg = LogConfig { segment_bytes: 4096, index_interval_bytes: 1000, ..LogConfig::default() };
        let mut w = PartitionWriter::create(&tmp.path().join("t-0"), &topic(), cfg).unwrap();
        for i in 0..10 {
            w.append(&mut batch(10, 1000 * i, 100), 0, None).unwrap();
        }
        let c = w.close().unwrap();
        assert_eq!(c.segments, vec![0, 30, 60, 90]);
        indexes_as_recovery_builds(&tmp.path().join("t-0"), 1000);
        // a producer snapshot at every roll and at the log end
        for s in [30, 60, 90, 100] {
            assert!(tmp.path().join(format!("t-0/{}", segment_file_name(s, ".snapshot"))).exists(), "{s}");
        }
        // by time: segment.ms after the first batch's maxTimestamp
        let cfg = LogConfig { segment_ms: 1000, ..LogConfig::default() };
        let mut w = PartitionWriter::create(&tmp.path().join("t-1"), &topic(), cfg).unwrap();
        for ts in [0, 500, 1000, 1001, 1500, 2002] {
            w.append(&mut batch(1, ts, 10), ts, None).unwrap();
        }
        assert_eq!(w.close().unwrap().segments, vec![0, 3, 5]);
        // by a full index: room for three offset index entries (an entry
        // at every batch but the first; the time index gets one, the
        // timestamps never grow)
        let cfg = LogConfig { segment_index_bytes: 24, index_interval_bytes: 0, ..LogConfig::default() };
        let mut w = PartitionWriter::create(&tmp.path().join("t-2"), &topic(), cfg).unwrap();
        for _ in 0..6 {
            w.append(&mut batch(1, 0, 10), 0, None).unwrap();
        }
        assert_eq!(w.close().unwrap().segments, vec![0, 4]);
        indexes_as_recovery_builds(&tmp.path().join("t-2"), 0);
    }

    #[test]
    fn in_place_raw_appends_write_what_the_builder_writes_and_locate_finds_them() {
        let tmp = tempfile::tempdir().unwrap();
        for append_time in [false, true] {
            let cfg = LogConfig {
                segment_bytes: 4096,
                index_interval_bytes: 500,
                log_append_time: append_time,
                ..LogConfig::default()
            };
            let (a, b) = (tmp.path().join(format!("a-{append_time}")), tmp.path().join(format!("b-{append_time}")));
            let mut built = PartitionWriter::create(&a, &topic(), cfg).unwrap();
            let mut raw = PartitionWriter::create_in_place(&b, &topic(), cfg).unwrap();
            let mut bases = Vec::new();
            for i in 0..12 {
                let mut x = batch(7, 100 * i, 60);
                built.append(&mut x, 5000 + i, None).unwrap();
                // as a producer sends it: base offset 0, no leader epoch
                let mut bytes = batch(7, 100 * i, 60).build();
                let got = raw.append_raw(&mut bytes, 5000 + i).unwrap();
                bases.push((got.base_offset, got.segment, got.position));
                // in place: the batch is in the file already
                let on_disk = std::fs::metadata(raw.segment_log(got.segment)).unwrap().len();
                assert_eq!(on_disk, got.position + got.size);
            }
            // every batch (and an offset inside it) is found at or after an
            // index entry at or before it, in its segment
            for (base, segment, position) in &bases {
                for offset in [*base, base + 6] {
                    let (seg, pos) = raw.locate(offset).unwrap().unwrap();
                    assert_eq!(seg, *segment);
                    assert!(pos <= *position, "{offset}: {pos} > {position}");
                }
            }
            assert_eq!(raw.locate(raw.log_end_offset()).unwrap(), None);
            built.close().unwrap();
            raw.close().unwrap();
            for f in logfmt::logdir::partition_files(&a).unwrap() {
                let name = f.file_name().unwrap();
                assert_eq!(std::fs::read(&f).unwrap(), std::fs::read(b.join(name)).unwrap(), "{}", f.display());
            }
        }
    }

    #[test]
    fn a_reopened_partition_goes_on_as_one_that_never_stopped() {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = LogConfig { segment_bytes: 4096, index_interval_bytes: 500, ..LogConfig::default() };
        let (a, b) = (tmp.path().join("a-0"), tmp.path().join("b-0"));
        let mut once = PartitionWriter::create_in_place(&a, &topic(), cfg).unwrap();
        let mut twice = PartitionWriter::create_in_place(&b, &topic(), cfg).unwrap();
        let idempotent = |seq: i32| {
            let mut x = batch(7, 100 * i64::from(seq), 60);
            x.producer_id = 9;
            x.producer_epoch = 0;
            x.base_sequence = seq;
            x.build()
        };
        let checkpoints = logfmt::partition::LogDirCheckpoints::default();
        let limits = logfmt::Limits::default();
        for i in 0..20 {
            once.append_raw(&mut idempotent(i * 7), 0).unwrap();
            twice.append_raw(&mut idempotent(i * 7), 0).unwrap();
            if i == 8 || i == 13 {
                twice.close().unwrap();
                twice = PartitionWriter::open_in_place(&b, cfg, &checkpoints, &limits).unwrap();
                assert_eq!(twice.log_end_offset(), once.log_end_offset());
                // the producer's last batch is still known: a retry is a duplicate
                let h = *logfmt::batch::RecordBatch::parse(&idempotent(i * 7), 0).unwrap().header();
                assert!(matches!(twice.producers().check_append(&h), AppendCheck::Duplicate { .. }));
            }
        }
        assert_eq!(once.close().unwrap().segments, twice.close().unwrap().segments);
        for f in logfmt::logdir::partition_files(&a).unwrap() {
            let name = f.file_name().unwrap();
            assert_eq!(std::fs::read(&f).unwrap(), std::fs::read(b.join(name)).unwrap(), "{}", f.display());
        }
    }

    #[test]
    fn log_append_time_epochs_and_log_start() {
        let tmp = tempfile::tempdir().unwrap();
        let cfg = LogConfig { log_append_time: true, ..LogConfig::default() };
        let dir = tmp.path().join("t-0");
        let mut w = PartitionWriter::create(&dir, &topic(), cfg).unwrap();
        let a = w.append(&mut batch(3, 10, 5), 99, None).unwrap();
        assert_eq!((a.base_offset, a.last_offset, a.max_timestamp), (0, 2, 99));
        w.become_leader(4).unwrap();
        assert!(w.become_leader(4).is_err());
        w.append(&mut batch(2, 10, 5), 100, None).unwrap();
        w.delete_records(1).unwrap();
        assert!(w.delete_records(0).is_err());
        let c = w.close().unwrap();
        assert_eq!((c.log_start_offset, c.log_end_offset, c.leader_epoch), (1, 5, 4));
        assert_eq!(std::fs::read_to_string(dir.join("leader-epoch-checkpoint")).unwrap(), "0\n2\n0 1\n4 3\n");
        let p = Partition::open(&dir, &logfmt::Limits::default()).unwrap();
        let mut epochs = Vec::new();
        logfmt::partition::scan(&p.segments[0], &logfmt::Limits::default(), |b| {
            epochs.push((b.epoch, b.max_timestamp))
        })
        .unwrap();
        assert_eq!(epochs, [(0, 99), (4, 100)]);
    }

    #[test]
    fn aborted_transactions_and_snapshots() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("t-0");
        let mut w = PartitionWriter::create(&dir, &topic(), LogConfig::default()).unwrap();
        let data = |pid: i64, seq: i32| {
            let mut b = batch(2, 0, 5);
            b.producer_id = pid;
            b.producer_epoch = 0;
            b.base_sequence = seq;
            b.transactional = true;
            b
        };
        let abort = EndTxnMarker { commit: false, version: 0, coordinator_epoch: 5 };
        let commit = EndTxnMarker { commit: true, ..abort };
        w.append(&mut data(1, 0), 0, None).unwrap(); // 0-1
        w.append(&mut data(2, 0), 0, None).unwrap(); // 2-3
        let mut m = crate::write::logdir::end_txn_batch(1, 0, &abort, 7);
        w.append(&mut m, 7, Some(&abort)).unwrap(); // 4: aborts 0..4, LSO 2 (producer 2 open)
        let mut m = crate::write::logdir::end_txn_batch(2, 0, &commit, 8);
        w.append(&mut m, 8, Some(&commit)).unwrap(); // 5
        let mut m = crate::write::logdir::end_txn_batch(3, 0, &abort, 9);
        w.append(&mut m, 9, Some(&abort)).unwrap(); // 6: an empty transaction, no entry
        let entries = w.producers().snapshot_entries();
        assert_eq!(entries.len(), 3);
        assert_eq!((entries[0].last_sequence, entries[0].last_offset, entries[0].coordinator_epoch), (1, 1, 5));
        w.close().unwrap();
        let txn = std::fs::read(dir.join(segment_file_name(0, ".txnindex"))).unwrap();
        let want = TxnIndexEntry { version: 0, producer_id: 1, first_offset: 0, last_offset: 4, last_stable_offset: 2 };
        assert_eq!(txn, emit::txn_index(&[want]));
        let snap =
            logfmt::snapshot::read(&dir.join(segment_file_name(7, ".snapshot")), &logfmt::Limits::default()).unwrap();
        assert_eq!(snap.entries, entries);
        indexes_as_recovery_builds(&dir, 4096);
    }

    #[test]
    fn a_crash_leaves_preallocated_indexes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("t-0");
        let cfg = LogConfig { segment_index_bytes: 1000, index_interval_bytes: 10, ..LogConfig::default() };
        let mut w = PartitionWriter::create(&dir, &topic(), cfg).unwrap();
        for _ in 0..3 {
            w.append(&mut batch(2, 5, 5), 0, None).unwrap();
        }
        w.crash().unwrap();
        assert_eq!(std::fs::metadata(dir.join(segment_file_name(0, ".index"))).unwrap().len(), 1000);
        assert_eq!(std::fs::metadata(dir.join(segment_file_name(0, ".timeindex"))).unwrap().len(), 996);
        assert!(!dir.join(segment_file_name(6, ".snapshot")).exists());
        let files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(!files.iter().any(|f| f.to_string_lossy().ends_with(".tmp")), "{files:?}");
    }
}
