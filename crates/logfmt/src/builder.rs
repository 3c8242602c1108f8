//! Writing v2 record batches, byte-compatible with Kafka's
//! `MemoryRecordsBuilder` for the fields it sets.
//!
//! Used to make synthetic test data and benchmark segments; later, by the
//! commands that write log data. Compression framing is the one Kafka's Java
//! producer writes: gzip members, xerial-framed snappy (32 KiB blocks), the
//! LZ4 frame with Kafka's descriptor (`60 40 82`, 64 KiB blocks, no
//! checksums), zstd frames.

use std::io::Write;

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
    /// LogAppendTime instead of CreateTime.
    pub log_append_time: bool,
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
    records: Vec<u8>,
    count: i32,
    base_timestamp: Option<i64>,
    max_timestamp: i64,
}

impl BatchBuilder {
    /// A builder for a non-idempotent, uncompressed CreateTime batch.
    pub fn new(base_offset: i64) -> BatchBuilder {
        BatchBuilder {
            base_offset,
            partition_leader_epoch: 0,
            compression: Compression::None,
            log_append_time: false,
            transactional: false,
            control: false,
            producer_id: layout::NO_PRODUCER_ID,
            producer_epoch: -1,
            base_sequence: layout::NO_SEQUENCE,
            records: Vec::new(),
            count: 0,
            base_timestamp: None,
            max_timestamp: layout::NO_TIMESTAMP,
        }
    }

    /// Number of records appended.
    pub fn len(&self) -> i32 {
        self.count
    }

    /// True if no record was appended.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Append a record at the next offset delta.
    pub fn push(&mut self, r: &NewRecord<'_>) {
        let base_ts = *self.base_timestamp.get_or_insert(r.timestamp);
        self.max_timestamp = self.max_timestamp.max(r.timestamp);
        let mut body = Vec::with_capacity(
            16usize.saturating_add(r.key.map_or(0, <[u8]>::len)).saturating_add(r.value.map_or(0, <[u8]>::len)),
        );
        body.push(0); // attributes
        put_varlong(&mut body, r.timestamp.wrapping_sub(base_ts));
        put_varint(&mut body, self.count);
        for part in [r.key, r.value] {
            match part {
                Some(b) => {
                    put_varint(&mut body, b.len() as i32);
                    body.extend_from_slice(b);
                }
                None => put_varint(&mut body, -1),
            }
        }
        put_varint(&mut body, r.headers.len() as i32);
        for (k, v) in r.headers {
            put_varint(&mut body, k.len() as i32);
            body.extend_from_slice(k);
            match v {
                Some(v) => {
                    put_varint(&mut body, v.len() as i32);
                    body.extend_from_slice(v);
                }
                None => put_varint(&mut body, -1),
            }
        }
        put_varint(&mut self.records, body.len() as i32);
        self.records.extend_from_slice(&body);
        self.count = self.count.wrapping_add(1);
    }

    /// The finished batch bytes.
    pub fn build(&self) -> Vec<u8> {
        let payload = compress(self.compression, &self.records);
        let mut attributes = u16::from(self.compression.id());
        if self.log_append_time {
            attributes |= u16::from(layout::TIMESTAMP_TYPE_MASK);
        }
        if self.transactional {
            attributes |= u16::from(layout::TRANSACTIONAL_FLAG_MASK);
        }
        if self.control {
            attributes |= u16::from(layout::CONTROL_FLAG_MASK);
        }
        let mut out = Vec::with_capacity(layout::RECORD_BATCH_OVERHEAD.saturating_add(payload.len()));
        out.extend(self.base_offset.to_be_bytes());
        let length = (layout::RECORD_BATCH_OVERHEAD - crate::spec::log::LOG_OVERHEAD).saturating_add(payload.len());
        out.extend((length as i32).to_be_bytes());
        out.extend(self.partition_leader_epoch.to_be_bytes());
        out.push(2);
        out.extend([0u8; 4]); // crc, filled below
        out.extend(attributes.to_be_bytes());
        out.extend(self.count.saturating_sub(1).max(0).to_be_bytes());
        out.extend(self.base_timestamp.unwrap_or(layout::NO_TIMESTAMP).to_be_bytes());
        out.extend(self.max_timestamp.to_be_bytes());
        out.extend(self.producer_id.to_be_bytes());
        out.extend(self.producer_epoch.to_be_bytes());
        out.extend(self.base_sequence.to_be_bytes());
        out.extend(self.count.to_be_bytes());
        out.extend(payload);
        let crc = crc32c::crc32c(out.get(layout::ATTRIBUTES_OFFSET..).unwrap_or_default());
        if let Some(slot) = out.get_mut(layout::CRC_OFFSET..layout::ATTRIBUTES_OFFSET) {
            slot.copy_from_slice(&crc.to_be_bytes());
        }
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
