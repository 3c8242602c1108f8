//! Writing v2 record batches, byte-compatible with Kafka's
//! `MemoryRecordsBuilder` for the fields it sets.
//!
//! The partition writer (`logwrite::write::partition`) builds every batch it
//! appends here; tests make synthetic segments with it. Compression framing is the one Kafka's Java
//! producer writes: gzip members, xerial-framed snappy (32 KiB blocks), the
//! LZ4 frame with Kafka's descriptor (`60 40 82`, 64 KiB blocks, no
//! checksums), zstd frames.

use std::borrow::Cow;
use std::io::Write;

use crate::batch::BatchHeader;

use crate::compression::Compression;
use crate::spec::batch as layout;

/// Append a zigzag varint (Kafka's `ByteUtils.writeVarint`).
pub fn put_varint(out: &mut Vec<u8>, v: i32) {
    put_unsigned(out, u64::from(((v << 1) ^ (v >> 31)) as u32));
}

/// Append a zigzag varlong (Kafka's `ByteUtils.writeVarlong`).
pub fn put_varlong(out: &mut Vec<u8>, v: i64) {
    put_unsigned(out, ((v << 1) ^ (v >> 63)) as u64);
}

/// Bytes of a zigzag varint.
pub fn varint_len(v: i32) -> usize {
    unsigned_len(u64::from(((v << 1) ^ (v >> 31)) as u32))
}

/// Bytes of a zigzag varlong.
pub fn varlong_len(v: i64) -> usize {
    unsigned_len(((v << 1) ^ (v >> 63)) as u64)
}

fn unsigned_len(v: u64) -> usize {
    (64usize.saturating_sub((v | 1).leading_zeros() as usize)).div_ceil(7)
}

/// Append an unsigned LEB128 varint.
pub fn put_unsigned(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// One record to append.
#[derive(Clone, Copy, Debug, Default)]
pub struct NewRecord<'a> {
    /// Timestamp (CreateTime).
    pub timestamp: i64,
    /// Key, `None` for null.
    pub key: Option<&'a [u8]>,
    /// Value, `None` for null.
    pub value: Option<&'a [u8]>,
    /// Headers.
    pub headers: &'a [(&'a [u8], Option<&'a [u8]>)],
}

/// Builds one v2 batch. Records get consecutive offset deltas.
#[derive(Clone, Debug)]
pub struct BatchBuilder {
    /// baseOffset.
    pub base_offset: i64,
    /// partitionLeaderEpoch.
    pub partition_leader_epoch: i32,
    /// Codec.
    pub compression: Compression,
    /// LogAppendTime: the time the broker appended the batch. The batch's
    /// maxTimestamp becomes it and the timestamp type bit is set, the
    /// records keep their own deltas (`LogValidator` on a v2 batch).
    pub log_append_time: Option<i64>,
    /// Transactional flag.
    pub transactional: bool,
    /// Control flag.
    pub control: bool,
    /// producerId.
    pub producer_id: i64,
    /// producerEpoch.
    pub producer_epoch: i16,
    /// baseSequence.
    pub base_sequence: i32,
    /// The delete horizon (KIP-534): written as the base timestamp, with
    /// the batch's delete-horizon flag; record timestamps are deltas from
    /// it (`MemoryRecordsBuilder` with `deleteHorizonMs`), so it is set
    /// before the first record is pushed.
    pub delete_horizon_ms: Option<i64>,
    /// The last offset delta, when it is not the last record's (a batch
    /// the cleaner rewrote keeps its original last offset:
    /// `MemoryRecordsBuilder.overrideLastOffset`).
    pub last_offset_delta: Option<i32>,
    records: Vec<u8>,
    count: i32,
    base_timestamp: Option<i64>,
    max_timestamp: i64,
    /// An empty batch's type and maxTimestamp, kept from the batch it stands for.
    empty_of: Option<(bool, i64)>,
}

impl BatchBuilder {
    /// A builder for a non-idempotent, uncompressed CreateTime batch.
    pub fn new(base_offset: i64) -> BatchBuilder {
        BatchBuilder {
            base_offset,
            partition_leader_epoch: 0,
            compression: Compression::None,
            log_append_time: None,
            transactional: false,
            control: false,
            producer_id: layout::NO_PRODUCER_ID,
            producer_epoch: -1,
            base_sequence: layout::NO_SEQUENCE,
            delete_horizon_ms: None,
            last_offset_delta: None,
            records: Vec::new(),
            count: 0,
            base_timestamp: None,
            max_timestamp: layout::NO_TIMESTAMP,
            empty_of: None,
        }
    }

    /// A builder for a batch standing for `h` (a batch the cleaner rewrites):
    /// its base and last offsets, partition leader epoch, producer id, epoch
    /// and base sequence, transactional and control flags; records, codec
    /// and timestamps are the caller's.
    pub fn like(h: &BatchHeader) -> BatchBuilder {
        let mut b = BatchBuilder::new(h.base_offset);
        b.partition_leader_epoch = h.partition_leader_epoch;
        b.transactional = h.is_transactional();
        b.control = h.is_control();
        b.producer_id = h.producer_id;
        b.producer_epoch = h.producer_epoch;
        b.base_sequence = h.base_sequence;
        b.last_offset_delta = Some(h.last_offset_delta);
        b
    }

    /// The header-only batch the cleaner keeps for a batch whose records
    /// all go but whose producer state must stay
    /// (`DefaultRecordBatch.writeEmptyHeader`): the same offsets, producer
    /// fields, partition leader epoch, timestamp type and maxTimestamp,
    /// transactional and control flags; no records, no compression, base
    /// timestamp -1.
    pub fn empty_of(h: &BatchHeader) -> BatchBuilder {
        let mut b = BatchBuilder::like(h);
        let log_append = h.timestamp_type() == crate::batch::TimestampType::LogAppendTime;
        b.empty_of = Some((log_append, h.max_timestamp));
        b
    }

    /// The largest record timestamp (before any LogAppendTime).
    pub fn max_timestamp(&self) -> i64 {
        self.max_timestamp
    }

    /// Room for `bytes` of records without reallocating.
    pub fn reserve(&mut self, bytes: usize) {
        self.records.reserve(bytes);
    }

    /// Number of records appended.
    pub fn len(&self) -> i32 {
        self.count
    }

    /// True if no record was appended.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Append a record at the next offset delta (`DefaultRecord.writeTo`).
    pub fn push(&mut self, r: &NewRecord<'_>) {
        let value = r.value;
        self.push_with(r.timestamp, r.key, value.map(<[u8]>::len), r.headers, |out| {
            if let Some(v) = value {
                out.copy_from_slice(v);
            }
        });
    }

    /// Append a record whose value (`value_len` bytes, `None` for null) is
    /// written in place by `fill`, saving a copy of large values.
    pub fn push_with(
        &mut self,
        timestamp: i64,
        key: Option<&[u8]>,
        value_len: Option<usize>,
        headers: &[(&[u8], Option<&[u8]>)],
        fill: impl FnOnce(&mut [u8]),
    ) {
        self.push_at(self.count, timestamp, key, value_len, headers, fill);
    }

    /// Append a record at offset delta `offset_delta` (a rewritten batch
    /// keeps each record's offset: `MemoryRecordsBuilder.appendWithOffset`);
    /// deltas must rise.
    pub fn push_at(
        &mut self,
        offset_delta: i32,
        timestamp: i64,
        key: Option<&[u8]>,
        value_len: Option<usize>,
        headers: &[(&[u8], Option<&[u8]>)],
        fill: impl FnOnce(&mut [u8]),
    ) {
        let base_ts = *self.base_timestamp.get_or_insert(self.delete_horizon_ms.unwrap_or(timestamp));
        self.max_timestamp = self.max_timestamp.max(timestamp);
        let ts_delta = timestamp.wrapping_sub(base_ts);
        let field = |len: Option<usize>| len.map_or(1, |n| varint_len(n as i32).saturating_add(n));
        let mut size = 1usize
            .saturating_add(varlong_len(ts_delta))
            .saturating_add(varint_len(offset_delta))
            .saturating_add(field(key.map(<[u8]>::len)))
            .saturating_add(field(value_len))
            .saturating_add(varint_len(headers.len() as i32));
        for (k, v) in headers {
            size = size.saturating_add(field(Some(k.len()))).saturating_add(field(v.map(<[u8]>::len)));
        }
        let out = &mut self.records;
        out.reserve(size.saturating_add(5));
        put_varint(out, size as i32);
        out.push(0); // attributes
        put_varlong(out, ts_delta);
        put_varint(out, offset_delta);
        let put = |out: &mut Vec<u8>, b: Option<&[u8]>| match b {
            Some(b) => {
                put_varint(out, b.len() as i32);
                out.extend_from_slice(b);
            }
            None => put_varint(out, -1),
        };
        put(out, key);
        match value_len {
            Some(n) => {
                put_varint(out, n as i32);
                let start = out.len();
                out.resize(start.saturating_add(n), 0);
                fill(out.get_mut(start..).unwrap_or_default());
            }
            None => put_varint(out, -1),
        }
        put_varint(out, headers.len() as i32);
        for (k, v) in headers {
            put(out, Some(k));
            put(out, *v);
        }
        self.count = self.count.wrapping_add(1);
    }

    /// The finished batch bytes.
    pub fn build(&self) -> Vec<u8> {
        self.finish().to_vec()
    }

    /// The finished batch: its header, and its records (compressed when
    /// the codec says so) without a copy when uncompressed.
    pub fn finish(&self) -> Built<'_> {
        let payload = match self.compression {
            Compression::None => Cow::Borrowed(self.records.as_slice()),
            codec => Cow::Owned(compress(codec, &self.records)),
        };
        let mut attributes = u16::from(self.compression.id());
        if self.log_append_time.is_some() || self.empty_of.is_some_and(|(log_append, _)| log_append) {
            attributes |= u16::from(layout::TIMESTAMP_TYPE_MASK);
        }
        if self.transactional {
            attributes |= u16::from(layout::TRANSACTIONAL_FLAG_MASK);
        }
        if self.control {
            attributes |= u16::from(layout::CONTROL_FLAG_MASK);
        }
        if self.delete_horizon_ms.is_some() {
            attributes |= u16::from(layout::DELETE_HORIZON_FLAG_MASK);
        }
        let length = (layout::RECORD_BATCH_OVERHEAD - crate::spec::log::LOG_OVERHEAD).saturating_add(payload.len());
        let mut header = BatchHeader {
            base_offset: self.base_offset,
            batch_length: i32::try_from(length).unwrap_or(i32::MAX),
            partition_leader_epoch: self.partition_leader_epoch,
            magic: 2,
            crc: 0,
            attributes: attributes as i16,
            last_offset_delta: self.last_offset_delta.unwrap_or(self.count.saturating_sub(1).max(0)),
            base_timestamp: self.base_timestamp.or(self.delete_horizon_ms).unwrap_or(layout::NO_TIMESTAMP),
            max_timestamp: self.empty_of.map(|(_, max)| max).or(self.log_append_time).unwrap_or(self.max_timestamp),
            producer_id: self.producer_id,
            producer_epoch: self.producer_epoch,
            base_sequence: self.base_sequence,
            records_count: self.count,
        };
        let mut head = [0u8; layout::RECORD_BATCH_OVERHEAD];
        let mut at = 0usize;
        let mut put = |b: &[u8]| {
            if let Some(slot) = head.get_mut(at..at.saturating_add(b.len())) {
                slot.copy_from_slice(b);
            }
            at = at.saturating_add(b.len());
        };
        put(&header.base_offset.to_be_bytes());
        put(&header.batch_length.to_be_bytes());
        put(&header.partition_leader_epoch.to_be_bytes());
        put(&[2]);
        put(&[0; 4]); // crc, below
        put(&header.attributes.to_be_bytes());
        put(&header.last_offset_delta.to_be_bytes());
        put(&header.base_timestamp.to_be_bytes());
        put(&header.max_timestamp.to_be_bytes());
        put(&header.producer_id.to_be_bytes());
        put(&header.producer_epoch.to_be_bytes());
        put(&header.base_sequence.to_be_bytes());
        put(&header.records_count.to_be_bytes());
        // CRC-32C from the attributes to the end
        let crc = crate::crc::crc32c_append(
            crate::crc::crc32c(head.get(layout::ATTRIBUTES_OFFSET..).unwrap_or_default()),
            &payload,
        );
        if let Some(slot) = head.get_mut(layout::CRC_OFFSET..layout::ATTRIBUTES_OFFSET) {
            slot.copy_from_slice(&crc.to_be_bytes());
        }
        header.crc = crc;
        Built { header, head, payload }
    }
}

/// A finished batch (see [`BatchBuilder::finish`]).
pub struct Built<'a> {
    /// Its header, as written.
    pub header: BatchHeader,
    head: [u8; layout::RECORD_BATCH_OVERHEAD],
    payload: Cow<'a, [u8]>,
}

impl Built<'_> {
    /// Its size in bytes.
    pub fn len(&self) -> usize {
        self.head.len().saturating_add(self.payload.len())
    }

    /// Never: a batch has at least its header.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Write it.
    pub fn write_to<W: Write + ?Sized>(&self, w: &mut W) -> std::io::Result<()> {
        w.write_all(&self.head)?;
        w.write_all(&self.payload)
    }

    /// Its bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        out.extend_from_slice(&self.head);
        out.extend_from_slice(&self.payload);
        out
    }
}

/// Compress `data` the way Kafka's Java producer frames each codec.
pub fn compress(codec: Compression, data: &[u8]) -> Vec<u8> {
    match codec {
        Compression::None => data.to_vec(),
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            // writing to a Vec cannot fail
            let _ = e.write_all(data);
            e.finish().unwrap_or_default()
        }
        Compression::Snappy => {
            let mut out = vec![0x82, b'S', b'N', b'A', b'P', b'P', b'Y', 0, 0, 0, 0, 1, 0, 0, 0, 1];
            let mut enc = snap::raw::Encoder::new();
            for chunk in data.chunks(32 << 10) {
                let block = enc.compress_vec(chunk).unwrap_or_default();
                out.extend((block.len() as i32).to_be_bytes());
                out.extend(block);
            }
            out
        }
        Compression::Lz4 => {
            let mut out = vec![0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82];
            for chunk in data.chunks(64 << 10) {
                let block = lz4_flex::block::compress(chunk);
                if block.len() < chunk.len() {
                    out.extend((block.len() as u32).to_le_bytes());
                    out.extend(block);
                } else {
                    out.extend((chunk.len() as u32 | 0x8000_0000).to_le_bytes());
                    out.extend(chunk);
                }
            }
            out.extend(0u32.to_le_bytes());
            out
        }
        Compression::Zstd => zstd::encode_all(data, 3).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::RecordBatch;
    use crate::limits::Limits;

    #[test]
    fn a_rewritten_batch_keeps_offsets_timestamps_and_its_delete_horizon() {
        let mut b = BatchBuilder::new(100);
        b.producer_id = 7;
        b.producer_epoch = 2;
        b.base_sequence = 40;
        b.last_offset_delta = Some(9);
        b.delete_horizon_ms = Some(5_000_000);
        b.push_at(3, 1_000, Some(b"k"), Some(1), &[], |v| v.copy_from_slice(b"v"));
        b.push_at(7, 1_200, Some(b"t"), None, &[(b"h", None)], |_| {});
        let bytes = b.build();
        let batch = RecordBatch::parse(&bytes, 0).unwrap();
        let h = *batch.header();
        assert!(batch.is_valid());
        assert_eq!((h.base_offset, h.last_offset(), h.records_count), (100, 109, 2));
        assert_eq!((h.delete_horizon_ms(), h.base_timestamp, h.max_timestamp), (Some(5_000_000), 5_000_000, 1_200));
        let mut scratch = Vec::new();
        let mut records = batch.records(&mut scratch, &Limits::default()).unwrap();
        let first = records.next_record().unwrap().unwrap();
        assert_eq!((first.offset, first.timestamp, first.sequence), (103, 1_000, 43));
        let second = records.next_record().unwrap().unwrap();
        assert_eq!((second.offset, second.timestamp, second.value), (107, 1_200, None));
    }

    #[test]
    fn an_emptied_batch_keeps_its_header_fields() {
        let mut b = BatchBuilder::new(10);
        b.producer_id = 3;
        b.transactional = true;
        b.push(&NewRecord { timestamp: 77, key: Some(b"k"), value: Some(b"v"), headers: &[] });
        b.push(&NewRecord { timestamp: 88, key: Some(b"k"), value: Some(b"v"), headers: &[] });
        let full = b.build();
        let original = *RecordBatch::parse(&full, 0).unwrap().header();
        let empty = BatchBuilder::empty_of(&original).build();
        let e = RecordBatch::parse(&empty, 0).unwrap();
        let h = *e.header();
        assert!(e.is_valid());
        assert_eq!((h.base_offset, h.last_offset(), h.records_count, h.producer_id), (10, 11, 0, 3));
        assert_eq!((h.base_timestamp, h.max_timestamp, h.is_transactional()), (-1, 88, true));
        assert_eq!(empty.len(), crate::spec::batch::RECORD_BATCH_OVERHEAD);
    }
}
