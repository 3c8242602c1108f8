//! Producer-state snapshots (`<offset>.snapshot`).
//!
//! Mirrors `ProducerStateManager.readSnapshot` (Kafka 3.9; 4.x writes the same
//! bytes through a generated message). Layout: int16 version (1), uint32
//! CRC-32C of everything after the CRC field, int32 count, then `count`
//! 46-byte entries. The file name's offset is the log offset up to which
//! (exclusive) the state was captured.
//!
//! A snapshot is read whole (it is small: 46 bytes per producer) after its
//! length was checked against [`Limits::max_snapshot_size`]. A CRC mismatch is
//! not an error here: the snapshot is returned with both CRCs so callers can
//! show the entries and flag it.

use std::path::Path;

use crate::batch::decrement_sequence;
use crate::cursor::{Cursor, End};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::spec::snapshot as layout;

/// One producer's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProducerStateEntry {
    /// Producer id.
    pub producer_id: i64,
    /// Producer epoch.
    pub producer_epoch: i16,
    /// Sequence of the last record of its last batch.
    pub last_sequence: i32,
    /// Offset of the last record of its last batch; -1 = no batch metadata.
    pub last_offset: i64,
    /// lastSequence - firstSequence of that batch.
    pub offset_delta: i32,
    /// Last update time (ms); also that batch's timestamp.
    pub timestamp: i64,
    /// Coordinator epoch of its last transaction marker, -1 if never transactional.
    pub coordinator_epoch: i32,
    /// First offset of its open transaction, -1 if none.
    pub current_txn_first_offset: i64,
}

impl ProducerStateEntry {
    /// Kafka keeps batch metadata only when `last_offset >= 0`.
    pub fn has_batch_metadata(&self) -> bool {
        self.last_offset >= 0
    }

    /// First sequence of the last batch (`BatchMetadata.firstSeq`), when known.
    pub fn first_sequence(&self) -> Option<i32> {
        self.has_batch_metadata().then(|| decrement_sequence(self.last_sequence, self.offset_delta))
    }

    /// The open transaction's first offset, if one is open.
    pub fn open_transaction(&self) -> Option<i64> {
        (self.current_txn_first_offset >= 0).then_some(self.current_txn_first_offset)
    }
}

/// A parsed snapshot file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProducerSnapshot {
    /// Format version (1).
    pub version: i16,
    /// Stored CRC.
    pub crc: u32,
    /// CRC of the bytes it covers.
    pub computed_crc: u32,
    /// The producers, in file order.
    pub entries: Vec<ProducerStateEntry>,
    /// Bytes after the last entry (Kafka ignores them).
    pub trailing_bytes: u64,
}

impl ProducerSnapshot {
    /// The stored CRC matches.
    pub fn crc_valid(&self) -> bool {
        self.crc == self.computed_crc
    }
}

/// Read and parse a snapshot file.
pub fn read(path: &Path, limits: &Limits) -> Result<ProducerSnapshot> {
    let bytes = crate::read_bounded(path, limits.max_snapshot_size, "producer snapshot")?;
    parse(&bytes).map_err(|e| e.with_path(path))
}

/// Parse snapshot bytes.
pub fn parse(bytes: &[u8]) -> Result<ProducerSnapshot> {
    let mut c = Cursor::new(bytes, 0, End::File);
    let version = c.i16("snapshot version")?;
    if version != layout::VERSION {
        return Err(Error::at(0, ErrorKind::BadVersion { what: "producer snapshot", version: version.into() }));
    }
    let crc = c.u32("snapshot crc")?;
    let computed_crc = crate::crc::crc32c(bytes.get(layout::PRODUCER_ENTRIES_OFFSET..).unwrap_or_default());
    let count_at = c.position();
    let count = c.i32("producer count")?;
    if count < 0 {
        return Err(Error::at(
            count_at,
            ErrorKind::BadLength { what: "producer count", value: count.into(), min: 0, max: i32::MAX.into() },
        ));
    }
    let need = (count as usize).saturating_mul(layout::ENTRY_SIZE);
    if need > c.remaining() {
        return Err(Error::truncated(
            c.position(),
            "producer snapshot entries",
            (need.saturating_sub(c.remaining())) as u64,
        ));
    }
    let mut entries = Vec::with_capacity(count as usize);
    for _ in 0..count {
        entries.push(ProducerStateEntry {
            producer_id: c.i64("producerId")?,
            producer_epoch: c.i16("producerEpoch")?,
            last_sequence: c.i32("lastSequence")?,
            last_offset: c.i64("lastOffset")?,
            offset_delta: c.i32("offsetDelta")?,
            timestamp: c.i64("timestamp")?,
            coordinator_epoch: c.i32("coordinatorEpoch")?,
            current_txn_first_offset: c.i64("currentTxnFirstOffset")?,
        });
    }
    Ok(ProducerSnapshot { version, crc, computed_crc, entries, trailing_bytes: c.remaining() as u64 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_snapshot_from_a_real_file() {
        let s = parse(&[0x00, 0x01, 0x48, 0x67, 0x4b, 0xc7, 0, 0, 0, 0]).unwrap();
        assert!(s.crc_valid());
        assert!(s.entries.is_empty());
    }

    #[test]
    fn one_producer_from_a_real_file() {
        let hex = "000178528ca00000000100000000000000050000000000310000000000000031000000300000\
                   01a20167dc00ffffffffffffffffffffffff";
        let b: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
        let s = parse(&b).unwrap();
        assert!(s.crc_valid());
        let e = s.entries[0];
        assert_eq!((e.producer_id, e.last_sequence, e.last_offset, e.offset_delta), (5, 49, 49, 48));
        assert_eq!(e.first_sequence(), Some(1));
        assert_eq!(e.open_transaction(), None);
    }

    #[test]
    fn short_and_bad_files() {
        assert!(parse(&[0, 1, 0]).unwrap_err().is_truncated());
        assert!(parse(&[0, 2, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
        assert!(parse(&[0, 1, 0, 0, 0, 0, 0, 0, 0, 1]).unwrap_err().is_truncated());
        assert!(parse(&[0, 1, 0, 0, 0, 0, 0xff, 0, 0, 1]).is_err());
    }
}
