//! What a file or directory in a log dir is, from its name alone.
//!
//! Mirrors `LogFileUtils.java`, `UnifiedLog.scala` and `Snapshots.java`:
//! segment files are `<20-digit base offset>.<suffix>` (the number is the text
//! before the first `.`), optionally followed by `.deleted`, `.cleaned` or
//! `.swap`; KRaft snapshots are `<20-digit offset>-<10-digit epoch>.checkpoint`;
//! partition directories are `<topic>-<partition>`, or
//! `<topic>-<partition>.<uuid>-delete|-future|-stray`.
//!
//! Tiered storage names files outside a partition dir ([`classify_remote`]):
//! a remote store's copy of a segment's files is
//! `<20-digit start offset>-<segment id>.<suffix>` (`LocalTieredStorage`'s
//! `RemoteLogSegmentFileset`, and plugins that keep its layout), the
//! broker's cache of remote indexes `<start offset>_<segment id>.<suffix>`
//! (`RemoteIndexCache`). Kafka's log loader cannot load either name.

use crate::spec::names as n;

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileKind {
    /// Segment data (`.log`).
    Log,
    /// Offset index (`.index`).
    OffsetIndex,
    /// Time index (`.timeindex`).
    TimeIndex,
    /// Aborted-transaction index (`.txnindex`).
    TxnIndex,
    /// KRaft snapshot (`<offset>-<epoch>.checkpoint`, or `bootstrap.checkpoint`).
    KraftSnapshot,
    /// Producer-state snapshot (`.snapshot`).
    ProducerSnapshot,
    /// `leader-epoch-checkpoint`.
    LeaderEpochCheckpoint,
    /// `partition.metadata`.
    PartitionMetadata,
    /// `quorum-state` (JSON, metadata log only).
    QuorumState,
    /// `replication-offset-checkpoint` (high watermarks).
    ReplicationOffsetCheckpoint,
    /// `recovery-point-offset-checkpoint`.
    RecoveryPointOffsetCheckpoint,
    /// `log-start-offset-checkpoint`.
    LogStartOffsetCheckpoint,
    /// `cleaner-offset-checkpoint`.
    CleanerOffsetCheckpoint,
    /// `meta.properties`.
    MetaProperties,
    /// `.kafka_cleanshutdown` (JSON).
    CleanShutdown,
    /// `.lock`.
    Lock,
    /// Something else (including `*.tmp` leftovers of interrupted writes).
    Unknown,
}

impl FileKind {
    /// Name used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Log => "log",
            FileKind::OffsetIndex => "offset_index",
            FileKind::TimeIndex => "time_index",
            FileKind::TxnIndex => "txn_index",
            FileKind::KraftSnapshot => "kraft_snapshot",
            FileKind::ProducerSnapshot => "producer_snapshot",
            FileKind::LeaderEpochCheckpoint => "leader_epoch_checkpoint",
            FileKind::PartitionMetadata => "partition_metadata",
            FileKind::QuorumState => "quorum_state",
            FileKind::ReplicationOffsetCheckpoint => "replication_offset_checkpoint",
            FileKind::RecoveryPointOffsetCheckpoint => "recovery_point_offset_checkpoint",
            FileKind::LogStartOffsetCheckpoint => "log_start_offset_checkpoint",
            FileKind::CleanerOffsetCheckpoint => "cleaner_offset_checkpoint",
            FileKind::MetaProperties => "meta_properties",
            FileKind::CleanShutdown => "clean_shutdown",
            FileKind::Lock => "lock",
            FileKind::Unknown => "unknown",
        }
    }

    /// The offset checkpoints kept per log dir.
    pub fn is_offset_checkpoint(self) -> bool {
        matches!(
            self,
            FileKind::ReplicationOffsetCheckpoint
                | FileKind::RecoveryPointOffsetCheckpoint
                | FileKind::LogStartOffsetCheckpoint
                | FileKind::CleanerOffsetCheckpoint
        )
    }
}

/// A temporary suffix after the real one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TempSuffix {
    /// `.deleted`: scheduled for deletion.
    Deleted,
    /// `.cleaned`: log-cleaner output being written.
    Cleaned,
    /// `.swap`: finished, waiting to replace the originals.
    Swap,
    /// `.part`: KRaft snapshot being written.
    Partial,
}

impl TempSuffix {
    /// Name used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            TempSuffix::Deleted => "deleted",
            TempSuffix::Cleaned => "cleaned",
            TempSuffix::Swap => "swap",
            TempSuffix::Partial => "part",
        }
    }
}

/// A file name, understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileName {
    /// What the file holds.
    pub kind: FileKind,
    /// The offset in the name: a segment's base offset, a snapshot's offset.
    pub offset: Option<i64>,
    /// KRaft snapshot epoch.
    pub epoch: Option<i32>,
    /// A temporary suffix, if any.
    pub suffix: Option<TempSuffix>,
}

impl FileName {
    fn plain(kind: FileKind) -> FileName {
        FileName { kind, offset: None, epoch: None, suffix: None }
    }
}

fn offset_of(digits: &str) -> Option<i64> {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Classify a file by its name.
pub fn classify(name: &str) -> FileName {
    let fixed = match name {
        n::LEADER_EPOCH_CHECKPOINT => Some(FileKind::LeaderEpochCheckpoint),
        n::PARTITION_METADATA => Some(FileKind::PartitionMetadata),
        n::QUORUM_STATE => Some(FileKind::QuorumState),
        n::REPLICATION_OFFSET_CHECKPOINT => Some(FileKind::ReplicationOffsetCheckpoint),
        n::RECOVERY_POINT_OFFSET_CHECKPOINT => Some(FileKind::RecoveryPointOffsetCheckpoint),
        n::LOG_START_OFFSET_CHECKPOINT => Some(FileKind::LogStartOffsetCheckpoint),
        n::CLEANER_OFFSET_CHECKPOINT => Some(FileKind::CleanerOffsetCheckpoint),
        n::META_PROPERTIES => Some(FileKind::MetaProperties),
        n::CLEAN_SHUTDOWN => Some(FileKind::CleanShutdown),
        n::LOCK => Some(FileKind::Lock),
        n::BOOTSTRAP_CHECKPOINT => Some(FileKind::KraftSnapshot),
        _ => None,
    };
    if let Some(kind) = fixed {
        return FileName::plain(kind);
    }
    let (base, suffix) = if let Some(b) = name.strip_suffix(n::DELETED_FILE_SUFFIX) {
        (b, Some(TempSuffix::Deleted))
    } else if let Some(b) = name.strip_suffix(n::CLEANED_FILE_SUFFIX) {
        (b, Some(TempSuffix::Cleaned))
    } else if let Some(b) = name.strip_suffix(n::SWAP_FILE_SUFFIX) {
        (b, Some(TempSuffix::Swap))
    } else if let Some(b) = name.strip_suffix(".part") {
        (b, Some(TempSuffix::Partial))
    } else {
        (name, None)
    };
    let Some((stem, ext)) = base.split_once('.') else {
        return FileName::plain(FileKind::Unknown);
    };
    let ext = format!(".{ext}");
    let kind = match ext.as_str() {
        n::LOG_FILE_SUFFIX => FileKind::Log,
        n::INDEX_FILE_SUFFIX => FileKind::OffsetIndex,
        n::TIME_INDEX_FILE_SUFFIX => FileKind::TimeIndex,
        n::TXN_INDEX_FILE_SUFFIX => FileKind::TxnIndex,
        n::PRODUCER_SNAPSHOT_FILE_SUFFIX => FileKind::ProducerSnapshot,
        n::KRAFT_SNAPSHOT_SUFFIX => {
            let (off, epoch) = stem.split_once('-').unwrap_or((stem, ""));
            let epoch = offset_of(epoch).and_then(|e| i32::try_from(e).ok());
            return match (offset_of(off), epoch) {
                (Some(o), Some(e)) => {
                    FileName { kind: FileKind::KraftSnapshot, offset: Some(o), epoch: Some(e), suffix }
                }
                _ => FileName::plain(FileKind::Unknown),
            };
        }
        _ => return FileName::plain(FileKind::Unknown),
    };
    match offset_of(stem) {
        Some(o) if suffix != Some(TempSuffix::Partial) => FileName { kind, offset: Some(o), epoch: None, suffix },
        _ => FileName::plain(FileKind::Unknown),
    }
}

/// A tiered storage file, by its name ([`classify_remote`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteFileName {
    /// What the file holds (`.leader_epoch_checkpoint`: a leader epoch
    /// checkpoint).
    pub kind: FileKind,
    /// The remote segment's start offset.
    pub offset: i64,
    /// The remote segment's id (a base64url UUID).
    pub segment_id: String,
    /// A file of the broker's `remote-log-index-cache/` (`RemoteIndexCache`),
    /// not of the remote store.
    pub cache: bool,
}

/// Whether `s` is a `Uuid` as Kafka prints it: 22 base64url characters.
fn is_uuid(s: &str) -> bool {
    s.len() == 22 && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Classify a tiered storage file by its name: a remote store's
/// `<20-digit offset>-<segment id>.<suffix>` (`.log`, `.index`,
/// `.timeindex`, `.txnindex`, `.snapshot`, `.leader_epoch_checkpoint`:
/// `RemoteLogSegmentFileset.RemoteLogSegmentFileType`), or the remote index
/// cache's `<offset>_<segment id>.<suffix>` (`.index`, `.timeindex`,
/// `.txnindex`: `RemoteIndexCache`). `None` for any other name.
pub fn classify_remote(name: &str) -> Option<RemoteFileName> {
    let (stem, ext) = name.split_once('.')?;
    let kind = match ext {
        "log" => FileKind::Log,
        "index" => FileKind::OffsetIndex,
        "timeindex" => FileKind::TimeIndex,
        "txnindex" => FileKind::TxnIndex,
        "snapshot" => FileKind::ProducerSnapshot,
        "leader_epoch_checkpoint" => FileKind::LeaderEpochCheckpoint,
        _ => return None,
    };
    // (a segment id may hold '-' and '_' itself: split at the first)
    let dash = stem.split_once('-').filter(|(o, id)| o.len() == 20 && is_uuid(id));
    let (offset, id, cache) = match dash {
        Some((o, id)) => (o, id, false),
        None => {
            let (o, id) = stem.split_once('_').filter(|(_, id)| is_uuid(id))?;
            let index = matches!(kind, FileKind::OffsetIndex | FileKind::TimeIndex | FileKind::TxnIndex);
            if !index {
                return None;
            }
            (o, id, true)
        }
    };
    Some(RemoteFileName { kind, offset: offset_of(offset)?, segment_id: id.to_string(), cache })
}

/// The state a partition directory's name gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DirState {
    /// `<topic>-<partition>`.
    Live,
    /// `...-delete`: scheduled for deletion.
    Delete(String),
    /// `...-future`: a replica being moved between log dirs.
    Future(String),
    /// `...-stray`: a replica of a topic id that no longer exists.
    Stray(String),
}

/// A partition directory name, understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartitionDir {
    /// Topic name.
    pub topic: String,
    /// Partition number.
    pub partition: i32,
    /// Live, or one of the suffixed states with its unique id.
    pub state: DirState,
}

/// Parse a partition directory name.
pub fn parse_partition_dir(name: &str) -> Option<PartitionDir> {
    let (tp, state) = if let Some((rest, kind)) =
        name.rsplit_once('-').filter(|(_, k)| matches!(*k, "delete" | "future" | "stray"))
    {
        let (tp, uid) = rest.rsplit_once('.')?;
        let uid = uid.to_string();
        let state = match kind {
            "delete" => DirState::Delete(uid),
            "future" => DirState::Future(uid),
            _ => DirState::Stray(uid),
        };
        (tp, state)
    } else {
        (name, DirState::Live)
    };
    let (topic, partition) = tp.rsplit_once('-')?;
    if topic.is_empty() || !topic.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')) {
        return None;
    }
    if partition.is_empty() || !partition.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(PartitionDir { topic: topic.to_string(), partition: partition.parse().ok()?, state })
}

/// The name of a segment file: `base_offset` zero-padded to 20 digits + `suffix`.
pub fn segment_file_name(base_offset: i64, suffix: &str) -> String {
    format!("{base_offset:0width$}{suffix}", width = n::OFFSET_DIGITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_store_and_index_cache_names() {
        let r = classify_remote("00000000000000000099-zaoRgQX2QnCPnM-P3vLmBQ.log").unwrap();
        assert_eq!(
            (r.kind, r.offset, r.segment_id.as_str(), r.cache),
            (FileKind::Log, 99, "zaoRgQX2QnCPnM-P3vLmBQ", false)
        );
        let r = classify_remote("00000000000000000099-zaoRgQX2QnCPnM-P3vLmBQ.leader_epoch_checkpoint").unwrap();
        assert_eq!(r.kind, FileKind::LeaderEpochCheckpoint);
        let r = classify_remote("193_KWO774LqRY2l5jL2plbakA.timeindex").unwrap();
        assert_eq!((r.kind, r.offset, r.cache), (FileKind::TimeIndex, 193, true));
        for not in [
            "00000000000000000099.log",
            "193_KWO774LqRY2l5jL2plbakA.log",
            "0000000000000000099-zaoRgQX2QnCPnM-P3vLmBQ.log",
            "00000000000000000099-short.log",
            "00000000000000000099-zaoRgQX2QnCPnM-P3vLmBQ.checkpoint",
            "x_KWO774LqRY2l5jL2plbakA.index",
        ] {
            assert_eq!(classify_remote(not), None, "{not}");
        }
        // and none of them is a file Kafka's log loader takes
        assert_eq!(classify("00000000000000000099-zaoRgQX2QnCPnM-P3vLmBQ.log").kind, FileKind::Unknown);
    }

    #[test]
    fn segment_files() {
        assert_eq!(
            classify("00000000000000094782.log"),
            FileName { kind: FileKind::Log, offset: Some(94782), epoch: None, suffix: None }
        );
        assert_eq!(classify("00000000000000000060.timeindex.deleted").suffix, Some(TempSuffix::Deleted));
        assert_eq!(classify("00000000000000000060.timeindex.deleted").kind, FileKind::TimeIndex);
        assert_eq!(classify("00000000000000000000.log.swap").suffix, Some(TempSuffix::Swap));
        assert_eq!(classify("00000000000000000105.snapshot").kind, FileKind::ProducerSnapshot);
        let s = classify("00000000000000000100-0000000003.checkpoint");
        assert_eq!((s.kind, s.offset, s.epoch), (FileKind::KraftSnapshot, Some(100), Some(3)));
        assert_eq!(classify("bootstrap.checkpoint").kind, FileKind::KraftSnapshot);
        assert_eq!(classify("replication-offset-checkpoint.tmp").kind, FileKind::Unknown);
        assert_eq!(classify("x.log").kind, FileKind::Unknown);
        assert_eq!(segment_file_name(7, ".log"), "00000000000000000007.log");
    }

    #[test]
    fn partition_dirs() {
        let p = parse_partition_dir("my-topic-12").unwrap();
        assert_eq!((p.topic.as_str(), p.partition, p.state), ("my-topic", 12, DirState::Live));
        let p = parse_partition_dir("t1-0.9f2c7c0b8a8b4cb3a5a3b0b5c2a0d1e2-delete").unwrap();
        assert_eq!((p.topic.as_str(), p.partition), ("t1", 0));
        assert!(matches!(p.state, DirState::Delete(_)));
        assert!(parse_partition_dir("__cluster_metadata-0").is_some());
        assert!(parse_partition_dir("remote-log-index-cache").is_none());
        assert!(parse_partition_dir("lost+found").is_none());
    }
}
