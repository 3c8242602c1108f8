//! A replica: where it starts and ends, its epoch lineage, and its batches as
//! a stream of summaries - from a partition dir or from a digest.
//!
//! A partition dir is read segment by segment with `logfmt`'s bounded
//! reader; only batch headers are used (legacy compressed wrappers are
//! decompressed to learn their first offset). Reading stops at the first
//! damaged byte range, as Kafka's recovery would cut there; the replica's
//! [`ReplicaInfo::notes`] say so. The log dir around the partition dir (when
//! there is one) gives the high watermark and log start offset from its
//! checkpoints.

use std::path::{Path, PathBuf};

use logfmt::checkpoint::{self, EpochEntry};
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item, LogReader};
use logfmt::offsets::PartitionOffsets;
use logfmt::partition::{Partition, Segment};
use logfmt::spec::names as n;

use crate::digest;
use crate::error::{Error, Result};

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

/// Open a replica: a partition dir, or a digest file.
pub fn open(path: &Path, limits: &Limits) -> Result<(ReplicaInfo, Box<dyn BatchStream>)> {
    if path.is_dir() {
        let (info, stream) = open_dir(path, limits)?;
        Ok((info, Box::new(stream)))
    } else {
        let (info, stream) = digest::open(path)?;
        Ok((info, Box::new(stream)))
    }
}

fn open_dir(dir: &Path, limits: &Limits) -> Result<(ReplicaInfo, DirStream)> {
    let name = dir.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let Some(pd) = logfmt::naming::parse_partition_dir(&name) else {
        return Err(Error::Input(format!("{}: not a partition dir (topic-partition)", dir.display())));
    };
    let partition = Partition::open(dir, limits)?;
    let offsets = PartitionOffsets::open(&partition, limits)?;
    let epochs_path = dir.join(n::LEADER_EPOCH_CHECKPOINT);
    let mut notes = Vec::new();
    let epochs = if epochs_path.exists() {
        match checkpoint::read_epochs(&epochs_path, limits) {
            Ok(c) => Some(c.entries.into_iter().map(|(_, e)| e).collect()),
            Err(e) => {
                notes.push(format!("leader-epoch-checkpoint unreadable: {e}"));
                None
            }
        }
    } else {
        notes.push("no leader-epoch-checkpoint".into());
        None
    };
    if partition.checkpoints.high_watermark.is_none() {
        notes.push("no high watermark (no replication-offset-checkpoint entry beside it)".into());
    }
    let info = ReplicaInfo {
        path: dir.to_path_buf(),
        source: SourceKind::Dir,
        topic: pd.topic,
        partition: pd.partition,
        log_start_offset: offsets.log_start_offset,
        log_end_offset: offsets.log_end_offset,
        high_watermark: offsets.high_watermark,
        epochs,
        notes,
    };
    let segments = partition.segments;
    Ok((
        info,
        DirStream { segments, next_segment: 0, reader: None, limits: *limits, scratch: Vec::new(), damage: None },
    ))
}

/// The batches of a partition dir, segment by segment.
pub struct DirStream {
    segments: Vec<Segment>,
    next_segment: usize,
    reader: Option<LogReader>,
    limits: Limits,
    scratch: Vec<u8>,
    damage: Option<String>,
}

impl BatchStream for DirStream {
    fn stopped_early(&self) -> Option<String> {
        self.damage.clone()
    }

    fn next_batch(&mut self) -> Result<Option<BatchSummary>> {
        loop {
            if self.damage.is_some() {
                return Ok(None);
            }
            let reader = match &mut self.reader {
                Some(r) => r,
                None => {
                    let Some(seg) = self.segments.get(self.next_segment) else { return Ok(None) };
                    self.next_segment = self.next_segment.saturating_add(1);
                    self.reader.insert(seg.reader(&self.limits)?)
                }
            };
            match reader.next_item()? {
                None => self.reader = None,
                Some(Item::Damage(d)) => {
                    self.damage =
                        Some(format!("reading stopped at damaged bytes [{}, {}): {}", d.start, d.end, d.error));
                    return Ok(None);
                }
                Some(Item::Entry(Entry::V2(b))) => {
                    let h = b.header();
                    return Ok(Some(BatchSummary {
                        base_offset: h.base_offset,
                        last_offset: h.last_offset(),
                        epoch: h.partition_leader_epoch,
                        crc: h.crc,
                        size: u32::try_from(b.size()).unwrap_or(u32::MAX),
                        records: u32::try_from(h.records_count).unwrap_or(0),
                        first_timestamp: h.base_timestamp,
                        max_timestamp: h.max_timestamp,
                        magic: 2,
                        is_control: h.is_control(),
                        is_transactional: h.is_transactional(),
                    }));
                }
                Some(Item::Entry(Entry::Legacy(m))) => {
                    let (base, records) = m
                        .records(&mut self.scratch, &self.limits)
                        .map_or((m.offset, 1), |r| (r.base_offset(), r.record_count()));
                    return Ok(Some(BatchSummary {
                        base_offset: base,
                        last_offset: m.offset,
                        epoch: -1,
                        crc: m.crc,
                        size: u32::try_from(m.size_in_bytes()).unwrap_or(u32::MAX),
                        records,
                        first_timestamp: m.timestamp,
                        max_timestamp: m.timestamp,
                        magic: m.magic,
                        is_control: false,
                        is_transactional: false,
                    }));
                }
            }
        }
    }
}
