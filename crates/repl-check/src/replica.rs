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

use std::path::Path;

use logfmt::checkpoint;
use logfmt::limits::Limits;
use logfmt::log::{Entry, Item, LogReader};
use logfmt::partition::{Partition, Segment};
use logfmt::spec::names as n;
use logrules::offsets::PartitionOffsets;

use crate::digest;
use crate::error::{Error, Result};

pub use crate::summary::{BatchStream, BatchSummary, ReplicaInfo, SourceKind};

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
