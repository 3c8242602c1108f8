//! What a replica is to a comparison, whatever its source (a partition dir,
//! [`crate::replica`], or a digest, [`crate::digest`]): its start, end,
//! lineage and notes ([`ReplicaInfo`]) and its batches as a stream of
//! [`BatchSummary`]s. Both sources import this; neither imports the other's
//! reading.

use std::path::PathBuf;

use logfmt::checkpoint::EpochEntry;

use crate::error::Result;

/// What is known of one batch: enough to tell two replicas' batches apart
/// without decoding records (the CRC covers everything from the attributes
/// on; offsets, epoch and size cover the rest).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchSummary {
    /// First offset.
    pub base_offset: i64,
    /// Last offset.
    pub last_offset: i64,
    /// `partition_leader_epoch` (-1 for legacy messages).
    pub epoch: i32,
    /// The stored checksum.
    pub crc: u32,
    /// Bytes, log overhead included.
    pub size: u32,
    /// Records in the batch.
    pub records: u32,
    /// `base_timestamp` (legacy: the message's timestamp).
    pub first_timestamp: i64,
    /// `max_timestamp`.
    pub max_timestamp: i64,
    /// 0, 1 or 2.
    pub magic: i8,
    /// A control batch (transaction marker, KRaft control record).
    pub is_control: bool,
    /// A transactional batch.
    pub is_transactional: bool,
}

impl BatchSummary {
    /// The same batch in two replicas: offsets, epoch, checksum and size agree.
    pub fn same_as(&self, other: &BatchSummary) -> bool {
        (self.base_offset, self.last_offset, self.epoch, self.crc, self.size)
            == (other.base_offset, other.last_offset, other.epoch, other.crc, other.size)
    }
}

/// Where a replica's data comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// A partition dir.
    Dir,
    /// A digest file.
    Digest,
}

/// A replica's offsets and lineage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplicaInfo {
    /// As given.
    pub path: PathBuf,
    /// Partition dir or digest.
    pub source: SourceKind,
    /// Topic.
    pub topic: String,
    /// Partition.
    pub partition: i32,
    /// The log start offset.
    pub log_start_offset: i64,
    /// The log end offset.
    pub log_end_offset: i64,
    /// The high watermark, when a checkpoint gives it.
    pub high_watermark: Option<i64>,
    /// `leader-epoch-checkpoint`, `None` when missing or unreadable.
    pub epochs: Option<Vec<EpochEntry>>,
    /// Things worth knowing about how it was read.
    pub notes: Vec<String>,
}

/// A stream of [`BatchSummary`]s in offset order.
pub trait BatchStream {
    /// The next batch, `None` at the end.
    fn next_batch(&mut self) -> Result<Option<BatchSummary>>;
    /// Why the stream ended before the replica's data did, if it did.
    fn stopped_early(&self) -> Option<String> {
        None
    }
}
