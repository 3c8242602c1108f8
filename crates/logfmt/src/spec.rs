//! The byte layouts of Kafka's files, as constants, with Kafka's own names.
//!
//! Only the specification lives here: field offsets, sizes, flag masks and
//! magic values, named as in the Java classes they come from so they can be
//! compared line by line. Readers (`batch`, `legacy`, `index`, ...) interpret
//! them. Sources are in `apache/kafka`, `clients/src/main/java/org/apache/kafka/
//! common/record/` unless stated; see also `docs/formats.md`.

/// Common framing of every entry of a `.log` file (`Records.java`).
pub mod log {
    /// Offset of the int64 offset field (v2: baseOffset; v0/v1: the message offset).
    pub const OFFSET_OFFSET: usize = 0;
    /// Offset of the int32 size field: the bytes that follow it.
    pub const SIZE_OFFSET: usize = 8;
    /// `LOG_OVERHEAD`: offset + size, the bytes before an entry's body.
    pub const LOG_OVERHEAD: usize = 12;
    /// Offset of the magic byte, the same in every format.
    pub const MAGIC_OFFSET: usize = 16;
    /// `HEADER_SIZE_UP_TO_MAGIC`: bytes needed to know an entry's format.
    pub const HEADER_SIZE_UP_TO_MAGIC: usize = 17;
    /// Magic of legacy message format v0.
    pub const MAGIC_VALUE_V0: i8 = 0;
    /// Magic of legacy message format v1.
    pub const MAGIC_VALUE_V1: i8 = 1;
    /// Magic of the current record batch format v2.
    pub const MAGIC_VALUE_V2: i8 = 2;
}

/// Record batch, magic 2 (`DefaultRecordBatch.java`). Offsets are from the
/// first byte of the batch (its baseOffset field).
pub mod batch {
    /// int64 baseOffset.
    pub const BASE_OFFSET_OFFSET: usize = 0;
    /// int32 batchLength: bytes from the partitionLeaderEpoch field to the end.
    pub const LENGTH_OFFSET: usize = 8;
    /// int32 partitionLeaderEpoch (not covered by the CRC).
    pub const PARTITION_LEADER_EPOCH_OFFSET: usize = 12;
    /// int8 magic.
    pub const MAGIC_OFFSET: usize = 16;
    /// uint32 crc: CRC-32C of the bytes from `ATTRIBUTES_OFFSET` to the end.
    pub const CRC_OFFSET: usize = 17;
    /// int16 attributes.
    pub const ATTRIBUTES_OFFSET: usize = 21;
    /// int32 lastOffsetDelta.
    pub const LAST_OFFSET_DELTA_OFFSET: usize = 23;
    /// int64 baseTimestamp (or the delete horizon, see `DELETE_HORIZON_FLAG_MASK`).
    pub const BASE_TIMESTAMP_OFFSET: usize = 27;
    /// int64 maxTimestamp.
    pub const MAX_TIMESTAMP_OFFSET: usize = 35;
    /// int64 producerId.
    pub const PRODUCER_ID_OFFSET: usize = 43;
    /// int16 producerEpoch.
    pub const PRODUCER_EPOCH_OFFSET: usize = 51;
    /// int32 baseSequence.
    pub const BASE_SEQUENCE_OFFSET: usize = 53;
    /// int32 recordsCount (outside any compression).
    pub const RECORDS_COUNT_OFFSET: usize = 57;
    /// Where the records (or the compressed stream holding them) start.
    pub const RECORDS_OFFSET: usize = 61;
    /// `RECORD_BATCH_OVERHEAD`: the fixed header; the smallest valid batch.
    pub const RECORD_BATCH_OVERHEAD: usize = RECORDS_OFFSET;
    /// Bits 0-2 of the attributes: the compression codec id.
    pub const COMPRESSION_CODEC_MASK: u8 = 0x07;
    /// Bit 3: timestamp type (0 CreateTime, 1 LogAppendTime).
    pub const TIMESTAMP_TYPE_MASK: u8 = 0x08;
    /// Bit 4: transactional.
    pub const TRANSACTIONAL_FLAG_MASK: u8 = 0x10;
    /// Bit 5: control batch.
    pub const CONTROL_FLAG_MASK: u8 = 0x20;
    /// Bit 6: baseTimestamp holds the delete horizon (KIP-534, set by the cleaner).
    pub const DELETE_HORIZON_FLAG_MASK: u8 = 0x40;
    /// The sentinel for "no producer id" / "no sequence" / "no epoch".
    pub const NO_PRODUCER_ID: i64 = -1;
    /// No sequence number.
    pub const NO_SEQUENCE: i32 = -1;
    /// No producer epoch (`RecordBatch.NO_PRODUCER_EPOCH`).
    pub const NO_PRODUCER_EPOCH: i16 = -1;
    /// No timestamp.
    pub const NO_TIMESTAMP: i64 = -1;
    /// Smallest possible record: length, attributes, timestampDelta,
    /// offsetDelta, keyLength, valueLength and headerCount, one byte each.
    pub const MIN_RECORD_SIZE: usize = 7;
}

/// Legacy messages, magic 0 and 1 (`LegacyRecord.java`). Offsets are from the
/// first byte of the message (after the 12-byte log overhead).
pub mod legacy {
    /// uint32 crc: CRC-32 (IEEE) of everything from the magic byte on.
    pub const CRC_OFFSET: usize = 0;
    /// int8 magic.
    pub const MAGIC_OFFSET: usize = 4;
    /// int8 attributes.
    pub const ATTRIBUTES_OFFSET: usize = 5;
    /// int64 timestamp (magic 1 only).
    pub const TIMESTAMP_OFFSET: usize = 6;
    /// int32 key length in magic 0.
    pub const KEY_SIZE_OFFSET_V0: usize = 6;
    /// int32 key length in magic 1.
    pub const KEY_SIZE_OFFSET_V1: usize = 14;
    /// `RECORD_OVERHEAD_V0`: the smallest magic 0 message.
    pub const RECORD_OVERHEAD_V0: usize = 14;
    /// `RECORD_OVERHEAD_V1`: the smallest magic 1 message.
    pub const RECORD_OVERHEAD_V1: usize = 22;
    /// Bits 0-2 of the attributes: the codec of a wrapper message.
    pub const COMPRESSION_CODEC_MASK: u8 = 0x07;
    /// Bit 3 (magic 1): LogAppendTime.
    pub const TIMESTAMP_TYPE_MASK: u8 = 0x08;
}

/// Control records (`ControlRecordType.java`, `EndTransactionMarker.java`).
pub mod control {
    /// Key: int16 version + int16 type.
    pub const KEY_SIZE: usize = 4;
    /// ABORT/COMMIT value: int16 version + int32 coordinatorEpoch.
    pub const END_TXN_MARKER_VALUE_SIZE: usize = 6;
    /// Transaction aborted.
    pub const ABORT: i16 = 0;
    /// Transaction committed.
    pub const COMMIT: i16 = 1;
    /// KRaft: a new leader (`LeaderChangeMessage`).
    pub const LEADER_CHANGE: i16 = 2;
    /// KRaft snapshot header (`SnapshotHeaderRecord`).
    pub const SNAPSHOT_HEADER: i16 = 3;
    /// KRaft snapshot footer (`SnapshotFooterRecord`).
    pub const SNAPSHOT_FOOTER: i16 = 4;
    /// KRaft version (`KRaftVersionRecord`, KIP-853).
    pub const KRAFT_VERSION: i16 = 5;
    /// KRaft voter set (`VotersRecord`, KIP-853).
    pub const KRAFT_VOTERS: i16 = 6;
}

/// Index files (`storage/.../log/OffsetIndex.java`, `TimeIndex.java`,
/// `TransactionIndex.java`).
pub mod index {
    /// `.index` entry: int32 relative offset + int32 position.
    pub const OFFSET_INDEX_ENTRY_SIZE: usize = 8;
    /// `.timeindex` entry: int64 timestamp + int32 relative offset.
    pub const TIME_INDEX_ENTRY_SIZE: usize = 12;
    /// `.txnindex` entry: int16 version, int64 producerId, firstOffset,
    /// lastOffset, lastStableOffset.
    pub const TXN_INDEX_ENTRY_SIZE: usize = 34;
    /// The only `.txnindex` entry version.
    pub const TXN_INDEX_VERSION: i16 = 0;
}

/// Producer-state snapshot (`ProducerStateManager.java`, 3.9 layout).
pub mod snapshot {
    /// int16 version.
    pub const VERSION_OFFSET: usize = 0;
    /// uint32 CRC-32C of everything from `PRODUCER_ENTRIES_OFFSET` on.
    pub const CRC_OFFSET: usize = 2;
    /// int32 entry count, then the entries.
    pub const PRODUCER_ENTRIES_OFFSET: usize = 6;
    /// Version, CRC and count.
    pub const HEADER_SIZE: usize = 10;
    /// One producer: producerId int64, producerEpoch int16, lastSequence int32,
    /// lastOffset int64, offsetDelta int32, timestamp int64, coordinatorEpoch
    /// int32, currentTxnFirstOffset int64.
    pub const ENTRY_SIZE: usize = 46;
    /// The only snapshot version Kafka 3.x/4.x writes and reads.
    pub const VERSION: i16 = 1;
}

/// File and directory names (`LogFileUtils.java`, `UnifiedLog.scala`).
pub mod names {
    /// Segment data.
    pub const LOG_FILE_SUFFIX: &str = ".log";
    /// Offset index.
    pub const INDEX_FILE_SUFFIX: &str = ".index";
    /// Time index.
    pub const TIME_INDEX_FILE_SUFFIX: &str = ".timeindex";
    /// Aborted-transaction index.
    pub const TXN_INDEX_FILE_SUFFIX: &str = ".txnindex";
    /// Producer-state snapshot.
    pub const PRODUCER_SNAPSHOT_FILE_SUFFIX: &str = ".snapshot";
    /// KRaft snapshot (and `bootstrap.checkpoint`).
    pub const KRAFT_SNAPSHOT_SUFFIX: &str = ".checkpoint";
    /// KRaft snapshot being written.
    pub const KRAFT_PARTIAL_SNAPSHOT_SUFFIX: &str = ".checkpoint.part";
    /// Scheduled for deletion.
    pub const DELETED_FILE_SUFFIX: &str = ".deleted";
    /// Log-cleaner output being written.
    pub const CLEANED_FILE_SUFFIX: &str = ".cleaned";
    /// Cleaned/split segment waiting to replace the originals.
    pub const SWAP_FILE_SUFFIX: &str = ".swap";
    /// Leftover of an interrupted atomic write.
    pub const TMP_FILE_SUFFIX: &str = ".tmp";
    /// Digits of the zero-padded offset in segment file names.
    pub const OFFSET_DIGITS: usize = 20;
    /// Per-partition leader epoch cache.
    pub const LEADER_EPOCH_CHECKPOINT: &str = "leader-epoch-checkpoint";
    /// Per-partition topic id.
    pub const PARTITION_METADATA: &str = "partition.metadata";
    /// KRaft quorum state (metadata log only).
    pub const QUORUM_STATE: &str = "quorum-state";
    /// Per-log-dir high watermarks.
    pub const REPLICATION_OFFSET_CHECKPOINT: &str = "replication-offset-checkpoint";
    /// Per-log-dir recovery points.
    pub const RECOVERY_POINT_OFFSET_CHECKPOINT: &str = "recovery-point-offset-checkpoint";
    /// Per-log-dir log start offsets.
    pub const LOG_START_OFFSET_CHECKPOINT: &str = "log-start-offset-checkpoint";
    /// Per-log-dir log-cleaner progress.
    pub const CLEANER_OFFSET_CHECKPOINT: &str = "cleaner-offset-checkpoint";
    /// A log dir's four offset checkpoints.
    pub const LOG_DIR_CHECKPOINTS: [&str; 4] = [
        RECOVERY_POINT_OFFSET_CHECKPOINT,
        REPLICATION_OFFSET_CHECKPOINT,
        LOG_START_OFFSET_CHECKPOINT,
        CLEANER_OFFSET_CHECKPOINT,
    ];
    /// Node identity.
    pub const META_PROPERTIES: &str = "meta.properties";
    /// KRaft bootstrap snapshot written by `kafka-storage format`.
    pub const BOOTSTRAP_CHECKPOINT: &str = "bootstrap.checkpoint";
    /// Written at the end of a clean shutdown.
    pub const CLEAN_SHUTDOWN: &str = ".kafka_cleanshutdown";
    /// Held locked while a broker runs.
    pub const LOCK: &str = ".lock";
    /// Tiered storage's cache of remote segments' indexes
    /// (`RemoteIndexCache.DIR_NAME`), a directory of the log dir that
    /// `LogManager.loadLogs` skips: not a partition.
    pub const REMOTE_LOG_INDEX_CACHE: &str = "remote-log-index-cache";
    /// The KRaft metadata log's topic.
    pub const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";
    /// The group coordinator's topic.
    pub const CONSUMER_OFFSETS_TOPIC: &str = "__consumer_offsets";
    /// The transaction coordinator's topic.
    pub const TRANSACTION_STATE_TOPIC: &str = "__transaction_state";
    /// The share coordinator's topic.
    pub const SHARE_GROUP_STATE_TOPIC: &str = "__share_group_state";
}
