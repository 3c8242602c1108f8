//! Finding every problem in a log dir, a partition or a file.
//!
//! Verification is a report, not an exception: every check adds [`Finding`]s
//! (file, byte range, offset, [`Kind`], [`Severity`], message) and goes on.
//! Only the caller decides what is fatal. Nothing here writes.
//!
//! * [`check_log_dir`]: the log dir's own files (`meta.properties`, the four
//!   offset checkpoints, the clean-shutdown marker, `.lock`, foreign
//!   directories), returning what the checkpoints say about each partition.
//! * [`check_partition`]: every segment in one streaming pass each (see
//!   `segment.rs`), then segment continuity, checkpoints against the log end,
//!   the leader-epoch checkpoint against the batches' epochs, producer
//!   snapshots, `partition.metadata`.
//! * [`check_file`]: one file on its own.
//!
//! What Kafka would have on disk comes from [`logrules`] (producer state
//! and `.txnindex`, the leader-epoch cache and the log start, log end,
//! header sanity through the reader); verify only compares.
//!
//! Severities: `error` is damage or a state Kafka mishandles (data loss,
//! wrong answers, refusing to start); `warning` is an inconsistency Kafka
//! repairs itself at startup or that older brokers legitimately wrote;
//! `info` is normal-but-notable. Each (file, kind) is listed at most
//! [`Options::max_per_kind`] times; the rest are counted.

/// The name of a `metadata.version` feature level (`3.9-IV0`...).
pub use logrules::start::metadata_version_name;

mod segment;
mod summary;

pub use logrules::mode::DirMode;
pub use summary::{StartPlanLine, VerifySummaryLine};

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use logfmt::checkpoint::{self, EpochEntry};
use logfmt::limits::Limits;
use logfmt::lock::{self, LockState};
use logfmt::log::{Item, LogReader};
use logfmt::logdir::{self, LogDirEntry};
use logfmt::naming::{self, FileKind, TempSuffix};
use logfmt::partition::{LogDir, LogDirCheckpoints, Partition, Segment};
use logfmt::spec::names as n;
use logrules as rules;
use logrules::config::Version;
use logrules::start;
use segment::{PartitionState, SegmentChecker, SegmentSummary};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Normal but worth knowing.
    Info,
    /// Inconsistent, but Kafka copes (or older brokers wrote it so).
    Warning,
    /// Damage, or a state Kafka mishandles.
    Error,
}

impl Severity {
    /// `info`, `warning`, `error`.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

macro_rules! kinds {
    ($($variant:ident => $name:literal, $sev:ident, $doc:literal;)*) => {
        /// What was found. `name()` is the stable name used in output.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Kind {
            $(#[doc = $doc] $variant,)*
        }

        impl Kind {
            /// The name used in output (snake_case).
            pub fn name(self) -> &'static str {
                match self { $(Kind::$variant => $name,)* }
            }

            /// The severity this kind is reported with.
            pub fn severity(self) -> Severity {
                match self { $(Kind::$variant => Severity::$sev,)* }
            }

            /// One line on what the kind means.
            pub fn description(self) -> &'static str {
                match self { $(Kind::$variant => $doc,)* }
            }

            /// Every kind.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];
        }
    };
}

kinds! {
    IoError => "io_error", Error, "a file could not be read";
    MemoryBudget => "memory_budget", Error, "a batch, record or decoder window needs more memory than --memory gives: not checked (rerun with a larger --memory)";
    NotKafkaFile => "not_a_kafka_file", Error, "a file given to check that is not a file of a Kafka log dir";
    Corrupt => "corrupt", Error, "bytes in a segment that are not a readable batch";
    TruncatedTail => "truncated_tail", Warning, "a partial batch at the end of the active segment: a torn write, normal after a crash";
    ZeroedTail => "zeroed_tail", Warning, "zero-filled bytes at the end of the active segment, normal after a crash";
    TruncatedSegment => "truncated_segment", Error, "a rolled (not active) segment ends inside a batch";
    ZeroedRegion => "zeroed_region", Error, "zero-filled bytes in the middle of a segment";
    CrcMismatch => "crc_mismatch", Error, "a batch or message whose checksum does not match its bytes";
    RecordCountMismatch => "record_count_mismatch", Error, "recordsCount does not fit lastOffsetDelta";
    OffsetGapInBatch => "offset_gap_in_batch", Warning, "fewer records than offsets in a batch of a partition the cleaner never compacted";
    RecordInvalid => "record_invalid", Error, "records that do not decode exactly to the batch's length and count";
    RecordOffsetInvalid => "record_offset_invalid", Error, "record offsets outside the batch's range or not increasing";
    DecompressionFailed => "decompression_failed", Error, "a compressed payload that does not decompress";
    ControlRecordInvalid => "control_record_invalid", Error, "a control batch whose record is not a valid control record";
    MaxTimestampMismatch => "max_timestamp_mismatch", Warning, "maxTimestamp is not the largest record timestamp (CreateTime)";
    BaseTimestampMismatch => "base_timestamp_mismatch", Warning, "the first record's timestamp is not baseTimestamp (and no delete horizon is set)";
    BaseOffsetInvalid => "base_offset_invalid", Error, "a batch whose baseOffset (outside the CRC) does not fit its position: below the previous batch's end, outside its segment's offsets, or out of line with the batches around it";
    BatchLengthInvalid => "batch_length_invalid", Error, "a batch whose batchLength (outside the CRC) is wrong: its CRC matches a different length";
    PartitionLeaderEpochInvalid => "partition_leader_epoch_invalid", Error, "a batch whose partitionLeaderEpoch (outside the CRC) is negative but not -1, or below the previous batch's";
    MagicInvalid => "magic_invalid", Error, "a batch whose magic byte (outside the CRC) is wrong: the bytes are a valid v2 batch";
    SequenceGap => "sequence_gap", Warning, "a producer's sequence numbers skip or repeat between its batches";
    SequenceGapCompacted => "sequence_gap_compacted", Info, "a producer sequence gap in a compacted partition (the cleaner removed batches)";
    ProducerEpochRegression => "producer_epoch_regression", Warning, "a producer writes with an epoch lower than before";
    LeaderEpochRegression => "leader_epoch_regression", Error, "a segment whose batches carry a lower leader epoch than the segment before";
    SegmentOverlap => "segment_overlap", Error, "a segment starting at or below the previous segment's last offset";
    SegmentGap => "segment_gap", Info, "offsets missing between two segments of a compacted partition (the cleaner removed them)";
    OffsetGap => "offset_gap", Warning, "offsets missing between two batches or segments of a partition that cannot have been compacted";
    SegmentBaseOffsetMismatch => "segment_base_offset_mismatch", Error, "a segment's first batch lies below the base offset in its name";
    EmptySegment => "empty_segment", Info, "a rolled segment without batches";
    LeftoverFile => "leftover_file", Info, "a .deleted/.cleaned/.tmp/.part file; Kafka removes it at startup";
    DeleteDir => "delete_dir", Info, "a partition dir renamed -delete: Kafka deletes it (file.delete.delay.ms after the rename), so its files are not checked";
    LeftoverSwap => "leftover_swap", Warning, "a .swap file from an interrupted log-cleaner swap; Kafka completes the swap at startup";
    OrphanIndex => "orphan_index", Warning, "an index file without its .log; Kafka deletes it at startup";
    SegmentNameInvalid => "segment_name_invalid", Error, "a .log or index file whose name does not start with an offset: Kafka fails to load the partition";
    IndexMissing => "index_missing", Warning, "a segment without .index; Kafka rebuilds it at startup";
    NewerKafka => "newer_kafka", Info, "the dir was written by a Kafka newer than this logtool knows (its metadata.version is above every release of the table): read with the newest release's rules";
    LogEndHidden => "log_end_hidden", Error, "after a clean shutdown, the last segment's .index has a last entry past every batch: Kafka's load takes the segment's base offset as the log end and hides the records above it (recover rebuilds the index)";
    TimeIndexMissing => "time_index_missing", Info, "a segment without .timeindex; Kafka recreates it empty";
    IndexNotMonotonic => "index_not_monotonic", Error, "an index entry out of order with the entries around it: lookups give wrong answers";
    IndexEntryMismatch => "index_entry_mismatch", Error, "an offset index entry that does not point at the batch it must";
    IndexEntryNotBatchEnd => "index_entry_not_batch_end", Warning, "an offset index entry whose offset is not the last offset of its batch";
    IndexEntryInvalid => "index_entry_invalid", Error, "an index entry that cannot be read";
    IndexBeyondLogEnd => "index_beyond_log_end", Error, "index entries past the end of the log: a stale index";
    TimeIndexMismatch => "time_index_mismatch", Warning, "a time index entry that does not match the batches: timestamp lookups may be off";
    IndexPreallocated => "index_preallocated", Info, "the zero-filled preallocated tail of the active segment's index (unclean shutdown)";
    IndexNotTrimmed => "index_not_trimmed", Warning, "a zero-filled tail in a rolled segment's index, which Kafka trims at roll";
    IndexGarbageTail => "index_garbage_tail", Warning, "non-zero bytes after an index's last entry";
    IndexPartialEntry => "index_partial_entry", Warning, "an index file length that is not a whole number of entries";
    TxnIndexMissingEntry => "txn_index_missing_entry", Error, "an ABORT marker of a transaction that wrote here, with no .txnindex entry: read_committed consumers see aborted records";
    TxnIndexExtraEntry => "txn_index_extra_entry", Warning, "a .txnindex entry with no aborted transaction (an empty transaction's marker gets none)";
    TxnIndexMismatch => "txn_index_mismatch", Error, "a .txnindex entry that names another producer or first offset than the aborted transaction of its marker";
    HighWatermarkAboveLogEnd => "high_watermark_above_log_end", Error, "replication-offset-checkpoint says the high watermark is past the log end";
    RecoveryPointAboveLogEnd => "recovery_point_above_log_end", Error, "recovery-point-offset-checkpoint says the recovery point is past the log end";
    LogStartOutOfRange => "log_start_out_of_range", Error, "log-start-offset-checkpoint says the log starts past its end";
    LogStartAboveHighWatermark => "log_start_above_high_watermark", Error, "the log start offset is above the high watermark";
    CleanerOffsetAboveLogEnd => "cleaner_offset_above_log_end", Warning, "cleaner-offset-checkpoint is past the log end";
    CheckpointMalformed => "checkpoint_malformed", Error, "a checkpoint file Kafka cannot parse (it takes the log dir offline)";
    CheckpointPartitionMissing => "checkpoint_partition_missing", Warning, "a checkpoint names a partition this log dir does not hold";
    CheckpointFileMissing => "checkpoint_file_missing", Info, "a log dir checkpoint file is missing beside partitions: Kafka creates it empty at start, with the consequence the message says";
    LeaderEpochNotIncreasing => "leader_epoch_not_increasing", Error, "leader-epoch-checkpoint entries whose epochs or offsets do not increase";
    LeaderEpochMismatch => "leader_epoch_mismatch", Error, "batches at or above the log start whose leader epoch disagrees with leader-epoch-checkpoint";
    LeaderEpochBeyondLogEnd => "leader_epoch_beyond_log_end", Warning, "a leader-epoch entry past the log end; Kafka drops it at startup";
    LeaderEpochCheckpointMissing => "leader_epoch_checkpoint_missing", Warning, "v2 batches carry leader epochs but there is no leader-epoch-checkpoint";
    RemoteEpochsUncovered => "remote_epochs_uncovered", Warning, "a tiered partition's leader-epoch-checkpoint starts above its log start: the remote offsets below its first entry cannot be fetched";
    ProducerSnapshotCorrupt => "producer_snapshot_corrupt", Warning, "a producer snapshot that does not parse or whose CRC fails; Kafka deletes it and rebuilds from the log";
    ProducerSnapshotTorn => "producer_snapshot_torn", Info, "a producer snapshot cut short in a log dir without a clean shutdown, as a kill while Kafka wrote it leaves it (it creates the file, then writes it): Kafka deletes it and rebuilds from the log";
    ProducerSnapshotBeyondLogEnd => "producer_snapshot_beyond_log_end", Warning, "a producer snapshot past the log end (or holding offsets past its own); Kafka deletes it";
    ProducerSnapshotMissing => "producer_snapshot_missing", Info, "after a clean shutdown, no readable producer snapshot at the log end (Kafka takes one when it stops): its load rebuilds the producer state from the snapshot below and writes one there";
    PartitionMetadataMissing => "partition_metadata_missing", Warning, "no partition.metadata (topic id)";
    PartitionMetadataInvalid => "partition_metadata_invalid", Error, "partition.metadata that does not parse";
    MetaPropertiesMissing => "meta_properties_missing", Warning, "a log dir without meta.properties";
    MetaPropertiesInvalid => "meta_properties_invalid", Error, "meta.properties without a valid version and node/broker id";
    DirectoryIdUnregistered => "directory_id_unregistered", Warning, "meta.properties without the directory.id the node registered this dir under: Kafka writes a new one and moves the dir's partitions to it";
    RemoteIndexCache => "remote_index_cache", Info, "tiered storage's remote-log-index-cache directory: Kafka's, skipped by its log loader, not checked";
    ForeignDirectory => "foreign_directory", Error, "a directory that is not a partition: Kafka 3.9 refuses to start";
    UnfinishedRepair => "unfinished_repair", Error, "a logtool repair of this log dir stopped part way through its commit (or its undo): the dir is neither as before nor as repaired";
    LogDirLocked => "log_dir_locked", Info, "a live process (a broker) holds the log dir's .lock; files may change while read";
    StrayPartition => "stray_partition", Warning, "a partition dir Kafka sets aside when it starts (renamed with a `-stray` suffix) and then serves empty: no or an unknown topic id, or this node is not a replica";
    ZookeeperDirUnderKraft => "zookeeper_dir_under_kraft", Error, "a ZooKeeper-mode broker's dir (no metadata log, meta.properties version 0) that the Kafka release checked (4.x: KRaft only) starts on as a KRaft node: it bootstraps an empty metadata log and sets every partition dir aside as stray; migrate to KRaft on 3.9 first";
    MigrationUnfinished => "migration_unfinished", Error, "a dir of a cluster whose migration from ZooKeeper to KRaft is not finalized (a dual-write broker, or ZkMigrationState MIGRATION), checked as Kafka 4.x, which has no ZooKeeper migration: finalize it on 3.9 first";
    StartRefused => "start_refused", Error, "something that stops the Kafka version checked from starting: in the metadata log (a topic config it refuses, a metadata.version it cannot load, a duplicate TopicRecord), a file it cannot parse (a checkpoint, leader-epoch-checkpoint, partition.metadata: the log dir goes offline) or no meta.properties";
    HighWatermarkOnStart => "high_watermark_on_start", Info, "the high watermark moves when Kafka starts: the ISR is this broker alone, so once it leads the high watermark is its log end";
    UncleanShutdown => "unclean_shutdown", Info, "no clean-shutdown marker: Kafka recovers the segments above the recovery point at startup";
    Note => "note", Info, "something worth knowing about the check itself";
    FindingsCapped => "findings_capped", Info, "more findings of one kind in one file than are listed";
}

impl Kind {
    /// The Kafka rule the kind checks (the class or method it comes from).
    pub fn rule(self) -> &'static str {
        match self {
            Kind::IoError => "the broker reads every file of a log dir at startup (`LogLoader`)",
            Kind::MemoryBudget => "none: a limit of logtool's (`--memory`), not of Kafka's",
            Kind::NotKafkaFile => "the names `LogFileUtils` and `UnifiedLog` give a log dir's files",
            Kind::Corrupt => "`FileLogInputStream`: entries are framed by offset, size and magic",
            Kind::TruncatedTail => "`LogSegment.recover` cuts a torn final write",
            Kind::ZeroedTail => "`LogSegment.recover` stops at a size below the smallest entry",
            Kind::TruncatedSegment => "only the active segment is written to (`UnifiedLog.append`)",
            Kind::ZeroedRegion => "segments are written contiguously (`FileRecords.append`)",
            Kind::CrcMismatch => "`DefaultRecordBatch.ensureValid` (CRC-32C), `LegacyRecord.ensureValid` (CRC-32)",
            Kind::RecordCountMismatch => "`DefaultRecordBatch`: recordsCount <= lastOffsetDelta + 1",
            Kind::OffsetGapInBatch => "`LogValidator` assigns consecutive offsets; only `LogCleaner` removes records",
            Kind::RecordInvalid => "`DefaultRecord.readFrom`: each record uses exactly its length; the count matches",
            Kind::RecordOffsetInvalid => "`DefaultRecord` offset deltas increase from 0 to lastOffsetDelta",
            Kind::DecompressionFailed => "`CompressionType.wrapForInput` with Kafka's framing",
            Kind::ControlRecordInvalid => "`ControlRecordType`, `EndTransactionMarker`: one marker per control batch",
            Kind::MaxTimestampMismatch => "`DefaultRecordBatch.maxTimestamp` of CreateTime batches",
            Kind::BaseTimestampMismatch => {
                "`MemoryRecordsBuilder` sets baseTimestamp to the first record's (or `LogCleaner` a delete horizon)"
            }
            Kind::BaseOffsetInvalid => {
                "offsets increase (`LogValidator`), fit the segment (`LogSegment.ensureOffsetInRange`) and stay below the next segment (`LogSegments`)"
            }
            Kind::BatchLengthInvalid => "`FileLogInputStream` frames by batchLength; the CRC covers the bytes it spans",
            Kind::PartitionLeaderEpochInvalid => "`LeaderEpochFileCache`: epochs are -1 or non-negative and only rise",
            Kind::MagicInvalid => "`RecordBatch.MAGIC_VALUE_V0..V2`; the v2 CRC covers the bytes after magic",
            Kind::SequenceGap => "`ProducerAppendInfo.checkSequence`: sequences follow on within an epoch",
            Kind::SequenceGapCompacted => "`ProducerAppendInfo.checkSequence`, after `LogCleaner` removed batches",
            Kind::ProducerEpochRegression => "`ProducerAppendInfo.checkProducerEpoch`: epochs never go back",
            Kind::LeaderEpochRegression => "`LeaderEpochFileCache`: epochs only rise along the log",
            Kind::SegmentOverlap => "`LogSegments`: segment offset ranges are disjoint",
            Kind::SegmentGap => "`LogCleaner` removes offsets between segments",
            Kind::OffsetGap => {
                "`LogValidator` assigns consecutive offsets and `UnifiedLog.roll` names a segment after its first; only `LogCleaner` leaves gaps"
            }
            Kind::SegmentBaseOffsetMismatch => "`UnifiedLog.roll`: a segment is named after its first offset",
            Kind::EmptySegment => "`UnifiedLog.roll` rolls on an append",
            _ => self.rule_of_files(),
        }
    }

    /// [`Kind::rule`] of the kinds about files, partitions and the log dir.
    fn rule_of_files(self) -> &'static str {
        match self {
            Kind::LeftoverFile => "`LogLoader.removeTempFilesAndCollectSwapFiles`",
            Kind::LeftoverSwap => "`LogLoader` completes an interrupted `LogCleaner` swap",
            Kind::OrphanIndex => "`LogLoader.loadSegmentFiles` deletes an index without its log",
            Kind::SegmentNameInvalid => {
                "`LogLoader.loadSegmentFiles`: `offsetFromFileName` is `Long.parseLong` of the name up to its first `.`"
            }
            Kind::IndexMissing => "`LogLoader.loadSegmentFiles` recovers a segment without its index",
            Kind::NewerKafka => "`MetadataVersion` of each release ([`logrules::release`])",
            Kind::LogEndHidden => {
                "`LogSegment.readNextOffset` reads on from the `.index`'s last entry ([`logrules::recovery::hidden_log_end`])"
            }
            Kind::DeleteDir => "`LogManager.loadLog` -> `addLogToBeDeleted`; `LogLoader` skips its recovery",
            Kind::TimeIndexMissing => "`LogSegment.sanityCheck` recreates a missing time index empty",
            Kind::IndexNotMonotonic => "`OffsetIndex.append`/`TimeIndex.maybeAppend` only append increasing entries",
            Kind::IndexEntryMismatch => {
                "`LogSegment.append`/`recover`: an entry is (a batch's last offset, its position)"
            }
            Kind::IndexEntryNotBatchEnd => "`LogSegment.append` indexes the largest offset of the append",
            Kind::IndexEntryInvalid => "`OffsetIndex`/`TimeIndex` entries are fixed-size",
            Kind::IndexBeyondLogEnd => "`LogSegment.truncateTo` truncates the indexes with the log",
            Kind::TimeIndexMismatch => "`LogSegment.append`: entries name the batch that raised the maximum timestamp",
            Kind::IndexPreallocated => {
                "`AbstractIndex` preallocates the active segment's index; `trimToValidSize` on close"
            }
            Kind::IndexNotTrimmed => "`AbstractIndex.trimToValidSize` at roll",
            Kind::IndexGarbageTail => "`AbstractIndex` preallocates with zeros",
            Kind::IndexPartialEntry => "`AbstractIndex` files hold whole entries",
            Kind::TxnIndexMissingEntry => {
                "`ProducerAppendInfo.appendEndTxnMarker` + `LogSegment.updateTxnIndex`: an aborted transaction that wrote here gets an entry"
            }
            Kind::TxnIndexExtraEntry => {
                "`ProducerAppendInfo.appendEndTxnMarker`: an empty transaction completes nothing"
            }
            Kind::TxnIndexMismatch => "`LogSegment.updateTxnIndex` writes the transaction's producer and first offset",
            Kind::HighWatermarkAboveLogEnd => {
                "`UnifiedLog.updateHighWatermark`: the high watermark is at most the log end"
            }
            Kind::RecoveryPointAboveLogEnd => "`LogLoader`: the recovery point is at most the log end",
            Kind::LogStartOutOfRange => "`LogLoader`: the log start is at most the log end",
            Kind::LogStartAboveHighWatermark => {
                "`UnifiedLog.maybeIncrementLogStartOffset` never passes the high watermark"
            }
            Kind::CleanerOffsetAboveLogEnd => "`LogCleanerManager`: the cleaner offset is at most the log end",
            Kind::CheckpointMalformed => {
                "`CheckpointFile.CheckpointReadBuffer`: a log dir with one it cannot read goes offline"
            }
            Kind::CheckpointPartitionMissing => "`LogManager` checkpoints the partitions it holds",
            Kind::CheckpointFileMissing => {
                "`CheckpointFile` creates a missing file empty ([`start::missing_checkpoint`])"
            }
            Kind::LeaderEpochNotIncreasing => "`LeaderEpochFileCache.assign`: epochs and start offsets increase",
            Kind::LeaderEpochMismatch => {
                "`LeaderEpochFileCache`: the entry covering an offset at or above the log start is its batch's epoch (`truncateFromStart` drops those below)"
            }
            Kind::LeaderEpochBeyondLogEnd => {
                "`LeaderEpochFileCache.truncateFromEnd`, asynchronous since 3.9: `LogLoader` truncates again"
            }
            Kind::LeaderEpochCheckpointMissing => "`UnifiedLog` keeps a leader-epoch cache for v2 logs",
            Kind::RemoteEpochsUncovered => "`RemoteLogManager.read` finds a remote segment by epoch (`epochForOffset`)",
            Kind::ProducerSnapshotCorrupt => "`ProducerStateManager.readSnapshot` (CRC-32C)",
            Kind::ProducerSnapshotTorn => {
                "`ProducerStateManager.writeSnapshot` (create, then write), `loadFromSnapshot` (a `CorruptSnapshotException` deletes it)"
            }
            Kind::ProducerSnapshotBeyondLogEnd => {
                "`ProducerStateManager.truncateAndReload` deletes snapshots past the log end"
            }
            Kind::ProducerSnapshotMissing => {
                "`UnifiedLog.close` takes a snapshot at the log end; `UnifiedLog.rebuildProducerState` writes it again"
            }
            Kind::PartitionMetadataMissing => "`UnifiedLog.maybeFlushMetadataFile` writes the topic id",
            Kind::PartitionMetadataInvalid => "`PartitionMetadataFile`",
            Kind::MetaPropertiesMissing => "`MetaPropertiesEnsemble`: `kafka-storage format` writes it",
            Kind::MetaPropertiesInvalid => "`MetaProperties`: version with node.id (or broker.id) and cluster.id",
            Kind::DirectoryIdUnregistered => "`MetaPropertiesEnsemble.Copier`, `RegisterBrokerRecord.LogDirs`",
            Kind::RemoteIndexCache => "`LogManager.loadLogs` skips `RemoteIndexCache.DIR_NAME`",
            Kind::ForeignDirectory => "`LogManager.loadLogs` refuses a directory that is not a partition (3.9)",
            Kind::UnfinishedRepair => "logtool's repair journal (`manifest.json` in the quarantine beside the log dir)",
            Kind::LogDirLocked => "`FileLock`: a running broker holds `.lock`",
            Kind::StrayPartition => "`LogManager.isStrayKraftReplica` (3.9), `LogManager.isStrayReplica` (4.x)",
            Kind::ZookeeperDirUnderKraft => {
                "`KafkaRaftServer` (4.x: KRaft only) bootstraps an empty metadata log; `LogManager.isStrayReplica` then knows no topic id"
            }
            Kind::MigrationUnfinished => "`ZkMigrationState` (KIP-866); Kafka 4.0 removed ZooKeeper and the migration",
            Kind::StartRefused => {
                "`LogManager.startup` (`new LogConfig`), `MetadataVersion.fromFeatureLevel`, `ReplicationControlManager.replay(TopicRecord)`"
            }
            Kind::HighWatermarkOnStart => "`Partition.makeLeader` -> `maybeIncrementLeaderHW`",
            Kind::UncleanShutdown => "`LogLoader` recovers above the recovery point without `.kafka_cleanshutdown`",
            Kind::Note => "-",
            Kind::FindingsCapped => "-",
            _ => "",
        }
    }
}

/// One problem found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The file (or directory) concerned.
    pub file: PathBuf,
    /// Absolute byte position, when it has one.
    pub position: Option<u64>,
    /// End (exclusive) of a damaged byte range.
    pub end_position: Option<u64>,
    /// The Kafka offset concerned, when known.
    pub offset: Option<i64>,
    /// What.
    pub kind: Kind,
    /// How bad.
    pub severity: Severity,
    /// Details in words.
    pub message: String,
}

impl serde::Serialize for Finding {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Finding", 7)?;
        st.serialize_field("file", &self.file.display().to_string())?;
        st.serialize_field("position", &self.position)?;
        st.serialize_field("end_position", &self.end_position)?;
        st.serialize_field("offset", &self.offset)?;
        st.serialize_field("kind", self.kind.name())?;
        st.serialize_field("severity", self.severity.name())?;
        st.serialize_field("message", &self.message)?;
        st.end()
    }
}

impl logfmt::report::Report for Finding {
    const TYPE: &'static str = "finding";
    fn show(&self) -> logfmt::report::Shown {
        let cells = {
            let at = match (self.position, self.end_position) {
                // first-last, both included: the one range notation
                (Some(p), Some(e)) if e > p.saturating_add(1) => format!("{p}-{}", e.saturating_sub(1)),
                (Some(p), _) => p.to_string(),
                _ => String::new(),
            };
            vec![
                self.severity.name().to_string(),
                self.kind.name().to_string(),
                self.file.display().to_string(),
                at,
                self.offset.map_or(String::new(), |o| o.to_string()),
                self.message.clone(),
            ]
        };
        logfmt::report::Shown::Row(&["SEVERITY", "KIND", "FILE", "BYTES", "OFFSET", "MESSAGE"], cells)
    }
}

/// Options for verification.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Limits for reading.
    pub limits: Limits,
    /// Findings listed per (file, kind); the rest are counted.
    pub max_per_kind: usize,
    /// Read a large segment ahead on its own thread and check its batches on
    /// all cores. Worth it when there are fewer partitions than cores; each
    /// segment checked this way holds about four slabs (16 MiB) in memory.
    pub read_ahead: bool,
    /// The Kafka release whose start is judged (stray partitions, refused
    /// configs); `None`: the one the dir's `metadata.version` implies.
    pub kafka_version: Option<Version>,
    /// Read the records of every v2 batch, decompressing those that are
    /// compressed (DumpLogSegments' `--deep-iteration`). Without it, the
    /// default, a batch whose CRC holds is checked by its CRC and header,
    /// as Kafka's recovery (`LogSegment.recover`) checks it: Kafka's
    /// shallow iteration, counted in [`Stats::batches_header_only`]. Control
    /// batches, batches whose CRC fails and v0/v1 messages are read either
    /// way.
    pub deep: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { limits: Limits::default(), max_per_kind: 100, read_ahead: true, kafka_version: None, deep: false }
    }
}

impl Options {
    /// The release judged for a log dir: the one asked for, else the one its
    /// `metadata.version` implies.
    pub fn version_for(&self, log_dir: &LogDir) -> Version {
        self.kafka_version
            .unwrap_or_else(|| start::implied_version(log_dir.metadata.as_ref().and_then(|m| m.metadata_version)))
    }
}

/// What a start of Kafka would do, counted over what was checked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StartTally {
    /// Partition dirs set aside as stray.
    pub strays: u64,
    /// Things that stop the start.
    pub refusals: u64,
    /// Partitions with segments to recover.
    pub partitions_recovered: u64,
    /// Segments recovered (above the recovery point, or without an index).
    pub segments_recovered: u64,
    /// Their bytes.
    pub bytes_recovered: u64,
    /// High watermarks that move to the log end.
    pub high_watermark_moves: u64,
}

impl StartTally {
    /// Add `other` to this.
    pub fn add(&mut self, o: &StartTally) {
        self.strays = self.strays.saturating_add(o.strays);
        self.refusals = self.refusals.saturating_add(o.refusals);
        self.partitions_recovered = self.partitions_recovered.saturating_add(o.partitions_recovered);
        self.segments_recovered = self.segments_recovered.saturating_add(o.segments_recovered);
        self.bytes_recovered = self.bytes_recovered.saturating_add(o.bytes_recovered);
        self.high_watermark_moves = self.high_watermark_moves.saturating_add(o.high_watermark_moves);
    }
}

/// What was read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Segment files read.
    pub files: u64,
    /// Partition directories.
    pub partitions: u64,
    /// Batches (and legacy messages).
    pub batches: u64,
    /// Records.
    pub records: u64,
    /// Bytes of segments read.
    pub bytes: u64,
    /// Batches checked by CRC and header only (without [`Options::deep`];
    /// their records are counted from their headers).
    pub batches_header_only: u64,
}

impl Stats {
    /// Add `other` to this.
    pub fn add(&mut self, other: &Stats) {
        self.files = self.files.saturating_add(other.files);
        self.partitions = self.partitions.saturating_add(other.partitions);
        self.batches = self.batches.saturating_add(other.batches);
        self.records = self.records.saturating_add(other.records);
        self.bytes = self.bytes.saturating_add(other.bytes);
        self.batches_header_only = self.batches_header_only.saturating_add(other.batches_header_only);
    }
}

/// Findings and statistics of one check.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// In the order found.
    pub findings: Vec<Finding>,
    /// What was read.
    pub stats: Stats,
    /// What a start of Kafka would do.
    pub start: StartTally,
}

impl crate::schedule::Refusal for Report {
    /// A `memory_budget` finding: the budget refused part of the check.
    fn refused_by_budget(&self) -> bool {
        self.findings.iter().any(|f| f.kind == Kind::MemoryBudget)
    }
}

/// Collects findings, listing each (file, kind) at most `cap` times.
pub(crate) struct Findings {
    list: Vec<Finding>,
    counts: HashMap<(PathBuf, Kind), usize>,
    cap: usize,
}

impl Findings {
    fn new(cap: usize) -> Findings {
        Findings { list: Vec::new(), counts: HashMap::new(), cap }
    }

    pub(crate) fn push(
        &mut self,
        file: &Path,
        position: Option<u64>,
        end_position: Option<u64>,
        offset: Option<i64>,
        kind: Kind,
        message: String,
    ) {
        let n = self.counts.entry((file.to_path_buf(), kind)).or_insert(0);
        *n = n.saturating_add(1);
        if *n <= self.cap {
            self.list.push(Finding {
                file: file.to_path_buf(),
                position,
                end_position,
                offset,
                kind,
                severity: kind.severity(),
                message,
            });
        }
    }

    /// The lowest offset of a finding listed so far whose kind is one of
    /// `kinds`.
    fn lowest_offset(&self, kinds: &[Kind]) -> Option<i64> {
        self.list.iter().filter(|f| kinds.contains(&f.kind)).filter_map(|f| f.offset).min()
    }

    fn finish(mut self) -> Vec<Finding> {
        let mut capped: Vec<(&(PathBuf, Kind), &usize)> = self.counts.iter().filter(|(_, n)| **n > self.cap).collect();
        capped.sort();
        for ((file, kind), n) in capped {
            self.list.push(Finding {
                file: file.clone(),
                position: None,
                end_position: None,
                offset: None,
                kind: Kind::FindingsCapped,
                severity: Severity::Info,
                message: format!(
                    "{} more {} finding(s) not listed ({} in all)",
                    n.saturating_sub(self.cap),
                    kind.name(),
                    n
                ),
            });
        }
        self.list
    }
}

/// The logtool repairs of the log dir `dir` that stopped part way (found in
/// its default quarantine, beside it): one error each, naming the repair and
/// the two ways out. [`check_log_dir`] includes them; a partition dir or a
/// file checked alone asks its log dir here.
pub fn unfinished_repairs(dir: &Path, opts: &Options) -> Report {
    let mut out = Findings::new(opts.max_per_kind);
    unfinished_into(dir, &mut out);
    Report { findings: out.finish(), ..Report::default() }
}

fn unfinished_into(dir: &Path, out: &mut Findings) {
    match logfmt::journal::unfinished(dir) {
        Ok(found) => {
            for (at, m) in found {
                let advice = logfmt::journal::unfinished_advice(dir, &m);
                out.push(&at.join("manifest.json"), None, None, None, Kind::UnfinishedRepair, advice);
            }
        }
        // a journal that cannot be read may be one that stopped part way
        Err(e) => out.push(
            &logfmt::journal::default_quarantine(dir),
            None,
            None,
            None,
            Kind::UnfinishedRepair,
            format!("cannot tell whether a logtool repair of this log dir is unfinished: {e}"),
        ),
    }
}

/// The transaction markers the coordinator writes soon after a start
/// (`rules::start::pending_markers`), into `log_dir` (read from `dir`): a
/// partition's high watermark on start counts them.
fn markers_into(dir: &Path, log_dir: &mut LogDir, opts: &Options, out: &mut Findings) {
    if log_dir.metadata.is_none() {
        return;
    }
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    match start::pending_markers(dir, now_ms, &opts.limits) {
        Ok(m) => log_dir.markers_on_start = m,
        Err(e) => out.push(
            dir,
            None,
            None,
            None,
            Kind::Note,
            format!("the transaction coordinator's state could not be read ({e}): markers it writes after a start are not counted"),
        ),
    }
}

/// What the log dir `dir` holding a partition given alone says of it, as
/// [`check_log_dir`] reads it for its partitions (its checkpoints, metadata,
/// the markers a start adds), with the findings made reading that.
pub fn partition_context(dir: &Path, opts: &Options) -> (LogDir, Report) {
    let mut out = Findings::new(opts.max_per_kind);
    let mut log_dir = LogDir::read(dir, &opts.limits);
    markers_into(dir, &mut log_dir, opts, &mut out);
    (log_dir, Report { findings: out.finish(), ..Report::default() })
}

/// Findings on a partition of a log dir a live broker holds (its `.lock`
/// held): `logtool broker` writes a segment's indexes and the
/// leader-epoch checkpoint when it first needs them, so their absence
/// while it runs is no damage: those findings become info, said as live.
pub fn while_live(report: &mut Report) {
    for f in &mut report.findings {
        if matches!(f.kind, Kind::IndexMissing | Kind::LeaderEpochCheckpointMissing) && f.severity > Severity::Info {
            f.severity = Severity::Info;
            f.message = format!(
                "live, not missing: the broker holding the .lock writes it when it first needs it ({})",
                f.message
            );
        }
    }
}

/// Check a log dir's own files. Returns what it says about its partitions
/// (for [`check_partition`]) and the findings.
pub fn check_log_dir(dir: &Path, opts: &Options) -> (LogDir, Report) {
    let mut out = Findings::new(opts.max_per_kind);
    unfinished_into(dir, &mut out);
    match lock::log_dir_lock(dir) {
        LockState::Held(holder) => out.push(
            &dir.join(n::LOCK),
            None,
            None,
            None,
            Kind::LogDirLocked,
            format!("held by {holder}: a live broker is using this log dir; files may change while they are read (verify only reads)"),
        ),
        LockState::Unknown | LockState::NoLockFile | LockState::Free => {}
    }
    meta_properties(dir, opts, &mut out);
    let mut log_dir = LogDir::read(dir, &opts.limits);
    let mode = mode_of(&log_dir);
    // (a controller keeps no clean-shutdown marker: only a broker's
    // LogManager writes it)
    if !dir.join(n::CLEAN_SHUTDOWN).exists() && !mode.controller_only {
        out.push(
            &dir.join(n::CLEAN_SHUTDOWN),
            None,
            None,
            None,
            Kind::UncleanShutdown,
            "no clean-shutdown marker: the broker did not stop cleanly (or is running)".into(),
        );
    }
    markers_into(dir, &mut log_dir, opts, &mut out);
    let checkpoints = &log_dir.checkpoints;
    let mut tally = StartTally::default();
    for (path, e) in &checkpoints.unreadable {
        out.error(path, e, Kind::CheckpointMalformed);
        refused(path, &start::unreadable_file_refusal(&file_name(path)), opts, &log_dir, &mut out, &mut tally);
    }
    // a broker's log dir (its checkpoints, its marker or its metadata log
    // are there) without meta.properties; a bare set of partition dirs is
    // said by meta_properties_missing alone
    if logdir::is_brokers(dir) && !dir.join(n::META_PROPERTIES).exists() {
        refused(
            &dir.join(n::META_PROPERTIES),
            &start::meta_properties_missing_refusal(),
            opts,
            &log_dir,
            &mut out,
            &mut tally,
        );
    }
    if let Some(r) = node_id_mismatch(dir, &log_dir, opts) {
        refused(&dir.join(n::META_PROPERTIES), &r, opts, &log_dir, &mut out, &mut tally);
    }
    match directory_id(dir, &log_dir, opts) {
        Some(start::DirectoryIdOnStart::Refused { refusal, .. }) => {
            refused(&dir.join(n::META_PROPERTIES), &refusal, opts, &log_dir, &mut out, &mut tally);
        }
        Some(start::DirectoryIdOnStart::Reassigned { expected }) => out.push(
            &dir.join(n::META_PROPERTIES),
            None,
            None,
            None,
            Kind::DirectoryIdUnregistered,
            format!(
                "no directory.id {expected}, which node {} registered this dir as: Kafka writes a new one at start and moves the dir's partitions to it (Kafka 4.4.0 then left them without a leader); recover writes it back",
                log_dir.node_id.as_deref().unwrap_or("?")
            ),
        ),
        None => {}
    }
    let present = entries(dir, &mut out);
    if present.iter().any(|(t, _)| t != n::CLUSTER_METADATA_TOPIC) {
        let clean = dir.join(n::CLEAN_SHUTDOWN).exists();
        for name in n::LOG_DIR_CHECKPOINTS {
            if let Some(what) = start::missing_checkpoint(name, clean)
                && !dir.join(name).exists()
            {
                out.push(&dir.join(name), None, None, None, Kind::CheckpointFileMissing, what.into());
            }
        }
    }
    let mut missing: Vec<&(String, i32)> = checkpoints.partitions().filter(|k| !present.contains(*k)).collect();
    missing.sort();
    for (topic, partition) in missing {
        out.push(
            dir,
            None,
            None,
            None,
            Kind::CheckpointPartitionMissing,
            format!("the checkpoints name {topic}-{partition}, which has no directory here"),
        );
    }
    mode_on_start(dir, &log_dir, &mode, opts, &mut out);
    let broker = !mode.controller_only;
    if let Some(meta) = log_dir.metadata.as_ref().filter(|m| m.store == logfmt::metadata::MetadataStore::MetadataLog) {
        let version = opts.version_for(&log_dir);
        let file = dir.join(format!("{}-0", n::CLUSTER_METADATA_TOPIC));
        if let Some(level) = meta.metadata_version.filter(|&l| logrules::release::newer_than_known(l)) {
            out.push(
                &file,
                None,
                None,
                None,
                Kind::NewerKafka,
                format!(
                    "written by a Kafka newer than this logtool knows: metadata.version level {level}{}; read with {}'s rules",
                    start::metadata_version_name(level).map(|n| format!(" ({n})")).unwrap_or_default(),
                    logrules::release::newest().name
                ),
            );
        }
        for r in start::refusals(meta, version, opts.kafka_version.is_none(), broker) {
            tally.refusals = tally.refusals.saturating_add(1);
            out.push(
                &file,
                None,
                None,
                None,
                Kind::StartRefused,
                format!("Kafka {} refuses to start: {}: {}", version.name(), r.what, r.message),
            );
        }
    }
    (log_dir, Report { findings: out.finish(), stats: Stats::default(), start: tally })
}

/// What the log dirs `dirs`, given together as one broker's, say across
/// each other: a replica found twice stops the start
/// ([`start::duplicate_replicas`]).
pub fn check_broker(dirs: &[PathBuf], opts: &Options) -> Report {
    let mut out = Findings::new(opts.max_per_kind);
    let mut tally = StartTally::default();
    let listed: Vec<(PathBuf, Vec<String>)> = dirs
        .iter()
        .map(|d| {
            let names = logdir::log_dir_entries(d)
                .unwrap_or_default()
                .into_iter()
                .filter_map(|e| match e {
                    LogDirEntry::Partition(p) => p.file_name().map(|n| n.to_string_lossy().into_owned()),
                    _ => None,
                })
                .collect();
            (d.clone(), names)
        })
        .collect();
    let version = dirs.first().map(|d| opts.version_for(&LogDir::read(d, &opts.limits)));
    for (what, found) in start::duplicate_replicas(&listed) {
        tally.refusals = tally.refusals.saturating_add(1);
        let list = found.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(" and ");
        for f in &found {
            out.push(
                f,
                None,
                None,
                None,
                Kind::StartRefused,
                format!(
                    "Kafka {} refuses to start: {what} is in two log dirs: IllegalStateException: Duplicate log directories for {what} are found in both {list} (delete the one in the dir that failed)",
                    version.map_or("", Version::name)
                ),
            );
        }
    }
    Report { findings: out.finish(), stats: Stats::default(), start: tally }
}

/// A `start_refused` finding on `path` for `r`, counted in the start plan.
fn refused(
    path: &Path,
    r: &start::Refusal,
    opts: &Options,
    log_dir: &LogDir,
    out: &mut Findings,
    tally: &mut StartTally,
) {
    tally.refusals = tally.refusals.saturating_add(1);
    let version = opts.version_for(log_dir);
    out.push(
        path,
        None,
        None,
        None,
        Kind::StartRefused,
        format!("Kafka {} refuses to start: {}: {}", version.name(), r.what, r.message),
    );
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// `meta.properties`: there, and valid for its version.
/// What Kafka's start does with this dir's `directory.id`
/// ([`start::directory_id_on_start`]): the node is `meta.properties`'
/// `node.id` (or the one its directory id is registered for).
fn directory_id(dir: &Path, log_dir: &LogDir, opts: &Options) -> Option<start::DirectoryIdOnStart> {
    let meta = log_dir.metadata.as_ref()?;
    let props = logfmt::properties::read_meta_properties(&dir.join(n::META_PROPERTIES), &opts.limits).ok()?;
    let stored = props.iter().find(|(k, _)| k == "directory.id").map(|(_, v)| logfmt::uuid::Uuid::parse(v));
    let node = log_dir.node_id.as_deref()?.parse::<i32>().ok()?;
    match stored {
        // a directory.id that does not parse is meta_properties' to say
        Some(None) => None,
        Some(Some(d)) => start::directory_id_on_start(Some(d), node, meta),
        None => start::directory_id_on_start(None, node, meta),
    }
}

/// `meta.properties` names another node than the one the metadata log of
/// the same dir registered its `directory.id` for (the node that runs on
/// it: [`LogDir::node_id`]; [`start::node_id_refusal`]).
fn node_id_mismatch(dir: &Path, log_dir: &LogDir, opts: &Options) -> Option<start::Refusal> {
    let stored = logfmt::metadata::node_id(dir, &opts.limits)?.parse::<i32>().ok()?;
    let running = log_dir.node_id.as_deref()?.parse::<i32>().ok()?;
    start::node_id_refusal(stored, running)
}

/// The mode the node of `log_dir` ran in, as its files say
/// ([`logrules::mode::DirMode`]): only a metadata log held in the dir
/// counts (configs read from ZooKeeper's data dir do not make it KRaft).
pub fn mode_of(log_dir: &LogDir) -> logrules::mode::DirMode {
    let metadata = log_dir.metadata.as_ref().filter(|m| m.store == logfmt::metadata::MetadataStore::MetadataLog);
    let node = log_dir.node_id.as_deref().and_then(|n| n.parse::<i32>().ok());
    logrules::mode::DirMode::of(log_dir.meta_version.as_deref(), metadata, log_dir.data_partitions, node)
}

/// The metadata image a start of the release checked has: the metadata
/// log's (KRaft), an empty one (a KRaft node on a ZooKeeper-mode dir
/// bootstraps it), or none to go by (a ZooKeeper-mode start, or a
/// migration 4.x cannot finish).
fn start_image<'a>(
    log_dir: &'a LogDir,
    opts: &Options,
) -> Option<std::borrow::Cow<'a, logfmt::metadata::ClusterMetadata>> {
    use logrules::mode::NextStart;
    let mode = mode_of(log_dir);
    match NextStart::of(&mode, opts.version_for(log_dir)) {
        NextStart::KRaftWithoutMetadata => Some(std::borrow::Cow::Owned(Default::default())),
        NextStart::KRaft => log_dir
            .metadata
            .as_ref()
            .filter(|m| m.store == logfmt::metadata::MetadataStore::MetadataLog)
            .map(std::borrow::Cow::Borrowed),
        NextStart::ZooKeeperBroker | NextStart::MigrationUnfinished => None,
    }
}

/// What the dir's mode means for the start of the release checked: a
/// ZooKeeper-mode dir under a KRaft-only release, a migration it cannot
/// finish.
fn mode_on_start(dir: &Path, log_dir: &LogDir, mode: &DirMode, opts: &Options, out: &mut Findings) {
    use logrules::mode::NextStart;
    let version = opts.version_for(log_dir);
    let partitions = logfmt::logdir::live_partitions(dir).map(|p| p.len()).unwrap_or(0);
    match NextStart::of(mode, version) {
        NextStart::KRaftWithoutMetadata => out.push(
            &dir.join(n::META_PROPERTIES),
            None,
            None,
            None,
            Kind::ZookeeperDirUnderKraft,
            format!(
                "{}. Kafka {} runs in KRaft mode only: started on this dir it bootstraps an empty metadata log, knows no topic, and sets every partition dir aside as stray ({partitions} of {partitions}, internal topics too), then serves none of them. Migrate the cluster to KRaft on Kafka 3.9 first (KIP-866: a KRaft controller quorum with zookeeper.metadata.migration.enable, the brokers restarted in dual-write and then as KRaft brokers, the migration finalized), then upgrade",
                mode.from,
                version.name()
            ),
        ),
        NextStart::MigrationUnfinished => out.push(
            &dir.join(format!("{}-0", n::CLUSTER_METADATA_TOPIC)),
            None,
            None,
            None,
            Kind::MigrationUnfinished,
            format!(
                "{}: the migration from ZooKeeper is not finalized, and Kafka {} has no ZooKeeper migration: restart every broker as a KRaft broker and finalize the migration (the controllers without zookeeper.metadata.migration.enable) on Kafka 3.9, then upgrade",
                mode.from,
                version.name()
            ),
        ),
        NextStart::ZooKeeperBroker | NextStart::KRaft => {}
    }
}

fn meta_properties(dir: &Path, opts: &Options, out: &mut Findings) {
    let meta = dir.join(n::META_PROPERTIES);
    if meta.exists() {
        match logfmt::properties::read_meta_properties(&meta, &opts.limits) {
            Ok(props) => {
                let get = |k: &str| props.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str());
                let ok = match get("version") {
                    Some("0") => get("broker.id").is_some_and(|v| v.parse::<i32>().is_ok()),
                    Some("1") => {
                        get("node.id").is_some_and(|v| v.parse::<i32>().is_ok()) && get("cluster.id").is_some()
                    }
                    _ => false,
                };
                if !ok {
                    out.push(
                        &meta,
                        None,
                        None,
                        None,
                        Kind::MetaPropertiesInvalid,
                        "no valid version with its node.id/broker.id and cluster.id".into(),
                    );
                }
            }
            Err(e) => out.error(&meta, &e, Kind::MetaPropertiesInvalid),
        }
    } else {
        out.push(
            &meta,
            None,
            None,
            None,
            Kind::MetaPropertiesMissing,
            "the broker writes it when it formats or first uses the dir".into(),
        );
    }
}

/// What the log dir holds besides partitions (foreign directories, leftover
/// files, said), and the live partitions it has.
fn entries(dir: &Path, out: &mut Findings) -> std::collections::HashSet<(String, i32)> {
    let mut present = std::collections::HashSet::new();
    match logdir::log_dir_entries(dir) {
        Err(e) => out.error(dir, &e, Kind::IoError),
        Ok(entries) => {
            for e in entries {
                match e {
                    LogDirEntry::Partition(p) => {
                        let name = p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                        // a future replica has its lines in its own log dir's
                        // checkpoints, as a live one (`LogManager.logsInDir`);
                        // a replica moved or deleted away leaves its `-delete`
                        // dir and, until the next checkpoint, its lines
                        if let Some(pd) = naming::parse_partition_dir(&name)
                            && !matches!(pd.state, naming::DirState::Stray(_))
                        {
                            present.insert((pd.topic, pd.partition));
                        }
                    }
                    LogDirEntry::KafkaDir(d) => out.push(
                        &d,
                        None,
                        None,
                        None,
                        Kind::RemoteIndexCache,
                        "tiered storage's cache of remote segments' indexes: Kafka's own (its log loader skips it); not checked".into(),
                    ),
                    LogDirEntry::Foreign(d) => out.push(
                        &d,
                        None,
                        None,
                        None,
                        Kind::ForeignDirectory,
                        "not a partition directory: Kafka 3.9 refuses to start on a log dir holding it".into(),
                    ),
                    LogDirEntry::File(f) => {
                        let name = f.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                        if name.ends_with(n::TMP_FILE_SUFFIX) {
                            out.push(
                                &f,
                                None,
                                None,
                                None,
                                Kind::LeftoverFile,
                                "left over by an interrupted checkpoint write".into(),
                            );
                        }
                    }
                }
            }
        }
    }
    present
}

/// Report what a partition dir holds besides its segments: leftovers and
/// index files without a `.log`.
fn sort_out(p: &Partition, out: &mut Findings) {
    for (f, name) in &p.leftovers {
        let (kind, what) = match name.suffix {
            Some(TempSuffix::Swap) => {
                (Kind::LeftoverSwap, "a log-cleaner swap interrupted; Kafka completes it at startup")
            }
            Some(TempSuffix::Deleted) => (Kind::LeftoverFile, "scheduled for deletion; Kafka deletes it at startup"),
            Some(TempSuffix::Cleaned) => {
                (Kind::LeftoverFile, "log-cleaner output never swapped in; Kafka deletes it at startup")
            }
            Some(TempSuffix::Partial) => (Kind::LeftoverFile, "a KRaft snapshot never completed; Kafka deletes it"),
            None => (Kind::LeftoverFile, "left over by an interrupted write"),
        };
        out.push(f, None, None, name.offset, kind, what.into());
    }
    for f in &p.unloadable {
        out.push(
            f,
            None,
            None,
            None,
            Kind::SegmentNameInvalid,
            "not an offset before the first '.': Kafka's log loading fails on this name (NumberFormatException); rename or move the file out of the partition dir".into(),
        );
    }
    for (base, f) in &p.orphan_indexes {
        out.push(
            f,
            None,
            None,
            Some(*base),
            Kind::OrphanIndex,
            format!("no {} for this index", naming::segment_file_name(*base, n::LOG_FILE_SUFFIX)),
        );
    }
}

/// Check one partition directory in `log_dir` (read with [`LogDir::read`],
/// or empty when it is in none). `progress` is told the bytes read as it goes.
pub fn check_partition(dir: &Path, log_dir: &LogDir, opts: &Options, progress: &dyn Fn(u64)) -> Report {
    let mut out = Findings::new(opts.max_per_kind);
    let deleting = dir
        .file_name()
        .and_then(|n| naming::parse_partition_dir(&n.to_string_lossy()))
        .is_some_and(|pd| matches!(pd.state, naming::DirState::Delete(_)));
    if deleting {
        // Kafka's to delete, whatever state its files are in (a restart
        // loads it without recovery and may rewrite its checkpoints)
        out.push(
            dir,
            None,
            None,
            None,
            Kind::DeleteDir,
            "scheduled for deletion: Kafka deletes it; not checked".into(),
        );
        return Report { findings: out.finish(), stats: Stats::default(), start: StartTally::default() };
    }
    let mut stats = Stats { partitions: 1, ..Stats::default() };
    let p = match log_dir.open_partition(dir) {
        Ok(p) => p,
        Err(e) => {
            out.error(dir, &e, Kind::IoError);
            return Report { findings: out.finish(), stats, start: StartTally::default() };
        }
    };
    sort_out(&p, &mut out);
    let mut tally = recovered_on_start(&p, opts.version_for(log_dir));
    let mut st = PartitionState::new(&p, rules::log::compaction(&p, log_dir), opts);
    let mut prev: Option<(i64, SegmentSummary)> = None;
    let mut unreadable = None;
    for seg in &p.segments {
        index_files_present(seg, &mut out);
        let summary = SegmentChecker::new(seg, &mut st, &mut out, &mut stats, opts).run(progress);
        segment_in_order(seg, &summary, prev.as_ref().map(|(_, pr)| pr), st.compacted(), &mut out);
        if summary.unreadable && unreadable.is_none() {
            unreadable = Some(seg.log.clone());
        }
        prev = Some((seg.base, summary));
    }
    let log_start = rules::log::log_start_offset(&p);
    let log_end = match &unreadable {
        // the log end is not known: nothing is judged against it (a knock-on
        // finding would blame the checkpoints for the unreadable file)
        Some(file) => {
            out.push(
                file,
                None,
                None,
                None,
                Kind::Note,
                "this segment could not be read, so the partition's log end is unknown: the checkpoints, leader epochs and producer snapshots are not checked against it".into(),
            );
            None
        }
        None => Some(rules::log::log_end_from(st.last_offset, p.active().map(|s| s.base))),
    };
    if let Some(log_end) = log_end {
        checkpoints_of(&p, log_start, log_end, &mut out);
        leader_epochs(&p, &st, log_start, log_end, opts, &mut out);
    }
    for (offset, path) in &p.snapshots {
        producer_snapshot(path, *offset, log_end.unwrap_or(i64::MAX), opts, &mut out);
    }
    if let Some(log_end) = log_end {
        snapshot_at_log_end(&p, log_start, log_end, opts, &mut out);
        log_end_hidden(&p, log_end, &mut out);
    }
    for path in &p.kraft_snapshots {
        kraft_snapshot(path, opts, &mut out, &mut stats, progress);
    }
    let topic_id = topic_id_of(&p, dir, opts, &mut out);
    // files whose parse failure stops Kafka's start (the log dir goes offline)
    let unparsable: Vec<&PathBuf> = [
        p.leader_epoch_checkpoint.as_ref().filter(|f| checkpoint::read_epochs(f, &opts.limits).is_err()),
        p.partition_metadata.as_ref().filter(|f| logfmt::properties::read_partition_metadata(f, &opts.limits).is_err()),
    ]
    .into_iter()
    .flatten()
    .collect();
    for f in &unparsable {
        refused(f, &start::unreadable_file_refusal(&file_name(f)), opts, log_dir, &mut out, &mut tally);
    }
    let version = opts.version_for(log_dir);
    for seg in &p.segments {
        if let rules::recovery::LoadCheck::TxnIndexVersionRefused { version: read, .. } =
            rules::recovery::load_check(seg, version)
        {
            let f = seg.sibling(n::TXN_INDEX_FILE_SUFFIX);
            refused(
                &f,
                &start::txn_index_version_refusal(&file_name(&f), read, version),
                opts,
                log_dir,
                &mut out,
                &mut tally,
            );
        }
    }
    if !p.is_metadata_log()
        && unparsable.is_empty()
        && let Some(meta) = start_image(log_dir, opts)
    {
        let read = AsRead { topic_id, log_start, log_end };
        on_start(&p, log_dir, &meta, opts, read, &mut out, &mut tally);
    }
    Report { findings: out.finish(), stats, start: tally }
}

/// A segment with data has its `.index` and `.timeindex`.
fn index_files_present(seg: &Segment, out: &mut Findings) {
    if seg.index.is_none() && seg.size > 0 {
        out.push(&seg.log, None, None, Some(seg.base), Kind::IndexMissing, "this segment has no .index".into());
    }
    if seg.time_index.is_none() && seg.size > 0 {
        out.push(&seg.log, None, None, Some(seg.base), Kind::TimeIndexMissing, "this segment has no .timeindex".into());
    }
}

/// A segment's batches start at its base offset, right after the previous
/// segment's (`prev`), and a rolled segment is not empty.
fn segment_in_order(
    seg: &Segment,
    summary: &SegmentSummary,
    prev: Option<&SegmentSummary>,
    compacted: bool,
    out: &mut Findings,
) {
    if let Some(first) = summary.first_offset
        && first < seg.base
    {
        out.push(
            &seg.log,
            Some(0),
            None,
            Some(first),
            Kind::SegmentBaseOffsetMismatch,
            format!("the first batch starts at offset {first}, below the segment's base offset {}", seg.base),
        );
    }
    if let Some(pr) = prev
        && let Some(prev_last) = pr.last_offset
    {
        if seg.base <= prev_last {
            out.push(
                &seg.log,
                None,
                None,
                Some(seg.base),
                Kind::SegmentOverlap,
                format!("base offset {} but the previous segment ends at offset {prev_last}", seg.base),
            );
        } else if seg.base > prev_last.saturating_add(1) {
            let kind = if compacted { Kind::SegmentGap } else { Kind::OffsetGap };
            out.push(
                &seg.log,
                None,
                None,
                Some(seg.base),
                kind,
                format!(
                    "offsets {} are in no segment",
                    logfmt::report::offset_range(prev_last.saturating_add(1), seg.base.saturating_sub(1))
                ),
            );
        }
    }
    if summary.batches == 0 && !seg.is_active() && seg.size == 0 {
        out.push(&seg.log, None, None, Some(seg.base), Kind::EmptySegment, "a rolled segment with no batches".into());
    }
}

/// The topic id `partition.metadata` holds (said when it is missing or
/// unreadable).
fn topic_id_of(p: &Partition, dir: &Path, opts: &Options, out: &mut Findings) -> Option<logfmt::uuid::Uuid> {
    match &p.partition_metadata {
        Some(f) => match logfmt::properties::read_partition_metadata(f, &opts.limits) {
            Ok(m) => return Some(m.topic_id),
            Err(e) => out.error(f, &e, Kind::PartitionMetadataInvalid),
        },
        None if !p.segments.is_empty() => out.push(
            &dir.join(n::PARTITION_METADATA),
            None,
            None,
            None,
            Kind::PartitionMetadataMissing,
            "the broker writes the topic id here once it knows it".into(),
        ),
        None => {}
    }
    None
}

/// What the check read of a partition that its start depends on.
#[derive(Clone, Copy)]
struct AsRead {
    /// The topic id of `partition.metadata`.
    topic_id: Option<logfmt::uuid::Uuid>,
    /// The log start offset.
    log_start: i64,
    /// The log end offset, when the segments could be read to it.
    log_end: Option<i64>,
}

/// What a broker does with this partition when it starts on the dir: sets
/// it aside as stray, or leads it with a high watermark that moves.
fn on_start(
    p: &Partition,
    log_dir: &LogDir,
    meta: &logfmt::metadata::ClusterMetadata,
    opts: &Options,
    AsRead { topic_id, log_start, log_end }: AsRead,
    out: &mut Findings,
    tally: &mut StartTally,
) {
    let dir = &p.dir;
    let node = log_dir.node_id.as_deref().and_then(|n| n.parse::<i32>().ok());
    let live = naming::parse_partition_dir(&p.dir.file_name().unwrap_or_default().to_string_lossy())
        .is_some_and(|pd| pd.state == naming::DirState::Live);
    if let Some(node) = node.filter(|_| live)
        && let Some(why) = start::stray(topic_id, p.name.partition, meta, node)
    {
        tally.strays = 1;
        out.push(
            dir,
            None,
            None,
            None,
            Kind::StrayPartition,
            format!(
                "Kafka {} sets this dir aside at start (renamed {}-{}.<id>-stray) and serves the partition empty: {}",
                opts.version_for(log_dir).name(),
                p.name.topic,
                p.name.partition,
                why.describe()
            ),
        );
    } else if let Some(log_end) = log_end {
        let state = start::partition_state(meta, topic_id, &p.name.topic, p.name.partition);
        // recovery cuts the log at its first invalid batch
        let log_end = out.lowest_offset(RECOVERY_CUTS).filter(|o| *o < log_end).unwrap_or(log_end);
        let checkpoint = rules::log::high_watermark(p, log_start, log_end);
        let markers = log_dir.markers_on_start.get(&(p.name.topic.clone(), p.name.partition));
        let (hw, rule) = start::high_watermark_on_start(state, node, checkpoint, log_end, markers.map_or(0, Vec::len));
        let alone = rule == start::HighWatermarkRule::IsrIsThisNode;
        let after = match markers {
            Some(ids) if alone => format!(", {}", start::written_on_start(&p.name.topic, ids)),
            _ => String::new(),
        };
        if alone && let Some(before) = checkpoint.filter(|c| *c != hw) {
            tally.high_watermark_moves = 1;
            out.push(
                &p.log_dir.join(n::REPLICATION_OFFSET_CHECKPOINT),
                None,
                None,
                Some(hw),
                Kind::HighWatermarkOnStart,
                format!(
                    "{}-{}: on start the high watermark moves from {before} to the log end {hw}: the ISR is this broker alone{after}",
                    p.name.topic,
                    p.name.partition
                ),
            );
        }
    }
}

/// Findings where `LogSegment.recover` cuts a segment being recovered.
const RECOVERY_CUTS: &[Kind] = &[
    Kind::Corrupt,
    Kind::CrcMismatch,
    Kind::RecordInvalid,
    Kind::RecordCountMismatch,
    Kind::DecompressionFailed,
    Kind::BatchLengthInvalid,
    Kind::MagicInvalid,
    Kind::ZeroedRegion,
];

/// The segments of `p` a start recovers (`LogLoader`), counted.
fn recovered_on_start(p: &Partition, version: Version) -> StartTally {
    let mut t = StartTally::default();
    if p.is_metadata_log() {
        return t;
    }
    let clean = p.log_dir.join(n::CLEAN_SHUTDOWN).exists();
    let first = rules::recovery::first_to_recover(p, clean, false);
    for (i, seg) in p.segments.iter().enumerate() {
        if rules::recovery::needs_recovery(p, i, first, version) && seg.size > 0 {
            t.segments_recovered = t.segments_recovered.saturating_add(1);
            t.bytes_recovered = t.bytes_recovered.saturating_add(seg.size);
            t.partitions_recovered = 1;
        }
    }
    t
}

fn checkpoints_of(p: &Partition, log_start: i64, log_end: i64, out: &mut Findings) {
    let ctx = &p.checkpoints;
    let dir = &p.dir;
    let file = |name: &str| p.log_dir.join(name);
    if let Some(hw) = ctx.high_watermark {
        if hw > log_end {
            out.push(
                &file(n::REPLICATION_OFFSET_CHECKPOINT),
                None,
                None,
                Some(hw),
                Kind::HighWatermarkAboveLogEnd,
                format!("{}: high watermark {hw} but the log ends at offset {log_end}", dir.display()),
            );
        }
        if log_start > hw {
            out.push(
                &file(n::LOG_START_OFFSET_CHECKPOINT),
                None,
                None,
                Some(log_start),
                Kind::LogStartAboveHighWatermark,
                format!("{}: log start offset {log_start} is above the high watermark {hw}", dir.display()),
            );
        }
    }
    if let Some(rp) = ctx.recovery_point
        && rp > log_end
    {
        out.push(
            &file(n::RECOVERY_POINT_OFFSET_CHECKPOINT),
            None,
            None,
            Some(rp),
            Kind::RecoveryPointAboveLogEnd,
            format!("{}: recovery point {rp} but the log ends at offset {log_end}", dir.display()),
        );
    }
    if let Some(ls) = ctx.log_start_offset
        && ls > log_end
    {
        out.push(
            &file(n::LOG_START_OFFSET_CHECKPOINT),
            None,
            None,
            Some(ls),
            Kind::LogStartOutOfRange,
            format!("{}: log start offset {ls} but the log ends at offset {log_end}", dir.display()),
        );
    }
    if let Some(co) = ctx.cleaner_offset
        && co > log_end
    {
        out.push(
            &file(n::CLEANER_OFFSET_CHECKPOINT),
            None,
            None,
            Some(co),
            Kind::CleanerOffsetAboveLogEnd,
            format!("{}: cleaner offset {co} but the log ends at offset {log_end}", dir.display()),
        );
    }
}

/// `leader-epoch-checkpoint` against the epochs the batches carry, by Kafka's
/// cache rules ([`rules::epochs`]): only offsets at or above the log start
/// are covered.
fn leader_epochs(p: &Partition, st: &PartitionState, log_start: i64, log_end: i64, opts: &Options, out: &mut Findings) {
    let lineage: Vec<(i32, i64)> = st.lineage.iter().map(|l| (l.epoch, l.offset)).collect();
    let Some(path) = &p.leader_epoch_checkpoint else {
        if !lineage.is_empty() {
            out.push(
                &p.epochs_path(),
                None,
                None,
                None,
                Kind::LeaderEpochCheckpointMissing,
                format!(
                    "batches carry leader epochs {:?} but there is no checkpoint",
                    lineage.iter().map(|l| l.0).collect::<Vec<_>>()
                ),
            );
        }
        return;
    };
    let entries: Vec<(u64, EpochEntry)> = match checkpoint::read_epochs(path, &opts.limits) {
        Ok(c) => c.entries,
        Err(e) => {
            out.error(path, &e, Kind::CheckpointMalformed);
            return;
        }
    };
    let mut prev: Option<EpochEntry> = None;
    for (pos, e) in &entries {
        if e.epoch < 0
            || e.start_offset < 0
            || prev.is_some_and(|p| e.epoch <= p.epoch || e.start_offset <= p.start_offset)
        {
            out.push(
                path,
                Some(*pos),
                None,
                Some(e.start_offset),
                Kind::LeaderEpochNotIncreasing,
                format!(
                    "entry (epoch {}, start offset {}) after {:?}",
                    e.epoch,
                    e.start_offset,
                    prev.map(|p| (p.epoch, p.start_offset))
                ),
            );
        }
        if e.start_offset > log_end {
            out.push(
                path,
                Some(*pos),
                None,
                Some(e.start_offset),
                Kind::LeaderEpochBeyondLogEnd,
                format!("epoch {} starts at offset {}, past the log end {log_end}", e.epoch, e.start_offset),
            );
        }
        prev = Some(*e);
    }
    let cache: Vec<EpochEntry> = entries.iter().map(|(_, e)| *e).collect();
    // tiered: the remote offsets (from the log start to the local data) are
    // found by their epoch, which only this cache gives
    let local_start = rules::log::local_log_start_offset(p);
    if rules::log::remote_log_enabled(p)
        && log_start < local_start
        && let Some(first) = cache.first().filter(|e| e.start_offset > log_start)
    {
        out.push(
            path,
            None,
            None,
            Some(log_start),
            Kind::RemoteEpochsUncovered,
            format!(
                "the first entry (epoch {}) starts at offset {}, above the log start {log_start}: offsets {log_start}-{} are in remote storage only, and a fetch of them is answered OFFSET_OUT_OF_RANGE (the epochs below were dropped, as retain by an older logtool or a hand edit does)",
                first.epoch,
                first.start_offset,
                first.start_offset.min(local_start).saturating_sub(1)
            ),
        );
    }
    // a run of one epoch past where the cache starts a later one
    let runs: Vec<(i32, i64)> = st.lineage.iter().map(|l| (l.epoch, l.last.0)).collect();
    for m in rules::epochs::run_end_mismatches(&cache, &runs, log_start) {
        if let (Some(l), Some(c)) = (st.lineage.iter().find(|l| l.epoch == m.epoch && l.last.0 == m.offset), m.cached) {
            out.push(
                &l.last.1,
                Some(l.last.2),
                Some(l.last.3),
                Some(m.offset),
                Kind::LeaderEpochMismatch,
                format!(
                    "a batch at offset {} carries leader epoch {}, but leader-epoch-checkpoint starts epoch {} at offset {} before it",
                    m.offset, m.epoch, c.epoch, c.start_offset
                ),
            );
        }
    }
    for m in rules::epochs::lineage_mismatches(&cache, &lineage, log_start) {
        // the batch where the epoch took effect
        let at = st.lineage.iter().rfind(|l| l.offset <= m.offset);
        let message = match m.cached {
            Some(e) => format!(
                "batches from offset {} carry leader epoch {}, but leader-epoch-checkpoint says epoch {} (from offset {})",
                m.offset, m.epoch, e.epoch, e.start_offset
            ),
            None => format!(
                "batches from offset {} carry leader epoch {}, which leader-epoch-checkpoint does not cover",
                m.offset, m.epoch
            ),
        };
        match at {
            Some(l) => {
                out.push(&l.log, Some(l.position), Some(l.end), Some(m.offset), Kind::LeaderEpochMismatch, message)
            }
            None => out.push(path, None, None, Some(m.offset), Kind::LeaderEpochMismatch, message),
        }
    }
}

/// After a clean shutdown a partition holding records has a producer
/// snapshot at its log end (`UnifiedLog.close`); a lost or unreadable one
/// Kafka's load writes again (`rules::recovery::snapshots_on_load`).
fn snapshot_at_log_end(p: &Partition, log_start: i64, log_end: i64, opts: &Options, out: &mut Findings) {
    let deleting = matches!(p.name.state, logfmt::naming::DirState::Delete(_));
    if deleting || p.is_metadata_log() || log_end <= log_start || !p.log_dir.join(n::CLEAN_SHUTDOWN).exists() {
        return;
    }
    let readable = |path: &Path| logfmt::snapshot::read(path, &opts.limits).is_ok_and(|s| s.crc_valid());
    if p.snapshots.iter().any(|(o, path)| *o == log_end && readable(path)) {
        return;
    }
    let below = p.snapshots.iter().rev().find(|(o, path)| *o < log_end && readable(path)).map(|(o, _)| *o);
    let from = below.map_or_else(|| "the log start".to_string(), |o| format!("the snapshot at {o}"));
    out.push(
        &p.dir,
        None,
        None,
        Some(log_end),
        Kind::ProducerSnapshotMissing,
        format!("no readable producer snapshot at the log end {log_end}: Kafka's load rebuilds the producer state from {from} and writes one there (recover does the same)"),
    );
}

/// After a clean shutdown, a last `.index` that makes Kafka's load hide
/// records ([`logrules::recovery::hidden_log_end`]).
fn log_end_hidden(p: &Partition, log_end: i64, out: &mut Findings) {
    if p.is_metadata_log() || !p.log_dir.join(n::CLEAN_SHUTDOWN).exists() {
        return;
    }
    let (Some(h), Some(active)) = (logrules::recovery::hidden_log_end(p, log_end), p.active()) else {
        return;
    };
    let index = active.index.clone().unwrap_or_else(|| active.log.clone());
    out.push(
        &index,
        None,
        None,
        Some(h.entry_offset),
        Kind::LogEndHidden,
        format!(
            "its last entry (offset {}) is past every batch: Kafka's load after this clean shutdown takes the log end {} and hides offsets {}..{} (the next appends reuse them); recover rebuilds the index",
            h.entry_offset,
            h.kafka,
            h.kafka,
            h.actual.saturating_sub(1)
        ),
    );
}

fn producer_snapshot(path: &Path, offset: i64, log_end: i64, opts: &Options, out: &mut Findings) {
    let s = match logfmt::snapshot::read(path, &opts.limits) {
        Ok(s) => s,
        Err(e) => {
            // cut short where its log dir (the partition dir's parent) did
            // not stop cleanly: what a kill mid-write leaves
            let unclean =
                path.parent().and_then(Path::parent).is_some_and(|log_dir| !log_dir.join(n::CLEAN_SHUTDOWN).exists());
            let torn = unclean && e.class() == logfmt::ErrorClass::Truncated;
            out.error(path, &e, if torn { Kind::ProducerSnapshotTorn } else { Kind::ProducerSnapshotCorrupt });
            return;
        }
    };
    if !s.crc_valid() {
        out.push(
            path,
            Some(logfmt::spec::snapshot::CRC_OFFSET as u64),
            None,
            Some(offset),
            Kind::ProducerSnapshotCorrupt,
            format!("stored CRC-32C {} but the file gives {}", s.crc, s.computed_crc),
        );
    }
    if offset > log_end {
        out.push(
            path,
            None,
            None,
            Some(offset),
            Kind::ProducerSnapshotBeyondLogEnd,
            format!("a snapshot at offset {offset}, past the log end {log_end}"),
        );
    }
    if let Some(e) = s.entries.iter().find(|e| e.last_offset >= offset) {
        out.push(
            path,
            None,
            None,
            Some(e.last_offset),
            Kind::ProducerSnapshotBeyondLogEnd,
            format!(
                "producer {} has last offset {} in a snapshot taken at offset {offset}",
                e.producer_id, e.last_offset
            ),
        );
    }
}

/// A KRaft snapshot: the batches must be readable and valid.
fn kraft_snapshot(path: &Path, opts: &Options, out: &mut Findings, stats: &mut Stats, progress: &dyn Fn(u64)) {
    let mut r = match LogReader::open(path, opts.limits) {
        Ok(r) => r,
        Err(e) => {
            out.error(path, &e, Kind::IoError);
            return;
        }
    };
    let size = r.end();
    let mut scratch = Vec::new();
    loop {
        match r.next_item() {
            Err(e) => {
                out.error(path, &e, Kind::IoError);
                break;
            }
            Ok(None) => break,
            Ok(Some(Item::Damage(d))) => {
                let (kind, message) = segment::damage_finding(&d, false, size);
                out.push(path, Some(d.start), Some(d.end), None, kind, message);
            }
            Ok(Some(Item::Entry(logfmt::log::Entry::V2(b)))) => {
                stats.batches = stats.batches.saturating_add(1);
                let h = *b.header();
                if !b.is_valid() {
                    out.push(
                        path,
                        Some(b.position()),
                        None,
                        Some(h.base_offset),
                        Kind::CrcMismatch,
                        "KRaft snapshot batch with a bad CRC-32C".into(),
                    );
                }
                match b.records(&mut scratch, &opts.limits) {
                    Ok(mut recs) => {
                        while let Some(rec) = recs.next_record() {
                            stats.records = stats.records.saturating_add(1);
                            if let Err(e) = rec {
                                out.push(
                                    path,
                                    Some(b.position()),
                                    None,
                                    Some(h.base_offset),
                                    Kind::RecordInvalid,
                                    e.message(),
                                );
                            }
                        }
                    }
                    Err(e) => {
                        out.push(path, Some(b.position()), None, Some(h.base_offset), Kind::RecordInvalid, e.message())
                    }
                }
            }
            Ok(Some(Item::Entry(e))) => {
                out.push(
                    path,
                    Some(e.position()),
                    None,
                    None,
                    Kind::Corrupt,
                    "a legacy message in a KRaft snapshot".into(),
                );
            }
        }
    }
    stats.bytes = stats.bytes.saturating_add(size);
    progress(size);
}

/// A tiered storage file ([`naming::classify_remote`]): a remote store's
/// copy of a segment's file is checked as that file of a segment whose
/// base offset its name gives (with its sibling copies: the `.log` and
/// indexes of the same segment id); the remote index cache's files are
/// Kafka's own and not checked (as its directory in a log dir).
#[allow(clippy::too_many_arguments)]
fn check_remote_file(
    path: &Path,
    dir: &Path,
    name: &str,
    r: &naming::RemoteFileName,
    opts: &Options,
    out: &mut Findings,
    stats: &mut Stats,
    progress: &dyn Fn(u64),
) {
    let stem = name.split_once('.').map_or(name, |(s, _)| s);
    let whose = if r.cache { "the broker's remote index cache" } else { "a remote store" };
    let what = format!("tiered storage: {whose}'s copy of remote segment {} (start offset {})", r.segment_id, r.offset);
    if r.cache {
        out.push(path, None, None, Some(r.offset), Kind::Note, format!("{what}: Kafka's own cache, not checked"));
        return;
    }
    match r.kind {
        FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex => {
            let sibling = |ext: &str| Some(dir.join(format!("{stem}{ext}"))).filter(|p| p.is_file());
            let Some(log) = sibling(n::LOG_FILE_SUFFIX) else {
                out.push(path, None, None, Some(r.offset), Kind::OrphanIndex, format!("{what}: no .log beside it"));
                return;
            };
            out.push(path, None, None, Some(r.offset), Kind::Note, format!("{what}: checked as a segment"));
            let seg = Segment {
                base: r.offset,
                size: std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0),
                log,
                index: sibling(n::INDEX_FILE_SUFFIX),
                time_index: sibling(n::TIME_INDEX_FILE_SUFFIX),
                txn_index: sibling(n::TXN_INDEX_FILE_SUFFIX),
                next_base: None,
            };
            let mut st = PartitionState::standalone(opts);
            SegmentChecker::new(&seg, &mut st, out, stats, opts).unbounded().run(progress);
        }
        // the snapshot taken at the segment's end (RemoteLogManager uploads
        // the one at the next segment's base), named by its start: no
        // offset here bounds its producers
        FileKind::ProducerSnapshot => producer_snapshot(path, i64::MAX, i64::MAX, opts, out),
        _ => {
            if let Err(e) = checkpoint::read_epochs(path, &opts.limits) {
                out.error(path, &e, Kind::CheckpointMalformed);
            }
        }
    }
}

/// Check a single file: a segment file is checked with the other files of
/// its segment (an index cannot be judged without its log), as part of its
/// partition; other files alone. A `.log` whose name is not Kafka's is read
/// as a segment whose base offset is its first batch's. A file that is no
/// file of a Kafka log dir is a [`Kind::NotKafkaFile`] finding.
pub fn check_file(path: &Path, opts: &Options, progress: &dyn Fn(u64)) -> Report {
    let mut out = Findings::new(opts.max_per_kind);
    let mut stats = Stats::default();
    let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let fname = naming::classify(&name);
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if fname.kind == FileKind::Unknown
        && let Some(r) = naming::classify_remote(&name)
    {
        check_remote_file(path, dir, &name, &r, opts, &mut out, &mut stats, progress);
        return Report { findings: out.finish(), stats, start: StartTally::default() };
    }
    match (fname.kind, fname.offset, fname.suffix) {
        (FileKind::Log | FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex, Some(base), None) => {
            let checkpoints = dir.parent().map(|d| LogDirCheckpoints::read(d, &opts.limits)).unwrap_or_default();
            let p = match Partition::open_with(dir, &checkpoints) {
                Ok(p) => p,
                Err(e) => {
                    out.error(path, &e, Kind::IoError);
                    return Report { findings: out.finish(), stats, start: StartTally::default() };
                }
            };
            let Some(seg) = p.segments.iter().find(|s| s.base == base) else {
                out.push(path, None, None, Some(base), Kind::OrphanIndex, "no .log for this index".into());
                return Report { findings: out.finish(), stats, start: StartTally::default() };
            };
            let log_dir = dir.parent().map(|d| LogDir::read(d, &opts.limits)).unwrap_or_default();
            let mut st = PartitionState::at_segment(&p, seg, rules::log::compaction(&p, &log_dir), opts);
            SegmentChecker::new(seg, &mut st, &mut out, &mut stats, opts).run(progress);
        }
        (FileKind::Unknown, _, None) if name.ends_with(n::LOG_FILE_SUFFIX) => {
            // a segment under another name: no bounds but its own first batch
            let seg = Segment {
                base: 0,
                log: path.to_path_buf(),
                size: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
                index: None,
                time_index: None,
                txn_index: None,
                next_base: None,
            };
            let first = logfmt::log::LogReader::open(path, opts.limits).ok().and_then(|mut r| match r.next_item() {
                Ok(Some(Item::Entry(e))) => Some(match e {
                    logfmt::log::Entry::V2(b) => b.header().base_offset,
                    logfmt::log::Entry::Legacy(m) => m.offset,
                }),
                _ => None,
            });
            out.push(
                path,
                None,
                None,
                first,
                Kind::Note,
                match first {
                    Some(o) => format!("not a Kafka segment name (20 digits): read as a segment whose base offset is its first batch's, {o}"),
                    None => "not a Kafka segment name (20 digits): read as a segment; no batch gives its base offset".into(),
                },
            );
            let seg = Segment { base: first.unwrap_or(0), ..seg };
            let mut st = PartitionState::standalone(opts);
            SegmentChecker::new(&seg, &mut st, &mut out, &mut stats, opts).unbounded().run(progress);
        }
        (FileKind::ProducerSnapshot, Some(offset), None) => producer_snapshot(path, offset, i64::MAX, opts, &mut out),
        (FileKind::KraftSnapshot, _, None) => kraft_snapshot(path, opts, &mut out, &mut stats, progress),
        (FileKind::LeaderEpochCheckpoint, _, _) => {
            if let Err(e) = checkpoint::read_epochs(path, &opts.limits) {
                out.error(path, &e, Kind::CheckpointMalformed);
            }
        }
        (FileKind::PartitionMetadata, _, _) => {
            if let Err(e) = logfmt::properties::read_partition_metadata(path, &opts.limits) {
                out.error(path, &e, Kind::PartitionMetadataInvalid);
            }
        }
        (k, _, _) if k.is_offset_checkpoint() => {
            if let Err(e) = checkpoint::read_offsets(path, &opts.limits) {
                out.error(path, &e, Kind::CheckpointMalformed);
            }
        }
        (FileKind::MetaProperties, _, _) => {
            // the log dir check covers meta.properties; keep its findings only
            let (_, mut r) = check_log_dir(dir, opts);
            r.findings.retain(|f| f.file == path);
            return r;
        }
        (FileKind::CleanShutdown | FileKind::QuorumState | FileKind::Lock, _, _) => {}
        (_, _, Some(sfx)) => {
            out.push(
                path,
                None,
                None,
                fname.offset,
                Kind::LeftoverFile,
                format!("a .{} file; Kafka deals with it at startup", sfx.name()),
            );
        }
        _ => out.push(
            path,
            None,
            None,
            None,
            Kind::NotKafkaFile,
            "not a file of a Kafka log dir (segment, index, snapshot, checkpoint, properties)".into(),
        ),
    }
    Report { findings: out.finish(), stats, start: StartTally::default() }
}

/// The table of finding kinds in `docs/findings.md`.
pub fn kinds_markdown() -> String {
    let mut out = String::from("| kind | severity | meaning | Kafka rule |\n|---|---|---|---|\n");
    for k in Kind::ALL {
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", k.name(), k.severity().name(), k.description(), k.rule()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/findings.md lists exactly the kinds the code has. Run with
    /// `LOGTOOL_BLESS=1` to rewrite the table after changing them.
    #[test]
    fn findings_doc_is_current() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/findings.md");
        let doc = std::fs::read_to_string(&path).unwrap();
        let (head, rest) = doc.split_once("| kind | severity | meaning | Kafka rule |").unwrap();
        let tail = rest.split_once("\n\n").map_or("", |(_, t)| t);
        let want = format!("{head}{}\n{tail}", kinds_markdown());
        if std::env::var_os("LOGTOOL_BLESS").is_some() {
            std::fs::write(&path, want).unwrap();
        } else {
            assert!(doc == want, "docs/findings.md is stale: run LOGTOOL_BLESS=1 cargo test -p inspect findings_doc");
        }
    }

    #[test]
    fn every_kind_names_its_kafka_rule() {
        for k in Kind::ALL {
            assert!(!k.rule().is_empty(), "{}", k.name());
        }
    }

    #[test]
    fn kind_names_are_unique_snake_case() {
        let mut names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Kind::ALL.len());
    }
}
