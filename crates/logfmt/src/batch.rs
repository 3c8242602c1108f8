//! Record batches of message format v2 (magic 2) and the records in them.
//!
//! Mirrors `DefaultRecordBatch.java` and `DefaultRecord.java`. A
//! [`RecordBatch`] is a borrowed view of one whole batch (its 12-byte
//! offset+length prefix included) and knows its absolute file position;
//! [`RecordBatch::records`] decodes the records, decompressing into a
//! caller-owned scratch buffer, with the checks Kafka's iterator applies (the
//! record count must match exactly, every record must use exactly its declared
//! length) plus strict varints.
//!
//! Arithmetic on values read from the file (offsets, timestamps, sequences)
//! wraps the way Java's does, so output matches Kafka's even for garbage.

use crate::compression::{self, Compression, DecompressError};
use crate::cursor::{Cursor, End};
use crate::error::{Error, ErrorKind, Result};
use crate::limits::Limits;
use crate::spec::batch as layout;
use crate::spec::log::MAGIC_VALUE_V2;

/// How a batch's timestamps were assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimestampType {
    /// Magic 0 messages have no timestamp.
    NoTimestamp,
    /// Set by the producer.
    CreateTime,
    /// Set by the broker when appending.
    LogAppendTime,
}

impl TimestampType {
    /// `no_timestamp`, `create_time`, `log_append_time`: names used in JSON.
    pub fn name(self) -> &'static str {
        match self {
            TimestampType::NoTimestamp => "no_timestamp",
            TimestampType::CreateTime => "create_time",
            TimestampType::LogAppendTime => "log_append_time",
        }
    }

    /// Kafka's spelling: `NoTimestampType`, `CreateTime`, `LogAppendTime`.
    pub fn kafka_name(self) -> &'static str {
        match self {
            TimestampType::NoTimestamp => "NoTimestampType",
            TimestampType::CreateTime => "CreateTime",
            TimestampType::LogAppendTime => "LogAppendTime",
        }
    }
}

/// Java's `DefaultRecordBatch.incrementSequence`: add with wrap-around at
/// `Integer.MAX_VALUE` to 0.
pub fn increment_sequence(sequence: i32, increment: i32) -> i32 {
    if sequence > i32::MAX.wrapping_sub(increment) {
        increment.wrapping_sub(i32::MAX.wrapping_sub(sequence)).wrapping_sub(1)
    } else {
        sequence.wrapping_add(increment)
    }
}

/// Java's `DefaultRecordBatch.decrementSequence`.
pub fn decrement_sequence(sequence: i32, decrement: i32) -> i32 {
    if sequence < decrement {
        i32::MAX.wrapping_sub(decrement.wrapping_sub(sequence)).wrapping_add(1)
    } else {
        sequence.wrapping_sub(decrement)
    }
}

/// The 61-byte header of a v2 batch, field by field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchHeader {
    /// Offset of the first record.
    pub base_offset: i64,
    /// Bytes after this field (the batch is `batch_length + 12` bytes).
    pub batch_length: i32,
    /// Leader epoch of the appending leader, -1 if unknown.
    pub partition_leader_epoch: i32,
    /// Format version: 2.
    pub magic: i8,
    /// Stored CRC-32C of bytes `[21, end)`.
    pub crc: u32,
    /// Flags, see [`crate::spec::batch`] masks.
    pub attributes: i16,
    /// `last_offset() - base_offset`.
    pub last_offset_delta: i32,
    /// First record's timestamp, or the delete horizon.
    pub base_timestamp: i64,
    /// Largest record timestamp (CreateTime) or the append time.
    pub max_timestamp: i64,
    /// Producer id, -1 if none.
    pub producer_id: i64,
    /// Producer epoch, -1 if none.
    pub producer_epoch: i16,
    /// Sequence of the first record, -1 if none.
    pub base_sequence: i32,
    /// Number of records.
    pub records_count: i32,
}

impl BatchHeader {
    /// Read the header fields in order from `c` (61 bytes).
    pub fn read(c: &mut Cursor<'_>) -> Result<BatchHeader> {
        Ok(BatchHeader {
            base_offset: c.i64("baseOffset")?,
            batch_length: c.i32("batchLength")?,
            partition_leader_epoch: c.i32("partitionLeaderEpoch")?,
            magic: c.i8("magic")?,
            crc: c.u32("crc")?,
            attributes: c.i16("attributes")?,
            last_offset_delta: c.i32("lastOffsetDelta")?,
            base_timestamp: c.i64("baseTimestamp")?,
            max_timestamp: c.i64("maxTimestamp")?,
            producer_id: c.i64("producerId")?,
            producer_epoch: c.i16("producerEpoch")?,
            base_sequence: c.i32("baseSequence")?,
            records_count: c.i32("recordsCount")?,
        })
    }

    /// The attribute byte Kafka reads (the low byte; bits 8-15 are ignored).
    fn attribute_byte(&self) -> u8 {
        (self.attributes & 0xff) as u8
    }

    /// The codec id (0-7; 5-7 are invalid).
    pub fn compression_id(&self) -> u8 {
        self.attribute_byte() & layout::COMPRESSION_CODEC_MASK
    }

    /// The codec, or `None` for an invalid id.
    pub fn compression(&self) -> Option<Compression> {
        Compression::from_id(self.compression_id())
    }

    /// CreateTime or LogAppendTime.
    pub fn timestamp_type(&self) -> TimestampType {
        if self.attribute_byte() & layout::TIMESTAMP_TYPE_MASK != 0 {
            TimestampType::LogAppendTime
        } else {
            TimestampType::CreateTime
        }
    }

    /// Part of a transaction.
    pub fn is_transactional(&self) -> bool {
        self.attribute_byte() & layout::TRANSACTIONAL_FLAG_MASK != 0
    }

    /// Holds control records (transaction markers, KRaft control records).
    pub fn is_control(&self) -> bool {
        self.attribute_byte() & layout::CONTROL_FLAG_MASK != 0
    }

    /// The cleaner stored a delete horizon in `base_timestamp`.
    pub fn has_delete_horizon(&self) -> bool {
        self.attribute_byte() & layout::DELETE_HORIZON_FLAG_MASK != 0
    }

    /// The delete horizon (ms), when set.
    pub fn delete_horizon_ms(&self) -> Option<i64> {
        self.has_delete_horizon().then_some(self.base_timestamp)
    }

    /// Offset of the last record slot.
    pub fn last_offset(&self) -> i64 {
        self.base_offset.wrapping_add(i64::from(self.last_offset_delta))
    }

    /// `last_offset() + 1`.
    pub fn next_offset(&self) -> i64 {
        self.last_offset().wrapping_add(1)
    }

    /// Sequence of the last record slot, -1 if the batch has none.
    pub fn last_sequence(&self) -> i32 {
        if self.base_sequence == layout::NO_SEQUENCE {
            return layout::NO_SEQUENCE;
        }
        increment_sequence(self.base_sequence, self.last_offset_delta)
    }

    /// Bytes of the whole batch, prefix included.
    pub fn size_in_bytes(&self) -> i64 {
        i64::from(self.batch_length).wrapping_add(crate::spec::log::LOG_OVERHEAD as i64)
    }
}

/// A borrowed, whole v2 record batch.
#[derive(Clone, Copy, Debug)]
pub struct RecordBatch<'a> {
    header: BatchHeader,
    bytes: &'a [u8],
    position: u64,
}

impl<'a> RecordBatch<'a> {
    /// View `bytes` (exactly one batch, from its baseOffset field to its
    /// end) found at absolute file `position`. Checks the magic and that the
    /// length field matches `bytes`.
    pub fn parse(bytes: &'a [u8], position: u64) -> Result<RecordBatch<'a>> {
        let mut c = Cursor::new(bytes, position, End::File);
        let header = BatchHeader::read(&mut c)?;
        if header.magic != MAGIC_VALUE_V2 {
            return Err(Error::at(position.saturating_add(16), ErrorKind::BadMagic { magic: header.magic }));
        }
        if header.size_in_bytes() != bytes.len() as i64 {
            return Err(Error::at(
                position.saturating_add(8),
                ErrorKind::Malformed {
                    what: "record batch",
                    detail: format!(
                        "batchLength {} does not match the {} bytes given",
                        header.batch_length,
                        bytes.len()
                    ),
                },
            ));
        }
        Ok(RecordBatch { header, bytes, position })
    }

    /// The header fields.
    pub fn header(&self) -> &BatchHeader {
        &self.header
    }

    /// Absolute position of the batch's first byte in its file.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// All bytes of the batch.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The CRC-32C of the bytes the stored CRC covers.
    pub fn compute_crc(&self) -> u32 {
        crc32c::crc32c(self.bytes.get(layout::ATTRIBUTES_OFFSET..).unwrap_or_default())
    }

    /// Kafka's `isValid`: big enough and the CRC matches.
    pub fn is_valid(&self) -> bool {
        self.bytes.len() >= layout::RECORD_BATCH_OVERHEAD && self.compute_crc() == self.header.crc
    }

    /// The records region (possibly compressed).
    pub fn records_payload(&self) -> &'a [u8] {
        self.bytes.get(layout::RECORDS_OFFSET..).unwrap_or_default()
    }

    /// Iterate the records, decompressing into `scratch` if needed.
    pub fn records<'s>(&'s self, scratch: &'s mut Vec<u8>, limits: &Limits) -> Result<Records<'s>> {
        let h = self.header;
        let payload_pos = self.position.saturating_add(layout::RECORDS_OFFSET as u64);
        if h.records_count < 0 {
            return Err(Error::at(
                self.position.saturating_add(layout::RECORDS_COUNT_OFFSET as u64),
                ErrorKind::BadLength {
                    what: "recordsCount",
                    value: h.records_count.into(),
                    min: 0,
                    max: i32::MAX.into(),
                },
            ));
        }
        let codec = h.compression().ok_or_else(|| {
            Error::at(
                self.position.saturating_add(layout::ATTRIBUTES_OFFSET as u64),
                ErrorKind::UnknownCompression { id: h.compression_id() },
            )
        })?;
        if h.records_count == 0 {
            // as Kafka: an empty batch has no records, whatever its payload
            return Ok(Records::new(h, Cursor::new(&[], payload_pos, End::Enclosing("record batch")), None, 0));
        }
        if codec == Compression::None {
            let c = Cursor::new(self.records_payload(), payload_pos, End::Enclosing("record batch"));
            return Ok(Records::new(h, c, None, h.records_count));
        }
        compression::decompress(codec, self.records_payload(), h.magic, limits.max_decompressed_size, scratch)
            .map_err(|e| {
                let kind = match e {
                    DecompressError::TooLarge => {
                        ErrorKind::DecompressedTooLarge { codec, limit: limits.max_decompressed_size }
                    }
                    DecompressError::Invalid(message) => ErrorKind::Decompress { codec, message },
                };
                Error::at(payload_pos, kind)
            })?;
        let c = Cursor::new(scratch.as_slice(), 0, End::Enclosing("decompressed records"));
        Ok(Records::new(h, c, Some(payload_pos), h.records_count))
    }
}

/// One header of a record. The key is UTF-8 by contract, but stored as bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header<'a> {
    /// Header key bytes.
    pub key: &'a [u8],
    /// Header value, `None` when null.
    pub value: Option<&'a [u8]>,
}

/// The headers of a record: checked when the record was read, decoded on
/// demand (so reading a record never allocates).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Headers<'a> {
    raw: &'a [u8],
    count: usize,
}

impl<'a> Headers<'a> {
    /// Number of headers.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when the record has no headers.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The headers in order.
    pub fn iter(&self) -> HeaderIter<'a> {
        HeaderIter { cursor: Cursor::new(self.raw, 0, End::Enclosing("record headers")), left: self.count }
    }

    /// Walk `count` headers from `c`, checking them; returns the bytes they span.
    fn read(c: &mut Cursor<'a>, count: usize) -> Result<Headers<'a>> {
        let raw = c.rest();
        let start = c.consumed();
        for _ in 0..count {
            read_header(c)?;
        }
        let len = c.consumed().saturating_sub(start);
        Ok(Headers { raw: raw.get(..len).unwrap_or_default(), count })
    }
}

fn read_header<'a>(c: &mut Cursor<'a>) -> Result<Header<'a>> {
    let len_at = c.position();
    let key_len = c.varint("header key length")?;
    if key_len < 0 {
        return Err(Error::at(
            len_at,
            ErrorKind::BadLength {
                what: "header key length",
                value: key_len.into(),
                min: 0,
                max: c.remaining() as i64,
            },
        ));
    }
    let key = c.bytes(key_len as usize, "header key")?;
    let len_at = c.position();
    let value_len = c.varint("header value length")?;
    let value = match c.nullable_len(value_len.into(), "header value", len_at)? {
        Some(n) => Some(c.bytes(n, "header value")?),
        None => None,
    };
    Ok(Header { key, value })
}

/// Iterator over [`Headers`].
#[derive(Clone, Debug)]
pub struct HeaderIter<'a> {
    cursor: Cursor<'a>,
    left: usize,
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = Header<'a>;

    fn next(&mut self) -> Option<Header<'a>> {
        self.left = self.left.checked_sub(1)?;
        // checked when the record was read
        read_header(&mut self.cursor).ok()
    }
}

/// One record of a v2 batch, with its derived offset, timestamp and sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// The record's length field (bytes after the length varint).
    pub length: i32,
    /// Record attributes (unused by Kafka, written 0).
    pub attributes: i8,
    /// Timestamp relative to the batch's base timestamp.
    pub timestamp_delta: i64,
    /// Offset relative to the batch's base offset.
    pub offset_delta: i32,
    /// Key, `None` when null.
    pub key: Option<&'a [u8]>,
    /// Value, `None` when null (a tombstone).
    pub value: Option<&'a [u8]>,
    /// Headers in order.
    pub headers: Headers<'a>,
    /// `base_offset + offset_delta`.
    pub offset: i64,
    /// CreateTime: `base_timestamp + timestamp_delta`; LogAppendTime: the
    /// batch's `max_timestamp`.
    pub timestamp: i64,
    /// `base_sequence + offset_delta` (wrapping), or -1 without a sequence.
    pub sequence: i32,
}

impl Record<'_> {
    /// Key length, -1 for a null key.
    pub fn key_size(&self) -> i64 {
        self.key.map_or(-1, |k| k.len() as i64)
    }

    /// Value length, -1 for a null value.
    pub fn value_size(&self) -> i64 {
        self.value.map_or(-1, |v| v.len() as i64)
    }
}

/// Iterator over the records of one batch. After the declared number of
/// records it checks that no bytes remain; the first error ends it.
#[derive(Clone, Debug)]
pub struct Records<'s> {
    header: BatchHeader,
    cursor: Cursor<'s>,
    /// For decompressed data: the file position of the compressed payload
    /// (errors are reported there, with the offset inside the decompressed bytes).
    compressed_at: Option<u64>,
    left: i32,
    read: i32,
    done: bool,
}

impl<'s> Records<'s> {
    fn new(header: BatchHeader, cursor: Cursor<'s>, compressed_at: Option<u64>, count: i32) -> Records<'s> {
        Records { header, cursor, compressed_at, left: count, read: 0, done: false }
    }

    /// Map an error inside decompressed bytes to the compressed payload's
    /// file position.
    fn locate(&self, e: Error) -> Error {
        match self.compressed_at {
            None => e,
            Some(at) => {
                let inner = e.position().unwrap_or(0);
                Error::at(
                    at,
                    ErrorKind::Malformed {
                        what: "compressed records",
                        detail: format!("at byte {inner} of the decompressed records: {}", e.kind()),
                    },
                )
            }
        }
    }

    fn read_record(&mut self) -> Result<Record<'s>> {
        let h = self.header;
        let r = parse_record(&mut self.cursor)?;
        let timestamp = match h.timestamp_type() {
            TimestampType::LogAppendTime => h.max_timestamp,
            _ => h.base_timestamp.wrapping_add(r.timestamp_delta),
        };
        let sequence = if h.base_sequence >= 0 {
            increment_sequence(h.base_sequence, r.offset_delta)
        } else {
            layout::NO_SEQUENCE
        };
        Ok(Record {
            length: r.length,
            attributes: r.attributes,
            timestamp_delta: r.timestamp_delta,
            offset_delta: r.offset_delta,
            key: r.key,
            value: r.value,
            headers: r.headers,
            offset: h.base_offset.wrapping_add(r.offset_delta.into()),
            timestamp,
            sequence,
        })
    }

    /// Check the remaining records without building them (what `verify`
    /// needs, several times faster than iterating): the same checks as the
    /// iterator, plus a summary.
    pub fn summarize(self) -> Result<RecordsSummary> {
        if let Some(sum) = fast_summary(self.cursor.rest(), &self.header, self.left) {
            return Ok(sum);
        }
        self.summarize_precisely()
    }

    /// [`Records::summarize`] through the full parser (exact errors).
    fn summarize_precisely(mut self) -> Result<RecordsSummary> {
        let h = self.header;
        let mut sum = RecordsSummary::default();
        let mut prev_delta: Option<i32> = None;
        let mut max_delta = i64::MIN;
        while self.left > 0 {
            if self.cursor.is_empty() {
                let e = Error::at(
                    self.cursor.position(),
                    ErrorKind::RecordCount { declared: h.records_count, found: sum.count },
                );
                return Err(self.locate(e));
            }
            let r = match parse_record(&mut self.cursor) {
                Ok(r) => r,
                Err(e) => return Err(self.locate(e)),
            };
            if sum.bad_offset_delta.is_none()
                && (r.offset_delta < 0
                    || r.offset_delta > h.last_offset_delta
                    || prev_delta.is_some_and(|p| r.offset_delta <= p))
            {
                sum.bad_offset_delta = Some((r.offset_delta, prev_delta));
            }
            prev_delta = Some(r.offset_delta);
            sum.first_timestamp_delta.get_or_insert(r.timestamp_delta);
            max_delta = max_delta.max(r.timestamp_delta);
            sum.count = sum.count.saturating_add(1);
            self.left = self.left.saturating_sub(1);
        }
        if !self.cursor.is_empty() {
            let e = Error::at(
                self.cursor.position(),
                ErrorKind::TrailingBytes { what: "last record of the batch", bytes: self.cursor.remaining() as u64 },
            );
            return Err(self.locate(e));
        }
        if sum.count > 0 {
            sum.max_timestamp = Some(match h.timestamp_type() {
                TimestampType::LogAppendTime => h.max_timestamp,
                _ => h.base_timestamp.wrapping_add(max_delta),
            });
        }
        Ok(sum)
    }
}

/// A zigzag varint of at most 3 bytes (21 bits: no overflow possible); `None`
/// for anything else, which the precise parser then judges.
#[inline(always)]
fn quick_varint(buf: &[u8], i: &mut usize) -> Option<i64> {
    let at = *i;
    let b0 = u32::from(*buf.get(at)?);
    let raw = if b0 < 0x80 {
        *i = at.wrapping_add(1);
        b0
    } else {
        let b1 = u32::from(*buf.get(at.wrapping_add(1))?);
        if b1 < 0x80 {
            *i = at.wrapping_add(2);
            (b0 & 0x7f) | (b1 << 7)
        } else {
            let b2 = u32::from(*buf.get(at.wrapping_add(2))?);
            if b2 >= 0x80 {
                return None;
            }
            *i = at.wrapping_add(3);
            (b0 & 0x7f) | ((b1 & 0x7f) << 7) | (b2 << 14)
        }
    };
    Some(i64::from(raw >> 1) ^ i64::from(raw & 1).wrapping_neg())
}

/// Skip a length-prefixed field (`-1` = null when `nullable`).
#[inline(always)]
fn quick_skip(buf: &[u8], i: &mut usize, nullable: bool) -> Option<()> {
    let n = quick_varint(buf, i)?;
    if n >= 0 {
        let n = usize::try_from(n).ok()?;
        *i = i.checked_add(n).filter(|&e| e <= buf.len())?;
    } else if !(nullable && n == -1) {
        return None;
    }
    Some(())
}

/// The summary of `count` well-formed records in `data`, or `None` when
/// anything is unusual (a varint longer than 3 bytes, a bad length, leftover
/// bytes, ...): then the precise parser decides. On valid input it agrees
/// with [`Records::summarize_precisely`] (tested).
fn fast_summary(data: &[u8], h: &BatchHeader, count: i32) -> Option<RecordsSummary> {
    let mut sum = RecordsSummary::default();
    let mut i = 0usize;
    let mut prev_delta: Option<i32> = None;
    let mut max_delta = i64::MIN;
    for _ in 0..count {
        let len = usize::try_from(quick_varint(data, &mut i)?).ok()?;
        let end = i.checked_add(len).filter(|&e| e <= data.len())?;
        let body = data.get(i..end)?;
        i = end;
        let mut j = 1usize; // attributes
        let ts_delta = quick_varint(body, &mut j)?;
        let offset_delta = i32::try_from(quick_varint(body, &mut j)?).ok()?;
        quick_skip(body, &mut j, true)?; // key
        quick_skip(body, &mut j, true)?; // value
        let headers = quick_varint(body, &mut j)?;
        if headers < 0 {
            return None;
        }
        for _ in 0..headers {
            quick_skip(body, &mut j, false)?;
            quick_skip(body, &mut j, true)?;
        }
        if j != body.len() {
            return None;
        }
        if sum.bad_offset_delta.is_none()
            && (offset_delta < 0 || offset_delta > h.last_offset_delta || prev_delta.is_some_and(|p| offset_delta <= p))
        {
            sum.bad_offset_delta = Some((offset_delta, prev_delta));
        }
        prev_delta = Some(offset_delta);
        sum.first_timestamp_delta.get_or_insert(ts_delta);
        max_delta = max_delta.max(ts_delta);
        sum.count = sum.count.saturating_add(1);
    }
    if i != data.len() {
        return None;
    }
    if sum.count > 0 {
        sum.max_timestamp = Some(match h.timestamp_type() {
            TimestampType::LogAppendTime => h.max_timestamp,
            _ => h.base_timestamp.wrapping_add(max_delta),
        });
    }
    Some(sum)
}

/// What [`Records::summarize`] learned about a batch's records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordsSummary {
    /// Records read.
    pub count: i32,
    /// Largest record timestamp (CreateTime: base + delta; LogAppendTime: the
    /// batch's maxTimestamp); `None` without records.
    pub max_timestamp: Option<i64>,
    /// The first record's timestamp delta (Kafka writes 0 unless the cleaner
    /// set a delete horizon).
    pub first_timestamp_delta: Option<i64>,
    /// The first record whose offset delta is negative, above
    /// lastOffsetDelta or not above the previous one: (delta, previous delta).
    pub bad_offset_delta: Option<(i32, Option<i32>)>,
}

/// A record's fields as stored.
struct RawRecord<'a> {
    length: i32,
    attributes: i8,
    timestamp_delta: i64,
    offset_delta: i32,
    key: Option<&'a [u8]>,
    value: Option<&'a [u8]>,
    headers: Headers<'a>,
}

/// Parse one record (`DefaultRecord.readFrom`): it must use exactly its length.
#[inline(always)]
fn parse_record<'a>(c: &mut Cursor<'a>) -> Result<RawRecord<'a>> {
    let at = c.position();
    let length = c.varint("record length")?;
    if length < 0 {
        return Err(Error::at(
            at,
            ErrorKind::BadLength { what: "record length", value: length.into(), min: 0, max: c.remaining() as i64 },
        ));
    }
    let body_at = c.position();
    let body = c.bytes(length as usize, "record")?;
    let mut b = Cursor::new(body, body_at, End::Enclosing("record"));
    let attributes = b.i8("record attributes")?;
    let timestamp_delta = b.varlong("timestampDelta")?;
    let offset_delta = b.varint("offsetDelta")?;
    let len_at = b.position();
    let key_len = b.varint("keyLength")?;
    let key = match b.nullable_len(key_len.into(), "key", len_at)? {
        Some(n) => Some(b.bytes(n, "key")?),
        None => None,
    };
    let len_at = b.position();
    let value_len = b.varint("valueLength")?;
    let value = match b.nullable_len(value_len.into(), "value", len_at)? {
        Some(n) => Some(b.bytes(n, "value")?),
        None => None,
    };
    let count_at = b.position();
    let header_count = b.varint("headerCount")?;
    // each header takes at least 2 bytes (two length varints)
    let max_headers = (b.remaining() / 2) as i64;
    if header_count < 0 || i64::from(header_count) > max_headers {
        return Err(Error::at(
            count_at,
            ErrorKind::BadLength { what: "headerCount", value: header_count.into(), min: 0, max: max_headers },
        ));
    }
    let headers = Headers::read(&mut b, header_count as usize)?;
    if !b.is_empty() {
        return Err(Error::at(b.position(), ErrorKind::TrailingBytes { what: "record", bytes: b.remaining() as u64 }));
    }
    Ok(RawRecord { length, attributes, timestamp_delta, offset_delta, key, value, headers })
}

impl<'s> Iterator for Records<'s> {
    type Item = Result<Record<'s>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if self.left == 0 {
            self.done = true;
            if self.cursor.is_empty() {
                return None;
            }
            let e = Error::at(
                self.cursor.position(),
                ErrorKind::TrailingBytes { what: "last record of the batch", bytes: self.cursor.remaining() as u64 },
            );
            return Some(Err(self.locate(e)));
        }
        if self.cursor.is_empty() {
            self.done = true;
            let e = Error::at(
                self.cursor.position(),
                ErrorKind::RecordCount { declared: self.header.records_count, found: self.read },
            );
            return Some(Err(self.locate(e)));
        }
        match self.read_record() {
            Ok(r) => {
                self.left = self.left.saturating_sub(1);
                self.read = self.read.saturating_add(1);
                Some(Ok(r))
            }
            Err(e) => {
                self.done = true;
                Some(Err(self.locate(e)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path agrees with the precise parser wherever it answers.
    #[test]
    fn fast_summary_agrees_with_the_precise_parser() {
        use crate::write::batch::{BatchBuilder, NewRecord};
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let limits = Limits::default();
        let mut answered = 0;
        for round in 0..3000 {
            let mut b = BatchBuilder::new(100);
            let n = 1 + next() % 12;
            let value = vec![b'v'; (next() % 300) as usize];
            for k in 0..n {
                let key = format!("k{k}");
                let h: &[(&[u8], Option<&[u8]>)] = if k % 3 == 0 { &[(b"h", Some(b"x")), (b"n", None)] } else { &[] };
                let ts = 1_000_000 + (next() % 100_000) as i64;
                b.push(&NewRecord {
                    timestamp: ts,
                    key: (k % 4 != 0).then_some(key.as_bytes()),
                    value: Some(&value),
                    headers: h,
                });
            }
            let mut bytes = b.build();
            // mutate a few payload bytes (and sometimes the count)
            for _ in 0..(round % 4) {
                let at = 61 + (next() as usize) % (bytes.len() - 61);
                bytes[at] = next() as u8;
            }
            if round % 7 == 0 {
                bytes[60] = bytes[60].wrapping_add(1);
            }
            let Ok(batch) = RecordBatch::parse(&bytes, 0) else { continue };
            let mut scratch = Vec::new();
            let Ok(records) = batch.records(&mut scratch, &limits) else { continue };
            let fast = fast_summary(records.cursor.rest(), batch.header(), records.left);
            let precise = records.summarize_precisely();
            if let Some(f) = fast {
                answered += 1;
                assert_eq!(Ok(f), precise.map_err(|e| e.to_string()), "round {round}");
            }
        }
        assert!(answered > 1000, "the fast path answered only {answered} times");
    }

    #[test]
    fn sequence_wraps_like_java() {
        assert_eq!(increment_sequence(5, 3), 8);
        assert_eq!(increment_sequence(i32::MAX, 1), 0);
        assert_eq!(increment_sequence(i32::MAX - 1, 3), 1);
        assert_eq!(decrement_sequence(8, 3), 5);
        assert_eq!(decrement_sequence(1, 3), i32::MAX - 1);
        assert_eq!(decrement_sequence(0, 1), i32::MAX);
    }
}
