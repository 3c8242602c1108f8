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

use crate::compression::{Compression, Decoded, DecompressError, Inflater, Input};
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

/// The fields that frame a v2 batch in a log - base offset, batch length,
/// last offset delta - from its first [`Framing::SIZE`] bytes, unchecked
/// (no CRC, no magic): what steps from batch to batch through bytes known
/// to be whole batches (`FileLogInputStream`'s framing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framing {
    /// baseOffset.
    pub base_offset: i64,
    /// batchLength: the bytes after the length field.
    pub batch_length: i32,
    /// lastOffsetDelta.
    pub last_offset_delta: i32,
}

impl Framing {
    /// Bytes it is read from: up to the end of lastOffsetDelta.
    pub const SIZE: usize = layout::LAST_OFFSET_DELTA_OFFSET + 4;

    /// Read from the start of `bytes`; None when fewer than [`Framing::SIZE`].
    pub fn read(bytes: &[u8]) -> Option<Framing> {
        let i64_at = |at: usize| bytes.get(at..at.checked_add(8)?)?.try_into().ok().map(i64::from_be_bytes);
        let i32_at = |at: usize| bytes.get(at..at.checked_add(4)?)?.try_into().ok().map(i32::from_be_bytes);
        Some(Framing {
            base_offset: i64_at(layout::BASE_OFFSET_OFFSET)?,
            batch_length: i32_at(layout::LENGTH_OFFSET)?,
            last_offset_delta: i32_at(layout::LAST_OFFSET_DELTA_OFFSET)?,
        })
    }

    /// The size of the log entry starting at `bytes` (any format: offset and
    /// size fields, then `size` bytes), from its size field alone; None
    /// when `bytes` does not reach past it. A negative size counts as 0.
    pub fn entry_size(bytes: &[u8]) -> Option<u64> {
        use crate::spec::log::{LOG_OVERHEAD, SIZE_OFFSET};
        let size = i32::from_be_bytes(bytes.get(SIZE_OFFSET..SIZE_OFFSET.checked_add(4)?)?.try_into().ok()?);
        Some(u64::try_from(size).unwrap_or(0).saturating_add(LOG_OVERHEAD as u64))
    }

    /// The whole batch's size, length field included (0 for a negative length).
    pub fn size(&self) -> u64 {
        u64::try_from(self.batch_length).unwrap_or(0).saturating_add(crate::spec::log::LOG_OVERHEAD as u64)
    }

    /// The offset after its last record.
    pub fn next_offset(&self) -> i64 {
        self.base_offset.saturating_add(i64::from(self.last_offset_delta)).saturating_add(1)
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

/// Where a batch too large to hold lies: its file, read again when its
/// checksum or records are asked for ([`RecordBatch::in_memory`] is `None`).
#[derive(Clone, Debug)]
pub struct Spilled {
    /// The file the batch is in.
    pub path: std::sync::Arc<std::path::Path>,
}

/// A borrowed v2 record batch: its bytes in memory, or (a batch too large
/// to hold) its header, with its other bytes read from its file as they are
/// needed.
#[derive(Clone, Copy, Debug)]
pub struct RecordBatch<'a> {
    header: BatchHeader,
    /// The whole batch, or its header when spilled.
    bytes: &'a [u8],
    position: u64,
    spilled: Option<&'a Spilled>,
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
        Ok(RecordBatch { header, bytes, position, spilled: None })
    }

    /// A batch of `size` bytes at `position` of the file `spilled` names,
    /// of which only its header `head` (at least 61 bytes) is in memory.
    pub fn spilled(head: &'a [u8], position: u64, size: u64, spilled: &'a Spilled) -> Result<RecordBatch<'a>> {
        let head = head.get(..layout::RECORD_BATCH_OVERHEAD).unwrap_or(head);
        let header = BatchHeader::read(&mut Cursor::new(head, position, End::File))?;
        if header.magic != MAGIC_VALUE_V2 {
            return Err(Error::at(position.saturating_add(16), ErrorKind::BadMagic { magic: header.magic }));
        }
        if u64::try_from(header.size_in_bytes()).ok() != Some(size) {
            return Err(Error::malformed(
                position.saturating_add(8),
                "record batch",
                format!("batchLength {} does not match the {size} bytes given", header.batch_length),
            ));
        }
        Ok(RecordBatch { header, bytes: head, position, spilled: Some(spilled) })
    }

    /// Its size in bytes, the offset+length prefix included.
    pub fn size(&self) -> u64 {
        match self.spilled {
            Some(_) => u64::try_from(self.header.size_in_bytes()).unwrap_or(0),
            None => self.bytes.len() as u64,
        }
    }

    /// The batch's bytes read from its file: `[from, end)` of the batch.
    fn spilled_input(&self, from: usize) -> Option<std::io::Result<crate::compression::FileInput>> {
        let s = self.spilled?;
        let start = self.position.saturating_add(from as u64);
        Some(crate::compression::FileInput::open(&s.path, start, self.position.saturating_add(self.size())))
    }

    /// The header fields.
    pub fn header(&self) -> &BatchHeader {
        &self.header
    }

    /// Absolute position of the batch's first byte in its file.
    pub fn position(&self) -> u64 {
        self.position
    }

    /// All bytes of the batch, when they are in memory (`None` for a batch
    /// too large to hold, read from its file: [`RecordBatch::spilled`]).
    pub fn in_memory(&self) -> Option<&'a [u8]> {
        self.spilled.is_none().then_some(self.bytes)
    }

    /// The CRC-32C of the bytes the stored CRC covers (for a spilled batch,
    /// read from its file; one that cannot be read gives a CRC that does not
    /// match the stored one).
    pub fn compute_crc(&self) -> u32 {
        let Some(input) = self.spilled_input(layout::ATTRIBUTES_OFFSET) else {
            return crate::crc::crc32c(self.bytes.get(layout::ATTRIBUTES_OFFSET..).unwrap_or_default());
        };
        let mut input = match input {
            Ok(f) => crate::compression::Input::File(f),
            Err(_) => return !self.header.crc,
        };
        let mut crc = 0u32;
        loop {
            match std::io::BufRead::fill_buf(&mut input) {
                Ok([]) => return crc,
                Ok(chunk) => {
                    crc = crate::crc::crc32c_append(crc, chunk);
                    let n = chunk.len();
                    std::io::BufRead::consume(&mut input, n);
                }
                Err(_) => return !self.header.crc,
            }
        }
    }

    /// Kafka's `isValid`: big enough and the CRC matches.
    pub fn is_valid(&self) -> bool {
        self.size() >= layout::RECORD_BATCH_OVERHEAD as u64 && self.compute_crc() == self.header.crc
    }

    /// Bytes of the records region (possibly compressed).
    pub fn payload_size(&self) -> u64 {
        self.size().saturating_sub(layout::RECORDS_OFFSET as u64)
    }

    /// The records, decoded as they are read: straight from the batch's bytes
    /// when it is not compressed, else from the decompressor through a
    /// window in `scratch` ([`Decoded`]), so memory does not follow the
    /// decompressed size.
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
            let c = Cursor::new(&[], payload_pos, End::Enclosing("record batch"));
            return Ok(Records::new(h, Src::Plain(c), payload_pos, limits, 0));
        }
        let input = match self.spilled_input(layout::RECORDS_OFFSET) {
            None => Input::Slice(self.bytes.get(layout::RECORDS_OFFSET..).unwrap_or_default()),
            Some(Ok(f)) => Input::File(f),
            Some(Err(e)) => return Err(Error::io(e, self.spilled.map(|s| &*s.path))),
        };
        if let (Compression::None, Input::Slice(payload)) = (codec, &input) {
            let c = Cursor::new(payload, payload_pos, End::Enclosing("record batch"));
            return Ok(Records::new(h, Src::Plain(c), payload_pos, limits, h.records_count));
        }
        // (a spilled batch's records stream from its file, compressed or not;
        // not compressed, their positions are the file's)
        let inflater =
            Inflater::of(codec, input, h.magic, limits).map_err(|e| decompress_error(e, codec, limits, payload_pos))?;
        let mut decoded = Decoded::new(inflater, scratch, limits);
        if codec == Compression::None {
            decoded = decoded.starting_at(payload_pos);
        }
        Ok(Records::new(h, Src::Stream(decoded, codec), payload_pos, limits, h.records_count))
    }
}

/// The error for a payload that did not decompress, at `at` (the compressed
/// payload's position).
pub(crate) fn decompress_error(e: DecompressError, codec: Compression, limits: &Limits, at: u64) -> Error {
    match e {
        DecompressError::TooLarge => {
            Error::at(at, ErrorKind::DecompressedTooLarge { codec, limit: limits.max_decompressed_size })
        }
        DecompressError::Invalid(message) => Error::at(at, ErrorKind::Decompress { codec, message }),
        DecompressError::Memory(short) => short.error(at),
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

/// Where a batch's records are read from.
enum Src<'s> {
    /// The records region itself (not compressed).
    Plain(Cursor<'s>),
    /// The decompressor's output.
    Stream(Decoded<'s>, Compression),
}

/// The records of one batch, read one at a time ([`Records::next_record`];
/// a record borrows the reader until the next call), or checked all at once
/// ([`Records::summarize`]). After the declared number of records no bytes
/// may remain; the first error ends the records, except a record too large
/// for the memory budget, which is reported and skipped.
pub struct Records<'s> {
    header: BatchHeader,
    src: Src<'s>,
    limits: Limits,
    /// The file position of the records region.
    payload_at: u64,
    /// Compressed: errors inside the decompressed bytes are reported at
    /// `payload_at`, with their offset inside the decompressed bytes.
    compressed: bool,
    left: i32,
    read: i32,
    done: bool,
    /// Bytes of the record yielded last, consumed at the next call.
    pending: usize,
    /// What encloses the records (in errors).
    what: &'static str,
}

/// Most bytes of a varlong.
const MAX_VARLONG: usize = 10;

/// How the next record of a stream lies in its window.
enum Fill {
    /// Whole in the window (or malformed: the parser says how).
    Ready,
    /// No bytes are left.
    End,
    /// Larger than the window may grow: `total` bytes, length varint included.
    TooBig { total: u64, short: Option<crate::budget::Short> },
}

/// Make the record at the front of `d` whole in its window; with `grow`,
/// taking memory from the budget when it does not fit.
fn fill_record(d: &mut Decoded<'_>, grow: bool) -> std::result::Result<Fill, DecompressError> {
    d.fill(MAX_VARLONG)?;
    let avail = d.available();
    if avail.is_empty() {
        return Ok(Fill::End);
    }
    let mut c = Cursor::new(avail, 0, End::Enclosing("decompressed records"));
    let Ok(len) = c.varint("record length") else { return Ok(Fill::Ready) };
    let Ok(len) = usize::try_from(len) else { return Ok(Fill::Ready) };
    let total = c.consumed().saturating_add(len);
    if total <= avail.len() {
        return Ok(Fill::Ready);
    }
    if !grow && total > crate::compression::WINDOW {
        return Ok(Fill::TooBig { total: total as u64, short: None });
    }
    match d.fill(total) {
        Ok(()) => Ok(Fill::Ready),
        Err(DecompressError::Memory(short)) => Ok(Fill::TooBig { total: total as u64, short: Some(short) }),
        Err(e) => Err(e),
    }
}

impl<'s> Records<'s> {
    fn new(header: BatchHeader, src: Src<'s>, payload_at: u64, limits: &Limits, count: i32) -> Records<'s> {
        let compressed = matches!(src, Src::Stream(_, codec) if codec != Compression::None);
        let what = if compressed { "decompressed records" } else { "record batch" };
        Records {
            header,
            src,
            limits: *limits,
            payload_at,
            compressed,
            left: count,
            read: 0,
            done: false,
            pending: 0,
            what,
        }
    }

    /// Decompressed bytes read so far (the records region's size when not
    /// compressed); after the last record, the payload's decompressed size.
    pub fn decompressed_len(&self) -> u64 {
        match &self.src {
            Src::Plain(c) => (c.consumed().saturating_add(c.remaining())) as u64,
            Src::Stream(d, _) => d.produced(),
        }
    }

    /// Map an error inside decompressed bytes to the compressed payload's
    /// file position.
    fn locate(&self, e: Error) -> Error {
        locate(self.compressed, self.payload_at, e)
    }

    fn stream_error(&self, e: DecompressError) -> Error {
        let codec = match &self.src {
            Src::Stream(_, codec) => *codec,
            Src::Plain(_) => Compression::None,
        };
        decompress_error(e, codec, &self.limits, self.payload_at)
    }

    /// What is wrong once the declared records are read: bytes left over.
    fn trailing(&mut self) -> Result<()> {
        let (at, bytes) = match &mut self.src {
            Src::Plain(c) if c.is_empty() => return Ok(()),
            Src::Plain(c) => (c.position(), c.remaining() as u64),
            Src::Stream(d, _) => {
                let at = d.position();
                // (read through: how many, up to the decompression limit)
                match d.skip(u64::MAX) {
                    Ok(0) => return Ok(()),
                    Ok(n) => (at, n),
                    Err(e) => return Err(self.stream_error(e)),
                }
            }
        };
        let e = Error::at(at, ErrorKind::TrailingBytes { what: "last record of the batch", bytes });
        Err(self.locate(e))
    }

    fn missing(&self, at: u64) -> Error {
        let e = Error::at(at, ErrorKind::RecordCount { declared: self.header.records_count, found: self.read });
        self.locate(e)
    }

    fn record_of(h: &BatchHeader, r: RawRecord<'s>) -> Record<'s> {
        let timestamp = match h.timestamp_type() {
            TimestampType::LogAppendTime => h.max_timestamp,
            _ => h.base_timestamp.wrapping_add(r.timestamp_delta),
        };
        let sequence = if h.base_sequence >= 0 {
            increment_sequence(h.base_sequence, r.offset_delta)
        } else {
            layout::NO_SEQUENCE
        };
        Record {
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
        }
    }

    /// The next record; `None` after the last one or after an error.
    pub fn next_record(&mut self) -> Option<Result<Record<'_>>> {
        if self.done {
            return None;
        }
        if let Src::Stream(d, _) = &mut self.src {
            d.consume(std::mem::take(&mut self.pending));
        }
        if self.left == 0 {
            self.done = true;
            return self.trailing().err().map(Err);
        }
        // the next record whole in memory (a stream's window may grow for it)
        if let Src::Stream(d, _) = &mut self.src {
            match fill_record(d, true) {
                Ok(Fill::Ready) => {}
                Ok(Fill::End) => {
                    self.done = true;
                    let at = d.position();
                    return Some(Err(self.missing(at)));
                }
                Ok(Fill::TooBig { total, short }) => {
                    // reported, then read through without holding it
                    let at = if self.compressed { self.payload_at } else { d.position() };
                    let skipped = d.skip(total);
                    let short = short.unwrap_or_else(|| self.limits.budget.short("a record", total));
                    let e = crate::budget::Short { what: "a record", ..short }.error(at);
                    match skipped {
                        Ok(n) if n == total => {
                            self.left = self.left.saturating_sub(1);
                            self.read = self.read.saturating_add(1);
                        }
                        Ok(_) => self.done = true,
                        Err(x) => {
                            self.done = true;
                            return Some(Err(self.stream_error(x)));
                        }
                    }
                    return Some(Err(e));
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(self.stream_error(e)));
                }
            }
        }
        let h = self.header;
        // a usual record by the quick path, anything else by the precise parser
        let parsed = match &mut self.src {
            Src::Plain(c) if c.is_empty() => {
                Err(Error::at(c.position(), ErrorKind::RecordCount { declared: h.records_count, found: self.read }))
            }
            Src::Plain(c) => match fast_raw(c.rest()) {
                Some((end, r)) => {
                    // (within what the cursor holds: fast_raw checked it)
                    let _ = c.skip(end, "record");
                    Ok(Records::record_of(&h, r))
                }
                None => parse_record(c).map(|r| Records::record_of(&h, r)),
            },
            Src::Stream(d, _) => match fast_raw(d.available()) {
                Some((end, r)) => {
                    self.pending = end;
                    Ok(Records::record_of(&h, r))
                }
                None => {
                    let mut c = Cursor::new(d.available(), d.position(), End::Enclosing(self.what));
                    let r = parse_record(&mut c);
                    self.pending = c.consumed();
                    r.map(|r| Records::record_of(&h, r))
                }
            },
        };
        match parsed {
            Ok(r) => {
                self.left = self.left.saturating_sub(1);
                self.read = self.read.saturating_add(1);
                Some(Ok(r))
            }
            Err(e) => {
                self.done = true;
                Some(Err(locate(self.compressed, self.payload_at, e)))
            }
        }
    }

    /// Check the remaining records without building them (what `verify`
    /// needs, several times faster than reading them one by one): the same
    /// checks, plus a summary. A record larger than the decoder's window is
    /// checked as it streams past, never held.
    pub fn summarize(mut self) -> Result<RecordsSummary> {
        let h = self.header;
        let mut walk = Walk::new();
        if let Src::Stream(d, _) = &mut self.src {
            d.consume(std::mem::take(&mut self.pending));
        }
        while self.left > 0 {
            // the usual records in what is at hand, quickly
            let n = match &self.src {
                Src::Plain(c) => walk.fast(c.rest(), &h, &mut self.left),
                Src::Stream(d, _) => walk.fast(d.available(), &h, &mut self.left),
            };
            self.read = walk.sum.count;
            match &mut self.src {
                Src::Plain(c) => c.skip(n, "records")?,
                Src::Stream(d, _) => d.consume(n),
            }
            if self.left == 0 {
                break;
            }
            // one record through the full parser (exact errors), or streamed
            let raw = match &mut self.src {
                Src::Plain(c) if c.is_empty() => {
                    let at = c.position();
                    return Err(self.missing(at));
                }
                Src::Plain(c) => parse_record(c).map(|r| (r.timestamp_delta, r.offset_delta)),
                Src::Stream(d, _) => match fill_record(d, false) {
                    Ok(Fill::Ready) => {
                        let mut c = Cursor::new(d.available(), d.position(), End::Enclosing(self.what));
                        let r = parse_record(&mut c).map(|r| (r.timestamp_delta, r.offset_delta));
                        let used = c.consumed();
                        d.consume(used);
                        r
                    }
                    Ok(Fill::End) => {
                        let at = d.position();
                        return Err(self.missing(at));
                    }
                    Ok(Fill::TooBig { .. }) => match skim_record(d) {
                        Ok(r) => Ok(r),
                        Err(Skim::Bad(e)) => Err(e),
                        Err(Skim::Stream(e)) => return Err(self.stream_error(e)),
                    },
                    Err(e) => return Err(self.stream_error(e)),
                },
            };
            match raw {
                Ok((ts, delta)) => {
                    walk.see(&h, ts, delta);
                    self.left = self.left.saturating_sub(1);
                    self.read = walk.sum.count;
                }
                Err(e) => return Err(self.locate(e)),
            }
        }
        self.trailing()?;
        Ok(walk.finish(&h))
    }
}

/// An error inside a batch's records: as it is when they are not compressed
/// (its position is the file's), else at the compressed payload's position
/// `at`, naming its offset inside the decompressed bytes.
fn locate(compressed: bool, at: u64, e: Error) -> Error {
    if !compressed {
        return e;
    }
    let inner = e.position().unwrap_or(0);
    Error::at(
        at,
        ErrorKind::Malformed {
            what: "compressed records",
            detail: format!("at byte {inner} of the decompressed records: {}", e.kind()),
        },
    )
}

/// Why a streamed record could not be walked.
enum Skim {
    /// The record is malformed (positions in the decompressed bytes).
    Bad(Error),
    /// The stream failed.
    Stream(DecompressError),
}

/// Walk the record at the front of `d` as it streams past, checking what
/// [`parse_record`] checks without holding its key, value or headers:
/// returns its timestamp and offset deltas.
fn skim_record(d: &mut Decoded<'_>) -> std::result::Result<(i64, i32), Skim> {
    /// The bytes of the record body left to walk.
    struct Walker<'d, 's> {
        d: &'d mut Decoded<'s>,
        left: u64,
    }
    impl Walker<'_, '_> {
        fn field<T>(&mut self, f: impl FnOnce(&mut Cursor<'_>) -> Result<T>) -> std::result::Result<T, Skim> {
            self.d.fill(MAX_VARLONG).map_err(Skim::Stream)?;
            let avail = self.d.available();
            let room = avail.len().min(usize::try_from(self.left).unwrap_or(usize::MAX));
            let mut c = Cursor::new(avail.get(..room).unwrap_or_default(), self.d.position(), End::Enclosing("record"));
            let v = f(&mut c).map_err(Skim::Bad)?;
            let used = c.consumed();
            self.d.consume(used);
            self.left = self.left.saturating_sub(used as u64);
            Ok(v)
        }
        fn bytes(&mut self, n: u64, what: &'static str) -> std::result::Result<(), Skim> {
            if n > self.left {
                let e =
                    Error::at(self.d.position(), ErrorKind::OutOfBounds { what, needed: n.saturating_sub(self.left) });
                return Err(Skim::Bad(e));
            }
            let at = self.d.position();
            let got = self.d.skip(n).map_err(Skim::Stream)?;
            if got < n {
                let e = Error::at(at, ErrorKind::OutOfBounds { what: "record", needed: n.saturating_sub(got) });
                return Err(Skim::Bad(e));
            }
            self.left = self.left.saturating_sub(n);
            Ok(())
        }
        fn nullable(&mut self, what: &'static str) -> std::result::Result<(), Skim> {
            let at = self.d.position();
            let len = self.field(|c| c.varint(what))?;
            if len == -1 {
                return Ok(());
            }
            if len < 0 {
                let max = i64::try_from(self.left).unwrap_or(i64::MAX);
                return Err(Skim::Bad(Error::at(at, ErrorKind::BadLength { what, value: len.into(), min: -1, max })));
            }
            self.bytes(u64::from(len.unsigned_abs()), what)
        }
    }
    let at = d.position();
    let mut w = Walker { d, left: MAX_VARLONG as u64 };
    let length = w.field(|c| c.varint("record length"))?;
    if length < 0 {
        let e = Error::at(
            at,
            ErrorKind::BadLength { what: "record length", value: length.into(), min: 0, max: i32::MAX.into() },
        );
        return Err(Skim::Bad(e));
    }
    w.left = u64::from(length.unsigned_abs());
    w.field(|c| c.i8("record attributes"))?;
    let timestamp_delta = w.field(|c| c.varlong("timestampDelta"))?;
    let offset_delta = w.field(|c| c.varint("offsetDelta"))?;
    w.nullable("key")?;
    w.nullable("value")?;
    let count_at = w.d.position();
    let header_count = w.field(|c| c.varint("headerCount"))?;
    let max_headers = i64::try_from(w.left / 2).unwrap_or(i64::MAX);
    if header_count < 0 || i64::from(header_count) > max_headers {
        let e = Error::at(
            count_at,
            ErrorKind::BadLength { what: "headerCount", value: header_count.into(), min: 0, max: max_headers },
        );
        return Err(Skim::Bad(e));
    }
    for _ in 0..header_count {
        let len_at = w.d.position();
        let key_len = w.field(|c| c.varint("header key length"))?;
        if key_len < 0 {
            let max = i64::try_from(w.left).unwrap_or(i64::MAX);
            let e = Error::at(
                len_at,
                ErrorKind::BadLength { what: "header key length", value: key_len.into(), min: 0, max },
            );
            return Err(Skim::Bad(e));
        }
        w.bytes(u64::from(key_len.unsigned_abs()), "header key")?;
        w.nullable("header value")?;
    }
    if w.left > 0 {
        let e = Error::at(w.d.position(), ErrorKind::TrailingBytes { what: "record", bytes: w.left });
        return Err(Skim::Bad(e));
    }
    Ok((timestamp_delta, offset_delta))
}

/// What [`Records::summarize`] keeps while it walks.
struct Walk {
    sum: RecordsSummary,
    prev_delta: Option<i32>,
    max_delta: i64,
}

impl Walk {
    fn new() -> Walk {
        Walk { sum: RecordsSummary::default(), prev_delta: None, max_delta: i64::MIN }
    }

    /// Account one record.
    #[inline(always)]
    fn see(&mut self, h: &BatchHeader, timestamp_delta: i64, offset_delta: i32) {
        if self.sum.bad_offset_delta.is_none()
            && (offset_delta < 0
                || offset_delta > h.last_offset_delta
                || self.prev_delta.is_some_and(|p| offset_delta <= p))
        {
            self.sum.bad_offset_delta = Some((offset_delta, self.prev_delta));
        }
        self.prev_delta = Some(offset_delta);
        self.sum.first_timestamp_delta.get_or_insert(timestamp_delta);
        self.max_delta = self.max_delta.max(timestamp_delta);
        self.sum.count = self.sum.count.saturating_add(1);
    }

    fn finish(mut self, h: &BatchHeader) -> RecordsSummary {
        if self.sum.count > 0 {
            self.sum.max_timestamp = Some(match h.timestamp_type() {
                TimestampType::LogAppendTime => h.max_timestamp,
                _ => h.base_timestamp.wrapping_add(self.max_delta),
            });
        }
        self.sum
    }

    /// Account the usual records at the front of `data` (at most `left`),
    /// each whole in it: returns the bytes they span. Stops before a record
    /// that is cut off or unusual (a varint longer than 3 bytes, a bad
    /// length, ...): the precise parser judges that one. On valid input it
    /// agrees with the precise parser (tested).
    fn fast(&mut self, data: &[u8], h: &BatchHeader, left: &mut i32) -> usize {
        let mut i = 0usize;
        while *left > 0 {
            let Some((end, ts_delta, offset_delta)) = fast_record(data, i) else { break };
            self.see(h, ts_delta, offset_delta);
            i = end;
            *left = left.saturating_sub(1);
        }
        i
    }
}

/// One usual record at `data[i..]`: (its end, timestamp delta, offset delta).
#[inline(always)]
fn fast_record(data: &[u8], mut i: usize) -> Option<(usize, i64, i32)> {
    let len = usize::try_from(quick_varint(data, &mut i)?).ok()?;
    let end = i.checked_add(len).filter(|&e| e <= data.len())?;
    let body = data.get(i..end)?;
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
    (j == body.len()).then_some((end, ts_delta, offset_delta))
}

/// One usual record at the start of `data`, read by the quick path: its end
/// and its fields, exactly what [`parse_record`] reads of it (`None` for
/// anything the precise parser must judge: a varint over 3 bytes, a bad
/// length, a header with a null key, bytes left over).
#[inline(always)]
fn fast_raw(data: &[u8]) -> Option<(usize, RawRecord<'_>)> {
    let mut i = 0usize;
    let len = usize::try_from(quick_varint(data, &mut i)?).ok()?;
    let end = i.checked_add(len).filter(|&e| e <= data.len())?;
    let body = data.get(i..end)?;
    let attributes = i8::from_be_bytes([*body.first()?]);
    let mut j = 1usize;
    let timestamp_delta = quick_varint(body, &mut j)?;
    let offset_delta = i32::try_from(quick_varint(body, &mut j)?).ok()?;
    let field = |j: &mut usize| -> Option<Option<&[u8]>> {
        Some(quick_field(body, j)?.map(|(at, n)| body.get(at..at.saturating_add(n)).unwrap_or_default()))
    };
    let key = field(&mut j)?;
    let value = field(&mut j)?;
    let count = quick_varint(body, &mut j)?;
    if count < 0 {
        return None;
    }
    let headers_at = j;
    for _ in 0..count {
        quick_skip(body, &mut j, false)?;
        quick_skip(body, &mut j, true)?;
    }
    if j != body.len() {
        return None;
    }
    let headers = Headers { raw: body.get(headers_at..).unwrap_or_default(), count: usize::try_from(count).ok()? };
    let length = i32::try_from(len).ok()?;
    Some((end, RawRecord { length, attributes, timestamp_delta, offset_delta, key, value, headers }))
}

/// A nullable length-prefixed field at `buf[*i..]`: `Some(None)` when null,
/// `Some(Some((start, len)))` else; `None` for what the precise parser
/// must judge.
#[inline(always)]
fn quick_field(buf: &[u8], i: &mut usize) -> Option<Option<(usize, usize)>> {
    match quick_varint(buf, i)? {
        -1 => Some(None),
        n => {
            let n = usize::try_from(n).ok()?;
            let at = *i;
            *i = at.checked_add(n).filter(|&e| e <= buf.len())?;
            Some(Some((at, n)))
        }
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
            // (the range of the field: what remains depends on how much of a
            // stream is at hand, and a length past it is reported as such)
            ErrorKind::BadLength { what: "record length", value: length.into(), min: 0, max: i32::MAX.into() },
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift64 sequence from `seed` (test data that is the same every run).
    fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// What [`Records::summarize`] must say, from reading record by record.
    fn by_records(batch: &RecordBatch<'_>, limits: &Limits) -> std::result::Result<RecordsSummary, String> {
        let mut scratch = Vec::new();
        let mut records = batch.records(&mut scratch, limits).map_err(|e| e.to_string())?;
        let mut walk = Walk::new();
        while let Some(r) = records.next_record() {
            let r = r.map_err(|e| e.to_string())?;
            walk.see(batch.header(), r.timestamp_delta, r.offset_delta);
        }
        Ok(walk.finish(batch.header()))
    }

    fn summarize(batch: &RecordBatch<'_>, limits: &Limits) -> std::result::Result<RecordsSummary, String> {
        let mut scratch = Vec::new();
        batch.records(&mut scratch, limits).and_then(Records::summarize).map_err(|e| e.to_string())
    }

    /// `bytes` (an uncompressed batch) with its records region compressed by `codec`.
    fn recompressed(bytes: &[u8], codec: Compression) -> Vec<u8> {
        let payload = crate::builder::compress(codec, &bytes[61..]);
        let mut out = bytes[..61].to_vec();
        out.extend(&payload);
        let len = (out.len() - 12) as i32;
        out[8..12].copy_from_slice(&len.to_be_bytes());
        let attributes = (i16::from_be_bytes([out[21], out[22]]) & !7) | i16::from(codec.id());
        out[21..23].copy_from_slice(&attributes.to_be_bytes());
        out
    }

    const CODECS: [Compression; 4] = [Compression::Gzip, Compression::Snappy, Compression::Lz4, Compression::Zstd];

    /// The fast path and the stream agree with the precise parser, on
    /// valid and damaged records, in every codec.
    #[test]
    fn summarize_agrees_with_reading_record_by_record() {
        use crate::builder::{BatchBuilder, NewRecord};
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let limits = Limits::default();
        let mut ok = 0;
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
            let want = by_records(&batch, &limits);
            assert_eq!(summarize(&batch, &limits), want, "round {round}");
            ok += usize::from(want.is_ok());
            let codec = CODECS[round % 4];
            let z = recompressed(&bytes, codec);
            let zb = RecordBatch::parse(&z, 0).unwrap();
            let got = summarize(&zb, &limits);
            assert_eq!(got.is_ok(), want.is_ok(), "round {round} {codec:?}: {got:?} vs {want:?}");
            if want.is_ok() {
                assert_eq!(got, want, "round {round} {codec:?}");
                assert_eq!(by_records(&zb, &limits), want, "round {round} {codec:?}");
            }
        }
        assert!(ok > 1000, "only {ok} valid batches");
    }

    /// The quick path of `next_record` reads exactly what the precise
    /// parser reads, record by record, on valid and damaged batches; where
    /// it fails, it fails at the same record.
    #[test]
    fn quick_record_paths_agree_with_the_precise_parser() {
        use crate::builder::{BatchBuilder, NewRecord};
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let limits = Limits::default();
        let (mut records, mut failed) = (0, 0);
        for round in 0..3000 {
            let mut b = BatchBuilder::new(100);
            for k in 0..1 + next() % 12 {
                let key = format!("k{k}");
                let value = vec![b'v'; (next() % 300) as usize];
                let h: &[(&[u8], Option<&[u8]>)] = if k % 3 == 0 { &[(b"h", Some(b"x")), (b"n", None)] } else { &[] };
                let ts = 1_000_000 + (next() % 2_000_000) as i64;
                let value = (k % 5 != 1).then_some(&value[..]);
                b.push(&NewRecord { timestamp: ts, key: (k % 4 != 0).then_some(key.as_bytes()), value, headers: h });
            }
            let mut bytes = b.build();
            for _ in 0..(round % 4) {
                let at = 61 + (next() as usize) % (bytes.len() - 61);
                bytes[at] = next() as u8;
            }
            let Ok(batch) = RecordBatch::parse(&bytes, 0) else { continue };
            let h = *batch.header();
            // the precise parser alone, record by record
            let mut c = Cursor::new(&bytes[61..], 61, End::Enclosing("records"));
            let mut precise = Vec::new();
            for _ in 0..h.records_count.max(0) {
                match parse_record(&mut c) {
                    Ok(r) => precise.push(Some(Records::record_of(&h, r))),
                    Err(_) => {
                        precise.push(None);
                        break;
                    }
                }
            }
            let mut scratch = Vec::new();
            let mut quick = batch.records(&mut scratch, &limits).unwrap();
            for (i, want) in precise.iter().enumerate() {
                let got = quick.next_record().and_then(|r| r.ok());
                assert_eq!(got.as_ref(), want.as_ref(), "round {round} record {i}");
                records += usize::from(want.is_some());
                failed += usize::from(want.is_none());
            }
        }
        assert!(records > 10_000 && failed > 100, "{records} records, {failed} failures");
    }

    /// Records around and far beyond the decoder's window, in every codec:
    /// read whole (the window grows from the budget) or, by `summarize`,
    /// walked as they stream past.
    #[test]
    fn records_larger_than_the_window() {
        use crate::builder::{BatchBuilder, NewRecord};
        let sizes = [10, WINDOW_SIZE - 20, WINDOW_SIZE + 7, 3 * WINDOW_SIZE, 50, 2 << 20, 9];
        let mut b = BatchBuilder::new(7);
        let values: Vec<Vec<u8>> =
            sizes.iter().enumerate().map(|(i, &n)| (0..n).map(|j| (i * 31 + j / 7) as u8).collect()).collect();
        for (i, v) in values.iter().enumerate() {
            let h: &[(&[u8], Option<&[u8]>)] = &[(b"h", Some(&v[..v.len().min(300)]))];
            b.push(&NewRecord { timestamp: 1_000 + i as i64, key: Some(b"k"), value: Some(v), headers: h });
        }
        let plain = b.build();
        let limits = Limits::default();
        let want = by_records(&RecordBatch::parse(&plain, 0).unwrap(), &limits).unwrap();
        assert_eq!(want.count, sizes.len() as i32);
        for codec in CODECS {
            let z = recompressed(&plain, codec);
            let batch = RecordBatch::parse(&z, 0).unwrap();
            assert_eq!(summarize(&batch, &limits), Ok(want), "{codec:?}");
            let mut scratch = Vec::new();
            let mut records = batch.records(&mut scratch, &limits).unwrap();
            let mut i = 0;
            while let Some(r) = records.next_record() {
                let r = r.unwrap();
                assert_eq!(r.value, Some(&values[i][..]), "{codec:?} record {i}");
                assert_eq!(r.headers.iter().next().unwrap().value.unwrap().len(), values[i].len().min(300));
                i += 1;
            }
            assert_eq!(i, sizes.len());
            assert_eq!(records.decompressed_len(), (plain.len() - 61) as u64);
            drop(records);
            assert!(scratch.capacity() <= WINDOW_SIZE, "{codec:?}: the window is given back");
        }
        // a budget too small for the 2 MiB record: summarize walks it, reading
        // reports it and goes on; nothing is held afterwards
        let budget = crate::budget::Budget::leak(1 << 20);
        let small = Limits { budget, ..Limits::default() };
        for codec in [Compression::Gzip, Compression::Snappy, Compression::Lz4] {
            let z = recompressed(&plain, codec);
            let batch = RecordBatch::parse(&z, 0).unwrap();
            assert_eq!(summarize(&batch, &small), Ok(want), "{codec:?}");
            let mut scratch = Vec::new();
            let mut records = batch.records(&mut scratch, &small).unwrap();
            let mut seen = Vec::new();
            while let Some(r) = records.next_record() {
                match r {
                    Ok(r) => seen.push(r.offset),
                    Err(e) => {
                        assert!(matches!(e.kind(), ErrorKind::MemoryBudget { .. }), "{codec:?}: {e}");
                        seen.push(-1);
                    }
                }
            }
            assert_eq!(seen, vec![7, 8, 9, 10, 11, -1, 13], "{codec:?}");
            drop(records);
            assert_eq!(budget.used(), 0);
            assert!(budget.peak() <= 1 << 20);
        }
        // a zstd window the budget cannot give is an error of its own kind
        let z = recompressed(&plain, Compression::Zstd);
        let batch = RecordBatch::parse(&z, 0).unwrap();
        let mut scratch = Vec::new();
        let e = batch.records(&mut scratch, &small).err().unwrap();
        assert!(matches!(e.kind(), ErrorKind::MemoryBudget { .. }), "{e}");
        assert_eq!(e.position(), Some(61));
    }

    const WINDOW_SIZE: usize = crate::compression::WINDOW;

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
